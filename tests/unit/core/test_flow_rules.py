"""The guides' last checkable flow rules (controller/core/table/flow.py; docs/rules.md FLOW-006..009,
DECK-009), each tested against the rule's own text and the seeds' words, not the module's code:

- FLOW-006, 003 §Be at Your Seat / Absent Player: "If a player is away from the game for an
  extended period, at the request of the other players, the absent player will be eliminated
  after 2 full rotations." A rotation is worked out here by hand: the button at every seat once.
- FLOW-007, 001 §PLAYER SEATING (satellite): "The Satellite may NOT begin without the approval of
  the Supervisor"; §DEALING (satellite): "the Dealer will place the button in seat 10 (or last
  seat if satellite is 6 or 8 handed,) and WAIT. Once approval is received, the Dealer should then
  start the clock and deal".
- FLOW-008, 002 §TABLE ADDON - TOURNAMENTS: "Every NEW player coming to the table should be
  offered the add-on chips. If a player is moving tables that CANNOT get the add-on chips.
  Add-Ons can only be purchased before the player play their first hand at the table." And
  DEAL-006's distinction, 001 §INCOMING PLAYERS (Tournaments): "A player being moved to a new
  table must begin play as soon as possible ... may not receive a hand in between the Small Blind
  and the Button", against §LATE REGISTRANTS: "must wait until their first opportunity to post the
  Big Blind".
- FLOW-009, 002 §RAKE: "maximum $4 ... an additional $1. for promotions"; §RAKE REDUCTION:
  "4-handed: $3 + $1 Promotional; 3-handed or less: $2 + No Promotional".
- DECK-009, 001 §DECK CHANGES (single-table satellite): "Dealers should rotate decks at the start
  of each satellite."

The scripts are dealt in process under noise (the harness: the real daemon, the console's pads,
the reader; the check that nothing secret reached a public output); a few cases on the pure core.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from controller.config.daemon import ConfigError, parse_config
from controller.core.display import render
from controller.core.effects import Alert, HandFinished, Prompt
from controller.core.events import SatelliteApproved, event_from_dict, event_to_dict
from controller.core.rules.table_flow import rake_cap
from controller.core.settings import RakeCaps, RuleSettings
from controller.core.state import STATE_VERSION, StateError
from controller.core.state.migrations import FRESH_FLOW
from controller.core.table import Table
from hw_sim.harness import Played, play as harness_play
from hw_sim.random_hands import random_script
from rig.paths import TESTS
from rig.scenarios import NOISE, assert_nothing_secret_public, play
from tests.rules_common import clean_for
from tests.unit.core.test_tournament import Room

DATA = TESTS / "data" / "state"
SATELLITE = {"press": "mode", "mode": "satellite"}
APPROVE = {"floor": "approve"}


def order_from(seats: list[int], button: int) -> list[int]:
    """The deal's order: the first seat clockwise after the button, round to the button (DEAL-001)."""
    ring = sorted(seats)
    return [s for s in ring if s > button] + [s for s in ring if s <= button]


def script(hands: list[Any], seats: list[int], button: int, seed: int = 3, game: str = "holdem") -> dict[str, Any]:
    return {"format": 1, "game": game, "seats": seats, "button": button, "noise": dict(NOISE, seed=seed),
            "hands": [h if isinstance(h, dict) else {"steps": h} for h in hands]}


def dealt(s: dict[str, Any], **kw: Any) -> Played:
    """Every effect as the outputs got them, the secrets checked (rig.scenarios.play's check)."""
    p = harness_play(s, **kw)
    assert_nothing_secret_public(s, p)
    return p


def ours(items: list[dict[str, Any]], rule: str) -> list[dict[str, Any]]:
    return [i for i in items if i.get("rule") == rule]


def records(p: Played) -> list[dict[str, Any]]:
    return [e.record for _, e in p.seen["floor"] if isinstance(e, HandFinished)]


def shown(p: Played, code: str) -> list[Any]:
    """The console's states that showed ``code`` (what the dealer's display drew)."""
    return [s for _, s in p.screens if s.code == code]


def absent_hand(order: list[int], away: int) -> list[dict[str, Any]]:
    """A clean hand in which ``away``'s cards, dealt with the others', go to the muck at the end of
    the deal (DEAL-009: his hand is dead)."""
    steps = clean_for(order)
    steps.insert(2 * len(order), {"muck": f"seat:{away}"})
    return steps


# -- FLOW-006: a long absence -----------------------------------------------------------------------

SEATS3, BUTTON3 = [1, 4, 7], 7  # three players: a rotation is three hands (the button at 1, 4, 7)


def buttons_of(hands: int, seats: list[int], button: int) -> list[int]:
    """The buttons of ``hands`` hands from ``button``, one seat clockwise a hand (DEAL-004)."""
    out = []
    for _ in range(hands):
        out.append(button)
        button = order_from(seats, button)[0]
    return out


def test_FLOW_006_a_player_away_two_full_rotations_is_the_floors_to_know():
    # seat 4 is away from before hand 2. Three players: a rotation is the button at 1, 4 and 7, so
    # hands 2-4 are the first full rotation and hands 5-7 the second: after hand 7 the floor is
    # told (at its gather: in hand 8's record, traced to hand 7's last step), and the dealer too.
    buttons = buttons_of(8, SEATS3, BUTTON3)
    assert buttons == [7, 1, 4, 7, 1, 4, 7, 1]
    hands: list[dict[str, Any]] = [{"steps": clean_for(order_from(SEATS3, 7))}]
    for b in buttons[1:]:
        hands.append({"steps": absent_hand(order_from(SEATS3, b), 4)})
    hands[1]["steps"].insert(0, {"press": "seat_absent", "seat": 4})
    report = play(script(hands, SEATS3, BUTTON3))
    assert [h["button"] for h in report["hands"]] == buttons
    end7 = len(hands[6]["steps"])
    told = [(i, ours(h["alerts"], "FLOW-006"), ours(h["prompts"], "FLOW-006"))
            for i, h in enumerate(report["hands"], 1) if ours(h["alerts"] + h["prompts"], "FLOW-006")]
    assert told == [(8, [{"code": "flow.long_absence", "rule": "FLOW-006", "seat": 4, "audience": "floor",
                          "step": end7, "hand": 7}],
                     [{"code": "flow.long_absence", "rule": "FLOW-006", "seat": 4, "step": end7, "hand": 7,
                       "text": "seat 4 away two full orbits: the floor is told"}])]
    # the absent seat's own procedure goes on meanwhile (DEAL-009: its hand mucked at the deadline)
    assert all(any(a["rule"] == "DEAL-009" for a in h["alerts"]) for h in report["hands"][1:])


def test_FLOW_006_a_player_back_before_two_rotations_is_nobodys_business_and_counts_again_from_nothing():
    # away for hands 2-6 (one rotation and two hands), back for hand 7, away again for hands 8-12:
    # never two full rotations in one absence
    buttons = buttons_of(12, SEATS3, BUTTON3)
    hands: list[dict[str, Any]] = []
    for n, b in enumerate(buttons, 1):
        away = 2 <= n <= 6 or n >= 8
        hands.append({"steps": absent_hand(order_from(SEATS3, b), 4) if away else clean_for(order_from(SEATS3, b))})
    hands[1]["steps"].insert(0, {"press": "seat_absent", "seat": 4})
    hands[6]["steps"].insert(0, {"press": "seat_in", "seat": 4})  # back
    hands[7]["steps"].insert(0, {"press": "seat_absent", "seat": 4})
    report = play(script(hands, SEATS3, BUTTON3))
    assert [h["button"] for h in report["hands"]] == buttons
    assert [ours(h["alerts"] + h["prompts"], "FLOW-006") for h in report["hands"]] == [[]] * 12


def test_FLOW_006_the_hand_under_way_at_the_press_is_not_a_full_one_and_a_misdeal_counts_with_its_re_deal():
    r = Room()  # seats 1, 2 and 4: a rotation is three hands
    r.play()
    r.hole()  # hand 2 under way ...
    r.press("seat_absent", seat=2)  # ... when seat 2 goes: counted from hand 3
    from tests.unit.core.test_table import deal_board
    deal_board(r)
    r.gather()
    mark = r.mark()
    for _ in range(2):  # hands 3, 4
        r.play()
    r.hole()  # hand 5 (the button at 1), misdealt: it and its re-deal (hand 6, the button at 1) count once
    r.press("misdeal")
    r.gather()
    # counted: hands 3 (button 2), 4 (4), 6 (1): a rotation; 7 (2), 8 (4), 9 (1): the second. Had
    # the misdealt hand counted, the second would have ended at hand 8.
    for _ in range(3):  # hands 6, 7, 8
        r.play()
    assert not [e for e in r.effects[mark:] if getattr(e, "code", "") == "flow.long_absence"]
    r.play()  # hand 9
    told = [(type(e).__name__, e.audience, e.seat, e.count) for e in r.effects[mark:]
            if getattr(e, "code", "") == "flow.long_absence"]
    assert told == [("Alert", "floor", 2, 2), ("Prompt", "dealer", 2, 2)]
    records = [h.record for h in r.of(HandFinished)]
    assert [rec["button"] for rec in records] == [4, 1, 2, 4, 1, 1, 2, 4, 1]
    assert [rec["hand"] for rec in records if rec.get("misdeal")] == [5]


def test_FLOW_006_a_seat_out_ends_the_count_and_a_cash_table_counts_nothing():
    r = Room()
    r.press("seat_absent", seat=2)
    r.press("seat_out", seat=2)  # gone: nobody to count
    assert r.table.flow.fields()["_away"] == {}
    cash = Room(event="cash")
    cash.press("seat_absent", seat=2)  # a cash player sits out: not dealt, no orbit to count (DEAL-008)
    for _ in range(7):
        cash.play()
    assert cash.table.flow.fields()["_away"] == {}
    assert not [e for e in cash.effects if getattr(e, "code", "") == "flow.long_absence"]


def test_FLOW_006_stud_counts_a_hand_a_player_as_its_dealers_position_stands():
    # stud has no button (STUD-001): a rotation is a hand a player dealt in (as MIXED-001's orbit)
    expect: list = []
    s = random_script(6, hands=8, game="stud", seats=[2, 5, 8], noise=dict(NOISE, seed=6), expect=expect)
    s["hands"][1]["steps"].insert(0, {"press": "seat_absent", "seat": 5})
    report = play(s)
    told = [(i, a["audience"], a["seat"], a.get("hand")) for i, h in enumerate(report["hands"], 1)
            for a in ours(h["alerts"], "FLOW-006")]
    assert told == [(8, "floor", 5, 7)]  # away for hands 2-7: two rotations of three hands


# -- FLOW-007: a single-table satellite's start gate --------------------------------------------------

SAT6 = [1, 2, 3, 4, 5, 6]  # a six-handed satellite: the last seat is 6


def test_FLOW_007_the_satellite_waits_on_the_last_seat_for_the_floors_approval_then_deals():
    steps = [SATELLITE, APPROVE] + clean_for(order_from(SAT6, 6))
    p = dealt(script([steps], SAT6, 3))  # the table's button was at 3: the satellite's goes to 6
    report = p.report
    [hand] = report["hands"]
    assert hand["button"] == 6 and hand["alerts"] == []
    assert report["holds"] == [{"kind": "satellite", "from_step": 1, "released_step": 2}]
    told = [(e.code, e.audience, e.seat) for _, e in p.seen["floor"] if isinstance(e, (Alert, Prompt))
            and e.rule == "FLOW-007"]
    assert told == [("flow.satellite_ready", "floor", None), ("flow.satellite_wait", "dealer", 6),
                    ("flow.satellite_go", "dealer", None)]
    # the dealer's display: wait, the button's seat, then deal (never a card)
    [wait] = {s.message: s for s in shown(p, "flow.satellite_wait")}.values()
    assert render(wait, "lcd16x2") == ["SATELLITE: WAIT", "button seat 6"]
    assert render(shown(p, "flow.satellite_go")[0], "lcd20x4")[:2] == ["SATELLITE: DEAL", "start clock, deal"]


def test_FLOW_007_a_card_dealt_before_the_approval_goes_to_the_floor_and_the_gate_stands():
    hands = [[SATELLITE] + clean_for(order_from(SAT6, 6)),  # dealt at once: no approval
             [APPROVE] + clean_for(order_from(SAT6, 1))]
    report = play(script(hands, SAT6, 6))
    assert report["hands"][0]["alerts"] == [{"code": "flow.dealt_before_approval", "rule": "FLOW-007",
                                            "audience": "floor", "step": 2}]
    assert report["hands"][1]["alerts"] == []
    start2 = len(hands[0]) + 1
    assert report["holds"] == [{"kind": "satellite", "from_step": 1, "released_step": start2}]


def test_FLOW_007_an_approval_with_no_satellite_waiting_changes_nothing():
    report = play(script([[APPROVE] + clean_for(order_from(SAT6, 6))], SAT6, 6))
    assert report["holds"] == [] and report["hands"][0]["alerts"] == []
    assert not ours(report["hands"][0]["prompts"], "FLOW-007")


def test_FLOW_007_the_gate_and_the_satellite_are_kept_through_a_restart():
    r = Room()
    r.press("mode", mode="satellite")
    state = json.loads(json.dumps(r.table.to_state()))
    assert state["version"] == STATE_VERSION == 16
    again = Table.from_state(copy.deepcopy(state), r.table.settings)
    assert again.flow.gated() and again.flow.fields() == r.table.flow.fields()
    assert [type(e).__name__ for e in again.apply(SatelliteApproved(2.0))] == ["Prompt"]
    assert not again.flow.gated()
    ev = SatelliteApproved(3.0, peer_uid=1000)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(ev)))) == ev  # journalled as any event


# -- FLOW-008: the table add-on -----------------------------------------------------------------------

SEATS5, BUTTON5 = [1, 2, 4, 6, 9], 9
ADDON = "table_addon = true"


def test_FLOW_008_a_new_player_is_offered_the_add_on_until_his_first_card():
    # hand 2: the button at 1, small blind 2, big blind 4; seat 3, new, plays at once (DEAL-006: not
    # between the button and the small blind) and is offered the add-on as he sits down
    hands = [clean_for(order_from(SEATS5, 9)),
             [{"press": "seat_in", "seat": 3}] + clean_for([2, 3, 4, 6, 9, 1]),
             clean_for([3, 4, 6, 9, 1, 2])]
    p = dealt(script(hands, SEATS5, BUTTON5), rules_extra=ADDON)
    report = p.report
    assert [h["alerts"] for h in report["hands"]] == [[], [], []]
    offers = [(i, ours(h["prompts"], "FLOW-008")) for i, h in enumerate(report["hands"], 1)]
    assert offers == [(1, []), (2, [{"code": "flow.addon_offer", "rule": "FLOW-008", "seat": 3, "step": 1,
                                     "text": "seat 3 is new at the table: offer the table add-on (until his first "
                                             "card)"}]), (3, [])]
    notes = [r.get("notes", []) for r in records(p)]
    assert [n for n in notes[1] if n.startswith("FLOW-008")] == \
        ["FLOW-008: seat 3's table add-on window closed at its first card"]
    assert not [n for n in notes[0] + notes[2] if n.startswith("FLOW-008")]
    [offer] = {s.message: s for s in shown(p, "flow.addon_offer")}.values()
    assert render(offer, "lcd16x2") == ["seat 3 NEW", "offer add-on"]


def test_FLOW_008_a_player_moved_from_another_table_is_not_offered_it():
    # a long seat_in: moved here (the seat card of a table move); a seat the floor's seating adds
    # (hand 3's own seats: the simulator's setup) is a move too
    hands = [clean_for(order_from(SEATS5, 9)),
             [{"press": "seat_in", "seat": 3, "long": True}] + clean_for([2, 3, 4, 6, 9, 1]),
             {"seats": [1, 2, 3, 4, 6, 7, 9], "button": 2, "steps": clean_for([3, 4, 6, 7, 9, 1, 2])}]
    report = play(script(hands, SEATS5, BUTTON5), rules_extra=ADDON)
    assert [h["alerts"] for h in report["hands"]] == [[], [], []]
    assert [ours(h["prompts"], "FLOW-008") for h in report["hands"]] == [[], [], []]


def test_FLOW_008_a_tournament_without_a_table_add_on_offers_none():
    hands = [clean_for(order_from(SEATS5, 9)), [{"press": "seat_in", "seat": 3}] + clean_for([2, 3, 4, 6, 9, 1])]
    report = play(script(hands, SEATS5, BUTTON5))  # [rules] table_addon = false: the default
    assert [ours(h["prompts"], "FLOW-008") for h in report["hands"]] == [[], []]


@pytest.mark.parametrize("long", [False, True], ids=["a late registrant waits", "a moved player plays"])
def test_DEAL_006_a_moved_player_plays_at_once_where_a_late_registrant_waits_for_the_big_blind(long):
    # LATE_ENTRY = wait_for_bb (001 §LATE REGISTRANTS). Hand 2: the button at 1, the blinds 2 and 4;
    # seat 7 sits down: a late registrant waits until the big blind reaches him; a player moved
    # from another table plays at once (001 §INCOMING PLAYERS: "as soon as possible"), seat 7 not
    # being between the small blind and the button
    order = [2, 4, 6, 7, 9, 1] if long else [2, 4, 6, 9, 1]
    hands = [clean_for(order_from(SEATS5, 9)), [{"press": "seat_in", "seat": 7, "long": long}] + clean_for(order)]
    report = play(script(hands, SEATS5, BUTTON5), rules_extra='late_entry = "wait_for_bb"')
    waits = [(a["code"], a["seat"]) for a in report["hands"][1]["alerts"]]
    assert waits == ([] if long else [("deal.seat_waits", 7)])
    assert sorted(z for z in report["hands"][1]["zones"] if z.startswith("seat:")) == \
        sorted(f"seat:{s}" for s in order)


def test_DEAL_006_a_moved_player_still_waits_between_the_small_blind_and_the_button():
    # the one exception 001 keeps for a moved player: hand 3 has the button at 2 and the small blind
    # at 4, so seat 3 would receive a hand between them: he waits for the button to pass
    hands = [clean_for(order_from(SEATS5, 9)), clean_for(order_from(SEATS5, 1)),
             [{"press": "seat_in", "seat": 3, "long": True}] + clean_for(order_from(SEATS5, 2))]
    report = play(script(hands, SEATS5, BUTTON5), rules_extra='late_entry = "wait_for_bb"')
    assert [h["button"] for h in report["hands"]] == [9, 1, 2]
    assert [(a["code"], a["seat"]) for a in report["hands"][2]["alerts"]] == [("deal.seat_waits", 3)]


# -- FLOW-009: the short-handed rake cap ---------------------------------------------------------------

def test_FLOW_009_each_hand_says_the_cap_for_the_seats_dealt_in():
    # the floor seats each hand (cash: everyone listed is dealt), six, four, three and two players
    tables = [([1, 2, 3, 4, 5, 6], 6), ([1, 3, 5, 7], 7), ([2, 5, 8], 8), ([4, 9], 9)]
    hands = [{"seats": s, "button": b, "steps": clean_for(order_from(s, b))} for s, b in tables]
    p = dealt(script(hands, [1, 2, 3, 4, 5, 6], 6), table_extra='event = "cash"')
    report = p.report
    assert [h["alerts"] for h in report["hands"]] == [[]] * 4
    said = [[(x["code"], x["step"], x["text"]) for x in ours(h["prompts"], "FLOW-009")] for h in report["hands"]]
    assert said == [[("flow.rake_cap", 1, "rake cap 4 + 1 promotional (6 dealt in)")],  # $4, $1 at a $40 pot
                    [("flow.rake_cap", 1, "rake cap 3 + 1 promotional (4-handed)")],  # "4-handed: $3 + $1"
                    [("flow.rake_cap", 1, "rake cap 2, no promotional rake (3-handed)")],  # "3-handed or less"
                    [("flow.rake_cap", 1, "rake cap 2, no promotional rake (2-handed)")]]
    screens = {s.prompt_count: render(s, "lcd16x2") for s in shown(p, "flow.rake_cap")}
    assert screens[4][0] == "RAKE CAP 4" and screens[2][0] == "RAKE CAP 2"
    assert all(s.prompt == "off" for s in shown(p, "flow.rake_cap"))  # the display only: no LED


def test_FLOW_009_the_caps_are_the_houses_and_a_table_without_rake_or_a_tournament_says_none():
    hands = [{"seats": [1, 2, 3, 4], "button": 4, "steps": clean_for([1, 2, 3, 4])}]
    s = script(hands, [1, 2, 3, 4], 4)
    house = play(s, table_extra='event = "cash"', rules_extra="rake_cap_four = 5\nrake_promo_four = 0")
    assert [x["text"] for x in ours(house["hands"][0]["prompts"], "FLOW-009")] == \
        ["rake cap 5, no promotional rake (4-handed)"]
    none = play(s, table_extra='event = "cash"', rules_extra="rake_cap = 0")
    assert ours(none["hands"][0]["prompts"], "FLOW-009") == []
    tournament = play(s)
    assert ours(tournament["hands"][0]["prompts"], "FLOW-009") == []


def test_FLOW_009_the_guides_caps_are_the_defaults_and_a_bad_one_names_its_key_and_file(tmp_path):
    assert RuleSettings().rake_caps == RakeCaps(full=4, promo=1, four=3, promo_four=1, three=2, promo_three=0)
    assert [rake_cap(n, RuleSettings().rake_caps) for n in (10, 5, 4, 3, 2)] == [(4, 1)] * 2 + [(3, 1), (2, 0), (2, 0)]
    path = tmp_path / "tablectl.toml"
    cfg = parse_config('[reader]\nport = "loop://"\n[rules]\nrake_cap = 6\nrake_promo_three = 1\n', path=path)
    assert (cfg.table.rules.rake_cap, cfg.table.rules.rake_promo_three) == (6, 1)
    for text, want in (("rake_cap = -1", "[rules] rake_cap = -1: must be a whole number from 0 to 1000 (the house's "
                                         "money)"),
                       ('rake_cap_three = "two"', '[rules] rake_cap_three = "two": must be a whole number from 0 to '
                                                  "1000 (the house's money)"),
                       ("table_addon = 1", "[rules] table_addon: want true or false, got 1")):
        with pytest.raises(ConfigError) as err:
            parse_config(f'[reader]\nport = "loop://"\n[rules]\n{text}\n', path=path)
        assert str(err.value).startswith(f"{path}: {want}"), str(err.value)


# -- DECK-009: each satellite on the other deck ---------------------------------------------------------

def of_deck(steps: list[dict[str, Any]], deck: str) -> list[dict[str, Any]]:
    """``steps`` with every card dealt one of ``deck``'s (``As@B``)."""
    return [{**s, "deal": f"{s['deal']}@{deck}"} if "deal" in s else s for s in steps]


def satellites(second: list[dict[str, Any]]) -> dict[str, Any]:
    """Satellite 1 dealt from deck A (the one in play), then satellite 2's first hand, ``second``."""
    first = [SATELLITE, APPROVE] + clean_for(order_from(SAT6, 6))
    return script([first, second], SAT6, 6)


def test_DECK_009_a_satellite_opened_on_the_other_deck_is_right():
    second = [SATELLITE, {"press": "new_deck"}, APPROVE] + of_deck(clean_for(order_from(SAT6, 6)), "B")
    report = play(satellites(second))
    assert [h["alerts"] for h in report["hands"]] == [[], []]
    assert [h["button"] for h in report["hands"]] == [6, 6]  # each satellite from the last seat


def test_DECK_009_a_satellite_opened_on_the_same_deck_is_told_at_its_first_card():
    second = [SATELLITE, APPROVE] + clean_for(order_from(SAT6, 6))  # deck A again
    p = dealt(satellites(second))
    assert p.report["hands"][0]["alerts"] == []
    assert p.report["hands"][1]["alerts"] == [{"code": "flow.satellite_not_rotated", "rule": "DECK-009",
                                               "audience": "dealer", "step": 3}]
    [screen] = {s.message: s for s in shown(p, "flow.satellite_not_rotated")}.values()
    assert render(screen, "lcd16x2") == ["OTHER DECK", "new satellite"]


def test_DECK_009_the_satellites_first_shuffle_of_the_same_deck_is_told_before_a_card_is_dealt():
    # the shuffler reports deck A at the satellite's first shuffle: told there; the dealer brings
    # deck B in and deals it: nothing more
    second = [SATELLITE, {"shuffler": "deck"}, {"press": "new_deck"}, APPROVE] \
        + of_deck(clean_for(order_from(SAT6, 6)), "B")
    report = play(satellites(second))
    assert report["hands"][1]["alerts"] == [{"code": "flow.satellite_not_rotated", "rule": "DECK-009",
                                             "audience": "dealer", "step": 2}]


# -- the part's state ------------------------------------------------------------------------------------

def test_a_version_14_state_reads_with_a_fresh_flow_section():
    state = json.loads((DATA / "v14-tournament-mid-hand.json").read_text())
    assert state["version"] == 14 and "flow" not in state["parts"]
    table = Table.from_state(state, Room().table.settings)
    assert table.flow.fields() == FRESH_FLOW


def test_a_table_saved_away_and_gated_mid_hand_goes_on_as_if_never_stopped():
    def session(r: Room, stop: bool) -> list[Any]:
        r.press("seat_absent", seat=2)
        r.press("mode", mode="satellite")
        r.hole()
        if stop:
            r.table = Table.from_state(json.loads(json.dumps(r.table.to_state())), r.table.settings)
        from tests.unit.core.test_table import deal_board
        deal_board(r)
        r.gather()
        for _ in range(6):
            r.play()
        return [(type(e).__name__, getattr(e, "code", None), getattr(e, "seat", None)) for e in r.effects
                if isinstance(e, (Alert, Prompt))]

    assert session(Room(), True) == session(Room(), False)
    assert ("Alert", "flow.long_absence", 2) in session(Room(), False)


def test_a_version_16_state_of_the_flow_rules_loads():
    """tests/data/state/v16-flow-mid-hand.json (tests/data/state/v16_flow_fixture.py wrote it): seats
    1, 2 and 4; seat 2 away since hand 2, one rotation and a hand (the button at 1) counted; seat 6
    new (offered the add-on before hand 6), seat 5 moved here; a satellite started, its first hand
    (6) dealt from deck A before the approval, one card out."""
    state = json.loads((DATA / "v16-flow-mid-hand.json").read_text())
    assert state["version"] == 16
    table = Table.from_state(state, Room().table.settings)
    got = table.flow.fields()
    assert (got["_gate"], got["satellites"], got["_opened"], got["_addon"], got["_moved"]) == \
        (True, 1, "A", {6: 6}, {5})
    assert got["_away"] == {2: (2, 1, (1,), 1)}
    assert table.hand is not None and table.hand.number == 6 and table.hand.button == 6


def test_a_flow_state_with_a_seat_out_of_range_is_refused():
    state = json.loads((DATA / "v16-flow-mid-hand.json").read_text())
    state["parts"]["flow"]["state"]["_moved"] = {"s": [11]}
    with pytest.raises(StateError, match="_moved"):
        Table.from_state(state, Room().table.settings)
