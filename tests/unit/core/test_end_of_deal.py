"""The end of the initial deal (MISD-006, MISD-007, with MISD-013's window) when the hand ends
before the flop, each through ``tablectl simulate`` under noise.

The deal is over as soon as the first player acts: the end-of-deal counts are checked at the
first fold (a ``muck`` of a seat), at ``round_done``, at ``hand_end`` and when the hand is
gathered, whichever comes first, and only once (a burn later does not flag the seat again).
The same hands dealt cleanly raise nothing.

Hold'em table (tests/rules_common): seats 1, 2, 4, 6, 9, button 9, so the small blind is seat 1,
the big blind seat 2, and seat 4 acts first before the flop.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from hw_sim.random_hands import random_hand_steps
from tests.rules_common import (
    END,
    FLOP,
    HOLE,
    HOLE_CARDS,
    RIVER,
    TURN,
    deal,
    hole,
    run,
    run_hands,
)

pytestmark = pytest.mark.e2e

FOLD_TO_BB = [{"muck": f"seat:{s}"} for s in (4, 6, 9, 1)]  # everyone folds to the big blind


def short_first_round(seat: int, pairs=HOLE) -> list[dict[str, Any]]:
    """The hole cards with ``seat`` skipped in the first round; it gets its card in the second:
    one card short."""
    first_round = len(pairs) // 2
    return hole([p for i, p in enumerate(pairs) if not (i < first_round and p[1] == seat)])


def omaha(order: list[int]) -> list[tuple[str, int]]:
    """Four rounds of hole cards in ``order``."""
    return [(HOLE_CARDS[i], order[i % len(order)]) for i in range(4 * len(order))]


def test_MISD_007_a_short_seat_is_flagged_when_everyone_folds_to_the_big_blind(tmp_path):
    steps = short_first_round(6) + FOLD_TO_BB + [END]  # 9 hole cards, the first fold at step 10
    assert run(tmp_path, steps) == [("misdeal.seat_short", "MISD-007", 6, "dealer", 10)]


def test_MISD_007_a_short_seat_that_folds_first_is_flagged_at_its_fold(tmp_path):
    steps = short_first_round(4) + FOLD_TO_BB + [END]  # seat 4 (one card) folds first, step 10
    assert run(tmp_path, steps) == [("misdeal.seat_short", "MISD-007", 4, "dealer", 10)]


def test_MISD_006_a_skipped_seat_is_flagged_when_the_hand_ends_before_the_flop(tmp_path):
    steps = [st for st in hole() if st["to"] != "seat:6"] + FOLD_TO_BB + [END]
    assert run(tmp_path, steps) == [("misdeal.seat_skipped", "MISD-006", 6, "dealer", 9)]


def test_MISD_007_a_long_seat_is_flagged_once_and_not_again_at_the_folds(tmp_path):
    steps = hole() + [deal("2c", 4)] + FOLD_TO_BB + [END]  # seat 4's third card at step 11
    assert run(tmp_path, steps) == [("misdeal.too_many_cards", "MISD-007", 4, "dealer", 11)]


def test_the_end_of_deal_is_checked_once_a_burn_later_does_not_flag_again(tmp_path):
    # seat 6 short, seat 4 folds (step 10): flagged there; the flop's burn finds nothing new
    steps = short_first_round(6) + [{"muck": "seat:4"}] + FLOP + TURN + RIVER + [END]
    assert run(tmp_path, steps) == [("misdeal.seat_short", "MISD-007", 6, "dealer", 10)]


def test_the_end_of_the_hand_ends_the_deal_when_nobody_folded(tmp_path):
    # the pot pushed (hand_end, step 10) before any fold or tap: the deal is checked then
    pushed = short_first_round(6) + [{"press": "hand_end"}, END]
    assert run(tmp_path / "pushed", pushed) == [("misdeal.seat_short", "MISD-007", 6, "dealer", 10)]


def test_clean_hands_that_end_before_the_flop_raise_nothing(tmp_path):
    # no false misdeal: all fold to the big blind; one fold then the pot; the pot at once
    assert run(tmp_path / "fold", hole() + FOLD_TO_BB + [END]) == []
    assert run(tmp_path / "pushed", hole() + [{"muck": "seat:4"}, {"press": "hand_end"}, END]) == []
    assert run(tmp_path / "gathered", hole() + [{"press": "hand_end"}, END]) == []


OMAHA = [1, 2, 4, 6, 9]


def test_omaha_a_short_seat_is_flagged_when_everyone_folds_to_the_big_blind(tmp_path):
    pairs = omaha(OMAHA)
    # seat 6 misses its first card (dealt 3 of 4): 19 hole cards, the first fold at step 20
    steps = hole([p for i, p in enumerate(pairs) if not (i < 5 and p[1] == 6)]) + FOLD_TO_BB + [END]
    assert run(tmp_path, steps, game="omaha") == [("misdeal.seat_short", "MISD-007", 6, "dealer", 20)]


def test_omaha_a_short_seat_that_folds_first_and_a_long_seat(tmp_path):
    pairs = omaha(OMAHA)
    short = hole([p for i, p in enumerate(pairs) if not (i < 5 and p[1] == 4)]) + FOLD_TO_BB + [END]
    assert run(tmp_path / "short", short, game="omaha") == [("misdeal.seat_short", "MISD-007", 4, "dealer", 20)]
    long = hole(pairs) + [deal("Jh", 6)] + FOLD_TO_BB + [END]  # a fifth card to seat 6, step 21
    assert run(tmp_path / "long", long, game="omaha") == [("misdeal.too_many_cards", "MISD-007", 6, "dealer", 21)]


def test_omaha_clean_hands_that_end_before_the_flop_raise_nothing(tmp_path):
    assert run(tmp_path / "fold", hole(omaha(OMAHA)) + FOLD_TO_BB + [END], game="omaha") == []
    assert run(tmp_path / "pushed", hole(omaha(OMAHA)) + [{"press": "hand_end"}, END], game="omaha") == []


@pytest.mark.parametrize("game,seed", [("holdem", 31), ("omaha", 32)])
def test_random_hands_that_end_before_the_flop_raise_nothing_under_noise(tmp_path, game, seed):
    """The random-hand generator's pre-flop endings (everyone folds but one: fold chance 1),
    2 to 10 seats, any button, under the noise model: no false misdeal at the first fold."""
    rng = random.Random(seed)
    hands = []
    for _ in range(40):
        seats = sorted(rng.sample(range(1, 11), rng.randint(2, 10)))
        button = rng.randint(1, 10)
        steps = random_hand_steps(rng, game=game, seats=seats, button=button, fold_chance=1.0)
        assert not any(st.get("to") in ("burn", "board") for st in steps)  # over before the flop
        hands.append({"seats": seats, "button": button, "steps": steps})
    report = run_hands(tmp_path, hands, seats=hands[0]["seats"], button=hands[0]["button"], game=game, seed=seed)
    assert len(report["hands"]) == len(hands)
    for i, hand in enumerate(report["hands"], 1):
        assert [a for a in hand["alerts"] if a["audience"] in ("dealer", "floor")] == [], f"hand {i}"


def test_MISD_013_a_fold_ends_the_deal_but_does_not_close_the_misdeal_window(tmp_path):
    # the short seat is flagged at the first fold; the dealer calls the misdeal then: in time,
    # the floor is not told of a late call (folds are no substantial action, MISD-013)
    called = short_first_round(6) + [{"muck": "seat:4"}, {"press": "misdeal"}, END]
    assert run(tmp_path / "called", called) == [("misdeal.seat_short", "MISD-007", 6, "dealer", 10)]
    # after a fold a card to a seat not dealt in is still a misdeal, not a late fault
    after_fold = hole() + [{"muck": "seat:4"}, deal("2c", 3)] + FOLD_TO_BB[1:] + [END]
    assert run(tmp_path / "empty", after_fold) == [("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3, "dealer", 12)]
