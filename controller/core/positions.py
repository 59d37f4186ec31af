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
from collections.abc import Sequence


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


def between(seat: int, first: int, last: int) -> bool:
    """Whether ``seat`` is on the clockwise arc from ``first`` to ``last``, both included.

    >>> between(4, 3, 5), between(6, 3, 5), between(1, 9, 2)
    (True, False, True)
    """
    return (seat - first) % 10 <= (last - first) % 10


def late_entry_waits(seat: int, last: Positions, live: Sequence[int], rule: str = "immediate",
                     posted: bool = False) -> bool:
    """DEAL-006/007: whether a player who sat down at ``seat`` since the last hand waits.

    ``immediate`` (``LATE_ENTRY``, 002 and 004): he plays at once unless his seat is on the
    button, the small blind or between them in the next hand (computed without him: he cannot
    make himself the button). ``wait_for_bb`` (001 late registrants): he comes in when the big
    blind reaches him. ``posted`` (a cash player who posted, DEAL-007) waits only in the
    button-small blind gap.

    >>> last = Positions(button=1, sb=3, bb=5)       # seats 1, 3, 5, 7 live; next: 3, 5, 7
    >>> late_entry_waits(4, last, (1, 3, 5, 7))     # between the next button (3) and SB (5)
    True
    >>> late_entry_waits(6, last, (1, 3, 5, 7))     # he becomes the big blind
    False
    >>> late_entry_waits(9, last, (1, 3, 5, 7)), late_entry_waits(9, last, (1, 3, 5, 7), "wait_for_bb")
    (False, True)
    """
    others = sorted(s for s in live if s != seat)
    if len(others) < 2:
        return False
    nxt = next_positions(last, others)
    if between(seat, nxt.button, nxt.sb):
        return True
    if rule == "wait_for_bb" and not posted:
        return next_positions(last, others + [seat]).bb != seat
    return False
