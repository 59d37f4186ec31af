"""The tournaments' director (controller/floor/director.py): what it publishes to each table on each
action and on what the tables say, read back with the room link's own parser of the signal
(controller/room/tournament.py: the oracle the tables use), with a real store and the clocks given
by the test."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from controller.config.floor import parse_floor_text
from controller.floor.clock import Moment
from controller.floor.director import Director, TournamentError
from controller.floor.store import Store
from controller.room.tournament import parse_signal

#: level 1 20 min 25/50, a 10 min break, level 2 20 min 50/100 ante 10
STRUCTURE = ("[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n[[levels]]\nkind = \"break\"\nminutes = 10\n"
             "[[levels]]\nminutes = 20\nsmall_blind = 50\nbig_blind = 100\nante = 10\n")
TABLES = ("t1", "t2", "t3")


class Room:
    """A director over a real store, its clocks the test's, its signals kept by topic."""

    def __init__(self, folder: Path, extra: str = "") -> None:
        (folder / "s.toml").write_text(STRUCTURE)
        path = folder / "floor.toml"
        path.write_text(f'[floor]\nbroker = "mqtt://127.0.0.1"\nroom = "main"\ndatabase = "{folder / "floor.db"}"\n'
                        '[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1", "t2", "t3"]\n'
                        'break_order = ["t3", "t2", "t1"]\n' + extra)
        self.cfg = parse_floor_text(path.read_text(), path=path)
        self.store = Store(self.cfg.database, clock=lambda: self.wall)
        self.mono, self.wall, self.boot = 100.0, 1_767_225_600.0, "b1"
        self.sent: list[tuple[str, bytes]] = []
        self.director = self.start()

    def start(self) -> Director:
        return Director(self.cfg, self.store, lambda topic, payload: self.sent.append((topic, payload)),
                        lambda: Moment(self.mono, self.boot, self.wall))

    def later(self, seconds: float) -> None:
        self.mono += seconds
        self.wall += seconds

    def published(self) -> dict[str, Any]:
        """The signals published since the last call, by table, parsed as a table parses them."""
        out = {}
        for topic, payload in self.sent:
            room, table = topic.split("/")[1:3]
            assert topic == f"tablectl/{room}/{table}/floor/tournament"
            out[table] = parse_signal(payload)
        self.sent.clear()
        return out

    def act(self, **body: Any) -> str:
        return self.director.act("main", body)

    def said(self, table: str, topic: str, body: dict[str, Any]) -> None:
        got = self.store.ingest(f"tablectl/main/{table}/{topic}", json.dumps(body).encode())
        self.director.ingested(got)


def hand(table_seq: int, number: int, ts: float = 5.0) -> dict[str, Any]:
    body = {"type": "HandFinished", "hand": number, "ts": ts, "record": {"hand": number}, "seq": table_seq,
            "prev": "0" * 64}
    body["hash"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return body


def allin(seq: int, number: int) -> dict[str, Any]:
    return {"type": "Alert", "seq": seq, "ts": 5.0, "code": "flow.bubble_allin", "hand": number, "seat": 4,
            "audience": "floor"}


@pytest.fixture
def room(tmp_path) -> Room:
    return Room(tmp_path)


def test_every_table_gets_its_retained_signal_once_and_again_only_when_it_changes(room):
    assert room.director.tick() == 3
    sig = room.published()
    assert sorted(sig) == list(TABLES)
    assert all(s.tournament == "main" and s.level is None and not s.h4h and s.round == 0 and s.clock_seat is None
               for s in sig.values())
    assert room.director.tick() == 0 and room.published() == {}
    room.later(3600)  # (the clock has not started: time changes nothing)
    assert room.director.tick() == 0
    room.director.again()  # (connected again: the broker may have lost them)
    assert room.director.tick() == 3


def test_the_level_is_published_at_the_start_and_when_the_clock_crosses_a_boundary(room):
    room.director.tick()
    room.published()
    assert room.act(action="start") == "main: start: level 1, 1200 s left"
    sig = room.published()
    assert sorted(sig) == list(TABLES)
    lv = sig["t1"].level
    assert (lv.n, lv.kind, lv.sb, lv.bb, lv.ante, lv.game) == (1, "level", 25, 50, 0, None)
    room.later(1199.5)
    assert room.director.tick() == 0
    room.later(0.5)  # 1200 s: the break
    assert room.director.tick() == 3
    lv = room.published()["t2"].level
    assert (lv.n, lv.kind, lv.sb, lv.bb) == (2, "break", None, None)
    room.act(action="skip")
    lv = room.published()["t3"].level
    assert (lv.n, lv.kind, lv.bb, lv.ante) == (2, "level", 100, 10)
    room.act(action="pause")
    assert room.published() == {}  # (a pause changes nothing a table acts on)
    room.later(5000)
    room.act(action="resume")
    room.act(action="back")
    assert room.published()["t1"].level.kind == "break"


def test_hand_for_hand_and_each_release_reach_every_table(room):
    room.director.tick()
    room.published()
    room.act(action="h4h", on=True)
    assert {t: (s.h4h, s.round) for t, s in room.published().items()} == {t: (True, 0) for t in TABLES}
    room.act(action="release")
    room.act(action="release")
    assert {t: (s.h4h, s.round) for t, s in room.published().items()} == {t: (True, 2) for t in TABLES}
    room.act(action="h4h", on=False)
    assert {t: (s.h4h, s.round) for t, s in room.published().items()} == {t: (False, 2) for t in TABLES}
    with pytest.raises(TournamentError, match="hand-for-hand is off: nothing to release") as err:
        room.act(action="release")
    assert err.value.status == 409


def test_a_called_all_in_on_the_bubble_holds_every_other_table_until_its_hand_ends(room):
    for t in TABLES:
        room.said(t, "state", {"online": True, "seats": [1, 2, 3]})
    room.director.tick()
    room.published()
    room.said("t2", "events/floor", allin(1, 42))  # the bubble is off: no hold
    assert room.published() == {}
    room.act(action="bubble", on=True)
    assert all(s.bubble_mode and not s.bubble for s in room.published().values())
    room.said("t2", "events/floor", allin(2, 43))
    sig = room.published()
    assert sorted(sig) == ["t1", "t3"]  # t2 holds for nobody: it is its hand
    assert {t: (s.bubble, s.bubble_table, s.bubble_hand) for t, s in sig.items()} == {
        "t1": (True, "t2", 43), "t3": (True, "t2", 43)}
    room.said("t2", "events/floor", allin(2, 43))  # (a redelivery: nothing more)
    room.said("t2", "hands", hand(1, 42))  # another hand's record: the hold stays
    assert room.published() == {}
    room.said("t2", "hands", hand(2, 43))  # that hand's record: the room is released
    assert {t: s.bubble for t, s in room.published().items()} == {"t1": False, "t3": False}
    # an all-in whose record came first (the floor catching up) holds nothing
    room.said("t1", "hands", hand(1, 7))
    room.said("t1", "events/floor", allin(3, 7))
    assert room.published() == {} and room.director.states["main"].holds == []


def test_two_all_ins_at_once_each_table_waits_for_the_other_and_the_floor_may_clear_them(room):
    room.director.tick()
    room.act(action="bubble", on=True)
    room.published()
    room.said("t1", "events/floor", allin(1, 10))
    room.later(5)
    room.said("t3", "events/floor", allin(1, 20))
    room.director.again()
    room.director.tick()
    sig = {t: (s.bubble, s.bubble_table, s.bubble_hand) for t, s in room.published().items()}
    assert sig == {"t1": (True, "t3", 20), "t2": (True, "t1", 10), "t3": (True, "t1", 10)}
    assert room.act(action="bubble_clear") == "main: bubble hold cleared (t1 hand 10, t3 hand 20)"
    assert all(not s.bubble for s in room.published().values())
    room.said("t1", "events/floor", allin(2, 11))
    room.act(action="bubble", on=False)  # the bubble bursts: no hold, no mode
    assert all(not s.bubble and not s.bubble_mode for s in room.published().values())


def test_a_player_clock_called_from_the_page_counts_its_calls_at_that_table(room):
    room.director.tick()
    room.published()
    assert room.act(action="clock", room="main", table="t2", seat=4) == \
        "main: player clock on main/t2 seat 4 (call 1)"
    assert {t: (s.clock_seat, s.clock_n) for t, s in room.published().items()} == {"t2": (4, 1)}
    room.act(action="clock", room="main", table="t2", seat=7)
    assert {t: (s.clock_seat, s.clock_n) for t, s in room.published().items()} == {"t2": (7, 2)}
    for body, status, what in (({"room": "main", "table": "t9", "seat": 4}, 404, "no table main/t9"),
                               ({"room": "main", "table": "t2", "seat": 11}, 400, "seat: want a whole number"),
                               ({"room": "main", "table": "t2", "seat": True}, 400, "seat: want"),
                               ({"room": "main", "table": "t2"}, 400, "clock: want room, seat, table")):
        with pytest.raises(TournamentError, match=what) as err:
            room.act(action="clock", **body)
        assert err.value.status == status


def test_a_restart_keeps_the_tournament_and_publishes_the_same_signals(room):
    room.director.tick()
    room.act(action="start")
    room.act(action="h4h", on=True)
    room.act(action="release")
    room.act(action="bubble", on=True)
    room.said("t1", "events/floor", allin(1, 5))
    room.act(action="clock", room="main", table="t3", seat=2)
    room.later(600)
    room.director.tick()
    before = {t: s for t, s in room.published().items()}
    room.later(700)  # the service is stopped for 700 s: level 1 ends meanwhile (at 1200 s)
    room.director = room.start()
    room.director.tick()
    after = room.published()
    assert sorted(after) == list(TABLES)
    for t in TABLES:
        assert after[t].level.kind == "break" and before[t].level.kind == "level"
        assert (after[t].round, after[t].bubble, after[t].bubble_hand, after[t].clock_n) == \
            (before[t].round, before[t].bubble, before[t].bubble_hand, before[t].clock_n)
    assert room.director.board("main")["clock"]["time_left"] == 500.0  # (1300 s in: 100 s of the break used)


def test_a_table_named_alone_in_a_floor_of_every_room_gets_its_signal_once_seen(tmp_path):
    r = Room(tmp_path)
    cfg = r.cfg
    r.cfg = type(cfg)(**{**cfg.__dict__, "room": "+"})  # (the same file, following every room)
    r.director = r.start()
    assert r.director.tick() == 0  # no table seen yet: no room to publish to
    r.said("t1", "state", {"online": True})
    assert list(r.published()) == ["t1"]
    r.director.ingested(r.store.ingest("tablectl/east/t2/state", json.dumps({"online": True}).encode()))
    assert [topic for topic, _ in r.sent] == ["tablectl/east/t2/floor/tournament"]


def test_the_actions_refused_say_why(room):
    for name, body, status, what in (
            ("nope", {"action": "start"}, 404, "no tournament 'nope'"),
            ("main", {"action": "fly"}, 400, "action: want one of start, pause"),
            ("main", {"action": "start", "seconds": 3}, 400, "start: want nothing more"),
            ("main", {"action": "pause"}, 409, "the clock has not started"),
            ("main", {"action": "add", "seconds": 0}, 400, "seconds: want a whole number from -3600 to 3600"),
            ("main", {"action": "add", "seconds": 1.5}, 400, "seconds: want"),
            ("main", {"action": "h4h", "on": "yes"}, 400, "on: want true or false"),
            ("main", {"action": "h4h", "on": False}, 409, "hand-for-hand is off already"),
            ("main", {"action": "bubble_clear"}, 409, "no hold to clear")):
        with pytest.raises(TournamentError, match=what) as err:
            room.director.act(name, body)
        assert err.value.status == status
    room.act(action="start")
    with pytest.raises(TournamentError, match="started already"):
        room.act(action="start")


def test_the_board_says_which_tables_are_done_dealing_or_offline_with_their_time(room):
    room.said("t1", "state", {"online": True, "seats": [1, 2, 3, 4, 5, 6]})
    room.said("t2", "state", {"online": True, "seats": [1, 2, 3, 4, 5, 6, 7, 8, 9], "holding": None, "level": 4})
    room.said("t3", "state", {"online": True, "seats": [1, 2, 3]})
    room.director.tick()
    room.act(action="h4h", on=True)
    room.later(40)
    room.said("t1", "hands", hand(1, 12))  # t1 says nothing of holding: its hand's record says it is done
    room.later(15)
    room.said("t2", "state", {"online": True, "seats": [1, 2, 3, 4, 5, 6, 7, 8, 9], "holding": "h4h", "level": 4})
    room.said("t3", "state", {"online": False})
    room.said("t2", "events/floor", {"type": "Alert", "seq": 1, "ts": 5.0, "code": "flow.dealt_before_release",
                                     "hand": 13, "audience": "floor", "rule": "FLOW-002"})
    room.later(5)
    board = room.director.board("main")
    rows = {r["table"]: r for r in board["tables"]}
    assert {t: (r["status"], r["took"]) for t, r in rows.items()} == {
        "t1": ("done", 40.0), "t2": ("done", 55.0), "t3": ("offline", None)}
    assert (rows["t2"]["level"], rows["t2"]["holding"], rows["t2"]["dealt_early"], rows["t1"]["dealt_early"]) == (
        4, "h4h", [13], [])
    room.act(action="release")
    room.later(10)
    rows = {r["table"]: r for r in room.director.board("main")["tables"]}
    # released: t1's hand of the last round is not this round's; t2's holding state is from before it
    assert {t: (r["status"], r["took"]) for t, r in rows.items()} == {
        "t1": ("dealing", 10.0), "t2": ("dealing", 10.0), "t3": ("offline", None)}
    bal = board["balance"]
    # 6, 9 and 3 players (t3 offline, still in play), three tables of nine: 18 fit in two, and t3
    # breaks first
    assert (bal["players"], bal["running"], bal["breaks_next"], bal["break_now"]) == (18, 3, "main/t3", True)


def test_the_clock_screen_carries_the_clock_and_the_counts_and_nothing_else(room):
    room.said("t1", "state", {"online": True, "seats": [1, 2, 3, 4]})
    room.said("t2", "state", {"online": True, "seats": [1, 5]})
    room.said("t3", "state", {"online": True, "seats": []})
    room.act(action="start")
    room.later(60)
    pub = room.director.public("main")
    assert set(pub) == {"tournament", "title", "clock", "players", "tables", "h4h"}
    assert (pub["players"], pub["tables"], pub["h4h"], pub["clock"]["time_left"]) == (6, 2, False, 1140.0)
    assert pub["clock"]["level"] == {"n": 1, "kind": "level", "minutes": 20.0, "small_blind": 25, "big_blind": 50,
                                     "ante": 0, "game": None}
    assert pub["clock"]["next"]["kind"] == "break" and pub["clock"]["to_break"] == 1140.0
    text = json.dumps(pub)
    assert "t1" not in text and "seat" not in text
    assert room.director.public("nope") is None


def test_after_a_restart_the_board_still_knows_which_tables_finished_their_hand(room):
    for t in TABLES:
        room.said(t, "state", {"online": True, "seats": [1, 2, 3]})
    room.act(action="h4h", on=True)
    room.later(30)
    room.said("t1", "hands", hand(1, 12, ts=room.wall))  # (the table's time: the room's clocks agree)
    room.later(20)
    room.director = room.start()  # the service restarted: what it noted of the round is gone
    rows = {r["table"]: (r["status"], r["took"]) for r in room.director.board("main")["tables"]}
    assert rows == {"t1": ("done", 30.0), "t2": ("dealing", 50.0), "t3": ("dealing", 50.0)}
