"""The shuffler link: one thread that owns the shuffler bridge's port and turns it into events.

As with the reader (:mod:`firmware_bridge.reader_link`), :class:`ShufflerLink` is the one
abstract shuffler the daemon knows; :class:`SerialShufflerLink` speaks tablectl's own shuffler
protocol (``docs/protocols/shuffler.md``, :mod:`firmware_bridge.shuffler`) over any pyserial
URL, and a vendor's software adapter could sit beside it. The serial link

- opens the port by URL, retrying with bounded backoff while the device is missing (the
  reconnect loop is :class:`firmware_bridge.device_link.DeviceLink`'s);
- shakes hands (HELLO), and refuses a shuffler whose protocol major version differs, with an
  error in the log naming the device and both versions, retrying with backoff;
- polls the status every ``poll_interval`` and emits :class:`firmware_bridge.events.ShufflerState`
  on each change, and again every ``fault_repeat`` seconds while a fault lasts;
- emits one :class:`firmware_bridge.events.ShufflerCount` per deck report and acknowledges it; a
  report resent after a lost acknowledgement is acknowledged again but not emitted twice;
- reports :class:`firmware_bridge.events.LinkStatus` when the shuffler comes and goes, including
  heartbeat loss (``max_timeouts`` status polls in a row unanswered);
- counts corrupt frames and logs them by kind and length, never their bytes (a deck report
  carries tag UIDs); they never stop the link.

Every log line names the device. Every warning a flood could repeat (corrupt frames, malformed
messages, refusals, failed polls) goes through one :class:`firmware_bridge.log_limit.LogLimiter`:
the first of a kind at once, then at most one line a minute with the count.
"""

from __future__ import annotations

import abc
import logging
import time
from collections import Counter
from dataclasses import dataclass, field
from collections.abc import Callable

import serial

from firmware_bridge import shuffler as sp
from firmware_bridge.backoff import Backoff
from firmware_bridge.device_link import DeviceLink, Emit, Opener
from firmware_bridge.errors import LinkError
from firmware_bridge.events import ShufflerCount, ShufflerState
from firmware_bridge.log_limit import describe_corrupt
from firmware_bridge.serial_port import Port, PortSettings

log = logging.getLogger("tablectl.bridge")


#: a bridge board's serial settings: 115200 baud, 8 data bits, no parity, 1 stop bit
BAUDRATE = 115200


def shuffler_port(url: str, **overrides: object) -> PortSettings:
    """The default port settings for a shuffler bridge at ``url`` (115200 8N1).

    >>> shuffler_port("/dev/tablectl/shuffler")
    PortSettings(url='/dev/tablectl/shuffler', baudrate=115200, parity='N', bytesize=8, stopbits=1, timeout=0.05)
    """
    settings: dict[str, object] = {"baudrate": BAUDRATE, "parity": "N", **overrides}
    return PortSettings(url, **settings)  # type: ignore[arg-type]


@dataclass
class ShufflerStats:
    """Health figures for the technician's view."""

    polls: int = 0
    statuses: int = 0
    reports: int = 0
    duplicates: int = 0  # reports resent after a lost acknowledgement, acknowledged again
    frames_bad: int = 0
    protocol_errors: int = 0  # CRC-valid frames that made no sense, and NAKs
    timeouts: int = 0
    reconnects: int = 0
    #: every rate-limited event by kind ("corrupt frames (CRC mismatch)": 412), since the start
    events: Counter[str] = field(default_factory=Counter)
    online: bool = False
    version: tuple[int, int] | None = None  # the shuffler's protocol version
    ident: str = ""  # what the shuffler says it is
    since: float = field(default_factory=time.monotonic)


class ShufflerLink(DeviceLink):
    """A shuffler in its own thread (:class:`firmware_bridge.device_link.DeviceLink`): its
    figures are a :class:`ShufflerStats`."""

    def __init__(self, name: str, emit: Emit, *, port: PortSettings | None = None, opener: Opener | None = None,
                 backoff: Backoff | None = None, max_timeouts: int = 3,
                 clock: Callable[[], float] = time.time) -> None:
        super().__init__(name, emit, ShufflerStats(), port=port, opener=opener, backoff=backoff,
                         max_timeouts=max_timeouts, clock=clock)

    # -- paced: the simulated table says when (hw_sim.pacing) --------------------------------
    @abc.abstractmethod
    def connect_once(self, deadline_s: float | None = None) -> bool:
        """Open the port and make contact, now, in the caller's thread (one attempt): True once
        a shuffler answered (at once if it already had)."""

    @abc.abstractmethod
    def poll_once(self, deadline_s: float | None = None) -> None:
        """One status poll, now, in the caller's thread, and every deck report that came before
        its answer; contact made first if need be (:meth:`connect_once`). ``deadline_s``: how
        long to wait for the answer (the driver's own timeout by default)."""


class _Again(Exception):
    """The shuffler lost its session (it restarted): shake hands again on the same port."""


class SerialShufflerLink(ShufflerLink):
    """tablectl's shuffler protocol over any pyserial URL (driver ``tablectl``,
    :mod:`firmware_bridge.drivers`). ``opener`` gives the port (the configured one by URL by
    default; :meth:`firmware_bridge.virtual.VirtualLine.open_port` in process).

    >>> from firmware_bridge.virtual import VirtualLine
    >>> line = VirtualLine("shuffler")
    >>> def bridge(request):  # a bridge board: it says hello back, and that it is ready
    ...     for msg in sp.ShufflerDecoder().feed(request):
    ...         if isinstance(msg, sp.Hello):
    ...             line.write(sp.encode_hello_reply(msg.seq, boot_id=1, reads_tags=True, ident="BRIDGE"))
    ...         elif isinstance(msg, sp.GetStatus):
    ...             line.write(sp.encode_status(msg.seq, "ready"))
    >>> line.receive = bridge
    >>> events = []
    >>> link = SerialShufflerLink("shuffler", events.append, shuffler_port("/dev/tablectl/shuffler"),
    ...                           opener=line.open_port)
    >>> link.poll_once()  # the handshake, then one status poll, in this thread
    >>> [(type(e).__name__, e.detail) for e in events]
    [('LinkStatus', 'protocol 1.0 on /dev/tablectl/shuffler'), ('ShufflerState', 'ready')]
    """

    def __init__(self, name: str, emit: Emit, port: PortSettings, *, poll_interval: float = 0.5,
                 answer_timeout: float = 0.3, max_timeouts: int = 3, fault_repeat: float = 2.0,
                 frame_gap: float = sp.FRAME_GAP_S, backoff: Backoff | None = None,
                 clock: Callable[[], float] = time.time, opener: Opener | None = None) -> None:
        super().__init__(name, emit, port=port, opener=opener, backoff=backoff, max_timeouts=max_timeouts,
                         clock=clock)
        self.poll_interval = poll_interval
        self.answer_timeout = answer_timeout
        self.fault_repeat = fault_repeat
        self.frame_gap = frame_gap
        self._seq = 0  # the host's request counter
        self._decoder = sp.ShufflerDecoder()
        self._backlog: list[sp.Message] = []  # messages read with a HELLO_REPLY, not yet handled
        self._last_byte = 0.0
        self._boot_id: int | None = None  # the shuffler's power-up, as its HELLO_REPLY says
        self._last_report: int | None = None  # the SEQ of the last report emitted in this boot
        self._status: tuple[str, int] | None = None  # the last status emitted, since the handshake
        self._status_at = 0.0
        self._answered = False  # a status was answered in this session

    # -- the connection (the loop is DeviceLink.run's) ---------------------------------------------
    def _begin(self, port: Port) -> Port:
        """A port opened afresh: a new decoder (the session is the port itself)."""
        self._decoder = sp.ShufflerDecoder()
        self._backlog = []
        return port

    # -- paced: the simulated table says when ----------------------------------------------------
    def connect_once(self, deadline_s: float | None = None) -> bool:
        """Open the port and shake hands, now (one attempt): True once a shuffler answered."""
        if self._paced is not None:
            return True
        port = self._paced_session()
        if port is None:
            return False
        try:
            if self._handshake(port, deadline_s):
                return True
        except LinkError as exc:
            self._lost(exc)
        self._paced_end()
        return False

    def poll_once(self, deadline_s: float | None = None) -> None:
        """One status poll, now, in the caller's thread, and every deck report that came before
        its answer (taken and acknowledged): the paced simulator's beat (``hw_sim.pacing``),
        where the simulated table, not this link's thread, says when the shuffler is asked. The
        port is opened and the hands shaken first if need be (one attempt each). ``deadline_s``:
        how long to wait for the answer (``answer_timeout`` by default)."""
        deadline_s = self.answer_timeout if deadline_s is None else deadline_s
        try:
            if not self.connect_once(deadline_s):
                return
            port = self._paced_session()  # (open: connect_once kept it)
            seq = self._next_seq()
            self._send(port, sp.encode_get_status(seq))
            self.stats.polls += 1
            deadline = time.monotonic() + deadline_s
            while not self.take(port, self._receive(port), seq):
                if time.monotonic() >= deadline:
                    self.stats.timeouts += 1
                    self._failed(f"{self.name}: no answer to a status poll within {deadline_s:g} s",
                                 "status polls unanswered")
                    self._set_online(False, "no answer to a status poll")
                    self._paced_end()
                    return
        except _Again as exc:  # it restarted: shake hands again at the next poll
            self._failed(f"{self.name}: {exc}", "sessions lost")
            self._paced_end()
        except LinkError as exc:
            self._lost(exc)
            self._paced_end()

    def _serve(self, port: Port) -> None:
        """Shake hands, then poll until the shuffler is lost; shake hands again if it restarts."""
        refused = 0  # sessions in a row refused before a status was answered
        while not self._stop.is_set():
            if not self._handshake(port):
                return
            self._answered = False
            try:
                self._poll(port)
                return
            except _Again as exc:
                refused = 1 if self._answered else refused + 1
                self._failed(f"{self.name}: {exc}", "sessions lost")
                if refused >= self.max_timeouts:  # a bridge that says hello but never keeps a session
                    self._set_online(False, f"{exc} ({refused} sessions in a row)")
                    return

    # -- bytes --------------------------------------------------------------------------------
    def _next_seq(self) -> int:
        self._seq = (self._seq + 1) & 0xFF
        return self._seq

    def _send(self, port: Port, frame: bytes) -> None:
        try:
            port.write(frame)
        except (serial.SerialException, OSError) as exc:
            raise LinkError(f"{self.name}: write failed: {exc}") from exc

    def _receive(self, port: Port) -> list[sp.Message]:
        """The messages that arrive within one port timeout; damage is counted and logged."""
        if self._backlog:
            msgs, self._backlog = self._backlog, []
            return msgs
        try:
            chunk = port.read(port.in_waiting or 1)
        except (serial.SerialException, OSError, TypeError) as exc:
            # A vanished pseudo-terminal or USB adapter: readiness with no data, EIO, or a
            # closed fd inside pyserial.
            raise LinkError(f"{self.name}: read failed: {exc}") from exc
        now = time.monotonic()
        if chunk:
            self._last_byte = now
            items = self._decoder.feed(chunk)
        elif self._decoder.buffered and now - self._last_byte >= self.frame_gap:
            items = self._decoder.flush()  # the line went quiet in the middle of a frame
        else:
            return []
        msgs = []
        for item in items:
            if isinstance(item, sp.Corrupt):
                self.stats.frames_bad += 1
                kind, detail = describe_corrupt(len(item.raw), item.reason)
                self.limiter.note(f"corrupt frames ({kind})", "%s: corrupt frame skipped (%s): %s",
                                  self.name, kind, detail)
            elif isinstance(item, sp.Invalid):
                # The reason names the type or the field at fault, never the payload's bytes.
                self.stats.protocol_errors += 1
                self.limiter.note("malformed messages", "%s: malformed message skipped (%d bytes, CRC "
                                  "good): %s", self.name, len(item.raw), item.reason)
            else:
                msgs.append(item)
        return msgs

    # -- the handshake ----------------------------------------------------------------------
    def _handshake(self, port: Port, deadline_s: float | None = None) -> bool:
        """HELLO until a HELLO_REPLY comes; True once a compatible shuffler answered."""
        for _ in range(self.max_timeouts):
            seq = self._next_seq()
            self._send(port, sp.encode_hello(seq))
            deadline = time.monotonic() + (self.answer_timeout if deadline_s is None else deadline_s)
            while time.monotonic() < deadline and not self._stop.is_set():
                msgs = self._receive(port)
                for i, msg in enumerate(msgs):
                    if isinstance(msg, sp.HelloReply) and msg.seq == seq:
                        # Anything before the reply (a report from the last session) is resent
                        # by the shuffler once the session is open, so it is dropped here.
                        self._backlog = msgs[i + 1:]
                        return self._accept(msg)
            if self._stop.is_set():
                return False
            self.stats.timeouts += 1
        self._failed(f"{self.name}: no answer to HELLO within {self.answer_timeout:g} s", "handshakes unanswered")
        self._set_online(False, f"no answer to {self.max_timeouts} handshakes")
        return False

    def _accept(self, reply: sp.HelloReply) -> bool:
        version = (reply.major, reply.minor)
        ours = sp.PROTOCOL_VERSION
        if not sp.compatible(version):
            detail = (f"{self.name}: refused: the shuffler speaks protocol version {reply.major}.{reply.minor}, "
                      f"this host speaks {ours[0]}.x ({ours[0]}.{ours[1]}); update the bridge firmware "
                      f"or tablectl")
            self._failed(detail, "refused handshakes (protocol version)", logging.ERROR)
            self._set_online(False, detail)
            return False
        self.stats.version = version
        if reply.ident != self.stats.ident or self._boot_id is None:
            log.info("%s: %s, protocol %d.%d, %s", self.name, reply.ident or "(no identification)",
                     reply.major, reply.minor, "reads tags" if reply.reads_tags else "counts only")
        self.stats.ident = reply.ident
        if reply.boot_id != self._boot_id:
            if self._boot_id is not None:
                self.limiter.note("restarts", "%s: the shuffler restarted (boot id %08X -> %08X)", self.name,
                                  self._boot_id, reply.boot_id)
            self._boot_id = reply.boot_id
            self._last_report = None  # a new boot numbers its reports afresh
        self._status = None  # the first status of a session is always emitted
        self.backoff.reset()
        self._set_online(True, f"protocol {reply.major}.{reply.minor} on {self._where()}")
        return True

    # -- polling ------------------------------------------------------------------------------
    def _poll(self, port: Port) -> None:
        """Poll the status and take deck reports until the heartbeat is lost (then return)."""
        unanswered = 0
        pending: tuple[int, float] | None = None  # (SEQ, sent at) of the poll awaiting its answer
        next_poll = time.monotonic()
        while not self._stop.is_set():
            self.limiter.tick()  # the tail of a flood is told within a minute
            now = time.monotonic()
            if pending is None and now >= next_poll:
                seq = self._next_seq()
                self._send(port, sp.encode_get_status(seq))
                self.stats.polls += 1
                pending, next_poll = (seq, now), now + self.poll_interval
            if self.take(port, self._receive(port), pending[0] if pending is not None else None):
                pending, unanswered = None, 0
            if pending is not None and time.monotonic() - pending[1] >= self.answer_timeout:
                pending = None
                unanswered += 1
                self.stats.timeouts += 1
                self._failed(f"{self.name}: no answer to a status poll within {self.answer_timeout:g} s",
                             "status polls unanswered")
                if unanswered >= self.max_timeouts:
                    self.limiter.note("heartbeats lost", "%s: heartbeat lost (%d status polls unanswered)",
                                      self.name, unanswered)
                    self._set_online(False, f"no answer to {unanswered} status polls")
                    return

    def take(self, port: Port, msgs: list[sp.Message], pending: int | None) -> bool:
        """Act on the messages received while the poll with SEQ ``pending`` awaits its answer;
        True if one of them answered it. (The polling loop, and the in-process harness.)"""
        answered = False
        for msg in msgs:
            if isinstance(msg, sp.Status):
                if pending is not None and msg.seq == pending and not answered:
                    answered, self._failures, self._answered = True, 0, True
                    self._on_status(msg)
                # else: the late answer to a poll given up on; the next poll asks again
            elif isinstance(msg, sp.DeckReport):
                self._on_report(port, msg)
            elif isinstance(msg, sp.Nak):
                self._on_nak(msg)
            # HELLO_REPLY late, or our own frames echoed (loop://, RS-485): nothing to do
        return answered

    def _on_status(self, msg: sp.Status) -> None:
        self.stats.statuses += 1
        now = self.mono()[0]  # (the daemon's monotonic clock; the in-process harness's own)
        key = (msg.state, msg.code if msg.state == "error" else 0)
        changed = key != self._status
        if not changed and not (msg.state in sp.FAULT_STATES and now - self._status_at >= self.fault_repeat):
            return
        self._status, self._status_at = key, now
        text = sp.status_text(*key)
        if changed:
            # (a flapping door switch must not flood the log: one line per state, then counts)
            self.limiter.note(f"changes to '{msg.state}'", "%s: %s", self.name, text,
                              level=logging.WARNING if msg.state in sp.FAULT_STATES else logging.INFO)
        mono, boot = self.mono()  # a fault's duration is measured on it, not on wall time
        self.emit(ShufflerState(ts=self.clock(), device=self.name, state=msg.state,
                                code=key[1] if msg.state == "error" else None, detail=text, mono=mono, boot=boot))

    def _on_report(self, port: Port, msg: sp.DeckReport) -> None:
        if msg.seq == self._last_report:
            self.stats.duplicates += 1
            self.limiter.note("deck reports resent", "%s: deck report %d resent (acknowledgement lost); "
                              "acknowledged again", self.name, msg.seq, level=logging.INFO)
        else:
            if self._last_report is not None and msg.seq != (self._last_report + 1) & 0xFF:
                self.limiter.note("gaps in the deck reports", "%s: deck report %d follows report %d: the "
                                  "reports between never arrived", self.name, msg.seq, self._last_report)
            self.stats.reports += 1
            log.info("%s: deck report %d: %d cards counted, %s", self.name, msg.seq, msg.count,
                     "count only" if msg.uids is None else f"{len(msg.uids)} tags read")
            # Emitted before the acknowledgement: should emitting fail, the shuffler resends.
            self.emit(ShufflerCount(ts=self.clock(), device=self.name, count=msg.count, uids=msg.uids,
                                    seq=msg.seq))
            self._last_report = msg.seq
        self._send(port, sp.encode_ack_report(msg.seq))

    def _on_nak(self, msg: sp.Nak) -> None:
        what = sp.TYPE_NAMES.get(msg.refused, f"type 0x{msg.refused:02X}")
        reason = sp.NAK_TEXT.get(msg.reason, f"reason 0x{msg.reason:02X}")
        if msg.reason == sp.NAK_NO_SESSION:  # it restarted: logged by _serve, first of a run only
            raise _Again(f"the shuffler refused {what} ({reason}); shaking hands again")
        self.stats.protocol_errors += 1
        self.limiter.note("refusals (NAK)", "%s: the shuffler refused %s %d: %s", self.name, what, msg.seq, reason)
