"""One device in its own thread: the part every link shares (python-can's one abstract bus).

A link opens its device, reads it, turns what it reads into :mod:`tablectl.core.events` and hands
them to ``emit`` (thread-safe). It never dies: a failure nobody foresaw is logged, reported as
the device going offline, and the link starts again with backoff. Backends say how to talk to
their device in :meth:`DeviceLink.run`; the FEIG reader (:mod:`tablectl.devices.reader_link`)
and the shuffler (:mod:`tablectl.devices.shuffler_link`) are two.
"""

from __future__ import annotations

import abc
import logging
import threading
import time
from typing import Any
from collections.abc import Callable

from tablectl.core.events import DeviceStatus, Event
from tablectl.devices.backoff import Backoff
from tablectl.devices.clock import MonoClock, monotonic

log = logging.getLogger("tablectl.bridge")

Emit = Callable[[Event], None]


class DeviceLink(abc.ABC):
    """A device in its own thread, emitting events through ``emit``. ``stats`` is the
    backend's figures object; it must have an ``online`` attribute."""

    def __init__(self, name: str, emit: Emit, stats: Any, *, clock: Callable[[], float] = time.time) -> None:
        self.name = name
        self.emit = emit
        self.clock = clock  # wall time, for the records
        #: the monotonic reading the events durations are measured from carry (tablectl.devices.clock)
        self.mono: MonoClock = monotonic
        self.stats = stats
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported: bool | None = None  # the last state reported; None before the first

    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run_safely, name=f"link-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def _run_safely(self) -> None:
        """Run the link; should it fail in a way nobody foresaw, say so and start it again."""
        restart = Backoff(0.5, 30.0)
        while not self._stop.is_set():
            try:
                self.run()
                return
            except Exception:  # the link must never stop for good, nor take the daemon down
                log.exception("%s: link failed unexpectedly; restarting it", self.name)
                self._set_online(False, "link failed unexpectedly; see the log")
                self._stop.wait(restart.next())

    def _set_online(self, online: bool, detail: str) -> None:
        """Report a change. The first report may be "offline": a device missing or mute from
        the start must be told to the dealer as surely as one that went away."""
        prefix = f"{self.name}: "
        detail = detail[len(prefix):] if detail.startswith(prefix) else detail
        if online != self._reported:
            self._reported = online
            self.stats.online = online
            mono, boot = self.mono()
            self.emit(DeviceStatus(ts=self.clock(), device=self.name, online=online, detail=detail,
                                   mono=mono, boot=boot))

    @abc.abstractmethod
    def run(self) -> None:
        """The thread's body: loop until :meth:`stop`."""
