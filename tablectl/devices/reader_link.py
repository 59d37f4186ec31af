"""The reader link: one thread that owns the reader's port and turns it into events.

python-can style: :class:`ReaderLink` is the one abstract reader the daemon knows; the FEIG
ISO Host backend (:class:`FeigReaderLink`) sits behind it, and a test or a future PN532
backend can sit beside it. The link

- opens the port by URL (``serial.serial_for_url``), retrying with bounded backoff while the
  device is missing;
- polls one inventory cycle after another over the configured antennas and emits one
  :class:`tablectl.core.events.ReaderCycle` per completed cycle;
- reports :class:`tablectl.core.events.DeviceStatus` when the device comes and goes, including
  heartbeat loss (``max_timeouts`` inventories in a row unanswered);
- counts corrupt frames and logs them by kind and length, never their bytes (they carry tag
  UIDs); they never stop the link.

Every log line names the device. Every warning a flood could repeat (corrupt frames, malformed or
unexpected answers, late bytes, failed cycles) goes through one
:class:`tablectl.devices.log_limit.LogLimiter`: the first of a kind at once, then at most one line
a minute with the count.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any

from tablectl.core.events import ReaderCycle, strongest
from tablectl.devices.backoff import Backoff
from tablectl.devices.device_link import DeviceLink, Emit
from tablectl.devices.errors import (BridgeError, CorruptAnswer, LinkError, ProtocolError, ReaderStatusError,
                                    ResponseTimeout, WrongAddress)
from tablectl.devices.feig import TagRecord
from tablectl.devices.feig_client import FeigClient
from tablectl.devices.log_limit import LogLimiter
from tablectl.devices.serial_port import PortSettings, open_port

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
    heard to that rssi (a :class:`ReaderCycle`'s ``heard``): a data set the reader repeated in
    the same answer is the same read, kept once at its strongest.

    >>> from tablectl.devices.feig import AntennaRead
    >>> t = TagRecord("E004", 3, 0, (AntennaRead(2, 0, 150),))
    >>> cycle_reads([t, t], single_antenna=False)
    ((('E004', 2, 150),), {('E004', 2): 150})
    """
    if single_antenna:
        best = dict.fromkeys(((t.uid, 1) for t in tags), 0)
    else:  # (the merge is the core's own: tablectl.core.events.strongest)
        reads = tuple((t.uid, a.antenna, a.rssi) for t in tags for a in t.antennas)
        best = strongest(reads)
        if len(best) == len(reads):  # (nearly every cycle: no data set repeated, the reads as they came)
            return reads, best
    return tuple((uid, ant, rssi) for (uid, ant), rssi in best.items()), best


class ReaderLink(DeviceLink):
    """A reader in its own thread (:class:`tablectl.devices.device_link.DeviceLink`)."""

    def __init__(self, name: str, emit: Emit, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(name, emit, LinkStats(), clock=clock)
        self.cycle = 0


class FeigReaderLink(ReaderLink):
    """The FEIG ISO Host backend over any pyserial URL."""

    def __init__(self, name: str, emit: Emit, port: PortSettings, *, antennas: int | None,
                 com_adr: int = 0x00, ant_sel_bytes: int = 2, answer_timeout: float = 0.5,
                 max_timeouts: int = 3, max_unusable: int = 10, poll_interval: float = 0.0,
                 backoff: Backoff | None = None, clock: Callable[[], float] = time.time,
                 opener: Callable[[], Any] | None = None,
                 client_factory: Callable[[Any], Any] | None = None) -> None:
        super().__init__(name, emit, clock=clock)
        self.port_settings = port
        self.antennas = antennas
        self.com_adr = com_adr
        self.ant_sel_bytes = ant_sel_bytes
        self.answer_timeout = answer_timeout
        self.max_timeouts = max_timeouts
        self.poll_interval = poll_interval
        self.backoff = backoff or Backoff(0.05, 2.0)
        self.max_unusable = max_unusable
        self._failures = 0  # cycles in a row without a usable answer, for whatever reason
        self.limiter = LogLimiter(log, prefix=f"{name}: ")
        self.stats.events = self.limiter.counts
        #: opens the port (pyserial by URL); the in-process harness gives its in-memory line
        self.opener: Callable[[], Any] = opener or (lambda: open_port(self.port_settings, device=self.name))
        #: makes the client that speaks to the reader on an open port (python-can's virtual
        #: backend: the harness may hand the simulated reader's records over without the frames)
        self.client_factory: Callable[[Any], Any] = client_factory or self._feig_client
        self._session: _Session | None = None  # the open port of :meth:`step`

    def _feig_client(self, port: Any) -> FeigClient:
        return FeigClient(port, device=self.name, com_adr=self.com_adr, ant_sel_bytes=self.ant_sel_bytes,
                          limiter=self.limiter)

    def stop(self, timeout: float = 2.0) -> None:
        super().stop(timeout)
        self.limiter.flush()  # what a flood's tail held back is told before the daemon goes

    def _failed(self, message: str, kind: str) -> int:
        """Count a cycle without a usable answer; log it through the limiter (the first of a
        kind, then one line a minute), so that a reader stuck in an error, or failing every
        other cycle, cannot flood the log."""
        self._failures += 1
        if not message.startswith(f"{self.name}: "):  # (a codec's message does not name the device)
            message = f"{self.name}: {message}"
        self.limiter.note(kind, "%s", message)
        return self._failures

    def _open_failed(self, exc: LinkError) -> None:
        """The port would not open: said once the device is known gone (at once if it was online)."""
        if self._failed(str(exc), "failed attempts to open the port") >= self.max_timeouts or self._reported:
            self._set_online(False, str(exc))

    def _opened(self, port: Any) -> _Session:
        # (a cable that comes and goes must not flood the log either)
        self.limiter.note("openings of the port", "%s: opened %s", self.name, self.port_settings.url,
                          level=logging.INFO)
        # the counts run on over reconnects
        s = self.stats
        return _Session(port, self.client_factory(port), s.frames_bad, s.unexpected, s.stale_bytes, s.foreign_answers)

    def _close(self, session: _Session) -> None:
        self.limiter.tick()
        try:
            session.port.close()
        except Exception:  # closing a vanished device may fail; nothing to save
            pass

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                port = self.opener()
            except LinkError as exc:
                self._open_failed(exc)
                self._stop.wait(self.backoff.next())
                continue
            session = self._opened(port)
            try:
                while not self._stop.is_set():
                    self.limiter.tick()  # the tail of a flood is told within a minute
                    if not self._inventory(session, self.answer_timeout):
                        break
                    if self.poll_interval:
                        self._stop.wait(self.poll_interval)
            finally:
                self._close(session)
            if not self._stop.is_set():
                self.stats.reconnects += 1
                self._stop.wait(self.backoff.next())

    def step(self, deadline_s: float | None = None) -> None:
        """One inventory cycle, now, in the caller's thread: the paced simulator's beat
        (``tablectl.sim.pacing``), where the simulated table, not this link's thread, says when the
        reader is asked. The port is opened first if it is not open (one attempt: a cable that is
        out stays out until a later step); a cycle that ends the session (the device gone, the
        heartbeat lost) closes it. ``deadline_s``: how long to wait for the answer (the
        configured ``answer_timeout`` by default)."""
        if self._session is None:
            try:
                port = self.opener()
            except LinkError as exc:
                self._open_failed(exc)
                return
            self._session = self._opened(port)
        self.limiter.tick()
        if not self._inventory(self._session, self.answer_timeout if deadline_s is None else deadline_s):
            self._close(self._session)
            self._session = None
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
            self._failed(str(exc), "link errors")  # the message names the device already
            self._set_online(False, str(exc))
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
            self._set_online(True, f"answering on {self.port_settings.url}")
        self.cycle += 1
        reads, heard = cycle_reads(tags, single_antenna=self.antennas is None)
        self.stats.cycles += 1
        self.stats.reads += len(reads)
        # The timestamp is taken once the whole answer is in, before the next request.
        self.emit(ReaderCycle(ts=self.clock(), device=self.name, cycle=self.cycle, reads=reads, heard=heard))
        return True


@dataclass
class _Session:
    """An open port, its client, and the counts before it (they run on over reconnects)."""

    port: Any
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
