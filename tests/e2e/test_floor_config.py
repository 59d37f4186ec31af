"""``[floor]`` (controller/config/floor.py) and ``tablectl floor`` started with a bad
configuration (with TLS: tests/e2e/test_floor_acl.py)."""

from __future__ import annotations

import subprocess

import pytest

from controller.config.daemon import ConfigError
from controller.config.floor import parse_floor_text
from rig.floor import CLI

GOOD = '[floor]\nbroker = "mqtt://127.0.0.1:1883"\n'


@pytest.mark.parametrize("extra, message", [
    ('colour = "red"', "[floor] colour: unknown key"),
    ("port = 70000", "[floor] port: want a whole number from 1 to 65535, got 70000"),
    ("port = true", "[floor] port: want a whole number"),
    ('tls_cert = "x.crt"', "[floor] tls_cert: "),
    ('password_file = "floor.toml"', "[floor] password_file: a password needs a username"),
    ('room = "a/b"', "[floor] room: want a room's name"),
    ("secure_cookie = 1", "[floor] secure_cookie: want true or false"),
    ('[floor.sections]\n"Pit A" = "t1"', "[floor] sections.Pit A: want a list of 1 to 1000 tables"),
    ('[floor.sections]\n"Pit A" = ["t1", "main/t+"]',
     "[floor] sections.Pit A: want \"room/table\" or \"table\", got 'main/t+'"),
    ('[floor.sections]\n"Pit A" = ["t1"]\n"Pit B" = ["t2", "t1"]',
     "[floor] sections.Pit B: t1 is in section 'Pit A' already"),
    ('[floor.sections]\n"" = ["t1"]', "[floor] sections.: want a section's name of 1 to 40 printable characters"),
    ('sections = 3', "[floor] sections: want up to 100 sections"),
])
def test_a_bad_value_names_the_key_and_the_file(tmp_path, extra, message):
    path = tmp_path / "floor.toml"
    path.write_text(GOOD + extra + "\n")
    with pytest.raises(ConfigError) as err:
        parse_floor_text(path.read_text(), path=path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_a_remote_broker_needs_tls(tmp_path):
    with pytest.raises(ConfigError, match=r"\[floor\] broker: mqtt:// \(no TLS\) only for a broker on this host"):
        parse_floor_text('[floor]\nbroker = "mqtt://broker.lan:1883"\n', path=tmp_path / "f.toml")
    c = parse_floor_text('[floor]\nbroker = "mqtts://broker.lan"\n', path=tmp_path / "f.toml")
    assert (c.port_mqtt, c.mqtt_tls, c.https, c.secure_cookie) == (8883, True, False, False)


def test_the_service_with_a_bad_configuration_says_why_in_one_line(tmp_path):
    path = tmp_path / "floor.toml"
    path.write_text(GOOD + "port = 0\n")
    for args in (["floor", "--config", str(path)],
                 ["floor", "adduser", "x", "--role", "viewer", "--config", str(path)]):
        done = subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=30, input="long enough\n")
        assert done.returncode == 2 and f"{path}: [floor] port:" in done.stderr and "Traceback" not in done.stderr


def test_sections_keep_their_order_and_place_each_table_once(tmp_path):
    path = tmp_path / "floor.toml"
    path.write_text(GOOD + '[floor.sections]\n"Pit B" = ["main/t9", "t10"]\n"Pit A" = ["t1"]\n')
    cfg = parse_floor_text(path.read_text(), path=path)
    assert list(cfg.sections) == ["Pit B", "Pit A"]
    assert [cfg.section_of(r, t) for r, t in (("main", "t9"), ("east", "t9"), ("east", "t10"), ("main", "t1"),
                                              ("main", "t2"))] == ["Pit B", None, "Pit B", "Pit A", None]
