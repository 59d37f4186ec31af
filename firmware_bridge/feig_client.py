"""A FEIG ISO Host reader as the host sees it: ask for an inventory, get tags back.

Synchronous and single-threaded; :mod:`firmware_bridge.reader_link` runs it in a thread,
``tablectl tags`` runs it in the foreground. Corrupt frames are counted, logged by kind and
length (never their bytes: they carry tag UIDs), rate-limited (:mod:`firmware_bridge.log_limit`),
and skipped; they never raise.

>>> import serial
>>> port = serial.serial_for_url("loop://", timeout=0.01)
>>> client = FeigClient(port, device="reader")
>>> client.inventory(antennas=None, deadline_s=0.05)   # nobody answers on a loop
Traceback (most recent call last):
...
firmware_bridge.errors.ResponseTimeout: reader: no answer to inventory within 0.05 s
"""

from __future__ import annotations

import logging
import time

import serial

from firmware_bridge import feig
from firmware_bridge.errors import (
    CorruptAnswer,
    LinkError,
    ProtocolError,
    ReaderStatusError,
    ResponseTimeout,
    WrongAddress,
)
from firmware_bridge.log_limit import LogLimiter, describe_corrupt
from firmware_bridge.serial_port import Port

log = logging.getLogger("tablectl.bridge")


class FeigClient:
    """Talks to one reader over an open pyserial port.

    ``com_adr`` is the reader's bus address (COM-ADR, 0..254): requests go to it, and an answer
    carrying another address is another device's on a shared line: counted in
    ``foreign_answers`` and dropped, never taken as ours. ``BROADCAST`` (0xFF) reaches the reader
    whatever its address and accepts an answer from any: for the bench tools (``tablectl tags``,
    ``register``, ``verify``), whose reader is alone on its cable; the daemon never uses it.
    """

    def __init__(self, port: Port, *, device: str, com_adr: int = feig.BROADCAST,
                 ant_sel_bytes: int = 2, max_parts: int = 64, limiter: LogLimiter | None = None) -> None:
        if not 0 <= com_adr <= 0xFF:
            raise ValueError(f"com_adr must be 0..255, not {com_adr}")
        self.port = port
        self.device = device
        self.com_adr = com_adr
        self.ant_sel_bytes = ant_sel_bytes
        self.max_parts = max_parts
        self.decoder = feig.FrameDecoder(from_reader=True)
        self.frames_bad = 0
        self.foreign_answers = 0  # answers from another bus address, dropped
        self.timeouts = 0
        self.protocol_errors = 0
        self.status_errors = 0
        self.unexpected = 0  # CRC-valid answers to another command
        self.stale_bytes = 0  # late bytes discarded before a new inventory
        # Shared with the link, so that the rate limit and the counts by kind outlive a reconnect.
        self.limiter = limiter or LogLimiter(log, prefix=f"{device}: ")

    def _request(self, antennas: int | None, more: bool) -> bytes:
        return feig.inventory_request(antennas=antennas, more=more, com_adr=self.com_adr,
                                      ant_sel_bytes=self.ant_sel_bytes)

    def _exchange(self, request: bytes, cmd: int, deadline_s: float) -> feig.Frame:
        try:
            self.port.write(request)
        except (serial.SerialException, OSError) as exc:
            raise LinkError(f"{self.device}: write failed: {exc}") from exc
        deadline = time.monotonic() + deadline_s
        damaged = 0
        foreign: int | None = None  # the address of the last answer from another device
        while True:
            try:
                chunk = self.port.read(self.port.in_waiting or 1)
            except (serial.SerialException, OSError, TypeError) as exc:
                # A pseudo-terminal or USB adapter that vanished reports readiness with no data
                # (SerialException) or EIO (OSError); pyserial can also trip over its own closed fd.
                raise LinkError(f"{self.device}: read failed: {exc}") from exc
            items = self.decoder.feed(chunk)
            expired = time.monotonic() >= deadline
            if expired:
                # Nothing more will come: lengths still claimed by junk are refuted, so an answer
                # they held back is still found (drain rescans; it leaves the decoder empty).
                items += self.decoder.drain()
            for item in items:
                if isinstance(item, feig.Corrupt):
                    damaged += 1
                    self._log_corrupt(item)
                elif item.raw == request:
                    continue  # our own request echoed (RS-485 adapters, loop://): not an answer
                elif item.com_adr != self.com_adr and self.com_adr != feig.BROADCAST:
                    # Another device's answer on a shared line: counted, never logged (it may
                    # carry the UIDs of cards on its antennas), never taken as ours.
                    self.foreign_answers += 1
                    foreign = item.com_adr
                elif item.cmd != cmd:
                    self.unexpected += 1
                    self.limiter.note("unexpected answers", "%s: unexpected answer to command 0x%02X "
                                      "skipped (%d bytes)", self.device, item.cmd, len(item.raw))
                else:
                    return item
            if expired:
                if damaged:
                    # The reader answered, damaged: it is alive, so this is no heartbeat loss.
                    raise CorruptAnswer(f"{self.device}: the answer to {_NAMES.get(cmd, hex(cmd))} "
                                        f"arrived damaged; cycle dropped")
                self.timeouts += 1
                if foreign is not None:
                    raise WrongAddress(self.device, seen=foreign, expected=self.com_adr)
                raise ResponseTimeout(f"{self.device}: no answer to {_NAMES.get(cmd, hex(cmd))} "
                                      f"within {deadline_s:g} s")

    def _discard_stale(self) -> None:
        """Before a fresh inventory, drop whatever is still in the line: an answer that came
        after its deadline would otherwise be taken for the answer to the next request, and
        the client would stay one answer behind for good."""
        try:
            stale = self.port.in_waiting
            if stale:
                self.port.reset_input_buffer()
                self.stale_bytes += stale
                self.limiter.note("discards of late bytes", "%s: %d late bytes discarded before a new "
                                  "inventory", self.device, stale)
        except (serial.SerialException, OSError, TypeError) as exc:
            raise LinkError(f"{self.device}: cannot clear the input: {exc}") from exc
        partial = self.decoder.flush()
        if partial is not None:
            self._log_corrupt(partial)

    def _log_corrupt(self, item: feig.Corrupt) -> None:
        self.frames_bad += 1
        kind, detail = describe_corrupt(len(item.raw), item.reason)
        self.limiter.note(f"corrupt frames ({kind})", "%s: corrupt frame skipped (%s): %s", self.device,
                          kind, detail)

    def inventory(self, *, antennas: int | None, deadline_s: float = 0.5) -> list[feig.TagRecord]:
        """One full inventory cycle (fetching every part after status 0x94).

        ``antennas`` is the bitmask of antennas to scan (antenna information asked for), or
        None for a single-antenna reader answering without it. A malformed answer raises
        :class:`ProtocolError` after logging what is wrong (never the frame's bytes).
        """
        tags: list[feig.TagRecord] = []
        more = False
        self._discard_stale()
        bound = max(feig.max_answer(antennas), feig.STANDARD_MAX)
        if self.decoder.max_frame != bound:
            # Lengths above the longest answer this request can get are junk: bounding them
            # bounds what a lying length field holds back (the decoder is empty after the flush).
            self.decoder = feig.FrameDecoder(from_reader=True, max_frame=bound)
        for _ in range(self.max_parts):
            frame = self._exchange(self._request(antennas, more), feig.CMD_INVENTORY, deadline_s)
            try:
                reply = feig.parse_inventory(frame, with_antennas=antennas is not None)
            except ProtocolError as exc:
                self.protocol_errors += 1
                self.limiter.note("malformed answers", "%s: malformed answer skipped (%d bytes, CRC "
                                  "good): %s", self.device, len(frame.raw), exc)
                raise
            if reply.status not in (feig.STATUS_OK, feig.STATUS_MORE_DATA, feig.STATUS_NO_TRANSPONDER,
                                    feig.STATUS_RF_WARNING):
                # An RF error or an overflow is a failed cycle, not an empty table: reporting it
                # as "no tags" would count every card towards leaving the table.
                self.status_errors += 1
                raise ReaderStatusError(f"{self.device}: inventory status 0x{reply.status:02X} "
                                        f"({feig.STATUS_TEXT.get(reply.status, 'unknown')}); cycle dropped")
            tags.extend(reply.tags)
            if not reply.more:
                return tags
            more = True
        raise ProtocolError(f"{self.device}: reader kept answering 'more data' after {self.max_parts} parts")


_NAMES = {feig.CMD_INVENTORY: "inventory", feig.CMD_GET_SOFTWARE_VERSION: "get software version"}
