"""Every endpoint of the floor's service fuzzed (hypothesis): odd input is answered 4xx with a
reason, never a 5xx, and never leaves a traceback in the log. The service runs in process
(aiohttp's test server) with its real broker link to a real mosquitto, logged in as a floor
user with the session's CSRF token, so that every request reaches the checks behind the
session and the token."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.floor.auth import add_user
from rig.floor import cheap_hasher
from controller.config.floor import parse_floor_text

aiohttp_test = pytest.importorskip("aiohttp.test_utils")

SCALARS = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2 ** 62, max_value=2 ** 80)
           | st.integers(min_value=-2 ** 80, max_value=0) | st.floats() | st.text(max_size=40)
           | st.sampled_from(["main", "t7", "0", "e0a1b2c3d4e5f", "1" * 30, "9" * 25, "", "\x00", "\u202e"]))
JSONS = st.recursive(SCALARS, lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
                     max_leaves=12)
KEYS = ("room", "table", "seq", "epoch", "cmd", "id", "seats", "button", "decks", "in_play", "name", "at_relief")
BODIES = (st.dictionaries(st.sampled_from(KEYS), JSONS, max_size=6)
          | st.fixed_dictionaries({"room": JSONS, "table": JSONS, "seq": JSONS}, optional={"epoch": JSONS})
          | st.fixed_dictionaries({"room": st.just("main"), "table": st.just("t7"),
                                   "cmd": st.sampled_from(["setup", "decks", "dealer", "fly"])},
                                  optional={"seats": JSONS, "button": JSONS, "decks": JSONS, "name": JSONS,
                                            "at_relief": JSONS, "in_play": JSONS})
          | JSONS)
RAW = st.sampled_from([b"[" * 60000 + b"]" * 60000, b'{"a":' * 5000 + b"1" + b"}" * 5000, b"\xff\xfe",
                       b'{"room": "main", "table": "t7", "seq": 1180591620717411303424}', b"NaN", b"{", b""])
QUERY_KEYS = ("room", "table", "seq", "epoch", "hand", "since", "until", "card", "alert", "dealer", "id", "retired",
              "limit", "offset")
QUERY_VALUES = st.text(max_size=40) | st.sampled_from(["1" * 30, "-1", "0", "2026-01-01", "inf", "nan", "1e400",
                                                        "9223372036854775808", "main", "t7"])
QUERIES = st.dictionaries(st.sampled_from(QUERY_KEYS), QUERY_VALUES, max_size=5)
#: (/logout last: it ends the session)
POSTS = ("/api/ack", "/api/retry", "/api/cmd", "/api/dismiss", "/api/retire", "/logout")
GETS = ("/api/hands", "/api/hand", "/api/alerts", "/api/cmd", "/api/room", "/hands", "/", "/login",
        "/static/app.js", "/static/../floor.db", "/ws")


class NoTraceback(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.exc_info:
            self.bad.append(record.getMessage())


@pytest.mark.e2e
def test_every_endpoint_fuzzed_answers_no_5xx_and_logs_no_traceback(broker, tmp_path):
    from controller.floor.app import FloorService, make_app

    cfg = parse_floor_text(f'[floor]\nbroker = "{broker.url}"\ndatabase = "{tmp_path / "floor.db"}"\n'
                           f'client_id = "fuzz"\n', path=tmp_path / "floor.toml")
    loop = asyncio.new_event_loop()
    svc = FloorService(cfg)
    svc.loop = loop
    add_user(svc.store, "maria", "floor", "pw-of-maria-1", by="test", hasher=cheap_hasher())
    svc.store.ingest("tablectl/main/t7/state", json.dumps({"online": True, "room": "main", "table": "t7"}).encode())
    svc.store.ingest("tablectl/main/t7/events/floor", json.dumps(
        {"type": "Alert", "seq": 1, "ts": 1.0, "code": "deck.foreign_card", "audience": "floor"}).encode())
    client = aiohttp_test.TestClient(aiohttp_test.TestServer(make_app(svc)), loop=loop)
    loop.run_until_complete(client.start_server())
    assert svc.link is not None
    svc.link.start()
    watch = NoTraceback()
    logging.getLogger().addHandler(watch)
    try:
        r = loop.run_until_complete(client.post("/login", data={"name": "maria", "password": "pw-of-maria-1"},
                                                allow_redirects=False))
        assert r.status == 303
        page = loop.run_until_complete(loop.run_until_complete(client.get("/")).text())
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}
        statuses: list[int] = []

        def ask(method: str, path: str, **kw: object) -> int:
            async def go() -> int:
                resp = await client.request(method, path, allow_redirects=False, **kw)  # type: ignore[arg-type]
                await resp.read()
                return resp.status
            status = loop.run_until_complete(go())
            statuses.append(status)
            return status

        common = settings(max_examples=60, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

        @common
        @given(path=st.sampled_from(POSTS), body=BODIES)
        def posts(path: str, body: object) -> None:
            assert ask("POST", path, data=json.dumps(body), headers=headers) < 500, (path, body)

        @common
        @given(path=st.sampled_from(POSTS), raw=RAW)
        def raw_posts(path: str, raw: bytes) -> None:
            assert ask("POST", path, data=raw, headers=headers) < 500, (path, raw[:60])

        @common
        @given(path=st.sampled_from(GETS), query=QUERIES)
        def gets(path: str, query: dict[str, str]) -> None:
            assert ask("GET", path, params=query) < 500, (path, query)

        @settings(max_examples=15, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
        @given(form=st.dictionaries(st.sampled_from(["name", "password", "x"]), st.text(max_size=30), max_size=3),
               raw=st.none() | RAW)
        def logins(form: dict[str, str], raw: bytes | None) -> None:
            if raw is None:
                assert ask("POST", "/login", data=form) < 500, form
            else:
                assert ask("POST", "/login", data=raw,
                           headers={"Content-Type": "multipart/form-data; boundary=x"}) < 500, raw[:60]

        # the numbers that once gave a 500 (OverflowError), each a 400 with its reason
        for path, kw in (("/api/ack", {"data": json.dumps({"room": "main", "table": "t7", "seq": 2 ** 70}),
                                       "headers": headers}),
                         ("/api/hand", {"params": {"room": "main", "table": "t7", "seq": "1" * 30}}),
                         ("/api/hands", {"params": {"hand": "1" * 30}})):
            method = "POST" if path == "/api/ack" else "GET"
            assert ask(method, path, **kw) == 400, path
        deep = loop.run_until_complete(client.post("/api/ack", data=b"[" * 20000 + b"]" * 20000, headers=headers))
        assert deep.status == 400 and "nests more than" in loop.run_until_complete(deep.text())
        gets()
        posts()  # (it may log the session out: what comes after needs no session)
        raw_posts()
        logins()
    finally:
        logging.getLogger().removeHandler(watch)
        svc.link.stop()
        loop.run_until_complete(client.close())
        svc.store.close()
        loop.close()
    assert len(statuses) > 150 and {400, 403, 404} & set(statuses)
    assert watch.bad == []


# -- what aiohttp itself parses: multipart bodies, chunked bodies, headers (issue 38) -------------------------------

MULTIPART_TYPES = st.sampled_from([
    "multipart/form-data; boundary=x", "multipart/form-data", "multipart/form-data; boundary=",
    'multipart/form-data; boundary="x"', "multipart/mixed; boundary=x", "multipart/form-data; boundary=" + "x" * 300,
    "multipart/form-data; boundary=x; charset=nope"])
PART_PIECES = st.sampled_from([
    b"--x", b"--x--", b"\r\n", b"\r\n\r\n", b"bad", b'Content-Disposition: form-data; name="name"',
    b'Content-Disposition: form-data; name="password"; filename="a"', b"Content-Disposition: bad",
    b"Content-Type: text/plain; charset=nope", b"Content-Transfer-Encoding: base64", b"Content-Encoding: gzip",
    b"Content-Length: 99999999999", b"maria", b"\xff\xfe", b": x", b"X-\x00: y", b" folded"])
#: the issue's own case (InvalidHeader, a 500), then multipart bodies made of the pieces of one
MULTIPARTS = st.just(b"--x\r\nbad") | st.lists(PART_PIECES | st.binary(max_size=16), max_size=12).map(b"".join)
#: a chunk's size line: hex digits and what is not
CHUNK_SIZES = st.text(alphabet="0123456789abcdefABCDEFxz-+ ;=\t\"", min_size=0, max_size=24)


def _raw_cases(path: str, auth: str) -> list[tuple[str, bytes, bool]]:
    """Requests to ``path`` that only a raw socket sends: (name, the bytes, whether the client then
    stops sending, a truncated body). ``auth``: the session's cookie and CSRF token, as header lines,
    so that a body reaches the handler behind them."""
    form = "Content-Type: application/x-www-form-urlencoded\r\n"
    head = f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{auth}"
    chunked = head + form + "Transfer-Encoding: chunked\r\n"
    cases = [
        ("a chunk size that is not hex", f"{chunked}\r\nzz\r\nname=a\r\n0\r\n\r\n".encode(), False),
        ("a negative chunk size", f"{chunked}\r\n-5\r\nname=\r\n0\r\n\r\n".encode(), False),
        ("a chunk size of 20 hex digits", f"{chunked}\r\n{'f' * 20}\r\nname=a\r\n0\r\n\r\n".encode(), False),
        ("a chunk longer than its size", f"{chunked}\r\n2\r\nname=a\r\n0\r\n\r\n".encode(), False),
        ("a chunk extension with a control character", f"{chunked}\r\n6;x=\x01\r\nname=a\r\n0\r\n\r\n".encode(),
         False),
        ("a chunked body cut short", f"{chunked}\r\n10\r\nname=a".encode(), True),
        ("a chunked body without its last chunk", f"{chunked}\r\n6\r\nname=a\r\n".encode(), True),
        ("a body shorter than its Content-Length", f"{head}{form}Content-Length: 100\r\n\r\nname=a".encode(), True),
        ("Content-Length and chunked", f"{chunked}Content-Length: 3\r\n\r\n0\r\n\r\n".encode(), False),
        ("two Content-Lengths", f"{head}{form}Content-Length: 6\r\nContent-Length: 7\r\n\r\nname=a".encode(), False),
        ("a Content-Length that is no number", f"{head}{form}Content-Length: abc\r\n\r\nname=a".encode(), False),
        ("a body its gzip Content-Encoding cannot decode",
         f"{head}{form}Content-Encoding: gzip\r\nContent-Length: 6\r\n\r\nname=a".encode(), False),
        ("a body its Content-Encoding does not name", f"{head}{form}Content-Encoding: rot13\r\nContent-Length: 6"
                                                      f"\r\n\r\nname=a".encode(), False),
        ("a multipart part with a malformed header", f"{head}Content-Type: multipart/form-data; boundary=x\r\n"
                                                     f"Content-Length: 8\r\n\r\n--x\r\nbad".encode(), False),
        ("a header line without a colon", f"{head}Bad Header\r\nContent-Length: 0\r\n\r\n".encode(), False),
        ("a header name with a space", f"{head}Bad Name: x\r\nContent-Length: 0\r\n\r\n".encode(), False),
        ("a folded header", f"{head}X-Folded: a\r\n b\r\nContent-Length: 0\r\n\r\n".encode(), False),
        ("a NUL in a header", f"{head}X-Nul: a\x00b\r\nContent-Length: 0\r\n\r\n".encode(), False),
        ("a header of 20 KB", f"{head}X-Long: {'a' * 20000}\r\nContent-Length: 0\r\n\r\n".encode(), False),
        ("a header that is not UTF-8", head.encode() + b"X-Bytes: \xff\xfe\r\nContent-Length: 0\r\n\r\n", False),
        ("no Host", f"POST {path} HTTP/1.1\r\nConnection: close\r\n{auth}Content-Length: 0\r\n\r\n".encode(), False),
        ("a request line of three words and more", f"POST {path} HTTP/1.1 x\r\nHost: a\r\n\r\n".encode(), False),
        ("a request line of garbage", b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\r\n\r\n", False),
    ]
    return cases


async def _exchange(host: str, port: int, data: bytes, stop_sending: bool) -> int | None:
    """One raw request: the answer's status, or None when the service closed the connection without
    one (a client gone in the middle of its body has nobody to answer)."""
    from rig.waiting import PATIENCE

    reader, writer = await asyncio.open_connection(host, port)
    try:
        writer.write(data)
        await writer.drain()
        if stop_sending:
            writer.write_eof()
        line = await asyncio.wait_for(reader.readline(), timeout=10 * PATIENCE)
    except ConnectionError:
        return None
    finally:
        writer.close()
    found = re.match(rb"HTTP/1\.[01] (\d{3}) ", line)
    return int(found.group(1)) if found else None


class HandlerTraceback(logging.Handler):
    """Every traceback logged but aiohttp's own of a request it refused itself: its parser's, before
    any handler ran (answered 400 by aiohttp), and a broken body's error raised again when aiohttp
    reads what is left of the body after the service's answer. How aiohttp logs those is aiohttp's
    code, not the service's (a 500 among them is caught by the statuses)."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        from aiohttp.http_exceptions import HttpProcessingError
        from aiohttp.web_protocol import RequestPayloadError

        if not record.exc_info:
            return
        exc = record.exc_info[1]
        if record.name == "aiohttp.server" and isinstance(exc, (HttpProcessingError, RequestPayloadError)):
            return
        self.bad.append(f"{record.name}: {record.getMessage()}: {type(exc).__name__}")


def _served_as_in_production(app: Any) -> Any:
    """aiohttp's test server running ``app`` as ``tablectl floor`` does (controller/floor/app.py,
    ``serve``: an AppRunner's defaults): a handler goes on when its client leaves (the test
    server cancels it instead, and a body cut short would never reach the service's code)."""
    from aiohttp import web

    class AsServed(aiohttp_test.TestServer):
        async def _make_runner(self, **kwargs: Any) -> web.AppRunner:
            kwargs["handler_cancellation"] = False
            return web.AppRunner(self.app, **kwargs)

    return AsServed(app)


@pytest.mark.e2e
def test_every_endpoint_given_malformed_multipart_chunked_and_headers_answers_no_5xx(broker, tmp_path):
    """What aiohttp parses before or while a handler reads: a malformed multipart body (its
    InvalidHeader was a 500), a body its Content-Encoding cannot decode (a 500), chunked bodies
    with bad chunk sizes or cut short, and bad headers, on every endpoint, logged in (so that each
    body reaches the handler behind the session and its token). None is answered 5xx, no handler
    leaves a traceback, and the service answers after them all."""
    from controller.floor.app import FloorService, make_app

    cfg = parse_floor_text(f'[floor]\nbroker = "{broker.url}"\ndatabase = "{tmp_path / "floor.db"}"\n'
                           f'client_id = "fuzz-raw"\n', path=tmp_path / "floor.toml")
    loop = asyncio.new_event_loop()
    svc = FloorService(cfg)
    svc.loop = loop
    add_user(svc.store, "maria", "floor", "pw-of-maria-1", by="test", hasher=cheap_hasher())
    svc.store.ingest("tablectl/main/t7/state", json.dumps({"online": True, "room": "main", "table": "t7"}).encode())
    client = aiohttp_test.TestClient(_served_as_in_production(make_app(svc)), loop=loop)
    loop.run_until_complete(client.start_server())
    assert svc.link is not None
    svc.link.start()
    watch = HandlerTraceback()
    logging.getLogger().addHandler(watch)
    try:
        r = loop.run_until_complete(client.post("/login", data={"name": "maria", "password": "pw-of-maria-1"},
                                                allow_redirects=False))
        assert r.status == 303
        page = loop.run_until_complete(loop.run_until_complete(client.get("/")).text())
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        cookie = "; ".join(f"{c.key}={c.value}" for c in client.session.cookie_jar)
        auth = f"Cookie: {cookie}\r\nX-CSRF-Token: {csrf}\r\n"
        host, port = client.server.host, client.server.port
        assert isinstance(port, int)
        statuses: list[int | None] = []

        def ask(method: str, path: str, **kw: object) -> int:
            async def go() -> int:
                resp = await client.request(method, path, allow_redirects=False, **kw)  # type: ignore[arg-type]
                await resp.read()
                return resp.status
            status = loop.run_until_complete(go())
            statuses.append(status)
            return status

        def raw(data: bytes, stop_sending: bool) -> int | None:
            status = loop.run_until_complete(_exchange(host, port, data, stop_sending))
            statuses.append(status)
            return status

        # (/logout last: it ends the session; /login beside the others that read a body)
        bodies = ("/login", *POSTS)

        @settings(max_examples=60, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
        @given(path=st.sampled_from(bodies[:-1]), kind=MULTIPART_TYPES, body=MULTIPARTS)
        def multiparts(path: str, kind: str, body: bytes) -> None:
            status = ask("POST", path, data=body, headers={"X-CSRF-Token": csrf, "Content-Type": kind})
            assert status < 500, (path, kind, body[:80])

        @settings(max_examples=40, deadline=None, database=None,
                  suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
        @given(path=st.sampled_from(bodies[:-1]), size=CHUNK_SIZES, data=st.binary(max_size=24),
               end=st.sampled_from([b"\r\n0\r\n\r\n", b"\r\n", b""]))
        def chunks(path: str, size: str, data: bytes, end: bytes) -> None:
            head = (f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n{auth}"
                    f"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n{size}\r\n").encode()
            status = raw(head + data + end, stop_sending=True)
            assert status is None or status < 500, (path, size, data, end)

        # the issue's own: a 500 (aiohttp's InvalidHeader, raised from request.post())
        assert ask("POST", "/login", data=b"--x\r\nbad",
                   headers={"Content-Type": "multipart/form-data; boundary=x"}) == 400
        multiparts()
        chunks()
        for path in (*GETS, *bodies):
            for name, data, stop_sending in _raw_cases(path, auth):
                status = raw(data, stop_sending)
                assert status is None or status < 500, (path, name, status)
        assert ask("GET", "/login") == 200  # (still up, answering)
    finally:
        logging.getLogger().removeHandler(watch)
        svc.link.stop()
        loop.run_until_complete(client.close())
        svc.store.close()
        loop.close()
    assert 400 in statuses and len(statuses) > 400
    assert watch.bad == []
