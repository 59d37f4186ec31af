"""The guides' last flow rules through ``tablectl simulate`` (issue 39; docs/rules.md FLOW-006..009,
DECK-009): the daemon as a subprocess on real pseudo-terminals, the floor's approval over the
simulator's private channel, a power cut while the satellite waits for it. The report is the
in-process harness's, byte for byte (docs/deal-script.md: the same script, the same report)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from hw_sim.harness import play as harness_play
from rig.scenarios import NOISE
from tests.conftest import TABLECTL
from tests.rules_common import clean_for

SEATS = [1, 2, 3, 4, 5, 6]  # a six-handed single-table satellite: its button waits on seat 6


def simulate(tmp_path: Path, script: dict) -> dict:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    done = subprocess.run([*TABLECTL, "simulate", str(path), "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def of_deck_b(steps: list[dict]) -> list[dict]:
    return [{**s, "deal": s["deal"] + "@B"} if "deal" in s else s for s in steps]


@pytest.mark.e2e
def test_two_satellites_each_waiting_for_the_approval_through_a_power_cut_the_second_on_the_same_deck(tmp_path):
    sat1 = [{"press": "mode", "mode": "satellite"}, {"floor": "approve"}] + clean_for([1, 2, 3, 4, 5, 6])
    # the second satellite: dealt before its approval, on deck A again (DECK-009: told at its first
    # card), approved in its second hand, which is dealt from deck B after the dealer changed decks
    sat2 = [{"press": "mode", "mode": "satellite"}] + clean_for([1, 2, 3, 4, 5, 6])
    sat2b = [{"press": "new_deck"}, {"floor": "approve"}] + of_deck_b(clean_for([2, 3, 4, 5, 6, 1]))
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": 2, "noise": dict(NOISE, seed=39),
              "hands": [{"steps": s} for s in (sat1, sat2, sat2b)],
              "crash_after": [1, len(sat1) + 1]}  # each gate shut when the power fails
    report = simulate(tmp_path, script)
    n1, n2 = len(sat1), len(sat2)
    assert [h["button"] for h in report["hands"]] == [6, 6, 1]
    assert report["holds"] == [{"kind": "satellite", "from_step": 1, "released_step": 2},
                               {"kind": "satellite", "from_step": n1 + 1, "released_step": n1 + n2 + 2}]
    assert [h["alerts"] for h in report["hands"]] == [
        [], [{"code": "flow.dealt_before_approval", "rule": "FLOW-007", "audience": "floor", "step": 2},
             {"code": "flow.satellite_not_rotated", "rule": "DECK-009", "audience": "dealer", "step": 2}], []]
    # the same report as a run without the cuts (deal-script.md, crash_after), the in-process harness's
    uncut = {k: v for k, v in script.items() if k != "crash_after"}
    assert report == harness_play(uncut).report
