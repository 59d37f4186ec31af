"""The daemon as ``tablectl simulate`` runs it: the real daemon, paced by the simulated table.

``python -m hw_sim.paced_daemon --config FILE --pace-in R --pace-out W --start T`` runs the
daemon of ``tablectl run`` (the same configuration, journal, control socket, feed, console and
room link; its devices on the simulator's pseudo-terminals) with two differences, both the
simulated table's (``hw_sim.pacing``):

- its clocks are the simulated table's (:class:`hw_sim.pacing.SimClock`, from ``T``);
- its device links have no threads of their own: the simulator asks for each beat over the two
  pipes it handed this process (file descriptors ``R`` and ``W``, inherited; nothing else can
  open them), and the answer comes once every event of the beat is taken in.

The pipes carry one JSON object a line (docs/deal-script.md, "How the simulated table keeps
time"). From the simulator: ``{"op": "start", "t": T}`` (the shuffler's handshake),
``{"op": "cycle", "t": T}`` (one reader cycle, a shuffler poll when due, the tick while a
device is away), ``{"op": "at", "t": T}`` (the instant of the command the simulator sends next
over the control socket), ``{"op": "sync"}`` (take in what that command made),
``{"op": "display", "t": T, "plugged": BOOL}`` (the display's cable), ``{"op": "signal", "t": T,
"event": {"type": "Release", "round": 2}}`` (the floor's signal of a script's floor step, stamped
and submitted here: the control socket takes no such command, the room link brings the floor's).
The answers:
``{"ready": true}`` once the daemon has started, then ``{"ok": true, "reports": N}`` for each
op (``N``: the deck reports the shuffler link has taken), or ``{"ok": false, "error": ...}`` for
an op it cannot read. It exits when the simulator closes its pipe, or on SIGTERM.

This module is the simulator's: ``tablectl run`` never imports it.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import select
import signal
import sys
from typing import Any

from hw_sim.pacing import PACE_TIMEOUT, Beat, SimClock
from hw_sim.i2c_bus import CableFileBus
from hw_sim.i2c_bus import SimDisplayCable

log = logging.getLogger("tablectl.daemon")

#: the longest op line read (an op is a few dozen bytes)
MAX_LINE = 4096


class PaceLine:
    """One end of the pacing pipes: JSON objects, one a line, each way.

    >>> r1, w1 = os.pipe(); r2, w2 = os.pipe()
    >>> a, b = PaceLine(r1, w2), PaceLine(r2, w1)
    >>> b.send({"op": "sync"}); a.receive(1.0)
    {'op': 'sync'}
    >>> a.receive(0.01) is None  # nothing more: None after the timeout
    True
    """

    def __init__(self, read_fd: int, write_fd: int) -> None:
        self.read_fd, self.write_fd = read_fd, write_fd
        self._buf = bytearray()
        self.closed = False  # the other end hung up

    def send(self, message: dict[str, Any]) -> None:
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode()
        view = memoryview(data)
        while view:
            view = view[os.write(self.write_fd, view):]

    def receive(self, timeout: float) -> dict[str, Any] | None:
        """The next object, or None if none came within ``timeout`` seconds (or the other end
        hung up: :attr:`closed`). A line that is not a JSON object is ValueError."""
        while b"\n" not in self._buf:
            if len(self._buf) > MAX_LINE:
                raise ValueError(f"a line longer than {MAX_LINE} bytes")
            try:
                ready, _, _ = select.select([self.read_fd], [], [], timeout)
            except InterruptedError:  # (a signal: the caller looks at why)
                return None
            if not ready:
                return None
            chunk = os.read(self.read_fd, 4096)
            if not chunk:
                self.closed = True
                return None
            self._buf += chunk
        i = self._buf.index(b"\n")
        line = bytes(self._buf[:i])
        del self._buf[:i + 1]
        value = json.loads(line)
        if not isinstance(value, dict):
            raise ValueError("not a JSON object")
        return value

    def close(self) -> None:
        for fd in (self.read_fd, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


def _instant(op: dict[str, Any]) -> float:
    t = op.get("t")
    if not isinstance(t, (int, float)) or isinstance(t, bool) or not math.isfinite(t) or t < 0:
        raise ValueError(f'"t" must be an instant in seconds, got {t!r:.40}')
    return float(t)


class PacedDaemon:
    """The daemon and its beat, answering the simulator's ops (see the module)."""

    def __init__(self, daemon: Any, clock: SimClock, line: PaceLine) -> None:
        self.daemon, self.clock, self.line = daemon, clock, line
        self.beat = Beat(daemon, clock)
        self.cable: Any = None
        display = daemon.config.display
        if display is not None and display.sim_cable is not None:

            self.cable = SimDisplayCable(display.sim_cable)
        self.stopping = False

    def reports(self) -> int:
        link = self.daemon.shuffler
        return link.stats.reports if link is not None else 0

    def serve(self) -> None:
        self.line.send({"ready": True})
        while not self.stopping:
            try:
                op = self.line.receive(0.2)
            except (ValueError, UnicodeDecodeError) as exc:
                self.line.send({"ok": False, "error": f"unreadable op: {exc}"})
                continue
            if op is None:
                if self.line.closed:
                    return
                self.beat.drain()  # (what the room link's commands made while the table was idle)
                continue
            try:
                self.do(op)
            except ValueError as exc:
                self.line.send({"ok": False, "error": str(exc)})
                continue
            self.line.send({"ok": True, "reports": self.reports()})

    def do(self, op: dict[str, Any]) -> None:
        kind = op.get("op")
        beat = self.beat
        if kind == "cycle":
            beat.cycle(_instant(op))
        elif kind == "at":
            self.clock.set(_instant(op))
            return  # (the command comes next, over the control socket; "sync" takes it in)
        elif kind == "sync":
            pass
        elif kind == "start":
            beat.start(_instant(op))
        elif kind == "signal":
            beat.signal(_instant(op), op.get("event"))
        elif kind == "display":
            plugged = op.get("plugged")
            if not isinstance(plugged, bool) or self.cable is None:
                raise ValueError("display: no simulated display, or \"plugged\" is not true or false")
            cable = self.cable.plug if plugged else self.cable.unplug
            if not beat.display(_instant(op), cable, plugged):
                log.error("display: never reported %s", "online" if plugged else "offline")
        else:
            raise ValueError(f"unknown op {kind!r:.40}")
        beat.drain()


def main(argv: list[str] | None = None) -> int:
    # (the daemon's modules imported here, not at the top: ``tablectl simulate`` imports this module
    # for :class:`PaceLine` alone, and would otherwise load the daemon, its journal and the whole
    # table in a process that runs none of them: the daemon is its subprocess)
    from controller.daemon.journal import JournalError
    from controller.daemon.main import Daemon
    from controller.daemon.startup import daemon_config

    ap = argparse.ArgumentParser(prog="python -m hw_sim.paced_daemon")
    ap.add_argument("--config", required=True)
    ap.add_argument("--pace-in", type=int, required=True)
    ap.add_argument("--pace-out", type=int, required=True)
    ap.add_argument("--start", type=float, required=True)
    args = ap.parse_args(argv)
    config = daemon_config(args.config)  # (as tablectl run: its umask, its configuration, its logging)
    if config is None:
        return 2
    clock = SimClock(args.start)
    bus = None
    if config.display is not None and config.display.sim_cable is not None:

        bus = CableFileBus(config.display.sim_cable, config.display.address)
    daemon = Daemon(config, clock=clock, mono=clock.monotonic, display_bus=bus)
    paced = PacedDaemon(daemon, clock, PaceLine(args.pace_in, args.pace_out))

    def on_signal(signum: int, frame: object) -> None:
        paced.stopping = True

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        daemon.start(links=False)
    except (JournalError, OSError) as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        daemon.stop()
        return 2
    try:
        paced.serve()
    finally:
        daemon.stop()
        log.info("daemon: stopped")
    return 0


__all__ = ["PACE_TIMEOUT", "PaceLine", "PacedDaemon", "main"]

if __name__ == "__main__":
    sys.exit(main())
