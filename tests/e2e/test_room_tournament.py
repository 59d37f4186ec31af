"""The floor's tournament signal end to end (docs/room.md, "The tournament signal"): a real
mosquitto, the daemon as a real subprocess dealing on the simulated table, the floor's retained
message published with a paho client as the floor's service would. The signal published before
the daemon starts reaches it; a level change is journalled as a ``LevelSet`` and deals the next
hand; a malformed message is refused and counted (the daemon's status, the retained ``state``,
its log naming the table and never the payload) while the table keeps its level."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.daemon import control
from controller.room.tournament import tournament_topic
from hw_sim.script import parse_script
from hw_sim.simulate import room_section, run_script
from rig.broker import Subscriber
from rig.scenarios import NOISE
from rig.waiting import wait_until
from tests.rules_common import BUTTON, CLEAN, SEATS

pytestmark = pytest.mark.e2e
PREFIX = "tablectl/r1/t1"


def signal(level: int, **level_over) -> bytes:
    """The floor's whole signal for table t1: tournament ``main`` at ``level``."""
    return json.dumps({"v": 1, "tournament": "main",
                       "level": {"n": level, "kind": "level", "sb": 50 * level, "bb": 100 * level, "ante": 0,
                                 "game": None, **level_over},
                       "h4h": {"on": False, "round": 0},
                       "bubble": {"mode": False, "on": False, "table": None, "hand": None}, "clock": None}).encode()


def floor_client(port: int) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.connect("127.0.0.1", port)
    c.loop_start()
    return c


def publish(c: mqtt.Client, payload: bytes) -> None:
    """As the floor's service does: retained, QoS 1, acknowledged by the broker."""
    info = c.publish(tournament_topic("r1", "t1"), payload, qos=1, retain=True)
    info.wait_for_publish(10)
    assert info.is_published()


def levels_journalled(journal: Path, after: int = 0) -> list[int]:
    """The levels of the ``LevelSet`` events in the journal after event ``after`` (while the
    daemon runs: a snapshot at a hand's end drops the events before the previous one)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT data FROM events WHERE type = 'LevelSet' AND id > ? ORDER BY id",
                          (after,)).fetchall()
    finally:
        db.close()
    return [json.loads(r[0])["level"] for r in rows]


def last_event(journal: Path) -> int:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        return int(db.execute("SELECT max(id) FROM events").fetchone()[0])
    finally:
        db.close()


def hand_levels(journal: Path) -> list:
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT record FROM hands ORDER BY id").fetchall()
    finally:
        db.close()
    return [json.loads(r[0])["level"] for r in rows]


def test_the_floors_signal_sets_the_level_and_a_malformed_one_is_refused_and_counted(broker, tmp_path):
    floor = floor_client(broker.port)
    publish(floor, signal(3))  # before the daemon starts: retained, it reads it once connected
    state = Subscriber(broker.port, [f"{PREFIX}/state"]).start()
    journal = tmp_path / "journal.sqlite3"
    seen: dict[str, object] = {}

    def last_state() -> dict:
        online = [s for s in state.json(f"{PREFIX}/state") if s.get("online")]
        return online[-1] if online else {}

    def ping() -> dict:
        return control.send(str(tmp_path / "control.sock"), {"cmd": "ping"})

    def between(number: int, proc) -> None:
        if number == 1:
            wait_until(lambda: levels_journalled(journal) == [3], 20, what="the retained signal's LevelSet")
            wait_until(lambda: last_state().get("level") == 3, 20, what="level 3 in the table's state")
            publish(floor, signal(4))  # the next level: applied from the next deal (FLOW-001)
            wait_until(lambda: levels_journalled(journal) == [3, 4], 20, what="the new level journalled")
            wait_until(lambda: last_state().get("level") == 4, 20, what="level 4 in the table's state")
        elif number == 2:
            seen["before"] = last_event(journal)
            publish(floor, signal(5, n="XYZZY"))  # malformed: level.n is no number
            wait_until(lambda: ping()["room"]["signals"]["refused"] == 1, 20, what="the refusal counted")
            wait_until(lambda: last_state().get("signals", {}).get("refused") == 1, 20,
                       what="the refusal in the retained state")
            seen["status"] = ping()["room"]["signals"]
            seen["state"] = last_state()
            seen["levels"] = levels_journalled(journal, after=int(seen["before"]))  # type: ignore[call-overload]

    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": CLEAN, "button": BUTTON} for _ in range(3)]}
    try:
        run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_hand=between,
                   room=room_section(broker.url, "r1", "t1"))
    finally:
        floor.disconnect()  # (first: it wakes the network thread, which loop_stop would wait a second for)
        floor.loop_stop()
        state.stop()
    assert seen["status"] == {"received": 2, "refused": 1,
                              "last_refused": "tournament signal: level.n: want a whole number 1 to 1000"}
    after = seen["state"]
    assert isinstance(after, dict) and after["level"] == 4 and after["holding"] is None
    assert after["players"] == len(SEATS)
    assert seen["levels"] == []  # the refused one made no event
    assert hand_levels(journal)[1:] == [4, 4]  # hand 2 dealt at the new level, hand 3 kept it
    log = (tmp_path / "daemon.log").read_text()
    refusals = [line for line in log.splitlines() if "tournament signal refused" in line]
    assert len(refusals) == 1 and "r1/t1" in refusals[0] and "level.n" in refusals[0]
    assert "XYZZY" not in log  # the payload is never logged
