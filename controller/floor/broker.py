"""The floor service's MQTT client: a persistent session (the broker queues the tables' QoS 1
messages while the service is away: a restart misses nothing), every table's floor topics,
the commands it sends (``ack``, ``replay``) and the tournaments' retained signals
(``floor/tournament``: controller/floor/director.py).

paho runs its own network thread; each message is handed to the service's event loop, which
alone touches the database.

A message is acknowledged to the broker (its PUBACK) only once the service has committed it
durably: paho's manual acknowledgements (``manual_ack=True``), :meth:`FloorLink.ack` called by the
service after the batch's commit. Until then the broker holds it in the session: a service stopped,
killed or without power before the commit has it delivered again at its next connection (MQTT 5:
unacknowledged QoS 1 messages are sent again, only then, when a session resumes), and one committed
but not yet acknowledged comes again as a duplicate, which the store drops as such.
"""

from __future__ import annotations

import json
import logging
import ssl
import threading
import uuid
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from controller.config.floor import FloorConfig
from controller.floor.store import SUBSCRIBED

log = logging.getLogger("tablectl.floor")
#: how long the broker keeps the floor's session (and its queue) while the service is away: a week
SESSION_EXPIRY = 7 * 24 * 3600
#: the floor's MQTT 5 Receive Maximum: how many QoS 1 messages the broker sends it unacknowledged.
#: Two of the service's batches (app.py, INBOX_BATCH): one fills while the one before commits; with
#: fewer, a batch could never fill and each commit (an fsync) would wait for a round trip. (mosquitto
#: 2.0.11 takes a v5 client's Receive Maximum instead of its own max_inflight_messages, above or below
#: it, but lets each PUBACK release a whole Receive Maximum more: measured; the service keeps to it
#: itself, app.py's INBOX_MOST.)
RECEIVE_MAXIMUM = 1000

#: what the service hands back to :meth:`FloorLink.ack` once a message is committed: the connection
#: it came on (its count: :attr:`FloorLink.generation`), its packet id, its QoS
Receipt = tuple[int, int, int]


class FloorLink:
    """Subscribes to ``tablectl/<room>/+/...`` and calls ``deliver(topic, payload, receipt)`` from
    paho's thread; the message is acknowledged to the broker when the service calls :meth:`ack`
    with its receipt."""

    def __init__(self, cfg: FloorConfig, deliver: Callable[[str, bytes, Receipt], None],
                 connected: Callable[[], None] | None = None) -> None:
        self.cfg = cfg
        self.deliver = deliver
        #: called (from paho's thread) at each connection: the retained signals published again
        self.connected_hook = connected
        self.connected = False
        self.last_error: str | None = None
        #: the connection's count, one more at each connection and each loss of one: a packet id
        #: names a message on its own connection only (the broker sends an unacknowledged message
        #: again on the next, and may give its id to another message once that one is acknowledged)
        self.generation = 0
        #: held while a receipt is checked against the connection and its PUBACK queued, and while
        #: the connection changes: no PUBACK of one connection is queued on the next
        self._ack_lock = threading.Lock()
        c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=cfg.client_id, protocol=mqtt.MQTTv5, manual_ack=True)
        c.reconnect_delay_set(min_delay=1, max_delay=5)
        if cfg.mqtt_tls:
            c.tls_set(ca_certs=cfg.ca_file, certfile=cfg.cert_file, keyfile=cfg.key_file,
                      cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
        if cfg.username is not None:
            c.username_pw_set(cfg.username, cfg.password())
        c.on_connect = self._on_connect
        c.on_disconnect = self._on_disconnect
        c.on_message = self._on_message
        c.on_subscribe = self._on_subscribe
        self.client = c
        #: the topics of each SUBSCRIBE in flight, by its message id (its SUBACK names none)
        self._subscribing: dict[int, list[str]] = {}

    def start(self) -> None:
        props = Properties(PacketTypes.CONNECT)
        props.SessionExpiryInterval = SESSION_EXPIRY
        props.ReceiveMaximum = RECEIVE_MAXIMUM
        self.client.connect_async(self.cfg.host, self.cfg.port_mqtt, clean_start=False, properties=props)
        self.client.loop_start()

    def stop(self) -> None:
        """Disconnect (the PUBACKs queued before go out first: paho sends its packets in order) and
        end paho's thread. The session stays at the broker, with every message not acknowledged."""
        self.client.disconnect()
        self.client.loop_stop()

    def ack(self, receipts: list[Receipt]) -> int:
        """(the service's loop) These messages are committed: the broker told so, a PUBACK each, in
        the order they came. A message of a connection that has ended since is not acknowledged: the broker
        sends it again on this one, and it is acknowledged then (the store takes it as a duplicate).
        Returns how many were acknowledged."""
        done = 0
        with self._ack_lock:
            for generation, mid, qos in receipts:
                if generation == self.generation and qos > 0:
                    self.client.ack(mid, qos)
                    done += 1
        return done

    def _next_connection(self) -> None:
        with self._ack_lock:
            self.generation += 1

    def _on_connect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.last_error = f"the broker refused the connection: {reason}"
            log.error("floor: %s (%s)", self.last_error, self.cfg.broker)
            return
        self._next_connection()
        self.connected = True
        self.last_error = None
        log.info("floor: connected to %s (session %s)", self.cfg.broker,
                 "resumed" if getattr(flags, "session_present", False) else "new")
        topics = [f"tablectl/{self.cfg.room}/+/{t}" for t in SUBSCRIBED]
        _, mid = client.subscribe([(t, 1) for t in topics])
        if mid is not None:  # (None: not sent, the connection already gone; the next connect subscribes)
            self._subscribing[mid] = topics  # (before its SUBACK: paho's thread, this one, reads that next)
        if self.connected_hook is not None:
            self.connected_hook()

    def _on_subscribe(self, client: mqtt.Client, userdata: Any, mid: int, reasons: list[Any], props: Any) -> None:
        """The broker's SUBACK: only from here on does a table's message reach the service
        ("connected to" comes before the subscription: a message published in between, on a topic
        that is not retained, is lost on a new session). Said in the log, as each topic refused
        (the broker's ACL: the service would never hear of that topic)."""
        answered = list(zip(self._subscribing.pop(mid, []), reasons, strict=False))
        for topic, reason in answered:
            if reason.is_failure:
                log.error("floor: the broker refused the subscription to %s (%s)", topic, reason)
        granted = [topic for topic, reason in answered if not reason.is_failure]
        if granted:
            log.info("floor: subscribed to %s", ", ".join(granted))

    def _on_disconnect(self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        # (before paho connects again: a receipt of the connection that ended is no longer acknowledged)
        self._next_connection()
        if self.connected:
            log.warning("floor: disconnected from %s (%s)", self.cfg.broker, reason)
        self.connected = False

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        receipt = (self.generation, msg.mid, msg.qos)
        try:
            topic = msg.topic
        except UnicodeDecodeError:  # (nothing any table sends: handed on all the same, under a topic the
            # store ignores, so that it is acknowledged in its turn, after the messages before it)
            log.warning("floor: a message on a topic that is not UTF-8, from %s: not kept", self.cfg.broker)
            topic = "(not UTF-8)"
        self.deliver(topic, bytes(msg.payload), receipt)

    def publish_retained(self, topic: str, payload: bytes) -> None:
        """A retained message at QoS 1 (a table's tournament signal): the broker keeps the last for
        a table that connects later; paho keeps it while the link is down."""
        self.client.publish(topic, payload, qos=1, retain=True)

    def command(self, room: str, table: str, body: dict[str, Any]) -> str:
        """Send one command to a table; returns its id."""
        cmd_id = body.setdefault("id", f"floor-{uuid.uuid4().hex[:16]}")
        self.client.publish(f"tablectl/{room}/{table}/cmd", json.dumps(body, separators=(",", ":")), qos=1)
        return str(cmd_id)
