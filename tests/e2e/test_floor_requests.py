"""The floor's answers to a page's requests, against ``tablectl floor`` as a real subprocess, a
real mosquitto and a table's side of it (:class:`rig.floor.FakeTable`): an alert acknowledged
twice sends the table one command."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rig.floor import FakeTable, FloorProc, api_room, cookie_of, csrf_of, floor_room, login, request
from rig.waiting import wait_until

pytestmark = pytest.mark.e2e


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    with floor_room(tmp_path_factory.mktemp("floor_requests")) as got:
        yield got


class Page:
    """A floor user's requests, as the page makes them (the session's cookie and CSRF token)."""

    def __init__(self, floor: FloorProc, name: str) -> None:
        self.floor = floor
        self.cookie = cookie_of(login(floor, name)[1])
        self.headers = {"Cookie": self.cookie, "Content-Type": "application/json",
                        "X-CSRF-Token": csrf_of(floor, self.cookie)}

    def post(self, path: str, body: dict[str, Any] | bytes) -> tuple[int, dict[str, Any]]:
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        status, _, out = request(self.floor.url + path, data=data, headers=self.headers, method="POST")
        return status, json.loads(out)

    def get(self, path: str) -> tuple[int, dict[str, Any]]:
        status, _, out = request(self.floor.url + path, headers={"Cookie": self.cookie})
        return status, json.loads(out)


def acks_at(table: FakeTable, seq: int) -> list[dict[str, Any]]:
    return [c for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq]


def test_an_alert_acknowledged_twice_sends_the_table_one_command(room):
    """Two pages (or a double tap) acknowledge one alert: the table gets one ``ack``; the second
    request is answered with the first command's id. Once the alert is closed, another
    acknowledgement is refused (409), and nothing more is sent."""
    floor, table = room
    maria, ana = Page(floor, "maria"), Page(floor, "ana")
    seq = table.foul_card("6h", seat=2)
    wait_until(lambda: any(a["seq"] == seq for a in api_room(floor, maria.cookie)["alerts"]), 10, what="the alert")
    alert = {"room": "main", "table": "t7", "seq": seq}
    table.silent = True  # (the first ack waits for the table's answer)
    try:
        status, first = maria.post("/api/ack", alert)
        assert status == 200 and first["status"] == "sent", first
        wait_until(lambda: acks_at(table, seq), 10, what="the first ack at the table")
        status, second = ana.post("/api/ack", alert)
        assert status == 200 and second["id"] == first["id"] and second["again"] is True, second
        # a command sent after it arrives after it (one client, QoS 1: in order): a second ack
        # published by the second request would be at the table by then
        status, marker = maria.post("/api/cmd", {"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 2],
                                                 "button": 1})
        assert status == 200, marker
        wait_until(lambda: any(c.get("id") == marker["id"] for c in table.commands), 10, what="the marker command")
        assert [c["id"] for c in acks_at(table, seq)] == [first["id"]]
    finally:
        table.silent = False
    # an alert the table has confirmed acknowledged: another acknowledgement is refused
    seq = table.foul_card("7s", seat=3)
    alert = {"room": "main", "table": "t7", "seq": seq}
    wait_until(lambda: any(a["seq"] == seq for a in api_room(floor, maria.cookie)["alerts"]), 10, what="the alert")
    assert maria.post("/api/ack", alert)[0] == 200
    wait_until(lambda: next(a for a in api_room(floor, maria.cookie)["alerts"] if a["seq"] == seq)["acked_by"],
               10, what="the alert acknowledged")
    status, closed = ana.post("/api/ack", alert)
    assert status == 409 and "closed already" in closed["error"], closed
    status, marker = maria.post("/api/cmd", {"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 3],
                                             "button": 1})
    wait_until(lambda: any(c.get("id") == marker["id"] for c in table.commands), 10, what="the second marker")
    assert len(acks_at(table, seq)) == 1


def test_a_body_with_a_key_given_twice_is_refused(room):
    """A request's JSON is read as strictly as a table's message: a key given twice is refused
    (400, said why), never taken as its last value."""
    floor, table = room
    maria = Page(floor, "maria")
    for path, raw in (("/api/ack", b'{"room": "main", "table": "t7", "seq": 1, "seq": 2}'),
                      ("/api/cmd", b'{"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 2], "button": 1, '
                                   b'"button": 2}'),
                      ("/api/retire", b'{"room": "main", "table": "t7", "retired": false, "retired": true}')):
        status, out = maria.post(path, raw)
        assert status == 400 and out["error"] == "the body is not JSON: a key given twice", (path, out)
    assert not any(c.get("cmd") == "setup" and c.get("button") == 2 for c in table.commands)


@pytest.mark.parametrize("query, name", [("since=1e400", "since"), ("until=nan", "until"), ("since=-inf", "since"),
                                         ("until=Infinity", "until")])
def test_a_hands_search_from_or_to_a_number_that_is_not_finite_is_refused_naming_it(room, query, name):
    floor, _ = room
    maria = Page(floor, "maria")
    status, out = maria.get(f"/api/hands?{query}")
    assert status == 400 and out["error"].startswith(f"{name}: want a date"), out
    assert maria.get("/api/hands?since=0&until=4102444800")[0] == 200  # (finite epoch seconds are taken)


def test_a_10_kb_url_or_header_is_refused_400_with_one_warning_and_no_traceback(room):
    """A request line or a header longer than aiohttp's parser takes (8190 bytes) is refused by
    aiohttp itself (before any handler): 400, and the log says so in one WARNING line, without a
    traceback at ERROR and without the request's text."""
    import socket

    floor, _ = room
    since = floor.log.stat().st_size
    long = "Z" * 10_000
    for raw in (f"GET /api/hands?card={long} HTTP/1.1\r\nHost: floor\r\n\r\n".encode(),
                f"GET /login HTTP/1.1\r\nHost: floor\r\nX-Long: {long}\r\n\r\n".encode()):
        with socket.create_connection(("127.0.0.1", floor.port), timeout=10) as s:
            s.sendall(raw)
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
        assert answer.split(b" ", 2)[1] in (b"400", b"414"), answer[:80]

    def said() -> str:
        with floor.log.open("rb") as f:
            f.seek(since)
            return f.read().decode(errors="replace")

    wait_until(lambda: said().count("LineTooLong") >= 2, 10, what="both refusals in the log")
    text = said()
    assert text.count("refused by the HTTP parser: LineTooLong") == 2, text[-2000:]
    assert "Traceback" not in text and " ERROR " not in text and "ZZZZ" not in text, text[-2000:]
    assert "WARNING aiohttp.server: floor: a request from 127.0.0.1 refused by the HTTP parser" in text
