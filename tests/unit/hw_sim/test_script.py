"""Deal scripts (hw_sim/script.py): the contract's example parses, every kind of bad script is
refused with one line naming the step, and a parsed script goes back to the same JSON."""

from __future__ import annotations

import json
import re

import pytest

from hw_sim.decks import sim_uid
from rig.paths import DEAL_SCRIPT_DOC
from controller.core.pads import PADS
from hw_sim.script import (
    DEFAULT_BUTTONS, GAMES, STEP_KINDS, CardRef, Deal, DeckSpec, End, Move, Muck, Noise, Plug, Press, Script,
    ScriptError, Shuffler, Step, Unplug, action_of, parse_script, script_to_dict,
)

ONE_HAND = [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"end": True}]


def doc(hands=None, **top):
    """A small valid script as a dict; ``top`` overrides (None deletes) top-level keys."""
    d = {"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,
         "hands": hands if hands is not None else [{"steps": list(ONE_HAND)}]}
    for k, v in top.items():
        if v is None:
            d.pop(k, None)
        else:
            d[k] = v
    return d


def text(hands=None, **top) -> str:
    return json.dumps(doc(hands, **top))


def steps(*s, **hand) -> list[dict]:
    """One clean hand, then a hand with the given steps."""
    return [{"steps": list(ONE_HAND)}, {"steps": list(s), **hand}]


# -- the contract ---------------------------------------------------------------------------

def contract_example() -> str:
    md = DEAL_SCRIPT_DOC
    assert md.is_file(), f"the deal-script reference is missing: expected it at {md}"
    m = re.search(r"```json\n(.*?)```", md.read_text(), re.S)
    assert m, "no ```json block in deal-script.md"
    return m.group(1)


def test_the_example_of_the_contract_parses():
    s = parse_script(contract_example())
    assert (s.format, s.game, s.seats, s.button) == (1, "holdem", (1, 2, 4, 6, 9), 9)
    assert s.noise == Noise(seed=7, miss=0.05, repeat=0.3, crosstalk=0.01)
    [hand] = s.hands
    assert [action_of(st) for st in hand.steps] == [
        Deal(CardRef("As"), "seat:1"), Deal(CardRef("7d"), "seat:2"), Press("exposed"),
        Deal(CardRef("Kd"), "burn"), Deal(CardRef("2c"), "board"), Muck(4), End()]
    assert [(st.hand, st.index) for st in hand.steps] == [(1, i) for i in range(1, 8)]
    assert (hand.seats, hand.button, hand.deck, s.deck, s.crash_after) == (None, None, None, None, None)


def test_the_model_is_immutable():
    s = parse_script(text())
    with pytest.raises(AttributeError):
        s.game = "omaha"  # type: ignore[misc]
    with pytest.raises(AttributeError):
        s.hands[0].steps[0].action.to = "board"  # type: ignore[misc]
    assert hash(s) == hash(parse_script(text()))


# -- refusals: one row per kind, each naming where ------------------------------------------

EXAMPLE_ZZ = "hand 2, step 5: unknown card 'Zz' (ranks A23456789TJQK, suits shdc)"
A_PLAY = [{"deal": "2c", "to": "seat:1"}, {"deal": "3c", "to": "seat:2"}, {"deal": "4c", "to": "burn"},
          {"deal": "5c", "to": "board"}]

REFUSALS = [
    # (id, script text, where the message must start, what it must say)
    ("json", '{"format": 1,\n "game": "holdem" "seats": [1, 2]}', "not valid JSON",
     "at line 2, column 19"),
    ("not-an-object", "[1, 2]", "top level", "a script is a JSON object"),
    ("top-key", text(sets=[1]), "top level", "unknown key 'sets'"),
    ("format", text(format=2), "top level", '"format" must be 1, got 2'),
    ("format-missing", text(format=None), "top level", '"format" is missing (must be 1)'),
    ("format-true", text(format=True), "top level", '"format" must be 1, got true'),
    ("game", text(game="chess"), "top level", "unknown game 'chess' (games: holdem, omaha, omaha8, stud"),
    ("seats-range", text(seats=[1, 11]), "top level", '"seats" must be a list of seat numbers 1 to 10'),
    ("seats-zero", text(seats=[0, 2]), "top level", '"seats" must be a list of seat numbers 1 to 10'),
    ("seats-kind", text(seats="1,2"), "top level", '"seats" must be a list of seat numbers 1 to 10'),
    ("seats-twice", text(seats=[1, 2, 2]), "top level", '"seats" lists seat 2 twice'),
    ("seats-one", text(seats=[3]), "top level", '"seats" must list at least two seats'),
    ("seats-missing", text(seats=None), "top level", '"seats" is missing'),
    ("button", text(button=11), "top level", '"button" must be a seat number 1 to 10, got 11'),
    ("button-missing", text(button=None), "top level", '"button" is missing'),
    ("noise", text(noise={"seed": 1, "miss": 1.5}), "top level", '"noise.miss" must be a probability 0 to 1'),
    ("noise-key", text(noise={"mis": 0.1}), "top level", "unknown key 'mis'"),
    ("crash-zero", text(crash_after=0), "top level",
     '"crash_after" must be a step count of 1 or more (or a list of them, increasing), got 0'),
    ("crash-unordered", text(crash_after=[5, 3]), "top level", 'a list of them, increasing), got [5, 3]'),
    ("crash-kind", text(crash_after="3"), "top level", '"crash_after" must be a step count of 1 or more'),
    ("crash-beyond", text(crash_after=4), "top level", '"crash_after" is 4 but the script has only 3 steps'),
    ("hands", text(hands=[]), "top level", '"hands" must be a non-empty list'),
    ("deck-card", text(deck={"missing": ["7x"]}), "top level, deck.missing", "unknown card '7x'"),
    ("deck-key", text(deck={"lost": ["7h"]}), "top level", "unknown key 'lost'"),
    ("hand-key", text(steps(*A_PLAY, dealer="Bob")), "hand 2", "unknown key 'dealer'"),
    ("hand-seats", text(steps(*A_PLAY, seats=[4, 4])), "hand 2", '"seats" lists seat 4 twice'),
    ("hand-button", text(steps(*A_PLAY, button=0)), "hand 2", '"button" must be a seat number 1 to 10, got 0'),
    ("zone", text(steps({"deal": "As", "to": "seat:11"})), "hand 2, step 1", "unknown zone 'seat:11'"),
    ("zone-name", text(steps(*A_PLAY, {"deal": "As", "to": "table"})), "hand 2, step 5", "unknown zone 'table'"),
    ("card", text(steps(*A_PLAY, {"deal": "Zz", "to": "seat:1"})), "hand 2, step 5",
     "unknown card 'Zz' (ranks A23456789TJQK, suits shdc)"),
    ("deck-id", text(steps({"deal": "As@C", "to": "seat:1"})), "hand 2, step 1", "unknown deck 'C'"),
    ("tag", text(steps({"deal": "tag:E0040150A05F02B", "to": "seat:1"})), "hand 2, step 1", "unknown tag"),
    ("tag-hex", text(steps({"deal": "tag:E0040150A05F02BZ", "to": "seat:1"})), "hand 2, step 1", "unknown tag"),
    ("button-name", text(steps(*A_PLAY[:2], {"press": "expose"})), "hand 2, step 3", "unknown button 'expose'"),
    ("step-key", text(steps(*A_PLAY[:3], {"pitch": "As", "to": "board"})), "hand 2, step 4", "unknown step 'pitch'"),
    ("step-kind", text(steps("deal As")), "hand 2, step 1", "a step is a JSON object"),
    ("missing-to", text(steps(*A_PLAY[:1], {"deal": "As"})), "hand 2, step 2", 'a deal needs "to"'),
    ("extra-key", text(steps({"deal": "As", "to": "board", "face": True})), "hand 2, step 1",
     "unknown key 'face'"),
    ("muck-extra", text(steps({"muck": "seat:1", "to": "muck"})), "hand 2, step 1", "unknown key 'to'"),
    ("two-actions", text(steps({"press": "next", "muck": "seat:1"})), "hand 2, step 1",
     "a step does one thing"),
    ("flag", text(steps({"deal": "As", "to": "board", "face_up": "yes"})), "hand 2, step 1",
     '"face_up" must be true or false'),
    ("twice", text(steps(*A_PLAY, {"deal": "3c", "to": "board"})), "hand 2, step 5",
     "3c is already out (dealt at step 2 and not gathered"),
    ("twice-case", text(steps({"deal": "As", "to": "seat:1"}, {"deal": "as", "to": "seat:2"})), "hand 2, step 2",
     "As is already out"),
    ("twice-deck-b", text(steps({"deal": "As@B", "to": "seat:1"}, {"deal": "As@B", "to": "board"})),
     "hand 2, step 2", "As@B is already out"),
    ("twice-deck-a", text(steps({"deal": "As", "to": "seat:1"}, {"deal": "As@A", "to": "board"})),
     "hand 2, step 2", "As@A is already out (dealt at step 1"),
    ("twice-tag", text(steps({"deal": "tag:E0040150A05F02B7", "to": "seat:1"},
                             {"deal": "tag:e0040150a05f02b7", "to": "muck"})),
     "hand 2, step 2", "tag:E0040150A05F02B7 is already out"),
    ("twice-tag-of-card", text(steps({"deal": "Qh", "to": "seat:1"},
                                     {"deal": f"tag:{sim_uid('A', 'Qh')}", "to": "board"})),
     "hand 2, step 2", f"tag:{sim_uid('A', 'Qh')} is already out"),
    ("muck-seat", text(steps(*A_PLAY, {"muck": "seat:11"})), "hand 2, step 5", "unknown zone 'seat:11'"),
    ("muck-zero", text(steps({"muck": "seat:0"})), "hand 2, step 1", "unknown zone 'seat:0'"),
    ("muck-zone", text(steps({"muck": "board"})), "hand 2, step 1", "only a seat's cards can be mucked"),
    ("shuffler", text(steps({"shuffler": "riffle"})), "hand 2, step 1", "unknown shuffler event 'riffle'"),
    ("shuffler-cards", text(steps({"shuffler": "jam", "cards": ["As"]})), "hand 2, step 1",
     '"cards" goes only with {"shuffler": "deck"}'),
    ("shuffler-card", text(steps({"shuffler": "deck", "cards": ["As", "1x"]})), "hand 2, step 1",
     "unknown card '1x'"),
    ("device", text(steps({"unplug": "console"})), "hand 2, step 1", "unknown device 'console'"),
    ("end", text(steps({"end": False})), "hand 2, step 1", 'an end step is {"end": true}'),
    ("after-end", text(steps(*A_PLAY[:1], {"end": True}, {"deal": "As", "to": "seat:1"})), "hand 2, step 3",
     "the hand ended at step 2"),
]


@pytest.mark.parametrize("script,where,what", [r[1:] for r in REFUSALS], ids=[r[0] for r in REFUSALS])
def test_a_bad_script_is_refused_with_one_line_naming_where(script, where, what):
    with pytest.raises(ScriptError) as info:
        parse_script(script)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(where + (": " if where != "not valid JSON" else "")), message
    assert what in message, message


def test_the_messages_read_as_the_brief_says():
    with pytest.raises(ScriptError) as info:
        parse_script(text(steps(*A_PLAY, {"deal": "Zz", "to": "seat:1"})))
    assert str(info.value) == EXAMPLE_ZZ
    with pytest.raises(ScriptError) as info:
        parse_script(text(seats=[1, 11]))
    assert str(info.value) == 'top level: "seats" must be a list of seat numbers 1 to 10, got [1, 11]'
    assert isinstance(info.value, ValueError)


def test_messages_stay_one_short_line_whatever_the_value():
    with pytest.raises(ScriptError) as info:
        parse_script(text(steps({"deal": "As\n" + "x" * 500, "to": "seat:1"})))
    assert "\n" not in str(info.value) and len(str(info.value)) < 200


def test_refusals_cover_every_game_not_in_games():
    # the games deal-script.md names (its "Stud, draw and mixed games"), written out here
    named = {"holdem", "omaha", "omaha8", "stud", "stud8", "razz", "draw27_single", "draw27_triple",
             "draw_a5_triple", "badugi", "badeucy", "badacey", "draw5",
             "chinese"}  # (ours, docs/deal-script.md "Chinese poker")
    assert set(GAMES) == named and len(GAMES) == len(named)
    for game in GAMES:
        assert parse_script(text(game=game)).game == game
    with pytest.raises(ScriptError, match="unknown game 'Razz'"):
        parse_script(text(game="Razz"))


# -- what parses ----------------------------------------------------------------------------

def test_foul_cards_clones_and_decks_parse():
    s = parse_script(text(
        steps({"deal": "As", "to": "seat:1"}, {"deal": "As@B", "to": "seat:2"},
              {"deal": "tag:e0040150a05f02b7", "to": "seat:1", "face_up": True},
              {"deal": "As", "to": "seat:3", "clone": True}, {"deal": "As", "to": "board", "clone": True},
              {"shuffler": "deck", "cards": ["As", "tag:E0040150A05F02B7"]}, {"shuffler": "door_open"},
              {"press": "exposed", "long": True}, {"unplug": "reader"}, {"plug": "reader"},
              seats=[3, 5, 7], button=7, deck={"missing": ["Kh"]}),
        deck={"missing": ["7h"], "extra": ["tag:E0040150A05F02B7", "Qd@B"]}, crash_after=5))
    assert s.deck == DeckSpec(missing=(CardRef("7h"),), extra=(CardRef(None, None, "E0040150A05F02B7"),
                                                               CardRef("Qd", "B")))
    assert s.crash_after == 5
    h = s.hands[1]
    assert (h.seats, h.button, h.deck) == ((3, 5, 7), 7, DeckSpec(missing=(CardRef("Kh"),)))
    assert (s.hands[0].seats, s.hands[0].button) == (None, None)
    a = [action_of(st) for st in h.steps]
    assert a[1] == Deal(CardRef("As", "B"), "seat:2") and str(a[1].card) == "As@B"
    assert a[2] == Deal(CardRef(None, None, "E0040150A05F02B7"), "seat:1", face_up=True)
    assert str(a[2].card) == "tag:E0040150A05F02B7"
    assert a[3].clone and a[4].clone and str(a[3].card) == "As"
    assert a[5] == Shuffler("deck", (CardRef("As"), CardRef(None, None, "E0040150A05F02B7")))
    assert a[6] == Shuffler("door_open") and a[7] == Press("exposed", long=True)
    assert a[8:] == [Unplug("reader"), Plug("reader"), End()]
    assert h.steps[8] == Step(2, 9, Unplug("reader"))


def test_cards_are_gathered_at_the_end_of_each_hand():
    hand = {"steps": [{"deal": "As", "to": "seat:1"}, {"end": True}]}
    s = parse_script(text([hand, hand, {"steps": [{"deal": "As", "to": "board"}]}]))
    assert len(s.hands) == 3
    # the same card of another deck is another physical card
    parse_script(text(steps({"deal": "As", "to": "seat:1"}, {"deal": "As@B", "to": "seat:2"})))


def test_a_hand_without_an_end_gets_one():
    s = parse_script(text([{"steps": [{"deal": "As", "to": "seat:1"}]}, {"steps": []}]))
    assert s.hands[0].steps[-1] == Step(1, 2, End())
    assert s.hands[1].steps == (Step(2, 1, End()),)
    assert parse_script(text(crash_after=3, hands=[{"steps": [{"deal": "As", "to": "seat:1"}]}, {"steps": []}]))


def test_a_deal_to_a_seat_not_dealt_in_is_left_to_the_daemon():
    s = parse_script(text(steps({"deal": "As", "to": "seat:7"}), seats=[1, 2]))
    assert action_of(s.hands[1].steps[0]) == Deal(CardRef("As"), "seat:7")


def test_a_dead_button_is_a_seat_number_not_dealt_in():
    assert parse_script(text(seats=[1, 3], button=2)).button == 2


def test_defaults_and_buttons_of_the_configuration():
    s = parse_script(text(game=None, noise=None))
    assert (s.game, s.noise) == ("holdem", Noise())
    assert "exposed" in DEFAULT_BUTTONS and "misdeal" in DEFAULT_BUTTONS
    mine = text(steps({"press": "deal_done"}))
    with pytest.raises(ScriptError, match="unknown button 'deal_done'"):
        parse_script(mine)
    assert action_of(parse_script(mine, buttons={"deal_done"}).hands[1].steps[0]) == Press("deal_done")


# -- round trip -----------------------------------------------------------------------------

def test_a_script_goes_back_to_the_same_json():
    rich = text(steps({"deal": "As@B", "to": "seat:1", "face_up": True}, {"deal": "As", "to": "seat:3", "clone": True},
                      {"deal": "tag:E0040150A05F02B7", "to": "muck"}, {"muck": "seat:3"},
                      {"shuffler": "deck", "cards": ["2c", "2c@B"]}, {"shuffler": "jam"},
                      {"press": "misdeal", "long": True}, {"unplug": "shuffler"}, {"plug": "shuffler"},
                      {"press": "seat_penalty", "seat": 2, "hands": 3}, {"press": "exposed_player", "seat": 6},
                      {"press": "exposed", "long": True, "seat": 1}, {"deal": "Kd", "to": "seat:6"},
                      {"move": "Kd", "to": "burn"}, {"move": "As", "to": "seat:2"}, {"move": "Kd", "to": "stub"},
                      {"deal": "Kd", "to": "board"},
                      seats=[2, 4, 6], button=4, deck={"extra": ["Ah@B"]}),
                game="omaha", noise={"seed": 3, "miss": 0.1, "repeat": 0, "crosstalk": 1},
                deck={"missing": ["7h"]}, crash_after=7)
    for source in (rich, contract_example(), text()):
        s = parse_script(source)
        d = script_to_dict(s)
        assert isinstance(s, Script)
        assert parse_script(json.dumps(d)) == s
        assert parse_script(s.to_json()) == s
        assert script_to_dict(parse_script(json.dumps(d))) == d


# -- extensions: presses with a seat or a count, moves ---------------------------------------

def hand_of(*s) -> list:
    """The actions of the second hand of a script whose second hand has the steps ``s``."""
    return [action_of(st) for st in parse_script(text(steps(*s), seats=[1, 2, 3], button=3)).hands[1].steps]


def refusal(*s) -> str:
    with pytest.raises(ScriptError) as info:
        parse_script(text(steps(*s), seats=[1, 2, 3], button=3))
    message = str(info.value)
    assert "\n" not in message
    return message


def test_the_buttons_are_the_pads_of_the_daemon():
    assert DEFAULT_BUTTONS == tuple(PADS)
    assert "move" in STEP_KINDS


@pytest.mark.parametrize("step,press", [
    ({"press": "round_done"}, Press("round_done")),
    ({"press": "exposed", "long": True}, Press("exposed", long=True)),
    ({"press": "seat_out", "seat": 4}, Press("seat_out", seat=4)),
    ({"press": "seat_penalty", "seat": 10, "hands": 2}, Press("seat_penalty", seat=10, hands=2)),
    ({"press": "exposed_player"}, Press("exposed_player")),  # the seat may be left to the daemon
    ({"press": "exposed_player", "seat": 2}, Press("exposed_player", seat=2)),
    ({"press": "round_done", "seat": 3}, Press("round_done", seat=3)),
])
def test_a_press_may_name_a_seat_and_a_count(step, press):
    assert hand_of(step) == [press, End()]


PRESS_REFUSALS = [
    ({"press": "seat_out"}, "hand 2, step 1: press 'seat_out' needs a seat (1 to 10)"),
    ({"press": "seat_in", "hands": 2}, "hand 2, step 1: press 'seat_in' needs a seat (1 to 10)"),
    ({"press": "seat_out", "seat": 11}, 'hand 2, step 1: "seat" must be a seat number 1 to 10, got 11'),
    ({"press": "seat_out", "seat": True}, 'hand 2, step 1: "seat" must be a seat number 1 to 10, got true'),
    ({"press": "seat_out", "seat": None}, 'hand 2, step 1: "seat" must be a seat number 1 to 10, got null'),
    ({"press": "seat_out", "seat": "4"}, 'hand 2, step 1: "seat" must be a seat number 1 to 10, got \'4\''),
    ({"press": "seat_penalty", "seat": 2, "hands": 0},
     'hand 2, step 1: "hands" must be a whole number of hands, 1 or more, got 0'),
    ({"press": "seat_penalty", "seat": 2, "hands": 1.5},
     'hand 2, step 1: "hands" must be a whole number of hands, 1 or more, got 1.5'),
    ({"press": "seat_out", "seat": 2, "long": 1}, 'hand 2, step 1: "long" must be true or false, got 1'),
    ({"press": "seat_out", "seats": [2]},
     "hand 2, step 1: unknown key 'seats' (a press takes press, long, seat, hands, mode)"),
    ({"press": "mode"}, "hand 2, step 1: press 'mode' needs a mode: one of race, highcard, break, satellite"),
    ({"press": "mode", "mode": 3}, 'hand 2, step 1: "mode" must be one of race, highcard, break, satellite, got 3'),
    ({"press": "ack", "mode": "race"},
     "hand 2, step 1: press 'ack': a mode goes only with the mode pad, one of race, highcard, break, satellite; "
     "got 'race'"),
]


@pytest.mark.parametrize("step,message", PRESS_REFUSALS, ids=[m.split(": ", 1)[1][:30] for _, m in PRESS_REFUSALS])
def test_a_bad_press_is_refused_naming_the_step(step, message):
    assert refusal(step) == message


def test_an_unknown_pad_names_the_pads():
    message = refusal({"press": "round_dun"})
    assert message == f"hand 2, step 1: unknown button 'round_dun' (buttons: {', '.join(PADS)})"


def test_a_configuration_may_name_other_pads_and_they_are_checked_for_their_fields():
    mine = text(steps({"press": "deal_done", "seat": 3}, {"press": "exposed"}))
    s = parse_script(mine, buttons=("deal_done",))
    assert [action_of(st) for st in s.hands[1].steps[:2]] == [Press("deal_done", seat=3), Press("exposed")]
    with pytest.raises(ScriptError) as info:
        parse_script(text(steps({"press": "deal_done", "seat": 0})), buttons=("deal_done",))
    assert str(info.value) == 'hand 2, step 1: "seat" must be a seat number 1 to 10, got 0'
    with pytest.raises(ScriptError) as info:
        parse_script(text(steps({"press": "dealdone"})), buttons=("deal_done",))
    assert str(info.value).startswith("hand 2, step 1: unknown button 'dealdone' (buttons: deal_done, exposed, ")


def test_a_move_follows_the_card_through_deals_mucks_and_moves():
    actions = hand_of(
        {"deal": "As", "to": "seat:1"}, {"deal": "7d", "to": "seat:2"}, {"press": "exposed"},
        {"move": "7d", "to": "burn"},              # an exposed card onto the burn spot
        {"deal": "Kd", "to": "seat:1"}, {"muck": "seat:1"},
        {"move": "Kd", "to": "seat:1"},            # taken back from the muck
        {"move": "tag:" + sim_uid("A", "As"), "to": "seat:3"},  # the same tag by its UID, mucked
        {"move": "As@A", "to": "stub"},            # back on the stub
        {"deal": "As", "to": "board"},             # and dealt again
        {"move": "As", "to": "burn"}, {"move": "7d", "to": "muck"})
    assert actions[3] == Move(CardRef("7d"), "burn")
    assert actions[7] == Move(CardRef(None, None, sim_uid("A", "As")), "seat:3")
    assert actions[8] == Move(CardRef("As", "A"), "stub")
    assert actions[-1] == End()


MOVE_REFUSALS = [
    # (id, steps of hand 2, the message)
    ("never-dealt", [{"deal": "As", "to": "seat:1"}, {"move": "7d", "to": "burn"}],
     "hand 2, step 2: 7d is not on the table (never dealt, or gathered, or back on the stub)"),
    ("gathered", [{"move": "As", "to": "burn"}],  # dealt in hand 1, gathered at its end
     "hand 2, step 1: As is not on the table (never dealt, or gathered, or back on the stub)"),
    ("on-the-stub", [{"deal": "7d", "to": "seat:1"}, {"move": "7d", "to": "stub"}, {"move": "7d", "to": "burn"}],
     "hand 2, step 3: 7d is not on the table (never dealt, or gathered, or back on the stub)"),
    ("stub-twice", [{"deal": "7d", "to": "seat:1"}, {"move": "7d", "to": "stub"}, {"move": "7d", "to": "stub"}],
     "hand 2, step 3: 7d is not on the table (never dealt, or gathered, or back on the stub)"),
    ("other-deck", [{"deal": "7d", "to": "seat:1"}, {"move": "7d@B", "to": "burn"}],
     "hand 2, step 2: 7d@B is not on the table (never dealt, or gathered, or back on the stub)"),
    ("same-zone", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "seat:4"}],
     "hand 2, step 2: 7d is already at seat:4 (a move goes to another zone, or to the stub)"),
    ("mucked", [{"deal": "7d", "to": "seat:4"}, {"muck": "seat:4"}, {"move": "7d", "to": "muck"}],
     "hand 2, step 3: 7d is already at muck (a move goes to another zone, or to the stub)"),
    ("moved", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "board"}, {"move": "7d", "to": "board"}],
     "hand 2, step 3: 7d is already at board (a move goes to another zone, or to the stub)"),
    ("zone", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "table"}],
     "hand 2, step 2: unknown zone 'table' (zones: seat:1..seat:10, board, burn, muck, or stub)"),
    ("seat-zone", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "seat:0"}],
     "hand 2, step 2: unknown zone 'seat:0' (zones: seat:1..seat:10, board, burn, muck, or stub)"),
    ("no-to", [{"deal": "7d", "to": "seat:4"}, {"move": "7d"}],
     'hand 2, step 2: a move needs "to" (zones: seat:1..seat:10, board, burn, muck, or stub)'),
    ("key", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "burn", "face_up": True}],
     "hand 2, step 2: unknown key 'face_up' (a move takes move, to)"),
    ("card", [{"move": "7x", "to": "burn"}],
     "hand 2, step 1: unknown card '7x' (ranks A23456789TJQK, suits shdc)"),
    ("two-things", [{"move": "7d", "to": "burn", "deal": "7d"}],
     "hand 2, step 1: a step does one thing, this one has both 'deal' and 'move'"),
    ("still-out", [{"deal": "7d", "to": "seat:4"}, {"move": "7d", "to": "burn"}, {"deal": "7d", "to": "board"}],
     "hand 2, step 3: 7d is already out (dealt at step 1 and not gathered; a second tag with the same UID "
     'is "clone": true)'),
]


@pytest.mark.parametrize("hand,message", [r[1:] for r in MOVE_REFUSALS], ids=[r[0] for r in MOVE_REFUSALS])
def test_a_bad_move_is_refused_with_one_line_naming_the_step(hand, message):
    assert refusal(*hand) == message


def test_a_card_back_on_the_stub_may_be_dealt_again_and_is_then_out_again():
    ok = [{"deal": "7d", "to": "seat:1"}, {"move": "7d", "to": "stub"}, {"deal": "7d", "to": "burn"}]
    assert hand_of(*ok)[2] == Deal(CardRef("7d"), "burn")
    assert refusal(*ok, {"deal": "7d", "to": "board"}) == (
        "hand 2, step 4: 7d is already out (dealt at step 3 and not gathered; a second tag with the same UID "
        'is "clone": true)')


def test_moves_and_presses_go_back_to_the_same_json():
    hand = [{"deal": "7d", "to": "seat:1"}, {"press": "exposed", "long": True, "seat": 1},
            {"move": "7d", "to": "burn"}, {"move": "tag:" + sim_uid("A", "7d"), "to": "stub"},
            {"press": "seat_penalty", "seat": 3, "hands": 2}, {"press": "exposed_player"}, {"end": True}]
    s = parse_script(text(steps(*hand)))
    assert script_to_dict(s)["hands"][1]["steps"] == [
        {"deal": "7d", "to": "seat:1"}, {"press": "exposed", "long": True, "seat": 1},
        {"move": "7d", "to": "burn"}, {"move": "tag:" + sim_uid("A", "7d"), "to": "stub"},
        {"press": "seat_penalty", "seat": 3, "hands": 2}, {"press": "exposed_player"}, {"end": True}]
    assert parse_script(s.to_json()) == s
