"""A golden FEIG ISO Host session: byte sequences written out by hand from the protocol
documents (docs/protocols/readers.md's FEIG section, docs/protocols/feig.md), not produced by the codec.

The simulated reader (hw_sim/feig_reader.py) and the daemon (firmware_bridge/feig.py) share one
codec, so a bug in it on both sides would pass every end-to-end test. Here each frame is:

1. checked against the CRC-16/MCRF4XX residue with a bitwise CRC written in this file (the CRC
   of a whole good frame, its CRC bytes included, low byte first, is 0x0000);
2. what the simulated reader writes for the same request and a fixed, noise-free field; and
3. decoded and parsed by the daemon's side into the tags, antennas and RSSI written here.

The frames' layout is the documents'; their two CRC bytes were computed once with
:func:`crc_bitwise` and pasted in (where the documents give a frame, e.g. the inventory requests
and GetSoftwareVersion, the bytes are the documents'). Every LEN byte is checked against the
frame's length too.

UNCONFIRMED against hardware (docs/protocols/readers.md: "Unconfirmed against hardware";
docs/protocols/feig.md lists the same): the answer WITH antenna information, i.e. the FLAGS byte (bit 0 ->
TR-TYPE DSFID UID-LEN UID, bit 4 -> ANT-CNT then per antenna ANT-NR ANT-STATUS RSSI plus 4
reserved bytes), taken from the vendor SDK's parsing source; the DATA-SETS count before the
records in that layout (readers.md gives it for the answer without ANT only); ANT-NR as a
1-based number; the RSSI scale; and ANT_SEL two bytes wide for more than eight antennas. The
frames marked ``UNCONFIRMED`` below encode those assumptions: they pin the codec to the
documents, they do not prove the documents right.
"""

from __future__ import annotations

from typing import Any

import pytest

from firmware_bridge import feig
from hw_sim.feig_reader import SimFeigReader
from hw_sim.script import Noise


def crc_bitwise(data: bytes) -> int:
    """CRC-16/MCRF4XX, bit by bit: reflected polynomial 0x8408, initial 0xFFFF, no final XOR."""
    crc = 0xFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def h(text: str) -> bytes:
    return bytes.fromhex(text)


# -- requests (host to reader) ----------------------------------------------------------------
# docs/protocols/readers.md: GetSoftwareVersion, standard and advanced, byte for byte
GET_VERSION = h("05 FF 65 E5 CB")
GET_VERSION_ADV = h("02 00 07 FF 65 6E 61")
# Inventory: LEN FF B0 01 MODE [ANT_SEL] CRC; MODE bit 7 = MORE, bit 4 = ANT
INV_PLAIN = h("07 FF B0 01 00 1C 56")        # no ANT: a single-antenna reader
INV_PLAIN_MORE = h("07 FF B0 01 80 14 D2")   # the same, MORE
INV_ANT8 = h("08 FF B0 01 10 0F 54 8A")      # ANT, ANT_SEL 0F: antennas 1-4
INV_ANT8_MORE = h("08 FF B0 01 90 0F 98 06")  # the same, MORE
INV_ANT16 = h("09 FF B0 01 10 1F FF 17 11")   # UNCONFIRMED: ANT_SEL 1F FF, two bytes, antennas 1-13
INV_ANT16_MORE = h("09 FF B0 01 90 1F FF FB 1D")

# -- answers (reader to host; COM-ADR 00, the reader's own) ------------------------------------
NO_TAG = h("06 00 B0 01 5C 63")  # status 01: no transponder, no data
# one tag without ANT: DATA-SETS 01, TR-TYPE 03 (ISO 15693), DSFID 00, UID E004015012345678 (NXP)
ONE_TAG = h("11 00 B0 00 01  03 00 E0 04 01 50 12 34 56 78  BA 40")
# status 94 (more data): the first tag; then, asked with MORE, status 00 and the second (TI)
MORE_PART_1 = h("11 00 B0 94 01  03 00 E0 04 01 50 12 34 56 78  D4 FE")
MORE_PART_2 = h("11 00 B0 00 01  03 00 E0 07 00 00 11 22 33 44  1E 0F")
# UNCONFIRMED layout: one tag with ANT, on antenna 3 at RSSI C8
ONE_TAG_ANT = h("1B 00 B0 00 01  11 03 00 08 E0 04 01 50 12 34 56 78 01  03 00 C8 00 00 00 00  6A 91")
# UNCONFIRMED layout: two tags with ANT; the first heard by antennas 1 (RSSI C8) and 4 (37), the
# second by antenna 13 (B4): FLAGS 11, TR-TYPE, DSFID, UID-LEN 08, UID, ANT-CNT, blocks of
# ANT-NR ANT-STATUS RSSI + 4 reserved
TWO_TAGS_ANT = h("36 00 B0 00 02"
                 " 11 03 00 08 E0 04 01 50 12 34 56 78 02  01 00 C8 00 00 00 00  04 00 37 00 00 00 00"
                 " 11 03 00 08 E0 07 00 00 11 22 33 44 01  0D 00 B4 00 00 00 00"
                 " 7C 4E")
# UNCONFIRMED layout: the same two tags lying on antennas 3 and 12, each heard there at RSSI C8
TWO_TAGS_ON_3_AND_12 = h("2F 00 B0 00 02"
                         " 11 03 00 08 E0 04 01 50 12 34 56 78 01  03 00 C8 00 00 00 00"
                         " 11 03 00 08 E0 07 00 00 11 22 33 44 01  0C 00 C8 00 00 00 00"
                         " 3B 9C")
# an advanced answer: 13 tags with ANT (13 x 20 bytes of records) do not fit 255 bytes:
# 02, ALEN 01 0D (269), COM-ADR 00, B0, status 00, DATA-SETS 0D, then tag i (UID
# E0040150000000ii) on antenna i at RSSI C8, for i = 1..13 (UNCONFIRMED layout)
ADVANCED_13 = h("02 01 0D 00 B0 00 0D" + "".join(
    f" 11 03 00 08 E0 04 01 50 00 00 00 {i:02X} 01 {i:02X} 00 C8 00 00 00 00" for i in range(1, 14)) + " 96 8A")
NO_TAG_ADVANCED = h("02 00 08 00 B0 01 19 CE")  # status 01 in an advanced frame
# docs/protocols/readers.md: GetSoftwareVersion's answer, and the same with a checksum error
VERSION = h("0D 00 65 00 03 03 00 44 53 0D 30 33 09")
VERSION_BAD_CRC = h("0D 00 65 00 03 03 00 44 53 0D 30 33 08")

GOOD = {name: frame for name, frame in globals().items() if isinstance(frame, bytes) and name != "VERSION_BAD_CRC"}

NXP, TI = "E004015012345678", "E007000011223344"


def test_the_independent_crc_has_the_catalogued_check_value():
    assert crc_bitwise(b"123456789") == 0x6F91


@pytest.mark.parametrize("name", sorted(GOOD))
def test_every_hand_written_frame_passes_the_crc_residue_and_its_length(name):
    frame = GOOD[name]
    assert crc_bitwise(frame) == 0x0000, name  # the residue: CRC over the frame and its CRC
    length = int.from_bytes(frame[1:3], "big") if frame[0] == 0x02 else frame[0]
    assert length == len(frame), name


def test_the_checksum_error_variant_fails_the_residue():
    assert crc_bitwise(VERSION_BAD_CRC) != 0x0000


# -- the daemon's side: requests it sends, answers it decodes ---------------------------------

def test_the_daemon_sends_the_hand_written_requests():
    assert feig.encode_frame(feig.CMD_GET_SOFTWARE_VERSION) == GET_VERSION
    assert feig.encode_frame(feig.CMD_GET_SOFTWARE_VERSION, advanced=True) == GET_VERSION_ADV
    assert feig.inventory_request() == INV_PLAIN
    assert feig.inventory_request(more=True) == INV_PLAIN_MORE
    assert feig.inventory_request(antennas=0x0F) == INV_ANT8
    assert feig.inventory_request(antennas=0x0F, more=True) == INV_ANT8_MORE
    assert feig.inventory_request(antennas=0x1FFF, ant_sel_bytes=2) == INV_ANT16
    assert feig.inventory_request(antennas=0x1FFF, ant_sel_bytes=2, more=True) == INV_ANT16_MORE


def decode_one(raw: bytes) -> feig.Frame:
    items = feig.FrameDecoder(from_reader=True).feed(raw)
    assert len(items) == 1 and isinstance(items[0], feig.Frame), items
    assert items[0].raw == raw
    return items[0]


def tags(raw: bytes, *, with_antennas: bool) -> tuple[int, list[tuple[Any, ...]]]:
    """``(status, [(uid, tr_type, dsfid, [(antenna, ant_status, rssi), ...]), ...])``."""
    reply = feig.parse_inventory(decode_one(raw), with_antennas=with_antennas)
    return reply.status, [(t.uid, t.tr_type, t.dsfid, [(a.antenna, a.status, a.rssi) for a in t.antennas])
                          for t in reply.tags]


def test_the_daemon_decodes_the_hand_written_answers():
    assert tags(NO_TAG, with_antennas=False) == (0x01, [])
    assert tags(NO_TAG, with_antennas=True) == (0x01, [])
    assert tags(NO_TAG_ADVANCED, with_antennas=True) == (0x01, [])
    assert tags(ONE_TAG, with_antennas=False) == (0x00, [(NXP, 0x03, 0x00, [])])
    assert tags(ONE_TAG_ANT, with_antennas=True) == (0x00, [(NXP, 0x03, 0x00, [(3, 0x00, 200)])])
    assert tags(MORE_PART_1, with_antennas=False) == (0x94, [(NXP, 0x03, 0x00, [])])
    assert feig.parse_inventory(decode_one(MORE_PART_1), with_antennas=False).more
    assert tags(MORE_PART_2, with_antennas=False) == (0x00, [(TI, 0x03, 0x00, [])])
    assert tags(TWO_TAGS_ANT, with_antennas=True) == (0x00, [
        (NXP, 0x03, 0x00, [(1, 0x00, 200), (4, 0x00, 55)]),
        (TI, 0x03, 0x00, [(13, 0x00, 180)])])
    status, thirteen = tags(ADVANCED_13, with_antennas=True)
    assert decode_one(ADVANCED_13).advanced and status == 0x00
    assert thirteen == [(f"E00401500000{i:04X}", 0x03, 0x00, [(i, 0x00, 200)]) for i in range(1, 14)]


def test_the_daemon_decodes_get_software_version_and_reports_the_checksum_error():
    frame = decode_one(VERSION)
    assert (frame.com_adr, frame.cmd, frame.status, frame.data) == (0x00, 0x65, 0x00, h("03 03 00 44 53 0D 30"))
    decoder = feig.FrameDecoder(from_reader=True)
    got = [*decoder.feed(VERSION_BAD_CRC), decoder.flush()]
    assert not any(isinstance(x, feig.Frame) for x in got)
    bad = [x for x in got if isinstance(x, feig.Corrupt)]
    assert b"".join(x.raw for x in bad) == VERSION_BAD_CRC
    assert bad[0].reason.startswith("crc mismatch: got 0x0833 want 0x0933")


# -- the simulated reader's side: what it writes for a fixed, noise-free field -----------------

class Wire:
    """Stands in for the pseudo-terminal: collects what the reader writes."""

    def __init__(self) -> None:
        self.out: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.out.append(bytes(data))


def reader(*, max_records: int = 16, single_antenna: bool = False) -> tuple[SimFeigReader, Wire]:
    wire = Wire()
    sim = SimFeigReader(wire, antennas=range(1, 14), noise=Noise(seed=0), max_records=max_records,  # type: ignore[arg-type]
                        single_antenna=single_antenna)
    sim.STRONG = (200, 200)  # a fixed RSSI at the antenna a tag lies on: the field is noise-free
    return sim, wire


def ask(sim: SimFeigReader, wire: Wire, request: bytes) -> bytes:
    """Feed one hand-written request through the reader's own decoder and handler."""
    frames = sim._decoder.feed(request)
    assert len(frames) == 1 and isinstance(frames[0], feig.Frame), frames
    wire.out.clear()
    sim._handle(frames[0])
    assert len(wire.out) == 1
    return wire.out[0]


def test_the_reader_answers_the_hand_written_requests_with_the_hand_written_answers():
    sim, wire = reader()
    assert ask(sim, wire, GET_VERSION) == VERSION
    assert ask(sim, wire, GET_VERSION_ADV) == VERSION  # asked in an advanced frame, answered standard
    assert ask(sim, wire, INV_PLAIN) == NO_TAG
    assert ask(sim, wire, INV_ANT16) == NO_TAG
    sim.place("a", NXP, 1)
    assert ask(sim, wire, INV_PLAIN) == ONE_TAG
    sim.place("a", NXP, 3)
    sim.place("b", TI, 12)
    assert ask(sim, wire, INV_ANT16) == TWO_TAGS_ON_3_AND_12
    sim.remove("b")
    assert ask(sim, wire, INV_ANT8) == ONE_TAG_ANT  # antenna 3 is in ANT_SEL 0F
    sim.place("a", NXP, 5)
    assert ask(sim, wire, INV_ANT8) == NO_TAG  # antenna 5 is not


def test_the_reader_serves_a_long_answer_in_parts_with_status_94():
    sim, wire = reader(max_records=1)
    sim.place("a", NXP, 1)
    sim.place("b", TI, 2)
    assert ask(sim, wire, INV_PLAIN) == MORE_PART_1
    assert ask(sim, wire, INV_PLAIN_MORE) == MORE_PART_2
    assert sim.cycles == 1  # one inventory, fetched in two parts
    assert ask(sim, wire, INV_PLAIN_MORE) == NO_TAG  # nothing more to fetch


def test_the_reader_answers_thirteen_tags_in_an_advanced_frame():
    sim, wire = reader()
    for i in range(1, 14):
        sim.place(str(i), f"E00401500000{i:04X}", i)
    assert ask(sim, wire, INV_ANT16) == ADVANCED_13


def test_the_reader_encodes_several_antennas_per_tag_as_written():
    # _answer with fixed reads: the antenna records of TWO_TAGS_ANT (crosstalk heard at antenna 4)
    sim, _ = reader()
    assert sim._answer({NXP: [(1, 200), (4, 55)], TI: [(13, 180)]}, True) == [TWO_TAGS_ANT]
    assert sim._answer({}, True) == [NO_TAG]
