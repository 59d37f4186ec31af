"""The bridge board's firmware under CPython, on simulated PN5180s at their command level
(hw_sim/pn5180_chip.py): every tag of a field found, what a chip does wrong survived, one field on
at a time. Its output is read by the reference decoder written from docs/protocols/bridge.md
(tests/unit/firmware/reference_decoder.py), never by the firmware's own code.
"""

from __future__ import annotations

import random

import pytest

from controller.core.cards import setup_order
from hw_sim.decks import sim_uid
from hw_sim.micropython_board import SimBoard, firmware
from hw_sim.pn5180_chip import SimTag
from tests.unit.firmware import reference_decoder as ref

DECK = [sim_uid("A", card) for card in setup_order()]  # (a deck's UIDs, in its set-up order)


def run(board: SimBoard, cycles: int, **cfg):
    """Power up, STOP, then ``cycles`` CYCLE requests; (every frame, the whole cycles)."""
    out = bytearray()
    with firmware(board) as fw:
        sched = fw.scheduler(board, out.extend, **cfg)
        sched.start()
        sched.feed(b"STOP 0002 *D4A4\n")
        sched.step()
        for i in range(cycles):
            sched.feed(fw.bridge_frames.encode("CYCLE", 3 + i))
            sched.step()
    items = ref.frames(bytes(out))
    return items, ref.cycles(items)


def clean(board: SimBoard) -> None:
    """What the firmware must never do, whatever the chips did."""
    assert board.violations() == []
    assert board.most_fields_on <= 1  # only the zone being polled has its field on
    assert board.glitches == 0  # no address change with a select asserted
    assert board.selected is None  # every chip select released


def test_three_cards_stacked_at_one_seat_are_each_found():
    # Three UIDs with the same low nibble: they collide in the first round's slot 8
    stack = ["E004015012345678", "E004015012345618", "E0040150123456A8"]
    board = SimBoard(zones=3)
    for uid in stack:
        board.chips[2].place(uid)
    _, got = run(board, 5)
    assert len(got) == 5
    for _, zones, _ in got:
        assert zones[2][0] == "OK" and sorted(zones[2][1]) == sorted(stack)
        assert zones[1] == ("OK", []) and zones[3] == ("OK", [])
    assert board.chips[2].quiets >= 3 * 5  # each tag read was told to stay quiet
    clean(board)


def test_twenty_tags_in_one_field_are_all_found():
    rng = random.Random(40)
    uids = {f"E004{rng.getrandbits(48):012X}" for _ in range(20)}
    board = SimBoard(zones=2)
    for uid in uids:
        board.chips[1].place(uid)
    _, got = run(board, 3)
    for _, zones, _ in got:
        assert zones[1][0] == "OK" and sorted(zones[1][1]) == sorted(uids)
    clean(board)


def test_a_whole_deck_of_sequential_uids_in_the_muck():
    # A deck's tags differ in their last bits only: every round collides, the masks go deep
    board = SimBoard(zones=1)
    for uid in DECK:
        board.chips[1].place(uid)
    _, got = run(board, 1)
    (_, zones, ms), = got
    assert zones[1][0] == "OK" and sorted(zones[1][1]) == sorted(DECK)
    clean(board)


def test_a_tag_at_the_fields_edge_comes_and_goes_and_the_others_are_never_lost():
    board = SimBoard(zones=2)
    steady = ["E004015012345601", "E004015012345611"]
    for uid in steady:
        board.chips[1].place(uid)
    board.chips[1].place("E004015012345621", absent=0.5, crc=0.2)
    _, got = run(board, 40)
    assert len(got) == 40  # no cycle broken, none lost
    seen_edge = 0
    for _, zones, _ in got:
        state, tags = zones[1]
        assert state == "OK"  # a weak tag is a missed read, not a failed zone
        assert set(steady) <= set(tags)
        seen_edge += "E004015012345621" in tags
    assert 5 < seen_edge < 40
    clean(board)


@pytest.mark.parametrize("confirm", [False, True])
def test_a_tag_hidden_by_a_stronger_one_is_found_by_the_confirming_round(confirm):
    board = SimBoard(zones=1)
    board.chips[1].place("E004015012345678", strong=True)  # answers over the weak one in slot 8
    board.chips[1].place("E004015012345618")
    _, got = run(board, 1, CONFIRM_ROUND=confirm)
    tags = got[0][1][1][1]
    assert ("E004015012345618" in tags) is confirm  # without the confirming round it is missed
    clean(board)


def test_a_damaged_answer_is_read_again_in_the_same_cycle():
    board = SimBoard(zones=1)
    board.chips[1].place("E004015012345678")
    board.chips[1].faults.crc_slots = 1
    _, got = run(board, 1)
    assert got[0][1][1] == ("OK", ["E004015012345678"])
    assert board.chips[1].rounds >= 2  # the damaged slot read again with a longer mask
    clean(board)


def test_stale_interrupt_flags_give_no_false_tags_and_lose_none():
    board = SimBoard(zones=2)
    board.chips[1].place("E004015012345678")
    for chip in board.chips.values():
        chip.faults.stale_irq = True
    _, got = run(board, 4)
    for _, zones, _ in got:
        assert zones == {1: ("OK", ["E004015012345678"]), 2: ("OK", [])}
    clean(board)


def test_a_stuck_busy_line_resets_the_chips_and_the_other_zones_are_read_in_the_same_cycle():
    board = SimBoard(zones=3)
    board.chips[1].place("E004015012345601")
    board.chips[2].place("E004015012345602")
    board.chips[3].place("E004015012345603")
    board.chips[2].faults.stick_after = 12  # freezes in the middle of its inventory
    items, got = run(board, 2)
    first, second = got
    assert first[1] == {1: ("OK", ["E004015012345601"]), 2: ("E02", []), 3: ("OK", ["E004015012345603"])}
    assert ("ERR", ["2", "E02", "busy-stuck"]) in [(k, f) for k, _, f in items]
    assert ("ERR", ["0", "E03", "reset"]) in [(k, f) for k, _, f in items]
    assert second[1][2] == ("OK", ["E004015012345602"])  # the reset cleared it
    assert board.chips[2].resets >= 2  # power-up, then the one after the freeze
    clean(board)


def test_a_chip_that_stops_answering_mid_cycle_does_not_hang_the_others():
    board = SimBoard(zones=3)
    for z in (1, 2, 3):
        board.chips[z].place(f"E00401501234560{z}")
    board.chips[2].faults.die_after = 20
    board.chips[2].faults.dead_for_good = True
    items, got = run(board, 3)
    assert len(got) == 3  # every cycle ends
    for _, zones, _ in got:
        assert zones[1] == ("OK", ["E004015012345601"]) and zones[3] == ("OK", ["E004015012345603"])
        assert zones[2] == ("E01", [])
    assert [f for k, _, f in items if k == "ERR" and f[0] == "2"] == [["2", "E01", "no-answer"]] * 3
    clean(board)


def test_an_open_antenna_is_said_and_its_zone_failed():
    board = SimBoard(zones=2)
    board.chips[2].place("E004015012345602")
    board.chips[2].faults.antenna_open = True
    board.chips[1].place("E004015012345601")
    items, got = run(board, 1)
    assert got[0][1] == {1: ("OK", ["E004015012345601"]), 2: ("E04", [])}
    assert ["2", "E04", "antenna"] in [f for k, _, f in items if k == "ERR"]
    clean(board)


def test_too_many_rounds_say_the_zone_incomplete():
    board = SimBoard(zones=1)
    for uid in DECK[:20]:
        board.chips[1].place(uid)
    _, got = run(board, 1, MAX_ROUNDS=2)
    state, tags = got[0][1][1]
    assert state == "E05" and 0 < len(tags) < 20


MID_HAND = {**{s: DECK[2 * s:2 * s + 2] for s in range(1, 10)}, 11: DECK[20:25], 12: DECK[25:28], 13: DECK[28:43]}


def _random_uids(layout: dict[int, list[str]], seed: int) -> dict[int, list[str]]:
    """``layout`` with random UIDs instead of the deck's consecutive ones (which collide less)."""
    rng = random.Random(seed)
    return {z: ["E004" + "".join(rng.choice("0123456789ABCDEF") for _ in range(12)) for _ in uids]
            for z, uids in layout.items()}


@pytest.mark.parametrize("layout, seconds", [({}, 0.26), (MID_HAND, 0.80), ({13: DECK}, 1.04),
                                             (_random_uids(MID_HAND, 1), 0.94), (_random_uids({13: DECK}, 1), 1.11)],
                         ids=["empty", "mid-hand", "deck-in-the-muck", "mid-hand-random-uids", "muck-random-uids"])
def test_a_full_table_cycles_in_the_documents_time(layout, seconds):
    # Virtual time (hw_sim/micropython_board.py): ISO 15693's air times and MicroPython's rough
    # costs: docs/protocols/bridge.md's "The cycle time" gives these for 13 zones (random UIDs, and
    # a deck's consecutive ones)
    board = SimBoard(zones=13)
    for zone, uids in layout.items():
        for uid in uids:
            board.chips[zone].place(uid)
    _, got = run(board, 1)
    (_, zones, ms), = got
    assert sum(len(tags) for _, tags in zones.values()) == sum(map(len, layout.values()))
    assert abs(ms / 1000 - seconds) <= 0.1 * seconds, ms  # ("about": other UIDs collide otherwise)


def test_the_board_answers_its_commands_and_refuses_bad_lines():
    board = SimBoard(zones=1)
    out = bytearray()
    with firmware(board) as fw:
        sched = fw.scheduler(board, out.extend)
        sched.start()
        sched.feed(b"CYCLE 0001 *0000\nHELLO 0001 1.0 *FEC9\nCYCLE 0003 *7ACD\nWHAT 0004 *0000\n")
        sched.feed(fw.bridge_frames.encode("WHAT", 5) + b"\r\n")
        sched.feed(b"\x03" * 3 + b"\n")
    said = [(k, f) for k, _, f in ref.frames(bytes(out))]
    assert said[0] == ("HELLO", ["-", "1.0", "tablectl-bridge/0.1", "2A5E11C4", "1"])
    assert said[1] == ("ZONE", ["1", "PN5180", "ISO15693", "64", "NORSSI"])
    assert said[2:] == [("NAK", ["-", "crc"]), ("HELLO", ["0001", "1.0", "tablectl-bridge/0.1", "2A5E11C4", "1"]),
                        ("ZONE", ["1", "PN5180", "ISO15693", "64", "NORSSI"]), ("NAK", ["0003", "running"]),
                        ("NAK", ["-", "crc"]), ("NAK", ["0005", "unknown"]), ("NAK", ["-", "syntax"])]


def test_the_heartbeat_comes_every_second_of_the_boards_time():
    board = SimBoard(zones=1)
    out = bytearray()
    with firmware(board) as fw:
        sched = fw.scheduler(board, out.extend)
        sched.start()
        sched.feed(b"STOP 0002 *D4A4\n")
        for _ in range(3500):
            sched.step()
            board.clock.sleep_ms(1)  # (main.py's idle loop)
    beats = [f for k, _, f in ref.frames(bytes(out)) if k == "HB"]
    assert [b[0] for b in beats] == ["1", "2", "3"]


def test_the_firmware_frames_are_the_documents():
    # docs/protocols/bridge.md's examples, field for field, as the firmware's encoder writes them
    board = SimBoard(zones=1)
    with firmware(board) as fw:
        enc = fw.bridge_frames.encode
        assert enc("HB", 0x19, ("12", "7")) == b"HB 0019 12 7 *B290\r\n"
        assert enc("TAGS", 0x14, ("1", "OK", "2", "E004015012345678", "E0040150A05F0001")) == \
            b"TAGS 0014 1 OK 2 E004015012345678 E0040150A05F0001 *6B4F\r\n"
        assert enc("RUN", 4) == b"RUN 0004 *4FF7\r\n"


def test_simulated_tags_answer_in_their_slots():
    # the simulated chip's own rules, from ISO 15693: the slot is the UID's next four bits
    tag = SimTag("E004015012345678")
    assert [tag.slot(n) for n in (0, 4, 8)] == [0x8, 0x7, 0x6]
    assert tag.matches(4, 0x8) and not tag.matches(4, 0x7)
    assert tag.answer()[2:] == bytes.fromhex("E004015012345678")[::-1]


def test_a_select_is_released_when_a_command_fails():
    # the public drivers' fault: NSS left asserted after a BUSY timeout. Here the driver alone,
    # before any reset (which would release it anyway)
    board = SimBoard(zones=2)
    board.chips[1].dead = True  # it takes no command: BUSY never rises
    with firmware(board) as fw:
        cfg = fw.config()
        chip = fw.pn5180.Pn5180(fw.pico_board.Bus(cfg, board.clock), 1, cfg)
        with pytest.raises(fw.pn5180.ChipError) as failed:
            chip.init()
    assert failed.value.code == "E01" and failed.value.reset
    assert board.selected is None and board.pins[cfg.PIN_EN] == 1
