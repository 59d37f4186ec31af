"""Random clean hands of the draw games, as deal-script steps, with the prompts they must give
(``GeneratedHand.expect``).

The games (DRAW-001 and the 001 guide's sections; :data:`DRAW_TEMPLATES`):

| game | cards | draws | most players |
|---|---|---|---|
| ``draw27_single`` (2-7 single draw) | 5 | 1 | 7 |
| ``draw5`` (five-card draw) | 5 | 1 | 7 (the guides give none: as single-draw lowball) |
| ``draw27_triple``, ``draw_a5_triple`` (triple draw) | 5 | 3 | 6 |
| ``badugi`` | 4 | 3 | 8 |
| ``badeucy``, ``badacey`` (BADUCI, ADUCI: 5-card triple draws) | 5 | 3 | 6 (the guides give none: as triple draw) |

The deal: from a freshly shuffled 52-card deck, one card at a time clockwise from the small
blind (the first seat left of the button; heads-up the big blind, DEAL-002), until each player
has the game's cards. An **over-full table** (DRAW-002) seats up to two more than the game's
maximum: the seats directly left of the big blind (under the gun, then the next) sit the hand
out and get no card; ``seats`` lists them, ``dealt`` does not.

Each draw round (DRAW-004): a betting round that may fold some seats (``{"muck": "seat:N"}``);
each live player, in turn, discards some cards (``{"discard": [...], "from": "seat:N"}``, none
when standing pat); the dealer's tap (``{"press": "round_done"}``); one burn, even when all
stand pat; then each player in turn gets as many cards as discarded, one after the other. A last
betting round, then ``{"end": true}``.

**Running out of cards** (DRAW-005): the bottom card of a stub is never dealt. When the draw
needs that card or more, the dealer deals down to the stub's last card, gathers that card and
the discards of *earlier* rounds (never the burns, never this round's discards) into a new stub
(``{"restub": [...]}``, shuffled) and deals the rest from it without another burn. The
generator draws no more cards than that can give, and leaves a later round a stub of two cards
at least (its burn and a bottom card). The prompt expected: ``{"rule": "DRAW-005", "round": r,
"short_by": k}``, ``k`` the cards the draw needs beyond the stub less its bottom card.

>>> h = random_draw_hand(random.Random(1), game="draw27_triple", seats=[1, 2, 3, 4, 5, 6, 7, 8],
...                      button=8, fold_chance=0, discard_weights=(0, 0, 0, 0, 0, 1))
>>> h.dealt   # over-full by two: 1 and 2 are the blinds, 3 and 4 sit out (DRAW-002)
[1, 2, 5, 6, 7, 8]
>>> h.expect  # 22 cards left: 19 drawn in round 1 (2 kept for round 2), then the stub runs out
[{'rule': 'DRAW-005', 'round': 2, 'short_by': 18}, {'rule': 'DRAW-005', 'round': 3, 'short_by': 18}]
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any
from collections.abc import Sequence

from controller.core.cards import FULL_DECK
from controller.core.settings import deal_order
from hw_sim.generated import GeneratedHand, folds


@dataclass(frozen=True, slots=True)
class DrawTemplate:
    cards: int
    draws: int
    max_players: int


DRAW_TEMPLATES: dict[str, DrawTemplate] = {
    "draw27_single": DrawTemplate(5, 1, 7),
    "draw5": DrawTemplate(5, 1, 7),
    "draw27_triple": DrawTemplate(5, 3, 6),
    "draw_a5_triple": DrawTemplate(5, 3, 6),
    "badugi": DrawTemplate(4, 3, 8),
    "badeucy": DrawTemplate(5, 3, 6),
    "badacey": DrawTemplate(5, 3, 6),
}
#: the most players who sit a hand out at an over-full table (UTG, then the next: DRAW-002)
MAX_SITTING_OUT = 2
#: default chances of discarding 0, 1, 2, ... cards
DISCARD_WEIGHTS = (4, 4, 4, 3, 1, 1)


def sitting_out(seats: Sequence[int], button: int, max_players: int) -> list[int]:
    """The seats that sit the hand out at an over-full table (DRAW-002): walking clockwise from
    the button, past the small and the big blind, the next ones, as many as the table is over.

    >>> sitting_out([1, 2, 3, 4, 5, 6, 7], 7, 6), sitting_out([2, 4, 6, 8, 9, 10, 1], 9, 6)
    ([3], [2])
    """
    ring = sorted(seats)
    at = ring.index(button)
    over = len(ring) - max_players
    return [ring[(at + 3 + i) % len(ring)] for i in range(max(0, over))]


def _template(game: str, seats: Sequence[int], button: int) -> DrawTemplate:
    """The game's template, once the seats and the button are checked against it."""
    if game not in DRAW_TEMPLATES:
        raise ValueError(f"not a draw game: {game!r} (games: {', '.join(DRAW_TEMPLATES)})")
    t = DRAW_TEMPLATES[game]
    most = min(10, t.max_players + MAX_SITTING_OUT)
    if len(set(seats)) != len(seats) or not 2 <= len(seats) <= most or not all(1 <= s <= 10 for s in seats):
        raise ValueError(f"{game} seats 2 to {most} different seats 1 to 10, got {list(seats)}")
    if button not in seats:
        raise ValueError(f"the button must be one of the seats, got {button}")
    return t


class _DrawDeal:
    """One draw hand as it is dealt: the stub (``stub[0]`` the top), each seat's cards, the
    discards of earlier rounds still in the muck, and the steps and prompts so far."""

    def __init__(self, rng: random.Random, t: DrawTemplate, order: list[int]) -> None:
        self.rng, self.t, self.order = rng, t, order
        self.stub = list(FULL_DECK)
        rng.shuffle(self.stub)
        self.steps: list[dict[str, Any]] = []
        self.expect: list[dict[str, Any]] = []
        self.hands: dict[int, list[str]] = {s: [] for s in order}
        self.earlier: list[str] = []  # discards of earlier rounds still in the muck: the stuff of a new stub

    def deal(self) -> None:
        """The game's cards, one at a time in the dealing order."""
        for _ in range(self.t.cards):
            for seat in self.order:
                self._pitch(seat)

    def _pitch(self, seat: int) -> None:
        self.hands[seat].append(self.stub.pop(0))
        self.steps.append({"deal": self.hands[seat][-1], "to": f"seat:{seat}"})

    def draw_round(self, rnd: int, live: list[int], discard_weights: Sequence[float]) -> None:
        """Draw round ``rnd`` of the ``live`` seats, once its betting is over (DRAW-004)."""
        want = self._wants(live, discard_weights, final=rnd == self.t.draws)
        thrown = self._discards(live, want)
        self.steps.append({"press": "round_done"})
        self.steps.append({"deal": self.stub.pop(0), "to": "burn"})  # DRAW-004: one burn per round, pat or not
        need = sum(want.values())
        if need >= len(self.stub):  # DRAW-005: the draw would take the bottom card
            self.expect.append({"rule": "DRAW-005", "round": rnd, "short_by": need - (len(self.stub) - 1)})
        for seat in live:
            for _ in range(want[seat]):
                if len(self.stub) == 1:  # only the bottom card left: the new stub
                    self._restub()
                self._pitch(seat)
        self.earlier += [c for s in live if s in thrown for c in thrown[s]]

    def _wants(self, live: list[int], discard_weights: Sequence[float], *, final: bool) -> dict[int, int]:
        """How many cards each live seat discards: drawn with the weights, then fewer, a card of a
        seat at a time, until the stub can give them (:func:`_feasible`)."""
        rng = self.rng
        want = {s: rng.choices(range(len(discard_weights)), discard_weights)[0] for s in live}
        want = {s: min(k, self.t.cards) for s, k in want.items()}
        while not _feasible(len(self.stub), sum(want.values()), len(self.earlier), final):
            seat = rng.choice([s for s in live if want[s]])
            want[seat] -= 1
        return want

    def _discards(self, live: list[int], want: dict[int, int]) -> dict[int, list[str]]:
        """Each live seat that draws discards the cards it ``want``s to change, in turn."""
        thrown: dict[int, list[str]] = {}
        for seat in live:
            if want[seat]:
                thrown[seat] = self.rng.sample(self.hands[seat], want[seat])
                self.hands[seat] = [c for c in self.hands[seat] if c not in thrown[seat]]
                self.steps.append({"discard": list(thrown[seat]), "from": f"seat:{seat}"})
        return thrown

    def _restub(self) -> None:
        """DRAW-005: the stub's last card and the earlier discards gathered, shuffled, a new stub."""
        new = self.stub + self.earlier
        self.steps.append({"restub": list(new)})
        self.rng.shuffle(new)
        self.stub[:] = new
        self.earlier = []


def random_draw_hand(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                     fold_chance: float = 0.15,
                     discard_weights: Sequence[float] = DISCARD_WEIGHTS) -> GeneratedHand:
    """One clean draw hand (see the module). ``seats``: 2 to the game's maximum plus
    :data:`MAX_SITTING_OUT` different seats 1..10; ``button``: one of them."""
    t = _template(game, seats, button)
    out = sitting_out(seats, button, t.max_players)
    order = deal_order([s for s in seats if s not in out], button)
    hand = _DrawDeal(rng, t, order)
    hand.deal()
    live = list(order)
    for rnd in range(1, t.draws + 1):
        hand.steps.extend({"muck": f"seat:{s}"} for s in folds(rng, live, fold_chance))
        if len(live) < 2:
            break
        hand.draw_round(rnd, live, discard_weights)
    hand.steps.extend({"muck": f"seat:{s}"} for s in folds(rng, live, fold_chance))
    hand.steps.append({"end": True})
    return GeneratedHand(hand.steps, sorted(seats), button, order, hand.expect)


def _feasible(stub: int, need: int, earlier: int, final: bool) -> bool:
    """Whether a draw of ``need`` cards can be dealt from a stub of ``stub`` cards before its
    burn, with ``earlier`` discards to rebuild it from, leaving a later round two cards."""
    after_burn = stub - 1
    if need <= after_burn - 1:
        left = after_burn - need
    else:
        rest = need - (after_burn - 1)
        if rest > earlier:  # the new stub (the last card and the discards) keeps its bottom card
            return False
        left = 1 + earlier - rest
    return left >= (1 if final else 2)
