"""The button and blinds from hand to hand (DEAL-002 to DEAL-005), after 001 §BUTTON RULE."""

import pytest
from hypothesis import given, strategies as st

from controller.positions import Positions, initial_positions, next_live, next_positions
from controller.settings import deal_order

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


@given(live=st.sets(st.integers(1, 10), min_size=3, max_size=10), start=st.integers(1, 10),
       busts=st.lists(st.integers(1, 10), max_size=6))
def test_the_big_blind_never_skips_a_live_player(live, start, busts):
    """DEAL-005: over any eliminations, each hand's big blind is the next live seat after the
    last big blind, and the first card goes to the first live seat after the button."""
    live = set(live)
    p = initial_positions(sorted(live), start)
    for b in busts:
        if len(live) > 2:
            live.discard(b)
        q = next_positions(p, sorted(live))
        assert q.bb == next_live(p.bb, sorted(live))
        assert q.bb in live and q.button != q.bb
        assert deal_order(sorted(live), q.button)[0] == next_live(q.button, sorted(live))
        p = q
