"""Durations on the monotonic clock (issue 12): a Pi has no clock until NTP answers, and its
wall time jumps at boot. The offline timer (hot-plug) and the shuffler-fault timer (SHUF-004)
measure on the monotonic reading the shell puts on the events (``mono``, ``boot``); wall time
(``ts``) stays in the records. Journal rows and states of earlier releases still replay.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from pathlib import Path

import pytest

from controller.core.effects import Alert
from controller.core.events import DeviceStatus, ShufflerStatus, Tick, event_from_dict, event_to_dict
from controller.config.daemon import load_config
from controller.daemon.main import Daemon
from hw_sim.harness import CYCLE_S, Harness
from controller.core.settings import RuleSettings
from controller.core.state import StateError
from controller.core.table import Table
from firmware_bridge.clock import BOOT, boot_id
from hw_sim.script import parse_script
from hw_sim.setup import write_setup
from tests.unit.core.test_state import DATA, SETTINGS, random_events
from tests.unit.core.test_table import Feeder, registry
from rig.waiting import wait_until

YEAR = 365 * 86400.0
JUMPS = pytest.mark.parametrize("jump", [YEAR, -YEAR], ids=["wall-forward-a-year", "wall-back-a-year"])


def codes(out):
    return [(a.code, a.audience) for a in out if isinstance(a, Alert)]


# -- the core: the offline timer ----------------------------------------------------------------
@JUMPS
def test_a_wall_clock_jump_neither_fires_nor_holds_back_the_offline_timer(jump):
    t = Feeder(rules=RuleSettings(offline_floor_after=60.0)).table
    assert codes(t.apply(DeviceStatus(1000.0, "reader", False, "unplugged", mono=50.0, boot="b1"))) == \
        [("device.reader_offline", "dealer")]
    # one second later by the monotonic clock, a year away by the wall clock: not yet
    assert t.apply(Tick(1000.0 + jump, mono=51.0, boot="b1")) == []
    assert t.apply(Tick(1058.0 + jump, mono=109.0, boot="b1")) == []
    # sixty seconds on the monotonic clock, whatever the wall clock says (set back again)
    out = t.apply(Tick(1059.0 - jump, mono=110.0, boot="b1"))
    assert codes(out) == [("device.reader_still_offline", "floor")]
    assert out[0].message == "reader offline for 60 s: check its cable"
    assert out[0].ts == 1059.0 - jump  # the record keeps wall time
    assert t.apply(Tick(1100.0, mono=200.0, boot="b1")) == []  # once


def test_a_reading_of_another_boot_starts_the_offline_timer_again_never_fires_it():
    """After a reboot the monotonic clock starts again: its readings are not compared with the
    last boot's, whether they are smaller or larger; the timer counts from the new boot's first."""
    t = Feeder(rules=RuleSettings(offline_floor_after=60.0)).table
    t.apply(DeviceStatus(1000.0, "reader", False, "unplugged", mono=50.0, boot="b1"))
    assert t.apply(Tick(1500.0, mono=400.0, boot="b2")) == []  # 350 s "later", but another boot
    assert t.apply(Tick(1559.0, mono=459.0, boot="b2")) == []
    assert codes(t.apply(Tick(1560.0, mono=460.0, boot="b2"))) == [("device.reader_still_offline", "floor")]
    t2 = Feeder(rules=RuleSettings(offline_floor_after=60.0)).table
    t2.apply(DeviceStatus(1000.0, "reader", False, "unplugged", mono=5000.0, boot="b1"))
    assert t2.apply(Tick(1001.0, mono=3.0, boot="b2")) == []  # smaller: no negative wait either
    assert codes(t2.apply(Tick(1063.0, mono=63.0, boot="b2"))) == [("device.reader_still_offline", "floor")]


def test_journal_rows_of_an_earlier_release_replay_as_they_played_on_wall_time():
    rows = ['{"type":"DeviceStatus","ts":100.0,"device":"reader","online":false,"detail":"unplugged"}',
            '{"type":"Tick","ts":159.0}', '{"type":"Tick","ts":160.5}']
    events = [event_from_dict(json.loads(r)) for r in rows]
    assert [e.mono for e in events] == [None, None, None]
    t = Feeder(rules=RuleSettings(offline_floor_after=60.0)).table
    out = [codes(t.apply(e)) for e in events]
    assert out == [[("device.reader_offline", "dealer")], [], [("device.reader_still_offline", "floor")]]


def test_a_timer_begun_by_an_old_row_starts_again_at_the_first_monotonic_reading():
    t = Feeder(rules=RuleSettings(offline_floor_after=60.0)).table
    t.apply(event_from_dict({"type": "DeviceStatus", "ts": 100.0, "device": "reader", "online": False}))
    assert t.apply(Tick(100.0 + YEAR, mono=7.0, boot="b1")) == []  # would have fired on wall time
    assert t.apply(Tick(100.0 + YEAR, mono=66.0, boot="b1")) == []
    assert codes(t.apply(Tick(101.0 + YEAR, mono=67.0, boot="b1"))) == [("device.reader_still_offline", "floor")]


def test_the_monotonic_reading_goes_to_the_journal_row_and_back_and_is_checked():
    ev = Tick(5.0, mono=12.25, boot="0a1b2c3d")
    row = event_to_dict(ev)
    assert row == {"type": "Tick", "ts": 5.0, "mono": 12.25, "boot": "0a1b2c3d"}
    assert event_from_dict(json.loads(json.dumps(row))) == ev
    assert "mono" not in event_to_dict(Tick(5.0))  # events without one: rows as they were
    from controller.daemon.journal import decode_event
    with pytest.raises(ValueError, match="mono"):
        decode_event('{"type":"Tick","ts":5.0,"mono":"soon"}', 7)
    with pytest.raises(ValueError, match="not a finite number"):
        decode_event('{"type":"Tick","ts":5.0,"mono":NaN}', 7)


# -- the core: the shuffler-fault timer (SHUF-004) ------------------------------------------------
@JUMPS
def test_a_wall_clock_jump_neither_fires_nor_holds_back_the_shuffler_fault_timer(jump):
    t = Feeder(rules=RuleSettings(shuffler_floor_after=30.0)).table
    assert codes(t.apply(ShufflerStatus(1000.0, "shuffler", "jam", mono=10.0, boot="b1"))) == \
        [("shuffler.jam", "dealer")]
    assert t.apply(ShufflerStatus(1000.0 + jump, "shuffler", "jam", mono=12.0, boot="b1")) == []
    assert t.apply(ShufflerStatus(1027.0 + jump, "shuffler", "jam", mono=39.0, boot="b1")) == []
    out = t.apply(ShufflerStatus(1030.0 - jump, "shuffler", "jam", mono=40.0, boot="b1"))
    assert codes(out) == [("shuffler.fault_persists", "floor")]
    assert "jam for 30 s" in out[0].message


# -- the table's state: version 3 keeps the readings; versions 1 and 2 migrate ---------------------
def test_the_state_written_by_release_3_still_loads_with_its_timers_running():
    state = json.loads((DATA / "v3-mid-hand.json").read_text())
    assert state["version"] == 3
    table = Table.from_state(state, SETTINGS)
    assert table.hand is not None and table.hand.number == 2
    assert table.devices._offline_since["reader"][2:] == [5000.0, "5eed0001"]
    assert table.devices._shuffler_fault is not None and table.devices._shuffler_fault[3:] == [5000.1, "5eed0001"]
    # the wall clock set a year on: nothing; sixty seconds on the monotonic clock: the floor
    assert table.apply(Tick(YEAR, mono=5001.0, boot="5eed0001")) == []
    assert codes(table.apply(Tick(YEAR, mono=5060.0, boot="5eed0001"))) == [("device.reader_still_offline", "floor")]
    assert codes(table.apply(ShufflerStatus(0.0, "shuffler", "jam", mono=5030.1, boot="5eed0001"))) == \
        [("shuffler.fault_persists", "floor")]


def test_a_release_2_state_with_timers_running_migrates_and_its_timers_start_again():
    state = json.loads((DATA / "v2-mid-hand.json").read_text())
    state["table"]["devices_offline"] = {"s": ["reader"]}
    state["table"]["_offline_since"] = {"d": {"reader": [191.5, False]}}
    state["table"]["_shuffler_fault"] = ["door_open", 190.0, False]
    table = Table.from_state(state, SETTINGS)
    assert table.devices._offline_since == {"reader": [191.5, False, None, None]}
    assert table.devices._shuffler_fault == ["door_open", 190.0, False, None, None]
    assert table.apply(Tick(191.5 + YEAR, mono=3.0, boot="b1")) == []  # restarted, not fired
    assert codes(table.apply(Tick(192.0 + YEAR, mono=63.0, boot="b1"))) == [("device.reader_still_offline", "floor")]


def test_a_timer_of_the_wrong_shape_in_a_state_is_refused_in_one_line():
    state = json.loads((DATA / "v3-mid-hand.json").read_text())
    state["table"]["_offline_since"]["d"]["reader"] = [1.0, False, "soon", None]
    with pytest.raises(StateError, match=r"_offline_since.reader: want \[since, told, mono, boot\]"):
        Table.from_state(state, SETTINGS)


def test_the_random_sessions_round_trip_with_readings():
    """States with monotonic timers running go through JSON and on as the original."""
    events = []
    for ev in random_events(5):
        if isinstance(ev, (DeviceStatus, Tick, ShufflerStatus)):
            ev = type(ev)(**{**{f: getattr(ev, f) for f in ev.__dataclass_fields__}, "mono": ev.ts, "boot": "b"})
        events.append(ev)
    a = Table(SETTINGS, registry())
    cut = len(events) // 2
    for ev in events[:cut]:
        a.apply(ev)
    b = Table.from_state(json.loads(json.dumps(a.to_state())), SETTINGS)
    assert [e for ev in events[cut:] for e in b.apply(ev)] == [e for ev in events[cut:] for e in a.apply(ev)]


# -- the shell: the daemon's own code stamps the readings ------------------------------------------
def _harness(**kw) -> Harness:
    script = parse_script('{"format": 1, "game": "holdem", "seats": [1, 2], "button": 2, '
                          '"hands": [{"steps": [{"deal": "As", "to": "seat:1"}]}]}')
    h = Harness(script, console=False, **kw)
    h.start()
    return h


def _run_until_mono(h: Harness, until: float) -> None:
    while h.clock.monotonic()[0] < until:
        h.cycle()


def _alerts(h: Harness, code: str) -> list:
    return [e for _, e in h.recorders["floor"].effects if isinstance(e, Alert) and e.code == code]


@JUMPS
def test_through_the_harness_a_reader_gone_is_told_to_the_floor_after_60_monotonic_seconds(jump):
    h = _harness()
    h.reader_end.close()  # the cable pulled
    h.cycle()
    offline = _alerts(h, "device.reader_offline")
    assert len(offline) == 1
    m0 = h.clock.monotonic()[0]
    h.clock.set_wall(jump)  # NTP answers: the wall clock moves a year
    _run_until_mono(h, m0 + 59.0)
    assert _alerts(h, "device.reader_still_offline") == []
    _run_until_mono(h, m0 + 62.0)
    told = _alerts(h, "device.reader_still_offline")
    assert len(told) == 1 and told[0].message in ("reader offline for 60 s: check its cable",
                                                  "reader offline for 61 s: check its cable")


@JUMPS
def test_through_the_harness_a_jam_is_told_to_the_floor_after_30_monotonic_seconds(jump):
    h = _harness()
    assert h.shuffler is not None
    h.shuffler.jam()
    m0 = h.clock.monotonic()[0]
    _run_until_mono(h, m0 + 10 * CYCLE_S * 2)  # a status poll or two
    assert len(_alerts(h, "shuffler.jam")) == 1
    h.clock.set_wall(jump)
    _run_until_mono(h, m0 + 28.0)
    assert _alerts(h, "shuffler.fault_persists") == []
    _run_until_mono(h, m0 + 34.0)
    assert len(_alerts(h, "shuffler.fault_persists")) == 1


@pytest.mark.slow
def test_the_daemons_ticks_carry_this_boots_monotonic_reading_to_the_journal(tmp_path):
    cfg = write_setup(tmp_path, console=False, journal=True)  # no pseudo-terminal at tmp_path/reader: offline
    d = Daemon(load_config(cfg))
    assert d.journal is not None
    d.start()
    loop = threading.Thread(target=d.run, daemon=True)
    before = time.monotonic()
    loop.start()
    try:
        def ticks() -> list[dict]:
            db = sqlite3.connect(d.journal.path)  # type: ignore[union-attr]
            try:
                rows = db.execute("SELECT data FROM events WHERE type IN ('Tick', 'DeviceStatus')").fetchall()
            finally:
                db.close()
            return [json.loads(r[0]) for r in rows]
        wait_until(lambda: any(r["type"] == "Tick" for r in ticks()), 15, what="a tick in the journal")
        rows = ticks()
    finally:
        d.stop()
        loop.join(5)
    assert {r["boot"] for r in rows} == {BOOT}
    status = next(r for r in rows if r["type"] == "DeviceStatus")
    tick = next(r for r in rows if r["type"] == "Tick")
    assert status["online"] is False and 0 < status["mono"] <= tick["mono"] <= time.monotonic()
    assert tick["mono"] >= before
    assert abs(tick["ts"] - time.time()) < 3600  # and wall time, for the records


def test_the_boot_id_is_linuxs_and_one_unreadable_is_never_shared(tmp_path):
    f = tmp_path / "boot_id"
    f.write_text("3F2504E0-4F89-11D3-9A0C-0305E82C3301\n")
    assert boot_id(str(f)) == "3f2504e0"
    f.write_text("garbage\n")
    assert boot_id(str(f)) != boot_id(str(f))
    if Path("/proc/sys/kernel/random/boot_id").exists():
        assert BOOT == Path("/proc/sys/kernel/random/boot_id").read_text().replace("-", "")[:8]
