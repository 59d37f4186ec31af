"""The floor's commands on ``cmd`` (controller/daemon/room_commands.py): checked as the control
socket checks its requests; a malformed, oversized or unknown one answered with why and changing
nothing; a redelivery applied once; each accepted one journalled with its id and user. In
process on a real daemon and journal, and one end to end through mosquitto."""

from __future__ import annotations

import json
import sqlite3

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.core.effects import Alert, Figures
from controller.core.events import DeckSetup, TableSetup
from controller.config.daemon import load_config
from controller.daemon.main import Daemon
from hw_sim.simulate import room_section, run_script
from hw_sim.script import parse_script
from hw_sim.setup import write_setup
from rig.broker import Subscriber
from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
from rig.scenarios import NOISE


@pytest.fixture
def daemon(tmp_path, mocker):
    cfg = write_setup(tmp_path, journal=True, console=False)
    manifests = tmp_path / "manifests"  # (a folder of its own: the journal may not be in it, config.check_paths)
    manifests.mkdir()
    for m in tmp_path.glob("deck-*.txt"):
        (manifests / m.name).write_bytes(m.read_bytes())
    cfg.write_text(cfg.read_text() + f'\n[control]\nmanifests = "{manifests}"\n'
                   + room_section("mqtt://127.0.0.1:1", "r1", "t1"))
    d = Daemon(load_config(cfg), sinks=[])
    d.recover()  # (opens the journal; the link is never started: nothing is sent)
    # a replay's copies go out past the outbox: what would be sent is the mock's calls
    d.sent = mocker.patch.object(d.room.link, "send_raw")
    yield d
    d.journal.close()


def cmd(d, payload) -> dict:
    """One command as the floor sends it: an ack or a replay names the journal's epoch (unless the
    test gives one)."""
    if isinstance(payload, dict) and payload.get("cmd") in ("ack", "replay") and "epoch" not in payload:
        payload = {**payload, "epoch": d.journal.epoch}
    data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    return d.room.commands.handle(data)


def commands_journalled(d) -> list[tuple]:
    return d.journal.with_db(lambda db: db.execute("SELECT cmd_id, user, cmd FROM room_commands").fetchall())


def queued(d) -> list:
    out = []
    while not d.events.empty():
        out.append(d.events.get()[1])
    return out


def floor_alert(d, code="deck.extra_card") -> None:
    a = Alert(ts=1.0, code=code, audience="floor", message="a tag of no deck on the table", hand=1)
    d.journal.record([a], outbox=d.room.rows([a]), event_id=5)


@pytest.mark.parametrize("payload,error", [
    (b"{not json", "not a request: not JSON"),
    (b"x" * 20000, "a command is at most 16384 bytes; this one is 20000"),
    (b"[1, 2]", "a command is a JSON object"),
    (b'{"id": "c1", "id": "c2", "user": "u", "cmd": "ack", "seq": 1}', "field 'id' given twice"),
    ({"user": "floor:ann", "cmd": "ack", "seq": 1}, "command: 'id' must be a word"),
    ({"id": "c1", "cmd": "ack", "seq": 1}, "command: 'user' must be a word"),
    ({"id": "c1", "user": "floor:ann", "cmd": "fly"},
     "unknown command 'fly' (commands: ack, setup, decks, dealer, replay, approve)"),
    ({"id": "c1", "user": "floor:ann", "cmd": "dealer", "name": "Ann\tLee"},
     "dealer: the name must hold printable characters only"),
    ({"id": "c1", "user": "floor:ann", "cmd": "dealer", "name": "x" * 65},
     "dealer: the name must be at most 64 characters, got 65"),
    ({"id": "c1", "user": "floor:ann", "cmd": "press", "name": "ack"}, "press: dealer presses stay at the table"),
    ({"id": "c1", "user": "floor:ann", "cmd": "setup", "seats": [1, 2], "buton": 2}, "setup: unknown field 'buton'"),
    ({"id": "c1", "user": "floor:ann", "cmd": "setup", "seats": [1]}, "setup: 'seats' must list at least two"),
    ({"id": "c1", "user": "floor:ann", "cmd": "ack", "seq": 99}, "ack: no message 99 on events/floor"),
    ({"id": "c1", "user": "floor:ann", "cmd": "ack", "seq": "1"}, "ack: 'seq' must be the whole number"),
    ({"id": "c1", "user": "floor:ann", "cmd": "decks", "in_play": "C",
      "decks": [{"id": "C", "back": "green", "manifest": "../deck-A.txt"}]}, "not a path"),
    ({"id": "c1", "user": "floor:ann", "cmd": "replay", "topic": "state", "from": 1}, "replay: 'topic' must be"),
    ({"id": "c1", "user": "floor:ann", "cmd": "replay", "topic": "broadcast", "from": 1}, "broadcast is not replayed"),
])
def test_a_bad_command_gets_a_reply_saying_why_and_changes_nothing(daemon, payload, error):
    before = daemon.journal.with_db(lambda db: db.execute("SELECT count(*) FROM outbox").fetchone()[0])
    reply = cmd(daemon, payload)
    assert reply["ok"] is False
    assert error in reply["error"]
    assert commands_journalled(daemon) == [] and queued(daemon) == []
    assert daemon.journal.with_db(lambda db: db.execute("SELECT count(*) FROM outbox").fetchone()[0]) == before
    daemon.sent.assert_not_called()  # (a refused replay sends nothing either)


@pytest.mark.parametrize("payload,cmd_id,error", [
    (b'{"id": "c-70", "user": "floor:ann", "cmd": "setup", "seats": [1180591620717411303424], "button": 1}', "c-70",
     "not a request: a number of more than 20 digits"),
    (b'{"id": "c-nan", "user": "floor:ann", "cmd": "setup", "seats": [1, 2], "button": NaN}', "c-nan",
     "not a request: NaN is not a number a request may hold"),
    (b'{"id": "c-dup", "user": "floor:ann", "cmd": "ack", "seq": 1, "seq": 2}', "c-dup",
     "not a request: field 'seq' given twice"),
    (b'{"user": "floor:ann", "cmd": "setup", "button": 100000000000000000000000, "id": "c-last"}', "c-last",
     "not a request: a number of more than 20 digits"),
    (b'{"id": "c-1", "id": "c-2", "user": "u", "cmd": "ack", "seq": 1}', None, "not a request: field 'id' given twice"),
    (b'{"id": "' + b"x" * 65 + b'", "user": "u", "cmd": "ack", "seq": 1}', None, "command: 'id' must be a word"),
    (b'{"id": "c-9", "user": "u", "cmd": "ack", "seq": 1', None, "not a request: not JSON"),
    (b'{"id": "c-9\xff", "cmd": "ack"}', None, "not a request: not UTF-8 text"),
    (b'[{"id": "c-9"}]', None, "a command is a JSON object"),
])
def test_a_refusal_names_the_requests_id_whenever_one_can_be_read(daemon, payload, cmd_id, error):
    """The floor matches an answer to its command by the id: a request refused for a number of 70
    digits, NaN or another field given twice is answered with its id all the same (a release
    before issue 38 said ``"id": null``, and the floor's command sat at "sent"); a request with no
    id that can be read (not JSON, an id given twice or not a word) is answered with null."""
    reply = cmd(daemon, payload)
    assert (reply["ok"], reply["id"]) == (False, cmd_id) and reply["error"].startswith(error), reply
    assert commands_journalled(daemon) == [] and queued(daemon) == []


def test_a_seat_change_is_applied_once_whatever_the_redeliveries(daemon):
    c = {"id": "c-7", "user": "floor:ann", "cmd": "setup", "seats": [1, 2, 4], "button": 4}
    first = cmd(daemon, c)
    assert first == {"ok": True, "id": "c-7", "cmd": "setup"}
    again = cmd(daemon, c)
    assert again == {**first, "duplicate": True}
    events = queued(daemon)
    assert [type(e) for e in events] == [TableSetup] and events[0].seats == (1, 2, 4)
    assert commands_journalled(daemon) == [("c-7", "floor:ann", '{"cmd":"setup","seats":[1,2,4],"button":4}')]


def test_the_floor_names_the_dealer_at_the_next_relief(daemon):
    """RELIEF-003: ``dealer`` reaches the core as the control socket's request does; the reply
    gives the name as the records keep it."""
    reply = cmd(daemon, {"id": "c-9", "user": "floor:ann", "cmd": "dealer", "name": "Bo  Chen", "at_relief": True})
    assert reply == {"ok": True, "id": "c-9", "cmd": "dealer", "name": "Bo Chen", "at_relief": True}
    [event] = queued(daemon)
    assert (type(event).__name__, event.name, event.at_relief) == ("DealerNamed", "Bo Chen", True)
    assert [r[:2] for r in commands_journalled(daemon)] == [("c-9", "floor:ann")]


def test_the_floor_approves_the_satellite_the_table_waits_to_start(daemon):
    """FLOW-007: ``approve`` reaches the core as the control socket's does (SatelliteApproved),
    journalled with its id and user; a field it does not take is refused, changing nothing."""
    refused = cmd(daemon, {"id": "c-10", "user": "floor:ann", "cmd": "approve", "table": "t1"})
    assert refused == {"ok": False, "id": "c-10", "error": "approve: unknown field 'table' (fields: none)"}
    assert queued(daemon) == []
    reply = cmd(daemon, {"id": "c-11", "user": "floor:ann", "cmd": "approve"})
    assert reply == {"ok": True, "id": "c-11", "cmd": "approve"}
    [event] = queued(daemon)
    assert type(event).__name__ == "SatelliteApproved"
    assert commands_journalled(daemon) == [("c-11", "floor:ann", '{"cmd":"approve"}')]


def test_the_deck_pair_exchange_by_manifest_name(daemon):
    reply = cmd(daemon, {"id": "c-8", "user": "floor:bo", "cmd": "decks", "in_play": "C",
                         "decks": [{"id": "C", "back": "green", "manifest": "deck-A.txt"}]})
    assert reply["ok"] is True, reply
    [event] = queued(daemon)
    assert type(event) is DeckSetup and event.in_play == "C" and len(event.decks[0][2]) == 52
    assert commands_journalled(daemon)[0][:2] == ("c-8", "floor:bo")


def test_ack_names_a_floor_alert_by_seq_and_says_who_on_events_floor(daemon):
    floor_alert(daemon)
    f = Figures(ts=2.0, hand=1, street="pre", counts={}, burns=0, board=0, stub_count=52, next_to=None, button=1,
                audience="floor")
    daemon.journal.record([f], outbox=daemon.room.rows([f]), event_id=6)
    e = daemon.journal.epoch
    assert cmd(daemon, {"id": "a1", "user": "floor:ann", "cmd": "ack", "seq": 2, "epoch": e})["error"] == \
        "ack: message 2 on events/floor is a Figures, not an alert"
    reply = cmd(daemon, {"id": "a2", "user": "floor:ann", "cmd": "ack", "seq": 1, "epoch": e})
    assert reply == {"ok": True, "id": "a2", "cmd": "ack", "seq": 1, "code": "deck.extra_card"}
    rows = daemon.journal.with_db(lambda db: db.execute(
        "SELECT payload FROM outbox WHERE topic = 'events/floor' ORDER BY seq").fetchall())
    note = json.loads(rows[-1][0])
    assert (note["type"], note["ack_seq"], note["user"], note["command"], note["seq"]) == ("Ack", 1, "floor:ann",
                                                                                          "a2", 3)


def test_five_acknowledgements_on_one_table_each_land_with_their_own_seq(daemon):
    """Every acknowledgment is its own outbox row: the second and later no longer collide with
    the first (they were all keyed (event 0, index 0) and refused by the journal)."""
    for eid in range(20, 25):
        a = Alert(ts=float(eid), code="deck.extra_card", audience="floor", message="a tag of no deck", hand=1)
        daemon.journal.record([a], outbox=daemon.room.rows([a]), event_id=eid)
    e = daemon.journal.epoch
    replies = [cmd(daemon, {"id": f"ack-{s}", "user": "floor:ann", "cmd": "ack", "seq": s, "epoch": e})
               for s in range(1, 6)]
    assert [r["ok"] for r in replies] == [True] * 5, replies
    rows = daemon.journal.with_db(lambda db: db.execute(
        "SELECT payload FROM outbox WHERE topic = 'events/floor' ORDER BY seq").fetchall())
    acks = [json.loads(p) for (p,) in rows if json.loads(p)["type"] == "Ack"]
    assert [(a["ack_seq"], a["command"], a["seq"]) for a in acks] == [(s, f"ack-{s}", 5 + s) for s in range(1, 6)]
    assert [c[0] for c in commands_journalled(daemon)] == [f"ack-{s}" for s in range(1, 6)]


def test_replay_sends_a_topic_again_from_a_seq(daemon):
    for eid in range(10, 15):
        a = Alert(ts=float(eid), code="misdeal.x", audience="public", message="m", hand=1)
        daemon.journal.record([a], outbox=daemon.room.rows([a]), event_id=eid)
    reply = cmd(daemon, {"id": "r1", "user": "floor:ann", "cmd": "replay", "topic": "events/public", "from": 3,
                         "epoch": daemon.journal.epoch})
    assert reply == {"ok": True, "id": "r1", "cmd": "replay", "topic": "events/public", "sent": 3, "first": 3,
                     "last": 5}
    sent = [c.args for c in daemon.sent.call_args_list]  # (topic, payload) each
    assert [json.loads(p)["seq"] for t, p in sent] == [3, 4, 5]
    assert {t for t, _ in sent} == {"events/public"}
    # up to a seq: the floor's gap alone, not what it has after it (issue 38)
    daemon.sent.reset_mock()
    reply = cmd(daemon, {"id": "r2", "user": "floor:ann", "cmd": "replay", "topic": "events/public", "from": 2,
                         "to": 3, "epoch": daemon.journal.epoch})
    assert (reply["sent"], reply["first"], reply["last"]) == (2, 2, 3)
    assert [json.loads(c.args[1])["seq"] for c in daemon.sent.call_args_list] == [2, 3]
    backwards = cmd(daemon, {"id": "r3", "user": "floor:ann", "cmd": "replay", "topic": "events/public", "from": 4,
                             "to": 3, "epoch": daemon.journal.epoch})
    assert backwards["ok"] is False and "'to' must be a seq of 'from' or more" in backwards["error"]


@pytest.mark.e2e
def test_commands_through_the_broker(broker, tmp_path):
    """A deck fault on events/floor, acknowledged by its seq over the broker; a malformed command
    answered with why; the same id again answered alike and journalled once."""
    prefix = "tablectl/r1/t5"
    sub = Subscriber(broker.port, [f"{prefix}/events/floor", f"{prefix}/cmd/reply"]).start()
    floor = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    floor.connect("127.0.0.1", broker.port)
    floor.loop_start()
    foul = hole()[:3] + [deal("2h@B", 6)] + CLEAN[4:-1] + [END]
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": foul}, {"steps": CLEAN}]}
    replies: list[dict] = []

    def after(number: int, proc) -> None:
        if number != 1:
            return
        sub.wait(lambda: any(m.get("code") == "deck.wrong_deck" for m in sub.json(f"{prefix}/events/floor")),
                 what="the deck fault on events/floor")
        fault = next(m for m in sub.json(f"{prefix}/events/floor") if m.get("code") == "deck.wrong_deck")
        ack = json.dumps({"id": "ack-1", "user": "floor:ann", "cmd": "ack", "seq": fault["seq"],
                          "epoch": fault["epoch"]})
        for payload in (ack, "{oops", ack):
            floor.publish(f"{prefix}/cmd", payload, qos=1).wait_for_publish(5)
        sub.wait(lambda: len(sub.json(f"{prefix}/cmd/reply")) >= 3, what="three replies")
        replies.extend(sub.json(f"{prefix}/cmd/reply"))

    run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_hand=after,
               room=room_section(broker.url, "r1", "t5"))
    floor.disconnect()  # (first: it wakes the network thread, which loop_stop would wait a second for)
    floor.loop_stop()
    assert replies[0]["ok"] is True and replies[0]["code"] == "deck.wrong_deck"
    assert replies[1]["ok"] is False and "not JSON" in replies[1]["error"]
    assert replies[2] == {**replies[0], "duplicate": True}
    acks = [m for m in sub.json(f"{prefix}/events/floor") if m.get("type") == "Ack"]
    assert len({a["seq"] for a in acks}) == 1 and acks[0]["user"] == "floor:ann"
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    assert db.execute("SELECT cmd_id, user FROM room_commands").fetchall() == [("ack-1", "floor:ann")]
    sub.stop()


def test_every_message_carries_its_journals_epoch_and_a_command_of_another_journal_is_refused(daemon, tmp_path):
    epoch = daemon.journal.epoch
    assert epoch.startswith("e") and len(epoch) == 13
    floor_alert(daemon)
    body = json.loads(daemon.journal.with_db(lambda db: db.execute("SELECT payload FROM outbox").fetchone())[0])
    assert body["epoch"] == epoch
    assert daemon.room.state()["epoch"] == epoch
    wrong = cmd(daemon, {"id": "a1", "user": "floor:ann", "cmd": "ack", "seq": 1, "epoch": "e000000000000"})
    assert wrong["ok"] is False and "an earlier journal of this table" in wrong["error"]
    none = daemon.room.commands.handle(json.dumps({"id": "a0", "user": "floor:ann", "cmd": "ack", "seq": 1}).encode())
    assert none["ok"] is False and "epoch '0' is an earlier journal" in none["error"]  # (a floor before epochs)
    assert cmd(daemon, {"id": "a2", "user": "floor:ann", "cmd": "ack", "seq": 1, "epoch": epoch})["ok"] is True
    again = cmd(daemon, {"id": "r1", "user": "floor:ann", "cmd": "replay", "topic": "events/floor", "from": 1,
                         "epoch": "e000000000000"})
    assert again["ok"] is False and "an earlier journal" in again["error"]


def test_a_new_journal_gets_a_new_epoch_and_one_from_before_epochs_keeps_0(tmp_path):
    import sqlite3

    from controller.daemon.journal import Journal

    a, b = Journal(tmp_path / "a.sqlite3"), Journal(tmp_path / "b.sqlite3")
    a.open(), b.open()
    assert a.epoch != b.epoch
    a.close(), b.close()
    old = tmp_path / "old.sqlite3"  # a journal of the release before: its meta has no epoch
    j = Journal(old)
    j.open()
    j.close()
    db = sqlite3.connect(old)
    db.execute("DELETE FROM meta WHERE key = 'epoch'")
    db.commit()
    db.close()
    j = Journal(old)
    j.open()
    assert j.epoch == "0"
    j.close()
