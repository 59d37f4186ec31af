"""Deck integrity: counting a deck read whole (DECK-001/002/007, STUB-004/005).

A deck is counted whenever something reads it whole: the shuffler's deck report (every shuffle
cycle is a count, STUB-005) or a dealer's stub count. The count names every card that is
missing, every tag that is not of the deck (a card of the other deck, of a retired deck, of no
deck at all) and every tag read twice (a cloned tag: one UID on two physical cards).

Everything here is for the floor. The dealer only ever hears :data:`NEW_SETUP`: the guides have
the dealer switch decks quietly and tell the floor the cards are "sticky" (STUB-004), so no
prompt at the table may say that the deck is short or foul.

>>> from controller.core.registry import Deck, DeckRegistry
>>> from hw_sim.decks import sim_uid
>>> from controller.core.cards import setup_order
>>> reg = DeckRegistry(); reg.add(Deck("A", "red", {sim_uid("A", c): c for c in setup_order()}))
>>> uids = [sim_uid("A", c) for c in setup_order() if c != "7h"] + ["E0040150A05F02B7"]
>>> c = count_deck(uids, reg)
>>> c.deck, c.count, c.missing, c.foreign, c.ok
('A', 52, ('7h',), ('tag:E0040150A05F02B7',), False)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from collections.abc import Collection, Iterable

from controller.core.cards import setup_order
from controller.core.registry import DeckRegistry
from controller.core.rules import Finding

DECK_SIZE = 52

#: the one deck prompt the dealer gets (amber, no buzzer): neutral words a player may read
NEW_SETUP = "new setup"


@dataclass(frozen=True, slots=True)
class DeckCount:
    """What one whole read of a deck found."""

    deck: str | None  # the deck most of the tags belong to (None: no registered tag at all)
    count: int  # cards counted
    missing: tuple[str, ...] = ()  # cards of the deck not there (set-up order)
    foreign: tuple[str, ...] = ()  # labels of tags not of the deck: ``As@B``, ``tag:<UID>``
    cloned: tuple[str, ...] = ()  # cards whose tag was read twice
    expected: int = DECK_SIZE

    @property
    def ok(self) -> bool:
        return self.count == self.expected and not (self.missing or self.foreign or self.cloned)

    def summary(self) -> str:
        """``deck A: 51 of 52, missing 7h`` for the floor."""
        parts = [f"deck {self.deck or '?'}: {self.count} of {self.expected}"]
        if self.missing:
            parts.append("missing " + " ".join(self.missing))
        if self.foreign:
            parts.append("not of the deck " + " ".join(self.foreign))
        if self.cloned:
            parts.append("read twice " + " ".join(self.cloned))
        return ", ".join(parts)


def count_deck(uids: Iterable[str], registry: DeckRegistry, *, deck: str | None = None,
               out: Collection[str] = ()) -> DeckCount:
    """Count the tags ``uids`` read from one deck (a report may hold a UID twice).

    ``deck``: the deck they should be (default: the deck most of them belong to). ``out``: UIDs
    of that deck known to be out of the pile (on the table), which are not missing from it: a
    stub count is the deck less the cards out.
    """
    seen = Counter(uids)
    decks = Counter(info.deck for u in seen if (info := registry.lookup(u)) is not None)
    if deck is None and decks:
        deck = max(sorted(decks), key=lambda d: decks[d])
    present: set[str] = set()
    foreign: list[str] = []
    cloned: list[str] = []
    for uid, n in seen.items():
        info = registry.lookup(uid)
        if info is None:
            foreign.append(f"tag:{uid}")
        elif info.deck != deck:
            foreign.append(f"{info.card}@{info.deck}")
        else:
            present.add(info.card)
            if n > 1:
                cloned.append(info.card)
    away = {info.card for u in out if (info := registry.lookup(u)) is not None and info.deck == deck}
    missing = tuple(c for c in setup_order() if c not in present and c not in away) if deck else ()
    return DeckCount(deck=deck, count=sum(seen.values()), missing=missing, foreign=tuple(sorted(foreign)),
                     cloned=_in_order(cloned), expected=DECK_SIZE - len(away))


def _in_order(cards: Iterable[str]) -> tuple[str, ...]:
    rank = {c: i for i, c in enumerate(setup_order())}
    return tuple(sorted(cards, key=rank.__getitem__))


def count_findings(c: DeckCount, *, rule: str, source: str) -> list[Finding]:
    """The floor's findings for a count that failed, one per card so each names its card.

    ``rule`` is DECK-001 (a deck's first check) or STUB-005 (a count of a deck in play);
    ``source`` says who counted (``the shuffler``).
    """
    if c.ok:
        return []
    deck = c.deck or "?"
    out: list[Finding] = []
    for card in c.missing:
        out.append(Finding("deck.missing_card", rule, f"deck {deck}: {card} is missing ({source} counted "
                           f"{c.count} of {c.expected})", audience="floor", card=card))
    for label in c.foreign:
        out.append(Finding("deck.extra_card", "DECK-006", f"deck {deck}: {label} is not of this deck "
                           f"({source})", audience="floor", card=label))
    for card in c.cloned:
        out.append(Finding("deck.cloned_tag", "DECK-007", f"deck {deck}: the tag of {card} was read twice "
                           f"({source}): two cards carry one tag", audience="floor", card=card))
    if not out:  # a count without tag reads
        out.append(Finding("deck.count_wrong", "STUB-004", f"deck {deck}: {source} counted {c.count} cards, "
                           f"not {c.expected}: the deck is sticky", audience="floor"))
    return out


def count_only(n: int, deck: str | None, *, expected: int = DECK_SIZE) -> DeckCount:
    """A count without tag reads (a shuffler that only counts)."""
    return DeckCount(deck=deck, count=n, expected=expected)


def new_setup(rule: str) -> Finding:
    """The dealer's neutral prompt: change to a new setup. Its words never say why: the floor
    has the details, and a player may read the dealer's display."""
    return Finding("deck.new_setup", rule, NEW_SETUP)
