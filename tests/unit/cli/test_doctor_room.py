"""``tablectl doctor`` on ``[room]`` and ``[floor]`` (controller/cli/doctor_room.py): against
a real mosquitto (rig/broker.py; with the shipped TLS and password set-up of
tests/e2e/test_room_broker.py), real files and real folders. Each failure names its section, its key
and its file."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from controller.cli import doctor
from controller.cli.checks import Host, system_user
from controller.cli.doctor import Identity
from controller.cli.doctor_room import check_floor_database, check_room, floor_checks
from controller.config.floor import load_floor
from controller.room.enroll import username
from controller.config.room import parse_room
from rig.broker import broker, free_port, have_mosquitto  # noqa: F401 (the fixture)
from tests.e2e.test_room_broker import PASSWORDS, room_broker  # noqa: F401 (the fixture)

#: someone who is not the caller and not root: access judged by mode bits
STRANGER = Identity("stranger", 54321, frozenset({54321}), current=False)
ME = doctor.current_identity()
#: a system with no service user: doctor judges access for its caller whoever runs the tests, root
#: on a host where the user tablectl exists (an installed table) included
NO_SERVICE_USER = Host(users=lambda name: None if name == doctor.SERVICE_USER else system_user(name))
TIMEOUT = 2.0
needs_broker = pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is needed (scripts/test installs it)")


def room(tmp: Path, broker_url: str, **keys: str) -> object:
    section = {"broker": broker_url, "room": "r1", "table": "t1", **keys}
    cfg = parse_room({"room": section, "journal": {}}, src=str(tmp / "t.toml"), base=tmp)
    assert cfg is not None
    return cfg


def secret(path: Path, text: str, mode: int = 0o600) -> str:
    path.write_text(text)
    os.chmod(path, mode)
    return str(path)


@needs_broker
def test_a_broker_that_answers_and_one_that_is_gone(tmp_path, broker):  # noqa: F811
    [ok] = check_room(room(tmp_path, broker.url), ME, timeout=TIMEOUT)
    assert ok.level == "ok"
    assert ok.what == f"[room] broker: {broker.url} accepts user (anonymous) (no TLS: this host only)"
    broker.stop()
    [gone] = check_room(room(tmp_path, broker.url), ME, timeout=TIMEOUT)
    assert gone.failed
    assert gone.what == f"[room] broker: {broker.url}: nothing accepts connections at 127.0.0.1:{broker.port}"
    assert "systemctl status mosquitto" in gone.fix


@needs_broker
def test_tablectl_doctor_checks_a_tables_room_link(tmp_path, broker):  # noqa: F811
    from hw_sim.simulate import room_section
    from hw_sim.setup import write_setup

    cfg = write_setup(tmp_path, journal=True, console=False)
    cfg.write_text(cfg.read_text() + "\n" + room_section(broker.url, "r1", "t1"))
    found = [c for c in doctor.run_checks(str(cfg), open_ports=False, host=NO_SERVICE_USER)
             if c.what.startswith("[room]")]
    assert [(c.level, c.what) for c in found] == [
        ("ok", f"[room] broker: {broker.url} accepts user (anonymous) (no TLS: this host only)")]


@needs_broker
@pytest.mark.skipif(not shutil.which("openssl"), reason="openssl makes the test's certificates")
def test_tls_and_credentials_against_the_shipped_broker_set_up(tmp_path, room_broker):  # noqa: F811
    url = f"mqtts://127.0.0.1:{room_broker.tls_port}"
    pki = room_broker.pki
    user = username("r1", "t1")
    good = secret(tmp_path / "t1.password", PASSWORDS[user] + "\n")
    checks = check_room(room(tmp_path, url, username=user, password_file=good, ca_file=str(pki["ca"])), ME,
                        timeout=TIMEOUT)
    assert [c.level for c in checks] == ["ok", "ok", "ok"]
    assert checks[-1].what == f"[room] broker: {url} accepts user {user} (TLS verified against {pki['ca']})"
    # a wrong password: refused by the broker, the file named
    wrong = secret(tmp_path / "wrong.password", "not-the-password\n")
    *_, refused = check_room(room(tmp_path, url, username=user, password_file=wrong, ca_file=str(pki["ca"])), ME,
                             timeout=TIMEOUT)
    assert refused.failed and refused.what == \
        f"[room] broker: {url}: the broker refused user {user}: Not authorized"  # (mosquitto 2's words)
    assert wrong in refused.fix
    # a CA that did not sign the broker's certificate (the broker's own certificate is no CA)
    *_, untrusted = check_room(room(tmp_path, url, username=user, password_file=good, ca_file=str(pki["cert"])),
                               ME, timeout=TIMEOUT)
    assert untrusted.failed
    assert untrusted.what.startswith(f"[room] broker: {url}: the broker's certificate does not verify against "
                                     f"ca_file {pki['cert']}: ")


def test_each_file_is_there_readable_and_a_secret_private(tmp_path):
    url = "mqtt://127.0.0.1:1"  # (never reached: a file fails first)
    pw = secret(tmp_path / "t1.password", "pw\n", 0o644)
    [loose] = check_room(room(tmp_path, url, username="u", password_file=pw), ME, timeout=TIMEOUT)
    assert loose.failed and loose.what == \
        f"[room] password_file: {pw} is 0644: a secret must be readable by its owner alone (0600)"
    assert loose.fix == f"sudo chmod 600 {pw}"
    os.chmod(pw, 0o600)
    [unread] = check_room(room(tmp_path, url, username="u", password_file=pw), STRANGER, timeout=TIMEOUT)
    assert unread.failed and unread.what.startswith(f"[room] password_file: {pw} (") and \
        unread.what.endswith("0600) is not readable by stranger")
    cfg = room(tmp_path, url, username="u", password_file=pw)
    os.unlink(pw)  # (gone since the configuration was read)
    [gone] = check_room(cfg, ME, timeout=TIMEOUT)
    assert gone.failed and gone.what == f"[room] password_file: {pw} does not exist (or is not a file)"


def test_the_floors_database_folder_writable_and_its_file_private(tmp_path):
    missing = tmp_path / "nowhere" / "floor.db"
    [no_folder] = check_floor_database(str(missing), ME)
    assert no_folder.failed and no_folder.what == f"[floor] database: {missing}: folder {missing.parent} does not exist"
    folder = tmp_path / "floor"
    folder.mkdir(mode=0o700)
    db = folder / "floor.db"
    [fresh] = check_floor_database(str(db), ME)
    assert fresh.level == "ok" and "not there yet" in fresh.what
    [not_theirs] = check_floor_database(str(db), STRANGER)
    assert not_theirs.failed and not_theirs.what.endswith("is not writable by stranger")
    secret(db, "", 0o644)
    secret(Path(f"{db}-wal"), "", 0o644)
    open_db = check_floor_database(str(db), ME)
    assert [c.what for c in open_db] == [
        f"[floor] database: {db} is 0644: it holds cards: it must be readable by its owner alone (0600)",
        f"[floor] database: {db}-wal is 0644: it holds cards: it must be readable by its owner alone (0600)"]
    os.chmod(db, 0o600)
    os.chmod(f"{db}-wal", 0o600)
    assert [c.level for c in check_floor_database(str(db), ME)] == ["ok"]


@needs_broker
def test_doctor_floor_checks_the_floors_configuration_end_to_end(tmp_path, broker, capsys):  # noqa: F811
    (tmp_path / "db").mkdir(mode=0o700)
    key = secret(tmp_path / "floor.key", "not a key\n", 0o640)
    cfg = tmp_path / "floor.toml"
    cfg.write_text(f'[floor]\nbroker = "{broker.url}"\ndatabase = "db/floor.db"\nport = {free_port()}\n')
    assert doctor.main(floor=str(cfg), host=NO_SERVICE_USER) == 0
    out = capsys.readouterr().out
    assert f"ok    floor: {cfg} loads" in out and f"[floor] broker: {broker.url} accepts" in out
    assert "all checks passed" in out
    cfg.write_text(cfg.read_text() + f'tls_cert = "{key}"\ntls_key = "{key}"\n')
    assert load_floor(cfg).tls_key == key
    checks = floor_checks(str(cfg), ME, timeout=TIMEOUT)
    assert [c.what for c in checks if c.failed] == [
        f"[floor] tls_key: {key} is 0640: a secret must be readable by its owner alone (0600)"]
    cfg.write_text('[floor]\nbroker = "mqtt://127.0.0.1:1"\nport = 0\n')
    assert doctor.main(floor=str(cfg), host=NO_SERVICE_USER) == 1
    assert f"FAIL  {cfg}: [floor] port: want a whole number from 1 to 65535, got 0" in capsys.readouterr().out
