"""The showdown's winners (pokerkit, through controller.core.showdown) against the brute-force
reference evaluator of tests/unit/core/test_showdown_crosscheck.py, over many seeded deals: the agreement
and the speed of each.

The deals cycle through hold'em, Omaha and Omaha hi-lo, two to ``--most`` seats each, with a
full board; a disagreement is printed with its cards and the run exits 1. The speeds are hands
read per second of this process's CPU time, so a machine shared with other work does not skew
them.

    .venv/bin/python bench/eval_crosscheck.py [--deals 100000] [--most 3] [--seed 17]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.core.showdown import showdown  # noqa: E402
from rig.crosscheck import (  # noqa: E402
    deals, ref_holdem, ref_omaha, ref_omaha_low, winners,
)

GAMES = ("holdem", "omaha", "omaha8")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=100_000)
    ap.add_argument("--most", type=int, default=3, help="most seats in a deal (at least 2)")
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    if args.deals < 1 or args.most < 2:
        ap.error("--deals must be at least 1 and --most at least 2")
    per_game = {g: args.deals // 3 + (1 if i < args.deals % 3 else 0) for i, g in enumerate(GAMES)}
    bad = 0
    print(f"{'game':8} {'deals':>8} {'hands':>8} {'agree':>8} {'ties':>6} {'pokerkit/s':>11} {'reference/s':>12}")
    for n, game in enumerate(GAMES):
        hole = 2 if game == "holdem" else 4
        dealt = list(deals(args.seed + n, per_game[game], args.most, hole))
        hands = sum(len(h) for h, _ in dealt)
        t0 = time.process_time()
        ours = [showdown(game, h, b, button=9) for h, b in dealt]
        t1 = time.process_time()
        theirs = []
        for h, b in dealt:
            ref = ref_holdem if game == "holdem" else ref_omaha
            high = winners({s: ref(c, b) for s, c in h.items()})
            if game == "omaha8":
                theirs.append((high, winners({s: ref_omaha_low(c, b) for s, c in h.items()}, low=True)))
            else:
                theirs.append((high,))
        t2 = time.process_time()
        agree = ties = 0
        for sd, ref_w, (h, b) in zip(ours, theirs, dealt, strict=True):
            assert sd is not None
            if sd.winners == ref_w:
                agree += 1
            else:
                bad += 1
                print(f"  DISAGREE {game}: {h} board {b}: showdown {sd.winners}, reference {ref_w}")
            ties += len(ref_w[0]) > 1
        speed = f"{hands / (t1 - t0):11.0f} {hands / (t2 - t1):12.0f}"
        print(f"{game:8} {len(dealt):8} {hands:8} {agree:8} {ties:6} {speed}")
    print("agreement:", "all deals" if bad == 0 else f"{bad} deals disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
