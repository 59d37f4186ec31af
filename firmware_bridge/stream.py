r"""The skeleton every stream decoder shares: bytes in, frames and reports of damage out.

A serial line delivers bytes in whatever pieces it likes, with noise, cut frames and a device's
garbage among them. A protocol's decoder (:class:`firmware_bridge.feig.FrameDecoder`,
:class:`firmware_bridge.shuffler.ShufflerDecoder`) splits that stream into frames, whatever
their format, the same way:

- the bytes are kept in one buffer, with the CRC-16/MCRF4XX register after each of them
  (:mod:`firmware_bridge.crc`), so a candidate frame's CRC is checked in constant time, however
  long it claims to be, and junk whose length fields lie costs no more than other junk;
- a byte that cannot start a frame (a bad length, a CRC mismatch) is dropped alone and the scan
  resumes at the next (resynchronisation); dropped bytes collect into one :class:`Corrupt`,
  emitted just before the next frame, when a longest frame's worth has collected, or when the
  input ends (:meth:`StreamDecoder.drain`): a run of garbage costs a bounded number of reports,
  and the output does not depend on how the stream was cut into pieces;
- a piece that cannot complete the candidate in hand is only kept (a port read a byte at a time
  costs little), a large piece is worked through in slices (bounding the CRC states' memory),
  and reported bytes are cut from the buffer once they are half of it (amortised constant cost
  per byte);
- the counters: ``frames_ok`` frames returned, ``frames_bad`` :class:`Corrupt` reports returned,
  ``bytes_skipped`` the bytes in those reports.

A protocol says only how its frames are found: :meth:`StreamDecoder._scan` walks the undecided
bytes, checks each candidate, and appends what it finds. Here is a toy protocol whose frames are
``LEN PAYLOAD CRC-LO CRC-HI`` (``LEN`` counting the whole frame):

>>> from firmware_bridge.crc import crc16_mcrf4xx
>>> class Toy(StreamDecoder[bytes]):
...     def __init__(self) -> None:
...         super().__init__(longest=255)
...     def _scan(self, out, buf, states, final):
...         pos, jstart, need = self._pos, self._jstart, 0
...         while pos < len(buf):
...             length, stop = buf[pos], pos + buf[pos]
...             if length < 3:
...                 if pos == jstart:
...                     self._junk_reason = f"length {length} too small"
...             elif stop > len(buf) and not final:
...                 need = stop  # wait for the rest
...                 break
...             elif stop <= len(buf) and self._crc_matches(pos, stop):
...                 jstart = self._report(out, jstart, pos)
...                 out.append(bytes(buf[pos + 1:stop - 2]))
...                 self.frames_ok += 1
...                 pos = jstart = stop
...                 continue
...             elif pos == jstart:
...                 self._junk_reason = "crc mismatch" if stop <= len(buf) else "truncated"
...             pos += 1  # drop one byte, rescan from the next
...         return pos, jstart, need
>>> def frame(payload: bytes) -> bytes:
...     raw = bytes([len(payload) + 3]) + payload
...     crc = crc16_mcrf4xx(raw)
...     return raw + bytes((crc & 0xFF, crc >> 8))
>>> toy = Toy()
>>> toy.feed(b"\x01" + frame(b"hi")[:3])       # junk, then half a frame: kept
[]
>>> toy.feed(frame(b"hi")[3:] + frame(b"ok"))
[Corrupt(raw=b'\x01', reason='length 1 too small'), b'hi', b'ok']
>>> toy.feed(frame(b"cut")[:4]), toy.buffered
([], 4)
>>> toy.drain()                                 # the input ended: the cut frame is junk
[Corrupt(raw=b'\x06cut', reason='truncated; 4 bytes skipped')]
>>> toy.frames_ok, toy.frames_bad, toy.bytes_skipped, toy.buffered
(2, 2, 5, 0)
"""

from __future__ import annotations

import abc
from array import array
from dataclasses import dataclass
from typing import Generic, TypeVar

from firmware_bridge.crc import CRC_TABLE as _CRC_TABLE
from firmware_bridge.crc import crc16_span, shift_tables

__all__ = ["Corrupt", "StreamDecoder"]

#: what a decoder returns besides its :class:`Corrupt` reports (FEIG's frames, the shuffler's messages)
ItemT = TypeVar("ItemT")

#: :meth:`StreamDecoder.feed` works through a large piece in slices of this size, which bounds the
#: memory the CRC states take (two bytes per buffered byte)
SLICE = 1 << 16


@dataclass(frozen=True, slots=True)
class Corrupt:
    """Bytes a decoder dropped (damage, garbage, a frame cut short), and why the first of them
    was dropped.

    Consecutive dropped bytes are reported together, so ``raw`` is a contiguous piece of the
    stream: concatenating the ``raw`` of every frame and :class:`Corrupt` a decoder returns gives
    back exactly the bytes it was fed.
    """

    raw: bytes
    reason: str


class StreamDecoder(abc.ABC, Generic[ItemT]):
    """The buffer, the CRC states, the resynchronisation's reports and the counters of a stream
    decoder (see the module); a subclass writes :meth:`_scan`.

    ``longest``: the longest frame the protocol allows (or the decoder is bounded to). It sizes
    the CRC's shift tables, and bounds the junk held before it is reported (``_junk_limit``).
    """

    # Slots: feed() reads a dozen attributes per call, and a port may deliver a byte per call.
    __slots__ = ("_junk_limit", "_small", "_big", "_buf", "_states", "_pos", "_jstart", "_need", "_junk_reason",
                 "frames_ok", "frames_bad", "bytes_skipped")

    def __init__(self, *, longest: int) -> None:
        self._junk_limit = longest
        self._small, self._big = shift_tables(longest)
        # The buffer holds the dropped bytes not yet reported, [_jstart, _pos), then the bytes
        # not yet decided, [_pos, len). _states[k] is the CRC register after _buf[:k].
        self._buf = bytearray()
        self._states = array("H", [0])
        self._pos = 0
        self._jstart = 0
        self._need = 0  # feed() need not scan until the buffer holds this many bytes
        self._junk_reason = ""  # why the first byte in [_jstart, _pos) was dropped
        self.frames_ok = 0
        self.frames_bad = 0
        self.bytes_skipped = 0

    @property
    def buffered(self) -> int:
        """Bytes held: a partial frame plus dropped bytes not yet reported."""
        return len(self._buf) - self._jstart

    def feed(self, data: bytes | bytearray | memoryview) -> list[ItemT | Corrupt]:
        """Add ``data``; return the frames and corrupt-data reports it completes, in stream order.

        Never raises on any byte content; a partial frame stays buffered for the next call.
        """
        n = len(data)
        if n > SLICE:
            view = memoryview(data)
            out: list[ItemT | Corrupt] = []
            for start in range(0, n, SLICE):
                out += self.feed(view[start:start + SLICE])
            return out
        buf = self._buf
        buf += data
        states = self._states
        reg = states[-1]
        if n == 1:  # (a port read a byte at a time: no loop)
            states.append((reg >> 8) ^ _CRC_TABLE[(reg ^ data[0]) & 0xFF])
        else:
            for byte in data:
                reg = (reg >> 8) ^ _CRC_TABLE[(reg ^ byte) & 0xFF]
                states.append(reg)
        if len(buf) < self._need:
            # A port read a few bytes at a time: nothing can be decided before the candidate
            # frame in hand is complete, so the bytes and their states are only kept.
            return []
        out = []
        pos, jstart, need = self._scan(out, buf, states, False)
        if jstart >= len(buf) >> 1:
            # Reported bytes are dead: cut them once they are half the buffer, so each byte is
            # moved a bounded number of times (amortised constant cost per byte).
            del buf[:jstart]
            del states[:jstart]
            pos -= jstart
            if need:
                need -= jstart
            jstart = 0
        self._pos, self._jstart, self._need = pos, jstart, need
        return out

    def drain(self) -> list[ItemT | Corrupt]:
        """The input has ended (a deadline passed, the line went quiet): give up on every claimed
        length still incomplete, one byte at a time, and rescan what follows it, so that a good
        frame held back by a junk byte's claim is still returned. Everything left is reported;
        the decoder is left empty."""
        out: list[ItemT | Corrupt] = []
        pos, jstart, _ = self._scan(out, self._buf, self._states, True)
        self._report(out, jstart, pos)
        self._reset()
        return out

    @abc.abstractmethod
    def _scan(self, out: list[ItemT | Corrupt], buf: bytearray, states: array[int],
              final: bool) -> tuple[int, int, int]:
        """Decide what can be decided in the undecided bytes, ``buf[_pos:]``: append each frame
        found, and the junk before it (:meth:`_report`), to ``out``; return the new ``(pos,
        jstart, need)``: where the undecided bytes now start, where the junk not yet reported
        starts, and the buffer's length before which no scan can decide more (0: any byte may).

        ``buf`` is the buffer (``_buf``), ``states`` the CRC register after each of its bytes
        (``_states``: ``states[k]`` after ``buf[:k]``, :meth:`_crc_matches`); :meth:`feed` has
        appended the new bytes to both, and cuts what is reported afterwards. ``final``: the
        input has ended (:meth:`drain`): a claim the buffer cannot complete is junk, not
        something to wait for."""

    # --- for the subclasses' scans ---

    def _crc_matches(self, pos: int, stop: int) -> bool:
        """Whether ``_buf[pos:stop]``, its CRC (low byte first) at its end, is intact: the
        register over the whole frame, CRC included, is 0 when the CRC matches. Constant time.
        (A scan may inline it: it is the hot path.)"""
        length = stop - pos
        reg = self._states[pos] ^ 0xFFFF
        lo, hi = self._small[length & 0xFF]
        reg = lo[reg & 0xFF] ^ hi[reg >> 8]
        if length > 0xFF:
            lo, hi = self._big[length >> 8]
            reg = lo[reg & 0xFF] ^ hi[reg >> 8]
        return reg == self._states[stop]

    def _crc_mismatch(self, pos: int, stop: int) -> str:
        """The reason a candidate ``_buf[pos:stop]`` whose CRC does not match is dropped."""
        buf = self._buf
        got = buf[stop - 2] | (buf[stop - 1] << 8)
        return f"crc mismatch: got 0x{got:04X} want 0x{crc16_span(self._states, pos, stop - 2):04X}"

    def _junk_text(self, n: int) -> str:
        """The reason of a report of ``n`` dropped bytes: the first byte's, and how many."""
        return self._junk_reason if n == 1 else f"{self._junk_reason}; {n} bytes skipped"

    def _report(self, out: list[ItemT | Corrupt], jstart: int, pos: int) -> int:
        """Report the dropped bytes [jstart, pos), if any; return the new start of junk."""
        if pos > jstart:
            report = Corrupt(bytes(self._buf[jstart:pos]), self._junk_text(pos - jstart))
            self._count_bad(report)
            out.append(report)
        return pos

    def _count_bad(self, report: Corrupt) -> None:
        self.frames_bad += 1
        self.bytes_skipped += len(report.raw)

    def _reset(self) -> None:
        """Forget every byte held."""
        self._buf.clear()
        self._states = array("H", [0])
        self._pos = self._jstart = self._need = 0
