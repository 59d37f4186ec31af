"""The level clock as data (controller/floor/clock.py, FLOW-001): start, pause, resume, skip, add
time, and where it is at a given moment, against times worked out by hand; a restart of the
service (the same boot) and a reboot (the wall clock across it) resume it without drift."""

from __future__ import annotations

import json

import pytest

from controller.config.structure import Step, Structure
from controller.floor.clock import (ClockError, LevelClock, Moment, add, pause, resume, skip, start, until_change,
                                     view, where)

#: 20 minutes at 25/50, a 10 minute break, 20 minutes at 50/100 ante 10, 15 minutes at 100/200 (the last):
#: level 1 from 0 to 1200 s, the break to 1800, level 2 to 3000, level 3 to 3900 and on
S = Structure((Step("level", 1, 20, 25, 50, 0), Step("break", 2, 10), Step("level", 2, 20, 50, 100, 10),
               Step("level", 3, 15, 100, 200, 0)))
T0 = 1000.0  # the start's monotonic reading
WALL = 1_767_225_600.0


def at(seconds: float, boot: str = "b1", wall: float | None = None) -> Moment:
    """``seconds`` after the start, in boot ``boot`` (its wall clock as it runs, unless given)."""
    return Moment(T0 + seconds, boot, WALL + seconds if wall is None else wall)


def shows(c: LevelClock, seconds: float, **kw: object) -> tuple:
    v = view(S, c, at(seconds, **kw))  # type: ignore[arg-type]
    return v.level.kind, v.level.n, v.time_left, v.running


def test_the_clock_runs_through_the_structure_as_worked_out_by_hand():
    c = start(S, LevelClock(), at(0))
    assert shows(c, 0) == ("level", 1, 1200.0, True)
    v = view(S, c, at(0))
    assert (v.next.kind, v.to_break, v.last) == ("break", 1200.0, False)  # type: ignore[union-attr]
    assert shows(c, 1199) == ("level", 1, 1.0, True)
    assert shows(c, 1200) == ("break", 2, 600.0, True)
    v = view(S, c, at(1500))
    assert (v.time_left, v.next.big_blind, v.to_break) == (300.0, 100, None)  # type: ignore[union-attr]
    assert shows(c, 1800) == ("level", 2, 1200.0, True)
    assert shows(c, 2999.5) == ("level", 2, 0.5, True)
    assert shows(c, 3000) == ("level", 3, 900.0, True)
    # the last level lasts until the tournament ends: its time runs out and stays out
    assert shows(c, 3900) == ("level", 3, 0.0, True) and shows(c, 99_000) == ("level", 3, 0.0, True)
    assert view(S, c, at(99_000)).last and view(S, c, at(99_000)).next is None


def test_before_the_start_the_first_level_waits_with_its_whole_time():
    c = LevelClock()
    v = view(S, c, at(5000))
    assert (v.started, v.running, v.level.n, v.time_left, v.to_break) == (False, False, 1, 1200.0, 1200.0)
    with pytest.raises(ClockError, match="has not started"):
        pause(S, c, at(1))
    with pytest.raises(ClockError, match="has not started"):
        skip(S, c, at(1))
    with pytest.raises(ClockError, match="start it"):
        resume(S, c, at(1))


def test_pause_and_resume_stop_the_time_and_go_on_from_it():
    c = pause(S, start(S, LevelClock(), at(0)), at(600))
    assert shows(c, 600) == ("level", 1, 600.0, False)
    assert shows(c, 5000) == ("level", 1, 600.0, False)  # (an hour paused: nothing used)
    with pytest.raises(ClockError, match="paused already"):
        pause(S, c, at(5000))
    c = resume(S, c, at(5000))
    with pytest.raises(ClockError, match="runs already"):
        resume(S, c, at(5001))
    assert shows(c, 5300) == ("level", 1, 300.0, True)
    assert shows(c, 5600) == ("break", 2, 600.0, True)  # (600 s of the level left at the pause, then the break)
    assert shows(c, 6500) == ("level", 2, 900.0, True)


def test_skip_and_back_start_the_step_afresh_running_or_paused_as_it_was():
    c = skip(S, start(S, LevelClock(), at(0)), at(300))
    assert shows(c, 300) == ("break", 2, 600.0, True)
    assert shows(c, 900) == ("level", 2, 1200.0, True)
    c = skip(S, c, at(1000), -1)  # back: the break again, from its start
    assert shows(c, 1000) == ("break", 2, 600.0, True)
    c = skip(S, pause(S, c, at(1100)), at(1200))
    assert shows(c, 4000) == ("level", 2, 1200.0, False)
    c = skip(S, c, at(4000))
    with pytest.raises(ClockError, match="no step after the last"):
        skip(S, c, at(4001))
    c = skip(S, skip(S, skip(S, c, at(4002), -1), at(4003), -1), at(4004), -1)
    assert shows(c, 4004) == ("level", 1, 1200.0, False)
    with pytest.raises(ClockError, match="no step before the first"):
        skip(S, c, at(4005), -1)


def test_time_added_or_taken_off_moves_the_level_s_end():
    c = add(S, start(S, LevelClock(), at(0)), at(600), 120)
    assert shows(c, 600) == ("level", 1, 720.0, True)
    assert shows(c, 1300) == ("level", 1, 20.0, True)
    assert shows(c, 1320) == ("break", 2, 600.0, True)  # (the break starts 120 s late, its own length kept)
    c = add(S, start(S, LevelClock(), at(0)), at(100), -700)
    assert shows(c, 100) == ("level", 1, 400.0, True)
    assert shows(c, 500) == ("break", 2, 600.0, True)
    c = add(S, start(S, LevelClock(), at(0)), at(100), -1200)  # more than is left: the level ends now
    assert shows(c, 100) == ("break", 2, 600.0, True)
    c = add(S, pause(S, start(S, LevelClock(), at(0)), at(100)), at(200), 60)  # paused: added all the same
    assert shows(c, 900) == ("level", 1, 1160.0, False)


def test_a_restart_of_the_service_resumes_the_clock_without_drift():
    """The clock as the store keeps it (JSON), read back by a service started again in the same
    boot: where it is comes from the monotonic clock, as if the service had run on."""
    c = add(S, start(S, LevelClock(), at(0)), at(500), 30)
    kept = json.loads(json.dumps(c.to_dict()))
    again = where(S, LevelClock.from_dict(kept), at(1500))  # (the service's start-up brings it to now)
    for t in (1500, 1800, 3000, 4000):
        assert shows(again, t) == shows(c, t)
    assert shows(again, 1500) == ("break", 2, 330.0, True)  # 1230 s of level 1 (30 added), then 270 of the break


def test_a_reboot_reads_the_time_across_it_on_the_wall_clock_then_the_new_boot_s_monotonic_clock():
    c = start(S, LevelClock(), at(0))
    # the floor's host reboots: its monotonic clock starts near 0 in boot b2, 1500 s of wall time later
    rebooted = Moment(20.0, "b2", WALL + 1500)
    c = where(S, c, rebooted)
    assert view(S, c, rebooted).level.kind == "break" and view(S, c, rebooted).time_left == 300.0
    # NTP then sets the wall clock an hour on: the clock follows the new boot's monotonic clock
    assert view(S, c, Moment(80.0, "b2", WALL + 1560 + 3600)).time_left == 240.0


def test_a_wall_clock_set_back_across_a_reboot_uses_no_time():
    c = start(S, LevelClock(), at(0))
    c = where(S, c, at(600))
    back = Moment(5.0, "b2", WALL - 86_400)  # (a Pi without its clock: a day behind)
    assert view(S, c, back).time_left == 600.0


def test_until_change_says_when_to_look_again():
    c = start(S, LevelClock(), at(0))
    assert until_change(S, c, at(100)) == 1100.0
    assert until_change(S, pause(S, c, at(100)), at(200)) is None
    assert until_change(S, c, at(3500)) is None  # (the last level: nothing after it)
    assert until_change(S, LevelClock(), at(0)) is None


def test_the_clock_the_store_kept_is_read_back_exactly_or_refused():
    c = pause(S, add(S, start(S, LevelClock(), at(0)), at(10), 45), at(20))
    assert LevelClock.from_dict(json.loads(json.dumps(c.to_dict()))) == c
    for bad in ({"started": True, "running": True, "step": 0, "spent": 0.0, "added": 0.0, "at": None},
                {"started": True, "running": False, "step": -1, "spent": 0.0, "added": 0.0, "at": None}):
        with pytest.raises(ValueError):
            LevelClock.from_dict(bad)
    with pytest.raises(KeyError):
        LevelClock.from_dict({"started": True})
