"""Issue 32's acceptance, end to end: the tournament room across real tables.

A real mosquitto under the shipped set-up (docs/room/mosquitto.conf and docs/room/acl: TLS,
passwords, the ACL), each table enrolled by ``tablectl room enroll``'s code and admitted as the
room's administrator admits it (its lines appended to the broker's files, the broker reloaded);
the tables are real daemons (``rig/tournament.py``: each a subprocess on simulated devices, its
room link to the broker); ``tablectl floor`` runs the tournaments (a subprocess with its
structure file), driven through its API as its page drives it, logged in as the floor role. One
broker and one floor serve the module; each test has a tournament, and tables, of its own (a
worker of pytest-xdist that runs one test alone sets up just as well).

- five tables in hand-for-hand: each holds after its hand, the floor's board says which are done
  and which still deal, one release lets all five deal (FLOW-002);
- a card dealt before the release is the floor's alert at that table (FLOW-002);
- a bubble all-in at one table holds every other table until its hand ends (FLOW-003);
- a level changed mid-hand applies from the next deal, and a misdeal's re-deal keeps the old
  level (FLOW-001, MISD-014);
- the player clock called from the floor runs out in simulated time, and a card of the dead hand
  back out of the muck is the floor's alert (FLOW-004).

The oracles are the rules' words (docs/rules.md, docs/floor.md) and the scripts' own steps, not
what the code under test computes.
"""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from rig.broker import Broker, have_mosquitto
from rig.floor import FloorProc, add_users
from rig.tournament import SimTable, Tournament
from rig.waiting import wait_for
from controller.room.enroll import username
from tests.e2e.test_floor_tournament import Floor
from tests.e2e.test_room_broker import PASSWORDS, shipped_broker
from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto() or not shutil.which("openssl"),
                                                  reason="mosquitto and openssl are needed")]

ROOM = "r1"
#: each test's tournament and its tables (a table plays in one tournament)
TOURNAMENTS = {"h4h": ("h1", "h2", "h3", "h4", "h5"), "early": ("e1", "e2"), "bubble": ("b1", "b2", "b3"),
               "level": ("l1", "l2"), "clock": ("c1",)}
#: three levels of 20 minutes: 25/50, 50/100 ante 10, 100/200 ante 25
STRUCTURE = ("[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n"
             "[[levels]]\nminutes = 20\nsmall_blind = 50\nbig_blind = 100\nante = 10\n"
             "[[levels]]\nminutes = 20\nsmall_blind = 100\nbig_blind = 200\nante = 25\n")
BASE = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON}
AGAIN = {"seats": SEATS, "button": BUTTON}  # a later hand dealt from the same button: CLEAN's deal order


def script(*hands: list[dict[str, Any]] | dict[str, Any]) -> dict[str, Any]:
    """A table's script of ``hands``: the first from the script's button, each later one (a list
    of steps) from the same button again."""
    out = []
    for i, h in enumerate(hands):
        out.append(h if isinstance(h, dict) else {"steps": h, **(AGAIN if i else {})})
    return {**BASE, "hands": out}


# -- the room: one broker, one floor ----------------------------------------------------------------

def logs_in(b: Broker, user: str, password: str) -> bool:
    """Whether the broker takes ``user``'s login now (its CONNACK, within 5 s)."""
    answered = threading.Event()
    accepted: list[bool] = []

    def on_connect(client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        accepted.append(not reason.is_failure)
        answered.set()

    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.tls_set(ca_certs=str(b.pki["ca"]))  # type: ignore[attr-defined]
    c.on_connect = on_connect
    try:
        c.connect("127.0.0.1", b.tls_port)  # type: ignore[arg-type]
        c.loop_start()
        answered.wait(5)
    finally:
        c.disconnect()
        c.loop_stop()
    return accepted == [True]


class Room:
    """The module's broker and floor; :meth:`tables` gives a test its tables, enrolled and
    admitted to the broker."""

    def __init__(self, broker: Broker, floor: FloorProc) -> None:
        self.broker, self.floor = broker, floor

    def tables(self, folder: Path, scripts: dict[str, dict[str, Any]]) -> Tournament:
        """The tables of ``scripts`` enrolled by ``tablectl room enroll``'s code; their lines
        appended to the broker's password file and ACL, the broker reloaded (SIGHUP: ``systemctl
        reload mosquitto``), as docs/room.md has the administrator do; returned once each table's
        login is taken. Not started: ``with`` it."""
        b = self.broker
        t = Tournament(folder, f"mqtts://127.0.0.1:{b.tls_port}", scripts, room=ROOM, enroll=True,
                       ca_file=b.pki["ca"])  # type: ignore[attr-defined]
        e = t.enrolment
        with (b.folder / "passwd").open("a") as f:
            f.write("\n".join(e.passwd) + "\n")
        with (b.folder / "acl").open("a") as f:
            f.write("\n" + "\n\n".join(e.acl) + "\n")
        assert b.proc is not None
        b.proc.send_signal(signal.SIGHUP)
        for name in scripts:
            password = (folder / name / f"{name}.password").read_text().strip()
            assert wait_for(lambda n=name, p=password: logs_in(b, username(ROOM, n), p), 10, poll=0.1), \
                f"the broker did not take {name}'s login after its reload"
        return t


@pytest.fixture(scope="module")
def room(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Room]:
    folder = tmp_path_factory.mktemp("tournament_room")
    broker = shipped_broker(folder / "broker")
    floor: FloorProc | None = None
    try:
        pw = folder / "floor.password"
        pw.write_text(PASSWORDS["floor"] + "\n")
        pw.chmod(0o600)
        (folder / "structure.toml").write_text(STRUCTURE)
        tournaments = "".join(f'[floor.tournaments.{name}]\nstructure = "structure.toml"\n'
                              f"tables = {json.dumps([f'{ROOM}/{t}' for t in tables])}\n"
                              for name, tables in TOURNAMENTS.items())
        floor = FloorProc(folder, broker, extra=f'broker = "mqtts://127.0.0.1:{broker.tls_port}"\n'
                                                f'username = "floor"\npassword_file = "{pw}"\n'
                                                f'ca_file = "{broker.pki["ca"]}"\nroom = "{ROOM}"\n'  # type: ignore
                                                f"{tournaments}")
        add_users(floor, ["maria"])
        floor.start()
        yield Room(broker, floor)
    finally:
        if floor is not None:
            floor.stop()
        broker.stop()


# -- what the floor's page reads, and what each table said ------------------------------------------

def board(maria: Floor, name: str) -> dict[str, Any]:
    """The tournament ``name`` as the floor's page has it (``/api/tournaments``)."""
    status, got = maria.get("/api/tournaments")
    assert status == 200, got
    return next(t for t in got["tournaments"] if t["tournament"] == name)


def rows(maria: Floor, name: str) -> dict[str, dict[str, Any]]:
    """The board's row of each table the floor has seen, by table."""
    return {r["table"]: r for r in board(maria, name)["tables"]}


def floor_alerts(maria: Floor, code: str) -> list[dict[str, Any]]:
    """The alerts ``code`` on the floor's room page (``/api/room``), newest first."""
    status, got = maria.get("/api/room")
    assert status == 200, got
    return [a for a in got["alerts"] if a["code"] == code]


def floor_levels(maria: Floor, table: str) -> dict[int, Any]:
    """Each hand's level as the floor keeps its record (``/api/hands``, then ``/api/hand``)."""
    status, found = maria.get(f"/api/hands?table={ROOM}/{table}")
    assert status == 200, found
    out = {}
    for h in found["hands"]:
        status, one = maria.get(f"/api/hand?room={ROOM}&table={table}&seq={h['seq']}&epoch={h['epoch']}")
        assert status == 200, one
        out[one["hand"]] = one["record"]["level"]
    return out


def said(t: SimTable, code: str) -> list[dict[str, Any]]:
    """What the daemon's feed has of prompt or alert ``code``, in order (its whole effect: the
    seat, the count, the hand, the words)."""
    out = []
    for line in (t.folder / "feed.jsonl").read_text().splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # (a line still being written)
        if rec.get("type") in ("Prompt", "Alert") and rec.get("code") == code:
            out.append(rec)
    return out


def journalled(t: SimTable, kind: str) -> list[dict[str, Any]]:
    """The events of ``kind`` in the table's journal (the floor's signals, as the table took them)."""
    db = sqlite3.connect(f"file:{t.folder / 'journal.sqlite3'}?mode=ro", uri=True)
    try:
        return [json.loads(r[0]) for r in db.execute("SELECT data FROM events WHERE type = ? ORDER BY id", (kind,))]
    finally:
        db.close()


def after_last(codes: list[str], then: str, first: str) -> bool:
    """``then`` said after the last ``first``."""
    return first in codes and then in codes[len(codes) - codes[::-1].index(first):]


# -- the tests ----------------------------------------------------------------------------------------

def test_five_tables_hold_for_hand_for_hand_the_board_says_who_is_done_and_one_release_lets_all_deal(
        room: Room, tmp_path: Path) -> None:
    names = TOURNAMENTS["h4h"]
    first, later = names[:2], names[2:]
    maria = Floor(room.floor)
    with room.tables(tmp_path / "room", {n: script(CLEAN, CLEAN) for n in names}) as t:
        t.play({n: (1, 1) for n in names})  # every table's hand under way
        maria.ok(tournament="h4h", action="h4h", on=True)
        t.play({n: 1 for n in first})  # two finish their hand; three are still dealing theirs
        t.wait_until(lambda: t.all_holding("h4h", but=later), what="h1 and h2 holding for hand-for-hand")

        def statuses() -> dict[str, str | None]:
            return {n: r["status"] for n, r in rows(maria, "h4h").items()}

        t.wait_until(lambda: statuses() == {"h1": "done", "h2": "done", "h3": "dealing", "h4": "dealing",
                                            "h5": "dealing"}, what="the board: h1 and h2 done, the others dealing")
        assert all(t[n].holding() is None for n in later)
        for n in first:
            assert t[n].prompts.count("flow.h4h_wait") == 1 and "flow.h4h_go" not in t[n].prompts
        t.play({n: 1 for n in later})
        t.wait_until(lambda: t.all_holding("h4h") and statuses() == dict.fromkeys(names, "done"),
                     what="every table holding, and done on the board")
        b = board(maria, "h4h")
        assert b["h4h"]["on"] and b["h4h"]["round"] == 0
        assert all(isinstance(r["took"], float) and r["holding"] == "h4h" for r in b["tables"])
        maria.ok(tournament="h4h", action="release")  # one release ...
        t.wait_until(lambda: all(t[n].holding() is None for n in names), what="every table released")
        for n in names:  # ... told to every dealer
            assert after_last(t[n].prompts, "flow.h4h_go", "flow.h4h_wait"), (n, t[n].prompts)
        t.play({n: 2 for n in names})  # ... and each deals its next hand
        for n in names:
            assert sorted(t[n].records) == [1, 2] and t[n].records[2]["hand"] == 2
            assert "flow.dealt_before_release" not in t[n].alerts  # each dealt it after its release
        # hand-for-hand is still on: each holds again after the hand, in the floor's round 1
        t.wait_until(lambda: t.all_holding("h4h") and statuses() == dict.fromkeys(names, "done"),
                     what="every table holding again after its next hand")
        assert board(maria, "h4h")["h4h"]["round"] == 1


def test_a_card_dealt_before_the_release_is_flagged_to_the_floor_at_that_table(room: Room, tmp_path: Path) -> None:
    maria = Floor(room.floor)
    maria.ok(tournament="early", action="h4h", on=True)  # between hands: the tables hold at once
    with room.tables(tmp_path / "room", {n: script(CLEAN) for n in TOURNAMENTS["early"]}) as t:
        t.wait_until(lambda: t.all_holding("h4h"), what="both tables holding (the retained signal)")
        assert floor_alerts(maria, "flow.dealt_before_release") == []
        t.play({"e1": (1, 1)})  # e1's dealer pitches a card before the floor's release
        t.wait_until(lambda: floor_alerts(maria, "flow.dealt_before_release"), what="the alert at the floor")
        [alert] = floor_alerts(maria, "flow.dealt_before_release")
        assert (alert["room"], alert["table"], alert["hand"], alert["rule"]) == (ROOM, "e1", 1, "FLOW-002")
        t.wait_until(lambda: {n: r["dealt_early"] for n, r in rows(maria, "early").items()} == {"e1": [1], "e2": []},
                     what="the board: the card dealt early at e1, none at e2")
        assert t["e1"].alerts == ["flow.dealt_before_release"] and t["e2"].alerts == []


def test_a_bubble_all_in_holds_every_other_table_until_its_hand_ends(room: Room, tmp_path: Path) -> None:
    names = TOURNAMENTS["bubble"]
    others = names[1:]
    maria = Floor(room.floor)
    maria.ok(tournament="bubble", action="bubble", on=True)
    allin = CLEAN[:15] + [{"press": "allin", "seat": 4}] + CLEAN[15:]  # called after the flop (step 16)
    scripts = {"b1": script(allin), "b2": script(CLEAN, CLEAN), "b3": script(CLEAN, CLEAN)}
    with room.tables(tmp_path / "room", scripts) as t:
        t.wait_until(lambda: all(journalled(t[n], "BubbleMode") for n in names), what="bubble mode at every table")
        t.play({"b1": (1, 15), "b2": 1, "b3": 1})  # b2 and b3 have finished a hand, b1 deals its flop
        assert t.holding() == {"b1": None, "b2": None, "b3": None}
        t.play({"b1": (1, 16)})  # the all-in at b1
        t.wait_until(lambda: t.all_holding("bubble", but=("b1",)), what="b2 and b3 holding for b1's all-in")
        assert t["b1"].holding() is None  # the table of the all-in deals its hand out
        assert [h | {"since": None} for h in board(maria, "bubble")["bubble"]["holds"]] == [
            {"room": ROOM, "table": "b1", "hand": 1, "since": None}]
        for n in others:  # each dealer told why: the all-in at b1
            [hold] = said(t[n], "flow.bubble_hold")
            assert "b1" in hold["message"] and hold["rule"] == "FLOW-003"
        t.play({"b1": (1, 19)})  # b1 deals on to its turn: the room still holds for its hand
        t.poll()
        assert t.holding() == {"b1": None, "b2": "bubble", "b3": "bubble"}
        assert len(board(maria, "bubble")["bubble"]["holds"]) == 1
        assert all("flow.bubble_go" not in t[n].prompts for n in others)
        t.play({"b1": 1})  # b1's hand ends: its record reaches the floor
        t.wait_until(lambda: all(t[n].holding() is None for n in others), what="b2 and b3 released")
        for n in others:
            assert after_last(t[n].prompts, "flow.bubble_go", "flow.bubble_hold")
        assert board(maria, "bubble")["bubble"]["holds"] == []
        t.play({n: 2 for n in others})  # and they deal
        for n in others:
            assert sorted(t[n].records) == [1, 2]
            assert "flow.dealt_before_release" not in t[n].alerts
        assert "bubble" not in [h["kind"] for h in t["b1"].report()["holds"]]


def test_a_level_changed_mid_hand_applies_from_the_next_deal_and_a_re_deal_keeps_the_old_level(
        room: Room, tmp_path: Path) -> None:
    maria = Floor(room.floor)
    maria.ok(tournament="level", action="start")  # level 1
    misdeal = [deal("As", 1), deal("Kd", 2), {"press": "misdeal"}, END]
    scripts = {"l1": script(CLEAN, CLEAN),
               # the misdealt hand, its re-deal (the button stays: MISD-014), the next hand
               "l2": script(misdeal, {"steps": CLEAN}, CLEAN)}
    with room.tables(tmp_path / "room", scripts) as t:
        t.wait_until(lambda: {n: r["level"] for n, r in rows(maria, "level").items()} == {"l1": 1, "l2": 1},
                     what="level 1 at both tables (their states)")
        t.play({"l1": (1, 2), "l2": (1, 2)})  # both mid-hand: two hole cards out
        maria.ok(tournament="level", action="skip")  # level 2
        t.wait_until(lambda: all([e["level"] for e in journalled(t[n], "LevelSet")][-1:] == [2] for n in scripts),
                     what="level 2 taken in at both tables, mid-hand")
        t.play({"l1": None, "l2": None})
        l1, l2 = t["l1"].records, t["l2"].records
        assert {h: r["level"] for h, r in l1.items()} == {1: 1, 2: 2}  # the hand under way kept level 1
        assert l2[1]["misdeal"] is True and l2[1]["level"] == 1
        assert l2[2]["redeal_of"] == 1 and l2[2]["level"] == 1  # the re-deal: the old level (MISD-014)
        assert l2[3]["level"] == 2 and not l2[3].get("redeal_of")
        # "new level" said at the first deal of each level: at the re-deal's next hand, not the re-deal
        assert [(p["count"], p["hand"]) for p in said(t["l1"], "flow.new_level")] == [(1, 1), (2, 2)]
        assert [(p["count"], p["hand"]) for p in said(t["l2"], "flow.new_level")] == [(1, 1), (2, 3)]
    # the floor keeps the levels the records carry
    assert wait_for(lambda: floor_levels(maria, "l2") == {1: 1, 2: 1, 3: 2}, 10, poll=0.1), floor_levels(maria, "l2")
    assert floor_levels(maria, "l1") == {1: 1, 2: 2}


def test_the_player_clock_called_by_the_floor_runs_out_and_the_dead_hand_is_expected_in_the_muck(
        room: Room, tmp_path: Path) -> None:
    maria = Floor(room.floor)
    # seat 4 (7c, 9c) dies on the clock; its cards go to the muck, then 7c comes back to the seat
    steps = CLEAN[:10] + [{"muck": "seat:4"}, {"move": "7c", "to": "seat:4"}, {"move": "7c", "to": "muck"}] \
        + CLEAN[10:]
    with room.tables(tmp_path / "room", {"c1": script(steps)}) as t:
        c1 = t["c1"]
        t.play({"c1": (1, 10)})  # the hole cards out
        maria.ok(tournament="clock", action="clock", room=ROOM, table="c1", seat=4)
        t.wait_until(lambda: "flow.clock" in c1.prompts, what="the clock called at c1")
        t.wait_until(lambda: rows(maria, "clock").get("c1", {}).get("clock") == {"seat": 4, "n": 1},
                     what="the board's last call at c1")
        c1.pass_time(31)  # 31 s of the table's simulated time
        t.wait_until(lambda: "flow.clock_dead" in c1.prompts, what="seat 4 dead at c1")
        assert [(p["count"], p["seat"]) for p in said(c1, "flow.clock")] == [
            (n, 4) for n in (30, 20, 10, 5, 4, 3, 2, 1)]
        [dead] = said(c1, "flow.clock_dead")
        assert dead["seat"] == 4 and "dead" in dead["message"]
        t.play({"c1": (1, 11)})  # its cards to the muck: as expected
        assert "flow.dead_hand_back" not in c1.alerts
        t.play({"c1": (1, 12)})  # one of them back at the seat
        t.wait_until(lambda: floor_alerts(maria, "flow.dead_hand_back"), what="the dead hand's alert at the floor")
        [alert] = floor_alerts(maria, "flow.dead_hand_back")
        assert (alert["table"], alert["seat"], alert["hand"], alert["rule"], alert["card"]) == (
            "c1", 4, 1, "FLOW-004", "7c")
        t.play({"c1": None})
        assert c1.alerts.count("flow.dead_hand_back") == 1
