"""The floor's accounts and what each role receives (controller/floor/auth.py, roles.py,
app.py): argon2id hashes, the lockout, the session cookie's flags, CSRF and cross-site requests
refused, and the filtering per role on every endpoint and WebSocket message, against
``tablectl floor`` as a real subprocess, a real mosquitto and a table's messages through it."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from controller.floor import auth
from controller.floor.store import Store
from rig.floor import (PASSWORDS, FloorProc, adduser, api_room, cheap_hasher, cookie_of, csrf_of, floor_room,
                       has_card, login, request)
from rig.waiting import wait_until

CARD = "Qd"


def test_argon2id_and_sessions(tmp_path):
    now = [1000.0]
    st = Store(tmp_path / "floor.db", clock=lambda: now[0])
    auth.add_user(st, "maria", "floor", "a long password")
    stored = st.db.execute("SELECT hash FROM users WHERE name = 'maria'").fetchone()[0]
    assert stored.startswith("$argon2id$") and "a long password" not in stored
    # the service's own parameters (argon2-cffi's defaults, RFC 9106's second recommendation), not
    # the cheap ones the rig hashes its users with (rig.floor.cheap_hasher)
    from argon2 import extract_parameters, profiles
    assert extract_parameters(stored) == profiles.RFC_9106_LOW_MEMORY
    token, sess = auth.login(st, "maria", "a long password")
    assert (sess.user, sess.role) == ("maria", "floor") and len(sess.csrf) >= 40
    # the token itself is not stored (its SHA-256 is): a stolen database opens no session
    assert st.db.execute("SELECT COUNT(*) FROM sessions WHERE token = ?", (token,)).fetchone()[0] == 0
    assert auth.session(st, token, 60) == sess
    now[0] += 61
    assert auth.session(st, token, 60) is None  # idle too long
    with pytest.raises(ValueError, match="--role"):
        auth.add_user(st, "x", "boss", "a long password")
    with pytest.raises(ValueError, match="a user name is"):
        auth.add_user(st, "bad/name", "viewer", "a long password")


def test_wrong_passwords_are_slowed_per_address_and_per_account_never_locked(tmp_path):
    """OWASP's guidance: growing delays, not a lock anyone can trigger. An attacker at one
    address slows that address (and, past five failures, each next try on the account waits a
    little longer, 30 s at most); the owner, from another address and after the delay, logs in.
    An unknown name, a wrong password and a throttled try get the one answer; every failure is
    audited with its address."""
    now = [1000.0]
    st = Store(tmp_path / "floor.db", clock=lambda: now[0])
    auth.add_user(st, "maria", "floor", "a long password", hasher=cheap_hasher())  # (argon2's cost: not the point)
    throttle = auth.Throttle()

    def attempt(name: str, password: str, address: str) -> str:
        try:
            auth.login(st, name, password, throttle=throttle, address=address)
            return "in"
        except auth.AuthError as exc:
            return str(exc)

    answers = [attempt("maria", f"guess {i}", "10.0.0.66") for i in range(3)]
    assert answers == [auth.REFUSED] * 3
    # the attacker's address now waits 1 s: even the right password is refused, unchecked, alike
    assert attempt("maria", "a long password", "10.0.0.66") == auth.REFUSED
    assert attempt("nobody", "guess", "10.0.0.7") == auth.REFUSED  # the same answer, another address
    assert attempt("maria", "a long password", "10.0.0.5") == "in"  # the owner elsewhere: not locked out
    for i in range(12):  # a long attack, waiting out each delay
        now[0] += 61
        assert attempt("maria", f"guess {i}", f"10.0.1.{i}") == auth.REFUSED
    row = st.db.execute("SELECT failures, locked_until FROM users WHERE name = 'maria'").fetchone()
    assert row[0] == 12 and 0 < row[1] - now[0] <= auth.BY_ACCOUNT.most  # slowed at most 30 s, no lock
    # within the account's delay: an address that guessed before is held back, even with the
    # right password; the owner at a fresh address is not (someone else's guesses lock nobody out)
    assert attempt("maria", "a long password", "10.0.1.11") == auth.REFUSED
    assert attempt("maria", "a long password", "10.0.0.5") == "in"
    now[0] += auth.BY_ACCOUNT.most + auth.BY_ADDRESS.most
    assert attempt("maria", "a long password", "10.0.1.11") == "in"
    refused = [a for a in st.audit_log() if a[1] == "login refused"]
    reasons = {detail.split(" from ")[0] for _, _, detail in refused}
    assert reasons == {"wrong password", "throttled", "unknown user"}
    assert all(" from 10.0." in detail for _, _, detail in refused)
    assert len(refused) == 3 + 1 + 1 + 12 + 1


def test_attempts_sent_at_once_cannot_all_be_checked(tmp_path):
    """Each attempt is counted against its address when it begins, not when its check ends: forty
    wrong passwords sent at once from one address get three checks, not forty."""
    st = Store(tmp_path / "floor.db")
    auth.add_user(st, "maria", "floor", "a long password", hasher=cheap_hasher())
    throttle = auth.Throttle()
    begun = [auth.begin(st, throttle, "maria", "10.9.9.9") for _ in range(40)]
    assert sum(not a.throttled for a in begun) == auth.BY_ADDRESS.free
    for a in begun:
        with pytest.raises(auth.AuthError, match=auth.REFUSED):
            auth.finish(st, throttle, a, auth.check(a, "guess"))
    assert auth.check_seconds() > 0


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    with floor_room(tmp_path_factory.mktemp("floor")) as got:
        yield got


def test_adduser_reads_the_password_from_stdin_and_refuses_a_short_one(room):
    floor, _ = room
    done = adduser(floor.config, "shorty", "viewer", "abc")
    assert done.returncode == 2 and "at least 8 characters" in done.stderr and "Traceback" not in done.stderr
    done = adduser(floor.config, "newbie", "viewer", "long enough")
    assert done.returncode == 0 and "user newbie (viewer) saved" in done.stdout
    status, _, _ = request(floor.url + "/login", data=b"name=newbie&password=long enough", method="POST")
    assert status == 303


def test_unauthenticated_requests_are_refused(room):
    floor, _ = room
    status, headers, _ = request(floor.url + "/")
    assert status == 303 and headers["Location"] == "/login"
    for path in ("/api/room", "/ws"):
        assert request(floor.url + path)[0] == 401
    assert request(floor.url + "/api/ack", data=b"{}", method="POST")[0] == 401
    assert request(floor.url + "/", headers={"Cookie": "floor_session=forged"})[0] == 303
    assert login(floor, "maria", "wrong password")[0] == 401


def test_the_session_cookie_flags(room):
    floor, _ = room
    status, set_cookie = login(floor, "maria")
    assert status == 303
    flags = [f.strip().lower() for f in set_cookie.split(";")[1:]]
    assert "httponly" in flags and "samesite=strict" in flags
    assert "secure" not in flags  # (plain HTTP on loopback here; TLS or secure_cookie sets it: test_floor_tls)


def test_a_change_without_csrf_or_from_another_site_is_refused(room):
    floor, table = room
    seq = table.foul_card(CARD)
    cookie = cookie_of(login(floor, "maria")[1])
    token = csrf_of(floor, cookie)
    wait_until(lambda: any(a["seq"] == seq for a in api_room(floor, cookie)["alerts"]), 10, what="the alert")
    body = json.dumps({"room": "main", "table": "t7", "seq": seq}).encode()
    base = {"Cookie": cookie, "Content-Type": "application/json"}
    for extra, why in [({}, "CSRF"), ({"X-CSRF-Token": "x" + token}, "CSRF"),
                       ({"X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site"}, "cross-site"),
                       ({"X-CSRF-Token": token, "Origin": "http://evil.example"}, "cross-site")]:
        status, _, out = request(floor.url + "/api/ack", data=body, headers={**base, **extra}, method="POST")
        assert status == 403 and why in out.decode(), (extra, out)
    status, _, _ = request(floor.url + "/login", data=b"name=maria&password=" + PASSWORDS["maria"].encode(),
                           headers={"Origin": "http://evil.example"}, method="POST")
    assert status == 403
    assert not [c for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq]
    # a technician with a good token still cannot acknowledge
    tech = cookie_of(login(floor, "tom")[1])
    status, _, out = request(floor.url + "/api/ack", data=body, method="POST",
                             headers={"Cookie": tech, "Content-Type": "application/json",
                                      "X-CSRF-Token": csrf_of(floor, tech)})
    assert status == 403 and b"technician cannot acknowledge" in out
    # the floor with its token: the table receives the ack with the user
    status, _, out = request(floor.url + "/api/ack", data=body, headers={**base, "X-CSRF-Token": token},
                             method="POST")
    assert status == 200, out
    wait_until(lambda: [c for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq], 10,
               what="the ack at the table")
    assert [c["user"] for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq] == ["floor:maria"]
    wait_until(lambda: next(a for a in api_room(floor, cookie)["alerts"] if a["seq"] == seq)["acked_by"]
               == "floor:maria", 10, what="the alert shown acknowledged")
    db = sqlite3.connect(floor.database)
    assert db.execute("SELECT COUNT(*) FROM audit WHERE user = 'maria' AND action = 'ack' AND detail LIKE ?",
                      (f"main/t7 seq {seq} %",)).fetchone()[0] == 1


async def ws_open(floor: FloorProc, cookie: str, origin: str | None = None) -> tuple[Any, Any, list[str]]:
    """A WebSocket opened as the page opens it: (client, socket, [its first message, the snapshot])."""
    client = aiohttp.ClientSession()
    headers = {"Cookie": cookie, **({"Origin": origin} if origin else {})}
    try:
        ws = await client.ws_connect(floor.url.replace("http", "ws") + "/ws", headers=headers)
    except BaseException:
        await client.close()
        raise
    first = await ws.receive(timeout=10)
    return client, ws, [first.data]


async def ws_until(ws: Any, got: list[str], until: Any) -> None:
    """Keep every message received until ``until(got)`` holds (20 s at most)."""
    async with asyncio.timeout(20):
        while not until(got):
            msg = await ws.receive()
            assert msg.type == aiohttp.WSMsgType.TEXT, msg
            got.append(msg.data)


def test_each_role_receives_only_what_it_may_see(room):
    floor, table = room
    cookies = {name: cookie_of(login(floor, name)[1]) for name in ("maria", "tom", "vic")}

    async def watch() -> dict[str, list[str]]:
        socks = {name: await ws_open(floor, c) for name, c in cookies.items()}
        seq = await asyncio.to_thread(table.foul_card, CARD)
        await asyncio.to_thread(table.state, hand=13)

        def alert_and_tile(msgs: list[str]) -> bool:
            return any(f'"seq": {seq}' in m and '"alert"' in m for m in msgs) and any('"hand": 13' in m for m in msgs)

        def tile(msgs: list[str]) -> bool:  # (a viewer receives no alert: the new state is what comes)
            return any('"hand": 13' in m for m in msgs)

        try:
            for name, (_, ws, got) in socks.items():
                await ws_until(ws, got, tile if name == "vic" else alert_and_tile)
        finally:
            for client, ws, _ in socks.values():
                await ws.close()
                await client.close()
        return {name: got for name, (_, _, got) in socks.items()}

    got = asyncio.run(watch())
    assert any(has_card(m, CARD) for m in got["maria"])
    for name in ("tom", "vic"):
        for m in got[name]:
            assert not has_card(m, CARD) and '"card"' not in m and '"uid"' not in m and '"message"' not in m, (name, m)
    assert any("DECK-006" in m and "No foreign cards" in m for m in got["tom"])  # the rule and its meaning
    assert not any("DECK-006" in m or '"alert"' in m for m in got["vic"])  # a viewer: tiles only
    assert not any("devices" in m or "open_alerts" in m for m in got["vic"])
    for name, c in cookies.items():
        text = json.dumps(api_room(floor, c))
        page = request(floor.url + "/", headers={"Cookie": c})[2].decode()
        if name == "maria":
            assert has_card(text, CARD)
        else:
            assert not has_card(text, CARD) and '"card"' not in text and not has_card(page, CARD)

    async def cross_site() -> None:
        await ws_open(floor, cookies["maria"], origin="http://evil.example")

    with pytest.raises(aiohttp.WSServerHandshakeError):  # a WebSocket opened from another site
        asyncio.run(cross_site())


def test_a_file_the_service_writes_is_private(room):
    floor, _ = room
    assert (Path(floor.database).stat().st_mode & 0o777) == 0o600


def test_logout_ends_the_session_and_closes_its_socket(room):
    floor, _ = room
    cookie = cookie_of(login(floor, "vic")[1])
    token = csrf_of(floor, cookie)

    async def run() -> Any:
        client, ws, _ = await ws_open(floor, cookie)
        try:
            assert request(floor.url + "/logout", method="POST", headers={"Cookie": cookie})[0] == 403  # no token
            status = await asyncio.to_thread(lambda: request(floor.url + "/logout", method="POST",
                                                             headers={"Cookie": cookie, "X-CSRF-Token": token})[0])
            assert status == 200
            msg = await ws.receive(timeout=10)
            return msg.type
        finally:
            await ws.close()
            await client.close()

    assert asyncio.run(run()) in (aiohttp.WSMsgType.CLOSE, aiohttp.WSMsgType.CLOSED, aiohttp.WSMsgType.CLOSING)
    assert request(floor.url + "/api/room", headers={"Cookie": cookie})[0] == 401


def test_hand_records_are_the_floors_alone(room):
    floor, table = room
    table.hand(record={"hand": 7, "game": "holdem", "zones": {"seat:1": ["Kh", "Kd"]}, "alerts": [], "stub_count": 40})
    maria = cookie_of(login(floor, "maria")[1])

    def hands() -> list[dict[str, Any]]:
        status, _, body = request(floor.url + "/api/hands?card=Kh", headers={"Cookie": maria})
        assert status == 200
        return list(json.loads(body)["hands"])

    wait_until(lambda: len(hands()) == 1, 10, what="the hand record")
    seq = hands()[0]["seq"]
    status, _, body = request(floor.url + f"/api/hand?room=main&table=t7&seq={seq}", headers={"Cookie": maria})
    assert status == 200 and json.loads(body)["record"]["zones"]["seat:1"] == ["Kh", "Kd"]
    assert request(floor.url + "/api/hands?since=yesterday", headers={"Cookie": maria})[0] == 400
    assert request(floor.url + "/hands", headers={"Cookie": maria})[0] == 200
    for name in ("tom", "vic"):
        c = cookie_of(login(floor, name)[1])
        for path in ("/hands", "/api/hands?card=Kh", f"/api/hand?room=main&table=t7&seq={seq}"):
            status, _, body = request(floor.url + path, headers={"Cookie": c})
            assert status == 403 and not has_card(body.decode(), "Kh"), (name, path)
    assert request(floor.url + "/api/hands")[0] == 401


def test_a_seat_change_goes_to_the_table_and_its_answer_comes_back(room):
    floor, table = room
    maria = cookie_of(login(floor, "maria")[1])
    token = csrf_of(floor, maria)
    headers = {"Cookie": maria, "Content-Type": "application/json", "X-CSRF-Token": token}

    def post(body: dict[str, Any], h: dict[str, str] = headers) -> tuple[int, dict[str, Any]]:
        status, _, out = request(floor.url + "/api/cmd", data=json.dumps(body).encode(), headers=h, method="POST")
        return status, json.loads(out)

    setup = {"room": "main", "table": "t7", "cmd": "setup", "seats": [1, 2, 4], "button": 4}
    status, out = post(setup)
    assert status == 200
    cmd_id = out["id"]
    wait_until(lambda: any(c.get("id") == cmd_id for c in table.commands), 10, what="the command at the table")
    got = next(c for c in table.commands if c.get("id") == cmd_id)
    assert got == {"id": cmd_id, "user": "floor:maria", "cmd": "setup", "seats": [1, 2, 4], "button": 4}

    def answer() -> Any:
        return json.loads(request(floor.url + f"/api/cmd?id={cmd_id}", headers={"Cookie": maria})[2]).get("reply")

    wait_until(lambda: answer() is not None, 10, what="the table's answer")
    assert answer() == {"ok": True, "id": cmd_id, "cmd": "setup"}
    assert post({**setup, "seatz": [1]})[0] == 400
    assert post({**setup, "cmd": "replay"})[0] == 400
    assert post({**setup, "table": "t99"})[0] == 404
    assert post(setup, {**headers, "X-CSRF-Token": ""})[0] == 403
    tom = cookie_of(login(floor, "tom")[1])
    status, out = post(setup, {**headers, "Cookie": tom, "X-CSRF-Token": csrf_of(floor, tom)})
    assert status == 403 and "technician cannot send commands" in out["error"]
    assert request(floor.url + f"/api/cmd?id={cmd_id}", headers={"Cookie": tom})[0] == 403
    db = sqlite3.connect(floor.database)
    assert db.execute("SELECT COUNT(*) FROM audit WHERE user = 'maria' AND action = 'setup'").fetchone()[0] == 1


def test_the_floor_approves_a_satellite_over_cmd(room):
    """FLOW-007: the page's ``approve`` (Manage, "Approve the satellite") goes to the table over
    ``cmd`` as it is (the table's core: tests/unit/core/test_flow_rules.py); a field it does not
    take is refused before anything is sent; a technician may not send it; the audit has it."""
    floor, table = room
    maria = cookie_of(login(floor, "maria")[1])
    headers = {"Cookie": maria, "Content-Type": "application/json", "X-CSRF-Token": csrf_of(floor, maria)}

    def post(body: dict[str, Any], hdrs: dict[str, str] = headers) -> tuple[int, dict[str, Any]]:
        status, _, out = request(floor.url + "/api/cmd", data=json.dumps(body).encode(), headers=hdrs, method="POST")
        return status, json.loads(out)

    approve = {"room": "main", "table": "t7", "cmd": "approve"}
    tom = cookie_of(login(floor, "tom")[1])
    assert post(approve, {**headers, "Cookie": tom, "X-CSRF-Token": csrf_of(floor, tom)})[0] == 403
    sent = len(table.commands)
    assert post({**approve, "seat": 3}) == (400, {"ok": False, "error": "approve: unknown field 'seat'"})
    status, out = post(approve)
    assert status == 200
    wait_until(lambda: len(table.commands) > sent, 10, what="the command at the table")
    assert table.commands[sent:] == [{"id": out["id"], "user": "floor:maria", "cmd": "approve"}]
    db = sqlite3.connect(floor.database)
    assert db.execute("SELECT COUNT(*) FROM audit WHERE user = 'maria' AND action = 'approve'").fetchone()[0] == 1


def test_the_floor_names_a_dealer_over_cmd_and_finds_the_dealers_hands_and_alerts(room):
    """The page's ``dealer`` goes to the table over ``cmd`` (the table's core names the dealer in
    its records: tests/unit/core/test_dealers.py, tests/test_dealers_e2e.py); a bad name is refused here
    with what is wrong, before anything is sent; the floor finds what the table's records name."""
    floor, table = room
    maria = cookie_of(login(floor, "maria")[1])
    headers = {"Cookie": maria, "Content-Type": "application/json", "X-CSRF-Token": csrf_of(floor, maria)}

    def post(body: dict[str, Any], hdrs: dict[str, str] = headers) -> tuple[int, dict[str, Any]]:
        status, _, out = request(floor.url + "/api/cmd", data=json.dumps(body).encode(), headers=hdrs, method="POST")
        return status, json.loads(out)

    name = {"room": "main", "table": "t7", "cmd": "dealer", "name": "Ann  Lee", "at_relief": True}
    assert post(name, {**headers, "X-CSRF-Token": ""})[0] == 403
    tom = cookie_of(login(floor, "tom")[1])
    assert post(name, {**headers, "Cookie": tom, "X-CSRF-Token": csrf_of(floor, tom)})[0] == 403
    sent = len(table.commands)
    for bad, error in (("", "dealer: the name is empty"), ("Ann\nLee", "dealer: the name must hold printable"),
                       ("x" * 65, "dealer: the name must be at most 64 characters, got 65"),
                       (7, "dealer: the name must be text, got int")):
        status, out = post({**name, "name": bad})
        assert status == 400 and out["error"].startswith(error), out
    status, out = post(name)
    assert status == 200
    wait_until(lambda: len(table.commands) > sent, 10, what="the command at the table")
    assert table.commands[sent:] == [{"id": out["id"], "user": "floor:maria", "cmd": "dealer", "name": "Ann Lee",
                                      "at_relief": True}]  # (the bad names never left the floor)
    table.state(dealer="Ann Lee", dealer_next="Bo Chen")
    wait_until(lambda: next(t for t in api_room(floor, maria)["tiles"] if t["table"] == "t7").get("dealer_next")
               == "Bo Chen", 10, what="the tile naming the dealers")
    assert next(t for t in api_room(floor, tom)["tiles"] if t["table"] == "t7")["dealer"] == "Ann Lee"
    vic = cookie_of(login(floor, "vic")[1])
    assert "dealer" not in next(t for t in api_room(floor, vic)["tiles"] if t["table"] == "t7")
    table.hand(record={"hand": 8, "game": "holdem", "zones": {}, "alerts": [], "stub_count": 40, "dealer": "Ann Lee"})
    table.hand(record={"hand": 9, "game": "holdem", "zones": {}, "alerts": [], "stub_count": 40})

    def found(who: str = "Ann%20%20Lee") -> list[int]:
        out = request(floor.url + f"/api/hands?dealer={who}", headers={"Cookie": maria})[2]
        return [h["hand"] for h in json.loads(out)["hands"]]

    wait_until(lambda: found() == [8], 10, what="the dealer's hand")
    status, _, out = request(floor.url + "/api/hands?dealer=%1b", headers={"Cookie": maria})
    assert status == 400 and json.loads(out)["error"].startswith("dealer: the name must hold printable")
    seq = table.foul_card("Qd", seat=3, dealer="Ann Lee")

    def alerts_of(cookie: str) -> list[dict[str, Any]]:
        return json.loads(request(floor.url + "/api/alerts?dealer=Ann%20Lee", headers={"Cookie": cookie})[2])["alerts"]

    wait_until(lambda: [a["seq"] for a in alerts_of(maria)] == [seq], 10, what="the dealer's alert")
    assert alerts_of(maria)[0]["card"] == "Qd"
    assert [a["seq"] for a in alerts_of(tom)] == [seq] and "card" not in alerts_of(tom)[0]
    assert request(floor.url + "/api/alerts?dealer=Ann", headers={"Cookie": vic})[0] == 403
    db = sqlite3.connect(floor.database)
    assert db.execute("SELECT COUNT(*) FROM audit WHERE user = 'maria' AND action = 'dealer'").fetchone()[0] == 1


def test_a_new_role_or_password_ends_the_sessions_and_the_open_pages(room):
    """A floor user demoted to viewer (or given a new password) while a page is open: the old
    cookie is refused, and the open page is closed before the next foul card, never sent it."""
    floor, table = room
    assert adduser(floor.config, "dora", "floor", "dora's long password").returncode == 0
    status, set_cookie = login(floor, "dora", "dora's long password")
    assert status == 303
    cookie = cookie_of(set_cookie)

    async def run() -> list[str]:
        client, ws, got = await ws_open(floor, cookie)
        try:
            done = await asyncio.to_thread(adduser, floor.config, "dora", "viewer", "another long password")
            assert done.returncode == 0
            await asyncio.to_thread(table.foul_card, CARD)
            async with asyncio.timeout(20):
                while True:
                    msg = await ws.receive()
                    if msg.type != aiohttp.WSMsgType.TEXT:
                        return got
                    got.append(msg.data)
        finally:
            await ws.close()
            await client.close()

    got = asyncio.run(run())
    assert not any(has_card(m, CARD) for m in got[1:]), got
    assert request(floor.url + "/api/room", headers={"Cookie": cookie})[0] == 401


def test_each_read_asks_for_a_session_then_a_role_that_may_see_it(room):
    """Every GET of the API: 401 without a session; 403 naming the role and what it may not do
    for a role that may not; an answer for one that may. The pages send the login page instead
    of the 401, and the same 403. (The roles, as docs/floor.md gives them: the floor sees and
    does everything; the technician sees alerts; a viewer sees the tiles.)"""
    floor, _ = room
    reads = {  # path -> (the roles that may, what the others are told)
        "/api/room": ({"floor", "technician", "viewer"}, ""),
        "/api/alerts?dealer=Ann%20Lee": ({"floor", "technician"}, "does not see alerts"),
        "/api/hands": ({"floor"}, "does not see hand records (they name the cards)"),
        "/api/hand?room=main&table=t7&seq=1&epoch=0": ({"floor"}, "does not see hand records (they name the cards)"),
        "/api/tournaments": ({"floor"}, "does not run the tournaments"),
        "/api/cmd?id=none": ({"floor"}, "cannot send commands to a table"),
    }
    pages = {"/hands": ({"floor"}, "does not see hand records (they name the cards)"),
             "/tournament": ({"floor"}, "does not run the tournaments")}
    users = {"floor": "maria", "technician": "tom", "viewer": "vic"}
    cookies = {role: cookie_of(login(floor, name)[1]) for role, name in users.items()}
    for path, (may, why) in {**reads, **pages}.items():
        status, headers, body = request(floor.url + path)
        if path in pages:
            assert status == 303 and headers["Location"] == "/login", path
        else:
            assert status == 401 and json.loads(body)["error"] == "not logged in", path
        for role, cookie in cookies.items():
            status, _, body = request(floor.url + path, headers={"Cookie": cookie})
            if role in may:
                assert status in (200, 404), (path, role, status)  # (404: no such hand, no such command)
            else:
                assert status == 403 and json.loads(body)["error"] == f"a {role} {why}", (path, role, body)
