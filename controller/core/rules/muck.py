"""The muck (docs/rules.md: MUCK).

MUCK-001: a fold goes straight to the muck. A card that leaves its seat after the deal and
reaches neither the muck nor another place on the table is waited for ``MUCK_TIMEOUT_S``
(controller/core/table/lapses.py keeps the time); then the dealer is told, without the card
(:func:`card_missing`); still missing as long again, or when the hand ends, the floor is told,
with the card (:func:`card_held_out`): a card may be held out.

>>> card_missing(4).message
'seat 4: a card left the table and reached neither the muck nor another place: muck it, or put it back'
>>> f = card_held_out(4, "Qh", 10.4)
>>> (f.audience, f.card, f.message)  # doctest: +NORMALIZE_WHITESPACE
('floor', 'Qh', "seat 4's Qh left the table 10 s ago and reached neither the muck nor another place:
 a card may be held out")

MUCK-002: a card that leaves the muck back to a seat. RFID proves identity: if the cards are
the seat's own, ``MUCK_RETRIEVAL`` says what follows (never: the floor is told it happened;
floor: the floor is told the identity is verified and decides; dealer: logged only). A card
that was another seat's is a swap: the floor is told whatever the setting.

>>> from controller.core.hand import Hand
>>> h = Hand(1, "holdem", 2, (1, 2), 2, 0.0)
>>> h.first_seat["U1"] = 1
>>> retrieved(h, "U1", "As", 2, "floor").code
'muck.card_swap'
>>> retrieved(h, "U1", "As", 1, "dealer") is None
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.core.rules import Finding

if TYPE_CHECKING:  # (the hand module runs these rules: a type here, no import at run time)
    from controller.core.hand import Hand


def retrieved(hand: Hand, uid: str, label: str, seat: int, setting: str) -> Finding | None:
    """A card went from the muck to ``seat``. ``setting`` is ``MUCK_RETRIEVAL``."""
    dealt = hand.first_seat.get(uid)
    if dealt != seat:
        whose = f"it was dealt to seat {dealt}" if dealt is not None else "it was never dealt to a seat"
        return Finding("muck.card_swap", "MUCK-002",
                       f"{label} came out of the muck to seat {seat}; {whose}: possible card swap",
                       seat, audience="floor", card=label)
    if setting == "never":
        return Finding("muck.retrieved", "MUCK-002",
                       f"seat {seat} took its cards back out of the muck; house rule: a mucked hand is dead",
                       seat, audience="floor")
    if setting == "floor":
        return Finding("muck.retrieved", "MUCK-002",
                       f"seat {seat}'s cards came back out of the muck; identity verified by RFID "
                       f"(its own cards): floor decision", seat, audience="floor")
    return None


def card_missing(seat: int) -> Finding:
    """MUCK-001, the dealer's: a card of ``seat`` off the table, arrived nowhere, for
    ``MUCK_TIMEOUT_S``. No card is named: the dealer's words are seen at the table."""
    return Finding("muck.card_missing", "MUCK-001",
                   f"seat {seat}: a card left the table and reached neither the muck nor another place: "
                   f"muck it, or put it back", seat)


def card_held_out(seat: int, card: str, seconds: float | None) -> Finding:
    """MUCK-001, the floor's: ``card`` of ``seat`` still missing ``seconds`` after it left the
    table (None: when the hand ended)."""
    when = f"{seconds:.0f} s ago" if seconds is not None else "before the hand ended"
    return Finding("muck.card_held_out", "MUCK-001",
                   f"seat {seat}'s {card} left the table {when} and reached neither the muck nor another "
                   f"place: a card may be held out", seat, audience="floor", card=card)
