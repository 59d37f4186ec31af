"""Journal damage (issue 12): every case either runs and says what was lost, or exits 2 in one line.

A real journal (SQLite files) of four random hands, snapshots at each hand's end, is damaged the
ways a card room damages one: truncated, pages of garbage, nonsense rows in every table, an
unreadable snapshot, a crafted pickle, a lost WAL, a zero-byte file beside its WAL, a full disk,
a file the daemon's user cannot write. The recovery is called in process on the damaged files;
only the exit-2 cases and one start run ``tablectl run`` (as uid 65534 where permissions are the
point: root ignores file modes; from the copy of the code that uid can read, rig/other_user.py).
In every case no hand number repeats.
"""

from __future__ import annotations

import json
import logging
import os
import pickle
import shutil
import sqlite3
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from rig.states import field_home
from controller.core.effects import Alert, HandFinished
from controller.core.events import ButtonPress
from controller.daemon.journal import SCHEMA_VERSION, Journal, JournalError
from controller.daemon.recovery import JournalFaults, Recovery, recover_table
from controller.core.table import Table
from hw_sim.setup import write_setup
from tests.conftest import TABLECTL
from tests.unit.core.test_state import SETTINGS, random_events
from tests.unit.core.test_table import registry
from rig.other_user import NOBODY, OtherUserCode
from rig.waiting import wait_until
from rig.paths import ROOT


@dataclass
class Base:
    folder: Path
    table_view: dict  # the table's view when the journal was left
    hand: int  # the hand in progress then
    max_seen: int  # the highest hand number in the journal's hands and alerts
    snapshots: list[int]  # event ids of the snapshots kept, newest first
    state_at: dict[int, Table]  # the table as of each snapshot (for the schema 1 pickles)


def _build(folder: Path, *, crash: bool) -> Base:
    folder.mkdir(parents=True)
    path = folder / "j.sqlite3"
    j = Journal(path)
    j.open()
    t = Table(SETTINGS, registry())
    events = random_events(4, hands=4)
    state_at: dict[int, Table] = {}
    for ev in events:
        eid = j.append(ev)
        effects = t.apply(ev)
        j.record(effects)
        if any(isinstance(e, HandFinished) for e in effects):
            assert j.snapshot(eid, t, now=ev.ts, check=lambda s: Table.from_state(s, SETTINGS))
            state_at[eid] = Table.from_state(json.loads(json.dumps(t.to_state())), SETTINGS)
        if t.hands_finished == 3 and t.hand is not None and len(t.hand.where) >= 6:
            break
    assert t.hand is not None and t.hand.number == 4
    if crash:  # the files as a power cut leaves them: the WAL holds what came after the snapshot
        shutil.copytree(folder, folder.with_name(folder.name + "-crash"))
    j.close()
    out = folder.with_name(folder.name + "-crash") if crash else folder
    db = sqlite3.connect(folder / "j.sqlite3")
    top = max(db.execute("SELECT max(number) FROM hands").fetchone()[0],
              db.execute("SELECT max(hand) FROM alerts").fetchone()[0] or 0)
    snaps = [r[0] for r in db.execute("SELECT event_id FROM snapshots ORDER BY event_id DESC")]
    db.close()
    assert len(snaps) == 2
    return Base(out, t.snapshot(), t.hand.number, top, snaps, state_at)


@pytest.fixture(scope="module")
def bases(tmp_path_factory):
    root = tmp_path_factory.mktemp("bases")
    return {"closed": _build(root / "closed", crash=False), "crashed": _build(root / "crashed", crash=True)}


def _copy(base: Base, tmp_path: Path) -> Path:
    for f in base.folder.iterdir():
        if f.name.startswith("j.sqlite3"):
            shutil.copy(f, tmp_path / f.name)
    return tmp_path / "j.sqlite3"


def _recover(path: Path) -> Recovery:
    return recover_table(Journal(path), SETTINGS, Table(SETTINGS, registry()))


def _sql(path: Path, *statements: str, params: tuple = ()) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    for s in statements:
        db.execute(s, params if "?" in s else ())
    db.close()


def _check(r: Recovery, base: Base, says: str | None, *, intact: bool = False) -> None:
    summary = r.summary()
    assert "Traceback" not in summary and "\n" not in summary
    if says is None:
        assert not r.lost and not r.skipped, summary
    else:
        assert says in summary, summary
        assert f"hand {r.hand_affected} affected" in summary
    assert r.next_hand() > base.max_seen  # no hand number repeats
    if intact:
        assert r.table.snapshot() == base.table_view


# -- the journal as it was left: nothing lost ----------------------------------------------------
@pytest.mark.parametrize("kind", ["closed", "crashed"])
def test_a_sound_journal_rebuilds_the_table_mid_hand_and_loses_nothing(bases, tmp_path, kind):
    r = _recover(_copy(bases[kind], tmp_path))
    _check(r, bases[kind], None, intact=True)
    assert r.table.hand is not None and r.table.hand.number == bases[kind].hand


# -- the file damaged --------------------------------------------------------------------------
@pytest.mark.parametrize("keep", [4096, 8192, 0.5, -3 * 4096])
def test_a_truncated_file_is_salvaged_and_the_loss_said(bases, tmp_path, keep):
    path = _copy(bases["closed"], tmp_path)
    data = path.read_bytes()
    n = keep if isinstance(keep, int) and keep > 0 else int(len(data) * keep) if isinstance(keep, float) \
        else len(data) + keep
    path.write_bytes(data[:n])
    r = _recover(path)
    _check(r, bases["closed"], "was damaged")
    assert any("kept as" in p for p in r.lost)


@pytest.mark.parametrize("page", [2, 3, "last"])
def test_a_page_of_garbage_is_salvaged_and_the_loss_said(bases, tmp_path, page):
    path = _copy(bases["closed"], tmp_path)
    data = bytearray(path.read_bytes())
    at = (len(data) - 4096) if page == "last" else (page - 1) * 4096
    data[at:at + 4096] = os.urandom(4096)
    path.write_bytes(bytes(data))
    r = _recover(path)
    _check(r, bases["closed"], "was damaged")


def test_a_file_that_is_no_database_at_all_is_set_aside_and_said(bases, tmp_path):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"not SQLite at all " * 500)
    r = _recover(path)
    assert "was damaged" in r.summary() and r.table.hand is None


# -- snapshots ---------------------------------------------------------------------------------
BAD_SNAPSHOTS = {
    "bad JSON": "{not json",
    "a future version": json.dumps({"version": 999, "settings": "x", "table": {}}),
    "a failing value": None,  # filled below: a real state with a hand numbered 0
    "nested without end": "[" * 100000 + "]" * 100000,
    "a list": "[1, 2]",
}


@pytest.mark.parametrize("what", sorted(BAD_SNAPSHOTS))
def test_an_unreadable_newest_snapshot_falls_back_to_the_one_before_and_loses_nothing_else(bases, tmp_path, what):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    text = BAD_SNAPSHOTS[what]
    if text is None:
        db = sqlite3.connect(path)
        row = db.execute("SELECT data FROM snapshots WHERE event_id = ?", (base.snapshots[0],)).fetchone()
        state = json.loads(row[0])
        db.close()
        field_home(state, "hands_finished")["hands_finished"] = -3
        text = json.dumps(state)
    _sql(path, "UPDATE snapshots SET data = ? WHERE event_id = ?", params=(text, base.snapshots[0]))
    r = _recover(path)
    _check(r, base, f"the snapshot at event #{base.snapshots[0]} cannot be read", intact=True)
    assert r.after == base.snapshots[1]


def test_both_snapshots_unreadable_start_afresh_and_number_hands_on(bases, tmp_path):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    _sql(path, "UPDATE snapshots SET data = '{'")
    r = _recover(path)
    _check(r, base, "no snapshot can be read")
    assert r.table.hand is None and r.next_hand() == base.hand + 1  # hand 4's events: not replayed


def test_a_crafted_pickle_is_refused_and_runs_nothing(bases, tmp_path):
    """Schema 1's snapshots were pickles: one that would run a command is refused, never loaded."""
    base = bases["closed"]
    path = _copy(base, tmp_path)
    marker = tmp_path / "owned"

    class Evil:
        def __reduce__(self):
            return (os.system, (f"touch {marker}",))

    _sql(path, "UPDATE snapshots SET data = ?, format = 'pickle' WHERE event_id = ?",
         params=(pickle.dumps(Evil()), base.snapshots[0]))
    r = _recover(path)
    assert not marker.exists()
    _check(r, base, f"the pickled snapshot at event #{base.snapshots[0]} is refused", intact=True)
    assert "never unpickled" in r.summary()


def test_a_schema_1_journal_has_its_pickled_snapshots_refused_and_numbers_hands_on(bases, tmp_path):
    """A schema 1 journal: the schema is brought up to date, its pickled snapshots (even a sound
    one) are refused, never unpickled, and the table carries on from what remains, numbering
    hands on from the last one in ``hands``."""
    base = bases["closed"]
    path = _copy(base, tmp_path)
    old = base.state_at[base.snapshots[0]]
    _sql(path, "ALTER TABLE events DROP COLUMN peer_uid", "ALTER TABLE snapshots DROP COLUMN format",
         "UPDATE meta SET value = '1' WHERE key = 'schema'")
    _sql(path, "UPDATE snapshots SET data = ?", params=(pickle.dumps(old, protocol=pickle.HIGHEST_PROTOCOL),))
    r = _recover(path)
    _check(r, base, "is refused (schema 1: never unpickled)")
    assert r.next_hand() == base.hand + 1
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM snapshots").fetchone() == (0,)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (str(SCHEMA_VERSION),)
    assert "peer_uid" in {c[1] for c in db.execute("PRAGMA table_info(events)")}


# -- nonsense rows, table by table -------------------------------------------------------------
EVENT_ROWS = {
    "unknown type": ('{"type":"Teleport","ts":1.0}', "an unknown event type"),
    "renamed field": ('{"type":"ButtonPress","ts":1.0,"button":"sa"}', "a ButtonPress that does not decode"),
    "antenna 1x": ('{"type":"ReaderCycle","ts":1.0,"device":"reader","cycle":5,"reads":[["E0","1x",200]]}',
                   "a ReaderCycle that does not decode"),
    "antenna 99": ('{"type":"ReaderCycle","ts":1.0,"device":"reader","cycle":5,"reads":[["E0",99,200]]}',
                   "no antenna 1 to 16"),
    "not JSON": ("{garbage", "a row that does not decode"),
    "a string for a bool": ('{"type":"ButtonPress","ts":1.0,"name":"sa","long":"false"}', "long: a string"),
    "a NaN time": ('{"type":"Tick","ts":NaN}', "not a finite number"),
    "a list": ("[1,2,3]", "does not decode"),
}


@pytest.mark.parametrize("what", sorted(EVENT_ROWS))
def test_an_event_row_that_does_not_decode_is_skipped_and_counted(bases, tmp_path, what):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    data, says = EVENT_ROWS[what]
    _sql(path, "INSERT INTO events (ts, type, data) VALUES (1.0, 'X', ?)", params=(data,))
    _sql(path, "INSERT INTO events (ts, type, data) VALUES (1.0, 'X', ?)", params=(data,))
    r = _recover(path)
    _check(r, base, "2 event row(s) skipped", intact=True)
    assert says in r.summary()


def test_a_hand_row_that_is_no_record_is_counted_and_hands_number_on(bases, tmp_path):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    _sql(path, "INSERT INTO hands (number, ended, record) VALUES (9, 1.0, '{nope')",
         "INSERT INTO hands (number, ended, record) VALUES ('abc', 1.0, '[]')")
    r = _recover(path)
    _check(r, base, "1 finished hand record(s) unreadable")
    # hand 9 was seen: the hand in progress (4) cannot keep a number below it
    assert "renumbered 10" in r.summary() and r.next_hand() == 11


def test_an_alert_row_of_nonsense_does_not_stop_the_start(bases, tmp_path):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    _sql(path, "INSERT INTO alerts (ts, hand, code, audience, data) VALUES (1.0, 'x', 'y', 'z', '{')")
    _check(_recover(path), base, None, intact=True)


@pytest.mark.parametrize("key,value,says", [
    ("schema", "zzz", "taken for 1"),
    ("last_cycle", "abc", None),
    ("max_hand", "-5", None),
    ("dropped_through", "999999999", "older than the events kept"),
])
def test_a_meta_row_of_nonsense_is_taken_safely(bases, tmp_path, key, value, says):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    _sql(path, "INSERT OR REPLACE INTO meta VALUES (?, ?)".replace("?, ?", f"'{key}', ?"), params=(value,))
    r = _recover(path)
    _check(r, base, says, intact=says is None or says == "taken for 1")


def test_a_snapshot_row_beyond_the_last_event_of_nothing_is_passed_over(bases, tmp_path):
    base = bases["closed"]
    path = _copy(base, tmp_path)
    _sql(path, "INSERT INTO snapshots (event_id, ts, data) VALUES (1000000, 1.0, '{}')")
    _check(_recover(path), base, "the snapshot at event #1000000 cannot be read", intact=True)


def test_a_journal_of_a_newer_schema_is_refused_in_one_line_with_the_fix(bases, tmp_path):
    path = _copy(bases["closed"], tmp_path)
    _sql(path, "UPDATE meta SET value = '7' WHERE key = 'schema'")
    with pytest.raises(JournalError) as err:
        _recover(path)
    assert "\n" not in str(err.value) and "written by a newer release" in str(err.value)
    assert f"mv {path} {path}.schema7" in str(err.value)


# -- the WAL -----------------------------------------------------------------------------------
def test_a_lost_wal_is_said_with_the_hand_it_affects(bases, tmp_path):
    base = bases["crashed"]
    path = _copy(base, tmp_path)
    assert Path(f"{path}-wal").stat().st_size > 0
    Path(f"{path}-wal").unlink()
    Path(f"{path}-shm").unlink(missing_ok=True)
    r = _recover(path)
    _check(r, base, "is missing")
    assert r.hand_affected == base.hand and r.next_hand() == base.hand + 1  # hand 4 is not dealt again


def test_a_zero_byte_file_beside_a_wal_is_rebuilt_from_the_wal_not_taken_for_new(bases, tmp_path):
    base = bases["crashed"]
    path = _copy(base, tmp_path)
    path.write_bytes(b"")
    r = _recover(path)
    _check(r, base, "a zero-byte file beside a WAL of")
    assert list(tmp_path.glob("j.sqlite3.damaged-*-wal"))  # the WAL is kept for the floor


def test_a_zero_byte_file_beside_a_wal_of_garbage_says_everything_is_lost(bases, tmp_path):
    path = tmp_path / "j.sqlite3"
    path.write_bytes(b"")
    Path(f"{path}-wal").write_bytes(os.urandom(50000))
    r = _recover(path)
    assert "holds no usable copy of the journal: everything in it is lost" in r.summary()


# -- a full disk -------------------------------------------------------------------------------
def test_a_full_disk_is_one_line_and_a_count_never_a_traceback_per_event(tmp_path, caplog):
    """SQLite's own full-disk error (SQLITE_FULL: max_page_count reached, the path ENOSPC takes)."""
    from controller.config.daemon import parse_config
    from controller.daemon.main import Daemon

    cfg = parse_config(f'[reader]\nport = "loop://"\n[journal]\npath = "{tmp_path / "j.sqlite3"}"\n',
                       path=tmp_path / "t.toml")
    d = Daemon(cfg)
    d.recover()
    assert d.journal is not None and d.journal._db is not None
    pages = d.journal._db.execute("PRAGMA page_count").fetchone()[0]
    d.journal._db.execute(f"PRAGMA max_page_count = {pages}")
    with caplog.at_level(logging.DEBUG):
        for i in range(300):
            d.submit(ButtonPress(float(i), "sa", long=False))
            d._journal_effects(i + 1, [Alert(float(i), "x.y", "floor", "m" * 2000, hand=1)])
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert len(errors) == 1, [r.getMessage() for r in errors]
    assert "full" in errors[0].getMessage() and errors[0].exc_info is None
    assert len(caplog.records) <= 3  # and at most a "writing again" between
    assert d.journal_faults.failures >= 300 and d.events.qsize() == 300  # the table went on
    d.stop()


def test_journal_faults_say_it_again_each_minute_with_the_count(caplog, mocker):
    # the limiter's clock (time.monotonic, looked up at each call), held still and moved by the test
    monotonic = mocker.patch("firmware_bridge.log_limit.time.monotonic", return_value=1000.0)
    f = JournalFaults("j")
    with caplog.at_level(logging.WARNING):
        for _ in range(50):
            f.failed(OSError(28, "No space left on device"), "append")
        monotonic.return_value += 61
        f.failed(OSError(28, "No space left on device"), "append")
        f.ok()
        f.failed(OSError(28, "No space left on device"), "append")  # (within the minute: not said)
        f.ok()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 3 and "1 writes failed so far" in lines[0]
    assert lines[1] == "journal: j: 50 failed writes in the last 61 s (51 in all)"
    assert "writing again after 51 failed writes" in lines[2]


# -- tablectl run: one line and exit 2, or a start that says what was lost ----------------------
def _nobody_dir() -> Path:
    """A folder uid 65534 can reach (pytest's tmp_path is root's, 0700)."""
    d = Path(tempfile.mkdtemp(prefix="tablectl-damage-", dir="/tmp"))
    d.chmod(0o755)
    return d


def _run_as_nobody(code: OtherUserCode, cfg: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(code.tablectl("run", "--config", str(cfg)), check=False, capture_output=True, text=True,
                          timeout=timeout, cwd=cfg.parent)


def _setup_for_nobody(d: Path) -> Path:
    cfg = write_setup(d, journal=True, console=False)
    for f in d.iterdir():
        os.chown(f, NOBODY, NOBODY)
    os.chown(d, NOBODY, NOBODY)
    return cfg


def _one_line(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    return lines[0]


@pytest.mark.parametrize("case", ["foreign-owned file", "read-only file", "foreign-owned folder", "foreign WAL"])
def test_a_journal_the_service_user_cannot_write_exits_2_in_one_line_with_the_fix(bases, other_user_code, case):
    d = _nobody_dir()
    try:
        cfg = _setup_for_nobody(d)
        path = d / "journal.sqlite3"
        shutil.copy(bases["closed"].folder / "j.sqlite3", path)
        os.chown(path, NOBODY, NOBODY)
        if case == "foreign-owned file":  # someone ran `sudo tablectl run` once
            os.chown(path, 0, 0)
            path.chmod(0o600)
        elif case == "read-only file":
            path.chmod(0o400)
        elif case == "foreign-owned folder":
            os.chown(d, 0, 0)
        else:
            Path(f"{path}-wal").write_bytes(b"")
            Path(f"{path}-wal").chmod(0o600)  # root's
        before = path.read_bytes()
        line = _one_line(_run_as_nobody(other_user_code, cfg))
        fix = {"read-only file": f"chmod 600 {path}*"}.get(case, "chown nobody:")
        assert fix in line and str(d) in line, line
        assert path.read_bytes() == before  # nothing touched, nothing set aside
        assert not list(d.glob("journal.sqlite3.damaged-*"))
    finally:
        shutil.rmtree(d)


def test_the_unit_does_not_restart_on_exit_2():
    unit = (ROOT / "systemd" / "tablectl.service").read_text()
    assert "\nRestartPreventExitStatus=2\n" in unit


def test_the_daemon_starts_on_an_unreadable_snapshot_and_says_what_was_lost_in_one_line(bases, tmp_path):
    """tablectl run as a real subprocess: the newest snapshot is garbage; it falls back, runs,
    logs one line naming the loss, and the floor's alert is in the journal."""
    cfg = write_setup(tmp_path, outputs='feed = "feed.jsonl"', journal=True, console=False, seats=[1, 2, 4, 6],
                      button=6, table_extra="confirm_cycles = 2\ngone_cycles = 3")
    path = tmp_path / "journal.sqlite3"
    shutil.copy(bases["closed"].folder / "j.sqlite3", path)
    _sql(path, "UPDATE snapshots SET data = 'garbage' WHERE event_id = (SELECT max(event_id) FROM snapshots)")
    proc = subprocess.Popen([*TABLECTL, "run", "--config", str(cfg)], stderr=subprocess.PIPE, text=True)
    try:
        feed = tmp_path / "feed.jsonl"
        wait_until(lambda: feed.exists() and "Ready" in feed.read_text(), 30, what="the daemon's Ready")
        assert proc.poll() is None
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=10)
    assert "Traceback" not in err
    [line] = [x for x in err.splitlines() if "ERROR tablectl.journal" in x]
    assert f"the snapshot at event #{bases['closed'].snapshots[0]} cannot be read" in line
    assert "hand 4 affected" in line
    assert "carrying on in hand 4" in err  # from the snapshot before it, and the events since
    db = sqlite3.connect(path)
    assert db.execute("SELECT count(*) FROM alerts WHERE code = 'journal.damaged'").fetchone()[0] == 1


# -- tablectl doctor finds the same, read-only ---------------------------------------------------
DOCTOR_CASES = {
    "an unreadable snapshot": ("UPDATE snapshots SET data = '{' WHERE event_id = (SELECT max(event_id) FROM snapshots)",
                               "cannot be read"),
    "a pickled snapshot": ("UPDATE snapshots SET format = 'pickle'", "is a pickle (schema 1)"),
    "event rows that do not decode": (
        """INSERT INTO events (ts, type, data) VALUES (1.0, 'X', '{"type":"Teleport"}')""",
        "1 event row(s) do not decode"),
    "a newer schema": ("UPDATE meta SET value = '9' WHERE key = 'schema'", "written by a newer release"),
    "hand records that are not JSON": ("INSERT INTO hands (number, ended, record) VALUES (9, 1.0, '{')",
                                       "1 finished hand record(s) are not JSON"),
}


@pytest.mark.parametrize("case", sorted(DOCTOR_CASES))
def test_the_doctor_finds_what_the_start_would_salvage_and_touches_nothing(bases, tmp_path, case):
    from controller.cli import doctor
    from controller.config.daemon import JournalConfig

    path = _copy(bases["closed"], tmp_path)
    sql, says = DOCTOR_CASES[case]
    _sql(path, sql)
    before = path.read_bytes()
    me = doctor.current_identity()
    checks = doctor.check_journal(JournalConfig(path=str(path)), me, SETTINGS)
    assert any(says in c.what and c.fix for c in checks[1:]), [c.line() for c in checks]
    assert path.read_bytes() == before


def test_the_doctor_finds_a_zero_byte_journal_beside_its_wal_and_a_lost_wal(bases, tmp_path):
    from controller.cli import doctor
    from controller.config.daemon import JournalConfig
    from controller.daemon.journal import diagnose

    path = _copy(bases["crashed"], tmp_path)
    Path(f"{path}-wal").unlink()
    checks = doctor.check_journal(JournalConfig(path=str(path)), doctor.current_identity(), SETTINGS)
    assert [c.level for c in checks] == ["ok", "warn"] and "its WAL is missing" in checks[1].what
    assert not Path(f"{path}-wal").exists()  # (an empty one made by a look would hide the loss)
    assert "is missing" in _recover(path).summary()  # and the start still finds it
    other = tmp_path / "z" / "j.sqlite3"
    other.parent.mkdir()
    _copy(bases["crashed"], other.parent)
    other.write_bytes(b"")
    [(level, msg)] = diagnose(other, SETTINGS)
    assert level == "fail" and "is empty beside a WAL of" in msg
    assert Path(f"{other}-wal").stat().st_size > 0  # read-only: the WAL is still there


def test_a_journal_that_cannot_grow_is_one_line_for_the_whole_run_never_a_traceback(tmp_path):
    """A real write failure from the OS: ``tablectl run`` with RLIMIT_FSIZE just above the
    journal's size (SIGXFSZ ignored, so the write fails with EFBIG, as a full card fails with
    ENOSPC). Presses keep coming over the control socket; the log gets one line."""
    import resource
    import signal
    import socket

    cfg = write_setup(tmp_path, outputs='control = "control.sock"', journal=True, console=False)
    j = Journal(tmp_path / "journal.sqlite3")
    j.open()
    j.close()
    limit = (tmp_path / "journal.sqlite3").stat().st_size + 8192

    def small_disk() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    log_path = tmp_path / "daemon.log"
    with open(log_path, "w") as log_file:
        proc = subprocess.Popen([*TABLECTL, "run", "--config", str(cfg)], stderr=log_file,
                                preexec_fn=small_disk)  # noqa: PLW1509 (a limit, before exec)
    try:
        sock_path = tmp_path / "control.sock"
        wait_until(lambda: sock_path.exists(), 30, what="the control socket")
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(str(sock_path))
            f = s.makefile("rw")
            for _ in range(10):
                f.write('{"cmd": "press", "name": "sa"}\n')
                f.flush()
                assert json.loads(f.readline())["ok"] is True  # taken, journalled or not
        wait_until(lambda: "cannot append" in log_path.read_text(), 30, what="the failing append")
        assert proc.poll() is None  # the table goes on
    finally:
        proc.terminate()
        proc.wait(timeout=10)
    text = log_path.read_text()
    assert "Traceback" not in text
    [line] = [x for x in text.splitlines() if "cannot append" in x]
    assert "ERROR tablectl.journal" in line and "the table goes on unjournalled" in line


def test_a_snapshot_that_does_not_read_back_drops_nothing(bases, tmp_path, caplog):
    """Events go only once a newer snapshot has been written and read back (here: its check
    refuses it, as Table.from_state would a state it cannot take)."""
    from controller.core.state import StateError

    base = bases["closed"]
    path = _copy(base, tmp_path)
    j = Journal(path)
    j.open()
    before = [i for i, _ in j.events_after(0)]

    def refuse(state):
        raise StateError("state.table: refused for the test")

    with caplog.at_level(logging.ERROR):
        assert j.snapshot(before[-1], Table(SETTINGS, registry()), now=1e9, check=refuse) is False
    assert [i for i, _ in j.events_after(0)] == before
    assert [eid for eid, _ in j.snapshots()] == base.snapshots  # the refused one is gone, the others kept
    [line] = [r.getMessage() for r in caplog.records]
    assert "does not read back" in line and "kept the events" in line
    j.close()
