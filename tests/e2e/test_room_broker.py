"""The shipped broker set-up (docs/room/mosquitto.conf, docs/room/acl, docs/room.md): a real
mosquitto with TLS (certificates made here with the openssl command), passwords in mosquitto's
own format from ``tablectl room enroll``'s code, and the shipped ACL with the enrolled tables'
lines. A table publishes through it end to end; the ACL and the credentials hold."""

from __future__ import annotations

import json
import shutil
import ssl
import subprocess
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from controller.room.enroll import acl_lines, password_line, username
from hw_sim.simulate import run_script
from hw_sim.script import parse_script
from rig.broker import Broker, Subscriber, debian_layout, free_port, have_mosquitto
from tests.rules_common import BUTTON, CLEAN, SEATS
from rig.waiting import wait_for
from rig.paths import ROOT

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto() or not shutil.which("openssl"),
                                                  reason="mosquitto and openssl are needed")]
#: a table whose names are as long as [room] takes them (64 characters: controller/config/room.py):
#: its topics are the longest a PUBLISH carries, the most header a packet has beside its payload
LONG = ("r" * 64, "t" * 64)
PASSWORDS = {"floor": "floor-pw", "display": "display-pw", "broadcast": "broadcast-pw",
             username("r1", "t1"): "t1-pw", username("r1", "t2"): "t2-pw", username(*LONG): "long-pw"}


def make_pki(folder: Path) -> dict[str, Path]:
    """A room CA and the broker's certificate for 127.0.0.1 (EC P-256, valid two days)."""
    def run(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=folder, check=True, capture_output=True)

    ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
    run("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.crt", "-days", "2", "-subj", "/CN=room-ca")
    run("req", *ec, "-keyout", "broker.key", "-out", "broker.csr", "-subj", "/CN=127.0.0.1")
    (folder / "san.ext").write_text("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
    run("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
        "-out", "broker.crt", "-days", "2", "-extfile", "san.ext")
    return {"ca": folder / "ca.crt", "cert": folder / "broker.crt", "key": folder / "broker.key"}


def shipped_broker(folder: Path) -> Broker:
    """The shipped set-up (docs/room/mosquitto.conf, docs/room/acl) in ``folder``, started: its
    certificates (``pki``), the users of :data:`PASSWORDS` and the ACL's lines of tables t1 and
    t2 of room r1 and of the :data:`LONG` table. More tables enrolled: their lines appended to
    ``folder``'s ``passwd`` and ``acl``, then the broker reloaded (SIGHUP, ``systemctl reload
    mosquitto``)."""
    folder.mkdir(exist_ok=True)
    pki = make_pki(folder)
    (folder / "passwd").write_text("".join(password_line(u, p) + "\n" for u, p in PASSWORDS.items()))
    shipped_acl = (ROOT / "docs/room/acl").read_text()
    (folder / "acl").write_text(shipped_acl + "\n" + acl_lines("r1", "t1") + "\n\n" + acl_lines("r1", "t2") + "\n\n"
                                + acl_lines(*LONG) + "\n")
    port = free_port()
    conf = (ROOT / "docs/room/mosquitto.conf").read_text()
    for old, new in (("/etc/mosquitto/tablectl.passwd", str(folder / "passwd")),
                     ("/etc/mosquitto/tablectl.acl", str(folder / "acl")),
                     ("/etc/mosquitto/certs/room-ca.crt", str(pki["ca"])),
                     ("/etc/mosquitto/certs/broker.crt", str(pki["cert"])),
                     ("/etc/mosquitto/certs/broker.key", str(pki["key"])),
                     ("listener 8883", f"listener {port} 127.0.0.1")):
        assert old in conf, old
        conf = conf.replace(old, new)
    # (included by Debian's own main file, as on the broker's host: docs/room/mosquitto.conf's lines
    # must not repeat what that file sets)
    b = Broker(folder, tls_port=port, conf_text=debian_layout(folder, conf))
    b.start()
    b.pki = pki  # type: ignore[attr-defined]
    return b


@pytest.fixture
def room_broker(tmp_path):
    b = shipped_broker(tmp_path / "broker")
    yield b
    b.stop()


def tls(b: Broker) -> dict:
    return {"ca_certs": str(b.pki["ca"])}  # type: ignore[attr-defined]


def client(b: Broker, user: str, password: str) -> mqtt.Client:
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.tls_set(ca_certs=str(b.pki["ca"]))  # type: ignore[attr-defined]
    return c


def test_a_table_publishes_over_tls_and_each_client_reads_only_what_the_acl_gives_it(room_broker, tmp_path):
    b = room_broker
    port = b.tls_port
    floor = Subscriber(port, ["tablectl/#"], "floor", PASSWORDS["floor"], tls(b)).start()
    display = Subscriber(port, ["tablectl/#"], "display", PASSWORDS["display"], tls(b)).start()
    production = Subscriber(port, ["tablectl/#"], "broadcast", PASSWORDS["broadcast"], tls(b)).start()
    pw = tmp_path / "t1.password"
    pw.write_text(PASSWORDS[username("r1", "t1")] + "\n")
    pw.chmod(0o600)
    room = (f'[room]\nbroker = "mqtts://127.0.0.1:{port}"\nroom = "r1"\ntable = "t1"\n'
            f'username = "{username("r1", "t1")}"\npassword_file = "{pw}"\nca_file = "{b.pki["ca"]}"\n'  # type: ignore[attr-defined]
            f'broadcast_delay = 0.2\n')
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "hands": [{"steps": CLEAN}]}
    work = tmp_path / "w"
    work.mkdir()
    run_script(parse_script(json.dumps(script)), workdir=work, room=room)  # (waits for every acknowledgement)
    p = "tablectl/r1/t1"
    floor.wait(lambda: floor.count(f"{p}/hands") == 1, what="the hand record on the floor's client")
    display.wait(lambda: display.count(f"{p}/events/public") > 5, what="public events on the display")
    production.wait(lambda: production.count(f"{p}/broadcast") > 5, what="the broadcast")
    assert set(floor.messages) == {f"{p}/{t}" for t in ("state", "events/floor", "events/dealer", "hands")}
    assert set(display.messages) == {f"{p}/state", f"{p}/events/public"}  # subscribed to tablectl/#, yet
    assert set(production.messages) == {f"{p}/broadcast"}
    for s in (floor, display, production):
        s.stop()


def test_a_wrong_password_is_refused(room_broker):
    s = Subscriber(room_broker.tls_port, ["tablectl/#"], "floor", "not-the-password", tls(room_broker))
    s.start(expect_refused=True)
    assert wait_for(lambda: s.refused is not None, 10)
    assert "not authori" in str(s.refused).lower() or "bad user name or password" in str(s.refused).lower()
    s.stop()


def test_a_client_without_the_room_ca_is_refused(room_broker):
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.username_pw_set("floor", PASSWORDS["floor"])
    c.tls_set()  # the system's CAs only: the room's CA signed the broker's certificate
    with pytest.raises(ssl.SSLCertVerificationError, match="certificate verify failed"):
        c.connect("127.0.0.1", room_broker.tls_port)


def test_a_table_cannot_publish_as_another_table(room_broker):
    b = room_broker
    floor = Subscriber(b.tls_port, ["tablectl/+/+/events/floor"], "floor", PASSWORDS["floor"], tls(b)).start()
    t1 = client(b, username("r1", "t1"), PASSWORDS[username("r1", "t1")])
    t1.connect("127.0.0.1", b.tls_port)
    t1.loop_start()
    t1.publish("tablectl/r1/t2/events/floor", '{"forged": true}', qos=1).wait_for_publish(5)
    t1.publish("tablectl/r1/t1/events/floor", '{"own": true}', qos=1).wait_for_publish(5)
    floor.wait(lambda: floor.count("tablectl/r1/t1/events/floor") == 1, what="the table's own message")
    assert "tablectl/r1/t2/events/floor" not in floor.messages  # (sent before the one that arrived)
    # nor may it read another table's commands, or send one
    t1.disconnect()  # (first: it wakes the network thread, which loop_stop would wait a second for)
    t1.loop_stop()
    floor.stop()


def test_simulate_logs_in_to_a_password_broker_and_a_wrong_password_is_one_line_exit_3(room_broker, tmp_path):
    """``tablectl simulate --broker`` logs in as ``tablectl run`` does (a user, a password file,
    the room CA): everything acknowledged, exit 0. With a wrong password: the broker's refusal in
    one line, exit 3 without waiting out the acknowledgements, and the outbox kept where it says."""
    import re
    import sys

    b = room_broker
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
                                  "hands": [{"steps": CLEAN}]}))
    right, wrong = tmp_path / "t1.password", tmp_path / "wrong.password"
    right.write_text(PASSWORDS[username("r1", "t1")] + "\n")
    wrong.write_text("not-the-password\n")
    for f in (right, wrong):
        f.chmod(0o600)

    def simulate(password: Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "controller.cli.main", "simulate", str(script), "--json",
                               "--broker", f"mqtts://127.0.0.1:{b.tls_port}", "--room", "r1", "--table", "t1",
                               "--username", username("r1", "t1"), "--password-file", str(password),
                               "--ca-file", str(b.pki["ca"])],  # type: ignore[attr-defined]
                              capture_output=True, text=True, timeout=300)

    ok = simulate(right)
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["hands"][0]["stub_count"] > 0
    refused = simulate(wrong)
    assert refused.returncode == 3, refused.stderr
    lines = [line for line in refused.stderr.splitlines() if line.startswith("tablectl simulate:")]
    refusal = r"tablectl simulate: the broker refused the connection: .*(authori|password)"
    assert re.match(refusal, lines[0], re.I), lines
    assert "within 30 s" not in refused.stderr  # (the refusal, not 30 s of waiting)
    kept = re.search(r"is kept in (\S+journal\.sqlite3)", refused.stderr)
    assert kept is not None and Path(kept.group(1)).exists()
    assert json.loads(refused.stdout)["hands"][0]["stub_count"] > 0  # the report is still printed
    shutil.rmtree(Path(kept.group(1)).parent)


def test_a_message_over_the_size_limit_is_refused_and_one_at_the_old_limit_passes(room_broker):
    """docs/room/mosquitto.conf's ``max_packet_size`` (mosquitto 2 deprecates the
    ``message_size_limit 262144`` the file said before) counts the whole packet: a payload of
    262144 bytes, the most the old limit let through, still passes on the longest topic a client
    publishes (the floor's tournament signal to a table of the longest names); a packet over the
    limit costs its sender the connection (MQTT 5's "Packet too large"; over TLS paho may see only
    the connection closed), and is never delivered."""
    b = room_broker
    limit = next(int(line.split()[1]) for line in (ROOT / "docs/room/mosquitto.conf").read_text().splitlines()
                 if line.startswith("max_packet_size "))
    topic = f"tablectl/{LONG[0]}/{LONG[1]}/floor/tournament"
    table = Subscriber(b.tls_port, [topic], username(*LONG), PASSWORDS[username(*LONG)], tls(b)).start()
    floor = client(b, "floor", PASSWORDS["floor"])
    gone: list[str] = []
    floor.on_disconnect = lambda c, userdata, flags, reason, props: gone.append(str(reason))
    floor.connect("127.0.0.1", b.tls_port)
    floor.loop_start()
    at_old_limit = b"a" * 262144
    floor.publish(topic, at_old_limit, qos=1).wait_for_publish(10)
    table.wait(lambda: table.count(topic) == 1, what="the message of 262144 bytes")
    floor.publish(topic, b"o" * limit, qos=1)  # (its packet: the limit, and its header over it)
    assert wait_for(lambda: bool(gone), 10), "the broker kept the sender of a packet over its limit connected"
    floor.loop_stop()
    again = client(b, "floor", PASSWORDS["floor"])  # (a message after it, to know the broker is past it)
    again.connect("127.0.0.1", b.tls_port)
    again.loop_start()
    again.publish(topic, b"after", qos=1).wait_for_publish(10)
    table.wait(lambda: table.count(topic) == 2, what="the message after the refused one")
    assert table.messages[topic] == [at_old_limit, b"after"]
    again.disconnect()
    again.loop_stop()
    table.stop()
