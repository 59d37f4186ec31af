"""``tablectl demo``: the daemon against the simulated table, as a user runs it."""

import re
import subprocess

from tests.conftest import TABLECTL


def test_demo_deals_hands_and_reports_each_one_clean():
    r = subprocess.run([*TABLECTL, "demo", "--hands", "3", "--plain", "--seed", "4", "--speed", "50"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    hands = [line for line in r.stdout.splitlines() if line.startswith("hand ")]
    assert [int(h.split()[1]) for h in hands] == [1, 2, 3]
    assert all(" clean " in h for h in hands), hands
    # every hand accounts for its cards: stub = 52 - hole cards - burns - board
    for h in hands:
        burns = int(re.search(r"burns (\d)", h).group(1))
        board = len(re.search(r"board \[([^\]]*)\]", h).group(1).split())
        assert burns == (board > 0) + (board > 3) + (board > 4)
    assert re.search(r"reader: \d+ cycles, \d+ reads, 0 corrupt frames, 0 reconnects", r.stdout)


def test_no_command_means_the_demo():
    r = subprocess.run([*TABLECTL, "--hands", "1", "--plain", "--speed", "50"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("hand    1")


def test_bad_arguments_are_refused_by_name():
    r = subprocess.run([*TABLECTL, "demo", "--speed", "0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--speed: must be more than 0, got 0" in r.stderr
    r = subprocess.run([*TABLECTL, "bogus"], capture_output=True, text=True, timeout=60)
    from controller.service.cli import COMMANDS
    assert r.returncode == 2 and f"unknown command 'bogus' (commands: {', '.join(COMMANDS)})" in r.stderr
    r = subprocess.run([*TABLECTL, "--version"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("tablectl 0.")


def test_a_terminated_demo_cleans_up_after_itself(tmp_path):
    import os
    import signal

    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = subprocess.Popen([*TABLECTL, "demo", "--plain", "--speed", "20"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    first = proc.stdout.readline()  # a whole hand has been dealt and recorded
    assert first.startswith("hand    1"), first
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith("tablectl-demo-")]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 0
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("tablectl-demo-")]
