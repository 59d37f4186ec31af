"""The firmware's main.py, as MicroPython starts it at power-up, on a simulated board behind a
real pseudo-terminal (hw_sim/bridge_board.py), read by the host's driver: the tags the
simulated chips held come out of the host's BridgeClient and BridgeReaderLink."""

from __future__ import annotations

import json
import threading

import pytest
import serial

from firmware_bridge.bridge_client import BridgeClient
from firmware_bridge.drivers import reader_link
from firmware_bridge.events import LinkStatus, TagCycle
from firmware_bridge.serial_port import PortSettings
from hw_sim import bridge_board
from hw_sim.micropython_board import FakeMicropython
from tests.unit.firmware import reference_decoder as ref

FIELD = {"1": ["E004015012345601"], "4": ["E004015012345604", "E004015012345614", "E0040150123456A4"],
         "13": ["E0040150A05F0033"]}


@pytest.fixture
def board(tmp_path):
    field = tmp_path / "field.json"
    field.write_text(json.dumps({"zones": FIELD}))
    running = bridge_board.start(field, zones=13)
    yield running, field
    running.stop()


def open_port(path: str) -> serial.Serial:
    return serial.serial_for_url(path, baudrate=115200, timeout=0.05)


def test_the_board_says_hello_at_power_up(board):
    running, _ = board
    with open_port(running.port) as port:
        data = b""
        while data.count(b"\n") < 14:
            chunk = port.read(4096)
            assert chunk or running.process.poll() is None
            data += chunk
    items = ref.frames(data[: data.index(b"\n", data.index(b"ZONE 000D")) + 1])
    assert items[0] == ("HELLO", 0, ["-", "1.0", "tablectl-bridge/0.1", items[0][2][3], "13"])
    assert [f for k, _, f in items[1:]] == [[str(z), "PN5180", "ISO15693", "64", "NORSSI"] for z in range(1, 14)]


def test_the_host_driver_reads_the_tags_the_chips_held(board):
    running, _ = board
    with open_port(running.port) as port:
        client = BridgeClient(port, device="reader")
        for _ in range(3):
            tags = client.inventory(deadline_s=10)
            got = {(a.antenna, t.uid) for t in tags for a in t.antennas}
            assert got == {(int(z), uid) for z, uids in FIELD.items() for uid in uids}
        assert {a.rssi for t in tags for a in t.antennas} == {255}  # each heard alone
        assert client.hello is not None and client.hello.zones == 13
        assert client.frames_bad == 0


def test_a_ctrl_c_from_the_host_does_not_stop_the_firmware(board):
    running, _ = board
    with open_port(running.port) as port:
        client = BridgeClient(port, device="reader")
        client.inventory(deadline_s=10)
        port.write(b"\x03\x03\r\n")  # Ctrl-C: MicroPython's REPL would stop main.py with it armed
        tags = client.inventory(deadline_s=10)
        assert {t.uid for t in tags} == {uid for uids in FIELD.values() for uid in uids}
    assert running.process.poll() is None


def test_the_runner_stops_a_firmware_that_left_ctrl_c_armed(tmp_path):
    # the check above can fail: with kbd_intr(-1) never called, a 03 byte interrupts, as on a Pico
    r, w = __import__("os").pipe()
    mp = FakeMicropython()
    stdin = bridge_board._ReplStdin(r, mp)
    __import__("os").write(w, b"\x03")
    with pytest.raises(KeyboardInterrupt):
        stdin.read(1)
    mp.kbd_intr(-1)
    __import__("os").write(w, b"\x03")
    assert stdin.read(1) == b"\x03"


def test_the_reader_link_emits_the_tags_as_cycles(board):
    running, field = board
    events, cond = [], threading.Condition()

    def emit(event):
        with cond:
            events.append(event)
            cond.notify_all()

    link = reader_link("bridge", "reader", emit, PortSettings(running.port, baudrate=115200, parity="N"),
                       antennas=(1 << 13) - 1, answer_timeout=0.5)
    link.start()
    try:
        with cond:
            assert cond.wait_for(lambda: sum(isinstance(e, TagCycle) for e in events) >= 2, 30)
        new = field.with_suffix(".new")
        new.write_text(json.dumps({"zones": {"2": ["E004015012345601"]}}))
        new.replace(field)  # the card moved to zone 2 (the file replaced whole)
        with cond:
            assert cond.wait_for(lambda: any(isinstance(e, TagCycle) and ("E004015012345601", 2, 255) in e.reads
                                             for e in events), 30)
    finally:
        link.stop()
    first = next(e for e in events if isinstance(e, TagCycle))
    assert set(first.reads) == {(uid, int(z), 255) for z, uids in FIELD.items() for uid in uids}
    assert isinstance(events[0], LinkStatus) and events[0].online
