"""The floor's own records in SQLite (0600): every table's state, floor alerts and their
acknowledgements, hand records with their hash chain checked, the tournaments it runs (their
level clocks, hand-for-hand, the bubble: controller/floor/director.py), and (:mod:`.auth`) users,
sessions and the audit log.

Fed from the broker: each message of a numbered topic is kept once by ``(room, table, topic,
seq)`` (a redelivery is dropped), and a ``seq`` beyond the next one expected is a gap, which
:meth:`Store.ingest` reports so that the service asks the table to ``replay`` it (docs/room.md).
Each gap is asked for once when it opens and once each time its table comes back, then on a
schedule kept here (10 s, doubling up to 5 minutes: :meth:`Store.due_gaps`); never while its table
is away. One the table cannot fill (an earlier journal; rows it no longer has) is closed and
noted on the tile as lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Iterator
from typing import Any, NamedTuple

from controller.core.cards import parse_card
from controller.floor import schema
from controller.floor.rules import CALL, severity
from controller.room.outbox import SIGNED, hand_hash
from controller.room import strict_json
from controller.room.signing import verify

#: the topics with a ``seq`` the floor receives
NUMBERED = ("events/floor", "events/dealer", "hands")
#: the floor's topics (the shipped ACL's floor lines)
SUBSCRIBED = ("state", *NUMBERED, "cmd/reply")
#: a gap is asked for when it opens and when its table comes back; then again after this many
#: seconds, the wait doubling each time up to :data:`REPLAY_WAIT_MOST` (a replay in flight fills
#: it meanwhile; a table that cannot fill it is not asked every few seconds for ever)
REPLAY_WAIT_FIRST = 10.0
REPLAY_WAIT_MOST = 300.0
#: the most messages one ``replay`` brings (controller/daemon/room_commands.py, MAX_REPLAY): a gap
#: that is still open beyond what the last request could bring is a new gap, asked at once
REPLAY_MOST = 5000
#: why a gap was closed unfilled (the tile's note: "12 messages lost: an earlier journal")
LOST_EARLIER = "an earlier journal"
LOST_NO_ROW = "the table no longer has them"
LOST_REFUSED = "the table refused the replay"
#: a command the table has not answered within this many seconds is shown as failed (or, the
#: table offline, as queued: the broker keeps it in the table's session until it is back)
COMMAND_TIMEOUT = 10.0
#: a command's reason while its table is offline (the broker keeps it in the table's session)
QUEUED = "queued: table offline"
#: the note a command waiting for its answer is given when its table refuses a request it could
#: not read, naming no command (:meth:`Store.refused_unread`)
NOTE_UNREAD = ("meanwhile the table refused a request it could not read, naming none (a table of an earlier "
               "release, or a request not from this floor)")
#: the floor database's schema version (PRAGMA user_version), migrated in place at open (4: the
#: tournaments)
SCHEMA_VERSION = 4
ZERO_HASH = "0" * 64

#: the dealer a hand record names (RELIEF-003: the table's own, from its core)
RECORD_DEALER = "json_extract(record, '$.dealer')"

SCHEMA = """
CREATE TABLE IF NOT EXISTS messages (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', topic TEXT, seq INTEGER,
    received REAL, payload TEXT, PRIMARY KEY (room, tbl, epoch, topic, seq));
CREATE TABLE IF NOT EXISTS cursors (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', topic TEXT,
    contiguous INTEGER, asked_from INTEGER, asked_at REAL, PRIMARY KEY (room, tbl, epoch, topic));
CREATE TABLE IF NOT EXISTS tables (room TEXT, tbl TEXT, state TEXT, updated REAL, PRIMARY KEY (room, tbl));
CREATE TABLE IF NOT EXISTS epochs (room TEXT, tbl TEXT, epoch TEXT, first_seen REAL, n INTEGER,
    PRIMARY KEY (room, tbl, epoch));
CREATE TABLE IF NOT EXISTS alerts (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', seq INTEGER, ts REAL,
    hand INTEGER, seat INTEGER, rule TEXT, code TEXT, card TEXT, message TEXT, dealer TEXT,
    PRIMARY KEY (room, tbl, epoch, seq));
CREATE TABLE IF NOT EXISTS acks (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', ack_seq INTEGER, user TEXT,
    ts REAL, how TEXT, PRIMARY KEY (room, tbl, epoch, ack_seq));
CREATE TABLE IF NOT EXISTS hands (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', seq INTEGER, hand INTEGER,
    ts REAL, hash TEXT, prev TEXT, record TEXT, PRIMARY KEY (room, tbl, epoch, seq));
CREATE TABLE IF NOT EXISTS chain_breaks (id INTEGER PRIMARY KEY, room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0',
    seq INTEGER, problem TEXT, found REAL);
CREATE TABLE IF NOT EXISTS users (name TEXT PRIMARY KEY, role TEXT NOT NULL, hash TEXT NOT NULL,
    failures INTEGER NOT NULL DEFAULT 0, locked_until REAL NOT NULL DEFAULT 0, created REAL);
CREATE TABLE IF NOT EXISTS sessions (token TEXT PRIMARY KEY, user TEXT NOT NULL, csrf TEXT NOT NULL,
    created REAL, seen REAL);
CREATE TABLE IF NOT EXISTS commands (id TEXT PRIMARY KEY, room TEXT, tbl TEXT, user TEXT, body TEXT, sent REAL,
    reply TEXT, replied REAL, status TEXT NOT NULL DEFAULT 'sent', reason TEXT, retry_of TEXT);
CREATE TABLE IF NOT EXISTS suspects (id INTEGER PRIMARY KEY, room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0',
    topic TEXT, seq INTEGER, problem TEXT, found REAL);
CREATE TABLE IF NOT EXISTS audit (id INTEGER PRIMARY KEY, ts REAL, user TEXT, action TEXT, detail TEXT);
CREATE TABLE IF NOT EXISTS incidents (room TEXT, tbl TEXT, epoch TEXT NOT NULL DEFAULT '0', seq INTEGER, ts REAL,
    hand INTEGER, seat INTEGER, rule TEXT, code TEXT, count INTEGER, message TEXT, dealer TEXT,
    PRIMARY KEY (room, tbl, epoch, seq));
CREATE TABLE IF NOT EXISTS retired (room TEXT, tbl TEXT, user TEXT, ts REAL, PRIMARY KEY (room, tbl));
CREATE TABLE IF NOT EXISTS tournaments (name TEXT PRIMARY KEY, state TEXT NOT NULL, updated REAL);
CREATE TABLE IF NOT EXISTS gaps (room TEXT, tbl TEXT, epoch TEXT, topic TEXT, first INTEGER, reach INTEGER,
    asked_at REAL, due REAL, wait REAL, PRIMARY KEY (room, tbl, epoch, topic));
CREATE TABLE IF NOT EXISTS lost (id INTEGER PRIMARY KEY, room TEXT, tbl TEXT, epoch TEXT, topic TEXT,
    first INTEGER, last INTEGER, n INTEGER, why TEXT, found REAL);
"""
#: made after the migration (a table rebuilt by it would lose its index)
INDEXES = """
CREATE INDEX IF NOT EXISTS incidents_by_time ON incidents (ts);
CREATE INDEX IF NOT EXISTS chain_breaks_by_table ON chain_breaks (room, tbl);
CREATE INDEX IF NOT EXISTS suspects_by_table ON suspects (room, tbl);
CREATE INDEX IF NOT EXISTS alerts_by_time ON alerts (ts);
CREATE INDEX IF NOT EXISTS lost_by_table ON lost (room, tbl);
"""
#: (made at each open: a database of an earlier release, or one whose gaps table lags its
#: cursors) every open gap of a table's journal now, from the cursors, as not yet asked: it is
#: asked when its table is next seen online
GAPS_FROM_CURSORS = """
INSERT OR IGNORE INTO gaps (room, tbl, epoch, topic, first, reach, asked_at, due, wait)
SELECT c.room, c.tbl, c.epoch, c.topic, c.contiguous + 1, NULL, NULL, NULL, ? FROM cursors c
WHERE c.epoch = (SELECT e.epoch FROM epochs e WHERE e.room = c.room AND e.tbl = c.tbl ORDER BY e.n DESC LIMIT 1)
AND EXISTS (SELECT 1 FROM messages m WHERE m.room = c.room AND m.tbl = c.tbl AND m.epoch = c.epoch
            AND m.topic = c.topic AND m.seq > c.contiguous)
"""
#: what the floor keeps of a dealer's incident (an ``Alert`` on ``events/dealer``: a misdeal, a
#: procedure, a device), in the incidents table's order after its key
INCIDENT_FIELDS = ("ts", "hand", "seat", "rule", "code", "count", "message", "dealer")
#: the tables keyed by a journal's epoch since schema 2, rebuilt from schema 0 and 1 in place
#: (their rows taken as of epoch "0": a table of a release before epochs)
EPOCH_TABLES = ("messages", "cursors", "alerts", "acks", "hands", "chain_breaks", "suspects")
#: a seq this far ahead of the last one seen on its topic is refused and flagged once, not
#: answered with a replay of everything between (a table that lies, or a corrupted counter)
MAX_JUMP = 10_000
#: a journal's epoch as the tables write it (``e`` and 12 hex digits; "0" before epochs); at most
#: this long, of these characters
EPOCH_CHARS = frozenset("0123456789abcdefghijklmnopqrstuvwxyz-")


#: the deepest nesting a table's message has (a hand record: record, zones, a zone's list) with
#: room to spare; anything deeper is not a table's
MAX_DEPTH = 12




def _depth(value: Any) -> int:
    """How deep ``value`` nests (a scalar: 0), without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            deepest = max(deepest, d)
            stack.extend((x, d + 1) for x in v)
    return deepest


def _message_body(payload: bytes) -> tuple[dict[str, Any] | None, str]:
    """A message's JSON object, or None and what is wrong with it, in words that quote none of
    it (it may name a card): not UTF-8, not JSON (NaN, a key given twice), not an object, or
    nested deeper than :data:`MAX_DEPTH`."""
    try:
        # (UTF-8 before JSON: json.loads would take UTF-16 or UTF-32 bytes too, which no table sends
        # and which the store, keeping the message's text, could not keep)
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"not UTF-8 text (byte {exc.start})"
    try:
        body = strict_json.loads(text)
    except json.JSONDecodeError as exc:  # (its msg says what was expected, never what was there)
        return None, f"not JSON ({exc.msg})"
    except RecursionError:
        return None, "not JSON the floor can read (nested too deep)"
    except ValueError as exc:  # (the strict reader's: NaN or Infinity, a key given twice; a number too long)
        return None, f"not JSON the floor takes ({str(exc)[:80]})"
    if not isinstance(body, dict):
        return None, f"not a JSON object (a {_JSON_KIND.get(type(body), 'value')})"
    if _depth(body) > MAX_DEPTH:
        # (a message nested deeper than any table's is refused: stored, it would fail later
        # to parse on the web server's deeper stack, and take the room's page down with it)
        return None, f"nested more than {MAX_DEPTH} deep (no table's message is)"
    return body, ""


#: what a JSON value that is not an object is called in a refusal
_JSON_KIND = {list: "list", int: "number", float: "number", str: "string", bool: "true or false",
              type(None): "null"}


class Ask(NamedTuple):
    """A ``replay`` to send: the topic, its first missing seq (``from``) and the end of the hole
    (``to``; None: a table of a release that takes none)."""

    topic: str
    start: int
    to: int | None


@dataclass
class Ingested:
    """What one message changed: ``kind`` is state, alert, ack, hand, reply, other, duplicate,
    ignored, or suspect (a message the table had no right to send: an Ack of a command this floor
    never sent); ``gap``: ``(topic, from)`` to ask again with ``replay``; ``breaks``: chain
    problems, or what is suspect."""

    kind: str
    room: str = ""
    table: str = ""
    body: dict[str, Any] = field(default_factory=dict)
    gap: Ask | None = None
    breaks: list[str] = field(default_factory=list)
    #: a table back online (or seen online for the first time since the service started): every
    #: gap of its still open, asked again (an earlier request may have been lost to it)
    regaps: list[Ask] = field(default_factory=list)
    #: gaps closed unfilled: ``(topic, note)``, the note as the tile says it ("12 messages lost:
    #: an earlier journal")
    closed: list[tuple[str, str]] = field(default_factory=list)


def split_topic(topic: str) -> tuple[str, str, str] | None:
    """``tablectl/<room>/<table>/<rest>`` -> (room, table, rest), or None for anything else."""
    parts = topic.split("/", 3)
    if len(parts) != 4 or parts[0] != "tablectl" or not parts[1] or not parts[2]:
        return None
    return parts[1], parts[2], parts[3]


def open_private(path: str) -> sqlite3.Connection:
    """The database at ``path``, created 0600 (it holds cards); an existing one is made 0600.

    WAL, ``synchronous=NORMAL``: a page's own writes (a session seen, an audit line) cost no fsync
    each; the broker's messages are committed with ``FULL`` (:meth:`Store.batch`), whose fsync of
    the log makes everything before it durable too."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    os.close(fd)
    os.chmod(path, 0o600)
    db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=NORMAL")
    return db


class Store:
    """The floor's database. One thread uses it at a time (the service's event loop)."""

    def __init__(self, path: str | Path, *, clock: Any = time.time, keys: dict[str, str] | None = None,
                 require_signatures: bool = False) -> None:
        self.path = str(path)
        self.clock = clock
        #: "room/table" -> its public signing key: its records' signatures checked (room/signing.py)
        self.keys = dict(keys or {})
        #: a table with no key in ``keys``: its records refused (``[floor] require_signatures``)
        self.require_signatures = require_signatures
        self._in_batch = False
        #: the tables seen online since the service started, and not since said offline: a replay
        #: is published to these only (a request to a table away waits in its broker session, and
        #: reaches it later, maybe for a journal it no longer has); one seen again is a table back
        self._online: set[tuple[str, str]] = set()
        #: the tables that refused a replay's ``to`` (a release before it): asked without it
        self._no_to: set[tuple[str, str]] = set()
        self.db = open_private(self.path)
        self.db.executescript(SCHEMA)
        self._migrate()
        self.db.executescript(INDEXES)
        self.db.execute(GAPS_FROM_CURSORS, (REPLAY_WAIT_FIRST,))

    def _migrate(self) -> None:
        """Bring an older database to :data:`SCHEMA_VERSION` in place (nothing it holds is lost)."""
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version >= SCHEMA_VERSION:
            return
        if "dealer" not in {r[1] for r in self.db.execute("PRAGMA table_info(alerts)")}:
            # (a database of the first release: its alerts name no dealer)
            self.db.execute("ALTER TABLE alerts ADD COLUMN dealer TEXT")
        for name in EPOCH_TABLES:
            cols = [r[1] for r in self.db.execute(f"PRAGMA table_info({name})")]
            if "epoch" in cols:
                continue
            # (schema 0 and 1: keyed without the journal's epoch; rebuilt with it, every row kept)
            self.db.execute("BEGIN")
            self.db.execute(f"ALTER TABLE {name} RENAME TO {name}_v1")
            create = next(stmt for stmt in SCHEMA.split(";") if f"EXISTS {name} (" in stmt)
            self.db.execute(create)
            new_cols = [r[1] for r in self.db.execute(f"PRAGMA table_info({name})")]
            common = ", ".join(c for c in cols if c in new_cols)
            self.db.execute(f"INSERT INTO {name} ({common}, epoch) SELECT {common}, '0' FROM {name}_v1")
            self.db.execute(f"DROP TABLE {name}_v1")
            self.db.execute("COMMIT")
        have = {r[1] for r in self.db.execute("PRAGMA table_info(commands)")}
        for column, decl in (("status", "TEXT NOT NULL DEFAULT 'sent'"), ("reason", "TEXT"), ("retry_of", "TEXT")):
            if column not in have:  # (version 0: commands had no status; those answered are confirmed)
                self.db.execute(f"ALTER TABLE commands ADD COLUMN {column} {decl}")
        self.db.execute("UPDATE commands SET status = CASE WHEN json_extract(reply, '$.ok') THEN 'confirmed' "
                        "ELSE 'refused' END WHERE reply IS NOT NULL AND status = 'sent'")
        if "how" not in {r[1] for r in self.db.execute("PRAGMA table_info(acks)")}:
            # (schema 2: every acknowledgement was the table's, or the floor's of an earlier journal)
            self.db.execute("ALTER TABLE acks ADD COLUMN how TEXT")
        # (schema 3 had no tournaments: its table is made by SCHEMA, empty: each tournament's clock
        # waits for its start)
        # (schema 2 kept the dealer's incidents as messages only: the lane gets them from there)
        self.db.execute("INSERT OR IGNORE INTO incidents SELECT room, tbl, epoch, seq, " + ", ".join(
            f"json_extract(payload, '$.{f}')" for f in INCIDENT_FIELDS) + " FROM messages "
            "WHERE topic = 'events/dealer' AND json_extract(payload, '$.type') = 'Alert'")
        self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def close(self) -> None:
        self.db.close()

    @contextlib.contextmanager
    def batch(self, *, durable: bool = False) -> Iterator[None]:
        """Many :meth:`ingest` calls in one transaction (each message its own savepoint: one that
        fails is undone alone). ``durable``: committed with ``synchronous=FULL``, on the disk when
        this returns (WAL: one fsync of the log, at the commit), so that a power cut loses nothing
        the service then acknowledges to the broker. A commit that fails is rolled back whole, and
        raises (sqlite3.Error)."""
        if durable:
            self.db.execute("PRAGMA synchronous=FULL")  # (set outside the transaction, for its commit)
        try:
            self.db.execute("BEGIN IMMEDIATE")
            self._in_batch = True
            try:
                yield
                self._in_batch = False
                self.db.execute("COMMIT")
            except BaseException:
                self._in_batch = False
                if self.db.in_transaction:  # (a COMMIT that failed leaves its transaction open)
                    self.db.execute("ROLLBACK")
                raise
        finally:
            if durable:
                self.db.execute("PRAGMA synchronous=NORMAL")

    # -- from the broker -----------------------------------------------------------------------
    def ingest(self, topic: str, payload: bytes) -> Ingested:
        """Keep one message from the broker; never raises on its content."""
        # (the floor's hot path: each step below is inline or one plain call, nothing done twice)
        where = split_topic(topic)
        if where is None:
            return Ingested("ignored")  # (no table's: the service logs it, now and then)
        room, table, rest = where
        now = self.clock()
        body, wrong = _message_body(payload)
        if body is None:
            return self.refuse(room, table, rest, wrong, now=now)
        epoch = body.get("epoch", "0")
        if not (type(epoch) is str and 0 < len(epoch) <= 32 and set(epoch) <= EPOCH_CHARS):
            return self.refuse(room, table, rest, "epoch: want a journal's epoch (up to 32 of a-z, 0-9 and -)",
                               now=now)
        if rest not in SUBSCRIBED:  # (no topic the floor reads: its subscriptions never bring one)
            return self.refuse(room, table, rest, "not a topic the floor reads", now=now)
        off = schema.check(rest, body, room, table)
        if off is not None:
            return self._off_schema(room, table, epoch, rest, body, off, now)
        if rest == "state":
            if self.require_signatures and f"{room}/{table}" not in self.keys:
                return self._unkeyed_state(room, table, epoch, body, now)
            return self._state(room, table, body, now)
        if rest == "cmd/reply":
            out = Ingested("reply", room, table, body)
            self._reply(room, table, body, now, out)
            return out
        seq = body["seq"]  # (schema.check: a whole number 1 to 2**62 on every numbered topic)
        return self._numbered_atomically(room, table, epoch, rest, seq, body, payload, now)

    def refuse(self, room: str, table: str, rest: str, wrong: str, *, now: float | None = None) -> Ingested:
        """A message on ``room/table``'s topic ``rest`` that cannot be read at all (``wrong``: why,
        in words that quote none of it), kept out and counted on the tile as every refused message
        is. Its journal unknown, it is counted under epoch "0"."""
        problem = f"{rest}: {wrong}"[:300]
        self.db.execute("INSERT INTO suspects (room, tbl, topic, problem, found) VALUES (?, ?, ?, ?, ?)",
                        (room, table, rest, problem, self.clock() if now is None else now))
        return Ingested("suspect", room, table, breaks=[problem])

    def _off_schema(self, room: str, table: str, epoch: str, rest: str, body: dict[str, Any], wrong: str,
                    now: float) -> Ingested:
        """A message its topic's schema refuses (``wrong``: why), kept out and counted as suspect."""
        # (a table speaks only for itself, in its own fields: anything else is kept out)
        seq = body.get("seq") if type(body.get("seq")) is int else None
        problem = f"{rest}{f' seq {seq}' if seq is not None else ''}: {wrong}"
        # (a seq SQLite cannot hold, 2**63 or more, is said in the problem's words, not kept in its column)
        column = seq if seq is not None and -(1 << 63) <= seq < (1 << 63) else None
        if column is not None and rest in NUMBERED and self._said(room, table, epoch, rest, column, problem[:300]):
            return Ingested("duplicate", room, table, body)
        self.db.execute("INSERT INTO suspects (room, tbl, epoch, topic, seq, problem, found) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?)", (room, table, epoch, rest, column, problem[:300], now))
        return Ingested("suspect", room, table, body, breaks=[problem[:300]])

    def _said(self, room: str, table: str, epoch: str, topic: str, seq: int, problem: str) -> bool:
        """Whether this very problem of this numbered message is counted already: the same message
        sent again by the broker (it was committed, and the service stopped before acknowledging
        it), counted once as any message is kept once."""
        return self.db.execute("SELECT 1 FROM suspects WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                               "AND seq = ? AND problem = ? LIMIT 1",
                               (room, table, epoch, topic, seq, problem)).fetchone() is not None

    def _state(self, room: str, table: str, body: dict[str, Any], now: float) -> Ingested:
        """A table's retained state kept as its tile's; a table back online (offline before, or not
        seen since the service started) has its open gaps asked again, once: a table sends states
        all along (about 8 a hand), and each is not a reason to ask again."""
        key = (room, table)
        if body.get("online") is False:  # (the will says only that: the tile keeps what was last known)
            self._online.discard(key)
            row = self.db.execute("SELECT state FROM tables WHERE room = ? AND tbl = ?", (room, table)).fetchone()
            body = {**json.loads(row[0]), **body} if row is not None else body
        # (the epoch of a table's journal is taken from its numbered messages only: those are
        # signed, the retained state is not)
        self.db.execute("INSERT OR REPLACE INTO tables (room, tbl, state, updated) VALUES (?, ?, ?, ?)",
                        (room, table, json.dumps(body), now))
        regaps: list[Ask] = []
        if body.get("online") is True and key not in self._online:
            self._online.add(key)
            regaps = self._back(room, table, now)
        return Ingested("state", room, table, body, regaps=regaps)

    def _unkeyed_state(self, room: str, table: str, epoch: str, body: dict[str, Any], now: float) -> Ingested:
        """A ``state`` from a table the floor has no key for, under ``require_signatures``: its
        records are refused, and a state is never signed, so whoever can publish there could
        invent the table. Its tile is kept as ``unsigned`` and never online (no gap asked of it,
        no command taken as delivered), and it is counted as a suspect once: a table sends
        several states a hand, each would be one more row and one more log line."""
        kept = {**body, "online": False, "unsigned": True}
        self.db.execute("INSERT OR REPLACE INTO tables (room, tbl, state, updated) VALUES (?, ?, ?, ?)",
                        (room, table, json.dumps(kept), now))
        problem = "state: a table the floor has no key for ([floor.tables]): shown unsigned, never online"
        said = self.db.execute("SELECT 1 FROM suspects WHERE room = ? AND tbl = ? AND topic = 'state' AND problem = ?",
                               (room, table, problem)).fetchone()
        if said is not None:
            return Ingested("state", room, table, kept)
        self.db.execute("INSERT INTO suspects (room, tbl, epoch, topic, seq, problem, found) "
                        "VALUES (?, ?, ?, 'state', NULL, ?, ?)", (room, table, epoch, problem, now))
        return Ingested("suspect", room, table, kept, breaks=[problem])

    def _numbered_atomically(self, room: str, table: str, epoch: str, rest: str, seq: int, body: dict[str, Any],
                             payload: bytes, now: float) -> Ingested:
        """:meth:`_numbered` in a transaction of its own, or a savepoint of the :meth:`batch`'s:
        a message that fails is undone alone."""
        begin, commit, undo = (("SAVEPOINT msg", "RELEASE msg", "ROLLBACK TO msg") if self._in_batch
                               else ("BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"))
        self.db.execute(begin)
        try:
            out = self._numbered(room, table, epoch, rest, seq, body, payload, now)
            self.db.execute(commit)
        except BaseException:
            self.db.execute(undo)
            if self._in_batch:
                self.db.execute(commit)
            raise
        return out

    def _numbered(self, room: str, table: str, epoch: str, rest: str, seq: int, body: dict[str, Any],
                  payload: bytes, now: float) -> Ingested:
        unsigned = self._unsigned(room, table, rest, seq, body)
        if unsigned is not None:
            # (not the table's record: kept out, so that the table's own message with this seq
            # still lands, and counted on the tile, once; it moves no mark, no epoch, no gap)
            if self._said(room, table, epoch, rest, seq, unsigned):
                return Ingested("duplicate", room, table, body)
            self.db.execute("INSERT INTO suspects (room, tbl, epoch, topic, seq, problem, found) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)", (room, table, epoch, rest, seq, unsigned, now))
            return Ingested("suspect", room, table, body, breaks=[unsigned])
        row = self.db.execute("SELECT contiguous FROM cursors WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                              (room, table, epoch, rest)).fetchone()
        last = self.db.execute("SELECT max(seq) FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                               (room, table, epoch, rest)).fetchone()[0]
        base = max(row[0] if row else 0, last or 0)
        if (row is not None or last is not None) and seq > base + MAX_JUMP:
            # (a table that lies, or a counter gone wrong: not the records, and no replay of a
            # billion messages asked for; said once per journal and topic. A topic with no history
            # yet, a new floor database, takes its first seq as it comes.)
            problem = f"{rest} seq {seq} is more than {MAX_JUMP:,} ahead of the last seen ({base}): refused"
            said = self.db.execute("SELECT 1 FROM suspects WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                                   "AND problem LIKE '%ahead of the last seen%'", (room, table, epoch, rest)).fetchone()
            if said is not None:
                return Ingested("ignored", room, table, body)
            self.db.execute("INSERT INTO suspects (room, tbl, epoch, topic, seq, problem, found) "
                            "VALUES (?, ?, ?, ?, ?, ?, ?)", (room, table, epoch, rest, seq, problem, now))
            return Ingested("suspect", room, table, body, breaks=[problem])
        if row is None and last is None and seq > MAX_JUMP:
            # (the first message seen of a topic far along, a new floor database: taken as the
            # start; what came before it, more than a replay can bring, is not asked for)
            self.db.execute("INSERT OR IGNORE INTO cursors VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                            (room, table, epoch, rest, seq - 1))
        closed = self._note_epoch(room, table, epoch, now)
        cur = self.db.execute("INSERT OR IGNORE INTO messages VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (room, table, epoch, rest, seq, now, payload.decode("utf-8")))
        if cur.rowcount == 0:
            return Ingested("duplicate", room, table, body, closed=closed)
        out = Ingested("other", room, table, body, closed=closed)
        if rest == "events/floor" and body.get("type") == "Alert":
            out.kind = "alert"
            self.db.execute("INSERT OR IGNORE INTO alerts (room, tbl, epoch, seq, ts, hand, seat, rule, code, card, "
                            "message, dealer) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (room, table, epoch, seq, _num(body.get("ts")), _int(body.get("hand")),
                             _int(body.get("seat")), _str(body.get("rule")), _str(body.get("code")),
                             _str(body.get("card")), _str(body.get("message")), _str(body.get("dealer"))))
        elif rest == "events/floor" and body.get("type") == "Ack":
            out.kind = "ack"
            problem = self._ack(room, table, epoch, body)
            if problem is not None:
                out.kind = "suspect"
                out.breaks = [problem]
                self.db.execute("INSERT INTO suspects (room, tbl, epoch, topic, seq, problem, found) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?)", (room, table, epoch, rest, seq, problem, now))
        elif rest == "events/dealer" and body.get("type") == "Alert":
            out.kind = "incident"  # (a misdeal, a procedure, a device: the dealer's, and the floor's lane)
            self.db.execute("INSERT OR IGNORE INTO incidents VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            (room, table, epoch, seq, _num(body.get("ts")), _int(body.get("hand")),
                             _int(body.get("seat")), _str(body.get("rule")), _str(body.get("code")),
                             _int(body.get("count")), _str(body.get("message")), _str(body.get("dealer"))))
        elif rest == "hands":
            out.kind = "hand"
            out.breaks = self._hand(room, table, epoch, seq, body, now)
        out.gap = self._advance(room, table, epoch, rest, seq, now, out.closed)
        return out

    def _unsigned(self, room: str, table: str, topic: str, seq: int, body: dict[str, Any]) -> str | None:
        """What is wrong with a signed topic's message of a table whose key the floor has: its
        signature missing or not the table's (room/signing.py). None: signed, or no key known."""
        if topic not in SIGNED:
            return None
        key = self.keys.get(f"{room}/{table}")
        if key is None:
            if self.require_signatures:
                return f"{topic} seq {seq}: a table the floor has no key for ([floor.tables]): refused"
            return None

        if verify(key, body, f"{room}/{table}/{topic}"):
            return None
        why = "no signature" if "sig" not in body else "a signature that is not the table's (or not for this topic)"
        return f"{topic} seq {seq}: {why}: not the table's record, kept out"

    def _note_epoch(self, room: str, table: str, epoch: str, now: float) -> list[tuple[str, str]]:
        """A journal's epoch seen: a new one is the table's journal started over (a new SD card,
        a reinstalled Pi): its tile says so; what the earlier journals sent stays, and their open
        gaps are closed, noted as lost (the table can no longer replay an earlier journal)."""
        n = self.db.execute("SELECT count(*) FROM epochs WHERE room = ? AND tbl = ?", (room, table)).fetchone()[0]
        cur = self.db.execute("INSERT OR IGNORE INTO epochs VALUES (?, ?, ?, ?, ?)", (room, table, epoch, now, n + 1))
        closed: list[tuple[str, str]] = []
        if cur.rowcount == 1 and n:
            for old, topic in self.db.execute("SELECT epoch, topic FROM gaps WHERE room = ? AND tbl = ? AND epoch != ?",
                                              (room, table, epoch)).fetchall():
                closed += self._close_gap(room, table, old, topic, LOST_EARLIER, now)
        return closed

    def epoch(self, room: str, table: str) -> str:
        """The table's journal now: the epoch seen last for the first time ("0" before any)."""
        row = self.db.execute("SELECT epoch FROM epochs WHERE room = ? AND tbl = ? ORDER BY n DESC LIMIT 1",
                              (room, table)).fetchone()
        return row[0] if row is not None else "0"

    def _advance(self, room: str, table: str, epoch: str, topic: str, seq: int, now: float,
                 closed: list[tuple[str, str]]) -> Ask | None:
        """Move the topic's contiguous mark past ``seq`` and what follows it. A gap before it that
        is new (none open on the topic, or one beyond what the last request could bring): the
        request to send now (:meth:`_ask`), if its table is online (else it is asked when the table
        is back). A gap already open is not asked here: its schedule (:meth:`due_gaps`) or its
        table's return asks it again. A gap in an earlier journal of the table is closed at once,
        noted in ``closed`` (nothing can fill it)."""
        row = self.db.execute("SELECT contiguous FROM cursors WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                              (room, table, epoch, topic)).fetchone()
        before = contiguous = row[0] if row is not None else 0
        if seq <= before:
            # (a message of a range closed as lost, come late after all: one fewer lost)
            self.db.execute("UPDATE lost SET n = n - 1 WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                            "AND first <= ? AND last >= ? AND n > 0", (room, table, epoch, topic, seq, seq))
            return None
        while self.db.execute("SELECT 1 FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                              "AND seq = ?", (room, table, epoch, topic, contiguous + 1)).fetchone():
            contiguous += 1
        self.db.execute("INSERT OR REPLACE INTO cursors VALUES (?, ?, ?, ?, ?, NULL, NULL)",
                        (room, table, epoch, topic, contiguous))
        key = (room, table, epoch, topic)
        if not self._beyond(room, table, epoch, topic, contiguous):
            if contiguous > before + 1:  # (a hole just filled: its gap is closed)
                self.db.execute("DELETE FROM gaps WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?", key)
            return None
        if epoch != self.epoch(room, table):
            closed += self._close_gap(room, table, epoch, topic, LOST_EARLIER, now)
            return None
        first = contiguous + 1
        gap = self.db.execute("SELECT first, reach FROM gaps WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                              key).fetchone()
        if gap is not None and (gap[1] is None or first <= gap[1]):
            # (the same gap, maybe partly filled by a replay on its way: not asked again now)
            if gap[0] != first:
                self.db.execute("UPDATE gaps SET first = ? WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                                (first, *key))
            return None
        if self._reachable(room, table):
            return self._ask(room, table, epoch, topic, first, now, REPLAY_WAIT_FIRST)
        self.db.execute("INSERT OR REPLACE INTO gaps VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, ?)",
                        (*key, first, REPLAY_WAIT_FIRST))
        return None

    def _ask(self, room: str, table: str, epoch: str, topic: str, first: int, now: float, wait: float) -> Ask:
        """The request for the gap from ``first``, noted asked now, next due after ``wait``: to the
        end of its first hole (``to``: what the floor has after it is not sent again), unless the
        table is of a release that takes no ``to`` (then all from ``first`` on, at most
        :data:`REPLAY_MOST`)."""
        to = None
        if (room, table) not in self._no_to:
            after = self.db.execute("SELECT min(seq) FROM messages WHERE room = ? AND tbl = ? AND epoch = ? "
                                    "AND topic = ? AND seq > ?", (room, table, epoch, topic, first)).fetchone()[0]
            to = after - 1 if after is not None else None
        reach = min(to, first + REPLAY_MOST - 1) if to is not None else first + REPLAY_MOST - 1
        self.db.execute("INSERT OR REPLACE INTO gaps VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (room, table, epoch, topic, first, reach, now, now + wait, wait))
        return Ask(topic, first, to)

    def _reachable(self, room: str, table: str) -> bool:
        """Whether a replay may be published to the table now: seen online since the service
        started; or never known at all (no state from it ever: nothing says it is away). A table
        said offline, or not seen yet since a restart (its retained state comes as the service
        subscribes), is asked when it is back (:meth:`_state`)."""
        if (room, table) in self._online:
            return True
        if self.db.execute("SELECT 1 FROM tables WHERE room = ? AND tbl = ?", (room, table)).fetchone() is not None:
            return False
        self._online.add((room, table))  # (its first state then is not a return)
        return True

    def _back(self, room: str, table: str, now: float) -> list[Ask]:
        """A table back: each of its open gaps asked now, once, and its schedule started afresh."""
        out = []
        epoch = self.epoch(room, table)
        for e, topic in self.db.execute("SELECT epoch, topic FROM gaps WHERE room = ? AND tbl = ?",
                                        (room, table)).fetchall():
            first = self._first_missing(room, table, e, topic) if e == epoch else None
            if first is not None:
                out.append(self._ask(room, table, e, topic, first, now, REPLAY_WAIT_FIRST))
        return out

    def _first_missing(self, room: str, table: str, epoch: str, topic: str) -> int | None:
        """The gap's first missing seq, or None: it is no longer open (its row removed)."""
        key = (room, table, epoch, topic)
        row = self.db.execute("SELECT contiguous FROM cursors WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                              key).fetchone()
        if row is not None and self._beyond(room, table, epoch, topic, row[0]):
            return int(row[0]) + 1
        self.db.execute("DELETE FROM gaps WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?", key)
        return None

    def due_gaps(self) -> list[tuple[str, str, Ask]]:
        """The open gaps ``(room, table, request)`` whose schedule says to ask again now, of the
        tables online: marked asked, their next wait doubled (:data:`REPLAY_WAIT_FIRST` up to
        :data:`REPLAY_WAIT_MOST`). A table away is asked when it is back, not here."""
        now = self.clock()
        out = []
        for r, t, epoch, topic, wait in self.db.execute(
                "SELECT room, tbl, epoch, topic, wait FROM gaps WHERE due <= ?", (now,)).fetchall():
            if (r, t) not in self._online:
                continue
            if epoch != self.epoch(r, t):  # (closed when the new journal was first seen: here by accident only)
                self._close_gap(r, t, epoch, topic, LOST_EARLIER, now)
                continue
            first = self._first_missing(r, t, epoch, topic)
            if first is not None:
                out.append((r, t, self._ask(r, t, epoch, topic, first, now,
                                            min(2 * float(wait or REPLAY_WAIT_FIRST), REPLAY_WAIT_MOST))))
        return out

    def _close_gap(self, room: str, table: str, epoch: str, topic: str, why: str, now: float,
                   upto: int | None = None) -> list[tuple[str, str]]:
        """The topic's missing messages up to ``upto`` (None: all of them, to the last one here)
        given up as lost, ``why``: the contiguous mark moved past them, the count kept for the tile
        (a late one that lands still counts one fewer: :meth:`_advance`). Returns ``(topic, note)``
        when any was missing."""
        key = (room, table, epoch, topic)
        row = self.db.execute("SELECT contiguous FROM cursors WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                              key).fetchone()
        contiguous = row[0] if row is not None else 0
        last = self.db.execute("SELECT max(seq) FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                               key).fetchone()[0]
        end = upto if upto is not None else (last or 0)
        n = 0
        if end > contiguous:
            present = self.db.execute("SELECT count(*) FROM messages WHERE room = ? AND tbl = ? AND epoch = ? "
                                      "AND topic = ? AND seq > ? AND seq <= ?", (*key, contiguous, end)).fetchone()[0]
            n = end - contiguous - present
            first, contiguous = contiguous + 1, end
            while self.db.execute("SELECT 1 FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                                  "AND seq = ?", (*key, contiguous + 1)).fetchone():
                contiguous += 1
            self.db.execute("INSERT OR REPLACE INTO cursors VALUES (?, ?, ?, ?, ?, NULL, NULL)", (*key, contiguous))
            if n > 0:
                self.db.execute("INSERT INTO lost (room, tbl, epoch, topic, first, last, n, why, found) "
                                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*key, first, end, n, why, now))
        if self._beyond(room, table, epoch, topic, contiguous):
            self.db.execute("UPDATE gaps SET first = ? WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?",
                            (contiguous + 1, *key))
        else:
            self.db.execute("DELETE FROM gaps WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ?", key)
        return [(topic, lost_note(n, why))] if n > 0 else []

    def _beyond(self, room: str, table: str, epoch: str, topic: str, contiguous: int) -> bool:
        return self.db.execute("SELECT 1 FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                               "AND seq > ? LIMIT 1", (room, table, epoch, topic, contiguous)).fetchone() is not None

    def _hand(self, room: str, table: str, epoch: str, seq: int, body: dict[str, Any], now: float) -> list[str]:
        """Keep a hand record and check its link in the journal's chain, both ways."""
        problems = []
        h, prev = body.get("hash"), body.get("prev")
        try:
            expected: str | None = hand_hash(body)
        except (ValueError, TypeError):  # (NaN or Infinity: no canonical JSON, so no hash can match)
            expected = None
        if h != expected:
            problems.append(f"hands seq {seq}: its hash does not match its content (changed after the fact)")
        self.db.execute("INSERT OR IGNORE INTO hands VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (room, table, epoch, seq, _int(body.get("hand")), _num(body.get("ts")), _str(h), _str(prev),
                         json.dumps(body.get("record"))))
        before = self.db.execute("SELECT hash FROM hands WHERE room = ? AND tbl = ? AND epoch = ? AND seq = ?",
                                 (room, table, epoch, seq - 1)).fetchone()
        if seq == 1 and prev != ZERO_HASH:
            problems.append(f"hands seq {seq}: the first record's prev is not 64 zeros")
        elif before is not None and prev != before[0]:
            problems.append(f"hands seq {seq}: prev is not the hash of the record before it "
                            f"(a record removed, added or reordered)")
        after = self.db.execute("SELECT prev FROM hands WHERE room = ? AND tbl = ? AND epoch = ? AND seq = ?",
                                (room, table, epoch, seq + 1)).fetchone()
        if after is not None and after[0] != h:
            problems.append(f"hands seq {seq + 1}: prev is not the hash of the record before it "
                            f"(a record removed, added or reordered)")
        for p in problems:
            self.db.execute("INSERT INTO chain_breaks (room, tbl, epoch, seq, problem, found) "
                            "VALUES (?, ?, ?, ?, ?, ?)", (room, table, epoch, seq, p, now))
        return problems

    def _ack(self, room: str, table: str, epoch: str, body: dict[str, Any]) -> str | None:
        """An ``Ack`` from a table: kept as acknowledged by the floor's user only when it confirms
        an ``ack`` command this floor sent (its id, its table, its alert), and then under the user
        the floor's own record names, never the one the message claims. Else what is wrong."""
        seq, cmd_id = body.get("seq"), body.get("command")
        ack_seq = body.get("ack_seq")
        if type(ack_seq) is not int or not isinstance(cmd_id, str):
            return f"events/floor seq {seq}: an Ack without its alert's seq or its command's id"
        row = self.db.execute("SELECT user, body FROM commands WHERE id = ? AND room = ? AND tbl = ?",
                              (cmd_id, room, table)).fetchone()
        if row is None:
            return (f"events/floor seq {seq}: an Ack of alert {ack_seq} for command {cmd_id[:40]!r}, which this "
                    f"floor never sent to {room}/{table}: not shown as acknowledged")
        sent = json.loads(row[1])
        if sent.get("cmd") != "ack" or sent.get("seq") != ack_seq or sent.get("epoch", "0") != epoch:
            return (f"events/floor seq {seq}: an Ack of alert {ack_seq} for command {cmd_id[:40]!r}, which "
                    f"acknowledged another alert: not shown as acknowledged")
        self.db.execute("INSERT OR IGNORE INTO acks VALUES (?, ?, ?, ?, ?, ?, 'table')",
                        (room, table, epoch, ack_seq, row[0], _num(body.get("ts"))))
        return None

    def ack_here(self, room: str, table: str, epoch: str, seq: int, user: str, how: str = "floor") -> bool:
        """An alert closed by the floor alone, ``how``: ``floor``, of an earlier journal of its
        table (that journal is gone: no table can confirm it); ``dismissed``, a call or an alert
        of a table offline (it cannot answer). The audit log says so too. False: it was closed
        already."""
        cur = self.db.execute("INSERT OR IGNORE INTO acks VALUES (?, ?, ?, ?, ?, ?, ?)",
                              (room, table, epoch, seq, user, self.clock(), how))
        return cur.rowcount == 1

    def command_sent(self, cmd_id: str, room: str, table: str, user: str, body: dict[str, Any], *,
                     retry_of: str | None = None, queued: bool = False) -> None:
        """A command published to a table; ``queued``: to a table known offline (the broker keeps
        it for the table), said so from the start rather than "sent" until the timeout."""
        status, reason = ("queued", QUEUED) if queued else ("sent", None)
        self.db.execute("INSERT OR IGNORE INTO commands (id, room, tbl, user, body, sent, retry_of, status, reason) "
                        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        (cmd_id, room, table, user, json.dumps(body), self.clock(), retry_of, status, reason))

    def ack_in_flight(self, room: str, table: str, epoch: str, seq: int) -> str | None:
        """The id of an ``ack`` command of that alert still waiting for the table (sent or
        queued), or None: an alert acknowledged twice is answered from the first command."""
        row = self.db.execute(
            "SELECT id FROM commands WHERE room = ? AND tbl = ? AND status IN ('sent', 'queued') "
            "AND json_extract(body, '$.cmd') = 'ack' AND json_extract(body, '$.seq') = ? "
            "AND COALESCE(json_extract(body, '$.epoch'), '0') = ? ORDER BY sent DESC LIMIT 1",
            (room, table, seq, epoch)).fetchone()
        return row[0] if row is not None else None

    def offline(self, room: str, table: str) -> bool:
        """Whether the table's last state says it is offline (its will, or its link's last word)."""
        row = self.db.execute("SELECT state FROM tables WHERE room = ? AND tbl = ?", (room, table)).fetchone()
        return row is not None and json.loads(row[0]).get("online") is False

    def command(self, cmd_id: str) -> dict[str, Any] | None:
        """A command the page sent, with the table's reply once it came (None: not yet), and its
        status: ``sent``, ``queued`` (the table offline), ``confirmed``, ``refused``, ``failed``
        (no answer in time), each but ``sent`` and ``confirmed`` with its ``reason``."""
        row = self.db.execute("SELECT room, tbl, user, body, sent, reply, replied, status, reason, retry_of "
                              "FROM commands WHERE id = ?", (cmd_id,)).fetchone()
        if row is None:
            return None
        return {"id": cmd_id, "room": row[0], "table": row[1], "user": row[2], "command": json.loads(row[3]),
                "sent": row[4], "reply": json.loads(row[5]) if row[5] else None, "replied": row[6],
                "status": row[7], "reason": row[8], "retry_of": row[9]}

    def refused_unread(self, room: str, table: str, why: str) -> list[str]:
        """The table refused a request it could not read, and its answer names no command (a table
        of a release before issue 38: it names the id whenever one can be read). Which command it
        was cannot be known: the floor's commands pass the table's own checks before they are sent
        (controller/room/bounds.py), so it may be none of them (an older floor's, a technician's).
        So no command is marked refused: each of the table's commands waiting for an answer
        (``sent``) is given the note, and shows it when it fails at its timeout
        (:meth:`expire_commands`); an answer naming it still decides. The ids noted."""
        note = f"{NOTE_UNREAD}: {why[:300]}"
        ids = [r[0] for r in self.db.execute(
            "SELECT id FROM commands WHERE room = ? AND tbl = ? AND reply IS NULL AND status = 'sent' "
            "AND reason IS NULL AND user != 'floor:service'", (room, table))]
        for cmd_id in ids:
            self.db.execute("UPDATE commands SET reason = ? WHERE id = ?", (note, cmd_id))
        return ids

    def expire_commands(self, timeout: float = COMMAND_TIMEOUT) -> list[str]:
        """Commands unanswered ``timeout`` seconds after they were sent: ``failed`` ("no answer from
        the table", with the note of a refusal that named no command, :meth:`refused_unread`), or
        ``queued`` while their table is offline (the broker keeps them for it). Returns the ids whose
        status changed."""
        now = self.clock()
        changed = []
        for cmd_id, room, table, status, note in self.db.execute(
                "SELECT id, room, tbl, status, reason FROM commands WHERE reply IS NULL AND status IN ('sent', "
                "'queued') AND sent <= ? AND user != 'floor:service'", (now - timeout,)).fetchall():
            state = self.db.execute("SELECT state FROM tables WHERE room = ? AND tbl = ?", (room, table)).fetchone()
            online = state is not None and json.loads(state[0]).get("online") is not False
            unread = f"; {note}" if status == "sent" and note and note.startswith(NOTE_UNREAD) else ""
            new, reason = (("failed", f"no answer from the table within {timeout:g} s{unread}") if online
                           else ("queued", QUEUED))
            if new != status:
                self.db.execute("UPDATE commands SET status = ?, reason = ? WHERE id = ?", (new, reason, cmd_id))
                changed.append(cmd_id)
        return changed

    def _reply(self, room: str, table: str, body: dict[str, Any], now: float, out: Ingested) -> None:
        """A command's answer, kept with the command. The answer to a replay this floor asked for
        (its id, its table) that says the table cannot fill the gap closes it, noted as lost
        (``out.closed``): the outbox starts later (``compacted_before``: up to there), it has
        nothing there (``sent`` 0), or the table refused the replay (another journal's: "an earlier
        journal"). A table that refuses ``to`` (a release before it) is asked again without it
        (``out.regaps``). A refusal naming no command (a request the table could not read, of a
        release before issue 38) is noted on the table's commands still waiting
        (:meth:`refused_unread`)."""
        if not isinstance(body.get("id"), str):
            if body.get("ok") is False:
                self.refused_unread(room, table, _str(body.get("error")) or "no reason given")
            return
        ok = body.get("ok") is True
        self.db.execute("UPDATE commands SET reply = ?, replied = ?, status = ?, reason = ? WHERE id = ? "
                        "AND room = ? AND tbl = ? AND reply IS NULL",
                        (json.dumps(body), now, "confirmed" if ok else "refused",
                         None if ok else f"refused by the table: {_str(body.get('error')) or 'no reason given'}",
                         body["id"], room, table))
        sent = self.db.execute("SELECT body FROM commands WHERE id = ? AND room = ? AND tbl = ?",
                               (body["id"], room, table)).fetchone()
        asked = json.loads(sent[0]) if sent is not None else {}
        topic, epoch, start, to = asked.get("topic"), asked.get("epoch", "0"), asked.get("from"), asked.get("to")
        if asked.get("cmd") != "replay" or topic not in NUMBERED or type(start) is not int or type(epoch) is not str:
            return
        if body.get("ok") is False:
            error = _str(body.get("error")) or ""
            if "unknown field 'to'" in error and to is not None:
                self._no_to.add((room, table))
                first = self._first_missing(room, table, epoch, topic)
                if first is not None and epoch == self.epoch(room, table):
                    out.regaps.append(self._ask(room, table, epoch, topic, first, now, REPLAY_WAIT_FIRST))
            elif "earlier journal" in error:
                # (none of that journal's messages can come: every topic's gap of it closed)
                for (t,) in self.db.execute("SELECT topic FROM gaps WHERE room = ? AND tbl = ? AND epoch = ?",
                                            (room, table, epoch)).fetchall():
                    out.closed += self._close_gap(room, table, epoch, t, LOST_EARLIER, now)
            else:  # (the table's word on this request: asked again, it would refuse again)
                out.closed += self._close_gap(room, table, epoch, topic, LOST_REFUSED, now)
            return
        if not ok or body.get("topic", topic) != topic:
            return
        compacted = body.get("compacted_before")
        if type(compacted) is int and start < compacted <= start + MAX_JUMP:
            # (only the answer to a replay this floor asked for, within its range, closes a gap)
            out.closed += self._close_gap(room, table, epoch, topic, LOST_NO_ROW, now, upto=compacted - 1)
        elif body.get("sent") == 0 and type(body.get("sent")) is int:
            first = self._first_missing(room, table, epoch, topic)
            if first is not None and first >= start:  # (nothing from ``start`` on, or to ``to``: none of the hole)
                out.closed += self._close_gap(room, table, epoch, topic, LOST_NO_ROW, now,
                                              upto=to if type(to) is int else None)

    # -- to the page ---------------------------------------------------------------------------
    def tables(self, room: str | None = None, table: str | None = None) -> list[dict[str, Any]]:
        """Every table's last state (or that one table's) with what the board sorts by: its open
        calls and open alerts (calls apart) and the worst open alert's severity; and its chain
        problems, refused messages, how often its journal started over, the messages given up as
        lost by why (``lost``: n, why, the note), and whether the floor retired it from the board
        (who, when)."""
        where, args = (" WHERE x.room = ? AND x.tbl = ?", (room, table)) if room is not None else ("", ())
        rows = self.db.execute("SELECT room, tbl, state, updated FROM tables x" + where, args).fetchall()
        rows.sort(key=lambda r: (natural(r[0]), natural(r[1])))  # (t1, t2 ... t10, as a room numbers them)

        def per_table(sql: str) -> dict[tuple[str, str], Any]:
            """``sql`` grouped by (room, tbl), for the tables asked (one query, not one a table)."""
            return {(r[0], r[1]): r[2:] for r in self.db.execute(sql.format(where=where), args)}

        breaks = per_table("SELECT room, tbl, COUNT(*) FROM chain_breaks x{where} GROUP BY room, tbl")
        suspects = per_table("SELECT room, tbl, COUNT(*) FROM suspects x{where} GROUP BY room, tbl")
        # (how many journals, and the one now: the epoch seen last for the first time, as epoch()
        # says; SQLite takes a bare column from the row of the max())
        epochs = per_table("SELECT room, tbl, COUNT(*), epoch, MAX(n) FROM epochs x{where} GROUP BY room, tbl")
        retired = per_table("SELECT room, tbl, user, ts FROM retired x{where}")
        lost: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for r, t, why, n in self.db.execute("SELECT room, tbl, why, SUM(n) FROM lost x" + where
                                            + " GROUP BY room, tbl, why HAVING SUM(n) > 0 ORDER BY why", args):
            lost.setdefault((r, t), []).append({"n": n, "why": why, "note": lost_note(n, why)})
        open_by_code: dict[tuple[str, str], list[tuple[str, int]]] = {}
        for r, t, code, n in self.db.execute(
                "SELECT x.room, x.tbl, x.code, COUNT(*) FROM alerts x LEFT JOIN acks k ON k.room = x.room "
                "AND k.tbl = x.tbl AND k.epoch = x.epoch AND k.ack_seq = x.seq"
                + (where + " AND" if where else " WHERE")
                + " k.user IS NULL GROUP BY x.room, x.tbl, x.code", args):
            open_by_code.setdefault((r, t), []).append((code or "", n))
        out = []
        for r, t, state, updated in rows:
            s = json.loads(state)
            codes = open_by_code.get((r, t), [])
            calls = sum(n for code, n in codes if code == CALL)
            gone = retired.get((r, t))
            s.update(room=r, table=t, updated=updated, open_calls=calls,
                     open_alerts=sum(n for code, n in codes if code != CALL),
                     severity=max((severity(code) for code, _ in codes if code != CALL), default=0),
                     chain_breaks=breaks.get((r, t), (0,))[0], suspects=suspects.get((r, t), (0,))[0],
                     epoch=epochs.get((r, t), (0, "0"))[1], started_over=max(0, epochs.get((r, t), (0,))[0] - 1),
                     retired={"by": gone[0], "at": gone[1]} if gone else None, lost=lost.get((r, t), []))
            out.append(s)
        return out

    def open_alerts(self, room: str, table: str) -> int:
        """The table's open alerts, its open calls among them."""
        return int(self.db.execute(
            "SELECT COUNT(*) FROM alerts a LEFT JOIN acks k ON k.room = a.room AND k.tbl = a.tbl AND k.epoch = a.epoch "
            "AND k.ack_seq = a.seq WHERE a.room = ? AND a.tbl = ? AND k.user IS NULL", (room, table)).fetchone()[0])

    def alerts(self, limit: int = 200, *, room: str | None = None, table: str | None = None,
               seq: int | None = None, epoch: str = "0", dealer: str | None = None,
               open_only: bool = False, closed_only: bool = False) -> list[dict[str, Any]]:
        """The newest alerts first, each with who acknowledged it, when and ``acked_how``
        (``table``: the table confirmed it; ``floor``: closed at the floor, of an earlier journal;
        ``dismissed``: closed at the floor, the table offline; None: open): all, one (``room``,
        ``table``, ``seq`` of the journal ``epoch``), those raised while ``dealer`` dealt
        (RELIEF-003: the table names the dealer in each alert), the open ones or the closed ones."""
        sql = ("SELECT a.room, a.tbl, a.epoch, a.seq, a.ts, a.hand, a.seat, a.rule, a.code, a.card, a.message, "
               "k.user, k.ts, a.dealer, k.how FROM alerts a LEFT JOIN acks k ON k.room = a.room AND k.tbl = a.tbl "
               "AND k.epoch = a.epoch AND k.ack_seq = a.seq WHERE 1 = 1")
        args: list[Any] = []
        if room is not None:
            sql += " AND a.room = ? AND a.tbl = ? AND a.epoch = ? AND a.seq = ?"
            args = [room, table, epoch, seq]
        elif dealer is not None:
            sql += " AND a.dealer = ?"
            args = [dealer]
        if open_only:
            sql += " AND k.user IS NULL"
        elif closed_only:
            sql += " AND k.user IS NOT NULL"
        sql += " ORDER BY a.ts DESC, a.seq DESC LIMIT ?"
        keys = ("room", "table", "epoch", "seq", "ts", "hand", "seat", "rule", "code", "card", "message", "acked_by",
                "acked_at", "dealer", "acked_how")
        out = [dict(zip(keys, r, strict=True)) for r in self.db.execute(sql, [*args, limit])]
        for a in out:
            if a["acked_by"] is not None and a["acked_how"] is None:
                a["acked_how"] = "table"  # (an acknowledgement kept before schema 3)
        return out

    def incidents(self, limit: int = 100, *, room: str | None = None, table: str | None = None,
                  seq: int | None = None, epoch: str = "0") -> list[dict[str, Any]]:
        """The dealer's incidents (a misdeal, a procedure, a device; ``events/dealer``'s alerts),
        newest first: all, or one (``room``, ``table``, ``seq`` of the journal ``epoch``)."""
        sql = "SELECT room, tbl, epoch, seq, " + ", ".join(INCIDENT_FIELDS) + " FROM incidents"
        args: list[Any] = []
        if room is not None:
            sql += " WHERE room = ? AND tbl = ? AND epoch = ? AND seq = ?"
            args = [room, table, epoch, seq]
        sql += " ORDER BY ts DESC, seq DESC LIMIT ?"
        keys = ("room", "table", "epoch", "seq", *INCIDENT_FIELDS)
        return [dict(zip(keys, r, strict=True)) for r in self.db.execute(sql, [*args, limit])]

    def retire(self, room: str, table: str, user: str) -> bool:
        """The table off the board (closed for the night, moved): its tile in the retired strip,
        everything it raised still shown. False: it was retired already."""
        return self.db.execute("INSERT OR IGNORE INTO retired VALUES (?, ?, ?, ?)",
                               (room, table, user, self.clock())).rowcount == 1

    def restore(self, room: str, table: str) -> bool:
        """A retired table back on the board. False: it was not retired."""
        return self.db.execute("DELETE FROM retired WHERE room = ? AND tbl = ?", (room, table)).rowcount == 1

    def search_hands(self, *, table: str | None = None, hand: int | None = None, since: float | None = None,
                     until: float | None = None, card: str | None = None, alert: str | None = None,
                     dealer: str | None = None, limit: int = 50, offset: int = 0) -> dict[str, Any]:
        """Hand records matching every filter given, newest first: ``table`` (``t7`` or
        ``main/t7``), ``hand`` number, finished between ``since`` and ``until`` (epoch seconds),
        a ``card`` anywhere in the record (``Ah``, written in any case: ``ah``, ``AH``, ``10h``),
        an ``alert`` (a rule id or a code, or its start), the ``dealer`` the record names (RELIEF-003).

        One page of them: ``{"hands": [...], "total": N, "offset": offset, "limit": limit}``, ``total``
        all the matches. The order is total (ts, then seq, room, table, epoch, all descending: the
        key's every column), so the pages of one set of records neither repeat nor skip a hand.
        A ``card`` that is not a card: :class:`controller.core.cards.CardError` (a ValueError)."""

        sql = " FROM hands WHERE 1 = 1"
        args: list[Any] = []
        if table:
            room, _, tbl = table.rpartition("/")
            sql += " AND tbl = ?" + (" AND room = ?" if room else "")
            args += [tbl] + ([room] if room else [])
        if hand is not None:
            sql += " AND hand = ?"
            args.append(hand)
        if dealer:
            sql += " AND " + RECORD_DEALER + " = ?"
            args.append(dealer)
        if since is not None:
            sql += " AND ts >= ?"
            args.append(since)
        if until is not None:
            sql += " AND ts <= ?"
            args.append(until)
        if card:  # (a card is a JSON string in the record: "Ah", or a clone "Ah#2", or of a deck "Ah@B")
            card = parse_card(card)  # (the query spelt as the records are: never a case-blind scan of them)
            sql += " AND (instr(record, ?) OR instr(record, ?) OR instr(record, ?))"
            args += [f'"{card}"', f'"{card}#', f'"{card}@']
        if alert:
            sql += " AND (instr(record, ?) OR instr(record, ?))"
            args += [f'"rule": "{alert}', f'"code": "{alert}']
        total = self.db.execute("SELECT count(*)" + sql, args).fetchone()[0]
        sql = ("SELECT room, tbl, epoch, seq, hand, ts, record, " + RECORD_DEALER + sql +
               " ORDER BY ts DESC, seq DESC, room DESC, tbl DESC, epoch DESC LIMIT ? OFFSET ?")
        out = []
        for room, tbl, epoch, seq, number, ts, record, who in self.db.execute(sql, [*args, limit, offset]):
            rec = json.loads(record) if record else {}
            rec = rec if isinstance(rec, dict) else {}
            alerts = [a.get("rule") or a.get("code") for a in rec.get("alerts", []) if isinstance(a, dict)]
            out.append({"room": room, "table": tbl, "epoch": epoch, "seq": seq, "hand": number, "ts": ts,
                        "game": rec.get("game"), "alerts": alerts, "stub_count": rec.get("stub_count"),
                        "dealer": who})
        return {"hands": out, "total": total, "offset": offset, "limit": limit}

    def hand(self, room: str, table: str, seq: int, epoch: str = "0") -> dict[str, Any] | None:
        """One hand's record with its place in the chain (its problems, if any)."""
        row = self.db.execute("SELECT hand, ts, hash, prev, record, " + RECORD_DEALER +
                              " FROM hands WHERE room = ? AND tbl = ? AND epoch = ? AND seq = ?",
                              (room, table, epoch, seq)).fetchone()
        if row is None:
            return None
        problems = [r[0] for r in self.db.execute(
            "SELECT problem FROM chain_breaks WHERE room = ? AND tbl = ? AND epoch = ? AND seq IN (?, ?) ORDER BY id",
            (room, table, epoch, seq, seq - 1)) if r[0].startswith(f"hands seq {seq}:")]
        return {"room": room, "table": table, "epoch": epoch, "seq": seq, "hand": row[0], "ts": row[1],
                "hash": row[2], "prev": row[3], "record": json.loads(row[4]) if row[4] else None,
                "chain_problems": problems, "dealer": row[5]}

    def chain_breaks(self, room: str, table: str) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT problem FROM chain_breaks WHERE room = ? AND tbl = ? ORDER BY id",
                                              (room, table))]

    # -- the tournaments (controller/floor/director.py) -------------------------------------------
    def tournament(self, name: str) -> dict[str, Any] | None:
        """The tournament's state as last saved (its clock, hand-for-hand, the bubble), or None."""
        row = self.db.execute("SELECT state FROM tournaments WHERE name = ?", (name,)).fetchone()
        if row is None:
            return None
        state = json.loads(row[0])
        return state if isinstance(state, dict) else None

    def save_tournament(self, name: str, state: dict[str, Any]) -> None:
        self.db.execute("INSERT OR REPLACE INTO tournaments VALUES (?, ?, ?)", (name, json.dumps(state), self.clock()))

    def table_names(self) -> set[tuple[str, str]]:
        """Every table the floor has had a state from: (room, table)."""
        return {(r, t) for r, t in self.db.execute("SELECT room, tbl FROM tables")}

    def rosters(self) -> dict[tuple[str, str], int]:
        """Each table's players (the seats its last state names), retired tables left out."""
        return {(r, t): int(n or 0) for r, t, n in self.db.execute(
            "SELECT x.room, x.tbl, CASE json_type(x.state, '$.seats') WHEN 'array' THEN "
            "json_array_length(x.state, '$.seats') ELSE 0 END FROM tables x LEFT JOIN retired g "
            "ON g.room = x.room AND g.tbl = x.tbl WHERE g.room IS NULL")}

    def has_hand(self, room: str, table: str, hand: int) -> bool:
        """Whether the table's record of hand number ``hand`` is here (of any of its journals)."""
        return self.db.execute("SELECT 1 FROM hands WHERE room = ? AND tbl = ? AND hand = ? LIMIT 1",
                               (room, table, hand)).fetchone() is not None

    def last_hand_at(self, room: str, table: str) -> float | None:
        """When the table's last hand record finished (the table's time), or None."""
        row = self.db.execute("SELECT MAX(ts) FROM hands WHERE room = ? AND tbl = ?", (room, table)).fetchone()
        return _num(row[0]) if row is not None else None

    def open_alerts_of(self, code: str) -> list[dict[str, Any]]:
        """The open alerts of ``code`` (every table's), oldest first: room, table, epoch, seq, hand."""
        rows = self.db.execute(
            "SELECT a.room, a.tbl, a.epoch, a.seq, a.hand FROM alerts a LEFT JOIN acks k ON k.room = a.room "
            "AND k.tbl = a.tbl AND k.epoch = a.epoch AND k.ack_seq = a.seq WHERE a.code = ? AND k.user IS NULL "
            "ORDER BY a.ts, a.seq", (code,))
        return [dict(zip(("room", "table", "epoch", "seq", "hand"), r, strict=True)) for r in rows]

    def audit(self, user: str, action: str, detail: str = "") -> None:
        self.db.execute("INSERT INTO audit (ts, user, action, detail) VALUES (?, ?, ?, ?)",
                        (self.clock(), user, action, detail))

    def audit_log(self) -> list[tuple[str, str, str]]:
        return [tuple(r) for r in self.db.execute("SELECT user, action, detail FROM audit ORDER BY id")]


def natural(name: str) -> tuple[tuple[int | str, ...], str]:
    """``name``'s sort key with its numbers as numbers: t1, t2 ... t10, not t1, t10, t11 ... t2
    (the name itself last: ``t01`` and ``t1`` in one order always).

    >>> sorted(["t10", "t2", "T1", "h1", "t1", "t", "t1a"], key=natural)
    ['h1', 't', 'T1', 't1', 't1a', 't2', 't10']
    """
    # (re.split with a group: text at the even places, digits at the odd ones, so that two keys
    # compare text with text and numbers with numbers)
    parts = re.split(r"(\d+)", name)
    return tuple(int(p) if i % 2 else p.casefold() for i, p in enumerate(parts)), name


def lost_note(n: int, why: str) -> str:
    """The tile's words for messages given up: "12 messages lost: an earlier journal"."""
    return f"{n} message{'' if n == 1 else 's'} lost: {why}"


def _int(v: Any) -> int | None:
    return v if type(v) is int else None


def _num(v: Any) -> float | None:
    return float(v) if type(v) in (int, float) else None


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None
