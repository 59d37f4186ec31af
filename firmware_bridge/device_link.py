"""One device in its own thread: the part every link shares (python-can's one abstract bus).

A link opens its device, talks to it, turns what it hears into the bridge's own events
(:mod:`firmware_bridge.events`) and hands them to ``emit`` (thread-safe). What every link does is here, once:

- the reconnect loop (:meth:`DeviceLink.run`): open the port, serve the device until it is lost,
  close the port, wait a bounded backoff (:mod:`firmware_bridge.backoff`), open it again;
- the device's state (:meth:`DeviceLink._set_online`): a :class:`firmware_bridge.events.LinkStatus`
  each time it changes, the first one included;
- the log: every line names the device, and a flood of one kind of failure is one line a minute
  with the count (:class:`firmware_bridge.log_limit.LogLimiter`);
- the seam a test or the in-process harness plugs into (python-can's virtual bus): ``opener``,
  which gives the port (by default the configured one, by URL; a
  :class:`firmware_bridge.virtual.VirtualLine`'s :meth:`~firmware_bridge.virtual.VirtualLine.open_port`
  in process);
- never dying: a failure nobody foresaw is logged, reported as the device going offline, and the
  link starts again with backoff.

A backend says only how to talk to its device: :meth:`DeviceLink._begin` (what a session on an
open port holds: a client, a decoder) and :meth:`DeviceLink._serve` (talk until the device is
lost: return once that is reported, or raise :class:`firmware_bridge.errors.LinkError` when the
port fails). The FEIG reader (:mod:`firmware_bridge.reader_link`) and the shuffler
(:mod:`firmware_bridge.shuffler_link`) are two; :mod:`firmware_bridge.drivers` chooses one by
name. Here is a third, a device that says back what it is sent, on a virtual line:

>>> import threading
>>> import serial
>>> from types import SimpleNamespace
>>> from firmware_bridge.errors import LinkError
>>> from firmware_bridge.virtual import VirtualLine
>>> class Echo(DeviceLink):
...     # online while the device says back what it is sent
...     def _begin(self, port):
...         return port  # (what a session holds: here the port alone)
...     def _serve(self, port):
...         while not self._stop.is_set():
...             try:
...                 port.write(b"ping")
...                 echoed = port.read(4)
...             except serial.SerialException as exc:  # wrapped, the cause kept
...                 raise LinkError(str(exc)) from exc  # (the line's message names it)
...             self._set_online(True, "echoing")
...             self._stop.wait(0.01)
>>> line = VirtualLine("echo")
>>> line.receive = line.write  # the device: what it receives, it sends back
>>> told, events = threading.Condition(), []
>>> def emit(event):
...     with told:
...         events.append((event.online, event.detail))
...         told.notify_all()
>>> def heard(n):
...     with told:
...         return told.wait_for(lambda: len(events) >= n, 10)
>>> link = Echo("echo", emit, SimpleNamespace(online=False, reconnects=0), opener=line.open_port,
...             backoff=Backoff(0.01, 0.01))
>>> link.start(); heard(1)
True
>>> line.close(); heard(2)  # the cable pulled: reported, the port closed, opened again after a backoff
True
>>> line.open(); heard(3)  # plugged back in
True
>>> link.stop(); events[:2], events[2]
([(True, 'echoing'), (False, 'device unplugged')], (True, 'echoing'))
>>> link.stats.reconnects >= 1
True
"""

from __future__ import annotations

import abc
import logging
import threading
import time
from typing import Any
from collections.abc import Callable

from firmware_bridge.backoff import Backoff
from firmware_bridge.clock import MonoClock, monotonic
from firmware_bridge.errors import LinkError
from firmware_bridge.events import Emit, LinkStatus
from firmware_bridge.log_limit import LogLimiter
from firmware_bridge.serial_port import Port, PortSettings, open_port

__all__ = ["DeviceLink", "Emit", "Opener"]

log = logging.getLogger("tablectl.bridge")

#: Gives an open port (:class:`firmware_bridge.serial_port.Port`: pyserial's ``Serial``, a
#: virtual line's port), or raises :class:`firmware_bridge.errors.LinkError` naming the device.
Opener = Callable[[], Port]


class DeviceLink(abc.ABC):
    """A device in its own thread, emitting events through ``emit`` (see the module).

    ``stats`` is the backend's figures object: it must have ``online`` and ``reconnects``
    attributes (the link keeps them), and gets ``events``, the count of every rate-limited log
    event by kind. ``port``: the configured port, opened by URL unless ``opener`` is given (the
    seam for a test or the in-process harness: :class:`firmware_bridge.virtual.VirtualLine`).
    ``backoff``: the wait between two attempts to open the port (50 ms doubling to 2 s by
    default); ``max_timeouts``: failed attempts in a row before a device never seen is reported
    offline (one is enough for a device that was online). ``clock``: wall time, for the events.
    """

    def __init__(self, name: str, emit: Emit, stats: Any, *, port: PortSettings | None = None,
                 opener: Opener | None = None, backoff: Backoff | None = None, max_timeouts: int = 3,
                 clock: Callable[[], float] = time.time) -> None:
        self.name = name
        self.emit = emit
        self.clock = clock  # wall time, for the records
        #: the monotonic reading the events durations are measured from carry (firmware_bridge.clock)
        self.mono: MonoClock = monotonic
        self.stats = stats
        #: the configured port (None: the opener alone knows where the device is)
        self.port_settings = port
        #: gives the port, opened (:data:`Opener`): the configured one by URL unless told otherwise
        self.opener: Opener = opener or self._open_configured
        self.backoff = backoff or Backoff(0.05, 2.0)
        self.max_timeouts = max_timeouts
        #: every warning a flood could repeat goes through it: the first of a kind at once, then
        #: one line a minute with the count; the counts are the figures' ``events``
        self.limiter = LogLimiter(log, prefix=f"{name}: ")
        self.stats.events = self.limiter.counts
        self._failures = 0  # failures in a row, for the log and for the verdicts
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._reported: bool | None = None  # the last state reported; None before the first
        self._paced: tuple[Port, Any] | None = None  # (port, session) kept open between paced calls

    # -- the thread ------------------------------------------------------------------------------
    def start(self) -> None:
        self._stop.clear()
        self._thread = threading.Thread(target=self._run_safely, name=f"link-{self.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 2.0) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self.limiter.flush()  # what a flood's tail held back is told before the daemon goes

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

    def run(self) -> None:
        """The thread's body, until :meth:`stop`: open the port, serve the device until it is
        lost, close the port, and open it again after a backoff (reset by the backend once the
        device answers). A port that fails (:class:`LinkError`) is logged and the device reported
        offline; each session lost counts in ``stats.reconnects``."""
        while not self._stop.is_set():
            port = self._open()
            if port is None:
                self._stop.wait(self.backoff.next())
                continue
            try:
                self._serve(self._begin(port))
            except LinkError as exc:
                self._lost(exc)
            finally:
                self._close(port)
            if not self._stop.is_set():
                self.stats.reconnects += 1
                self._stop.wait(self.backoff.next())

    # -- what a backend says -----------------------------------------------------------------------
    @abc.abstractmethod
    def _begin(self, port: Port) -> Any:
        """A session on a port just opened: what talking to the device needs (a client, a fresh
        decoder), handed to :meth:`_serve`."""

    @abc.abstractmethod
    def _serve(self, session: Any) -> None:
        """Talk to the device until :meth:`stop` or until it is lost: return once the loss is
        reported (:meth:`_set_online`), or raise :class:`LinkError` when the port fails (the
        loop reports it). Either way the port is closed and opened again."""

    # -- the port ----------------------------------------------------------------------------------
    def _open_configured(self) -> Port:
        if self.port_settings is None:
            raise LinkError(f"{self.name}: no port configured")
        return open_port(self.port_settings, device=self.name)

    def _open(self) -> Port | None:
        """One attempt to open the port: the port, or None once the failure is said as it is due
        (:meth:`_open_failed`)."""
        try:
            port = self.opener()
        except LinkError as exc:
            self._open_failed(exc)
            return None
        # (a cable that comes and goes must not flood the log either)
        self.limiter.note("openings of the port", "%s: opened %s", self.name, self._where(), level=logging.INFO)
        return port

    def _where(self) -> str:
        return self.port_settings.url if self.port_settings is not None else "its port"

    def _open_failed(self, exc: LinkError) -> None:
        """The port would not open: said once the device is known gone (at once if it was online)."""
        if self._failed(str(exc), "failed attempts to open the port") >= self.max_timeouts or self._reported:
            self._set_online(False, str(exc))

    def _close(self, port: Port) -> None:
        self.limiter.tick()
        try:
            port.close()
        except Exception:  # closing a vanished device may fail; nothing to save
            pass

    def _lost(self, exc: LinkError) -> None:
        """The port failed (a read, a write): logged, and the device reported offline."""
        self._failed(str(exc), "link errors")  # the message names the device already
        self._set_online(False, str(exc))

    # -- paced: the caller's thread says when ------------------------------------------------------
    def _paced_session(self) -> Any:
        """The session the paced calls (the simulated table's beat, ``hw_sim.pacing``) keep
        open between them; the port is opened now if it is not (one attempt: a cable that is out
        stays out until a later call). None if it would not open."""
        if self._paced is None:
            port = self._open()
            if port is None:
                return None
            self._paced = (port, self._begin(port))
        return self._paced[1]

    def _paced_end(self) -> None:
        """The paced session is over: its port closed (opened again by the next paced call)."""
        if self._paced is not None:
            port, self._paced = self._paced[0], None
            self._close(port)

    # -- what is said ------------------------------------------------------------------------------
    def _failed(self, message: str, kind: str, level: int = logging.WARNING) -> int:
        """Count a failure; log it through the limiter (the first of a kind, then one line a
        minute with the count), so that a device stuck in an error, or failing every other
        time, cannot flood the log. Returns the failures in a row."""
        self._failures += 1
        if not message.startswith(f"{self.name}: "):  # (a codec's message does not name the device)
            message = f"{self.name}: {message}"
        self.limiter.note(kind, "%s", message, level=level)
        return self._failures

    def _set_online(self, online: bool, detail: str) -> None:
        """Report a change. The first report may be "offline": a device missing or mute from
        the start must be told to the dealer as surely as one that went away."""
        prefix = f"{self.name}: "
        detail = detail[len(prefix):] if detail.startswith(prefix) else detail
        if online != self._reported:
            self._reported = online
            self.stats.online = online
            mono, boot = self.mono()
            self.emit(LinkStatus(ts=self.clock(), device=self.name, online=online, detail=detail,
                                 mono=mono, boot=boot, **(self._online_extra() if online else {})))

    def _online_extra(self) -> dict[str, Any]:
        """What a device tells with its online status beyond the link's own (a bridge board's
        zone capacities); nothing by default."""
        return {}
