"""Zones: where a card can lie, and which antennas feed which zone.

Zone names are ``seat:1`` .. ``seat:10``, ``board``, ``burn`` and ``muck``. Several antennas
may feed one zone (a long board, a muck that spans two pads); one antenna feeds one zone.

>>> zm = ZoneMap.from_mapping({"1": "seat:1", "2": "seat:2", "11": "board", "12": "board"})
>>> zm.zone(12)
'board'
>>> zm.antennas_of("board")
(11, 12)
>>> ZoneMap.from_mapping({"9" * 5000: "board"})
Traceback (most recent call last):
...
controller.zones.ZoneError: antenna '9999999999999999999999999999999... (5000 characters)' out of range 1..255
"""

from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Mapping

from controller.text import shorten

COMMON_ZONES = ("board", "burn", "muck")
SEAT_ZONES = tuple(f"seat:{n}" for n in range(1, 11))
ALL_ZONES = SEAT_ZONES + COMMON_ZONES


class ZoneError(ValueError):
    pass


def check_zone(name: str) -> str:
    if name not in ALL_ZONES:
        raise ZoneError(f"unknown zone {shorten(name)} (zones: seat:1..seat:10, board, burn, muck)")
    return name


def seat_of(zone: str) -> int | None:
    """The seat number of a seat zone, else None."""
    return int(zone[5:]) if zone.startswith("seat:") else None


@dataclass(frozen=True, slots=True)
class ZoneMap:
    by_antenna: dict[int, str]

    @classmethod
    def from_mapping(cls, mapping: Mapping[object, str]) -> ZoneMap:
        out: dict[int, str] = {}
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
        """The standard table: antennas 1..10 under the seats, 11 board, 12 burn, 13 muck."""
        m = {n: f"seat:{n}" for n in range(1, 11)}
        m.update({11: "board", 12: "burn", 13: "muck"})
        return cls(m)

    def zone(self, antenna: int) -> str | None:
        return self.by_antenna.get(antenna)

    def antennas_of(self, zone: str) -> tuple[int, ...]:
        return tuple(sorted(a for a, z in self.by_antenna.items() if z == zone))

    def antenna_mask(self) -> int:
        mask = 0
        for a in self.by_antenna:
            if a <= 64:
                mask |= 1 << (a - 1)
        return mask
