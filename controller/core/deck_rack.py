"""The table's pair of decks: which one is in play, which is the spare, which may not be dealt.

A table holds two decks of different backs (DECK-004, DECK-005), ``A`` and ``B``. One is in
play, the other is the spare. They change places at each dealer relief (RELIEF-001), at every
hand when the house alternates them (SHUF-007, ``rotate = "hand"``), or when the dealer brings
the spare in for a reason the guides allow (RELIEF-002). A deck that fails a count is blocked:
it must not be dealt until a count finds it whole again. Every change is logged with its reason.

>>> rack = DeckRack(("A", "B"), "A")
>>> rack.spare
'B'
>>> rack.change("relief", ts=10.0, hand=4).new
'B'
>>> rack.block("A", "deck A: 51 of 52, missing 7h"); rack.usable("A")
False
>>> rack.change("relief", ts=20.0, hand=9) is None  # the spare is blocked: nothing to change to
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Sequence

ROTATIONS = ("relief", "hand")


@dataclass(frozen=True, slots=True)
class DeckChange:
    """One deck change (RELIEF-002): ``old`` out, ``new`` in, before hand ``hand``."""

    ts: float
    hand: int
    old: str | None
    new: str
    reason: str


@dataclass
class DeckRack:
    """The pair of decks and their state. Pure; the table drives it."""

    pair: tuple[str, ...]
    in_play: str | None
    rotate: str = "relief"
    blocked: dict[str, str] = field(default_factory=dict)  # deck -> why it may not be dealt
    retired: set[str] = field(default_factory=set)  # decks taken off the table for good
    verified: set[str] = field(default_factory=set)  # decks a count has found whole
    #: deck -> UIDs a count found missing: one seen again was held out (STUB-005)
    missing: dict[str, set[str]] = field(default_factory=dict)
    changes: list[DeckChange] = field(default_factory=list)
    #: the deck in play before the last change, until a hand is dealt: a hand dealt from it
    #: means the dealer did not switch (RELIEF-001, SHUF-007)
    previous: str | None = None
    last_reason: str | None = None

    def __post_init__(self) -> None:
        if self.rotate not in ROTATIONS:
            raise ValueError(f"rotate: want one of {', '.join(ROTATIONS)}, got {self.rotate!r}")

    @property
    def spare(self) -> str | None:
        return next((d for d in self.pair if d != self.in_play), None)

    def usable(self, deck: str | None) -> bool:
        return deck is not None and deck in self.pair and deck not in self.blocked

    def change(self, reason: str, *, ts: float, hand: int, to: str | None = None) -> DeckChange | None:
        """Bring the spare (or ``to``) into play for ``reason``; None if there is none usable."""
        new = to if to is not None else self.spare
        if new is None or new == self.in_play or not self.usable(new):
            return None
        ch = DeckChange(ts, hand, self.in_play, new, reason)
        self.previous, self.in_play, self.last_reason = self.in_play, new, reason
        if reason != "rotation":  # the alternation of every hand is not a change to log
            self.changes.append(ch)
        return ch

    def dealt(self, deck: str) -> None:
        """A hand is being dealt from ``deck``: the switch, if one was due, is settled."""
        self.previous = None
        if deck in self.pair and deck != self.in_play and self.usable(deck):
            self.in_play = deck

    def block(self, deck: str, why: str) -> None:
        self.blocked[deck] = why

    def found_whole(self, deck: str) -> None:
        """A count found ``deck`` whole: it may be dealt again."""
        self.blocked.pop(deck, None)
        self.missing.pop(deck, None)
        self.verified.add(deck)

    def state(self) -> dict[str, object]:
        """For the snapshot and the floor: which deck is where (no card identities)."""
        return {"in_play": self.in_play, "spare": self.spare, "blocked": dict(self.blocked),
                "retired": sorted(self.retired), "verified": sorted(self.verified), "rotate": self.rotate}


def pair_of(deck_ids: Sequence[str], in_play: str | None) -> tuple[str, ...]:
    """The pair the table plays: the deck in play first."""
    ids = list(deck_ids)
    if in_play in ids:
        ids.remove(in_play)
        ids.insert(0, in_play)
    return tuple(ids[:2])
