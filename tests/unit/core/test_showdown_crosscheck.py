"""The showdown's winners against a reference evaluator written here, by brute force and from
the rules alone (EVAL-001/002/003/008): seeded random hold'em, Omaha and Omaha hi-lo deals.

The reference knows nothing of pokerkit: a five-card hand is ranked by its category, then its
ranks in the order they decide; every allowed five-card choice is tried. ``bench/eval_crosscheck.py``
runs the same check over 100,000 deals.
"""

from __future__ import annotations

import pytest

import random
from pokerkit import Card
from controller.core.cards import FULL_DECK
from controller.core.showdown.evaluation import GAMES, best_hand, kind_of
from controller.core.showdown import showdown

from rig.crosscheck import deals, high5, ref_holdem, ref_omaha, ref_omaha_low, winners


@pytest.mark.slow
def test_holdem_winners_match_the_reference():
    checked = ties = 0
    for hands, board in deals(1701, 2000, 4, 2):
        sd = showdown("holdem", hands, board, button=9)
        expected = winners({s: ref_holdem(h, board) for s, h in hands.items()})
        assert sd.winners == (expected,), (hands, board)
        checked += 1
        ties += len(expected) > 1
    assert checked == 2000 and ties > 0  # split pots came up and agreed too (SPLIT-001, EVAL-008)


def test_omaha_and_omaha8_winners_match_the_reference():
    no_low = 0
    for n, (hands, board) in enumerate(deals(1702, 500, 3, 4)):
        game = "omaha8" if n % 2 else "omaha"
        sd = showdown(game, hands, board, button=1)
        assert sd.winners[0] == winners({s: ref_omaha(h, board) for s, h in hands.items()}), (hands, board)
        if game == "omaha8":
            expected = winners({s: ref_omaha_low(h, board) for s, h in hands.items()}, low=True)
            assert sd.winners[1] == expected, (hands, board)
            no_low += not expected
    assert 0 < no_low < 250  # both a qualifying low and none came up


def test_the_reference_knows_its_rules():
    """The reference itself, on hands whose answer the rules give (so a wrong reference cannot
    agree with a wrong evaluator)."""
    assert high5(("As", "2d", "3c", "4h", "5s"))[:2] == (4, 5)  # the wheel is a five-high straight
    assert ref_holdem(["Ah", "Kh"], ["Qh", "Jh", "Th", "2c", "2d"]) == (8, 14)
    # Omaha: four spades on the board and one in the hand make no flush (exactly two plus three)
    assert ref_omaha(["Ts", "3c", "4c", "5c"], ["As", "Ks", "Qs", "Js", "2d"])[0] == 0
    assert ref_omaha_low(["As", "2s", "Kc", "Kd"], ["3h", "4d", "8c", "Qs", "Qd"]) == (8, 4, 3, 2, 1)
    assert ref_omaha_low(["As", "Ks", "Kc", "Kd"], ["3h", "4d", "8c", "7s", "6d"]) is None  # one low card in the hand


def test_the_fast_path_picks_the_hand_pokerkit_picks():
    """``best_hand`` looks each choice up once where pokerkit's ``from_game`` builds hands: the
    same hand, the very same cards, for every kind of hand a game plays."""
    rng = random.Random(1703)
    kinds = {(kind_of(h), g.cards, g.board) for g in GAMES.values() for h in g.halves}
    checked = 0
    for kind, hole_count, board_count in sorted(kinds, key=lambda k: (k[0].__name__, k[1], k[2])):
        for _ in range(60):
            dealt = list(Card.parse("".join(rng.sample(FULL_DECK, hole_count + board_count))))
            hole, board = dealt[:hole_count], dealt[hole_count:]
            ours, theirs = best_hand(kind, hole, board), kind.from_game_or_none(hole, board)
            assert (ours is None) == (theirs is None), (kind, dealt)
            assert ours is None or (ours == theirs and ours.cards == theirs.cards), (kind, dealt, ours, theirs)
            checked += ours is not None
    assert checked > 60 * (len(kinds) - 2)  # the qualifier-kinds may find no low
