"""The button and the blinds from hand to hand: the dead-button rule (DEAL-004, DEAL-005).

The big blind is never skipped: it goes to the next live seat after the last big blind. The
small blind goes on the last big blind's seat, and the button on the last small blind's seat,
even when those seats were vacated (a dead small blind, a dead button: 001 §BUTTON RULE,
``DEAD_BUTTON_STYLE`` = puck on the vacated seat). Heads-up the button is the small blind and
the other seat the big blind, who gets the first card (DEAL-002); going from three players to
two, the player who would have been the next big blind is the big blind (DEAL-003).

>>> p = initial_positions((1, 2, 3, 4, 5), button=1)
>>> p
Positions(button=1, sb=2, bb=3)
>>> next_positions(p, (1, 3, 4, 5))   # the small blind (seat 2) is out: dead button on seat 2
Positions(button=2, sb=3, bb=4)
>>> next_positions(p, (1, 2, 4, 5))   # the big blind (seat 3) is out: no small blind
Positions(button=2, sb=3, bb=4)
>>> next_positions(p, (1, 2, 4, 5)).live_sb((1, 2, 4, 5))
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence


def next_live(seat: int, live: Sequence[int]) -> int:
    """The first live seat clockwise after ``seat`` (seats 1..10, wrapping)."""
    for step in range(1, 11):
        s = (seat - 1 + step) % 10 + 1
        if s in live:
            return s
    raise ValueError("no live seat")


@dataclass(frozen=True, slots=True)
class Positions:
    """Where the button and the blinds are for one hand. ``sb`` is the small blind's *seat*;
    it may be vacated (then there is no small blind that hand), as the button's may be."""

    button: int
    sb: int
    bb: int

    def live_sb(self, live: Sequence[int]) -> bool:
        return self.sb in live

    def dead_button(self, live: Sequence[int]) -> bool:
        return self.button not in live


def initial_positions(live: Sequence[int], button: int) -> Positions:
    """Positions for a hand whose button is set by hand (configuration or the floor).

    Heads-up the button is the small blind (DEAL-002).
    """
    seats = sorted(live)
    if len(seats) < 2:
        raise ValueError("a hand needs two live seats")
    if len(seats) == 2 and button in seats:
        return Positions(button, button, next_live(button, seats))
    sb = next_live(button, seats)
    return Positions(button, sb, next_live(sb, seats))


def next_positions(last: Positions, live: Sequence[int]) -> Positions:
    """The positions of the next hand, given the last hand's and the seats live now."""
    seats = sorted(live)
    if len(seats) < 2:
        raise ValueError("a hand needs two live seats")
    bb = next_live(last.bb, seats)  # DEAL-005: the big blind is never skipped
    if len(seats) == 2:  # DEAL-002/003: heads-up the other seat is button and small blind
        other = seats[0] if seats[1] == bb else seats[1]
        return Positions(other, other, bb)
    return Positions(button=last.sb, sb=last.bb, bb=bb)
