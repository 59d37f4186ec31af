"""Random clean hands of Chinese poker, as deal-script steps (001 §CHINESE POKER).

Written from the guide's words, not from the daemon's rules (``controller.core.families.chinese.rules``):

- the dealer deals the whole deck, freshly shuffled, into four stacks of 13 (stack 1 the
  first 13 cards off the top, and so on);
- "The first stack is pushed to the player directly following the Dealer button (clockwise),
  the next player receives the second stack, the player following him gets the third stack,
  and the player with the Dealer button gets the fourth stack";
- "2 players - one hand each: The first and second stacks are distributed and the third and
  fourth stacks are mucked"; "2 players - two hands each: The first player receives the first
  and third stack. The other player receives the second and fourth stack"; "3 players: Fourth
  stack is mucked"; "5 players: Player in the Dealer Button position does not receive a hand";
- "When the players have completed the hand they are playing, they will toss all cards to the
  center of the table. The Dealer will muck those cards": each player's cards to the muck, in
  turn from left of the button; then the gather (``{"end": true}``).

Each stack is one ``{"stack": [...], "to": ZONE}`` step (the 13 cards arrive together).

>>> h = random_chinese_hand(random.Random(1), seats=[2, 4, 7, 9, 10], button=9)
>>> [(s["to"], len(s["stack"])) for s in h.steps if "stack" in s]  # the button (9) gets none
[('seat:10', 13), ('seat:2', 13), ('seat:4', 13), ('seat:7', 13)]
>>> h.dealt, [s.get("muck") for s in h.steps[4:]]
([10, 2, 4, 7], ['seat:10', 'seat:2', 'seat:4', 'seat:7', None])
>>> h = random_chinese_hand(random.Random(1), seats=[3, 8], button=3, two_hands=True)
>>> [s["to"] for s in h.steps if "stack" in s]
['seat:8', 'seat:3', 'seat:8', 'seat:3']
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Sequence

from controller.core.cards import FULL_DECK
from hw_sim.generated import GeneratedHand

#: the players a table of Chinese poker seats: two to five (five: the button sits out)
MIN_PLAYERS, MAX_PLAYERS = 2, 5


def _clockwise_from_button(seats: Sequence[int], button: int) -> list[int]:
    """The seats walking clockwise (seat numbers up, 10 wrapping to 1) from the first one left of
    the button, the button's own seat last."""
    out, seat = [], button
    for _ in range(10):
        seat = seat % 10 + 1
        if seat in seats:
            out.append(seat)
    return out


def random_chinese_hand(rng: random.Random, *, seats: Sequence[int], button: int,
                        two_hands: bool = False) -> GeneratedHand:
    """One clean hand of Chinese poker at ``seats`` (2 to 5) with the button at ``button`` (a
    seat dealt in). ``two_hands``: two players play two hands each. No prompt is expected."""
    if not MIN_PLAYERS <= len(seats) <= MAX_PLAYERS or len(set(seats)) != len(seats):
        raise ValueError(f"Chinese poker seats 2 to 5 players, got {list(seats)}")
    if button not in seats:
        raise ValueError(f"the button must be at a seat dealt in, got {button} for {list(seats)}")
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    stacks = [deck[13 * i:13 * (i + 1)] for i in range(4)]
    ring = _clockwise_from_button(seats, button)
    if len(ring) == 2 and two_hands:
        to = [ring[0], ring[1], ring[0], ring[1]]
    elif len(ring) == 5:
        to = ring[:4]  # the button, last round from its left, gets no hand
    else:
        to = list(ring) + [0] * (4 - len(ring))  # 0: the stack is mucked
    steps: list[dict[str, Any]] = [{"stack": stack, "to": f"seat:{seat}" if seat else "muck"}
                                   for stack, seat in zip(stacks, to, strict=True)]
    dealt = [s for s in ring if s in to]
    steps += [{"muck": f"seat:{s}"} for s in dealt]  # the hands played: every card to the center
    steps.append({"end": True})
    return GeneratedHand(steps, sorted(seats), button, dealt)
