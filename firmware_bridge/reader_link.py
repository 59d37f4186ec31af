"""The reader link: one thread that owns the reader's port and turns it into events.

python-can style: :class:`ReaderLink` is the one abstract reader the daemon knows; the FEIG
ISO Host backend (:class:`FeigReaderLink`) sits behind it, and a test or a future PN532
backend can sit beside it. The link

- opens the port by URL (``serial.serial_for_url``), retrying with bounded backoff while the
  device is missing (the reconnect loop is :class:`firmware_bridge.device_link.DeviceLink`'s);
- polls one inventory cycle after another over the configured antennas and emits one
  :class:`firmware_bridge.events.TagCycle` per completed cycle;
- reports :class:`firmware_bridge.events.LinkStatus` when the device comes and goes, including
  heartbeat loss (``max_timeouts`` inventories in a row unanswered);
- counts corrupt frames and logs them by kind and length, never their bytes (they carry tag
  UIDs); they never stop the link.

Every log line names the device. Every warning a flood could repeat (corrupt frames, malformed or
unexpected answers, late bytes, failed cycles) goes through one
:class:`firmware_bridge.log_limit.LogLimiter`: the first of a kind at once, then at most one line
a minute with the count.
"""

from __future__ import annotations

import abc
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from firmware_bridge.backoff import Backoff
from firmware_bridge.device_link import DeviceLink, Emit, Opener
from firmware_bridge.events import TagCycle, merge_reads
from firmware_bridge.errors import (BridgeError, CorruptAnswer, LinkError, ProtocolError, ReaderStatusError,
                                    ResponseTimeout, WrongAddress)
from firmware_bridge.bridge_client import BridgeClient
from firmware_bridge.feig import TagRecord
from firmware_bridge.feig_client import FeigClient
from firmware_bridge.serial_port import Port, PortSettings

log = logging.getLogger("tablectl.bridge")



@dataclass
class LinkStats:
    """Health figures for the technician's view."""

    cycles: int = 0
    reads: int = 0
    frames_bad: int = 0
    foreign_answers: int = 0  # answers from another bus address (COM-ADR), dropped
    protocol_errors: int = 0
    timeouts: int = 0
    reconnects: int = 0
    unexpected: int = 0  # CRC-valid answers to another command
    stale_bytes: int = 0  # late bytes discarded before an inventory
    #: every rate-limited event by kind ("corrupt frames (CRC mismatch)": 412), since the start
    events: Counter[str] = field(default_factory=Counter)
    online: bool = False
    since: float = field(default_factory=time.monotonic)

    def reads_per_second(self) -> float:
        elapsed = time.monotonic() - self.since
        return self.reads / elapsed if elapsed > 0 else 0.0


def cycle_reads(tags: list[TagRecord], *, single_antenna: bool) -> tuple[tuple[tuple[str, int, int], ...],
                                                                        dict[tuple[str, int], int]]:
    """One ``(uid, antenna, rssi)`` per tag and antenna, and the map of ``(uid, antenna)``
    heard to that rssi (a :class:`~firmware_bridge.events.TagCycle`'s ``heard``): a data set the reader repeated in
    the same answer is the same read, kept once at its strongest.

    >>> from firmware_bridge.feig import AntennaRead
    >>> t = TagRecord("E004", 3, 0, (AntennaRead(2, 0, 150),))
    >>> cycle_reads([t, t], single_antenna=False)
    ((('E004', 2, 150),), {('E004', 2): 150})
    """
    if single_antenna:
        best = dict.fromkeys(((t.uid, 1) for t in tags), 0)
    else:
        reads = tuple((t.uid, a.antenna, a.rssi) for t in tags for a in t.antennas)
        best = merge_reads(reads)
        if len(best) == len(reads):  # (nearly every cycle: no data set repeated, the reads as they came)
            return reads, best
    return tuple((uid, ant, rssi) for (uid, ant), rssi in best.items()), best


#: Makes the client that speaks to the reader on an open port: ``inventory(antennas=,
#: deadline_s=)`` giving the tags, and the counts ``frames_bad``, ``unexpected``, ``stale_bytes``
#: and ``foreign_answers`` (as :class:`firmware_bridge.feig_client.FeigClient` has them).
ClientFactory = Callable[[Port], Any]


class ReaderLink(DeviceLink):
    """A reader in its own thread (:class:`firmware_bridge.device_link.DeviceLink`): its figures
    are a :class:`LinkStats`, and it numbers its cycles (``cycle``)."""

    def __init__(self, name: str, emit: Emit, *, port: PortSettings | None = None, opener: Opener | None = None,
                 backoff: Backoff | None = None, max_timeouts: int = 3,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(name, emit, LinkStats(), port=port, opener=opener, backoff=backoff,
                         max_timeouts=max_timeouts, clock=clock)
        self.cycle = 0

    @abc.abstractmethod
    def step(self, deadline_s: float | None = None) -> None:
        """One cycle, now, in the caller's thread, the port opened first if need be (one
        attempt): the paced simulator's beat (``hw_sim.pacing``), where the simulated table,
        not the link's thread, says when the reader is asked. ``deadline_s``: how long to wait
        for the answer (the driver's own timeout by default)."""


class FeigReaderLink(ReaderLink):
    """The FEIG ISO Host backend over any pyserial URL (driver ``feig``,
    :mod:`firmware_bridge.drivers`).

    Besides the reader's settings: ``opener`` gives the port (the configured one by URL by
    default; :meth:`firmware_bridge.virtual.VirtualLine.open_port` in process), and
    ``client_factory`` makes the client on it (a :class:`firmware_bridge.feig_client.FeigClient`
    by default: python-can's virtual backend, the in-process harness may hand the simulated
    reader's records over without the frames). Both are public attributes too.

    >>> from firmware_bridge import feig
    >>> from firmware_bridge.virtual import VirtualLine
    >>> line = VirtualLine("reader")
    >>> tag = feig.TagRecord("E0040150A05F0001", 3, 0, (feig.AntennaRead(3, 0, 200),))
    >>> answer = feig.encode_inventory_reply([tag], with_antennas=True)
    >>> line.receive = lambda request: line.write(answer)  # a reader: the same tag, every time
    >>> events = []
    >>> link = FeigReaderLink("reader", events.append, PortSettings("/dev/tablectl/reader"),
    ...                       antennas=(1 << 13) - 1, opener=line.open_port)
    >>> link.step(); link.step()                           # two cycles, in this thread
    >>> [type(e).__name__ for e in events], events[0].detail, events[2].reads
    (['LinkStatus', 'TagCycle', 'TagCycle'], 'answering on /dev/tablectl/reader',
     (('E0040150A05F0001', 3, 200),))
    """

    def __init__(self, name: str, emit: Emit, port: PortSettings, *, antennas: int | None,
                 com_adr: int = 0x00, ant_sel_bytes: int = 2, answer_timeout: float = 0.5,
                 max_timeouts: int = 3, max_unusable: int = 10, poll_interval: float = 0.0,
                 backoff: Backoff | None = None, clock: Callable[[], float] = time.time,
                 opener: Opener | None = None, client_factory: ClientFactory | None = None) -> None:
        super().__init__(name, emit, port=port, opener=opener, backoff=backoff, max_timeouts=max_timeouts,
                         clock=clock)
        self.antennas = antennas
        self.com_adr = com_adr
        self.ant_sel_bytes = ant_sel_bytes
        self.answer_timeout = answer_timeout
        self.poll_interval = poll_interval
        self.max_unusable = max_unusable
        #: makes the client that speaks to the reader on an open port (:data:`ClientFactory`)
        self.client_factory: ClientFactory = client_factory or self._feig_client

    def _feig_client(self, port: Port) -> FeigClient:
        return FeigClient(port, device=self.name, com_adr=self.com_adr, ant_sel_bytes=self.ant_sel_bytes,
                          limiter=self.limiter)

    def _begin(self, port: Port) -> _Session:
        # the counts run on over reconnects
        s = self.stats
        return _Session(port, self.client_factory(port), s.frames_bad, s.unexpected, s.stale_bytes, s.foreign_answers)

    def _serve(self, session: _Session) -> None:
        while not self._stop.is_set():
            self.limiter.tick()  # the tail of a flood is told within a minute
            if not self._inventory(session, self.answer_timeout):
                return
            if self.poll_interval:
                self._stop.wait(self.poll_interval)

    def step(self, deadline_s: float | None = None) -> None:
        """One inventory cycle, now, in the caller's thread: the paced simulator's beat
        (``hw_sim.pacing``), where the simulated table, not this link's thread, says when the
        reader is asked. The port is opened first if it is not open (one attempt: a cable that is
        out stays out until a later step); a cycle that ends the session (the device gone, the
        heartbeat lost) closes it. ``deadline_s``: how long to wait for the answer (the
        configured ``answer_timeout`` by default)."""
        session = self._paced_session()
        if session is None:
            return
        self.limiter.tick()
        if not self._inventory(session, self.answer_timeout if deadline_s is None else deadline_s):
            self._paced_end()
            self.stats.reconnects += 1

    def _inventory(self, session: _Session, deadline_s: float) -> bool:
        """Ask for one inventory and emit its cycle; False when the session is over (the device
        went away, or its heartbeat was lost): the port is then closed and opened again."""
        client = session.client
        try:
            tags = client.inventory(antennas=self.antennas, deadline_s=deadline_s)
        except ResponseTimeout as exc:
            session.timeouts += 1
            self.stats.timeouts += 1
            self._failed(str(exc), "inventories unanswered")
            if isinstance(exc, WrongAddress):
                session.wrong_address += 1
            timeouts = session.timeouts
            if timeouts >= self.max_timeouts and session.wrong_address == timeouts and isinstance(exc, WrongAddress):
                # Every answer came from another address: the technician's fix is the
                # reader's bus address or [reader] address, not the cable.
                self.limiter.note("answers from another address",
                                  "%s: %d inventories answered only by address 0x%02X, expected 0x%02X "
                                  "(set [reader] address, or the reader's bus address)",
                                  self.name, timeouts, exc.seen, exc.expected)
                self._set_online(False, f"answers come from address 0x{exc.seen:02X}, "
                                        f"expected 0x{exc.expected:02X}")
                return False
            if timeouts >= self.max_timeouts:
                self.limiter.note("heartbeats lost", "%s: heartbeat lost (%d inventories unanswered)",
                                  self.name, timeouts)
                self._set_online(False, f"no answer to {timeouts} inventories")
                return False
            return True
        except LinkError as exc:
            self._lost(exc)
            return False
        except BridgeError as exc:
            # A damaged answer, an error status, a malformed answer: the reader is alive, so
            # no reconnect; but a reader that never gives a usable cycle leaves the table
            # untracked, which the dealer must be told.
            session.timeouts = session.wrong_address = 0
            if isinstance(exc, ProtocolError):
                self.stats.protocol_errors += 1
            if self._failed(str(exc), _DROPPED.get(type(exc), "cycles dropped")) >= self.max_unusable:
                self._set_online(False, f"no usable answer in {self._failures} inventories")
            return True
        finally:
            self.stats.frames_bad = session.frames_bad + client.frames_bad
            self.stats.unexpected = session.unexpected + client.unexpected
            self.stats.stale_bytes = session.stale_bytes + client.stale_bytes
            self.stats.foreign_answers = session.foreign_answers + client.foreign_answers
        session.timeouts = session.wrong_address = 0
        self._failures = 0
        if not self._reported:
            self.backoff.reset()
            self._set_online(True, f"answering on {self._where()}")
        self.cycle += 1
        reads, heard = cycle_reads(tags, single_antenna=self.antennas is None)
        self.stats.cycles += 1
        self.stats.reads += len(reads)
        # The timestamp is taken once the whole answer is in, before the next request.
        self.emit(TagCycle(ts=self.clock(), device=self.name, cycle=self.cycle, reads=reads, heard=heard))
        return True


@dataclass
class _Session:
    """An open port, its client, and the counts before it (they run on over reconnects)."""

    port: Port
    client: Any
    frames_bad: int
    unexpected: int
    stale_bytes: int
    foreign_answers: int
    timeouts: int = 0  # inventories unanswered in a row
    wrong_address: int = 0  # of those, the ones answered by another bus address


#: the limiter's kind for each reason a cycle is dropped
_DROPPED: dict[type, str] = {CorruptAnswer: "cycles dropped (damaged answer)",
                             ProtocolError: "cycles dropped (malformed answer)",
                             ReaderStatusError: "cycles dropped (error status)"}


#: the least silence a bridge board is given before its cycle counts as unanswered: a cycle of a
#: full table takes up to a second (docs/protocols/bridge.md, "The cycle time")
BRIDGE_SILENCE_S = 2.0


#: a zone that sees this many cards at once or more has no limit: a whole deck
NO_LIMIT = 52


class BridgeReaderLink(FeigReaderLink):
    """Our own bridge board (driver ``bridge``, docs/protocols/bridge.md): a PN5180 a zone behind a
    Pico on USB serial. The same link as FEIG's (the reconnects, the heartbeat, the dropped
    cycles, the events) over a :class:`firmware_bridge.bridge_client.BridgeClient`: zones are the
    antennas. ``answer_timeout`` is the silence allowed within a cycle, at least
    :data:`BRIDGE_SILENCE_S`. The FEIG settings the daemon passes (``com_adr``, ``ant_sel_bytes``)
    mean nothing to the board and are ignored.

    >>> from firmware_bridge.drivers import READERS
    >>> READERS["bridge"] is BridgeReaderLink
    True
    """

    def __init__(self, name: str, emit: Emit, port: PortSettings, *, antennas: int | None,
                 answer_timeout: float = 0.5, client_factory: ClientFactory | None = None, level: int = 150,
                 **options: Any) -> None:
        super().__init__(name, emit, port, antennas=antennas, answer_timeout=max(answer_timeout, BRIDGE_SILENCE_S),
                         client_factory=client_factory, **options)
        #: the tracker's level (``[reader] strong_rssi``): what a zone's weak evidence is reported at
        self.level = level
        self._client: BridgeClient | None = None  # (the last one made here: its handshake's zones)
        if client_factory is None:
            self.client_factory = self._bridge_client

    def _bridge_client(self, port: Port) -> BridgeClient:
        self._client = BridgeClient(port, device=self.name, limiter=self.limiter, level=self.level)
        return self._client

    def _online_extra(self) -> dict[str, Any]:
        """The zones that see fewer cards than a deck (an MFRC522's seat spot: 2), from the
        handshake, with the online status: the tracker keeps the cards such a zone cannot see
        (controller.core.tracker). A zone that sees a deck (a PN5180's: 64) has no limit."""
        zones = self._client.zones if self._client is not None else {}
        limited = tuple(sorted((z, info.capacity) for z, info in zones.items() if info.capacity < NO_LIMIT))
        return {"capacity": limited} if limited else {}
