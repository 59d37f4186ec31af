"""``[floor]`` (controller/service/floor/config.py) and ``tablectl floor`` started with a bad
configuration or with TLS."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from controller.service.config import ConfigError
from controller.service.floor.config import parse_floor_text
from tests.broker import Broker, have_mosquitto
from tests.floor_setup import CLI, PASSWORDS, FloorProc, adduser, request

GOOD = '[floor]\nbroker = "mqtt://127.0.0.1:1883"\n'


@pytest.mark.parametrize("extra, message", [
    ('colour = "red"', "[floor] colour: unknown key"),
    ("port = 70000", "[floor] port: want a whole number from 1 to 65535, got 70000"),
    ("port = true", "[floor] port: want a whole number"),
    ('tls_cert = "x.crt"', "[floor] tls_cert: "),
    ('password_file = "floor.toml"', "[floor] password_file: a password needs a username"),
    ('room = "a/b"', "[floor] room: want a room's name"),
    ("secure_cookie = 1", "[floor] secure_cookie: want true or false"),
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


def test_with_tls_the_cookie_is_secure(tmp_path):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-days", "2", "-keyout", str(tmp_path / "floor.key"), "-out", str(tmp_path / "floor.crt"),
                    "-subj", "/CN=127.0.0.1"], check=True, capture_output=True, timeout=30)
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    broker.start()
    floor = FloorProc(Path(tmp_path), broker, extra='tls_cert = "floor.crt"\ntls_key = "floor.key"')
    try:
        assert adduser(floor.config, "maria", "floor", PASSWORDS["maria"]).returncode == 0
        floor.start()
        assert floor.url.startswith("https://")
        status, headers, _ = request(floor.url + "/login", method="POST",
                                     data=f"name=maria&password={PASSWORDS['maria']}".encode())
        flags = [f.strip().lower() for f in headers["Set-Cookie"].split(";")[1:]]
        assert status == 303 and "secure" in flags and "httponly" in flags and "samesite=strict" in flags
    finally:
        floor.stop()
        broker.stop()
