"""The daemon's ticks (controller/daemon/ticks.py): once a second while a device is offline or a
player clock counts down (FLOW-004), the first at once, then in phase; none otherwise. And the
daemon's loop itself sending them while a clock the floor called runs."""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace

import pytest

from controller.config.daemon import load_config
from controller.core.events import ClockCalled
from controller.daemon.main import Daemon
from controller.daemon.ticks import Ticks
from hw_sim.setup import write_setup
from rig.waiting import wait_until
from tests.unit.daemon.test_room_signal import deal


class Waiting:
    """A table as the tick schedule sees it: what it waits on, set by the test."""

    def __init__(self) -> None:
        self.devices_offline: set[str] = set()
        self.clock = False
        self.tournament = SimpleNamespace(clock_running=lambda: self.clock)


def ticked(ticks: Ticks, table: Waiting, instants) -> list[float]:
    return [t for t in instants if ticks.due(table, t)]


def test_no_tick_while_nothing_waits_on_time():
    table, ticks = Waiting(), Ticks()
    assert ticked(ticks, table, [0.0, 1.0, 2.5, 10.0]) == []
    assert ticks.wait(10.0, 0.2) == 0.2


def test_a_clock_ticks_at_once_then_every_second_in_phase_and_stops_with_the_clock():
    table, ticks = Waiting(), Ticks()
    table.clock = True
    # a loop that wakes every 0.25 s: a tick at the first turn, then one a second
    turns = [0.25 * i for i in range(17)]  # 0 .. 4 s
    assert ticked(ticks, table, turns) == [0.0, 1.0, 2.0, 3.0, 4.0]
    table.clock = False
    assert ticked(ticks, table, [5.1, 6.1]) == []


def test_a_slow_turn_sends_one_tick_and_keeps_the_phase():
    table, ticks = Waiting(), Ticks()
    table.clock = True
    assert ticked(ticks, table, [0.0, 3.7, 3.9, 4.0, 4.5, 5.0]) == [0.0, 3.7, 4.0, 5.0]


def test_the_loop_waits_no_longer_than_the_next_tick():
    table, ticks = Waiting(), Ticks()
    table.clock = True
    assert ticks.due(table, 10.0)
    assert ticks.wait(10.0, 0.2) == 0.2
    assert ticks.wait(10.9, 0.2) == pytest.approx(0.1)
    assert ticks.wait(11.05, 0.2) == 0.0  # overdue: do not block at all


def test_a_device_offline_ticks_and_a_clock_called_meanwhile_starts_its_own_phase():
    table, ticks = Waiting(), Ticks()
    table.devices_offline = {"reader"}
    assert ticked(ticks, table, [0.0, 0.5, 1.0, 1.6]) == [0.0, 1.0]
    table.clock = True  # called at 1.6: its seconds are counted from its own first tick
    assert ticked(ticks, table, [1.6, 2.0, 2.6, 3.0, 3.6]) == [1.6, 2.6, 3.6]
    table.clock = False  # the clock over, the device still away: ticks go on
    assert ticked(ticks, table, [4.6, 5.6]) == [4.6, 5.6]
    table.devices_offline = set()
    assert ticked(ticks, table, [6.6, 7.6]) == []


@pytest.mark.slow
def test_the_daemons_loop_ticks_while_a_clock_the_floor_called_runs(tmp_path):
    """A real daemon's loop (Daemon.run, on its own thread) and a real table: no device is
    offline, a hand under way, the floor calls the clock on seat 4: ticks reach the journal."""
    cfg = write_setup(tmp_path, journal=True, console=False)
    d = Daemon(load_config(cfg), sinks=[])
    d.recover()
    run = threading.Thread(target=d.run, daemon=True)
    run.start()
    try:
        def ticks() -> list[dict]:
            rows = d.journal.with_db(lambda db: db.execute("SELECT data FROM events WHERE type = 'Tick'").fetchall())
            return [json.loads(r[0]) for r in rows]

        deal(d, [("As", 1), ("Kd", 2), ("7c", 3), ("2h", 4)], ts=d.clock())  # seat 4 holds a card
        wait_until(lambda: d.table.hand is not None and 4 in d.table.hand.live_seats(), 10, what="the deal")
        assert ticks() == []
        mono, boot = d.mono()
        d.submit(ClockCalled(d.clock(), 4, mono=mono, boot=boot, n=1))
        wait_until(lambda: len(ticks()) >= 3, 10, what="three ticks while the clock runs")
        monos = [t["mono"] for t in ticks()]
        assert all(b > a for a, b in zip(monos, monos[1:], strict=False))
    finally:
        d._stop.set()
        run.join(10)
        d.journal.close()
