"""``tablectl demo``: the daemon against the simulated table, as a user runs it."""

import re
import subprocess

import pytest

from tests.conftest import TABLECTL


@pytest.fixture(scope="module")
def clean_demo() -> subprocess.CompletedProcess:
    """Three clean hands of the demo, asked for without its command (``tablectl`` alone is the
    demo: the tests of both read this one run)."""
    return subprocess.run([*TABLECTL, "--hands", "3", "--plain", "--seed", "4", "--speed", "50",
                           "--faults", "0"], capture_output=True, text=True, timeout=120)


def test_demo_deals_hands_and_reports_each_one_clean(clean_demo):
    r = clean_demo
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
    # the dealer's display's screen after each hand (docs/console.md, "The display"): the stub count
    # asked at the river (STUB-001/002), or the quiet screen of the next hand (printed when the view
    # sees the hand end: the next may have begun)
    screens = [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("display  ")]
    shown = r"display  (COUNT THE STUB \| stub must be \d+|hand \d+ \| next card s\d+|ready \| first card s\d+)"
    assert len(screens) == 3 and all(re.fullmatch(shown, s) for s in screens), screens


def test_the_demo_deals_faults_and_the_dealer_reads_them():
    """``--faults 1``: every hand has one (a wrong seat, a foreign card, a missing burn); the
    floor's alert in the hand's line, the dealer's words on the display's line (printed when the
    view sees the hand end: by then the next hand may have begun, so any screen of the table's)."""
    r = subprocess.run([*TABLECTL, "demo", "--hands", "2", "--plain", "--seed", "4", "--speed", "50",
                        "--faults", "1"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    hands = [line for line in lines if line.startswith("hand ")]
    screens = [line.strip() for line in lines if line.strip().startswith("display  ")]
    assert len(hands) == 2 and len(screens) == 2
    faults = ("burn.missing", "deck.unknown_tag", "misdeal.first_card_wrong_seat")
    for hand in hands:
        assert len([c for c in faults if c in hand]) == 1, hand  # one fault a hand, and the table caught it
    assert {c for h in hands for c in faults if c in h} == {"burn.missing", "deck.unknown_tag"}  # (seed 4)
    shown = (r"display  (NO BURN \| BURN then deal|NEW SETUP \| bring a new deck|1st card s\d+ \| misdeal\? hold"
             r"|COUNT THE STUB \| stub must be \d+|hand \d+ \| next card s\d+|ready \| first card s\d+)")
    for screen in screens:
        assert re.fullmatch(shown, screen), screen  # words only: no tag, no card, no deck


def test_no_command_means_the_demo(clean_demo):
    r = clean_demo
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("hand    1")


def test_bad_arguments_are_refused_by_name():
    r = subprocess.run([*TABLECTL, "demo", "--speed", "0"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--speed: must be more than 0, got 0" in r.stderr
    r = subprocess.run([*TABLECTL, "demo", "--faults", "-1"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "--faults: must be 0 (none) or more, got -1" in r.stderr
    r = subprocess.run([*TABLECTL, "bogus"], capture_output=True, text=True, timeout=60)
    from controller.cli.main import COMMANDS
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


def _demo_on_a_terminal(tmp_path, *args: str) -> tuple[int, str, str]:
    """``tablectl demo`` with its stdout on a real pseudo-terminal (the live view's case) and
    a ``rich`` first on its path that fails to import, as on an install without the extra."""
    import os
    import pty
    import threading

    fake = tmp_path / "no-rich" / "rich"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ModuleNotFoundError(\"No module named 'rich'\", name='rich')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(fake.parent), os.environ.get("PYTHONPATH", "")]),
               TMPDIR=str(tmp_path), TERM="xterm")
    master, slave = pty.openpty()
    proc = subprocess.Popen([*TABLECTL, "demo", *args], stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=subprocess.PIPE, text=True, env=env)
    os.close(slave)
    out: list[bytes] = []

    def drain() -> None:  # the terminal's side: read until the demo closes it (EIO)
        while True:
            try:
                data = os.read(master, 4096)
            except OSError:
                return
            if not data:
                return
            out.append(data)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    try:
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join(10)
        os.close(master)
    return proc.returncode, b"".join(out).decode(errors="replace"), err


def test_the_demo_without_rich_says_how_to_install_it_and_shows_the_plain_view(tmp_path):
    code, out, err = _demo_on_a_terminal(tmp_path, "--hands", "1", "--seed", "4", "--speed", "50")
    assert code == 0, err
    assert "Traceback" not in err + out
    assert err.splitlines()[0] == ("tablectl demo: the live view needs rich, which is not installed "
                                   "(pip install 'tablectl[demo]'; from a clone: pip install -e '.[demo]'); "
                                   "showing the plain view instead")
    assert re.search(r"^hand    1 ", out, re.M)  # the plain view's hand line, on the terminal
    assert not [p for p in tmp_path.iterdir() if p.name.startswith("tablectl-demo-")]


def test_the_demo_deals_through_the_bridge_board():
    # issue 40: --reader bridge: the bridge board running its firmware on simulated PN5180s. One
    # hand (the board's firmware simulated pin by pin costs a CPU second and more a hand): the
    # demo's wiring of the board; hand after hand through it: tests/e2e/test_simulate_bridge.py
    r = subprocess.run([*TABLECTL, "demo", "--hands", "1", "--plain", "--seed", "4", "--speed", "50",
                        "--faults", "0", "--reader", "bridge"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    hands = [line for line in r.stdout.splitlines() if line.startswith("hand ")]
    assert len(hands) == 1 and all(" clean " in h for h in hands), hands
    assert re.search(r"reader: \d+ cycles, \d+ reads, 0 corrupt frames, 0 reconnects", r.stdout)
