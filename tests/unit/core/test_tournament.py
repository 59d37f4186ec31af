"""The tournament room at the table (controller/core/table/tournament.py): the floor's signals as
core events, in process, against what the rules say (docs/rules.md §19: FLOW-001..004,
RELIEF-004; MISD-014, FLOW-005, DECK-008), worked out by hand.

The table is the Feeder's (tests/unit/core/test_table.py): seats 1, 2 and 4, hand 1's button at
4, so its deal goes 1, 2, 4 (seat 2 holds Kd and 3h); the antennas are the seats, 11 the board,
12 the burns, 13 the muck. A reader cycle's ``ts`` is its number, a press or a signal comes half a
cycle later.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from rig.paths import TESTS
from controller.core.display import render
from controller.core.effects import Alert, HandFinished, Prompt
from controller.core.events import (BubbleHold, BubbleMode, ButtonPress, ClockCalled, DeviceStatus, HandForHand,
                                  LevelSet, ReaderCycle, Release, ShufflerReport, Tick, event_from_dict, event_to_dict)
from controller.core.pads import check_press
from controller.core.prompts import PromptBoard
from controller.core.settings import deal_order
from controller.core.state import STATE_VERSION
from controller.core.state.migrations import FRESH_TOURNAMENT
from controller.core.table import Table
from controller.core.table.tournament import Tournament
from controller.room.tournament import Level, Seen, Signal, signals_for
from tests.unit.core.test_table import Feeder, deal_board

DATA = TESTS / "data" / "state"
MUCK = 13
HOLE = ("As", "Kd", "7c", "2h", "3h", "Qs")


class Room(Feeder):
    """The Feeder, with the floor's signals, whole hands and the effects since a mark."""

    def signal(self, ev: Any) -> list[Any]:
        got = self.table.apply(ev)
        self.effects += got
        return got

    def at(self) -> float:
        return float(self.cycle) + 0.5

    def hole(self) -> None:
        """The hole cards of the next hand, in its deal's order (two each)."""
        seats, pos, _ = self.table.plan()
        order = deal_order(seats, pos.button)
        cards = iter(HOLE)
        for _ in range(2):
            for seat in order:
                self.put(next(cards), seat)

    def gather(self) -> None:
        self.field.clear()
        self.tick(4)

    def play(self) -> dict[str, Any]:
        """A whole hand, dealt and gathered: its record."""
        self.hole()
        deal_board(self)
        self.gather()
        return self.table.last_record

    def mark(self) -> int:
        return len(self.effects)

    def since(self, mark: int, kind: type = object) -> list[Any]:
        """The tournament's prompts and alerts since ``mark`` (those of the rest of the table left out)."""
        return [e for e in self.effects[mark:] if isinstance(e, kind) and ours(e)]

    def said(self, mark: int) -> list[tuple[str, str, int | None, int | None]]:
        """(kind, code, seat, count) of every prompt and alert since ``mark``."""
        return [(type(e).__name__, e.code, e.seat, e.count) for e in self.since(mark)]


#: the families of the tournament's codes (FLOW-005's button and DECK-008's reset are flow's too)
FAMILIES = ("flow", "relief")


def ours(e: Any) -> bool:
    return isinstance(e, (Prompt, Alert)) and e.code.split(".")[0] in FAMILIES


def codes(effects: list[Any]) -> list[str]:
    return [e.code for e in effects if ours(e)]


def shuffle(r: Room) -> list[Any]:
    return r.signal(ShufflerReport(r.at(), "shuffler", 52))


def level(r: Room, n: int, kind: str = "level", **kw: Any) -> list[Any]:
    return r.signal(LevelSet(r.at(), "main", n, kind, **kw))


# -- FLOW-001: the level -------------------------------------------------------------------------------
def test_FLOW_001_each_hand_is_tagged_with_the_level_it_was_dealt_under_from_the_next_deal():
    r = Room()
    assert r.play()["level"] is None  # no tournament: null
    assert r.table.tournament.level_now() is None
    level(r, 5)
    assert r.table.tournament.level_now() == 5  # the next hand's
    r.hole()
    level(r, 6)  # mid-hand: this hand keeps 5
    assert r.table.tournament.level_now() == 5
    deal_board(r)
    r.gather()
    assert r.table.last_record["level"] == 5
    assert r.table.tournament.level_now() == 6
    assert r.play()["level"] == 6
    assert [h.record["level"] for h in r.of(HandFinished)] == [None, 5, 6]


def test_FLOW_001_the_re_deal_of_a_misdeal_keeps_the_old_level_MISD_014():
    r = Room()
    level(r, 3)
    r.put("As", 1)
    r.put("Kd", 2)
    level(r, 4)  # the level changes mid-hand ...
    r.press("misdeal")  # ... and the hand is misdealt
    r.gather()
    misdealt = r.table.last_record
    assert misdealt["misdeal"] is True and misdealt["level"] == 3
    assert r.table.tournament.level_now() == 3  # the re-deal is next: the old level
    m = r.mark()
    shuffle(r)  # the re-deal's shuffle: no "new level"
    assert "flow.new_level" not in codes(r.effects[m:])
    redeal = r.play()
    assert redeal["redeal_of"] == 1 and redeal["level"] == 3
    assert "flow.new_level" not in [p["code"] for p in redeal.get("prompts", [])]
    assert r.table.tournament.level_now() == 4
    m = r.mark()
    shuffle(r)  # the next deal's shuffle: now
    assert [(p.code, p.count, p.hand) for p in r.since(m, Prompt)] == [("flow.new_level", 4, 3)]
    assert r.play()["level"] == 4


def test_FLOW_001_new_level_is_said_at_the_first_shuffle_after_the_change_and_kept_in_that_hands_record():
    r = Room()
    r.play()
    m = r.mark()
    level(r, 2, small_blind=100, big_blind=200, ante=25)
    assert r.said(m) == []  # not yet: at the next deal's first shuffle
    shuffle(r)
    [said] = r.since(m, Prompt)
    assert (said.code, said.rule, said.count, said.hand) == ("flow.new_level", "FLOW-001", 2, 2)
    assert said.message == "new level 2: blinds 100/200, ante 25"
    m = r.mark()
    shuffle(r)  # a second shuffle: said once
    assert r.said(m) == []
    record = r.play()
    assert [(p["code"], p["rule"]) for p in record["prompts"] if p["code"] == "flow.new_level"] == [
        ("flow.new_level", "FLOW-001")]
    # a shuffle reported during a hand (the spare deck, for the next deal) says the change made in it
    r.hole()
    level(r, 3)
    m = r.mark()
    shuffle(r)
    assert [(p.code, p.count) for p in r.since(m, Prompt)] == [("flow.new_level", 3)]


def test_FLOW_001_without_a_shuffle_reported_new_level_is_said_at_the_next_hands_first_card():
    r = Room()
    level(r, 1, small_blind=25, big_blind=50, ante=0)
    m = r.mark()
    r.put("As", 1)
    [said] = r.since(m, Prompt)
    assert (said.code, said.count, said.hand, said.message) == ("flow.new_level", 1, 1, "new level 1: blinds 25/50")
    assert [p.code for p in r.table.hand.prompts] == ["flow.new_level"]
    # the same level set again (a restarted link) is no change: nothing said at the next hand
    deal_board_and_gather(r)
    level(r, 1, small_blind=25, big_blind=50, ante=0)
    m = r.mark()
    r.play()
    assert "flow.new_level" not in codes(r.effects[m:])


def deal_board_and_gather(r: Room) -> None:
    for card, seat in zip(HOLE[1:], (2, 4, 1, 2, 4), strict=True):
        r.put(card, seat)
    deal_board(r)
    r.gather()


def test_FLOW_001_a_break_of_the_structure_prompts_the_button_FLOW_005_and_the_deck_reset_DECK_008():
    r = Room()
    r.play()  # button 4; the next hand's is 1 (DEAL-004)
    m = r.mark()
    level(r, 4, kind="break")
    assert [(p.code, p.rule, p.seat) for p in r.since(m, Prompt)] == [
        ("flow.button_after_break", "FLOW-005", 1), ("flow.reset_decks", "DECK-008", None)]
    assert "reset both decks" in r.since(m, Prompt)[1].message
    assert r.table.tournament.seen_fields()["kind"] == "break"
    # during a hand: at its end (the button of the hand after it: 2)
    r.hole()
    m = r.mark()
    level(r, 5, kind="break")
    assert r.said(m) == []
    deal_board(r)
    r.gather()
    assert [(p.code, p.seat) for p in r.since(m, Prompt)] == [("flow.button_after_break", 2),
                                                              ("flow.reset_decks", None)]


SPREAD = "spread the deck on the table for the players to see"


def test_DECK_003_the_deck_is_spread_for_the_players_at_the_tournaments_start_and_after_every_break():
    """DECK-003 (002 §DECK INTRODUCTION: "The deck should be spread on the table, at the beginning of
    the tournament and after each break"; 001 §SETTING UP: the second deck left spread "for players
    to also verify as they arrive"): the floor's clock starts the tournament (its level 1: the
    floor sends a level only once its clock runs), and a break is over when the next play level
    comes. Neither a level that is no start nor the break itself (FLOW-005, DECK-008's) says it."""
    r = Room()
    m = r.mark()
    level(r, 1, small_blind=25, big_blind=50)
    [said] = r.since(m, Prompt)
    assert (said.code, said.rule, said.seat, said.hand, said.message) == (
        "flow.spread_deck", "DECK-003", None, None, f"tournament start: {SPREAD}")
    m = r.mark()
    level(r, 1, small_blind=25, big_blind=50)  # the same signal again (a restarted link): no start
    r.play()
    level(r, 2)  # a level of play: nothing to spread
    assert "flow.spread_deck" not in codes(r.effects[m:])
    m = r.mark()
    level(r, 3, kind="break")  # the break: the button and the deck reset, no spread yet
    assert [p.code for p in r.since(m, Prompt)] == ["flow.button_after_break", "flow.reset_decks"]
    m = r.mark()
    level(r, 3)  # the break is over
    assert [(p.code, p.rule, p.message) for p in r.since(m, Prompt)] == [
        ("flow.spread_deck", "DECK-003", f"break over: {SPREAD}")]
    # a table that hears of the tournament first at a later level (a restart, a table opened late)
    # did not see it start: nothing said
    r = Room()
    m = r.mark()
    level(r, 5)
    assert "flow.spread_deck" not in codes(r.effects[m:])


def test_DECK_008_the_mode_pads_break_prompts_the_deck_reset_too():
    r = Room()
    m = r.mark()
    r.press("mode", mode="break")
    assert [p.code for p in r.since(m, Prompt)] == ["flow.button_after_break", "flow.reset_decks"]


# -- FLOW-002: hand-for-hand ---------------------------------------------------------------------------
def test_FLOW_002_hand_for_hand_holds_after_each_hand_until_the_floors_release():
    r = Room()
    t = r.table.tournament
    r.hole()
    m = r.mark()
    r.signal(HandForHand(r.at(), True))  # mid-hand: the hand finishes first
    assert r.said(m) == [] and t.holding() is None
    deal_board(r)
    r.gather()
    assert r.said(m) == [("Prompt", "flow.h4h_wait", None, None)] and t.holding() == "h4h"
    m = r.mark()
    r.signal(Release(r.at(), 1))
    assert r.said(m) == [("Prompt", "flow.h4h_go", None, None)] and t.holding() is None
    assert t.seen_fields()["round"] == 1 and t.seen_fields()["h4h"] is True
    m = r.mark()
    r.play()  # released: dealt without a word; held again after it
    assert r.said(m) == [("Prompt", "flow.h4h_wait", None, None)] and t.holding() == "h4h"
    m = r.mark()
    r.signal(Release(r.at(), 3))  # a later release (one was missed while the link was down) releases too
    assert codes(r.effects[m:]) == ["flow.h4h_go"] and t.seen_fields()["round"] == 3
    r.signal(Release(r.at(), 4))  # a release while not holding: nothing to say
    assert codes(r.effects[m:]) == ["flow.h4h_go"]
    r.play()
    m = r.mark()
    r.signal(HandForHand(r.at(), False))  # over: the hold ends
    assert codes(r.effects[m:]) == ["flow.h4h_go"] and t.holding() is None
    m = r.mark()
    r.play()
    assert r.said(m) == [] and t.holding() is None


def test_FLOW_002_hand_for_hand_turned_on_between_hands_holds_at_once():
    r = Room()
    r.play()
    m = r.mark()
    r.signal(HandForHand(r.at(), True))
    assert codes(r.effects[m:]) == ["flow.h4h_wait"] and r.table.tournament.holding() == "h4h"


def test_FLOW_002_a_card_dealt_before_the_release_is_the_floors_once_a_hand():
    r = Room()
    r.signal(HandForHand(r.at(), True))
    m = r.mark()
    r.put("As", 1)  # dealt while holding
    [alert] = r.since(m, Alert)
    assert (alert.code, alert.audience, alert.rule, alert.hand) == ("flow.dealt_before_release", "floor", "FLOW-002", 1)
    for card, seat in zip(HOLE[1:], (2, 4, 1, 2, 4), strict=True):
        r.put(card, seat)
    assert [a.code for a in r.since(m, Alert)] == ["flow.dealt_before_release"]  # once
    assert r.table.tournament.holding() == "h4h"  # the hold stands until the floor's word
    deal_board(r)
    r.gather()
    record = r.table.last_record
    assert [a["code"] for a in record["alerts"] if a["code"].startswith("flow.")] == ["flow.dealt_before_release"]
    assert any(n.startswith("FLOW-002: dealt before the floor's release") for n in record["notes"])
    r.signal(Release(r.at(), 1))
    m = r.mark()
    r.put("As", 1)  # released: no alert
    assert r.since(m, Alert) == []


def test_FLOW_002_a_misdealt_hand_is_not_held_after_its_re_deal_is_the_hand_MISD_014():
    r = Room()
    r.signal(HandForHand(r.at(), True))
    r.signal(Release(r.at(), 1))
    r.put("As", 1)
    r.press("misdeal")
    m = r.mark()
    r.gather()
    assert r.said(m) == [] and r.table.tournament.holding() is None
    r.play()  # the re-deal: held after it
    assert r.table.last_record["redeal_of"] == 1 and r.table.tournament.holding() == "h4h"


def test_FLOW_002_the_hold_survives_a_restart_and_nothing_but_the_floor_ends_it():
    r = Room()
    r.signal(HandForHand(r.at(), True))
    state = json.loads(json.dumps(r.table.to_state()))
    table = Table.from_state(state, r.table.settings)
    assert table.tournament.holding() == "h4h"
    # devices lost and back, seconds going by: still holding
    out = table.apply(DeviceStatus(10.0, "reader", False)) + table.apply(DeviceStatus(11.0, "reader", True))
    out += [e for i in range(40) for e in table.apply(Tick(12.0 + i, mono=100.0 + i, boot="b1"))]
    assert table.tournament.holding() == "h4h" and "flow.h4h_go" not in codes(out)
    assert codes(table.apply(Release(60.0, 1))) == ["flow.h4h_go"]


def test_RELIEF_004_a_push_during_hand_for_hand_is_warned_and_logged_for_the_floor():
    r = Room()
    m = r.mark()
    r.press("relief")  # no hand-for-hand: a relief like any
    assert r.since(m) == []
    r.signal(HandForHand(r.at(), True))
    r.hole()  # (dealt before the release: the floor knows)
    m = r.mark()
    r.press("relief")
    assert r.said(m) == [("Prompt", "relief.no_push", None, None), ("Alert", "relief.no_push", None, None)]
    prompt, alert = r.since(m)
    assert prompt.rule == alert.rule == "RELIEF-004" and alert.audience == "floor" and alert.hand == 1
    assert r.table.rack.in_play == "B"  # the push itself goes on: the spare deck came in (RELIEF-001)


def test_RELIEF_004_a_push_during_the_race_off_is_logged_for_the_floor_beside_RACE_006s_warning():
    r = Room()
    r.press("mode", mode="race")
    r.put("As", 1)
    m = r.mark()
    r.press("relief")
    assert [(type(e).__name__, e.code, e.audience) for e in r.effects[m:] if isinstance(e, (Prompt, Alert))] == [
        ("Alert", "relief.no_push", "floor"), ("Prompt", "race.no_relief", "dealer")]


# -- FLOW-003: the bubble --------------------------------------------------------------------------------
def test_FLOW_003_in_bubble_mode_the_dealers_allin_is_the_floors_once_a_hand():
    r = Room()
    r.hole()
    m = r.mark()
    r.press("allin", seat=2)  # no bubble: SHOW-005's, nothing for the floor
    assert "flow.bubble_allin" not in codes(r.effects[m:])
    r.signal(BubbleMode(r.at(), True))
    r.press("allin", seat=2)
    r.tick()
    r.press("allin", seat=4)  # the same hand: once
    [alert] = [a for a in r.since(m, Alert) if a.code == "flow.bubble_allin"]
    assert (alert.audience, alert.rule, alert.seat, alert.hand) == ("floor", "FLOW-003", 2, 1)
    deal_board(r)
    r.gather()
    m = r.mark()
    r.press("allin")  # between hands: no hand, no all-in
    r.hole()
    r.press("allin")  # without a seat: the floor is told all the same
    assert [(a.code, a.seat, a.hand) for a in r.since(m, Alert)] == [("flow.bubble_allin", None, 2)]
    assert r.table.tournament.seen_fields()["bubble_mode"] is True
    deal_board(r)
    r.gather()
    r.signal(BubbleMode(r.at(), False))
    m = r.mark()
    r.hole()
    r.press("allin", seat=1)
    assert "flow.bubble_allin" not in codes(r.effects[m:])


def test_FLOW_003_a_bubble_hold_lets_the_hand_under_way_finish_and_holds_the_next_deal_until_lifted():
    r = Room()
    t = r.table.tournament
    r.hole()
    m = r.mark()
    r.signal(BubbleHold(r.at(), True, "t3", 42))
    assert r.said(m) == [] and t.holding() is None  # the hand under way finishes normally
    deal_board(r)
    r.gather()
    [hold] = r.since(m, Prompt)
    assert (hold.code, hold.rule, hold.message) == (
        "flow.bubble_hold", "FLOW-003", "bubble: hold, all-in at t3 (hand 42): no new hand until it is settled")
    assert t.holding() == "bubble"
    assert {k: v for k, v in t.seen_fields().items() if k.startswith("bubble")} == {
        "bubble_mode": False, "bubble": True, "bubble_table": "t3", "bubble_hand": 42}
    m = r.mark()
    r.put("As", 2)  # dealt meanwhile: the floor's
    [alert] = r.since(m, Alert)
    assert (alert.code, alert.rule, alert.hand) == ("flow.dealt_before_release", "FLOW-003", 2)
    assert "t3 (hand 42)" in alert.message
    m = r.mark()
    r.signal(BubbleHold(r.at(), False))
    [go] = r.since(m, Prompt)
    assert (go.code, go.message) == ("flow.bubble_go", "bubble: the all-in at t3 (hand 42) is settled, deal on")
    assert t.holding() is None and t.seen_fields()["bubble_table"] is None


def test_FLOW_003_a_hold_lifted_before_the_hand_under_way_ends_holds_nothing():
    r = Room()
    r.hole()
    m = r.mark()
    r.signal(BubbleHold(r.at(), True, "t3", 42))
    r.signal(BubbleHold(r.at(), False))
    deal_board(r)
    r.gather()
    assert r.said(m) == [] and r.table.tournament.holding() is None
    m = r.mark()
    r.signal(BubbleHold(r.at(), True, "t5", 7))  # between hands: at once
    assert codes(r.effects[m:]) == ["flow.bubble_hold"] and r.table.tournament.holding() == "bubble"


def test_FLOW_003_and_FLOW_002_together_the_table_waits_for_both():
    r = Room()
    r.signal(HandForHand(r.at(), True))
    r.signal(BubbleHold(r.at(), True, "t3", 42))
    t = r.table.tournament
    assert t.holding() == "bubble"
    r.signal(BubbleHold(r.at(), False))
    assert t.holding() == "h4h"
    r.signal(Release(r.at(), 1))
    assert t.holding() is None


# -- FLOW-004: the player clock ------------------------------------------------------------------------------
def clock_run(r: Room, seat: int = 2, wall_jumps: dict[int, float] | None = None) -> list[tuple[int, str, int | None]]:
    """The clock called on ``seat`` at monotonic 1000.0 (wall 500.0), then a tick a second at
    1000.5, 1001.5, ... 1031.5 (the wall clock set by ``wall_jumps[i]`` from tick i on): (tick,
    code, count) of what the dealer is told."""
    said = [(-1, e.code, e.count) for e in r.signal(ClockCalled(500.0, seat, mono=1000.0, boot="b1", n=1))
            if isinstance(e, Prompt)]
    shift = 0.0
    for i in range(32):
        shift = (wall_jumps or {}).get(i, shift)
        out = r.signal(Tick(500.5 + i + shift, mono=1000.5 + i, boot="b1"))
        said += [(i, e.code, e.count) for e in out if isinstance(e, (Prompt, Alert))]
    return said


#: worked by hand: tick i is 0.5 + i seconds after the call, i.e. 29.5 - i left; a count is said at
#: the first tick at or under it, "dead" at the first with none left
COUNTDOWN = [(-1, "flow.clock", 30), (10, "flow.clock", 20), (20, "flow.clock", 10), (25, "flow.clock", 5),
             (26, "flow.clock", 4), (27, "flow.clock", 3), (28, "flow.clock", 2), (29, "flow.clock", 1),
             (30, "flow.clock_dead", None)]


def test_FLOW_004_the_clock_counts_30_seconds_down_with_warnings_at_20_and_10_then_5_to_1_and_dead():
    r = Room()
    r.hole()
    assert r.table.tournament.clock_running() is False
    m = r.mark()
    assert clock_run(r) == COUNTDOWN
    clocked = r.since(m, Prompt)
    assert all(e.seat == 2 and e.rule == "FLOW-004" and e.hand == 1 for e in clocked)
    assert clocked[0].message == "clock on seat 2: 30 seconds"
    assert clocked[-1].message == "time: seat 2 dead; its cards to the muck"
    assert r.table.tournament.clock_running() is False
    assert r.table.tournament.seen_fields()["clock_n"] == 1
    assert [p.code for p in r.table.hand.prompts].count("flow.clock") == 8  # in the hand's record


def test_FLOW_004_the_countdown_follows_the_monotonic_clock_not_the_wall_clock():
    r = Room()
    r.hole()
    # the wall clock set an hour on at tick 5, then two hours back at tick 18: nothing changes
    assert clock_run(r, wall_jumps={5: 3600.0, 18: -7200.0}) == COUNTDOWN


def test_FLOW_004_the_dead_hand_is_expected_in_the_muck_and_a_card_of_it_back_in_play_is_the_floors():
    r = Room()
    r.hole()
    clock_run(r)
    m = r.mark()
    r.field[r.uid("Kd")] = MUCK  # seat 2's cards to the muck: as expected
    r.field[r.uid("3h")] = MUCK
    r.tick(3)
    assert r.since(m) == []
    r.field[r.uid("Kd")] = 2  # one back at the seat
    r.tick(3)
    [alert] = r.since(m, Alert)
    assert (alert.code, alert.audience, alert.rule, alert.seat, alert.card, alert.hand) == (
        "flow.dead_hand_back", "floor", "FLOW-004", 2, "Kd", 1)
    r.field[r.uid("3h")] = 4  # again: once a hand
    r.tick(3)
    assert [a.code for a in r.since(m, Alert)] == ["flow.dead_hand_back"]


def test_FLOW_004_a_dead_seats_card_passed_on_or_a_card_to_that_seat_is_the_floors():
    r = Room()
    r.hole()
    clock_run(r)
    m = r.mark()
    r.field[r.uid("3h")] = 4  # the dead hand's card to another seat
    r.tick(3)
    assert [(a.code, a.card) for a in r.since(m, Alert)] == [("flow.dead_hand_back", "3h")]
    r2 = Room()
    r2.hole()
    clock_run(r2)
    m = r2.mark()
    r2.put("9c", 2)  # a card off the stub to the dead seat
    assert ("flow.dead_hand_back", "9c") in [(a.code, a.card) for a in r2.since(m, Alert)]


def test_FLOW_004_round_done_stops_the_clock_and_a_verbal_raise_leaves_it_running():
    r = Room()
    r.hole()
    r.signal(ClockCalled(r.at(), 2, mono=50.0, boot="b1"))
    r.press("sa")  # (a raise is no event; another pad of the round changes nothing)
    r.signal(Tick(r.at(), mono=61.0, boot="b1"))
    assert [(p.code, p.count) for p in r.since(0, Prompt)][-1] == ("flow.clock", 20)
    m = r.mark()
    r.press("round_done")
    assert [(p.code, p.seat) for p in r.since(m, Prompt)] == [("flow.clock_stopped", 2)]
    assert r.table.tournament.clock_running() is False
    m = r.mark()
    for i in range(40):
        r.signal(Tick(r.at() + i, mono=62.0 + i, boot="b1"))
    assert r.said(m) == []


def test_FLOW_004_the_seats_fold_stops_the_clock_another_seats_does_not():
    r = Room()
    r.hole()
    r.signal(ClockCalled(r.at(), 2, mono=50.0, boot="b1"))
    r.field[r.uid("Qs")] = MUCK  # seat 4 folds: the clock runs on
    r.tick(3)
    assert r.table.tournament.clock_running() is True
    m = r.mark()
    r.field[r.uid("Kd")] = MUCK  # seat 2 folds
    r.field[r.uid("3h")] = MUCK
    r.tick(3)
    assert [(p.code, p.seat) for p in r.since(m, Prompt)] == [("flow.clock_stopped", 2)]
    assert r.table.tournament.clock_running() is False
    r.field[r.uid("Kd")] = 2  # not dead: nothing for the floor
    r.tick(3)
    assert "flow.dead_hand_back" not in codes(r.effects[m:])


def test_FLOW_004_the_clock_ends_with_its_hand():
    r = Room()
    r.hole()
    r.signal(ClockCalled(r.at(), 2, mono=50.0, boot="b1"))
    m = r.mark()
    r.gather()
    assert codes(r.effects[m:]) == ["flow.clock_stopped"] and r.table.tournament.clock_running() is False


def test_FLOW_004_a_call_with_no_hand_under_way_or_on_a_seat_not_in_it_is_ignored_with_a_note():
    r = Room()
    m = r.mark()
    r.signal(ClockCalled(r.at(), 2, mono=50.0, boot="b1", n=1))  # between hands
    [note] = r.since(m)
    assert (note.code, note.audience, note.seat, note.hand) == ("flow.clock_ignored", "floor", 2, None)
    assert "no hand under way" in note.message and r.table.tournament.clock_running() is False
    assert r.table.tournament.seen_fields()["clock_n"] == 1  # applied (ignored): not sent again
    r.hole()
    m = r.mark()
    r.press("clock", seat=9)  # no seat 9 in the hand
    assert codes(r.effects[m:]) == ["flow.clock_ignored"] and r.table.tournament.clock_running() is False
    assert any("FLOW-004: the clock on seat 9 (the dealer's call) ignored" in n for n in r.table.hand.notes)


def test_FLOW_004_the_dealers_clock_pad_with_a_seat_key():
    with pytest.raises(ValueError, match="press 'clock' needs a seat"):
        check_press("clock")
    check_press("clock", seat=4)
    r = Room()
    r.hole()
    press = ButtonPress(500.0, "clock", seat=4)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(press)))) == press
    said = [(e.code, e.count) for e in r.signal(press)]
    assert said == [("flow.clock", 30)] and r.table.tournament.clock_running() is True
    # a press carries no monotonic reading: the first tick's is taken, with the wall clock's 0.4 s
    # before it; from then on the monotonic clock (10 s after the press: tick at mono 109.6)
    r.signal(Tick(500.4, mono=100.0, boot="b1"))
    assert [(e.code, e.count) for e in r.signal(Tick(509.0, mono=109.5, boot="b1"))] == []
    assert [(e.code, e.count) for e in r.signal(Tick(510.0, mono=109.6, boot="b1"))] == [("flow.clock", 20)]


def test_FLOW_004_a_second_call_on_another_seat_replaces_the_first():
    r = Room()
    r.hole()
    r.signal(ClockCalled(r.at(), 2, mono=50.0, boot="b1"))
    m = r.mark()
    r.signal(ClockCalled(r.at(), 2, mono=51.0, boot="b1"))  # the same seat: no more time
    assert codes(r.effects[m:]) == ["flow.clock_ignored"]
    m = r.mark()
    r.signal(ClockCalled(r.at(), 4, mono=52.0, boot="b1"))
    assert [(p.code, p.seat, p.count) for p in r.since(m, Prompt)] == [("flow.clock_stopped", 2, None),
                                                                      ("flow.clock", 4, 30)]


# -- the state: a restart mid-clock and mid-hold -----------------------------------------------------------
def test_a_table_restarted_mid_clock_counts_on_and_one_restarted_in_another_boot_loses_no_more_than_a_second():
    r = Room()
    r.hole()
    said = [(-1, e.code, e.count) for e in r.signal(ClockCalled(500.0, 2, mono=1000.0, boot="b1"))]
    for i in range(12):
        said += [(i, e.code, e.count) for e in r.signal(Tick(500.5 + i, mono=1000.5 + i, boot="b1"))]
    state = json.loads(json.dumps(r.table.to_state()))
    again = Table.from_state(copy.deepcopy(state), r.table.settings)
    assert again.tournament.clock_running() is True
    for i in range(12, 32):
        said += [(i, e.code, e.count) for e in again.apply(Tick(500.5 + i, mono=1000.5 + i, boot="b1"))
                 if isinstance(e, Prompt)]
    assert said == COUNTDOWN  # as if nothing happened
    # a new boot (the Pi restarted: 40 s down): the first tick after counts a second, then on
    other = Table.from_state(copy.deepcopy(state), r.table.settings)
    said = []
    for k, i in enumerate(range(12, 40)):
        said += [(i, e.code, e.count) for e in other.apply(Tick(551.5 + k, mono=7.0 + k, boot="b2"))
                 if isinstance(e, Prompt)]
    # 11.5 s counted at the restart; the first tick of boot b2 adds 1 (12.5), then a second a tick:
    # 10 left at tick 12 + 8 (20.5 counted), dead at tick 12 + 18 (30.5)
    assert [(i, c) for i, c, _ in said] == [(20, "flow.clock"), (25, "flow.clock"), (26, "flow.clock"),
                                            (27, "flow.clock"), (28, "flow.clock"), (29, "flow.clock"),
                                            (30, "flow.clock_dead")]


def test_a_table_restarted_mid_hold_and_with_a_dead_hand_carries_on():
    r = Room()
    r.signal(LevelSet(r.at(), "main", 7, small_blind=300, big_blind=600, ante=75))
    r.signal(BubbleMode(r.at(), True))
    r.signal(BubbleHold(r.at(), True, "t3", 42))  # holding ...
    r.hole()  # ... and dealt all the same (the floor knows): a hand under the hold, a seat dead in it
    clock_run(r)
    state = json.loads(json.dumps(r.table.to_state()))
    assert state["version"] == STATE_VERSION >= 14
    assert state["parts"]["tournament"]["state"]["_dead"] == {"t": [1, 2]}
    table = Table.from_state(state, r.table.settings)
    assert table.tournament.seen_fields() == r.table.tournament.seen_fields()
    assert table.tournament.holding() == "bubble" and table.tournament.level_now() == 7
    assert table.to_state() == state
    uid = r.uid("Kd")
    out = [e for c in (68, 69) for e in table.apply(ReaderCycle(float(c), "reader", c, ((uid, 4, 200),)))]
    assert codes(out) == ["flow.dead_hand_back"]  # seat 2's card at seat 4
    assert codes(table.apply(BubbleHold(70.0, False))) == ["flow.bubble_go"]
    assert table.tournament.holding() is None


# -- the fixture of version 14, and version 13's states ---------------------------------------------------------
def fixture_table() -> Room:
    """How tests/data/state/v14-tournament-mid-hand.json was written, by the release of version 14
    (``json.dumps(fixture_table().table.to_state(), indent=1)``): kept as the state of version 14
    that later releases must read, not written again."""
    r = Room()
    r.play()
    r.signal(LevelSet(r.at(), "main", 7, small_blind=300, big_blind=600, ante=75))
    shuffle(r)
    r.signal(HandForHand(r.at(), True))
    r.signal(Release(r.at(), 2))
    r.signal(BubbleMode(r.at(), True))
    r.hole()
    r.press("round_done")
    r.put("9d", 12)
    return r


def test_the_state_of_a_tournament_table_written_by_release_14_loads_and_plays_on():
    """Hand 2 of level 7 (blinds 300/600, ante 75) mid-flop, hand-for-hand on (round 2), the bubble on."""
    state = json.loads((DATA / "v14-tournament-mid-hand.json").read_text())
    assert state["version"] == 14
    r = Room()
    r.table = Table.from_state(state, r.table.settings)
    t = r.table.tournament
    assert t.level_now() == 7 and t.holding() is None and r.table.hand.number == 2
    assert t.seen_fields() == {"tournament": "main", "level": 7, "kind": "level", "h4h": True, "round": 2,
                               "bubble_mode": True, "bubble": False, "bubble_table": None, "bubble_hand": None,
                               "clock_n": 0}
    r.field = {r.uid(c): a for c, a in zip((*HOLE, "9d"), (2, 4, 1, 2, 4, 1, 12), strict=True)}
    r.cycle = 67  # (the reader's cycles go on from the fixture's)
    r.press("allin", seat=4)  # the bubble: the floor's
    for card in ("Th", "Jh", "4s"):
        r.put(card, 11)
    r.gather()
    rec = r.table.last_record
    assert rec["hand"] == 2 and rec["level"] == 7
    assert [(a["code"], a.get("seat")) for a in rec["alerts"] if a["code"].startswith("flow.")] == [
        ("flow.bubble_allin", 4)]
    assert t.holding() == "h4h" and codes(r.effects)[-1] == "flow.h4h_wait"
    r.signal(Release(r.at(), 3))
    assert t.holding() is None and r.play()["level"] == 7


def test_a_version_13_state_gets_a_fresh_tournament():
    state = json.loads((DATA / "resume-v13.json").read_text())["cases"][0]["state"]
    assert state["version"] == 13 and "tournament" not in state["parts"]
    from tests.unit.core.test_state import SETTINGS
    table = Table.from_state(copy.deepcopy(state), SETTINGS)
    fresh = Table(SETTINGS, table.registry)
    assert table.to_state()["parts"]["tournament"] == fresh.to_state()["parts"]["tournament"]
    # (FRESH_TOURNAMENT is the part's version 1; version 2, issue 39, adds the next deal's shuffle)
    assert {**FRESH_TOURNAMENT, "_shuffled": False, "_shuffled_level": None} == Tournament(fresh).fields()
    assert table.tournament.seen_fields() == {f: getattr(Seen(), f) for f in Seen.__dataclass_fields__}


# -- the contract with the room link: what the table applied is what it was sent --------------------------------
def test_seen_fields_are_the_room_links_seen_and_a_signal_applied_is_not_sent_again():
    r = Room()
    signal = Signal("main", Level(5, "level", 100, 200, 25, None), h4h=True, round=3, bubble_mode=True,
                    bubble=True, bubble_table="t3", bubble_hand=42, clock_seat=2, clock_n=1)
    r.hole()
    for ev in signals_for(Seen(**r.table.tournament.seen_fields()), signal, ts=r.at(), mono=5.0, boot="b1"):
        r.signal(ev)
    assert set(r.table.tournament.seen_fields()) == set(Seen.__dataclass_fields__)
    assert signals_for(Seen(**r.table.tournament.seen_fields()), signal, ts=r.at()) == []
    assert r.table.tournament.clock_running() is True and r.table.tournament.level_now() is None  # (no level yet)


# -- the console and the display ---------------------------------------------------------------------------------
def test_the_console_shows_the_holds_over_routine_prompts_and_the_countdown_over_the_holds():
    board = PromptBoard()
    stub = Prompt(1.0, "stub.count_due", "count the stub", "STUB-001", 1)
    wait = Prompt(2.0, "flow.h4h_wait", "hand-for-hand: wait", "FLOW-002")
    assert board.apply([stub, wait]).code == "flow.h4h_wait"
    assert board.press(ButtonPress(3.0, "ack")).code == "flow.h4h_wait"  # the dealer cannot dismiss it
    assert board.press(ButtonPress(3.0, "next")).code == "flow.h4h_wait"
    assert board.apply([Prompt(4.0, "flow.h4h_go", "released", "FLOW-002")]).code == "flow.h4h_go"
    assert "flow.h4h_wait" not in [w.code for w in board.waiting]
    board = PromptBoard()
    board.apply([Prompt(1.0, "flow.bubble_hold", "bubble: hold", "FLOW-003")])
    s = board.apply([Prompt(2.0, "flow.clock", "clock on seat 2: 30", "FLOW-004", 1, seat=2, count=30)])
    assert (s.code, s.prompt_seat, s.prompt_count) == ("flow.clock", 2, 30)
    s = board.apply([Prompt(3.0, "flow.clock", "clock on seat 2: 5", "FLOW-004", 1, seat=2, count=5)])
    assert (s.code, s.prompt_count, s.waiting) == ("flow.clock", 5, 2)  # the same prompt, its count now
    assert board.press(ButtonPress(3.0, "ack")).code == "flow.clock"
    s = board.apply([Prompt(4.0, "flow.clock_stopped", "stopped", "FLOW-004", 1, seat=2)])
    assert s.code == "flow.bubble_hold" and s.waiting == 1
    assert board.apply([Prompt(5.0, "flow.bubble_go", "deal on", "FLOW-003")]).code == "flow.bubble_go"


def test_the_display_counts_the_clock_down_and_names_no_table():
    from controller.core.prompts import ConsoleState
    assert render(ConsoleState(code="flow.clock", prompt_seat=2, prompt_count=20, between=False), "lcd16x2") == [
        "CLOCK seat 2", "20 seconds"]
    assert render(ConsoleState(code="flow.clock_dead", prompt_seat=10, between=False), "lcd16x2") == [
        "seat 10 DEAD", "cards to muck"]
    assert render(ConsoleState(code="flow.h4h_wait", between=True), "lcd16x2") == ["HAND FOR HAND", "wait for floor"]
    assert render(ConsoleState(code="flow.new_level", prompt_count=12, between=True), "lcd16x2") == [
        "NEW LEVEL 12", "limits go up"]


# -- the hot path -------------------------------------------------------------------------------------------------
class _Untouchable:
    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"a reader cycle touched the tournament ({name})")


def test_a_quiet_reader_cycle_does_not_touch_the_tournament():
    r = Room()
    r.signal(HandForHand(r.at(), True))
    r.signal(Release(r.at(), 1))
    r.hole()
    hand = r.table.hand
    r.table.tournament = r.table.dealing._tournament = _Untouchable()  # type: ignore[assignment]
    r.tick(20)  # the cards lie still: the tracker settles each cycle, nothing reaches the parts
    assert r.table.hand is hand and hand.count("seat:1") == 2


def test_a_signal_out_of_bounds_fed_directly_is_ignored_and_the_state_stays_sound():
    """The room link parses the floor's signal (controller/room/tournament.py) and a script's floor
    step is checked before it runs; a journal row fed to the core directly is not: it must not
    leave a state that cannot be read back."""
    r = Room()
    r.hole()
    out = [e for ev in (LevelSet(1.0, "main", 0), LevelSet(1.0, "main", 3, kind="lunch"), Release(1.0, -4),
                        LevelSet(1.0, "main", 2, small_blind=-5, big_blind=10, ante=-1, game="chess"),
                        BubbleHold(1.0, True, "t3", -1), ClockCalled(1.0, 11, mono=1.0),
                        ButtonPress(1.0, "clock", seat=0)) for e in r.signal(ev)]
    assert out == []
    t = r.table.tournament
    assert (t.level, t.kind, t.round, t.bubble_hand, t.clock_running()) == (2, "level", 0, None, False)
    assert t._limits == (None, 10, None, None)
    Table.from_state(json.loads(json.dumps(r.table.to_state())), r.table.settings)
