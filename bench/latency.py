"""Frame-to-effect latency through a pseudo-terminal (target: p99 under 2 ms).

The simulated reader answers on a real pseudo-terminal from a process of its own; the daemon's
reader link reads it through pyserial and the core turns it into effects. Each trial lays a tag
of no registered deck on an antenna; the latency is from the moment the reader began writing the
answer that completes the evidence (the ``confirm_cycles``-th read) to the pseudo-terminal to the
moment the daemon emitted the ``deck.unknown_tag`` alert. Both processes take their times from the
system's monotonic clock (``CLOCK_MONOTONIC``, one for every process).

A reader is its own CPU, and the simulated one is paced as a reader is, so that what is measured
is the host's path and not the simulator's work (see ``_start``): it waits part of a cycle's air
time before it works out the cycle, and rests a moment before it writes the answer. The simulated
bridge board runs its firmware over thirteen simulated chips, tens of milliseconds of Python a
cycle: in the daemon's process (``--in-process``, as this bench ran before) it held the
interpreter's lock while the daemon handled the cycle before, since the host asks for the next
cycle as soon as it has one; out of it but unpaced, it took the CPU from the host on a two-core
machine, and on a busy one it was itself interrupted between the time it took and its write.
Either counted the simulator's work as the host's latency (45 ms at the 99th percentile).

    .venv/bin/python bench/latency.py [--trials 500] [--reader feig|bridge] [--journal] [--in-process]

``--reader bridge``: the bridge board instead (docs/protocols/bridge.md: its firmware's own logic on
simulated PN5180s, hw_sim/bridge_reader.py), read by the bridge's driver; the latency is from the
board's writing the cycle that completes the evidence to the alert. ``--in-process``: the
simulated reader in the daemon's process, in a thread (what the simulator's own work adds).
The figures want a quiet machine: on one whose two cores run a dozen other processes, the
pseudo-terminal's delivery and the daemon's own thread wait their turn, for either reader.
"""

from __future__ import annotations

import argparse
import bisect
import multiprocessing
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.core.effects import Alert  # noqa: E402
from controller.config.daemon import parse_config  # noqa: E402
from controller.daemon.main import Daemon  # noqa: E402
from controller.daemon.sinks import CallbackSink  # noqa: E402
from controller.core.zones import ZoneMap  # noqa: E402
from hw_sim.setup import write_setup  # noqa: E402
from hw_sim.feig_reader import SimFeigReader  # noqa: E402
from hw_sim.readers import READER_DEVICES  # noqa: E402
from hw_sim.pty_device import PtyDevice  # noqa: E402


#: what the simulated reader sleeps between a cycle's work and its answer, and before it starts
#: a cycle's work (part of the cycle's air time): see ``_start``
BOARD_REST_S = 0.002
AIR_S = 0.010


def now() -> float:
    """The system's monotonic clock, the same in every process."""
    return time.clock_gettime(time.CLOCK_MONOTONIC)


class Board:
    """The simulated reader (``kind``) on the pseudo-terminal at ``link``: in this process, in a
    thread, or (``process``) in a process of its own, driven over a pipe. It notes when each cycle's
    answer began to be written (:meth:`write_before`)."""

    def __init__(self, kind: str, link: Path, *, process: bool) -> None:
        self.proc: multiprocessing.process.BaseProcess | None = None
        if not process:
            self.reader, self._writes = _start(kind, link)
            return
        ctx = multiprocessing.get_context("fork")  # (before the daemon starts a thread)
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(kind, link, child), daemon=True)
        self.proc.start()
        if self.conn.recv() != "ready":
            raise SystemExit("the simulated reader did not start")

    def _call(self, *cmd: object) -> object:
        if self.proc is None:
            return _do(self.reader, self._writes, cmd)
        self.conn.send(cmd)
        return self.conn.recv()

    def place(self, uid: str, antenna: int) -> None:
        self._call("place", uid, antenna)

    def remove(self, uid: str) -> None:
        self._call("remove", uid)

    def wait_cycles(self, count: int, timeout: float) -> bool:
        return bool(self._call("wait_cycles", count, timeout))

    def write_before(self, t: float) -> float:
        """When the last cycle's answer before ``t`` began to be written."""
        return float(self._call("write_before", t))

    def stop(self) -> None:
        self._call("stop")
        if self.proc is not None:
            self.proc.join(5)


def _start(kind: str, link: Path) -> tuple[SimFeigReader, list[float]]:
    device, _ = READER_DEVICES[kind]
    reader: SimFeigReader = device(PtyDevice(link), antennas=ZoneMap.default().by_antenna)
    writes: list[float] = []  # when each cycle's answer began to be written
    done = [False]  # a cycle is complete: its answer's (last) part is the next one written
    send = reader._send

    def sent(data: bytes) -> None:
        if done[0]:
            # The simulated bridge board has just run its firmware over thirteen simulated chips,
            # tens of milliseconds of Python: on a busy machine the scheduler takes the CPU from
            # such a process at its next tick, which may fall between the time taken here and
            # the write, and the time the line stood still would count as the host's. A real
            # board's CPU is its own: the board sleeps a moment first, and wakes with a fresh
            # time slice, as the FEIG simulator does between two requests.
            time.sleep(BOARD_REST_S)
            writes.append(now())
            done[0] = False
        send(data)
        # A reader's cycle takes time on the air before it answers (a FEIG reader's about 50 ms,
        # the bridge board's 0.25 s at least: docs/protocols/bridge.md, "The cycle time"), while
        # the host handles the cycle before; the simulated reader answers as fast as the CPU
        # lets it. It spends part of that air time here, before it looks at the line again: the
        # host asks for the next cycle as soon as it has one, and a simulated reader that woke
        # for that request would take a core from the host while the host handles the cycle the
        # latency is measured on (a woken thread, and the bridge board's firmware after it);
        # a real reader's CPU is its own. The request waits on the line meanwhile.
        time.sleep(AIR_S)

    reader._send = sent  # type: ignore[method-assign]
    reader.on_cycle = lambda n, reads, label, looked: done.__setitem__(0, True)
    reader.start()
    return reader, writes


def _do(reader: SimFeigReader, writes: list[float], cmd: tuple[object, ...]) -> object:
    what, *args = cmd
    if what == "place":
        reader.place(str(args[0]), str(args[0]), int(args[1]))
    elif what == "remove":
        reader.remove(str(args[0]))
    elif what == "wait_cycles":
        return reader.wait_cycles(int(args[0]), float(args[1]))
    elif what == "write_before":
        return writes[bisect.bisect_left(writes, float(args[0])) - 1]
    elif what == "stop":
        reader.stop()
    return None


def _serve(kind: str, link: Path, conn: Any) -> None:
    """The simulated reader's process: commands from the pipe until ``stop``."""
    reader, writes = _start(kind, link)
    conn.send("ready")
    while True:
        cmd = conn.recv()
        conn.send(_do(reader, writes, cmd))
        if cmd[0] == "stop":
            return


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=500)
    ap.add_argument("--journal", action="store_true", help="with the journal, as a real table runs")
    ap.add_argument("--reader", choices=tuple(READER_DEVICES), default="feig")
    ap.add_argument("--in-process", action="store_true",
                    help="the simulated reader in the daemon's process (a thread), as before")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tablectl-bench-"))
    _, reader_lines = READER_DEVICES[args.reader]
    cfg = write_setup(work, journal=args.journal, reader_extra=reader_lines if args.reader != "feig" else "")
    config = parse_config(cfg.read_text(), path=cfg)
    reader = Board(args.reader, work / "reader", process=not args.in_process)
    got: dict[str, float] = {}
    cond = threading.Condition()

    def take(effects):  # type: ignore[no-untyped-def]
        t = now()
        with cond:
            for e in effects:
                if isinstance(e, Alert) and e.code == "deck.unknown_tag":
                    got[e.card[4:]] = t
            cond.notify_all()

    daemon = Daemon(config, sinks=[CallbackSink(take, clearance="floor")])
    daemon.start()
    threading.Thread(target=daemon.run, daemon=True).start()
    lat = []
    try:
        reader.wait_cycles(2, 10)
        for i in range(args.trials):
            uid = f"E0040150B0{i:06X}"
            reader.place(uid, 1 + i % 13)
            with cond:
                if not cond.wait_for(lambda uid=uid: uid in got, 10):
                    raise SystemExit(f"trial {i}: no alert")
            t_alert = got[uid]
            t_frame = reader.write_before(t_alert)  # the answer just before
            lat.append((t_alert - t_frame) * 1000)
            reader.remove(uid)
            reader.wait_cycles(config.table.gone_cycles + 2, 10)  # let it leave the table
    finally:
        daemon.stop()
        reader.stop()
        shutil.rmtree(work, ignore_errors=True)
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
    where = "in process" if args.in_process else "the reader in its own process"
    print(f"{args.reader} ({where}): {'with the journal: ' if args.journal else ''}frame-to-alert latency over "
          f"{len(lat)} trials: "
          f"p50 {p(0.50):.3f} ms, p99 {p(0.99):.3f} ms, max {lat[-1]:.3f} ms, mean {statistics.mean(lat):.3f} ms")


if __name__ == "__main__":
    main()
