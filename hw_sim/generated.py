"""What the random-hand generators of the stud and draw games give (``hw_sim.random_stud``,
``hw_sim.random_draw``): a hand's deal-script steps, and the prompts the dealer should get,
worked out by the generator's own oracle (``hw_sim.stud_oracle``), never by the daemon."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GeneratedHand:
    """One clean random hand.

    ``steps``: deal-script steps (JSON dicts) ending with ``{"end": true}``; ``seats``: the seats
    at the table (a draw game's over-full table lists the seats that sit out too); ``button``:
    the button's seat, or in stud the dealer's position; ``dealt``: the seats dealt in, in
    dealing order; ``expect``: the prompts the hand must give, each a dict with ``rule`` and
    what identifies it (``seat``, ``street``, ``round``, ...), in the order they fall due.
    """

    steps: list[dict[str, Any]]
    seats: list[int]
    button: int
    dealt: list[int]
    expect: list[dict[str, Any]] = field(default_factory=list)

    def hand(self, game: str | None = None) -> dict[str, Any]:
        """The script hand: ``{"seats", "button", "steps"}`` (and ``game``, when given)."""
        out: dict[str, Any] = {"seats": list(self.seats), "button": self.button}
        if game is not None:
            out["game"] = game
        out["steps"] = self.steps
        return out


def folds(rng: random.Random, live: list[int], chance: float) -> list[int]:
    """A betting round's folds, in turn: each live seat folds with ``chance``, never the last
    one. ``live`` loses the seats that folded; they are returned in order."""
    gone = []
    for seat in list(live):
        if len(live) > 1 and rng.random() < chance:
            live.remove(seat)
            gone.append(seat)
    return gone
