"""Alert and prompt codes: ``family.name`` (``misdeal.seat_skipped``, ``deck.new_setup``).

The code is a string on the wire, in records and in the journal; the family is a type here, so
that the core asks a code's family of :func:`family_of` instead of slicing the string, and a
family that does not exist is an error where the code is made.

>>> family_of("misdeal.seat_skipped") is Family.MISDEAL
True
>>> late_code("misdeal.seat_short")
'late_fault.seat_short'
>>> family_of("poker.face")
Traceback (most recent call last):
...
ValueError: code 'poker.face': 'poker' is no family of codes
"""

from __future__ import annotations

from enum import StrEnum


class Family(StrEnum):
    """The first part of a code: what the alert or prompt is about (docs/rules.md)."""

    def __repr__(self) -> str:
        return repr(self._value_)

    MISDEAL = "misdeal"  # a FLAG: the sensors are sure of a misdeal (MISD)
    LATE_FAULT = "late_fault"  # a misdeal fault found after substantial action (MISD-013)
    DEAL = "deal"
    BURN = "burn"
    BOARD = "board"
    MUCK = "muck"
    DECK = "deck"
    STUB = "stub"
    SHUFFLER = "shuffler"
    DEVICE = "device"
    FLOOR = "floor"


_FAMILIES = {f.value: f for f in Family}


def family_of(code: str) -> Family:
    """The family of ``code``; ValueError naming the code if it has none."""
    head, _, _ = code.partition(".")
    family = _FAMILIES.get(head)
    if family is None:
        raise ValueError(f"code {code!r}: {head!r} is no family of codes")
    return family


def name_of(code: str) -> str:
    """The code's name within its family: ``seat_short`` of ``misdeal.seat_short``."""
    return code.partition(".")[2]


def late_code(code: str) -> str:
    """A misdeal fault's code once substantial action has passed (MISD-013)."""
    return f"{Family.LATE_FAULT}.{name_of(code)}"
