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

from array import array
from collections.abc import Sequence
from dataclasses import dataclass

from firmware_bridge.crc import crc16_mcrf4xx
from firmware_bridge.errors import ProtocolError
from firmware_bridge.stream import Corrupt, StreamDecoder

__all__ = [
    "STATUS_OK", "STATUS_NO_TRANSPONDER", "STATUS_RF_COMM_ERROR", "STATUS_RF_WARNING",
    "STATUS_BUFFER_OVERFLOW", "STATUS_MORE_DATA", "STATUS_ISO_ERROR", "STATUS_TEXT",
    "CMD_INVENTORY", "CMD_GET_SOFTWARE_VERSION", "MODE_MORE", "MODE_ANT",
    "BROADCAST", "ADVANCED_START", "STANDARD_MAX", "ADVANCED_MAX",
    "Frame", "Corrupt", "FrameDecoder", "encode_frame",
    "AntennaRead", "TagRecord", "InventoryReply",
    "inventory_request", "parse_inventory", "encode_inventory_reply", "max_answer",
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

BROADCAST = 0xFF  # COM-ADR that reaches a reader whatever its address; it answers with its own
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


class FrameDecoder(StreamDecoder[Frame]):
    """Splits a byte stream into :class:`Frame` and :class:`Corrupt` items (the skeleton is
    :class:`firmware_bridge.stream.StreamDecoder`'s; this is FEIG's framing).

    ``from_reader=True`` parses reader-to-host answers (with a STATUS byte); False parses
    host-to-reader requests (the simulated reader's side). A claimed length above
    ``max_frame`` is treated as junk, which bounds how much the decoder buffers; the link
    sets it to the largest answer its requests can get (:func:`max_answer`).

    Resynchronisation: a length below the minimum, above ``max_frame``, or a frame whose CRC
    does not match drops ONE byte and the scan restarts at the next. (Dropping the whole
    claimed frame would lose a good frame whenever the length byte itself is the damaged
    one.) Dropped bytes collect into one :class:`Corrupt` that is emitted just before the
    next good frame, when ``max_frame`` bytes have collected, or by :meth:`flush`. So a run
    of garbage costs a bounded number of reports, and the output does not depend on how
    the stream was split into chunks.

    Linear time whatever the input: each byte is looked at as a frame start once, and a
    candidate's CRC is checked in constant time from the CRC register's prefix states
    (:func:`firmware_bridge.crc.crc16_span`), not by re-reading the bytes it claims. So junk
    whose length fields lie costs no more than any other junk (``bench/decoder_worst.py``).

    Counters: ``frames_ok`` counts :class:`Frame` items returned, ``frames_bad``
    :class:`Corrupt` items returned (by ``feed`` and ``flush``), ``bytes_skipped`` the bytes
    in those reports. Bytes dropped but not yet reported are not counted yet.
    """

    __slots__ = ("from_reader", "max_frame", "_min_std", "_min_adv")

    def __init__(self, *, from_reader: bool = True, max_frame: int = 4096) -> None:
        min_adv = 8 if from_reader else 7
        if not min_adv <= max_frame <= ADVANCED_MAX:
            raise ValueError(f"max_frame must be {min_adv}..{ADVANCED_MAX}, not {max_frame}")
        super().__init__(longest=max_frame)
        self.from_reader = from_reader
        self.max_frame = max_frame
        # LEN/COM-ADR/CMD/CRC(2) is the least a standard frame can be; the STATUS adds one.
        self._min_std = _STD_HEADER + 2 + (1 if from_reader else 0) + 2
        self._min_adv = _ADV_HEADER + 2 + (1 if from_reader else 0) + 2

    def _scan(self, out: list[Frame | Corrupt], buf: bytearray, states: array[int],
              final: bool) -> tuple[int, int, int]:
        small, big = self._small, self._big
        min_std, min_adv, max_frame = self._min_std, self._min_adv, self.max_frame
        pos, jstart = self._pos, self._jstart
        end = len(buf)
        need = 0  # the buffer length at which scanning can go on; 0: any new byte
        while pos < end:
            first = buf[pos]
            if first == ADVANCED_START:
                if end - pos < _ADV_HEADER:
                    if final:
                        if pos == jstart:
                            self._junk_reason = f"truncated: {end - pos} bytes of an advanced header at the end"
                        pos += 1
                        if pos - jstart >= max_frame:
                            jstart = self._report(out, jstart, pos)
                        continue
                    need = pos + _ADV_HEADER
                    break  # the length is not known yet
                length = (buf[pos + 1] << 8) | buf[pos + 2]
                minimum = min_adv
            else:
                length = first
                minimum = min_std
            if length < minimum or length > max_frame:
                if pos == jstart:  # format a reason only for the first byte of a run
                    self._junk_reason = self._length_reason(length, first == ADVANCED_START)
                pos += 1
                if pos - jstart >= max_frame:  # bound the memory a long run of garbage can take
                    jstart = self._report(out, jstart, pos)
                continue
            stop = pos + length
            if stop > end:
                if final:
                    if pos == jstart:
                        self._junk_reason = f"truncated: {end - pos} of {length} bytes at the end"
                    pos += 1
                    if pos - jstart >= max_frame:
                        jstart = self._report(out, jstart, pos)
                    continue
                need = stop
                break  # wait for the rest of the claimed frame
            # The register over the whole frame, CRC included, is 0 when the CRC matches
            # (StreamDecoder._crc_matches, inlined: this is the hot path).
            reg = states[pos] ^ 0xFFFF
            lo, hi = small[length & 0xFF]
            reg = lo[reg & 0xFF] ^ hi[reg >> 8]
            if length > 0xFF:
                lo, hi = big[length >> 8]
                reg = lo[reg & 0xFF] ^ hi[reg >> 8]
            if reg != states[stop]:
                if pos == jstart:
                    self._junk_reason = self._crc_mismatch(pos, stop)
                pos += 1
                if pos - jstart >= max_frame:
                    jstart = self._report(out, jstart, pos)
                continue
            jstart = self._report(out, jstart, pos)
            out.append(self._frame(bytes(buf[pos:stop]), _ADV_HEADER if first == ADVANCED_START else _STD_HEADER))
            self.frames_ok += 1
            pos = jstart = stop
        return pos, jstart, need

    def drain(self) -> list[Frame | Corrupt]:
        """The input has ended (the link's response deadline passed): give up on every claimed
        length still incomplete, one byte at a time, and rescan what follows it, so that a
        good frame held back by a junk byte's claim is still returned. Everything left is
        reported; the decoder is left empty. (:meth:`flush` drops all it holds instead.)"""
        return super().drain()

    def flush(self) -> Corrupt | None:
        """Drop everything buffered (after a response timeout); report it, or None if empty."""
        buf = self._buf
        junk = bytes(buf[self._jstart:self._pos])
        partial = bytes(buf[self._pos:])
        self._reset()
        if not partial and not junk:
            return None
        parts = []
        if junk:
            parts.append(self._junk_text(len(junk)))
        if partial:
            # feed() leaves the scan at an incomplete candidate, so its length is valid if
            # known; only an advanced header can be too short to know it.
            if partial[0] == ADVANCED_START and len(partial) < _ADV_HEADER:
                parts.append(f"truncated: {len(partial)} bytes of an advanced header before flush")
            else:
                claimed = partial[0] if partial[0] != ADVANCED_START else (partial[1] << 8) | partial[2]
                parts.append(f"truncated: {len(partial)} of {claimed} bytes before flush")
        report = Corrupt(junk + partial, "; ".join(parts))
        self._count_bad(report)
        return report

    # --- internals ---

    def _length_reason(self, length: int, advanced: bool) -> str:
        if length > self.max_frame:
            return f"length {length} over max_frame {self.max_frame}"
        if advanced:
            return f"advanced length {length} too small"
        return f"length byte {length} too small"

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


def max_answer(antennas: int | None) -> int:
    """The longest frame a reader can send in answer to our inventory request over
    ``antennas`` (a bitmask, or None for the layout without antenna information): 255 records
    (DATA-SETS is one byte), each as long as the parser accepts (a 16-byte UID, and with
    antennas one 7-byte block per antenna asked for), in an advanced frame. The link's decoder
    takes anything longer for junk, which bounds what a lying length field can hold back.

    >>> max_answer(None), max_answer(0x1FFF)
    (2559, 28569)
    """
    if antennas is None:
        record = 2 + _UID_LEN_PLAIN
    else:
        record = 4 + _UID_LEN_MAX + 1 + (3 + _ANT_RESERVED) * bin(antennas).count("1")
    return min(ADVANCED_MAX, _ADV_HEADER + 3 + 2 + 1 + 0xFF * record)


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

    fast = _parse_records_fast(data, with_antennas)
    if fast is not None:
        return InventoryReply(status, fast)
    # Something is wrong with it: the named walk says what, and where.
    return InventoryReply(status, _parse_records_named(data, with_antennas))


def _parse_records_named(data: bytes, with_antennas: bool) -> tuple[TagRecord, ...]:
    """The records, walked field by field: raises :class:`ProtocolError` naming the offset and
    the field of the first thing wrong."""
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
    return tuple(tags)


def _parse_records_fast(data: bytes, with_antennas: bool) -> tuple[TagRecord, ...] | None:
    """The records of a well-formed answer, or None for anything the named walk of
    :func:`parse_inventory` would refuse (it then says what and where). The reader link parses
    an answer every cycle: this path formats no message on the way (the named walk built one
    per field, several a record, and spent most of its time on them)."""
    n = len(data)
    if not n:
        return None
    count = data[0]
    pos = 1
    tags = []
    if not with_antennas:
        size = 2 + _UID_LEN_PLAIN
        if n != 1 + count * size:
            return None
        for p in range(1, n, size):
            tags.append(TagRecord(data[p + 2:p + size].hex().upper(), data[p], data[p + 1], ()))
        return tuple(tags)
    block = 3 + _ANT_RESERVED
    for _ in range(count):
        if pos + 4 > n:
            return None
        flags, tr_type, dsfid, uid_len = data[pos], data[pos + 1], data[pos + 2], data[pos + 3]
        if flags & ~(_FLAG_UID | _FLAG_ANT) or not flags & _FLAG_UID or not 1 <= uid_len <= _UID_LEN_MAX:
            return None
        pos += 4
        end = pos + uid_len
        if end > n:
            return None
        uid = data[pos:end].hex().upper()
        pos = end
        antennas: tuple[AntennaRead, ...] = ()
        if flags & _FLAG_ANT:
            if pos >= n:
                return None
            stop = pos + 1 + data[pos] * block
            if stop > n:
                return None
            antennas = tuple(AntennaRead(data[b], data[b + 1], data[b + 2]) for b in range(pos + 1, stop, block))
            pos = stop
        tags.append(TagRecord(uid, tr_type, dsfid, antennas))
    return tuple(tags) if pos == n else None


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
