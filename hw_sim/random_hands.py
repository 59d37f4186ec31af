"""Random clean hands for the demo and the test suite, as deal-script steps (JSON dicts).

Each hand is clean and legal:

- the cards come off a freshly shuffled 52-card deck (``rng.shuffle``), from the top of the
  stub down, in the order they are pitched, never one twice;
- hole cards one at a time, clockwise (seat numbers increasing, 10 wrapping to 1, over the seats
  dealt in), from the first seat left of the button (DEAL-001; heads-up that is the non-button
  seat, DEAL-002), until each seat has 2 (hold'em) or 4 (Omaha);
- before the flop, the turn and the river a betting round in which some seats may fold
  (``{"muck": "seat:N"}``), never the last live one; when only one seat is left no more board
  cards come; each street is a burn and then 3, 1, 1 board cards (BURN-001); after the river a
  last betting round may fold some more; then ``{"end": true}``.

The button need not be dealt in (a dead button, DEAL-005): dealing starts at the first seat
dealt in clockwise from it.

>>> import random
>>> steps = random_hand_steps(random.Random(1), game="holdem", seats=[2, 5, 9], button=5)
>>> [s["to"] for s in steps[:6]]
['seat:9', 'seat:2', 'seat:5', 'seat:9', 'seat:2', 'seat:5']
>>> steps[-1]
{'end': True}
>>> script = random_script(5, hands=2, seats=[1, 4, 6])
>>> [(h["seats"], h["button"]) for h in script["hands"]]  # the button moves on (DEAL-004)
[([1, 4, 6], 6), ([1, 4, 6], 1)]
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from controller.cards import FULL_DECK
from controller.settings import deal_order, next_button

#: game -> hole cards per seat (the flop games a deal script knows)
HOLE_CARDS = {"holdem": 2, "omaha": 4}
#: board cards per street after the hole cards: flop, turn, river
STREETS = (3, 1, 1)


def random_hand_steps(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                      fold_chance: float = 0.25) -> list[dict[str, Any]]:
    """The steps of one clean hand, ending with ``{"end": true}``.

    ``seats``: 2 to 10 different seats 1..10; ``button``: any seat 1..10. ``fold_chance``: the
    chance that a live seat folds in a betting round.
    """
    if game not in HOLE_CARDS:
        raise ValueError(f"game {game!r} is not supported (games: {', '.join(HOLE_CARDS)})")
    if len(set(seats)) != len(seats) or not 2 <= len(seats) <= 10 or not all(1 <= s <= 10 for s in seats):
        raise ValueError(f"seats must be 2 to 10 different seats 1 to 10, got {list(seats)}")
    if not 1 <= button <= 10:
        raise ValueError(f"button must be a seat 1 to 10, got {button}")
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    stub = iter(deck)  # deck[0] is the top of the stub
    order = deal_order(list(seats), button)
    steps: list[dict[str, Any]] = []
    # DEAL-001/002: one card at a time, clockwise from left of the button, round by round.
    for _ in range(HOLE_CARDS[game]):
        for seat in order:
            steps.append({"deal": next(stub), "to": f"seat:{seat}"})
    live = list(order)

    def betting_round() -> None:
        for seat in list(live):
            if len(live) > 1 and rng.random() < fold_chance:
                live.remove(seat)
                steps.append({"muck": f"seat:{seat}"})

    for street in STREETS:
        betting_round()
        if len(live) < 2:
            break  # the hand is won: no more board cards
        steps.append({"deal": next(stub), "to": "burn"})  # BURN-001: a burn before each street
        for _ in range(street):
            steps.append({"deal": next(stub), "to": "board"})
    else:
        betting_round()  # the river's betting
    steps.append({"end": True})
    return steps


def _random_seats(rng: random.Random) -> list[int]:
    return sorted(rng.sample(range(1, 11), rng.randint(2, 10)))


def random_script(seed: int, *, hands: int, game: str = "holdem", seats: Sequence[int] | None = None,
                  noise: dict[str, Any] | None = None, vary_seats: bool = False) -> dict[str, Any]:
    """A whole script (a dict, deal-script.md) of ``hands`` clean hands, from ``seed``.

    Fixed seats (``seats``, or 2 to 10 random ones): the first button is one of them at random
    and moves to the next seat clockwise after each hand (DEAL-004). ``vary_seats``: every hand
    gets its own 2 to 10 seats and button (now and then a dead button, not dealt in). Every hand
    names its ``seats`` and ``button`` either way, so the script describes itself; the top-level
    ``seats`` and ``button`` are the first hand's. ``noise`` defaults to ``{"seed": seed}``.
    """
    if hands < 1:
        raise ValueError("a script has at least one hand")
    rng = random.Random(seed)
    fixed = sorted(seats) if seats is not None else _random_seats(rng)
    button = rng.choice(fixed)
    out = []
    for _ in range(hands):
        if vary_seats:
            hand_seats = _random_seats(rng)
            hand_button = rng.randint(1, 10)
            while hand_button not in hand_seats and rng.random() < 0.7:  # now and then a dead button
                hand_button = rng.randint(1, 10)
        else:
            hand_seats, hand_button = list(fixed), button
            button = next_button(fixed, button)
        out.append({"seats": hand_seats, "button": hand_button,
                    "steps": random_hand_steps(rng, game=game, seats=hand_seats, button=hand_button)})
    first = out[0]
    return {"format": 1, "game": game, "seats": first["seats"], "button": first["button"],
            "noise": noise if noise is not None else {"seed": seed}, "hands": out}
