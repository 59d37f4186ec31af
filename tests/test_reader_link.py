"""The reader link against the simulated reader on a real pseudo-terminal: cycles, faults,
heartbeat loss, unplugging and reconnecting with bounded backoff."""

import logging
import threading
import time

import pytest

from controller.events import DeviceStatus, ReaderCycle
from firmware_bridge.backoff import Backoff
from firmware_bridge.reader_link import FeigReaderLink
from firmware_bridge.serial_port import PortSettings
from hw_sim.decks import sim_uid


class Events:
    def __init__(self):
        self.items = []
        self.cond = threading.Condition()

    def __call__(self, ev):
        with self.cond:
            self.items.append(ev)
            self.cond.notify_all()

    def wait(self, pred, timeout=10.0):
        with self.cond:
            assert self.cond.wait_for(lambda: pred(self.items), timeout), self.items[-5:]

    def cycles(self):
        return [e for e in self.items if isinstance(e, ReaderCycle)]

    def status(self):
        return [(e.online, e.detail) for e in self.items if isinstance(e, DeviceStatus)]


@pytest.fixture
def link(tmp_path):
    links = []

    def make(events, **kw):
        lk = FeigReaderLink("reader", events, PortSettings(url=str(tmp_path / "reader"), parity="N"),
                            antennas=(1 << 13) - 1, answer_timeout=0.2,
                            backoff=Backoff(0.01, 0.05), **kw)
        lk.start()
        links.append(lk)
        return lk

    yield make
    for lk in links:
        lk.stop()


def test_one_event_per_cycle_with_antenna_uid_rssi(sim_reader, link):
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    r.place("b", sim_uid("A", "Kd"), 11)
    ev = Events()
    link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 3)
    cycles = ev.cycles()
    assert [c.cycle for c in cycles[:3]] == [1, 2, 3]
    assert {(u, a) for u, a, _ in cycles[0].reads} == {(sim_uid("A", "As"), 3), (sim_uid("A", "Kd"), 11)}
    assert ev.status()[0] == (True, f"answering on {r.device.link}")


def test_repeated_data_sets_are_one_read(sim_reader, link):
    from hw_sim.feig_reader import NoiseModel
    r = sim_reader(noise=NoiseModel(seed=1, repeat=1.0))
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 2)
    assert all(len(c.reads) == 1 for c in ev.cycles())


def test_corrupt_and_truncated_answers_are_counted_logged_and_skipped(sim_reader, link, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 2)
    r.corrupt_next = 2
    r.truncate_next = 1
    r.garbage_next = b"\x00\x13\x37"
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= n + 5)
    assert lk.stats.frames_bad >= 3
    assert lk.stats.online
    assert ev.status() == [(True, ev.status()[0][1])]  # never went offline
    logged = [rec.getMessage() for rec in caplog.records]
    assert any(m.startswith("reader: corrupt frame skipped (crc mismatch") for m in logged), logged
    # the raw bytes are in the log line, as hex
    assert any(" 00 13 37" in m or "00 13 37 " in m for m in logged), logged
    # every cycle that did arrive is whole: the tag is in it
    assert all(c.reads[0][0] == sim_uid("A", "As") for c in ev.cycles()[n:])


def test_an_error_status_drops_the_cycle_instead_of_reporting_an_empty_table(sim_reader, link):
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 2)
    r.error_status_next = 3
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= n + 3)
    assert all(c.reads for c in ev.cycles())  # no empty cycle was emitted
    assert r.error_status_next == 0


def test_heartbeat_loss_goes_offline_then_recovers(sim_reader, link):
    r = sim_reader()
    ev = Events()
    link(ev, max_timeouts=2)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 1)
    r.mute = True
    ev.wait(lambda items: any(isinstance(e, DeviceStatus) and not e.online for e in items))
    assert ev.status()[-1] == (False, "no answer to 2 inventories")
    r.mute = False
    ev.wait(lambda items: isinstance(items[-1], ReaderCycle) and ev.status()[-1][0])


def test_unplugged_device_reconnects_with_backoff(sim_reader, link):
    r = sim_reader()
    ev = Events()
    lk = link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 1)
    r.unplug()
    ev.wait(lambda items: any(isinstance(e, DeviceStatus) and not e.online for e in items))
    assert "Input/output error" in ev.status()[-1][1] or "read failed" in ev.status()[-1][1]
    r.plug()
    ev.wait(lambda items: [s for s, _ in ev.status()] == [True, False, True])
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= n + 2)
    assert lk.stats.reconnects >= 1
    cyc = [c.cycle for c in ev.cycles()]
    assert cyc == sorted(cyc) and len(set(cyc)) == len(cyc)  # numbering carries on


def test_a_port_missing_at_start_is_waited_for(tmp_path, link):
    from hw_sim.feig_reader import SimFeigReader
    from hw_sim.pty_device import PtyDevice
    ev = Events()
    link(ev)
    r = SimFeigReader(PtyDevice(tmp_path / "reader"), antennas=range(1, 14))
    try:
        r.start()
        ev.wait(lambda items: len([e for e in items if isinstance(e, ReaderCycle)]) >= 1)
        assert [s for s, _ in ev.status()] == [True]  # no offline before it was ever online
    finally:
        r.stop()


def test_backoff_is_bounded():
    b = Backoff(0.05, 2.0)
    delays = [b.next() for _ in range(12)]
    assert delays[:3] == [0.05, 0.1, 0.2] and max(delays) == 2.0 and delays[-1] == 2.0
