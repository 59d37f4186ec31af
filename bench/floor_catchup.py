"""The floor's catch-up after a stop (issue 38): how fast ``tablectl floor`` takes in a backlog
that piled up in its persistent session while it was away.

One mosquitto on loopback with the shipped limits (docs/room/mosquitto.conf: ``max_inflight_messages
200``, ``max_queued_messages 100000``, persistence on); the service started once (its session made,
its topics subscribed) and stopped; one table publishes ``--messages`` alerts (default 15,000) into
that session; the service is started again and timed from its start (the process started) to the
last message taken in (its batch committed right after), and from its first message taken in to the
last (the catch-up alone, without Python's start-up and the connection). The times are the database's own (each
message's ``received``, the service's clock as it took it in; this host's clock both), read once
every message is there: the polling that waits for that is no part of the figures.

``--compare DIR`` measures the floor service of another checkout too (``git archive COMMIT | tar -x
-C DIR``: the code before issue 38's change), in turns with this one's, in the same run of the
bench (a shared machine's load then weighs on both alike), ``--runs`` times each; the medians are
given. The databases live in ``--dir`` (default a temporary folder in /var/tmp: a disk, so that an
fsync costs what it costs; not a tmpfs).

    .venv/bin/python bench/floor_catchup.py [--compare DIR] [--messages 15000] [--runs 5] [--dir DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rig.broker import Broker  # noqa: E402
from rig.floor import FakeTable, FloorProc  # noqa: E402
from rig.waiting import wait_for  # noqa: E402

#: the shipped broker's limits (docs/room/mosquitto.conf), persistence as shipped
SHIPPED_LIMITS = "max_inflight_messages 200\nmax_queued_messages 100000\n"
#: a stop's deadline (its password checks' process may still be starting on a loaded machine)
STOP_WITHIN = 60.0


def one_run(folder: Path, messages: int, code: Path | None) -> tuple[float, float]:
    """(seconds from the service's start to every message kept, seconds from its first taken in to the last)."""
    (folder / "broker").mkdir(parents=True)
    broker = Broker(folder / "broker", persistence=True, extra=SHIPPED_LIMITS)
    broker.start()
    floor = FloorProc(folder, broker, code=code)
    table = None
    try:
        floor.start()  # (the session made and subscribed: the broker queues for it from now on)
        floor.signal(signal.SIGTERM, STOP_WITHIN)
        table = FakeTable(broker, table="t1")
        table.backlog(messages)
        table.stop()
        start = time.time()
        floor.start()
        if not wait_for(lambda: floor.kept() >= messages, 600, poll=0.05):
            raise SystemExit(f"the floor kept {floor.kept()} of {messages} in 600 s: {floor.log.read_text()[-2000:]}")
        with contextlib.closing(sqlite3.connect(floor.database, timeout=30)) as db:
            first, last = db.execute("SELECT min(received), max(received) FROM messages").fetchone()
        return last - start, last - first
    finally:
        try:
            if table is not None:
                table.stop()
            if floor.proc is not None:
                try:
                    floor.signal(signal.SIGTERM, STOP_WITHIN)
                except subprocess.TimeoutExpired:
                    floor.signal(signal.SIGKILL)
        finally:
            broker.stop()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--compare", type=Path, default=None, help="another checkout's floor service, measured in turns")
    ap.add_argument("--messages", type=int, default=15_000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--dir", type=Path, default=Path("/var/tmp"), help="where the databases go (a disk)")
    args = ap.parse_args()
    codes: list[tuple[str, Path | None]] = ([(str(args.compare), args.compare)] if args.compare else []) \
        + [("this checkout", None)]
    totals: dict[str, list[float]] = {name: [] for name, _ in codes}
    catchups: dict[str, list[float]] = {name: [] for name, _ in codes}
    for i in range(args.runs):
        for name, code in codes:
            with tempfile.TemporaryDirectory(dir=args.dir, prefix="floor-catchup-") as tmp:
                total, catchup = one_run(Path(tmp), args.messages, code)
            totals[name].append(args.messages / total)
            catchups[name].append(args.messages / catchup)
            print(f"run {i + 1}, {name}: {total:.2f} s from the start ({args.messages / total:,.0f} messages/s), "
                  f"{catchup:.2f} s from the first taken in ({args.messages / catchup:,.0f} messages/s)", flush=True)
    for name, _ in codes:
        print(f"{name}: {args.messages:,} messages, median of {args.runs}: "
              f"{statistics.median(totals[name]):,.0f} messages/s from the start, "
              f"{statistics.median(catchups[name]):,.0f} messages/s from the first taken in")
    return 0


if __name__ == "__main__":
    sys.exit(main())
