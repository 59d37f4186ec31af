"""The floor service through the shipped broker set-up (docs/room/mosquitto.conf and
docs/room/acl: TLS, passwords, the ACL's ``floor`` user) with a table publishing as its enrolled
user: the service's subscriptions and its ``cmd`` are what the ACL gives the floor. The service
serves HTTPS here too (the broker's certificate): the session cookie is Secure."""

from __future__ import annotations

import json
import shutil

import pytest

from controller.room.enroll import username
from rig.broker import have_mosquitto
from rig.floor import PASSWORDS, FakeTable, FloorProc, add_users, request
from tests.e2e.test_room_broker import PASSWORDS as BROKER_PASSWORDS
from tests.e2e.test_room_broker import room_broker  # noqa: F401 (the fixture)
from rig.waiting import wait_until

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto() or not shutil.which("openssl"),
                                                  reason="mosquitto and openssl are needed")]


def test_the_floor_service_under_the_shipped_acl(room_broker, tmp_path):  # noqa: F811
    b = room_broker
    pw = tmp_path / "floor.password"
    pw.write_text(BROKER_PASSWORDS["floor"] + "\n")
    pw.chmod(0o600)
    floor = FloorProc(tmp_path, b, extra=f'broker = "mqtts://127.0.0.1:{b.tls_port}"\nusername = "floor"\n'
                                         f'password_file = "{pw}"\nca_file = "{b.pki["ca"]}"\nroom = "r1"\n'
                                         f'tls_cert = "{b.pki["cert"]}"\ntls_key = "{b.pki["key"]}"')
    table = FakeTable(b, "r1", "t1", user=username("r1", "t1"), password=BROKER_PASSWORDS[username("r1", "t1")],
                      ca=b.pki["ca"])
    try:
        add_users(floor, ["maria"])
        floor.start()
        table.state()
        seq = table.foul_card("Ah")
        _, headers, _ = request(floor.url + "/login", method="POST",
                                data=f"name=maria&password={PASSWORDS['maria']}".encode())
        cookie = headers["Set-Cookie"].split(";")[0]
        flags = [f.strip().lower() for f in headers["Set-Cookie"].split(";")[1:]]
        assert floor.url.startswith("https://") and "secure" in flags and "httponly" in flags

        def room() -> dict:
            return json.loads(request(floor.url + "/api/room", headers={"Cookie": cookie})[2])

        wait_until(lambda: [a["card"] for a in room()["alerts"]] == ["Ah"], 10, what="the alert through the ACL")
        assert room()["tiles"][0]["online"] is True
        page = request(floor.url + "/", headers={"Cookie": cookie})[2].decode()
        token = page.split('name="csrf-token" content="')[1].split('"')[0]
        status, _, _ = request(floor.url + "/api/ack", method="POST",
                               data=json.dumps({"room": "r1", "table": "t1", "seq": seq}).encode(),
                               headers={"Cookie": cookie, "X-CSRF-Token": token, "Content-Type": "application/json"})
        assert status == 200
        wait_until(lambda: room()["alerts"][0]["acked_by"] == "floor:maria", 10, what="the ack through the ACL")
        assert "refused" not in floor.log.read_text()
    finally:
        table.stop()
        floor.stop()
