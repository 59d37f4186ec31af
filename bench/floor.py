"""The floor's service under a room's load (docs/floor.md): one mosquitto, ``tablectl floor`` as
a subprocess, ``--tables`` tables (default 100) publishing as docs/room.md describes, ``--fast``
tables more (default 5) publishing at ``tablectl simulate``'s pace (a table catching up after an
outage: ``--fast-rate`` messages a second each), ``--browsers`` floor browsers (default 10,
Debian's chromium through Playwright) on the page, and ``--logins`` login attempts in flight all
along (default 10: argon2's work on the service).

The figures:

- **alert latency**: alert published at the table to alert rendered in every browser (a
  MutationObserver in each page notes when an alert's item first appears; both clocks are this
  host's), over ``--alerts`` alerts, while every table also publishes its floor events at a
  realistic rate (``--events`` messages a second per table) and a state per 30. Target: p99
  under 250 ms on loopback.
- **acknowledgement latency**: Acknowledge clicked in the first browser to the alert shown
  acknowledged in every other browser, for ``--acks`` alerts. Target: p99 under 500 ms.
- **/api/room**: its answer time, asked every 50 ms all along. Target: p99 under 50 ms.
- **memory**: the service's resident memory (VmRSS) at the start, after the load above (just
  before the hands), and after ``--hands`` hand records (default 10,000, generated faster than
  real time, 2 KB each), once all are stored. What the hands add is the last less the second.
- **release** (issue 32, FLOW-002): every table is in one tournament with hand-for-hand on; the
  floor presses Release (``POST /api/tournament``) ``--releases`` times (default 30, one every 2 s)
  during the load above, and each table's fake link, subscribed to its own ``floor/tournament``
  topic as a table's is, notes when its retained signal with that release arrives: press to each
  table having it. Target: p99 under 1 s. (The table's display path from there is the daemon's:
  tested elsewhere.) Measured for this checkout only (the code before has no tournament).

``--compare DIR`` runs the same load, in the same run of the bench, first against the floor
service of another checkout (``DIR``: ``git worktree add DIR a74abed``), then against this one,
and prints both.

    .venv/bin/python bench/floor.py [--compare DIR] [--tables 100] [--fast 5] [--browsers 10]
        [--logins 10] [--alerts 300] [--acks 30] [--hands 10000]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt  # noqa: E402
from paho.mqtt.enums import CallbackAPIVersion  # noqa: E402
from playwright.sync_api import sync_playwright  # noqa: E402

from rig.broker import Broker  # noqa: E402
from rig.floor import FloorProc, adduser  # noqa: E402
from rig.mqtt_many import ManyClients  # noqa: E402
from rig.waiting import wait_until  # noqa: E402

#: notes when each alert's item first appears, and first appears acknowledged (the page's own
#: script re-renders the list). Only what a mutation added (or re-classed) is looked at, not every
#: item of the page on every mutation: the observer's own work is not what is measured. And when
#: an Acknowledge button's click reaches the page (Playwright's checks before it clicks take their
#: own time on a busy machine: not the service's).
OBSERVER = """
window.__seen = {};
window.__acked = {};
window.__clicked = {};
document.addEventListener('click', (ev) => {
  const li = ev.target.closest && ev.target.closest('li.alert');
  const key = li && ev.target.closest('button.ack') ? li.dataset.alert : null;
  if (key !== null && !(key in window.__clicked)) window.__clicked[key] = Date.now();
}, true);
new MutationObserver((records) => {
  const now = Date.now();
  const note = (li) => {
    if (!li.isConnected) return;
    if (!(li.dataset.alert in window.__seen)) window.__seen[li.dataset.alert] = now;
    if (li.classList.contains('acked') && !(li.dataset.alert in window.__acked)) window.__acked[li.dataset.alert] = now;
  };
  for (const r of records) {
    if (r.type === 'attributes') {
      if (r.target.matches('li.alert')) note(r.target);
      continue;
    }
    for (const n of r.addedNodes) {
      if (n.nodeType !== 1) continue;
      if (n.matches('li.alert')) note(n);
      else if (n.firstElementChild) n.querySelectorAll('li.alert').forEach(note);
    }
  }
}).observe(document, {childList: true, subtree: true, attributes: true, attributeFilter: ['class']});
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
    ap.add_argument("--compare", type=Path, default=None, help="another checkout's floor service, measured first")
    ap.add_argument("--tables", type=int, default=100)
    ap.add_argument("--fast", type=int, default=5, help="tables at tablectl simulate's pace")
    ap.add_argument("--fast-rate", type=float, default=60.0, help="messages a second of each fast table")
    ap.add_argument("--browsers", type=int, default=10)
    ap.add_argument("--logins", type=int, default=10, help="login attempts in flight all along")
    ap.add_argument("--alerts", type=int, default=300)
    ap.add_argument("--alert-rate", type=float, default=10.0, help="alerts a second, the whole room")
    ap.add_argument("--acks", type=int, default=30)
    ap.add_argument("--events", type=float, default=0.33, help="floor events a second per table")
    ap.add_argument("--hands", type=int, default=10_000)
    ap.add_argument("--releases", type=int, default=30, help="releases pressed (hand-for-hand), one every 2 s")
    args = ap.parse_args()
    results = []
    if args.compare is not None:
        results.append(("before (" + str(args.compare) + ")", measure(args, args.compare)))
    results.append(("this checkout", measure(args, None)))
    print()
    for name, r in results:
        print(f"{name}:")
        for line in r:
            print("  " + line)
    return 0


def measure(args: argparse.Namespace, code: Path | None) -> list[str]:
    out: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker", extra="max_queued_messages 200000\nmax_inflight_messages 200")
        broker.start()
        tables = [f"t{i:03d}" for i in range(args.tables)]
        extra = ""
        if code is None:  # (the tournament: this checkout's; the code before has none)
            (folder / "structure.toml").write_text("[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n")
            extra = (f'[floor.tournaments.bench]\nstructure = "structure.toml"\n'
                     f"tables = {json.dumps([f'bench/{t}' for t in tables])}\n")
        floor = FloorProc(folder, broker, code=code, extra=extra)
        # the service's own time (this checkout's: the code before measures none), written by it
        timings = folder / "timings.txt"
        os.environ["TABLECTL_FLOOR_TIMINGS"] = str(timings)
        names = [f"floor{i}" for i in range(args.browsers)]
        for n in names + [f"login{i}" for i in range(args.logins)] + ["poller", "director"]:
            assert adduser(floor.config, n, "floor", "bench-password", code=code).returncode == 0
        floor.start()
        assert floor.proc is not None
        pub = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="bench-tables")
        pub.max_inflight_messages_set(200)
        pub.connect("127.0.0.1", broker.port)
        pub.loop_start()
        fast = [f"f{i:02d}" for i in range(args.fast)]
        seqs = {t: 0 for t in tables + fast}
        lock = threading.Lock()

        def floor_msg(t: str, body: dict) -> int:
            with lock:
                seqs[t] += 1
                body["seq"] = seqs[t]
            pub.publish(f"tablectl/bench/{t}/events/floor", json.dumps(body), qos=1)
            return body["seq"]

        def state(t: str, hand: int) -> None:
            pub.publish(f"tablectl/bench/{t}/state", json.dumps(
                {"online": True, "room": "bench", "table": t, "devices": {"reader": True, "shuffler": True},
                 "game": "holdem", "hand": hand, "stub_count": 36, "deck_in_play": "A"}), qos=1, retain=True)

        for t in tables + fast:
            state(t, 1)

        def answer(client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
            """The tables' side of a command: an ack answered with its Ack (as a table's link does)."""
            body = json.loads(msg.payload)
            t = msg.topic.split("/")[2]
            if body.get("cmd") == "ack":
                floor_msg(t, {"type": "Ack", "ts": time.time(), "audience": "floor", "ack_seq": body["seq"],
                              "code": "deck.foreign_card", "user": body.get("user"), "command": body.get("id"),
                              **({"epoch": body["epoch"]} if "epoch" in body else {})})
            client.publish(f"tablectl/bench/{t}/cmd/reply", json.dumps({"ok": True, "id": body.get("id"),
                                                                         "cmd": body.get("cmd")}), qos=1)

        responder = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id="bench-answers")
        responder.on_message = answer
        responder.on_connect = lambda c, *a: c.subscribe("tablectl/bench/+/cmd", qos=1)
        responder.connect("127.0.0.1", broker.port)
        responder.loop_start()
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
                    state(t, 2 + n // 30)
                n += 1
                stop.wait(period)

        def fast_tables() -> None:  # tables catching up: simulate's pace, a state every 10 messages
            period = 1.0 / max(args.fast_rate * len(fast), 0.001)
            n = 0
            while not stop.is_set() and fast:
                t = fast[n % len(fast)]
                floor_msg(t, {"type": "Figures", "ts": time.time(), "hand": 2 + n // 400, "street": "flop",
                              "counts": {"seat:1": 2}, "burns": 1, "board": 3, "stub_count": 36, "next_to": None,
                              "button": 1, "audience": "floor"})
                if n % 10 == 0:
                    state(t, 2 + n // 400)
                n += 1
                stop.wait(period)

        def logins(i: int) -> None:  # a login in flight all along: argon2's work on the service
            data = f"name=login{i}&password=bench-password".encode()
            while not stop.is_set():
                try:
                    urllib.request.urlopen(urllib.request.Request(floor.url + "/login", data=data), timeout=30).close()
                except OSError:
                    pass

        room_times: list[float] = []

        # the poller's session, made before the logins in flight begin: behind them, from the same
        # address, its own login could wait out the whole run (one run measured no /api/room at all)
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(urllib.request.Request(floor.url + "/login", data=b"name=poller&password=bench-password"),
                    timeout=60).close()

        def poll_room() -> None:  # /api/room asked every 50 ms
            while not stop.is_set():
                t0 = time.perf_counter()
                try:
                    opener.open(floor.url + "/api/room", timeout=30).read()
                    room_times.append((time.perf_counter() - t0) * 1000.0)
                except OSError:
                    pass
                stop.wait(0.05)

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
            releases = Releases(floor, broker.port, tables) if code is None and args.releases else None
            workers = [threading.Thread(target=background, daemon=True),
                       threading.Thread(target=fast_tables, daemon=True),
                       threading.Thread(target=poll_room, daemon=True)]
            workers += [threading.Thread(target=logins, args=(i,), daemon=True) for i in range(args.logins)]
            for w in workers:
                w.start()
            if releases is not None:
                presses = threading.Thread(target=releases.press, args=(args.releases, stop), daemon=True)
                presses.start()
            clicked: dict[str, float] = {}
            every = max(1, args.alerts // max(args.acks, 1))
            for i in range(args.alerts):
                t = tables[(i * 7) % len(tables)]
                now = time.time()
                seq = floor_msg(t, {"type": "Alert", "ts": now, "audience": "floor", "card": "7h",
                                    "code": "deck.foreign_card", "hand": 2, "rule": "DECK-006", "seat": 3,
                                    "message": "7h is not a card of deck A"})
                published[f"bench/{t}#{seq}"] = now * 1000.0
                if i >= 10 and i % every == 0 and len(clicked) < args.acks:
                    # an alert of ten before, on a table of its own (each table's first ack)
                    key = list(published)[i - 10]
                    button = pages[0].query_selector(f'li[data-alert="{key}"] button.ack')
                    if button is not None:
                        clicked[key] = time.time() * 1000.0
                        button.click()
                time.sleep(1.0 / args.alert_rate)
            if releases is not None:
                presses.join(4 * args.releases + 60)  # (its presses, during the load)
            stop.set()
            for w in workers:
                w.join(30)

            def all_seen() -> bool:
                # (the page lists the newest 200: older ones may have scrolled off before a slow render)
                return all(pg.evaluate("Object.keys(window.__seen).length") >= min(len(published), 200)
                           for pg in pages)

            wait_until(all_seen, 120, what="the alerts rendered in every browser")
            wait_until(lambda: all(pg.evaluate("Object.keys(window.__acked).length") >= len(clicked)
                                   for pg in pages[1:]), 120, what="the acknowledgements shown in every browser")
            lat: list[float] = []
            acks: list[float] = []
            clicked.update({k: v for k, v in pages[0].evaluate("window.__clicked").items() if k in clicked})
            for pg in pages:
                seen = pg.evaluate("window.__seen")
                lat += [seen[k] - published[k] for k in published if k in seen]
            for pg in pages[1:]:
                acked = pg.evaluate("window.__acked")
                acks += [acked[k] - clicked[k] for k in clicked if k in acked]
            browser.close()
        out.append(f"alert published -> rendered, {args.tables} + {args.fast} fast tables, {args.browsers} browsers, "
                   f"{args.logins} logins in flight, {len(lat)} renderings: p50 {statistics.median(lat):.1f} ms, "
                   f"p99 {pct(lat, 0.99):.1f} ms, max {max(lat):.1f} ms")
        if acks:
            out.append(f"Acknowledge clicked -> shown acknowledged on the other {args.browsers - 1} browsers, "
                       f"{len(clicked)} acks, {len(acks)} renderings: p50 {statistics.median(acks):.1f} ms, "
                       f"p99 {pct(acks, 0.99):.1f} ms, max {max(acks):.1f} ms")
        if releases is not None:
            rel = releases.latencies()
            out.append(f"release pressed -> the signal at each table, {args.tables} tables, {releases.pressed} "
                       f"releases, {len(rel)} receipts (of {args.tables * releases.pressed}): "
                       f"p50 {statistics.median(rel):.1f} ms, p99 {pct(rel, 0.99):.1f} ms, max {max(rel):.1f} ms")
            releases.stop()
        if room_times:
            out.append(f"/api/room answered, {len(room_times)} requests: p50 {statistics.median(room_times):.1f} ms, "
                       f"p99 {pct(room_times, 0.99):.1f} ms, max {max(room_times):.1f} ms")

        rss_hands = rss_kb(floor.proc.pid)  # (after the load above: what the hands alone add is from here)
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
        rss_end = rss_kb(floor.proc.pid)
        out.append(f"memory: VmRSS {rss_start / 1024:.1f} MB at the start, {rss_hands / 1024:.1f} MB after the load "
                   f"above, {rss_end / 1024:.1f} MB after {args.hands} hands: +{(rss_end - rss_hands) / 1024:.1f} MB "
                   f"over the hands ({args.hands / took:.0f} hands/s stored, chain breaks {breaks})")
        pub.loop_stop()
        responder.loop_stop()
        for line in out:  # (the figures said before the stop: a floor slow to stop on a loaded machine loses none)
            print(("before: " if code is not None else "") + line, flush=True)
        try:
            floor.stop()
        except subprocess.TimeoutExpired:
            print("(the floor took more than 10 s to stop)", flush=True)
        broker.stop()
        mine = own_time(timings)
        for line in mine:
            print(line, flush=True)
        out += mine
    return out


def own_time(path: Path) -> list[str]:
    """The service's own time, as it measured it (``TABLECTL_FLOOR_TIMINGS``): inside its handlers
    and its push, each as wall time (which still holds the waits for a core while the browsers
    hold both) and as the CPU the service's thread used (its own work alone)."""
    if not path.exists():
        return []
    wall: dict[str, list[float]] = {}
    cpu: dict[str, list[float]] = {}
    for line in path.read_text().splitlines():
        what, *ms = line.split(" ")
        wall.setdefault(what, []).append(float(ms[0]))
        if len(ms) > 1:
            cpu.setdefault(what, []).append(float(ms[1]))
    names = {"alert_ingest": "an alert taken in (ingest, its tile and alert noted)",
             "push": "a push to every page (the changed tiles and alerts read, worded, sent)",
             "api_room": "/api/room's handler", "tournament_release": "a release (every table's signal published)"}
    out = []
    for what, v in sorted(wall.items()):
        line = (f"service's own time, {names.get(what, what)}, {len(v)} times: wall p50 {statistics.median(v):.2f} ms, "
                f"p99 {pct(v, 0.99):.2f} ms, max {max(v):.2f} ms")
        c = cpu.get(what)
        if c:
            line += f"; its CPU p50 {statistics.median(c):.2f} ms, p99 {pct(c, 0.99):.2f} ms, max {max(c):.2f} ms"
        out.append(line)
    return out


class Releases:
    """Hand-for-hand's releases pressed at the floor, and each table's fake link receiving them:
    one MQTT client per table subscribed to its own ``floor/tournament`` topic (as a table's link
    is), noting when each round first arrives."""

    def __init__(self, floor: FloorProc, port: int, tables: list[str]) -> None:
        self.floor, self.tables = floor, tables
        self.pressed_at: dict[int, float] = {}
        self.got: dict[tuple[str, int], float] = {}
        self.pressed = 0
        self._lock = threading.Lock()
        # (one thread on epoll for every table's client: paho's loop_start waits in select(),
        # which cannot take a descriptor past 1023, and at 500 tables the later tables' clients
        # never connected: "timed out after 90 s waiting for every release at every table")
        self.clients = ManyClients()
        for t in tables:
            c = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id=f"bench-table-{t}")
            c.on_message = self._received
            c.on_connect = lambda client, *a, t=t: client.subscribe(f"tablectl/bench/{t}/floor/tournament", qos=1)
            c.connect("127.0.0.1", port)
            self.clients.add(c)
        wait_until(lambda: all(c.is_connected() for c in self.clients.clients), 60, what="every table's link up")
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
        opener.open(urllib.request.Request(floor.url + "/login", data=b"name=director&password=bench-password"),
                    timeout=120).read()
        page = opener.open(floor.url + "/", timeout=60).read().decode()
        self.csrf = page.split('name="csrf-token" content="')[1].split('"')[0]
        self.opener = opener

    def _received(self, client: mqtt.Client, userdata: object, msg: mqtt.MQTTMessage) -> None:
        at = time.time()
        body = json.loads(msg.payload)
        key = (msg.topic.split("/")[2], body["h4h"]["round"])
        with self._lock:
            self.got.setdefault(key, at)

    def act(self, **body: object) -> None:
        req = urllib.request.Request(self.floor.url + "/api/tournament", method="POST",
                                     data=json.dumps({"tournament": "bench", **body}).encode(),
                                     headers={"X-CSRF-Token": self.csrf, "Content-Type": "application/json"})
        self.opener.open(req, timeout=60).read()

    def press(self, n: int, stop: threading.Event) -> None:
        """Hand-for-hand on, then ``n`` releases, one every 2 s."""
        self.act(action="h4h", on=True)
        for r in range(1, n + 1):
            stop.wait(2.0)
            self.pressed_at[r] = time.time()  # (the press: the request leaves the page)
            self.act(action="release")
            self.pressed = r

    def latencies(self) -> list[float]:
        """Press to receipt (ms) for every table and release, once every table has each (or 30 s)."""
        wait_until(lambda: all((t, r) in self.got for t in self.tables for r in self.pressed_at), 30,
                   what="every release at every table")
        with self._lock:
            return [(self.got[(t, r)] - at) * 1000.0 for r, at in self.pressed_at.items() for t in self.tables
                    if (t, r) in self.got]

    def stop(self) -> None:
        self.clients.stop()


if __name__ == "__main__":
    sys.exit(main())
