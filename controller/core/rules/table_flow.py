"""Tournament and table flow, the guides' last checkable rules (docs/rules.md §19: FLOW-006..009,
and §1's DECK-009), the parts that are arithmetic or words. The table's part that keeps their
state is :mod:`controller.core.table.flow`.

**FLOW-006, a long absence** (003 §Be at Your Seat / Absent Player: "the absent player will be
eliminated after 2 full rotations", at the other players' request). An orbit is counted as
MIXED-001 counts one: it is over once every seat dealt in has had the button since it began; a
game without a button (stud) counts as many hands as players dealt in:

>>> orbit_done(frozenset({1, 2, 4}), 3, (1, 2, 4), has_button=True)
True
>>> orbit_done(frozenset({1, 2}), 2, (1, 2, 4), has_button=True)   # seat 4 has not had it yet
False
>>> orbit_done(frozenset({9}), 3, (1, 2, 4), has_button=False)     # stud: a hand a player
True

**FLOW-007, the satellite's start gate** (001 §DEALING (satellite)): while the supervisor checks
the buy-ins, "the Dealer will place the button in seat 10 (or last seat if satellite is 6 or 8
handed,) and WAIT": the last seat is the highest seated:

>>> satellite_button((1, 2, 3, 4, 5, 6))
6
>>> satellite_button(())  # nobody seated yet: seat 10
10

**FLOW-009, the short-handed rake cap** (002 §RAKE, §RAKE REDUCTION: "the maximum $4 rake" and
$1 more "for promotions" once the pot reaches $40; "4-handed: $3 + $1 Promotional; 3-handed or
less: $2 + No Promotional"). The caps are the house's (``[rules] rake_cap`` ...), the guide's
values the defaults:

>>> GUIDE = RakeCaps(full=4, promo=1, four=3, promo_four=1, three=2, promo_three=0)
>>> [rake_cap(n, GUIDE) for n in (9, 5, 4, 3, 2)]
[(4, 1), (4, 1), (3, 1), (2, 0), (2, 0)]
>>> rake_words(4, 3, 1)
'rake cap 3 + 1 promotional (4-handed)'
>>> rake_words(3, 2, 0)
'rake cap 2, no promotional rake (3-handed)'
>>> rake_words(6, 4, 1)
'rake cap 4 + 1 promotional (6 dealt in)'
"""

from __future__ import annotations

from collections.abc import Iterable

from controller.core.settings import RakeCaps

#: FLOW-006: the full orbits an absence lasts before the floor is told (003: "2 full rotations")
LONG_ABSENCE_ORBITS = 2
#: FLOW-007: where the button waits when nobody is seated yet (001: "seat 10")
LAST_SEAT = 10


def orbit_done(buttons: Iterable[int], hands: int, seats: Iterable[int], *, has_button: bool) -> bool:
    """Whether an orbit is over: ``buttons``, the seats that had the button since it began (this
    hand's included), ``hands`` the hands played in it, ``seats`` this hand's seats dealt in."""
    seats = set(seats)
    if not has_button:
        return hands >= len(seats)
    return seats <= set(buttons)


def satellite_button(seats: Iterable[int]) -> int:
    """FLOW-007: the seat the button waits on before a single-table satellite starts."""
    return max(seats, default=LAST_SEAT)


def rake_cap(players: int, caps: RakeCaps) -> tuple[int, int]:
    """The cap and the promotional rake of a hand ``players`` are dealt in."""
    if players <= 3:
        return caps.three, caps.promo_three
    if players == 4:
        return caps.four, caps.promo_four
    return caps.full, caps.promo


def rake_words(players: int, cap: int, promo: int) -> str:
    """What the dealer is told of a hand's cap (the amounts never name a card)."""
    who = f"{players}-handed" if players <= 4 else f"{players} dealt in"
    more = f" + {promo} promotional" if promo else ", no promotional rake"
    return f"rake cap {cap}{more} ({who})"
