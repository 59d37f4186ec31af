"""Power cuts at random steps of a long session: the report as without them.

A session of ``--hands`` random hold'em hands at one table (``hw_sim.random_hands.random_session``,
now and then a seat eliminated), played through ``tablectl simulate --json`` once whole and once
with ``--cuts`` power cuts (``crash_after``: the daemon SIGKILLed after the step and started again
on its journal) at steps drawn at random. The two reports must be the same hand by hand (each
muck sorted: cards folded together land in any order under noise). The suite's test deals ten
hands with one cut after each kind of step (tests/e2e/test_journal.py); this is the wide sample.

    .venv/bin/python bench/power_cuts.py [--hands 50] [--cuts 12] [--seed 2026]

Prints the cuts, the time of each run and whether the reports agree; exits 1 if they do not (both
kept in a folder it names).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hw_sim.random_hands import random_session  # noqa: E402
from rig.scenarios import NOISE  # noqa: E402


def normal(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The report's hands, each muck sorted."""
    hands = json.loads(json.dumps(report["hands"]))
    for h in hands:
        if "muck" in h["zones"]:
            h["zones"]["muck"].sort()
    return hands


def simulate(folder: Path, name: str, script: dict[str, Any]) -> tuple[dict[str, Any] | None, float]:
    path = folder / f"{name}.json"
    path.write_text(json.dumps(script))
    t0 = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", str(path), "--json"],
                       capture_output=True, text=True, timeout=1800)
    took = time.perf_counter() - t0
    if r.returncode != 0:
        print(f"{name}: exit {r.returncode}: {r.stderr[-2000:]}")
        return None, took
    (folder / f"{name}-report.json").write_text(r.stdout)
    return json.loads(r.stdout), took


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=50)
    ap.add_argument("--cuts", type=int, default=12)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    script = random_session(args.seed, hands=args.hands, game="holdem", noise=dict(NOISE, seed=26), eliminate=0.03)
    steps = sum(len(h["steps"]) for h in script["hands"])  # (every hand ends with an "end" step)
    cuts = sorted(random.Random(args.seed).sample(range(1, steps + 1), min(args.cuts, steps)))
    folder = Path(tempfile.mkdtemp(prefix="tablectl-power-cuts-"))
    print(f"{args.hands} hands, {steps} steps; cuts after steps {cuts}")
    plain, t_plain = simulate(folder, "plain", script)
    cut, t_cut = simulate(folder, "cut", dict(script, crash_after=cuts))
    print(f"uncut: {t_plain:.1f} s; with {len(cuts)} cuts: {t_cut:.1f} s")
    if plain is None or cut is None:
        print(f"kept in {folder}")
        return 1
    want, got = normal(plain), normal(cut)
    if want == got:
        print(f"the same: {len(got)} hands")
        shutil.rmtree(folder, ignore_errors=True)
        return 0
    differ = [i + 1 for i, (w, g) in enumerate(zip(want, got, strict=False)) if w != g]
    print(f"DIFFERENT: {len(want)} hands uncut, {len(got)} cut; hands differing: {differ[:20]}; kept in {folder}")
    return 1


if __name__ == "__main__":
    sys.exit(main())
