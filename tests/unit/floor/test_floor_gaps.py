"""Each gap asked for once, then with backoff (issue 38; controller/floor/store.py): a gap is
asked for when it opens and when its table comes back, then at doubling intervals from 10 s up to
5 minutes, never while its table is away; one the table cannot fill is closed with a note on the
tile. The store's clock is injected: nothing here sleeps."""

from __future__ import annotations

import json
from typing import Any

from controller.daemon.room_commands import MAX_REPLAY
from controller.floor.roles import tile_for
from controller.floor.store import REPLAY_MOST, Ask, Store

T = "tablectl/main/t7/"
EPOCH = "e0a1b2c3d4e5f"
NEW_EPOCH = "e99887766aabb"


def msg(**body: object) -> bytes:
    return json.dumps(body).encode()


def alert(seq: int, epoch: str = EPOCH) -> bytes:
    return msg(type="Alert", seq=seq, ts=100.0 + seq, hand=3, seat=2, rule="DECK-006", code="deck.foreign_card",
               card="7h", message="7h is not of this deck", audience="floor", epoch=epoch)


def online(st: Store, up: bool = True, **extra: Any) -> Any:
    return st.ingest(T + "state", msg(online=up, room="main", table="t7", **extra))


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


def store(tmp_path: Any, clock: Clock) -> Store:
    return Store(tmp_path / "floor.db", clock=clock)


def asked_replay(st: Store, cmd_id: str, ask: Ask, epoch: str = EPOCH) -> None:
    """The service's record of a request it sent (controller/floor/app.py, ask_replay)."""
    body = {"cmd": "replay", "topic": ask.topic, "from": ask.start, "epoch": epoch,
            **({"to": ask.to} if ask.to is not None else {})}
    st.command_sent(cmd_id, "main", "t7", "floor:service", body)


def service(tmp_path: Any) -> tuple[Any, list[dict[str, Any]]]:
    """The floor's service itself (controller/floor/app.py) without a broker: what it would
    publish to the tables (its link's commands) noted in the list returned with it, each command
    given the id ``c-N``, N its place in the list."""
    from controller.config.floor import parse_floor_text
    from controller.floor.app import FloorService

    cfg = parse_floor_text(f'[floor]\nbroker = "mqtt://127.0.0.1:1"\ndatabase = "{tmp_path / "floor.db"}"\n',
                           path=tmp_path / "floor.toml")
    svc = FloorService(cfg, link=False)
    sent: list[dict[str, Any]] = []

    class Link:
        def command(self, room: str, table: str, body: dict[str, Any]) -> str:
            sent.append(body)
            return f"c-{len(sent)}"

    svc.link = Link()  # type: ignore[assignment]
    return svc, sent


def test_a_gap_is_asked_when_it_opens_and_not_again_on_each_state(tmp_path):
    """The issue's repro: seq 1, then seq 3, no answer, then 50 states: one request, not 51."""
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    assert st.ingest(T + "events/floor", alert(1)).gap is None
    assert st.ingest(T + "events/floor", alert(3)).gap == Ask("events/floor", 2, 2)
    asks = []
    for n in range(50):
        clock.now += 0.06  # (50 states in 3 s)
        got = online(st, hand=n)
        asks += got.regaps + ([got.gap] if got.gap else [])
        asks += [a for _, _, a in st.due_gaps()]
    assert asks == []
    # nor on each numbered message after it: the gap is the same one
    assert st.ingest(T + "events/floor", alert(4)).gap is None


def test_a_gap_is_asked_again_when_its_table_comes_back_and_never_while_it_is_away(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    assert st.ingest(T + "events/floor", alert(3)).gap is not None
    assert online(st, False).regaps == []
    # away for an hour: the schedule asks nothing of it (a request would wait in its session)
    for _ in range(12):
        clock.now += 300
        assert st.due_gaps() == []
    # a gap that opens while it is away (a message the broker held for the floor) waits too
    assert st.ingest(T + "hands", msg(type="HandFinished", seq=5, hand=5, ts=1.0, record={}, prev="0" * 64,
                                      hash="a" * 64, epoch=EPOCH)).gap is None
    back = online(st)
    assert sorted(back.regaps) == [Ask("events/floor", 2, 2), Ask("hands", 1, 4)]  # once each
    assert online(st).regaps == [] and online(st, hand=9).regaps == []  # (states after it: nothing)
    assert st.due_gaps() == []
    clock.now += 10
    assert sorted(a for _, _, a in st.due_gaps()) == [Ask("events/floor", 2, 2), Ask("hands", 1, 4)]


def test_the_schedule_doubles_from_10_s_up_to_5_minutes(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    opened = clock.now
    assert st.ingest(T + "events/floor", alert(3)).gap is not None
    asked_at = []
    for _ in range(40 * 60):  # (40 minutes, a second at a time, as the service's loop looks)
        clock.now += 1
        if st.due_gaps():
            asked_at.append(clock.now - opened)
    waits = [b - a for a, b in zip([0.0, *asked_at], asked_at, strict=False)]
    assert waits[:7] == [10, 20, 40, 80, 160, 300, 300]
    assert set(waits[5:]) == {300}
    # the table back: asked at once, and the schedule from 10 s again
    online(st, False)
    assert online(st).regaps == [Ask("events/floor", 2, 2)]
    clock.now += 9
    assert st.due_gaps() == []
    clock.now += 1
    assert [a for _, _, a in st.due_gaps()] == [Ask("events/floor", 2, 2)]


def test_after_a_restart_an_open_gap_is_asked_once_when_its_table_is_next_seen_online(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    st.ingest(T + "events/floor", alert(3))
    st.close()
    clock.now += 3600
    st = store(tmp_path, clock)  # (the service started again)
    assert st.due_gaps() == []  # not before its table is seen: it may be away (its will waits for us)
    # a gap opened by what the broker kept for the floor meanwhile waits for the table too
    assert st.ingest(T + "events/floor", alert(6)).gap is None
    assert online(st).regaps == [Ask("events/floor", 2, 2)]  # its retained state, as the floor subscribes
    assert online(st).regaps == []
    clock.now += 10
    assert [a for _, _, a in st.due_gaps()] == [Ask("events/floor", 2, 2)]
    st.ingest(T + "events/floor", alert(2))
    # the first hole filled: the next one (4 and 5) is a new gap, asked at once
    assert st.ingest(T + "events/floor", alert(7)).gap is None
    assert st.due_gaps() == []
    clock.now += 20
    assert [a for _, _, a in st.due_gaps()] == [Ask("events/floor", 4, 5)]


def test_the_gaps_of_a_database_from_before_the_schedule_are_asked_when_their_table_is_seen(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    st.ingest(T + "events/floor", alert(3))
    st.db.execute("DELETE FROM gaps")  # (as a database of the release before: its cursors alone)
    st.close()
    st = store(tmp_path, clock)
    assert online(st).regaps == [Ask("events/floor", 2, 2)]


def test_a_replay_filling_its_gap_asks_nothing_more_and_a_second_hole_is_a_new_gap(tmp_path):
    """The replay's rows arrive one by one: each moves the gap's start, and none is a new gap (the
    code before asked again at each, every row resending the rest)."""
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    for seq in range(40, 46):
        st.ingest(T + "events/floor", alert(seq))
    st.ingest(T + "events/floor", alert(48))
    assert st.ingest(T + "events/floor", alert(50)).gap is None  # (asked at 40: from 2 to 39)
    assert [st.ingest(T + "events/floor", alert(s)).gap for s in range(2, 39)] == [None] * 37
    # the last of the first hole: the next one (46, 47) is beyond what that request brings
    assert st.ingest(T + "events/floor", alert(39)).gap == Ask("events/floor", 46, 47)


def test_a_request_brings_at_most_what_the_table_sends_at_once():
    assert REPLAY_MOST == MAX_REPLAY  # (the floor's notion of what one request can bring is the table's)


def test_an_earlier_journals_gap_is_closed_with_a_note_and_never_asked(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    st.ingest(T + "events/floor", alert(14))  # 2 to 13 missing: 12 messages
    # the table's journal starts over (a reinstalled Pi): its first message of the new one
    got = st.ingest(T + "events/floor", alert(1, NEW_EPOCH))
    assert got.closed == [("events/floor", "12 messages lost: an earlier journal")]
    tile = st.tables()[0]
    assert tile["lost"] == [{"n": 12, "why": "an earlier journal", "note": "12 messages lost: an earlier journal"}]
    assert json.dumps(tile).count("7h") == 0  # (the note names no payload)
    # the floor and the technician see it on the tile (the journal's health); the viewer does not
    assert tile_for("technician", tile)["lost"] == tile_for("floor", tile)["lost"] == tile["lost"]
    assert "lost" not in tile_for("viewer", tile)
    online(st, False)
    assert online(st).regaps == []
    clock.now += 3600
    assert st.due_gaps() == []
    # one of them comes late after all (the broker held it): one fewer lost; a late one that
    # leaves a hole of the earlier journal is closed at once
    assert st.ingest(T + "events/floor", alert(5)).kind == "alert"
    assert st.tables()[0]["lost"][0]["n"] == 11
    late = st.ingest(T + "events/floor", alert(17))
    assert late.gap is None and late.closed == [("events/floor", "2 messages lost: an earlier journal")]
    assert st.tables()[0]["lost"][0]["n"] == 13


def test_a_table_that_says_the_gap_is_of_another_journal_closes_it(tmp_path):
    """The floor asked before it saw the new journal (the table reinstalled while away): the
    table refuses the replay (controller/daemon/room_commands.py, _same_journal)."""
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    ask = st.ingest(T + "events/floor", alert(4)).gap
    st.ingest(T + "hands", msg(type="HandFinished", seq=3, hand=3, ts=1.0, record={}, prev="0" * 64, hash="a" * 64,
                               epoch=EPOCH))
    assert ask is not None
    asked_replay(st, "r-1", ask)
    refused = st.ingest(T + "cmd/reply", msg(ok=False, id="r-1", error=f"replay: epoch '{EPOCH}' is an earlier "
                                             f"journal of this table (this one's is {NEW_EPOCH}): its messages are "
                                             "not here"))
    # every topic's gap of that journal: none of its messages can come
    assert sorted(refused.closed) == [("events/floor", "2 messages lost: an earlier journal"),
                                      ("hands", "2 messages lost: an earlier journal")]
    online(st, False)
    assert online(st).regaps == []
    assert st.tables()[0]["lost"] == [{"n": 4, "why": "an earlier journal", "note": "4 messages lost: an earlier "
                                       "journal"}]


def test_a_table_that_has_no_such_row_closes_the_gap(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    ask = st.ingest(T + "events/floor", alert(9)).gap
    assert ask == Ask("events/floor", 2, 8)
    asked_replay(st, "r-1", ask)
    # a reply to another request closes nothing (only the answer to this floor's own request does)
    forged = msg(ok=True, id="forged", cmd="replay", topic="events/floor", sent=0)
    assert st.ingest(T + "cmd/reply", forged).closed == []
    # the table's outbox starts at 5 (older rows compacted): 2 to 4 are gone, 5 to 8 come
    got = st.ingest(T + "cmd/reply", msg(ok=True, id="r-1", cmd="replay", topic="events/floor", sent=4, first=5,
                                         last=8, compacted_before=5))
    assert got.closed == [("events/floor", "3 messages lost: the table no longer has them")]
    assert [st.ingest(T + "events/floor", alert(s)).gap for s in range(5, 9)] == [None] * 4
    st.ingest(T + "events/floor", alert(12))
    clock.now += 10
    (_, _, again), = st.due_gaps()
    assert again == Ask("events/floor", 10, 11)
    asked_replay(st, "r-2", again)
    # nothing there at all: the hole is closed, the tile says so, nothing more is asked
    got = st.ingest(T + "cmd/reply", msg(ok=True, id="r-2", cmd="replay", topic="events/floor", sent=0))
    assert got.closed == [("events/floor", "2 messages lost: the table no longer has them")]
    assert st.tables()[0]["lost"][0]["note"] == "5 messages lost: the table no longer has them"
    clock.now += 3600
    assert st.due_gaps() == [] and st.ingest(T + "events/floor", alert(13)).gap is None


def test_a_table_that_refuses_a_replay_for_another_reason_closes_the_gap(tmp_path):
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    ask = st.ingest(T + "events/floor", alert(3)).gap
    assert ask is not None
    asked_replay(st, "r-1", ask)
    got = st.ingest(T + "cmd/reply", msg(ok=False, id="r-1", error="replay: the outbox is being salvaged"))
    assert got.closed == [("events/floor", "1 message lost: the table refused the replay")]
    clock.now += 3600
    assert st.due_gaps() == []


def test_a_table_of_a_release_before_to_is_asked_again_without_it(tmp_path):
    """A room upgraded table by table: a table that takes no ``to`` refuses the field; the floor
    asks again at once without it, and never again with it."""
    clock = Clock()
    st = store(tmp_path, clock)
    online(st)
    st.ingest(T + "events/floor", alert(1))
    ask = st.ingest(T + "events/floor", alert(3)).gap
    assert ask == Ask("events/floor", 2, 2)
    asked_replay(st, "r-1", ask)
    got = st.ingest(T + "cmd/reply", msg(ok=False, id="r-1", error="replay: unknown field 'to' (fields: epoch, "
                                         "from, topic)"))
    assert got.closed == [] and got.regaps == [Ask("events/floor", 2, None)]
    clock.now += 10
    assert [a for _, _, a in st.due_gaps()] == [Ask("events/floor", 2, None)]


def test_at_most_one_request_waits_for_a_table_offline(tmp_path):
    """The service itself (controller/floor/app.py): what it publishes to a table that goes away
    with gaps open, stays away for an hour, and comes back."""
    svc, sent = service(tmp_path)
    clock = Clock()
    svc.store.clock = clock

    def tick() -> None:  # (FloorService.gaps_again's turn, without its loop)
        for room, table, ask in svc.store.due_gaps():
            svc.ask_replay(room, table, ask)

    try:
        svc.on_message(T + "state", msg(online=True, room="main", table="t7"))
        svc.on_message(T + "events/floor", alert(1))
        svc.on_message(T + "events/floor", alert(3))
        assert [(c["cmd"], c["from"], c["to"]) for c in sent] == [("replay", 2, 2)]
        svc.on_message(T + "state", msg(online=False, room="main", table="t7"))
        svc.on_message(T + "events/floor", alert(6))  # (the broker held it for the floor)
        for _ in range(3600):
            clock.now += 1
            tick()
        assert len(sent) == 1  # the one sent while it was online, and nothing since
        svc.on_message(T + "state", msg(online=True, room="main", table="t7"))
        assert [(c["from"], c["to"]) for c in sent[1:]] == [(2, 2)]  # back: its gap once
        for n in range(20):
            svc.on_message(T + "state", msg(online=True, room="main", table="t7", hand=n))
        assert len(sent) == 2
    finally:
        svc.hashers.shutdown(wait=False)
        svc.store.close()


def test_a_gap_closed_by_the_tables_answer_shows_on_the_room_at_once(tmp_path):
    """The service's room (what /api/room and a page connecting get, kept between requests): the
    tile read before the answer came says nothing lost; the answer that closes the gap (the
    table has nothing there) makes the next read say it, to the floor, not to a viewer."""
    svc, sent = service(tmp_path)

    def lost(role: str) -> Any:
        (tile,) = [t for t in svc.snapshot(role)["tiles"] if t["table"] == "t7"]
        return tile.get("lost")

    try:
        svc.on_message(T + "state", msg(online=True, room="main", table="t7"))
        svc.on_message(T + "events/floor", alert(1))
        svc.on_message(T + "events/floor", alert(4))
        assert [(c["from"], c["to"]) for c in sent] == [(2, 3)]
        assert not lost("floor")  # (read, and kept)
        svc.on_message(T + "cmd/reply", msg(ok=True, id="c-1", cmd="replay", topic="events/floor", sent=0,
                                            epoch=EPOCH))
        assert [entry["note"] for entry in lost("floor")] == ["2 messages lost: the table no longer has them"]
        assert not lost("viewer")
    finally:
        svc.hashers.shutdown(wait=False)
        svc.store.close()
