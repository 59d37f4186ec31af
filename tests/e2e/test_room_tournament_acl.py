"""The tournament signal under the shipped broker set-up (docs/room/acl, ``tablectl room enroll``'s
lines, TLS, passwords: tests/e2e/test_room_broker.py's ``room_broker``): a table reads its own
signal and no other table's, and writes none, not even its own; the floor writes every table's;
and a table's daemon, logged in as its enrolled user, reads its retained signal at start."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.room.enroll import username
from controller.room.tournament import tournament_topic
from hw_sim.script import parse_script
from hw_sim.simulate import room_section, run_script
from rig.broker import Subscriber, have_mosquitto
from rig.waiting import wait_until
from tests.conftest import TABLECTL
from tests.e2e.test_room_broker import PASSWORDS, room_broker  # noqa: F401 (the fixture)
from tests.rules_common import BUTTON, CLEAN, SEATS

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto() or not shutil.which("openssl"),
                                                  reason="mosquitto and openssl are needed")]
T1, T2 = username("r1", "t1"), username("r1", "t2")


def signal(level: int) -> bytes:
    return json.dumps({"v": 1, "tournament": "main", "level": {"n": level, "kind": "level", "sb": 100, "bb": 200,
                                                               "ante": 0, "game": None}}).encode()


class Client:
    """A paho client logged in as ``user`` over TLS that keeps each PUBACK's reason code."""

    def __init__(self, b, user: str) -> None:
        self.acks: dict[int, int] = {}
        self._cond = threading.Condition()
        self.c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.c.username_pw_set(user, PASSWORDS[user])
        self.c.tls_set(ca_certs=str(b.pki["ca"]))
        self.c.on_publish = self._acked
        self.c.connect("127.0.0.1", b.tls_port)
        self.c.loop_start()

    def _acked(self, client, userdata, mid, reason, props) -> None:
        with self._cond:
            self.acks[mid] = reason.value
            self._cond.notify_all()

    def publish(self, topic: str, payload: bytes, *, retain: bool = True) -> int:
        """Publish (QoS 1) and return the broker's PUBACK reason code (128 or more: refused)."""
        mid = self.c.publish(topic, payload, qos=1, retain=retain).mid
        with self._cond:
            assert self._cond.wait_for(lambda: mid in self.acks, 10), f"no PUBACK for {topic}"
            return self.acks[mid]

    def stop(self) -> None:
        self.c.disconnect()  # (first: it wakes the network thread, which loop_stop would wait a second for)
        self.c.loop_stop()


def reader(b, user: str, topics: list[str]) -> Subscriber:
    return Subscriber(b.tls_port, topics, user, PASSWORDS[user], {"ca_certs": str(b.pki["ca"])}).start()


def test_a_table_reads_its_own_signal_only_writes_none_and_the_floor_writes_them(room_broker):  # noqa: F811
    b = room_broker
    own, other = tournament_topic("r1", "t1"), tournament_topic("r1", "t2")
    floor = Client(b, "floor")
    assert floor.publish(other, signal(2)) < 128  # the floor writes every table's signal
    assert floor.publish(own, signal(3)) < 128
    t1 = reader(b, T1, ["tablectl/#"])  # asks for everything: gets what its lines allow
    t1.wait(lambda: t1.count(own) == 1, what="t1's own retained signal")
    assert json.loads(t1.messages[own][0])["level"]["n"] == 3
    assert floor.publish(other, signal(5), retain=False) < 128
    assert floor.publish(own, signal(6), retain=False) < 128
    t1.wait(lambda: t1.count(own) == 2, what="t1's own live signal")
    assert other not in t1.messages  # (t2's, retained and live, were sent before the ones that came)
    # a table writes no signal, its own no more than another's: the broker refuses, the retained stays
    table = Client(b, T1)
    assert table.publish(own, signal(9)) >= 128
    assert table.publish(other, signal(9)) >= 128
    t2 = reader(b, T2, [other])
    t2.wait(lambda: t2.count(other) == 1, what="t2's retained signal")
    assert json.loads(t2.messages[other][0])["level"]["n"] == 2  # the floor's, not t1's
    again = reader(b, T1, [own])
    again.wait(lambda: again.count(own) == 1, what="t1's retained signal again")
    assert json.loads(again.messages[own][0])["level"]["n"] == 3
    for c in (floor, table):
        c.stop()
    for s in (t1, t2, again):
        s.stop()


def test_the_tables_daemon_reads_its_retained_signal_through_the_shipped_acl(room_broker, tmp_path):  # noqa: F811
    """The daemon of ``tablectl run`` (paced by the simulated table), logged in as its enrolled
    user over TLS: the signal the floor published before it started is journalled as its
    LevelSet, and its state (which the floor reads) says the level."""
    b = room_broker
    floor = Client(b, "floor")
    assert floor.publish(tournament_topic("r1", "t1"), signal(7)) < 128
    states = reader(b, "floor", ["tablectl/r1/t1/state"])
    pw = tmp_path / "t1.password"
    pw.write_text(PASSWORDS[T1] + "\n")
    pw.chmod(0o600)
    room = room_section(f"mqtts://127.0.0.1:{b.tls_port}", "r1", "t1", username=T1, password_file=str(pw),
                        ca_file=str(b.pki["ca"]))
    journal = tmp_path / "w" / "journal.sqlite3"
    levels: list[int] = []

    def journalled() -> list[int]:
        db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
        try:
            return [json.loads(r[0])["level"] for r in
                    db.execute("SELECT data FROM events WHERE type = 'LevelSet'").fetchall()]
        finally:
            db.close()

    def after(number: int, proc) -> None:
        wait_until(lambda: journalled() == [7], 20, what="the LevelSet of the retained signal")
        levels.extend(journalled())
        wait_until(lambda: any(json.loads(p).get("level") == 7 for p in states.messages.get("tablectl/r1/t1/state",
                                                                                            [])),
                   20, what="level 7 in the table's state, on the floor's side")

    (tmp_path / "w").mkdir()
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "hands": [{"steps": CLEAN}]}
    try:
        run_script(parse_script(json.dumps(script)), workdir=tmp_path / "w", on_hand=after, room=room)
    finally:
        floor.stop()
        states.stop()
    assert levels == [7]
    log = (tmp_path / "w" / "daemon.log").read_text()
    assert "refused" not in log  # nothing it sent was refused, nothing it read was malformed


def test_enroll_gives_a_table_the_read_of_its_own_signal_and_no_write(tmp_path):
    import subprocess

    r = subprocess.run([*TABLECTL, "room", "enroll", "t7", "--room", "main", "--dir", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert "topic read tablectl/main/t7/floor/tournament" in lines
    assert not any("floor/tournament" in line for line in lines if line.startswith("topic write"))
    assert not any("+" in line or "#" in line for line in lines if line.startswith("topic "))  # its own only
