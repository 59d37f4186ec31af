"""The tournament's endpoints fuzzed (hypothesis), as tests/e2e/test_floor_fuzz.py does the
others: odd input to ``/api/tournament``, ``/api/tournaments``, ``/tournament``, ``/clock/NAME``
and ``/api/clock/NAME`` is answered 4xx with a reason, never a 5xx, never a traceback in the log,
and the tournament's state stays one the store can read back. The service runs in process
(aiohttp's test server) with its real broker link to a real mosquitto, logged in as a floor user
with the session's CSRF token."""

from __future__ import annotations

import asyncio
import json
import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.config.floor import parse_floor_text
from controller.floor.auth import add_user
from rig.floor import cheap_hasher
from controller.floor.signals import TournamentState
from tests.e2e.test_floor_fuzz import JSONS, RAW, NoTraceback

aiohttp_test = pytest.importorskip("aiohttp.test_utils")

ACTIONS = ["start", "pause", "resume", "skip", "back", "add", "h4h", "release", "bubble", "bubble_clear", "clock",
           "fly", ""]
BODIES = (st.fixed_dictionaries({"tournament": st.sampled_from(["main", "other", "", "m" * 100]) | JSONS,
                                 "action": st.sampled_from(ACTIONS) | JSONS},
                                optional={"seconds": st.integers(-10**20, 10**20) | JSONS, "on": JSONS,
                                          "room": st.just("main") | JSONS, "table": st.sampled_from(["t1", "t9"])
                                          | JSONS, "seat": st.integers(-5, 15) | JSONS})
          | st.dictionaries(st.sampled_from(["tournament", "action", "seconds", "on", "room", "table", "seat"]), JSONS,
                            max_size=5)
          | JSONS)
NAMES = st.text(max_size=30) | st.sampled_from(["main", "..", "%2e%2e", "main/x", "\u202e", "a" * 300])


@pytest.mark.e2e
def test_the_tournament_endpoints_fuzzed_answer_no_5xx_and_log_no_traceback(broker, tmp_path):
    from controller.floor.app import FloorService, make_app

    (tmp_path / "s.toml").write_text("[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n"
                                     '[[levels]]\nkind = "break"\nminutes = 10\n'
                                     "[[levels]]\nminutes = 20\nsmall_blind = 50\nbig_blind = 100\n")
    cfg = parse_floor_text(f'[floor]\nbroker = "{broker.url}"\nroom = "main"\ndatabase = "{tmp_path / "floor.db"}"\n'
                           f'client_id = "fuzz-tournament"\n[floor.tournaments.main]\nstructure = "s.toml"\n'
                           f'tables = ["t1", "t2"]\n', path=tmp_path / "floor.toml")
    loop = asyncio.new_event_loop()
    svc = FloorService(cfg)
    svc.loop = loop
    add_user(svc.store, "maria", "floor", "pw-of-maria-1", by="test", hasher=cheap_hasher())
    client = aiohttp_test.TestClient(aiohttp_test.TestServer(make_app(svc)), loop=loop)
    loop.run_until_complete(client.start_server())
    assert svc.link is not None
    svc.link.start()
    watch = NoTraceback()
    logging.getLogger().addHandler(watch)
    statuses: list[int] = []
    try:
        r = loop.run_until_complete(client.post("/login", data={"name": "maria", "password": "pw-of-maria-1"},
                                                allow_redirects=False))
        assert r.status == 303
        page = loop.run_until_complete(loop.run_until_complete(client.get("/")).text())
        csrf = re.search(r'name="csrf-token" content="([^"]+)"', page).group(1)  # type: ignore[union-attr]
        headers = {"X-CSRF-Token": csrf, "Content-Type": "application/json"}

        def ask(method: str, path: str, **kw: object) -> int:
            async def go() -> int:
                resp = await client.request(method, path, allow_redirects=False, **kw)  # type: ignore[arg-type]
                await resp.read()
                return resp.status
            status = loop.run_until_complete(go())
            statuses.append(status)
            return status

        common = settings(max_examples=150, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

        @common
        @given(body=BODIES)
        def posts(body: object) -> None:
            assert ask("POST", "/api/tournament", data=json.dumps(body), headers=headers) < 500, body

        @common
        @given(raw=RAW)
        def raw_posts(raw: bytes) -> None:
            assert ask("POST", "/api/tournament", data=raw, headers=headers) < 500, raw[:60]

        @common
        @given(name=NAMES, path=st.sampled_from(["/clock/", "/api/clock/", "/tournament?x=", "/api/tournaments?x="]))
        def gets(name: str, path: str) -> None:
            from urllib.parse import quote
            assert ask("GET", path + quote(name, safe="")) < 500, (path, name)

        # well-formed first: taken, then refused as not now (409), each with its reason
        for body, status in (({"action": "start"}, 200), ({"action": "start"}, 409), ({"action": "release"}, 409),
                             ({"action": "add", "seconds": 10**30}, 400), ({"action": "h4h", "on": True}, 200),
                             ({"action": "clock", "room": "main", "table": "t1", "seat": 2**70}, 400)):
            assert ask("POST", "/api/tournament", data=json.dumps({"tournament": "main", **body}),
                       headers=headers) == status, body
        gets()
        posts()
        raw_posts()
        svc.director.tick()
        # whatever was asked, the state kept is one the store reads back
        TournamentState.from_dict(svc.store.tournament("main") or {})
    finally:
        logging.getLogger().removeHandler(watch)
        svc.link.stop()
        loop.run_until_complete(client.close())
        svc.store.close()
        loop.close()
    assert len(statuses) > 300 and {200, 400, 404, 409} <= set(statuses) and max(statuses) < 500
    assert watch.bad == []
