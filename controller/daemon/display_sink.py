"""The dealer's display as a device of the daemon: its own thread, its own retries.

:class:`DisplayOutput` is fed by the console (:class:`controller.daemon.console_sink.ConsoleSink`
gives it every state it shows) and words the state for the layout (``controller.core.display``). A
thread of its own writes the lines: an I2C write takes milliseconds per character, which the
daemon's main loop must not wait for, and only the latest screen matters (one still being
written when a newer comes is overtaken, never queued).

The display is a device like the others: a bus that fails (unplugged, a loose wire: an
``OSError``) is reported as ``DeviceStatus(display, offline)`` (the core raises
``device.display_offline``), the display is reopened after a bounded backoff (0.5 s doubling to
30 s), and the screen is redrawn whole when it is back (``device.display_online``). Nothing here
raises into the daemon.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from controller.core.display import render
from controller.core.events import DeviceStatus, Event
from controller.core.prompts import ConsoleState
from firmware_bridge.backoff import Backoff
from firmware_bridge.clock import MonoClock, monotonic
from firmware_bridge.display import DisplayError, open_display

log = logging.getLogger("tablectl.display")


class DisplayOutput:
    """The display's thread (see the module). ``bus``: an smbus2 ``SMBus`` to use instead of
    opening ``/dev/i2c-N`` (the tests' fake)."""

    def __init__(self, config: Any, submit: Callable[[Event], None], *, clock: Callable[[], float] = time.time,
                 mono: MonoClock = monotonic, bus: Any = None, backoff: Backoff | None = None,
                 probe_every: float = 2.0) -> None:
        self.config = config  # a controller.config.display.DisplayConfig
        self.submit = submit
        self.clock, self.mono = clock, mono
        self.bus = bus
        self.backoff = backoff or Backoff(initial=0.5, maximum=30.0)
        self.lines: list[str] = []  # the screen wanted (the demo shows it)
        self.drawn: list[str] | None = None  # the screen on the glass, None: not known
        self.online: bool | None = None
        #: a screen that does not change is never written: the display is asked whether it is
        #: still there this often (an unplugged one is told within this time)
        self.probe_every = probe_every
        self._probe_now = False
        self._cond = threading.Condition()
        self._stop = False
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="tablectl-display", daemon=True)
        self._thread.start()

    def show(self, state: ConsoleState) -> None:
        """The console's state: worded now (pure, fast), drawn by the thread."""
        try:
            lines = render(state, self.config.layout)
        except Exception:  # (a bug in the words must not stop the table)
            log.exception("display: cannot word %s", state.code)
            return
        with self._cond:
            if lines != self.lines:
                self.lines = lines
                self._cond.notify()

    def poke(self) -> None:
        """Probe now, or retry now if offline (the in-process harness's unplug and plug steps)."""
        with self._cond:
            self._probe_now = True
            self._cond.notify()

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._cond.notify()
        if self._thread is not None:
            self._thread.join(timeout=5)

    # -- the thread ------------------------------------------------------------------------------
    def _run(self) -> None:
        device: Any = None
        retry_at = 0.0
        probe_at = time.monotonic() + self.probe_every
        while True:
            with self._cond:
                while not self._stop:
                    now = time.monotonic()
                    if self._probe_now or (device is None and now >= retry_at):
                        break
                    if device is not None and (self.lines != self.drawn or now >= probe_at):
                        break
                    self._cond.wait(timeout=max(0.0, (retry_at if device is None else probe_at) - now))
                if self._stop:
                    break
                self._probe_now = False
                lines = list(self.lines)
            try:
                if device is None:
                    device = self._open()
                if lines != self.drawn:
                    device.show(lines)
                    self.drawn = lines
                else:
                    device.probe()
                probe_at = time.monotonic() + self.probe_every
                if self.online is not True:
                    self._report(True, f"{self.config.kind} at 0x{self.config.address:02x} on i2c-{self.config.bus}")
                    self.backoff.reset()
            except Exception as exc:  # DisplayError, or a library's bug: the table goes on either way
                if device is not None:
                    device.close()
                device, self.drawn = None, None
                delay = self.backoff.next()
                retry_at = time.monotonic() + delay
                if self.online is not False:
                    if isinstance(exc, DisplayError):
                        log.error("display: %s; retrying (every %g s at most)", exc, self.backoff.maximum)
                    else:
                        log.exception("display: %s; retrying", exc)
                    self._report(False, str(exc))
        if device is not None:
            device.close()

    def _open(self) -> Any:
        c = self.config
        cols, rows = (c.width, c.height) if c.kind == "hd44780" else (21, 5)
        return open_display(c.kind, port=c.bus, address=c.address, cols=cols, rows=rows, width=c.width,
                            height=c.height, bus=self.bus)

    def _report(self, online: bool, detail: str) -> None:
        self.online = online
        mono, boot = self.mono()
        try:
            self.submit(DeviceStatus(ts=self.clock(), device="display", online=online, detail=detail,
                                     mono=mono, boot=boot))
        except Exception:  # (a daemon shutting down)
            log.exception("display: cannot report its state")
