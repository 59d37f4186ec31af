"""The journal (issue 6): power cuts, replay, damage, history, the watchdog, hot-plug.

Real parts: SQLite files, the daemon as a subprocess killed with SIGKILL, a notify socket of the
test's own.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from controller.core.effects import Alert, HandFinished
from controller.core.events import ButtonPress, DeviceStatus, ReaderCycle, Tick
from controller.config.daemon import load_config
from controller.daemon.main import Daemon
from controller.daemon.journal import Journal
from controller.core.settings import RuleSettings, TableSettings
from controller.core.table import Table
from hw_sim.random_hands import random_session
from hw_sim.setup import write_setup
from tests.conftest import TABLECTL
from tests.dead_button import session_expectations
from tests.e2e.test_simulate_e2e import NOISE, expected_hand, simulate
from tests.unit.core.test_table import Feeder, deal_clean_hand, registry
from rig.waiting import wait_until


def step_kind(step: dict) -> str:
    """What a script step does, as a power cut after it finds the table: a card to a seat, the
    burn or the board, a muck, a pad press (by name), a hand's end.

    >>> [step_kind(s) for s in ({"deal": "As", "to": "seat:3"}, {"press": "seat_out", "seat": 2}, {"end": True})]
    ['deal to seat', 'press seat_out', 'end']
    """
    if "deal" in step:
        return "deal to " + step["to"].split(":")[0]
    if "press" in step:
        return "press " + step["press"]
    return next(iter(step))


def one_cut_after_each_kind(script: dict, gap: int = 7) -> list[int]:
    """``crash_after``: a power cut after the first step of each kind (:func:`step_kind`) that
    comes at least ``gap`` steps after the cut before, so that the cuts spread over the session
    and the daemon deals a while on each journal it started on. Every hand here ends with an
    ``end`` step, so the steps are numbered as ``crash_after`` counts them."""
    assert all(h["steps"][-1].get("end") for h in script["hands"])
    cuts: list[int] = []
    seen: set[str] = set()
    steps = (step for h in script["hands"] for step in h["steps"])
    for number, step in enumerate(steps, start=1):
        kind = step_kind(step)
        if kind not in seen and (not cuts or number - cuts[-1] >= gap):
            seen.add(kind)
            cuts.append(number)
    return cuts


def normal(report: dict) -> list[dict]:
    """A report with each muck sorted: cards folded together land in any order under noise,
    run to run, with or without a power cut."""
    hands = json.loads(json.dumps(report["hands"]))
    for h in hands:
        if "muck" in h["zones"]:
            h["zones"]["muck"].sort()
    return hands


# -- the power-cut test ------------------------------------------------------------------------
@pytest.mark.e2e
def test_ten_hands_with_a_power_cut_after_each_kind_of_step_report_as_without(tmp_path):
    """crash_after (deal-script.md): SIGKILL after the step, start again on the journal; the
    report equals the uninterrupted run's, hand by hand. A session of ten hands (three seats, one
    of them out before hand 6: heads-up and a dead button after it) cut after a card to a seat,
    a burn, a board card, a muck, a round's end, a seat out and a hand's end: each place a power
    cut can find the table once. (Fifty hands and twelve random cuts: bench/power_cuts.py.)"""
    script = random_session(2026, hands=10, game="holdem", noise=dict(NOISE, seed=26), eliminate=0.03)
    cuts = one_cut_after_each_kind(script)
    steps = [step_kind(st) for h in script["hands"] for st in h["steps"]]
    assert sorted(steps[c - 1] for c in cuts) == ["deal to board", "deal to burn", "deal to seat", "end", "muck",
                                                  "press round_done", "press seat_out"]
    plain = simulate(tmp_path / "plain", script)
    assert plain.returncode == 0, plain.stderr
    cut = simulate(tmp_path / "cut", dict(script, crash_after=cuts))
    assert cut.returncode == 0, cut.stderr
    want, got = json.loads(plain.stdout), json.loads(cut.stdout)
    assert len(got["hands"]) == 10
    assert normal(got) == normal(want)
    # and both are right: the buttons the dead-button rule gives, every card where it was dealt
    assert [h["button"] for h in got["hands"]] == [w.button for w in session_expectations(script)]
    for hand, rep in zip(script["hands"], normal(got), strict=True):
        exp = expected_hand(hand["steps"])
        assert sorted(exp["zones"].get("muck", [])) == rep["zones"].get("muck", [])
        assert {z: c for z, c in rep["zones"].items() if z != "muck"} == \
            {z: c for z, c in exp["zones"].items() if z != "muck"}


@pytest.mark.e2e
def test_a_power_cut_mid_hand_keeps_the_alerts_raised_before_it(tmp_path):
    from tests.rules_common import CLEAN, SEATS, BUTTON
    steps = [dict(s) for s in CLEAN]
    steps[3] = {"deal": "2h@B", "to": "seat:6"}  # a wrong-deck card at step 4
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": NOISE,
              "hands": [{"steps": steps}], "crash_after": [4, 12]}
    r = simulate(tmp_path, script)
    assert r.returncode == 0, r.stderr
    [hand] = json.loads(r.stdout)["hands"]
    assert [(a["code"], a["step"]) for a in hand["alerts"]] == [("deck.wrong_deck", 4), ("deck.new_setup", 4)]


# -- replay ------------------------------------------------------------------------------------
class JournalFeeder(Feeder):
    """A Feeder whose every event goes through a journal first, as the daemon's do."""

    def __init__(self, journal, **kw):
        super().__init__(**kw)
        self.journal, self.applied = journal, 0

    def _apply(self, event):
        eid = self.journal.append(event)
        effects = self.table.apply(event)
        self.journal.record(effects)
        if any(isinstance(e, HandFinished) for e in effects):
            self.journal.snapshot(eid, self.table, now=event.ts)
        self.applied += 1
        return effects

    def tick(self, n=1):
        for _ in range(n):
            self.cycle += 1
            reads = tuple((u, a, 200) for u, a in self.field.items())
            self.effects += self._apply(ReaderCycle(float(self.cycle), "reader", self.cycle, reads))

    def press(self, name, **kw):
        self.effects += self._apply(ButtonPress(float(self.cycle) + 0.5, name, **kw))


def test_a_table_rebuilt_from_snapshot_and_events_is_the_table(tmp_path):
    """Snapshot at each hand's end, the events after it replayed: the same state, mid-hand."""
    j = Journal(tmp_path / "j.sqlite3")
    j.open()
    f = JournalFeeder(j)
    deal_clean_hand(f)
    f.field.clear()
    f.tick(5)  # hand 1 ends: a snapshot
    f.put("As", 2)
    f.press("exposed")
    f.put("Kd", 4)
    eid, state = j.latest_snapshot()
    table = Table.from_state(state, f.table.settings)
    assert table.hands_finished == 1
    for _, ev in j.events_after(eid):
        table.apply(ev)
    assert table.snapshot() == f.table.snapshot()
    assert [a.code for a in table.hand.alerts] == [a.code for a in f.table.hand.alerts]
    assert len(list(j.events_after(0))) == f.applied  # one snapshot: its events stay, for the fallback
    assert [h["hand"] for h in j.hands()] == [1]


def test_history_older_than_the_retention_is_dropped_at_a_snapshot(tmp_path):
    j = Journal(tmp_path / "j.sqlite3", retention_days=1)
    j.open()
    j.record([HandFinished(1000.0, 1, {"hand": 1, "ended": 1000.0}),
              Alert(1000.0, "deck.wrong_deck", "floor", "x", hand=1)])
    j.record([HandFinished(100_000.0, 2, {"hand": 2, "ended": 100_000.0})])
    j.snapshot(0, Table(TableSettings(), registry()), now=100_000.0)
    assert [h["hand"] for h in j.hands()] == [2]


# -- damage ------------------------------------------------------------------------------------
def _journal_with(tmp_path, n: int, name: str = "j.sqlite3") -> Path:
    path = tmp_path / name
    j = Journal(path)
    j.open()
    for c in range(1, n + 1):
        j.append(ReaderCycle(float(c), "reader", c, ((f"E0040150A05F00{c % 52:02X}", 1, 200),)))
    j.close()  # checkpointed into the main file
    return path


def test_a_damaged_tail_is_cut_off_and_said_never_a_crash(tmp_path, caplog):
    path = _journal_with(tmp_path, 3000)
    size = path.stat().st_size
    with open(path, "r+b") as f:  # the last pages of the file are garbage (a dying SD card)
        f.seek(size - 16384)
        f.write(os.urandom(16384))
    j = Journal(path)
    info = j.open()
    assert info.damaged is not None and info.set_aside is not None
    assert 0 <= info.events < 3000
    assert Path(info.set_aside).exists()
    line = "; ".join(info.lost)
    assert str(path) in line and "bytes could not be read" in line and f"kept {info.events} events" in line
    eid = j.append(ButtonPress(9999.0, "sa"))  # and the journal goes on
    assert [e.name for i, e in j.events_after(eid - 1)] == ["sa"]


def test_a_file_that_is_no_database_is_set_aside(tmp_path, caplog):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"this is not SQLite" * 100)
    info = Journal(path).open()
    assert info.damaged and info.events == 0 and info.lost_bytes > 0


def test_the_daemon_starts_on_a_damaged_journal(tmp_path):
    cfg = write_setup(tmp_path, outputs='feed = "feed.jsonl"', journal=True, console=False)
    path = _journal_with(tmp_path, 200, "journal.sqlite3")  # where write_setup puts it
    path.write_bytes(path.read_bytes()[:-5000] + b"\0" * 10)
    proc = subprocess.Popen([*TABLECTL, "run", "--config", str(cfg)], stderr=subprocess.PIPE, text=True)
    try:
        feed = tmp_path / "feed.jsonl"
        wait_until(lambda: feed.exists() and "Ready" in feed.read_text(), 30, what="the daemon's Ready")
        assert proc.poll() is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "was damaged" in err and "could not be read" in err


# -- history -----------------------------------------------------------------------------------
@pytest.mark.e2e
def test_history_lists_and_exports_the_hands_with_their_alerts(tmp_path):
    from tests.rules_common import CLEAN, SEATS, BUTTON
    steps = [dict(s) for s in CLEAN]
    steps[3] = {"deal": "2h@B", "to": "seat:6"}
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": NOISE,
              "hands": [{"steps": CLEAN}, {"steps": steps}]}
    r = simulate(tmp_path, script, "--keep")
    assert r.returncode == 0, r.stderr
    work = Path(r.stderr.split("work folder kept: ")[1].split()[0])
    try:
        cfg = str(work / "tablectl.toml")
        out = subprocess.run([*TABLECTL, "history", "--config", cfg], capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        lines = out.stdout.splitlines()
        assert len(lines) == 2 and lines[0].startswith("hand    1") and "alerts: none" in lines[0]
        assert "deck.wrong_deck(DECK-006)" in lines[1] and "deck A" in lines[1]
        export = tmp_path / "hands.jsonl"
        out = subprocess.run([*TABLECTL, "history", "--config", cfg, "--jsonl", "--out", str(export)],
                             capture_output=True, text=True, timeout=30)
        assert out.returncode == 0, out.stderr
        recs = [json.loads(x) for x in export.read_text().splitlines()]
        assert [r["hand"] for r in recs] == [1, 2]
        assert [a["card"] for a in recs[1]["alerts"] if a["code"] == "deck.wrong_deck"] == ["2h@B"]
        assert oct(export.stat().st_mode & 0o777) == "0o600"
    finally:
        import shutil
        shutil.rmtree(work, ignore_errors=True)


def test_history_without_a_journal_says_so(tmp_path):
    cfg = write_setup(tmp_path, console=False)
    out = subprocess.run([*TABLECTL, "history", "--config", str(cfg)], capture_output=True, text=True, timeout=30)
    assert out.returncode == 2 and "no [journal] section" in out.stderr


# -- the watchdog ------------------------------------------------------------------------------
class NotifySocket:
    """systemd's end of sd_notify, for the test: every datagram, in order."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.05)
        self.messages: list[tuple[float, str]] = []

    def collect(self, seconds: float) -> list[str]:
        end = time.monotonic() + seconds
        got = []
        while time.monotonic() < end:
            try:
                got.append(self.sock.recv(4096).decode())
            except TimeoutError:
                continue
        return got

    def wait_for(self, text: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                if text in self.sock.recv(4096).decode():
                    return True
            except TimeoutError:
                continue
        return False


def test_the_watchdog_pings_while_the_loop_runs_and_stops_when_it_stalls(tmp_path, monkeypatch):
    ns = NotifySocket(tmp_path / "notify")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.setenv("WATCHDOG_USEC", "100000")  # WatchdogSec=100ms: a ping every 50 ms
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    cfg = write_setup(tmp_path, console=False)
    d = Daemon(load_config(cfg))
    assert d.watchdog_interval == pytest.approx(0.05)
    stall = threading.Event()
    release = threading.Event()
    real_apply = d.table.apply

    def apply(event):
        if isinstance(event, ButtonPress) and event.name == "floor":
            stall.set()
            release.wait(30)  # the core stuck on one event
        return real_apply(event)
    d.table.apply = apply
    d.start()
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    try:
        assert ns.wait_for("READY=1", 10)
        assert ns.wait_for("WATCHDOG=1", 5) and ns.wait_for("WATCHDOG=1", 5)
        d.submit(ButtonPress(time.time(), "floor"))
        assert stall.wait(5)
        quiet = ns.collect(0.5)  # ten watchdog periods' worth: systemd would have restarted us
        assert "WATCHDOG=1" not in quiet
        release.set()
        assert ns.wait_for("WATCHDOG=1", 5)  # the loop runs again: so do the pings
    finally:
        release.set()
        d.stop()
        loop.join(5)


def test_status_names_a_device_that_is_offline(tmp_path, monkeypatch):
    ns = NotifySocket(tmp_path / "notify")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    cfg = write_setup(tmp_path, console=False)  # no pseudo-terminal at tmp_path/reader: missing
    d = Daemon(load_config(cfg))
    d.start()
    try:
        ready = ns.collect(0.3)
        assert any("READY=1" in m and "STATUS=reader OFFLINE" in m for m in ready), ready
    finally:
        d.stop()


# -- hot-plug ----------------------------------------------------------------------------------
def test_a_device_gone_long_enough_is_told_to_the_floor_once_and_its_return_too():
    f = Feeder(rules=RuleSettings(offline_floor_after=60.0))
    out = f.table.apply(DeviceStatus(100.0, "reader", False, "unplugged"))
    assert [(a.code, a.audience) for a in out] == [("device.reader_offline", "dealer")]
    assert f.table.apply(Tick(159.0)) == []
    out = f.table.apply(Tick(160.5))
    assert [(a.code, a.audience) for a in out] == [("device.reader_still_offline", "floor")]
    assert f.table.apply(Tick(200.0)) == []
    out = f.table.apply(DeviceStatus(210.0, "reader", True))
    assert [(a.code, a.audience) for a in out] == [("device.reader_online", "dealer"), ("device.reader_back", "floor")]


def test_the_daemon_ticks_while_a_device_is_away_and_tells_the_floor(tmp_path):
    cfg = write_setup(tmp_path, outputs='feed = "feed.jsonl"', console=False,
                      table_extra="")
    text = cfg.read_text().replace("[reader]", "[rules]\noffline_floor_after = 0.5\n[reader]", 1)
    cfg.write_text(text)
    d = Daemon(load_config(cfg))
    d.start()
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    try:
        feed = tmp_path / "feed.jsonl"
        wait_until(lambda: "device.reader_still_offline" in feed.read_text(), 15, what="the floor alert")
        codes = [json.loads(x).get("code") for x in feed.read_text().splitlines()]
        assert "device.reader_offline" in codes and "device.reader_still_offline" in codes
        assert proc_alive(loop)
    finally:
        d.stop()
        loop.join(5)


def proc_alive(thread: threading.Thread) -> bool:
    return thread.is_alive()


def test_the_reader_cycle_reached_outlives_the_events_a_snapshot_drops(tmp_path):
    """A restarted reader link counts from 1: the daemon numbers on from the journal's last
    cycle, which must survive the snapshot that drops the events carrying it."""
    path = _journal_with(tmp_path, 50)
    j = Journal(path)
    j.open()
    assert j.last_cycle() == 50
    j.snapshot(40, Table(TableSettings(), registry()), now=1.0, last_cycle=40)
    j.snapshot(50, Table(TableSettings(), registry()), now=1.0, last_cycle=50)  # drops the events to #40
    assert [i for i, _ in j.events_after(0)] == list(range(41, 51))
    j.snapshot(50, Table(TableSettings(), registry()), now=2.0, last_cycle=50)  # (the same point again)
    j.snapshot(60, Table(TableSettings(), registry()), now=3.0, last_cycle=50)
    assert list(j.events_after(0)) == [] and j.last_cycle() == 50


def test_a_reader_link_started_again_continues_the_journals_cycle_numbers(tmp_path):
    """The reader counts its cycles from 1 after a restart; the journal's numbering goes on from
    the last cycle it holds (50 here), for every cycle the link reads, each journalled once."""
    import sqlite3

    from controller.config.daemon import parse_config
    from firmware_bridge.events import TagCycle

    path = _journal_with(tmp_path, 50)
    cfg = parse_config(f'[reader]\nport = "loop://"\n[journal]\npath = "{path}"\n', path=tmp_path / "t.toml")
    d = Daemon(cfg)
    d.recover()
    for c in (1, 2, 3):  # what the link hands on: its own events, numbered from 1
        d.reader.emit(TagCycle(ts=100.0 + c, device="reader", cycle=c, reads=(("E0040150A05F0001", 1, 200),)))
    queued = [d.events.get_nowait()[1] for _ in range(3)]
    d.stop()
    assert [e.cycle for e in queued] == [51, 52, 53]
    rows = sqlite3.connect(path).execute("SELECT data FROM events WHERE id > 50 ORDER BY id").fetchall()
    assert [json.loads(p)["cycle"] for (p,) in rows] == [51, 52, 53]


def test_an_accepted_command_is_journalled_with_the_peers_uid(tmp_path):
    """Issue 12: the control socket passes SO_PEERCRED's uid: daemon.submit(ev, peer_uid=uid)."""
    import sqlite3

    from controller.config.daemon import parse_config

    cfg = parse_config(f'[reader]\nport = "loop://"\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n',
                       path=tmp_path / "t.toml")
    d = Daemon(cfg)
    d.recover()
    d.submit(ButtonPress(1.0, "misdeal"), peer_uid=1001)
    d.submit(Tick(2.0))
    d.stop()
    rows = sqlite3.connect(tmp_path / "j.sqlite3").execute("SELECT type, peer_uid FROM events ORDER BY id").fetchall()
    assert rows == [("ButtonPress", 1001), ("Tick", None)]


def test_the_daemon_keeps_the_number_of_each_hand_begun_beside_the_journal(tmp_path):
    """Issue 12: hand numbers never repeat, whatever the journal's pages lose."""
    from controller.config.daemon import parse_config

    cfg = parse_config(f'[reader]\nport = "loop://"\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n',
                       path=tmp_path / "t.toml")
    d = Daemon(cfg)
    d.recover()
    for c in range(1, 6):
        d.submit(ReaderCycle(float(c), "reader", c, (("E0040150A05F0001", 1, 200),)))
        eid, event = d.events.get_nowait()
        d.handle(event, eid)
    assert d.table.hand is not None and d.table.hand.number == 1
    assert (tmp_path / "j.sqlite3.hands").read_text() == "1"
    assert oct((tmp_path / "j.sqlite3.hands").stat().st_mode & 0o777) == "0o600"
    d.stop()
