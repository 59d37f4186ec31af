"""Writes tests/data/state/resume-v<N>.json: tables saved mid-hand by this checkout's code, the
events that follow each cut, and the effects this code gave for them (their ``repr``).

Run it with the checkout of the release whose states are to be resumed by later ones, e.g. the
last release of state version 12 (before the table was made of parts, issue 31):

    git worktree add /tmp/v12 8c103f2
    .venv/bin/python tests/data/state/resume_fixture.py --root /tmp/v12 --out tests/data/state/resume-v12.json

It reads either tree: the package ``tablectl`` of the releases before issue 37, or ``controller``
of those after it (resume-v14.json was written by c52d92e, the last commit before the move).

tests/unit/core/test_state_resume.py loads each state with the code of today and checks that
it gives exactly those effects for the same events: an oracle the new code did not write.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=Path, required=True, help="the checkout whose code writes the states")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", type=int, default=8)
    ap.add_argument("--events", type=int, default=300, help="events kept after each cut")
    args = ap.parse_args()
    sys.path.insert(0, str(args.root.resolve()))
    import importlib

    # (the checkout's own package: `tablectl` before issue 37's move, `controller` after it)
    pkg = "controller" if (args.root / "controller" / "core").is_dir() else "tablectl"
    event_to_dict = importlib.import_module(f"{pkg}.core.events").event_to_dict
    STATE_VERSION = importlib.import_module(f"{pkg}.core.state").STATE_VERSION
    Table = importlib.import_module(f"{pkg}.core.table").Table
    from tests.unit.core.test_state import SETTINGS, random_events
    from tests.unit.core.test_table import registry

    cases = []
    for seed in range(args.seeds):
        events = random_events(seed)
        rng = random.Random(1000 + seed)
        table = Table(SETTINGS, registry())
        cut = rng.randrange(len(events) // 4, len(events) // 2)
        for ev in events[:cut]:
            table.apply(ev)
        while table.hand is None and cut < len(events) - 1:  # mid-hand: the cut is in a hand
            table.apply(events[cut])
            cut += 1
        state = table.to_state()
        after = events[cut:cut + args.events]
        effects = [repr(e) for ev in after for e in table.apply(ev)]
        cases.append({"seed": seed, "state": state, "events": [event_to_dict(e) for e in after],
                      "effects": effects, "snapshot": table.snapshot()})
    args.out.write_text(json.dumps({"version": STATE_VERSION, "cases": cases}, separators=(",", ":")) + "\n")
    print(f"{args.out}: {len(cases)} tables saved mid-hand at version {STATE_VERSION}")


if __name__ == "__main__":
    main()
