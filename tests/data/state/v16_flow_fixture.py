"""Writes tests/data/state/v16-flow-mid-hand.json: the flow rules' part (state version 16,
controller/core/table/flow.py) mid-hand, for tests/unit/core/test_flow_rules.py.

    .venv/bin/python tests/data/state/v16_flow_fixture.py

(Issue 39's part B first wrote it as version 15, on a branch; main's part C took 15 for the
lapses first, so the flow rules' part came in as version 16, and its fixture was written again by
the merged tree, the first to write version 16.)

Seats 1, 2 and 4 (the Feeder's table, tests/unit/core/test_table.py), the table add-on on: hand 1;
seat 2 away; hands 2 to 5 (one rotation and a hand); seat 6 sits down new, seat 5 moved here; a
satellite starts (the button to the last seat, 6); hand 6's first card, before the approval.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from controller.core.settings import RuleSettings  # noqa: E402
from tests.unit.core.test_tournament import Room  # noqa: E402


def main() -> None:
    r = Room(rules=RuleSettings(table_addon=True))
    r.play()
    r.press("seat_absent", seat=2)
    for _ in range(4):
        r.play()
    r.press("seat_in", seat=6)
    r.press("seat_in", seat=5, long=True)
    r.press("mode", mode="satellite")
    r.put("As", 1)
    out = Path(__file__).with_name("v16-flow-mid-hand.json")
    out.write_text(json.dumps(r.table.to_state(), indent=1, sort_keys=True) + "\n")
    print(out, r.table.flow.fields())


if __name__ == "__main__":
    main()
