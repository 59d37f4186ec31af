"""A second clone of a cloned card on the board (issue 12; DECK-007 before BOARD-001).

Cards carrying one UID on one antenna answer as one tag: a further copy of a cloned card
pitched to the board is never read apart from the first. The flop then reads 2 of its 3 cards;
with a cloned tag lying on the board, the missing card is taken for another copy of it: the
floor is told (``deck.cloned_tag``), the board and the stub count hold it, and the dealer gets no
false "the flop has 2 of 3 cards". Played as deal scripts through the in-process harness.
"""

from __future__ import annotations

from controller.core.effects import Alert
from hw_sim.harness import play as harness_play
from tests.rules_common import BUTTON, END, RIVER, SEATS, TURN, alerts_of, hole, street
from rig.scenarios import NOISE, assert_nothing_secret_public

CLONE = {"deal": "As", "to": "board", "clone": True}  # seat 1's ace of spades, a second tag with its UID


def _play(steps: list[dict], seed: int = 3):
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=seed),
              "hands": [{"steps": steps}]}
    played = harness_play(script)
    assert_nothing_secret_public(script, played)
    [hand] = played.report["hands"]
    return hand, played


def test_two_clones_of_a_hole_card_on_the_flop_are_a_clone_alert_not_a_short_flop():
    # hole 1-10, the tap 11, the burn 12, Th 13, a clone of As 14, a second clone 15, the turn 16-18
    steps = hole() + street("8h", "Th") + [CLONE, dict(CLONE)] + TURN + RIVER + [END]
    hand, played = _play(steps)
    assert alerts_of(hand) == [
        ("deck.cloned_tag", "DECK-007", None, "floor", 14),  # the first clone: As at seat 1 and on the board
        ("deck.new_setup", "DECK-007", None, "dealer", 14),
        ("deck.cloned_tag", "DECK-007", None, "floor", 17),  # the second, found when the turn's burn closes the flop
    ]
    # counted as what lies there: three cards on the flop, eighteen off the stub (the script's deals)
    assert hand["zones"]["board"] == ["Th", "As", "As", "Jc", "3c"]
    assert hand["stub_count"] == 52 - sum(1 for s in steps if "deal" in s) == 34
    dealer = [e.code for _, e in played.seen["dealer"] if isinstance(e, Alert)]
    assert "board.street_short" not in dealer and dealer.count("deck.new_setup") == 1
    floor = [e for _, e in played.seen["floor"] if isinstance(e, Alert) and e.code == "deck.cloned_tag"]
    assert floor[1].card == "As" and "the flop has 2 of 3 cards by their tags" in floor[1].message


def test_three_clones_on_the_flop_count_as_two_more_cards():
    steps = hole() + street("8h") + [CLONE, dict(CLONE), dict(CLONE)] + TURN + RIVER + [END]
    hand, _ = _play(steps, seed=5)
    assert [a[0] for a in alerts_of(hand)] == ["deck.cloned_tag", "deck.new_setup", "deck.cloned_tag"]
    assert hand["zones"]["board"] == ["As", "As", "As", "Jc", "3c"]
    assert hand["stub_count"] == 52 - sum(1 for s in steps if "deal" in s)


def test_a_short_flop_without_a_clone_still_prompts_the_dealer():
    """The board count prompt is intact (BOARD-001): no clone on the board, a flop of two."""
    steps = hole() + street("8h", "Th", "Tc") + TURN + RIVER + [END]
    hand, _ = _play(steps)
    assert alerts_of(hand) == [("board.street_short", "BOARD-001", None, "dealer", 16)]  # at the turn's burn


def test_a_clone_elsewhere_does_not_excuse_a_short_flop():
    """A cloned tag at two seats says nothing of the board: the short flop is the dealer's."""
    steps = hole()[:7] + [{"deal": "As", "to": "seat:4", "clone": True}] + hole()[8:] + \
        street("8h", "Th", "Tc") + TURN + RIVER + [END]
    hand, _ = _play(steps)
    assert [(a[0], a[3]) for a in alerts_of(hand)] == [
        ("deck.cloned_tag", "floor"), ("deck.new_setup", "dealer"), ("board.street_short", "dealer")]
