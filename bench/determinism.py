"""The same report on a busy machine: one script played again and again through
``tablectl simulate --json`` while busy loops hold the cores, every output compared byte for byte.

The script (``hw_sim.random_hands.busy_night_script``) is a mixed table of hold'em, stud and 2-7
triple draw under the harsh noise, with the shuffler, the reader unplugged while simulated time
passes, and a power cut (the daemon SIGKILLed and started again on its journal). What varies
from run to run is only the machine: its load, its speed, the threads' order.

    .venv/bin/python bench/determinism.py [--runs 10] [--busy 2] [--per 2] [--seed 7]

Prints one line a run (its time and the SHA-256 of its output), then whether every output was
identical; exits 1 if one differed (the differing outputs are kept in a folder it names).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hw_sim.random_hands import busy_night_script  # noqa: E402


def _spin() -> None:
    while True:
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--busy", type=int, default=os.cpu_count() or 2, help="busy loops held meanwhile (default: "
                    "one a core)")
    ap.add_argument("--per", type=int, default=2, help="hands of each game")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="tablectl-determinism-"))
    script = folder / "script.json"
    script.write_text(json.dumps(busy_night_script(args.seed, per=args.per)))
    hands = len(json.loads(script.read_text())["hands"])
    print(f"script: {hands} hands (hold'em, stud, 2-7 triple draw), harsh noise, a power cut; "
          f"{args.busy} busy loop(s) on {os.cpu_count()} core(s)")
    loops = [multiprocessing.Process(target=_spin, daemon=True) for _ in range(args.busy)]
    for p in loops:
        p.start()
    digests: dict[str, int] = {}
    try:
        for run in range(1, args.runs + 1):
            t0 = time.perf_counter()
            r = subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", str(script), "--json"],
                               capture_output=True, timeout=600)
            took = time.perf_counter() - t0
            if r.returncode != 0:
                print(f"run {run}: exit {r.returncode}: {r.stderr.decode(errors='replace')[-2000:]}")
                return 1
            digest = hashlib.sha256(r.stdout).hexdigest()
            if digest not in digests:
                (folder / f"output-{len(digests) + 1}.json").write_bytes(r.stdout)
            digests[digest] = digests.get(digest, 0) + 1
            print(f"run {run:2d}: {took:6.2f} s  {digest[:16]}  ({len(r.stdout)} bytes)", flush=True)
    finally:
        for p in loops:
            p.terminate()
    if len(digests) == 1:
        print(f"identical: all {args.runs} outputs the same")
        return 0
    print(f"DIFFERENT: {len(digests)} distinct outputs in {args.runs} runs; kept in {folder}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
