"""Foul and short decks through deal scripts (issue 4): ``@B`` cards, ``tag:`` cards, clones,
``deck.missing`` / ``deck.extra`` revealed by the shuffler, the stub count, shuffler faults; the
stub read on a stub spot (STUB-006, issue 39).

Each plays the script in process (the harness: the simulated reader and shuffler speak their
protocols to the daemon's own clients over in-memory lines) and checks the floor alert naming the card at its
step; the same hand dealt cleanly raises nothing.
"""

from __future__ import annotations

import json


from controller.core.effects import Alert, effect_to_dict
from hw_sim.harness import play
from tests.rules_common import BUTTON, CLEAN, END, HOLE, SEATS, clean_for, deal, hole, run, run_hands
from rig.scenarios import NOISE, assert_nothing_secret_public


FOREIGN = "tag:E0040150A05F02B7"
SHUFFLE = {"shuffler": "deck"}


def with_card(index: int, card: str, **extra) -> list[dict]:
    """The clean hand with its ``index``-th hole card replaced."""
    pairs = list(HOLE)
    pairs[index] = (card, pairs[index][1])
    steps = hole(pairs) + CLEAN[len(HOLE):]
    steps[index].update(extra)
    return steps


def cards_of(tmp_path, steps, **kw) -> list[tuple]:
    [hand] = run_hands(tmp_path, [{"steps": steps}], **kw)["hands"]
    return [(a["code"], a.get("card"), a["audience"], a["step"]) for a in hand["alerts"]]


def test_deck_006_a_card_of_the_spare_deck_in_play(tmp_path):
    assert cards_of(tmp_path, with_card(3, "2h@B")) == [
        ("deck.wrong_deck", "2h@B", "floor", 4),
        ("deck.new_setup", None, "dealer", 4),
    ]


def test_deck_006_a_tag_of_no_deck(tmp_path):
    steps = CLEAN[:17] + [deal(FOREIGN, "board")] + CLEAN[18:]  # the turn
    assert CLEAN[17] == deal("Jc", "board")
    assert cards_of(tmp_path, steps) == [
        ("deck.unknown_tag", FOREIGN, "floor", 18),
        ("deck.new_setup", None, "dealer", 18),
    ]


def test_a_foul_card_alert_names_its_seat_and_hand_through_the_daemon():
    """Issue 29, played through the daemon: the second hand's card of the spare at seat 6 and
    its foreign tag on the turn. The floor hears seat 6 and hand 2 for the first, hand 2 and no
    seat for the second; the report lists them so; the dealer's "new setup" names neither."""
    steps = clean_for([2, 4, 6, 9, 1])  # the button moved to seat 1
    assert steps[2] == deal("7c", 6) and steps[17] == deal("Jc", "board")
    steps[2], steps[17] = deal("7c@B", 6), deal(FOREIGN, "board")
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": CLEAN}, {"steps": steps}]}
    played = play(script)
    assert_nothing_secret_public(script, played)
    floor = [e for _, e in played.seen["floor"] if type(e) is Alert and e.code.startswith("deck.")]
    assert [(e.code, e.card, e.seat, e.hand) for e in floor] == [
        ("deck.wrong_deck", "7c@B", 6, 2), ("deck.new_setup", None, None, 2), ("deck.unknown_tag", FOREIGN, None, 2)]
    assert [e.audience for e in floor] == ["floor", "dealer", "floor"]  # (the floor hears the dealer's too)
    assert [(a["code"], a.get("seat"), a["step"]) for a in played.report["hands"][1]["alerts"]] == [
        ("deck.wrong_deck", 6, 3), ("deck.new_setup", None, 3), ("deck.unknown_tag", None, 18)]
    assert played.report["hands"][0]["alerts"] == []


def test_deck_007_a_cloned_tag(tmp_path):
    """Seat 4's second card carries the tag of the ace of spades, which lies at seat 1."""
    [hand] = run_hands(tmp_path, [{"steps": with_card(7, "As", clone=True)}])["hands"]
    assert [(a["code"], a.get("card"), a["audience"], a["step"]) for a in hand["alerts"]] == [
        ("deck.cloned_tag", "As", "floor", 8), ("deck.new_setup", None, "dealer", 8)]
    # the second card counts where it lies: seat 4 is not taken for a seat left short
    assert hand["zones"]["seat:4"] == ["7c", "As"] and hand["zones"]["seat:1"] == ["As", "Qs"]


def test_stub_005_a_short_deck_found_by_the_shuffler_names_the_missing_card(tmp_path):
    [hand] = run_hands(tmp_path, [{"steps": [SHUFFLE] + CLEAN, "deck": {"missing": ["7h"]}}])["hands"]
    alerts = [(a["code"], a.get("card"), a["audience"], a["step"]) for a in hand["alerts"]]
    assert alerts[:2] == [("deck.missing_card", "7h", "floor", 1), ("deck.new_setup", None, "dealer", 1)]
    # the dealer deals the short deck anyway: the floor hears it once for the hand
    assert alerts[2:] == [("deck.blocked_deck_dealt", None, "floor", 2)]


def test_deck_006_an_extra_card_in_the_deck_found_by_the_shuffler(tmp_path):
    script_hands = [{"steps": [SHUFFLE] + CLEAN, "deck": {"extra": [FOREIGN, "Qd@B"]}}]
    [hand] = run_hands(tmp_path, script_hands)["hands"]
    alerts = [(a["code"], a.get("card"), a["audience"], a["step"]) for a in hand["alerts"]]
    assert alerts[:3] == [("deck.extra_card", "Qd@B", "floor", 1), ("deck.extra_card", FOREIGN, "floor", 1),
                          ("deck.new_setup", None, "dealer", 1)]


def test_a_clean_hand_with_a_whole_deck_shuffled_raises_nothing(tmp_path):
    assert run(tmp_path, [SHUFFLE] + CLEAN) == []


def test_shuf_004_a_jam_prompts_the_dealer_and_clears(tmp_path):
    found = run(tmp_path, [{"shuffler": "jam"}, {"shuffler": "ready"}, SHUFFLE] + CLEAN)
    assert found == [("shuffler.jam", "SHUF-004", None, "dealer", 1),
                     ("shuffler.cleared", "SHUF-004", None, "dealer", 2)]


def test_stub_004_a_wrong_stub_count_is_sticky_for_the_floor(tmp_path):
    steps = CLEAN[:-1] + [{"press": "stub_wrong"}, END]
    assert run(tmp_path, steps) == [("stub.sticky_deck", "STUB-004", None, "floor", 22),
                                    ("deck.new_setup", "STUB-004", None, "dealer", 22)]


def test_nothing_of_a_foul_deck_reaches_a_public_output(tmp_path):
    """Every fault at once; what a public output and the dealer's receive (the effects as the
    daemon's fan-out filters them)."""
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=5),
              "deck": {"missing": ["7h"], "extra": [FOREIGN]},
              "hands": [{"steps": [SHUFFLE] + with_card(3, "2h@B")[:17] + [deal("Jc@B", "board")] + CLEAN[18:-1]
                         + [{"press": "stub_wrong"}, END]}]}
    played = play(script)
    report = played.report
    codes = [a["code"] for a in report["hands"][0]["alerts"]]
    assert {"deck.missing_card", "deck.extra_card", "deck.wrong_deck", "stub.sticky_deck"} <= set(codes)
    assert_nothing_secret_public(script, played)
    public = [effect_to_dict(e) for _, e in played.seen["public"]]
    assert public, "the board and the figures are public"
    assert {r["type"] for r in public} <= {"CardPlaced", "Figures", "HandStarted"}
    text = json.dumps(public)
    for secret in ("@B", "tag:", "7h", "E0040150A05F02B7", "deck.", "sticky", "missing"):
        assert secret not in text, secret
    dealer = [e for _, e in played.seen["dealer"]
              if e.audience == "dealer" and type(e) is Alert and e.code.startswith(("deck.", "stub."))]
    assert dealer and {e.message for e in dealer} == {"new setup"}


# -- STUB-006: a stub spot with an antenna under it --------------------------------------------------
# docs/rules.md (STUB-006): "Obs: STUB spot read after the last expected card. Act: AUTO gets a
# free stub count every hand. PROMPT if no stub is seen within STUB_DROP_S of the last card."
# STUB_DROP_S is 10 s (§20's example, the setting's default). CLEAN's river is step 21: 10 hole
# cards + 3 burns + 5 board = 18 out, so the stub holds 34 (STUB-003's arithmetic).

DROP = {"drop": "stub"}


def stub_spot(*hands: dict, seed: int = 3, **top) -> dict:
    return {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=seed),
            "stub_spot": True, "hands": list(hands), **top}


def test_STUB_006_the_stub_dropped_on_its_spot_is_counted_every_hand():
    """Two hands, each dropping its stub after the river: each is read, 34 cards, the count the
    arithmetic gives; so the dealer is never asked to count by hand (STUB-001's prompt)."""
    steps = CLEAN[:21] + [DROP] + CLEAN[21:]
    report = play(stub_spot({"steps": steps}, {"seats": SEATS, "button": BUTTON, "steps": steps})).report
    for hand in report["hands"]:
        assert hand["stub_read"] == 34 == hand["stub_count"]
        assert hand["alerts"] == [] and not [p for p in hand["prompts"] if p["rule"] in ("STUB-001", "STUB-002")]


def test_STUB_006_the_spares_stub_is_dropped_and_read_when_the_spare_is_in_play():
    """The spare deck brought in (``new_deck``: a satellite on the other deck, DECK-009) and its
    hand dealt from it (``As@B``): the stub the dealer drops is the spare's 34 cards, read whole,
    not the first deck's (issue 39: the flow sessions at a stub-spot table)."""
    def of_b(step: dict) -> dict:
        return {**step, "deal": f"{step['deal']}@B"} if "deal" in step else step

    steps = [{"press": "new_deck"}] + [of_b(st) for st in CLEAN[:21]] + [DROP] + [of_b(st) for st in CLEAN[21:]]
    [hand] = play(stub_spot({"steps": steps})).report["hands"]
    assert hand["stub_read"] == 34 == hand["stub_count"]
    assert hand["alerts"] == []


def test_STUB_006_no_stub_within_stub_drop_s_of_the_last_card_is_a_prompt(tmp_path):
    late = CLEAN[:21] + [{"wait": 11}] + CLEAN[21:]
    [hand] = play(stub_spot({"steps": late})).report["hands"]
    assert [(a["code"], a["rule"], a["audience"], a["step"]) for a in hand["alerts"]] == [
        ("stub.not_dropped", "STUB-006", "dealer", 22)]
    assert "stub_read" not in hand
    # within the time: nothing; dropped after the prompt: read, and counted
    in_time = CLEAN[:21] + [{"wait": 9}, DROP] + CLEAN[21:]
    [hand] = play(stub_spot({"steps": in_time})).report["hands"]
    assert hand["alerts"] == [] and hand["stub_read"] == 34
    dropped_late = CLEAN[:21] + [{"wait": 11}, DROP] + CLEAN[21:]
    [hand] = play(stub_spot({"steps": dropped_late})).report["hands"]
    assert [a["code"] for a in hand["alerts"]] == ["stub.not_dropped"] and hand["stub_read"] == 34


def test_STUB_006_a_short_stub_read_goes_to_the_floor_naming_the_card():
    """The physical deck lacks the 7h: the stub read holds 33 of the 34 the stub must hold. The
    floor is told which card (STUB-006), the dealer only "new setup" (STUB-004's wrong count)."""
    script = stub_spot({"steps": CLEAN[:21] + [DROP] + CLEAN[21:], "deck": {"missing": ["7h"]}})
    played = play(script)
    assert_nothing_secret_public(script, played)
    [hand] = played.report["hands"]
    assert hand["stub_read"] == 33
    assert [(a["code"], a["rule"], a["audience"], a["step"]) for a in hand["alerts"]] == [
        ("stub.read_wrong", "STUB-006", "floor", 23), ("deck.new_setup", "STUB-004", "dealer", 23)]
    [floor] = [e for _, e in played.seen["floor"] if type(e) is Alert and e.code == "stub.read_wrong"]
    assert floor.message == "the stub spot read 33 cards; the stub must hold 34: missing 7h"
    assert [e.message for _, e in played.seen["dealer"] if type(e) is Alert] == ["new setup"]


def test_STUB_006_a_card_dealt_from_the_dropped_stub_leaves_it():
    """The stub down after the turn (too early), the river dealt from its spot: the read less the
    river is the stub, right."""
    early = CLEAN[:18] + [DROP] + CLEAN[18:]
    [hand] = play(stub_spot({"steps": early})).report["hands"]
    assert hand["alerts"] == [] and hand["stub_read"] == 34 and hand["zones"]["board"][-1] == "3c"


def test_STUB_006_a_table_without_the_antenna_keeps_the_arithmetic(tmp_path):
    """The same hands where no antenna lies under the stub spot: the stub dropped is read by
    nothing, the dealer counts it when asked (STUB-001's prompt at the river), and no wait for
    it raises anything."""
    steps = CLEAN[:21] + [{"wait": 11}, DROP] + CLEAN[21:]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert "stub_read" not in hand and hand["alerts"] == []
    assert [(p["code"], p["rule"], p["step"]) for p in hand["prompts"]] == [("stub.count_due", "STUB-001", 21)]
