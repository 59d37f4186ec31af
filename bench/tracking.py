"""Card tracking under noise: confirmation latency, false moves, alerts, and the core's pace.

Random clean hands of every game the core deals (``controller.core.settings.GAMES``: the flop games,
stud, stud 8, razz and the draw games; ``hw_sim.random_hands``, 2 to the game's most seats, a new
table every ten hands) and every PHH hand of the dataset (tests/data/phh: hold'em and Omaha by
``hw_sim.phh``, the stud games by ``hw_sim.phh_stud``; it holds no draw hand), dealt straight into the
core under
each noise profile (``hw_sim.noise``: ``standard``, ``harsh``) by ``hw_sim.tracking_run``, the
cards lying still ``--idle`` cycles in each betting round. Prints, per profile, the latency
distribution (cycles from the first read where a card landed to its confirmation there), the
gathers (cycles from the cards lifted to the hand's end), the false moves and the dealer's and
floor's alerts (both must be 0); then the core's events per second (``bench/core_throughput.py``,
which must not fall below the figure docs/tracking.md gives for the release before).

    .venv/bin/python bench/tracking.py [--hands 10000] [--idle 20] [--seed 0] [--profile P]
                                       [--game G] [--no-phh] [--no-core]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from controller.core.settings import GAMES  # noqa: E402
from hw_sim.noise import PROFILES  # noqa: E402
from hw_sim.phh import load_phh_hands, phh_script  # noqa: E402
from hw_sim.phh_stud import load_phh_stud_hands  # noqa: E402
from hw_sim.random_hands import random_script  # noqa: E402
from hw_sim.script import parse_script  # noqa: E402
from hw_sim.tracking_run import TrackingRun, percentile, run_script  # noqa: E402

PER_TABLE = 10  # hands dealt at one table (one script) before a new one


def random_hands(game: str, hands: int, seed: int, profile: str, idle: int) -> TrackingRun:
    run = TrackingRun()
    for i in range(0, hands, PER_TABLE):
        n = min(PER_TABLE, hands - i)
        script = parse_script(json.dumps(random_script(seed + i, hands=n, game=game, vary_seats=True)))
        run.add(run_script(script, profile=profile, seed=seed * 7919 + i, idle=idle))
    return run


def phh_hands(game: str, profile: str, seed: int, idle: int) -> TrackingRun | None:
    """The PHH hands of ``game``, or None if the dataset has none."""
    root = ROOT / "tests" / "data" / "phh"
    mine = [h for _, h, g in load_phh_hands(root) if g == game]
    mine += [h for _, h, g, _ in load_phh_stud_hands(root) if g == game]
    if not mine:
        return None
    script = parse_script(json.dumps(phh_script(mine, game=game)))
    return run_script(script, profile=profile, seed=seed, idle=idle)


def distribution(values: list[int]) -> str:
    counts = Counter(values)
    cells = [f"{k}: {counts[k]:,}" for k in sorted(counts)[:6]]
    more = sum(v for k, v in counts.items() if k > sorted(counts)[:6][-1]) if len(counts) > 6 else 0
    return ", ".join(cells) + (f", more: {more:,}" if more else "")


def report(name: str, run: TrackingRun, seconds: float) -> None:
    lat = run.latency
    print(f"  {name}: {run.hands:,} hands, {len(lat):,} cards, {run.cycles:,} cycles in {seconds:.1f} s")
    print(f"    latency p50 {percentile(lat, 50)}  p99 {percentile(lat, 99)}  max {max(lat)}  "
          f"(cycles: {distribution(lat)})")
    print(f"    gather  p50 {percentile(run.gather, 50)}  p99 {percentile(run.gather, 99)}  max {max(run.gather)}")
    print(f"    false moves {run.false_moves}  alerts {len(run.alerts)}")
    for what in run.false[:3] + run.alerts[:3]:
        print(f"      {what}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=10_000, help="random hands per game and profile")
    ap.add_argument("--idle", type=int, default=20, help="cycles the cards lie still in each betting round")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--profile", choices=PROFILES, action="append", help="a profile (default: every one)")
    ap.add_argument("--game", choices=GAMES, action="append", help="a game (default: every one the core deals)")
    ap.add_argument("--no-phh", action="store_true", help="leave out the PHH hands")
    ap.add_argument("--no-core", action="store_true", help="leave out the core's events per second")
    args = ap.parse_args()
    failed = False
    for profile in args.profile or PROFILES:
        print(f"profile {profile}:")
        total = TrackingRun()
        for game in args.game or GAMES:
            t0 = time.perf_counter()
            # each game its own hands: the games of a family would otherwise deal the same layouts
            seed = args.seed + 1_000_000 * list(GAMES).index(game)
            run = random_hands(game, args.hands, seed, profile, args.idle)
            report(f"{game}, random", run, time.perf_counter() - t0)
            total.add(run)
            if not args.no_phh:
                t0 = time.perf_counter()
                phh = phh_hands(game, profile, args.seed, args.idle)
                if phh is None:
                    continue
                run = phh
                report(f"{game}, PHH", run, time.perf_counter() - t0)
                total.add(run)
        lat = total.latency
        print(f"  all: latency p50 {percentile(lat, 50)} p99 {percentile(lat, 99)}; "
              f"false moves {total.false_moves}; alerts {len(total.alerts)}")
        failed |= bool(total.false_moves or total.alerts)
    if not args.no_core:
        from bench.core_throughput import measure

        for name, betting in (("table", 60), ("dealing", 0)):
            n, per, rate = measure(300, betting)
            print(f"core, {name} mix: {n:,} events ({per:.1f} reads a cycle): {rate:,.0f} events/s (best of 7)")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
