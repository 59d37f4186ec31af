"""Chinese poker (docs/rules.md: CHIN; 001 §CHINESE POKER): the four stacks of 13 and where they go.

The dealer deals the whole deck into four stacks of 13 while the hand before is played, then
pushes each stack whole to its seat (CHIN-001). The reader sees 13 cards arrive at a seat at
once, in no order it can tell, and the stacks are alike to it: what the table checks is the
count each seat holds (CHIN-002), not which stack went where, and not the order of a deal one
card at a time round the table (the misdeal rules MISD-004..007 do not apply: there is no
misdeal in this game, CHIN-003).

Which seats get a hand (CHIN-002): stack 1 to the seat left of the button, 2 and 3 to the next
ones, stack 4 to the button; three players: stack 4 is mucked; two players: stacks 1 and 2,
3 and 4 mucked, or two hands each (stacks 1 and 3, 2 and 4: ``[table] chinese_two_hands``);
five players: the button gets no hand.

>>> stacks([1, 3, 5, 8], 8, two_hands=False)  # four players: one stack each
({1: 1, 3: 1, 5: 1, 8: 1}, 0)
>>> stacks([2, 6, 9], 6, two_hands=False)  # three: stack 4 mucked
({9: 1, 2: 1, 6: 1}, 1)
>>> stacks([4, 7], 7, two_hands=False), stacks([4, 7], 7, two_hands=True)
(({4: 1, 7: 1}, 2), ({4: 2, 7: 2}, 0))
>>> stacks([1, 2, 3, 4, 5], 3, two_hands=False)  # five: the button (seat 3) sits out
({4: 1, 5: 1, 1: 1, 2: 1}, 0)

The counts once the stacks are out (:func:`counts`): 14 at one seat and 12 at another is fixed
at the table (CHIN-003: the 14 are spread face down and the player with 12 draws one at random;
no misdeal): the dealer is told, and the table then expects 13 and 13. Any other imbalance, which
the guides do not cover, is the floor's.

>>> [f.code for f in counts({1: 13, 3: 14, 5: 12, 8: 13}, {1: 13, 3: 13, 5: 13, 8: 13})]
['deal.chinese_one_over_one_short']
>>> [f.audience for f in counts({1: 13, 3: 15, 5: 11, 8: 13}, {1: 13, 3: 13, 5: 13, 8: 13})]
['floor']
>>> counts({1: 13, 3: 13, 5: 13}, {1: 13, 3: 13, 5: 13})
[]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from controller.core.rules import Finding
from controller.core.settings import deal_order

STACK = 13  # CHIN-001: 52 cards in four stacks
STACKS = 4


def stacks(seats: Sequence[int], button: int, *, two_hands: bool) -> tuple[dict[int, int], int]:
    """CHIN-002: the stacks each seat gets (in the order they are pushed, from left of the
    button) and how many stacks are mucked. Seats beyond the fourth from the button get none (five
    players: the button; more are DEAL-012's too many)."""
    order = deal_order(list(seats), button)
    if len(order) == 2 and two_hands:  # the first gets stacks 1 and 3, the other 2 and 4
        return {order[0]: 2, order[1]: 2}, 0
    dealt = {s: 1 for s in order[:STACKS]}
    return dealt, STACKS - len(dealt)


def seats_dealt(seats: Sequence[int], button: int, *, two_hands: bool) -> tuple[tuple[int, ...], int]:
    """The seats dealt a hand and the cards each gets (13, or 26 for two hands).

    More than five players is DEAL-012's "too many" (the table says so): every seat is taken
    as dealt in, and the counts show the seats left short.

    >>> seats_dealt((1, 2, 3, 4, 5), 5, two_hands=False), seats_dealt((2, 7), 2, two_hands=True)
    (((1, 2, 3, 4), 13), ((2, 7), 26))
    >>> seats_dealt((1, 2, 3, 4, 5, 6), 6, two_hands=False)
    ((1, 2, 3, 4, 5, 6), 13)
    """
    if len(seats) > STACKS + 1:
        return tuple(sorted(seats)), STACK
    dealt, _ = stacks(seats, button, two_hands=two_hands)
    per = max(dealt.values(), default=1) * STACK
    return tuple(sorted(dealt)), per


def on_seat_card(seat: int, dealt: Sequence[int], button: int, seated: Sequence[int]) -> Finding | None:
    """A card off the stub at ``seat``. A seat with no hand this deal (five players: the
    button, CHIN-002; an empty seat): the dealer is told to give the stack to the seat still
    without one. A dealt seat may get any number for now: the counts are checked once the
    stacks are out (:func:`counts`)."""
    if seat in dealt:
        return None
    if seat == button and seat in seated:
        why = f"five players: the button (seat {seat}) gets no hand"
    else:
        why = f"seat {seat} has no hand this deal"
    return Finding("deal.chinese_no_hand", "CHIN-002", f"{why}: give its cards to the seat still without a stack",
                   seat)


def counts(held: Mapping[int, int], want: Mapping[int, int]) -> list[Finding]:
    """The seats' counts once the stacks are out (``held``: seat -> cards it received; ``want``:
    seat -> cards it is due, 0 for a seat with no hand). CHIN-003: one seat one over and one
    seat one under: the fix at the table (the dealer's). A stack at a seat with no hand and
    none at a seat due one: told when it came (:func:`on_seat_card`), nothing more. Anything
    else: the floor's, with the counts (never a card)."""
    seats = sorted(set(held) | set(want))
    diff = {s: held.get(s, 0) - want.get(s, 0) for s in seats if held.get(s, 0) != want.get(s, 0)}
    if not diff:
        return []
    over = [s for s, d in diff.items() if d > 0]
    under = [s for s, d in diff.items() if d < 0]
    if len(over) == len(under) == 1 and diff[over[0]] == 1 and diff[under[0]] == -1 \
            and want.get(over[0]) and want.get(under[0]):
        a, b = over[0], under[0]
        return [Finding("deal.chinese_one_over_one_short", "CHIN-003",
                        f"seat {a} has {held[a]} cards and seat {b} {held.get(b, 0)}: seat {a} spreads them face "
                        f"down, seat {b} draws one at random; no misdeal", a, count=1)]
    if all(not want.get(s) for s in over) and all(held.get(s, 0) == 0 for s in under) \
            and sum(diff[s] for s in over) == -sum(diff[s] for s in under):
        return []  # whole stacks at seats with no hand (told as they came): to be moved
    said = ", ".join(f"seat {s} {held.get(s, 0)} of {want.get(s, 0)}" for s in seats if s in diff)
    return [Finding("deal.chinese_count_wrong", "CHIN-003",
                    f"Chinese poker stacks out of balance ({said}): not the 14-and-12 the guide fixes at the table",
                    audience="floor")]


def balanced(held: Mapping[int, int], want: Mapping[int, int]) -> bool:
    """Every seat holds what it is due (13, 26, or none): the fix is done (CHIN-003, CHIN-002)."""
    return all(held.get(s, 0) == want.get(s, 0) for s in set(held) | set(want))
