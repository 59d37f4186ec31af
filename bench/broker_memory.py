"""The broker's memory for a room (issue 38, docs/room.md "The broker's memory"): one mosquitto
with the shipped queue bounds, ``--tables`` clients (default 600) each publishing at a table's
rate (``--rate`` QoS 1 messages a second, default 0.5: its floor events and states; a hand record
of 2 KB one message in ``--hand-every``), and the floor's persistent session subscribed to them.

mosquitto's resident memory (VmRSS) is read: started; with every table connected; after
``--seconds`` of the room publishing with the floor connected; and with the floor away, after
``--backlog`` messages queued for its session (the outage a restart of the floor leaves), from
which the cost of one queued message is given and the shipped ``max_queued_messages`` priced.

    .venv/bin/python bench/broker_memory.py [--tables 600] [--seconds 60] [--backlog 100000]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402
from paho.mqtt.properties import Properties  # noqa: E402
from paho.mqtt.packettypes import PacketTypes  # noqa: E402

from rig.broker import Broker  # noqa: E402
from rig.mqtt_many import ManyClients  # noqa: E402
from rig.waiting import wait_until  # noqa: E402

#: the shipped docs/room/mosquitto.conf's queue bounds (read from it, so that this prices them)
SHIPPED = Path(__file__).resolve().parents[1] / "docs" / "room" / "mosquitto.conf"


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def shipped(key: str) -> int:
    for line in SHIPPED.read_text().splitlines():
        if line.split()[:1] == [key]:
            return int(line.split()[1])
    raise KeyError(key)


def floor_client(port: int, got: list[int]) -> mqtt.Client:
    """The floor's persistent session (a week's expiry, as the floor's), subscribed to every table."""
    c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="bench-floor")
    c.on_message = lambda *a: got.append(1)
    c.on_connect = lambda client, *a: client.subscribe("tablectl/+/+/#", qos=1)
    props = Properties(PacketTypes.CONNECT)
    props.SessionExpiryInterval = 7 * 24 * 3600
    c.connect("127.0.0.1", port, clean_start=False, properties=props)
    return c


class Lines(list[str]):
    """The figures, each printed as it is measured (a run at 600 clients takes minutes: a run cut
    short still says what it had)."""

    def append(self, line: str) -> None:
        print(line, flush=True)
        super().append(line)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=600)
    ap.add_argument("--rate", type=float, default=0.5, help="messages a second per table")
    ap.add_argument("--hand-every", type=int, default=20, help="one message in this many is a 2 KB hand record")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--backlog", type=int, default=100_000)
    args = ap.parse_args()
    queued, inflight = shipped("max_queued_messages"), shipped("max_inflight_messages")
    with tempfile.TemporaryDirectory() as tmp:
        broker = Broker(Path(tmp), extra=f"max_queued_messages {queued}\nmax_inflight_messages {inflight}\n"
                                         f"max_packet_size {shipped('max_packet_size')}")
        broker.start()
        assert broker.proc is not None
        pid = broker.proc.pid
        out = Lines()
        out.append(f"mosquitto started: {rss_kb(pid) / 1024:.1f} MB")
        got: list[int] = []
        floor = floor_client(broker.port, got)
        floor.loop_start()
        tables = []
        many = ManyClients()  # (epoll: paho's own loop cannot take a descriptor past 1023)
        for i in range(args.tables):
            c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id=f"table-{i}")
            c.max_inflight_messages_set(100)
            c.connect("127.0.0.1", broker.port)
            many.add(c)
            tables.append(c)
        wait_until(lambda: all(c.is_connected() for c in tables), 120, what="every table connected")
        out.append(f"{args.tables} tables connected: {rss_kb(pid) / 1024:.1f} MB")
        seq = [0] * args.tables
        event = json.dumps({"type": "CardPlaced", "ts": 0.0, "hand": 2, "card": "As", "zone": "seat:1",
                            "prev_zone": None, "audience": "floor", "seq": 0, "sig": "0" * 128})
        hand = json.dumps({"type": "HandFinished", "seq": 0, "record": {"notes": ["x" * 1900]}})

        def publish(n: int) -> None:
            for k in range(n):
                i = k % args.tables
                seq[i] += 1
                big = seq[i] % args.hand_every == 0
                tables[i].publish(f"tablectl/bench/t{i}/{'hands' if big else 'events/floor'}",
                                  hand if big else event, qos=1)

        stop = threading.Event()

        def room() -> None:  # the room at a table's rate, every table
            period = 1.0 / (args.rate * args.tables)
            while not stop.is_set():
                publish(1)
                stop.wait(period)

        t = threading.Thread(target=room, daemon=True)
        t.start()
        time.sleep(args.seconds)  # (the measured span: the room publishing, nothing awaited)
        stop.set()
        t.join()
        sent = sum(seq)
        wait_until(lambda: len(got) >= sent, 120, what="the floor has every message")
        out.append(f"after {args.seconds:.0f} s of the room publishing ({sent} messages, "
                   f"{sent / args.seconds:.0f}/s), the floor connected: {rss_kb(pid) / 1024:.1f} MB")
        floor.disconnect()
        floor.loop_stop()
        before = rss_kb(pid)
        publish(args.backlog)
        for c in tables:  # (every publish acknowledged by the broker: each is in the floor's queue)
            wait_until(lambda c=c: len(c._out_messages) == 0, 300, what="the backlog taken by the broker")
        after = rss_kb(pid)
        per = (after - before) * 1024 / args.backlog
        out.append(f"the floor away, {args.backlog} messages queued for it: {after / 1024:.1f} MB "
                   f"({per:.0f} bytes a queued message, 1 in {args.hand_every} a 2 KB hand record)")
        out.append(f"the shipped max_queued_messages {queued}, full: about "
                   f"{(before * 1024 + per * queued) / 2 ** 20:.0f} MB")
        got.clear()
        floor = floor_client(broker.port, got)
        floor.loop_start()
        wait_until(lambda: len(got) >= args.backlog, 600, what="the backlog delivered to the floor")
        floor.disconnect()
        floor.loop_stop()
        out.append(f"the backlog delivered: {rss_kb(pid) / 1024:.1f} MB")
        many.stop()
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
