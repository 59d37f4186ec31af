"""The bridge client's silence (firmware_bridge/bridge_client.py, ``_frames``): the deadline
passing says the board fell silent only when nothing is waiting on the port. A host that was
held off the processor past its deadline (a loaded machine) reads what the board sent meanwhile;
a loaded run once failed calibrate with "the board fell silent within a cycle"."""

from __future__ import annotations

import serial

from firmware_bridge import bridge
from firmware_bridge.bridge_client import BridgeClient


def test_a_frame_waiting_when_the_deadline_has_passed_is_read_not_called_silence():
    port = serial.serial_for_url("loop://", timeout=0.01)
    client = BridgeClient(port, device="reader")
    line = bridge.encode("OK", 7)
    port.write(line)  # (the board's line, arrived while the host was away)
    got = list(client._frames(0.0))  # the deadline already passed
    assert [f.kind for f in got] == ["OK"]


def test_with_nothing_waiting_the_deadline_ends_the_frames():
    port = serial.serial_for_url("loop://", timeout=0.01)
    assert list(BridgeClient(port, device="reader")._frames(0.0)) == []
