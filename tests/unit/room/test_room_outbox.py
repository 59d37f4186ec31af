"""The room link's outbox in the journal (controller/room/outbox.py): numbered per
topic, the same numbers after a replay, the hands' chain across restarts, the bound, and a
schema-2 journal opened and migrated."""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.core.effects import Alert, HandFinished
from controller.core.events import ButtonPress
from controller.config.daemon import ConfigError, parse_config
from controller.daemon.journal import SCHEMA_VERSION, Journal
from controller.room import outbox as ob
from controller.room.topics import route


def _journal(tmp_path):
    j = Journal(tmp_path / "j.sqlite3")
    j.open()
    return j


def _rows(j, topic):
    return j.with_db(lambda db: [json.loads(p) for (p,) in db.execute(
        "SELECT payload FROM outbox WHERE topic = ? ORDER BY seq", (topic,))])


def _alert(ts, audience, code="misdeal.x"):
    return Alert(ts=ts, code=code, audience=audience, message="m", hand=1)


def test_sequences_are_per_topic_so_a_floor_alert_leaves_no_gap_in_public(tmp_path):
    j = _journal(tmp_path)
    j.record([], outbox=route([_alert(1.0, "public")], broadcast=False), event_id=1)
    j.record([], outbox=route([_alert(2.0, "floor", "deck.extra_card")], broadcast=False), event_id=2)
    j.record([], outbox=route([_alert(3.0, "public")], broadcast=False), event_id=3)
    assert [m["seq"] for m in _rows(j, "events/public")] == [1, 2]
    assert [m["seq"] for m in _rows(j, "events/floor")] == [1]


def test_a_replay_gives_the_same_numbers_and_fills_in_what_a_crash_lost(tmp_path):
    """Event 2's messages were committed, event 3's were not (the power went): replaying 2 and 3
    leaves 2's seq as it was and numbers 3's next, as the first run would have."""
    j = _journal(tmp_path)
    e2 = [_alert(2.0, "public"), _alert(2.0, "floor"), _alert(2.0, "public")]
    e3 = [_alert(3.0, "public")]
    j.record([], outbox=route(e2, broadcast=False), event_id=2)
    first = _rows(j, "events/public")
    j.close()
    j = _journal(tmp_path)
    for eid, effects in ((2, e2), (3, e3)):
        j.record([], outbox=route(effects, broadcast=False), event_id=eid)
    again = _rows(j, "events/public")
    assert again[:2] == first
    assert [m["seq"] for m in again] == [1, 2, 3]
    assert [m["seq"] for m in _rows(j, "events/floor")] == [1]


def test_hand_records_are_chained_across_restarts_and_a_change_shows(tmp_path):
    j = _journal(tmp_path)
    for n in (1, 2):
        hf = HandFinished(ts=float(n), hand=n, record={"hand": n, "zones": {"board": ["Th"]}})
        j.record([hf], outbox=route([hf], broadcast=False), event_id=10 * n)
    j.close()
    j = _journal(tmp_path)  # a restart: the chain carries on from the last hash
    hf = HandFinished(ts=3.0, hand=3, record={"hand": 3})
    j.record([hf], outbox=route([hf], broadcast=False), event_id=30)
    hands = _rows(j, "hands")
    assert [h["seq"] for h in hands] == [1, 2, 3]
    assert hands[0]["prev"] == ob.GENESIS
    assert hands[1]["prev"] == hands[0]["hash"] and hands[2]["prev"] == hands[1]["hash"]
    assert ob.check_chain(hands) == []
    changed = [dict(h) for h in hands]
    changed[1]["record"] = {"hand": 2, "zones": {"board": ["Ts"]}}
    assert ob.check_chain(changed) == ["hands seq 2: its hash does not match its content (changed after the fact)"]
    removed = [hands[0], hands[2]]
    assert ob.check_chain(removed) == ["hands seq 3: prev is not the hash of the record before it "
                                       "(a record removed, added or reordered)"]


def test_the_bound_drops_old_unacknowledged_rows_counted_and_keeps_numbering(tmp_path):
    j = _journal(tmp_path)
    for eid in range(1, 6):
        j.record([], outbox=route([_alert(float(eid), "public")], broadcast=False), event_id=eid)
    ids = j.with_db(lambda db: [r[0] for r in db.execute("SELECT id FROM outbox ORDER BY id")])
    j.with_db(lambda db: ob.mark(db, ids[:2]))  # 1 and 2 acknowledged
    lost = j.with_db(lambda db: ob.compact(db, before=4.0))  # 1..3 are older than the bound
    assert lost == {"events/public": 1}  # only 3 was never acknowledged
    assert j.with_db(ob.counts) == {"unacked": 2, "refused": 0, "dropped": 1}
    j.with_db(lambda db: db.executemany("INSERT INTO room_commands (cmd_id, ts, user, cmd, reply) VALUES "
                                        "(?, ?, 'u', '{}', '{}')", [("old", 1.0), ("new", 9.0)]))
    j.with_db(lambda db: ob.compact(db, before=4.0))
    assert j.with_db(lambda db: db.execute("SELECT cmd_id FROM room_commands").fetchall()) == [("new",)]
    j.record([], outbox=route([_alert(6.0, "public")], broadcast=False), event_id=6)
    assert [m["seq"] for m in _rows(j, "events/public")] == [4, 5, 6]  # never reused


def test_a_schema_2_journal_opens_and_gets_its_outbox(tmp_path):
    """A journal written before the room link (schema 2, no outbox tables) opens, keeps its
    events, and is schema 3 with an outbox afterwards."""
    j = _journal(tmp_path)
    j.append(ButtonPress(1.0, "sa"))
    j.close()
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    db.executescript("DROP TABLE outbox; DROP TABLE outbox_topics; DROP TABLE room_commands; "
                     "UPDATE meta SET value = '2' WHERE key = 'schema';")
    db.commit()
    db.close()
    j = Journal(tmp_path / "j.sqlite3")
    info = j.open()
    assert info.events == 1 and info.lost == []
    assert [type(e).__name__ for _, e in j.events_after(0)] == ["ButtonPress"]
    j.record([], outbox=route([_alert(1.0, "public")], broadcast=False), event_id=1)
    assert [m["seq"] for m in _rows(j, "events/public")] == [1]
    j.close()
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    assert db.execute("SELECT value FROM meta WHERE key = 'schema'").fetchone() == (str(SCHEMA_VERSION),)
    assert SCHEMA_VERSION == 3


def test_no_uid_field_on_any_topic():
    from controller.core.effects import CardLeft, CardPlaced

    effects = [CardPlaced(1.0, 1, "E004015000000001", "As", "seat:1", None, "floor"),
               CardLeft(1.0, 1, "E004015000000001", "As", "seat:1")]
    for topic, _i, _t, body in route(effects, broadcast=True):
        assert "uid" not in body and "E004015000000001" not in json.dumps(body), topic


@pytest.mark.parametrize("room,error", [
    ('broker = "mqtt://10.0.0.5:1883"\nroom = "r"\ntable = "t"', "[room] broker: mqtt:// (no TLS) only"),
    ('broker = "mqtts://b:8883"\nroom = "r/x"\ntable = "t"', "[room] room: want a name"),
    ('broker = "mqtts://b:8883"\nroom = "r"\ntable = "#"', "[room] table: want a name"),
    ('broker = "http://b"\nroom = "r"\ntable = "t"', "[room] broker: want mqtts://"),
    ('broker = "mqtts://b"\nroom = "r"\ntable = "t"\nbroadcast_delay = -1',
     "[room] broadcast_delay = -1: must be a finite number from 0.1"),
    ('broker = "mqtts://b"\nroom = "r"\ntable = "t"\noutbox_days = 0',
     "[room] outbox_days = 0: must be a finite number from 0.01"),
    ('broker = "mqtts://b"\nroom = "r"\ntable = "t"\npassword_file = "nope"', "[room] password_file:"),
    ('broker = "mqtts://b"\nroom = "r"\ntable = "t"\nbrokr = 1', "[room] brokr: unknown key"),
])
def test_bad_room_values_name_the_key_and_the_file(tmp_path, room, error):
    with pytest.raises(ConfigError) as exc:
        parse_config(f'[journal]\npath = "j.sqlite3"\n[room]\n{room}\n', path=tmp_path / "t.toml")
    assert str(exc.value).startswith(f"{tmp_path / 't.toml'}: {error}")


def test_an_empty_password_file_is_refused_naming_it(tmp_path):
    (tmp_path / "pw").write_text("\n")
    with pytest.raises(ConfigError, match=r"\[room\] password_file: .*pw: its first line is empty"):
        parse_config('[journal]\npath = "j.sqlite3"\n[room]\nbroker = "mqtts://b"\nroom = "r"\ntable = "t"\n'
                     'username = "u"\npassword_file = "pw"\n', path=tmp_path / "t.toml")


def test_room_needs_the_journal(tmp_path):
    with pytest.raises(ConfigError, match=r"\[room\] needs \[journal\]"):
        parse_config('[room]\nbroker = "mqtt://127.0.0.1"\nroom = "r"\ntable = "t"\n', path=tmp_path / "t.toml")
    cfg = parse_config('[journal]\npath = "j.sqlite3"\n[room]\nbroker = "mqtt://127.0.0.1"\nroom = "r"\n'
                       'table = "t"\n', path=tmp_path / "t.toml")
    assert cfg.room.prefix == "tablectl/r/t" and cfg.room.port == 1883
    assert parse_config("", path=tmp_path / "t.toml").room is None  # no [room], no network
