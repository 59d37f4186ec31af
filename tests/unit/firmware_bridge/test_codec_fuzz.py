"""Fuzzing both stream decoders against reference decoders written here from the documents.

The reference decoders (:func:`ref_feig`, :func:`ref_shuffler`) follow the resynchronisation rules of
docs/protocols/feig.md and docs/protocols/shuffler.md step by step, the slow way: every candidate's
CRC computed afresh over its bytes with a CRC written in this file (checked against the published
check value). The codecs check a candidate's CRC in constant time from prefix states
(firmware_bridge/crc.py, ``crc16_span``); whatever the input and however it is cut into pieces,
their output (frames, corrupt reports with their bytes and reasons, counters) must be the
reference's. Round trips, the errors the parsers may raise, and a valid frame between two runs
of garbage are tested too. Examples are few (a few hundred) so that the suite stays fast.
"""

from __future__ import annotations

from array import array

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware_bridge import feig
from firmware_bridge import shuffler as sp
from firmware_bridge.crc import crc16_mcrf4xx, crc16_prefix, crc16_span
from firmware_bridge.errors import ProtocolError

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _table() -> list[int]:
    out = []
    for byte in range(256):
        reg = byte
        for _ in range(8):
            reg = (reg >> 1) ^ 0x8408 if reg & 1 else reg >> 1
        out.append(reg)
    return out


TABLE = _table()


def crc(data: bytes, reg: int = 0xFFFF) -> int:
    """CRC-16/MCRF4XX, this file's own (reflected 0x8408, init 0xFFFF, no final XOR)."""
    for byte in data:
        reg = (reg >> 8) ^ TABLE[(reg ^ byte) & 0xFF]
    return reg


def with_crc(body: bytes) -> bytes:
    c = crc(body)
    return body + bytes((c & 0xFF, c >> 8))


def test_this_files_crc_gives_the_published_check_value() -> None:
    assert crc(b"123456789") == 0x6F91
    assert with_crc(bytes.fromhex("05 FF 65")) == bytes.fromhex("05 FF 65 E5 CB")


@FUZZ
@given(st.binary(max_size=1500), st.integers(0, 0xFFFF))
def test_the_codecs_crc_is_this_files_crc_from_any_start_value(data: bytes, start: int) -> None:
    # (the codecs' is computed in C, binascii's CRC-CCITT over the bytes reflected: firmware_bridge/crc.py)
    want = crc(data, start)
    assert crc16_mcrf4xx(data, start) == want
    assert crc16_mcrf4xx(bytearray(data), start) == crc16_mcrf4xx(memoryview(data), start) == want
    assert crc16_mcrf4xx(data) == crc(data)


@FUZZ
@given(st.binary(max_size=1500), st.data())
def test_the_crc_of_any_span_from_prefix_states_is_the_crc_of_its_bytes(data: bytes, draw: st.DataObject) -> None:
    start = draw.draw(st.integers(0, len(data)))
    stop = draw.draw(st.integers(start, len(data)))
    states = array("H", [draw.draw(st.integers(0, 0xFFFF))])  # any start value: spans do not care
    crc16_prefix(states, data)
    assert crc16_span(states, start, stop) == crc(data[start:stop])
    assert crc16_span(states, start, stop, 0x1234) == crc(data[start:stop], 0x1234)


# --- Reference decoders ----------------------------------------------------------------------

Item = tuple[str, bytes, str]  # ("frame" | "corrupt", raw, reason or "")


def _skipped(reason: str, n: int) -> str:
    return reason if n == 1 else f"{reason}; {n} bytes skipped"


def ref_feig(stream: bytes, *, from_reader: bool, max_frame: int, drain: bool = False) -> list[Item]:
    """docs/protocols/feig.md, "Stream decoder and resynchronisation", then flush() (or, with
    ``drain``, drain(): an incomplete claim drops its first byte and the scan goes on)."""
    min_std, min_adv = (6, 8) if from_reader else (5, 7)
    out: list[Item] = []
    junk = bytearray()
    reason = ""
    pos = 0
    while pos < len(stream):
        first = stream[pos]
        why = ""
        if first == 0x02 and len(stream) - pos < 3:
            if not drain:
                break
            length = minimum = 0
            why = f"truncated: {len(stream) - pos} bytes of an advanced header at the end"
        elif first == 0x02:
            length, minimum = stream[pos + 1] << 8 | stream[pos + 2], min_adv
        else:
            length, minimum = first, min_std
        if why:
            pass
        elif length > max_frame:
            why = f"length {length} over max_frame {max_frame}"
        elif length < minimum:
            why = f"advanced length {length} too small" if first == 0x02 else f"length byte {length} too small"
        elif pos + length > len(stream):
            if not drain:
                break
            why = f"truncated: {len(stream) - pos} of {length} bytes at the end"
        else:
            frame = stream[pos:pos + length]
            got, want = frame[-2] | frame[-1] << 8, crc(frame[:-2])
            if got == want:
                if junk:
                    out.append(("corrupt", bytes(junk), _skipped(reason, len(junk))))
                    junk.clear()
                out.append(("frame", frame, ""))
                pos += length
                continue
            why = f"crc mismatch: got 0x{got:04X} want 0x{want:04X}"
        if not junk:
            reason = why
        junk.append(first)
        pos += 1
        if len(junk) >= max_frame:
            out.append(("corrupt", bytes(junk), _skipped(reason, len(junk))))
            junk.clear()
    partial = stream[pos:]
    if junk or partial:
        parts = [_skipped(reason, len(junk))] if junk else []
        if partial:
            if partial[0] == 0x02 and len(partial) < 3:
                parts.append(f"truncated: {len(partial)} bytes of an advanced header before flush")
            else:
                claimed = partial[0] if partial[0] != 0x02 else partial[1] << 8 | partial[2]
                parts.append(f"truncated: {len(partial)} of {claimed} bytes before flush")
        out.append(("corrupt", bytes(junk) + partial, "; ".join(parts)))
    return out


def ref_shuffler(stream: bytes, *, max_payload: int) -> list[Item]:
    """docs/protocols/shuffler.md, "Receiving and resynchronisation", then flush() (which
    gives up on an incomplete frame, drops its A5 and rescans what follows)."""
    limit = 8 + max_payload
    out: list[Item] = []
    junk = bytearray()
    reason = ""
    pos = 0
    while pos < len(stream):
        have = len(stream) - pos
        if stream[pos] != 0xA5:
            why = "no start byte"
        elif have < 4:
            why = f"truncated: {have} of 4 header bytes before flush"
        else:
            lo, hi, lcs = stream[pos + 1], stream[pos + 2], stream[pos + 3]
            length = lo | hi << 8
            if (lo + hi + lcs) & 0xFF:
                why = f"length check 0x{lcs:02X} does not match length {length}"
            elif length > max_payload:
                why = f"length {length} over max_payload {max_payload}"
            elif have < 8 + length:
                why = f"truncated: {have} of {8 + length} bytes before flush"
            else:
                frame = stream[pos:pos + 8 + length]
                got, want = frame[-2] | frame[-1] << 8, crc(frame[:-2])
                if got == want:
                    if junk:
                        out.append(("corrupt", bytes(junk), _skipped(reason, len(junk))))
                        junk.clear()
                    out.append(("frame", frame, ""))
                    pos += len(frame)
                    continue
                why = f"crc mismatch: got 0x{got:04X} want 0x{want:04X}"
        if not junk:
            reason = why
        junk.append(stream[pos])
        pos += 1
        if len(junk) >= limit:
            out.append(("corrupt", bytes(junk), _skipped(reason, len(junk))))
            junk.clear()
    if junk:
        out.append(("corrupt", bytes(junk), _skipped(reason, len(junk))))
    return out


# --- Streams ---------------------------------------------------------------------------------

def sized_binary(top: int) -> st.SearchStrategy[bytes]:
    """Bytes of a length drawn evenly from 0..top: ``st.binary`` keeps to short ones, and the
    long ones (advanced frames, lengths over 255) are where the span tables differ."""
    return st.integers(0, top).flatmap(lambda n: st.binary(min_size=n, max_size=n))


@st.composite
def feig_frames(draw: st.DrawFn, from_reader: bool = True, max_data: int = 300) -> bytes:
    """A frame built here from the layout (not by the codec): standard or advanced."""
    body = bytes((draw(st.integers(0, 255)), draw(st.integers(0, 255))))  # COM-ADR, CMD
    if from_reader:
        body += bytes((draw(st.integers(0, 255)),))  # STATUS
    body += draw(sized_binary(max_data))
    if len(body) + 3 <= 255 and not draw(st.booleans()):
        return with_crc(bytes((len(body) + 3,)) + body)
    n = len(body) + 5
    return with_crc(bytes((0x02, n >> 8, n & 0xFF)) + body)


def shuffler_frames(max_payload: int = 300) -> st.SearchStrategy[bytes]:
    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        payload = draw(sized_binary(max_payload))
        lo, hi = len(payload) & 0xFF, len(payload) >> 8
        head = bytes((0xA5, lo, hi, -(lo + hi) & 0xFF, draw(st.integers(0, 255)),
                      draw(st.sampled_from([0x01, 0x02, 0x03, 0x81, 0x82, 0x83, 0x84, 0x42]))))
        return with_crc(head + payload)
    return build()


def flip(frame: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        damaged = bytearray(draw(frame))
        bit = draw(st.integers(0, len(damaged) * 8 - 1))
        damaged[bit // 8] ^= 1 << (bit % 8)
        return bytes(damaged)
    return build()


def cut(frame: st.SearchStrategy[bytes]) -> st.SearchStrategy[bytes]:
    return st.tuples(frame, st.integers(1, 400)).map(lambda t: t[0][:max(1, len(t[0]) - t[1])])


def feig_streams(from_reader: bool) -> st.SearchStrategy[bytes]:
    frame = feig_frames(from_reader)
    lying = st.tuples(st.integers(0, 0x05), st.integers(0, 255)).map(lambda t: bytes((0x02, t[0], t[1])))
    part = st.one_of(frame, flip(frame), cut(frame), lying, st.binary(max_size=40),
                     st.integers(1, 60).map(lambda n: b"\x02" * n), st.integers(1, 60).map(lambda n: b"\xff" * n))
    return st.lists(part, max_size=8).map(b"".join)


def shuffler_streams() -> st.SearchStrategy[bytes]:
    frame = shuffler_frames()
    lying = st.integers(0, 0x0900).map(lambda n: bytes((0xA5, n & 0xFF, n >> 8, -((n & 0xFF) + (n >> 8)) & 0xFF)))
    part = st.one_of(frame, flip(frame), cut(frame), lying, st.binary(max_size=40),
                     st.integers(1, 60).map(lambda n: b"\xa5" * n))
    return st.lists(part, max_size=8).map(b"".join)


def pieces(stream: bytes, sizes: list[int]) -> list[bytes]:
    out, pos = [], 0
    for size in sizes:
        out.append(stream[pos:pos + size])
        pos += size
    out.append(stream[pos:])
    return out


SIZES = st.lists(st.integers(1, 700), max_size=30)


def seq_type(item: sp.Message | sp.Invalid) -> Item:
    """A decoded frame as ("frame", SEQ TYPE, "")."""
    if isinstance(item, sp.Invalid):
        return ("frame", bytes((item.seq, item.type)), "")
    return ("frame", bytes((item.seq, sp.message_type(item))), "")


def feig_items(decoder: feig.FrameDecoder, chunks: list[bytes], *, drain: bool = False) -> list[Item]:
    got: list[feig.Frame | feig.Corrupt] = []
    for chunk in chunks:
        got += decoder.feed(chunk)
    if drain:
        got += decoder.drain()
    else:
        tail = decoder.flush()
        if tail is not None:
            got.append(tail)
    return [("frame", i.raw, "") if isinstance(i, feig.Frame) else ("corrupt", i.raw, i.reason) for i in got]


# --- The codecs against the references ---------------------------------------------------------

@pytest.mark.slow
@FUZZ
@given(st.booleans(), st.data(), st.sampled_from([8, 64, 300, 1100, 65535]), SIZES, st.booleans())
def test_feig_decoder_matches_the_reference_in_any_pieces(from_reader: bool, data: st.DataObject,
                                                           max_frame: int, sizes: list[int], drain: bool) -> None:
    stream = data.draw(feig_streams(from_reader))
    decoder = feig.FrameDecoder(from_reader=from_reader, max_frame=max_frame)
    expected = ref_feig(stream, from_reader=from_reader, max_frame=max_frame, drain=drain)
    assert feig_items(decoder, pieces(stream, sizes), drain=drain) == expected
    assert decoder.frames_ok == sum(kind == "frame" for kind, _, _ in expected)
    assert decoder.frames_bad == sum(kind == "corrupt" for kind, _, _ in expected)
    assert decoder.bytes_skipped == sum(len(raw) for kind, raw, _ in expected if kind == "corrupt")
    assert decoder.buffered == 0


@FUZZ
@given(shuffler_streams(), st.sampled_from([0, 56, 300, sp.MAX_PAYLOAD]), SIZES)
def test_shuffler_decoder_matches_the_reference_in_any_pieces(stream: bytes, max_payload: int,
                                                              sizes: list[int]) -> None:
    decoder = sp.ShufflerDecoder(max_payload=max_payload)
    got: list[sp.Message | sp.Invalid | sp.Corrupt] = []
    for chunk in pieces(stream, sizes):
        got += decoder.feed(chunk)
    got += decoder.flush()
    # A message keeps no raw bytes (and a decoded one need not encode back: bytes after its
    # fields are ignored, a non-ASCII ident is replaced), so a frame is compared by SEQ and TYPE.
    items = [("corrupt", i.raw, i.reason) if isinstance(i, sp.Corrupt) else seq_type(i) for i in got]
    expected = [(k, r, w) if k == "corrupt" else ("frame", r[4:6], "")
                for k, r, w in ref_shuffler(stream, max_payload=max_payload)]
    assert items == expected
    assert decoder.frames_ok + decoder.frames_invalid == sum(k == "frame" for k, _, _ in expected)
    assert decoder.bytes_skipped == sum(len(r) for k, r, _ in expected if k == "corrupt")
    assert decoder.buffered == 0


# --- Round trips ------------------------------------------------------------------------------------

@FUZZ
@given(st.integers(0, 255), sized_binary(1500), st.integers(0, 255),
       st.one_of(st.none(), st.integers(0, 255)), st.sampled_from([None, True]))
def test_feig_frames_round_trip(cmd: int, data: bytes, com_adr: int, status: int | None,
                                advanced: bool | None) -> None:
    raw = feig.encode_frame(cmd, data, com_adr=com_adr, status=status, advanced=advanced)
    assert crc(raw) == 0  # the residue: the frame carries its own CRC, low byte first
    [frame] = feig.FrameDecoder(from_reader=status is not None, max_frame=feig.ADVANCED_MAX).feed(raw)
    assert frame == feig.Frame(com_adr, cmd, status, data, raw[0] == 0x02, raw)


@FUZZ
@given(st.integers(0, 255), st.integers(0, 255), sized_binary(sp.MAX_PAYLOAD))
def test_shuffler_frames_round_trip(seq: int, type_: int, payload: bytes) -> None:
    raw = sp.encode_frame(seq, type_, payload)
    assert crc(raw) == 0
    [item] = sp.ShufflerDecoder().feed(raw)
    # The frame comes back whole: as the message its fields make, or Invalid with its bytes.
    # (Messages themselves round trip in test_shuffler_codec.py; a payload of any bytes need not
    # encode back: unknown CAPS bits and bytes after the fields are ignored.)
    assert not isinstance(item, sp.Corrupt)
    assert seq_type(item) == ("frame", bytes((seq, type_)), "")
    if isinstance(item, sp.Invalid):
        assert item.raw == raw
        with pytest.raises(ProtocolError):
            sp.parse_message(seq, type_, payload)
    else:
        assert item == sp.parse_message(seq, type_, payload)


# --- Only the documented errors -------------------------------------------------------------------

@FUZZ
@given(st.integers(0, 255), st.one_of(st.none(), st.integers(0, 255)), st.binary(max_size=300), st.booleans())
def test_parse_inventory_raises_only_protocol_error(cmd: int, status: int | None, data: bytes,
                                                    with_antennas: bool) -> None:
    frame = feig.Frame(0, cmd, status, data, False, b"")
    try:
        reply = feig.parse_inventory(frame, with_antennas=with_antennas)
    except ProtocolError as exc:
        assert str(exc).startswith("inventory answer: ")
    else:
        assert reply.status == status and cmd == feig.CMD_INVENTORY


@FUZZ
@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=300))
def test_parse_message_raises_only_protocol_error(seq: int, type_: int, payload: bytes) -> None:
    try:
        msg = sp.parse_message(seq, type_, payload)
    except ProtocolError:
        return
    assert msg.seq == seq and sp.message_type(msg) == type_


# --- A valid frame between two runs of garbage ----------------------------------------------------

@FUZZ
@given(st.binary(max_size=300), feig_frames(max_data=200), st.binary(max_size=300))
def test_feig_frame_between_garbage_is_decoded(before: bytes, frame: bytes, after: bytes) -> None:
    """The frame is decoded, by the time drain() has refuted every length the garbage claims
    (the client drains when its deadline passes), unless the garbage before it holds a CRC-valid
    frame reaching into it (then that frame is taken: indistinguishable)."""
    max_frame = 600
    stream = before + frame + after
    expected = ref_feig(stream, from_reader=True, max_frame=max_frame, drain=True)
    starts, pos = [], 0
    for kind, raw, _ in expected:
        if kind == "frame":
            starts.append(pos)
        pos += len(raw)
    assume(not any(s < len(before) and s + len(raw) > len(before) for s in starts
                   for kind, raw, _ in expected if kind == "frame"))
    decoder = feig.FrameDecoder(max_frame=max_frame)
    items = decoder.feed(stream) + decoder.drain()
    assert frame in [i.raw for i in items if isinstance(i, feig.Frame)]
    assert decoder.buffered == 0


@FUZZ
@given(st.binary(max_size=300), shuffler_frames(), st.binary(max_size=300))
def test_shuffler_frame_between_garbage_is_decoded(before: bytes, frame: bytes, after: bytes) -> None:
    """The frame is decoded (at the latest by the flush that follows a quiet line) unless the
    garbage before it holds a CRC-valid frame reaching into it."""
    stream = before + frame + after
    expected = ref_shuffler(stream, max_payload=sp.MAX_PAYLOAD)
    spans, pos = [], 0
    for kind, raw, _ in expected:
        if kind == "frame":
            spans.append((pos, pos + len(raw)))
        pos += len(raw)
    assume(not any(s < len(before) < e for s, e in spans))
    decoder = sp.ShufflerDecoder()
    items = decoder.feed(stream) + decoder.flush()
    found = [seq_type(i)[1] for i in items if not isinstance(i, sp.Corrupt)]
    assert frame[4:6] in found


@pytest.mark.parametrize("max_frame", [8, 9, 10])
@pytest.mark.parametrize("tail", [b"\x02", b"\x02\x00", b"\x02\x00\x30", b"\x30"])
def test_feig_drain_at_the_junk_limit_matches_the_reference(max_frame: int, tail: bytes) -> None:
    """A claim cut short by the end of input, just where the junk reaches ``max_frame``."""
    for n in range(12):
        stream = b"\x01" * n + tail
        decoder = feig.FrameDecoder(max_frame=max_frame)
        assert feig_items(decoder, [stream], drain=True) == \
            ref_feig(stream, from_reader=True, max_frame=max_frame, drain=True)


# --- The inventory parser's two paths -------------------------------------------------------------

_BYTE = st.integers(0, 255)


@st.composite
def inventory_data(draw: st.DrawFn, with_antennas: bool) -> bytes:
    """The DATA of an inventory answer, written from the layout in docs/protocols/feig.md (not
    with the codec's encoder): DATA-SETS, then per record FLAGS, TR-TYPE, DSFID, UID-LEN, UID and
    with antennas ANT-CNT and 7-byte antenna blocks (ANT-NR, ANT-STATUS, RSSI, 4 reserved)."""
    out = bytearray()
    count = draw(st.integers(0, 6))
    out.append(count)
    for _ in range(count):
        if not with_antennas:
            out += bytes((draw(_BYTE), draw(_BYTE))) + draw(st.binary(min_size=8, max_size=8))
            continue
        flags = draw(st.sampled_from([0x01, 0x11]))
        uid = draw(st.binary(min_size=1, max_size=16))
        out += bytes((flags, draw(_BYTE), draw(_BYTE), len(uid))) + uid
        if flags & 0x10:
            blocks = draw(st.lists(st.tuples(_BYTE, _BYTE, _BYTE, st.binary(min_size=4, max_size=4)), max_size=4))
            out.append(len(blocks))
            for a, s, r, reserved in blocks:
                out += bytes((a, s, r)) + reserved
    return bytes(out)


@FUZZ
@given(st.booleans(), st.data())
def test_the_fast_and_the_named_inventory_parsers_agree(with_antennas: bool, draw: st.DataObject) -> None:
    """parse_inventory takes a fast path and falls back to the named walk for anything amiss:
    on well-formed answers (drawn from the documented layout) and on the same cut, padded or
    with one byte changed, the fast path gives what the walk gives, or leaves it to the walk
    (None) exactly when the walk refuses."""
    data = draw.draw(inventory_data(with_antennas))
    change = draw.draw(st.sampled_from(["none", "cut", "pad", "flip"]))
    if change == "cut" and data:
        data = data[:draw.draw(st.integers(0, len(data) - 1))]
    elif change == "pad":
        data += draw.draw(st.binary(min_size=1, max_size=8))
    elif change == "flip" and data:
        i = draw.draw(st.integers(0, len(data) - 1))
        data = data[:i] + bytes((draw.draw(_BYTE),)) + data[i + 1:]
    fast = feig._parse_records_fast(data, with_antennas)
    try:
        named = feig._parse_records_named(data, with_antennas)
    except ProtocolError:
        assert fast is None
    else:
        assert fast == named
    if change == "none":
        assert fast is not None and len(fast) == data[0]
