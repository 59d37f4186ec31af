"""The floor's web service (aiohttp): the login page, the room's page, its JSON and its
WebSocket, every asset served from the package (a card room's network is closed: no CDN).

Everything a browser receives is built per role on the server (:mod:`.roles`). Every change
(a POST) needs the session's CSRF token in ``X-CSRF-Token`` and a same-origin request (the
``Origin`` and ``Sec-Fetch-Site`` headers); the WebSocket checks the origin too (no
cross-site WebSocket hijacking). Cookies: HttpOnly, SameSite=Strict, Secure under TLS.
"""

from __future__ import annotations

import asyncio
import ctypes
import html
import json
import logging
import math
import os
import sqlite3
import ssl
import threading
import time
from concurrent.futures.process import BrokenProcessPool
from datetime import datetime
from pathlib import Path
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from aiohttp import WSMsgType, web
from aiohttp.http_exceptions import HttpProcessingError
from aiohttp.web_protocol import RequestPayloadError

from controller.core.cards import CardError, parse_card
from controller.core.dealers import check_dealer_name
from firmware_bridge.clock import monotonic
from firmware_bridge.log_limit import LogLimiter
from controller.floor import auth
from controller.floor.hashing import hashing_pool  # (the password checks' process: see there)
from controller.floor import roles
from controller.floor.broker import FloorLink, Receipt
from controller.floor.clock import Moment
from controller.floor.director import Director, TournamentError
from controller.config.floor import FloorConfig
from controller.floor.rules import CALL
from controller.floor.schema import MAX_INT  # (the largest whole number a request may carry)
from controller.floor.store import Ask, Ingested, Store, natural, split_topic
from controller.room import strict_json
from controller.room.bounds import check_command

log = logging.getLogger("tablectl.floor")
STATIC = Path(__file__).parent / "static"
COOKIE = "floor_session"
HEADERS = {
    "Content-Security-Policy": "default-src 'self'; connect-src 'self'; img-src 'self' data:; "
                               "frame-ancestors 'none'; form-action 'self'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # (same-origin, not no-referrer: with no-referrer a form POST says "Origin: null", refused here)
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
SESSION_KEY = web.AppKey("session", object)
#: the pages are told of changed tiles at most this often (seconds): a busy room's messages
#: coalesce, each tile sent once however often it changed meanwhile
PUSH_EVERY = 0.25
#: an alert or an acknowledgement is told within this (seconds), with whatever else changed
ALERT_EVERY = 0.05
#: the open pages' sessions are read again at least this often (seconds)
SESSIONS_AGAIN = 5.0
#: the most messages taken in one transaction (one fsync), then acknowledged to the broker together
INBOX_BATCH = 500
#: the most messages waiting to be taken in: two batches (one fills while the one before commits).
#: Beyond, paho's thread waits for the loop to take a batch, and reads nothing more from the broker
#: meanwhile: the flow control the broker should keep by the floor's Receive Maximum (broker.py),
#: which mosquitto 2.0.11 does not (each PUBACK lets it send a whole Receive Maximum more: measured)
INBOX_MOST = 2 * INBOX_BATCH
#: a batch whose commit failed (the disk full, the database locked by another process) is tried
#: again after this many seconds; its messages are not acknowledged meanwhile (the broker keeps
#: them), and the inbox full, nothing more is read from the broker
COMMIT_AGAIN = 1.0
#: a backlog of at least this many messages (tables catching up): once it is taken in, the memory
#: that held it is given back to the system (:func:`_give_back_memory`)
BACKLOG_TRIM = 2 * INBOX_BATCH
#: password checks (argon2) in flight at once; more wait their turn
HASHING_AT_ONCE = 1
#: what a page gets when it connects: the open alerts and calls (at most), the newest closed ones,
#: the newest dealer's incidents
SNAPSHOT_OPEN, SNAPSHOT_CLOSED, SNAPSHOT_INCIDENTS = 1000, 100, 100
#: the tournaments' signals are looked at this often (seconds): a level that ends is published
#: within it (FLOW-001: "within a second")
SIGNALS_EVERY = 0.2
SERVICE_KEY: web.AppKey[FloorService] = web.AppKey("service")
#: the gaps' schedule is looked at this often (seconds): a request due is sent within it
GAPS_EVERY = 1.0
#: the floor's QoS 1 messages in flight to the broker at once (the broker's own bound, its
#: max_inflight_messages, may be lower: MQTT 5's receive maximum)
SIGNALS_IN_FLIGHT = 1000
#: the environment variable naming a file where the service writes how long its own work took
#: (bench/floor.py's "service's own time": an alert's ingest and push, /api/room, a release);
#: unset, nothing is measured
TIMINGS_ENV = "TABLECTL_FLOOR_TIMINGS"
_timings = None


def _clocks() -> tuple[float, float]:
    """Where a measurement of the service's own time starts: the wall clock and this thread's CPU."""
    return time.perf_counter(), time.thread_time()


def _timed(what: str, start: tuple[float, float]) -> None:
    """One measurement of the service's own time since ``start`` (:func:`_clocks`), to
    :data:`TIMINGS_ENV`'s file (the bench's only): its wall time, and the CPU the service's
    thread used in it. On a machine whose cores are held by other work (the bench's 20 browsers
    on two cores), the wall time includes the waits for a core; the CPU time is the service's
    own work alone."""
    global _timings
    path = os.environ.get(TIMINGS_ENV)
    if not path:
        return
    wall, cpu = time.perf_counter() - start[0], time.thread_time() - start[1]
    if _timings is None:
        _timings = open(path, "a", buffering=1, encoding="utf-8")  # noqa: SIM115 (open for the process's life)
    _timings.write(f"{what} {wall * 1000.0:.3f} {cpu * 1000.0:.3f}\n")


def now_moment() -> Moment:
    """The clocks now: the monotonic clock and its boot, the wall clock (controller/floor/clock.py)."""
    mono, boot = monotonic()
    return Moment(mono, boot, time.time())


class FloorService:
    """The store, the broker link and the open WebSockets, all on one event loop."""

    def __init__(self, cfg: FloorConfig, *, link: bool = True) -> None:
        self.cfg = cfg
        self.store = Store(cfg.database, keys=cfg.table_keys, require_signatures=cfg.require_signatures)
        #: argon2 checks running at once, at most (each costs its memory and a core's time)
        self.hashing = asyncio.Semaphore(HASHING_AT_ONCE)
        self.hashers = hashing_pool(HASHING_AT_ONCE)
        # failed logins by client address (auth.BY_ADDRESS; [floor] login_delay, its first delay)
        self.throttle = auth.Throttle(auth.Slowdown(auth.BY_ADDRESS.free, float(cfg.login_delay),
                                                    max(auth.BY_ADDRESS.most, float(cfg.login_delay))))
        self.sockets: dict[web.WebSocketResponse, auth.Session] = {}
        self.tokens: dict[web.WebSocketResponse, str] = {}  # each socket's session cookie, to close at logout
        self.loop: asyncio.AbstractEventLoop | None = None
        self.link = FloorLink(cfg, self._from_thread, self._connected) if link else None
        if self.link is not None:
            # a release publishes every table's signal at once (600 in a large room): paho's
            # default of 20 QoS 1 messages in flight made that 30 round trips to the broker
            self.link.client.max_inflight_messages_set(SIGNALS_IN_FLIGHT)
        #: the tournaments (controller/floor/director.py): their signals published on the link
        self.director = Director(cfg, self.store, self._publish_signal, now_moment)
        #: messages from paho's thread, not yet taken in: each with its receipt, to acknowledge it
        #: once committed
        self._inbox: list[tuple[str, bytes, Receipt]] = []
        self._inbox_lock = threading.Lock()
        #: paho's thread waits on it for room in the inbox (:data:`INBOX_MOST`)
        self._inbox_room = threading.Condition(self._inbox_lock)
        self._inbox_due = False
        #: False once the service stops: a message that comes then is left to the broker, unacknowledged
        self._taking = True
        self._commit_failing = False  # (a failed commit is said once, not once a retry)
        self._backlog = 0  # (the messages taken in since the inbox was last empty)
        self._dirty_tiles: dict[tuple[str, str], None] = {}  # what changed since the pages were told
        self._dirty_alerts: dict[tuple[str, str, str, int], None] = {}
        self._dirty_incidents: dict[tuple[str, str, str, int], None] = {}
        self._push_due = False
        self._push_at = 0.0
        self._push_handle: asyncio.TimerHandle | None = None
        self._pushed_at = 0.0
        self._data_version: int | None = None  # (the database as the sessions were last read)
        #: the room's page as each role sees it, kept and changed tile by tile (:class:`RoomCache`)
        self._room_cache = RoomCache(self)
        self._sessions_at = 0.0
        #: messages on a topic of no table: said once a while (no tile to count them on)
        self._no_table = LogLimiter(log, prefix="floor: ")
        #: messages taken from the broker since the service started, and those of them it had
        #: already (a redelivery, a replay's copy of what it had): said in the log at the stop
        self.taken = self.duplicates = 0

    async def check_password(self, attempt: auth.Attempt, password: str) -> bool:
        """:func:`auth.check` in the password checks' process (argon2's tens of milliseconds of a
        core and its 64 MiB: never the event loop's, nor this process's memory); a process that
        ended (killed) is started again."""
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self.hashers, auth.check, attempt, password)
        except BrokenProcessPool:
            log.error("floor: the password checks' process ended: started again")
            self.hashers.shutdown(wait=False)
            self.hashers = hashing_pool(HASHING_AT_ONCE)
            return await loop.run_in_executor(self.hashers, auth.check, attempt, password)

    # -- the tournaments' signals --------------------------------------------------------------
    def _publish_signal(self, topic: str, payload: bytes) -> None:
        if self.link is not None:
            self.link.publish_retained(topic, payload)

    def _connected(self) -> None:
        """(paho's thread) Connected to the broker: every signal published again (a broker that
        restarted without its retained messages has lost them)."""
        if self.loop is not None:
            self.loop.call_soon_threadsafe(self.director.again)

    async def signals_again(self, stop: asyncio.Event) -> None:
        """Several times a second, the tournaments' signals: a level's end published within a
        second of it (nothing is published unless a table's signal changed)."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=SIGNALS_EVERY)
            except TimeoutError:
                pass
            if stop.is_set():
                return
            try:
                self.director.tick()
            except (sqlite3.Error, OSError, ValueError) as exc:
                log.error("floor: could not publish the tournaments' signals: %s", exc)

    # -- the broker's messages ----------------------------------------------------------------
    def _from_thread(self, topic: str, payload: bytes, receipt: Receipt) -> None:
        """(paho's thread) A message for the event loop: queued, and taken in with whatever else
        came meanwhile, in one transaction (:meth:`_take_inbox`). Not acknowledged to the broker
        before that transaction is committed; once the service stops, not taken at all."""
        loop = self.loop
        if loop is None:
            return
        with self._inbox_room:
            while self._taking and len(self._inbox) >= INBOX_MOST and not loop.is_closed():
                self._inbox_room.wait(0.5)  # (a batch taken, or the service stopping, wakes it)
            if not self._taking or loop.is_closed():
                return  # (the broker keeps it, unacknowledged, for the next start)
            self._inbox.append((topic, payload, receipt))
            if self._inbox_due:
                return
            self._inbox_due = True
        loop.call_soon_threadsafe(self._take_inbox)

    def _take_inbox(self) -> None:
        """Every message queued so far, by :data:`INBOX_BATCH`, each batch in one transaction: a busy
        room (tables catching up after an outage) costs one commit a batch, not one a message. A
        batch that cannot be committed is tried again in :data:`COMMIT_AGAIN` seconds."""
        if not self._take_batch():
            if self.loop is not None and self._taking:
                self.loop.call_later(COMMIT_AGAIN, self._take_inbox)  # (``_inbox_due`` stays set meanwhile)
            return
        with self._inbox_lock:
            more = bool(self._inbox)
            self._inbox_due = more
        if more and self.loop is not None:
            self.loop.call_soon(self._take_inbox)  # (the rest after the pages have had a turn)
        elif self._backlog >= BACKLOG_TRIM:
            # the last of a backlog: what held the rest of it (paho's thread's copies, the queue
            # here) is free in the C heap's arenas, and given back, so that a catch-up leaves the
            # service no larger than it was
            _give_back_memory()
        if not more:
            self._backlog = 0

    def _take_batch(self) -> bool:
        """The first :data:`INBOX_BATCH` messages queued, committed durably in one transaction (one
        fsync: :meth:`Store.batch`), then acknowledged to the broker: a message the broker thinks
        delivered is on the disk. False: the commit failed; the batch is back at the head of the
        queue, unacknowledged (the broker still holds every message of it)."""
        with self._inbox_room:
            batch, self._inbox = self._inbox[:INBOX_BATCH], self._inbox[INBOX_BATCH:]
            self._inbox_room.notify_all()  # (room for paho's thread, if it waits)
        if not batch:
            return True
        self._backlog += len(batch)
        try:
            with self.store.batch(durable=True):
                for topic, payload, _ in batch:
                    self.on_message(topic, payload)
        except sqlite3.Error as exc:
            if not self._commit_failing:
                log.error("floor: could not commit a batch of %d messages: %s (not acknowledged: the broker keeps "
                          "them; tried again every %g s)", len(batch), exc, COMMIT_AGAIN)
            self._commit_failing = True
            with self._inbox_lock:
                self._inbox[:0] = batch
            return False
        if self._commit_failing:
            log.info("floor: a batch of %d messages committed again after a failure", len(batch))
            self._commit_failing = False
        if self.link is not None:
            self.link.ack([receipt for _, _, receipt in batch])
        return True

    def stop_taking(self) -> None:
        """(a stop, as soon as it is asked) No message taken from paho any more: what comes now is
        left to the broker, unacknowledged, for the next start; paho's thread, if it waits for room
        in the inbox, is let go (the link can then disconnect)."""
        with self._inbox_room:
            self._taking = False
            self._inbox_room.notify_all()

    def close(self) -> None:
        """(the end of a stop, after :meth:`drain` and the link's end) The store closed, and nothing
        left to touch it later: the pages' push timer cancelled."""
        if self._push_handle is not None:
            self._push_handle.cancel()
            self._push_handle = None
        self.store.close()

    def drain(self) -> None:
        """(a stop) No message taken any more (what comes now stays unacknowledged at the broker,
        for the next start); every message taken so far committed and acknowledged, before the
        link disconnects and the store closes. A batch that cannot be committed now is left
        unacknowledged: the broker sends it again at the next start."""
        self.stop_taking()
        with self._inbox_lock:
            left = len(self._inbox)
        while True:
            with self._inbox_lock:
                if not self._inbox:
                    break
            if not self._take_batch():
                with self._inbox_lock:
                    n, self._inbox = len(self._inbox), []
                log.warning("floor: stopping with %d messages not committed: not acknowledged, the broker sends "
                            "them again at the next start", n)
                return
        if left:
            log.info("floor: stopping: %d messages taken were committed and acknowledged first", left)

    def on_message(self, topic: str, payload: bytes) -> None:
        t0 = _clocks()
        try:
            got = self.store.ingest(topic, payload)
            self.taken += 1
            self.duplicates += got.kind == "duplicate"
        except sqlite3.Error as exc:  # (the disk, the database; one line, no traceback, and never the
            # message's text: it may name a card. The gap it leaves is asked again with replay when
            # the table's next message on that topic comes.)
            log.error("floor: could not keep a message of %s: %s", topic, exc)
            return
        except Exception as exc:  # (what the store's checks missed in a message: refused and counted on
            # its table's tile as every refused message is, never a traceback or its text)
            refused = self._refuse_unreadable(topic, f"the floor could not read it ({type(exc).__name__})")
            if refused is None:
                return
            got = refused
        if got.kind == "ignored" and not got.room:
            # (a topic of no table, "tablectl/main//state": no tile to count it on; said once a while)
            self._no_table.note("messages on a topic of no table", "floor: a message on a topic of no table "
                                "(%s): ignored", ascii(topic[:80]))
            return
        if got.kind == "reply" and got.body.get("ok") is False and not isinstance(got.body.get("id"), str):
            log.warning("floor: %s/%s cmd/reply: the table refused a request it could not read, naming none: "
                        "noted on its commands waiting for an answer", got.room, got.table)
        for ask in ([got.gap] if got.gap is not None else []) + got.regaps:
            self.ask_replay(got.room, got.table, ask)
        for gap_topic, note in got.closed:
            log.warning("floor: %s/%s %s: a gap closed unfilled: %s", got.room, got.table, gap_topic, note)
        try:
            self.director.ingested(got)
        except (sqlite3.Error, ValueError, TypeError, KeyError) as exc:  # (a step missed, never the message)
            log.error("floor: %s/%s: the tournaments could not take a message in: %s", got.room, got.table,
                      type(exc).__name__)
        for p in got.breaks:
            if got.kind == "suspect":
                log.error("floor: %s/%s: a message refused: %s", got.room, got.table, p)
            else:
                log.error("floor: %s/%s: the hand chain is broken: %s", got.room, got.table, p)
        self._push(got)
        if got.kind == "alert":
            _timed("alert_ingest", t0)

    def _refuse_unreadable(self, topic: str, why: str) -> Ingested | None:
        """A message of a table's topic the store could not take for what it holds: counted on the
        tile and logged (by :meth:`on_message`) as every refused message is. None: no table's topic,
        or the database failed too (logged)."""
        where = split_topic(topic)
        if where is None:
            return None
        try:
            return self.store.refuse(*where, why)
        except sqlite3.Error as exc:
            log.error("floor: could not keep a message of %s: %s", topic, exc)
            return None

    async def commands_again(self, stop: asyncio.Event) -> None:
        """Every second, the commands unanswered for :data:`COMMAND_TIMEOUT` marked failed (or
        queued while their table is offline), and the floor's pages told."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=1.0)
            except TimeoutError:
                pass
            if stop.is_set():
                return
            try:
                for cmd_id in self.store.expire_commands(self.cfg.command_timeout):
                    self.push_command(cmd_id)
            except sqlite3.Error as exc:
                log.error("floor: could not read the commands in flight: %s", exc)

    def push_command(self, cmd_id: str) -> None:
        """A command's state to every page that may send commands."""
        done = self.store.command(cmd_id)
        if done is None:
            return
        for ws, sess in self._live():
            if roles.can_command(sess.role):
                asyncio.ensure_future(self._send(ws, {"type": "reply", "command": done}))

    def ask_replay(self, room: str, table: str, ask: Ask) -> None:
        if self.link is None:
            return
        command: dict[str, Any] = {"user": "floor:service", "cmd": "replay", "topic": ask.topic, "from": ask.start,
                                   "epoch": self.store.epoch(room, table)}
        if ask.to is not None:
            command["to"] = ask.to
        cmd_id = self.link.command(room, table, command)
        self.store.command_sent(cmd_id, room, table, "floor:service", command)  # (its answer is matched to it)
        log.info("floor: %s/%s %s: asked a replay of seq %d to %s", room, table, ask.topic, ask.start,
                 ask.to if ask.to is not None else "the end")

    async def gaps_again(self, stop: asyncio.Event) -> None:
        """Every second, the gaps whose schedule is due asked again (a request or its answer lost):
        a gap never waits for the table's next message alone, and one that stays open is asked
        less and less often (the store's schedule: 10 s, doubling up to 5 minutes)."""
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), timeout=GAPS_EVERY)
            except TimeoutError:
                pass
            if stop.is_set():
                return
            try:
                for room, table, ask in self.store.due_gaps():
                    self.ask_replay(room, table, ask)
            except sqlite3.Error as exc:
                log.error("floor: could not read the open gaps: %s", exc)

    def _push(self, got: Ingested) -> None:
        """Note what changed for the open pages; they are told at most every :data:`PUSH_EVERY`
        seconds, each tile and alert once however often it changed meanwhile (:meth:`_push_now`)."""
        if got.kind == "reply" and isinstance(got.body.get("id"), str):
            self.push_command(got.body["id"])  # (a command from the page: its answer to the floor's pages)
            if not got.closed:
                return
        epoch = got.body.get("epoch", "0")
        self._room_cache.changed(got, epoch)
        if got.kind == "alert":
            self._dirty_alerts[(got.room, got.table, epoch, got.body["seq"])] = None
        elif got.kind == "ack":
            self._dirty_alerts[(got.room, got.table, epoch, got.body["ack_seq"])] = None
        elif got.kind == "incident":  # (the lane: lower priority, with the tiles)
            self._dirty_incidents[(got.room, got.table, epoch, got.body["seq"])] = None
        if got.kind in ("state", "alert", "ack", "hand", "suspect", "retired") or got.closed:
            self._dirty_tiles[(got.room, got.table)] = None  # (a gap closed: the tile says what was lost)
        if (self._dirty_alerts or self._dirty_tiles or self._dirty_incidents) and self.loop is not None:
            # an alert or an acknowledgement within ALERT_EVERY, the tiles alone within PUSH_EVERY
            every = ALERT_EVERY if self._dirty_alerts else PUSH_EVERY
            due = self._pushed_at + every
            if self._push_due and self._push_at <= due:
                return
            self._push_due, self._push_at = True, due
            if self._push_handle is not None:
                self._push_handle.cancel()
            self._push_handle = self.loop.call_later(max(0.0, due - time.monotonic()), self._push_now)

    def _push_now(self) -> None:
        """Every page told what changed since the last time: the tiles and alerts read once, worded
        once per role, sent to each page as its role may see them."""
        t0 = _clocks()
        self._push_one()
        _timed("push", t0)

    def _push_one(self) -> None:
        self._push_due, self._push_handle = False, None
        self._pushed_at = time.monotonic()
        tiles_changed, self._dirty_tiles = list(self._dirty_tiles), {}
        alerts_changed, self._dirty_alerts = list(self._dirty_alerts), {}
        incidents_changed, self._dirty_incidents = list(self._dirty_incidents), {}
        try:
            tiles = self._room_cache.tiles(tiles_changed)
            alerts = [a for room, table, epoch, seq in alerts_changed
                      for a in self.store.alerts(1, room=room, table=table, seq=seq, epoch=epoch)]
            incidents = [i for room, table, epoch, seq in incidents_changed
                         for i in self.store.incidents(1, room=room, table=table, seq=seq, epoch=epoch)]
        except sqlite3.Error as exc:
            log.error("floor: could not read what changed: %s", exc)
            return
        by_role: dict[str, list[str]] = {}
        for ws, sess in self._live():
            frames = by_role.get(sess.role)
            if frames is None:
                msgs: list[dict[str, Any]] = [{"type": "tile", "tile": roles.tile_for(sess.role, t)} for t in tiles]
                for a in alerts:
                    shown = roles.alert_for(sess.role, a)
                    if shown is not None:
                        msgs.append({"type": "alert", "alert": shown})
                for i in incidents:
                    seen = roles.incident_for(sess.role, i)
                    if seen is not None:
                        msgs.append({"type": "incident", "incident": seen})
                # one frame a page per push, however much changed (a list when more than one):
                # the page renders it in one pass, and each page's socket sends (and deflates) once
                frames = by_role[sess.role] = [] if not msgs else [json.dumps(
                    msgs[0] if len(msgs) == 1 else {"type": "batch", "items": msgs})]
            for frame in frames:
                asyncio.ensure_future(self._send_text(ws, frame))

    def _live(self) -> list[tuple[web.WebSocketResponse, auth.Session]]:
        """The open pages with their sessions as they are now: a page whose session ended (logged
        out, expired, the user removed, given a new role or password) is closed, and a page
        whose user's role changed gets what the new role may see, not what it connected with.
        The sessions are read again only when the database was changed by another process (a
        user added or given a new role or password: SQLite's ``data_version``) or every
        :data:`SESSIONS_AGAIN` seconds (expiry; an open page keeps its session alive): not once a
        message for every page."""
        version = self.store.db.execute("PRAGMA data_version").fetchone()[0]
        now = time.monotonic()
        if version == self._data_version and now - self._sessions_at < SESSIONS_AGAIN:
            return [(ws, sess) for ws, sess in self.sockets.items()]
        self._data_version, self._sessions_at = version, now
        out = []
        for ws in list(self.sockets):
            sess = auth.session(self.store, self.tokens.get(ws), self.cfg.session_seconds)
            if sess is None:
                self.sockets.pop(ws, None)
                self.tokens.pop(ws, None)
                asyncio.ensure_future(ws.close())
                continue
            self.sockets[ws] = sess
            out.append((ws, sess))
        return out

    async def _send(self, ws: web.WebSocketResponse, msg: dict[str, Any]) -> None:
        await self._send_text(ws, json.dumps(msg))

    async def _send_text(self, ws: web.WebSocketResponse, text: str) -> None:
        try:
            await ws.send_str(text)
        except (ConnectionError, RuntimeError):
            self.sockets.pop(ws, None)
            self.tokens.pop(ws, None)

    def _sectioned(self, tiles: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each tile with its section (``[floor.sections]``; None: in none)."""
        for t in tiles:
            t["section"] = self.cfg.section_of(t["room"], t["table"])
        return tiles

    def snapshot(self, role: str) -> dict[str, Any]:
        """The room as ``role`` may see it: every tile, every open alert and call (however old:
        an open call never falls off the board), the newest closed ones, the newest incidents,
        and the sections in the configuration's order."""
        return json.loads(self.snapshot_text(role))

    def snapshot_text(self, role: str) -> str:
        """:meth:`snapshot` as the JSON sent (/api/room, a page connecting): made from what the
        service keeps (:class:`RoomCache`), not from the whole database each time."""
        return self._room_cache.snapshot(role)


class RoomCache:
    """The room's snapshot as each role sees it, kept between requests: each tile read from the
    store once and again only when its table changed (:meth:`FloorService._push` says so), each
    worded and serialised once per role; the alerts and incidents read again only when one
    changed. /api/room (asked every few seconds by every page, every 50 ms by the bench) costs
    joining the kept parts, not the whole room's rows read, worded and serialised each time."""

    def __init__(self, svc: FloorService) -> None:
        self.svc = svc
        self._tiles: dict[tuple[str, str], dict[str, Any]] | None = None  # (None: not read yet)
        self._order: list[tuple[str, str]] = []  # (the tiles in the board's name order)
        self._stale: set[tuple[str, str]] = set()
        self._json: dict[str, dict[tuple[str, str], str]] = {}  # role -> tile -> its JSON
        self._lists: dict[str, str] = {}  # role -> the alerts', incidents' and sections' JSON

    def changed(self, got: Ingested, epoch: str) -> None:
        """What a message (or the floor's own act) changed: its tile, the alerts' and incidents' lists."""
        key = (got.room, got.table)
        if got.kind in ("state", "alert", "ack", "hand", "suspect", "retired") or got.closed:
            self._stale.add(key)  # (a gap closed unfilled: the tile's note of what was lost)
        elif self._tiles is not None and key in self._tiles and self._tiles[key].get("epoch") != epoch \
                and got.kind not in ("reply", "ignored"):
            self._stale.add(key)  # (a journal started over: the tile's epoch and count)
        if got.kind in ("alert", "ack", "incident"):
            self._lists.clear()

    def _fresh(self) -> dict[tuple[str, str], dict[str, Any]]:
        """Every tile, those changed read again (their rows only)."""
        if self._tiles is None:
            self._tiles = {(t["room"], t["table"]): t for t in self.svc._sectioned(self.svc.store.tables())}
            self._order = list(self._tiles)  # (Store.tables sorts by name)
            self._stale.clear()
            self._json.clear()
        stale, self._stale = self._stale, set()
        added = False
        for key in stale:
            found = self.svc._sectioned(self.svc.store.tables(*key))
            for per_role in self._json.values():
                per_role.pop(key, None)
            if not found:
                added = added or self._tiles.pop(key, None) is not None
                continue
            added = added or key not in self._tiles
            self._tiles[key] = found[0]
        if added:
            self._order = sorted(self._tiles, key=lambda k: (natural(k[0]), natural(k[1])))
        return self._tiles

    def tiles(self, keys: list[tuple[str, str]]) -> list[dict[str, Any]]:
        """The tiles of ``keys`` as they are now (a push's changed ones)."""
        self._stale.update(keys)
        tiles = self._fresh()
        return [tiles[k] for k in keys if k in tiles]

    def snapshot(self, role: str) -> str:
        tiles = self._fresh()
        per_role = self._json.setdefault(role, {})
        parts = []
        for key in self._order:
            text = per_role.get(key)
            if text is None:
                text = per_role[key] = json.dumps(roles.tile_for(role, tiles[key]))
            parts.append(text)
        lists = self._lists.get(role)
        if lists is None:
            store = self.svc.store
            found = store.alerts(SNAPSHOT_OPEN, open_only=True) + store.alerts(SNAPSHOT_CLOSED, closed_only=True)
            alerts = [a for a in (roles.alert_for(role, a) for a in found) if a is not None]
            incidents = [i for i in (roles.incident_for(role, i) for i in store.incidents(SNAPSHOT_INCIDENTS))
                         if i is not None]
            lists = self._lists[role] = (f'"alerts": {json.dumps(alerts)}, "incidents": {json.dumps(incidents)}, '
                                         f'"sections": {json.dumps(list(self.svc.cfg.sections))}')
        return f'{{"type": "snapshot", "role": {json.dumps(role)}, "tiles": [{", ".join(parts)}], {lists}}}'


def _give_back_memory() -> None:
    """The C heap's free memory given back to the system (glibc's ``malloc_trim``; elsewhere
    nothing is done): freed is not returned by itself from the middle of an arena."""
    trim = getattr(_LIBC, "malloc_trim", None)
    if trim is not None:
        trim(0)


try:
    _LIBC: ctypes.CDLL | None = ctypes.CDLL(None)
except OSError:  # (no C library to load symbols from)
    _LIBC = None


# -- requests ---------------------------------------------------------------------------------
def _same_origin(request: web.Request) -> bool:
    """A request from the page itself: no cross-site fetch, and an Origin (if sent) that is ours."""
    if request.headers.get("Sec-Fetch-Site", "same-origin") not in ("same-origin", "none"):
        return False
    origin = request.headers.get("Origin")
    if origin is None:
        return True
    try:
        return urlsplit(origin).netloc == request.host
    except ValueError:
        return False


def _session(request: web.Request) -> auth.Session | None:
    svc = request.app[SERVICE_KEY]
    return auth.session(svc.store, request.cookies.get(COOKIE), svc.cfg.session_seconds)


#: the deepest a request's JSON body may nest (the page's deepest, a deck pair, is 3)
MAX_BODY_DEPTH = 8


class BadRequest(ValueError):
    """A request the service cannot take: answered 400 with this reason (no traceback)."""


async def _body(request: web.Request) -> dict[str, Any]:
    """The request's JSON object: bounded in size (the app's ``client_max_size``), in depth and
    in its numbers; BadRequest saying what is wrong."""
    try:
        text = (await request.read()).decode("utf-8")  # (UTF-8 whatever the charset claimed)
    except UnicodeDecodeError:
        raise BadRequest("the body is not UTF-8 text") from None
    if len(text) > 2 * MAX_BODY_DEPTH and _nesting(text) > MAX_BODY_DEPTH:
        raise BadRequest(f"the body nests more than {MAX_BODY_DEPTH} deep")
    try:
        value = strict_json.loads(text)  # (no NaN, no key given twice: what is checked is what is used)
    except json.JSONDecodeError:
        raise BadRequest("the body is not JSON") from None
    except ValueError as exc:  # (strict_json's own: a constant, a key given twice; never the body's text)
        raise BadRequest(f"the body is not JSON: {exc}") from None
    except RecursionError:
        raise BadRequest("the body is not JSON") from None
    if not isinstance(value, dict):
        raise BadRequest("the body is a JSON object")
    return value


def _nesting(text: str) -> int:
    """How deep brackets nest in ``text``, counted without parsing (strings skipped)."""
    deepest = depth = 0
    in_string = escaped = False
    for c in text:
        if in_string:
            if escaped:
                escaped = False
            elif c == "\\":
                escaped = True
            elif c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif c in "]}":
            depth -= 1
    return deepest


def _whole(value: Any, what: str, lo: int = 1, hi: int = MAX_INT) -> int:
    """``value`` as a whole number ``lo``..``hi`` (a JSON number or a query's text); BadRequest."""
    if isinstance(value, str):
        if not value.isdigit() or len(value) > 19:
            raise BadRequest(f"{what}: want a whole number from {lo} to {hi}, got {value[:30]!r}")
        value = int(value)
    if type(value) is not int or not lo <= value <= hi:
        raise BadRequest(f"{what}: want a whole number from {lo} to {hi}, got {str(value)[:30]}")
    return value


def _word(value: Any, what: str, most: int = 64) -> str:
    """``value`` as a short printable string (a room, a table, an epoch); BadRequest."""
    if not isinstance(value, str) or not 0 < len(value) <= most or not value.isprintable():
        raise BadRequest(f"{what}: want a name of 1 to {most} printable characters")
    return value


@web.middleware
async def refuse_bad_input(request: web.Request, handler: Callable[[web.Request], Any]) -> web.StreamResponse:
    """Bad input answered 400 with its reason, never a 500 and a traceback: what a handler's
    own checks missed (a number SQLite cannot hold, a body nested too deep) is caught here."""
    try:
        return await handler(request)
    except BadRequest as exc:
        return _refuse(400, str(exc))
    except (OverflowError, RecursionError, UnicodeError, ValueError, LookupError) as exc:
        log.warning("floor: %s %s refused: %s", request.method, request.path, type(exc).__name__)
        return _refuse(400, f"bad request ({type(exc).__name__})")
    except (HttpProcessingError, RequestPayloadError) as exc:
        # aiohttp's own errors, from reading a body a handler asked for: a multipart part with a
        # malformed header (InvalidHeader), a body its Content-Encoding cannot decode, a chunk that
        # is not one. Its message may quote the request: the log and the answer name the kind only.
        log.warning("floor: %s %s refused: %s", request.method, request.path, type(exc).__name__)
        return _refuse(400, f"a malformed request body ({type(exc).__name__})")
    except ConnectionResetError:
        # the client went away in the middle of its body (a truncated chunked body): nobody to
        # answer; one line, not a traceback and a 500
        log.info("floor: %s %s: the client left before its body ended", request.method, request.path)
        return _refuse(400, "the request's body ended early")


def _json(data: Any, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, headers=HEADERS)


def _refuse(status: int, why: str) -> web.Response:
    return web.json_response({"ok": False, "error": why}, status=status, headers=HEADERS)


def _page(name: str, **fields: str) -> web.Response:
    text = (STATIC / name).read_text(encoding="utf-8")
    for k, v in fields.items():
        text = text.replace("{{" + k + "}}", html.escape(v, quote=True))
    return web.Response(text=text, content_type="text/html", headers=HEADERS)


async def login_page(request: web.Request) -> web.Response:
    return _page("login.html", error="")


async def login_post(request: web.Request) -> web.StreamResponse:
    svc = request.app[SERVICE_KEY]
    if not _same_origin(request):
        return _refuse(403, "a cross-site request")
    try:
        form = await request.post()
    except (ValueError, UnicodeError, AssertionError, LookupError) as exc:  # (a malformed form or multipart body)
        raise BadRequest(f"a login is a form with name and password ({type(exc).__name__})") from None
    name, password = str(form.get("name", ""))[:200], str(form.get("password", ""))[:1024]
    address = request.remote or "unknown"
    attempt = auth.begin(svc.store, svc.throttle, name, address)  # (throttled: no hashing at all)
    if attempt.throttled:
        # as long as a check takes, so that the answer's time tells nothing (no hashing: cheap)
        await asyncio.sleep(auth.check_seconds())
        ok = False
    else:
        # argon2 costs tens of milliseconds of CPU on purpose: in a process of its own, never on
        # the event loop that serves every page and every table's message, a few at a time
        async with svc.hashing:
            ok = await svc.check_password(attempt, password)
    try:
        token, _ = auth.finish(svc.store, svc.throttle, attempt, ok)
    except auth.AuthError as exc:
        resp = _page("login.html", error=str(exc))
        resp.set_status(401)
        return resp
    resp = web.HTTPSeeOther("/", headers=HEADERS)
    resp.set_cookie(COOKIE, token, httponly=True, samesite="Strict", secure=svc.cfg.secure_cookie, path="/")
    return resp


async def logout_post(request: web.Request) -> web.StreamResponse:
    svc = request.app[SERVICE_KEY]
    sess = _session(request)
    if sess is None:
        return _refuse(401, "not logged in")
    if not _same_origin(request) or request.headers.get("X-CSRF-Token") != sess.csrf:
        return _refuse(403, "missing or wrong CSRF token")
    token = request.cookies[COOKIE]
    auth.logout(svc.store, token)
    svc.store.audit(sess.user, "logout")
    for ws in [ws for ws, t in svc.tokens.items() if t == token]:  # (its open pages stop receiving at once)
        await ws.close()
    resp = _json({"ok": True})
    resp.del_cookie(COOKIE, path="/")
    return resp


async def index(request: web.Request) -> web.StreamResponse:
    sess = _session(request)
    if sess is None:
        return web.HTTPSeeOther("/login", headers=HEADERS)
    return _page("index.html", csrf=sess.csrf, user=sess.user, role=sess.role)


async def api_room(request: web.Request) -> web.Response:
    t0 = _clocks()
    sess = _viewer(request)
    if not isinstance(sess, auth.Session):
        return sess
    text = request.app[SERVICE_KEY].snapshot_text(sess.role)
    _timed("api_room", t0)
    return web.Response(text=text, content_type="application/json", headers=HEADERS)


def _viewer(request: web.Request, may: Callable[[str], bool] | None = None, why: str = "",
            *, page: bool = False) -> auth.Session | web.Response:
    """The checks every request that only reads passes: a live session (else 401, or the login
    page for a ``page``), then a role that ``may`` (else 403: "a {role} {why}"). The session, or
    the refusal to return. A read changes nothing: no origin or CSRF check (:func:`_change`)."""
    sess = _session(request)
    if sess is None:
        return web.HTTPSeeOther("/login", headers=HEADERS) if page else _refuse(401, "not logged in")
    if may is not None and not may(sess.role):
        return _refuse(403, f"a {sess.role} {why}")
    return sess


def _change(request: web.Request, may: Callable[[str], bool], what: str) -> auth.Session | web.Response:
    """The checks every request that changes something passes, in this order: a live session,
    the same origin, the session's CSRF token, a role that ``may`` (else it ``cannot {what}``).
    The session, or the refusal to return."""
    sess = _session(request)
    if sess is None:
        return _refuse(401, "not logged in")
    if not _same_origin(request):
        return _refuse(403, "a cross-site request")
    if request.headers.get("X-CSRF-Token") != sess.csrf:
        return _refuse(403, "missing or wrong CSRF token")
    if not may(sess.role):
        return _refuse(403, f"a {sess.role} cannot {what}")
    return sess


async def _alert_named(request: web.Request) -> tuple[str, str, int, str, dict[str, Any]] | web.Response:
    """The alert a request's body names (``{"room", "table", "seq", "epoch"}``): its parts and its
    record, or the refusal to return (400 for a bad body, 404 for no such alert)."""
    body = await _body(request)
    if not {"room", "table", "seq"} <= set(body) or set(body) - {"room", "table", "seq", "epoch"}:
        return _refuse(400, "want {\"room\": ..., \"table\": ..., \"seq\": N, \"epoch\": ...}")
    room, table = _word(body["room"], "room"), _word(body["table"], "table")
    seq, epoch = _whole(body["seq"], "seq"), _word(body.get("epoch", "0"), "epoch", 32)
    found = request.app[SERVICE_KEY].store.alerts(1, room=room, table=table, seq=seq, epoch=epoch)
    if not found:
        return _refuse(404, f"no alert {room}/{table} seq {seq}")
    return room, table, seq, epoch, found[0]


async def api_ack(request: web.Request) -> web.Response:
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_ack, "acknowledge alerts")
    if isinstance(sess, web.Response):
        return sess
    named = await _alert_named(request)
    if isinstance(named, web.Response):
        return named
    room, table, seq, epoch, found = named
    if found["acked_by"] is not None:
        return _refuse(409, f"alert {room}/{table} seq {seq} is closed already")
    again = svc.store.ack_in_flight(room, table, epoch, seq)
    if again is not None:
        # (acknowledged twice: two pages, or a double tap. The table has the first command;
        # a second would be a second journal entry and a second Ack for one alert.)
        return _json({**_sent(svc, again), "again": True})
    if epoch != svc.store.epoch(room, table):
        # An alert of an earlier journal of the table (it started over): that journal is gone,
        # no table can confirm it; the floor acknowledges it itself, and says so in the audit log.
        user = f"floor:{sess.user}"
        svc.store.ack_here(room, table, epoch, seq, user)
        svc.store.audit(sess.user, "ack", f"{room}/{table} epoch {epoch} seq {seq}: of an earlier journal, "
                                          f"acknowledged at the floor")
        svc._push(Ingested("ack", room, table, {"ack_seq": seq, "epoch": epoch}))
        return _json({"ok": True, "id": None, "here": True})
    if svc.link is None:
        return _refuse(503, "no broker link")
    command: dict[str, Any] = {"user": f"floor:{sess.user}", "cmd": "ack", "seq": seq, "epoch": epoch}
    cmd_id = _send_command(svc, room, table, command["user"], command)
    svc.store.audit(sess.user, "ack", f"{room}/{table} seq {seq} command {cmd_id}")
    return _json(_sent(svc, cmd_id))


def _send_command(svc: FloorService, room: str, table: str, user: str, command: dict[str, Any], *,
                  retry_of: str | None = None) -> str:
    """A page's command published to its table and kept; its id. To a table the floor knows is
    offline it is ``queued`` from the start (the broker keeps it for the table): the page says
    so at once, not "sent" until the command's timeout."""
    assert svc.link is not None
    cmd_id = svc.link.command(room, table, command)
    svc.store.command_sent(cmd_id, room, table, user, command, retry_of=retry_of,
                           queued=svc.store.offline(room, table))
    return cmd_id


def _sent(svc: FloorService, cmd_id: str) -> dict[str, Any]:
    """The answer to a page that sent a command: its id and its state now (``sent`` or
    ``queued``, with the reason)."""
    found = svc.store.command(cmd_id) or {}
    return {"ok": True, "id": cmd_id, "status": found.get("status", "sent"), "reason": found.get("reason")}


async def api_dismiss(request: web.Request) -> web.Response:
    """A call or alert of a table that is offline closed at the floor (``{"room", "table", "seq",
    "epoch"}``): the table cannot answer it, so its wait stops here; audit-logged. A table online
    is answered with Acknowledge, which the table confirms."""
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_ack, "dismiss calls")
    if isinstance(sess, web.Response):
        return sess
    named = await _alert_named(request)
    if isinstance(named, web.Response):
        return named
    room, table, seq, epoch, found = named
    tile = svc.store.tables(room, table)
    if tile and tile[0].get("online") is not False and epoch == svc.store.epoch(room, table):
        return _refuse(409, f"{room}/{table} is online: answer it (the table confirms)")
    if not svc.store.ack_here(room, table, epoch, seq, f"floor:{sess.user}", how="dismissed"):
        return _refuse(409, f"alert {room}/{table} seq {seq} is closed already")
    what = "call" if found["code"] == CALL else "alert"
    svc.store.audit(sess.user, "dismiss", f"{room}/{table} epoch {epoch} seq {seq}: a {what} of a table offline, "
                                          f"dismissed at the floor")
    svc._push(Ingested("ack", room, table, {"ack_seq": seq, "epoch": epoch}))
    return _json({"ok": True})


async def api_retire(request: web.Request) -> web.Response:
    """A table off the board (``{"room", "table", "retired": true}``: closed for the night,
    moved, replaced) or back on it (``false``); audit-logged. Whatever the table raises still
    shows in the calls and alerts."""
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_command, "retire tables")
    if isinstance(sess, web.Response):
        return sess
    body = await _body(request)
    if set(body) != {"room", "table", "retired"} or not isinstance(body["retired"], bool):
        return _refuse(400, "want {\"room\": ..., \"table\": ..., \"retired\": true or false}")
    room, table = _word(body["room"], "room"), _word(body["table"], "table")
    if not svc.store.tables(room, table):
        return _refuse(404, f"no table {room}/{table}")
    if body["retired"]:
        changed = svc.store.retire(room, table, f"floor:{sess.user}")
    else:
        changed = svc.store.restore(room, table)
    if changed:
        svc.store.audit(sess.user, "retire" if body["retired"] else "restore",
                        f"{room}/{table} {'off' if body['retired'] else 'back on'} the board")
        svc._push(Ingested("retired", room, table))
    return _json({"ok": True, "changed": changed})


async def tournament_page(request: web.Request) -> web.StreamResponse:
    """The tournaments' page (the floor role's): the clock, hand-for-hand's board, the bubble,
    the player clock, the tables' balance (docs/floor.md, "Running a tournament")."""
    sess = _viewer(request, roles.can_command, "does not run the tournaments", page=True)
    if not isinstance(sess, auth.Session):
        return sess
    return _page("tournament.html", csrf=sess.csrf, user=sess.user, role=sess.role)


async def api_tournaments(request: web.Request) -> web.Response:
    """Every tournament as the floor's page shows it (the floor role's)."""
    svc = request.app[SERVICE_KEY]
    sess = _viewer(request, roles.can_command, "does not run the tournaments")
    if not isinstance(sess, auth.Session):
        return sess
    return _json({"tournaments": [svc.director.board(name) for name in svc.cfg.tournaments]})


async def api_tournament(request: web.Request) -> web.Response:
    """An action on a tournament (the floor role's, audit-logged): ``{"tournament": NAME,
    "action": ...}``, the action's fields beside it (controller/floor/director.py, ACTIONS): the
    clock's start, pause, resume, skip, back and add (``seconds``); hand-for-hand on or off
    (``h4h``, ``on``) and ``release``; the bubble on or off (``bubble``, ``on``) and
    ``bubble_clear``; a player clock (``clock``: ``room``, ``table``, ``seat``)."""
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_command, "run the tournaments")
    if isinstance(sess, web.Response):
        return sess
    body = await _body(request)
    name = _word(body.get("tournament"), "tournament")
    t0 = _clocks()
    try:
        detail = svc.director.act(name, body)
    except TournamentError as exc:
        return _refuse(exc.status, str(exc))
    _timed(f"tournament_{body.get('action')}", t0)
    svc.store.audit(sess.user, "tournament", detail)
    log.info("floor: tournament %s (by %s)", detail, sess.user)
    return _json({"ok": True, "done": detail, "tournament": svc.director.board(name)})


async def clock_page(request: web.Request) -> web.StreamResponse:
    """The public clock screen of a tournament (no login: a TV in the room): read-only, nothing
    secret (docs/floor.md, "The clock screen")."""
    svc = request.app[SERVICE_KEY]
    name = request.match_info["name"]
    if name not in svc.cfg.tournaments:
        return _refuse(404, "no such tournament")
    return _page("clock.html", tournament=name, title=svc.cfg.tournaments[name].title)


async def api_clock(request: web.Request) -> web.Response:
    """The clock screen's figures (public: the level, its time, the blinds, the next level and
    break, the players left and tables running; no card, no alert, no seat, no table's name)."""
    found = request.app[SERVICE_KEY].director.public(request.match_info["name"])
    return _json(found) if found is not None else _refuse(404, "no such tournament")


async def api_retry(request: web.Request) -> web.Response:
    """A command that failed (no answer in time), was refused, or waits queued, sent again under
    a new id: ``{"id": ...}``; the answer names the new id."""
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_command, "send commands to a table")
    if isinstance(sess, web.Response):
        return sess
    body = await _body(request)
    if set(body) != {"id"}:
        return _refuse(400, "want {\"id\": the command's id}")
    old = _word(body["id"], "id")
    found = svc.store.command(old)
    if found is None:
        return _refuse(404, "no such command")
    if found["status"] not in ("failed", "refused", "queued"):
        return _refuse(409, f"command {old} is {found['status']}: nothing to retry")
    if svc.link is None:
        return _refuse(503, "no broker link")
    user = f"floor:{sess.user}"
    command = {**found["command"], "user": user}
    command.pop("id", None)
    try:
        check_command(command)  # (one kept by a floor before these checks may hold what the table refuses)
    except ValueError as exc:
        return _refuse(400, f"command {old} cannot be sent again: {exc}")
    cmd_id = _send_command(svc, found["room"], found["table"], user, command, retry_of=old)
    svc.store.audit(sess.user, "retry", f"{found['room']}/{found['table']} command {old} again as {cmd_id}")
    return _json({**_sent(svc, cmd_id), "retry_of": old})


def _when(text: str, key: str) -> float | None:
    """A ``since``/``until`` filter: ``2026-01-01`` or ``2026-01-01T14:30`` (the server's local
    time, the room's clock), or epoch seconds, a finite number (``1e400``, ``inf`` and ``nan``
    would match every hand or none, silently)."""
    if not text:
        return None
    want = f"{key}: want a date (2026-01-01 or 2026-01-01T14:30) or epoch seconds, got {text[:40]!r}"
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        if not math.isfinite(seconds):
            raise ValueError(want)
        return seconds
    try:
        return datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise ValueError(want) from None


async def api_hands(request: web.Request) -> web.Response:
    """The hands search (floor only: hand records name hole cards and burns)."""
    svc = request.app[SERVICE_KEY]
    sess = _viewer(request, roles.sees_hands, "does not see hand records (they name the cards)")
    if not isinstance(sess, auth.Session):
        return sess
    q = request.query
    hand = _whole(q["hand"], "hand") if q.get("hand") else None
    try:
        since, until = _when(q.get("since", ""), "since"), _when(q.get("until", ""), "until")
        dealer = check_dealer_name(q["dealer"]) if q.get("dealer") else None  # (as the records keep it)
    except ValueError as exc:
        text = str(exc)
        return _refuse(400, text if "want" in text or text.startswith("dealer:") else "hand: want a whole number")
    # one page: at most 200 hands, from the offset-th match (the page's Previous / Next)
    limit = _whole(q["limit"], "limit", 1, 200) if q.get("limit") else 50
    offset = _whole(q["offset"], "offset", 0) if q.get("offset") else 0
    card = None
    if q.get("card"):  # in any case ("ah", "AH", "10h"), spelt as the records spell it: "Ah", "Th"
        try:
            card = parse_card(q["card"])
        except CardError:
            return _refuse(400, f"card: want a card like Ah or 7c, got {q['card'][:30]!r}")
    found = svc.store.search_hands(table=q.get("table") or None, hand=hand, since=since, until=until,
                                   card=card, alert=q.get("alert") or None, dealer=dealer,
                                   limit=limit, offset=offset)
    return _json(found)  # {"hands": [...], "total": N, "offset": offset, "limit": limit}


async def api_hand(request: web.Request) -> web.Response:
    svc = request.app[SERVICE_KEY]
    sess = _viewer(request, roles.sees_hands, "does not see hand records (they name the cards)")
    if not isinstance(sess, auth.Session):
        return sess
    q = request.query
    if not {"room", "table", "seq"} <= set(q):
        return _refuse(400, "want room, table and seq")
    found = svc.store.hand(_word(q["room"], "room"), _word(q["table"], "table"), _whole(q["seq"], "seq"),
                           _word(q.get("epoch", "0"), "epoch", 32))
    if found is None:
        return _refuse(404, "no such hand")
    svc.store.audit(sess.user, "hand viewed", f"{q['room']}/{q['table']} seq {q['seq']}")
    return _json(found)


async def hands_page(request: web.Request) -> web.StreamResponse:
    sess = _viewer(request, roles.sees_hands, "does not see hand records (they name the cards)", page=True)
    if not isinstance(sess, auth.Session):
        return sess
    return _page("hands.html", csrf=sess.csrf, user=sess.user, role=sess.role)


#: the table commands the page sends (docs/room.md, "Commands"), each with its fields; each field is
#: checked here with the bounds the table checks (controller/room/bounds.py), so that what the table
#: would refuse is refused at once, naming the field
PAGE_COMMANDS: dict[str, set[str]] = {"setup": {"seats", "button"}, "decks": {"in_play", "decks"},
                                     "dealer": {"name", "at_relief"}, "approve": set()}


async def api_cmd(request: web.Request) -> web.Response:
    """A seat change (``setup``), a deck-pair exchange (``decks``), who deals (``dealer``,
    RELIEF-003: from the next hand, or ``at_relief`` from the dealer's next relief press) or the
    approval of a single-table satellite (``approve``, FLOW-007: the table waits for it) sent
    to a table; the answer comes back on the WebSocket (``reply``) and at ``/api/cmd?id=``."""
    svc = request.app[SERVICE_KEY]
    sess = _change(request, roles.can_command, "send commands to a table")
    if isinstance(sess, web.Response):
        return sess
    body = await _body(request)
    try:
        room, table, cmd = body.pop("room"), body.pop("table"), body.pop("cmd")
        if not isinstance(room, str) or not isinstance(table, str) or not isinstance(cmd, str) \
                or cmd not in PAGE_COMMANDS:
            raise TypeError
    except (KeyError, TypeError):
        return _refuse(400, f"want {{\"room\", \"table\", \"cmd\": one of {', '.join(PAGE_COMMANDS)}, ...}}")
    room, table = _word(room, "room"), _word(table, "table")
    unknown = sorted(set(body) - PAGE_COMMANDS[cmd])
    if unknown:
        return _refuse(400, f"{cmd}: unknown field {unknown[0]!r}")
    user = f"floor:{sess.user}"
    command = {"user": user, "cmd": cmd, **body}
    try:
        # the table's own checks (a seat of 70 digits would be refused by the table, after the
        # page had said "sent"): refused here, naming the field
        check_command(command)
    except ValueError as exc:
        return _refuse(400, str(exc))
    if cmd == "dealer":  # (the name as the records keep it, runs of spaces made one)
        command["name"] = check_dealer_name(command["name"])
    if not svc.store.tables(room, table):
        return _refuse(404, f"no table {room}/{table}")
    if svc.link is None:
        return _refuse(503, "no broker link")
    cmd_id = _send_command(svc, room, table, user, command)
    svc.store.audit(sess.user, cmd, f"{room}/{table} command {cmd_id}: "
                                    f"{json.dumps({k: command[k] for k in body})[:500]}")
    return _json(_sent(svc, cmd_id))




async def api_alerts(request: web.Request) -> web.Response:
    """A dealer's alerts (``?dealer=NAME``, RELIEF-003), newest first, as the role may see them
    (the floor and the technician; a viewer sees no alert)."""
    svc = request.app[SERVICE_KEY]
    sess = _viewer(request, roles.sees_alerts, "does not see alerts")
    if not isinstance(sess, auth.Session):
        return sess
    try:
        dealer = check_dealer_name(request.query.get("dealer", ""))
    except ValueError as exc:
        return _refuse(400, str(exc))
    shown = (roles.alert_for(sess.role, a) for a in svc.store.alerts(dealer=dealer))
    return _json({"alerts": [a for a in shown if a is not None]})


async def api_cmd_get(request: web.Request) -> web.Response:
    svc = request.app[SERVICE_KEY]
    sess = _viewer(request, roles.can_command, "cannot send commands to a table")
    if not isinstance(sess, auth.Session):
        return sess
    found = svc.store.command(request.query.get("id", ""))
    return _json(found) if found is not None else _refuse(404, "no such command")


async def websocket(request: web.Request) -> web.StreamResponse:
    svc = request.app[SERVICE_KEY]
    sess = _session(request)
    if sess is None:
        return _refuse(401, "not logged in")
    if not _same_origin(request):
        return _refuse(403, "a cross-site request")
    ws = web.WebSocketResponse(heartbeat=20)
    await ws.prepare(request)
    await ws.send_str(svc.snapshot_text(sess.role))
    svc.sockets[ws] = sess
    svc.tokens[ws] = request.cookies[COOKIE]
    try:
        async for msg in ws:  # (the page sends nothing: changes are POSTs with their CSRF token)
            if msg.type == WSMsgType.ERROR:
                break
    finally:
        svc.sockets.pop(ws, None)
        svc.tokens.pop(ws, None)
    return ws


async def static(request: web.Request) -> web.StreamResponse:
    name = request.match_info["name"]
    if name not in ("app.js", "hands.js", "style.css", "tournament.js", "clock.js", "clock.css"):
        raise web.HTTPNotFound()
    kind = "application/javascript" if name.endswith(".js") else "text/css"
    return web.Response(text=(STATIC / name).read_text(encoding="utf-8"), content_type=kind, headers=HEADERS)


#: the longest request line and header line taken (bytes; aiohttp's own bound, said here): the
#: page's longest, a hands search, is a few hundred; a longer one is refused 400 by aiohttp's parser
MAX_LINE = 8190


class _ParserRefusal(logging.Filter):
    """aiohttp's HTTP parser's refusals (a request line or a header too long, a malformed
    header, chunk or method), answered 400 by aiohttp before any handler or middleware: logged
    in one WARNING line with the error's kind, never at ERROR with a traceback, and never the
    request's text (a URL may carry anything). A handler's own failure keeps its traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, HttpProcessingError):
            remote = record.args[0] if isinstance(record.args, tuple) and record.args else "unknown"
            record.msg, record.args = "floor: a request from %s refused by the HTTP parser: %s (%s)", (
                remote, type(exc).__name__, exc.code)
            record.levelno, record.levelname = logging.WARNING, "WARNING"
            record.exc_info, record.exc_text = None, None
        return True


def _quiet_parser_refusals() -> None:
    """:class:`_ParserRefusal` on aiohttp's server log, once."""
    server = logging.getLogger("aiohttp.server")
    if not any(isinstance(f, _ParserRefusal) for f in server.filters):
        server.addFilter(_ParserRefusal())


def make_app(svc: FloorService) -> web.Application:
    _quiet_parser_refusals()
    app = web.Application(client_max_size=64 * 1024, middlewares=[refuse_bad_input])
    app[SERVICE_KEY] = svc
    app.router.add_get("/login", login_page)
    app.router.add_post("/login", login_post)
    app.router.add_post("/logout", logout_post)
    app.router.add_get("/", index)
    app.router.add_get("/api/room", api_room)
    app.router.add_post("/api/ack", api_ack)
    app.router.add_post("/api/retry", api_retry)
    app.router.add_post("/api/dismiss", api_dismiss)
    app.router.add_post("/api/retire", api_retire)
    app.router.add_get("/ws", websocket)
    app.router.add_post("/api/cmd", api_cmd)
    app.router.add_get("/api/cmd", api_cmd_get)
    app.router.add_get("/api/alerts", api_alerts)
    app.router.add_get("/hands", hands_page)
    app.router.add_get("/api/hands", api_hands)
    app.router.add_get("/api/hand", api_hand)
    app.router.add_get("/tournament", tournament_page)
    app.router.add_get("/api/tournaments", api_tournaments)
    app.router.add_post("/api/tournament", api_tournament)
    app.router.add_get("/clock/{name}", clock_page)
    app.router.add_get("/api/clock/{name}", api_clock)
    app.router.add_get("/static/{name}", static)
    return app


async def serve(cfg: FloorConfig, stop: asyncio.Event) -> None:
    """Run the service until ``stop`` is set."""
    svc = FloorService(cfg)
    svc.loop = asyncio.get_running_loop()
    svc.hashers.submit(os.getpid)  # (the password checks' process started now, not at the first login)
    runner = web.AppRunner(make_app(svc), access_log=None, max_line_size=MAX_LINE, max_field_size=MAX_LINE)
    await runner.setup()
    context = None
    if cfg.tls_cert is not None:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(cfg.tls_cert, cfg.tls_key)
    site = web.TCPSite(runner, cfg.listen, cfg.port, ssl_context=context)
    await site.start()
    assert svc.link is not None
    svc.link.start()
    log.info("floor: listening on %s://%s:%d", "https" if context else "http", cfg.listen, cfg.port)
    again = asyncio.ensure_future(svc.gaps_again(stop))
    expiry = asyncio.ensure_future(svc.commands_again(stop))
    signals = asyncio.ensure_future(svc.signals_again(stop))
    try:
        await stop.wait()
    finally:
        # what was taken is committed and acknowledged at once, before anything else of the stop
        # (the loop takes no more meanwhile), the link goes and the store closes; what was not taken
        # stays at the broker, unacknowledged, for the next start
        svc.drain()
        await again
        await expiry
        await signals
        svc.link.stop()
        for ws in list(svc.sockets):
            await ws.close()
        await runner.cleanup()
        svc.hashers.shutdown(wait=True)
        svc.close()
        log.info("floor: %d messages taken since the start, %d of them duplicates (had already)", svc.taken,
                 svc.duplicates)
