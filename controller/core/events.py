"""Events: everything the core is told, each carrying its own timestamp.

The shell (``controller.daemon`` and the rest of ``tablectl``) builds these from device input, journals them and feeds
them to :meth:`controller.core.table.Table.apply`. They are plain immutable values so that a
recorded shift replays exactly: same events in, same effects out.

>>> ev = ReaderCycle(ts=12.5, device="reader", cycle=7, reads=(("E0040150A05F0000", 3, 200),))
>>> event_from_dict(event_to_dict(ev)) == ev
True

A command from the control socket carries its peer's uid into the journal; a row without
one (the console's presses, rows written before the field existed) reads back as None:

>>> press = ButtonPress(ts=3.0, name="ack", peer_uid=1000)
>>> event_to_dict(press)["peer_uid"], event_from_dict(event_to_dict(press)) == press
(1000, True)
>>> event_from_dict({"type": "ButtonPress", "ts": 3.0, "name": "ack"}).peer_uid is None
True

The events durations are measured from carry a monotonic reading; a row written before they
did reads back without one:

>>> event_to_dict(Tick(ts=5.0, mono=12.5, boot="0a1b2c3d"))
{'ts': 5.0, 'mono': 12.5, 'boot': '0a1b2c3d', 'type': 'Tick'}
>>> event_from_dict({"type": "Tick", "ts": 5.0})
Tick(ts=5.0, mono=None, boot=None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field, fields
from operator import itemgetter
from typing import Any

_UID_ANT = itemgetter(0, 1)
_RSSI = itemgetter(2)


@dataclass(frozen=True, slots=True)
class ReaderCycle:
    """One completed inventory cycle of an RFID reader over all its antennas.

    ``reads`` holds ``(uid, antenna, rssi)`` triples: the UID as 16 uppercase hex digits,
    the 1-based antenna number, the signal strength (0..255, larger is stronger). A tag
    seen by several antennas appears once per antenna; a tag not seen is absent.

    ``heard`` maps each ``(uid, antenna)`` pair in ``reads`` to its strongest signal there
    (:func:`strongest`): derived, never journalled, not to be changed. The reader link passes
    the map it already built while merging repeated reads, which spares the core the work on
    every cycle; left out, it is computed here. The tracker takes its pairs for the set of tags
    heard where, and looks a read's strength up in it rather than searching the reads.
    """

    ts: float
    device: str
    cycle: int
    reads: tuple[tuple[str, int, int], ...]
    heard: dict[tuple[str, int], int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.heard is None:
            object.__setattr__(self, "heard", strongest(self.reads))


def strongest(reads: Sequence[tuple[str, int, int]]) -> dict[tuple[str, int], int]:
    """``(uid, antenna) -> rssi`` of ``reads``, the strongest where a pair was read twice.

    >>> strongest((("E004", 2, 150), ("E004", 3, 90), ("E004", 2, 170)))
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
class DeviceStatus:
    """A device link came up or went down (``online``), with a human-readable ``detail``."""

    ts: float
    device: str
    online: bool
    detail: str = ""
    #: the monotonic clock's reading and its boot's id (see :class:`Tick`)
    mono: float | None = None
    boot: str | None = None
    #: the reader's zones that see few cards: (antenna, the most cards it sees at once), from a
    #: bridge board's handshake (docs/protocols/bridge.md); None for other devices
    capacity: tuple[tuple[int, int], ...] | None = None


@dataclass(frozen=True, slots=True)
class ButtonPress:
    """A dealer pad press, by its name (:data:`controller.core.pads.PADS`), and the seat it is
    for when the pad concerns one (``seat_out`` of seat 4; ``exposed_player`` at seat 2).
    ``hands`` is a count some pads carry (a penalty of ``hands`` hands)."""

    ts: float
    name: str
    long: bool = False
    seat: int | None = None
    hands: int | None = None
    #: why a ``new_deck`` press brings a deck in (RELIEF-002): :data:`controller.core.pads.DECK_CHANGE_REASONS`
    reason: str | None = None
    #: which deal a ``mode`` press announces: :data:`controller.core.pads.MODES` (left out of the
    #: journal's row when None: rows of every other press stay as they were)
    mode: str | None = None
    #: who gave it over the control socket (the peer's uid, for the journal); None: the console.
    #: A record, never an input: the core decides nothing on it
    peer_uid: int | None = None


@dataclass(frozen=True, slots=True)
class TableSetup:
    """Seats dealt in from the next hand on, and that hand's button if it is set by hand
    (None: the daemon moves the button itself). A floor or technician command."""

    ts: float
    seats: tuple[int, ...]
    button: int | None = None
    #: the control socket peer's uid, for the journal (the core ignores it)
    peer_uid: int | None = None
    #: the game from the next hand on (MIXED-001: a mixed game's hand, deal-script.md); None:
    #: the table's own (its rotation's) game goes on
    game: str | None = None


@dataclass(frozen=True, slots=True)
class ShufflerReport:
    """The shuffler's deck report for one shuffle cycle (STUB-005, DECK-001/002).

    ``count`` is how many cards the shuffler counted; ``uids`` the tags it read, in the order it
    read them, when it can read tags (None when it only counts). ``seq`` is the shuffler's own
    report number (a report resent after a lost acknowledgement carries the same number).
    """

    ts: float
    device: str
    count: int
    uids: tuple[str, ...] | None = None
    seq: int = 0


@dataclass(frozen=True, slots=True)
class DeckSetup:
    """The floor's setup exchange (DECK-003, DECK-005): a new pair of decks replaces the old,
    which is retired: a tag of it seen again is an alert. ``decks`` holds ``(id, back, cards)``
    with ``cards`` as ``(uid, card)`` pairs, so that the journal replays it without the files."""

    ts: float
    decks: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]
    in_play: str
    #: the control socket peer's uid, for the journal (the core ignores it)
    peer_uid: int | None = None


@dataclass(frozen=True, slots=True)
class Tick:
    """The daemon's clock, once a second while something waits on time (a device offline):
    the core has no clock of its own, and a tick journalled replays the same.

    ``ts`` is wall time, for records; durations are measured on ``mono``, the shell's
    monotonic reading, taken in the boot ``boot`` and carried in the event (wall time jumps
    when a Pi's clock is set at boot). Rows journalled before these fields existed have
    neither: their timers are measured on ``ts``, as they were when those rows were first
    applied."""

    ts: float
    mono: float | None = None
    boot: str | None = None


@dataclass(frozen=True, slots=True)
class DealerNamed:
    """The floor names the dealer at the table (RELIEF-003): ``name`` deals from the next hand
    on (a hand in progress keeps its dealer: the outgoing dealer finishes it, RELIEF-001), or,
    with ``at_relief``, from the dealer's next ``relief`` press: the floor enters the incoming
    dealer's name ahead, and the relief pad makes it current. The shell checks the name
    (:func:`controller.core.dealers.check_dealer_name`)."""

    ts: float
    name: str
    at_relief: bool = False
    #: the control socket peer's uid, for the journal (the core ignores it)
    peer_uid: int | None = None


#: what a shuffler says of itself (docs/protocols/shuffler.md)
SHUFFLER_STATES = ("ready", "shuffling", "jam", "door_open", "error")


@dataclass(frozen=True, slots=True)
class ShufflerStatus:
    """The shuffler's state: one of :data:`SHUFFLER_STATES`; ``code`` is the maker's error
    code for ``error``. The link sends it on each change, and again every few seconds while a
    fault (jam, door open, error) lasts, so that the core can tell a fault that persists."""

    ts: float
    device: str
    state: str
    code: int | None = None
    detail: str = ""
    #: the monotonic clock's reading and its boot's id (see :class:`Tick`)
    mono: float | None = None
    boot: str | None = None


# -- the tournament room's signals (issue 32): what the floor tells a table, journalled like any
# event so that a power cut replays them. The room link (controller/daemon/tournament_link.py) makes
# them from the floor's retained topic (controller/room/tournament.py); the simulator from a
# script's floor steps (docs/deal-script.md).

#: what a level of the structure is: play, or a break between levels
LEVEL_KINDS = ("level", "break")


@dataclass(frozen=True, slots=True)
class LevelSet:
    """The tournament's level now (FLOW-001): it applies from the table's next deal, a misdeal's
    re-deal keeping the old one (MISD-014). ``kind`` ``break``: the players' break (FLOW-005's
    button check, DECK-008's deck reset). The blinds, the ante and the game are the structure's
    (None: not given, as a script's ``{"floor": "level", "level": N}``)."""

    ts: float
    tournament: str
    level: int
    kind: str = "level"
    small_blind: int | None = None
    big_blind: int | None = None
    ante: int | None = None
    game: str | None = None


@dataclass(frozen=True, slots=True)
class HandForHand:
    """Hand-for-hand on or off for the table's tournament (FLOW-002): while on, the table
    holds after every hand until the floor's :class:`Release`."""

    ts: float
    on: bool


@dataclass(frozen=True, slots=True)
class Release:
    """The floor's go-ahead: a table holding (hand-for-hand, FLOW-002) deals its next hand.
    ``round``: the floor's count of releases in the tournament (a table that missed one while
    its link was down is released by any later one)."""

    ts: float
    round: int


@dataclass(frozen=True, slots=True)
class BubbleMode:
    """The bubble (FLOW-003) on or off for the table's tournament: while on, the dealer presses
    ``allin`` when an all-in is called, and the floor holds the other tables."""

    ts: float
    on: bool


@dataclass(frozen=True, slots=True)
class BubbleHold:
    """The bubble (FLOW-003): another table's all-in was called (``on``), this table deals no
    new hand until that hand ends or its seat is out (``on`` False). ``table`` and ``hand``: the
    hand that holds the room."""

    ts: float
    on: bool
    table: str | None = None
    hand: int | None = None


@dataclass(frozen=True, slots=True)
class ClockCalled:
    """The floor calls the clock on ``seat`` (FLOW-004), from its page; the dealer calls it with
    the ``clock`` pad and a seat key (a :class:`ButtonPress`)."""

    ts: float
    seat: int
    #: the monotonic clock's reading and its boot's id (see :class:`Tick`): the countdown's start
    mono: float | None = None
    boot: str | None = None
    #: the floor's count of the clocks it called at this table (controller/room/tournament.py)
    n: int | None = None


@dataclass(frozen=True, slots=True)
class SatelliteApproved:
    """The floor approves the single-table satellite the table waits to start (FLOW-007: 001
    §PLAYER SEATING (satellite), "The Satellite may NOT begin without the approval of the
    Supervisor"): the floor's command ``approve`` (the room's ``cmd``, the control socket), a
    script's ``{"floor": "approve"}``. The dealer's ``mode satellite`` press shut the gate."""

    ts: float
    #: the control socket peer's uid, for the journal (the core ignores it)
    peer_uid: int | None = None


#: the floor's signals, by their type's name (a script's floor steps: hw_sim/script.py)
FLOOR_SIGNALS = (LevelSet, HandForHand, Release, BubbleMode, BubbleHold, ClockCalled, SatelliteApproved)

Event = (ReaderCycle | DeviceStatus | ButtonPress | TableSetup | ShufflerReport | ShufflerStatus | DeckSetup | Tick
         | DealerNamed | LevelSet | HandForHand | Release | BubbleMode | BubbleHold | ClockCalled | SatelliteApproved)
EVENT_TYPES: dict[str, type[Event]] = {t.__name__: t for t in (ReaderCycle, DeviceStatus, ButtonPress, TableSetup,
                                                       ShufflerReport, ShufflerStatus, DeckSetup, Tick, DealerNamed,
                                                       *FLOOR_SIGNALS)}


def event_to_dict(event: Event) -> dict[str, Any]:
    """A JSON-ready dict of ``event`` with its type under ``"type"`` (derived fields left out)."""
    if type(event) is ReaderCycle:  # nearly every event, journalled one by one: asdict's deep
        # copy of the reads would cost ten times the rest of the encoding
        return {"ts": event.ts, "device": event.device, "cycle": event.cycle, "reads": event.reads,
                "type": "ReaderCycle"}
    d = asdict(event)
    d.pop("heard", None)
    # only some events carry one: rows without stay as they were
    for key in ("peer_uid", "mono", "boot", "game", "mode", "capacity"):
        if d.get(key, 0) is None:
            del d[key]
    d["type"] = type(event).__name__
    return d


def event_from_dict(d: dict[str, Any]) -> Event:
    """The inverse of :func:`event_to_dict`; raises ValueError naming an unknown type."""
    d = dict(d)
    kind = d.pop("type", None)
    cls = EVENT_TYPES.get(kind)
    if cls is None:
        raise ValueError(f"unknown event type {kind!r}")
    names = {f.name for f in fields(cls)}
    args = {k: v for k, v in d.items() if k in names}
    if cls is ReaderCycle:
        args["reads"] = tuple((str(u), int(a), int(r)) for u, a, r in args["reads"])
    elif cls is TableSetup:
        args["seats"] = tuple(args["seats"])
    elif cls is DeviceStatus and args.get("capacity") is not None:
        args["capacity"] = tuple((int(a), int(n)) for a, n in args["capacity"])
    elif cls is DeckSetup:
        args["decks"] = tuple((str(i), str(b), tuple((str(u), str(c)) for u, c in cards))
                              for i, b, cards in args["decks"])
    elif cls is ShufflerReport and args.get("uids") is not None:
        args["uids"] = tuple(str(u) for u in args["uids"])
    if args.get("peer_uid") is not None:
        args["peer_uid"] = int(args["peer_uid"])
    if type(args.get("mono")) is int:
        args["mono"] = float(args["mono"])
    return cls(**args)
