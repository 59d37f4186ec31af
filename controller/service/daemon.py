"""The daemon: device links in, the pure core in the middle, sinks out.

One thread per device link puts events on one queue; the main loop takes them in order,
applies each to the :class:`controller.table.Table` and fans the effects out to the sinks.
The core never sees a device, a clock or a file.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

from controller.effects import Effect
from controller.events import Event, ReaderCycle
from controller.service.config import Config
from controller.service.console_sink import ConsoleSink
from controller.service.control import ControlServer
from controller.service.notify import sd_notify
from controller.service.sinks import FeedSink, LogSink, Sink, fan_out
from controller.settings import deal_order
from controller.table import Table
from firmware_bridge.reader_link import FeigReaderLink, ReaderLink
from firmware_bridge.serial_port import PortSettings
from firmware_bridge.shuffler_link import SerialShufflerLink, ShufflerLink

log = logging.getLogger("tablectl.daemon")


class Daemon:
    """The table controller as it runs on a Pi.

    >>> from pathlib import Path
    >>> from controller.service.config import parse_config
    >>> d = Daemon(parse_config('[reader]\\nport = "loop://"', path=Path("t.toml")))
    >>> d.table.seats
    (1, 2, 3, 4, 5, 6, 7, 8, 9)
    """

    def __init__(self, config: Config, *, sinks: list[Sink] | None = None) -> None:
        self.config = config
        self.events: queue.SimpleQueue[Event] = queue.SimpleQueue()
        self.table = Table(config.table, config.registry())
        self.sinks: list[Sink] = list(sinks) if sinks is not None else [LogSink()]
        self.feed: FeedSink | None = None
        rc = config.reader
        self.reader: ReaderLink = FeigReaderLink(
            "reader", self.submit,
            PortSettings(url=rc.port, baudrate=rc.baudrate, parity=rc.parity),
            antennas=config.table.zones.antenna_mask(), com_adr=rc.address,
            ant_sel_bytes=rc.antenna_select_bytes, answer_timeout=rc.answer_timeout,
            max_timeouts=rc.max_timeouts, poll_interval=rc.poll_interval,
        )
        self.shuffler: ShufflerLink | None = None
        sc = config.shuffler
        if sc is not None:
            self.shuffler = SerialShufflerLink(
                "shuffler", self.submit, PortSettings(url=sc.port, baudrate=sc.baudrate, parity="N"),
                poll_interval=sc.poll_interval, answer_timeout=sc.answer_timeout, max_timeouts=sc.max_timeouts)
        self.control: ControlServer | None = None
        self.console: ConsoleSink | None = None  # the dealer's console (docs/console.md), if configured
        if config.console is not None:
            self.console = ConsoleSink(config.console, self.submit, in_hand=lambda: self.table.hand is not None,
                                       next_seat=self._next_first_seat)
            self.sinks.append(self.console)
        self.events_applied = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()  # guards the table for in-process viewers

    def submit(self, event: Event) -> None:
        """Hand an event to the main loop (any thread)."""
        self.events.put(event)

    def status(self) -> dict:
        with self._lock:  # the control thread asks while the main loop applies events
            return {"hands_finished": self.table.hands_finished, "events": self.events_applied,
                    "button": self.table.button, "online": self.online()}

    def online(self) -> dict[str, bool]:
        """Each device link's state, by device name."""
        links = [self.reader] + ([self.shuffler] if self.shuffler is not None else [])
        return {link.name: link.stats.online for link in links}

    def start(self) -> None:
        out = self.config.outputs
        if self.console is not None:
            self.console.open()
        if out.feed:
            self.feed = FeedSink(out.feed)
            self.sinks.append(self.feed)
        if out.control:
            self.control = ControlServer(out.control, self.submit, self.status,
                                         press=self.console.drive if self.console is not None else None)
            self.control.start()
        self.reader.start()
        if self.shuffler is not None:
            self.shuffler.start()
        if self.feed is not None:
            self.feed.note({"type": "Ready", "ts": time.time()})
        sd_notify("READY=1")
        log.info("daemon: ready; reader on %s, %d antennas, decks %s",
                 self.config.reader.port, len(self.config.table.zones.by_antenna),
                 ", ".join(d.id for d in self.config.decks) or "none")

    def handle(self, event: Event) -> list[Effect]:
        """Apply one event and deliver its effects. Never raises on an event's content."""
        try:
            with self._lock:
                effects = self.table.apply(event)
        except Exception:
            # A bug in the core must not stop the table: log the event (never its reads: they
            # name the cards where they lie) and carry on.
            log.exception("daemon: the core failed on a %s event (cycle %s); event skipped",
                          type(event).__name__, getattr(event, "cycle", "-"))
            return []
        self.events_applied += 1
        if self.console is not None and type(event) is not ReaderCycle:
            self.console.event(event)  # a press answers the prompt shown, before its own effects
        if effects:
            fan_out(self.sinks, effects)
        return effects

    def run(self) -> None:
        """The main loop, until :meth:`stop`."""
        get = self.events.get
        while not self._stop.is_set():
            try:
                event = get(timeout=0.2)
            except queue.Empty:
                continue
            self.handle(event)

    def stop(self) -> None:
        self._stop.set()
        self.reader.stop()
        if self.shuffler is not None:
            self.shuffler.stop()
        if self.control is not None:
            self.control.close()
        for s in self.sinks:
            s.close()

    def _next_first_seat(self) -> int | None:
        """Between hands, the seat the next hand's first card goes to (the seat LED's lead
        before any card is out); None while a hand runs. From the main loop only."""
        table = self.table
        if table.hand is not None:
            return None
        seats, positions, _ = table._plan()  # the next hand's seats and button, as _start_hand takes them
        order = deal_order(seats, positions.button)
        return order[0] if len(order) >= 2 else None

    def snapshot(self) -> dict:
        with self._lock:
            return self.table.snapshot()
