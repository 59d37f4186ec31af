"""The report's ``between_hands`` (issue 39; docs/deal-script.md, "The report"): what the table says
while no hand is under way, kept in no hand's record, in order, each with the step it came at
(counted over the whole script, as ``holds``' steps are). A script with nothing said between hands
gets no such key: its report is the one it always was."""

from __future__ import annotations

import json

from rig.scenarios import NOISE, play
from hw_sim.harness import play as harness_play
from hw_sim.simulate import format_report
from tests.rules_common import BUTTON, CLEAN, END, SEATS, clean_for

BASE = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=5)}
H4H_WAIT = "hand-for-hand: wait for the floor's release (the deck spread face down before the tray)"


def test_the_button_after_a_break_and_the_hand_for_hand_hold_are_said_between_hands():
    """The players' break pressed during hand 1 (``mode break``) is due at its end: FLOW-005's
    "the button will be seat X" (DEAL-004: the button moves one seat, from 9 to 1) and DECK-008's
    deck reset, at the step the cards were gathered (23). Hand-for-hand comes on between hands
    (step 24): the table holds at once (FLOW-002), until the release (step 25); hand 2 is dealt
    from button 1 and the table holds again after it (its gather, step 47)."""
    hand1 = CLEAN[:-1] + [{"press": "mode", "mode": "break"}, END]  # 23 steps: the break at 22, the gather 23
    hand2 = [{"floor": "h4h", "on": True}, {"floor": "release"}] + clean_for([2, 4, 6, 9, 1])  # steps 24-47
    report = play({**BASE, "hands": [{"steps": hand1}, {"steps": hand2}]})
    assert report["between_hands"] == [
        {"kind": "prompt", "code": "flow.button_after_break", "rule": "FLOW-005", "seat": 1, "step": 23,
         "text": "break: the button will be seat 1; tell the players"},
        {"kind": "prompt", "code": "flow.reset_decks", "rule": "DECK-008", "step": 23,
         "text": "break: reset both decks, each in order from the bottom: diamonds, clubs, hearts, spades, "
                 "the king first and the ace on top"},
        {"kind": "prompt", "code": "flow.h4h_wait", "rule": "FLOW-002", "step": 24, "text": H4H_WAIT},
        {"kind": "prompt", "code": "flow.h4h_go", "rule": "FLOW-002", "step": 25,
         "text": "hand-for-hand: released, deal the next hand"},
        {"kind": "prompt", "code": "flow.h4h_wait", "rule": "FLOW-002", "step": 47, "text": H4H_WAIT},
    ]
    assert list(report) == ["hands", "tracking", "holds", "between_hands"]  # the new key last
    assert report["holds"] == [{"kind": "h4h", "from_step": 24, "released_step": 25},
                               {"kind": "h4h", "from_step": 47, "released_step": None}]
    assert [h["button"] for h in report["hands"]] == [9, 1]
    assert [h["alerts"] for h in report["hands"]] == [[], []]
    # (the hands' own prompts are as they were: nothing said between hands is in them)
    assert not [p for h in report["hands"] for p in h["prompts"] if p["code"].startswith("flow.")]
    text = format_report(report)
    assert "between hands > flow.button_after_break (FLOW-005) seat 1 at step 23: break: the button will be " \
           "seat 1; tell the players" in text


def test_an_alert_kept_for_the_next_hand_is_in_its_record_not_between_hands():
    """A newcomer sat down between hands (DEAL-006: seat 3, between the next button, 2, and small
    blind, 4, waits for the button to pass) is an alert kept for the next hand's record, as it
    always was, not said again between hands. Three seats put out after hand 3 are the floor's
    notices (BREAK-003) and, at the third, the hold (BREAK-002): in no hand's record, and no hand
    follows: between hands."""
    hand2 = clean_for([2, 4, 6, 9, 1])  # steps 23-44, button 1
    hand3 = [{"press": "seat_in", "seat": 3}] + clean_for([4, 6, 9, 1, 2])  # steps 45-67, button 2
    hand4 = [{"press": "seat_out", "seat": s} for s in (4, 6, 9)] + [END]  # steps 68-71: no card dealt
    report = play({**BASE, "hands": [{"steps": CLEAN}, {"steps": hand2}, {"steps": hand3}, {"steps": hand4}]})
    assert [(a["code"], a["rule"], a.get("seat"), a["step"]) for a in report["hands"][2]["alerts"]] == [
        ("deal.seat_waits", "DEAL-006", 3, 1)]
    said = [(s["kind"], s["code"], s.get("seat"), s.get("audience"), s["step"]) for s in report["between_hands"]]
    assert said == [("alert", "break.seat_open", 4, "floor", 68), ("alert", "break.seat_open", 6, "floor", 69),
                    ("alert", "break.seat_open", 9, "floor", 70), ("alert", "break.seats_open", None, "floor", 70),
                    ("prompt", "break.hold", None, None, 70)]
    assert report["between_hands"][-1]["text"] == "3 seats open: hold the deal, the floor is told"


def test_a_report_with_nothing_said_between_hands_has_no_new_key():
    """Clean hands, a level set and a shuffle reported before each: every word said is kept in a
    hand's record, and the report's keys are those it always had, in their order."""
    script = {**BASE, "hands": [{"steps": [{"floor": "level", "level": 3}, {"shuffler": "deck"}] + CLEAN},
                                {"steps": [{"shuffler": "deck"}] + CLEAN, "seats": SEATS, "button": BUTTON}]}
    played = harness_play(json.dumps(script))
    assert list(played.report) == ["hands", "tracking", "holds"]
    assert "between hands" not in format_report(played.report)


def test_a_satellites_gate_and_the_floors_approval_are_said_between_hands():
    """FLOW-007 (issue 39 part B) with the report's ``between_hands`` (part A): a satellite started
    before the first card (step 1) tells the floor it waits (``flow.satellite_ready``) and the
    dealer to wait on the last seat, 9; the floor's approval (step 2) lets him deal. All of it
    while no hand is under way: between hands, in order, and the gate in ``holds``; the hand itself
    says nothing of it."""
    steps = [{"press": "mode", "mode": "satellite"}, {"floor": "approve"}] + CLEAN
    report = play({**BASE, "hands": [{"steps": steps}]})
    assert report["between_hands"] == [
        {"kind": "alert", "code": "flow.satellite_ready", "rule": "FLOW-007", "audience": "floor", "step": 1},
        {"kind": "prompt", "code": "flow.satellite_wait", "rule": "FLOW-007", "seat": 9, "step": 1,
         "text": "satellite: the button on seat 9; wait for the floor's approval before dealing"},
        {"kind": "prompt", "code": "flow.satellite_go", "rule": "FLOW-007", "step": 2,
         "text": "satellite approved: start the clock and deal"},
    ]
    assert report["holds"] == [{"kind": "satellite", "from_step": 1, "released_step": 2}]
    [hand] = report["hands"]
    assert hand["button"] == 9 and hand["alerts"] == []
    assert not [p for p in hand["prompts"] if p["rule"] == "FLOW-007"]


def test_the_deck_spread_for_the_players_at_the_start_and_after_the_break_is_said_between_hands():
    """DECK-003 (002 §DECK INTRODUCTION: the deck "spread on the table, at the beginning of the
    tournament and after each break"): the floor's level 1 before hand 1 (step 1) starts the
    tournament; the break signalled after hand 1 (step 24: the button and the deck reset, FLOW-005
    and DECK-008) ends with level 2 (step 25). Each spread is said between hands, at its step; the
    hands' own flow prompts are as they were (each its new level)."""
    hand1 = [{"floor": "level", "level": 1, "sb": 25, "bb": 50}] + CLEAN  # steps 1-23
    hand2 = [{"floor": "level", "level": 2, "kind": "break"}, {"floor": "level", "level": 2, "sb": 50, "bb": 100}] \
        + clean_for([2, 4, 6, 9, 1])  # steps 24-47
    report = play({**BASE, "hands": [{"steps": hand1}, {"steps": hand2}]})
    said = [(s["code"], s["rule"], s["step"], s.get("text")) for s in report["between_hands"]]
    spread = "spread the deck on the table for the players to see"
    assert said == [
        ("flow.spread_deck", "DECK-003", 1, f"tournament start: {spread}"),
        ("flow.button_after_break", "FLOW-005", 24, "break: the button will be seat 1; tell the players"),
        ("flow.reset_decks", "DECK-008", 24, said[2][3]),
        ("flow.spread_deck", "DECK-003", 25, f"break over: {spread}"),
    ]
    assert [[p["code"] for p in h["prompts"] if p["code"].startswith("flow.")] for h in report["hands"]] == [
        ["flow.new_level"], ["flow.new_level"]]
