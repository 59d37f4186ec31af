"""The reader link against the simulated reader on a real pseudo-terminal: cycles, faults,
heartbeat loss, unplugging and reconnecting with bounded backoff."""

import logging
import threading

import pytest

from firmware_bridge.events import LinkStatus, TagCycle
from firmware_bridge.backoff import Backoff
from firmware_bridge.reader_link import FeigReaderLink
from firmware_bridge.serial_port import PortSettings
from hw_sim.decks import sim_uid
from rig.waiting import wait_for


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
        return [e for e in self.items if isinstance(e, TagCycle)]

    def status(self):
        return [(e.online, e.detail) for e in self.items if isinstance(e, LinkStatus)]


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
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 3)
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
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 2)
    assert all(len(c.reads) == 1 for c in ev.cycles())


@pytest.mark.slow
def test_corrupt_and_truncated_answers_are_counted_logged_and_skipped(sim_reader, link, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 2)
    r.corrupt_next = 2
    r.truncate_next = 1
    r.garbage_next = b"\x00\x13\x37"
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= n + 5)
    assert lk.stats.frames_bad >= 3
    assert lk.stats.online
    assert ev.status() == [(True, ev.status()[0][1])]  # never went offline
    logged = [rec.getMessage() for rec in caplog.records]
    assert any(m.startswith("reader: corrupt frame skipped (CRC mismatch): ") for m in logged), logged
    # never the raw bytes: not the garbage, not the UID of the card in the damaged answers
    text = "\n".join(logged).upper()
    assert "00 13 37" not in text and "001337" not in text
    assert sim_uid("A", "As").upper() not in text.replace(" ", "")
    # every cycle that did arrive is whole: the tag is in it
    assert all(c.reads[0][0] == sim_uid("A", "As") for c in ev.cycles()[n:])


def test_an_error_status_drops_the_cycle_instead_of_reporting_an_empty_table(sim_reader, link):
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 2)
    r.error_status_next = 3
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= n + 3)
    assert all(c.reads for c in ev.cycles())  # no empty cycle was emitted
    assert r.error_status_next == 0


def test_heartbeat_loss_goes_offline_then_recovers(sim_reader, link):
    r = sim_reader()
    ev = Events()
    link(ev, max_timeouts=2)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 1)
    r.mute = True
    ev.wait(lambda items: any(isinstance(e, LinkStatus) and not e.online for e in items))
    assert ev.status()[-1] == (False, "no answer to 2 inventories")
    r.mute = False
    ev.wait(lambda items: isinstance(items[-1], TagCycle) and ev.status()[-1][0])


def test_unplugged_device_reconnects_with_backoff(sim_reader, link):
    r = sim_reader()
    ev = Events()
    lk = link(ev)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 1)
    r.unplug()
    ev.wait(lambda items: any(isinstance(e, LinkStatus) and not e.online for e in items))
    assert "Input/output error" in ev.status()[-1][1] or "read failed" in ev.status()[-1][1]
    r.plug()
    ev.wait(lambda items: [s for s, _ in ev.status()] == [True, False, True])
    n = len(ev.cycles())
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= n + 2)
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
        ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 1)
        assert [s for s, _ in ev.status()] in ([True], [False, True])  # reported once at most
    finally:
        r.stop()


def test_backoff_is_bounded():
    b = Backoff(0.05, 2.0)
    delays = [b.next() for _ in range(12)]
    assert delays[:3] == [0.05, 0.1, 0.2] and max(delays) == 2.0 and delays[-1] == 2.0


def test_a_reader_mute_from_the_start_is_reported(sim_reader, link):
    r = sim_reader()
    r.mute = True
    ev = Events()
    link(ev, max_timeouts=2)
    ev.wait(lambda items: any(isinstance(e, LinkStatus) for e in items))
    assert ev.status()[0] == (False, "no answer to 2 inventories")
    r.mute = False
    ev.wait(lambda items: ev.status()[-1][0] and any(isinstance(e, TagCycle) for e in items))


def test_a_reader_that_only_answers_errors_is_reported_and_the_log_is_not_flooded(sim_reader, link, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    ev = Events()
    lk = link(ev, max_unusable=5)
    ev.wait(lambda items: len([e for e in items if isinstance(e, TagCycle)]) >= 1)
    r.error_status_next = 250
    ev.wait(lambda items: ev.status()[-1][0] is False)
    assert ev.status()[-1][1] == "no usable answer in 5 inventories"
    ev.wait(lambda items: r.error_status_next == 0 and ev.status()[-1][0] is True, timeout=20)
    warnings = [m for m in (rec.getMessage() for rec in caplog.records) if "status 0x83" in m]
    assert 1 <= len(warnings) <= 4  # the first of the run, then one per hundred
    assert lk.stats.online


def test_a_late_answer_does_not_leave_the_client_one_answer_behind(sim_reader, tmp_path, caplog):
    """The reader answers after the deadline once; the next inventory discards the late bytes
    (the stale-bytes path, seen in the log) and gets its own answer."""
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    from firmware_bridge.errors import ResponseTimeout
    from firmware_bridge.feig_client import FeigClient
    from firmware_bridge.serial_port import open_port
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    with open_port(PortSettings(url=str(tmp_path / "reader"), parity="N"), device="reader") as port:
        client = FeigClient(port, device="reader")
        assert [t.uid for t in client.inventory(antennas=0x1FFF, deadline_s=1.0)] == [sim_uid("A", "As")]
        r.mute = True
        with pytest.raises(ResponseTimeout):
            client.inventory(antennas=0x1FFF, deadline_s=0.1)
        r.mute = False
        # the answer to the timed-out request arrives late, naming a card no longer there
        from firmware_bridge import feig
        late = feig.encode_inventory_reply(
            [feig.TagRecord(sim_uid("B", "2c"), 3, 0, (feig.AntennaRead(5, 0, 200),))], with_antennas=True)
        r.device.write(late)
        assert wait_for(lambda: port.in_waiting >= len(late), 5)  # the late bytes land in the port
        r.place("b", sim_uid("A", "Kd"), 4)
        caplog.clear()
        got = client.inventory(antennas=0x1FFF, deadline_s=1.0)
        assert {t.uid for t in got} == {sim_uid("A", "As"), sim_uid("A", "Kd")}
        # the late answer was thrown away whole before the request, not decoded as an answer
        discarded = [rec.getMessage() for rec in caplog.records if "late bytes discarded" in rec.getMessage()]
        assert discarded == [f"reader: {len(late)} late bytes discarded before a new inventory"]
        assert client.frames_bad == 0 and sim_uid("B", "2c") not in {t.uid for t in got}
