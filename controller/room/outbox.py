"""The outbox: the journal's tables of what the room link publishes (docs/room.md, "Nothing lost").

Rows are written by :meth:`controller.daemon.journal.Journal.record` in the same transaction
as the alerts and hands of the event that caused them. A row is named by ``(event id, effect
index, topic)``: a replay after a crash that meets an effect already in the outbox leaves it
(and its ``seq``) alone, and numbers the ones the crash lost next, in the same order as the
first run would have. ``seq`` increases by exactly one within each topic, never reused: the
last one given is kept in ``outbox_topics``, which compaction never touches.

Each ``hands`` message carries ``prev`` (the ``hash`` of the table's previous one) and its own
``hash`` (SHA-256 of its canonical JSON without ``hash``): :func:`check_chain` shows a record
changed, removed or reordered after the fact.

>>> import sqlite3
>>> db = sqlite3.connect(":memory:", isolation_level=None)
>>> _ = db.executescript(SCHEMA)
>>> insert_rows(db, 7, [("hands", 0, 1.0, {"hand": 1}), ("events/public", 1, 1.0, {"x": 1})])
2
>>> insert_rows(db, 7, [("hands", 0, 1.0, {"hand": 1})])  # the same effect again: kept as it was
0
>>> [json.loads(p)["seq"] for (p,) in db.execute("SELECT payload FROM outbox ORDER BY id")]
[1, 1]
>>> check_chain([json.loads(p) for (p,) in db.execute("SELECT payload FROM outbox WHERE topic = 'hands'")])
[]
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


SCHEMA = """
CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, topic TEXT NOT NULL, seq INTEGER NOT NULL,
                                   event_id INTEGER NOT NULL, idx INTEGER NOT NULL, ts REAL NOT NULL,
                                   payload TEXT NOT NULL, acked INTEGER NOT NULL DEFAULT 0,
                                   UNIQUE (topic, seq), UNIQUE (event_id, idx, topic));
CREATE INDEX IF NOT EXISTS outbox_unacked ON outbox (id) WHERE acked = 0;
CREATE INDEX IF NOT EXISTS outbox_ts ON outbox (ts);
CREATE TABLE IF NOT EXISTS outbox_topics (topic TEXT PRIMARY KEY, last_seq INTEGER NOT NULL,
                                          dropped INTEGER NOT NULL DEFAULT 0, head TEXT);
CREATE TABLE IF NOT EXISTS room_commands (cmd_id TEXT PRIMARY KEY, ts REAL NOT NULL, user TEXT NOT NULL,
                                          cmd TEXT NOT NULL, reply TEXT NOT NULL, event_id INTEGER);
"""
#: the tables a salvage copies (journal._salvage)
TABLES = ("outbox", "outbox_topics", "room_commands")
GENESIS = "0" * 64
#: the topics whose messages a table signs (room/signing.py, imported only by a table with a key)
SIGNED = ("hands", "events/floor", "events/dealer")
#: acked: 0 not yet, 1 the broker acknowledged it, 2 the broker refused it (counted, not resent)
ACKED, REFUSED = 1, 2


def canonical(body: dict[str, Any]) -> str:
    return json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)


def hand_hash(body: dict[str, Any]) -> str:
    """The hash a ``hands`` message carries: SHA-256 of its canonical JSON without ``hash`` (nor
    ``sig``, the table's signature, which is made after it and covers it: room/signing.py)."""
    return hashlib.sha256(canonical({k: v for k, v in body.items() if k not in ("hash", "sig")}).encode()).hexdigest()


def insert_rows(db: sqlite3.Connection, event_id: int, rows: list[tuple[str, int, float, dict[str, Any]]], *,
                epoch: str | None = None, sign: Callable[[str, dict[str, Any]], str] | None = None) -> int:
    """Number and keep ``rows`` (``topic, index, ts, body``) of event ``event_id``, inside the
    caller's transaction; a row already there is left as it is. Returns the rows added.

    ``epoch``: the journal's (Journal.epoch), carried by every message, inside what a hand's
    hash and signature cover. ``sign``: the table's signer (room/signing.py): the messages of
    the topics it signs get their ``sig``, over everything else they carry.

    ``event_id`` 0: rows of no journalled event (a command's acknowledgment, what a recovery
    says): each gets a key of its own, below every key in the outbox, so that two never collide.

    >>> db = sqlite3.connect(":memory:", isolation_level=None); _ = db.executescript(SCHEMA)
    >>> [insert_rows(db, 0, [("events/floor", 0, 1.0, {"type": "Ack"})]) for _ in range(5)]
    [1, 1, 1, 1, 1]
    >>> [r[0] for r in db.execute("SELECT event_id FROM outbox ORDER BY id")]
    [-1, -2, -3, -4, -5]
    """
    added = 0
    for topic, idx, ts, body in rows:
        key = event_id
        if not event_id:
            low = db.execute("SELECT min(event_id) FROM outbox").fetchone()[0]
            key = min(int(low or 0), 0) - 1
        elif db.execute("SELECT 1 FROM outbox WHERE event_id = ? AND idx = ? AND topic = ?",
                        (event_id, idx, topic)).fetchone():
            continue
        row = db.execute("SELECT last_seq, head FROM outbox_topics WHERE topic = ?", (topic,)).fetchone()
        seq, head = (int(row[0]) + 1, row[1]) if row else (1, None)
        body = dict(body, seq=seq)
        if epoch is not None:
            body["epoch"] = epoch
        if topic == "hands":
            body["prev"] = head or GENESIS
            body["hash"] = head = hand_hash(body)
        if sign is not None and topic in SIGNED:
            body["sig"] = sign(topic, body)
        db.execute("INSERT INTO outbox (topic, seq, event_id, idx, ts, payload) VALUES (?, ?, ?, ?, ?, ?)",
                   (topic, seq, key, idx, ts, canonical(body)))
        db.execute("INSERT INTO outbox_topics (topic, last_seq, head) VALUES (?, ?, ?) ON CONFLICT (topic) "
                   "DO UPDATE SET last_seq = excluded.last_seq, head = excluded.head", (topic, seq, head))
        added += 1
    return added


def check_chain(records: list[dict[str, Any]], prev: str | None = None) -> list[str]:
    """What is wrong with a run of ``hands`` messages, oldest first (empty: nothing): a record
    whose hash does not match its content (changed), or whose ``prev`` is not the hash of the
    one before (one removed, added or reordered). ``prev``: the hash before the first, if known."""
    problems = []
    for r in records:
        seq = r.get("seq")
        if r.get("hash") != hand_hash(r):
            problems.append(f"hands seq {seq}: its hash does not match its content (changed after the fact)")
        if prev is not None and r.get("prev") != prev:
            problems.append(f"hands seq {seq}: prev is not the hash of the record before it "
                            f"(a record removed, added or reordered)")
        prev = r.get("hash")
    return problems


@dataclass(frozen=True)
class Pending:
    id: int
    topic: str
    seq: int
    ts: float
    payload: str


def pending(db: sqlite3.Connection, after: int, limit: int, *, broadcast_before: float | None = None,
            broadcast: bool = False) -> list[Pending]:
    """Unacknowledged rows after row ``after``, in order: the broadcast rows alone (those dealt
    before ``broadcast_before``) when ``broadcast``, every other topic's otherwise."""
    if broadcast:
        sql = ("SELECT id, topic, seq, ts, payload FROM outbox WHERE acked = 0 AND id > ? AND topic = 'broadcast' "
               "AND ts <= ? ORDER BY id LIMIT ?")
        args: tuple[Any, ...] = (after, broadcast_before if broadcast_before is not None else -1.0, limit)
    else:
        sql = ("SELECT id, topic, seq, ts, payload FROM outbox WHERE acked = 0 AND id > ? AND topic != 'broadcast' "
               "ORDER BY id LIMIT ?")
        args = (after, limit)
    return [Pending(*r) for r in db.execute(sql, args)]


def mark(db: sqlite3.Connection, ids: list[int], value: int = ACKED) -> None:
    db.execute("BEGIN")
    try:
        db.executemany("UPDATE outbox SET acked = ? WHERE id = ?", [(value, i) for i in ids])
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def compact(db: sqlite3.Connection, before: float) -> dict[str, int]:
    """Drop the rows of effects older than ``before``: acknowledged ones (kept until then for
    ``replay``) silently, unacknowledged ones counted per topic in ``outbox_topics.dropped``
    (the bound: ``outbox_days``). Returns the unacknowledged rows dropped now, by topic."""
    db.execute("BEGIN")
    try:
        lost = dict(db.execute("SELECT topic, count(*) FROM outbox WHERE ts < ? AND acked = 0 GROUP BY topic",
                               (before,)).fetchall())
        for topic, n in lost.items():
            db.execute("UPDATE outbox_topics SET dropped = dropped + ? WHERE topic = ?", (n, topic))
        db.execute("DELETE FROM outbox WHERE ts < ?", (before,))
        db.execute("DELETE FROM room_commands WHERE ts < ?", (before,))  # (no redelivery comes a week late)
        db.execute("COMMIT")
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    return {str(k): int(v) for k, v in lost.items()}


def counts(db: sqlite3.Connection) -> dict[str, int]:
    """Unacknowledged rows, refused rows, and rows ever dropped unacknowledged."""
    unacked = db.execute("SELECT count(*) FROM outbox WHERE acked = 0").fetchone()[0]
    refused = db.execute("SELECT count(*) FROM outbox WHERE acked = 2").fetchone()[0]
    dropped = db.execute("SELECT coalesce(sum(dropped), 0) FROM outbox_topics").fetchone()[0]
    return {"unacked": int(unacked), "refused": int(refused), "dropped": int(dropped)}


def replay_rows(db: sqlite3.Connection, topic: str, from_seq: int, limit: int,
                to_seq: int | None = None) -> list[Pending]:
    """The topic's rows from ``from_seq`` (to ``to_seq``, if given), at most ``limit``, in order."""
    return [Pending(*r) for r in db.execute("SELECT id, topic, seq, ts, payload FROM outbox WHERE topic = ? AND "
                                            "seq >= ? AND seq <= ? ORDER BY seq LIMIT ?",
                                            (topic, from_seq, to_seq if to_seq is not None else 1 << 62, limit))]
