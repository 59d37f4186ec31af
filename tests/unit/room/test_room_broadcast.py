"""``broadcast`` (docs/room.md): nothing before ``broadcast_delay`` after the card was dealt,
everything after it, enforced at the table (the link's own clock, here one the test moves); and
the link waits for the system clock to be set before it connects."""

from __future__ import annotations

import pytest

import json
import logging

from controller.core.effects import CardPlaced, HandStarted
from controller.daemon.journal import Journal
from controller.room.link import RoomLink
from controller.room.topics import route
from controller.config.room import RoomConfig
from rig.broker import Subscriber
from rig.waiting import wait_until

P = "tablectl/r1/t1"


def _link(broker, tmp_path, now, **kw) -> tuple[RoomLink, Journal]:
    j = Journal(tmp_path / "j.sqlite3")
    j.open()
    cfg = RoomConfig(broker=broker.url, host="127.0.0.1", port=broker.port, tls=False, room="r1", table="t1",
                     broadcast_delay=30.0)
    return RoomLink(cfg, j, state=lambda: {"hand": 1}, clock=lambda: now[0], **kw), j


def test_nothing_on_broadcast_before_the_delay_everything_after(broker, tmp_path):
    now = [1000.0]
    link, j = _link(broker, tmp_path, now)
    sub = Subscriber(broker.port, [f"{P}/#"]).start()
    dealt = [HandStarted(1000.0, 1, 9, (1, 2), "holdem"),
             CardPlaced(1000.0, 1, "E004015000000001", "As", "seat:1", None, "floor"),
             CardPlaced(1000.5, 1, "E004015000000002", "Kd", "seat:2", None, "floor")]
    for eid, e in enumerate(dealt, 1):
        j.record([], outbox=route([e], broadcast=True), event_id=eid)
    link.start()
    try:
        sub.wait(lambda: sub.count(f"{P}/events/floor") == 2, what="the floor's copies")
        now[0] = 1030.4  # 30 s after the first two, not after the third
        marker = HandStarted(1030.4, 2, 1, (1, 2), "holdem")
        j.record([], outbox=route([marker], broadcast=False), event_id=10)
        link.notify()
        sub.wait(lambda: sub.count(f"{P}/events/public") == 2, what="a message published after the clock moved")
        got = [m["type"] + ":" + str(m.get("card")) for m in sub.json(f"{P}/broadcast")]
        assert got in ([], ["HandStarted:None", "CardPlaced:As"])  # never Kd: it was dealt 29.9 s ago
        now[0] = 1030.5
        link.notify()
        sub.wait(lambda: sub.count(f"{P}/broadcast") >= 3, what="everything once its delay has passed")
        msgs = sub.by_seq(f"{P}/broadcast")
        assert [(m["type"], m.get("card"), m.get("zone")) for m in msgs.values()] == [
            ("HandStarted", None, None), ("CardPlaced", "As", "seat:1"), ("CardPlaced", "Kd", "seat:2")]
        assert all("uid" not in m for m in msgs.values())
        assert link.wait_acked(10) == 0
    finally:
        link.stop()
        sub.stop()
        j.close()


@pytest.mark.slow
def test_the_link_waits_for_the_clock_before_it_connects(broker, tmp_path, caplog):
    wall = [86400.0]  # 1970: a Pi that has not synced its clock
    said: list[str] = []
    link, j = _link(broker, tmp_path, [1000.0], wall=lambda: wall[0], on_status=said.append)
    caplog.set_level(logging.INFO, logger="tablectl.room")
    link.start()
    try:
        wait_until(lambda: link.waiting_for_clock, what="the link to say it waits")
        assert "waiting for the clock to be set (time sync" in caplog.text
        assert not link.connected
        wall[0] = 1_800_000_000.0
        wait_until(lambda: link.connected, what="the link to connect once the clock is set")
        assert "the clock is set; connecting" in caplog.text
        assert said == ["room: waiting for the clock to be set (time sync)",
                        f"room: connecting to {broker.url}"]  # (the daemon's systemd STATUS line)
        # The link's state may reach the broker after a subscription made now, and then comes live,
        # not as the retained copy: once one subscriber has it, the broker holds it, and a second
        # subscriber is sent the retained copy (a run with three workers on two cores timed out here).
        first = Subscriber(broker.port, [f"{P}/state"]).start()
        first.wait(lambda: first.count(f"{P}/state") > 0, what="the state")
        first.stop()
        sub = Subscriber(broker.port, [f"{P}/state"]).start()
        sub.wait(lambda: f"{P}/state" in sub.retained, what="the retained state")
        assert json.loads(sub.retained[f"{P}/state"])["clock"] == "set"
        sub.stop()
    finally:
        link.stop()
        j.close()
