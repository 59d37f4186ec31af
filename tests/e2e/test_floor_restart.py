"""The floor service restarted while a table keeps dealing, and the broker restarted meanwhile:
nothing missing afterwards (the broker's persistence keeps the floor's session and what was
queued for it; a message the table never got through is a gap the service asks again with
``replay``), and a broken hand chain is flagged.

The table is :class:`rig.floor.FakeTable`: what is under test is the floor's side (its
session, its dedupe, its gap found and asked again), and a fake table loses a message at a
chosen ``seq`` and breaks a chain at will, which a real one does not; the real table's outbox,
``seq`` and ``replay`` are tested against the real daemon in tests/e2e/test_room_replay.py and
tests/e2e/test_room_outage.py."""

from __future__ import annotations

import json
import sqlite3

import pytest

from rig.broker import Broker, have_mosquitto
from rig.floor import PASSWORDS, FakeTable, FloorProc, add_users, request
from rig.waiting import wait_until


def floor_seqs(floor: FloorProc) -> list[int]:
    with sqlite3.connect(floor.database) as db:
        return [r[0] for r in db.execute("SELECT seq FROM messages WHERE topic = 'events/floor' ORDER BY seq")]


def test_a_restart_misses_nothing_and_a_gap_is_replayed(tmp_path):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker", persistence=True)  # (as the shipped mosquitto.conf: persistence true)
    broker.start()
    floor = FloorProc(tmp_path, broker)
    add_users(floor, ["maria"])
    table = FakeTable(broker)
    try:
        floor.start()
        table.state()
        table.foul_card("2c")
        table.hand()
        wait_until(lambda: floor_seqs(floor) == [1], 10, what="alert 1 kept")
        floor.stop()
        table.foul_card("3c")  # (the service is down: the broker queues these for its session)
        table.foul_card("4c")
        table.foul_card("5c", lost=True)  # never reaches the broker: a gap
        table.foul_card("6c")
        table.hand()
        table.hand(prev="f" * 64)  # a record removed or changed: the chain is broken here
        broker.stop()  # the broker restarts too, while the service is away: its queue is kept
        broker.start()
        floor.start()
        wait_until(lambda: floor_seqs(floor) == [1, 2, 3, 4, 5], 20,
                   what=f"every alert, the lost one replayed (kept: {floor_seqs(floor)}, table: {table.commands})")
        replays = [c for c in table.commands if c.get("cmd") == "replay"]
        assert replays and replays[0]["from"] == 4 and replays[0]["topic"] == "events/floor"
        assert replays[0]["user"] == "floor:service"
        with sqlite3.connect(floor.database) as db:
            assert [r[0] for r in db.execute("SELECT seq FROM hands ORDER BY seq")] == [1, 2, 3]
            problems = [r[0] for r in db.execute("SELECT seq, problem FROM chain_breaks")]
        assert problems == [3]
        status, headers, _ = request(floor.url + "/login", method="POST",
                                     data=f"name=maria&password={PASSWORDS['maria']}".encode())
        cookie = headers["Set-Cookie"].split(";")[0]
        room = json.loads(request(floor.url + "/api/room", headers={"Cookie": cookie})[2])
        assert room["tiles"][0]["chain_breaks"] == 1
        assert sorted(a["card"] for a in room["alerts"]) == ["2c", "3c", "4c", "5c", "6c"]
        assert "the hand chain is broken" in floor.log.read_text()
    finally:
        table.stop()
        floor.stop()
        broker.stop()
