"""What the floor's replay requests cost a room (issue 38, "Each gap asked for once, then with
backoff"): three real tables dealing ``--hands`` hands each, t3's earlier journal with a gap
nothing can fill, and the floor stopped and started again mid-run (rig/gaps.py says how). For
each: the run's time (the tables started -> every message of theirs on the floor), the replay
requests the floor published, the rows its tables sent again for them, the duplicates (messages
the floor took that it had already) among the messages, and the same run without the floor's
restart, played beside it (the same machine at the same moment; ``--apart``: after it).

``--compare DIR`` runs the same first against the floor service of another checkout (``DIR``:
``git archive <commit> | tar -x -C DIR``), then against this one, and prints both. The floor
logs its count of duplicates as it stops (controller/floor/app.py, serve): a checkout from before
that line says none, unless its ``FloorService.on_message`` and ``serve`` are given the same four
lines.

    .venv/bin/python bench/gaps.py [--hands 150] [--compare DIR] [--runs 1] [--apart]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rig.gaps import room_run, side_by_side, unexplained  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hands", type=int, default=150)
    ap.add_argument("--compare", type=Path, default=None, help="another checkout's floor service, measured first")
    ap.add_argument("--runs", type=int, default=1, help="each pair this many times")
    ap.add_argument("--apart", action="store_true",
                    help="the run without the restart after the one with it, not beside it")
    args = ap.parse_args()
    codes: list[tuple[str, Path | None]] = ([("before", args.compare)] if args.compare else []) + [("after", None)]
    for name, code in codes:
        for _ in range(args.runs):
            with tempfile.TemporaryDirectory(prefix="bench-gaps-") as tmp:
                if args.apart:
                    pair = (room_run(Path(tmp) / "r", hands=args.hands, restart=True, code=code),
                            room_run(Path(tmp) / "s", hands=args.hands, restart=False, code=code))
                else:
                    pair = side_by_side(Path(tmp), hands=args.hands, code=code)
            for restart, fig in zip((True, False), pair, strict=True):
                wrong = unexplained(fig)
                print(f"{name}, {'one floor restart' if restart else 'no restart'}: {fig.line()}"
                      + (f"; {len(wrong)} request(s) beyond the rule" if wrong else ""), flush=True)
            print(f"{name}: the run with the restart takes {pair[0].seconds / pair[1].seconds:.2f} times the one "
                  f"without", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
