"""The reader's bus address (COM-ADR): requests go to it, answers from another address are
counted and dropped, and a reader that only answers for another address goes offline saying so.

Frames are written out by hand from docs/protocols/feig.md (LEN, COM-ADR, CMD, STATUS, DATA, CRC
low byte first); each is checked here against the CRC-16/MCRF4XX residue with a bitwise CRC
written in this file (a whole frame, its CRC included, leaves the register at 0), not with the
codec's. The client tests talk over a real pseudo-terminal to a responder written here; the link
and daemon tests run the simulated reader on a real pseudo-terminal.
"""

from __future__ import annotations

import logging
import os
import select
import subprocess
import threading
from pathlib import Path

import pytest
import serial

from firmware_bridge.events import LinkStatus, TagCycle
from controller.config.daemon import ConfigError, load_config
from firmware_bridge.backoff import Backoff
from firmware_bridge.errors import ResponseTimeout, WrongAddress
from firmware_bridge.feig_client import FeigClient
from firmware_bridge.reader_link import FeigReaderLink
from firmware_bridge.serial_port import PortSettings
from hw_sim.decks import sim_uid
from hw_sim.feig_reader import BusNeighbour, NoiseModel, SimFeigReader
from hw_sim.pty_device import PtyDevice
from tests.conftest import TABLECTL
from tests.unit.firmware_bridge.test_reader_link import Events
from rig.waiting import wait_until

H = bytes.fromhex

# Inventory without antenna information, to address 0x01.
REQUEST_TO_01 = H("07 01 B0 01 00 75 8F")
REQUEST_BROADCAST = H("07 FF B0 01 00 1C 56")  # docs/protocols/feig.md's own example
# "No transponder", from address 0x05 and from 0x01.
NONE_FROM_05 = H("06 05 B0 01 E1 5A")
NONE_FROM_01 = H("06 01 B0 01 80 39")
# One tag (TR-TYPE 03, DSFID 00, UID E004015012345678) from address 0x05: another reader's card.
TAG_FROM_05 = H("11 05 B0 00 01 03 00 E0 04 01 50 12 34 56 78 E9 CD")
# One tag (DSFID 1F, UID E007000011223344) from address 0x01: ours.
TAG_FROM_01 = H("11 01 B0 00 01 03 1F E0 07 00 00 11 22 33 44 48 18")


def residue(frame: bytes) -> int:
    """The CRC-16/MCRF4XX register after the whole frame, CRC included: 0 for a good frame."""
    reg = 0xFFFF
    for byte in frame:
        reg ^= byte
        for _ in range(8):
            reg = (reg >> 1) ^ 0x8408 if reg & 1 else reg >> 1
    return reg


@pytest.mark.parametrize("frame", [REQUEST_TO_01, REQUEST_BROADCAST, NONE_FROM_05, NONE_FROM_01,
                                   TAG_FROM_05, TAG_FROM_01])
def test_the_hand_written_frames_are_whole(frame: bytes) -> None:
    assert frame[0] == len(frame)
    assert residue(frame) == 0
    assert residue(frame[:-1] + bytes([frame[-1] ^ 1])) != 0


class Responder:
    """The far end of a real pseudo-terminal: reads each request and answers with the next of
    ``answers`` (a list of byte strings per request)."""

    def __init__(self, answers: list[bytes]) -> None:
        self.master, slave = os.openpty()
        self.path = os.ttyname(slave)
        self._slave = slave  # kept open so that the line stays up between the client's reads
        self.answers = list(answers)
        self.requests: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        pending = b""
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                pending += os.read(self.master, 4096)
            except OSError:
                return
            while pending and len(pending) >= pending[0] >= 5:
                request, pending = pending[:pending[0]], pending[pending[0]:]
                self.requests.append(request)
                if self.answers:
                    os.write(self.master, self.answers.pop(0))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(2)
        os.close(self.master)
        os.close(self._slave)


@pytest.fixture
def responder():
    made: list[Responder] = []

    def make(answers: list[bytes]) -> tuple[Responder, serial.Serial]:
        r = Responder(answers)
        port = serial.serial_for_url(r.path, timeout=0.01)
        made.append(r)
        ports.append(port)
        return r, port

    ports: list[serial.Serial] = []
    yield make
    for p in ports:
        p.close()
    for r in made:
        r.close()


def test_a_foreign_answer_is_counted_and_dropped_and_ours_taken(responder, caplog):
    caplog.set_level(logging.DEBUG, logger="tablectl")
    r, port = responder([TAG_FROM_05 + TAG_FROM_01])
    client = FeigClient(port, device="reader", com_adr=0x01)
    tags = client.inventory(antennas=None, deadline_s=2.0)
    assert r.requests == [REQUEST_TO_01]  # the request went to address 0x01
    assert [(t.uid, t.dsfid) for t in tags] == [("E007000011223344", 0x1F)]  # ours, not 0x05's
    assert client.foreign_answers == 1
    assert client.frames_bad == 0
    # another reader's answer holds its cards' UIDs: it is never logged
    assert "E0 04 01 50" not in caplog.text.upper() and "E004015012345678" not in caplog.text.upper()


def test_only_foreign_answers_raise_wrong_address_naming_both(responder):
    r, port = responder([NONE_FROM_05])
    client = FeigClient(port, device="reader", com_adr=0x01)
    with pytest.raises(WrongAddress, match=r"^reader: answers come from address 0x05, expected 0x01$") as info:
        client.inventory(antennas=None, deadline_s=0.3)
    assert (info.value.seen, info.value.expected) == (0x05, 0x01)
    assert isinstance(info.value, ResponseTimeout)  # callers that know only timeouts still stop
    assert client.foreign_answers == 1 and client.timeouts == 1


def test_a_broadcast_client_takes_an_answer_from_any_address(responder):
    r, port = responder([NONE_FROM_05])
    client = FeigClient(port, device="tags")  # the bench tools' default: FF
    assert client.inventory(antennas=None, deadline_s=2.0) == []
    assert r.requests == [REQUEST_BROADCAST]
    assert client.foreign_answers == 0


def test_an_answer_held_back_by_a_lying_length_is_taken_at_the_deadline(responder):
    """``02 05 00`` claims a 1280-byte advanced frame (under the 2559-byte bound of an answer
    without antenna information): the answer after it waits on that claim, which nothing will
    complete. At the deadline the client drains the decoder: the claim is refuted and the
    answer found, instead of a cycle dropped as damaged."""
    r, port = responder([H("02 05 00") + TAG_FROM_01])
    client = FeigClient(port, device="reader", com_adr=0x01)
    tags = client.inventory(antennas=None, deadline_s=0.3)
    assert [t.uid for t in tags] == ["E007000011223344"]
    assert client.frames_bad == 1  # the three junk bytes, reported once
    assert client.decoder.buffered == 0


# --- the link and the simulated reader, on a real pseudo-terminal ----------------------------

@pytest.fixture
def bus(tmp_path):
    made: list = []

    def reader(**kw) -> SimFeigReader:
        r = SimFeigReader(PtyDevice(tmp_path / "reader"), antennas=range(1, 14), noise=NoiseModel(), **kw)
        r.start()
        made.append(r)
        return r

    def link(events, com_adr: int, **kw) -> FeigReaderLink:
        lk = FeigReaderLink("reader", events, PortSettings(url=str(tmp_path / "reader"), parity="N"),
                            antennas=(1 << 13) - 1, com_adr=com_adr, answer_timeout=0.2,
                            backoff=Backoff(0.01, 0.05), **kw)
        lk.start()
        made.append(lk)
        return lk

    yield reader, link
    for m in reversed(made):
        m.stop()


@pytest.mark.slow
def test_a_reader_answering_only_as_another_address_goes_offline_with_the_reason(bus, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    make_reader, make_link = bus
    r = make_reader(com_adr=0x05, answer_any=True)
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = make_link(ev, com_adr=0x01, max_timeouts=3)
    ev.wait(lambda items: any(isinstance(e, LinkStatus) and not e.online for e in items))
    assert ev.status()[0] == (False, "answers come from address 0x05, expected 0x01")
    assert not ev.cycles()  # nothing of 0x05's was taken as ours
    assert lk.stats.foreign_answers >= 3
    assert "answered only by address 0x05, expected 0x01" in caplog.text
    assert sim_uid("A", "As") not in caplog.text.upper()


def test_another_device_on_the_line_is_dropped_while_ours_answers(bus):
    make_reader, make_link = bus
    r = make_reader(com_adr=0x00, on_bus=[BusNeighbour(0x05, answer_any=True)])
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = make_link(ev, com_adr=0x00)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 3)
    assert all({u for u, _, _ in c.reads} == {sim_uid("A", "As")} for c in ev.cycles())
    wait_until(lambda: lk.stats.foreign_answers >= 2, 10, what="the neighbour's answers counted")
    assert ev.status() == [(True, ev.status()[0][1])]  # never offline


def test_a_reader_at_another_address_stays_silent_and_the_link_says_no_answer(bus):
    make_reader, make_link = bus
    r = make_reader(com_adr=0x03)  # filters like a real reader: requests for 0x01 are not its own
    ev = Events()
    lk = make_link(ev, com_adr=0x01, max_timeouts=2)
    ev.wait(lambda items: any(isinstance(e, LinkStatus) and not e.online for e in items))
    assert ev.status()[0] == (False, "no answer to 2 inventories")
    assert r.ignored >= 2 and r.requests == 0
    assert lk.stats.foreign_answers == 0


# --- configuration -------------------------------------------------------------------------------

def write_config(folder: Path, reader: str) -> Path:
    from hw_sim.decks import manifest_text
    (folder / "A.txt").write_text(manifest_text("A"))
    (folder / "B.txt").write_text(manifest_text("B"))
    path = folder / "tablectl.toml"
    path.write_text(f"""
[reader]
{reader}
[[decks]]
id = "A"
back = "red"
manifest = "A.txt"
[[decks]]
id = "B"
back = "blue"
manifest = "B.txt"
[outputs]
ready_wait = 0.2  # (the daemon's wait for its devices at start; the default 5 s is for real ones)
""")
    return path


def test_the_address_defaults_to_0_and_255_is_refused(tmp_path):
    assert load_config(write_config(tmp_path, 'port = "loop://"')).reader.address == 0
    assert load_config(write_config(tmp_path, "address = 254")).reader.address == 254
    with pytest.raises(ConfigError, match=r"\[reader\] address: 255 is FEIG's broadcast address"):
        load_config(write_config(tmp_path, "address = 255"))
    with pytest.raises(ConfigError, match=r"address = -1: must be a whole number from 0 to 254"):
        load_config(write_config(tmp_path, "address = -1"))


@pytest.mark.slow
@pytest.mark.e2e
def test_the_daemon_reports_the_wrong_address_offline_with_the_reason(tmp_path):
    """``tablectl run`` as a subprocess on the simulated reader's pseudo-terminal: the reader
    answers as 0x05, the daemon asks 0x01; the dealer's alert and the log say so, without a UID."""
    reader = SimFeigReader(PtyDevice(tmp_path / "reader"), antennas=range(1, 14), noise=NoiseModel(),
                           com_adr=0x05, answer_any=True)
    reader.place("a", sim_uid("A", "As"), 1)
    reader.start()
    config = write_config(tmp_path, f'port = "{tmp_path / "reader"}"\nparity = "N"\naddress = 1\n'
                                    "answer_timeout = 0.2\nmax_timeouts = 2")
    log_path = tmp_path / "daemon.log"
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("NOTIFY_SOCKET", None)
    with open(log_path, "w") as log:
        proc = subprocess.Popen([*TABLECTL, "run", "--config", str(config)], stdout=log,
                                stderr=subprocess.STDOUT, env=env)
    try:
        wait_until(lambda: "expected 0x01" in log_path.read_text() and "reader offline" in log_path.read_text()
                   or proc.poll() is not None, 30, what="the daemon's wrong-address report")
        text = log_path.read_text()
        assert proc.poll() is None, text
    finally:
        proc.terminate()
        proc.wait(10)
        reader.stop()
    assert "answered only by address 0x05, expected 0x01" in text
    assert "reader offline (answers come from address 0x05, expected 0x01)" in text
    assert sim_uid("A", "As") not in text.upper()
    assert "Traceback" not in text
