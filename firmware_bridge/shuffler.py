r"""The shuffler bridge protocol: frames, messages and the stream decoder.

No shuffler maker publishes a host protocol, so tablectl defines its own, spoken by a small
bridge board next to the shuffler (or by a vendor adapter) and by the simulated shuffler. It is
described byte by byte in ``docs/protocols/shuffler.md``. A pure codec: no I/O, no threads, no
clock. :mod:`firmware_bridge.shuffler_link` writes what the ``encode_*`` functions build and
feeds what it reads to a :class:`ShufflerDecoder`; :mod:`hw_sim.shuffler` does the same the
other way round.

Every frame is ``A5 | LEN-LO LEN-HI | LCS | SEQ | TYPE | PAYLOAD | CRC-LO CRC-HI``:

>>> encode_get_status(seq=7).hex(" ")
'a5 00 00 00 07 02 2f f2'

Decode what arrives, in whatever pieces the port delivers it:

>>> report = encode_deck_report(seq=3, count=2, uids=("E0040150A05F0000", "E0040150A05F0001"))
>>> decoder = ShufflerDecoder()
>>> decoder.feed(report[:9])          # a partial frame stays buffered
[]
>>> decoder.feed(report[9:])
[DeckReport(seq=3, count=2, uids=('E0040150A05F0000', 'E0040150A05F0001'))]

Damage is reported, never raised; the decoder resynchronises on the next start byte:

>>> status = encode_status(seq=8, state="jam")
>>> decoder.feed(b"\x00\x13" + status)
[Corrupt(raw=b'\x00\x13', reason='no start byte; 2 bytes skipped'), Status(seq=8, state='jam', code=0)]
>>> bad = bytearray(status); bad[-1] ^= 0x01
>>> junk, again = decoder.feed(bytes(bad) + status)
>>> junk.raw == bytes(bad), junk.reason, again
(True, 'crc mismatch: got 0x8AC2 want 0x8BC2; 11 bytes skipped', Status(seq=8, state='jam', code=0))
>>> decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped
(3, 2, 13)
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from firmware_bridge.crc import crc16_mcrf4xx
from firmware_bridge.errors import ProtocolError
from firmware_bridge.stream import Corrupt, StreamDecoder

__all__ = [
    "PROTOCOL_VERSION", "SOF", "HEADER_LEN", "OVERHEAD", "MAX_PAYLOAD", "UID_LEN", "MAX_UIDS",
    "RESEND_INTERVAL_S", "HOST_GONE_S", "FRAME_GAP_S",
    "T_HELLO", "T_GET_STATUS", "T_ACK_REPORT", "T_HELLO_REPLY", "T_STATUS", "T_DECK_REPORT", "T_NAK",
    "TYPE_NAMES", "STATE_CODES", "STATES", "FAULT_STATES", "CAP_READS_TAGS", "REPORT_TAGS",
    "NAK_UNKNOWN_TYPE", "NAK_BAD_PAYLOAD", "NAK_NO_SESSION", "NAK_TEXT", "BRIDGE_ERRORS",
    "Hello", "GetStatus", "AckReport", "HelloReply", "Status", "DeckReport", "Nak", "Message",
    "Corrupt", "Invalid", "ShufflerDecoder",
    "encode_frame", "encode_hello", "encode_get_status", "encode_ack_report", "encode_hello_reply",
    "encode_status", "encode_deck_report", "encode_nak", "encode_message", "message_type", "parse_message",
    "compatible", "status_text",
]

#: (major, minor). A host and a shuffler work together when the majors are equal.
PROTOCOL_VERSION = (1, 0)

# --- Framing ----------------------------------------------------------------------------

SOF = 0xA5  # start of frame
HEADER_LEN = 4  # SOF, LEN (2), LCS: enough to know how long the frame is
OVERHEAD = HEADER_LEN + 2 + 2  # header, SEQ and TYPE, CRC (2)
UID_LEN = 8  # an ISO 15693 UID, most significant byte (E0) first
MAX_UIDS = 255  # NUIDS is one byte
MAX_PAYLOAD = 3 + MAX_UIDS * UID_LEN  # the largest message: a deck report with 255 UIDs (2043)

#: the shuffler resends an unacknowledged deck report this often
RESEND_INTERVAL_S = 0.5
#: the shuffler pauses its resends once it has heard nothing from the host for this long
HOST_GONE_S = 2.0
#: a receiver that has waited this long in the middle of a frame gives up on it
FRAME_GAP_S = 0.1

# --- Message types: bit 7 set = shuffler to host ---------------------------------------------

T_HELLO = 0x01
T_GET_STATUS = 0x02
T_ACK_REPORT = 0x03
T_HELLO_REPLY = 0x81
T_STATUS = 0x82
T_DECK_REPORT = 0x83
T_NAK = 0x84

TYPE_NAMES: dict[int, str] = {
    T_HELLO: "HELLO", T_GET_STATUS: "GET_STATUS", T_ACK_REPORT: "ACK_REPORT",
    T_HELLO_REPLY: "HELLO_REPLY", T_STATUS: "STATUS", T_DECK_REPORT: "DECK_REPORT", T_NAK: "NAK",
}

# --- Field values -------------------------------------------------------------------------

#: STATE byte of a STATUS -> the state's name (controller.core.events.SHUFFLER_STATES)
STATE_CODES: dict[int, str] = {0x00: "ready", 0x01: "shuffling", 0x02: "jam", 0x03: "door_open", 0x04: "error"}
STATES: dict[str, int] = {name: code for code, name in STATE_CODES.items()}
#: the states the host repeats while they last
FAULT_STATES = frozenset({"jam", "door_open", "error"})

CAP_READS_TAGS = 0x01  # HELLO_REPLY CAPS bit 0: the shuffler reads tags, reports carry UIDs
REPORT_TAGS = 0x01  # DECK_REPORT FLAGS bit 0: the UID list is the tags read

NAK_UNKNOWN_TYPE = 0x01
NAK_BAD_PAYLOAD = 0x02
NAK_NO_SESSION = 0x03
NAK_TEXT: dict[int, str] = {
    NAK_UNKNOWN_TYPE: "unknown message type",
    NAK_BAD_PAYLOAD: "payload malformed",
    NAK_NO_SESSION: "no session: send HELLO first",
}

#: error codes 0xFF00..0xFFFF belong to the bridge board itself; below that, the maker's
BRIDGE_ERRORS: dict[int, str] = {
    0xFF01: "bridge: no answer from the shuffler",
    0xFF02: "bridge: the shuffler's own protocol failed",
    0xFF03: "bridge: report queue overflowed, reports were lost",
}


# --- Messages -------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Hello:
    """Host -> shuffler: open a session, saying which protocol version the host speaks."""

    seq: int
    major: int = PROTOCOL_VERSION[0]
    minor: int = PROTOCOL_VERSION[1]


@dataclass(frozen=True, slots=True)
class GetStatus:
    """Host -> shuffler: the periodic status poll (also the heartbeat)."""

    seq: int


@dataclass(frozen=True, slots=True)
class AckReport:
    """Host -> shuffler: deck report ``seq`` arrived. No answer follows."""

    seq: int


@dataclass(frozen=True, slots=True)
class HelloReply:
    """Shuffler -> host: the shuffler's version, its boot id (new at every power-up), whether it
    reads tags, and a free identification text (maker, model, firmware) for the log."""

    seq: int
    major: int
    minor: int
    boot_id: int
    reads_tags: bool
    ident: str = ""


@dataclass(frozen=True, slots=True)
class Status:
    """Shuffler -> host: its state (a name of :data:`STATE_CODES`), and for ``error`` the
    maker's error code (0 otherwise)."""

    seq: int
    state: str
    code: int = 0


@dataclass(frozen=True, slots=True)
class DeckReport:
    """Shuffler -> host: one shuffle cycle's count, and the UIDs read in order (None when the
    shuffler only counts). ``count`` and ``len(uids)`` may differ: an untagged card is counted
    but not read."""

    seq: int
    count: int
    uids: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class Nak:
    """Shuffler -> host: the frame with this ``seq`` and type ``refused`` was not acted on."""

    seq: int
    refused: int
    reason: int


Message = Hello | GetStatus | AckReport | HelloReply | Status | DeckReport | Nak


@dataclass(frozen=True, slots=True)
class Invalid:
    """A frame that passed its CRC but is no message this codec knows (an unknown type, or a
    payload too short for its type). ``seq`` and ``type`` are kept so that a NAK can name it."""

    seq: int
    type: int
    raw: bytes
    reason: str


# --- Encoding -------------------------------------------------------------------------------

def _check(name: str, value: int, top: int) -> None:
    if not 0 <= value <= top:
        raise ValueError(f"{name} must be 0..{top}, not {value!r}")


def encode_frame(seq: int, type_: int, payload: bytes = b"") -> bytes:
    """One frame: header with the length check, SEQ, TYPE, payload and CRC (low byte first).

    >>> encode_frame(0x10, T_HELLO, bytes((1, 0))).hex(" ")
    'a5 02 00 fe 10 01 01 00 ff df'
    """
    _check("seq", seq, 0xFF)
    _check("type", type_, 0xFF)
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds MAX_PAYLOAD {MAX_PAYLOAD}")
    lo, hi = len(payload) & 0xFF, len(payload) >> 8
    frame = bytearray((SOF, lo, hi, -(lo + hi) & 0xFF, seq, type_))
    frame += payload
    crc = crc16_mcrf4xx(frame)
    frame += bytes((crc & 0xFF, crc >> 8))
    return bytes(frame)


def encode_hello(seq: int, version: tuple[int, int] = PROTOCOL_VERSION) -> bytes:
    """HELLO: ``MAJOR MINOR``."""
    _check("major", version[0], 0xFF)
    _check("minor", version[1], 0xFF)
    return encode_frame(seq, T_HELLO, bytes(version))


def encode_get_status(seq: int) -> bytes:
    """GET_STATUS: no payload."""
    return encode_frame(seq, T_GET_STATUS)


def encode_ack_report(seq: int) -> bytes:
    """ACK_REPORT: no payload; ``seq`` is the report's."""
    return encode_frame(seq, T_ACK_REPORT)


def encode_hello_reply(seq: int, *, version: tuple[int, int] = PROTOCOL_VERSION, boot_id: int,
                       reads_tags: bool, ident: str = "") -> bytes:
    """HELLO_REPLY: ``MAJOR MINOR BOOT_ID(4, little-endian) CAPS IDLEN IDENT(ASCII)``.

    >>> encode_hello_reply(1, boot_id=0x12345678, reads_tags=True, ident="SIM")[6:-2].hex(" ")
    '01 00 78 56 34 12 01 03 53 49 4d'
    """
    _check("major", version[0], 0xFF)
    _check("minor", version[1], 0xFF)
    _check("boot_id", boot_id, 0xFFFF_FFFF)
    try:
        text = ident.encode("ascii")
    except UnicodeEncodeError:
        raise ValueError(f"ident {ident!r} must be ASCII") from None
    _check("ident length", len(text), 0xFF)
    payload = bytes(version) + boot_id.to_bytes(4, "little")
    payload += bytes((CAP_READS_TAGS if reads_tags else 0, len(text))) + text
    return encode_frame(seq, T_HELLO_REPLY, payload)


def encode_status(seq: int, state: str, code: int = 0) -> bytes:
    """STATUS: ``STATE CODE(2, little-endian)``.

    >>> encode_status(9, "error", 0x0102)[6:-2].hex(" ")
    '04 02 01'
    """
    if state not in STATES:
        raise ValueError(f"state must be one of {', '.join(STATES)}, not {state!r}")
    _check("code", code, 0xFFFF)
    return encode_frame(seq, T_STATUS, bytes((STATES[state],)) + code.to_bytes(2, "little"))


def _uid_bytes(uid: str) -> bytes:
    try:
        raw = bytes.fromhex(uid)
    except ValueError:
        raise ValueError(f"UID {uid!r} is not hex") from None
    if len(raw) != UID_LEN:
        raise ValueError(f"UID {uid!r} must be {UID_LEN} bytes ({2 * UID_LEN} hex digits)")
    return raw


def encode_deck_report(seq: int, count: int, uids: Sequence[str] | None = None) -> bytes:
    """DECK_REPORT: ``COUNT FLAGS NUIDS UID(8)...``; ``uids=None`` for a count-only report.

    >>> encode_deck_report(4, 52)[6:-2].hex(" ")
    '34 00 00'
    """
    _check("count", count, 0xFF)
    if uids is None:
        return encode_frame(seq, T_DECK_REPORT, bytes((count, 0, 0)))
    _check("number of UIDs", len(uids), MAX_UIDS)
    payload = bytearray((count, REPORT_TAGS, len(uids)))
    for uid in uids:
        payload += _uid_bytes(uid)
    return encode_frame(seq, T_DECK_REPORT, bytes(payload))


def encode_nak(seq: int, refused: int, reason: int) -> bytes:
    """NAK: ``TYPE REASON``; ``seq`` and ``refused`` are the refused frame's SEQ and TYPE."""
    _check("refused type", refused, 0xFF)
    _check("reason", reason, 0xFF)
    return encode_frame(seq, T_NAK, bytes((refused, reason)))


_TYPES: dict[type, int] = {Hello: T_HELLO, GetStatus: T_GET_STATUS, AckReport: T_ACK_REPORT,
                           HelloReply: T_HELLO_REPLY, Status: T_STATUS, DeckReport: T_DECK_REPORT, Nak: T_NAK}


def message_type(msg: Message) -> int:
    """The TYPE byte that carries ``msg``.

    >>> hex(message_type(Status(1, "ready")))
    '0x82'
    """
    return _TYPES[type(msg)]


def encode_message(msg: Message) -> bytes:
    """The frame for any message value (the inverse of decoding).

    >>> encode_message(GetStatus(7)) == encode_get_status(7)
    True
    """
    if isinstance(msg, Hello):
        return encode_hello(msg.seq, (msg.major, msg.minor))
    if isinstance(msg, GetStatus):
        return encode_get_status(msg.seq)
    if isinstance(msg, AckReport):
        return encode_ack_report(msg.seq)
    if isinstance(msg, HelloReply):
        return encode_hello_reply(msg.seq, version=(msg.major, msg.minor), boot_id=msg.boot_id,
                                  reads_tags=msg.reads_tags, ident=msg.ident)
    if isinstance(msg, Status):
        return encode_status(msg.seq, msg.state, msg.code)
    if isinstance(msg, DeckReport):
        return encode_deck_report(msg.seq, msg.count, msg.uids)
    if isinstance(msg, Nak):
        return encode_nak(msg.seq, msg.refused, msg.reason)
    raise TypeError(f"not a shuffler message: {msg!r}")


# --- Parsing one frame ------------------------------------------------------------------------

def _need(name: str, payload: bytes, n: int) -> None:
    if len(payload) < n:
        raise ProtocolError(f"{name}: payload of {len(payload)} bytes, expected at least {n}")


def _parse_hello(seq: int, p: bytes) -> Hello:
    _need("HELLO", p, 2)
    return Hello(seq, p[0], p[1])


def _parse_hello_reply(seq: int, p: bytes) -> HelloReply:
    _need("HELLO_REPLY", p, 8)
    end = 8 + p[7]
    _need("HELLO_REPLY", p, end)
    ident = p[8:end].decode("ascii", errors="replace")
    return HelloReply(seq, p[0], p[1], int.from_bytes(p[2:6], "little"), bool(p[6] & CAP_READS_TAGS), ident)


def _parse_status(seq: int, p: bytes) -> Status:
    _need("STATUS", p, 3)
    state = STATE_CODES.get(p[0])
    if state is None:
        raise ProtocolError(f"STATUS: unknown state byte 0x{p[0]:02X}")
    return Status(seq, state, int.from_bytes(p[1:3], "little"))


def _parse_deck_report(seq: int, p: bytes) -> DeckReport:
    _need("DECK_REPORT", p, 3)
    count, flags, n = p[0], p[1], p[2]
    if not flags & REPORT_TAGS:
        if n:
            raise ProtocolError(f"DECK_REPORT: {n} UIDs in a count-only report (FLAGS bit 0 clear)")
        return DeckReport(seq, count, None)
    _need("DECK_REPORT", p, 3 + n * UID_LEN)
    uids = tuple(p[i:i + UID_LEN].hex().upper() for i in range(3, 3 + n * UID_LEN, UID_LEN))
    return DeckReport(seq, count, uids)


def _parse_nak(seq: int, p: bytes) -> Nak:
    _need("NAK", p, 2)
    return Nak(seq, p[0], p[1])


_PARSERS: dict[int, Callable[[int, bytes], Message]] = {
    T_HELLO: _parse_hello,
    T_GET_STATUS: lambda seq, p: GetStatus(seq),
    T_ACK_REPORT: lambda seq, p: AckReport(seq),
    T_HELLO_REPLY: _parse_hello_reply,
    T_STATUS: _parse_status,
    T_DECK_REPORT: _parse_deck_report,
    T_NAK: _parse_nak,
}


def parse_message(seq: int, type_: int, payload: bytes) -> Message:
    """The message in one frame's fields; raises :class:`ProtocolError` naming what is wrong.

    Bytes after the fields a type defines are ignored: a later minor version may append fields.

    >>> parse_message(5, T_STATUS, bytes.fromhex("03 00 00 EE"))
    Status(seq=5, state='door_open', code=0)
    >>> parse_message(5, 0x42, b"")
    Traceback (most recent call last):
    ...
    firmware_bridge.errors.ProtocolError: unknown message type 0x42
    """
    parser = _PARSERS.get(type_)
    if parser is None:
        raise ProtocolError(f"unknown message type 0x{type_:02X}")
    return parser(seq, payload)


# --- The stream decoder ---------------------------------------------------------------------

class ShufflerDecoder(StreamDecoder[Message | Invalid]):
    """Splits a byte stream into messages, :class:`Invalid` frames and :class:`Corrupt` reports
    (the skeleton is :class:`firmware_bridge.stream.StreamDecoder`'s; this is the shuffler's
    framing).

    Decodes both directions (the message types are distinct). Scanning at a byte: anything
    but ``A5`` is dropped up to the next ``A5``; at ``A5``, a length whose check byte does not
    match, a length over ``max_payload`` or a CRC mismatch drops that one ``A5`` and the scan
    resumes at the next ``A5``, which may lie inside the false frame. Dropped bytes collect
    into one :class:`Corrupt`, emitted just before the next frame, when a full frame's worth
    has collected, or by :meth:`flush`. The output does not depend on how the stream was cut
    into chunks.

    Linear time whatever the input: a candidate's CRC is checked in constant time from the
    CRC register's prefix states (:func:`firmware_bridge.crc.crc16_span`), so ``A5`` bytes
    with lying lengths cost no more than other junk (``bench/decoder_worst.py``).

    A frame whose header claims more bytes than arrive is waited for: :meth:`flush`, called
    when the line has been quiet for :data:`FRAME_GAP_S`, gives up on it and rescans the bytes
    after its start byte.

    Counters: ``frames_ok`` messages returned, ``frames_invalid`` :class:`Invalid` returned,
    ``frames_bad`` :class:`Corrupt` returned, ``bytes_skipped`` the bytes in those reports.
    """

    __slots__ = ("max_payload", "frames_invalid")

    def __init__(self, *, max_payload: int = MAX_PAYLOAD) -> None:
        _check("max_payload", max_payload, MAX_PAYLOAD)
        super().__init__(longest=OVERHEAD + max_payload)
        self.max_payload = max_payload
        self.frames_invalid = 0

    def flush(self) -> list[Message | Invalid | Corrupt]:
        """The line went quiet: give up on any frame still incomplete, rescan what follows its
        start byte, and report every byte still held. Leaves the decoder empty (:meth:`drain`)."""
        return self.drain()

    def _scan(self, out: list[Message | Invalid | Corrupt], buf: bytearray,
              states: array[int], final: bool) -> tuple[int, int, int]:
        small, big = self._small, self._big
        max_payload = self.max_payload
        pos, jstart = self._pos, self._jstart
        end = len(buf)
        need = 0
        while pos < end:
            if buf[pos] != SOF:
                nxt = buf.find(SOF, pos)
                stop = end if nxt < 0 else nxt
                jstart = self._drop(out, jstart, pos, stop, "no start byte")
                pos = stop
                continue
            if end - pos < HEADER_LEN:
                if final:
                    reason = f"truncated: {end - pos} of {HEADER_LEN} header bytes before flush"
                    jstart = self._drop(out, jstart, pos, pos + 1, reason)
                    pos += 1
                    continue
                need = pos + HEADER_LEN
                break
            lo, hi, lcs = buf[pos + 1], buf[pos + 2], buf[pos + 3]
            length = lo | hi << 8
            if (lo + hi + lcs) & 0xFF:
                jstart = self._drop(out, jstart, pos, pos + 1, f"length check 0x{lcs:02X} does not match "
                                    f"length {length}" if pos == jstart else "")
                pos += 1
                continue
            if length > max_payload:
                jstart = self._drop(out, jstart, pos, pos + 1, f"length {length} over max_payload {max_payload}"
                                    if pos == jstart else "")
                pos += 1
                continue
            size = OVERHEAD + length
            stop = pos + size
            if stop > end:
                if final:
                    reason = f"truncated: {end - pos} of {size} bytes before flush"
                    jstart = self._drop(out, jstart, pos, pos + 1, reason)
                    pos += 1
                    continue
                need = stop
                break
            # The register over the whole frame, CRC included, is 0 when the CRC matches
            # (StreamDecoder._crc_matches, inlined: this is the hot path).
            reg = states[pos] ^ 0xFFFF
            t_lo, t_hi = small[size & 0xFF]
            reg = t_lo[reg & 0xFF] ^ t_hi[reg >> 8]
            if size > 0xFF:
                t_lo, t_hi = big[size >> 8]
                reg = t_lo[reg & 0xFF] ^ t_hi[reg >> 8]
            if reg != states[stop]:
                jstart = self._drop(out, jstart, pos, pos + 1, self._crc_mismatch(pos, stop) if pos == jstart else "")
                pos += 1
                continue
            jstart = self._report(out, jstart, pos)
            out.append(self._message(bytes(buf[pos:stop])))
            pos = jstart = stop
        return pos, jstart, need

    # --- internals ---

    def _message(self, raw: bytes) -> Message | Invalid:
        seq, type_ = raw[4], raw[5]
        try:
            msg = parse_message(seq, type_, raw[6:-2])
        except ProtocolError as exc:
            self.frames_invalid += 1
            return Invalid(seq, type_, raw, str(exc))
        self.frames_ok += 1
        return msg

    def _drop(self, out: list[Message | Invalid | Corrupt], jstart: int, pos: int, stop: int, reason: str) -> int:
        """Drop the bytes [pos, stop) (the junk so far runs from ``jstart`` to ``pos``) for
        ``reason`` (callers format it only when it starts a run, ``pos == jstart``); report a full
        frame's worth at a time. Return the new start of unreported junk."""
        if pos == jstart:
            self._junk_reason = reason
        limit = self._junk_limit
        while stop - jstart >= limit:
            jstart = self._report(out, jstart, jstart + limit)  # bound what garbage can hold
            self._junk_reason = reason
        return jstart


# --- Helpers for both ends ------------------------------------------------------------------

def compatible(theirs: tuple[int, int], ours: tuple[int, int] = PROTOCOL_VERSION) -> bool:
    """True when two protocol versions work together: the same major, any minor.

    >>> compatible((1, 7)), compatible((2, 0))
    (True, False)
    """
    return theirs[0] == ours[0]


def status_text(state: str, code: int = 0) -> str:
    """A human-readable line for a status, naming the error code of ``error``.

    >>> status_text("error", 0x0102), status_text("error", 0xFF01), status_text("jam")
    ('error code 0x0102 (maker)', 'error code 0xFF01 (bridge: no answer from the shuffler)', 'jam')
    """
    if state != "error":
        return state.replace("_", " ")
    return f"error code 0x{code:04X} ({BRIDGE_ERRORS.get(code, 'bridge' if code >= 0xFF00 else 'maker')})"
