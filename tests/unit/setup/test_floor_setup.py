"""``tablectl floor setup --root DIR`` (issue 41): the floor's unit, folder, configuration (its
database absolute, in the unit's StateDirectory), its broker password, the first floor user (its
database owned by the service's user), and with ``--mosquitto`` the broker's files from
docs/room/ with TLS from the room's own CA; a second run writes nothing; --dry-run lists what the
real run writes. And break 5's two halves on their own: the default database, and ``sudo tablectl
floor adduser`` leaving floor.db owned by root."""

from __future__ import annotations

import base64
import io
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from controller.cli.setup import floor, plan
from controller.config.floor import parse_floor_text
from controller.floor import main as floor_main
from controller.room import enroll
from controller.room.enroll import password_line
from rig.fake_pi import fake_pi
from rig.paths import ROOT

SHIPPED = ROOT / "systemd"


def run_floor(root: Path, monkeypatch, password: str = "correct horse 42", **options) -> tuple[int, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(password + "\n"))
    out = io.StringIO()
    status = floor.main({"root": str(root), "doctor": False, **options}, out=out)
    return status, out.getvalue()


def uid_of(root: Path, name: str, table: str = "passwd") -> int:
    return int(re.search(rf"^{name}:x:(\d+):", (root / "etc" / table).read_text(), re.M).group(1))


def written(output: str, verb: str = "write") -> list[str]:
    return re.findall(rf"^  (?:would )?{verb}\s+(\S+)", output, re.M)


def test_the_floor_its_files_modes_owners_and_first_user(tmp_path, monkeypatch):
    assert shutil.which("systemd-sysusers") and shutil.which("systemd-tmpfiles"), "systemd's offline tools needed"
    root = fake_pi(tmp_path / "root", model=None)
    status, out = run_floor(root, monkeypatch, broker="mqtts://localhost:8883", room="main", user="maria")
    assert status == plan.EXIT_NOT_APPLIED, out  # (daemon-reload and the restart need a running systemd)
    uid, gid = uid_of(root, "tablectl"), uid_of(root, "tablectl", "group")
    assert (root / floor.UNIT.lstrip("/")).read_bytes() == (SHIPPED / "tablectl-floor.service").read_bytes()
    assert (root / floor.TMPFILES.lstrip("/")).read_bytes() == (SHIPPED / "tablectl-floor.tmpfiles").read_bytes()
    state = root / "var/lib/tablectl-floor"
    assert oct(state.stat().st_mode & 0o777) == "0o700"
    config = root / "etc/tablectl/floor.toml"
    password = root / "etc/tablectl/floor.password"
    expected = {config: (0, gid, 0o640), password: (uid, gid, 0o600), state: (uid, gid, 0o700)}
    for p, (u, g, m) in expected.items():
        st = p.stat()
        assert st.st_mode & 0o777 == m, p
        if os.geteuid() == 0:
            assert (st.st_uid, st.st_gid) == (u, g), p
    cfg = parse_floor_text(config.read_text(), path=config)
    assert cfg.database == "/var/lib/tablectl-floor/floor.db"  # absolute: the unit's StateDirectory
    assert cfg.room == "main" and cfg.broker == "mqtts://localhost:8883"
    assert len(password.read_text().strip()) >= 32  # a random password, made here: nothing typed
    db = root / "var/lib/tablectl-floor/floor.db"
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT name, role FROM users").fetchall() == [("maria", "floor")]
    if os.geteuid() == 0:
        assert (db.stat().st_uid, db.stat().st_gid) == (uid, gid)  # the service's, not root's
    # again: nothing written, the user not asked for again
    status, out = run_floor(root, monkeypatch, password="", broker="mqtts://localhost:8883", room="main",
                            user="maria")
    assert status == plan.EXIT_OK and written(out) == [] and "nothing to do" in out, out


def test_floor_dry_run_lists_what_the_real_run_writes(tmp_path, monkeypatch):
    root = fake_pi(tmp_path / "root", model=None)
    status, dry = run_floor(root, monkeypatch, broker="mqtts://localhost:8883", user="maria", dry_run=True)
    assert status == 0 and not (root / "etc/tablectl").exists()
    status, real = run_floor(root, monkeypatch, broker="mqtts://localhost:8883", user="maria")
    assert written(dry) and written(dry) == written(real) and written(dry, "run") == written(real, "run")
    assert "would do     add the floor user maria (floor)" in dry and "the floor user maria (floor) added" in real


def test_the_broker_from_docs_room_with_its_own_ca(tmp_path, monkeypatch):
    assert shutil.which("openssl"), "openssl is needed"
    root = fake_pi(tmp_path / "root", model=None)
    (root / "etc/group").write_text("mosquitto:x:120:\n")
    status, out = run_floor(root, monkeypatch, mosquitto=True, broker_name="broker.room.lan",
                            broker_ip=["10.20.0.2"], room="main")
    assert status == plan.EXIT_NOT_APPLIED, out  # (systemctl reload-or-restart mosquitto: no systemd here)
    conf = root / "etc/mosquitto/conf.d/tablectl.conf"
    assert conf.read_bytes() == (ROOT / "docs/room/mosquitto.conf").read_bytes()
    acl = root / "etc/mosquitto/tablectl.acl"
    assert acl.read_bytes() == (ROOT / "docs/room/acl").read_bytes()
    passwd = root / "etc/mosquitto/tablectl.passwd"
    line = passwd.read_text().strip()
    floor_pw = (root / "etc/tablectl/floor.password").read_text().strip()
    user, _, rest = line.partition(":")
    salt_b64 = rest.split("$")[3]
    assert user == "floor" and line == password_line("floor", floor_pw, salt=base64.b64decode(salt_b64))
    for p in (acl, passwd, root / "etc/mosquitto/certs/broker.key"):
        st = p.stat()
        assert st.st_mode & 0o777 == 0o640, p
        if os.geteuid() == 0:
            assert st.st_gid == 120, p  # the mosquitto group: the broker reads them, no one else
    # the broker's certificate verifies against the room CA, for its name and address
    certs = root / "etc/mosquitto/certs"
    r = subprocess.run(["openssl", "verify", "-CAfile", str(certs / "room-ca.crt"), str(certs / "broker.crt")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = subprocess.run(["openssl", "x509", "-in", str(certs / "broker.crt"), "-noout", "-text"],
                          capture_output=True, text=True).stdout
    assert "DNS:broker.room.lan" in text and "IP Address:10.20.0.2" in text
    assert (root / "etc/tablectl/room-ca.crt").read_bytes() == (certs / "room-ca.crt").read_bytes()
    assert oct((root / "root/tablectl-room-ca").stat().st_mode & 0o777) == "0o700"
    cfg = parse_floor_text((root / "etc/tablectl/floor.toml").read_text(), path=root / "etc/tablectl/floor.toml")
    assert cfg.broker == "mqtts://broker.room.lan:8883" and cfg.ca_file == str(root / "etc/tablectl/room-ca.crt")
    # a table enrolled on this host: its lines appended to the broker's files (nothing copied by hand)
    enrolled = tmp_path / "t7"
    enrolled.mkdir()
    assert enroll.main("t7", "main", str(enrolled), bundle=str(enrolled / "t7.bundle"),
                       broker="mqtts://broker.room.lan:8883", ca_file=str(root / "etc/tablectl/room-ca.crt"),
                       mosquitto=True, passwd=passwd, acl=acl) == 0
    t7 = [ln for ln in passwd.read_text().splitlines() if ln.startswith("table-main-t7:")]
    t7_pw = (enrolled / "t7.password").read_text().strip()
    assert len(t7) == 1 and t7[0] == password_line("table-main-t7", t7_pw,
                                                   salt=base64.b64decode(t7[0].split("$")[3]))
    assert acl.read_text().endswith(enroll.acl_lines("main", "t7") + "\n")
    assert passwd.read_text().startswith(line + "\n")  # the floor's line kept
    (tmp_path / "again").mkdir()
    assert enroll.main("t7", "main", str(tmp_path / "again"), mosquitto=True, passwd=passwd, acl=acl) == 2
    assert list((tmp_path / "again").iterdir()) == []  # refused before anything was made
    # the ACL, once the tables are enrolled, is the technician's: setup never rewrites it
    status, out = run_floor(root, monkeypatch, mosquitto=True, broker_name="broker.room.lan",
                            broker_ip=["10.20.0.2"], room="main")
    assert "table-main-t7" in acl.read_text() and written(out) == [], out


# -- break 5, on its own ---------------------------------------------------------------------------

def test_the_floor_database_defaults_to_the_units_state_directory():
    cfg = parse_floor_text('[floor]\nbroker = "mqtt://127.0.0.1:1883"\n', path=Path("/etc/tablectl/floor.toml"))
    assert cfg.database == "/var/lib/tablectl-floor/floor.db"  # not /etc/tablectl/floor.db: read-only under the unit


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can hand a file to another user")
def test_adduser_as_root_leaves_the_database_to_the_service(tmp_path, monkeypatch):
    """``sudo tablectl floor adduser`` made floor.db owned by root, and the service then failed
    with "Permission denied"; the database is now its folder's owner's."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    os.chown(state, 65534, 65534)
    config = tmp_path / "floor.toml"
    config.write_text(f'[floor]\nbroker = "mqtt://127.0.0.1:1883"\ndatabase = "{state / "floor.db"}"\n')
    monkeypatch.setattr(sys, "stdin", io.StringIO("correct horse 42\n"))
    assert floor_main.adduser(str(config), "maria", "floor") == 0
    for p in state.iterdir():
        assert (p.stat().st_uid, p.stat().st_gid) == (65534, 65534), p


def test_floor_remove_keeps_the_records_and_the_configuration(tmp_path, monkeypatch):
    root = fake_pi(tmp_path / "root", model=None)
    run_floor(root, monkeypatch, broker="mqtts://localhost:8883", user="maria")
    status, out = run_floor(root, monkeypatch, broker="mqtts://localhost:8883", remove=True)
    assert not (root / floor.UNIT.lstrip("/")).exists() and not (root / floor.TMPFILES.lstrip("/")).exists()
    assert not (root / "etc/systemd/system/multi-user.target.wants/tablectl-floor.service").is_symlink()
    for kept in ("etc/tablectl/floor.toml", "etc/tablectl/floor.password", "var/lib/tablectl-floor/floor.db"):
        assert (root / kept).exists(), kept
    assert "kept         /etc/tablectl/floor.toml" in out
