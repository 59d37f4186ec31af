"""Playing cards: parsing, formatting and the deck set-up order.

Cards are written rank then suit, ``T`` for ten: ``As Kd Th 9c 2s``. A card is kept as a
short string in that canonical form; strings are hashable, cheap to compare and print
as themselves, which matters on the path every RFID read takes.

>>> parse_card("td")
'Td'
>>> setup_order()[:3]
['As', '2s', '3s']
>>> len(FULL_DECK)
52
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "shdc"  # spades, hearts, diamonds, clubs
SUIT_NAMES = {"s": "spades", "h": "hearts", "d": "diamonds", "c": "clubs"}

#: Every card once, in no particular order that matters (spades, hearts, diamonds, clubs).
FULL_DECK: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
_CARD_SET = frozenset(FULL_DECK)


class CardError(ValueError):
    """A string that is not a card."""


def parse_card(text: str) -> str:
    """Return the canonical form of ``text`` (``"td"`` -> ``"Td"``, ``"10h"`` -> ``"Th"``).

    Raises :class:`CardError` naming the text when it is not a card.
    """
    t = text.strip()
    if len(t) == 3 and t[:2] == "10":
        t = "T" + t[2]
    if len(t) != 2:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. 'As', 'Td', '7h')")
    card = t[0].upper() + t[1].lower()
    if card not in _CARD_SET:
        raise CardError(f"not a card: {text!r} (ranks {RANKS}, suits {SUITS})")
    return card


def is_card(text: str) -> bool:
    """True when ``text`` is already a card in canonical form."""
    return text in _CARD_SET


def setup_order() -> list[str]:
    """The 52 cards of a deck in its set-up order, read from the top of the deck down.

    DECK-008 (seeds 002 §RESETTING THE DECK): from the bottom up the suits run diamonds,
    clubs, hearts, spades, and within each suit the king is at the bottom and the ace on
    top. Read from the top down that is A..K of spades, then hearts, clubs, diamonds; a
    deck is registered by reading its cards in this order over one antenna.
    """
    order = []
    for suit in "shcd":
        for rank in RANKS:  # A, 2, ... K: ace on top, king at the bottom of the suit
            order.append(rank + suit)
    return order

#: the suits from the lowest (docs/rules.md, SUIT_ORDER: ♠ > ♥ > ♦ > ♣): the draw for the button
#: (DEAL-011), the stud bring-in and the odd chip
SUIT_ORDER = "cdhs"
