"""The floor's tournament signal through a real daemon, journal and table (controller/daemon/
room_link.py): the link's thread only parses and queues; the loop turns the signal into core
events, journalled first and then applied, one batch at a time; a malformed signal is refused
and counted (the daemon's status, the retained ``state``) and the table keeps its level; the
retained ``state`` says what the table holds, its level and its players. The link is never
started: the tests hand the messages to it as its MQTT thread would."""

from __future__ import annotations

import json
import logging
import queue

import pytest

from controller.cli.doctor_room import daemon_room_checks
from controller.config.daemon import load_config
from controller.core.events import HandForHand, LevelSet, ReaderCycle, TableSetup
from controller.daemon.main import Daemon
from controller.room.signal_inbox import SignalDue
from hw_sim.decks import sim_uid
from hw_sim.setup import ANTENNA_OF, write_setup
from hw_sim.simulate import room_section

LEVEL = {"kind": "level", "sb": 100, "bb": 200, "ante": 25, "game": None}


def signal(level: int | None = 5, *, h4h: bool = False, round: int = 0, bubble: tuple | None = None,
           clock: tuple | None = None) -> bytes:
    """A whole signal as the floor publishes it."""
    return json.dumps({
        "v": 1, "tournament": "main", "level": None if level is None else {"n": level, **LEVEL},
        "h4h": {"on": h4h, "round": round},
        "bubble": {"mode": bubble is not None, "on": bubble is not None, "table": bubble and bubble[0],
                   "hand": bubble and bubble[1]},
        "clock": None if clock is None else {"seat": clock[0], "n": clock[1]}}).encode()


@pytest.fixture
def daemon(tmp_path):
    cfg = write_setup(tmp_path, journal=True, console=False)
    cfg.write_text(cfg.read_text() + "\n" + room_section("mqtt://127.0.0.1:1", "r1", "t1"))
    d = Daemon(load_config(cfg), sinks=[])
    d.recover()  # (opens the journal; the link is never started)
    yield d
    d.journal.close()


def queued(d) -> list:
    """What is on the loop's queue, taken off it."""
    out = []
    while True:
        try:
            out.append(d.events.get_nowait())
        except queue.Empty:
            return out


def loop(d, most: int = 1000) -> None:
    """The loop's turns until the queue is empty (as Daemon.run and the paced daemon do); a
    queue that never empties (a signal turned into events again and again) fails the test."""
    for _ in range(most):
        try:
            eid, event = d.events.get_nowait()
        except queue.Empty:
            return
        d.handle(event, eid)
    raise AssertionError(f"the loop's queue is still not empty after {most} turns")


def deal(d, cards: list[tuple[str, int]], *, cycle: int = 1, ts: float = 10.0) -> int:
    """Deal ``cards`` (card, seat), each read for a few reader cycles with the cards before it,
    through the daemon's queue (a loop's turns apply them); the next cycle number."""
    lying: list[tuple[str, int, int]] = []
    for card, seat in cards:
        lying.append((sim_uid("A", card), ANTENNA_OF[f"seat:{seat}"], 200))
        for _ in range(5):
            d.submit(ReaderCycle(ts + cycle, "reader", cycle, tuple(lying)))
            cycle += 1
    return cycle


def journalled(d, *types: str) -> list[dict]:
    rows = d.journal.with_db(lambda db: db.execute("SELECT type, data FROM events ORDER BY id").fetchall())
    return [json.loads(data) for t, data in rows if not types or t in types]


def test_the_links_thread_only_queues_and_the_loop_journals_then_applies(daemon):
    d = daemon
    d.room.signal(signal(5))
    [(eid, due)] = queued(d)
    assert (eid, due) == (0, SignalDue())  # no event yet, nothing journalled by the MQTT thread
    assert journalled(d) == []
    d.events.put((eid, due))
    loop(d)
    [row] = journalled(d, "LevelSet")
    assert (row["tournament"], row["level"], row["small_blind"], row["big_blind"], row["ante"]) == \
        ("main", 5, 100, 200, 25)
    assert d.table.tournament.seen_fields()["level"] == 5  # applied (the core's part)
    assert d.room.state()["level"] == 5
    d.room.signal(signal(5))  # the same again (a reconnect's retained copy)
    loop(d)
    assert len(journalled(d, "LevelSet")) == 1


def test_two_signals_before_the_loop_turns_make_one_batch_and_a_third_meanwhile_its_own(daemon):
    d = daemon
    d.room.signal(signal(5))
    d.room.signal(signal(6, h4h=True))
    first, second = queued(d)  # a SignalDue each
    d.handle(first[1], first[0])  # the first turn takes the latest signal
    d.handle(second[1], second[0])  # the second finds that turn's events still queued: nothing
    batch = queued(d)
    assert [type(e) for _, e in batch] == [LevelSet, HandForHand, SignalDue]
    assert batch[0][1].level == 6 and batch[-1][1].settles
    for item in batch:
        d.events.put(item)
    d.room.signal(signal(6, h4h=True, round=1))  # arrives while that batch is queued
    loop(d)
    assert [r["type"] for r in journalled(d)] == ["LevelSet", "HandForHand", "Release"]
    assert journalled(d, "Release")[0]["round"] == 1


def test_a_malformed_signal_is_refused_counted_and_the_table_keeps_its_level(daemon, caplog):
    d = daemon
    caplog.set_level(logging.INFO, logger="tablectl.room")
    d.room.signal(signal(4))
    loop(d)
    d.room.signal(b'{"v": 1, "tournament": "main", "level": {"n": 9, "kind": "level", "sb": 5000, "bb": 100, '
                  b'"ante": 0, "game": null}}')  # the small blind over the big: refused whole
    assert queued(d) == []  # nothing for the loop
    loop(d)
    assert d.status()["room"]["signals"] == {
        "received": 1, "refused": 1,
        "last_refused": "tournament signal: level: the small blind is over the big blind"}
    assert d.room.state()["signals"] == {"received": 1, "refused": 1}
    assert d.room.state()["level"] == 4 and d.table.tournament.level_now() == 4
    assert [r["level"] for r in journalled(d, "LevelSet")] == [4]
    line = next(r.getMessage() for r in caplog.records if "refused" in r.getMessage())
    assert "r1/t1" in line and "5000" not in line
    [check] = daemon_room_checks(d.status()["room"])  # tablectl doctor, asking the running daemon
    assert check.level == "warn" and "1 tournament signal(s) from the floor refused" in check.what


def test_the_state_says_what_the_table_holds_its_level_and_its_players(daemon):
    d = daemon
    d.submit(TableSetup(1.0, (1, 2, 4), button=4))
    loop(d)
    state = d.room.state()
    assert (state["holding"], state["level"], state["players"]) == (None, None, 3)
    d.room.signal(signal(2, bubble=("t3", 42)))  # another table's all-in holds this one (FLOW-003)
    loop(d)
    state = d.room.state()
    assert (state["holding"], state["level"], state["players"]) == ("bubble", 2, 3)
    d.room.signal(signal(2))  # the all-in hand is over: released
    loop(d)
    assert d.room.state()["holding"] is None
    # a hand under way: its seats are the players (a seat joining now waits for the next hand)
    deal(d, [("As", 1)])
    loop(d)
    assert d.table.hand is not None
    d.submit(TableSetup(20.0, (1, 2, 3, 4, 5), button=4))
    loop(d)
    assert d.room.state()["players"] == 3


def test_nothing_in_the_link_clears_a_hold_when_the_link_is_lost(daemon):
    """FLOW-002/003: a table that loses its link holds on (no event is made of a disconnect);
    the link back, the retained signal still holding does nothing, the one releasing releases."""
    d = daemon
    d.room.signal(signal(3, h4h=True, bubble=("t3", 42)))
    loop(d)
    assert d.room.state()["holding"] is not None
    before = journalled(d)
    link = d.room.link
    link.connected = True
    link._on_disconnect(link._client, None, None, "gone", None)  # the broker goes away
    loop(d)
    assert journalled(d) == before and d.room.state()["holding"] is not None
    d.room.signal(signal(3, h4h=True, bubble=("t3", 42)))  # back: the retained copy, unchanged
    loop(d)
    assert journalled(d) == before
    d.room.signal(signal(3, h4h=True, round=1))  # back: released meanwhile
    loop(d)
    assert [r["type"] for r in journalled(d)[len(before):]] == ["Release", "BubbleMode", "BubbleHold"]
    assert journalled(d, "BubbleHold")[-1]["on"] is False


def test_a_clock_the_floor_calls_carries_the_loops_monotonic_reading(daemon, mocker):
    d = daemon
    deal(d, [("As", 1), ("Kd", 2), ("7c", 3), ("2h", 4)])  # seat 4 holds a card of the hand under way
    loop(d)
    mocker.patch.object(d, "mono", return_value=(1234.5, "boot-1"))  # the loop's monotonic clock, held
    d.room.signal(signal(3, clock=(4, 1)))
    loop(d)
    [row] = journalled(d, "ClockCalled")
    assert (row["seat"], row["n"], row["mono"], row["boot"]) == (4, 1, 1234.5, "boot-1")
    assert d.table.tournament.clock_running()


def test_a_signal_the_core_cannot_apply_is_not_tried_again_and_again(daemon, mocker, caplog):
    """A bug in the core on a signal's event costs that event (the daemon logs it), not a loop
    of the same events journalled over and over."""
    d = daemon
    broken = mocker.Mock(side_effect=RuntimeError("a bug"))  # the core's LevelSet handler, failing
    mocker.patch.dict(d.table._dispatch, {LevelSet: broken})
    d.room.signal(signal(8))
    loop(d)
    broken.assert_called_once()  # tried once, not again
    assert len(journalled(d, "LevelSet")) == 1 and queued(d) == []
    assert "the core failed on a LevelSet event" in caplog.text
