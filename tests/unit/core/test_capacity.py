"""Issue 40: zones that see fewer cards than they hold (a two-card seat spot). The tracker keeps
the cards such a zone cannot see where they were confirmed, as it keeps a card through a missed
read, and never moves or loses a card for it (controller/core/tracker.py); the capacity comes
from the configuration ([reader.capacity]) and from a bridge board's handshake (DeviceStatus)."""

from __future__ import annotations

import random

from controller.core.events import DeviceStatus, event_from_dict, event_to_dict
from controller.core.registry import DeckRegistry
from controller.core.settings import TableSettings
from controller.core.table import Table
from controller.core.tracker import Tracker

ZONES = {1: "seat:1", 2: "seat:2", 11: "board"}.get
CARDS = ["A1", "A2", "A3", "A4"]  # laid on seat 1 in this order


def confirmed_four(capacity: dict[int, int] | None, gone: int = 5) -> tuple[Tracker, int]:
    """Four cards laid on seat 1 one after another, each heard while it lies on top; a spot of
    capacity 2 then hears the top two only. Returns the tracker and the next cycle."""
    t = Tracker(ZONES, confirm_cycles=2, gone_cycles=gone, capacity=capacity)
    cycle = 1
    for i in range(len(CARDS)):
        for _ in range(2):
            heard = CARDS[max(0, i - 1):i + 1]
            t.cycle(cycle, tuple((u, 1, 200) for u in heard))
            cycle += 1
    assert [t.location(u) for u in CARDS] == ["seat:1"] * 4
    return t, cycle


def test_the_cards_a_full_spot_cannot_see_stay_where_they_were():
    t, cycle = confirmed_four({1: 2})
    for _ in range(100):
        moves, gone = t.cycle(cycle, (("A3", 1, 200), ("A4", 1, 200)))
        assert (moves, gone) == ([], [])
        cycle += 1
    assert [t.location(u) for u in CARDS] == ["seat:1"] * 4


def test_without_the_capacity_they_are_taken_for_gone():
    # the control: the same reads on a table that does not know the spot's capacity
    t, cycle = confirmed_four(None)
    departed = []
    for _ in range(10):
        departed += t.cycle(cycle, (("A3", 1, 200), ("A4", 1, 200)))[1]
        cycle += 1
    assert sorted(departed) == [("A1", "seat:1"), ("A2", "seat:1")]


def test_a_spot_that_hears_fewer_than_it_can_see_counts_misses_as_any_zone():
    # one of the two visible cards missed for a cycle: the hidden ones count a miss, and are
    # heard of again (as "not seeable") as soon as the spot is full: no departure
    t, cycle = confirmed_four({1: 2})
    for n in range(60):
        heard = (("A3", 1, 200),) if n % 3 == 0 else (("A3", 1, 200), ("A4", 1, 200))
        assert t.cycle(cycle, heard) == ([], [])
        cycle += 1
    # but the whole seat silent (folded to a muck no antenna reads): every card leaves, together
    gone = []
    for _ in range(6):
        moves, left = t.cycle(cycle, ())
        assert moves == []
        gone += left
        cycle += 1
    assert sorted(gone) == [(u, "seat:1") for u in CARDS]


def test_no_false_move_for_what_a_spot_cannot_see_under_noise():
    # a seat of four under random misses and weak crosstalk to seat 2: nothing moves, nothing leaves
    rng = random.Random(40)
    t, cycle = confirmed_four({1: 2, 2: 2}, gone=20)
    for _ in range(2000):
        reads = [(u, 1, rng.randint(190, 230)) for u in ("A3", "A4") if rng.random() > 0.1]
        reads += [(u, 2, rng.randint(40, 90)) for u in ("A3", "A4") if rng.random() < 0.1]
        assert t.cycle(cycle, tuple(reads)) == ([], [])
        cycle += 1
    assert [t.location(u) for u in CARDS] == ["seat:1"] * 4


def test_the_board_says_its_capacities_and_the_table_takes_the_lesser():
    table = Table(TableSettings(capacity={1: 3}), DeckRegistry())
    table.apply(DeviceStatus(1.0, "reader", True, "answering", capacity=((1, 2), (2, 1), (99, 2))))
    assert table.reads.tracker._capacity == {1: 2, 2: 1}  # (antenna 99 feeds no zone)
    table = Table(TableSettings(capacity={1: 1}), DeckRegistry())
    table.apply(DeviceStatus(1.0, "reader", True, "answering", capacity=((1, 2),)))
    assert table.reads.tracker._capacity == {1: 1}


def test_the_status_journals_its_capacities_and_a_plain_one_as_before():
    ev = DeviceStatus(1.0, "reader", True, "answering", capacity=((1, 2), (2, 2)))
    d = event_to_dict(ev)
    assert d["capacity"] == ((1, 2), (2, 2)) and event_from_dict({**d, "capacity": [[1, 2], [2, 2]]}) == ev
    assert "capacity" not in event_to_dict(DeviceStatus(1.0, "reader", True, "answering"))


def test_the_daemon_hands_the_links_capacities_to_the_core():
    from controller.daemon.device_events import to_core
    from firmware_bridge.events import LinkStatus

    ev = to_core(LinkStatus(ts=1.0, device="reader", online=True, detail="answering", capacity=((3, 2),)))
    assert isinstance(ev, DeviceStatus) and ev.capacity == ((3, 2),)
    assert to_core(LinkStatus(ts=1.0, device="reader", online=True)).capacity is None
