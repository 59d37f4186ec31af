r"""FEIG ISO Host protocol: frames, the stream decoder and the inventory command.

A pure codec: no I/O, no threads, no clock. The serial side (:mod:`firmware_bridge.feig_client`)
writes what :func:`encode_frame` builds and feeds what it reads to a :class:`FrameDecoder`;
the simulated reader does the same the other way round. The protocol is described byte by
byte in ``docs/protocols/feig.md``.

Build a request:

>>> inventory_request().hex(" ")
'07 ff b0 01 00 1c 56'
>>> inventory_request(antennas=0b0000_0101).hex(" ")         # antennas 1 and 3
'08 ff b0 01 10 05 0e 25'

Decode what the reader sends back, in whatever pieces the port delivers it:

>>> answer = encode_inventory_reply(
...     [TagRecord(uid="E004015012345678", tr_type=0x03, dsfid=0x00, antennas=())],
...     with_antennas=False)
>>> answer.hex(" ")
'11 00 b0 00 01 03 00 e0 04 01 50 12 34 56 78 ba 40'
>>> decoder = FrameDecoder()
>>> decoder.feed(answer[:5])         # a partial frame stays buffered
[]
>>> [frame] = decoder.feed(answer[5:])
>>> frame.cmd == CMD_INVENTORY, frame.status == STATUS_OK
(True, True)
>>> reply = parse_inventory(frame, with_antennas=False)
>>> [tag.uid for tag in reply.tags], reply.more
(['E004015012345678'], False)

Damage is reported, never raised. Junk before a frame is reported just before it:

>>> junk, frame = decoder.feed(bytes.fromhex("00 03") + answer)
>>> junk
Corrupt(raw=b'\x00\x03', reason='length byte 0 too small; 2 bytes skipped')
>>> frame.raw == answer
True

A frame with a bad CRC is dropped one byte at a time; here a byte inside it (``B0``) claims
a 176-byte frame, so the decoder waits for more until the link gives up and flushes:

>>> bad = bytearray(answer); bad[-1] ^= 0x01
>>> decoder.feed(bytes(bad))
[]
>>> decoder.flush().reason
'crc mismatch: got 0x41BA want 0x40BA; 2 bytes skipped; truncated: 15 of 176 bytes before flush'
>>> decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped
(2, 2, 19)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from firmware_bridge.crc import crc16_mcrf4xx
from firmware_bridge.errors import ProtocolError

__all__ = [
    "STATUS_OK", "STATUS_NO_TRANSPONDER", "STATUS_RF_COMM_ERROR", "STATUS_RF_WARNING",
    "STATUS_BUFFER_OVERFLOW", "STATUS_MORE_DATA", "STATUS_ISO_ERROR", "STATUS_TEXT",
    "CMD_INVENTORY", "CMD_GET_SOFTWARE_VERSION", "MODE_MORE", "MODE_ANT",
    "ADVANCED_START", "STANDARD_MAX", "ADVANCED_MAX",
    "Frame", "Corrupt", "FrameDecoder", "encode_frame",
    "AntennaRead", "TagRecord", "InventoryReply",
    "inventory_request", "parse_inventory", "encode_inventory_reply",
]

# --- Status bytes (reader to host) -------------------------------------------------------

STATUS_OK = 0x00
STATUS_NO_TRANSPONDER = 0x01
STATUS_RF_COMM_ERROR = 0x83
STATUS_RF_WARNING = 0x84
STATUS_BUFFER_OVERFLOW = 0x93
STATUS_MORE_DATA = 0x94
STATUS_ISO_ERROR = 0x95

STATUS_TEXT: dict[int, str] = {
    STATUS_OK: "OK",
    STATUS_NO_TRANSPONDER: "no transponder in the field",
    STATUS_RF_COMM_ERROR: "RF communication error",
    STATUS_RF_WARNING: "RF warning",
    STATUS_BUFFER_OVERFLOW: "data buffer overflow",
    STATUS_MORE_DATA: "more data (ask again with the MORE bit set)",
    STATUS_ISO_ERROR: "ISO 15693 error",
}

# --- Commands and inventory mode bits ------------------------------------------------------

CMD_INVENTORY = 0xB0
CMD_GET_SOFTWARE_VERSION = 0x65

_INVENTORY_SUBCOMMAND = 0x01  # the first data byte of an inventory request
MODE_MORE = 0x80  # fetch the rest of an answer that ended with status 0x94
MODE_ANT = 0x10  # report which antennas saw each tag; ANT_SEL follows MODE

# --- Framing ----------------------------------------------------------------------------

ADVANCED_START = 0x02  # first byte of an advanced frame; never a valid standard LEN
STANDARD_MAX = 0xFF  # a standard frame's LEN is one byte
ADVANCED_MAX = 0xFFFF  # an advanced frame's ALEN is two bytes

# Frame overhead around DATA: length field, COM-ADR, CMD, [STATUS], CRC (2).
_STD_HEADER = 1
_ADV_HEADER = 3


@dataclass(frozen=True, slots=True)
class Frame:
    """One frame that passed its CRC.

    ``status`` is None for a host-to-reader request (requests carry no status byte).
    ``data`` excludes the status byte and the CRC; ``raw`` is the whole frame as received,
    for the log.
    """

    com_adr: int
    cmd: int
    status: int | None
    data: bytes
    advanced: bool
    raw: bytes


@dataclass(frozen=True, slots=True)
class Corrupt:
    """Bytes the decoder dropped, and why the first of them was dropped.

    Consecutive dropped bytes are reported together, so ``raw`` is a contiguous piece of the
    stream: concatenating the ``raw`` of every :class:`Frame` and :class:`Corrupt` a decoder
    returns (``flush`` included) gives back exactly the bytes it was fed.
    """

    raw: bytes
    reason: str


class FrameDecoder:
    """Splits a byte stream into :class:`Frame` and :class:`Corrupt` items.

    ``from_reader=True`` parses reader-to-host answers (with a STATUS byte); False parses
    host-to-reader requests (the simulated reader's side). A claimed length above
    ``max_frame`` is treated as junk, which bounds how much the decoder buffers.

    Resynchronisation: a length below the minimum, above ``max_frame``, or a frame whose CRC
    does not match drops ONE byte and the scan restarts at the next. (Dropping the whole
    claimed frame would lose a good frame whenever the length byte itself is the damaged
    one.) Dropped bytes collect into one :class:`Corrupt` that is emitted just before the
    next good frame, when ``max_frame`` bytes have collected, or by :meth:`flush`. So a run
    of garbage costs a bounded number of reports, and the output does not depend on how
    the stream was split into chunks.

    Counters: ``frames_ok`` counts :class:`Frame` items returned, ``frames_bad``
    :class:`Corrupt` items returned (by ``feed`` and ``flush``), ``bytes_skipped`` the bytes
    in those reports. Bytes dropped but not yet reported are not counted yet.
    """

    def __init__(self, *, from_reader: bool = True, max_frame: int = 4096) -> None:
        min_adv = 8 if from_reader else 7
        if not min_adv <= max_frame <= ADVANCED_MAX:
            raise ValueError(f"max_frame must be {min_adv}..{ADVANCED_MAX}, not {max_frame}")
        self.from_reader = from_reader
        self.max_frame = max_frame
        # LEN/COM-ADR/CMD/CRC(2) is the least a standard frame can be; the STATUS adds one.
        self._min_std = _STD_HEADER + 2 + (1 if from_reader else 0) + 2
        self._min_adv = _ADV_HEADER + 2 + (1 if from_reader else 0) + 2
        self._buf = bytearray()  # undecided bytes; starts at a candidate frame start
        self._junk = bytearray()  # dropped bytes not yet reported
        self._junk_reason = ""  # why the first byte in _junk was dropped
        self.frames_ok = 0
        self.frames_bad = 0
        self.bytes_skipped = 0

    @property
    def buffered(self) -> int:
        """Bytes held: a partial frame plus dropped bytes not yet reported."""
        return len(self._buf) + len(self._junk)

    def feed(self, data: bytes) -> list[Frame | Corrupt]:
        """Add ``data``; return the frames and corrupt-data reports it completes, in order.

        Never raises on any byte content; a partial frame stays buffered for the next call.
        """
        buf = self._buf
        buf += data
        out: list[Frame | Corrupt] = []
        pos = 0
        end = len(buf)
        while pos < end:
            first = buf[pos]
            if first == ADVANCED_START:
                if end - pos < _ADV_HEADER:
                    break  # the length is not known yet
                length = (buf[pos + 1] << 8) | buf[pos + 2]
                minimum, header = self._min_adv, _ADV_HEADER
            else:
                length = first
                minimum, header = self._min_std, _STD_HEADER
            if length < minimum or length > self.max_frame:
                if not self._junk:  # format a reason only for the first byte of a run
                    if length > self.max_frame:
                        self._junk_reason = f"length {length} over max_frame {self.max_frame}"
                    elif header == _ADV_HEADER:
                        self._junk_reason = f"advanced length {length} too small"
                    else:
                        self._junk_reason = f"length byte {length} too small"
                self._drop(first, out)
                pos += 1
                continue
            if end - pos < length:
                break  # wait for the rest of the claimed frame
            stop = pos + length
            got = buf[stop - 2] | (buf[stop - 1] << 8)
            want = crc16_mcrf4xx(memoryview(buf)[pos:stop - 2])
            if got != want:
                if not self._junk:
                    self._junk_reason = f"crc mismatch: got 0x{got:04X} want 0x{want:04X}"
                self._drop(first, out)
                pos += 1
                continue
            self._report_junk(out)
            out.append(self._frame(bytes(buf[pos:stop]), header))
            self.frames_ok += 1
            pos = stop
        del buf[:pos]
        return out

    def flush(self) -> Corrupt | None:
        """Drop everything buffered (after a response timeout); report it, or None if empty."""
        partial = bytes(self._buf)
        self._buf.clear()
        if not partial and not self._junk:
            return None
        parts = []
        if self._junk:
            parts.append(self._junk_text())
        if partial:
            # feed() leaves the buffer starting at an incomplete candidate, so its length is
            # valid if known; only an advanced header can be too short to know it.
            if partial[0] == ADVANCED_START and len(partial) < _ADV_HEADER:
                parts.append(f"truncated: {len(partial)} bytes of an advanced header before flush")
            else:
                claimed = partial[0] if partial[0] != ADVANCED_START else (partial[1] << 8) | partial[2]
                parts.append(f"truncated: {len(partial)} of {claimed} bytes before flush")
        report = Corrupt(bytes(self._junk) + partial, "; ".join(parts))
        self._junk.clear()
        self._count_bad(report)
        return report

    # --- internals ---

    def _drop(self, byte: int, out: list[Frame | Corrupt]) -> None:
        self._junk.append(byte)
        if len(self._junk) >= self.max_frame:
            # Bound the memory a long run of garbage (wrong baud rate, say) can take.
            self._report_junk(out)

    def _junk_text(self) -> str:
        n = len(self._junk)
        return self._junk_reason if n == 1 else f"{self._junk_reason}; {n} bytes skipped"

    def _report_junk(self, out: list[Frame | Corrupt]) -> None:
        if self._junk:
            report = Corrupt(bytes(self._junk), self._junk_text())
            self._junk.clear()
            self._count_bad(report)
            out.append(report)

    def _count_bad(self, report: Corrupt) -> None:
        self.frames_bad += 1
        self.bytes_skipped += len(report.raw)

    def _frame(self, raw: bytes, header: int) -> Frame:
        com_adr, cmd = raw[header], raw[header + 1]
        if self.from_reader:
            return Frame(com_adr, cmd, raw[header + 2], raw[header + 3:-2], header == _ADV_HEADER, raw)
        return Frame(com_adr, cmd, None, raw[header + 2:-2], header == _ADV_HEADER, raw)


def _check_byte(name: str, value: int) -> None:
    if not 0 <= value <= 0xFF:
        raise ValueError(f"{name} must be 0..255, not {value}")


def encode_frame(cmd: int, data: bytes = b"", *, com_adr: int = 0xFF, status: int | None = None,
                 advanced: bool | None = None) -> bytes:
    """Build one frame with its CRC.

    ``status=None`` builds a host-to-reader request; an int builds a reader's answer.
    ``advanced=None`` picks the standard frame when the whole frame fits in 255 bytes.

    >>> encode_frame(CMD_GET_SOFTWARE_VERSION).hex(" ")
    '05 ff 65 e5 cb'
    >>> encode_frame(CMD_GET_SOFTWARE_VERSION, advanced=True).hex(" ")
    '02 00 07 ff 65 6e 61'
    """
    _check_byte("cmd", cmd)
    _check_byte("com_adr", com_adr)
    body = bytearray((com_adr, cmd))
    if status is not None:
        _check_byte("status", status)
        body.append(status)
    body += data
    standard_length = _STD_HEADER + len(body) + 2
    if advanced is None:
        advanced = standard_length > STANDARD_MAX
    if advanced:
        length = _ADV_HEADER + len(body) + 2
        if length > ADVANCED_MAX:
            raise ValueError(f"frame of {length} bytes exceeds the advanced frame's {ADVANCED_MAX}")
        frame = bytearray((ADVANCED_START, length >> 8, length & 0xFF))
    else:
        if standard_length > STANDARD_MAX:
            raise ValueError(f"frame of {standard_length} bytes does not fit a standard frame")
        frame = bytearray((standard_length,))
    frame += body
    crc = crc16_mcrf4xx(frame)
    frame += bytes((crc & 0xFF, crc >> 8))  # CRC low byte first
    return bytes(frame)


# --- Inventory ----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class AntennaRead:
    """One antenna's sighting of a tag: ANT-NR as sent (1-based), ANT-STATUS, RSSI 0..255."""

    antenna: int
    status: int
    rssi: int


@dataclass(frozen=True, slots=True)
class TagRecord:
    """One tag in an inventory answer.

    ``uid`` is the UID bytes in wire order as uppercase hex (an ISO 15693 UID: 16 digits,
    ``E0`` first). ``antennas`` is empty for an answer without antenna information.
    """

    uid: str
    tr_type: int
    dsfid: int
    antennas: tuple[AntennaRead, ...] = ()


@dataclass(frozen=True, slots=True)
class InventoryReply:
    """The status and tags of one inventory answer (one part, if the status is 0x94)."""

    status: int
    tags: tuple[TagRecord, ...]

    @property
    def more(self) -> bool:
        """True if the reader has more tags: repeat the request with :data:`MODE_MORE`."""
        return self.status == STATUS_MORE_DATA


_UID_LEN_PLAIN = 8  # answer without ANT: the UID is always 8 bytes
_UID_LEN_MAX = 16
_FLAG_UID = 0x01  # FLAGS bit 0: TR-TYPE DSFID UID-LEN UID follow
_FLAG_ANT = 0x10  # FLAGS bit 4: ANT-CNT and the per-antenna blocks follow
_ANT_RESERVED = 4  # reserved bytes after ANT-NR ANT-STATUS RSSI
_DATA_STATUSES = (STATUS_OK, STATUS_MORE_DATA, STATUS_RF_WARNING)


def inventory_request(*, antennas: int | None = None, more: bool = False, com_adr: int = 0xFF,
                      ant_sel_bytes: int = 1) -> bytes:
    """The inventory request frame (CMD 0xB0, data ``01 MODE [ANT_SEL]``).

    ``antennas`` is the bitmask of antennas to scan (bit 0 = antenna 1 ... bit 7 = antenna
    8) and asks for antenna information; None asks a single-antenna reader without it.
    ``more`` fetches the rest of an answer that ended with status 0x94. ``ant_sel_bytes``
    widens ANT_SEL (most significant byte first) for a multiplexer with more than eight
    antennas: unconfirmed against hardware, see docs/protocols/feig.md.

    >>> inventory_request(antennas=0xFF, more=True).hex(" ")
    '08 ff b0 01 90 ff 17 f1'
    >>> inventory_request(antennas=0x1FFF, ant_sel_bytes=2)[3:6].hex(" ")
    '01 10 1f'
    """
    mode = MODE_MORE if more else 0
    data = bytearray((_INVENTORY_SUBCOMMAND, 0))
    if antennas is not None:
        top = (1 << (8 * ant_sel_bytes)) - 1
        if not 0x01 <= antennas <= top:
            raise ValueError(f"antennas must be a bitmask 0x01..0x{top:X}, not {antennas!r}")
        mode |= MODE_ANT
        data += antennas.to_bytes(ant_sel_bytes, "big")
    data[1] = mode
    return encode_frame(CMD_INVENTORY, bytes(data), com_adr=com_adr)


class _Reader:
    """Walks an inventory answer's data, raising ProtocolError that names the offset."""

    __slots__ = ("data", "pos")

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    def take(self, n: int, what: str) -> bytes:
        if self.pos + n > len(self.data):
            left = len(self.data) - self.pos
            raise ProtocolError(f"inventory answer: data offset {self.pos}: expected {what} "
                                f"({n} byte{'s' if n != 1 else ''}), only {left} left")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def byte(self, what: str) -> int:
        return self.take(1, what)[0]


def parse_inventory(frame: Frame, *, with_antennas: bool) -> InventoryReply:
    """Parse a reader's answer to an inventory request.

    ``with_antennas`` says which layout to expect: the request's MODE had the ANT bit. Status
    0x01 gives no tags; 0x00 and 0x94 (and 0x84 when it carries data) give the records;
    any other status gives no tags, for the caller to judge. Raises :class:`ProtocolError`
    naming the data offset (counted from the byte after STATUS) on anything malformed.
    """
    if frame.status is None:
        raise ProtocolError("inventory answer: a request frame (no status byte) is not an answer")
    if frame.cmd != CMD_INVENTORY:
        raise ProtocolError(f"inventory answer: expected CMD 0x{CMD_INVENTORY:02X}, got 0x{frame.cmd:02X}")
    status, data = frame.status, frame.data
    if status == STATUS_NO_TRANSPONDER:
        if data:
            raise ProtocolError(f"inventory answer: status 0x01 (no transponder) with {len(data)} "
                                f"data bytes, expected none")
        return InventoryReply(status, ())
    if status == STATUS_RF_WARNING and not data:
        return InventoryReply(status, ())
    if status not in _DATA_STATUSES:
        return InventoryReply(status, ())

    reader = _Reader(data)
    count = reader.byte("DATA-SETS count")
    tags = []
    for index in range(count):
        if with_antennas:
            tags.append(_parse_ant_record(reader, index, count))
        else:
            tr_type = reader.byte(f"TR-TYPE of record {index + 1} of {count}")
            dsfid = reader.byte(f"DSFID of record {index + 1} of {count}")
            uid = reader.take(_UID_LEN_PLAIN, f"UID of record {index + 1} of {count}")
            tags.append(TagRecord(uid.hex().upper(), tr_type, dsfid, ()))
    if reader.pos != len(data):
        raise ProtocolError(f"inventory answer: data offset {reader.pos}: {len(data) - reader.pos} "
                            f"bytes left over after the {count} declared records")
    return InventoryReply(status, tuple(tags))


def _parse_ant_record(reader: _Reader, index: int, count: int) -> TagRecord:
    where = f"record {index + 1} of {count}"
    flags_at = reader.pos
    flags = reader.byte(f"FLAGS of {where}")
    unknown = flags & ~(_FLAG_UID | _FLAG_ANT)
    if unknown:
        # An unknown bit may announce fields we cannot size, so nothing after it is trustworthy.
        raise ProtocolError(f"inventory answer: data offset {flags_at}: FLAGS 0x{flags:02X} of {where} "
                            f"has unknown bits 0x{unknown:02X}, expected only 0x01 and 0x10")
    if not flags & _FLAG_UID:
        raise ProtocolError(f"inventory answer: data offset {flags_at}: FLAGS 0x{flags:02X} of {where} "
                            f"lacks bit 0, expected a UID in every record")
    tr_type = reader.byte(f"TR-TYPE of {where}")
    dsfid = reader.byte(f"DSFID of {where}")
    uid_len_at = reader.pos
    uid_len = reader.byte(f"UID-LEN of {where}")
    if not 1 <= uid_len <= _UID_LEN_MAX:
        raise ProtocolError(f"inventory answer: data offset {uid_len_at}: UID-LEN of {where} "
                            f"expected 1..{_UID_LEN_MAX}, got {uid_len}")
    uid = reader.take(uid_len, f"UID of {where}")
    antennas: list[AntennaRead] = []
    if flags & _FLAG_ANT:
        ant_count = reader.byte(f"ANT-CNT of {where}")
        for a in range(ant_count):
            block = reader.take(3 + _ANT_RESERVED, f"antenna block {a + 1} of {ant_count} of {where}")
            antennas.append(AntennaRead(block[0], block[1], block[2]))
    return TagRecord(uid.hex().upper(), tr_type, dsfid, tuple(antennas))


def _uid_bytes(uid: str, *, exact: int | None) -> bytes:
    try:
        raw = bytes.fromhex(uid)
    except ValueError:
        raise ValueError(f"UID {uid!r} is not hex") from None
    if exact is not None and len(raw) != exact:
        raise ValueError(f"UID {uid!r} must be {exact} bytes in an answer without antennas")
    if not 1 <= len(raw) <= _UID_LEN_MAX:
        raise ValueError(f"UID {uid!r} must be 1..{_UID_LEN_MAX} bytes")
    return raw


def encode_inventory_reply(tags: Sequence[TagRecord], *, with_antennas: bool, status: int = STATUS_OK,
                           com_adr: int = 0x00) -> bytes:
    """The reader's answer to an inventory request, as a frame (the simulated reader's side).

    Statuses 0x00, 0x94 and 0x84 carry ``DATA-SETS`` and the records; any other status
    carries no data, so ``tags`` must then be empty. With antennas every record has
    FLAGS 0x11 and zero reserved bytes; without, the tags' ``antennas`` are not sent. An
    answer longer than 255 bytes becomes an advanced frame.
    """
    _check_byte("status", status)
    if status not in _DATA_STATUSES:
        if tags:
            raise ValueError(f"status 0x{status:02X} carries no records, but {len(tags)} tags were given")
        return encode_frame(CMD_INVENTORY, b"", com_adr=com_adr, status=status)
    if len(tags) > 0xFF:
        raise ValueError(f"{len(tags)} tags do not fit one DATA-SETS byte; split with status 0x94")
    data = bytearray((len(tags),))
    for tag in tags:
        _check_byte("tr_type", tag.tr_type)
        _check_byte("dsfid", tag.dsfid)
        if not with_antennas:
            data += bytes((tag.tr_type, tag.dsfid)) + _uid_bytes(tag.uid, exact=_UID_LEN_PLAIN)
            continue
        uid = _uid_bytes(tag.uid, exact=None)
        data += bytes((_FLAG_UID | _FLAG_ANT, tag.tr_type, tag.dsfid, len(uid))) + uid
        _check_byte("antenna count", len(tag.antennas))
        data.append(len(tag.antennas))
        for read in tag.antennas:
            for name, value in (("antenna", read.antenna), ("antenna status", read.status), ("rssi", read.rssi)):
                _check_byte(name, value)
            data += bytes((read.antenna, read.status, read.rssi)) + bytes(_ANT_RESERVED)
    return encode_frame(CMD_INVENTORY, bytes(data), com_adr=com_adr, status=status)
