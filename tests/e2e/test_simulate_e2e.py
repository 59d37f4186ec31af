"""End to end through ``tablectl simulate``: simulated reader on a pseudo-terminal, the daemon
as a subprocess, the report built from the daemon's own records.

The expected zones are computed from the script (where each card was pitched, what was
mucked), independently of the daemon (``rig.scenarios``), and compared with what the daemon
concluded. The 500 clean noisy hands run in process (``tests/unit/hw_sim/test_harness.py``); here only what
needs the real pseudo-terminals and the daemon subprocess.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from hw_sim.random_hands import random_script
from tests.conftest import TABLECTL
from rig.scenarios import NOISE, ZONE_ORDER, check_report, expected_hand  # noqa: F401 (shared)
from rig.scenarios import play as scenario_play

def simulate(tmp_path: Path, script: dict, *extra: str, timeout: float = 600) -> subprocess.CompletedProcess:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return subprocess.run([*TABLECTL, "simulate", str(path), "--json", *extra],
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.e2e
def test_the_reader_and_the_display_unplugged_mid_hand_come_back_and_the_hands_are_still_right(tmp_path):
    """The reader's cable pulled in hand 1, the dealer's display's in hand 2. The display is a
    20x4 LCD on hw_sim's fake I2C bus inside the daemon subprocess, its cable a file of the work
    folder that the simulator removes and writes back (``[display] sim_cable``)."""
    script = random_script(11, hands=2, game="holdem", seats=[1, 3, 5, 8], noise=dict(NOISE, seed=11))
    cuts = []
    for hand, device in zip(script["hands"], ("reader", "display"), strict=True):
        steps = hand["steps"]
        cut = next(i for i, s in enumerate(steps) if s.get("to") == "burn")  # after the hole cards
        steps[cut:cut] = [{"unplug": device}, {"plug": device}]
        cuts.append(cut)
    r = simulate(tmp_path, script, "--keep")
    assert r.returncode == 0, r.stderr
    work = Path(r.stderr.split("work folder kept: ")[1].split()[0])
    try:  # the daemon's configuration: the simulated display, on the work folder's cable
        assert f'sim_cable = "{work / "display"}"' in (work / "tablectl.toml").read_text()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report = json.loads(r.stdout)
    for got, hand, cut, device in zip(report["hands"], script["hands"], cuts, ("reader", "display"), strict=True):
        alerts = [(a["code"], a["audience"], a["step"]) for a in got["alerts"]]
        assert alerts == [(f"device.{device}_offline", "dealer", cut + 1),
                          (f"device.{device}_online", "dealer", cut + 2)]
        # apart from those two alerts, both hands are exactly right
        got["alerts"] = []
        hand["steps"][cut:cut + 2] = []
    check_report(script, report)


@pytest.mark.e2e
def test_the_deal_script_example_runs(tmp_path):
    """The example of deal-script.md, with two cards still to come back from the fold."""
    script = {
        "format": 1, "game": "holdem", "seats": [1, 2, 4, 6, 9], "button": 9,
        "noise": {"seed": 7, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01},
        "hands": [{"steps": [
            {"deal": "As", "to": "seat:1"}, {"deal": "7d", "to": "seat:2"}, {"press": "exposed"},
            {"deal": "Kd", "to": "burn"}, {"deal": "2c", "to": "board"}, {"muck": "seat:4"},
            {"end": True}]}],
    }
    r = simulate(tmp_path, script)
    assert r.returncode == 0, r.stderr
    [hand] = json.loads(r.stdout)["hands"]
    assert hand["zones"] == {"seat:1": ["As"], "seat:2": ["7d"], "board": ["2c"], "burn": ["Kd"]}
    assert hand["stub_count"] == 48
    assert hand["button"] == 9


@pytest.mark.e2e
@pytest.mark.parametrize("script,needle", [
    ("{not json", "not valid JSON"),
    (json.dumps({"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,
                 "hands": [{"steps": [{"deal": "Zz", "to": "seat:1"}, {"end": True}]}]}), "hand 1, step 1"),
    (json.dumps({"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,
                 "hands": [{"steps": [{"deal": "As", "to": "seat:1"}, {"deal": "As", "to": "seat:2"},
                                      {"end": True}]}]}), "hand 1, step 2"),
])
def test_a_bad_script_is_refused_with_one_line_naming_the_step(tmp_path, script, needle):
    path = tmp_path / "bad.json"
    path.write_text(script)
    r = subprocess.run([*TABLECTL, "simulate", str(path), "--json"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and needle in lines[0], r.stderr
    assert r.stdout == ""


@pytest.mark.e2e
def test_a_hand_without_cards_does_not_shift_the_reports_of_the_hands_after_it(tmp_path):
    script = random_script(21, hands=3, game="holdem", seats=[2, 4, 7], noise=dict(NOISE, seed=21))
    script["hands"][1]["steps"] = [{"press": "next"}, {"end": True}]
    r = simulate(tmp_path, script, "--keep")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    empty = report["hands"][1]
    assert (empty["button"], empty["zones"], empty["stub_count"]) == (script["hands"][1]["button"], {}, 52)
    script["hands"].pop(1)
    report["hands"].pop(1)
    check_report(script, report)
    assert "work folder kept: " in r.stderr
    kept = Path(r.stderr.split("work folder kept: ")[1].split()[0])
    try:
        assert (kept / "daemon.log").exists() and (kept / "feed.jsonl").exists()
    finally:
        shutil.rmtree(kept, ignore_errors=True)


@pytest.mark.e2e
def test_DEAL_005_the_daemon_moves_a_dead_button_after_an_elimination(tmp_path):
    """001 §BUTTON RULE scenario 1: the small blind (seat 2) is eliminated after hand 1. The
    script gives the seats but not the button: the daemon puts it on the vacated seat 2, then
    on seat 3."""
    import random as _random
    from hw_sim.random_hands import random_hand_steps
    rng = _random.Random(5)
    five, four = [1, 2, 3, 4, 5], [1, 3, 4, 5]
    hands = [{"seats": five, "button": 1, "steps": random_hand_steps(rng, game="holdem", seats=five, button=1)},
             {"seats": four, "steps": random_hand_steps(rng, game="holdem", seats=four, button=2)},
             {"steps": random_hand_steps(rng, game="holdem", seats=four, button=3)}]
    script = {"format": 1, "game": "holdem", "seats": five, "button": 1, "noise": dict(NOISE, seed=5),
              "hands": hands}
    r = simulate(tmp_path, script)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert [h["button"] for h in report["hands"]] == [1, 2, 3]
    hands[1]["button"], hands[2]["button"] = 2, 3
    check_report(script, report)


# -- stopped by a signal: the children stopped, the work folder (a journal of cards) removed --------
def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc: no helper of the code under test)."""
    kids = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.add(int(entry.name))
    return kids


def _gone(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


@pytest.mark.e2e
@pytest.mark.parametrize("signum,status", [(signal.SIGTERM, 143), (signal.SIGINT, 130)], ids=["SIGTERM", "SIGINT"])
def test_simulate_stopped_by_a_signal_stops_the_daemon_and_removes_its_work_folder(tmp_path, signum, status):
    from rig.waiting import wait_until

    # (a short folder: the control socket's path has 107 bytes at most, and pytest's are long)
    tmp = Path(tempfile.mkdtemp(prefix="sig-"))
    script = random_script(5, hands=40, game="holdem", seats=[1, 2, 3, 4], noise=dict(NOISE, seed=5))
    # (a long pause after the first cards: the signal comes mid-run however fast the machine deals)
    script["hands"][0]["steps"][3:3] = [{"wait": 900}] * 20
    path = tmp_path / "long.json"
    path.write_text(json.dumps(script))
    proc = subprocess.Popen([*TABLECTL, "simulate", str(path), "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=dict(os.environ, TMPDIR=str(tmp)))
    try:
        def folder() -> Path | None:
            found = list(tmp.glob("tablectl-sim-*"))
            return found[0] if found else None

        def dealing() -> bool:  # the daemon is up, its journal written, the first hand dealt into it
            f = folder()
            return f is not None and (f / "journal.sqlite3").exists() and (f / "feed.jsonl").exists() \
                and '"CardPlaced"' in (f / "feed.jsonl").read_text()
        wait_until(lambda: dealing() or proc.poll() is not None, 120, what="the simulation dealing")
        assert proc.poll() is None, proc.communicate()[1]
        work = folder()
        assert work is not None
        daemons = _children(proc.pid)
        assert daemons, "the daemon subprocess"
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == status, err
    assert not work.exists(), sorted(p.name for p in work.iterdir())
    assert list(tmp.iterdir()) == []
    tmp.rmdir()
    assert all(_gone(pid) for pid in daemons)
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (f"tablectl simulate: stopped by {signal.Signals(signum).name}; "
                                            "the daemon stopped, the work folder removed")



@pytest.mark.e2e
def test_issue_39s_steps_through_the_daemon_process_report_as_in_process(tmp_path):
    """A table with a stub spot (``"stub_spot": true``: the daemon's ``[antennas]`` 14 = "stub"),
    a look longer than MUCK_TIMEOUT_S after the first tap (MUCK-001), and the stub dropped after
    the river (STUB-006), played by ``tablectl simulate`` (the daemon a subprocess
    on pseudo-terminals, with a crash and restart after the look) and in process: the same report,
    byte for byte, with the prompt at the look and the stub read whole."""
    script = random_script(39, hands=1, game="holdem", seats=[1, 4, 6], noise=dict(NOISE, seed=39))
    steps = script["hands"][0]["steps"]
    river = max(i for i, s in enumerate(steps) if s.get("to") == "board")
    burn = next(i for i, s in enumerate(steps) if s.get("to") == "burn")
    steps.insert(river + 1, {"drop": "stub"})
    seat = next(s["to"] for s in steps[:burn] if "deal" in s and not any(
        m.get("muck") == s["to"] for m in steps))  # a seat that never folds
    steps.insert(burn, {"look": seat, "for": 8})
    script = {**script, "stub_spot": True, "crash_after": burn + 1}
    r = simulate(tmp_path, script)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    [hand] = report["hands"]
    assert [(a["code"], a["step"]) for a in hand["alerts"]] == [("muck.card_missing", burn + 1)]
    assert hand["stub_read"] == hand["stub_count"] == 52 - 6 - 3 - 5
    in_process = scenario_play({k: v for k, v in script.items() if k != "crash_after"})
    assert json.dumps(in_process, sort_keys=True) == json.dumps(report, sort_keys=True)
