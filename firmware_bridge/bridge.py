"""The bridge board's protocol, the host's side: lines in, frames and whole cycles out; the
host's commands encoded. Pure: no port, no clock (docs/protocols/bridge.md).

A line is ``KIND SEQ FIELD... *CRC`` and CR LF; its CRC is CRC-16/MCRF4XX (the CRC16-CCITT of
Klipper's protocol, the FEIG frames' too) over every byte before the ``*``.

>>> encode("CYCLE", 3)
b'CYCLE 0003 *7ACD\\n'
>>> d = LineDecoder()
>>> d.feed(b"HB 0019 12 7 *B290\\r\\nHB 0019 12 7 *B291\\r\\n")
[Frame(kind='HB', seq=25, fields=('12', '7')), BadLine(reason='crc mismatch', length=18)]
>>> a = CycleAssembler()
>>> lines = (b"CYCLE 0013 7 3 *7901", b"TAGS 0014 1 OK 2 E004015012345678 E0040150A05F0001 *6B4F",
...          b"ERR 0015 2 E02 busy-stuck *0070", b"TAGS 0016 2 E02 0 *9966", b"TAGS 0017 3 OK 0 *3680",
...          b"END 0018 7 41 *ECB0")
>>> [a.feed(parse_line(line)) for line in lines][-1]  # doctest: +ELLIPSIS
Cycle(number=7, zones=(ZoneSnapshot(zone=1, state='OK', tags=(('E004015012345678', None), ...)), ...), ms=41,
      errors=((2, 'E02'),))
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from firmware_bridge.crc import crc16_mcrf4xx as _crc
from firmware_bridge.errors import ProtocolError

__all__ = ["PROTOCOL_VERSION", "MAX_LINE", "MIN_LINE", "Frame", "BadLine", "LineDecoder", "parse_line", "encode",
           "Hello", "ZoneInfo", "ZoneSnapshot", "Cycle", "Dropped", "CycleAssembler", "parse_hello", "parse_zone",
           "ERRORS"]

PROTOCOL_VERSION = (1, 0)
MAX_LINE = 2048
#: the board's error codes and their names (docs/protocols/bridge.md, "Errors")
ERRORS = {"E01": "no-answer", "E02": "busy-stuck", "E03": "reset", "E04": "antenna", "E05": "incomplete",
          "E06": "no-chip", "E09": "firmware"}
_HEX = frozenset(b"0123456789ABCDEF")
_PRINTABLE = bytes(range(0x20, 0x7F)).replace(b"*", b"")
#: a frame's form (docs/protocols/bridge.md, "Lines"): KIND (2..5 of A..Z), SEQ (4 hex digits), each
#: FIELD (printable ASCII but '*') after a space, then " *" and the CRC (4 hex digits); a CR may end it
_FORM = re.compile(rb"([A-Z]{2,5}) ([0-9A-F]{4})((?: [\x21-\x29\x2B-\x7E]+)*) \*([0-9A-F]{4})\r?")


@dataclass(frozen=True, slots=True)
class Frame:
    """A line that passed its CRC and has a frame's form."""

    kind: str
    seq: int
    fields: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BadLine:
    """A line dropped: why, and its length (never its bytes: a TAGS line carries UIDs)."""

    reason: str
    length: int


def encode(kind: str, seq: int, fields: tuple[str, ...] = ()) -> bytes:
    """A host command's line (LF-terminated), with its CRC."""
    body = " ".join((kind, f"{seq & 0xFFFF:04X}", *fields)).encode("ascii") + b" "
    return body + f"*{_crc(body):04X}\n".encode("ascii")


def parse_line(line: bytes) -> Frame | BadLine:
    """One line, its LF removed (a CR before it is dropped here).

    >>> parse_line(b"RUN 0004 *4FF7")
    Frame(kind='RUN', seq=4, fields=())
    >>> parse_line(b"RUN 0004 4FF7")
    BadLine(reason='no crc', length=13)
    """
    return _parse(line, 0, len(line))


def _parse(buf: bytes | bytearray, start: int, stop: int) -> Frame | BadLine:
    """:func:`parse_line` of ``buf[start:stop]``, the line read where it lies (the decoder's buffer)."""
    m = _FORM.fullmatch(buf, start, stop)
    if m is not None:
        # (the line of a frame, nearly every line: its form in one match, what the steps below
        # check one by one to say what is wrong with a line that is not one)
        crc_at = m.end(3) + 1
        if _crc(buf[start:crc_at]) != int(m[4], 16):
            return BadLine("crc mismatch", stop - start - (buf[stop - 1] == 0x0D))
        fields = m[3]
        return Frame(m[1].decode(), int(m[2], 16), tuple(fields[1:].decode().split(" ")) if fields else ())
    line = bytes(buf[start:stop])
    if line.endswith(b"\r"):
        line = line[:-1]
    n = len(line)
    star = line.rfind(b" *")
    if star < 0 or len(line) - star != 6 or not _HEX.issuperset(line[star + 2:]):
        return BadLine("no crc", n)
    if _crc(line[:star + 1]) != int(line[star + 2:], 16):
        return BadLine("crc mismatch", n)
    head = line[:star]
    if head.translate(None, _PRINTABLE):
        return BadLine("syntax", n)
    parts = head.decode("ascii").split(" ")
    if len(parts) < 2 or "" in parts:
        return BadLine("syntax", n)
    kind, seq = parts[0], parts[1]
    if not (2 <= len(kind) <= 5 and kind.isalpha() and kind.isupper()) \
            or len(seq) != 4 or not _HEX.issuperset(seq.encode()):
        return BadLine("syntax", n)
    return Frame(kind, int(seq, 16), tuple(parts[2:]))


#: the shortest frame: KIND (2), SEQ (4), " *", the CRC (4) and two spaces: a shorter line is junk
MIN_LINE = 13


class LineDecoder:
    """Bytes in, frames and bad lines out, in order; ``feed`` never raises. A line over
    :data:`MAX_LINE` is dropped as it grows, up to its LF; lines too short to be a frame (empty
    lines, noise between LFs) are counted together, as one ``BadLine("junk", bytes)`` given before
    the next frame or bad line, or by :meth:`flush`. Each byte is searched for LF once and each
    line checked once: linear in the input, whatever it is (``bench/decoder_worst.py``).

    Counters: ``frames_ok``, ``frames_bad``, ``bytes_skipped`` (in bad, junk and overlong lines).

    >>> d = LineDecoder()
    >>> d.feed(b"\\n\\n\\x03\\r\\nHB 0019 12 7 *B290\\r\\n")
    [BadLine(reason='junk', length=5), Frame(kind='HB', seq=25, fields=('12', '7'))]
    """

    def __init__(self, max_line: int = MAX_LINE) -> None:
        self.max_line = max_line
        self._buf = bytearray()
        self._dropping = 0  # bytes of an overlong line dropped so far (0: none under way)
        self._junk = 0  # bytes of short lines not reported yet
        self.frames_ok = 0
        self.frames_bad = 0
        self.bytes_skipped = 0

    @property
    def buffered(self) -> int:
        return len(self._buf)

    def feed(self, data: bytes) -> list[Frame | BadLine]:
        buf = self._buf
        if data == b"\n" and not buf and not self._dropping:  # (an empty line, read a byte at a time)
            self._junk += 1
            return []
        if b"\n" not in data:  # (the common piece of a line, or a port read a byte at a time)
            buf += data
            if len(buf) > self.max_line:  # no LF in sight: the line is too long already
                self._dropping += len(buf)
                buf.clear()
            return []
        out: list[Frame | BadLine] = []
        start = len(buf)
        buf += data
        pos = 0
        find, minimum, maximum = buf.find, MIN_LINE, self.max_line
        while True:
            i = find(b"\n", max(pos, start))
            if i < 0:
                break
            n = i - pos
            if self._dropping:
                self._bad(out, BadLine("line too long", self._dropping + n + 1))
                self._dropping = 0
            elif n < minimum:
                self._junk += n + 1
            elif n + 1 > maximum:
                self._bad(out, BadLine("line too long", n + 1))
            else:
                item = _parse(buf, pos, i)
                if isinstance(item, Frame):
                    if self._junk:
                        self._bad(out, None)
                    self.frames_ok += 1
                    out.append(item)
                else:
                    self._bad(out, item)
            pos = start = i + 1
        del buf[:pos]
        if len(buf) > maximum:
            self._dropping += len(buf)
            buf.clear()
        return out

    def _bad(self, out: list[Frame | BadLine], item: BadLine | None) -> None:
        """Report a bad line (None: only the junk held), the junk held first."""
        if self._junk:
            junk, self._junk = self._junk, 0
            self.frames_bad += 1
            self.bytes_skipped += junk
            out.append(BadLine("junk", junk))
        if item is not None:
            self.frames_bad += 1
            self.bytes_skipped += item.length
            out.append(item)

    def flush(self) -> list[BadLine]:
        """Drop what is held: the junk not reported yet, and a line cut short (the port closed,
        a reconnect)."""
        out: list[Frame | BadLine] = []
        self._bad(out, None)
        held = len(self._buf) + self._dropping
        self._buf.clear()
        self._dropping = 0
        if held:
            self._bad(out, BadLine("truncated", held))
        return [b for b in out if isinstance(b, BadLine)]


# -- what the frames say ----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hello:
    """The board's HELLO: the request it answers (None at power-up), its version, ident, boot id
    and zone count."""

    hseq: int | None
    version: tuple[int, int]
    ident: str
    boot: str
    zones: int


@dataclass(frozen=True, slots=True)
class ZoneInfo:
    """A zone's capabilities (ZONE)."""

    zone: int
    chip: str
    air: str
    capacity: int
    rssi: bool


@dataclass(frozen=True, slots=True)
class ZoneSnapshot:
    """A zone's TAGS: ``state`` "OK" or an error code; ``tags`` ``(uid, rssi or None)``."""

    zone: int
    state: str
    tags: tuple[tuple[str, int | None], ...]


@dataclass(frozen=True, slots=True)
class Cycle:
    """A whole cycle: its number, each zone's snapshot in zone order, and how long it took."""

    number: int
    zones: tuple[ZoneSnapshot, ...]
    ms: int
    errors: tuple[tuple[int, str], ...] = ()

    def failed(self) -> list[ZoneSnapshot]:
        return [z for z in self.zones if z.state != "OK"]


@dataclass(frozen=True, slots=True)
class Dropped:
    """A cycle that could not be taken whole: why."""

    reason: str


def _int(text: str, what: str, lo: int, hi: int) -> int:
    if not text.isdigit() or not lo <= int(text) <= hi:
        raise ProtocolError(f"{what} {text[:12]!r} is not a number from {lo} to {hi}")
    return int(text)


def _fields(frame: Frame, n: int) -> tuple[str, ...]:
    if len(frame.fields) < n:
        raise ProtocolError(f"{frame.kind} has {len(frame.fields)} fields, wants {n}")
    return frame.fields


def parse_hello(frame: Frame) -> Hello:
    """>>> parse_hello(Frame("HELLO", 0, ("-", "1.0", "tablectl-bridge/0.1", "2A5E11C4", "13")))
    Hello(hseq=None, version=(1, 0), ident='tablectl-bridge/0.1', boot='2A5E11C4', zones=13)
    """
    hseq, version, ident, boot, zones = _fields(frame, 5)[:5]
    major, _, minor = version.partition(".")
    if not (major.isdigit() and minor.isdigit()):
        raise ProtocolError(f"HELLO's version {version[:12]!r} is not MAJOR.MINOR")
    if hseq != "-" and not (len(hseq) == 4 and _HEX.issuperset(hseq.encode())):
        raise ProtocolError(f"HELLO's HSEQ {hseq[:12]!r} is neither 4 hex digits nor -")
    return Hello(None if hseq == "-" else int(hseq, 16), (int(major), int(minor)), ident, boot,
                 _int(zones, "HELLO's ZONES", 1, 16))


def parse_zone(frame: Frame) -> ZoneInfo:
    """>>> parse_zone(Frame("ZONE", 1, ("1", "PN5180", "ISO15693", "64", "NORSSI")))
    ZoneInfo(zone=1, chip='PN5180', air='ISO15693', capacity=64, rssi=False)
    """
    zone, chip, air, capacity, signal = _fields(frame, 5)[:5]
    if signal not in ("RSSI", "NORSSI"):
        raise ProtocolError(f"ZONE's SIGNAL {signal[:12]!r} is neither RSSI nor NORSSI")
    return ZoneInfo(_int(zone, "ZONE", 1, 16), chip, air, _int(capacity, "CAPACITY", 1, 255), signal == "RSSI")


def _uid(text: str) -> str:
    if len(text) not in (14, 16) or not _HEX.issuperset(text.encode()):
        raise ProtocolError(f"a tag's UID is not 14 or 16 upper-case hex digits ({len(text)} characters)")
    return text


def parse_tags(frame: Frame) -> ZoneSnapshot:
    """>>> parse_tags(Frame("TAGS", 1, ("1", "OK", "2", "E004015012345678", "04A2B3C4D5E680:180")))
    ZoneSnapshot(zone=1, state='OK', tags=(('E004015012345678', None), ('04A2B3C4D5E680', 180)))
    """
    fields = _fields(frame, 3)
    zone, state, count = fields[0], fields[1], fields[2]
    n = _int(count, "TAGS' COUNT", 0, 255)
    if len(fields) < 3 + n:
        raise ProtocolError(f"TAGS says {n} tags and carries {len(fields) - 3}")
    if state != "OK" and not (len(state) == 3 and state[0] == "E" and state[1:].isdigit()):
        raise ProtocolError(f"TAGS' STATE {state[:12]!r} is neither OK nor an error code")
    tags = []
    for text in fields[3:3 + n]:  # (none, in most zones of most cycles)
        uid, sep, rssi = text.partition(":")
        tags.append((_uid(uid), _int(rssi, "a tag's RSSI", 0, 255) if sep else None))
    return ZoneSnapshot(_int(zone, "TAGS' ZONE", 1, 16), state, tuple(tags))


class CycleAssembler:
    """Frames in, whole cycles out (docs/protocols/bridge.md, "Cycles"): CYCLE, exactly its
    ZONES frames TAGS in zone order (ERR frames may come between), END with the same number,
    every SEQ one after the one before. ``feed`` gives a :class:`Cycle` at its END, a
    :class:`Dropped` when a cycle under way breaks (a frame missing or out of place; a bad line
    while a cycle is under way, :meth:`broken`), else None. Frames outside a cycle (HB, OK,
    HELLO...) are not its business: None."""

    def __init__(self) -> None:
        self._open: tuple[int, int] | None = None  # (cycle number, zones)
        self._next = 0
        self._zones: list[ZoneSnapshot] = []
        self._errors: list[tuple[int, str]] = []

    @property
    def under_way(self) -> bool:
        return self._open is not None

    def broken(self, reason: str) -> Dropped | None:
        """A line lost (a bad line, a silence): the cycle under way, if any, is dropped."""
        if self._open is None:
            return None
        self._open = None
        return Dropped(reason)

    def feed(self, frame: Frame) -> Cycle | Dropped | None:
        if frame.kind == "CYCLE":
            dropped = self.broken("a new cycle began before the last ended")
            f = _fields(frame, 2)
            self._open = (_int(f[0], "CYCLE's N", 1, 1 << 62), _int(f[1], "CYCLE's ZONES", 1, 16))
            self._next = (frame.seq + 1) & 0xFFFF
            self._zones, self._errors = [], []
            return dropped
        if self._open is None:
            return None
        if frame.seq != self._next:
            return self.broken(f"frames lost within the cycle (SEQ {frame.seq:04X}, expected {self._next:04X})")
        self._next = (frame.seq + 1) & 0xFFFF
        number, zones = self._open
        try:
            if frame.kind == "TAGS":
                snap = parse_tags(frame)
                if snap.zone != len(self._zones) + 1 or snap.zone > zones:
                    return self.broken(f"TAGS of zone {snap.zone} where zone {len(self._zones) + 1} was due")
                self._zones.append(snap)
                return None
            if frame.kind == "ERR":
                f = _fields(frame, 2)
                self._errors.append((_int(f[0], "ERR's ZONE", 0, 16), f[1]))
                return None
            if frame.kind == "END":
                f = _fields(frame, 2)
                if _int(f[0], "END's N", 1, 1 << 62) != number or len(self._zones) != zones:
                    return self.broken(f"END of cycle {f[0]} after {len(self._zones)} of {zones} zones")
                self._open = None
                return Cycle(number, tuple(self._zones), _int(f[1], "END's MS", 0, 1 << 31), tuple(self._errors))
        except ProtocolError as exc:
            return self.broken(f"malformed {frame.kind}: {exc}")
        return self.broken(f"{frame.kind} within a cycle")
