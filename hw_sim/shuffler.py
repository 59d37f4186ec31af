"""A simulated automatic shuffler (with its bridge board) on a pseudo-terminal.

It speaks tablectl's shuffler protocol (``firmware_bridge.shuffler``, described in
``docs/protocols/shuffler.md``) exactly as the bridge board must: it answers HELLO and status
polls, keeps each deck report until the host acknowledges it and resends it every
``resend_interval`` (same SEQ) until then, one report at a time, oldest first, pausing while
the host has been silent for ``HOST_GONE_S``.

A scripted dealer shuffles and waits for the host to have the report before dealing:

>>> import tempfile, pathlib
>>> from hw_sim.pty_device import PtyDevice, SimDevice
>>> sim = SimShuffler(PtyDevice(pathlib.Path(tempfile.mkdtemp()) / "shuffler"))
>>> seq = sim.shuffle(count=52)       # no host is listening here
>>> seq, sim.pending
(1, 1)
>>> sim.wait_acked(seq, timeout=0.01)
False
>>> sim.jam(); sim.state
'jam'
>>> sim.error(0x0102); (sim.state, sim.code)
('error', 258)
>>> sim.clear(); sim.state
'ready'
"""

from __future__ import annotations

import random
import threading
import time
from collections import deque
from dataclasses import dataclass

from firmware_bridge import shuffler as sp
from hw_sim.pty_device import DeviceEnd, SimDevice


@dataclass(frozen=True, slots=True)
class _Report:
    number: int  # counted from 1 over the simulator's life; the wire SEQ is its low byte at boot
    seq: int
    count: int
    uids: tuple[str, ...] | None


class SimShuffler(SimDevice):
    """The shuffler end of a pseudo-terminal. Thread-safe: the dealer shuffles and injects
    faults while the shuffler's thread answers the host."""

    thread_name = "sim-shuffler"

    def __init__(self, device: DeviceEnd, *, version: tuple[int, int] = sp.PROTOCOL_VERSION,
                 reads_tags: bool = True, ident: str = "tablectl SimShuffler",
                 resend_interval: float = sp.RESEND_INTERVAL_S, shuffle_time: float = 0.0,
                 seed: int | None = None, paced: bool = False) -> None:
        """``paced``: a report is sent only when the host polls, just before the status answer
        (never on the board's own timer, nor held back while the host is quiet): the paced
        simulator's shuffler (``hw_sim.pacing``), whose report then arrives in a poll the
        script decides, not one the machine's speed decides."""
        super().__init__(device)
        self.paced = paced
        self.version = version  # may be changed while running (a re-flashed bridge)
        self.reads_tags = reads_tags
        self.ident = ident
        self.resend_interval = resend_interval
        self.shuffle_time = shuffle_time
        self._rng = random.Random(seed)
        self._cond = threading.Condition()  # guards everything below; notified on acks and polls
        self.state = "ready"
        self.code = 0
        self.boot_id = self._rng.getrandbits(32)
        self._session = False  # a compatible HELLO came since power-up
        self._queue: deque[_Report] = deque()  # unacknowledged reports, oldest first
        self._sent_at: float | None = None  # when the head report was last sent; None: send now
        self._seq = 0  # the last report SEQ used in this boot
        self._number = 0
        self._numbers: dict[int, int] = {}  # wire SEQ -> the latest report number that used it
        self._acked: set[int] = set()  # report numbers acknowledged
        self._decoder = sp.ShufflerDecoder()
        self._last_byte = 0.0
        self._heard_at = 0.0  # when the host last sent a frame
        # counters
        self.requests = 0  # frames from the host acted on or refused
        self.bad_requests = 0  # corrupt or invalid frames from the host
        self.polls = 0  # status polls answered
        self.reports_sent = 0  # deck report frames written, resends included
        self.resends = 0
        self.acks = 0  # acknowledgements taken (not the ones "lost")
        self.host_version: tuple[int, int] | None = None
        # fault injection
        self.mute = False  # stops answering and sending (heartbeat loss)
        self.corrupt_next = 0  # flip a bit in the CRC of the next N frames sent
        self.garbage_next = b""  # bytes sent before the next frame
        self.lose_acks = 0  # the next N acknowledgements are lost on the way

    # -- the dealer's side -------------------------------------------------------------------
    def shuffle(self, uids: list[str] | tuple[str, ...] | None = None, count: int | None = None, *,
                duration: float | None = None) -> int:
        """Shuffle a deck: ``shuffling`` for ``duration`` (default ``shuffle_time``), then queue
        the deck report and go ``ready``. Returns the report's SEQ.

        ``uids`` are the tags in the order the shuffler reads them; ``count`` defaults to their
        number (give both for a card counted but not read). A shuffler that does not read tags
        reports only the count. Allowed from any state: a fault is taken to have been cleared
        by the dealer re-running the deck.
        """
        if uids is None and count is None:
            raise ValueError("shuffle needs the deck's uids, its count, or both")
        if count is None:
            count = len(uids)  # type: ignore[arg-type]
        report_uids = tuple(u.upper() for u in uids) if uids is not None and self.reads_tags else None
        sp.encode_deck_report(0, count, report_uids)  # raises ValueError now, not in the thread
        with self._cond:
            self.state, self.code = "shuffling", 0
        wait = self.shuffle_time if duration is None else duration
        if wait > 0:
            self._stop.wait(wait)
        with self._cond:
            self._seq = self._seq % 0xFF + 1  # 1..255, then 1 again
            self._number += 1
            self._queue.append(_Report(self._number, self._seq, count, report_uids))
            self._numbers[self._seq] = self._number
            self.state = "ready"
            return self._seq

    def wait_acked(self, seq: int | None = None, timeout: float = 5.0) -> bool:
        """Block until report ``seq`` (default: the last one) was acknowledged; False on timeout
        or if that report was lost in a :meth:`reboot`."""
        deadline = time.monotonic() + timeout
        with self._cond:
            number = self._numbers.get(self._seq if seq is None else seq)
            if number is None:
                return False
            return self._cond.wait_for(lambda: number in self._acked, max(0.0, deadline - time.monotonic()))

    def is_acked(self, seq: int | None = None) -> bool:
        """Whether report ``seq`` (default: the last one) was acknowledged (see :meth:`wait_acked`)."""
        with self._cond:
            number = self._numbers.get(self._seq if seq is None else seq)
            return number is not None and number in self._acked

    def wait_polls(self, count: int, timeout: float) -> bool:
        """Block until ``count`` more status polls were answered; False on timeout."""
        with self._cond:
            target = self.polls + count
            return self._cond.wait_for(lambda: self.polls >= target, timeout)

    @property
    def pending(self) -> int:
        """Reports not yet acknowledged."""
        with self._cond:
            return len(self._queue)

    @property
    def last_seq(self) -> int:
        """The SEQ of the last report queued in this boot (0 before the first)."""
        return self._seq

    # -- faults -------------------------------------------------------------------------------
    def _set(self, state: str, code: int = 0) -> None:
        with self._cond:
            self.state, self.code = state, code

    def jam(self) -> None:
        self._set("jam")

    def door_open(self) -> None:
        self._set("door_open")

    def error(self, code: int) -> None:
        """An error with the maker's ``code`` (0xFF00..0xFFFF are the bridge board's own)."""
        if not 0 <= code <= 0xFFFF:
            raise ValueError(f"error code must be 0..0xFFFF, not {code!r}")
        self._set("error", code)

    def clear(self) -> None:
        """The dealer clears the fault: ready again."""
        self._set("ready")

    def reboot(self) -> None:
        """Power cycle: a new boot id, no session, unacknowledged reports lost, SEQ from 1."""
        with self._cond:
            self.boot_id = (self.boot_id + 1 + self._rng.getrandbits(31)) & 0xFFFF_FFFF
            self._session = False
            for lost in self._queue:  # a wait on a lost report fails; one acknowledged still holds
                if self._numbers.get(lost.seq) == lost.number:
                    del self._numbers[lost.seq]
            self._queue.clear()
            self._sent_at = None
            self._seq = 0
            self.state, self.code = "ready", 0

    # -- answering ------------------------------------------------------------------------------
    def _send(self, frame: bytes) -> None:
        """Write one frame, with any fault the test asked for."""
        if self.garbage_next:
            frame, self.garbage_next = self.garbage_next + frame, b""
        if self.corrupt_next:
            self.corrupt_next -= 1
            frame = frame[:-1] + bytes([frame[-1] ^ 0x01])
        self.device.write(frame)

    def _handle(self, msg: sp.Message | sp.Invalid) -> None:
        self._heard_at = time.monotonic()
        if isinstance(msg, sp.Invalid):
            self.bad_requests += 1
            if not self.mute:
                reason = sp.NAK_UNKNOWN_TYPE if msg.type not in sp.TYPE_NAMES else sp.NAK_BAD_PAYLOAD
                self._send(sp.encode_nak(msg.seq, msg.type, reason))
            return
        if self.mute:
            return
        self.requests += 1
        with self._cond:
            if isinstance(msg, sp.Hello):
                self.host_version = (msg.major, msg.minor)
                self._send(sp.encode_hello_reply(msg.seq, version=self.version, boot_id=self.boot_id,
                                                 reads_tags=self.reads_tags, ident=self.ident))
                self._session = sp.compatible(self.host_version, self.version)
                self._sent_at = None  # (re)send the oldest report at once
            elif isinstance(msg, sp.GetStatus):
                if not self._session:
                    self._send(sp.encode_nak(msg.seq, sp.T_GET_STATUS, sp.NAK_NO_SESSION))
                    return
                if self.paced:
                    self._send_report(polled=True)  # (its lock is this one: re-entrant)
                self._send(sp.encode_status(msg.seq, self.state, self.code))
                self.polls += 1
                self._cond.notify_all()
            elif isinstance(msg, sp.AckReport):
                if not self._session or not self._queue or self._queue[0].seq != msg.seq:
                    return  # a late or stray acknowledgement: nothing waits for it
                if self.lose_acks:
                    self.lose_acks -= 1
                    return
                self._acked.add(self._queue.popleft().number)
                self.acks += 1
                self._sent_at = None
                self._cond.notify_all()
            else:  # a shuffler-to-host message sent to the shuffler
                self._send(sp.encode_nak(msg.seq, sp.message_type(msg), sp.NAK_UNKNOWN_TYPE))

    def _send_report(self, polled: bool = False) -> None:
        """Send the oldest unacknowledged report if it is due (paced: only when ``polled``)."""
        with self._cond:
            now = time.monotonic()
            if self.paced and not polled:
                return
            if self.mute or not self._session or not self._queue or (
                    not self.paced and now - self._heard_at > sp.HOST_GONE_S):
                return  # (no host has spoken for a while: no use filling a line nobody reads)
            if self._sent_at is not None and now - self._sent_at < self.resend_interval:
                return
            report = self._queue[0]
            if self._sent_at is not None:
                self.resends += 1
            self._sent_at = now
            self.reports_sent += 1
            self._send(sp.encode_deck_report(report.seq, report.count, report.uids))

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.device.is_open:
                self._stop.wait(0.01)
                continue
            self.receive(self.device.read(0.02))

    def receive(self, data: bytes) -> None:
        """One turn: take bytes from the host (maybe none), answer every whole request in them,
        then send the oldest report if it is due (the shuffler's thread, or the in-process
        harness synchronously, ``hw_sim.harness``)."""
        now = time.monotonic()
        if data:
            self._last_byte = now
            items = self._decoder.feed(data)
        elif self._decoder.buffered and now - self._last_byte >= sp.FRAME_GAP_S:
            items = self._decoder.flush()
        else:
            items = []
        for item in items:
            if isinstance(item, sp.Corrupt):
                self.bad_requests += 1
            else:
                self._handle(item)
        self._send_report()

    def _line_lost(self) -> None:
        """Unplugged: any half-frame is lost. The bridge board keeps its power, its session and
        its unacknowledged reports."""
        self._decoder = sp.ShufflerDecoder()
