"""One hand per dealer's fault of :mod:`hw_sim.faults`, injected into random clean hands, and the
alert each must raise: what tests/unit/hw_sim/test_faults_caught.py checks and what
bench/bridge_side_by_side.py counts for each reader (issue 40).

``faulty_hands(game, seed)`` gives the hands and, per hand, ``(fault, code, rule, seat, step,
first)``: the alert expected at ``step`` (for ``seat``, or None), and the first step at which any
alert may be raised."""

from __future__ import annotations

import random
from typing import Any

from controller.core.positions import initial_positions
from hw_sim.faults import FAULTS, inject
from hw_sim.random_hands import random_hand_steps

__all__ = ["EXPECT", "faulty_hands", "tap_step"]

# fault -> (alert code, rule, where: "step" = the fault's step, "tap" = the end of the deal,
# "end" = the hand's end; seat: True = the fault's seat, None = no seat)
EXPECT = {
    "wrong_first_seat": ("misdeal.first_card_wrong_seat", "MISD-004", "step", True),
    "card_to_empty_seat": ("misdeal.card_to_seat_not_dealt_in", "MISD-005", "step", True),
    "skip_seat": ("misdeal.seat_skipped", "MISD-006", "tap", True),
    "extra_card": ("misdeal.too_many_cards", "MISD-007", "step", True),
    "short_seat": ("misdeal.seat_short", "MISD-007", "tap", True),
    "button_short": ("deal.button_short", "MISD-007", "tap", True),
    "expose_first_card": ("misdeal.first_two_cards_exposed", "MISD-001", "step", True),
    "expose_later_card": ("deal.exposed_card_becomes_burn", "MISD-010", "step", True),
    "expose_later_card_wrong_burn": ("burn.not_the_exposed_card", "MISD-010", "step", None),
    "two_exposed": ("misdeal.second_exposed_card", "MISD-002", "step", True),
    "boxed_one": ("deal.boxed_card_becomes_burn", "MISD-003", "step", None),
    "boxed_two": ("misdeal.second_boxed_card", "MISD-003", "step", None),
    "player_exposed": ("deal.player_exposed_card", "MISD-012", "step", True),
    "card_off_table": ("deal.card_off_table", "MISD-011", "step", True),
    "no_burn_flop": ("burn.missing", "BURN-001", "step", None),
    "no_burn_turn": ("burn.missing", "BURN-001", "step", None),
    "no_burn_river": ("burn.missing", "BURN-001", "step", None),
    "double_burn": ("burn.double", "BURN-001", "step", None),
    "extra_burn_after_river": ("burn.count_wrong", "BURN-006", "end", None),
    "board_before_burn_flop": ("burn.missing", "BURN-001", "step", None),
    "four_card_flop": ("board.four_card_flop", "BOARD-002", "step", None),
    "two_card_turn": ("board.two_cards_on_street", "BOARD-003", "step", None),
    "two_card_river": ("board.two_cards_on_street", "BOARD-003", "step", None),
    "premature_flop": ("board.premature_flop", "BOARD-004", "step", None),
    "premature_turn": ("board.premature_turn", "BOARD-005", "step", None),
    "premature_river": ("board.premature_river", "BOARD-006", "step", None),
    "burn_to_muck": ("burn.moved_early", "BURN-003", "step", None),
    "muck_retrieval": ("muck.retrieved", "MUCK-002", "step", True),
    "muck_swap": ("muck.card_swap", "MUCK-002", "step", True),
}


def tap_step(steps: list[dict[str, Any]]) -> int:
    """The step that ends the deal (MISD-006/007 checked there): the first fold, tap, burn or
    board card, the pot pushed, or the end of the hand."""
    return next(i for i, s in enumerate(steps, 1)
                if s.get("press") in ("round_done", "sa", "hand_end") or s.get("to") in ("burn", "board")
                or "muck" in s or "end" in s)


def faulty_hands(game: str, seed: int) -> tuple[list[dict[str, Any]], list[tuple[Any, ...]]]:
    rng = random.Random(seed)
    hands, expected = [], []
    for name in FAULTS:
        for _ in range(500):
            seats = sorted(rng.sample(range(1, 11), rng.randint(3, 9)))
            button = rng.choice(seats)
            clean = random_hand_steps(rng, game=game, seats=seats, button=button, fold_chance=0.15)
            try:
                steps, info = inject(name, clean, game=game, seats=seats, button=button, rng=rng)
            except ValueError:
                continue
            if "board" in str(steps) and "round_done" in str(steps):
                break
        code, rule, where, seat = EXPECT[name]
        if name == "extra_card" and info.seat == initial_positions(seats, button).sb:
            code = "deal.pull_small_blind_extra_card"  # DEAL_COUNT_FIXES = 003
        step = {"step": info.step, "tap": tap_step(steps), "end": len(steps)}[where]
        hands.append({"seats": seats, "button": button, "steps": steps})
        # nothing may be raised before the first step the fault touches
        first = min([info.step, step, *info.marks.values()])
        expected.append((name, code, rule, info.seat if seat else None, step, first))
    return hands, expected
