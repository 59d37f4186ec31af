"""What the floor refuses, out loud (issue 38), against ``tablectl floor`` as a real subprocess, a
real mosquitto and :class:`rig.floor.FakeTable`:

- every malformed message on a table's topics is counted on its tile and logged by table and
  topic, never with its text (controller/floor/store.py, ``Store.refuse``);
- a command out of the table's bounds is refused at ``/api/cmd`` with a 400 naming the field
  (controller/room/bounds.py: the table's own checks), and never reaches the table;
- a table of an earlier release that refuses a request it cannot read answers with no id: the
  commands waiting for an answer fail at their timeout with a note saying so (docs/floor.md)."""

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
    floor = FloorProc(folder, broker, extra="command_timeout = 2\n")  # (a command unanswered for 2 s: failed)
    add_users(floor, ["maria"])
    floor.start()
    table = FakeTable(broker)
    table.state()
    yield floor, table
    table.stop()
    floor.stop()
    broker.stop()


class Maria:
    """The floor user maria, logged in: the room as her page has it, and her commands."""

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

    def cmd(self, body: dict[str, Any] | bytes) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        status, _, out = request(self.floor.url + "/api/cmd", data=data, method="POST",
                                 headers={"Cookie": self.cookie, "X-CSRF-Token": self.csrf,
                                          "Content-Type": "application/json"})
        return status, json.loads(out)

    def command(self, cmd_id: str) -> dict[str, Any]:
        return json.loads(request(self.floor.url + f"/api/cmd?id={cmd_id}", headers={"Cookie": self.cookie})[2])


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


@pytest.mark.parametrize("fields,named", [
    ({"cmd": "setup", "seats": [2 ** 70], "button": 1}, "setup: 'seats' must list"),
    ({"cmd": "setup", "seats": [1, 2], "button": 2 ** 70}, "setup: 'button' must be a whole number 1 to 10"),
    ({"cmd": "setup", "seats": [1, 2], "button": 1.5}, "setup: 'button' must be a whole number 1 to 10"),
    ({"cmd": "dealer", "name": "Ann", "at_relief": 2 ** 70}, "dealer: 'at_relief' must be true or false"),
    ({"cmd": "decks", "in_play": 2 ** 70, "decks": [{"id": "C", "back": "green", "manifest": "C.txt"}]},
     "decks: 'in_play' must be a word"),
    ({"cmd": "decks", "in_play": "C", "decks": [{"id": "C", "back": "g" * 65, "manifest": "C.txt"}]},
     "decks: 'back' must be a word of 1 to 64"),
    ({"cmd": "decks", "in_play": "C", "decks": [{"id": "C", "back": "green", "manifest": "../C.txt"}]},
     "decks: manifest '../C.txt': give a file name"),
    ({"cmd": "decks", "in_play": "C", "decks": [{"id": "C", "back": "green", "manifest": "C.txt", "n": 2 ** 70}]},
     "decks: a deck: unknown field 'n'"),
])
def test_a_command_out_of_the_tables_bounds_is_refused_naming_the_field_and_never_sent(room, fields, named):
    floor, table = room
    maria = Maria(floor)
    sent = len(table.commands)
    status, out = maria.cmd({"room": "main", "table": "t7", **fields})
    assert (status, out["ok"]) == (400, False) and out["error"].startswith(named), out
    status, out = maria.cmd({"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 2, 4], "button": 4})
    assert status == 200  # (a command within the bounds goes, and reaches the table alone)
    wait_until(lambda: any(c.get("id") == out["id"] for c in table.commands), 10, what="the command at the table")
    assert [c["id"] for c in table.commands[sent:]] == [out["id"]]


def test_a_table_of_an_earlier_release_refusing_with_no_id_fails_the_command_with_a_note(room):
    """A table of the release before issue 38 refuses a request it cannot read with ``"id": null``:
    which command it was cannot be known, so none is marked refused; the command waiting fails at
    its timeout, its reason saying that the table refused a request it could not read, and why."""
    floor, table = room
    maria = Maria(floor)
    table.unread = "not a request: a number of more than 20 digits"
    try:
        status, out = maria.cmd({"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 2, 5]})
        assert status == 200
        wait_until(lambda: maria.command(out["id"])["status"] == "failed", 20, what="the command failed")
    finally:
        table.unread = None
    done = maria.command(out["id"])
    assert done["reply"] is None and done["reason"] == (
        "no answer from the table within 2 s; meanwhile the table refused a request it could not read, naming "
        "none (a table of an earlier release, or a request not from this floor): not a request: a number of more "
        "than 20 digits")
    assert "floor: main/t7 cmd/reply: the table refused a request it could not read, naming none" in \
        floor.log.read_text()
    # Retry sends it again under a new id; the table, reading it now, confirms it
    status, _, again = request(floor.url + "/api/retry", data=json.dumps({"id": out["id"]}).encode(), method="POST",
                               headers={"Cookie": maria.cookie, "X-CSRF-Token": maria.csrf,
                                        "Content-Type": "application/json"})
    assert status == 200
    new = json.loads(again)["id"]
    wait_until(lambda: maria.command(new)["status"] == "confirmed", 10, what="the retry confirmed")


def test_a_command_kept_by_an_earlier_floor_out_of_the_bounds_is_not_sent_again(room):
    """A failed command an earlier floor kept, with a seat the table refuses: Retry refuses it
    naming the field, and sends nothing."""
    from controller.floor.store import Store

    floor, table = room
    maria = Maria(floor)
    store = Store(floor.database)
    try:
        store.command_sent("c-old", "main", "t7", "floor:maria", {"user": "floor:maria", "cmd": "setup",
                                                                   "seats": [2 ** 70], "button": 1})
        store.db.execute("UPDATE commands SET status = 'failed' WHERE id = 'c-old'")
    finally:
        store.close()
    sent = len(table.commands)
    status, _, out = request(floor.url + "/api/retry", data=b'{"id": "c-old"}', method="POST",
                             headers={"Cookie": maria.cookie, "X-CSRF-Token": maria.csrf,
                                      "Content-Type": "application/json"})
    assert status == 400 and json.loads(out)["error"].startswith(
        "command c-old cannot be sent again: setup: 'seats' must list"), out
    assert len(table.commands) == sent
