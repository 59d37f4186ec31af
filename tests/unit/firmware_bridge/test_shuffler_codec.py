"""The shuffler protocol codec: the examples of docs/protocols/shuffler.md, encoding, parsing,
and the stream decoder under damage.

The expected bytes come from the protocol document itself, parsed here, so that the document and
the code cannot drift apart.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware_bridge import shuffler as sp
from firmware_bridge.crc import crc16_mcrf4xx
from firmware_bridge.errors import ProtocolError
from firmware_bridge.shuffler import (
    AckReport,
    Corrupt,
    DeckReport,
    GetStatus,
    Hello,
    HelloReply,
    Invalid,
    Nak,
    ShufflerDecoder,
    Status,
    encode_frame,
    encode_message,
)
from rig.paths import ROOT

H = bytes.fromhex
DOC = (ROOT / "docs" / "protocols" / "shuffler.md").read_text()
MESSAGE_CLASSES = {cls.__name__: cls for cls in (Hello, GetStatus, AckReport, HelloReply, Status, DeckReport, Nak)}
FAST = settings(max_examples=200, deadline=None)


def decode_all(stream: bytes, **kwargs: int) -> tuple[list, ShufflerDecoder]:
    decoder = ShufflerDecoder(**kwargs)
    items = decoder.feed(stream)
    return items + decoder.flush(), decoder


def messages(items: list) -> list:
    return [item for item in items if not isinstance(item, (Corrupt, Invalid))]


# --- The document's examples ------------------------------------------------------------------

EXAMPLE_ROW = re.compile(rf"^\| `((?:{'|'.join(MESSAGE_CLASSES)})\(.*\))` \| `([0-9A-F ]+)` \|$", re.M)
FRAME_BLOCK = re.compile(r"^```frame\n(.*?)^```", re.M | re.S)
CRC_ROW = re.compile(r"^\| `([0-9A-F]{2})` \| 0x([0-9A-F]{4}) \|$", re.M)
TYPE_ROW = re.compile(r"^\| `([0-9A-F]{2})` \| ([A-Z_]+) \| (host|shuffler) → ", re.M)


def doc_examples() -> list[tuple[str, bytes]]:
    return [(text, H(frame)) for text, frame in EXAMPLE_ROW.findall(DOC)]


def doc_frames() -> list[bytes]:
    frames = []
    for block in FRAME_BLOCK.findall(DOC):
        hexes = [re.match(r"((?:[0-9A-F]{2} )*[0-9A-F]{2})(?:\s{2,}|$)", line) for line in block.splitlines()]
        assert all(hexes), block  # every line of an annotated frame starts with its bytes
        frames.append(H(" ".join(m.group(1) for m in hexes if m)))
    return frames


def test_the_document_has_examples_of_every_message_type() -> None:
    names = {text.split("(")[0] for text, _ in doc_examples()}
    assert names == set(MESSAGE_CLASSES)
    assert len(doc_examples()) >= 17 and len(doc_frames()) >= 2


@pytest.mark.parametrize(("text", "frame"), doc_examples(), ids=[t for t, _ in doc_examples()])
def test_every_example_frame_decodes_to_its_message_and_back(text: str, frame: bytes) -> None:
    expected = eval(text, {"__builtins__": {}}, MESSAGE_CLASSES)  # a value written in the doc
    decoder = ShufflerDecoder()
    assert decoder.feed(frame) == [expected]
    assert decoder.flush() == [] and (decoder.frames_ok, decoder.frames_bad) == (1, 0)
    assert encode_message(expected) == frame


@pytest.mark.parametrize("frame", doc_frames())
def test_every_annotated_frame_is_one_valid_message(frame: bytes) -> None:
    [msg] = ShufflerDecoder().feed(frame)
    assert encode_message(msg) == frame
    assert frame in [f for _, f in doc_examples()]  # and it is one of the tabled examples


def test_the_documented_crc_walk_through() -> None:
    rows = CRC_ROW.findall(DOC)
    assert len(rows) == 6
    crc = 0xFFFF
    for byte, after in rows:
        crc = crc16_mcrf4xx(H(byte), crc)
        assert crc == int(after, 16)
    assert bytes((crc & 0xFF, crc >> 8)) == H("97 8C") == sp.encode_get_status(2)[-2:]
    assert crc16_mcrf4xx(b"123456789") == 0x6F91


def test_the_documented_types_states_and_version_match_the_code() -> None:
    assert {int(code, 16): name for code, name, _ in TYPE_ROW.findall(DOC)} == sp.TYPE_NAMES
    states = dict(re.findall(r"`(0[0-4])` (ready|shuffling|jam|door_open|error)", DOC))
    assert {int(code, 16): name for code, name in states.items()} == sp.STATE_CODES
    assert f"version {sp.PROTOCOL_VERSION[0]}.{sp.PROTOCOL_VERSION[1]}" in DOC.splitlines()[0]
    from controller.core.events import SHUFFLER_STATES
    assert tuple(sp.STATE_CODES.values()) == SHUFFLER_STATES


# --- Encoding -------------------------------------------------------------------------------

def test_frame_layout() -> None:
    frame = encode_frame(0x42, 0x99, bytes(300))
    assert frame[:6] == H("A5 2C 01 D3 42 99") and len(frame) == 308  # 0x2C + 0x01 + 0xD3 = 0x100
    assert crc16_mcrf4xx(frame[:-2]) == frame[-2] | frame[-1] << 8


def test_a_full_deck_report_with_uids() -> None:
    uids = tuple(f"E0040150A05F00{i:02X}" for i in range(52))
    frame = sp.encode_deck_report(5, 52, uids)
    assert len(frame) == 8 + 3 + 52 * 8 == 427
    assert frame[:9] == H("A5 A3 01 5C 05 83 34 01 34")
    assert ShufflerDecoder().feed(frame) == [DeckReport(5, 52, uids)]


def test_the_largest_message_fits() -> None:
    uids = ["E0" + f"{i:014X}" for i in range(255)]
    frame = sp.encode_deck_report(1, 255, uids)
    assert len(frame) == sp.OVERHEAD + sp.MAX_PAYLOAD
    assert ShufflerDecoder().feed(frame) == [DeckReport(1, 255, tuple(uids))]


def test_uids_are_accepted_in_lower_case_and_decoded_upper_case() -> None:
    frame = sp.encode_deck_report(1, 1, ["e0040150a05f0000"])
    assert ShufflerDecoder().feed(frame) == [DeckReport(1, 1, ("E0040150A05F0000",))]


@pytest.mark.parametrize(("encode", "message"), [
    (lambda: encode_frame(256, sp.T_GET_STATUS), "seq must be 0..255"),
    (lambda: encode_frame(0, -1), "type must be 0..255"),
    (lambda: encode_frame(0, 0x10, bytes(sp.MAX_PAYLOAD + 1)), "exceeds MAX_PAYLOAD"),
    (lambda: sp.encode_hello(0, (256, 0)), "major must be 0..255"),
    (lambda: sp.encode_status(0, "sleeping"), "state must be one of ready, shuffling, jam, door_open, error"),
    (lambda: sp.encode_status(0, "error", 0x10000), "code must be 0..65535"),
    (lambda: sp.encode_deck_report(0, 256), "count must be 0..255"),
    (lambda: sp.encode_deck_report(0, 52, ["E0040150A05F00"]), "must be 8 bytes"),
    (lambda: sp.encode_deck_report(0, 52, ["E0040150A05F00ZZ"]), "is not hex"),
    (lambda: sp.encode_deck_report(0, 52, ["E0040150A05F0000"] * 256), "number of UIDs must be 0..255"),
    (lambda: sp.encode_hello_reply(0, boot_id=1 << 32, reads_tags=True), "boot_id must be"),
    (lambda: sp.encode_hello_reply(0, boot_id=1, reads_tags=True, ident="Mélange"), "must be ASCII"),
    (lambda: sp.encode_hello_reply(0, boot_id=1, reads_tags=True, ident="x" * 256), "ident length"),
    (lambda: sp.encode_nak(0, 0x100, 1), "refused type must be"),
])
def test_encoders_reject_what_cannot_be_sent(encode, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        encode()


def test_encode_message_rejects_other_values() -> None:
    with pytest.raises(TypeError):
        encode_message("hello")  # type: ignore[arg-type]


# --- Parsing --------------------------------------------------------------------------------

@pytest.mark.parametrize(("type_", "payload", "reason"), [
    (0x42, "", "unknown message type 0x42"),
    (0x05, "01 02", "unknown message type 0x05"),
    (sp.T_HELLO, "01", "HELLO: payload of 1 bytes, expected at least 2"),
    (sp.T_HELLO_REPLY, "01 00 C4 11 5E 2A 01", "HELLO_REPLY: payload of 7 bytes, expected at least 8"),
    (sp.T_HELLO_REPLY, "01 00 C4 11 5E 2A 01 05 41 42", "HELLO_REPLY: payload of 10 bytes, expected at least 13"),
    (sp.T_STATUS, "02 00", "STATUS: payload of 2 bytes, expected at least 3"),
    (sp.T_STATUS, "05 00 00", "STATUS: unknown state byte 0x05"),
    (sp.T_DECK_REPORT, "34 01", "DECK_REPORT: payload of 2 bytes, expected at least 3"),
    (sp.T_DECK_REPORT, "34 01 02 E0 04 01 50 A0 5F 00 00", "DECK_REPORT: payload of 11 bytes, expected at least 19"),
    (sp.T_DECK_REPORT, "34 00 01 E0 04 01 50 A0 5F 00 00",
     "DECK_REPORT: 1 UIDs in a count-only report (FLAGS bit 0 clear)"),
    (sp.T_NAK, "02", "NAK: payload of 1 bytes, expected at least 2"),
])
def test_frames_that_make_no_sense_are_invalid_not_raised(type_: int, payload: str, reason: str) -> None:
    frame = encode_frame(9, type_, H(payload))
    with pytest.raises(ProtocolError, match=re.escape(reason)):
        sp.parse_message(9, type_, H(payload))
    items, decoder = decode_all(frame)
    assert items == [Invalid(9, type_, frame, reason)]
    assert (decoder.frames_ok, decoder.frames_invalid, decoder.frames_bad) == (0, 1, 0)


@pytest.mark.parametrize(("type_", "payload", "expected"), [
    (sp.T_HELLO, "01 03 FF FF", Hello(4, 1, 3)),
    (sp.T_GET_STATUS, "00", GetStatus(4)),
    (sp.T_ACK_REPORT, "12 34", AckReport(4)),
    (sp.T_HELLO_REPLY, "01 02 01 00 00 00 03 01 58 EE", HelloReply(4, 1, 2, 1, True, "X")),
    (sp.T_STATUS, "04 02 01 00 00", Status(4, "error", 0x0102)),
    (sp.T_DECK_REPORT, "00 01 00 99", DeckReport(4, 0, ())),
    (sp.T_DECK_REPORT, "34 80 00", DeckReport(4, 52, None)),  # an unknown FLAGS bit is ignored
    (sp.T_NAK, "02 03 00", Nak(4, 2, 3)),
])
def test_a_later_minor_version_s_additions_are_ignored(type_: int, payload: str, expected: object) -> None:
    """Versioning: fields appended at the end and new flag bits do not break an older receiver."""
    assert ShufflerDecoder().feed(encode_frame(4, type_, H(payload))) == [expected]


def test_a_non_ascii_ident_is_shown_not_refused() -> None:
    frame = encode_frame(1, sp.T_HELLO_REPLY, H("01 00 01 00 00 00 00 02 C3 A9"))
    [reply] = ShufflerDecoder().feed(frame)
    assert reply.ident == "\ufffd\ufffd"


def test_version_compatibility() -> None:
    assert sp.compatible((1, 0)) and sp.compatible((1, 255)) and not sp.compatible((0, 9))
    assert not sp.compatible((2, 0)) and sp.compatible((2, 1), (2, 0))


@pytest.mark.parametrize(("state", "code", "text"), [
    ("ready", 0, "ready"), ("door_open", 0, "door open"), ("error", 0x0102, "error code 0x0102 (maker)"),
    ("error", 0xFF03, "error code 0xFF03 (bridge: report queue overflowed, reports were lost)"),
    ("error", 0xFF7F, "error code 0xFF7F (bridge)"),
])
def test_status_text(state: str, code: int, text: str) -> None:
    assert sp.status_text(state, code) == text


# --- The decoder: damage, resynchronisation, flush -------------------------------------------------

READY = sp.encode_status(2, "ready")
REPORT = sp.encode_deck_report(10, 2, ("E0040150A05F0000", "E0040150A05F0001"))


@pytest.mark.parametrize(("junk", "reason"), [
    (H("00"), "no start byte"),
    (H("13 37 00"), "no start byte; 3 bytes skipped"),
    (H("A5 01 00 00"), "length check 0x00 does not match length 1; 4 bytes skipped"),
    (H("A5 00 08 F8"), "length 2048 over max_payload 2043; 4 bytes skipped"),
    (H("A5 A5 00 00 00"), "length check 0x00 does not match length 165; 5 bytes skipped"),
    (READY[:-1] + H("00"), "crc mismatch: got 0x00D2 want 0x72D2; 11 bytes skipped"),
])
def test_junk_before_a_frame_is_reported_with_its_reason(junk: bytes, reason: str) -> None:
    decoder = ShufflerDecoder()
    assert decoder.feed(junk + READY) == [Corrupt(junk, reason), Status(2, "ready")]
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (1, 1, len(junk))
    assert decoder.buffered == 0


def test_a_damaged_length_does_not_hide_the_next_frame() -> None:
    damaged = bytearray(REPORT)
    damaged[1] ^= 0x40  # LEN: the length check catches it at once
    items, _ = decode_all(bytes(damaged) + READY)
    assert items[0].reason.startswith("length check") and items[1:] == [Status(2, "ready")]


def test_a_false_start_claiming_a_long_frame_is_given_up_at_flush() -> None:
    # A5 with a valid length check claiming 1000 bytes: the decoder waits for them...
    false_start = H("A5 E8 03 15")
    decoder = ShufflerDecoder()
    assert decoder.feed(false_start + READY + REPORT) == []
    assert decoder.buffered == 4 + len(READY) + len(REPORT)
    # ...until the line goes quiet; then the frames behind it are recovered.
    assert decoder.flush() == [Corrupt(false_start, "truncated: 42 of 1008 bytes before flush; 4 bytes skipped"),
                               Status(2, "ready"), DeckReport(10, 2, ("E0040150A05F0000", "E0040150A05F0001"))]
    assert decoder.buffered == 0 and decoder.flush() == []


@pytest.mark.parametrize(("stream", "reason"), [
    (H("A5"), "truncated: 1 of 4 header bytes before flush"),
    (READY[:5], "truncated: 5 of 11 bytes before flush; 5 bytes skipped"),
    (H("00 A5 00"), "no start byte; 3 bytes skipped"),
])
def test_flush_reports_partial_frames(stream: bytes, reason: str) -> None:
    decoder = ShufflerDecoder()
    assert decoder.feed(stream) == []
    assert decoder.flush() == [Corrupt(stream, reason)]
    assert decoder.feed(READY) == [Status(2, "ready")]  # the stale piece did not stick to it


def test_long_garbage_is_reported_in_bounded_pieces() -> None:
    decoder = ShufflerDecoder(max_payload=56)  # frames of at most 64 bytes
    items = decoder.feed(bytes(64 * 3 + 10))
    assert [len(item.raw) for item in items] == [64, 64, 64] and decoder.buffered == 10
    assert decoder.flush() == [Corrupt(bytes(10), "no start byte; 10 bytes skipped")]


def test_max_payload_is_bounded() -> None:
    with pytest.raises(ValueError):
        ShufflerDecoder(max_payload=sp.MAX_PAYLOAD + 1)


# --- Property tests ---------------------------------------------------------------------------

seqs = st.integers(0, 255)
uid_strings = st.binary(min_size=8, max_size=8).map(lambda b: b.hex().upper())
all_messages = st.one_of(
    st.builds(Hello, seqs, st.integers(0, 255), st.integers(0, 255)),
    st.builds(GetStatus, seqs),
    st.builds(AckReport, seqs),
    st.builds(HelloReply, seqs, st.integers(0, 255), st.integers(0, 255), st.integers(0, 0xFFFF_FFFF),
              st.booleans(), st.text(st.characters(max_codepoint=127), max_size=40)),
    st.builds(Status, seqs, st.sampled_from(list(sp.STATES)), st.integers(0, 0xFFFF)),
    st.builds(DeckReport, seqs, st.integers(0, 255),
              st.one_of(st.none(), st.lists(uid_strings, max_size=70).map(tuple))),
    st.builds(Nak, seqs, st.integers(0, 255), st.integers(0, 255)),
)


@FAST
@given(all_messages)
def test_every_message_round_trips(msg: sp.Message) -> None:
    frame = encode_message(msg)
    assert frame[5] == sp.message_type(msg)
    decoder = ShufflerDecoder()
    assert decoder.feed(frame) == [msg]
    assert decoder.buffered == 0 and decoder.frames_ok == 1


def item_bytes(item: object) -> bytes:
    return item.raw if isinstance(item, (Corrupt, Invalid)) else encode_message(item)  # type: ignore[arg-type]


def assert_partition(items: list, decoder: ShufflerDecoder, stream: bytes) -> None:
    """Every byte fed comes back exactly once, in order, and the counters agree."""
    assert b"".join(item_bytes(item) for item in items) == stream
    reports = [item for item in items if isinstance(item, Corrupt)]
    assert decoder.frames_bad == len(reports) and all(r.raw and r.reason for r in reports)
    assert decoder.bytes_skipped == sum(len(r.raw) for r in reports)
    assert decoder.frames_ok + decoder.frames_invalid == len(items) - len(reports)
    assert decoder.buffered == 0


def crc_valid_offsets(stream: bytes, max_payload: int = sp.MAX_PAYLOAD) -> set[int]:
    """Every offset where the stream holds a complete frame with a good length check and CRC."""
    found = set()
    for i in range(len(stream) - sp.OVERHEAD + 1):
        lo, hi, lcs = stream[i + 1:i + 4]
        length = lo | hi << 8
        if stream[i] != sp.SOF or (lo + hi + lcs) & 0xFF or length > max_payload:
            continue
        end = i + sp.OVERHEAD + length
        if end <= len(stream) and crc16_mcrf4xx(stream[i:end - 2]) == stream[end - 2] | stream[end - 1] << 8:
            found.add(i)
    return found


# Garbage rich in start bytes and in bytes that make a valid length check with them.
garbage = st.lists(st.sampled_from([0xA5, 0x00, 0xFF, 0x01, 0x02, 0xFE, 0xFD]) | st.integers(0, 255),
                   min_size=1, max_size=40).map(bytes)


@pytest.mark.slow
@FAST
@given(st.binary(max_size=3000) | st.lists(garbage, max_size=30).map(b"".join))
def test_random_bytes_never_raise_and_are_counted(stream: bytes) -> None:
    assume(not crc_valid_offsets(stream))
    items, decoder = decode_all(stream)
    assert all(isinstance(item, Corrupt) for item in items)
    assert_partition(items, decoder, stream)


@FAST
@given(garbage, all_messages)
def test_a_valid_frame_after_garbage_is_found(junk: bytes, msg: sp.Message) -> None:
    frame = encode_message(msg)
    assume(crc_valid_offsets(junk + frame) == {len(junk)})
    items, decoder = decode_all(junk + frame)
    assert messages(items) == [msg]
    assert_partition(items, decoder, junk + frame)


@FAST
@given(all_messages, st.data())
def test_bit_flips_are_counted_never_taken_for_a_message(msg: sp.Message, data: st.DataObject) -> None:
    damaged = bytearray(encode_message(msg))
    for _ in range(data.draw(st.integers(1, 3))):
        bit = data.draw(st.integers(0, len(damaged) * 8 - 1))
        damaged[bit // 8] ^= 1 << (bit % 8)
    stream = bytes(damaged) + READY
    assume(crc_valid_offsets(stream) == {len(damaged)})  # the flips did not forge a frame
    items, decoder = decode_all(stream)
    assert messages(items) == [Status(2, "ready")]
    assert decoder.frames_bad >= 1 and decoder.bytes_skipped == len(damaged)
    assert_partition(items, decoder, stream)


@st.composite
def damaged_streams(draw: st.DrawFn) -> tuple[bytes, list[sp.Message]]:
    """Intact frames mixed with garbage, bit-flipped and truncated frames; returns the stream
    and the messages of the intact frames, in order."""
    stream, intact = bytearray(), []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["frame", "frame", "garbage", "flip", "truncate"]))
        msg = draw(all_messages)
        frame = encode_message(msg)
        if kind == "frame":
            intact.append(msg)
            stream += frame
        elif kind == "garbage":
            stream += draw(garbage)
        elif kind == "flip":
            bit = draw(st.integers(0, len(frame) * 8 - 1))
            stream += frame[:bit // 8] + bytes([frame[bit // 8] ^ 1 << bit % 8]) + frame[bit // 8 + 1:]
        else:
            stream += frame[:draw(st.integers(1, len(frame) - 1))]
    return bytes(stream), intact


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_streams())
def test_damaged_stream_recovers_every_intact_frame(case: tuple[bytes, list[sp.Message]]) -> None:
    """Without further input the decoder returns a prefix of the intact frames, in order;
    after flush (the line went quiet), every one of them, whatever came between them."""
    stream, intact = case
    assume(len(crc_valid_offsets(stream)) == len(intact))  # the damage forged no frame
    decoder = ShufflerDecoder()
    items = decoder.feed(stream)
    got = messages(items)
    assert got == intact[:len(got)]
    items += decoder.flush()
    assert messages(items) == intact
    assert_partition(items, decoder, stream)


@FAST
@given(st.lists(all_messages.map(encode_message) | garbage, max_size=8).map(b"".join),
       st.lists(st.integers(1, 60), max_size=50))
def test_splitting_at_any_byte_never_changes_the_output(stream: bytes, cuts: list[int]) -> None:
    whole = ShufflerDecoder()
    expected = whole.feed(stream) + whole.flush()
    chunked = ShufflerDecoder()
    got, pos = [], 0
    for size in cuts:
        got += chunked.feed(stream[pos:pos + size])
        pos += size
    got += chunked.feed(stream[pos:]) + chunked.flush()
    assert got == expected
    assert (chunked.frames_ok, chunked.frames_invalid, chunked.frames_bad, chunked.bytes_skipped) == \
        (whole.frames_ok, whole.frames_invalid, whole.frames_bad, whole.bytes_skipped)


@FAST
@given(st.lists(all_messages, min_size=1, max_size=5))
def test_byte_by_byte_feeding_decodes_the_same(msgs: list[sp.Message]) -> None:
    stream = b"".join(map(encode_message, msgs))
    decoder = ShufflerDecoder()
    got = [item for i in range(len(stream)) for item in decoder.feed(stream[i:i + 1])]
    assert got == msgs and decoder.buffered == 0
