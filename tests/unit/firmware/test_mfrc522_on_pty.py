"""MFRC522 zones on the firmware's main.py behind a real pseudo-terminal (hw_sim/bridge_board.py
with --mfrc522), read by the host's driver: 7-byte UIDs come out at their own length, and the
reader link tells the zones' capacities with its online status (the core's tracker takes them:
tests/unit/core/test_capacity.py)."""

from __future__ import annotations

import json
import threading

import pytest

from firmware_bridge.drivers import reader_link
from firmware_bridge.events import LinkStatus, TagCycle
from firmware_bridge.serial_port import PortSettings
from hw_sim import bridge_board

FIELD = {"1": ["04A2B3C4D5E680", "0455667788AA81"], "2": ["04A2B2C4D5E680"], "4": ["E004015012345604"]}


@pytest.fixture
def board(tmp_path):
    field = tmp_path / "field.json"
    field.write_text(json.dumps({"zones": FIELD}))
    running = bridge_board.start(field, zones=4, mfrc522=(1, 2, 3))
    yield running
    running.stop()


def test_the_link_reads_both_lengths_and_tells_the_capacities(board):
    events, cond = [], threading.Condition()

    def emit(event):
        with cond:
            events.append(event)
            cond.notify_all()

    link = reader_link("bridge", "reader", emit, PortSettings(board.port, baudrate=115200, parity="N"),
                       antennas=(1 << 4) - 1, answer_timeout=0.5)
    link.start()
    try:
        with cond:
            assert cond.wait_for(lambda: sum(isinstance(e, TagCycle) for e in events) >= 2, 30)
    finally:
        link.stop()
    status = next(e for e in events if isinstance(e, LinkStatus))
    assert status.online and status.capacity == ((1, 2), (2, 2), (3, 2))  # zone 4, a PN5180: no limit
    cycle = next(e for e in events if isinstance(e, TagCycle))
    assert {(uid, ant) for uid, ant, _ in cycle.reads} == {(uid, int(z)) for z, uids in FIELD.items() for uid in uids}
