"""After a crash the outbox is rebuilt by the journal's replay with the same numbers and the same
messages (docs/room.md, "seq"): a real daemon's journal from ``tablectl simulate --broker`` (to a
port where no broker listens), its newest snapshot and the last hand's messages removed as a crash
before their commit would leave them, then a new daemon's recovery."""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.config.daemon import load_config
from controller.daemon.main import Daemon
from hw_sim.simulate import Unacknowledged, room_section, run_script
from hw_sim.random_hands import random_script
from hw_sim.script import parse_script
from rig.broker import free_port
from rig.scenarios import NOISE


def _outbox(path) -> list[tuple[str, int, str]]:
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT topic, seq, payload FROM outbox ORDER BY id").fetchall()
    finally:
        db.close()


@pytest.mark.e2e
def test_the_replay_after_a_crash_gives_the_same_numbers_and_messages(tmp_path):
    script = random_script(4, hands=2, game="holdem", seats=[1, 4, 6, 9], noise=dict(NOISE, seed=4))
    with pytest.raises(Unacknowledged):
        run_script(parse_script(json.dumps(script)), workdir=tmp_path, ack_wait=0.5,
                   room=room_section(f"mqtt://127.0.0.1:{free_port()}", "r1", "t1"))
    journal = tmp_path / "journal.sqlite3"
    before = _outbox(journal)
    assert sum(1 for t, _, _ in before if t == "hands") == 2
    db = sqlite3.connect(journal)
    snaps = [r[0] for r in db.execute("SELECT event_id FROM snapshots ORDER BY event_id")]
    assert len(snaps) >= 2
    kept = snaps[-2]
    # the crash: the newest snapshot and every message after the one before it never committed
    db.execute("DELETE FROM snapshots WHERE event_id > ?", (kept,))
    lost = db.execute("DELETE FROM outbox WHERE event_id > ?", (kept,)).rowcount
    for topic, in db.execute("SELECT topic FROM outbox_topics").fetchall():
        row = db.execute("SELECT max(seq), (SELECT payload FROM outbox WHERE topic = ? ORDER BY seq DESC LIMIT 1) "
                         "FROM outbox WHERE topic = ?", (topic, topic)).fetchone()
        head = json.loads(row[1]).get("hash") if row[1] else None
        db.execute("UPDATE outbox_topics SET last_seq = ?, head = ? WHERE topic = ?", (row[0] or 0, head, topic))
    db.commit()
    db.close()
    assert lost > 20  # the whole last hand's messages, its hand record among them
    d = Daemon(load_config(tmp_path / "tablectl.toml"), sinks=[])
    d.recover()
    d.journal.close()
    assert _outbox(journal) == before
