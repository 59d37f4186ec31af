"""The muck (docs/rules.md: MUCK).

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
