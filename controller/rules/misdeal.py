"""Misdeals in the initial deal of a flop game (RULES.md §5).

Each check looks at one card arriving at a seat from the stub and says what is wrong, if
anything. Only what the sensors are certain of is flagged (RULES.md, "Sensor limits"): the seat
a card landed at is certain; that a card was never pitched is not (it may be a missed read).
Every flag is advisory: a misdeal exists only once the dealer declares it (MISD-016).

>>> from controller.hand import Hand
>>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
>>> check_hole_card(h, 2)
('misdeal.first_card_wrong_seat', 'MISD-004', 'the first card went to seat 2; it is due at seat 1: misdeal')
>>> check_hole_card(h, 1) is None
True
"""

from __future__ import annotations

from controller.hand import Hand

Finding = tuple[str, str, str]  # (alert code, rule id, message for the dealer)


def window_open(hand: Hand) -> bool:
    """MISD-013: the misdeal window closes at substantial action; the reader cannot see chips,
    so it closes at the first burn (the ``sa`` and ``round_done`` pads come with the console)."""
    return hand.count("burn") == 0 and hand.count("board") == 0


def check_hole_card(hand: Hand, seat: int) -> Finding | None:
    """A card arrived at ``seat`` from the stub, before it is counted. What is wrong?"""
    if not window_open(hand):
        return None
    if seat not in hand.seats:
        # MISD-005: an empty seat, an eliminated player, a seat not dealt in
        return ("misdeal.card_to_seat_not_dealt_in", "MISD-005",
                f"a card went to seat {seat}, which is not dealt in: misdeal")
    if hand.hole_dealt == 0 and seat != hand.order[0]:
        # MISD-004 (with DEAL-001/002/005 for the seat due)
        return ("misdeal.first_card_wrong_seat", "MISD-004",
                f"the first card went to seat {seat}; it is due at seat {hand.order[0]}: misdeal")
    return None
