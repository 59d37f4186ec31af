"""The floor's store (controller/floor/store.py): dedupe by (table, topic, seq), a gap
asks for a replay, the hand chain checked, alerts and their acknowledgements, the file 0600."""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat

import pytest

from controller.floor.rules import MEANINGS, meaning
from controller.floor.store import NOTE_UNREAD, SCHEMA_VERSION, Ask, Store
from rig.paths import ROOT

T = "tablectl/main/t7/"


def msg(**body: object) -> bytes:
    return json.dumps(body).encode()


def alert(seq: int, card: str = "7h") -> bytes:
    return msg(type="Alert", seq=seq, ts=100.0 + seq, hand=3, seat=2, rule="DECK-006", code="deck.foreign_card",
               card=card, message=f"{card} is not of this deck", audience="floor")


def hand(seq: int, prev: str, *, record: dict | None = None) -> dict:
    """A hands message as docs/room.md describes it, hashed here (SHA-256 of the JSON with sorted
    keys and no spaces, without ``hash``), not by the module under test."""
    body = {"type": "HandFinished", "hand": seq, "ts": 50.0 + seq, "record": record or {"hand": seq},
            "seq": seq, "prev": prev}
    body["hash"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    return body


def test_the_database_is_private_and_a_redelivery_is_kept_once(tmp_path):
    st = Store(tmp_path / "floor.db")
    assert stat.S_IMODE(os.stat(tmp_path / "floor.db").st_mode) == 0o600
    assert st.ingest(T + "events/floor", alert(1)).kind == "alert"
    again = st.ingest(T + "events/floor", alert(1))
    assert again.kind == "duplicate" and again.gap is None
    assert [a["seq"] for a in st.alerts()] == [1]
    # the same seq on another table or another topic is another message
    assert st.ingest("tablectl/main/t8/events/floor", alert(1)).kind == "alert"
    assert st.ingest(T + "events/dealer", msg(type="Prompt", seq=1, ts=1.0, code="stub.count_due")).kind == "other"
    assert len(st.alerts()) == 2


def test_a_gap_asks_for_a_replay_once_and_closes_when_filled(tmp_path):
    now = [1000.0]
    st = Store(tmp_path / "floor.db", clock=lambda: now[0])
    assert st.ingest(T + "events/floor", alert(1)).gap is None
    assert st.ingest(T + "events/floor", alert(4)).gap == Ask("events/floor", 2, 3)  # (2 and 3 missing)
    assert st.ingest(T + "events/floor", alert(5)).gap is None  # (asked already, a replay is on its way)
    now[0] += 11
    assert st.ingest(T + "events/floor", alert(6)).gap is None  # (again on its schedule: due_gaps)
    assert st.due_gaps() == [("main", "t7", Ask("events/floor", 2, 3))]
    st.ingest(T + "events/floor", alert(2))
    assert st.ingest(T + "events/floor", alert(3)).gap is None
    now[0] += 11
    assert st.ingest(T + "events/floor", alert(7)).gap is None and st.due_gaps() == []
    # the floor service started late: the first message it sees is seq 40 -> replay of 1 to 39
    assert st.ingest("tablectl/main/t9/hands", json.dumps(hand(40, "a" * 64)).encode()).gap == Ask("hands", 1, 39)
    # the table's answer says its outbox starts at 38: the gap closes there (the answer to a replay
    # this floor asked for; another "answer" closes nothing)
    st.ingest("tablectl/main/t9/cmd/reply", msg(ok=True, id="forged", cmd="replay", topic="hands", sent=3,
                                                first=38, last=40, compacted_before=38))
    now[0] += 10
    assert st.due_gaps() == [("main", "t9", Ask("hands", 1, 39))]
    st.command_sent("x", "main", "t9", "floor:service", {"cmd": "replay", "topic": "hands", "from": 1, "to": 39,
                                                         "epoch": "0"})
    got = st.ingest("tablectl/main/t9/cmd/reply", msg(ok=True, id="x", cmd="replay", topic="hands", sent=2,
                                                      first=38, last=39, compacted_before=38))
    assert got.closed == [("hands", "37 messages lost: the table no longer has them")]
    st.ingest("tablectl/main/t9/hands", json.dumps(hand(38, "b" * 64)).encode())
    now[0] += 41
    assert st.ingest("tablectl/main/t9/hands", json.dumps(hand(39, "c" * 64)).encode()).gap is None
    assert st.due_gaps() == []


def test_the_hand_chain_is_checked_and_a_break_is_flagged(tmp_path):
    st = Store(tmp_path / "floor.db")
    h1 = hand(1, "0" * 64)
    h2 = hand(2, h1["hash"])
    h3 = hand(3, h2["hash"])
    for h in (h1, h3, h2):  # (out of order: the link is checked from either side)
        assert st.ingest(T + "hands", json.dumps(h).encode()).breaks == []
    assert st.chain_breaks("main", "t7") == []
    # a record changed after the fact
    h4 = hand(4, h3["hash"])
    h4["record"] = {"hand": 4, "seat:1": ["As", "Ks"]}
    assert "does not match its content" in st.ingest(T + "hands", json.dumps(h4).encode()).breaks[0]
    # one removed: seq 6 names a prev that is not seq 5's hash
    h5 = hand(5, "d" * 64)
    h6 = hand(6, "e" * 64)
    st.ingest(T + "hands", json.dumps(h5).encode())
    assert any("prev is not the hash" in p for p in st.ingest(T + "hands", json.dumps(h6).encode()).breaks)
    assert len(st.chain_breaks("main", "t7")) >= 3
    assert st.tables() == []  # (no state yet: no tile)
    st.ingest(T + "state", msg(online=True, room="main", table="t7", hand=6))
    assert st.tables()[0]["chain_breaks"] >= 3


def test_an_ack_marks_the_alert_and_the_open_count(tmp_path):
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "events/floor", alert(1))
    st.ingest(T + "events/floor", alert(2))
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    assert st.tables()[0]["open_alerts"] == 2
    st.command_sent("c-1", "main", "t7", "floor:maria", {"user": "floor:maria", "cmd": "ack", "seq": 1})
    st.ingest(T + "events/floor", msg(type="Ack", seq=3, ts=200.0, ack_seq=1, code="deck.foreign_card",
                                      user="floor:maria", command="c-1"))
    got = {a["seq"]: a for a in st.alerts()}
    assert (got[1]["acked_by"], got[1]["acked_at"]) == ("floor:maria", 200.0)
    assert got[2]["acked_by"] is None
    assert st.tables()[0]["open_alerts"] == 1
    # the broker's will: offline, the last hand and game still shown
    st.ingest(T + "state", msg(online=True, room="main", table="t7", hand=14, game="holdem"))
    st.ingest(T + "state", msg(online=False, room="main", table="t7"))
    tile = st.tables()[0]
    assert (tile["online"], tile["hand"], tile["game"]) == (False, 14, "holdem")


def test_an_ack_is_a_floor_users_only_when_this_floor_sent_its_command(tmp_path):
    """A table's credentials can publish on its own events/floor; what it claims there is not
    the floor's history. An Ack counts only as the confirmation of an ``ack`` command this floor
    sent (its id, its table, its alert), under the user the floor's own record names."""
    st = Store(tmp_path / "floor.db")
    for seq in (1, 2, 3):
        st.ingest(T + "events/floor", alert(seq))
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    st.command_sent("c-9", "main", "t7", "floor:ana", {"user": "floor:ana", "cmd": "ack", "seq": 2})
    forged = [msg(type="Ack", seq=4, ts=1.0, ack_seq=1, user="floor:maria", command="never-sent"),  # no command
              msg(type="Ack", seq=5, ts=1.0, ack_seq=1, user="floor:maria", command="c-9"),  # another alert's
              msg(type="Ack", seq=6, ts=1.0, ack_seq=3, user="floor:maria")]  # no command at all
    kinds = [st.ingest(T + "events/floor", m).kind for m in forged]
    assert kinds == ["suspect"] * 3
    got = st.ingest(T + "events/floor", msg(type="Ack", seq=7, ts=5.0, ack_seq=2, user="floor:maria", command="c-9"))
    assert got.kind == "ack"
    acked = {a["seq"]: a["acked_by"] for a in st.alerts()}
    assert acked == {1: None, 2: "floor:ana", 3: None}  # the floor's record names the user, not the table
    tile = st.tables()[0]
    assert (tile["open_alerts"], tile["suspects"]) == (2, 3)


def test_a_command_unanswered_fails_after_its_time_or_waits_queued_while_its_table_is_offline(tmp_path):
    now = [1000.0]
    st = Store(tmp_path / "floor.db", clock=lambda: now[0])
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    st.ingest("tablectl/main/t8/state", msg(online=False, room="main", table="t8"))
    st.command_sent("a", "main", "t7", "floor:ana", {"cmd": "setup", "seats": [1, 2]})
    st.command_sent("b", "main", "t8", "floor:ana", {"cmd": "setup", "seats": [1, 2]})
    st.command_sent("c", "main", "t7", "floor:ana", {"cmd": "setup", "seats": [1, 2]})
    st.ingest(T + "cmd/reply", msg(ok=True, id="c", cmd="setup"))
    now[0] += 9.0
    assert st.expire_commands() == []
    now[0] += 2.0
    assert sorted(st.expire_commands()) == ["a", "b"]
    assert [(st.command(i)["status"], st.command(i)["reason"]) for i in "abc"] == [
        ("failed", "no answer from the table within 10 s"), ("queued", "queued: table offline"), ("confirmed", None)]
    st.ingest("tablectl/main/t8/cmd/reply", msg(ok=False, id="b", error="setup: seat 11 is not a seat"))
    assert (st.command("b")["status"], st.command("b")["reason"]) == (
        "refused", "refused by the table: setup: seat 11 is not a seat")
    assert st.expire_commands() == []


def test_a_refusal_naming_no_command_is_noted_on_the_tables_waiting_commands_and_decides_none(tmp_path):
    """A table of the release before issue 38 refuses a request it cannot read with ``"id": null``.
    Which command it was cannot be known (the floor's own pass the table's checks before they go):
    no command is marked refused; each of that table's commands still waiting (not the service's
    replays, not another table's) fails at its timeout with the note, and an answer naming a
    command still decides it."""
    now = [1000.0]
    st = Store(tmp_path / "floor.db", clock=lambda: now[0])
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    st.ingest("tablectl/main/t8/state", msg(online=True, room="main", table="t8"))
    setup = {"cmd": "setup", "seats": [1, 2]}
    st.command_sent("a", "main", "t7", "floor:ana", setup)
    st.command_sent("b", "main", "t8", "floor:ana", setup)
    st.command_sent("c", "main", "t7", "floor:ana", setup)
    st.command_sent("r", "main", "t7", "floor:service", {"cmd": "replay", "topic": "hands", "from": 3})
    why = "not a request: a number of more than 20 digits"
    got = st.ingest(T + "cmd/reply", msg(ok=False, id=None, error=why))
    assert got.kind == "reply"
    st.ingest(T + "cmd/reply", msg(ok=False, error="not a request: not JSON"))  # (the first kept)
    assert [st.command(i)["status"] for i in "abcr"] == ["sent"] * 4
    st.ingest(T + "cmd/reply", msg(ok=True, id="c", cmd="setup"))  # (its own answer decides)
    now[0] += 11.0
    assert sorted(st.expire_commands()) == ["a", "b"]
    assert [(st.command(i)["status"], st.command(i)["reason"]) for i in "abc"] == [
        ("failed", f"no answer from the table within 10 s; {NOTE_UNREAD}: {why}"),
        ("failed", "no answer from the table within 10 s"), ("confirmed", None)]
    assert st.command("r")["reason"] is None


def test_a_database_of_the_last_release_migrates_in_place(tmp_path):
    """Version 0 (no schema version; commands without a status): opened, its rows kept, its
    answered commands confirmed or refused."""
    import sqlite3

    path = tmp_path / "floor.db"
    db = sqlite3.connect(path)
    db.executescript("""CREATE TABLE commands (id TEXT PRIMARY KEY, room TEXT, tbl TEXT, user TEXT, body TEXT,
                        sent REAL, reply TEXT, replied REAL);
                        CREATE TABLE alerts (room TEXT, tbl TEXT, seq INTEGER, ts REAL, hand INTEGER, seat INTEGER,
                        rule TEXT, code TEXT, card TEXT, message TEXT, PRIMARY KEY (room, tbl, seq));""")
    db.execute("INSERT INTO commands VALUES ('x', 'main', 't7', 'floor:ana', '{}', 1.0, '{\"ok\": true}', 2.0)")
    db.execute("INSERT INTO commands VALUES ('y', 'main', 't7', 'floor:ana', '{}', 1.0, NULL, NULL)")
    db.execute("INSERT INTO alerts VALUES ('main', 't7', 1, 1.0, 2, 3, 'DECK-006', 'deck.foreign_card', '7h', 'm')")
    db.commit()
    db.close()
    st = Store(path)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] >= 1
    assert (st.command("x")["status"], st.command("y")["status"]) == ("confirmed", "sent")
    assert st.alerts()[0]["dealer"] is None and st.alerts()[0]["card"] == "7h"


def test_bad_messages_are_refused_and_counted_without_a_traceback(tmp_path):
    st = Store(tmp_path / "floor.db")
    kinds = [st.ingest(topic, payload).kind for topic, payload in [
        (T + "events/floor", b"\xff"), (T + "events/floor", b"[1]"),
        (T + "events/floor", msg(type="Alert", seq="1")), ("other/x", b"{}"),
        (T + "hands", msg(seq=1, hash=5, record=1)),
        (T + "hands", b'{"type": "HandFinished", "seq": 2, "hash": "x", "record": {"a": NaN}}')]]
    assert kinds == ["suspect", "suspect", "suspect", "ignored", "suspect", "suspect"]  # (other/x: no table's)
    assert st.alerts() == []
    # (a hand whose hash is no hash fails the schema: kept out of the records, counted and said)
    assert st.db.execute("SELECT count(*) FROM hands").fetchone()[0] == 0
    problems = [r[0] for r in st.db.execute("SELECT problem FROM suspects ORDER BY id")]
    assert problems == ["events/floor: not UTF-8 text (byte 0)", "events/floor: not a JSON object (a list)",
                        "events/floor: ts: missing", "hands seq 1: type: want one of HandFinished on hands",
                        "hands: not JSON the floor takes (NaN is not JSON)"]


def test_a_table_speaks_only_for_itself_in_its_own_fields(tmp_path):
    """Every field checked against its schema (bounded numbers, codes, seats), and a message on a
    table's topic that speaks for another table: counted, said, kept out of the records."""
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "state", msg(online=True, room="main", table="t7", hand=3))
    bad = [(T + "state", msg(online=True, room="main", table="t8", hand=99)),
           (T + "state", msg(online=True, room="main", table="t7", seats=[1, 1, 2])),
           (T + "state", msg(online=True, room="main", table="t7", button=11)),
           (T + "events/floor", msg(**{**json.loads(alert(1)), "seat": 40})),
           (T + "events/floor", msg(**{**json.loads(alert(2)), "hand": 10 ** 30})),
           (T + "events/floor", msg(**{**json.loads(alert(3)), "code": "<img src=x>"})),
           (T + "events/floor", msg(**{**json.loads(alert(4)), "ts": -5})),
           (T + "events/floor", msg(**{**json.loads(alert(5)), "type": "HandFinished"})),
           (T + "events/dealer", msg(type="Ack", seq=1, ts=1.0, ack_seq=1, command="c"))]
    kinds = [st.ingest(topic, payload).kind for topic, payload in bad]
    assert kinds == ["suspect"] * len(bad)
    assert st.alerts() == [] and st.tables()[0]["hand"] == 3  # the state as the table last said it
    assert st.tables()[0]["suspects"] == len(bad)
    assert st.ingest(T + "events/floor", alert(6)).kind == "alert"


def test_every_rule_id_an_alert_can_carry_has_a_meaning():
    """Every rule id the core can put in an alert (a string literal in controller/core/) and every id
    docs/rules.md lists is in the shipped table."""
    ids = set()
    for path in (p for pkg in ("controller", "firmware_bridge", "hw_sim") for p in (ROOT / pkg).rglob("*.py")):
        if "floor" not in path.parts:
            ids |= set(re.findall(r"[\"']([A-Z]+-\d{3})[\"']", path.read_text()))
    ids |= set(re.findall(r"^\| ([A-Z]+-\d{3}) \|", (ROOT / "docs/rules.md").read_text(), re.M))
    assert len(ids) > 30
    missing = sorted(i for i in ids if not meaning(i))
    assert missing == []
    assert MEANINGS["DECK-006"] == "No foreign cards (uniform backs)"


def test_the_hands_search(tmp_path):
    st = Store(tmp_path / "floor.db")
    recs = [{"hand": 1, "game": "holdem", "zones": {"seat:1": ["As", "Kd"], "board": ["2c", "3c", "4c"]},
             "alerts": [], "stub_count": 40},
            {"hand": 2, "game": "holdem", "zones": {"seat:2": ["Ah#2", "Qs"]}, "stub_count": 38,
             "alerts": [{"rule": "DECK-007", "code": "deck.duplicate_card", "card": "Ah"}]},
            {"hand": 3, "game": "omaha", "zones": {"seat:3": ["Jc", "Tc", "9c", "8c"]}, "alerts": [],
             "stub_count": 36}]
    prev = "0" * 64
    for i, r in enumerate(recs, 1):
        h = hand(i, prev, record=r)
        h["ts"] = 1000.0 * i
        h["hash"] = hashlib.sha256(json.dumps({k: v for k, v in h.items() if k != "hash"}, sort_keys=True,
                                              separators=(",", ":")).encode()).hexdigest()
        prev = h["hash"]
        st.ingest(("tablectl/main/t8/" if i == 3 else T) + "hands", json.dumps(h).encode())

    def found(**q: object) -> list[tuple[str, int]]:
        return [(h["table"], h["hand"]) for h in st.search_hands(**q)["hands"]]  # type: ignore[arg-type]

    assert found() == [("t8", 3), ("t7", 2), ("t7", 1)]
    assert found(table="t7") == [("t7", 2), ("t7", 1)] and found(table="main/t8") == [("t8", 3)]
    assert found(table="other/t7") == []
    assert found(card="As") == [("t7", 1)]
    assert found(card="Ah") == [("t7", 2)]  # (a clone "Ah#2" and the alert's card)
    with pytest.raises(ValueError, match="not a card"):  # a card is a whole card, not a letter of one
        found(card="A")
    assert found(alert="DECK-007") == [("t7", 2)] and found(alert="deck.duplicate") == [("t7", 2)]
    assert found(hand=3) == [("t8", 3)]
    assert found(since=1500.0, until=2500.0) == [("t7", 2)]
    one = st.hand("main", "t7", 2)
    assert one is not None and one["record"]["zones"]["seat:2"] == ["Ah#2", "Qs"] and one["chain_problems"] == []
    assert st.hand("main", "t7", 9) is None


def test_the_hands_search_pages_with_a_count_and_takes_a_card_in_any_case(tmp_path):
    """Issue 29: pages of 50 over 120 hands (on two tables, four at a time finishing at the same
    second) give each hand once, newest first, with the count of them all; a card is found
    whatever its case, and what is not a card is refused."""
    st = Store(tmp_path / "floor.db")
    prev = {"t7": "0" * 64, "t8": "0" * 64}
    seqs = {"t7": 0, "t8": 0}
    with_ah = set()
    for i in range(1, 121):
        tbl = "t7" if i % 2 else "t8"
        seqs[tbl] += 1
        cards = ["7c", "8d"]
        if i % 10 == 0:  # the ace of hearts, itself, a clone of it or another deck's
            cards = [["Ah", "Kd"], ["Ah#2", "Kd"], ["Ah@B", "Kd"]][i // 10 % 3]
            with_ah.add((tbl, seqs[tbl]))
        record = {"hand": i, "game": "holdem", "zones": {"seat:1": cards}, "stub_count": 30,
                  "alerts": [{"code": "floor.note", "message": "ah"}] if i == 7 else []}  # (not a card)
        h = hand(seqs[tbl], prev[tbl], record=record)
        h["ts"] = 1000.0 + i // 4  # (four hands a second: the order's ties broken by seq and table)
        h["hash"] = hashlib.sha256(json.dumps({k: v for k, v in h.items() if k != "hash"}, sort_keys=True,
                                              separators=(",", ":")).encode()).hexdigest()
        prev[tbl] = h["hash"]
        assert st.ingest(f"tablectl/main/{tbl}/hands", json.dumps(h).encode()).kind != "duplicate"

    pages = [st.search_hands(limit=50, offset=o) for o in (0, 50, 100, 150)]
    assert [(p["total"], p["offset"], p["limit"], len(p["hands"])) for p in pages] == [
        (120, 0, 50, 50), (120, 50, 50, 50), (120, 100, 50, 20), (120, 150, 50, 0)]
    seen = [(h["ts"], h["seq"], h["table"]) for p in pages for h in p["hands"]]
    assert len(set(seen)) == 120  # each hand once: no page repeats or skips one
    assert seen == sorted(seen, reverse=True)  # newest first, then seq, then table
    assert st.search_hands()["limit"] == 50 and len(st.search_hands()["hands"]) == 50  # (the default page)

    def ah(spelt: str) -> set[tuple[str, int]]:
        found = st.search_hands(card=spelt, limit=200)
        assert found["total"] == len(found["hands"])
        return {(h["table"], h["seq"]) for h in found["hands"]}

    assert len(with_ah) == 12 and ah("Ah") == with_ah  # (itself, its clones, another deck's)
    assert ah("ah") == ah("AH") == ah("aH") == ah(" Ah ") == with_ah  # (never hand 7's alert text "ah")
    assert st.search_hands(card="ah", limit=5, offset=10) == {"hands": st.search_hands(card="Ah")["hands"][10:],
                                                              "total": 12, "offset": 10, "limit": 5}
    assert ah("kd") == with_ah and ah("7C") == ah("8d") and len(ah("8D")) == 108
    assert ah("10c") == ah("Tc") == set()  # (ten written either way)
    for bad in ("A", "h", "Zz", "1h", "Ahh", "Ah#2", "Ax", '"Ah"'):
        with pytest.raises(ValueError, match="not a card"):
            st.search_hands(card=bad)


def test_hands_and_alerts_are_the_dealers_their_table_names(tmp_path):
    """RELIEF-003: the table names the dealer in each hand record and each alert; the floor keeps
    and searches what the table said (never a dealer of its own guessing)."""
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "state", msg(online=True, room="main", table="t7", dealer="Bo Chen", dealer_next="Cy Diaz"))
    prev = "0" * 64
    for i, who in enumerate((None, "Ann Lee", "Bo Chen"), 1):
        h = hand(i, prev, record={"hand": i, **({"dealer": who} if who else {})})
        prev = h["hash"]
        st.ingest(T + "hands", json.dumps(h).encode())
    assert [(h["hand"], h["dealer"]) for h in st.search_hands()["hands"]] == [(3, "Bo Chen"), (2, "Ann Lee"), (1, None)]
    assert [h["hand"] for h in st.search_hands(dealer="Ann Lee")["hands"]] == [2]
    assert st.search_hands(dealer="Cy Diaz")["hands"] == []
    assert st.hand("main", "t7", 3)["dealer"] == "Bo Chen"  # type: ignore[index]
    st.ingest(T + "events/floor", json.dumps({"type": "Alert", "seq": 1, "ts": 1999.0, "code": "deck.x",
                                              "dealer": "Ann Lee"}).encode())
    st.ingest(T + "events/floor", json.dumps({"type": "Alert", "seq": 2, "ts": 2000.0, "code": "deck.y"}).encode())
    assert [(a["code"], a["dealer"]) for a in st.alerts()] == [("deck.y", None), ("deck.x", "Ann Lee")]
    assert [a["seq"] for a in st.alerts(dealer="Ann Lee")] == [1] and st.alerts(dealer="Bo Chen") == []
    assert (st.tables()[0]["dealer"], st.tables()[0]["dealer_next"]) == ("Bo Chen", "Cy Diaz")


def test_a_database_of_the_first_release_gets_its_alerts_dealer_column(tmp_path):
    import sqlite3

    db = sqlite3.connect(tmp_path / "floor.db")
    db.execute("CREATE TABLE alerts (room TEXT, tbl TEXT, seq INTEGER, ts REAL, hand INTEGER, seat INTEGER, "
               "rule TEXT, code TEXT, card TEXT, message TEXT, PRIMARY KEY (room, tbl, seq))")
    db.execute("INSERT INTO alerts VALUES ('main', 't7', 1, 5.0, 3, 2, 'DECK-006', 'deck.x', '7h', 'm')")
    db.commit()
    db.close()
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "events/floor", json.dumps({"type": "Alert", "seq": 2, "ts": 6.0, "code": "deck.y",
                                              "dealer": "Ann Lee"}).encode())
    assert [(a["seq"], a["dealer"]) for a in st.alerts()] == [(2, "Ann Lee"), (1, None)]


def test_nan_and_deep_nesting_from_the_broker_are_refused_and_the_room_still_reads(tmp_path):
    """NaN is not JSON (no browser parses it back) and no table nests 1,000 deep: such a message
    is refused (counted on the tile), never stored to fail later when the room is read."""
    st = Store(tmp_path / "floor.db")
    assert st.ingest(T + "state", msg(online=True, game="holdem", hand=4)).kind == "state"
    assert st.ingest(T + "state", b'{"online": true, "game": "holdem", "hand": NaN}').kind == "suspect"
    deep = b'{"online": true, "game": ' + b"[" * 980 + b"]" * 980 + b"}"
    assert st.ingest(T + "state", deep).kind == "suspect"
    assert st.ingest(T + "events/floor", b'{"seq": 1, "type": "Alert", "ts": Infinity}').kind == "suspect"
    tiles = st.tables()
    assert [(t["game"], t["hand"], t["suspects"]) for t in tiles] == [("holdem", 4, 3)]
    json.dumps(tiles, allow_nan=False)  # (what the page receives is JSON)


def test_a_journal_that_starts_over_loses_no_alert_and_its_tile_says_so(tmp_path):
    """The same table, a fresh journal (a new SD card): its seq start from 1 again under a new
    epoch. Both journals' alerts are kept and shown; only the current journal's gaps are asked."""
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))  # (a release before epochs: "0")
    for seq in (1, 2, 3):
        st.ingest(T + "events/floor", alert(seq, "7h"))
    st.ingest(T + "state", msg(online=True, room="main", table="t7", epoch="e0a1b2c3d4e5f"))
    got = [st.ingest(T + "events/floor", msg(**json.loads(alert(seq, "9c")), epoch="e0a1b2c3d4e5f")).kind
           for seq in (1, 2)]
    assert got == ["alert", "alert"]  # (seq 1 and 2 again: not duplicates, another journal's)
    shown = sorted((a["epoch"], a["seq"], a["card"]) for a in st.alerts())
    assert shown == [("0", 1, "7h"), ("0", 2, "7h"), ("0", 3, "7h"), ("e0a1b2c3d4e5f", 1, "9c"),
                     ("e0a1b2c3d4e5f", 2, "9c")]
    tile = st.tables()[0]
    assert (tile["epoch"], tile["started_over"], tile["open_alerts"]) == ("e0a1b2c3d4e5f", 1, 5)
    # a gap in the old journal is never asked (it is gone: noted lost); one in the new one is
    old = st.ingest(T + "events/floor", alert(9))
    assert old.gap is None and old.closed == [("events/floor", "5 messages lost: an earlier journal")]
    new = st.ingest(T + "events/floor", msg(**json.loads(alert(5)), epoch="e0a1b2c3d4e5f"))
    assert new.gap == Ask("events/floor", 3, 4)
    assert st.tables()[0]["lost"] == [{"n": 5, "why": "an earlier journal", "note": "5 messages lost: an earlier "
                                       "journal"}]


def test_a_seq_far_ahead_is_flagged_once_and_never_asked_for(tmp_path):
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    st.ingest(T + "events/floor", alert(1))
    far = [st.ingest(T + "events/floor", alert(10 ** 9)) for _ in range(3)]
    assert [g.kind for g in far] == ["suspect", "ignored", "ignored"]
    assert all(g.gap is None for g in far) and st.due_gaps() == []
    assert "more than 10,000 ahead of the last seen (1)" in far[0].breaks[0]
    assert st.tables()[0]["suspects"] == 1 and [a["seq"] for a in st.alerts()] == [1]
    assert st.ingest(T + "events/floor", alert(2)).kind == "alert"  # the table's next real alert still lands


def test_with_the_tables_key_an_unsigned_alert_is_kept_out_and_an_unsigned_hand_flagged(tmp_path):
    from controller.room.signing import Signer, new_key_pair

    private, public = new_key_pair()
    signer = Signer(bytes.fromhex(private))
    st = Store(tmp_path / "floor.db", keys={"main/t7": public})
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))

    def signed(body: bytes) -> bytes:
        b = json.loads(body)
        return json.dumps({**b, "sig": signer.sign(b, "main/t7/events/floor")}).encode()

    assert st.ingest(T + "events/floor", signed(alert(1))).kind == "alert"
    assert st.ingest(T + "events/floor", alert(2)).kind == "suspect"  # no signature
    forged = json.loads(signed(alert(3)))
    forged["card"] = "As"  # changed after signing
    assert st.ingest(T + "events/floor", json.dumps(forged).encode()).kind == "suspect"
    assert [a["seq"] for a in st.alerts()] == [1]
    first = hand(1, "0" * 64)
    assert st.ingest(T + "hands", json.dumps({**first, "sig": signer.sign(first, "main/t7/hands")}).encode()).breaks \
        == []
    second = hand(2, first["hash"])  # a valid chain, no signature
    got = st.ingest(T + "hands", json.dumps(second).encode())
    assert (got.kind, got.breaks) == ("suspect", ["hands seq 2: no signature: not the table's record, kept out"])
    assert st.hand("main", "t7", 2) is None and st.hand("main", "t7", 1)["chain_problems"] == []
    # the table's own record with that seq still lands (the forgery took no place)
    assert st.ingest(T + "hands", json.dumps({**second, "sig": signer.sign(second, "main/t7/hands")}).encode()).kind \
        == "hand"
    assert st.hand("main", "t7", 2)["chain_problems"] == []
    # signed for another topic (an events/dealer alert re-sent on events/floor): not the table's there
    moved = json.loads(alert(7))
    assert st.ingest(T + "events/floor", json.dumps({**moved, "sig": signer.sign(moved, "main/t7/events/dealer")})
                     .encode()).kind == "suspect"
    assert st.tables()[0]["suspects"] == 4


def test_under_require_signatures_an_unkeyed_tables_state_is_never_online(tmp_path):
    """require_signatures: a table the floor has no key for could be anyone's invention (its
    state is never signed). Its tile says ``unsigned`` and never online, it is counted as a
    suspect once (not once a state), and no gap of it is asked; a keyed table is online as ever."""
    from controller.room.signing import new_key_pair

    _, public = new_key_pair()
    now = [1000.0]
    st = Store(tmp_path / "floor.db", keys={"main/t7": public}, require_signatures=True, clock=lambda: now[0])
    state = msg(online=True, room="main", table="t9", game="holdem", seats=[1, 2], hand=4)
    first = st.ingest("tablectl/main/t9/state", state)
    assert first.kind == "suspect" and "no key for ([floor.tables])" in first.breaks[0]
    assert [st.ingest("tablectl/main/t9/state", state).kind for _ in range(3)] == ["state"] * 3
    st.ingest("tablectl/main/t9/events/floor", alert(1))
    st.ingest("tablectl/main/t9/events/floor", alert(3))
    first_ask = st.ingest("tablectl/main/t9/events/floor", alert(3)).gap
    now[0] += 3600  # (past every gap's schedule: an open one would be due)
    assert first_ask is None and st.ingest("tablectl/main/t9/state", state).regaps == [] and st.due_gaps() == []
    (t9,) = st.tables("main", "t9")
    assert t9["online"] is False and t9["unsigned"] is True and t9["game"] == "holdem"
    assert t9["suspects"] == 3  # the state once, and each unsigned alert
    assert st.offline("main", "t9")
    st.ingest(T + "state", msg(online=True, room="main", table="t7"))
    (t7,) = st.tables("main", "t7")
    assert t7["online"] is True and "unsigned" not in t7 and t7["suspects"] == 0
    # without require_signatures, an unkeyed table is taken at its word, as before
    lax = Store(tmp_path / "lax.db", keys={"main/t7": public})
    assert lax.ingest("tablectl/main/t9/state", state).kind == "state"
    assert lax.tables("main", "t9")[0]["online"] is True


def test_the_tables_come_in_their_numbers_order(tmp_path):
    """t1, t2 ... t10, as a room numbers its tables (not t1, t10, t11 ... t2), room by room."""
    st = Store(tmp_path / "floor.db")
    for name in ("main/t10", "main/t2", "main/t11", "main/t1", "high/h2", "main/t9", "high/h10", "main/t20"):
        room, table = name.split("/")
        st.ingest(f"tablectl/{room}/{table}/state", msg(online=True, room=room, table=table))
    assert [f"{t['room']}/{t['table']}" for t in st.tables()] == [
        "high/h2", "high/h10", "main/t1", "main/t2", "main/t9", "main/t10", "main/t11", "main/t20"]


def call(seq: int, ts: float) -> bytes:
    return msg(type="Alert", seq=seq, ts=ts, hand=3, code="floor.call", message="the dealer calls the floor",
               audience="floor")


def test_a_tile_counts_its_calls_apart_and_its_worst_open_alert(tmp_path):
    """What the board sorts by: open calls, open alerts without the calls, the worst open alert's
    severity (a foul deck 3, a device 2, a procedure 1), none once acknowledged."""
    st = Store(tmp_path / "floor.db")
    st.ingest(T + "state", msg(online=True, room="main", table="t7", seats=[1, 3, 4], button=3))
    st.ingest(T + "events/floor", call(1, 100.0))
    st.ingest(T + "events/floor", call(2, 101.0))
    st.ingest(T + "events/floor", msg(type="Alert", seq=3, ts=102.0, code="burn.missing", rule="BURN-001",
                                      audience="floor"))
    tile = st.tables()[0]
    assert (tile["open_calls"], tile["open_alerts"], tile["severity"]) == (2, 1, 1)
    assert (tile["seats"], tile["button"], tile["retired"]) == ([1, 3, 4], 3, None)
    st.ingest(T + "events/floor", alert(4))
    assert st.tables()[0]["severity"] == 3
    assert st.ack_here("main", "t7", "0", 4, "floor:ana", how="dismissed")
    assert not st.ack_here("main", "t7", "0", 4, "floor:ana", how="dismissed")  # (closed once)
    assert [a["acked_how"] for a in st.alerts() if a["seq"] == 4] == ["dismissed"]
    assert (st.tables()[0]["open_alerts"], st.tables()[0]["severity"]) == (1, 1)
    assert [a["seq"] for a in st.alerts(open_only=True)] == [3, 2, 1]
    assert [a["seq"] for a in st.alerts(closed_only=True)] == [4]
    # retired from the board and back: said on the tile, once each
    assert st.retire("main", "t7", "floor:ana") and not st.retire("main", "t7", "floor:bo")
    assert st.tables()[0]["retired"]["by"] == "floor:ana"
    assert st.restore("main", "t7") and not st.restore("main", "t7")
    assert st.tables()[0]["retired"] is None


def test_the_dealers_incidents_are_kept_for_the_floors_lane(tmp_path):
    """An alert on events/dealer (a misdeal) is an incident: kept with its seat, hand and rule,
    never an alert to acknowledge; a prompt on events/dealer is not an incident."""
    st = Store(tmp_path / "floor.db")
    got = st.ingest(T + "events/dealer", msg(type="Alert", seq=1, ts=100.0, hand=31, seat=4, rule="MISD-006",
                                             code="misdeal.seat_skipped", message="seat 4 was skipped",
                                             audience="dealer"))
    st.ingest(T + "events/dealer", msg(type="Prompt", seq=2, ts=101.0, hand=31, code="stub.count_due",
                                       rule="STUB-001", message="count the stub", audience="dealer"))
    assert got.kind == "incident"
    assert [(i["seq"], i["hand"], i["seat"], i["rule"], i["code"]) for i in st.incidents()] == [
        (1, 31, 4, "MISD-006", "misdeal.seat_skipped")]
    assert st.alerts() == []


def test_a_database_of_schema_2_gets_its_incidents_from_its_messages(tmp_path):
    """Schema 2 kept events/dealer as messages only and its acks without how: opened, the lane
    has the dealer's alerts it had, and each acknowledgement is the table's."""
    path = tmp_path / "floor.db"
    st = Store(path)
    st.ingest(T + "events/dealer", msg(type="Alert", seq=1, ts=100.0, hand=31, seat=4, rule="MISD-006",
                                       code="misdeal.seat_skipped", message="seat 4 was skipped", audience="dealer"))
    st.ingest(T + "events/floor", alert(1))
    st.db.execute("DROP TABLE incidents")
    st.db.execute("ALTER TABLE acks DROP COLUMN how")
    st.db.execute("INSERT INTO acks VALUES ('main', 't7', '0', 1, 'floor:ana', 5.0)")
    st.db.execute("PRAGMA user_version = 2")
    st.close()
    st = Store(path)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 4
    assert [(i["seq"], i["seat"], i["code"]) for i in st.incidents()] == [(1, 4, "misdeal.seat_skipped")]
    assert [(a["acked_by"], a["acked_how"]) for a in st.alerts()] == [("floor:ana", "table")]


def test_a_database_of_schema_3_gets_its_tournaments_and_keeps_the_rest(tmp_path):
    """Schema 4 (issue 32) keeps the tournaments the floor runs: a database of schema 3 opened
    has the table, empty, and everything it held."""
    path = tmp_path / "floor.db"
    st = Store(path)
    st.ingest(T + "events/floor", alert(1))
    st.db.execute("DROP TABLE tournaments")
    st.db.execute("PRAGMA user_version = 3")
    st.close()
    st = Store(path)
    assert st.db.execute("PRAGMA user_version").fetchone()[0] == 4
    assert [a["seq"] for a in st.alerts()] == [1] and st.tournament("main") is None
    st.save_tournament("main", {"h4h": True, "round": 3})
    st.close()
    assert Store(path).tournament("main") == {"h4h": True, "round": 3}


def test_a_seq_no_database_can_hold_on_a_message_its_schema_refuses_is_suspect_not_a_crash(tmp_path):
    """A seq of 2**63 or more (SQLite's integers end below it) on a message that fails its
    topic's schema: kept out and counted as every suspect is, its seq said in the problem's words
    only; the store goes on."""
    st = Store(tmp_path / "floor.db")
    huge = 1 << 63
    got = st.ingest(T + "events/floor", msg(**{**json.loads(alert(1)), "seq": huge, "seat": 40}))
    assert got.kind == "suspect"
    row = st.db.execute("SELECT seq, problem FROM suspects").fetchone()
    assert row[0] is None and f"seq {huge}" in row[1]
    assert st.ingest(T + "events/floor", alert(2)).kind == "alert"
