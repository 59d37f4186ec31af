"""The shuffler link against the simulated shuffler on a real pseudo-terminal: handshake, deck
reports and their acknowledgement, fault statuses, heartbeat loss, unplugging, corrupt frames and
an incompatible version."""

from __future__ import annotations

import logging
import random
import threading
import time

import pytest

from controller.core.cards import setup_order
from firmware_bridge.events import LinkStatus, ShufflerCount, ShufflerState
from firmware_bridge.backoff import Backoff
from firmware_bridge.clock import BOOT
from firmware_bridge.shuffler_link import SerialShufflerLink, shuffler_port
from hw_sim.decks import sim_uid
from hw_sim.pty_device import PtyDevice
from hw_sim.shuffler import SimShuffler
from rig.waiting import wait_until

DECK = [sim_uid("A", str(card)) for card in setup_order()]
FAULT_REPEAT = 0.3


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
            assert self.cond.wait_for(lambda: pred(self), timeout), self.items[-8:]

    def of(self, kind):
        with self.cond:
            return [e for e in self.items if isinstance(e, kind)]

    def reports(self):
        return self.of(ShufflerCount)

    def states(self):
        return [e.state for e in self.of(ShufflerState)]

    def online(self):
        return [(e.online, e.detail) for e in self.of(LinkStatus)]


@pytest.fixture
def sim(tmp_path):
    sims = []

    def make(**kw):
        kw.setdefault("resend_interval", 0.1)
        s = SimShuffler(PtyDevice(tmp_path / "shuffler"), seed=len(sims), **kw)
        s.start()
        sims.append(s)
        return s

    yield make
    for s in sims:
        s.stop()


@pytest.fixture
def link(tmp_path):
    links = []

    def make(events, url=None, **kw):
        lk = SerialShufflerLink("shuffler", events, shuffler_port(url or str(tmp_path / "shuffler")),
                                poll_interval=0.05, answer_timeout=0.2, fault_repeat=FAULT_REPEAT,
                                backoff=Backoff(0.01, 0.05), clock=time.monotonic, **kw)
        lk.start()
        links.append(lk)
        return lk

    yield make
    for lk in links:
        lk.stop()


def connected(sim, link, **kw):
    ev = Events()
    lk = link(ev, **kw)
    ev.wait(lambda e: e.states()[:1] == ["ready"])
    return ev, lk


def test_handshake_then_ready_status(sim, link, tmp_path):
    s = sim()
    ev, lk = connected(s, link)
    assert ev.online() == [(True, f"protocol 1.0 on {tmp_path / 'shuffler'}")]
    assert isinstance(ev.items[0], LinkStatus) and ev.items[1] == ShufflerState(
        ev.items[1].ts, "shuffler", "ready", None, "ready", ev.items[1].mono, BOOT)
    assert ev.items[0].boot == BOOT and 0 < ev.items[0].mono <= ev.items[1].mono <= time.monotonic()
    assert s.host_version == (1, 0)
    assert lk.stats.version == (1, 0) and lk.stats.ident == "tablectl SimShuffler" and lk.stats.online


def test_a_full_deck_report_arrives_once_with_the_uids_in_order(sim, link):
    s = sim()
    ev, lk = connected(s, link)
    order = DECK[:]
    random.Random(7).shuffle(order)
    seq = s.shuffle(order)
    assert s.wait_acked(seq, timeout=10)
    ev.wait(lambda e: len(e.reports()) == 1)
    assert s.wait_polls(5, timeout=10)  # time for a duplicate to show up, were there one
    [report] = ev.reports()
    assert (report.device, report.count, report.uids, report.seq) == ("shuffler", 52, tuple(order), seq)
    assert s.resends == 0 and lk.stats.reports == 1 and lk.stats.duplicates == 0


def test_a_short_deck_and_a_count_only_report(sim, link):
    s = sim()
    ev, _ = connected(s, link)
    first = s.shuffle(DECK[:51])
    second = s.shuffle(count=52)
    third = s.shuffle(DECK[:2], count=3)  # a card counted whose tag was not read
    assert s.wait_acked(third, timeout=10)
    ev.wait(lambda e: len(e.reports()) == 3)
    got = [(r.seq, r.count, r.uids) for r in ev.reports()]
    assert got == [(first, 51, tuple(DECK[:51])), (second, 52, None), (third, 3, tuple(DECK[:2]))]


def test_a_counting_only_shuffler_reports_counts(sim, link):
    s = sim(reads_tags=False)
    ev, _ = connected(s, link)
    assert s.wait_acked(s.shuffle(DECK), timeout=10)
    ev.wait(lambda e: len(e.reports()) == 1)
    assert (ev.reports()[0].count, ev.reports()[0].uids) == (52, None)


def test_a_lost_acknowledgement_makes_the_shuffler_resend_and_the_report_is_emitted_once(sim, link):
    s = sim()
    ev, lk = connected(s, link)
    s.lose_acks = 2
    seq = s.shuffle(DECK)
    assert s.wait_acked(seq, timeout=10)
    assert s.resends >= 2 and s.lose_acks == 0
    assert lk.stats.duplicates >= 2
    assert [r.seq for r in ev.reports()] == [seq]
    following = s.shuffle(count=52)  # and the next report is taken as new
    assert s.wait_acked(following, timeout=10)
    ev.wait(lambda e: [r.seq for r in e.reports()] == [seq, following])


@pytest.mark.slow
def test_faults_are_emitted_repeated_while_they_last_and_cleared(sim, link):
    s = sim()
    ev, _ = connected(s, link)
    s.jam()
    ev.wait(lambda e: e.states().count("jam") >= 3)
    jams = [x for x in ev.of(ShufflerState) if x.state == "jam"]
    gaps = [b.ts - a.ts for a, b in zip(jams, jams[1:], strict=False)]
    assert all(g >= FAULT_REPEAT * 0.8 for g in gaps), gaps  # not at every poll (0.05 s)
    assert {(x.code, x.detail) for x in jams} == {(None, "jam")}
    s.clear()
    ev.wait(lambda e: e.states()[-1] == "ready")
    s.door_open()
    ev.wait(lambda e: e.states().count("door_open") >= 2)
    s.error(0x0102)
    ev.wait(lambda e: e.states()[-1] == "error")
    s.error(0xFF01)  # another code is a change: emitted at once
    ev.wait(lambda e: e.of(ShufflerState)[-1].code == 0xFF01)
    errors = [x for x in ev.of(ShufflerState) if x.state == "error"]
    assert (errors[0].code, errors[0].detail) == (0x0102, "error code 0x0102 (maker)")
    assert errors[-1].detail == "error code 0xFF01 (bridge: no answer from the shuffler)"
    s.clear()
    ev.wait(lambda e: e.states()[-1] == "ready")
    n = len(ev.states())
    assert s.wait_polls(10, timeout=10)
    assert len(ev.states()) == n  # ready is not repeated
    assert ev.online() == [(True, ev.online()[0][1])]  # faults never took the link down


def test_shuffling_is_seen_around_a_slow_shuffle(sim, link):
    s = sim()
    ev, _ = connected(s, link)
    seq = s.shuffle(DECK, duration=0.5)
    assert s.wait_acked(seq, timeout=10)
    ev.wait(lambda e: e.states()[-1] == "ready" and "shuffling" in e.states())
    assert ev.states() == ["ready", "shuffling", "ready"]


@pytest.mark.slow
def test_a_mute_shuffler_goes_offline_then_comes_back(sim, link):
    s = sim()
    ev, _ = connected(s, link)
    s.mute = True
    ev.wait(lambda e: [o for o, _ in e.online()] == [True, False])
    assert ev.online()[-1] == (False, "no answer to 3 status polls")
    s.mute = False
    ev.wait(lambda e: [o for o, _ in e.online()] == [True, False, True])
    ev.wait(lambda e: e.states()[-1] == "ready" and len(e.states()) == 2)  # the new session's status


@pytest.mark.slow
def test_a_shuffler_mute_from_the_start_is_reported(sim, link):
    s = sim()
    s.mute = True
    ev = Events()
    link(ev)
    ev.wait(lambda e: e.online() != [])
    assert ev.online() == [(False, "no answer to 3 handshakes")]
    s.mute = False
    ev.wait(lambda e: [o for o, _ in e.online()] == [False, True] and e.states() == ["ready"])


def test_unplugged_then_plugged_back_and_reports_flow_again(sim, link):
    s = sim()
    ev, lk = connected(s, link)
    s.unplug()
    ev.wait(lambda e: [o for o, _ in e.online()] == [True, False])
    assert any(word in ev.online()[-1][1] for word in ("read failed", "write failed", "not found"))
    seq = s.shuffle(DECK)  # shuffled while the cable is out: the bridge keeps the report
    s.plug()
    assert s.wait_acked(seq, timeout=10)
    ev.wait(lambda e: [o for o, _ in e.online()] == [True, False, True] and len(e.reports()) == 1)
    assert ev.reports()[0].uids == tuple(DECK)
    assert lk.stats.reconnects >= 1


def test_a_shuffler_missing_at_start_is_waited_for(tmp_path, link):
    ev = Events()
    link(ev)
    s = SimShuffler(PtyDevice(tmp_path / "shuffler"))
    try:
        s.start()
        ev.wait(lambda e: e.states() == ["ready"])
        assert [o for o, _ in ev.online()] in ([True], [False, True])  # reported once at most
    finally:
        s.stop()


def test_corrupt_frames_are_counted_logged_and_skipped(sim, link, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    s = sim()
    ev, lk = connected(s, link)
    s.garbage_next = b"\x00\x13\x37"
    s.corrupt_next = 2  # the first is reported with the garbage before it: one run of dropped bytes
    wait_until(lambda: s.corrupt_next == 0 and lk.stats.frames_bad >= 2, what="two damaged frames counted")
    s.corrupt_next = 1  # the next frame is the report: damaged, then resent intact
    seq = s.shuffle(DECK[:10], count=10)
    assert s.wait_acked(seq, timeout=10)
    ev.wait(lambda e: len(e.reports()) == 1)
    assert s.resends >= 1 and ev.reports()[0].uids == tuple(DECK[:10])
    assert lk.stats.online and ev.online() == [(True, ev.online()[0][1])]  # never went offline
    logged = [rec.getMessage() for rec in caplog.records]
    assert any(m.startswith("shuffler: corrupt frame skipped (CRC mismatch): ") for m in logged), logged
    assert any(m.startswith("shuffler: corrupt frame skipped (no start byte): ") for m in logged), logged
    # never the bytes: not the garbage, not a UID of the damaged report
    text = "\n".join(logged).upper()
    assert "00 13 37" not in text and "001337" not in text
    assert not [u for u in DECK[:10] if u.upper() in text.replace(" ", "")], logged


def test_an_incompatible_version_is_refused_and_logged(sim, link, caplog):
    caplog.set_level(logging.INFO, logger="tablectl.bridge")
    s = sim(version=(2, 0))
    s.shuffle(DECK)
    ev = Events()
    lk = link(ev)
    ev.wait(lambda e: e.online() != [])
    assert ev.online() == [(False, "refused: the shuffler speaks protocol version 2.0, this host speaks 1.x "
                                   "(1.0); update the bridge firmware or tablectl")]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert errors
    assert errors[0].getMessage().startswith("shuffler: refused: the shuffler speaks protocol version 2.0")
    assert s.host_version == (1, 0)
    wait_until(lambda: s.requests >= 3, what="three HELLOs")  # it keeps trying, with backoff, and logs the refusal once
    assert len([r for r in caplog.records if r.levelno == logging.ERROR]) == 1
    assert ev.states() == [] and ev.reports() == [] and s.pending == 1  # nothing taken from it
    s.version = (1, 4)  # the bridge is re-flashed: a later minor is welcome
    ev.wait(lambda e: e.states() == ["ready"] and len(e.reports()) == 1)
    assert ev.online()[-1] == (True, f"protocol 1.4 on {lk.port_settings.url}")


def test_a_restarted_shuffler_is_met_with_a_new_handshake_and_its_reports_are_new(sim, link, caplog):
    caplog.set_level(logging.WARNING, logger="tablectl.bridge")
    s = sim()
    ev, _ = connected(s, link)
    first = s.shuffle(DECK)
    assert s.wait_acked(first, timeout=10)
    s.reboot()  # the polls get NAK "no session"; the link shakes hands again
    again = s.shuffle(count=51)
    assert again == first == 1  # a new boot numbers its reports from 1 again
    assert s.wait_acked(again, timeout=10)
    ev.wait(lambda e: [(r.seq, r.count) for r in e.reports()] == [(1, 52), (1, 51)])
    s.lose_acks = 10 ** 6  # a report the host never acknowledges is lost in the next reboot
    lost = s.shuffle(count=50)
    s.reboot()
    assert not s.wait_acked(lost, timeout=0.01)
    assert any("the shuffler restarted" in r.getMessage() for r in caplog.records)
    assert [o for o, _ in ev.online()] == [True]


def test_a_report_whose_emit_failed_is_not_lost(sim, link, caplog):
    """Anything unforeseen restarts the link; the report was not acknowledged, so it comes again."""
    caplog.set_level(logging.ERROR, logger="tablectl.bridge")
    s = sim()
    ev = Events()
    failed = []

    def emit(e):
        if isinstance(e, ShufflerCount) and not failed:
            failed.append(e)
            raise RuntimeError("queue full")
        ev(e)

    lk = link(emit)
    ev.wait(lambda e: e.states() == ["ready"])
    seq = s.shuffle(DECK)
    assert s.wait_acked(seq, timeout=10)
    ev.wait(lambda e: len(e.reports()) == 1)
    assert failed and ev.reports()[0].seq == seq
    assert [o for o, _ in ev.online()] == [True, False, True]
    assert ev.online()[1] == (False, "link failed unexpectedly; see the log")
    assert any(r.getMessage() == "shuffler: link failed unexpectedly; restarting it" for r in caplog.records)
    assert lk.stats.online


@pytest.mark.slow
def test_nobody_answering_on_a_loop_is_no_shuffler(link):
    """loop:// hands the host its own frames back (as an RS-485 echo would): they are ignored."""
    ev = Events()
    link(ev, url="loop://")
    ev.wait(lambda e: e.online() != [])
    assert ev.online() == [(False, "no answer to 3 handshakes")]


@pytest.mark.slow
def test_the_simulated_bridge_keeps_the_protocol(sim, tmp_path, monkeypatch):
    """The bridge's side of the contract, frame by frame, from a bare host."""
    from firmware_bridge import shuffler as sp
    from firmware_bridge.serial_port import open_port
    monkeypatch.setattr(sp, "HOST_GONE_S", 0.3)
    s = sim(resend_interval=0.05)
    decoder = sp.ShufflerDecoder()

    def ask(port, frame, want, timeout=5.0):
        port.write(frame)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for msg in decoder.feed(port.read(port.in_waiting or 1)):
                if isinstance(msg, want):
                    return msg
        raise AssertionError(f"no {want.__name__} in time")

    with open_port(shuffler_port(str(tmp_path / "shuffler")), device="shuffler") as port:
        assert ask(port, sp.encode_get_status(1), sp.Nak) == sp.Nak(1, sp.T_GET_STATUS, sp.NAK_NO_SESSION)
        seq = s.shuffle(count=52)
        reply = ask(port, sp.encode_hello(2), sp.HelloReply)
        assert (reply.seq, reply.major, reply.boot_id, reply.reads_tags) == (2, 1, s.boot_id, True)
        assert ask(port, b"", sp.DeckReport) == sp.DeckReport(seq, 52, None)  # sent at once after HELLO
        assert ask(port, sp.encode_frame(3, 0x05, b"\x01"), sp.Nak) == sp.Nak(3, 0x05, sp.NAK_UNKNOWN_TYPE)
        short_hello = sp.encode_frame(4, sp.T_HELLO, b"\x01")
        assert ask(port, short_hello, sp.Nak) == sp.Nak(4, sp.T_HELLO, sp.NAK_BAD_PAYLOAD)
        # Unacknowledged, the report is resent every 50 ms, until the host has been silent for 0.3 s:
        # over one silent second, some 6 resends rather than 20.
        wait_until(lambda: s.resends >= 3, what="three resends")
        silent_from, resent = time.monotonic(), 0
        while time.monotonic() - silent_from < 1.0:
            resent += sum(isinstance(m, sp.DeckReport) for m in decoder.feed(port.read(port.in_waiting or 1)))
        assert resent <= 8
        assert ask(port, sp.encode_get_status(5), sp.Status) == sp.Status(5, "ready", 0)
        assert ask(port, b"", sp.DeckReport).seq == seq  # the host spoke: the resends resume
        port.write(sp.encode_ack_report(seq))
        assert s.wait_acked(seq, timeout=5) and s.pending == 0
        assert s.bad_requests == 2
