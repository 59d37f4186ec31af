"""The floor's service under a room's load (docs/floor.md): one mosquitto, ``tablectl floor`` as
a subprocess, ``--tables`` tables (default 100) publishing as docs/room.md describes, and
``--browsers`` floor browsers (default 5, Debian's chromium through Playwright) on the page.

Two figures:

- **latency**: alert published at the table to alert rendered in every browser (a
  MutationObserver in each page notes when an alert's item first appears; both clocks are this
  host's), p50/p99 over ``--alerts`` alerts, while every table also publishes its floor events
  at a realistic rate (``--events`` messages a second per table: a hand every 90 s with about 30
  floor-addressed effects is 0.33) and a state per hand. Target: p99 under 250 ms on loopback.
- **memory**: the service's resident memory (VmRSS) before and after ``--hands`` hand records
  (default 10,000, generated faster than real time, 2 KB each), once all are stored.

    .venv/bin/python bench/floor.py [--tables 100] [--browsers 5] [--alerts 300] [--hands 10000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from tests.broker import Broker  # noqa: E402
from tests.floor_setup import FloorProc, adduser  # noqa: E402
from tests.waiting import wait_until  # noqa: E402

#: notes when each alert's item first appears (the page's own script re-renders the list)
OBSERVER = """
window.__seen = {};
new MutationObserver(() => {
  const now = Date.now();
  document.querySelectorAll('li.alert').forEach((li) => {
    if (!(li.dataset.alert in window.__seen)) window.__seen[li.dataset.alert] = now;
  });
}).observe(document, {childList: true, subtree: true});
"""


def rss_kb(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--browsers", type=int, default=5)
    ap.add_argument("--alerts", type=int, default=300)
    ap.add_argument("--alert-rate", type=float, default=10.0, help="alerts a second, the whole room")
    ap.add_argument("--events", type=float, default=0.33, help="floor events a second per table")
    ap.add_argument("--hands", type=int, default=10_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker", extra="max_queued_messages 200000\nmax_inflight_messages 200")
        broker.start()
        floor = FloorProc(folder, broker)
        names = [f"floor{i}" for i in range(args.browsers)]
        for n in names:
            adduser(floor.config, n, "floor", "bench-password")
        floor.start()
        assert floor.proc is not None
        pub = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="bench-tables")
        pub.max_inflight_messages_set(200)
        pub.connect("127.0.0.1", broker.port)
        pub.loop_start()
        tables = [f"t{i:03d}" for i in range(args.tables)]
        seqs = {t: 0 for t in tables}
        lock = threading.Lock()

        def floor_msg(t: str, body: dict) -> int:
            with lock:
                seqs[t] += 1
                body["seq"] = seqs[t]
            pub.publish(f"tablectl/bench/{t}/events/floor", json.dumps(body), qos=1)
            return body["seq"]

        for t in tables:
            pub.publish(f"tablectl/bench/{t}/state", json.dumps(
                {"online": True, "room": "bench", "table": t, "devices": {"reader": True, "shuffler": True},
                 "game": "holdem", "hand": 1, "stub_count": 36, "deck_in_play": "A"}), qos=1, retain=True)
        rss_start = rss_kb(floor.proc.pid)
        published: dict[str, float] = {}
        stop = threading.Event()

        def background() -> None:  # every table's ordinary floor events, and a state per 30 of them
            period = 1.0 / max(args.events * args.tables, 0.001)
            n = 0
            while not stop.is_set():
                t = tables[n % len(tables)]
                floor_msg(t, {"type": "CardPlaced", "ts": time.time(), "hand": 2, "card": "As", "zone": "seat:1",
                              "prev_zone": None, "audience": "floor"})
                if n % 30 == 0:
                    pub.publish(f"tablectl/bench/{t}/state", json.dumps(
                        {"online": True, "room": "bench", "table": t, "devices": {"reader": True, "shuffler": True},
                         "game": "holdem", "hand": 2 + n // 30, "stub_count": 36, "deck_in_play": "A"}),
                        qos=1, retain=True)
                n += 1
                stop.wait(period)

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                        args=["--no-sandbox"] if os.geteuid() == 0 else [])
            pages = []
            for n in names:
                ctx = browser.new_context(bypass_csp=True)
                ctx.add_init_script(OBSERVER)
                pg = ctx.new_page()
                pg.goto(floor.url + "/login")
                pg.fill("#name", n)
                pg.fill("#password", "bench-password")
                pg.click("#login")
                pg.wait_for_selector("#link.up")
                pages.append(pg)
            bg = threading.Thread(target=background, daemon=True)
            bg.start()
            for i in range(args.alerts):
                t = tables[(i * 7) % len(tables)]
                now = time.time()
                seq = floor_msg(t, {"type": "Alert", "ts": now, "audience": "floor", "card": "7h",
                                    "code": "deck.foreign_card", "hand": 2, "rule": "DECK-006", "seat": 3,
                                    "message": "7h is not a card of deck A"})
                published[f"bench/{t}#{seq}"] = now * 1000.0
                time.sleep(1.0 / args.alert_rate)
            stop.set()
            bg.join()

            def all_seen() -> bool:
                # (the page lists the newest 200: older ones may have scrolled off before a slow render)
                return all(pg.evaluate("Object.keys(window.__seen).length") >= min(len(published), 200)
                           for pg in pages)

            wait_until(all_seen, 60, what="the alerts rendered in every browser")
            lat: list[float] = []
            for pg in pages:
                seen = pg.evaluate("window.__seen")
                lat += [seen[k] - published[k] for k in published if k in seen]
            browser.close()
        print(f"latency, alert published -> rendered, {args.tables} tables, {args.browsers} browsers, "
              f"{len(lat)} renderings: p50 {statistics.median(lat):.1f} ms, p99 {pct(lat, 0.99):.1f} ms, "
              f"max {max(lat):.1f} ms")

        prev = {t: "0" * 64 for t in tables}
        hand_seq = {t: 0 for t in tables}
        filler = {f"seat:{s}": ["As", "Kd"] for s in range(1, 10)}
        t0 = time.monotonic()
        for i in range(args.hands):
            t = tables[i % len(tables)]
            hand_seq[t] += 1
            body = {"type": "HandFinished", "hand": hand_seq[t], "ts": time.time(), "seq": hand_seq[t],
                    "prev": prev[t], "record": {"hand": hand_seq[t], "game": "holdem", "zones": filler,
                                                "alerts": [], "stub_count": 36, "notes": ["x" * 1500]}}
            body["hash"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
            prev[t] = body["hash"]
            pub.publish(f"tablectl/bench/{t}/hands", json.dumps(body), qos=1)

        def stored() -> int:
            with sqlite3.connect(floor.database) as db:
                return int(db.execute("SELECT COUNT(*) FROM hands").fetchone()[0])

        wait_until(lambda: stored() >= args.hands, 600, what="every hand stored")
        took = time.monotonic() - t0
        with sqlite3.connect(floor.database) as db:
            breaks = db.execute("SELECT COUNT(*) FROM chain_breaks").fetchone()[0]
        print(f"memory: VmRSS {rss_start / 1024:.1f} MB at the start, {rss_kb(floor.proc.pid) / 1024:.1f} MB "
              f"after {args.hands} hands ({args.hands / took:.0f} hands/s stored, chain breaks {breaks})")
        pub.loop_stop()
        floor.stop()
        broker.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
