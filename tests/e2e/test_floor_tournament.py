"""The floor runs a tournament (docs/floor.md, "Running a tournament"): ``tablectl floor`` as a
subprocess with a real mosquitto; its actions through its API as the page sends them (logged in,
with the session's CSRF token); a subscriber on the tables' ``floor/tournament`` topics sees the
retained signal change on the start, a level's end, hand-for-hand, a release, the bubble and a
player clock, parsed as a table parses it (controller/room/tournament.py). The tables are
:class:`rig.floor.FakeTable` (what a table publishes, docs/room.md): what is checked is the
floor's side (what it publishes, on what the tables say); the tables' side is the room link's
(tests of the room engineer) and the core's."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from rig.broker import Broker, Subscriber, have_mosquitto
from rig.floor import PASSWORDS, FakeTable, FloorProc, add_users, request
from rig.waiting import wait_until
from controller.room.tournament import Signal, parse_signal

TABLES = ("t1", "t2", "t3")
#: level 1 of 20 minutes at 25/50, a 10 minute break, level 2 at 50/100 ante 10 (its last)
STRUCTURE = ("[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n[[levels]]\nkind = \"break\"\nminutes = 10\n"
             "[[levels]]\nminutes = 20\nsmall_blind = 50\nbig_blind = 100\nante = 10\n")


def tournament_extra(folder: Any, tables: tuple[str, ...] = TABLES) -> str:
    (folder / "structure.toml").write_text(STRUCTURE)
    return (f'room = "main"\n[floor.tournaments.main]\nstructure = "structure.toml"\ntitle = "Sunday Deepstack"\n'
            f"tables = {json.dumps(list(tables))}\nbreak_order = {json.dumps(list(reversed(tables)))}\n")


@pytest.fixture(scope="module")
def room(tmp_path_factory):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    folder = tmp_path_factory.mktemp("floor_tournament")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    floor = FloorProc(folder, broker, extra=tournament_extra(folder))
    add_users(floor)
    floor.start()
    signals = Subscriber(broker.port, ["tablectl/main/+/floor/tournament"]).start()
    tables = {t: FakeTable(broker, "main", t) for t in TABLES}
    yield floor, broker, signals, tables
    for t in tables.values():
        t.stop()
    signals.stop()
    floor.stop()
    broker.stop()


class Floor:
    """A floor user's session: the cookie and the CSRF token, as the page holds them."""

    def __init__(self, floor: FloorProc, name: str = "maria") -> None:
        self.floor = floor
        status, headers, _ = request(floor.url + "/login", data=f"name={name}&password={PASSWORDS[name]}".encode(),
                                     method="POST")
        assert status == 303, status
        self.cookie = headers["Set-Cookie"].split(";")[0]
        _, _, page = request(floor.url + "/", headers={"Cookie": self.cookie})
        self.csrf = page.decode().split('name="csrf-token" content="')[1].split('"')[0]

    def act(self, **body: Any) -> tuple[int, dict[str, Any]]:
        status, _, out = request(self.floor.url + "/api/tournament", data=json.dumps({"tournament": "main", **body})
                                 .encode(), method="POST", headers={"Cookie": self.cookie, "X-CSRF-Token": self.csrf,
                                                                    "Content-Type": "application/json"})
        return status, json.loads(out)

    def ok(self, **body: Any) -> dict[str, Any]:
        status, out = self.act(**body)
        assert status == 200, out
        return out

    def get(self, path: str) -> tuple[int, Any]:
        status, _, out = request(self.floor.url + path, headers={"Cookie": self.cookie})
        return status, json.loads(out)


def last(signals: Subscriber, table: str) -> Signal | None:
    got = signals.messages.get(f"tablectl/main/{table}/floor/tournament")
    return parse_signal(got[-1]) if got else None


def until(signals: Subscriber, what: str, test: Any, tables: tuple[str, ...] = TABLES) -> None:
    """Wait until every one of ``tables``' last signal passes ``test``."""
    def every() -> bool:
        got = [last(signals, t) for t in tables]
        return all(s is not None and test(s) for s in got)
    wait_until(every, 20, what=what)


def test_a_subscriber_sees_the_retained_signal_change_on_each_floor_action(room):
    floor, broker, signals, tables = room
    maria = Floor(floor)
    # published from the service's start, retained: before the clock starts, no level
    until(signals, "every table's first signal", lambda s: s.tournament == "main" and s.level is None)
    maria.ok(action="start")
    until(signals, "level 1 at every table",
          lambda s: s.level is not None and (s.level.n, s.level.kind, s.level.sb, s.level.bb) == (1, "level", 25, 50))
    # the level's end: 3 s left, then the clock crosses into the break by itself
    maria.ok(action="add", seconds=-(20 * 60 - 3))
    until(signals, "the break at every table", lambda s: s.level is not None and s.level.kind == "break")
    maria.ok(action="h4h", on=True)
    until(signals, "hand-for-hand at every table", lambda s: s.h4h and s.round == 0)
    maria.ok(action="release")
    until(signals, "the release at every table", lambda s: s.h4h and s.round == 1)
    maria.ok(action="bubble", on=True)
    until(signals, "bubble mode at every table", lambda s: s.bubble_mode and not s.bubble)
    # a called all-in at t1 (its dealer's allin press in bubble mode): every other table holds
    tables["t1"].publish("events/floor", {"type": "Alert", "seq": tables["t1"].next_seq(), "ts": 1.0,
                                          "audience": "floor", "code": "flow.bubble_allin", "rule": "FLOW-003",
                                          "hand": 42, "seat": 4})
    until(signals, "the bubble hold at t2 and t3",
          lambda s: s.bubble and (s.bubble_table, s.bubble_hand) == ("t1", 42), ("t2", "t3"))
    assert not last(signals, "t1").bubble  # type: ignore[union-attr]
    tables["t1"].hand(record={"hand": 42, "stub_count": 30})  # that hand's record: the hold ends
    until(signals, "the hold over", lambda s: s.bubble_mode and not s.bubble)
    maria.ok(action="clock", room="main", table="t2", seat=4)
    until(signals, "the player clock at t2", lambda s: (s.clock_seat, s.clock_n) == (4, 1), ("t2",))
    assert last(signals, "t3").clock_seat is None  # type: ignore[union-attr]
    # a table that joins now reads where the room is from the retained message
    late = Subscriber(broker.port, ["tablectl/main/+/floor/tournament"]).start()
    try:
        wait_until(lambda: len(late.retained) == 3, 20, what="the retained signals")
        now = {t: parse_signal(late.retained[f"tablectl/main/{t}/floor/tournament"]) for t in TABLES}
        assert {t: (s.level.kind, s.h4h, s.round, s.bubble_mode, s.clock_n) for t, s in now.items()  # type: ignore
                } == {"t1": ("break", True, 1, True, 0), "t2": ("break", True, 1, True, 1),
                      "t3": ("break", True, 1, True, 0)}
    finally:
        late.stop()
    with sqlite3.connect(floor.database) as db:
        audit = [r for r in db.execute("SELECT user, action, detail FROM audit WHERE action = 'tournament' "
                                       "ORDER BY id")]
    assert [(u, d.split(":")[1].split(",")[0].split(" (")[0].strip()) for u, _, d in audit] == [
        ("maria", "start"), ("maria", "add -1197 s"), ("maria", "hand-for-hand on"), ("maria", "release 1"),
        ("maria", "bubble on"), ("maria", "player clock on main/t2 seat 4")]


def test_a_restart_of_the_floor_keeps_the_tournament_where_it_was(room):
    floor, broker, signals, tables = room
    maria = Floor(floor)
    maria.act(action="start")  # (started now, if an earlier test had not started it)
    status, clock = maria.get("/api/clock/main")
    assert status == 200 and clock["clock"]["started"]
    until(signals, "the clock's level at every table", lambda s: s.level is not None)
    before = {t: signals.messages[f"tablectl/main/{t}/floor/tournament"][-1] for t in TABLES}
    counts = {t: len(signals.messages[f"tablectl/main/{t}/floor/tournament"]) for t in TABLES}
    maria.ok(action="pause")  # (paused: the restart must give back exactly what was)
    _, paused = maria.get("/api/clock/main")
    floor.stop()
    floor.start()
    _, after = maria.get("/api/clock/main")  # (the session is in the database: it survives too)
    assert after["clock"] == paused["clock"] and not after["clock"]["running"]
    # the service published its signals again on start: the same as before, every one
    wait_until(lambda: all(len(signals.messages[f"tablectl/main/{t}/floor/tournament"]) > counts[t] for t in TABLES),
               20, what="the signals published again")
    assert {t: signals.messages[f"tablectl/main/{t}/floor/tournament"][-1] for t in TABLES} == before
    maria.ok(action="resume")
    _, running = maria.get("/api/clock/main")
    assert running["clock"]["running"] and running["clock"]["time_left"] <= paused["clock"]["time_left"]


def test_only_the_floor_runs_a_tournament_and_the_clock_screen_is_public_and_bare(room):
    floor, broker, signals, tables = room
    tables["t1"].state(seats=[1, 2, 3, 4, 5, 6])
    tables["t2"].state(seats=[1, 2])
    tables["t3"].state(seats=[1, 3, 5, 7, 9])
    tom = Floor(floor, "tom")
    status, out = tom.act(action="release")
    assert (status, out["error"]) == (403, "a technician cannot run the tournaments")
    assert tom.get("/api/tournaments")[0] == 403
    assert request(floor.url + "/tournament", headers={"Cookie": tom.cookie})[0] == 403
    assert request(floor.url + "/api/tournaments")[0] == 401
    status, _, body = request(floor.url + "/api/tournament", data=b'{"tournament": "main", "action": "release"}',
                              method="POST")
    assert status == 401
    maria = Floor(floor)
    assert maria.act(action="clock", room="main", table="t1", seat=0)[0] == 400
    maria.act(action="h4h", on=True)  # (on now, if an earlier test had not turned it on)
    assert maria.act(action="h4h", on=True)[0] == 409
    assert maria.act(action="release", tournament="other")[0] == 404
    # the clock screen: no login, nothing but the clock and two counts
    status, headers, page = request(floor.url + "/clock/main")
    assert status == 200 and "Sunday Deepstack" in page.decode() and "default-src 'self'" in \
        headers["Content-Security-Policy"]
    wait_until(lambda: json.loads(request(floor.url + "/api/clock/main")[2])["players"] == 6 + 2 + 5, 20,
               what="the players from the rosters")
    status, _, raw = request(floor.url + "/api/clock/main")
    public = json.loads(raw)
    assert set(public) == {"tournament", "title", "clock", "players", "tables", "h4h"}
    assert (public["tables"], public["title"]) == (3, "Sunday Deepstack")
    text = raw.decode()
    for secret in ("t1", "t2", "seat", "card", "alert", "hand\"", "holds", "bubble"):
        assert secret not in text, secret
    assert request(floor.url + "/clock/other")[0] == 404 and request(floor.url + "/api/clock/other")[0] == 404
