"""``tablectl tags``, ``register``, ``verify``, ``calibrate`` and ``doctor`` against the bridge
board: its firmware's main.py on simulated PN5180s behind a real pseudo-terminal
(hw_sim/bridge_board.py)."""

from __future__ import annotations

import io
import json
import os
import select
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli import calibrate, doctor, tags, verify
from controller.cli.checks import Host, system_user
from controller.cli.main import READER_CHOICES
from controller.config.daemon import load_config
from controller.core.cards import setup_order
from firmware_bridge.drivers import READERS
from hw_sim import bridge_board
from hw_sim.decks import manifest_text, sim_uid

ORDER = setup_order()


class Board:
    def __init__(self, tmp_path: Path, zones: int, field: dict[int, list[str]]) -> None:
        self.field = tmp_path / "field.json"
        self.lay(field)
        self.running = bridge_board.start(self.field, zones=zones)
        self.port = self.running.port

    def lay(self, field: dict[int, list[str]], faults: dict | None = None) -> None:
        """What lies on each zone from the board's next cycle on."""
        new = self.field.with_suffix(".new")
        new.write_text(json.dumps({"zones": {str(z): uids for z, uids in field.items()}, "faults": faults or {}}))
        new.replace(self.field)  # (whole: the board reads it at the start of a cycle)


@pytest.fixture
def board(tmp_path):
    boards = []

    def make(zones=13, field=None):
        b = Board(tmp_path, zones, field or {})
        boards.append(b)
        return b

    yield make
    for b in boards:
        b.running.stop()


def test_the_command_line_offers_every_reader_driver():
    assert sorted(READER_CHOICES) == sorted(READERS)


def test_tags_prints_each_tag_of_each_zone(board):
    b = board(field={3: [sim_uid("A", "As"), sim_uid("A", "Ks")], 12: [sim_uid("B", "2d")]})
    out = io.StringIO()
    assert tags.main(driver="bridge", port=b.port, single_antenna=False, cycles=2, baudrate=115200, parity="N",
                     antennas="1-13", out=out) == 0
    lines = set(out.getvalue().splitlines())
    assert lines == {f"3 {sim_uid('A', 'As')} 255", f"3 {sim_uid('A', 'Ks')} 255", f"12 {sim_uid('B', '2d')} 255"}


def test_verify_counts_a_deck_laid_on_one_zone(board, tmp_path, capsys):
    b = board(zones=1, field={1: [sim_uid("A", c) for c in ORDER]})
    manifest = tmp_path / "A.txt"
    manifest.write_text(manifest_text("A"))
    assert verify.main(port=b.port, manifests=[str(manifest)], baudrate=115200, parity="N", antenna=1, settle=2,
                       max_cycles=20, driver="bridge") == 0
    assert "deck A: 52 cards, all its own" in capsys.readouterr().out
    b.lay({1: [sim_uid("A", c) for c in ORDER[:51]] + [sim_uid("B", "As")]})  # one card short, a foreigner
    assert verify.main(port=b.port, manifests=[str(manifest)], baudrate=115200, parity="N", antenna=1, settle=2,
                       max_cycles=20, driver="bridge") == 1
    said = capsys.readouterr().out
    assert f"missing {ORDER[51]}" in said and "do not put it in play" in said


def test_register_reads_a_deck_laid_card_by_card(board, tmp_path):
    b = board(zones=1)
    out = tmp_path / "A.txt"
    root = Path(__file__).resolve().parents[3]
    proc = subprocess.Popen([sys.executable, "-m", "controller.cli.main", "register", "--driver", "bridge", "--port",
                             b.port, "--deck", "A", "--back", "red", "--out", str(out), "--antenna", "1",
                             "--baudrate", "115200", "--parity", "N"], stdout=subprocess.PIPE, cwd=root)
    try:
        lines = _lines(proc)
        assert next(lines).startswith("lay the cards one at a time")
        laid: list[str] = []
        for i, card in enumerate(ORDER):
            laid.append(sim_uid("A", card))
            b.lay({1: laid})  # the next card laid on the stack
            assert next(lines).split() == [str(i + 1), sim_uid("A", card), card]
        assert next(lines) == f"deck A registered: 52 cards, manifest written to {out}"
        assert proc.wait(30) == 0
    finally:
        proc.kill()
    assert out.read_text().count("\n") >= 52 and oct(out.stat().st_mode & 0o777) == "0o600"


def _lines(proc, timeout=60.0):
    """The subprocess's output lines, each waited for at most ``timeout`` s."""
    buf = b""
    fd = proc.stdout.fileno()
    while True:
        while b"\n" not in buf:
            ready, _, _ = select.select([fd], [], [], timeout)
            assert ready, f"no line within {timeout} s (so far {buf!r})"
            chunk = os.read(fd, 4096)
            assert chunk, f"the command ended (so far {buf!r})"
            buf += chunk
        line, buf = buf.split(b"\n", 1)
        yield line.decode()


def write_config(tmp_path: Path, port: str) -> Path:
    path = tmp_path / "tablectl.toml"
    path.write_text(f'[reader]\ndriver = "bridge"\nport = "{port}"\nbaudrate = 115200\nparity = "N"\n\n'
                    f'[table]\nseats = [1, 2]\n')
    return path


def test_calibrate_checks_each_zone_reads_its_card_alone_and_writes_no_levels(board, tmp_path, capsys):
    b = board()
    config = write_config(tmp_path, b.port)
    before = config.read_text()

    def lay(antenna, zone):
        b.lay({antenna: [sim_uid("A", "As")]})

    assert calibrate.main(str(config), cycles=3, ask=lay) == 0
    said = capsys.readouterr().out
    assert "zone  13 (muck): read in 3 of 3 cycles, heard by no other zone" in said
    assert "no levels written" in said and config.read_text() == before


def test_calibrate_fails_a_zone_whose_card_a_neighbour_hears(board, tmp_path, capsys):
    b = board()
    config = write_config(tmp_path, b.port)

    def lay(antenna, zone):
        b.lay({antenna: [sim_uid("A", "As")], **({6: [sim_uid("A", "As")]} if antenna == 5 else {})})

    assert calibrate.main(str(config), cycles=3, ask=lay) == 1
    assert "zone 5 (seat:5): its card was heard by zone 6 too, in 3 of 3 cycles: crosstalk" in \
        capsys.readouterr().err


def test_doctor_opens_the_board_and_asks_for_no_levels(board, tmp_path):
    b = board()
    config = write_config(tmp_path, b.port)
    # (a system with no service user: access judged for the caller, root on an installed table too)
    no_service_user = Host(users=lambda name: None if name == doctor.SERVICE_USER else system_user(name))
    found = doctor.run_checks(str(config), open_ports=True, host=no_service_user)
    lines = [c.line() for c in found]
    assert any(line.startswith("ok    reader: ") and "character device" in line for line in lines), lines
    assert any(line.startswith("ok    reader: ") and "opens (115200 8N1)" in line for line in lines), lines
    assert any("a bridge board" in line and "no signal strength" in line for line in lines), lines
    assert any(line.startswith("note  reader: set-up: our bridge board") and "DECK-007" in line for line in lines)
    assert load_config(str(config)).reader.driver == "bridge"
    # and the board still reads after doctor opened and closed its port
    out = io.StringIO()
    b.lay({2: [sim_uid("A", "Qh")]})
    assert tags.main(driver="bridge", port=b.port, single_antenna=False, cycles=1, baudrate=115200, parity="N",
                     antennas="1-13", out=out) == 0
    assert out.getvalue() == f"2 {sim_uid('A', 'Qh')} 255\n"


def test_doctor_names_every_drivers_setup():
    from types import SimpleNamespace

    assert set(doctor.SETUPS) == set(READERS)
    feig = doctor.check_setup(SimpleNamespace(driver="feig")).what
    assert feig.startswith("reader: set-up: a FEIG reader") and "every rule" in feig
