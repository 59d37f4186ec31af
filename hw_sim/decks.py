"""The simulated table's decks: deterministic tag UIDs for decks ``A`` and ``B``.

Real decks come with whatever UIDs their tags were made with and are registered by
reading them (see ``controller.core.registry``). The simulator needs UIDs it can name
without a registration run, so each simulated deck's tags follow one pattern: an NXP
ISO 15693 UID (``E0 04``), a fixed serial prefix, the deck's index and the card's
position in the set-up order (DECK-008).

>>> sim_uid("A", "As")
'E0040150A05F0000'
>>> sim_uid("B", "Kd")
'E0040150A05F0133'
>>> card_of_uid("E0040150A05F0133")
('B', 'Kd')
"""

from __future__ import annotations

from controller.core.cards import parse_card, setup_order

DECK_IDS = ("A", "B")
DECK_BACKS = {"A": "red", "B": "blue"}
_PREFIX = "E0040150A05F"
_ORDER = setup_order()
_INDEX = {card: i for i, card in enumerate(_ORDER)}


def sim_uid(deck_id: str, card: str) -> str:
    """The 16-hex-digit UID of ``card`` in simulated deck ``deck_id``."""
    d = DECK_IDS.index(deck_id)
    return f"{_PREFIX}{d:02X}{_INDEX[parse_card(card)]:02X}"


def card_of_uid(uid: str) -> tuple[str, str] | None:
    """``(deck_id, card)`` for a simulated deck's UID, or None for any other tag."""
    uid = uid.upper()
    if len(uid) != 16 or not uid.startswith(_PREFIX):
        return None
    d, i = int(uid[12:14], 16), int(uid[14:16], 16)
    if d >= len(DECK_IDS) or i >= 52:
        return None
    return DECK_IDS[d], _ORDER[i]


def manifest_text(deck_id: str) -> str:
    """A deck manifest (``controller.core.registry`` format) for simulated deck ``deck_id``."""
    lines = [f"# simulated deck {deck_id}, back {DECK_BACKS[deck_id]}, in set-up order (top first)"]
    lines += [f"{sim_uid(deck_id, c)} {c}" for c in _ORDER]
    return "\n".join(lines) + "\n"
