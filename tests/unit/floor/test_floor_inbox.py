"""Nothing acknowledged before it is kept (issue 38): the service's inbox between paho's thread and
its event loop. A message is acknowledged to the broker (its receipt handed to the link's ``ack``)
only once its batch is committed, with ``synchronous=FULL``; a batch that cannot be committed is
not acknowledged and is tried again; a stop commits and acknowledges what was taken, takes nothing
more; paho's thread waits while two batches wait; the link acknowledges no message of a connection
that has ended. The whole path with a real broker, SIGTERM and SIGKILL: tests/e2e/test_floor_durable.py."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from controller.config.floor import parse_floor_text
from controller.floor.app import INBOX_BATCH, INBOX_MOST, FloorService
from controller.floor.broker import RECEIVE_MAXIMUM, FloorLink, Receipt
from controller.floor.store import Store
from rig.waiting import wait_until

T = "tablectl/main/t7/events/floor"


def alert(seq: int) -> bytes:
    return json.dumps({"type": "Alert", "seq": seq, "ts": 100.0 + seq, "hand": 3, "seat": 2, "rule": "DECK-006",
                       "code": "deck.foreign_card", "card": "7h", "message": "7h is not of this deck",
                       "audience": "floor"}).encode()


def committed(db_path: Path) -> int:
    """The alerts another connection sees: what a crash now would leave on the disk."""
    with contextlib.closing(sqlite3.connect(db_path)) as db:
        return int(db.execute("SELECT count(*) FROM messages").fetchone()[0])


class Link:
    """The link's side the inbox uses: each ``ack`` call noted with what was committed by then."""

    def __init__(self, db_path: Path) -> None:
        self.db_path = db_path
        self.acks: list[tuple[list[int], int]] = []  # (the receipts' mids, committed when acknowledged)

    def ack(self, receipts: list[Receipt]) -> int:
        self.acks.append(([mid for _, mid, _ in receipts], committed(self.db_path)))
        return len(receipts)


@pytest.fixture
def svc(tmp_path) -> Iterator[FloorService]:
    cfg = parse_floor_text(f'[floor]\nbroker = "mqtt://127.0.0.1:1"\ndatabase = "{tmp_path / "floor.db"}"\n',
                           path=tmp_path / "floor.toml")
    service = FloorService(cfg, link=False)
    service.loop = asyncio.new_event_loop()
    service.link = Link(tmp_path / "floor.db")  # type: ignore[assignment]
    yield service
    service.hashers.shutdown(wait=True)
    service.store.close()
    service.loop.close()


def deliver(svc: FloorService, seqs: range) -> None:
    """As paho's thread hands messages on: each with its receipt (this connection, mid = seq, QoS 1)."""
    for seq in seqs:
        svc._from_thread(T, alert(seq), (0, seq, 1))


def run_until_taken(svc: FloorService) -> None:
    async def taken() -> None:
        while svc._inbox:
            await asyncio.sleep(0)
    assert svc.loop is not None
    svc.loop.run_until_complete(taken())


def test_a_batch_is_acknowledged_only_after_its_commit_and_that_commit_is_durable(svc, tmp_path):
    statements: list[str] = []
    svc.store.db.set_trace_callback(statements.append)
    deliver(svc, range(1, INBOX_BATCH + 101))
    assert svc.link.acks == []  # (taken, not yet committed: not acknowledged)
    run_until_taken(svc)
    # each batch acknowledged in the order it came, once every message of it is on the disk
    assert svc.link.acks == [(list(range(1, INBOX_BATCH + 1)), INBOX_BATCH),
                             (list(range(INBOX_BATCH + 1, INBOX_BATCH + 101)), INBOX_BATCH + 100)]
    # each batch one transaction, committed with synchronous=FULL (one fsync), then NORMAL again
    framing = [s for s in statements if s.startswith(("PRAGMA synchronous", "BEGIN", "COMMIT"))]
    assert framing == ["PRAGMA synchronous=FULL", "BEGIN IMMEDIATE", "COMMIT", "PRAGMA synchronous=NORMAL"] * 2
    assert svc.store.db.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL, for the pages' writes


def test_a_batch_that_cannot_be_committed_is_not_acknowledged_and_is_tried_again(svc, tmp_path, caplog):
    svc.store.db.execute("PRAGMA busy_timeout = 0")  # (a lock held elsewhere fails at once, not in 5 s)
    other = sqlite3.connect(tmp_path / "floor.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # (another process writing: the database locked)
    deliver(svc, range(1, 4))
    with caplog.at_level(logging.ERROR, logger="tablectl.floor"):
        svc._take_inbox()
        svc._take_inbox()
    assert svc.link.acks == [] and committed(tmp_path / "floor.db") == 0
    assert [m for _, m, _ in (r for _, _, r in svc._inbox)] == [1, 2, 3]  # (kept, in order, for the next try)
    said = [r.getMessage() for r in caplog.records if "could not commit" in r.getMessage()]
    assert len(said) == 1 and "not acknowledged" in said[0]  # (said once, not once a retry)
    other.execute("ROLLBACK")
    other.close()
    svc._take_inbox()
    assert svc.link.acks == [([1, 2, 3], 3)]
    assert svc.store.ingest(T, alert(4)).kind == "alert"  # (the store is whole: no transaction left open)


def test_a_stop_commits_and_acknowledges_what_was_taken_and_takes_nothing_more(svc, tmp_path):
    deliver(svc, range(1, INBOX_BATCH + 201))
    svc.drain()
    assert svc.link.acks == [(list(range(1, INBOX_BATCH + 1)), INBOX_BATCH),
                             (list(range(INBOX_BATCH + 1, INBOX_BATCH + 201)), INBOX_BATCH + 200)]
    deliver(svc, range(INBOX_BATCH + 201, INBOX_BATCH + 203))  # (paho's thread, before the link is gone)
    assert svc._inbox == [] and len(svc.link.acks) == 2  # left to the broker, unacknowledged


def test_paho_s_thread_waits_while_two_batches_wait_and_a_stop_lets_it_go(svc):
    assert INBOX_MOST == RECEIVE_MAXIMUM  # (what the broker should keep to, kept to here)
    feeder = threading.Thread(target=deliver, args=(svc, range(1, INBOX_MOST + 3)), daemon=True)
    feeder.start()
    wait_until(lambda: len(svc._inbox) == INBOX_MOST, 10, what="two batches waiting")
    assert feeder.is_alive()  # (waiting for room: reading nothing more from the broker)
    assert svc._take_batch()
    wait_until(lambda: len(svc._inbox) == INBOX_MOST - INBOX_BATCH + 2, 10, what="the rest taken from paho")
    feeder.join(10)
    assert not feeder.is_alive()
    waiting = threading.Thread(target=deliver, args=(svc, range(INBOX_MOST + 3, INBOX_MOST + INBOX_BATCH + 3)),
                               daemon=True)
    waiting.start()
    wait_until(lambda: len(svc._inbox) == INBOX_MOST, 10, what="two batches waiting again")
    svc.stop_taking()  # (a stop: the link must be able to disconnect, its thread not held here)
    waiting.join(10)
    assert not waiting.is_alive() and len(svc._inbox) == INBOX_MOST


def test_the_link_acknowledges_no_message_of_a_connection_that_has_ended(tmp_path, mocker):
    cfg = parse_floor_text('[floor]\nbroker = "mqtt://127.0.0.1:1"\n', path=tmp_path / "floor.toml")
    got: list[tuple[str, bytes, Receipt]] = []
    link = FloorLink(cfg, lambda topic, payload, receipt: got.append((topic, payload, receipt)))
    assert link.client._manual_ack  # (paho sends no PUBACK of its own)
    ack = mocker.patch.object(link.client, "ack")
    msg = mqtt.MQTTMessage(mid=7, topic=b"tablectl/main/t7/events/floor")
    msg.qos, msg.payload = 1, alert(1)
    link._on_message(link.client, None, msg)
    assert got == [("tablectl/main/t7/events/floor", alert(1), (link.generation, 7, 1))]
    assert link.ack([got[0][2], (link.generation, 8, 0)]) == 1  # (a QoS 0 message has nothing to acknowledge)
    ack.assert_called_once_with(7, 1)
    ack.reset_mock()
    link._on_disconnect(link.client, None, None, "lost", None)
    # (the broker sends it again on the next connection, under that connection's receipt)
    assert link.ack([got[0][2]]) == 0
    ack.assert_not_called()


def test_a_refused_numbered_message_sent_again_is_counted_once(tmp_path):
    """A message committed but not acknowledged before a crash comes again: kept once, an alert or a
    refusal alike."""
    from controller.room.signing import new_key_pair

    _, public = new_key_pair()
    st = Store(tmp_path / "floor.db", keys={"main/t7": public})
    unsigned = alert(1)
    off_schema = json.dumps({**json.loads(alert(2)), "seat": 40}).encode()
    kinds = [st.ingest(T, m).kind for m in (unsigned, off_schema, unsigned, off_schema)]
    assert kinds == ["suspect", "suspect", "duplicate", "duplicate"]
    assert st.db.execute("SELECT count(*) FROM suspects").fetchone()[0] == 2
    st.close()
