"""A floor service for the tests: a real mosquitto, ``tablectl floor`` as a real subprocess
with its own SQLite file, users made with ``tablectl floor adduser``, and :class:`FakeTable`, a
table's MQTT side as docs/room.md describes it (a retained ``state``, numbered ``events/floor``
alerts, the commands it receives on ``cmd`` kept as its journal, an ``ack`` answered with an
``Ack`` on ``events/floor`` naming the user)."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import signal
import sqlite3
import ssl
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from rig.broker import Broker, free_port, have_mosquitto
from rig.waiting import PATIENCE, wait_until

#: the tests' HTTPS client trusts the service's self-signed certificate (made by the test)
UNVERIFIED = ssl.create_default_context()
UNVERIFIED.check_hostname = False
UNVERIFIED.verify_mode = ssl.CERT_NONE
PASSWORDS = {"maria": "floor-pass-1", "tom": "tech-pass-22", "vic": "view-pass-333", "ana": "floor-pass-4444"}
ROLES = {"maria": "floor", "tom": "technician", "vic": "viewer", "ana": "floor"}
CLI = [sys.executable, "-m", "controller.cli.main"]


def cli(code: Path | None = None) -> list[str]:
    """The command that runs ``tablectl``: this checkout's, or ``code``'s (another checkout, for
    bench --compare). A checkout from before the tree of issue 37 has its CLI in
    ``tablectl/cli/main.py``: run by this module name, its own code is what runs; by this tree's
    module name, the editable install's (this checkout's) would be found instead, and a
    comparison would measure this checkout twice.

    >>> cli() == CLI
    True
    """
    if code is None or (code / "controller" / "cli" / "main.py").exists():
        return CLI
    if (code / "tablectl" / "cli" / "main.py").exists():
        return [sys.executable, "-m", "tablectl.cli.main"]
    raise FileNotFoundError(f"{code}: no tablectl command there (controller/cli/main.py or tablectl/cli/main.py)")


def adduser(config: Path, name: str, role: str, password: str, *,
            code: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``tablectl floor adduser`` itself (a subprocess, the password on its standard input);
    ``code``: another checkout's (bench/floor.py --compare: its database, its schema)."""
    env = dict(os.environ, PYTHONPATH=str(code)) if code is not None else None
    return subprocess.run([*cli(code), "floor", "adduser", name, "--role", role, "--config", str(config)],
                          input=password + "\n", capture_output=True, text=True, timeout=30, env=env,
                          cwd=str(code) if code is not None else None)


def cheap_hasher() -> Any:
    """argon2id at argon2-cffi's cheapest parameters (its ``profiles.CHEAPEST``, "for tests"): half a
    millisecond a hash or a check, not the service's 0.19 s of CPU. The floor checks a password by
    the parameters its stored hash carries, so a login of a user hashed so is the service's own
    code at that cost; the service's own parameters are tested where they are the point
    (test_floor_auth: ``tablectl floor adduser``, argon2id)."""
    from argon2 import PasswordHasher, profiles

    return PasswordHasher.from_parameters(profiles.CHEAPEST)


def add_users(floor: FloorProc, names: list[str] | None = None) -> None:
    """The tests' users, added in this process (``adduser``'s own code, without a Python start-up
    per user: the command itself is tested by test_floor_auth), hashed by :func:`cheap_hasher`."""
    from controller.floor.auth import add_user
    from controller.floor.store import Store

    store = Store(floor.database)
    try:
        hasher = cheap_hasher()
        for name in names or list(PASSWORDS):
            add_user(store, name, ROLES[name], PASSWORDS[name], by="test", hasher=hasher)
    finally:
        store.close()


@dataclass
class FloorProc:
    """``tablectl floor`` as a subprocess; :meth:`start` again after :meth:`stop` (a restart)."""

    folder: Path
    broker: Broker
    port: int = field(default_factory=free_port)
    proc: subprocess.Popen[bytes] | None = None
    #: more lines of [floor] (tls_cert and tls_key: HTTPS; a broker = of its own)
    extra: str = ""
    #: another checkout to run ``tablectl floor`` from (bench/floor.py --compare): its folder
    code: Path | None = None

    def __post_init__(self) -> None:
        self.config = self.folder / "floor.toml"
        self.database = self.folder / "floor.db"
        self.log = self.folder / "floor.log"
        broker = "" if "broker =" in self.extra else f'broker = "{self.broker.url}"\n'
        self.config.write_text(f'[floor]\n{broker}port = {self.port}\ndatabase = "{self.database}"\n'
                               f'client_id = "floor-test-{self.port}"\n{self.extra}\n')

    @property
    def url(self) -> str:
        return f"{'https' if 'tls_cert' in self.extra else 'http'}://127.0.0.1:{self.port}"

    def start(self, *, ready: bool = True) -> None:
        """Start the service; return once it serves HTTP and the broker has its subscriptions.
        Not at its "connected to": it subscribes after that line, and a table's message published
        in between (an alert: not retained) never reaches a new session. ``ready=False``: return
        once the process runs (a test that must act while a backlog is still flowing in: on a
        quiet machine the floor has taken most of a backlog of thousands before it says it is up)."""

        # only this start's lines count: a restart appends to the logs of the runs before it
        since = self.log.stat().st_size if self.log.exists() else 0
        broker_since = self.broker.log.stat().st_size if self.broker.log.exists() else 0
        env = dict(os.environ, PYTHONPATH=str(self.code)) if self.code is not None else None
        self.proc = subprocess.Popen([*cli(self.code), "floor", "--config", str(self.config)],
                                     stdout=subprocess.DEVNULL, stderr=self.log.open("ab"), env=env,
                                     cwd=str(self.code) if self.code is not None else None)
        if not ready:
            return

        def up() -> bool:
            assert self.proc is not None
            assert self.proc.poll() is None, f"tablectl floor exited: {self.log.read_text()}"
            try:
                urllib.request.urlopen(self.url + "/login", timeout=1, context=UNVERIFIED).close()
            except OSError:
                return False
            return self._subscribed(since, broker_since)

        wait_until(up, 20, what="tablectl floor listening and subscribed")

    def _subscribed(self, since: int, broker_since: int) -> bool:
        """The floor's log says the broker acknowledged its subscriptions (its SUBACK), since byte
        ``since``; a subscription refused fails the test here, not as a missing alert later. A
        floor of another checkout (:attr:`code`: bench/floor.py --compare) may be older than that
        line: the broker's own log says it sent the SUBACK then."""
        if self.code is not None:
            with self.broker.log.open("rb") as f:
                f.seek(broker_since)
                return f"Sending SUBACK to floor-test-{self.port}".encode() in f.read()
        with self.log.open("rb") as f:
            f.seek(since)
            said = f.read().decode(errors="replace")
        assert "refused the subscription" not in said, f"the broker refused the floor a subscription: {said}"
        return "floor: subscribed to" in said

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None

    def signal(self, sig: int, timeout: float = 30.0) -> int:
        """The service sent ``sig`` (SIGTERM: a stop; SIGKILL: a crash, or the power cut as the
        service sees it) and waited for; returns its exit status. After a SIGKILL its own processes
        (the password checks') are killed too, as systemd kills what is left of a unit's control
        group: left alone they would outlive the test."""
        assert self.proc is not None
        left = _descendants(self.proc.pid) if sig == signal.SIGKILL else []
        self.proc.send_signal(sig)
        status = self.proc.wait(timeout)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        self.proc = None
        return status

    def kept(self, topic: str = "events/floor") -> int:
        """How many messages of ``topic`` the service has committed (its database, read as another
        process reads it: what a crash now would leave)."""
        if not self.database.exists():
            return 0
        try:
            with contextlib.closing(sqlite3.connect(f"file:{self.database}?mode=ro", uri=True, timeout=1)) as db:
                return int(db.execute("SELECT count(*) FROM messages WHERE topic = ?", (topic,)).fetchone()[0])
        except sqlite3.OperationalError:  # (the service still making its tables, or busy: asked again)
            return 0


def _descendants(pid: int) -> list[int]:
    """Every process started by ``pid``, and by those (Linux: /proc's children lists)."""
    found, todo = [], [pid]
    while todo:
        for children in Path(f"/proc/{todo.pop()}/task").glob("*/children"):
            with contextlib.suppress(OSError):
                kids = [int(k) for k in children.read_text().split()]
                found += kids
                todo += kids
    return found


class FakeTable:
    """A table's link as the floor sees it (docs/room.md's topics and payloads)."""

    def __init__(self, broker: Broker, room: str = "main", table: str = "t7", *, user: str | None = None,
                 password: str | None = None, ca: Path | None = None, signer: Any = None,
                 client_id: str | None = None) -> None:
        """``client_id``: the MQTT client id (default ``fake-<room>-<table>``); a real table's
        (``tablectl-<room>-<table>``) makes this its earlier journal, whose broker session the
        real table takes over."""
        self.prefix = f"tablectl/{room}/{table}"
        #: the table's signing key (controller.room.signing.Signer): its records signed
        self.signer = signer
        self.room, self.table = room, table
        self.seq = 0
        self.sent: dict[int, dict[str, Any]] = {}  # events/floor by seq: the outbox a replay reads
        self.hand_seq = 0
        self.dealer_seq = 0  # events/dealer's own numbering
        self.last_hash = "0" * 64
        self.commands: list[dict[str, Any]] = []  # what the table journalled (room_commands)
        self._lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5,
                                  client_id=client_id or f"fake-{room}-{table}")
        self.client.reconnect_delay_set(min_delay=0.2, max_delay=1)
        self.client.on_message = self._on_message
        if user is not None:
            self.client.username_pw_set(user, password)
        if ca is not None:
            self.client.tls_set(ca_certs=str(ca))
        self.ready = threading.Event()
        self.last_state: dict[str, Any] | None = None
        #: a table that takes its commands in and never answers (a command that times out)
        self.silent = False
        #: a table of a release before issue 38 that could not read the commands it gets: each
        #: refused with this reason and ``"id": null`` (it named no id when a request could not be
        #: read whole); None: it reads them
        self.unread: str | None = None
        #: the manifests in the table's ``[control] manifests`` folder: a ``decks`` naming another
        #: is refused, as the table refuses a file it does not have
        self.manifests = {"A.txt", "B.txt", "C.txt", "D.txt"}
        self.client.on_subscribe = self._on_subscribe
        self.client.on_connect = lambda c, *a: c.subscribe(f"{self.prefix}/cmd", qos=1)
        self._port = broker.tls_port if ca is not None else broker.port
        self._connect()
        self.client.loop_start()
        wait_until(self.ready.is_set, 10, what="the fake table's subscription")

    def _connect(self) -> None:
        """A persistent session, as the real link keeps (docs/room.md, "Commands"): commands
        sent while the table is away wait in the broker for it."""
        from paho.mqtt.packettypes import PacketTypes
        from paho.mqtt.properties import Properties

        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = 3600
        self.client.connect("127.0.0.1", self._port, clean_start=False, properties=props)

    def go_offline(self) -> None:
        """The table vanishes: the broker's will (its retained offline state), the link gone."""
        self.publish("state", {"online": False, "room": self.room, "table": self.table}, retain=True)
        self.ready.clear()
        self.client.disconnect()
        self.client.loop_stop()

    def come_back(self) -> None:
        """The table back: the same session (its queued commands delivered), its state again."""
        self._connect()
        self.client.loop_start()
        wait_until(self.ready.is_set, 10, what="the fake table back on the broker")

    def _on_subscribe(self, client: Any, *args: Any) -> None:
        """Connected and listening to its cmd (again, after a broker restart): the table's link
        publishes its state then, as the real link does on each connect."""
        self.ready.set()
        if self.last_state is not None:
            client.publish(f"{self.prefix}/state", json.dumps(self.last_state), qos=1, retain=True)

    def publish_raw(self, topic: str, payload: bytes) -> None:
        """``payload`` as it is on the table's ``topic`` (what no table sends: not JSON, NaN...)."""
        self.client.publish(f"{self.prefix}/{topic}", payload, qos=1).wait_for_publish(10)

    def publish(self, topic: str, body: dict[str, Any], *, retain: bool = False, sign: bool = True) -> None:
        if sign and self.signer is not None and topic in ("hands", "events/floor", "events/dealer"):
            body = {**body, "sig": self.signer.sign(body, f"{self.room}/{self.table}/{topic}")}
        self.client.publish(f"{self.prefix}/{topic}", json.dumps(body), qos=1, retain=retain).wait_for_publish(10)

    def state(self, **extra: Any) -> None:
        body = {"online": True, "room": self.room, "table": self.table, "devices": {"reader": True, "shuffler": True},
                "game": "holdem", "seats": [1, 2, 3, 4, 5], "hand": 12, "button": 3, "hands_finished": 11,
                "stub_count": 36, "deck_in_play": "A", "clock": "set", "outbox": {"unacked": 0, "dropped": 0}}
        body.update(extra)
        self.last_state = body
        self.publish("state", body, retain=True)

    def next_seq(self) -> int:
        with self._lock:
            self.seq += 1
            return self.seq

    def foul_card(self, card: str = "7h", seat: int = 2, *, lost: bool = False, dealer: str | None = None) -> int:
        """A foreign card (DECK-006) dealt to ``seat``: the floor alert as the table routes it;
        ``lost``: numbered and kept but never reaching the broker (a gap the floor must see);
        ``dealer``: the dealer the table had named (RELIEF-003)."""
        seq = self.next_seq()
        body = {"type": "Alert", "ts": time.time(), "audience": "floor", "card": card,
                "code": "deck.foreign_card", "hand": 12, "rule": "DECK-006", "seat": seat,
                "message": f"{card} is not a card of deck A", "seq": seq, **({"dealer": dealer} if dealer else {})}
        self.sent[seq] = body
        if not lost:
            self.publish("events/floor", body)
        return seq

    def backlog(self, n: int, *, timeout: float = 120.0) -> list[int]:
        """``n`` foreign-card alerts published at once, as a table's outbox sends what piled up while
        the floor was away: each QoS 1, the broker's acknowledgements waited for at the end, not
        one by one. Returns their seqs."""
        infos, seqs = [], []
        for i in range(n):
            seq = self.next_seq()
            body = {"type": "Alert", "ts": time.time(), "audience": "floor", "card": "7h",
                    "code": "deck.foreign_card", "hand": 12 + i // 50, "rule": "DECK-006", "seat": 1 + i % 9,
                    "message": "7h is not a card of deck A", "seq": seq}
            self.sent[seq] = body
            payload = json.dumps(self._signed(body, "events/floor"))
            infos.append(self.client.publish(f"{self.prefix}/events/floor", payload, qos=1))
            seqs.append(seq)
        deadline = time.monotonic() + timeout
        for info in infos:
            info.wait_for_publish(max(0.1, deadline - time.monotonic()))
            assert info.is_published(), f"the broker did not take the backlog within {timeout:g} s"
        return seqs

    def floor_call(self, *, ago: float = 0.0) -> int:
        """The dealer's ``floor`` pad: a ``floor.call`` alert (controller/core/table/table.py), raised ``ago``
        seconds before now (a call that has waited)."""
        seq = self.next_seq()
        body = {"type": "Alert", "ts": time.time() - ago, "audience": "floor", "code": "floor.call", "hand": 12,
                "message": "the dealer calls the floor", "rule": None, "seat": None, "card": None, "seq": seq}
        self.sent[seq] = body
        self.publish("events/floor", body)
        return seq

    def incident(self, code: str = "misdeal.seat_skipped", rule: str | None = "MISD-006", *, seat: int | None = 4,
                 hand: int = 12, message: str = "seat 4 was skipped: misdeal", count: int | None = None) -> int:
        """A dealer's alert on ``events/dealer`` (a misdeal, a procedure, a device), numbered on
        that topic, as the table routes an alert addressed to the dealer."""
        with self._lock:
            self.dealer_seq += 1
            seq = self.dealer_seq
        body = {"type": "Alert", "ts": time.time(), "audience": "dealer", "code": code, "rule": rule, "seat": seat,
                "hand": hand, "message": message, "seq": seq, **({"count": count} if count is not None else {})}
        self.publish("events/dealer", body)
        return seq

    def hand(self, *, prev: str | None = None, record: dict[str, Any] | None = None, sign: bool = True) -> int:
        """A finished hand on ``hands``, chained (docs/room.md: SHA-256 of the canonical JSON
        without ``hash``, written out here); ``prev`` given: a broken link; ``sign`` False: no
        signature, however valid the chain."""
        self.hand_seq += 1
        number = record.get("hand", self.hand_seq) if record else self.hand_seq
        body = {"type": "HandFinished", "hand": number, "ts": time.time(),
                "record": record or {"hand": self.hand_seq, "stub_count": 36}, "seq": self.hand_seq,
                "prev": self.last_hash if prev is None else prev}
        body["hash"] = hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
        self.last_hash = body["hash"]
        self.publish("hands", body, sign=sign)
        return self.hand_seq

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        body = json.loads(msg.payload)
        with self._lock:
            self.commands.append(body)
        if self.silent:
            return
        if self.unread is not None:
            client.publish(f"{self.prefix}/cmd/reply", json.dumps({"ok": False, "id": None, "error": self.unread}),
                           qos=1)
            return
        reply: dict[str, Any] = {"ok": True, "id": body.get("id"), "cmd": body.get("cmd")}
        missing = [d.get("manifest") for d in body.get("decks", []) if d.get("manifest") not in self.manifests]
        if body.get("cmd") == "decks" and missing:
            reply = {"ok": False, "id": body.get("id"),
                     "error": f"decks: manifest {missing[0]!r} in /etc/tablectl/manifests: no such file"}
        if body.get("cmd") == "replay" and body.get("topic") == "events/floor":
            again = [self.sent[s] for s in sorted(self.sent) if s >= body["from"]]
            for m in again:
                client.publish(f"{self.prefix}/events/floor", json.dumps(self._signed(m, "events/floor")), qos=1)
            reply.update(topic="events/floor", sent=len(again))
        if body.get("cmd") == "ack":
            seq = self.next_seq()
            self.sent[seq] = {"type": "Ack", "ts": 1767225700.0 + seq, "audience": "floor", "ack_seq": body["seq"],
                              "code": "deck.foreign_card", "user": body["user"], "command": body["id"], "seq": seq}
            client.publish(f"{self.prefix}/events/floor", json.dumps(self._signed(self.sent[seq], "events/floor")),
                           qos=1)
        client.publish(f"{self.prefix}/cmd/reply", json.dumps(reply), qos=1)

    def _signed(self, body: dict[str, Any], topic: str) -> dict[str, Any]:
        if self.signer is None:
            return body
        return {**body, "sig": self.signer.sign(body, f"{self.room}/{self.table}/{topic}")}

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def login(floor: FloorProc, name: str, password: str | None = None) -> tuple[int, str]:
    """(status, the session cookie's whole Set-Cookie header)."""
    pw = PASSWORDS[name] if password is None else password
    status, headers, _ = request(floor.url + "/login", data=f"name={name}&password={pw}".encode(), method="POST")
    return status, headers.get("Set-Cookie", "")


def cookie_of(set_cookie: str) -> str:
    return set_cookie.split(";")[0]


def csrf_of(floor: FloorProc, cookie: str) -> str:
    status, _, body = request(floor.url + "/", headers={"Cookie": cookie})
    if status != 200:
        raise AssertionError(f"the floor's page answered {status}, not 200")
    return body.decode().split('name="csrf-token" content="')[1].split('"')[0]


def api_room(floor: FloorProc, cookie: str) -> dict[str, Any]:
    status, _, body = request(floor.url + "/api/room", headers={"Cookie": cookie})
    if status != 200:
        raise AssertionError(f"/api/room answered {status}, not 200")
    return dict(json.loads(body))


@contextlib.contextmanager
def floor_room(folder: Path) -> Iterator[tuple[FloorProc, FakeTable]]:
    """A room for the floor's request tests: a broker, ``tablectl floor`` with the four users of
    :data:`PASSWORDS`, and one fake table (t7) that has published its state; all stopped after.
    A test module makes it its module-scoped fixture; without mosquitto, the test is skipped
    (scripts/test installs it)."""
    import pytest  # (the rig is the tests'; only this helper skips)

    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    try:
        floor = FloorProc(folder, broker)
        add_users(floor)
        floor.start()
        try:
            table = FakeTable(broker)
            table.state()
            try:
                yield floor, table
            finally:
                table.stop()
        finally:
            floor.stop()
    finally:
        broker.stop()


def request(url: str, *, data: bytes | None = None, headers: dict[str, str] | None = None,
            method: str | None = None) -> tuple[int, dict[str, str], bytes]:
    """One HTTP request without following redirects: (status, headers, body)."""
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *a: Any, **k: Any) -> None:
            return None

    opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPSHandler(context=UNVERIFIED))
    req = urllib.request.Request(url, data=data, headers=headers or {}, method=method)
    try:  # (the rig's patience, as every other deadline of the tests: a login's argon2 on a busy machine)
        with opener.open(req, timeout=10 * PATIENCE) as r:
            return r.status, dict(r.headers), r.read()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read()


def has_card(text: str, card: str) -> bool:
    """``card`` (``Jc``, ``2h@B``) named in ``text`` as a word of its own: not inside a random
    token (the page's CSRF token, a session id), where two letters may fall that way by chance."""
    return re.search(rf"(?<![A-Za-z0-9_-]){re.escape(card)}(?![A-Za-z0-9_-])", text) is not None
