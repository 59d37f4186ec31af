"""The button and blinds from hand to hand (DEAL-002 to DEAL-005), after 001 §BUTTON RULE."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from controller.core.positions import Positions, initial_positions, next_positions
from controller.core.settings import deal_order
from tests.dead_button import Reference

FIVE = (1, 2, 3, 4, 5)


def test_DEAL_004_the_button_moves_one_seat_when_nobody_leaves():
    p = initial_positions(FIVE, 5)
    seen = []
    for _ in range(6):
        seen.append((p.button, p.sb, p.bb))
        p = next_positions(p, FIVE)
    assert seen == [(5, 1, 2), (1, 2, 3), (2, 3, 4), (3, 4, 5), (4, 5, 1), (5, 1, 2)]


def test_DEAL_005_scenario_1_small_blind_eliminated():
    h1 = Positions(1, 2, 3)
    h2 = next_positions(h1, (1, 3, 4, 5))
    assert h2 == Positions(button=2, sb=3, bb=4) and h2.dead_button((1, 3, 4, 5))
    assert next_positions(h2, (1, 3, 4, 5)) == Positions(button=3, sb=4, bb=5)


def test_DEAL_005_scenario_2_big_blind_eliminated():
    live = (1, 2, 4, 5)
    h2 = next_positions(Positions(1, 2, 3), live)
    assert (h2.button, h2.bb, h2.live_sb(live)) == (2, 4, False)  # no small blind this hand
    h3 = next_positions(h2, live)
    assert h3 == Positions(button=3, sb=4, bb=5) and h3.dead_button(live)


def test_DEAL_005_scenario_3_both_blinds_eliminated():
    live = (1, 4, 5)
    h2 = next_positions(Positions(1, 2, 3), live)
    assert (h2.button, h2.bb, h2.live_sb(live), h2.dead_button(live)) == (2, 4, False, True)
    assert next_positions(h2, live) == Positions(button=3, sb=4, bb=5)


def test_DEAL_005_first_card_goes_left_of_a_dead_button():
    live = (1, 3, 4, 5)
    h2 = next_positions(Positions(1, 2, 3), live)
    assert deal_order(live, h2.button)[0] == 3


def test_DEAL_002_heads_up_the_button_is_the_small_blind_and_the_big_blind_gets_the_first_card():
    p = initial_positions((3, 8), 8)
    assert p == Positions(button=8, sb=8, bb=3)
    assert deal_order((3, 8), p.button)[0] == p.bb
    q = next_positions(p, (3, 8))
    assert q == Positions(button=3, sb=3, bb=8) and deal_order((3, 8), q.button)[0] == 8


@pytest.mark.parametrize("busted,bb,button", [(3, 1, 2), (1, 2, 3), (2, 1, 3)])
def test_DEAL_003_from_three_players_to_two_the_next_big_blind_is_the_big_blind(busted, bb, button):
    live = tuple(s for s in (1, 2, 3) if s != busted)
    p = next_positions(Positions(1, 2, 3), live)
    assert (p.bb, p.button, p.sb) == (bb, button, button)


@given(live=st.sets(st.integers(1, 10), min_size=2, max_size=10), start=st.integers(1, 10),
       busts=st.lists(st.integers(1, 10), max_size=8))
def test_positions_agree_with_the_reference_walk_of_the_dead_button_rule(live, start, busts):
    """DEAL-002..005 over any eliminations: controller.core.positions and deal_order against the
    reference written from docs/rules.md's wording (tests/dead_button.py), not against themselves."""
    live = set(live)
    p, ref = initial_positions(sorted(live), start), Reference.first(sorted(live), start)
    assert (p.button, p.sb, p.bb) == (ref.button, ref.sb, ref.bb)
    for b in busts:
        if len(live) > 2:
            live.discard(b)
        p, ref = next_positions(p, sorted(live)), ref.next(sorted(live))
        assert (p.button, p.sb, p.bb) == (ref.button, ref.sb, ref.bb)
        assert (p.live_sb(sorted(live)), p.dead_button(sorted(live))) == (ref.sb_posted, ref.dead_button)
        assert deal_order(sorted(live), p.button) == ref.order


# -- the dealer guides' own examples, as tables ---------------------------------------------
# Each case: the rule, the guide's words, the first hand's live seats and button (placed by
# hand), then hand by hand: (live seats, button, small blind seat, small blind posted, big
# blind, deal order). The expected values are read off the guides, not computed.

CASES = [
    ("DEAL-005", ("001 §BUTTON RULE SCENARIO #1: SMALL BLIND is eliminated from play. "
                 "HAND 1: seat 1 Button, seat 2 Small, seat 3 Big; "
                 "HAND 2: seat 2 Button (OUT), seat 3 Small, seat 4 Big; "
                 "HAND 3: seat 2 (OUT), seat 3 Button, seat 4 Small, seat 5 Big"),
     [((1, 2, 3, 4, 5), 1, 2, True, 3, [2, 3, 4, 5, 1]),
      ((1, 3, 4, 5), 2, 3, True, 4, [3, 4, 5, 1]),
      ((1, 3, 4, 5), 3, 4, True, 5, [4, 5, 1, 3])]),
    ("DEAL-005", ("001 §BUTTON RULE SCENARIO #2: BIG BLIND is eliminated from play. "
                 "HAND 1: seat 1 Button, seat 2 Small, seat 3 Big; "
                 "HAND 2: seat 2 Button, seat 3 (OUT), seat 4 Big [no small blind]; "
                 "HAND 3: seat 3 Button (OUT), seat 4 Small, seat 5 Big"),
     [((1, 2, 3, 4, 5), 1, 2, True, 3, [2, 3, 4, 5, 1]),
      ((1, 2, 4, 5), 2, 3, False, 4, [4, 5, 1, 2]),
      ((1, 2, 4, 5), 3, 4, True, 5, [4, 5, 1, 2])]),
    ("DEAL-005", ("001 §BUTTON RULE SCENARIO #3: SMALL BLIND AND BIG BLIND are eliminated. "
                 "HAND 1: seat 1 Button, seat 2 Small, seat 3 Big; "
                 "HAND 2: seat 2 Button (OUT), seat 3 (OUT), seat 4 Big; "
                 "HAND 3: seat 3 Button (OUT), seat 4 Small, seat 5 Big"),
     [((1, 2, 3, 4, 5), 1, 2, True, 3, [2, 3, 4, 5, 1]),
      ((1, 4, 5), 2, 3, False, 4, [4, 5, 1]),
      ((1, 4, 5), 3, 4, True, 5, [4, 5, 1])]),
    ("DEAL-003", ("003 §Blinds: 'When playing three handed, if the big blind is eliminated, the "
                 "button becomes the big blind which means the small blind will be the small blind "
                 "again on the next hand.' (heads-up the small blind is on the button, DEAL-002)"),
     [((1, 2, 3), 1, 2, True, 3, [2, 3, 1]),
      ((1, 2), 2, 2, True, 1, [1, 2])]),
    ("DEAL-003", ("000 §When Only Two Players Remain: 'determine which player would have been the "
                 "next big blind if no player had been eliminated ... that player is the big blind "
                 "and the other player is the small blind and button. The player who does not have "
                 "the button shall be dealt the first card.' (the small blind, seat 2, busts)"),
     [((1, 2, 3), 1, 2, True, 3, [2, 3, 1]),
      ((1, 3), 3, 3, True, 1, [1, 3])]),
    ("DEAL-003", ("004 intro: 'a player can never miss the big blind. If there are only 3 players "
                 "left, and the dealer gets eliminated, then the button is placed after putting "
                 "the big blind in the right place.' (the button, seat 1, busts)"),
     [((1, 2, 3), 1, 2, True, 3, [2, 3, 1]),
      ((2, 3), 3, 3, True, 2, [2, 3])]),
    ("DEAL-002", ("004 §Poker Dealer Rules: 'In heads-up play with two blinds, the small blind is on "
                 "the button.' 000: 'The player who does not have the button shall be dealt the "
                 "first card.' (seats 3 and 8, the button moving each hand, DEAL-004)"),
     [((3, 8), 8, 8, True, 3, [3, 8]),
      ((3, 8), 3, 3, True, 8, [8, 3]),
      ((3, 8), 8, 8, True, 3, [3, 8])]),
    ("DEAL-004", ("000 §The Deal / 003 §Dealer Procedures: 'push the pot to the winner, muck all "
                 "cards, then move the button': one seat clockwise each hand, seat 10 to seat 1 "
                 "(DEAL-001: the first card left of the button)"),
     [((2, 5, 10), 5, 10, True, 2, [10, 2, 5]),
      ((2, 5, 10), 10, 2, True, 5, [2, 5, 10]),
      ((2, 5, 10), 2, 5, True, 10, [5, 10, 2]),
      ((2, 5, 10), 5, 10, True, 2, [10, 2, 5])]),
]


@pytest.mark.parametrize("rule,scenario,hands", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_the_dealer_guides_examples(rule, scenario, hands):
    got = []
    p = None
    for live, *_ in hands:
        p = initial_positions(live, hands[0][1]) if p is None else next_positions(p, live)
        got.append((live, p.button, p.sb, p.live_sb(live), p.bb, deal_order(live, p.button)))
    assert got == [tuple(h) for h in hands], f"{rule}: {scenario}"
    # and the reference walk (the oracle of the random sessions) reads the guides the same way
    ref = Reference.first(hands[0][0], hands[0][1])
    walked = [ref] + [ref := ref.next(live) for live, *_ in hands[1:]]
    assert [(r.live, r.button, r.sb, r.sb_posted, r.bb, r.order) for r in walked] == [tuple(h) for h in hands]
