"""Stub counts (STUB-001 to STUB-004): when the dealer counts, and what the stub must hold.

The dealer counts the stub on a hand that reached the river, counting up from the cards out
(STUB-003): nine-handed hold'em has 18 hole cards + 3 burns + 5 board = 26 out, so the stub
must hold 26. The daemon asks for a count on the first hand dealt at the table, unless a new
deck was just introduced (STUB-001), and at least once in every dealer's down (STUB-002). A
shuffler that reads every deck it shuffles counts for the dealer (STUB-005).

>>> stub_arithmetic(players=9, hole=18, burns=3, board=5)
'9 players: 18 hole cards + 3 burns + 5 board = 26 out; the stub must hold 26'
>>> expected_out(hole_cards=4, players=9)  # Omaha, nine-handed: the stub holds 8
44

STUB-006: where an antenna lies under the stub spot, the stub dropped there once the last card is
out is read, and so counted, every hand: the tags read there against the cards of the deck not
out (:func:`stub_read`), and no stub read within ``STUB_DROP_S`` of the last card is a prompt
(:func:`not_dropped`). A table without the antenna keeps the count above.

>>> stub_read(26, ["Qh"], []).message
'the stub spot read 25 cards; the stub must hold 26: missing Qh'
>>> not_dropped().code
'stub.not_dropped'
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.games import HOLDEM
from controller.core.rules import Finding

DECK_SIZE = 52


def stub_arithmetic(*, players: int, hole: int, burns: int, board: int) -> str:
    """The count as the dealer makes it, from the cards out up to 52."""
    out = hole + burns + board
    return (f"{players} players: {hole} hole cards + {burns} burns + {board} board = {out} out; "
            f"the stub must hold {DECK_SIZE - out}")


def expected_out(*, hole_cards: int, players: int, burns: int = HOLDEM.burns, board: int = HOLDEM.board_total) -> int:
    """Cards out on a flop-game hand that reached the river (STUB-003): 2n + 8 in hold'em,
    4n + 8 in Omaha (any game: :meth:`controller.core.games.Game.cards_out`)."""
    return hole_cards * players + burns + board


@dataclass
class StubCounts:
    """Whether this down's stub has been counted, and when to ask for a count.

    A down is one dealer's time at the table; ``relief`` starts the next (STUB-002).
    """

    down: int = 1
    counted: bool = False  # counted in this down (by the dealer, or by the shuffler)
    skip_hand: int | None = None  # the first hand on a new deck needs no count (STUB-001)
    asked: int | None = None  # the hand a count was asked on, until the dealer answers
    first_hand: int | None = None  # the first hand dealt at the table

    def relief(self) -> None:
        self.down += 1
        self.counted = False
        self.asked = None

    def new_deck(self, next_hand: int) -> None:
        self.skip_hand = next_hand

    def due(self, hand: int) -> bool:
        """A hand reached the river: should the dealer count the stub now?"""
        if self.first_hand is None:
            self.first_hand = hand
        return not self.counted and self.asked != hand and hand != self.skip_hand

    def ask(self, hand: int, *, players: int, hole: int, burns: int, board: int) -> Finding:
        self.asked = hand
        rule = "STUB-001" if hand == self.first_hand else "STUB-002"
        return Finding("stub.count_due", rule, "count the stub: " + stub_arithmetic(
            players=players, hole=hole, burns=burns, board=board))

    def answered(self) -> None:
        """The dealer counted (``ack``: right; ``stub_wrong``: a sticky deck), or a shuffler
        count of the deck in play did it."""
        self.counted = True
        self.asked = None


def not_dropped() -> Finding:
    """STUB-006, the dealer's: the last card is out and no stub lies on the stub spot."""
    return Finding("stub.not_dropped", "STUB-006",
                   "drop the stub: the last card is out; put it down on its spot, spread, the cut card on top")


def stub_read(expected: int, missing: list[str], extra: list[str]) -> Finding:
    """STUB-006, the floor's: the stub spot read other cards than the stub must hold
    (``expected`` cards): ``missing`` and ``extra``, named (STUB-004 follows: a new setup)."""
    read = expected - len(missing) + len(extra)
    parts = ([f"missing {' '.join(missing)}"] if missing else []) + ([f"extra {' '.join(extra)}"] if extra else [])
    return Finding("stub.read_wrong", "STUB-006",
                   f"the stub spot read {read} cards; the stub must hold {expected}: {'; '.join(parts)}",
                   audience="floor")
