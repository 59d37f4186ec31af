"""Issue 40's side-by-side count: the same hands through the FEIG reader and through the bridge
board (its firmware's own logic on simulated PN5180s, hw_sim/bridge_reader.py), in one run, under
the harsh noise, in process (the harness, on the wire).

The PHH sample's hold'em and Omaha hands (tests/data/phh), random clean hands of every game the
core deals, and one hand per dealer's fault of ``hw_sim.faults`` (hold'em and Omaha). Prints, per
reader: hands, cards, hands whose zones came out exact (as the script put them), alerts on the
clean hands (must be 0), faults found at their step (as tests/unit/hw_sim/test_faults_caught.py
expects them), the confirmation latency, and the time taken.

    .venv/bin/python bench/bridge_side_by_side.py [--random 2] [--phh 0 (all)] [--seed 40]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.core.settings import GAMES  # noqa: E402
from hw_sim.phh import load_phh_hands, phh_script  # noqa: E402
from hw_sim.random_hands import random_script  # noqa: E402
from rig.scenarios import NOISE, PHH_DIR, check_report, play  # noqa: E402
from rig.faulty import faulty_hands  # noqa: E402

HARSH = dict(NOISE, profile="harsh")


def exact(script: dict, report: dict) -> tuple[int, int]:
    """(hands whose zones came out as the script put them, loud alerts) of a clean script."""
    ok = 0
    for hand, got in zip(script["hands"], report["hands"], strict=True):
        try:
            check_report({"hands": [hand]}, {"hands": [got]})
            ok += 1
        except AssertionError:
            pass
    loud = sum(1 for h in report["hands"] for a in h["alerts"] if a["audience"] in ("dealer", "floor"))
    return ok, loud


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--random", type=int, default=2, help="random clean hands of each game")
    p.add_argument("--phh", type=int, default=0, help="PHH hands of each game (0: all)")
    p.add_argument("--seed", type=int, default=40)
    args = p.parse_args()
    clean: list[dict] = []
    loaded = load_phh_hands(PHH_DIR)
    for game in ("holdem", "omaha"):
        mine = [h for _, h, g in loaded if g == game]
        mine = mine[:args.phh] if args.phh else mine
        clean.append(phh_script(mine, game=game, noise=dict(HARSH, seed=9)))
    for i, game in enumerate(sorted(GAMES)):
        clean.append(random_script(args.seed + i, hands=args.random, game=game, vary_seats=True,
                                   noise=dict(HARSH, seed=args.seed + i)))
    faulty = []
    for game, seed in (("holdem", 11), ("omaha", 12)):
        hands, expected = faulty_hands(game, seed)
        faulty.append(({"format": 1, "game": game, "seats": hands[0]["seats"], "button": hands[0]["button"],
                        "noise": dict(HARSH, seed=seed), "hands": hands}, expected))
    print(f"{'':8} {'hands':>6} {'cards':>6} {'exact':>6} {'alerts':>6} {'faults found':>13} {'p50':>4} {'p99':>4} "
          f"{'seconds':>8}")
    for reader in ("feig", "bridge"):
        t0 = time.monotonic()
        hands = cards = ok = loud = found = faults = 0
        lat: list[tuple[int, int]] = []
        for script in clean:
            report = play(script, reader=reader)
            good, bad = exact(script, report)
            hands += len(script["hands"])
            ok, loud = ok + good, loud + bad
            cards += report["tracking"]["cards"]
            lat.append((report["tracking"]["confirm_cycles"]["p50"], report["tracking"]["confirm_cycles"]["p99"]))
        for script, expected in faulty:
            report = play(script, reader=reader)
            for (_, code, rule, seat, step, _), got in zip(expected, report["hands"], strict=True):
                faults += 1
                found += any((a["code"], a["rule"], a.get("seat"), a["step"]) == (code, rule, seat, step)
                             for a in got["alerts"])
        p50, p99 = max(x for x, _ in lat), max(y for _, y in lat)
        print(f"{reader:8} {hands:6} {cards:6} {ok:6} {loud:6} {found:6} of {faults:3} {p50:4} {p99:4} "
              f"{time.monotonic() - t0:8.1f}", flush=True)


if __name__ == "__main__":
    main()
