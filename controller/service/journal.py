"""The journal: every event before the core sees it, every alert and finished hand (SQLite, WAL).

After a crash or a power cut the daemon rebuilds the table exactly: it loads the last snapshot
of the core (taken at each hand's end, and every ``SNAPSHOT_EVERY`` events) and replays the
events journalled after it. Events older than the last snapshot are not needed any more and are
dropped with it, so the file stays small on a Pi's SD card; the history (finished hands and
their alerts) is kept for ``retention_days``.

Durability: WAL, one transaction per event, committed before the event is queued for the core.
A press, a shuffler report, a setup is committed with ``synchronous=FULL`` (fsync'd, and with it
everything before it); a reader cycle with ``NORMAL`` (no fsync of its own: a power cut may lose
the last fraction of a second of reads, which the reader reads again at once: the cards are
still where they were). A shuffler's report is acknowledged only after its commit (the link
emits before it acknowledges), so a power cut loses no report. A damaged file is never fatal:
:meth:`Journal.open` keeps what it can read, sets the rest aside and says how much was lost.

>>> import tempfile, pathlib
>>> from controller.events import ButtonPress
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
import pickle
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Iterator

from controller.effects import Alert, Effect, HandFinished, alert_to_dict
from controller.events import Event, ReaderCycle, event_from_dict, event_to_dict

log = logging.getLogger("tablectl.journal")

SCHEMA_VERSION = 1
SNAPSHOT_EVERY = 5000  # events between two snapshots in a long hand (bounds the replay)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (id INTEGER PRIMARY KEY AUTOINCREMENT, ts REAL NOT NULL, type TEXT NOT NULL,
                                   data TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS snapshots (event_id INTEGER PRIMARY KEY, ts REAL NOT NULL, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS hands (id INTEGER PRIMARY KEY, number INTEGER NOT NULL, ended REAL NOT NULL,
                                  record TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS alerts (id INTEGER PRIMARY KEY, ts REAL NOT NULL, hand INTEGER, code TEXT NOT NULL,
                                   audience TEXT NOT NULL, data TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS hands_ended ON hands (ended);
CREATE INDEX IF NOT EXISTS alerts_ts ON alerts (ts);
"""


class JournalError(RuntimeError):
    """The journal cannot be used at all (its folder is missing or not writable)."""


@dataclass(frozen=True)
class OpenInfo:
    """What :meth:`Journal.open` found."""

    fresh: bool  # a new, empty journal
    events: int  # events kept for the replay
    damaged: str | None = None  # what was wrong, if anything
    lost_bytes: int = 0  # how much of the damaged file could not be read
    set_aside: str | None = None  # where the damaged file was moved


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

    # -- opening, checking, salvaging ------------------------------------------------------
    def _connect(self, path: Path) -> sqlite3.Connection:
        db = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=FULL")
        self._sync_full = True
        return db

    def open(self) -> OpenInfo:
        """Open (or create) the journal, check it, and cut off a damaged tail."""
        if not self.path.parent.is_dir():
            raise JournalError(f"journal: folder {self.path.parent} does not exist")
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        problem = None if fresh else self._check()
        if problem is not None:
            return self._salvage(problem)
        self._db = self._connect(self.path)
        self._db.executescript(_SCHEMA)
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        events = self._db.execute("SELECT count(*) FROM events").fetchone()[0]
        return OpenInfo(fresh=fresh, events=events)

    def _check(self) -> str | None:
        try:
            db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True)
            try:
                result = db.execute("PRAGMA quick_check").fetchone()[0]
                if result != "ok":
                    return f"quick_check: {result}"
                for _, data in db.execute("SELECT id, data FROM events ORDER BY id"):
                    json.loads(data)  # an event that cannot be read is a damaged tail
            finally:
                db.close()
        except (sqlite3.DatabaseError, ValueError) as exc:
            return str(exc)
        return None

    def _salvage(self, problem: str) -> OpenInfo:
        """Move the damaged file aside and copy into a new one every row that can still be read:
        events in order up to the first that cannot, and the history."""
        aside = self.path.with_name(f"{self.path.name}.damaged-{int(time.time())}")
        size = self.path.stat().st_size
        for suffix in ("", "-wal", "-shm"):
            src = Path(str(self.path) + suffix)
            if src.exists():
                os.replace(src, Path(str(aside) + suffix))
        self._db = self._connect(self.path)
        self._db.executescript(_SCHEMA)
        self._db.execute("INSERT OR IGNORE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        kept = {"events": 0, "snapshots": 0, "hands": 0, "alerts": 0}
        kept_bytes = 0  # the size of what was read back, to say roughly how much was not
        last_id = 0
        try:
            old = sqlite3.connect(f"file:{aside}?mode=ro", uri=True)
        except sqlite3.DatabaseError:
            old = None
        if old is not None:
            for table in ("snapshots", "hands", "alerts", "events"):
                try:
                    for row in old.execute(f"SELECT * FROM {table} ORDER BY 1"):
                        if table == "events":
                            json.loads(row[3])
                            last_id = row[0]
                        self._db.execute(f"INSERT INTO {table} VALUES ({','.join('?' * len(row))})", row)
                        kept[table] += 1
                        kept_bytes += sum(len(c) if isinstance(c, (str, bytes)) else 8 for c in row)
                except (sqlite3.DatabaseError, ValueError):
                    pass  # the rest of this table is the damaged tail
            old.close()
        # A snapshot taken after the last readable event cannot be replayed onto: drop it.
        self._db.execute("DELETE FROM snapshots WHERE event_id > ?", (last_id,))
        lost = max(0, size - kept_bytes)
        log.error("journal: %s was damaged (%s); kept %d events (to #%d), %d hands, %d alerts; "
                  "about %d bytes could not be read; the damaged file is kept as %s",
                  self.path, problem, kept["events"], last_id, kept["hands"], kept["alerts"], lost, aside)
        return OpenInfo(fresh=False, events=kept["events"], damaged=problem, lost_bytes=lost, set_aside=str(aside))

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None

    # -- writing -----------------------------------------------------------------------------
    def append(self, event: Event) -> int:
        """Journal one event; returns its id. Committed (fsync'd) when this returns."""
        data = json.dumps(event_to_dict(event), separators=(",", ":"))
        full = type(event) is not ReaderCycle
        with self._lock:
            assert self._db is not None, "journal not open"
            if full is not self._sync_full:
                self._db.execute("PRAGMA synchronous=" + ("FULL" if full else "NORMAL"))
                self._sync_full = full
            cur = self._db.execute("INSERT INTO events (ts, type, data) VALUES (?, ?, ?)",
                                   (event.ts, type(event).__name__, data))
            self.appended += 1
            return int(cur.lastrowid)  # type: ignore[arg-type]

    def record(self, effects: list[Effect]) -> None:
        """Keep the alerts and finished hands among ``effects`` (the history)."""
        rows_a = [(e.ts, e.hand, e.code, e.audience, json.dumps(alert_to_dict(e)))
                  for e in effects if isinstance(e, Alert)]
        rows_h = [(e.hand, e.ts, json.dumps(e.record)) for e in effects if isinstance(e, HandFinished)]
        if not rows_a and not rows_h:
            return
        with self._lock:
            assert self._db is not None
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO alerts (ts, hand, code, audience, data) VALUES (?, ?, ?, ?, ?)",
                                 rows_a)
            self._db.executemany("INSERT INTO hands (number, ended, record) VALUES (?, ?, ?)", rows_h)
            self._db.execute("COMMIT")

    def snapshot(self, event_id: int, state: Any, *, now: float, last_cycle: int = 0) -> None:
        """Keep the core's state as of event ``event_id``; drop what it makes unneeded: older
        snapshots, the events it covers, and history older than the retention. ``last_cycle``
        is the reader cycle number reached: the events that carried it go with the snapshot."""
        blob = pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
        with self._lock:
            assert self._db is not None
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (event_id, now, blob))
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('last_cycle', ?)", (str(last_cycle),))
            self._db.execute("DELETE FROM snapshots WHERE event_id < ?", (event_id,))
            self._db.execute("DELETE FROM events WHERE id <= ?", (event_id,))
            cutoff = now - self.retention_s
            self._db.execute("DELETE FROM hands WHERE ended < ?", (cutoff,))
            self._db.execute("DELETE FROM alerts WHERE ts < ?", (cutoff,))
            self._db.execute("COMMIT")
        self._since_snapshot = 0

    def due_snapshot(self) -> bool:
        """A long hand: time for a snapshot even though no hand ended."""
        self._since_snapshot += 1
        return self._since_snapshot >= SNAPSHOT_EVERY

    # -- reading -----------------------------------------------------------------------------
    def latest_snapshot(self) -> tuple[int, Any] | None:
        with self._lock:
            assert self._db is not None
            row = self._db.execute("SELECT event_id, data FROM snapshots ORDER BY event_id DESC LIMIT 1").fetchone()
        if row is None:
            return None
        try:
            return int(row[0]), pickle.loads(row[1])
        except Exception as exc:  # a snapshot of another version of the code: replay instead
            log.warning("journal: the snapshot at event #%d cannot be loaded (%s); replaying from the start",
                        row[0], exc)
            return None

    def events_after(self, event_id: int) -> Iterator[tuple[int, Event]]:
        with self._lock:
            assert self._db is not None
            rows = self._db.execute("SELECT id, data FROM events WHERE id > ? ORDER BY id", (event_id,)).fetchall()
        for eid, data in rows:
            yield int(eid), event_from_dict(json.loads(data))

    def last_cycle(self) -> int:
        """The highest reader cycle number journalled (a restarted link counts from 1 again)."""
        with self._lock:
            assert self._db is not None
            row = self._db.execute("SELECT max(json_extract(data, '$.cycle')) FROM events "
                                   "WHERE type = 'ReaderCycle'").fetchone()
            kept = self._db.execute("SELECT value FROM meta WHERE key = 'last_cycle'").fetchone()
        return max(int(row[0] or 0), int(kept[0]) if kept else 0)

    def hands(self, *, since: float | None = None) -> list[dict[str, Any]]:
        """Finished hands, oldest first, each its record."""
        with self._lock:
            assert self._db is not None
            rows = self._db.execute("SELECT record FROM hands WHERE ended >= ? ORDER BY id",
                                    (since or 0.0,)).fetchall()
        return [json.loads(r[0]) for r in rows]
