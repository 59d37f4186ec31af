"""Frame-to-effect latency through a pseudo-terminal (target: p99 under 2 ms).

The simulated FEIG reader answers on a real pseudo-terminal; the daemon's reader link reads
it through pyserial and the core turns it into effects, in one process so that both ends
share a clock. Each trial lays a tag of no registered deck on an antenna; the latency is
from the moment the reader finished writing the answer that completes the evidence (the
``confirm_cycles``-th read) to the moment the daemon emitted the ``deck.unknown_tag`` alert.

    .venv/bin/python bench/latency.py [--trials 500] [--reader feig|bridge]

``--reader bridge``: the bridge board instead (docs/protocols/bridge.md: its firmware's own logic on
simulated PN5180s, hw_sim/bridge_reader.py), read by the bridge's driver; the latency is from the
board's writing the cycle that completes the evidence to the alert.
"""

from __future__ import annotations

import argparse
import bisect
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=500)
    ap.add_argument("--journal", action="store_true", help="with the journal, as a real table runs")
    ap.add_argument("--reader", choices=tuple(READER_DEVICES), default="feig")
    args = ap.parse_args()
    work = Path(tempfile.mkdtemp(prefix="tablectl-bench-"))
    device, reader_lines = READER_DEVICES[args.reader]
    cfg = write_setup(work, journal=args.journal, reader_extra=reader_lines if args.reader != "feig" else "")
    config = parse_config(cfg.read_text(), path=cfg)
    writes: list[float] = []  # perf_counter when each full answer was written
    reader: SimFeigReader = device(PtyDevice(work / "reader"), antennas=ZoneMap.default().by_antenna)
    reader.on_cycle = lambda n, reads, label, looked: writes.append(time.perf_counter())
    got: dict[str, float] = {}
    cond = threading.Condition()

    def take(effects):  # type: ignore[no-untyped-def]
        now = time.perf_counter()
        with cond:
            for e in effects:
                if isinstance(e, Alert) and e.code == "deck.unknown_tag":
                    got[e.card[4:]] = now
            cond.notify_all()

    daemon = Daemon(config, sinks=[CallbackSink(take, clearance="floor")])
    reader.start()
    daemon.start()
    threading.Thread(target=daemon.run, daemon=True).start()
    lat = []
    try:
        reader.wait_cycles(2, 10)
        for i in range(args.trials):
            uid = f"E0040150B0{i:06X}"
            reader.place(uid, uid, 1 + i % 13)
            with cond:
                if not cond.wait_for(lambda uid=uid: uid in got, 10):
                    raise SystemExit(f"trial {i}: no alert")
            t_alert = got[uid]
            t_frame = writes[bisect.bisect_left(writes, t_alert) - 1]  # the answer just before
            lat.append((t_alert - t_frame) * 1000)
            reader.remove(uid)
            reader.wait_cycles(config.table.gone_cycles + 2, 10)  # let it leave the table
    finally:
        daemon.stop()
        reader.stop()
        shutil.rmtree(work, ignore_errors=True)
    lat.sort()
    p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]  # noqa: E731
    print(f"{args.reader}: {'with the journal: ' if args.journal else ''}frame-to-alert latency over "
          f"{len(lat)} trials: "
          f"p50 {p(0.50):.3f} ms, p99 {p(0.99):.3f} ms, max {lat[-1]:.3f} ms, mean {statistics.mean(lat):.3f} ms")


if __name__ == "__main__":
    main()
