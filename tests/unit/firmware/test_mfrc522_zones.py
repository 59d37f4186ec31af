"""The bridge board's firmware driving MFRC522 zones (ISO 14443A: NTAG213 and MIFARE Ultralight
stickers, 7-byte UIDs), under CPython on simulated MFRC522s at their register level
(hw_sim/mfrc522_chip.py), as the PN5180's tests do (test_firmware_zones.py): every card of a
field found, the frames on the air ISO/IEC 14443-3's, what a chip does wrong survived, one field
on at a time. The output is read by the reference decoder written from docs/protocols/bridge.md.
"""

from __future__ import annotations

import random

import pytest

from firmware_bridge import bridge
from hw_sim.micropython_board import SimBoard, firmware
from tests.unit.firmware import reference_decoder as ref
from tests.unit.firmware.test_firmware_zones import clean, run

SEAT_PAIR = ["04A2B3C4D5E680", "0455667788AA81"]


def crc_a(data: bytes) -> bytes:
    """ISO/IEC 14443-3's CRC_A, bit by bit (annex B's parameters: the CCITT polynomial x^16 + x^12
    + x^5 + 1 reflected, 0x8408; initial value 0x6363; no final XOR; least significant byte
    first), written here apart from the firmware's and the simulated chip's byte-wise routines."""
    value = 0x6363
    for byte in data:
        value ^= byte
        for _ in range(8):
            value = (value >> 1) ^ 0x8408 if value & 1 else value >> 1
    return bytes([value & 0xFF, value >> 8])


def test_crc_a_is_the_standards():
    # ISO/IEC 14443-3's HLTA, as every reader sends it: 50 00 57 CD
    assert crc_a(b"\x50\x00") == b"\x57\xcd"


def test_two_cards_at_a_seat_are_each_found_at_their_own_length():
    board = SimBoard(zones=3, mfrc522=(2,))
    for uid in SEAT_PAIR:
        board.chips[2].place(uid)
    board.chips[1].place("E004015012345678")
    _, got = run(board, 4)
    assert len(got) == 4
    for _, zones, _ in got:
        assert zones[2][0] == "OK" and sorted(zones[2][1]) == sorted(SEAT_PAIR)
        assert all(len(uid) == 14 for uid in zones[2][1])  # 7 bytes, never padded
        assert zones[1] == ("OK", ["E004015012345678"]) and zones[3] == ("OK", [])
    clean(board)


def test_one_card_is_read_with_the_standards_frames():
    # ISO/IEC 14443-3 for a double-size UID 04 A2 B3 C4 D5 E6 80: WUPA; cascade level 1's
    # ANTICOLLISION (93 20) and SELECT (93 70, CT 88, uid0..2, BCC, CRC_A); level 2's (95 ...,
    # uid3..6, BCC); HLTA; then REQA, which the halted card does not answer
    board = SimBoard(zones=1, mfrc522=(1,))
    board.chips[1].place("04A2B3C4D5E680")
    _, got = run(board, 1)
    assert got[0][1][1] == ("OK", ["04A2B3C4D5E680"])
    cl1 = bytes([0x88, 0x04, 0xA2, 0xB3, 0x88 ^ 0x04 ^ 0xA2 ^ 0xB3])
    cl2 = bytes([0xC4, 0xD5, 0xE6, 0x80, 0xC4 ^ 0xD5 ^ 0xE6 ^ 0x80])
    sel1 = b"\x93\x70" + cl1
    sel2 = b"\x95\x70" + cl2
    assert board.chips[1].frames == [b"\x52", b"\x93\x20", sel1 + crc_a(sel1), b"\x95\x20", sel2 + crc_a(sel2),
                                     b"\x50\x00\x57\xcd", b"\x26"]
    clean(board)


def test_cards_that_collide_at_both_cascade_levels_are_each_found():
    # The same manufacturer's byte (04) for all; two pairs alike in CL1 but their last bit, and
    # alike in CL2 but their last byte's last bit: the anticollision splits at bit 24 of CL1,
    # and at bit 32 of CL2
    uids = ["04A2B3C4D5E680", "04A2B3C4D5E681", "04A2B2C4D5E680", "04A2B2C4D5E681"]
    board = SimBoard(zones=1, mfrc522=(1,))
    for uid in uids:
        board.chips[1].place(uid)
    _, got = run(board, 3, MFRC522_MAX_CARDS=8)
    for _, zones, _ in got:
        assert zones[1][0] == "OK" and sorted(zones[1][1]) == sorted(uids)
    # a collision's frame: the bits known, a partial byte (NVB's low nibble: its bits)
    assert any(f[0] in (0x93, 0x95) and f[1] & 0x0F for f in board.chips[1].frames)
    clean(board)


def test_many_random_cards_in_one_field_are_all_found():
    rng = random.Random(40)
    uids = {"04" + f"{rng.getrandbits(48):012X}" for _ in range(8)}
    board = SimBoard(zones=1, mfrc522=(1,))
    for uid in uids:
        board.chips[1].place(uid)
    _, got = run(board, 2, MFRC522_MAX_CARDS=8)
    for _, zones, _ in got:
        assert zones[1][0] == "OK" and sorted(zones[1][1]) == sorted(uids)
    clean(board)


@pytest.mark.parametrize("damaged, again", [(1, False), (2, True), (3, True), (5, True)])
def test_a_damaged_answer_is_read_again_in_the_same_cycle(damaged, again):
    # the next answers arrive damaged: ATQA's parity first (harmless: an ATQA says only that a
    # card is there), then an anticollision's bit or SELECT's CRC_A: the card is read again
    # after the field is cycled, within the error limit
    board = SimBoard(zones=2, mfrc522=(1,))
    for uid in SEAT_PAIR:
        board.chips[1].place(uid)
    board.chips[1].faults.crc_frames = damaged
    _, got = run(board, 1)
    assert got[0][1][1][0] == "OK" and sorted(got[0][1][1][1]) == sorted(SEAT_PAIR)
    assert (board.chips[1].frames.count(b"\x93\x20") > len(SEAT_PAIR)) is again  # read again, in the same cycle
    clean(board)


def test_answers_damaged_past_the_limit_say_the_zone_incomplete():
    board = SimBoard(zones=1, mfrc522=(1,))
    board.chips[1].place(SEAT_PAIR[0])
    board.chips[1].faults.crc_frames = 1000
    items, got = run(board, 1)
    assert got[0][1][1] == ("E05", [])
    assert ["1", "E05", "incomplete"] in [f for k, _, f in items if k == "ERR"]
    clean(board)


def test_a_card_at_the_fields_edge_comes_and_goes_and_the_other_is_never_lost():
    board = SimBoard(zones=1, mfrc522=(1,))
    board.chips[1].place(SEAT_PAIR[0])
    board.chips[1].place(SEAT_PAIR[1], absent=0.3)
    _, got = run(board, 30)
    assert len(got) == 30
    seen = 0
    for _, zones, _ in got:
        state, tags = zones[1]
        assert state in ("OK", "E05") and SEAT_PAIR[0] in tags  # (a card gone mid-select: read again)
        seen += SEAT_PAIR[1] in tags
    assert 3 < seen < 30
    clean(board)


def test_a_chip_that_stops_answering_mid_cycle_does_not_hang_the_others():
    board = SimBoard(zones=3, mfrc522=(1, 2, 3))
    for z in (1, 2, 3):
        board.chips[z].place(f"04A2B3C4D5E68{z}")
    board.chips[2].faults.die_after = 30  # in the middle of its first cycle's selection
    board.chips[2].faults.dead_for_good = True
    items, got = run(board, 3)
    assert len(got) == 3
    for _, zones, _ in got:
        assert zones[1] == ("OK", ["04A2B3C4D5E681"]) and zones[3] == ("OK", ["04A2B3C4D5E683"])
        assert zones[2] == ("E01", [])
    assert [f for k, _, f in items if k == "ERR" and f[0] == "2"] == [["2", "E01", "no-answer"]] * 3
    assert ("ERR", ["0", "E03", "reset"]) in [(k, f) for k, _, f in items]
    clean(board)


def test_a_chip_that_dies_and_comes_back_after_the_reset_is_read_again():
    board = SimBoard(zones=2, mfrc522=(1, 2))
    board.chips[1].place(SEAT_PAIR[0])
    board.chips[2].place(SEAT_PAIR[1])
    board.chips[1].faults.die_after = 40
    _, got = run(board, 2)
    assert got[0][1][1] == ("E01", []) and got[0][1][2] == ("OK", [SEAT_PAIR[1]])
    assert got[1][1] == {1: ("OK", [SEAT_PAIR[0]]), 2: ("OK", [SEAT_PAIR[1]])}
    assert board.chips[1].resets >= 2
    clean(board)


def test_an_open_antenna_is_said_and_its_zone_failed():
    board = SimBoard(zones=2, mfrc522=(2,))
    board.chips[2].place(SEAT_PAIR[0])
    board.chips[2].faults.antenna_open = True
    board.chips[1].place("E004015012345601")
    items, got = run(board, 1)
    assert got[0][1] == {1: ("OK", ["E004015012345601"]), 2: ("E04", [])}
    assert ["2", "E04", "antenna"] in [f for k, _, f in items if k == "ERR"]
    clean(board)


def test_more_cards_than_a_cycle_reads_say_the_zone_incomplete():
    board = SimBoard(zones=1, mfrc522=(1,))
    uids = [f"04A2B3C4D5E6{n:02X}" for n in range(5)]
    for uid in uids:
        board.chips[1].place(uid)
    _, got = run(board, 1, MFRC522_MAX_CARDS=3)
    state, tags = got[0][1][1]
    assert state == "E05" and len(tags) == 3 and set(tags) <= set(uids)


def test_the_handshake_says_each_zones_chip_and_capacity():
    board = SimBoard(zones=3, mfrc522=(1, 2))
    items, _ = run(board, 0, CAPACITY={2: 1, 3: 20})
    zones = [f for k, _, f in items if k == "ZONE"]
    assert zones == [["1", "MFRC522", "ISO14443A", "2", "NORSSI"], ["2", "MFRC522", "ISO14443A", "1", "NORSSI"],
                     ["3", "PN5180", "ISO15693", "20", "NORSSI"]]


def test_the_hosts_decoder_takes_both_uid_lengths_and_the_capacities():
    # the firmware's bytes through the host's own decoder (firmware_bridge/bridge.py)
    board = SimBoard(zones=2, mfrc522=(1,))
    for uid in SEAT_PAIR:
        board.chips[1].place(uid)
    board.chips[2].place("E004015012345678")
    out = bytearray()
    with firmware(board) as fw:
        sched = fw.scheduler(board, out.extend)
        sched.start()
        sched.feed(b"STOP 0002 *D4A4\n")
        sched.step()
        sched.feed(fw.bridge_frames.encode("CYCLE", 3))
        sched.step()
    frames = [f for f in bridge.LineDecoder().feed(bytes(out)) if isinstance(f, bridge.Frame)]
    infos = [bridge.parse_zone(f) for f in frames if f.kind == "ZONE"]
    assert [(i.chip, i.air, i.capacity) for i in infos] == [("MFRC522", "ISO14443A", 2), ("PN5180", "ISO15693", 64)]
    snaps = {s.zone: s for s in (bridge.parse_tags(f) for f in frames if f.kind == "TAGS")}
    assert sorted(uid for uid, _ in snaps[1].tags) == sorted(SEAT_PAIR)
    assert [uid for uid, _ in snaps[2].tags] == ["E004015012345678"]
    assert ref.frames(bytes(out))  # (and the reference decoder reads every line)


def test_a_select_is_released_when_a_chip_fails():
    board = SimBoard(zones=2, mfrc522=(1,))
    board.chips[1].dead = True  # MISO floats high: every register reads FF
    with firmware(board) as fw:
        cfg = fw.config(CHIPS={1: "MFRC522"})
        chip = fw.mfrc522.Mfrc522(fw.pico_board.Bus(cfg, board.clock), 1, cfg)
        with pytest.raises(fw.pn5180.ChipError) as failed:
            chip.init()
    assert failed.value.code == "E01" and failed.value.reset
    assert board.selected is None and board.pins[cfg.PIN_EN] == 1


def test_a_table_of_both_chips_cycles_with_one_field_on():
    # ten MFRC522 seats of two cards, PN5180s for the board, the burn and the muck
    board = SimBoard(zones=13, mfrc522=tuple(range(1, 11)))
    for seat in range(1, 11):
        for k in range(2):
            board.chips[seat].place(f"04{seat:02X}{k:02X}B3C4D5E6")
    for n in range(5):
        board.chips[11].place(f"E0040150123456{n:02X}")
    _, got = run(board, 2)
    for _, zones, _ms in got:
        assert all(len(zones[s][1]) == 2 for s in range(1, 11)) and len(zones[11][1]) == 5
    clean(board)


CHEAP = {z: [f"04{z:02X}{k:02X}B3C4D5E6" for k in range(2 if z <= 10 or z == 16 else 1)] for z in range(1, 17)}


@pytest.mark.parametrize("zones, layout, ms", [(1, {}, 7), (1, {1: SEAT_PAIR}, 21), (16, {}, 110), (16, CHEAP, 322)],
                         ids=["empty-zone", "a-seat-of-two", "empty-table", "cheap-table"])
def test_mfrc522_zones_cycle_in_the_documents_time(zones, layout, ms):
    # virtual time (hw_sim/micropython_board.py's costs, ISO 14443A's air times at 106 kbit/s):
    # docs/protocols/bridge.md's "An MFRC522 zone" gives these
    board = SimBoard(zones=zones, mfrc522=tuple(range(1, zones + 1)))
    for zone, uids in layout.items():
        for uid in uids:
            board.chips[zone].place(uid)
    _, got = run(board, 1)
    (_, read, took), = got
    assert sum(len(tags) for _, tags in read.values()) == sum(map(len, layout.values()))
    assert abs(took - ms) <= 0.1 * ms + 1, took
