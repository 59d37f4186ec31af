"""What the devices hand over: the bridge's own events, in bytes-pins-and-tags terms.

The firmware bridge knows tags, antennas, counts and pins, never cards or rules, and it imports
nothing of the controller (pyproject's import contracts). Each link emits these; the daemon
(``controller/daemon/device_events.py``) turns each into the core's event before it is journalled,
so the journal's rows are the core's as they always were. The console takes :class:`Lights`: what
to light and sound, told by the daemon.

>>> TagCycle(ts=1.0, device="reader", cycle=3, reads=(("E004", 2, 150), ("E004", 2, 170))).heard
{('E004', 2): 170}
>>> Lights(alert="blink_fast", seat=4)
Lights(ready='on', prompt='off', alert='blink_fast', seat=4, buzz='none')
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import itemgetter

_UID_ANT = itemgetter(0, 1)
_RSSI = itemgetter(2)


def merge_reads(reads: Sequence[tuple[str, int, int]]) -> dict[tuple[str, int], int]:
    """``(uid, antenna) -> rssi`` of ``reads``, the strongest where a pair was read twice (a data
    set a reader repeats in one answer is one read).

    >>> merge_reads((("E004", 2, 150), ("E004", 3, 90), ("E004", 2, 170)))
    {('E004', 2): 170, ('E004', 3): 90}
    """
    heard = dict(zip(map(_UID_ANT, reads), map(_RSSI, reads), strict=True))  # (the last read of a pair kept)
    if len(heard) < len(reads):  # a pair read twice: its strongest, not its last
        heard = {}
        for uid, ant, rssi in reads:
            if heard.get((uid, ant), -1) < rssi:
                heard[(uid, ant)] = rssi
    return heard


@dataclass(frozen=True, slots=True)
class TagCycle:
    """One completed inventory cycle of a reader over all its antennas: ``reads`` holds
    ``(uid, antenna, rssi)`` triples (the UID in uppercase hex, the 1-based antenna, the signal
    strength 0..255, larger is stronger), a tag once per antenna that heard it. ``heard`` maps each
    ``(uid, antenna)`` to its strongest signal (:func:`merge_reads`), computed here when left out."""

    ts: float
    device: str
    cycle: int
    reads: tuple[tuple[str, int, int], ...]
    heard: dict[tuple[str, int], int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.heard is None:
            object.__setattr__(self, "heard", merge_reads(self.reads))


@dataclass(frozen=True, slots=True)
class LinkStatus:
    """A device link came up or went down (``online``), with a human-readable ``detail``, and the
    monotonic clock's reading and its boot's id at that moment."""

    ts: float
    device: str
    online: bool
    detail: str = ""
    mono: float | None = None
    boot: str | None = None
    #: a board's zones that see few cards (zone, the most cards it sees at once), from its
    #: handshake, with the status that says it is online (the bridge board: docs/protocols/bridge.md)
    capacity: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True, slots=True)
class ShufflerCount:
    """A shuffler's deck report: how many cards it counted, the tags it read in order where it
    reads them (None: it only counts), and its own report number (a resent report keeps it)."""

    ts: float
    device: str
    count: int
    uids: tuple[str, ...] | None = None
    seq: int = 0


@dataclass(frozen=True, slots=True)
class ShufflerState:
    """A shuffler's state word as the protocol names it (``ready``, ``jam``, ``door_open``...),
    with the maker's error code, sent on each change and again while a fault lasts."""

    ts: float
    device: str
    state: str
    code: int | None = None
    detail: str = ""
    mono: float | None = None
    boot: str | None = None


@dataclass(frozen=True, slots=True)
class PadPress:
    """A pad of the console pressed: its name as the layout gives it, whether it was a long
    press, the seat the seat key had selected and the count of a repeated pad (``hands``)."""

    ts: float
    name: str
    long: bool = False
    seat: int | None = None
    hands: int | None = None


@dataclass(frozen=True, slots=True)
class Lights:
    """What the console shows: each status LED's mode (``off``, ``on``, ``blink_slow``,
    ``blink_fast``), the seat LED lit (None: none) and a buzzer pattern to sound once."""

    ready: str = "on"
    prompt: str = "off"
    alert: str = "off"
    seat: int | None = None
    buzz: str = "none"


#: every event a link emits
DeviceEvent = TagCycle | LinkStatus | ShufflerCount | ShufflerState | PadPress
#: where a link hands its events (the daemon's submit, through its translation)
Emit = Callable[[DeviceEvent], None]
