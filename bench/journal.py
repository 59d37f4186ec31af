"""The journal's cost: events per second appended (committed) to the SQLite journal.

A reader cycle is committed without an fsync of its own (``synchronous=NORMAL`` in WAL); a press,
a shuffler report or a setup with one (``FULL``): see controller/daemon/journal.py. Reader
cycles carry 30 reads each, a busy table.

    .venv/bin/python bench/journal.py [--events 5000] [--dir PATH]

``--dir`` puts the journal on the disk to measure (the default is a temporary folder; on a Pi,
point it at the SD card: /var/lib/tablectl).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from controller.core.events import ButtonPress, ReaderCycle  # noqa: E402
from controller.daemon.journal import Journal  # noqa: E402


def measure(journal: Journal, events: list) -> float:
    t = time.perf_counter()
    for e in events:
        journal.append(e)
    return len(events) / (time.perf_counter() - t)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--events", type=int, default=5000)
    ap.add_argument("--dir", default=None)
    args = ap.parse_args()
    folder = Path(args.dir or tempfile.mkdtemp(prefix="tablectl-bench-"))
    j = Journal(folder / f"bench-{int(time.time())}.sqlite3")
    j.open()
    reads = tuple((f"E0040150A05F00{i:02X}", i % 13 + 1, 200) for i in range(30))
    cycles = [ReaderCycle(float(c), "reader", c, reads) for c in range(args.events)]
    presses = [ButtonPress(float(c), "round_done") for c in range(max(200, args.events // 10))]
    best_c = max(measure(j, cycles) for _ in range(3))
    best_p = max(measure(j, presses) for _ in range(3))
    j.close()
    if not args.dir:
        shutil.rmtree(folder, ignore_errors=True)
    print(f"journal on {folder}: reader cycles (30 reads, no fsync of their own): {best_c:,.0f} events/s "
          f"({1e6 / best_c:.0f} µs each); presses (fsync'd): {best_p:,.0f} events/s ({1e6 / best_p:.0f} µs each). "
          f"A reader gives 5-20 cycles a second.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
