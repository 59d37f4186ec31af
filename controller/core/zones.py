"""Zones: where a card can lie, and which antennas feed which zone.

A zone is a :class:`Zone`: ``seat:1`` .. ``seat:10``, ``board``, ``burn``, ``muck`` and ``stub``
(the stub spot, STUB-006: the cards not dealt, dropped there once the last card is out, on a
table that has an antenna under it; they are no card of the hand's). Its
members are strings, so the wire, the records and the journal keep the same names; the core
asks a zone's seat of :func:`seat_of` (a zone read back from a state is a plain string, and
:func:`seat_of` takes both). Several antennas may feed one zone (a long board, a muck that
spans two pads); one antenna feeds one zone.

>>> zm = ZoneMap.from_mapping({"1": "seat:1", "2": "seat:2", "11": "board", "12": "board"})
>>> zm.zone(12) is Zone.BOARD, zm.zone(2).seat, seat_of("seat:10"), seat_of("muck")
(True, 2, 10, None)
>>> zm.zone(12) == "board", f"{zm.zone(1)}"
(True, 'seat:1')
>>> zm.antennas_of("board")
(11, 12)
>>> ZoneMap.from_mapping({"9" * 5000: "board"})
Traceback (most recent call last):
...
controller.core.zones.ZoneError: antenna '9999999999999999999999999999999... (5000 characters)' out of range 1..255
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping
from enum import StrEnum

from controller.core.text import shorten


class Zone(StrEnum):
    """Where a card can lie on the table."""

    SEAT_1 = "seat:1"
    SEAT_2 = "seat:2"
    SEAT_3 = "seat:3"
    SEAT_4 = "seat:4"
    SEAT_5 = "seat:5"
    SEAT_6 = "seat:6"
    SEAT_7 = "seat:7"
    SEAT_8 = "seat:8"
    SEAT_9 = "seat:9"
    SEAT_10 = "seat:10"
    BOARD = "board"
    BURN = "burn"
    MUCK = "muck"
    STUB = "stub"  # the stub spot (STUB-006): only where the antenna map has one

    def __repr__(self) -> str:
        return repr(self._value_)  # shown as its name, as records and the wire show it

    @property
    def seat(self) -> int | None:
        """The seat a seat zone is under, else None."""
        return _SEAT_OF.get(self)

    @classmethod
    def of_seat(cls, seat: int) -> Zone:
        """The zone of seat ``seat`` (1 to 10)."""
        return _SEAT_ZONE[seat]


SEAT_ZONES: tuple[Zone, ...] = tuple(z for z in Zone if z.name.startswith("SEAT_"))
COMMON_ZONES: tuple[Zone, ...] = (Zone.BOARD, Zone.BURN, Zone.MUCK)
ALL_ZONES: tuple[Zone, ...] = SEAT_ZONES + COMMON_ZONES + (Zone.STUB,)
_SEAT_OF: dict[str, int] = {z.value: n for n, z in enumerate(SEAT_ZONES, 1)}
_SEAT_ZONE: dict[int, Zone] = {n: z for n, z in enumerate(SEAT_ZONES, 1)}


class ZoneError(ValueError):
    pass


def check_zone(name: str) -> Zone:
    if name not in _BY_NAME:
        raise ZoneError(f"unknown zone {shorten(name)} (zones: seat:1..seat:10, board, burn, muck, stub)")
    return _BY_NAME[name]


_BY_NAME: dict[str, Zone] = {z.value: z for z in Zone}


def seat_of(zone: str | None) -> int | None:
    """The seat number of a seat zone (a :class:`Zone` or its name), else None."""
    return _SEAT_OF.get(zone) if zone is not None else None


def seat_zone(seat: int) -> Zone:
    """The zone of a seat: ``seat_zone(3)`` is ``Zone.SEAT_3``."""
    return _SEAT_ZONE[seat]


@dataclass(frozen=True, slots=True, repr=False)
class ZoneMap:
    by_antenna: dict[int, Zone]

    def __repr__(self) -> str:
        # the names, as before zones were a type: the configuration's fingerprint
        # (controller.core.state.settings_key) stays the same, and so do the states it keys
        return f"ZoneMap(by_antenna={ {a: z.value for a, z in self.by_antenna.items()}!r})"

    @classmethod
    def from_mapping(cls, mapping: Mapping[object, str]) -> ZoneMap:
        out: dict[int, Zone] = {}
        for key, zone in mapping.items():
            text = str(key) if isinstance(key, (str, int)) and not isinstance(key, bool) else ""
            # ASCII digits only, and few of them: int() would take "1_0", " 7" or "٣", and refuses
            # 5,000 digits with a ValueError of its own; the key is quoted short, never whole
            if not (text.isascii() and text.isdigit()):
                raise ZoneError(f"antenna {shorten(key)} is not a number (antennas are numbered 1 to 255)")
            if len(text) > 3:
                raise ZoneError(f"antenna {shorten(text)} out of range 1..255")
            ant = int(text)
            if not 1 <= ant <= 255:
                raise ZoneError(f"antenna {ant} out of range 1..255")
            out[ant] = check_zone(zone)
        return cls(out)

    @classmethod
    def default(cls) -> ZoneMap:
        """The standard table: antennas 1..10 under the seats, 11 board, 12 burn, 13 muck (no
        stub spot: a table with one names it in its map, ``14 = "stub"``)."""
        m = dict(_SEAT_ZONE)
        m.update({11: Zone.BOARD, 12: Zone.BURN, 13: Zone.MUCK})
        return cls(m)

    def zone(self, antenna: int) -> Zone | None:
        return self.by_antenna.get(antenna)

    def antennas_of(self, zone: str) -> tuple[int, ...]:
        return tuple(sorted(a for a, z in self.by_antenna.items() if z == zone))

    @property
    def has_stub_spot(self) -> bool:
        """An antenna feeds the stub spot (STUB-006): the stub is read, not counted by hand.

        >>> ZoneMap.default().has_stub_spot, ZoneMap.from_mapping({"14": "stub"}).has_stub_spot
        (False, True)
        """
        return Zone.STUB in self.by_antenna.values()

    def antenna_mask(self) -> int:
        mask = 0
        for a in self.by_antenna:
            if a <= 64:
                mask |= 1 << (a - 1)
        return mask
