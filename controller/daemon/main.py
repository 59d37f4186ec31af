"""The daemon: device links in, the pure core in the middle, sinks out.

One thread per device link puts events on one queue; the main loop takes them in order,
applies each to the :class:`controller.core.table.Table` and fans the effects out to the sinks.
The core never sees a device, a clock or a file.

With a journal (``[journal]``), every event is appended to it, in the thread that made it,
before it is queued: what the core will see is on disk first. On start the table is rebuilt
from the journal (last snapshot, then the events after it) and carries on mid-hand.

Under systemd (``Type=notify``): READY once the devices have been tried, STATUS naming any
device that is offline, and WATCHDOG pings from the main loop itself, so that a loop that
stalls stops them and systemd restarts the daemon.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
from collections.abc import Callable, Mapping
from typing import Any

from controller.core.effects import Effect
from controller.core.effects import Alert, HandFinished, HandStarted
from controller.core.events import DeviceStatus, Event, ReaderCycle, Tick
from controller.config.daemon import Config
from controller.daemon.console_sink import ConsoleSink
from controller.daemon.device_events import submitter
from controller.daemon.control import ControlServer
from controller.daemon.journal import Journal
from controller.daemon.recovery import JournalFaults, recover_table
from controller.daemon.notify import sd_notify
from controller.daemon.sinks import FeedSink, LogSink, Sink, fan_out
from controller.daemon.ticks import Ticks
from controller.room.signal_inbox import SignalDue
from controller.core.settings import deal_order
from controller.core.table import Table
from firmware_bridge import drivers
from firmware_bridge.clock import MonoClock, monotonic
from firmware_bridge.log_limit import LogLimiter
from firmware_bridge.reader_link import ReaderLink
from firmware_bridge.serial_port import PortSettings
from firmware_bridge.shuffler_link import ShufflerLink
from firmware_bridge.backoff import Backoff

log = logging.getLogger("tablectl.daemon")


class Daemon:
    """The table controller as it runs on a Pi.

    >>> from pathlib import Path
    >>> from controller.config.daemon import parse_config
    >>> d = Daemon(parse_config('[reader]\\nport = "loop://"', path=Path("t.toml")))
    >>> d.table.seats
    (1, 2, 3, 4, 5, 6, 7, 8, 9)
    """

    def __init__(self, config: Config, *, sinks: list[Sink] | None = None,
                 clock: Callable[[], float] = time.time, mono: MonoClock = monotonic,
                 display_bus: Any = None, link_options: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        """``clock`` stamps the events the device links, the console and the control socket
        make, and the daemon's own records, with wall time; ``mono`` gives the monotonic reading
        (and boot) that the device events and the ticks carry, which the core measures durations
        on (``firmware_bridge.clock``). The simulated table (``hw_sim.pacing``: the in-process
        harness and ``tablectl simulate``) gives clocks it drives itself. ``display_bus``: an
        smbus2-like bus for the dealer's display instead of ``/dev/i2c-N`` (the simulator's).

        The device links are built by their drivers' names (``firmware_bridge.drivers``; the
        configuration's ``driver``, else the default one). ``link_options``: more settings for a
        link's driver, by device name (``"reader"``, ``"shuffler"``), as python-can passes a
        bus its ``**kwargs``: the in-process harness hands each link its virtual line's
        ``opener`` (``firmware_bridge.virtual``), as it hands the display its bus."""
        self.config = config
        self.clock = clock
        self.mono = mono
        #: the loop's queue: events (journalled first, by :meth:`submit`), and the room link's
        #: :class:`SignalDue` (no event: what it makes is submitted from the loop)
        self.events: queue.SimpleQueue[tuple[int, Event | SignalDue]] = queue.SimpleQueue()
        jc = config.journal
        self.journal: Journal | None = Journal(jc.path, retention_days=jc.retention_days) if jc.path else None
        self._journal_lock = threading.Lock()  # append and queue together: the journal's order is the core's
        # a restarted reader link counts cycles from 1: the journal's numbering continues (the
        # reader's emit adds this as it builds the core's event: device_events.submitter)
        self._cycle_offset = 0
        self._last_cycle = 0
        self.watchdog_interval = _watchdog_interval()
        self._late: list[Effect] = []  # hands recovered from the journal that no output has seen
        self.journal_faults = JournalFaults(jc.path)
        self.log_limit = LogLimiter(log, prefix="daemon: ")  # a core bug hit by every cycle: one traceback
        self.table = Table(config.table, config.registry())
        self.sinks: list[Sink] = list(sinks) if sinks is not None else [LogSink()]
        self.feed: FeedSink | None = None
        options = link_options or {}
        rc = config.reader
        # (a configuration without a driver key, [shuffler]'s today: the registry's default driver)
        self.reader: ReaderLink = drivers.reader_link(
            getattr(rc, "driver", drivers.DEFAULT_READER), "reader",
            submitter(self.submit, cycle_offset=lambda: self._cycle_offset),
            PortSettings(url=rc.port, baudrate=rc.baudrate, parity=rc.parity),
            antennas=config.table.zones.antenna_mask(), com_adr=rc.address,
            ant_sel_bytes=rc.antenna_select_bytes, answer_timeout=rc.answer_timeout,
            max_timeouts=rc.max_timeouts, poll_interval=rc.poll_interval, clock=clock,
            # (a reader without signal strength stands in the tracker's level for a weak read:
            # firmware_bridge.bridge_client.LoneZone)
            **({"level": rc.strong_rssi} if getattr(rc, "driver", "") == "bridge" else {}),
            **options.get("reader", {}),
        )
        self.shuffler: ShufflerLink | None = None
        sc = config.shuffler
        if sc is not None:
            self.shuffler = drivers.shuffler_link(
                getattr(sc, "driver", drivers.DEFAULT_SHUFFLER), "shuffler", submitter(self.submit),
                PortSettings(url=sc.port, baudrate=sc.baudrate, parity="N"),
                poll_interval=sc.poll_interval, answer_timeout=sc.answer_timeout, max_timeouts=sc.max_timeouts,
                clock=clock, **options.get("shuffler", {}))
        for link in (self.reader, self.shuffler):
            if link is not None:
                link.mono = mono
        self.control: ControlServer | None = None
        self.console: ConsoleSink | None = None  # the dealer's console (docs/console.md), if configured
        if config.console is not None:
            self.console = ConsoleSink(config.console, self.submit, in_hand=lambda: self.table.hand is not None,
                                       next_seat=self._next_first_seat, clock=clock, mono=mono,
                                       display=self._display(config, clock, mono, display_bus))
            self.sinks.append(self.console)
        self.events_applied = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards the table for in-process viewers
        self.room: Any = None  # the room link (controller/room), with [room]
        if config.room is not None and self.journal is not None:
            # (paho-mqtt loaded only by a table with [room])
            from controller.daemon.room_link import make_link

            self.room = make_link(self, clock)

    def _display(self, config: Config, clock: Callable[[], float], mono: MonoClock, bus: Any) -> Any:
        """The dealer's display (docs/console.md, "The display"), if configured: a device of its
        own thread, fed by the console."""
        if config.display is None:
            return None
        # (the display's libraries loaded only by a table with [display])
        from controller.daemon.display_sink import DisplayOutput

        if bus is not None:

            # a simulated bus answers at once and costs nothing to ask: probed and retried often
            return DisplayOutput(config.display, self.submit, clock=clock, mono=mono, bus=bus,
                                 probe_every=0.05, backoff=Backoff(0.01, 0.05))
        if config.display.sim_cable is not None:
            log.warning("display: [display] sim_cable is tablectl simulate's; ignored, the display is "
                        "driven on i2c-%d", config.display.bus)
        return DisplayOutput(config.display, self.submit, clock=clock, mono=mono)

    def submit(self, event: Event, *, peer_uid: int | None = None) -> None:
        """Hand an event to the main loop (any thread); journalled first, if there is a journal.
        Returns once it is on disk: a device link acknowledges what it has handed on only then.
        ``peer_uid``: the control socket's peer that sent it (journalled with it in its own
        column); by default the one the event carries (the control socket puts it there)."""
        if peer_uid is None:
            peer_uid = getattr(event, "peer_uid", None)
        if self.journal is None:
            self.events.put((0, event))
            return
        with self._journal_lock:
            try:
                eid = self.journal.append(event, peer_uid=peer_uid)
            except Exception as exc:  # noqa: BLE001 (a full or failing disk must not stop the table)
                self.journal_faults.failed(exc, "append")
                eid = 0
            else:
                self.journal_faults.ok()
            self.events.put((eid, event))

    def status(self) -> dict:
        with self._lock:  # the control thread asks while the main loop applies events
            status = {"hands_finished": self.table.hands_finished, "events": self.events_applied,
                      "button": self.table.button, "game": self.table.game_now, "online": self.online(),
                      # a hand under way: `tablectl setup` restarts an upgraded daemon only between hands
                      "in_hand": self.table.hand is not None}
        if self.room is not None:  # (the outbox's counts: tablectl simulate --broker waits on them)
            link = self.room.link
            status["room"] = {**link.counts(), "connected": link.connected, "waiting_for_clock": link.waiting_for_clock,
                              "last_error": link.last_error, "signals": self.room.signals.counts()}
        return status

    def online(self) -> dict[str, bool]:
        """Each device's state, by device name: the device links', then the dealer's console's
        (its pins claimed: a console that failed to open is offline) and its display's (once it
        has answered or failed: before its first probe its state is not known, and it is left
        out). For ``systemctl status`` (:meth:`status_line`), the control socket's ``ping`` and the
        room's ``state``: a console or a display offline is named with the rest."""
        links = [self.reader] + ([self.shuffler] if self.shuffler is not None else [])
        out = {link.name: link.stats.online for link in links}
        if self.console is not None:
            out["console"] = self.console.console is not None
            display = self.console.display
            if display is not None and display.online is not None:
                out["display"] = bool(display.online)
        return out

    def recover(self) -> None:
        """Open the journal and rebuild the table from it (before any device is read). Whatever
        is lost is said in one line, and the floor gets a ``journal.damaged`` alert; a journal
        that cannot be used raises :class:`JournalError` (``tablectl run`` exits 2)."""
        j = self.journal
        if j is None:
            return
        result = recover_table(j, self.config.table, self.table, set(self.config.registry().decks))
        self.table = result.table
        for event in result.replayed_events:
            self._note_cycle(event)
        self._cycle_offset = max(j.last_cycle(), self._last_cycle)
        late: list[Effect] = list(result.late)
        if result.lost:
            alert = Alert(ts=self.clock(), code="journal.damaged", audience="floor", hand=result.hand_affected,
                          message=f"journal damaged: {result.summary()}")
            late.append(alert)
            logging.getLogger("tablectl.journal").error("journal: %s: %s", j.path, result.summary())
        if self.room is not None:
            self.room.recovered(result.replayed_effects, late)
        if late:
            try:
                j.record(late)
            except Exception as exc:  # noqa: BLE001 (a full disk: the outputs still get them)
                self.journal_faults.failed(exc, "record")
            self._late = late
        hand = self.table.hand
        log.info("journal: %s: %d events replayed%s; %s", j.path, result.replayed,
                 f" after the snapshot at event #{result.after}" if result.after else "",
                 f"carrying on in hand {hand.number}" if hand is not None else
                 f"{self.table.hands_finished} hands finished")

    def _note_cycle(self, event: Event) -> None:
        if type(event) is ReaderCycle and event.cycle > self._last_cycle:
            self._last_cycle = event.cycle

    def start(self, *, links: bool = True) -> None:
        """Recover, open the outputs and the device links, and say READY. ``links=False``: the
        device links get no threads of their own (the paced simulator steps them itself,
        ``hw_sim.pacing``), and READY does not wait for them."""
        self.recover()
        if self.room is not None:
            self.room.start()
        out = self.config.outputs
        if self.console is not None:
            self.console.open()
        if out.feed:
            self.feed = FeedSink(out.feed)
            self.sinks.append(self.feed)
        if out.control:
            self.control = ControlServer(out.control, self.submit, self.status, config=self.config.control,
                                         press=self.console.drive if self.console is not None else None,
                                         clock=self.clock)
            self.control.start()
        if links:
            self.reader.start()
            if self.shuffler is not None:
                self.shuffler.start()
        if getattr(self, "_late", None):
            fan_out(self.sinks, self._late)  # a hand that ended just before the power went
            self._late = []
        if links:
            self._await_devices()
        if self.feed is not None:
            self.feed.note({"type": "Ready", "ts": self.clock()})
        sd_notify("READY=1\nSTATUS=" + self.status_line())
        log.info("daemon: ready; reader on %s, %d antennas, decks %s",
                 self.config.reader.port, len(self.config.table.zones.by_antenna),
                 ", ".join(d.id for d in self.config.decks) or "none")

    def _await_devices(self, timeout: float | None = None) -> None:
        """READY means the devices were tried: wait (a little: ``[outputs] ready_wait``) for each
        link's first verdict."""
        if timeout is None:
            timeout = self.config.outputs.ready_wait
        links = [self.reader] + ([self.shuffler] if self.shuffler is not None else [])
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not all(link.stats.online for link in links):
            if self._stop.wait(0.02):
                return

    def status_line(self) -> str:
        """For ``systemctl status``: each device and whether it is online."""
        parts = [f"{name} {'online' if up else 'OFFLINE'}" for name, up in self.online().items()]
        hand = self.table.hand
        return "; ".join(parts) + (f"; hand {hand.number}" if hand is not None else "")

    def handle(self, event: Event | SignalDue, eid: int = 0) -> list[Effect]:
        """Apply one event and deliver its effects. Never raises on an event's content. A
        :class:`SignalDue` is the room link's, no event: the floor's tournament signal is
        turned into events here, on the loop (:mod:`controller.daemon.room_link`)."""
        if type(event) is SignalDue:
            try:
                self.room.signal_due(event)
            except Exception:  # (a bug there costs the signal, never the table)
                self.log_limit.note("tournament signals the daemon failed on", "daemon: failed on the floor's "
                                    "tournament signal; the table keeps what it had", level=logging.ERROR,
                                    exc_info=True)
            return []
        try:
            with self._lock:
                effects = self.table.apply(event)
        except Exception:
            # A bug in the core must not stop the table: log the event (never its reads: they
            # name the cards where they lie) and carry on.
            self.log_limit.note(f"events the core failed on ({type(event).__name__})",
                                "daemon: the core failed on a %s event (cycle %s); event skipped",
                                type(event).__name__, getattr(event, "cycle", "-"), level=logging.ERROR,
                                exc_info=True)
            return []
        self.events_applied += 1
        self._note_cycle(event)
        if type(event) is DeviceStatus:
            sd_notify("STATUS=" + self.status_line())
        if self.journal is not None and eid:
            self._journal_effects(eid, effects)
        if self.console is not None and type(event) is not ReaderCycle:
            self.console.event(event)  # a press answers the prompt shown, before its own effects
        if effects:
            fan_out(self.sinks, effects)
        return effects

    def _journal_effects(self, eid: int, effects: list[Effect]) -> None:
        j = self.journal
        assert j is not None
        try:
            rows = self.room.rows(effects) if self.room is not None else None
            if rows or any(type(e) is Alert or type(e) is HandFinished or type(e) is HandStarted for e in effects):
                j.record(effects, outbox=rows, event_id=eid)  # (a hand begun: its number, kept beside the journal)
                if rows:
                    self.room.notify()
            if any(type(e) is HandFinished for e in effects) or j.due_snapshot():
                settings = self.config.table
                j.snapshot(eid, self.table, now=self.clock(), last_cycle=self._last_cycle,
                           check=lambda state: Table.from_state(state, settings))
        except Exception as exc:  # noqa: BLE001 (a full disk: one line and a count, not a traceback)
            self.journal_faults.failed(exc, "record")
        else:
            self.journal_faults.ok()

    def run(self) -> None:
        """The main loop, until :meth:`stop`. It pings the watchdog itself, so a loop stuck in
        one event stops the pings; and it ticks once a second while something waits on time
        (:class:`controller.daemon.ticks.Ticks`: a device offline, so that the core can tell the
        floor when it stays away; a player clock counting down, FLOW-004)."""
        get = self.events.get
        interval = self.watchdog_interval
        most = min(0.2, interval) if interval else 0.2
        last_ping = time.monotonic()
        ticks = Ticks()
        if interval:
            sd_notify("WATCHDOG=1")
        while not self._stop.is_set():
            try:
                eid, event = get(timeout=ticks.wait(time.monotonic(), most))
            except queue.Empty:
                pass
            else:
                self.handle(event, eid)
            now = time.monotonic()
            if interval and now - last_ping >= interval:
                sd_notify("WATCHDOG=1")
                last_ping = now
            if ticks.due(self.table, now):
                mono, boot = self.mono()
                self.submit(Tick(ts=self.clock(), mono=mono, boot=boot))

    def stop(self) -> None:
        self._stop.set()
        self.reader.stop()
        if self.shuffler is not None:
            self.shuffler.stop()
        if self.control is not None:
            self.control.close()
        for s in self.sinks:
            s.close()
        if self.room is not None:
            self.room.stop()
        if self.journal is not None:
            self.journal.close()

    def _next_first_seat(self) -> int | None:
        """Between hands, the seat the next hand's first card goes to (the seat LED's lead
        before any card is out); None while a hand runs. From the main loop only."""
        table = self.table
        if table.hand is not None:
            return None
        seats, positions, _ = table.plan()  # the next hand's seats and button, as the dealing takes them
        order = deal_order(seats, positions.button)
        return order[0] if len(order) >= 2 else None

    def snapshot(self) -> dict:
        with self._lock:
            return self.table.snapshot()


def _watchdog_interval() -> float:
    """Half of systemd's ``WatchdogSec`` (``$WATCHDOG_USEC``), or 0 without a watchdog."""
    usec, pid = os.environ.get("WATCHDOG_USEC"), os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid.isdigit() and int(pid) != os.getpid()):
        return 0.0
    try:
        return max(0.01, int(usec) / 2e6)
    except ValueError:
        return 0.0
