"""The daemon's resident memory over many simulated hands (target: under 40 MB, and flat).

Runs ``tablectl run`` as a subprocess against the simulated reader, exactly as ``tablectl
simulate`` does, dealing random 9-handed hold'em hands under the deal-script noise model, and
reads the daemon's VmRSS from /proc every ``--every`` hands.

    .venv/bin/python bench/memory.py [--hands 1000] [--every 100]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hw_sim.simulate import run_script  # noqa: E402
from hw_sim import script as sc  # noqa: E402
from hw_sim.random_hands import random_script  # noqa: E402


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--every", type=int, default=100)
    args = ap.parse_args()
    script = sc.parse_script(json.dumps(random_script(5, hands=args.hands, game="holdem",
                                                      seats=[1, 2, 3, 4, 5, 6, 7, 8, 9],
                                                      noise={"seed": 5, "miss": 0.05, "repeat": 0.3,
                                                             "crosstalk": 0.01})))
    samples: list[tuple[int, float]] = []

    def sample(number, proc):  # type: ignore[no-untyped-def]
        if number == 1 or number % args.every == 0:
            samples.append((number, rss_mb(proc.pid)))
            print(f"after hand {number:>6}: daemon RSS {samples[-1][1]:.1f} MB", flush=True)

    work = Path(tempfile.mkdtemp(prefix="tablectl-mem-"))
    try:
        run_script(script, workdir=work, on_hand=sample)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    first, last = samples[0][1], samples[-1][1]
    peak = max(m for _, m in samples)
    mid = samples[len(samples) // 2]
    print(f"daemon RSS over {args.hands} hands: first {first:.1f} MB, peak {peak:.1f} MB, last {last:.1f} MB; "
          f"second half (hand {mid[0]} to {samples[-1][0]}): {last - mid[1]:+.1f} MB")


if __name__ == "__main__":
    main()
