"""The installer's tools against the simulated reader on a real pseudo-terminal."""

import os
import re
import stat
import subprocess
import threading

from controller.core.cards import setup_order
from controller.core.registry import parse_manifest
from hw_sim.decks import sim_uid
from tests.conftest import TABLECTL


def run(*args, timeout=60):
    return subprocess.run([*TABLECTL, *args], capture_output=True, text=True, timeout=timeout)


def test_tags_prints_antenna_uid_rssi_per_tag(sim_reader, tmp_path):
    r = sim_reader()
    r.place("a", sim_uid("A", "As"), 3)
    r.place("b", sim_uid("A", "Kd"), 11)
    r.place("c", "E0040150A05F02B7", 13)
    out = run("tags", "--driver", "feig", "--port", str(tmp_path / "reader"), "--cycles", "2")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == 6  # three tags, two cycles
    assert all(re.fullmatch(r"\d+ [0-9A-F]{16} \d+", line) for line in lines)
    assert {tuple(line.split()[:2]) for line in lines} == {
        ("3", sim_uid("A", "As")), ("11", sim_uid("A", "Kd")), ("13", "E0040150A05F02B7")}


def test_tags_single_antenna_asks_without_antenna_information(sim_reader, tmp_path):
    r = sim_reader(single_antenna=True)
    r.place("a", sim_uid("B", "7h"), 1)
    out = run("tags", "--port", str(tmp_path / "reader"), "--single-antenna", "--cycles", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == [f"1 {sim_uid('B', '7h')} -"]


def test_tags_on_a_missing_port_says_which(tmp_path):
    out = run("tags", "--port", str(tmp_path / "nothing"), "--cycles", "1")
    assert out.returncode == 1
    assert "reader:" in out.stderr and str(tmp_path / "nothing") in out.stderr


def _lay_deck(reader, deck, stop, cards):
    """Lay ``cards`` one at a time, each once the reader has been asked twice about the one
    before (after the last nothing is waited for: the tool stops asking once it has the deck)."""
    for i, card in enumerate(cards):
        if stop.is_set():
            return
        if i:
            reader.wait_cycles(2, 10)
        reader.place(card, sim_uid(deck, card), 1)


def test_register_reads_a_deck_in_setup_order_and_writes_its_manifest(sim_reader, tmp_path):
    """Also the manifest's mode (a manifest maps every tag to its card): written onto a file a
    careless technician left 0644, under a umask of 022, it is 0600 afterwards."""
    r = sim_reader(single_antenna=True)
    stop = threading.Event()
    layer = threading.Thread(target=_lay_deck, args=(r, "B", stop, setup_order()))
    out_file = tmp_path / "B.txt"
    out_file.write_text("old\n")
    out_file.chmod(0o644)
    proc = subprocess.Popen([*TABLECTL, "register", "--port", str(tmp_path / "reader"), "--deck", "B",
                             "--back", "blue", "--out", str(out_file)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, umask=0o022)
    layer.start()
    try:
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        stop.set()
        layer.join()
    assert proc.returncode == 0, stderr
    cards = parse_manifest(out_file.read_text(), source=str(out_file))
    assert cards == {sim_uid("B", c): c for c in setup_order()}
    assert "deck B registered: 52 cards" in stdout
    assert stat.S_IMODE(os.stat(out_file).st_mode) == 0o600


def test_register_refuses_two_cards_laid_at_once(sim_reader, tmp_path):
    r = sim_reader(single_antenna=True)
    r.place("x", sim_uid("A", "As"), 1)
    r.place("y", sim_uid("A", "2s"), 1)
    out = run("register", "--port", str(tmp_path / "reader"), "--deck", "A", "--back", "red",
              "--out", str(tmp_path / "A.txt"), "--max-cycles", "20")
    assert out.returncode == 1
    assert "2 new tags in one read after card 0" in out.stderr
    assert not (tmp_path / "A.txt").exists()


def _verify(tmp_path, *extra):
    from hw_sim.decks import manifest_text
    for d in ("A", "B"):
        (tmp_path / f"{d}.txt").write_text(manifest_text(d))
    return run("verify", "--port", str(tmp_path / "reader"), "--manifest", str(tmp_path / "A.txt"),
               "--manifest", str(tmp_path / "B.txt"), "--settle", "3", *extra)


def test_verify_passes_a_whole_deck_laid_on_the_antenna(sim_reader, tmp_path):
    """DECK-001/002: 52 distinct cards, all of the deck."""
    r = sim_reader(single_antenna=True)
    for card in setup_order():
        r.place(card, sim_uid("A", card), 1)
    out = _verify(tmp_path)
    assert out.returncode == 0, out.stderr
    assert "deck A: 52 cards, all its own" in out.stdout


def test_verify_names_what_is_missing_and_foreign_and_fails(sim_reader, tmp_path):
    r = sim_reader(single_antenna=True)
    for card in setup_order():
        if card != "7h":
            r.place(card, sim_uid("A", card), 1)
    r.place("x", sim_uid("B", "Qd"), 1)
    r.place("y", "E0040150A05F02B7", 1)
    out = _verify(tmp_path)
    assert out.returncode == 1
    assert out.stdout.splitlines()[1:] == [
        "missing 7h", "foreign Qd@B", "foreign tag:E0040150A05F02B7",
        "deck A: 53 of 52, missing 7h, not of the deck Qd@B tag:E0040150A05F02B7: do not put it in play"]


def test_verify_refuses_a_bad_manifest_naming_it(tmp_path):
    (tmp_path / "A.txt").write_text("E0040150A05F0000 As\nnonsense\n")
    out = run("verify", "--port", str(tmp_path / "reader"), "--manifest", str(tmp_path / "A.txt"))
    assert out.returncode == 2
    assert f"{tmp_path / 'A.txt'}:2" in out.stderr
