"""The journal: every event before the core sees it, every alert and finished hand (SQLite, WAL).

After a crash or a power cut the daemon rebuilds the table exactly: it loads the last snapshot
of the core (taken at each hand's end, and every ``SNAPSHOT_EVERY`` events) and replays the
events journalled after it. A snapshot is the table's state as JSON (:mod:`controller.core.state`),
never a pickle. Events are dropped only once a newer snapshot has been written and read back,
and only those before the snapshot *before* it: a snapshot that cannot be read falls back to
the previous one and the events since. The history (finished hands and their alerts) is kept
for ``retention_days``.

Durability: WAL, one transaction per event, committed before the event is queued for the core.
A press, a shuffler report, a setup is committed with ``synchronous=FULL`` (fsync'd, and with it
everything before it); a reader cycle with ``NORMAL`` (no fsync of its own: a power cut may lose
the last fraction of a second of reads, which the reader reads again at once: the cards are
still where they were). A shuffler's report is acknowledged only after its commit (the link
emits before it acknowledges), so a power cut loses no report.

A damaged journal is never fatal (docs/journal.md): :meth:`Journal.open` keeps what it can read,
sets the rest aside, and lists what was lost in :attr:`OpenInfo.lost` for the daemon to say in
one line. What it cannot fix (a folder that is missing or not the daemon's to write, a journal
of a newer release) is a :class:`JournalError` naming the fix: ``tablectl run`` exits 2 on it.

>>> import tempfile, pathlib
>>> from controller.core.events import ButtonPress
>>> j = Journal(pathlib.Path(tempfile.mkdtemp()) / "j.sqlite3")
>>> j.open().fresh
True
>>> j.append(ButtonPress(1.0, "sa"))
1
>>> [type(e).__name__ for _, e in j.events_after(0)]
['ButtonPress']
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import sqlite3
import struct
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.core.effects import Alert, Effect, HandFinished, HandStarted, alert_to_dict
from controller.core.events import (
    EVENT_TYPES,
    Event,
    ReaderCycle,
    event_from_dict,
    event_to_dict,
)
from controller.room.outbox import SCHEMA as OUTBOX_SCHEMA
from controller.room.outbox import TABLES as OUTBOX_TABLES
from controller.room.outbox import insert_rows
from controller.core.state import StateError, check_fields
from controller.daemon.private import NotPrivate, make_private, open_private
from controller.core.table import Table
import pwd

log = logging.getLogger("tablectl.journal")

#: 1: the first journal (pickled snapshots). 2: snapshots as JSON (``format``), events with the
#: uid of the peer that sent them (``peer_uid``), ``meta`` keeps ``max_hand``, ``dropped_through``.
#: 3: the room link's outbox (``outbox``, ``outbox_topics``, ``room_commands``: room/outbox.py).
SCHEMA_VERSION = 3
SNAPSHOT_EVERY = 5000  # events between two snapshots in a long hand (bounds the replay)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, type TEXT NOT NULL,
                                   data TEXT NOT NULL, peer_uid INTEGER);
CREATE TABLE IF NOT EXISTS snapshots (event_id INTEGER PRIMARY KEY, ts REAL NOT NULL, data BLOB NOT NULL,
                                      format TEXT NOT NULL DEFAULT 'json');
CREATE TABLE IF NOT EXISTS hands (id INTEGER PRIMARY KEY, number INTEGER NOT NULL, ended REAL NOT NULL,
                                  record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, ts REAL NOT NULL, hand INTEGER, code TEXT NOT NULL,
                                   audience TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hands_ended ON hands (ended);
CREATE INDEX IF NOT EXISTS alerts_ts ON alerts (ts);
""" + OUTBOX_SCHEMA

#: schema 1 -> 2, run once in one transaction (tables made by schema 1 lack these columns)
_MIGRATE_1_2 = (
    "ALTER TABLE events ADD COLUMN peer_uid INTEGER",
    "ALTER TABLE snapshots ADD COLUMN format TEXT NOT NULL DEFAULT 'pickle'",
)


class JournalError(RuntimeError):
    """The journal cannot be used at all; the message is one line that names the fix."""


@dataclass(frozen=True)
class OpenInfo:
    """What :meth:`Journal.open` found."""

    fresh: bool  # a new, empty journal
    events: int  # events kept for the replay
    damaged: str | None = None  # what was wrong, if anything
    lost_bytes: int = 0  # how much of the damaged file could not be read
    set_aside: str | None = None  # where the damaged file was moved
    lost: list[str] = field(default_factory=list)  # what was lost, each a phrase for one log line
    wal_lost: bool = False  # the events after the last checkpoint (the last snapshot) are gone


# -- reading a journal's values, never trusting them -------------------------------------------
def decode_event(data: Any, eid: int) -> Event:
    """The event a journal row holds; ValueError (no value quoted: rows hold UIDs) otherwise."""
    kind = "a row"
    try:
        d = json.loads(data)
        if type(d) is not dict:
            raise ValueError("not an object")
        kind = f"a {str(d.get('type'))[:24]}" if d.get("type") in EVENT_TYPES else "an unknown event type"
        event = event_from_dict(d)
        check_fields(event, f"event #{eid}")
    except StateError as exc:  # (names the field, never its value: rows hold UIDs)
        raise ValueError(f"{kind} with {str(exc).split('.', 1)[-1]}") from exc
    except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
        raise ValueError(f"{kind} that does not decode ({type(exc).__name__})") from exc
    if type(event) is ReaderCycle:
        for _uid, ant, rssi in event.reads:
            if not 1 <= ant <= 16 or not 0 <= rssi <= 255:
                raise ValueError("a ReaderCycle with a read of no antenna 1 to 16, or no strength 0 to 255")
    return event


def db_from_wal(wal: Path, out: Path) -> int:
    """Build a database file from a WAL alone (its main file lost or empty): the last committed
    copy of each page, written where it belongs. Returns the pages written (0: nothing usable).
    Pages the WAL never held are zeros: what they held is lost, and the salvage says so."""
    data = wal.read_bytes()
    if len(data) < 32:
        return 0
    magic, _version, page_size, _ckpt, salt1, salt2 = struct.unpack(">IIIIII", data[:24])
    if magic not in (0x377F0682, 0x377F0683) or page_size < 512 or page_size & (page_size - 1):
        return 0
    pages: dict[int, bytes] = {}
    pending: dict[int, bytes] = {}
    off = 32
    while off + 24 + page_size <= len(data):
        pgno, commit, s1, s2 = struct.unpack(">IIII", data[off:off + 16])
        if (s1, s2) != (salt1, salt2) or pgno == 0:
            break  # frames of an older generation of the WAL, or garbage: the end of it
        pending[pgno] = data[off + 24:off + 24 + page_size]
        if commit:
            pages.update(pending)
            pending = {}
        off += 24 + page_size
    if 1 not in pages:
        return 0
    with open_private(out, "wb") as f:
        for pgno in sorted(pages):
            f.seek((pgno - 1) * page_size)
            f.write(pages[pgno])
    return len(pages)


def _rollback(db: sqlite3.Connection) -> None:
    """Undo a transaction that failed (SQLite may have undone it itself: a full disk does)."""
    if db.in_transaction:
        try:
            db.execute("ROLLBACK")
        except sqlite3.Error:
            pass


def service_user() -> str:

    try:
        return pwd.getpwuid(os.geteuid()).pw_name
    except KeyError:
        return str(os.geteuid())


def writable_problem(path: Path) -> str | None:
    """Why the daemon's user cannot use the journal at ``path``, with the fix; None if it can."""
    folder = path.parent
    user = service_user()
    if not folder.is_dir():
        return f"journal: folder {folder} does not exist; fix: mkdir -p {folder} && chown {user}: {folder}"
    if not os.access(folder, os.W_OK | os.X_OK, effective_ids=os.access in os.supports_effective_ids):
        return (f"journal: folder {folder} is not writable by {user} (it holds the journal's WAL); "
                f"fix: chown {user}: {folder}")
    for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm"), path.with_name(path.name + ".hands")):
        if p.exists() and not os.access(p, os.R_OK | os.W_OK, effective_ids=os.access in os.supports_effective_ids):
            st = p.stat()
            if st.st_uid != os.geteuid():
                return (f"journal: {p} belongs to uid {st.st_uid}, not {user}, and is not writable by it "
                        f"(was the daemon run once as another user?); fix: chown {user}: {path}*")
            return f"journal: {p} is read-only (mode {st.st_mode & 0o777:o}); fix: chmod 600 {path}*"
    return None


def new_epoch() -> str:
    """A new journal's epoch: ``e`` and 12 random hex digits (docs/room.md, "A journal has an
    identity"; never 16 hex digits, which a UID has)."""
    return "e" + secrets.token_hex(6)


class Journal:
    """One table's journal in one SQLite file. Thread-safe: device threads append events, the
    main loop records effects and snapshots."""

    def __init__(self, path: str | Path, *, retention_days: float = 30.0) -> None:
        self.path = Path(path)
        self.retention_s = retention_days * 86400.0
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.appended = 0  # events appended since open
        self._sync_full = True
        self._since_snapshot = 0
        self.skipped: Counter[str] = Counter()  # rows that could not be read, by what was wrong
        self.skipped_ids: list[int] = []
        self.snapshot_failures = 0
        self._hand_noted = 0
        self._epoch: str | None = None  # (read at the first use after open)
        #: signs the room messages it numbers (room/signing.py; the room link sets it)
        self.sign: Callable[[str, dict[str, Any]], str] | None = None

    # -- opening, checking, salvaging ------------------------------------------------------
    def _connect(self, path: Path) -> sqlite3.Connection:
        # Every read names the cards where they lie: 0600 whether the files existed or not. The
        # file is made (or made 0600) before SQLite opens it, because SQLite creates the -wal
        # and -shm with the database's own mode; side files left by an older release are fixed.
        make_private(path)
        for suffix in ("-wal", "-shm"):
            make_private(f"{path}{suffix}", create=False)
        db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        self._sync_full = True
        return db

    def open(self) -> OpenInfo:
        """Open (or create) the journal, check it, migrate it, salvage what a damaged one holds.
        Raises :class:`JournalError` (one line, with the fix) only for what it cannot fix."""
        problem = writable_problem(self.path)
        if problem is not None:
            raise JournalError(problem)
        self._hand_noted = self._hands_file()
        self._epoch = None
        try:
            return self._open()
        except sqlite3.OperationalError as exc:  # locked by another daemon, a read-only filesystem...
            self._drop_connection()
            raise JournalError(f"journal: {self.path}: cannot be opened for writing ({' '.join(str(exc).split())}); "
                               f"fix: stop any other tablectl run on it, and check the filesystem "
                               f"(df -h {self.path.parent}; mount)") from exc
        except sqlite3.DatabaseError as exc:  # damage the quick check did not see: salvage
            self._drop_connection()
            return self._salvage(" ".join(str(exc).split())[:160])
        except NotPrivate as exc:  # another user's file, readable by others: never write cards in it
            self._drop_connection()
            raise JournalError(f"journal: {exc.filename}: {exc.strerror}") from exc
        except OSError as exc:  # setting a damaged file aside failed: a full or read-only disk
            self._drop_connection()
            raise JournalError(f"journal: {self.path}: {exc.strerror or exc} while salvaging it; "
                               f"fix: free space or remount (df -h {self.path.parent}; mount)") from exc

    def _drop_connection(self) -> None:
        if self._db is not None:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
            self._db = None

    def _open(self) -> OpenInfo:
        lost: list[str] = []
        wal = Path(f"{self.path}-wal")
        size = self.path.stat().st_size if self.path.exists() else 0
        wal_size = wal.stat().st_size if wal.exists() else 0
        if size == 0 and wal_size > 0:
            # SQLite would take the empty file for a new journal and delete the WAL with
            # everything in it: rebuild the file from the WAL first, then salvage that.
            return self._from_wal_alone(wal, wal_size)
        fresh = size == 0
        wal_was_there = wal.exists()
        problem = None if fresh else self._check()
        if problem is not None:
            return self._salvage(problem)
        self._db = self._connect(self.path)
        version = self._migrate(lost)
        wal_lost = False
        if not fresh and version >= 2:
            opened = self._db.execute("SELECT value FROM meta WHERE key = 'open'").fetchone()
            if opened is not None and opened[0] == "1" and not wal_was_there:
                wal_lost = True  # (a crash leaves the WAL beside the file: it went missing)
                lost.append(f"the WAL {wal.name} is missing: what was journalled after the last snapshot "
                            "(event #{}) is lost".format(self.dropped_through_or_snapshot()))
        self._mark_open()
        events = self._db.execute("SELECT count(*) FROM events").fetchone()[0]
        return OpenInfo(fresh=fresh, events=events, lost=lost, wal_lost=wal_lost)

    def _migrate(self, lost: list[str]) -> int:
        """Bring the schema up to :data:`SCHEMA_VERSION`; refuse pickled snapshots."""
        db = self._db
        assert db is not None
        had = db.execute("SELECT name FROM sqlite_master WHERE type='table' AND name='meta'").fetchone()
        row = db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() if had else None
        try:
            version = int(row[0]) if row is not None else (1 if had else SCHEMA_VERSION)
        except ValueError:
            version = 1
            lost.append(f"the schema version {str(row[0] if row else '')[:20]!r} is no number: taken for 1")
        if version > SCHEMA_VERSION:
            db.close()
            self._db = None
            raise JournalError(f"journal: {self.path} is of schema {version}, written by a newer release "
                               f"(this one writes {SCHEMA_VERSION}); fix: run that release, or "
                               f"mv {self.path} {self.path}.schema{version} to start a new journal")
        if version < SCHEMA_VERSION and had:
            db.execute("BEGIN")
            cols = {r[1] for r in db.execute("PRAGMA table_info(events)")}
            if "peer_uid" not in cols:
                db.execute(_MIGRATE_1_2[0])
            cols = {r[1] for r in db.execute("PRAGMA table_info(snapshots)")}
            if "format" not in cols:
                db.execute(_MIGRATE_1_2[1])
            db.execute("COMMIT")
        db.executescript(_SCHEMA)
        db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        # The journal's identity (docs/room.md, "A journal has an identity"): a new journal a
        # new epoch; one of a release before epochs keeps "0", the epoch its messages had.
        db.execute("INSERT OR IGNORE INTO meta VALUES ('epoch', ?)", (new_epoch() if not had else "0",))
        self._migrate_pickles(lost)
        return version

    def _migrate_pickles(self, lost: list[str]) -> None:
        """Schema 1's snapshots were pickles. None is ever unpickled (a pickle can name any
        function to call, and a journal restored from a backup can hold anything): each is
        dropped and said, and the table carries on as after any lost snapshot, from the events
        that remain and the last hand number in ``hands`` (hand numbers never repeat)."""
        db = self._db
        assert db is not None
        for (eid,) in db.execute("SELECT event_id FROM snapshots WHERE format = 'pickle'").fetchall():
            db.execute("DELETE FROM snapshots WHERE event_id = ?", (eid,))
            lost.append(f"the pickled snapshot at event #{eid} is refused (schema 1: never unpickled)")

    def _mark_open(self) -> None:
        """'open' = 1 in the main file itself (checkpointed): found so with no WAL beside it,
        the WAL was lost. :meth:`close` sets it back."""
        assert self._db is not None
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('open', '1')")
        self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def _check(self) -> str | None:
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                result = db.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    return "quick_check: " + " / ".join(str(result).split("\n")[:2])[:160]
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
            finally:
                db.close()
        except sqlite3.DatabaseError as exc:
            return " ".join(str(exc).split())[:160]
        return None

    def _from_wal_alone(self, wal: Path, wal_size: int) -> OpenInfo:
        rebuilt = self.path.with_name(f"{self.path.name}.from-wal-{int(time.time())}")
        pages = db_from_wal(wal, rebuilt)
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        for suffix in ("-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
                make_private(Path(str(aside) + suffix), create=False)  # (kept: it holds the cards too)
        self.path.unlink()
        if pages:
            os.replace(rebuilt, self.path)
            info = self._salvage(f"a zero-byte file beside a WAL of {wal_size} bytes: rebuilt from "
                                 f"the WAL's {pages} pages")
            return OpenInfo(fresh=False, events=info.events, damaged=info.damaged, lost_bytes=info.lost_bytes,
                            set_aside=str(aside) + "-wal", lost=info.lost)
        rebuilt.unlink(missing_ok=True)
        self._db = self._connect(self.path)
        self._migrate([])
        self._mark_open()
        what = (f"a zero-byte file beside a WAL of {wal_size} bytes, which holds no usable copy of the "
                f"journal: everything in it is lost (kept as {aside}-wal)")
        return OpenInfo(fresh=False, events=0, damaged=what, lost_bytes=wal_size, set_aside=str(aside) + "-wal",
                        lost=[what])

    def _salvage(self, problem: str) -> OpenInfo:
        """Move the damaged file aside and copy into a new one every row that can still be read:
        events in order up to the first that cannot, and the history."""
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        size = self.path.stat().st_size
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
                make_private(Path(str(aside) + suffix), create=False)  # (kept: it holds the cards too)
        self._db = self._connect(self.path)
        self._db.executescript(_SCHEMA)
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        kept = {"events": 0, "snapshots": 0, "hands": 0, "alerts": 0, "meta": 0, **dict.fromkeys(OUTBOX_TABLES, 0)}
        kept_bytes = 0  # the size of what was read back, to say roughly how much was not
        last_id = 0
        try:
            old = sqlite3.connect(f"file:{aside}?mode=ro", uri=True)
        except sqlite3.DatabaseError:
            old = None
        columns = {t: [r[1] for r in self._db.execute(f"PRAGMA table_info({t})")] for t in kept}
        if old is not None:
            for table in ("meta", "snapshots", "hands", "alerts", *OUTBOX_TABLES, "events"):
                try:
                    have = [r[1] for r in old.execute(f"PRAGMA table_info({table})")]
                    cols = [c for c in columns[table] if c in have]
                    if not cols:
                        continue
                    if table == "snapshots" and "format" not in have:
                        cols.append("'pickle'")  # a schema 1 journal's: refused below
                    names = ",".join(c if c != "'pickle'" else "format" for c in cols)
                    for row in old.execute(f"SELECT {','.join(cols)} FROM {table} ORDER BY 1"):
                        if table == "events":
                            last_id = row[0]
                        self._db.execute(f"INSERT OR REPLACE INTO {table} ({names}) "
                                         f"VALUES ({','.join('?' * len(row))})", row)
                        kept[table] += 1
                        kept_bytes += sum(len(c) if isinstance(c, (str, bytes)) else 8 for c in row)
                except sqlite3.DatabaseError:
                    pass  # the rest of this table is the damaged tail
            old.close()
        self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        # A snapshot taken after the last readable event cannot be replayed onto: drop it.
        dropped = self._db.execute("DELETE FROM snapshots WHERE event_id > ?", (last_id,)).rowcount
        lost = [(f"{self.path} was damaged ({problem}); kept {kept['events']} events (to #{last_id}), "
                 f"{kept['hands']} hands, {kept['alerts']} alerts; about {max(0, size - kept_bytes)} bytes "
                 f"could not be read; the damaged file is kept as {aside}")]
        if dropped:
            lost.append(f"{dropped} snapshot(s) after the last readable event dropped")
        self._migrate_pickles(lost)
        self._mark_open()
        log.debug("journal: salvaged %s", kept)
        return OpenInfo(fresh=False, events=kept["events"], damaged=problem, lost_bytes=max(0, size - kept_bytes),
                        set_aside=str(aside), lost=lost)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                try:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('open', '0')")
                except sqlite3.Error:
                    pass  # a full disk at the end: the next open finds the WAL beside it, as after a crash
                self._db.close()
                self._db = None

    # -- writing -----------------------------------------------------------------------------
    def append(self, event: Event, *, peer_uid: int | None = None) -> int:
        """Journal one event; returns its id. Committed (fsync'd) when this returns.
        ``peer_uid``: the uid of the control socket's peer that sent it (SO_PEERCRED), if any."""
        data = json.dumps(event_to_dict(event), separators=(",", ":"))
        full = type(event) is not ReaderCycle
        with self._lock:
            assert self._db is not None, "journal not open"
            if full is not self._sync_full:
                self._db.execute("PRAGMA synchronous=" + ("FULL" if full else "NORMAL"))
                self._sync_full = full
            cur = self._db.execute("INSERT INTO events (ts, type, data, peer_uid) VALUES (?, ?, ?, ?)",
                                   (event.ts, type(event).__name__, data, peer_uid))
            self.appended += 1
            return int(cur.lastrowid)  # type: ignore[arg-type]

    @property
    def hands_path(self) -> Path:
        """A small file beside the journal with the highest hand number begun: whatever
        happens to the journal's pages, hand numbers carry on after it."""
        return self.path.with_name(self.path.name + ".hands")

    def _hands_file(self) -> int:
        try:
            text = self.hands_path.read_text(encoding="ascii")[:20]
            return max(0, int(text)) if text.strip().isdigit() else 0
        except (OSError, ValueError):
            return 0

    def note_hand(self, number: int) -> None:
        """Hand ``number`` has begun: keep it in :attr:`hands_path` (written whole, then renamed)."""
        if number <= self._hand_noted:
            return
        tmp = self.hands_path.with_name(self.hands_path.name + ".tmp")
        with open_private(tmp, "wb") as f:  # (0600: a file left there keeps its mode otherwise)
            f.write(str(number).encode())
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, self.hands_path)
        self._hand_noted = number

    def record(self, effects: list[Effect], *, outbox: list[tuple[str, int, float, dict[str, Any]]] | None = None,
               event_id: int = 0) -> None:
        """Keep the alerts and finished hands among ``effects`` (the history), and the number
        of a hand begun (:meth:`note_hand`); with ``outbox``, the room link's messages of event
        ``event_id`` (room/topics.py), numbered, in the same transaction (room/outbox.py)."""
        for e in effects:
            if type(e) is HandStarted and e.hand > self._hand_noted:
                self.note_hand(e.hand)
        rows_a = [(e.ts, e.hand, e.code, e.audience, json.dumps(alert_to_dict(e)))
                  for e in effects if isinstance(e, Alert)]
        rows_h = [(e.hand, e.ts, json.dumps(e.record)) for e in effects if isinstance(e, HandFinished)]
        if not rows_a and not rows_h and not outbox:
            return
        top = max([r[1] for r in rows_a if type(r[1]) is int] + [r[0] for r in rows_h], default=0)
        epoch = self.epoch if outbox else None
        with self._lock:
            assert self._db is not None
            self._db.execute("BEGIN")
            try:
                self._db.executemany("INSERT INTO alerts (ts, hand, code, audience, data) VALUES (?, ?, ?, ?, ?)",
                                     rows_a)
                self._db.executemany("INSERT INTO hands (number, ended, record) VALUES (?, ?, ?)", rows_h)
                if outbox:
                    insert_rows(self._db, event_id, outbox, epoch=epoch, sign=self.sign)
                if top:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('max_hand', ?)",
                                     (str(max(top, self._meta_int("max_hand"))),))
                self._db.execute("COMMIT")
            except BaseException:
                _rollback(self._db)
                raise

    def snapshot(self, event_id: int, state: Any, *, now: float, last_cycle: int = 0,
                 check: Callable[[dict[str, Any]], Any] | None = None) -> bool:
        """Keep the core's state (a table, or its :meth:`~controller.core.table.Table.to_state`) as
        of event ``event_id``. Read back (and given to ``check``, which raises if it cannot be
        taken) before anything is dropped; then the snapshots before the previous one go, with
        the events the previous one covers, and history older than the retention. ``last_cycle``
        is the reader cycle reached: the events that carried it may go. Returns whether the
        snapshot was kept."""
        if not isinstance(state, dict):
            state = state.to_state()
        text = json.dumps(state, separators=(",", ":"), allow_nan=False)
        with self._lock:
            db = self._db
            assert db is not None
            db.execute("BEGIN")
            try:
                db.execute("INSERT OR REPLACE INTO snapshots (event_id, ts, data, format) VALUES (?, ?, ?, 'json')",
                           (event_id, now, text))
                db.execute("INSERT OR REPLACE INTO meta VALUES ('last_cycle', ?)",
                           (str(max(last_cycle, self._meta_int("last_cycle"))),))
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
            row = db.execute("SELECT data FROM snapshots WHERE event_id = ?", (event_id,)).fetchone()
            try:
                if row is None or row[0] != text:
                    raise StateError("it reads back otherwise than it was written")
                if check is not None:
                    check(json.loads(row[0]))
            except Exception as exc:  # noqa: BLE001 (whatever the check raises, the snapshot is not taken)
                db.execute("DELETE FROM snapshots WHERE event_id = ?", (event_id,))
                self.snapshot_failures += 1
                log.error("journal: the snapshot at event #%d does not read back (%s); kept the events "
                          "(%d such snapshots)", event_id, exc, self.snapshot_failures)
                return False
            prev = db.execute("SELECT max(event_id) FROM snapshots WHERE event_id < ?", (event_id,)).fetchone()[0]
            cutoff = now - self.retention_s
            db.execute("BEGIN")
            try:
                if prev is not None:
                    db.execute("DELETE FROM snapshots WHERE event_id < ?", (prev,))
                    db.execute("DELETE FROM events WHERE id <= ?", (prev,))
                    db.execute("INSERT OR REPLACE INTO meta VALUES ('dropped_through', ?)",
                               (str(max(prev, self._meta_int("dropped_through"))),))
                db.execute("DELETE FROM hands WHERE ended < ?", (cutoff,))
                db.execute("DELETE FROM alerts WHERE ts < ?", (cutoff,))
                db.execute("COMMIT")
            except BaseException:
                _rollback(db)
                raise
            # Into the main file: a WAL lost later loses only what comes after this snapshot.
            db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self._since_snapshot = 0
        return True

    def due_snapshot(self) -> bool:
        """A long hand: time for a snapshot even though no hand ended."""
        self._since_snapshot += 1
        return self._since_snapshot >= SNAPSHOT_EVERY

    def with_db(self, fn: Callable[[sqlite3.Connection], Any], *, durable: bool = True) -> Any:
        """``fn(connection)`` under the journal's lock (the room link's outbox, room/outbox.py).
        ``durable=False``: what ``fn`` writes needs no fsync of its own (the broker's acks: one
        lost to a power cut is a message sent again, which the subscribers dedupe)."""
        with self._lock:
            assert self._db is not None, "journal not open"
            if not durable and self._sync_full:
                self._db.execute("PRAGMA synchronous=NORMAL")
                self._sync_full = False
            return fn(self._db)

    # -- reading -----------------------------------------------------------------------------
    @property
    def epoch(self) -> str:
        """This journal's epoch: made with it, carried by every room message (room/outbox.py). A
        salvaged journal whose meta could not be read starts a new one (its seq start over too)."""
        if self._epoch is None:
            assert self._db is not None, "journal not open"
            with self._lock:
                row = self._db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
                if row is None:
                    row = (new_epoch(),)
                    self._db.execute("INSERT OR IGNORE INTO meta VALUES ('epoch', ?)", row)
                    # A new identity numbers its messages afresh: what the outbox held (of the old
                    # epoch, whose seq a subscriber knows) is not sent again under the new one.
                    self._db.execute("DELETE FROM outbox")
                    self._db.execute("DELETE FROM outbox_topics")
            self._epoch = str(row[0])
        return self._epoch

    def _meta_int(self, key: str) -> int:
        assert self._db is not None
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        try:
            return max(0, int(row[0])) if row is not None else 0
        except (TypeError, ValueError):
            return 0

    def dropped_through(self) -> int:
        """The last event id dropped with a snapshot: a snapshot before it cannot be replayed onto."""
        with self._lock:
            return self._meta_int("dropped_through")

    def dropped_through_or_snapshot(self) -> int:
        assert self._db is not None
        row = self._db.execute("SELECT max(event_id) FROM snapshots").fetchone()
        return int(row[0] or 0) if type(row[0]) in (int, type(None)) else 0

    def snapshots(self) -> list[tuple[int, str]]:
        """``(event_id, JSON text)`` of the snapshots kept, newest first."""
        with self._lock:
            assert self._db is not None
            rows = self._db.execute("SELECT event_id, data, format FROM snapshots ORDER BY event_id DESC").fetchall()
        out = []
        for eid, data, fmt in rows:
            if type(eid) is not int:
                continue
            if fmt != "json":  # (migrated at open; a row that was not is no snapshot to read)
                data = b"\0"
            out.append((eid, data.decode("utf-8", "replace") if isinstance(data, bytes) else str(data)))
        return out

    def latest_snapshot(self) -> tuple[int, dict[str, Any]] | None:
        """The newest snapshot that parses as JSON: ``(event_id, state)``; None if none does."""
        for eid, text in self.snapshots():
            try:
                state = json.loads(text)
            except (ValueError, RecursionError):
                continue
            if isinstance(state, dict):
                return eid, state
        return None

    def events_after(self, event_id: int) -> Iterator[tuple[int, Event]]:
        """The events after ``event_id``, in order. A row that cannot be read as an event is
        skipped and counted in :attr:`skipped` (by what was wrong) and :attr:`skipped_ids`."""
        with self._lock:
            assert self._db is not None
            rows = self._db.execute("SELECT id, data FROM events WHERE id > ? ORDER BY id", (event_id,)).fetchall()
        for eid, data in rows:
            try:
                event = decode_event(data, eid)
            except ValueError as exc:
                self.skipped[str(exc)[:80]] += 1
                self.skipped_ids.append(int(eid))
                continue
            yield int(eid), event

    def count_events_after(self, event_id: int) -> int:
        with self._lock:
            assert self._db is not None
            return int(self._db.execute("SELECT count(*) FROM events WHERE id > ?", (event_id,)).fetchone()[0])

    def last_cycle(self) -> int:
        """The highest reader cycle number journalled (a restarted link counts from 1 again)."""
        with self._lock:
            assert self._db is not None
            try:
                row = self._db.execute("SELECT max(json_extract(data, '$.cycle')) FROM events "
                                       "WHERE type = 'ReaderCycle' AND json_valid(data)").fetchone()
                top = row[0] if type(row[0]) is int else 0
            except sqlite3.DatabaseError:
                top = 0
            return max(top, self._meta_int("last_cycle"))

    def max_hand(self) -> int:
        """The highest hand number the journal has seen: in finished hands, in alerts, or kept
        in ``meta``. The next hand is numbered after it, whatever else was lost."""
        with self._lock:
            assert self._db is not None
            h = self._db.execute("SELECT max(number) FROM hands WHERE typeof(number) = 'integer'").fetchone()[0]
            a = self._db.execute("SELECT max(hand) FROM alerts WHERE typeof(hand) = 'integer'").fetchone()[0]
            return max(h or 0, a or 0, self._meta_int("max_hand"), self._hands_file())

    def hands(self, *, since: float | None = None) -> list[dict[str, Any]]:
        """Finished hands, oldest first, each its record (rows that cannot be read skipped)."""
        with self._lock:
            assert self._db is not None
            rows = self._db.execute("SELECT record FROM hands WHERE ended >= ? ORDER BY id",
                                    (since or 0.0,)).fetchall()
        out = []
        for (text,) in rows:
            try:
                rec = json.loads(text)
            except (TypeError, ValueError, RecursionError):
                self.skipped["a finished hand's record that is no JSON"] += 1
                continue
            if isinstance(rec, dict):
                out.append(rec)
        return out


def diagnose(path: str | Path, settings: Any = None) -> list[tuple[str, str]]:
    """What the daemon's start would find wrong with the journal at ``path``, read-only (for
    ``tablectl doctor``): ``(level, message)`` pairs, ``fail`` or ``warn``; empty if nothing."""
    path = Path(path)
    wal = Path(f"{path}-wal")
    out: list[tuple[str, str]] = []
    if not path.exists():
        return out
    size, wal_size = path.stat().st_size, (wal.stat().st_size if wal.exists() else 0)
    wal_was_there = wal.exists()  # (before SQLite is asked: reading may make an empty one)
    if size == 0:
        if wal_size:
            out.append(("fail", (f"journal: {path} is empty beside a WAL of {wal_size} bytes: the daemon rebuilds "
                                 "what it can from the WAL at its next start and says what is lost; never delete "
                                 "the WAL")))
        return out
    try:
        # Without a WAL, immutable: SQLite would make an empty WAL, and the next start would
        # then not know that the WAL was lost.
        db = sqlite3.connect(f"file:{path}?mode=ro" + ("" if wal_was_there else "&immutable=1"), uri=True,
                             timeout=2.0)
    except sqlite3.Error:
        return out  # (the integrity check says so)
    try:
        _diagnose_tables(db, path, settings, wal_was_there, out)
    except sqlite3.Error:
        pass  # a file SQLite cannot read: the integrity check (doctor.inspect_journal) says so
    finally:
        db.close()
    return out


def _diagnose_tables(db: sqlite3.Connection, path: Path, settings: Any, wal_was_there: bool,
                     out: list[tuple[str, str]]) -> None:
    """:func:`diagnose`'s findings table by table, appended to ``out`` as each table is read (an
    SQLite error in a later table leaves those of the earlier ones there)."""
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "meta" in tables:
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        schema = str(meta.get("schema", "1"))
        if schema.isdigit() and int(schema) > SCHEMA_VERSION:
            out.append(("fail", (f"journal: {path} is of schema {schema}, written by a newer release: "
                                 f"tablectl run refuses it (exit 2)")))
            return  # (nothing else of it is read: this release cannot tell what is wrong in it)
        if meta.get("open") == "1" and not wal_was_there:
            out.append(("warn", (f"journal: {path} was left open and its WAL is missing: what was journalled "
                                 "after its last snapshot is lost (said at the next start)")))
    if "snapshots" in tables:
        out.extend(_snapshot_findings(db, settings))
    if "events" in tables:
        out.extend(_event_findings(db))
    if "hands" in tables:
        out.extend(_hand_findings(db))


def _snapshot_findings(db: sqlite3.Connection, settings: Any) -> list[tuple[str, str]]:
    """Each snapshot the next start cannot take: a pickle (schema 1), or a state that does not
    read (against ``settings`` when given: a state of another configuration is a warning)."""
    out: list[tuple[str, str]] = []
    cols = {r[1] for r in db.execute("PRAGMA table_info(snapshots)")}
    fmt = "format" if "format" in cols else "'pickle'"
    rows = db.execute(f"SELECT event_id, data, {fmt} FROM snapshots ORDER BY event_id DESC").fetchall()
    for eid, data, f in rows:
        if f == "pickle":
            out.append(("warn", (f"journal: the snapshot at event #{eid} is a pickle (schema 1): the next "
                                 "start refuses it (never unpickled) and carries on from the events that "
                                 "remain and the last hand number")))
            continue
        try:
            state = json.loads(data)
            if settings is not None:
                Table.from_state(state, settings)
        except (StateError, ValueError, TypeError, RecursionError) as exc:
            level = "warn" if "configuration changed" in str(exc) else "fail"
            out.append((level, (f"journal: the snapshot at event #{eid} cannot be read "
                                f"({str(exc)[:120]}): the next start falls back to the one before it")))
    return out


def _event_findings(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """The event rows that do not decode, counted by what is wrong (one warning)."""
    bad: Counter[str] = Counter()
    for eid, data in db.execute("SELECT id, data FROM events"):
        try:
            decode_event(data, eid)
        except ValueError as exc:
            bad[str(exc)[:80]] += 1
    if not bad:
        return []
    return [("warn", (f"journal: {sum(bad.values())} event row(s) do not decode ("
                      + ", ".join(f"{n} {r}" for r, n in bad.most_common(3)))
             + "): the next start skips and counts them")]


def _hand_findings(db: sqlite3.Connection) -> list[tuple[str, str]]:
    """The finished hands' records that are not JSON, counted (one warning)."""
    n = 0
    for (text,) in db.execute("SELECT record FROM hands"):
        try:
            json.loads(text)
        except (TypeError, ValueError, RecursionError):
            n += 1
    if not n:
        return []
    return [("warn", f"journal: {n} finished hand record(s) are not JSON: history skips them")]
