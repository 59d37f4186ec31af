"""The room link: the outbox published to the room's MQTT broker, in order, QoS 1 (docs/room.md).

One paho-mqtt client (MQTT 5, falling back to 3.1.1 for a broker that refuses 5), driven by one
thread here that both publishes and runs the client's network loop (paho's ``loop_read``,
``loop_write`` and ``loop_misc`` under our own ``select``): a message costs one thread, not a
hand-over between two (about 20 µs of CPU a message instead of about 100 with ``loop_start``;
``bench/room.py``).

- at start it publishes from the first row the broker never acknowledged (a power cut, a
  SIGKILL: whatever was sent and not acknowledged goes again; a subscriber dedupes by ``seq``);
- while connected it publishes the rows in order, at most :data:`WINDOW` unacknowledged at once;
- a broker outage or a network cut: once reconnected, it publishes again from the first row the
  broker has not acknowledged, in order (paho's own resend queue is emptied at the disconnect);
- each PUBACK marks its row acknowledged in the journal (in batches); a PUBACK that refuses
  (MQTT 5 reason code 128 or more: the ACL) marks it refused, counted, never resent;
- ``state`` (retained) says online with the devices and the game; the MQTT will says offline,
  so the broker announces a table that vanished;
- it subscribes to the table's own ``cmd`` (the floor's commands) and to its retained tournament
  signal (``floor/tournament``, :mod:`controller.room.tournament`), both QoS 1, at every connect (a
  link that comes back reads the signal as it is now); each message goes to its callback, on
  this thread: the callback never touches the table (the daemon's loop does);
- before the clock is set (a Pi without NTP) it does not connect (TLS would refuse the broker's
  certificate as "not yet valid"): one log line, and ``waiting_for_clock`` in :meth:`status`.
"""

from __future__ import annotations

import json
import logging
import os
import select
import ssl
import threading
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.properties import Properties
from paho.mqtt.packettypes import PacketTypes

from controller.room import outbox as ob
from controller.room.tournament import tournament_topic
from controller.config.room import RoomConfig

log = logging.getLogger("tablectl.room")

#: rows published and not yet acknowledged, at most
WINDOW = 200
#: how long the broker keeps a table's session (its queued commands) while the table is away: a day
SESSION_EXPIRY = 24 * 3600
#: the earliest a clock may say before it is taken as set (2026-01-01 UTC): a Pi without NTP
#: starts at its image's date or 1970
CLOCK_SET_AFTER = 1_767_225_600.0
#: seconds between two compactions of the outbox
COMPACT_EVERY = 300.0
#: seconds between two counts of the outbox for ``state``
STATE_COUNTS_EVERY = 10.0
#: the broker's acknowledgements are written to the outbox at most this often (seconds) or by
#: the hundred: one transaction a message would cost the table more than the message itself. An
#: ack not yet written when the power goes is a message sent again, which subscribers dedupe.
ACKS_EVERY = 0.25
ACKS_BATCH = 100
#: the longest the link sleeps when nothing is due (seconds): its state is published at the next
#: step after a change, and a change nearly always comes with rows, which wake it at once; a
#: shorter sleep costs an idle table CPU for nothing (bench/room.py, "paced")
IDLE_STEP = 2.0
#: the first and the longest wait between two attempts to reach the broker, in seconds
RECONNECT_FIRST, RECONNECT_MAX = 1.0, 5.0


class RoomLink:
    """Publishes a journal's outbox to the broker of ``cfg``; see the module."""

    def __init__(self, cfg: RoomConfig, journal: Any, *, state: Callable[[], dict[str, Any]],
                 on_command: Callable[[bytes, str | None], dict[str, Any] | None] | None = None,
                 clock: Callable[[], float] = time.time, wall: Callable[[], float] = time.time,
                 on_status: Callable[[str], None] | None = None,
                 on_signal: Callable[[bytes], None] | None = None) -> None:
        """``state``: the table's public state (for ``state``); ``on_command``: takes one ``cmd``
        payload (and its MQTT 5 correlation), returns the reply to publish on ``cmd/reply``;
        ``on_signal``: takes each message of the table's tournament signal (on the link's thread).
        ``clock`` stamps effects (the broadcast delay is measured on it); ``wall`` is the
        system clock (waited on until it is set). ``on_status``: told the link's state in a few
        words when the clock wait begins and ends (the daemon's systemd STATUS line)."""
        self._on_status = on_status
        self.cfg = cfg
        self.journal = journal
        self._state = state
        self._on_command = on_command
        self._on_signal = on_signal
        self.clock, self.wall = clock, wall
        self.prefix = cfg.prefix
        self.signal_topic = tournament_topic(cfg.room, cfg.table)
        self._lock = threading.Lock()
        # A pipe that wakes the link thread's select: the main loop's notify(), stop().
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._stop = threading.Event()
        self._inflight: dict[int, int] = {}  # mid -> outbox row id
        self._early: dict[int, Any] = {}  # mid -> the PUBACK's reason, for a mid not noted yet
        self._generation = 0  # one more at each disconnect: a batch begun before it stops
        self._acked: list[int] = []
        self._acks_at = 0.0  # (monotonic) when the acks were last written
        self._flush_acks = False  # wait_acked(): write them at the next step, whatever the time
        self._refused: list[int] = []
        self._cursor = 0  # the last non-broadcast row published by this process
        self._bcursor = 0  # the last broadcast row published
        self.connected = False
        self.waiting_for_clock = False
        self.published = 0
        self.last_error: str | None = None
        self._last_state: str | None = None
        self._outbox_state: dict[str, int] | None = None
        self._outbox_at = 0.0
        self._protocol = mqtt.MQTTv5
        self._thread: threading.Thread | None = None
        self._client = self._make_client()

    # -- the client ---------------------------------------------------------------------------
    def _make_client(self) -> mqtt.Client:
        cfg = self.cfg
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"tablectl-{cfg.room}-{cfg.table}",
                        protocol=self._protocol,
                        **({} if self._protocol == mqtt.MQTTv5 else {"clean_session": False}))
        c.max_inflight_messages_set(WINDOW)
        c.max_queued_messages_set(0)
        if cfg.tls:
            c.tls_set(ca_certs=cfg.ca_file, certfile=cfg.cert_file, keyfile=cfg.key_file,
                      cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        if cfg.username is not None:
            c.username_pw_set(cfg.username, cfg.password())
        c.will_set(f"{self.prefix}/state", self._offline(), qos=1, retain=True)
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_publish = self._on_publish
        c.on_message = self._on_message
        return c

    def _offline(self) -> str:
        return json.dumps({"online": False, "room": self.cfg.room, "table": self.cfg.table}, separators=(",", ":"))

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_error = f"the broker refused the connection: {reason}"
            if reason.value in (1, 132) and self._protocol == mqtt.MQTTv5:  # unsupported protocol version (3.1.1: 1)
                self.last_error += "; falling back to MQTT 3.1.1"
                self._protocol = mqtt.MQTTv311
            log.error("room: %s (%s)", self.last_error, self.cfg.broker)
            return
        self.connected = True
        self.last_error = None
        log.info("room: connected to %s as %s (MQTT %s)", self.cfg.broker, self.prefix,
                 "5" if self._protocol == mqtt.MQTTv5 else "3.1.1")
        topics = [(f"{self.prefix}/cmd", 1)] + ([(self.signal_topic, 1)] if self._on_signal is not None else [])
        client.subscribe(topics)  # (again at every connect: the broker sends the signal retained then)
        self._last_state = None
        self.publish_state()
        self._poke()

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if self.connected:
            log.warning("room: disconnected from %s (%s); the outbox keeps what is not acknowledged",
                        self.cfg.broker, reason)
        self.connected = False
        # paho would resend what was in flight on reconnecting, but only after on_connect, when
        # the publisher may already be sending newer rows: out of order. Its queue is emptied
        # here instead (its own lock is re-entrant, and held by this thread if at all), and the
        # publisher starts again from the first row the broker has not acknowledged.
        with client._out_message_mutex:
            client._out_messages.clear()
            client._inflight_messages = 0
        with self._lock:
            self._inflight.clear()
            self._early.clear()
            self._cursor = self._bcursor = 0
            self._generation += 1

    def _on_publish(self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any) -> None:
        with self._lock:
            row = self._inflight.pop(mid, None)
            if row is None:  # acknowledged before _send noted it (never hold a lock over publish:
                self._early[mid] = reason  # paho holds its own while it calls this)
                return
            failed = getattr(reason, "is_failure", False)
            if failed:
                self._refused.append(row)
            else:
                self._acked.append(row)
            # An ack needs no step of its own (they are written in batches, within a step's
            # timeout); a refusal is said at once, and a full window freed lets rows go.
            wake = failed or len(self._inflight) == WINDOW - 1
        if wake:
            self._poke()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        if msg.topic == self.signal_topic and self._on_signal is not None:
            try:
                self._on_signal(bytes(msg.payload))
            except Exception:  # noqa: BLE001 (a bug costs one signal, never the link)
                log.exception("room: failed on the floor's tournament signal")
            self._poke()  # (the state's counts may have changed: published at the next step)
            return
        if self._on_command is None or msg.topic != f"{self.prefix}/cmd":
            return
        corr = getattr(getattr(msg, "properties", None), "CorrelationData", None)
        try:
            reply = self._on_command(msg.payload, corr.hex() if isinstance(corr, bytes) else None)
        except Exception:  # noqa: BLE001 (a bug costs one reply, never the link)
            log.exception("room: failed on a command")
            reply = {"ok": False, "error": "the table failed on this command (its log says why)"}
        if reply is not None:
            self.reply(reply, corr if isinstance(corr, bytes) else None)

    def reply(self, body: dict[str, Any], corr: bytes | None = None) -> None:
        props = None
        if corr is not None and self._protocol == mqtt.MQTTv5:
            props = Properties(PacketTypes.PUBLISH)
            props.CorrelationData = corr
        self._client.publish(f"{self.prefix}/cmd/reply", json.dumps(body, separators=(",", ":")), qos=1,
                             properties=props)

    def send_raw(self, topic: str, payload: str) -> None:
        """Publish outside the outbox (a ``replay``'s copies), QoS 1."""
        self._client.publish(f"{self.prefix}/{topic}", payload, qos=1)

    # -- state --------------------------------------------------------------------------------
    def publish_state(self) -> None:
        """The retained ``state``, if it changed (and on every connect)."""
        try:
            body = dict(self._state())
        except Exception:  # noqa: BLE001 (the table's state is read from another thread)
            return
        body.update(online=True, room=self.cfg.room, table=self.cfg.table,
                    clock="waiting for time sync" if self.waiting_for_clock else "set")
        now = time.monotonic()
        if self._outbox_state is None or now - self._outbox_at >= STATE_COUNTS_EVERY:
            counts = self.counts()  # (not at every step: a count of the outbox is not free)
            self._outbox_state = {"unacked": counts["unacked"], "dropped": counts["dropped"]}
            self._outbox_at = now
        body["outbox"] = self._outbox_state
        text = json.dumps(body, sort_keys=True, separators=(",", ":"))
        if text == self._last_state or not self.connected:
            return
        self._last_state = text
        self._client.publish(f"{self.prefix}/state", text, qos=1, retain=True)

    # -- the publisher ------------------------------------------------------------------------
    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="room-link", daemon=True)
        self._thread.start()

    def notify(self) -> None:
        """New rows in the outbox (the main loop, after each event that made some)."""
        self._poke()

    def _poke(self) -> None:
        """Wake the link thread out of its select (any thread)."""
        try:
            os.write(self._wake_w, b"\0")
        except (BlockingIOError, OSError):
            pass  # (full: a wake is pending anyway; closed: the link has stopped)

    def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``, or less if poked."""
        try:
            r, _, _ = select.select([self._wake_r], [], [], seconds)
        except (OSError, ValueError):
            return
        if r:
            self._drain_wake()

    def _drain_wake(self) -> None:
        try:
            while os.read(self._wake_r, 4096):
                pass
        except (BlockingIOError, OSError):
            pass

    def _pump(self, timeout: float) -> bool:
        """One turn of the client's network loop: wait up to ``timeout`` seconds for the
        broker's socket or a poke, then read, write and keep alive. False once the connection
        is gone (paho has called on_disconnect)."""
        c = self._client
        sock = c.socket()
        if sock is None:
            return False
        pending = getattr(sock, "pending", None)  # (TLS: bytes already decrypted, select misses them)
        if pending is not None and pending():
            timeout = 0.0
        try:
            r, _, _ = select.select([sock, self._wake_r], [sock] if c.want_write() else [], [], timeout)
        except (OSError, ValueError):  # the socket closed under us
            r = [sock]
        if self._wake_r in r:
            self._drain_wake()
        rc = mqtt.MQTT_ERR_SUCCESS
        if sock in r or (pending is not None and pending()):
            rc = c.loop_read()
        if rc == mqtt.MQTT_ERR_SUCCESS and c.want_write():
            rc = c.loop_write()
        if rc == mqtt.MQTT_ERR_SUCCESS:
            rc = c.loop_misc()
        return rc == mqtt.MQTT_ERR_SUCCESS and c.socket() is not None

    def _connect(self) -> bool:
        """Open the connection (TCP, TLS, CONNECT); the CONNACK comes through :meth:`_pump`."""
        try:
            if self._protocol == mqtt.MQTTv5:
                # A persistent session: the floor's commands to a table that is away wait in the
                # broker (QoS 1) and are delivered when it is back (docs/room.md, "Commands").
                props = Properties(PacketTypes.CONNECT)
                props.SessionExpiryInterval = SESSION_EXPIRY
                self._client.connect(self.cfg.host, self.cfg.port, keepalive=15, clean_start=False,
                                     properties=props)
            else:
                self._client.connect(self.cfg.host, self.cfg.port, keepalive=15)
        except (OSError, ValueError) as exc:  # (ssl.SSLError is an OSError)
            error = f"cannot reach the broker: {exc}"
            if error != self.last_error:
                log.warning("room: %s (%s); trying again", error, self.cfg.broker)
            self.last_error = error
            return False
        return True

    def _wait_clock(self) -> bool:
        if self.wall() >= CLOCK_SET_AFTER:
            if self.waiting_for_clock:
                log.info("room: the clock is set; connecting to %s", self.cfg.broker)
                self._status(f"room: connecting to {self.cfg.broker}")
            self.waiting_for_clock = False
            return True
        if not self.waiting_for_clock:
            log.warning("room: waiting for the clock to be set (time sync, docs/room.md \"Time\") before "
                        "connecting to %s: TLS refuses certificates \"not yet valid\" on an unset clock",
                        self.cfg.broker)
            self._status("room: waiting for the clock to be set (time sync)")
        self.waiting_for_clock = True
        return False

    def _status(self, text: str) -> None:
        if self._on_status is not None:
            try:
                self._on_status(text)
            except Exception:  # noqa: BLE001 (a status line must never stop the link)
                log.debug("room: the status callback failed", exc_info=True)

    def _run(self) -> None:
        while not self._stop.is_set() and not self._wait_clock():
            self._sleep(1.0)
        if self._stop.is_set():
            return
        protocol = self._protocol
        up = False
        delay = RECONNECT_FIRST
        last_compact = 0.0
        while not self._stop.is_set():
            if not up:
                if self._protocol != protocol:  # the broker wants 3.1.1: a client of that
                    protocol = self._protocol
                    self._client = self._make_client()
                up = self._connect()
                if not up:
                    self._sleep(delay)
                    delay = min(RECONNECT_MAX, delay * 2)
                    continue
            timeout = self._step()
            now = time.monotonic()
            if now - last_compact >= COMPACT_EVERY:
                last_compact = now
                self.compact()
            up = self._pump(timeout)
            if self.connected:
                delay = RECONNECT_FIRST
            elif not up and self._protocol == protocol:
                self._sleep(delay)  # (the broker closed on us, or refused us: not at once again)
                delay = min(RECONNECT_MAX, delay * 2)
            # (refused for MQTT 5 only: the 3.1.1 client tries at once)

    def _step(self) -> float:
        """Record the acks, publish what may go; the seconds until something else is due."""
        now = time.monotonic()
        with self._lock:
            due = self._flush_acks or len(self._acked) >= ACKS_BATCH or now - self._acks_at >= ACKS_EVERY
            acked, self._acked = (self._acked, []) if due else ([], self._acked)
            held = len(self._acked)
            refused, self._refused = self._refused, []
        if due:
            self._flush_acks = False
            self._acks_at = now
        if acked:
            self.journal.with_db(lambda db: ob.mark(db, acked), durable=False)
        if refused:
            self.journal.with_db(lambda db: ob.mark(db, refused, ob.REFUSED))
            log.error("room: the broker refused %d message(s) (its ACL?): they are not resent", len(refused))
        if not self.connected:
            return 0.5
        if held:  # (the acks held back are written within ACKS_EVERY, events or not)
            return min(self._publish(), max(0.005, self._acks_at + ACKS_EVERY - now))
        return self._publish()

    def _publish(self) -> float:
        """Publish the state if it changed and the rows that may go; the seconds until the next
        broadcast row is due (:data:`IDLE_STEP` at most)."""
        self.publish_state()
        room = WINDOW - len(self._inflight)
        if room > 0:
            rows = self.journal.with_db(lambda db: ob.pending(db, self._cursor, room))
            self._send(rows, broadcast=False)
        delay = self.cfg.broadcast_delay
        if delay is None:
            return IDLE_STEP
        room = WINDOW - len(self._inflight)
        if room > 0:
            now = self.clock()
            rows = self.journal.with_db(lambda db: ob.pending(db, self._bcursor, room, broadcast=True,
                                                              broadcast_before=now - delay))
            self._send(rows, broadcast=True)
        nxt = self.journal.with_db(lambda db: db.execute(
            "SELECT min(ts) FROM outbox WHERE acked = 0 AND topic = 'broadcast' AND id > ?",
            (self._bcursor,)).fetchone()[0])
        if nxt is None:
            return IDLE_STEP
        return max(0.005, min(IDLE_STEP, nxt + delay - self.clock()))

    def _send(self, rows: list[ob.Pending], *, broadcast: bool) -> None:
        generation = self._generation
        for r in rows:
            if broadcast and r.ts + (self.cfg.broadcast_delay or 0.0) > self.clock():
                break  # (never early: checked again here, on the clock as it is now)
            info = self._client.publish(f"{self.prefix}/{r.topic}", r.payload, qos=1)
            if info.rc not in (mqtt.MQTT_ERR_SUCCESS, mqtt.MQTT_ERR_NO_CONN):
                log.error("room: publishing failed (%s); from this row again", mqtt.error_string(info.rc))
                return
            with self._lock:
                stale = generation != self._generation or info.rc == mqtt.MQTT_ERR_NO_CONN
                if not stale:
                    early = self._early.pop(info.mid, None)
                    if early is None:
                        self._inflight[info.mid] = r.id
                    elif getattr(early, "is_failure", False):
                        self._refused.append(r.id)
                    else:
                        self._acked.append(r.id)
                    self.published += 1
                    if broadcast:
                        self._bcursor = r.id
                    else:
                        self._cursor = r.id
            if stale:
                # disconnected meanwhile: not for paho to resend (its lock is taken outside ours:
                # on_publish takes them in the other order); from the first unacknowledged row
                # once connected
                with self._client._out_message_mutex:
                    self._client._out_messages.pop(info.mid, None)
                return

    def compact(self) -> None:
        """Drop what is older than ``outbox_days``; the unacknowledged rows dropped are counted and said."""
        before = self.clock() - self.cfg.outbox_days * 86400.0
        lost = self.journal.with_db(lambda db: ob.compact(db, before))
        if lost:
            log.error("room: the outbox dropped %s unacknowledged message(s) older than %g days (the broker "
                      "was unreachable): the subscribers see the gap in seq",
                      ", ".join(f"{n} on {t}" for t, n in sorted(lost.items())), self.cfg.outbox_days)

    def counts(self) -> dict[str, int]:
        return dict(self.journal.with_db(ob.counts))

    def unacked(self) -> int:
        return self.counts()["unacked"]

    def wait_acked(self, timeout: float) -> int:
        """Wait up to ``timeout`` seconds for the broker to acknowledge every row; the rows
        still unacknowledged (0: all). Broadcast rows still inside their delay are waited for too."""
        deadline = time.monotonic() + timeout
        while True:
            self._flush_acks = True
            self._poke()
            left = self.unacked()
            if left == 0 or time.monotonic() >= deadline:
                return left
            self._stop.wait(0.05)

    def stop(self) -> None:
        """Say offline (retained) and disconnect: a clean stop does not wait for the will."""
        self._stop.set()
        self._poke()
        if self._thread is not None:
            self._thread.join(timeout=5)
        with self._lock:
            acked, self._acked = self._acked, []
        if acked:
            self.journal.with_db(lambda db: ob.mark(db, acked))
        if self.connected:  # (the link thread has ended: this thread runs the network loop now)
            info = self._client.publish(f"{self.prefix}/state", self._offline(), qos=1, retain=True)
            deadline = time.monotonic() + 2
            while not info.is_published() and time.monotonic() < deadline and self._pump(0.05):
                pass
        self.connected = False  # (a clean stop: no "disconnected" warning)
        self._client.disconnect()
        self._pump(0.0)
        for fd in (self._wake_r, self._wake_w):
            try:
                os.close(fd)
            except OSError:
                pass
