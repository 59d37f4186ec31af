"""What the floor refuses, out loud (issue 38), against ``tablectl floor`` as a real subprocess, a
real mosquitto and :class:`rig.floor.FakeTable`:

- every malformed message on a table's topics is counted on its tile and logged by table and
  topic, never with its text (controller/floor/store.py, ``Store.refuse``)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rig.broker import Broker, have_mosquitto
from rig.floor import PASSWORDS, FakeTable, FloorProc, add_users, request
from rig.waiting import wait_until

#: (topic, payload, why the floor refuses it): each malformed payload of the issue on a table's
#: topics; each holds a marker that must never reach the log
MALFORMED = [
    ("events/floor", b'{"type": "Alert", "card": "MARK-NOTJSON", ', "events/floor: not JSON (Expecting"),
    ("hands", b'{"type": "HandFinished", "card": "MARK-UTF8 \xff\xfe"}', "hands: not UTF-8 text (byte "),
    ("events/dealer", b'{"type": "Alert", "seq": NaN, "card": "MARK-NAN"}',
     "events/dealer: not JSON the floor takes (NaN is not JSON)"),
    ("events/floor", b'{"type": "Alert", "seq": 1, "seq": 2, "card": "MARK-TWICE"}',
     "events/floor: not JSON the floor takes (a key given twice)"),
    ("state", b'{"online": true, "card": "MARK-DEEP", "x": ' + b"[" * 3000 + b"]" * 3000 + b"}",
     "state: not JSON the floor can read (nested too deep)"),
    ("cmd/reply", b'["MARK-ARRAY"]', "cmd/reply: not a JSON object (a list)"),
    ("events/floor", b"7777777771", "events/floor: not a JSON object (a number)"),
    ("events/floor", json.dumps({"type": "Alert", "seq": 1, "ts": 1.0, "code": "deck.foreign_card",
                                 "audience": "floor", "card": "MARK-EPOCH", "epoch": "../../x"}).encode(),
     "events/floor: epoch: want a journal's epoch"),
]
MARKERS = ("MARK-", "7777777771", "../../x")


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    folder = tmp_path_factory.mktemp("floor_input")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    floor = FloorProc(folder, broker)
    add_users(floor, ["maria"])
    floor.start()
    table = FakeTable(broker)
    table.state()
    yield floor, table
    table.stop()
    floor.stop()
    broker.stop()


class Maria:
    """The floor user maria, logged in: the room as her page has it."""

    def __init__(self, floor: FloorProc) -> None:
        self.floor = floor
        status, headers, _ = request(floor.url + "/login", data=f"name=maria&password={PASSWORDS['maria']}".encode(),
                                     method="POST")
        assert status == 303
        self.cookie = headers["Set-Cookie"].split(";")[0]
        page = request(floor.url + "/", headers={"Cookie": self.cookie})[2].decode()
        self.csrf = page.split('name="csrf-token" content="')[1].split('"')[0]

    def tile(self, table: str = "t7") -> dict[str, Any]:
        room = json.loads(request(self.floor.url + "/api/room", headers={"Cookie": self.cookie})[2])
        return next(t for t in room["tiles"] if t["table"] == table)


def test_every_malformed_message_is_counted_on_its_tile_and_logged_by_table_and_topic(room):
    """Not JSON, bad UTF-8, NaN, a key given twice, nesting 3,000 deep, an array, a bare number
    and an epoch of ``../../x``, each on a table's topic: each counted on the tile and logged with
    the table, the topic and why, and none of their text in the log. A topic of no table
    (``tablectl/main//state``: no tile to count it on) is logged once, not once a message."""
    floor, table = room
    maria = Maria(floor)
    wait_until(lambda: maria.tile().get("online") is True, 10, what="the table's tile")
    before = maria.tile()["suspects"]
    for topic, payload, _ in MALFORMED:
        table.publish_raw(topic, payload)
    for _ in range(3):
        table.client.publish("tablectl/main//state", b'{"online": true, "card": "MARK-NOTABLE"}',
                             qos=1).wait_for_publish(10)
    wait_until(lambda: maria.tile()["suspects"] == before + len(MALFORMED), 20,
               what=f"{len(MALFORMED)} refused messages counted on the tile")

    def said() -> str:
        return floor.log.read_text(errors="replace")

    for _, _, why in MALFORMED:
        wait_until(lambda why=why: f"floor: main/t7: a message refused: {why}" in said(), 10,
                   what=f"the log saying {why!r}")
    wait_until(lambda: "a message on a topic of no table ('tablectl/main//state'): ignored" in said(), 10,
               what="the topic of no table in the log")
    log = said()
    assert log.count("on a topic of no table") == 1  # (three messages, one line: no tile, no flood)
    assert maria.tile()["suspects"] == before + len(MALFORMED)  # (the topic of no table counted on none)
    assert not [m for m in MARKERS if m in log], "a refused message's text reached the log"
    assert "Traceback" not in log
    table.foul_card("7h")  # the table's own messages still land
    wait_until(lambda: maria.tile()["open_alerts"] >= 1, 10, what="the table's next alert")
