"""Nothing lost (docs/room.md): the broker stopped mid-hand and started again, and the daemon
SIGKILLed mid-publish: every topic's sequence contiguous, one ``hands`` record per hand, nothing
twice after dedupe by ``seq``, the chain whole."""

from __future__ import annotations

import json
import sqlite3

import pytest

from controller.room.outbox import check_chain
from hw_sim.simulate import room_section, run_script
from hw_sim.random_hands import random_script
from hw_sim.script import parse_script
from rig.broker import Broker, Subscriber, have_mosquitto
from rig.scenarios import NOISE

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is not installed")]
PREFIX = "tablectl/r1/t3"
TOPICS = ("events/public", "events/dealer", "events/floor", "hands")


def _last_seqs(journal) -> dict[str, int]:
    db = sqlite3.connect(journal)
    try:
        return dict(db.execute("SELECT topic, last_seq FROM outbox_topics").fetchall())
    finally:
        db.close()


def _check_everything_arrived_once(sub: Subscriber, journal, hands: int) -> None:
    last = _last_seqs(journal)
    assert {"events/public", "events/floor", "hands"} <= set(last), last
    topics = [t for t in TOPICS if t in last]

    def complete() -> bool:
        return all(len(sub.by_seq(f"{PREFIX}/{t}")) >= last[t] for t in topics)

    sub.wait(complete, 30, what="every message the table numbered")
    for t in topics:
        assert sorted(sub.by_seq(f"{PREFIX}/{t}")) == list(range(1, last[t] + 1)), t
        first_seen = list(dict.fromkeys(m["seq"] for m in sub.json(f"{PREFIX}/{t}")))
        assert first_seen == sorted(first_seen), f"{t}: not in order: {first_seen[:40]}"
    records = sub.by_seq(f"{PREFIX}/hands")
    assert sorted(r["hand"] for r in records.values()) == list(range(1, hands + 1))  # one per hand
    assert check_chain([records[s] for s in sorted(records)]) == []


def test_the_broker_stopped_mid_hand_and_started_again(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    broker = Broker(folder, persistence=True)  # (the floor's session and its queue survive the restart)
    broker.start()
    sub = Subscriber(broker.port, [f"{PREFIX}/#"], client_id="floor-1").start()
    script = random_script(8, hands=3, game="holdem", seats=[1, 3, 5, 6, 8], noise=dict(NOISE, seed=8))
    per_hand = [len(h["steps"]) for h in script["hands"]]
    down, up = 6, per_hand[0] + 8  # stopped in hand 1's hole cards, started again in hand 2
    outage = []

    def on_step(step: int) -> None:
        if step == down:
            broker.stop()
            outage.append(step)
        elif step == up:
            broker.start()
            outage.append(step)

    work = tmp_path / "w"
    work.mkdir()
    try:
        report = run_script(parse_script(json.dumps(script)), workdir=work, on_step=on_step,
                            room=room_section(broker.url, "r1", "t3"))
        assert outage == [down, up]
        assert len(report["hands"]) == 3
        _check_everything_arrived_once(sub, work / "journal.sqlite3", 3)
        assert "disconnected from" in (work / "daemon.log").read_text()
    finally:
        sub.stop()
        broker.stop()


def test_the_daemon_sigkilled_mid_publish_resends_from_the_first_unacknowledged(broker, tmp_path):
    sub = Subscriber(broker.port, [f"{PREFIX}/#"]).start()
    script = random_script(9, hands=3, game="holdem", seats=[2, 4, 6, 9], noise=dict(NOISE, seed=9))
    total = sum(len(h["steps"]) for h in script["hands"])
    script["crash_after"] = [5, total // 2, total - 3]  # power cuts mid-hand, while it publishes
    work = tmp_path / "w"
    work.mkdir()
    report = run_script(parse_script(json.dumps(script)), workdir=work, room=room_section(broker.url, "r1", "t3"))
    assert len(report["hands"]) == 3
    assert (work / "daemon.log").read_text().count("power cut after step") == 3
    _check_everything_arrived_once(sub, work / "journal.sqlite3", 3)
    sub.stop()
