"""A room of three real tables and a floor that asks for what it misses (issue 38: each gap asked
for once, then with backoff): what the floor's replay requests and the copies they make cost.

:func:`room_run` plays it: a real mosquitto (persistence on, its default queue of 1,000 messages
for a client that is away, said in its configuration), ``tablectl floor`` as a subprocess, and
three real tables (``tablectl run`` driven through the simulated devices by
:class:`hw_sim.simulate.SimulatedTable`, each in a process of its own: :func:`main` ``table``)
dealing ``hands`` random hands each. Before the real tables start, ``t3``'s earlier journal (a
:class:`rig.floor.FakeTable` under the real table's own MQTT client id, so its broker session is
the one the real ``t3`` takes over) publishes alert 1 and alert 3 and never answers a replay,
then 50 ``state`` messages, then goes offline: a gap nothing can fill once the real ``t3`` comes
back with a journal of its own. With ``restart``, the floor is stopped (SIGTERM) once a quarter
of the hands are dealt, and started again once the tables have published more than the broker
queues for it: the rest are lost to it, so each table's topics have a gap its table can fill.
Every table stays up once it has dealt (a table in a room does), until the floor has everything.

The floor's own records give the replay requests (its ``commands``: each, when, and the rows its
table's answer says it sent again); the floor counts the messages it took that it had already
(the duplicates) and logs it as it stops. The run ends when every table has dealt and the floor
holds every message of each table's journal (checked against the table's own outbox).
:class:`Figures` says what it cost; :func:`unexplained` lists the replay requests the rule does
not allow (one per gap when it opens, one per gap per return of its table, then the doubling
schedule).

    .venv/bin/python bench/gaps.py [--hands 150] [--compare DIR]
"""

from __future__ import annotations

import argparse
import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from rig.broker import Broker
from rig.floor import FakeTable, FloorProc
from rig.waiting import wait_for, wait_until

ROOM = "main"
TABLES = ("t1", "t2", "t3")
NUMBERED = ("events/floor", "events/dealer", "hands")
#: what the floor subscribes to (controller/floor/store.py, SUBSCRIBED), and the commands it sends
WATCHED = ("state", *NUMBERED, "cmd", "cmd/reply")
#: the broker keeps this many messages for a client that is away (mosquitto's default, said here
#: so that the floor's outage loses what comes after them)
QUEUED = 1000
#: the earlier journal of t3: its epoch, and the seq it never sent
EARLIER_EPOCH = "e0000000dead0"
#: the floor's count, logged as it stops (controller/floor/app.py, serve)
DUPLICATES = re.compile(r"messages taken since the start, (\d+) of them duplicates")
#: the shortest wait the schedule allows between two requests for the same gap (seconds)
SCHEDULE_FIRST = 10.0
#: the most one replay brings (controller/daemon/room_commands.py, MAX_REPLAY)
REPLAY_MOST = 5000


@dataclass
class Request:
    """One ``replay`` the floor published: when (the monitor's clock), to which table, for what."""

    at: float
    table: str
    topic: str
    start: int
    epoch: str
    to: int | None = None  # (the end of the hole; None: to the end, as the code before asked)


@dataclass
class Figures:
    seconds: float  # the tables started -> every message of theirs on the floor
    requests: list[Request]
    messages: int  # the numbered messages the tables' journals hold on the floor's topics
    duplicates: int  # messages the floor took that it had already (its log's count at each stop)
    resent: int  # rows the tables sent again for the floor's replays (their answers' ``sent``)
    returns: list[tuple[str, float]] = field(default_factory=list)  # (table, when it came back to the floor)
    earlier_refused: int = 0  # replays of the earlier journal the real t3 was handed (and refused)
    lost: dict[str, list[str]] = field(default_factory=dict)  # the tiles' notes of gaps closed unfilled, by table

    def line(self) -> str:
        return (f"{self.seconds:.1f} s, {len(self.requests)} replay requests, {self.resent} rows resent, "
                f"{self.duplicates} duplicates of {self.messages} messages "
                f"({100.0 * self.duplicates / max(1, self.messages):.2f} %), "
                f"{self.earlier_refused} replay(s) of the earlier journal reached the real t3")


class Monitor:
    """A subscriber of its own on the floor's topics, counting what the tables publish (no more:
    it must keep up with a replay storm on a loaded machine, or the broker drops what it lags)."""

    def __init__(self, port: int) -> None:
        self.hands: Counter[str] = Counter()  # hand records seen, by table (copies included)
        self.seen = 0  # every message on the floor's topics
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="gaps-monitor")
        self.client.on_connect = lambda c, *a: c.subscribe([(f"tablectl/{ROOM}/+/{t}", 1) for t in WATCHED])
        self.subscribed = threading.Event()
        self.client.on_subscribe = lambda *a: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        wait_until(self.subscribed.is_set, 10, what="the monitor's subscription")

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        self.seen += 1  # (paho's one thread alone writes these)
        if msg.topic.endswith("/hands"):
            self.hands[msg.topic.split("/")[2]] += 1

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _replays(database: Path) -> tuple[list[Request], int]:
    """The floor's own record of the replays it asked for (its ``commands``: when, to which table,
    what), and the rows its tables' answers said they sent again."""
    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        rows = db.execute("SELECT sent, tbl, body, reply FROM commands WHERE user = 'floor:service' "
                          "AND json_extract(body, '$.cmd') = 'replay' ORDER BY sent").fetchall()
    finally:
        db.close()
    out, resent = [], 0
    for at, table, body, reply in rows:
        b = json.loads(body)
        out.append(Request(float(at), table, str(b.get("topic")), int(b.get("from", 0)), str(b.get("epoch", "0")),
                           b["to"] if type(b.get("to")) is int else None))
        answer = json.loads(reply) if reply else {}
        resent += answer.get("sent", 0) if type(answer.get("sent")) is int else 0
    return out, resent


def _journal_last(workdir: Path) -> dict[str, tuple[str, int]]:
    """The table's journal: its epoch and each numbered topic's last seq."""
    db = sqlite3.connect(workdir / "journal.sqlite3")
    try:
        epoch = db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()
        last = dict(db.execute("SELECT topic, last_seq FROM outbox_topics").fetchall())
    finally:
        db.close()
    return {t: (str(epoch[0]) if epoch else "0", int(last[t])) for t in NUMBERED if last.get(t)}


def _floor_has_everything(database: Path, lasts: dict[str, dict[str, tuple[str, int]]]) -> bool:
    """Whether the floor holds seq 1 to the last of every numbered topic of each table's journal."""
    db = sqlite3.connect(database, timeout=5)
    try:
        for table, topics in lasts.items():
            for topic, (epoch, last) in topics.items():
                n = db.execute("SELECT count(*) FROM messages WHERE room = ? AND tbl = ? AND epoch = ? AND topic = ? "
                               "AND seq BETWEEN 1 AND ?", (ROOM, table, epoch, topic, last)).fetchone()[0]
                if n != last:
                    return False
    except sqlite3.OperationalError:  # (the floor writing: asked again)
        return False
    finally:
        db.close()
    return True


def _floor_connections(floor: FloorProc) -> int:
    return floor.log.read_text(errors="replace").count("floor: connected to") if floor.log.exists() else 0


def _earlier_journal(broker: Broker, floor: FloorProc) -> None:
    """t3's earlier journal: alerts 1 and 3 (2 never sent), no answer to a replay, 50 states, then
    offline; under the real t3's client id (tablectl-main-t3), so that the real t3 takes its
    broker session over: whatever the floor left queued there reaches it."""
    fake = FakeTable(broker, ROOM, "t3", client_id=f"tablectl-{ROOM}-t3")
    fake.silent = True
    try:
        fake.state(epoch=EARLIER_EPOCH)
        for seq in (1, 3):
            fake.publish("events/floor", {"type": "Alert", "ts": time.time(), "audience": "floor", "code": "deck.x",
                                          "hand": 1, "seq": seq, "epoch": EARLIER_EPOCH})
        wait_until(lambda: any(r.table == "t3" for r in _replays(floor.database)[0]), 10,
                   what="the earlier journal's gap asked")
        for n in range(50):
            fake.state(epoch=EARLIER_EPOCH, hand=100 + n)

        def taken() -> bool:
            db = sqlite3.connect(floor.database, timeout=5)
            try:
                row = db.execute("SELECT json_extract(state, '$.hand') FROM tables WHERE room = ? AND tbl = 't3'",
                                 (ROOM,)).fetchone()
            except sqlite3.OperationalError:
                return False
            finally:
                db.close()
            return row is not None and row[0] == 149

        wait_until(taken, 10, what="the floor taking the 50 states in")
        fake.go_offline()
    finally:
        fake.stop()


def room_run(folder: Path, *, hands: int = 150, restart: bool = True, code: Path | None = None,
             queued: int = QUEUED) -> Figures:
    """Play the room (the module's doc) in ``folder``; ``code``: another checkout's floor service
    (the code before, for its figures); ``queued``: what the broker keeps for the floor while it
    is away (the benchmark's is mosquitto's default; a test's may be smaller, so that fewer hands
    overflow it)."""
    (folder / "broker").mkdir(parents=True)
    (folder / "floor").mkdir()
    broker = Broker(folder / "broker", persistence=True, extra=f"max_queued_messages {queued}")
    broker.start()
    floor = FloorProc(folder / "floor", broker, code=code)
    monitor = Monitor(broker.port)
    procs: list[subprocess.Popen[bytes]] = []
    returns: list[tuple[str, float]] = []
    try:
        floor.start()
        _earlier_journal(broker, floor)
        began = time.monotonic()
        for i, table in enumerate(TABLES):
            work = folder / table
            work.mkdir()
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "rig.gaps", "table", "--workdir", str(work), "--broker", broker.url,
                 "--table", table, "--hands", str(hands), "--seed", str(31 + i),
                 *(["--hold-at", str(hands // 4), "--hold-at", str(hands * 3 // 4)] if restart else [])],
                stdout=subprocess.DEVNULL, stderr=(work / "run.log").open("wb")))
            returns.append((table, time.time()))  # (t3: its real journal comes back under its old session)
        if restart:
            wait_until(lambda: all((folder / t / "held1").exists() for t in TABLES), 120,
                       what=f"{hands // 4} hands dealt at every table")
            _stop(floor)
            for table in TABLES:  # (held after a quarter of their hands: on, the floor away)
                (folder / table / "go1").write_text("")
            seen = monitor.seen
            wait_until(lambda: monitor.seen > seen + queued * 3 // 2, 60, what="the broker's queue for the floor full")
            connections = _floor_connections(floor)
            floor.start()
            wait_until(lambda: _floor_connections(floor) > connections, 20, what="the floor connected again")
            # (a table that dealt its last hand while the floor was away has a tail the floor cannot
            # see: no later message shows it a gap. The room's tables must still be dealing.)
            assert not any((folder / t / "dealt").exists() for t in TABLES), "the floor came back too late: more hands"
            returns += [(t, time.time()) for t in TABLES]
            for table in TABLES:  # (held after three quarters of their hands: on to the end)
                (folder / table / "go2").write_text("")
        def dealt() -> bool:
            for p, table in zip(procs, TABLES, strict=True):
                assert p.poll() is None, f"{table}: {(folder / table / 'run.log').read_text()[-3000:]}"
            return all((folder / t / "dealt").exists() for t in TABLES)

        assert wait_for(dealt, 600, poll=0.1), "every hand dealt at every table"
        lasts = {t: _journal_last(folder / t) for t in TABLES}
        assert wait_for(lambda: _floor_has_everything(floor.database, lasts), 300, poll=0.1), \
            "every message of every table on the floor"
        seconds = time.monotonic() - began
        messages = sum(last for topics in lasts.values() for _, last in topics.values())
        refused = (folder / "t3" / "daemon.log").read_text(errors="replace").count("is an earlier journal")
        lost = _lost_notes(floor.database)
        requests, resent = _replays(floor.database)
        _stop(floor)
        duplicates = sum(int(n) for n in DUPLICATES.findall(floor.log.read_text(errors="replace")))
        return Figures(seconds, requests, messages, duplicates, resent, returns, refused, lost)
    finally:
        for table in TABLES:
            if (folder / table).exists():
                (folder / table / "stop").write_text("")
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait(30)
        monitor.stop()
        _stop(floor)
        broker.stop()


def _lost_notes(database: Path) -> dict[str, list[str]]:
    """Each table's notes of what was given up as lost, as its tile words them (none from a floor
    without them); read beside the running floor, never written."""
    from controller.floor.store import lost_note

    db = sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)
    try:
        if db.execute("SELECT 1 FROM sqlite_master WHERE name = 'lost'").fetchone() is None:
            return {}
        out: dict[str, list[str]] = {}
        for table, why, n in db.execute("SELECT tbl, why, SUM(n) FROM lost GROUP BY tbl, why HAVING SUM(n) > 0 "
                                        "ORDER BY tbl, why"):
            out.setdefault(table, []).append(lost_note(n, why))
        return out
    finally:
        db.close()


def _stop(floor: FloorProc) -> None:
    """The floor stopped (SIGTERM), however long a loaded machine makes it take (at most a minute,
    then SIGKILL)."""
    if floor.proc is None:
        return
    floor.proc.terminate()
    try:
        floor.proc.wait(60)
    except subprocess.TimeoutExpired:
        floor.proc.kill()
        floor.proc.wait(30)
    floor.proc = None


def side_by_side(folder: Path, *, hands: int = 150, code: Path | None = None) -> tuple[Figures, Figures]:
    """The room with the floor's restart and the same room without it, played at the same time
    (each its own broker, floor and tables): on a machine shared with other work, what one run's
    time says depends on the moment; two runs at once share it. (with the restart, without)"""
    runs: dict[bool, Figures] = {}
    failed: list[BaseException] = []

    def play(restart: bool) -> None:
        try:
            runs[restart] = room_run(folder / ("restart" if restart else "steady"), hands=hands, restart=restart,
                                     code=code)
        except BaseException as exc:  # (raised in the caller's thread below)
            failed.append(exc)

    rooms = [threading.Thread(target=play, args=(restart,)) for restart in (True, False)]
    for room in rooms:
        room.start()
    for room in rooms:
        room.join()
    if failed:
        raise failed[0]
    return runs[True], runs[False]


def unexplained(fig: Figures) -> list[str]:
    """The replay requests the rule does not allow: per table, journal and topic, a request after
    the first is allowed when its table came back to the floor since the one before, when it asks
    beyond what the one before could bring (a new gap), or when the schedule's wait (10 s, then
    doubling) has passed."""
    out = []
    by_gap: dict[tuple[str, str, str], list[Request]] = {}
    for r in fig.requests:
        by_gap.setdefault((r.table, r.epoch, r.topic), []).append(r)
    for key, asked in by_gap.items():
        asked.sort(key=lambda r: r.at)
        wait = SCHEDULE_FIRST
        for before, after in zip(asked, asked[1:], strict=False):
            came_back = any(t == key[0] and before.at < when <= after.at for t, when in fig.returns)
            if came_back:
                wait = SCHEDULE_FIRST
            elif after.start > (before.to if before.to is not None else before.start + REPLAY_MOST - 1):
                wait = SCHEDULE_FIRST
            elif after.at - before.at >= wait * 0.9:
                wait = min(wait * 2, 300.0)
            else:
                out.append(f"{key}: asked from {after.start} {after.at - before.at:.2f} s after from {before.start}")
    return out


def _table(args: argparse.Namespace) -> int:
    """One real table: ``hands`` random hands through the simulated devices and the daemon, its
    room link to ``broker``, its journal in ``workdir``; then, every message acknowledged by the
    broker, the table stays up (a table in a room does: it answers a replay) until ``workdir``
    has a file ``stop``. With ``hold_at`` (hands, in order), the table holds after the k-th of them
    (a file ``heldk`` says so) until ``workdir`` has a file ``gok``: the room's floor stops while
    every table still has hands to deal, and is back before they deal their last, however busy the
    machine (what the floor missed at a table that has stopped dealing shows it no gap)."""
    from hw_sim.random_hands import random_script
    from hw_sim.script import parse_script
    from hw_sim.simulate import SimulatedTable, room_section
    from rig.scenarios import NOISE

    work = Path(args.workdir)
    script = random_script(args.seed, hands=args.hands, game="holdem", seats=[1, 3, 4, 6, 8, 9],
                           noise=dict(NOISE, seed=args.seed))
    table = SimulatedTable(parse_script(json.dumps(script)), workdir=work,
                           room=room_section(args.broker, ROOM, args.table))
    try:
        table.open()
        for k, hand in enumerate(args.hold_at or [], 1):
            table.play_to(hand)
            (work / f"held{k}").write_text("")
            wait_until((work / f"go{k}").exists, 600, what=f"the room's go {k}")
        table.play()
        table.wait_acked(120, table.report())
        (work / "dealt").write_text("")
        wait_until((work / "stop").exists, 600, what="the room's end")
    finally:
        table.close()
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="rig.gaps")
    sub = ap.add_subparsers(dest="what", required=True)
    t = sub.add_parser("table")
    t.add_argument("--workdir", required=True)
    t.add_argument("--broker", required=True)
    t.add_argument("--table", required=True)
    t.add_argument("--hands", type=int, default=150)
    t.add_argument("--seed", type=int, default=31)
    t.add_argument("--hold-at", type=int, action="append",
                   help="hold after this hand (again: the next hold) until a file 'go1', 'go2'... is there")
    args = ap.parse_args(argv)
    return _table(args)


if __name__ == "__main__":
    sys.exit(main())
