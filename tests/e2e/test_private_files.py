"""Files that can hold cards are 0600 whether they existed or not, whatever the umask (issue 12).

Root ignores file modes, so what depends on who may open a file runs as uid 65534 (``setpriv``)
in a folder that uid can write, from the copy of the code that uid can read (rig/other_user.py:
the clone may be in a 0700 folder); a mode is only read back (``stat``), which means the same for
any user. Every writer of a card-bearing file is here: the feed, ``history --out``, ``register --out``,
the journal (its ``-wal``, ``-shm``, ``.hands`` and the files a salvage sets aside), the
simulator's manifests; and the daemon itself, run as 65534 under a umask of 022.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from controller.core.effects import HandFinished
from controller.daemon.journal import Journal
from controller.daemon.private import NotPrivate, make_private, open_private
from controller.daemon.sinks import FeedSink
from hw_sim.decks import DECK_IDS, sim_uid
from hw_sim.setup import write_setup
from rig.other_user import NOBODY
from rig.waiting import wait_until


def mode(p: Path | str) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def readable_file(p: Path, text: str = "old\n") -> Path:
    """A file as a careless technician leaves it: 0644."""
    p.write_text(text)
    p.chmod(0o644)
    assert mode(p) == 0o644
    return p


@pytest.fixture
def nobody_dir():
    """A folder uid 65534 can write (pytest's tmp_path is root's, 0700), 0777 as the issue says."""
    d = Path(tempfile.mkdtemp(prefix="tablectl-private-", dir="/tmp"))
    d.chmod(0o777)
    yield d
    shutil.rmtree(d, ignore_errors=True)


#: the umask the commands run as uid 65534 are started with: a shell's default, which setpriv passes on
UMASK = 0o022
#: a finished hand's record, hole cards and all (what the journal and history hold)
RECORD = {"hand": 1, "ended": 1.0, "zones": {"seat:1": ["As", "Kd"]}}


def chown_all(d: Path) -> None:
    for f in [d, *d.rglob("*")]:
        os.chown(f, NOBODY, NOBODY, follow_symlinks=False)


# -- the helper -----------------------------------------------------------------------------------
@pytest.mark.parametrize("how, expect", [("w", "new"), ("a", "old\nnew"), ("x", None), ("r+", "new\n")])
def test_open_private_makes_an_existing_0644_file_0600_before_writing(tmp_path, how, expect):
    p = readable_file(tmp_path / "f")
    if how == "x":  # (exclusive creation refuses an existing file, and leaves it as it was)
        with pytest.raises(FileExistsError):
            open_private(p, how)
        assert mode(p) == 0o644
        return
    with open_private(p, how) as f:
        f.write("new")
    assert mode(p) == 0o600 and p.read_text() == expect


def test_open_private_creates_0600_whatever_the_umask(tmp_path):
    old = os.umask(0o000)
    try:
        with open_private(tmp_path / "f", "wb") as f:
            f.write(b"As Kd")
        assert make_private(tmp_path / "g") and make_private(tmp_path / "none", create=False) is False
    finally:
        os.umask(old)
    assert mode(tmp_path / "f") == 0o600 and mode(tmp_path / "g") == 0o600
    assert not (tmp_path / "none").exists()


def test_another_users_file_that_others_can_read_is_refused_untouched(nobody_dir, other_user_code):
    """Root's file, 0666: uid 65534 may write it but not chmod it, so no card goes into it."""
    p = nobody_dir / "hands.jsonl"
    p.write_text("old\n")
    p.chmod(0o666)
    code = ("import sys; from controller.daemon.private import open_private, NotPrivate\n"
            "try:\n    open_private(sys.argv[1], 'w')\n"
            "except NotPrivate as e:\n    print(e.strerror); sys.exit(3)\n")
    r = subprocess.run(other_user_code.command("-c", code, str(p)), capture_output=True, text=True,
                       timeout=60, cwd=nobody_dir, umask=UMASK)
    assert r.returncode == 3, (r.stdout, r.stderr)
    assert "belongs to uid 0 with mode 666" in r.stdout and "cannot be made private" in r.stdout
    assert p.read_text() == "old\n" and mode(p) == 0o666  # not truncated, not written
    assert issubclass(NotPrivate, PermissionError)


# -- each writer ----------------------------------------------------------------------------------
def test_the_feed_is_made_0600_when_it_existed(tmp_path):
    p = readable_file(tmp_path / "feed.jsonl")
    sink = FeedSink(str(p))
    sink.note({"type": "Ready"})
    sink.close()
    assert mode(p) == 0o600 and p.read_text().splitlines() == ["old", '{"type":"Ready"}']


def test_the_journal_and_its_side_files_are_made_0600_when_they_existed(tmp_path):
    path = tmp_path / "j.sqlite3"
    j = Journal(path)
    j.open()
    j.close()
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), tmp_path / "j.sqlite3.hands.tmp"):
        if not p.exists():
            p.write_bytes(b"")  # an empty WAL is an empty WAL; a .tmp left by a power cut
        p.chmod(0o644)
    j = Journal(path)
    j.open()
    j.record([HandFinished(1.0, 1, RECORD)])
    j.note_hand(2)
    try:
        for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), j.hands_path):
            assert mode(p) == 0o600, p
    finally:
        j.close()


def test_a_fresh_journal_under_umask_022_is_0600_wal_and_shm_too(tmp_path):
    """SQLite gives -wal and -shm the database's mode: the database is made 0600 first."""
    path = tmp_path / "j.sqlite3"
    old = os.umask(0o022)
    try:
        j = Journal(path)
        j.open()
        j.record([HandFinished(1.0, 1, RECORD)])  # (a write: the WAL)
        try:
            files = [path, Path(f"{path}-wal"), Path(f"{path}-shm")]
            assert all(p.exists() for p in files)
            assert [mode(p) for p in files] == [0o600] * 3
        finally:
            j.close()
    finally:
        os.umask(old)


def test_a_salvaged_journal_sets_aside_0600_files(tmp_path):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"SQLite format 3\x00" + os.urandom(4096))  # garbage after the header
    path.chmod(0o644)
    j = Journal(path)
    info = j.open()
    j.close()
    aside = list(tmp_path.glob("j.sqlite3.damaged-*"))
    assert info.damaged and aside
    assert [mode(p) for p in aside] == [0o600] * len(aside) and mode(path) == 0o600


def test_the_simulators_manifests_are_made_0600(tmp_path):
    for d in DECK_IDS:
        readable_file(tmp_path / f"deck-{d}.txt")
    write_setup(tmp_path, console=False)
    assert [mode(tmp_path / f"deck-{d}.txt") for d in DECK_IDS] == [0o600] * len(DECK_IDS)
    assert sim_uid("A", "As") in (tmp_path / "deck-A.txt").read_text()


def test_history_out_onto_a_0644_file_as_another_user_under_umask_022(nobody_dir, other_user_code):
    cfg = write_setup(nobody_dir, journal=True, console=False)
    j = Journal(nobody_dir / "journal.sqlite3")
    j.open()
    j.record([HandFinished(1.0, 1, RECORD)])
    j.close()
    out = readable_file(nobody_dir / "hands.jsonl", "stale\n" * 10)
    chown_all(nobody_dir)
    r = subprocess.run(other_user_code.tablectl("history", "--config", str(cfg), "--jsonl", "--out", str(out)),
                       capture_output=True, text=True, timeout=60, cwd=nobody_dir, umask=UMASK)
    assert r.returncode == 0, r.stderr
    assert mode(out) == 0o600 and out.stat().st_uid == NOBODY
    [rec] = [json.loads(x) for x in out.read_text().splitlines()]
    assert rec["hand"] == 1 and rec["zones"]["seat:1"] == ["As", "Kd"]


def test_history_out_onto_another_users_file_says_so_in_one_line(nobody_dir, other_user_code):
    cfg = write_setup(nobody_dir, journal=True, console=False)
    j = Journal(nobody_dir / "journal.sqlite3")
    j.open()
    j.close()
    chown_all(nobody_dir)
    out = readable_file(nobody_dir / "hands.jsonl")
    out.chmod(0o666)  # root's, writable by all
    r = subprocess.run(other_user_code.tablectl("history", "--config", str(cfg), "--jsonl", "--out", str(out)),
                       capture_output=True, text=True, timeout=60, cwd=nobody_dir, umask=UMASK)
    assert r.returncode == 1 and "Traceback" not in r.stderr
    [line] = r.stderr.strip().splitlines()
    assert line.startswith(f"tablectl history: --out {out}: cannot write it: belongs to uid 0"), line
    assert out.read_text() == "old\n"


# `tablectl register --out` onto a 0644 file under umask 022: in
# tests/e2e/test_cli_tools.py::test_register_reads_a_deck_in_setup_order_and_writes_its_manifest (laying a
# deck card by card takes ten seconds: once is enough).


# -- the daemon, as uid 65534 under a umask of 022 ------------------------------------------------
@pytest.mark.e2e
@pytest.mark.parametrize("before", ["absent", "existing 0644"])
def test_the_daemon_run_as_another_user_under_umask_022_keeps_its_files_0600(nobody_dir, other_user_code, before):
    cfg = write_setup(nobody_dir, journal=True, console=False, outputs='feed = "feed.jsonl"')
    feed, journal = nobody_dir / "feed.jsonl", nobody_dir / "journal.sqlite3"
    files = [feed, journal, Path(f"{journal}-wal"), Path(f"{journal}-shm")]
    if before == "existing 0644":
        j = Journal(journal)
        j.open()
        j.close()
        for p in files:
            if not p.exists():
                p.write_bytes(b"")
            p.chmod(0o644)
    chown_all(nobody_dir)
    proc = subprocess.Popen(other_user_code.tablectl("run", "--config", str(cfg)), stderr=subprocess.PIPE, text=True,
                            cwd=nobody_dir, umask=UMASK)
    try:
        wait_until(lambda: proc.poll() is not None or (feed.exists() and "Ready" in feed.read_text()), 30,
                   what="the daemon's Ready")
        assert proc.poll() is None
        wait_until(lambda: all(p.exists() for p in files), 10, what="the journal's WAL and shared memory")
        modes = {p.name: oct(mode(p)) for p in files}
        assert modes == {p.name: "0o600" for p in files}, modes
        assert {p.stat().st_uid for p in files} == {NOBODY}
        # and whatever else it may create: its own umask, whatever it was started with
        status = Path(f"/proc/{proc.pid}/status").read_text()
        assert "\nUmask:\t0077\n" in status and f"\nUid:\t{NOBODY}\t" in status
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err, err
    # the journal, read back, holds the daemon's events: it was written through those files
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        assert db.execute("SELECT count(*) FROM events").fetchone()[0] >= 1
    finally:
        db.close()


@pytest.mark.e2e
def test_the_daemon_refuses_a_feed_another_user_owns_that_others_can_read(nobody_dir, other_user_code):
    cfg = write_setup(nobody_dir, journal=True, console=False, outputs='feed = "feed.jsonl"')
    chown_all(nobody_dir)
    feed = readable_file(nobody_dir / "feed.jsonl")
    feed.chmod(0o666)  # root's: someone ran the daemon once with sudo, then chmod'ed it open
    r = subprocess.run(other_user_code.tablectl("run", "--config", str(cfg)), capture_output=True, text=True,
                       timeout=60, cwd=nobody_dir, umask=UMASK)
    assert r.returncode == 2 and "Traceback" not in r.stderr, r.stderr
    line = r.stderr.strip().splitlines()[-1]
    assert f"cannot open {feed}: belongs to uid 0 with mode 666" in line, r.stderr
    assert feed.read_text() == "old\n"
