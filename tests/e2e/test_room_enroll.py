"""``tablectl room enroll`` (controller/room/enroll.py): a password file of mode 0600 and
lines mosquitto accepts; or a client certificate from the room's CA, accepted by a real broker
that takes the certificate's name as the username (the shipped ACL then applies to it)."""

from __future__ import annotations

import json
import shutil
import stat
import subprocess

import pytest

from controller.daemon.journal import Journal
from controller.room.enroll import enroll_cert, username
from controller.room.link import RoomLink
from controller.config.room import RoomConfig
from rig.broker import Subscriber, free_port, have_mosquitto
from tests.conftest import TABLECTL
from tests.e2e.test_room_broker import PASSWORDS, make_pki, room_broker as room_broker  # noqa: F401
from rig.waiting import wait_until

pytestmark = pytest.mark.skipif(not have_mosquitto() or not shutil.which("openssl"), reason="mosquitto and openssl")


def enroll(*args: str, cwd) -> subprocess.CompletedProcess:
    return subprocess.run([*TABLECTL, "room", "enroll", *args], capture_output=True, text=True, cwd=cwd, timeout=60)


def test_enroll_writes_a_0600_password_and_prints_the_lines(tmp_path):
    r = enroll("t7", "--room", "main", "--dir", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    pw = tmp_path / "t7.password"
    assert stat.S_IMODE(pw.stat().st_mode) == 0o600
    password = pw.read_text().strip()
    assert len(password) >= 40 and password not in r.stdout  # the password itself is never printed
    lines = r.stdout.splitlines()
    assert any(line.startswith("table-main-t7:$7$101$") for line in lines)
    assert "topic read tablectl/main/t7/cmd" in lines and "topic write tablectl/main/t7/events/floor" in lines
    assert 'username = "table-main-t7"' in lines
    again = enroll("t7", "--room", "main", "--dir", str(tmp_path), cwd=tmp_path)
    assert again.returncode == 2 and "t7.password exists" in again.stderr
    assert pw.read_text().strip() == password  # not replaced
    bad = enroll("t/7", "--room", "main", "--dir", str(tmp_path), cwd=tmp_path)
    assert bad.returncode == 2 and "TABLE: want a name" in bad.stderr


def test_a_printed_password_line_is_accepted_by_mosquitto(room_broker, tmp_path):
    """The line goes into the broker's password file as printed; the table logs in with the
    password from its file (mosquitto is the oracle of its own format)."""
    r = enroll("t9", "--room", "r1", "--dir", str(tmp_path), cwd=tmp_path)
    line = next(x for x in r.stdout.splitlines() if x.startswith("table-r1-t9:"))
    folder = room_broker.folder
    (folder / "passwd").write_text((folder / "passwd").read_text() + line + "\n")
    room_broker.stop()
    room_broker.start()
    s = Subscriber(room_broker.tls_port, ["tablectl/r1/t9/cmd"], "table-r1-t9",
                   (tmp_path / "t9.password").read_text().strip(), {"ca_certs": str(room_broker.pki["ca"])})
    s.start()  # (asserts the broker took it)
    s.stop()


def test_a_table_with_a_client_certificate_from_the_room_ca(room_broker, tmp_path):
    """A second listener that requires a certificate and takes its name as the username."""
    pki = room_broker.pki
    out = enroll_cert("t1", "r1", tmp_path, pki["ca"], pki["ca"].with_name("ca.key"))
    key, crt = tmp_path / "t1.key", tmp_path / "t1.crt"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and crt.exists()
    assert "cert_file" in out and "topic read tablectl/r1/t1/cmd" in out
    port = free_port()
    room_broker.conf_text += (f"\nlistener {port} 127.0.0.1\ncafile {pki['ca']}\ncertfile {pki['cert']}\n"
                              f"keyfile {pki['key']}\nrequire_certificate true\nuse_identity_as_username true\n")
    room_broker.stop()
    room_broker.start()
    floor = Subscriber(room_broker.tls_port, ["tablectl/#"], "floor", PASSWORDS["floor"],
                       {"ca_certs": str(pki["ca"])}).start()
    j = Journal(tmp_path / "j.sqlite3")
    j.open()
    cfg = RoomConfig(broker=f"mqtts://127.0.0.1:{port}", host="127.0.0.1", port=port, tls=True, room="r1",
                     table="t1", cert_file=str(crt), key_file=str(key), ca_file=str(pki["ca"]))
    link = RoomLink(cfg, j, state=lambda: {"hand": 4})
    link.start()
    try:
        wait_until(lambda: link.connected, what="the table connected with its certificate")
        floor.wait(lambda: "tablectl/r1/t1/state" in floor.messages, what="the table's state at the floor")
        assert json.loads(floor.messages["tablectl/r1/t1/state"][-1])["hand"] == 4
        assert username("r1", "t1") == "table-r1-t1"
    finally:
        link.stop()
        floor.stop()
        j.close()


def test_enroll_makes_the_tables_signing_key_and_the_floors_line_for_it(tmp_path):
    """The private key stays with the table (0600, never printed); the public key is printed in
    the floor's [floor.tables] line, which the floor's configuration reads; a record the key
    signed verifies with it there (a second library's check: cryptography's own Ed25519)."""
    import re
    import tomllib

    from controller.config.floor import parse_floor_text
    from controller.room.signing import Signer, verify

    r = enroll("t7", "--room", "main", "--dir", str(tmp_path), cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    key = tmp_path / "t7.signing-key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    private = key.read_text().strip()
    assert len(private) == 64 and private not in r.stdout
    line = re.search(r'^"main/t7" = "([0-9a-f]{64})"$', r.stdout, re.M)
    assert line is not None
    floor_toml = f'[floor]\nbroker = "mqtt://127.0.0.1:1883"\n[floor.tables]\n{line.group(0)}\n'
    cfg = parse_floor_text(floor_toml, path=tmp_path / "floor.toml")
    assert cfg.table_keys == {"main/t7": line.group(1)}
    signer = Signer.from_file(key)
    body = {"type": "HandFinished", "hand": 3, "seq": 9}
    assert verify(cfg.table_keys["main/t7"], {**body, "sig": signer.sign(body, "main/t7/hands")}, "main/t7/hands")
    assert tomllib.loads(floor_toml)["floor"]["tables"]["main/t7"] == signer.public()
    key.chmod(0o644)
    with pytest.raises(ValueError, match="readable by others"):
        Signer.from_file(key)
    with pytest.raises(Exception, match="tables.main/t7"):
        parse_floor_text(floor_toml.replace(line.group(1), "xyz"), path=tmp_path / "floor.toml")
