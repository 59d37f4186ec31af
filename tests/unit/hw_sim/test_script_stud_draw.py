"""Deal scripts of stud and draw games (hw_sim/script.py; deal-script.md "Stud, draw and mixed
games"): a hand's own game, face-up cards, discards and the rebuilt stub parse, go back to the
same JSON, and a bad one is refused with one line naming the step."""

from __future__ import annotations

import json

import pytest

from hw_sim.script import CardRef, Deal, Discard, Restub, ScriptError, action_of, parse_script

DEAL = [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"deal": "7h", "to": "seat:1"},
        {"deal": "2c", "to": "seat:2"}]


def script(*hand_steps, game="draw27_triple", **hand) -> str:
    return json.dumps({"format": 1, "game": game, "seats": [1, 2], "button": 2,
                       "hands": [{"steps": list(hand_steps), **hand}]})


def refusal(*hand_steps, game="draw27_triple", **hand) -> str:
    with pytest.raises(ScriptError) as info:
        parse_script(script(*hand_steps, game=game, **hand))
    assert "\n" not in str(info.value)
    return str(info.value)


def test_a_draw_round_discards_burns_draws_and_rebuilds_the_stub():
    steps = [*DEAL, {"discard": ["As", "7h"], "from": "seat:1"}, {"deal": "3d", "to": "burn"},
             {"deal": "4d", "to": "seat:1"}, {"discard": ["4d"], "from": "seat:1"},
             {"restub": ["As", "7h", "9s"]}, {"deal": "7h", "to": "seat:1"}]
    s = parse_script(script(*steps))
    actions = [action_of(st) for st in s.hands[0].steps]
    assert actions[4] == Discard((CardRef("As"), CardRef("7h")), 1)
    assert actions[8] == Restub((CardRef("As"), CardRef("7h"), CardRef("9s")))
    assert actions[9] == Deal(CardRef("7h"), "seat:1")  # a gathered card may be dealt again
    assert parse_script(s.to_json()) == s
    assert json.loads(s.to_json())["hands"][0]["steps"][4] == {"discard": ["As", "7h"], "from": "seat:1"}


def test_a_stud_hand_deals_face_up_cards_and_a_community_card():
    steps = [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"},
             {"deal": "7h", "to": "seat:1", "face_up": True}, {"deal": "2c", "to": "burn"},
             {"restub": ["2c"]}, {"deal": "2c", "to": "board", "face_up": True}]
    s = parse_script(script(*steps, game="razz"))
    assert s.game == "razz" and action_of(s.hands[0].steps[2]) == Deal(CardRef("7h"), "seat:1", face_up=True)
    assert parse_script(s.to_json()) == s


def test_a_hand_may_name_its_own_game_and_keeps_it_through_json():
    s = parse_script(json.dumps({"format": 1, "game": "holdem", "seats": [1, 2], "button": 2, "hands": [
        {"steps": DEAL}, {"game": "badugi", "steps": [*DEAL, {"discard": ["Kd"], "from": "seat:2"}]}]}))
    assert [h.game for h in s.hands] == [None, "badugi"]
    assert parse_script(s.to_json()) == s
    # the same discard in the hold'em hand is refused
    assert "hand 1, step 5: a discard is a draw game's step, and this hand is holdem" in refusal(
        *DEAL, {"discard": ["Kd"], "from": "seat:2"}, game="holdem")


@pytest.mark.parametrize("hand,game,message", [
    ([*DEAL, {"discard": ["As"], "from": "seat:2"}], "badugi",
     "hand 1, step 5: As is at seat:1, not at seat:2 (a discard is of the seat's own cards)"),
    ([*DEAL, {"discard": ["Qs"], "from": "seat:2"}], "badugi",
     "hand 1, step 5: Qs is not on the table, not at seat:2 (a discard is of the seat's own cards)"),
    ([*DEAL, {"discard": ["As"], "from": "seat:1"}, {"discard": ["As"], "from": "seat:1"}], "badugi",
     "hand 1, step 6: As is at muck, not at seat:1 (a discard is of the seat's own cards)"),
    ([*DEAL, {"discard": ["As", "As"], "from": "seat:1"}], "badugi", "hand 1, step 5: a discard names As twice"),
    ([*DEAL, {"discard": "As", "from": "seat:1"}], "badugi",
     "hand 1, step 5: a discard names a non-empty list of cards, got 'As'"),
    ([*DEAL, {"discard": ["As"]}], "badugi", 'hand 1, step 5: a discard needs "from" (the seat, seat:1..seat:10)'),
    ([*DEAL, {"discard": ["As"], "from": "muck"}], "badugi",
     "hand 1, step 5: a discard comes from a seat, not 'muck' (write seat:1..seat:10)"),
    ([*DEAL, {"discard": ["As"], "from": "seat:1", "to": "muck"}], "badugi",
     "hand 1, step 5: unknown key 'to' (a discard takes discard, from)"),
    ([*DEAL, {"discard": ["Xx"], "from": "seat:1"}], "badugi", "hand 1, step 5: unknown card 'Xx'"),
    ([*DEAL, {"restub": ["As"]}], "draw5",
     "hand 1, step 5: As is at seat:1 (a restub gathers cards from the muck, the burns or the stub)"),
    ([*DEAL, {"deal": "3c", "to": "board"}, {"restub": ["3c"]}], "stud8",
     "hand 1, step 6: 3c is at board (a restub gathers cards from the muck, the burns or the stub)"),
    ([*DEAL, {"restub": []}], "draw5", "hand 1, step 5: a restub names a non-empty list of cards, got []"),
    ([*DEAL, {"deal": "3c", "to": "burn"}, {"restub": ["3c"]}], "omaha",
     "hand 1, step 6: a restub is a stud or draw game's step (DRAW-005, STUD-007), and this hand is omaha"),
    ([*DEAL, {"deal": "3c", "to": "burn"}, {"restub": ["3c"]}, {"deal": "3c", "to": "seat:1"},
      {"deal": "3c", "to": "seat:2"}], "stud",
     "hand 1, step 8: 3c is already out (dealt at step 7 and not gathered"),
])
def test_a_bad_discard_or_restub_is_refused_naming_the_step(hand, game, message):
    assert refusal(*hand, game=game).startswith(message)


def test_a_bad_game_of_a_hand_is_refused_naming_the_hand():
    bad = json.dumps({"format": 1, "game": "stud", "seats": [1, 2], "button": 2,
                      "hands": [{"steps": DEAL}, {"game": "omaha9", "steps": DEAL}]})
    with pytest.raises(ScriptError) as info:
        parse_script(bad)
    assert str(info.value).startswith("hand 2: unknown game 'omaha9' (games: holdem")


def test_the_text_report_lists_each_prompt_after_the_alerts():
    from hw_sim.simulate import format_report

    report = {"hands": [{"button": 8, "zones": {"seat:1": ["As"]}, "stub_count": 51, "alerts": [],
                         "prompts": [{"code": "stud.bring_in", "rule": "STUD-002", "seat": 3, "step": 24,
                                      "text": "bring-in: seat 3, the deuce of clubs"}]}]}
    assert format_report(report).splitlines() == [
        "hand 1  button 8  stub 51", "  seat:1   As",
        "  > stud.bring_in (STUD-002) seat 3 at step 24: bring-in: seat 3, the deuce of clubs"]
