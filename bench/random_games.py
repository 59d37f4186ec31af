"""Random clean hands of every game through the in-process harness (issue 16: 1,000 per game).

For each game: ``--hands`` random hands (2 to the game's most seats, tables varying from hand to
hand, the deal-script noise model), dealt in scripts of ``--chunk`` hands, each hand checked as
the test suite checks one (``rig.scenarios``: exact zones and stub count, no dealer or floor
alert, the prompts the generator's oracle expects: the stud bring-in and first to act, the short
stub, running out of cards). A game the daemon's configuration does not accept yet is reported
as not dealt, with the generator's hands still made (their count of rebuilt stubs shown).

``--profile harsh``: the busy table's noise (deal-script.md, ``noise.profile``). Every hand is
also searched for the flow rules' faults (rig/flow_sessions.py: FLOW-006's long absence, FLOW-007's
card dealt before the approval, DECK-009's deck not rotated), which a right table never raises:
the line gives their count. ``--flow``: the chunks are sessions that go near those rules and do
nothing wrong (a satellite approved before its first card, the next on the other deck, players
away one hand short of two rotations: ``rig.flow_sessions.flow_session``), checked as the test
suite checks them (``check_session``: the absent seat's own DEAL-009 prompts aside).

    .venv/bin/python bench/random_games.py [--hands 1000] [--chunk 50] [--games stud,razz]
    .venv/bin/python bench/random_games.py --profile harsh --flow
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.config.daemon import ConfigError  # noqa: E402
from hw_sim.script import GAMES  # noqa: E402
from hw_sim.random_hands import random_script  # noqa: E402
from rig.flow_sessions import FlowSession, check_session, flow_faults, flow_session  # noqa: E402
from rig.scenarios import NOISE, check_prompts, check_report, play  # noqa: E402


def run_game(game: str, hands: int, chunk: int, seed: int, profile: str = "standard", flow: bool = False) -> str:
    t0 = time.perf_counter()
    done = failed = restubs = faults = sats = away = 0
    first: list[str] = []
    refused = ""
    for start in range(0, hands, chunk):
        expect: list[list[dict]] = []
        n = min(chunk, hands - start)
        noise = dict(NOISE, seed=seed + start, **({"profile": profile} if profile != "standard" else {}))
        session: FlowSession | None = None
        if flow:  # (three hands at least: a session has an absence from its second hand)
            session = flow_session(seed + start, game=game, hands=max(n, 3), noise=noise)
            script, expect = session.script, session.expect
            sats, away = sats + session.satellites, away + session.hands_away
        else:
            # every other chunk folds seldom: stud tables of seven and eight reach a short 7th street
            script = random_script(seed + start, hands=n, game=game, noise=noise, vary_seats=True, expect=expect,
                                   fold_chance=0.02 if start // chunk % 2 else None)
        restubs += sum("restub" in s for h in script["hands"] for s in h["steps"])
        if refused:
            continue
        try:
            report = play(script)
        except ConfigError as exc:
            refused = str(exc).split(": ", 1)[-1]  # (after the configuration file's path)
            continue
        faults += len(flow_faults(report))
        for i, (hand, got, want) in enumerate(zip(script["hands"], report["hands"], expect, strict=True)):
            done += 1
            try:
                if session is not None:
                    check_session(FlowSession({**script, "hands": [hand]}, [want], absences=[
                        (seat, since - i, k) for seat, since, k in session.absences]), {"hands": [got]})
                else:
                    check_report({"hands": [hand]}, {"hands": [got]})
                    check_prompts(want, got.get("prompts", []), f"hand {start + i + 1}")
            except AssertionError as exc:
                failed += 1
                if len(first) < 3:  # (a session's hand is checked alone: named by its place in the run)
                    first.append(f"hand {start + i + 1}: " + str(exc).splitlines()[0].split(": ", 1)[-1][:160])
    seconds = time.perf_counter() - t0
    if refused:
        return f"{game:15} not dealt ({refused}); {hands} hands generated, {restubs} rebuilt stubs"
    line = f"{game:15} {done:5} hands  {failed:4} failed  {restubs:4} rebuilt stubs  {faults:3} flow faults"
    if flow:
        line += f"  {sats:3} satellites  {away:4} hands away"
    line += f"  {seconds:7.1f} s"
    return line + "".join(f"\n    {f}" for f in first)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--profile", choices=("standard", "harsh"), default="standard", help="the noise profile")
    ap.add_argument("--flow", action="store_true", help="sessions near the flow rules (rig/flow_sessions.py)")
    args = ap.parse_args()
    for game in args.games.split(","):
        print(run_game(game, args.hands, args.chunk, args.seed, args.profile, args.flow), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
