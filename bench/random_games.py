"""Random clean hands of every game through the in-process harness (issue 16: 1,000 per game).

For each game: ``--hands`` random hands (2 to the game's most seats, tables varying from hand to
hand, the deal-script noise model), dealt in scripts of ``--chunk`` hands, each hand checked as
the test suite checks one (``rig.scenarios``: exact zones and stub count, no dealer or floor
alert, the prompts the generator's oracle expects: the stud bring-in and first to act, the short
stub, running out of cards). A game the daemon's configuration does not accept yet is reported
as not dealt, with the generator's hands still made (their count of rebuilt stubs shown).

``--profile harsh`` deals them under the harsh noise; ``--stub-spot`` at a table with an antenna
under the stub spot, the dealer dropping the stub after each hand's last card (STUB-006); either
way each game's line counts what issue 39's rules raised where nothing is wrong (BURN-002's
"round complete?" at burns the script taps before, MUCK-001's card missing or held out,
STUB-006's stub not dropped or read wrong: all must be 0) and the stubs read whole. Every hand is
also searched for the flow rules' faults (rig/flow_sessions.py: FLOW-006's long absence, FLOW-007's
card dealt before the approval, DECK-009's deck not rotated), which a right table never raises:
the line gives their count. ``--flow``: the chunks are sessions that go near those rules and do
nothing wrong (a satellite approved before its first card, the next on the other deck, players
away one hand short of two rotations: ``rig.flow_sessions.flow_session``), checked as the test
suite checks them (``check_session``: the absent seat's own DEAL-009 prompts aside). ``--codes``:
each game's alerts and prompts counted by code (those of the hands and those said between hands),
and the whole run's at the end.

    .venv/bin/python bench/random_games.py [--hands 1000] [--chunk 50] [--games stud,razz]
                                           [--profile harsh] [--stub-spot] [--flow] [--codes]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.config.daemon import ConfigError  # noqa: E402
from hw_sim.script import GAMES  # noqa: E402
from hw_sim.random_hands import random_script, with_stub_spot  # noqa: E402
from rig.flow_sessions import FlowSession, check_session, flow_faults, flow_session  # noqa: E402
from rig.scenarios import LAPSES, NOISE, check_prompts, check_report, lapse_counts, play  # noqa: E402


def run_game(game: str, hands: int, chunk: int, seed: int, profile: str = "standard", stub_spot: bool = False,
             flow: bool = False, codes: Counter[str] | None = None) -> str:
    t0 = time.perf_counter()
    done = failed = restubs = faults = sats = away = 0
    first: list[str] = []
    refused = ""
    counts: Counter[str] = Counter()
    said: Counter[str] = Counter()
    for start in range(0, hands, chunk):
        expect: list[list[dict]] = []
        n = min(chunk, hands - start)
        noise = dict(NOISE, seed=seed + start, profile=profile)
        session: FlowSession | None = None
        if flow:  # (three hands at least: a session has an absence from its second hand)
            session = flow_session(seed + start, game=game, hands=max(n, 3), noise=noise)
            script, expect = session.script, session.expect
            sats, away = sats + session.satellites, away + session.hands_away
        else:
            # every other chunk folds seldom: stud tables of seven and eight reach a short 7th street
            script = random_script(seed + start, hands=n, game=game, noise=noise, vary_seats=True, expect=expect,
                                   fold_chance=0.02 if start // chunk % 2 else None)
        if stub_spot:
            script = with_stub_spot(script)
        restubs += sum("restub" in s for h in script["hands"] for s in h["steps"])
        if refused:
            continue
        try:
            report = play(script)
        except ConfigError as exc:
            refused = str(exc).split(": ", 1)[-1]  # (after the configuration file's path)
            continue
        counts += lapse_counts(script, report)
        faults += len(flow_faults(report))
        if codes is not None:
            said += code_counts(report)
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
    lapses = sum(counts[c] for c in LAPSES)
    line += (f"\n    issue 39: {lapses} raised ({', '.join(f'{c} {counts[c]}' for c in LAPSES)}); "
             f"{counts['tapped burns']} tapped burns; stubs dropped {counts['stubs dropped']}, "
             f"read whole {counts['stubs read whole']}")
    if codes is not None:
        codes += said
        line += "\n    codes: " + (", ".join(f"{c} {k}" for c, k in sorted(said.items())) or "none")
    return line + "".join(f"\n    {f}" for f in first)


def code_counts(report: dict) -> Counter[str]:
    """A report's alerts and prompts by code (``alert deal.seat_waits``, ``prompt flow.new_level``):
    its hands' and those said between hands."""
    found: Counter[str] = Counter()
    for hand in report["hands"]:
        found.update(f"alert {a['code']}" for a in hand["alerts"])
        found.update(f"prompt {p['code']}" for p in hand.get("prompts", []))
    found.update(f"{e['kind']} {e['code']}" for e in report.get("between_hands", []))
    return found


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--chunk", type=int, default=50)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--games", default=",".join(GAMES))
    ap.add_argument("--profile", choices=("standard", "harsh"), default="standard", help="the noise profile")
    ap.add_argument("--stub-spot", action="store_true", help="an antenna under the stub spot (STUB-006)")
    ap.add_argument("--flow", action="store_true", help="sessions near the flow rules (rig/flow_sessions.py)")
    ap.add_argument("--codes", action="store_true", help="the alerts and prompts raised, counted by code")
    args = ap.parse_args()
    codes: Counter[str] | None = Counter() if args.codes else None
    for game in args.games.split(","):
        print(run_game(game, args.hands, args.chunk, args.seed, args.profile, args.stub_spot, args.flow, codes),
              flush=True)
    if codes is not None:
        print("all games: " + (", ".join(f"{c} {k}" for c, k in sorted(codes.items())) or "no alert or prompt"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
