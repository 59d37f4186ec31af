"""The floor's tournament signal as a table reads it (controller/room/tournament.py) and takes it in
(controller/room/signal_inbox.py): parsed strictly, refused whole and counted when malformed (the
log names the table and the field, never the payload), turned into the events of what changed
only, the latest signal winning."""

from __future__ import annotations

import json
import logging

import pytest

from controller.core.events import BubbleHold, BubbleMode, ClockCalled, HandForHand, LevelSet, Release
from controller.room.signal_inbox import SignalInbox
from controller.room.tournament import (MAX_SIGNAL, Level, Seen, Signal, SignalError, parse_signal,
                                      signal_to_payload, signals_for, tournament_topic)

LEVEL5 = {"n": 5, "kind": "level", "sb": 100, "bb": 200, "ante": 25, "game": "holdem"}


def body(**over) -> dict:
    """A whole signal as the floor publishes it: level 5, nothing held, no clock."""
    b = {"v": 1, "tournament": "main", "level": dict(LEVEL5), "h4h": {"on": False, "round": 0},
         "bubble": {"mode": False, "on": False, "table": None, "hand": None}, "clock": None}
    b.update(over)
    return b


def payload(**over) -> bytes:
    return json.dumps(body(**over)).encode()


def seen_after(events, seen: Seen | None = None) -> Seen:
    """What a table has applied after ``events`` (as the core's tournament part keeps it): the
    test's own oracle, written from the events' meaning, not from the code under test."""
    s = {f: getattr(seen or Seen(), f) for f in Seen.__slots__}
    for e in events:
        if type(e) is LevelSet:
            s.update(tournament=e.tournament, level=e.level, kind=e.kind)
        elif type(e) is HandForHand:
            s["h4h"] = e.on
        elif type(e) is Release:
            s["round"] = e.round
        elif type(e) is BubbleMode:
            s["bubble_mode"] = e.on
        elif type(e) is BubbleHold:
            s.update(bubble=e.on, bubble_table=e.table, bubble_hand=e.hand)
        elif type(e) is ClockCalled:
            s["clock_n"] = e.n
    return Seen(**s)


def test_the_topic_is_the_tables_own_under_floor():
    assert tournament_topic("main", "t7") == "tablectl/main/t7/floor/tournament"


def test_a_whole_signal_is_read_field_by_field():
    s = parse_signal(payload(h4h={"on": True, "round": 7},
                             bubble={"mode": True, "on": True, "table": "t3", "hand": 42},
                             clock={"seat": 4, "n": 2}))
    assert s == Signal(tournament="main", level=Level(5, "level", 100, 200, 25, "holdem"), h4h=True, round=7,
                       bubble_mode=True, bubble=True, bubble_table="t3", bubble_hand=42, clock_seat=4, clock_n=2)
    assert parse_signal(signal_to_payload(s)) == s  # the floor's side writes what the table reads


@pytest.mark.parametrize("data,error", [
    (b"{not json", "tournament signal: not JSON"),
    (b"\xff\xfe", "tournament signal: not JSON"),
    (b"[1, 2]", "tournament signal: want an object"),
    (json.dumps(body(v=2)).encode(), "tournament signal: v: want 1"),
    (json.dumps(body(extra=1)).encode(), "tournament signal: unknown extra"),
    (payload(tournament="no spaces please"), "tournament signal: tournament: want a name"),
    (payload(level={"n": 0, "kind": "level", "sb": 1, "bb": 2, "ante": 0, "game": None}),
     "tournament signal: level.n: want a whole number 1 to 1000"),
    (payload(level={"n": 3}), "tournament signal: level: missing kind, sb, bb, ante, game"),
    (payload(level=dict(LEVEL5, kind="recess")), "tournament signal: level.kind: want one of level, break"),
    (payload(level=dict(LEVEL5, sb=300)), "tournament signal: level: the small blind is over the big blind"),
    (payload(level=dict(LEVEL5, game="go fish")), "tournament signal: level.game: no game the table deals"),
    (payload(level=dict(LEVEL5, n=True)), "tournament signal: level.n: want a whole number"),
    (payload(h4h={"on": "yes", "round": 1}), "tournament signal: h4h.on: want true or false"),
    (payload(bubble={"mode": True, "on": True, "table": None, "hand": None}),
     "tournament signal: bubble: a hold names its table and hand"),
    (payload(clock={"seat": 11, "n": 1}), "tournament signal: clock.seat: want a whole number 1 to 10"),
    (b'{"v": 1, "v": 1, "tournament": "main"}', "tournament signal: not JSON"),
    (b'{"v": 1, "tournament": "main", "level": {"n": NaN}}', "tournament signal: not JSON"),
    (b" " * (MAX_SIGNAL + 1), f"tournament signal: {MAX_SIGNAL + 1} bytes (at most {MAX_SIGNAL})"),
])
def test_a_malformed_signal_is_refused_whole_in_one_line(data, error):
    with pytest.raises(SignalError) as info:
        parse_signal(data)
    text = str(info.value)
    assert text.startswith(error) and "\n" not in text


def test_only_what_changed_becomes_events_and_the_same_signal_twice_does_nothing():
    s1 = parse_signal(payload())
    first = signals_for(Seen(), s1, ts=1.0)
    assert [(type(e), e.level, e.small_blind, e.big_blind, e.ante) for e in first] == \
        [(LevelSet, 5, 100, 200, 25)]
    seen = seen_after(first)
    assert signals_for(seen, s1, ts=2.0) == []  # a reconnect's retained copy: nothing again
    s2 = parse_signal(payload(h4h={"on": True, "round": 0}))
    second = signals_for(seen, s2, ts=3.0)
    assert second == [HandForHand(3.0, True)]  # the level is unchanged: no LevelSet
    seen = seen_after(second, seen)
    released = signals_for(seen, parse_signal(payload(h4h={"on": True, "round": 1})), ts=4.0)
    assert released == [Release(4.0, 1)]
    seen = seen_after(released, seen)
    assert signals_for(seen, parse_signal(payload(h4h={"on": True, "round": 1})), ts=5.0) == []


def test_a_clock_is_called_once_whatever_the_copies_and_carries_the_monotonic_reading():
    s = parse_signal(payload(clock={"seat": 4, "n": 1}))
    [level, call] = signals_for(Seen(), s, ts=10.0, mono=123.5, boot="b1")
    assert type(level) is LevelSet and call == ClockCalled(10.0, 4, mono=123.5, boot="b1", n=1)
    seen = seen_after([level, call])
    assert signals_for(seen, s, ts=11.0) == []
    assert [type(e) for e in signals_for(seen, parse_signal(payload(clock={"seat": 2, "n": 2})), ts=12.0)] == \
        [ClockCalled]


def test_the_bubble_hold_and_its_end():
    on = parse_signal(payload(bubble={"mode": True, "on": True, "table": "t3", "hand": 42}))
    events = signals_for(seen_after(signals_for(Seen(), parse_signal(payload()), ts=1.0)), on, ts=2.0)
    assert events == [BubbleMode(2.0, True), BubbleHold(2.0, True, "t3", 42)]
    off = parse_signal(payload(bubble={"mode": True, "on": False, "table": None, "hand": None}))
    assert signals_for(seen_after(events, seen_after(signals_for(Seen(), parse_signal(payload()), ts=1.0))),
                       off, ts=3.0) == [BubbleHold(3.0, False, None, None)]


# -- the inbox: what the table's link keeps of the messages ------------------------------------

def test_the_inbox_refuses_and_counts_a_malformed_signal_and_keeps_the_last_good_one(caplog):
    inbox = SignalInbox("r1/t1")
    caplog.set_level(logging.INFO, logger="tablectl.room")
    assert inbox.put(payload()) is True
    secret = b'{"v": 1, "tournament": "main", "level": {"n": 7, "kind": "level", "sb": 999, "bb": 1, ' \
             b'"ante": 0, "game": null}, "note": "XYZZY-PAYLOAD"}'
    assert inbox.put(secret) is False
    assert inbox.put(b"{oops") is False
    counts = inbox.counts()
    assert (counts["received"], counts["refused"]) == (1, 2)
    assert counts["last_refused"] == "tournament signal: not JSON (JSONDecodeError)"
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 2 and all("r1/t1" in line for line in refusals)
    assert "unknown note" in refusals[0] and "(1 so far)" in refusals[0] and "(2 so far)" in refusals[1]
    assert "XYZZY" not in caplog.text and "999" not in caplog.text  # never the payload
    generation, events = inbox.events(Seen(), ts=1.0)
    assert generation == 1 and [(type(e), e.level) for e in events] == [(LevelSet, 5)]  # level 5 kept


def test_the_latest_signal_wins_and_an_empty_message_is_no_refusal():
    inbox = SignalInbox("r1/t1")
    assert inbox.events(Seen(), ts=1.0) == (0, [])  # nothing yet
    inbox.put(payload(level=dict(LEVEL5, n=6)))
    inbox.put(payload(level=dict(LEVEL5, n=7)))
    generation, events = inbox.events(Seen(), ts=1.0)
    assert generation == 2 and [e.level for e in events] == [7]
    assert inbox.put(b"") is False  # the floor removed its retained signal: the table keeps what it had
    assert inbox.counts()["refused"] == 0 and inbox.events(Seen(), ts=2.0)[0] == 2
