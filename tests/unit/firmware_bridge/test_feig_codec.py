"""The FEIG ISO Host codec: CRC, framing, the stream decoder, inventory requests and answers.

Expected bytes come from docs/protocols/readers.md's public examples, or are written out by hand from the
documented layout (with the CRC, itself checked against the public examples, appended).
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from firmware_bridge import feig
from firmware_bridge.crc import crc16_mcrf4xx
from firmware_bridge.errors import BridgeError, DeviceNotFound, LinkError, ProtocolError, ResponseTimeout
from firmware_bridge.feig import (
    AntennaRead,
    Corrupt,
    Frame,
    FrameDecoder,
    InventoryReply,
    TagRecord,
    encode_frame,
    encode_inventory_reply,
    inventory_request,
    parse_inventory,
)

H = bytes.fromhex

# docs/protocols/readers.md, "FEIG ISO Host protocol".
GET_VERSION_REQ = H("05 FF 65 E5 CB")
GET_VERSION_REQ_ADV = H("02 00 07 FF 65 6E 61")
GET_VERSION_ANS = H("0D 00 65 00 03 03 00 44 53 0D 30 33 09")
GET_VERSION_ANS_BAD = H("0D 00 65 00 03 03 00 44 53 0D 30 33 08")

FAST = settings(max_examples=200, deadline=None)


def with_crc(body: bytes) -> bytes:
    crc = crc16_mcrf4xx(body)
    return body + bytes((crc & 0xFF, crc >> 8))


def crc_bitwise(data: bytes, crc: int = 0xFFFF) -> int:
    """CRC-16/MCRF4XX computed bit by bit: the reference for the table-driven version."""
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def decode_all(stream: bytes, **kwargs: object) -> tuple[list[Frame | Corrupt], Corrupt | None, FrameDecoder]:
    decoder = FrameDecoder(**kwargs)  # type: ignore[arg-type]
    items = decoder.feed(stream)
    return items, decoder.flush(), decoder


def frames_of(items: list[Frame | Corrupt]) -> list[Frame]:
    return [item for item in items if isinstance(item, Frame)]


# --- CRC ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("data", "crc"), [
    (b"123456789", 0x6F91),  # the published check value
    (H("05 FF 65"), 0xCBE5),  # GetSoftwareVersion: sent as E5 CB
    (H("02 00 07 FF 65"), 0x616E),  # advanced: sent as 6E 61
    (H("0D 00 65 00 03 03 00 44 53 0D 30"), 0x0933),  # its answer: sent as 33 09
    (b"", 0xFFFF),  # no final XOR: the empty message leaves the initial value
])
def test_crc_known_values(data: bytes, crc: int) -> None:
    assert crc16_mcrf4xx(data) == crc


@FAST
@given(st.binary(max_size=300), st.integers(0, 300))
def test_crc_table_matches_bitwise_and_chains(data: bytes, cut: int) -> None:
    assert crc16_mcrf4xx(data) == crc_bitwise(data)
    assert crc16_mcrf4xx(data[cut:], crc16_mcrf4xx(data[:cut])) == crc16_mcrf4xx(data)


# --- Encoding frames ------------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "expected"), [
    ({"cmd": 0x65}, GET_VERSION_REQ),
    ({"cmd": 0x65, "advanced": True}, GET_VERSION_REQ_ADV),
    ({"cmd": 0x65, "data": H("03 03 00 44 53 0D 30"), "com_adr": 0x00, "status": 0x00}, GET_VERSION_ANS),
    ({"cmd": 0x65, "com_adr": 0x00, "status": 0x00, "data": H("03 03 00 44 53 0D 30"), "advanced": False},
     GET_VERSION_ANS),
])
def test_encode_frame_reproduces_public_examples(kwargs: dict, expected: bytes) -> None:
    assert encode_frame(**kwargs) == expected


@pytest.mark.parametrize(("data_len", "status", "advanced"), [
    (250, None, False),  # 1 + 2 + 250 + 2 = 255: the largest standard request
    (251, None, True),
    (249, 0x00, False),  # an answer's status byte takes one more
    (250, 0x00, True),
])
def test_encode_frame_switches_to_advanced_above_255_bytes(data_len: int, status: int | None,
                                                           advanced: bool) -> None:
    frame = encode_frame(0xB0, bytes(data_len), status=status)
    assert (frame[0] == feig.ADVANCED_START) is advanced
    claimed = (frame[1] << 8 | frame[2]) if advanced else frame[0]
    assert claimed == len(frame)
    [decoded] = FrameDecoder(from_reader=status is not None).feed(frame)
    assert isinstance(decoded, Frame) and decoded.advanced is advanced and len(decoded.data) == data_len


@pytest.mark.parametrize("kwargs", [
    {"cmd": 0x100},
    {"cmd": 0x65, "com_adr": -1},
    {"cmd": 0x65, "status": 0x1FF},
    {"cmd": 0x65, "data": bytes(251), "advanced": False},  # 256 bytes cannot be a standard frame
    {"cmd": 0x65, "data": bytes(65535 - 7 + 1)},  # one byte over the advanced limit
])
def test_encode_frame_rejects_what_cannot_be_sent(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        encode_frame(**kwargs)


# --- Decoding frames ------------------------------------------------------------------------

@pytest.mark.parametrize(("stream", "from_reader", "expected"), [
    (GET_VERSION_REQ, False, Frame(0xFF, 0x65, None, b"", False, GET_VERSION_REQ)),
    (GET_VERSION_REQ_ADV, False, Frame(0xFF, 0x65, None, b"", True, GET_VERSION_REQ_ADV)),
    (GET_VERSION_ANS, True, Frame(0x00, 0x65, 0x00, H("03 03 00 44 53 0D 30"), False, GET_VERSION_ANS)),
])
def test_decoder_decodes_public_examples(stream: bytes, from_reader: bool, expected: Frame) -> None:
    decoder = FrameDecoder(from_reader=from_reader)
    assert decoder.feed(stream) == [expected]
    assert decoder.flush() is None
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (1, 0, 0)


def test_bad_checksum_answer_is_corrupt_not_a_frame() -> None:
    decoder = FrameDecoder()
    # A byte inside it (65) claims a 101-byte frame, so nothing is decided until more
    # bytes come or the link flushes.
    assert decoder.feed(GET_VERSION_ANS_BAD) == []
    report = decoder.flush()
    assert report is not None
    assert report.raw == GET_VERSION_ANS_BAD
    assert report.reason.startswith("crc mismatch: got 0x0833 want 0x0933")
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (0, 1, 13)


def test_bad_checksum_answer_then_good_answers_resynchronises() -> None:
    # Eight good answers (104 bytes) are enough to complete, and refute, every length claimed
    # by a byte inside the bad one; then every good answer is recovered.
    items, tail, decoder = decode_all(GET_VERSION_ANS_BAD + GET_VERSION_ANS * 8)
    assert items[0] == Corrupt(GET_VERSION_ANS_BAD, "crc mismatch: got 0x0833 want 0x0933; 13 bytes skipped")
    assert [item.raw for item in items[1:]] == [GET_VERSION_ANS] * 8
    assert tail is None
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (8, 1, 13)


def test_request_is_junk_to_an_answer_decoder() -> None:
    # 5 bytes is a whole request but too short for an answer (which has a status byte).
    items, tail, decoder = decode_all(GET_VERSION_REQ)
    assert items == [] and decoder.frames_ok == 0
    assert tail is not None and tail.raw == GET_VERSION_REQ
    assert tail.reason == "length byte 5 too small; truncated: 4 of 255 bytes before flush"


@pytest.mark.parametrize(("junk", "kwargs", "reason"), [
    (H("03"), {}, "length byte 3 too small"),
    (H("05"), {}, "length byte 5 too small"),
    (H("04"), {"from_reader": False}, "length byte 4 too small"),
    (H("02 00 07"), {}, "advanced length 7 too small; 3 bytes skipped"),
    (H("02 00 06"), {"from_reader": False}, "advanced length 6 too small; 3 bytes skipped"),
    (H("02 10 01 00"), {}, "length 4097 over max_frame 4096; 4 bytes skipped"),
    (H("02 01 00"), {"max_frame": 255}, "length 256 over max_frame 255; 3 bytes skipped"),
    (H("41"), {"max_frame": 64}, "length 65 over max_frame 64"),
])
def test_junk_before_a_frame_is_reported_with_its_reason(junk: bytes, kwargs: dict, reason: str) -> None:
    from_reader = kwargs.get("from_reader", True)
    good = GET_VERSION_ANS if from_reader else GET_VERSION_REQ
    items, tail, decoder = decode_all(junk + good, **kwargs)
    assert items == [Corrupt(junk, reason), frames_of(items)[0]]
    assert items[1].raw == good and tail is None
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (1, 1, len(junk))


def test_crc_mismatch_reason_names_received_and_computed_crc() -> None:
    # Noise that happens to claim a complete 6-byte frame, then a good frame at once.
    noise = H("06 00 01 03 04 05")
    items, _, _ = decode_all(noise + GET_VERSION_ANS)
    want = crc16_mcrf4xx(noise[:-2])
    assert items[0] == Corrupt(noise, f"crc mismatch: got 0x0504 want 0x{want:04X}; 6 bytes skipped")
    assert items[1].raw == GET_VERSION_ANS


def test_truncated_frame_then_flush() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(GET_VERSION_ANS[:4]) == []
    assert decoder.buffered == 4
    assert decoder.flush() == Corrupt(GET_VERSION_ANS[:4], "truncated: 4 of 13 bytes before flush")
    assert decoder.flush() is None  # nothing left
    assert decoder.buffered == 0
    # The next answer decodes cleanly: the stale half-frame did not stick to it.
    assert [item.raw for item in decoder.feed(GET_VERSION_ANS)] == [GET_VERSION_ANS]
    assert (decoder.frames_ok, decoder.frames_bad, decoder.bytes_skipped) == (1, 1, 4)


@pytest.mark.parametrize(("stream", "reason"), [
    (H("02"), "truncated: 1 bytes of an advanced header before flush"),
    (H("02 00"), "truncated: 2 bytes of an advanced header before flush"),
    (GET_VERSION_REQ_ADV[:5], "truncated: 5 of 7 bytes before flush"),
    (H("00") + GET_VERSION_REQ[:2], "length byte 0 too small; truncated: 2 of 5 bytes before flush"),
])
def test_flush_reports_partial_frames(stream: bytes, reason: str) -> None:
    decoder = FrameDecoder(from_reader=False)
    assert decoder.feed(stream) == []
    assert decoder.flush() == Corrupt(stream, reason)
    assert (decoder.frames_bad, decoder.bytes_skipped) == (1, len(stream))


def test_long_garbage_run_is_reported_in_bounded_pieces() -> None:
    decoder = FrameDecoder(max_frame=64)
    items = decoder.feed(bytes(64 * 3 + 10))  # zeros: every byte is a too-small length
    assert [len(item.raw) for item in items] == [64, 64, 64]
    assert all(isinstance(item, Corrupt) for item in items)
    assert decoder.buffered == 10
    assert decoder.flush() == Corrupt(bytes(10), "length byte 0 too small; 10 bytes skipped")
    assert (decoder.frames_bad, decoder.bytes_skipped) == (4, 202)


@pytest.mark.parametrize("max_frame", [7, 65536, 0])
def test_max_frame_must_hold_the_smallest_answer(max_frame: int) -> None:
    with pytest.raises(ValueError):
        FrameDecoder(max_frame=max_frame)


STREAMS = [
    GET_VERSION_ANS * 3,
    H("00 01 05") + GET_VERSION_ANS + H("FF") + GET_VERSION_ANS,
    GET_VERSION_ANS_BAD + GET_VERSION_ANS * 8,
    encode_frame(0x65, bytes(300), com_adr=0, status=0) + GET_VERSION_ANS[:7],
    encode_inventory_reply([TagRecord(f"E00401500000{i:04X}", 3, 0) for i in range(40)],
                           with_antennas=False) + H("02 00"),
]


@pytest.mark.parametrize("stream", STREAMS)
def test_byte_by_byte_gives_the_same_as_all_at_once(stream: bytes) -> None:
    whole = FrameDecoder()
    expected = whole.feed(stream) + [whole.flush()]
    single = FrameDecoder()
    got: list[Frame | Corrupt | None] = []
    for i in range(len(stream)):
        got += single.feed(stream[i:i + 1])
    got.append(single.flush())
    assert got == expected
    assert frames_of(expected)  # every stream above holds at least one good frame
    assert (single.frames_ok, single.frames_bad, single.bytes_skipped) == \
        (whole.frames_ok, whole.frames_bad, whole.bytes_skipped)


# --- Inventory requests ---------------------------------------------------------------------

@pytest.mark.parametrize(("kwargs", "body"), [
    ({}, "07 FF B0 01 00"),
    ({"more": True}, "07 FF B0 01 80"),
    ({"antennas": 0x01}, "08 FF B0 01 10 01"),
    ({"antennas": 0x05}, "08 FF B0 01 10 05"),
    ({"antennas": 0xFF, "more": True}, "08 FF B0 01 90 FF"),
    ({"antennas": 0x80, "com_adr": 0x03}, "08 03 B0 01 10 80"),
])
def test_inventory_request_bytes(kwargs: dict, body: str) -> None:
    assert inventory_request(**kwargs) == with_crc(H(body))


@pytest.mark.parametrize("antennas", [0, 0x100, -1])
def test_inventory_request_rejects_bad_antenna_mask(antennas: int) -> None:
    with pytest.raises(ValueError):
        inventory_request(antennas=antennas)


def test_inventory_request_is_what_the_simulated_reader_decodes() -> None:
    [frame] = FrameDecoder(from_reader=False).feed(inventory_request(antennas=0x0C, more=True))
    assert (frame.cmd, frame.status, frame.data) == (feig.CMD_INVENTORY, None, H("01 90 0C"))


# --- Inventory answers ----------------------------------------------------------------------

def answer(status: int, data: str) -> Frame:
    raw = with_crc(bytes((6 + len(H(data)), 0x00, 0xB0, status)) + H(data))
    [frame] = FrameDecoder().feed(raw)
    assert isinstance(frame, Frame)
    return frame


NXP = TagRecord("E004015012345678", 0x03, 0x00)
TI = TagRecord("E007000011223344", 0x03, 0x1F)


@pytest.mark.parametrize(("frame", "with_antennas", "expected"), [
    (answer(0x00, "01  03 00 E0 04 01 50 12 34 56 78"), False, InventoryReply(0x00, (NXP,))),
    (answer(0x00, "02  03 00 E0 04 01 50 12 34 56 78  03 1F E0 07 00 00 11 22 33 44"), False,
     InventoryReply(0x00, (NXP, TI))),
    (answer(0x94, "01  03 1F E0 07 00 00 11 22 33 44"), False, InventoryReply(0x94, (TI,))),
    (answer(0x01, ""), False, InventoryReply(0x01, ())),
    (answer(0x01, ""), True, InventoryReply(0x01, ())),
    (answer(0x00, "00"), False, InventoryReply(0x00, ())),
    (answer(0x84, ""), False, InventoryReply(0x84, ())),
    (answer(0x84, "01  03 00 E0 04 01 50 12 34 56 78"), False, InventoryReply(0x84, (NXP,))),
    # Error statuses: no tags, whatever follows; the caller decides what to do.
    (answer(0x83, ""), False, InventoryReply(0x83, ())),
    (answer(0x93, "FF FF"), True, InventoryReply(0x93, ())),
    (answer(0x95, "01"), False, InventoryReply(0x95, ())),
    (answer(0x00, "01  11 03 00 08 E0 04 01 50 12 34 56 78  02  01 00 C8 00 00 00 00  04 00 37 00 00 00 00"),
     True, InventoryReply(0x00, (TagRecord(NXP.uid, 0x03, 0x00, (AntennaRead(1, 0, 200), AntennaRead(4, 0, 55))),))),
    # FLAGS bit 4 clear: a UID with no antenna information.
    (answer(0x00, "01  01 03 00 04 AA BB CC DD"), True, InventoryReply(0x00, (TagRecord("AABBCCDD", 3, 0),))),
])
def test_parse_inventory(frame: Frame, with_antennas: bool, expected: InventoryReply) -> None:
    reply = parse_inventory(frame, with_antennas=with_antennas)
    assert reply == expected
    assert reply.more is (expected.status == 0x94)


@pytest.mark.parametrize(("frame", "with_antennas", "message"), [
    (answer(0x00, ""), False, "data offset 0: expected DATA-SETS count (1 byte), only 0 left"),
    (answer(0x94, ""), True, "data offset 0: expected DATA-SETS count"),
    (answer(0x00, "02  03 00 E0 04 01 50 12 34 56 78"), False, "data offset 11: expected TR-TYPE of record 2 of 2"),
    (answer(0x00, "01  03 00 E0 04 01 50 12 34 56"), False,
     "data offset 3: expected UID of record 1 of 1 (8 bytes), only 7 left"),
    (answer(0x00, "01  03 00 E0 04 01 50 12 34 56 78 00"), False,
     "data offset 11: 1 bytes left over after the 1 declared records"),
    (answer(0x84, "01  03"), False, "data offset 2: expected DSFID of record 1 of 1"),
    (answer(0x00, "01  10 03 00 08 E0 04 01 50 12 34 56 78"), True,
     "data offset 1: FLAGS 0x10 of record 1 of 1 lacks bit 0"),
    (answer(0x00, "01  13 03 00 08 E0 04 01 50 12 34 56 78"), True,
     "FLAGS 0x13 of record 1 of 1 has unknown bits 0x02"),
    (answer(0x00, "01  11 03 00 00  00"), True, "data offset 4: UID-LEN of record 1 of 1 expected 1..16, got 0"),
    (answer(0x00, "01  11 03 00 11" + " 00" * 18), True,
     "data offset 4: UID-LEN of record 1 of 1 expected 1..16, got 17"),
    (answer(0x00, "01  11 03 00 08 E0 04 01 50 12 34 56 78  02  01 00 C8 00 00 00 00  04 00 37"), True,
     "data offset 21: expected antenna block 2 of 2 of record 1 of 1 (7 bytes), only 3 left"),
    (answer(0x00, "01  11 03 00 08 E0 04 01 50 12 34 56 78"), True,
     "data offset 13: expected ANT-CNT of record 1 of 1"),
    (answer(0x00, "01  11 03 00 08 E0 04 01 50 12 34 56 78  00  EE"), True, "data offset 14: 1 bytes left over"),
    # A without-ANT answer parsed as with-ANT: the first TR-TYPE (03) is read as FLAGS.
    (answer(0x00, "01  03 00 E0 04 01 50 12 34 56 78"), True, "FLAGS 0x03 of record 1 of 1 has unknown bits 0x02"),
    (answer(0x01, "00"), False, "status 0x01 (no transponder) with 1 data bytes, expected none"),
    (Frame(0x00, 0x65, 0x00, b"\x00", False, b""), False, "expected CMD 0xB0, got 0x65"),
    (Frame(0xFF, 0xB0, None, b"\x01\x00", False, b""), False, "a request frame (no status byte) is not an answer"),
])
def test_parse_inventory_rejects_malformed_answers(frame: Frame, with_antennas: bool, message: str) -> None:
    with pytest.raises(ProtocolError) as info:
        parse_inventory(frame, with_antennas=with_antennas)
    assert message in str(info.value)


def test_encode_inventory_reply_bytes_without_antennas() -> None:
    raw = encode_inventory_reply([NXP, TI], with_antennas=False)
    assert raw == with_crc(H("1B 00 B0 00  02  03 00 E0 04 01 50 12 34 56 78  03 1F E0 07 00 00 11 22 33 44"))


def test_encode_inventory_reply_bytes_with_antennas() -> None:
    tag = TagRecord("E004015012345678", 0x03, 0x00, (AntennaRead(2, 0x00, 0x9A),))
    raw = encode_inventory_reply([tag], with_antennas=True, status=0x94, com_adr=0x05)
    assert raw == with_crc(H("1B 05 B0 94  01  11 03 00 08 E0 04 01 50 12 34 56 78  01  02 00 9A 00 00 00 00"))


@pytest.mark.parametrize("status", [0x01, 0x83, 0x93, 0x95])
def test_encode_inventory_reply_without_data(status: int) -> None:
    raw = encode_inventory_reply([], with_antennas=True, status=status)
    assert raw == with_crc(bytes((6, 0x00, 0xB0, status)))
    [frame] = FrameDecoder().feed(raw)
    assert parse_inventory(frame, with_antennas=True) == InventoryReply(status, ())


@pytest.mark.parametrize(("tags", "kwargs"), [
    ([NXP], {"with_antennas": False, "status": 0x01}),  # no transponder cannot carry tags
    ([NXP], {"with_antennas": False, "status": 0x83}),
    ([TagRecord("E00401", 3, 0)], {"with_antennas": False}),  # without ANT the UID is 8 bytes
    ([TagRecord("", 3, 0)], {"with_antennas": True}),
    ([TagRecord("00" * 17, 3, 0)], {"with_antennas": True}),
    ([TagRecord("E0040150123456ZZ", 3, 0)], {"with_antennas": False}),
    ([TagRecord(NXP.uid, 0x100, 0)], {"with_antennas": False}),
    ([TagRecord(NXP.uid, 3, 0, (AntennaRead(1, 0, 256),))], {"with_antennas": True}),
    ([NXP] * 256, {"with_antennas": False}),  # one DATA-SETS byte
])
def test_encode_inventory_reply_rejects_what_cannot_be_sent(tags: list[TagRecord], kwargs: dict) -> None:
    with pytest.raises(ValueError):
        encode_inventory_reply(tags, **kwargs)


def test_encode_inventory_reply_without_antennas_drops_antenna_information() -> None:
    tag = TagRecord(NXP.uid, 3, 0, (AntennaRead(1, 0, 10),))
    [frame] = FrameDecoder().feed(encode_inventory_reply([tag], with_antennas=False))
    assert parse_inventory(frame, with_antennas=False).tags == (NXP,)


def test_large_reply_becomes_an_advanced_frame() -> None:
    tags = [TagRecord(f"E0040150{i:08X}", 0x03, 0x00, (AntennaRead(1 + i % 8, 0, i % 256),
                                                         AntennaRead(1 + (i + 1) % 8, 0, 255 - i % 256)))
            for i in range(52)]
    raw = encode_inventory_reply(tags, with_antennas=True)
    # 52 records of 1+3+8+1+2*7 = 27 bytes, DATA-SETS, status: no standard frame holds that.
    assert raw[0] == 0x02 and (raw[1] << 8 | raw[2]) == len(raw) == 3 + 3 + 1 + 52 * 27 + 2
    items = FrameDecoder().feed(raw)
    assert len(items) == 1 and isinstance(items[0], Frame) and items[0].advanced
    assert parse_inventory(items[0], with_antennas=True) == InventoryReply(0x00, tuple(tags))


uids = st.binary(min_size=8, max_size=8).map(lambda b: b.hex().upper())
ant_reads = st.builds(AntennaRead, st.integers(1, 8), st.integers(0, 255), st.integers(0, 255))
plain_tags = st.builds(TagRecord, uids, st.integers(0, 255), st.integers(0, 255), st.just(()))
ant_tags = st.builds(TagRecord, st.binary(min_size=1, max_size=16).map(lambda b: b.hex().upper()),
                     st.integers(0, 255), st.integers(0, 255),
                     st.lists(ant_reads, max_size=8).map(tuple))


@FAST
@given(st.data(), st.booleans(), st.sampled_from([0x00, 0x94, 0x84]), st.integers(0, 255))
def test_inventory_reply_round_trips(data: st.DataObject, with_antennas: bool, status: int, com_adr: int) -> None:
    tags = data.draw(st.lists(ant_tags if with_antennas else plain_tags, max_size=60))
    raw = encode_inventory_reply(tags, with_antennas=with_antennas, status=status, com_adr=com_adr)
    [frame] = FrameDecoder().feed(raw)
    assert isinstance(frame, Frame) and frame.com_adr == com_adr and frame.advanced == (len(raw) > 255)
    assert parse_inventory(frame, with_antennas=with_antennas) == InventoryReply(status, tuple(tags))


# --- Errors ---------------------------------------------------------------------------------

def test_error_tree() -> None:
    assert issubclass(ProtocolError, BridgeError) and issubclass(ProtocolError, ValueError)
    assert issubclass(DeviceNotFound, LinkError) and issubclass(LinkError, BridgeError)
    assert issubclass(ResponseTimeout, BridgeError) and issubclass(ResponseTimeout, TimeoutError)
    assert not issubclass(ResponseTimeout, LinkError)
    assert not issubclass(LinkError, ValueError)


# --- Property tests: the decoder under damage ------------------------------------------------

def assert_partition(items: list[Frame | Corrupt], tail: Corrupt | None, decoder: FrameDecoder,
                     stream: bytes) -> None:
    """Every byte fed comes back exactly once, in order, in a Frame or a Corrupt."""
    everything = items + ([tail] if tail is not None else [])
    assert b"".join(item.raw for item in everything) == stream
    frames = [item for item in everything if isinstance(item, Frame)]
    reports = [item for item in everything if isinstance(item, Corrupt)]
    assert decoder.frames_ok == len(frames)
    assert decoder.frames_bad == len(reports)
    assert decoder.bytes_skipped == sum(len(item.raw) for item in reports)
    assert all(item.raw and item.reason for item in reports)
    assert decoder.buffered == 0


@FAST
@given(st.binary(max_size=2000), st.booleans(), st.sampled_from([8, 64, 300, 4096]))
def test_random_bytes_never_raise(stream: bytes, from_reader: bool, max_frame: int) -> None:
    max_frame = max(max_frame, 8 if from_reader else 7)
    items, tail, decoder = decode_all(stream, from_reader=from_reader, max_frame=max_frame)
    assert_partition(items, tail, decoder, stream)
    for frame in frames_of(items):  # anything accepted carries a matching CRC
        assert crc16_mcrf4xx(frame.raw[:-2]) == frame.raw[-2] | frame.raw[-1] << 8


MAX_FRAME = 64  # small, so a claimed length is quickly completed and refuted


@st.composite
def valid_frames(draw: st.DrawFn) -> bytes:
    data = draw(st.binary(max_size=40))
    advanced = draw(st.booleans())
    return encode_frame(draw(st.integers(0, 255)), data, com_adr=draw(st.integers(0, 255)),
                        status=draw(st.integers(0, 255)), advanced=advanced)


@st.composite
def damaged_streams(draw: st.DrawFn) -> tuple[bytes, list[int]]:
    """A stream of segments: intact frames, garbage, bit-flipped and truncated frames.

    Returns the stream and the offsets of the intact frames.
    """
    stream = bytearray()
    intact: list[int] = []
    for _ in range(draw(st.integers(1, 8))):
        kind = draw(st.sampled_from(["frame", "frame", "garbage", "flip", "truncate"]))
        frame = draw(valid_frames())
        if kind == "frame":
            intact.append(len(stream))
            stream += frame
        elif kind == "garbage":
            stream += draw(st.binary(min_size=1, max_size=30))
        elif kind == "flip":
            damaged = bytearray(frame)
            for _ in range(draw(st.integers(1, 3))):
                bit = draw(st.integers(0, len(frame) * 8 - 1))
                damaged[bit // 8] ^= 1 << (bit % 8)
            stream += damaged
        else:
            stream += frame[:draw(st.integers(1, len(frame) - 1))]
    return bytes(stream), intact


def crc_valid_offsets(stream: bytes, *, max_frame: int) -> set[int]:
    """Every offset where the stream holds a complete frame with a matching CRC."""
    found = set()
    for i, first in enumerate(stream):
        if first == 0x02:
            if i + 3 > len(stream):
                continue
            length, minimum = stream[i + 1] << 8 | stream[i + 2], 8
        else:
            length, minimum = first, 6
        if minimum <= length <= max_frame and i + length <= len(stream):
            body = stream[i:i + length]
            if crc16_mcrf4xx(body[:-2]) == body[-2] | body[-1] << 8:
                found.add(i)
    return found


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(damaged_streams())
def test_damaged_stream_recovers_every_intact_frame(case: tuple[bytes, list[int]]) -> None:
    """What the decoder guarantees, stated precisely.

    Precondition: the only complete CRC-valid frames anywhere in the stream are the intact
    ones (a damaged frame or garbage that happens to pass the CRC, a 1-in-65536 event per
    position, is indistinguishable from a real frame and is excluded here).

    1. Without further input, the frames returned are the first k intact frames, in order:
       nothing is invented, reordered or skipped over. (The decoder may still be waiting on
       a length claimed by a damaged byte, which holds back the frames behind it.)
    2. Once max_frame more bytes have followed (any bytes, here zeros), every claim started
       before them is complete and refuted, so every intact frame has been returned, whatever
       garbage, bit flips or truncations came before it.
    3. Every byte comes back exactly once, in a Frame or a Corrupt, and the counters agree.
    4. Corrupt reports stay bounded: at most one before each good frame, one per max_frame
       bytes of junk, and one at flush.
    """
    stream, intact = case
    padding = bytes(MAX_FRAME)
    # (the padding too: a truncated frame at the end whose missing bytes happen to be zeros with
    # a matching CRC is a real frame once the padding comes, as the decoder rightly reports)
    assume(crc_valid_offsets(stream + padding, max_frame=MAX_FRAME) == set(intact))
    expected = [stream[i:i + (stream[i + 1] << 8 | stream[i + 2] if stream[i] == 2 else stream[i])]
                for i in intact]

    decoder = FrameDecoder(max_frame=MAX_FRAME)
    items = decoder.feed(stream)
    got = [item.raw for item in frames_of(items)]
    assert got == expected[:len(got)]  # (1)

    items += decoder.feed(padding)
    tail = decoder.flush()
    assert [item.raw for item in frames_of(items)] == expected  # (2)
    assert_partition(items, tail, decoder, stream + padding)  # (3)
    assert decoder.frames_bad <= len(expected) + 1 + decoder.bytes_skipped // MAX_FRAME  # (4)


@FAST
@given(st.lists(st.one_of(valid_frames(), st.binary(max_size=20)), max_size=8).map(b"".join),
       st.lists(st.integers(1, 40), max_size=50))
def test_chunking_never_changes_the_output(stream: bytes, cuts: list[int]) -> None:
    whole = FrameDecoder(max_frame=MAX_FRAME)
    expected = whole.feed(stream) + [whole.flush()]
    chunked = FrameDecoder(max_frame=MAX_FRAME)
    got: list[Frame | Corrupt | None] = []
    pos = 0
    for size in cuts:
        got += chunked.feed(stream[pos:pos + size])
        pos += size
    got += chunked.feed(stream[pos:])
    got.append(chunked.flush())
    assert got == expected
    assert (chunked.frames_ok, chunked.frames_bad, chunked.bytes_skipped) == \
        (whole.frames_ok, whole.frames_bad, whole.bytes_skipped)


def test_a_frame_completed_by_the_bytes_that_follow_is_a_frame() -> None:
    """Found by the property above: a frame cut short at the end of a stream whose missing byte,
    when it comes (a zero here), makes its CRC match is a frame like any other."""
    decoder = FrameDecoder(max_frame=MAX_FRAME)
    head = b"\x06\x00\x00\x00\xbbH" * 7
    items = decoder.feed(head + b"\x02\x00\t\x87\xeb?\xe9\xbd")
    assert [i.raw for i in frames_of(items)] == [b"\x06\x00\x00\x00\xbbH"] * 7
    assert [i.raw for i in frames_of(decoder.feed(b"\x00"))] == [b"\x02\x00\t\x87\xeb?\xe9\xbd\x00"]
