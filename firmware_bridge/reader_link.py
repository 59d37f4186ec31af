"""The reader link: one thread that owns the reader's port and turns it into events.

python-can style: :class:`ReaderLink` is the one abstract reader the daemon knows; the FEIG
ISO Host backend (:class:`FeigReaderLink`) sits behind it, and a test or a future PN532
backend can sit beside it. The link

- opens the port by URL (``serial.serial_for_url``), retrying with bounded backoff while the
  device is missing;
- polls one inventory cycle after another over the configured antennas and emits one
  :class:`controller.events.ReaderCycle` per completed cycle;
- reports :class:`controller.events.DeviceStatus` when the device comes and goes, including
  heartbeat loss (``max_timeouts`` inventories in a row unanswered);
- counts corrupt frames and logs them by kind and length, never their bytes (they carry tag
  UIDs); they never stop the link.

Every log line names the device. Every warning a flood could repeat (corrupt frames, malformed or
unexpected answers, late bytes, failed cycles) goes through one
:class:`firmware_bridge.log_limit.LogLimiter`: the first of a kind at once, then at most one line
a minute with the count.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable

from controller.events import ReaderCycle, strongest
from firmware_bridge.backoff import Backoff
from firmware_bridge.device_link import DeviceLink, Emit
from firmware_bridge.errors import (BridgeError, CorruptAnswer, LinkError, ProtocolError, ReaderStatusError,
                                    ResponseTimeout, WrongAddress)
from firmware_bridge.feig import TagRecord
from firmware_bridge.feig_client import FeigClient
from firmware_bridge.log_limit import LogLimiter
from firmware_bridge.serial_port import PortSettings, open_port

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

    >>> from firmware_bridge.feig import AntennaRead
    >>> t = TagRecord("E004", 3, 0, (AntennaRead(2, 0, 150),))
    >>> cycle_reads([t, t], single_antenna=False)
    ((('E004', 2, 150),), {('E004', 2): 150})
    """
    if single_antenna:
        best = dict.fromkeys(((t.uid, 1) for t in tags), 0)
    else:  # (the merge is the core's own: controller.events.strongest)
        reads = tuple((t.uid, a.antenna, a.rssi) for t in tags for a in t.antennas)
        best = strongest(reads)
        if len(best) == len(reads):  # (nearly every cycle: no data set repeated, the reads as they came)
            return reads, best
    return tuple((uid, ant, rssi) for (uid, ant), rssi in best.items()), best


class ReaderLink(DeviceLink):
    """A reader in its own thread (:class:`firmware_bridge.device_link.DeviceLink`)."""

    def __init__(self, name: str, emit: Emit, *, clock: Callable[[], float] = time.time) -> None:
        super().__init__(name, emit, LinkStats(), clock=clock)
        self.cycle = 0


class FeigReaderLink(ReaderLink):
    """The FEIG ISO Host backend over any pyserial URL."""

    def __init__(self, name: str, emit: Emit, port: PortSettings, *, antennas: int | None,
                 com_adr: int = 0x00, ant_sel_bytes: int = 2, answer_timeout: float = 0.5,
                 max_timeouts: int = 3, max_unusable: int = 10, poll_interval: float = 0.0,
                 backoff: Backoff | None = None, clock: Callable[[], float] = time.time) -> None:
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

    def run(self) -> None:
        while not self._stop.is_set():
            try:
                port = open_port(self.port_settings, device=self.name)
            except LinkError as exc:
                if self._failed(str(exc), "failed attempts to open the port") >= self.max_timeouts or self._reported:
                    self._set_online(False, str(exc))
                self._stop.wait(self.backoff.next())
                continue
            # (a cable that comes and goes must not flood the log either)
            self.limiter.note("openings of the port", "%s: opened %s", self.name, self.port_settings.url,
                              level=logging.INFO)
            try:
                self._poll(port)
            finally:
                self.limiter.tick()
                try:
                    port.close()
                except Exception:  # closing a vanished device may fail; nothing to save
                    pass
            if not self._stop.is_set():
                self.stats.reconnects += 1
                self._stop.wait(self.backoff.next())

    def _poll(self, port) -> None:  # type: ignore[no-untyped-def]
        client = FeigClient(port, device=self.name, com_adr=self.com_adr, ant_sel_bytes=self.ant_sel_bytes,
                            limiter=self.limiter)
        # the counts run on over reconnects
        frames_bad_before, unexpected_before = self.stats.frames_bad, self.stats.unexpected
        stale_before, foreign_before = self.stats.stale_bytes, self.stats.foreign_answers
        timeouts = 0
        wrong_address = 0  # of the unanswered inventories in a row, those answered by another address
        while not self._stop.is_set():
            self.limiter.tick()  # the tail of a flood is told within a minute
            try:
                tags = client.inventory(antennas=self.antennas, deadline_s=self.answer_timeout)
            except ResponseTimeout as exc:
                timeouts += 1
                self.stats.timeouts += 1
                self._failed(str(exc), "inventories unanswered")
                if isinstance(exc, WrongAddress):
                    wrong_address += 1
                if timeouts >= self.max_timeouts and wrong_address == timeouts and isinstance(exc, WrongAddress):
                    # Every answer came from another address: the technician's fix is the
                    # reader's bus address or [reader] address, not the cable.
                    self.limiter.note("answers from another address",
                                      "%s: %d inventories answered only by address 0x%02X, expected 0x%02X "
                                      "(set [reader] address, or the reader's bus address)",
                                      self.name, timeouts, exc.seen, exc.expected)
                    self._set_online(False, f"answers come from address 0x{exc.seen:02X}, "
                                            f"expected 0x{exc.expected:02X}")
                    return
                if timeouts >= self.max_timeouts:
                    self.limiter.note("heartbeats lost", "%s: heartbeat lost (%d inventories unanswered)",
                                      self.name, timeouts)
                    self._set_online(False, f"no answer to {timeouts} inventories")
                    return
                continue
            except LinkError as exc:
                self._failed(str(exc), "link errors")  # the message names the device already
                self._set_online(False, str(exc))
                return
            except BridgeError as exc:
                # A damaged answer, an error status, a malformed answer: the reader is alive, so
                # no reconnect; but a reader that never gives a usable cycle leaves the table
                # untracked, which the dealer must be told.
                timeouts = wrong_address = 0
                if isinstance(exc, ProtocolError):
                    self.stats.protocol_errors += 1
                if self._failed(str(exc), _DROPPED.get(type(exc), "cycles dropped")) >= self.max_unusable:
                    self._set_online(False, f"no usable answer in {self._failures} inventories")
                continue
            finally:
                self.stats.frames_bad = frames_bad_before + client.frames_bad
                self.stats.unexpected = unexpected_before + client.unexpected
                self.stats.stale_bytes = stale_before + client.stale_bytes
                self.stats.foreign_answers = foreign_before + client.foreign_answers
            timeouts = wrong_address = 0
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
            if self.poll_interval:
                self._stop.wait(self.poll_interval)


#: the limiter's kind for each reason a cycle is dropped
_DROPPED: dict[type, str] = {CorruptAnswer: "cycles dropped (damaged answer)",
                             ProtocolError: "cycles dropped (malformed answer)",
                             ReaderStatusError: "cycles dropped (error status)"}
