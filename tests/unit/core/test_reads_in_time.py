"""BURN-002, MUCK-001 and STUB-006 never cry wolf (docs/design.md, "Never cry wolf"): random clean
hands of every game under the harsh noise, at a table with an antenna under the stub spot whose
dealer drops the stub after each hand's last card (``hw_sim.random_hands.with_stub_spot``), raise
none of their prompts or floor notes: no "round complete?" where the script taps before every
burn, no card missing from a seat, no stub missing or read wrong; and every stub dropped is read
whole, the count the arithmetic gives (STUB-003). ``bench/random_games.py --stub-spot`` deals a
thousand hands of each game so. And the waits are state: a table restarted mid-wait says what it
would have said (state version 15, the part ``lapses``)."""

from __future__ import annotations

import json

import pytest

from controller.core.cards import FULL_DECK
from controller.core.effects import Alert, HandFinished
from controller.core.settings import RuleSettings
from controller.core.table import Table
from controller.core.zones import ZoneMap
from hw_sim.random_hands import random_script, with_stub_spot
from hw_sim.script import GAMES
from rig.paths import TESTS
from rig.scenarios import LAPSES, NOISE, check_prompts, check_report, lapse_counts, play
from tests.unit.core.test_table import Feeder, deal_clean_hand

@pytest.mark.parametrize("game", GAMES)
def test_random_hands_of_every_game_under_the_harsh_noise_raise_no_lapse(game):
    expect: list[list[dict]] = []
    script = with_stub_spot(random_script(39, hands=16, game=game, noise=dict(NOISE, seed=39, profile="harsh"),
                                          vary_seats=True, expect=expect))
    report = play(script)
    counts = lapse_counts(script, report)
    assert not any(counts[c] for c in LAPSES), counts
    if game != "chinese":  # (Chinese poker deals the whole deck: no stub)
        assert counts["stubs dropped"] == 16 and counts["stubs read whole"] == 16, counts
    if game not in ("chinese",):
        assert counts["tapped burns"] > 0  # (the check had burns to judge)
    check_report(script, report)  # (no dealer or floor alert at all, the zones exact)
    for i, (want, got) in enumerate(zip(expect, report["hands"], strict=True), 1):
        check_prompts(want, got.get("prompts", []), f"hand {i}")


# -- the waits survive a restart (state version 15: the part ``lapses``) -------------------------------

STUB_SPOT = ZoneMap.from_mapping({**{str(n): f"seat:{n}" for n in range(1, 11)}, "11": "board", "12": "burn",
                                  "13": "muck", "14": "stub"})
DATA = TESTS / "data" / "state"


def mid_wait() -> Feeder:
    """A table with a stub spot, mid-hand: the river out, the stub read on its spot, and seat 4's
    7c off the table, the dealer told of it (MUCK-001) and the floor not yet."""
    f = Feeder(zones=STUB_SPOT, rules=RuleSettings(muck_timeout_s=5.0))
    deal_clean_hand(f)
    out = {f.uid(c) for c in ("As", "Kd", "7c", "2h", "3h", "Qs", "9d", "5c", "8c", "Th", "Jh", "4s", "6c", "8d")}
    for c in FULL_DECK:
        if f.uid(c) not in out:
            f.field[f.uid(c)] = 14
    f.tick(3)
    del f.field[f.uid("7c")]
    f.tick(3 + 6)  # gone after 3 unheard cycles; told 5 s later
    assert [a.code for a in f.of(Alert)] == ["muck.card_missing"]
    return f


def test_a_table_restarted_mid_wait_says_what_the_same_table_would_have():
    """The state written mid-wait and read back goes on as the table itself: the floor told of the
    7c at the same instant, the stub counted right at the gather."""
    f = mid_wait()
    state = json.loads(json.dumps(f.table.to_state()))
    assert state["version"] == 16 and set(state["parts"]["lapses"]["state"]) == {"away", "dealt_out_at", "stub_read"}
    g = Feeder(zones=STUB_SPOT, rules=RuleSettings(muck_timeout_s=5.0))
    g.table = Table.from_state(state, g.table.settings)
    g.field, g.cycle = dict(f.field), f.cycle
    for t in (f, g):
        t.effects = []
        t.tick(6)
        t.field.clear()
        t.tick(4)
    assert [repr(e) for e in g.effects] == [repr(e) for e in f.effects]
    codes = [(a.code, a.audience) for a in f.of(Alert)]
    assert codes == [("muck.card_held_out", "floor")]
    [done] = f.of(HandFinished)
    assert done.record["stub_read"] == 38 and done.record["alerts"][-1]["code"] == "muck.card_held_out"


def test_the_state_written_by_release_15_loads_and_plays_on():
    """tests/data/state/v15-lapses-mid-hand.json, written by :func:`mid_wait`'s table
    (``json.dumps(mid_wait().table.to_state(), indent=1)``): kept as the state of version 15 that
    later releases must read."""
    state = json.loads((DATA / "v15-lapses-mid-hand.json").read_text())
    assert state["version"] == 15
    f = Feeder(zones=STUB_SPOT, rules=RuleSettings(muck_timeout_s=5.0))
    f.table = Table.from_state(state, f.table.settings)
    lapses = f.table.lapses
    assert lapses.away == {f.uid("7c"): (4, lapses.away[f.uid("7c")][1])} and len(lapses.stub_read) == 38
    f.field = {u: 14 for u in lapses.stub_read} | {f.uid(c): s for c, s in
                                                   [("As", 1), ("Kd", 2), ("2h", 1), ("3h", 2), ("Qs", 4)]}
    f.cycle = int(max(lapses.away.values())[1]) + 9
    f.tick(6)
    assert [(a.code, a.card) for a in f.of(Alert)] == [("muck.card_held_out", "7c")]
