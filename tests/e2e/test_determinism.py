"""A report that depends only on its script (docs/deal-script.md, "How the simulated table keeps
time"): the same mixed script, under the harsh noise, with the shuffler, a reader away while
time passes and a power cut, gives byte-identical ``tablectl simulate --json`` output run after
run, and the in-process harness gives the same report for it without the cut. The bench
(bench/determinism.py) plays a longer one ten times with every core busy."""

from __future__ import annotations

import json

import pytest

from hw_sim.harness import play
from hw_sim.random_hands import busy_night_script
from tests.e2e.test_simulate_e2e import simulate


@pytest.mark.e2e
def test_the_same_script_gives_the_same_bytes_twice(tmp_path):
    """Two runs here (and the harness's report below, a third way to the same table); the
    bench plays it ten times with every core busy."""
    script = busy_night_script(11, per=1)
    outputs = []
    for run in range(2):
        r = simulate(tmp_path / f"run{run}", script)
        assert r.returncode == 0, r.stderr
        outputs.append(r.stdout)
    assert outputs[0] == outputs[1]
    report = json.loads(outputs[0])
    assert [len(h["zones"]) > 0 for h in report["hands"]] == [True, True, True]
    codes = {a["code"] for h in report["hands"] for a in h["alerts"]}
    assert {"device.reader_offline", "device.reader_online"} <= codes
    # The power cut changes nothing (deal-script.md, crash_after), and the harness, which cannot
    # cut the power, deals the same table: the same report, every field.
    uncut = dict(script)
    del uncut["crash_after"]
    assert play(uncut).report == report


def test_the_script_is_not_trivial():
    script = busy_night_script(11, per=1)
    assert [h["game"] for h in script["hands"]] == ["holdem", "stud", "draw27_triple"]
    assert script["noise"]["profile"] == "harsh" and script["crash_after"] > len(script["hands"][0]["steps"])
    kinds = {next(iter(st)) for h in script["hands"] for st in h["steps"]}
    assert {"shuffler", "unplug", "wait", "plug", "discard", "press"} <= kinds


def test_the_daemon_of_tablectl_run_never_loads_the_simulator_or_its_pacing():
    """The pacing is the simulator's (hw_sim/paced_daemon.py): ``tablectl run``'s daemon, its
    control socket and its room link load none of it, so nothing can switch it on there."""
    import subprocess
    import sys

    code = ("import sys, controller.cli.main, controller.daemon.main, controller.daemon.control, "
            "controller.room.link; print(sorted(m for m in sys.modules if m.startswith('hw_sim')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


@pytest.mark.parametrize("request_", [{"cmd": "cycle"}, {"op": "cycle", "t": 1.0}, {"cmd": "at", "t": 1.0},
                                      {"cmd": "sync"}])
def test_the_control_socket_has_no_pacing_command(request_):
    from controller.daemon.control import request_to_event

    with pytest.raises(ValueError):
        request_to_event(request_, now=0.0)


@pytest.mark.e2e
def test_a_daemon_that_stops_taking_steps_in_ends_the_run_naming_the_step(tmp_path):
    """The daemon frozen (SIGSTOP) after the first hand: the simulator gives up after its bound
    (30 s by default; here, once the daemon is frozen, 1 s) with one line naming where it
    stopped and what the daemon last said, instead of hanging, and stops the frozen daemon."""
    import os
    import signal
    import time

    from hw_sim.simulate import SimulatedTable
    from hw_sim.dealer import SimulationError
    from hw_sim.random_hands import random_script
    from hw_sim.script import parse_script

    script = parse_script(json.dumps(random_script(3, hands=2, game="holdem", seats=[1, 4, 6])))
    frozen = []

    def freeze(number, proc):
        if number == 1:
            os.kill(proc.pid, signal.SIGSTOP)
            frozen.append(proc)
            # (the bound until here stays the default, room for the daemon's start on a busy machine)
            assert table.daemon is not None
            table.daemon.pace_timeout = 1.0

    table = SimulatedTable(script, workdir=tmp_path, on_hand=freeze)
    t0 = time.monotonic()
    try:
        table.open()
        with pytest.raises(SimulationError) as err:
            table.play()
    finally:
        table.close()
        for proc in frozen:
            if proc.poll() is None:
                os.kill(proc.pid, signal.SIGCONT)
    first = str(err.value).splitlines()[0]
    assert first.startswith("hand 2, before its first step: the daemon did not take in "), first
    assert "within 1 s; it last said: " in first
    assert time.monotonic() - t0 < 120  # (a bound, not a timing: it did not hang)
    assert frozen and frozen[0].poll() is not None  # and the frozen daemon was stopped on the way out
