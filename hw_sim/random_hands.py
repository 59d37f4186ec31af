"""Random clean hands for the demo and the test suite, as deal-script steps.

Each hand is legal and clean: hole cards one at a time, clockwise from the first seat left of
the button (DEAL-001; heads-up that is the non-button seat, DEAL-002), 2 (hold'em) or 4 (Omaha)
rounds; then a burn before the flop, the turn and the river (BURN-001), with random folds between
streets. A hand stops dealing when one seat is left. Cards come off a freshly shuffled deck.

>>> import random
>>> steps = random_hand_steps(random.Random(1), game="holdem", seats=[2, 5, 9], button=5)
>>> [s["to"] for s in steps[:6]]
['seat:9', 'seat:2', 'seat:5', 'seat:9', 'seat:2', 'seat:5']
"""

from __future__ import annotations

import random
from typing import Any, Sequence

from controller.cards import FULL_DECK
from controller.settings import GAMES, deal_order, next_button


def random_hand_steps(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                      fold_chance: float = 0.25) -> list[dict[str, Any]]:
    """The steps of one clean hand, ending with ``{"end": true}``."""
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    order = deal_order(list(seats), button)
    steps: list[dict[str, Any]] = []
    for _ in range(GAMES[game]):
        for seat in order:
            steps.append({"deal": deck.pop(), "to": f"seat:{seat}"})
    live = list(order)
    for street in (3, 1, 1):
        for seat in list(live):  # the betting round before this street: some fold
            if len(live) > 1 and rng.random() < fold_chance:
                live.remove(seat)
                steps.append({"muck": f"seat:{seat}"})
        if len(live) < 2:
            break
        steps.append({"deal": deck.pop(), "to": "burn"})
        for _ in range(street):
            steps.append({"deal": deck.pop(), "to": "board"})
    steps.append({"end": True})
    return steps


def random_script(seed: int, *, hands: int, game: str = "holdem", seats: Sequence[int] | None = None,
                  noise: dict[str, Any] | None = None, vary_seats: bool = False) -> dict[str, Any]:
    """A whole script of clean hands.

    With fixed seats the button moves to the next seat clockwise after each hand (DEAL-004);
    with ``vary_seats`` every hand gets its own 2 to 10 seats and button. Every hand names its
    seats and button, so the script describes itself.
    """
    rng = random.Random(seed)
    fixed = sorted(seats) if seats is not None else sorted(rng.sample(range(1, 11), rng.randint(2, 10)))
    button = rng.choice(fixed)
    out = []
    for _ in range(hands):
        if vary_seats:
            hand_seats = sorted(rng.sample(range(1, 11), rng.randint(2, 10)))
            hand_button = rng.randint(1, 10)
            while hand_button not in hand_seats and rng.random() < 0.7:  # now and then a dead button
                hand_button = rng.randint(1, 10)
        else:
            hand_seats, hand_button = fixed, button
            button = next_button(fixed, button)
        out.append({"seats": hand_seats, "button": hand_button,
                    "steps": random_hand_steps(rng, game=game, seats=hand_seats, button=hand_button)})
    first = out[0]
    return {"format": 1, "game": game, "seats": first["seats"], "button": first["button"],
            "noise": noise or {"seed": seed}, "hands": out}
