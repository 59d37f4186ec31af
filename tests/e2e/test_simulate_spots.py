"""Issue 40: ``tablectl simulate --reader spots``: a table of two-card seat spots and no muck
antenna (hw_sim/spots_reader.py) on a real pseudo-terminal, the daemon a subprocess configured
with ``[reader] muck_antenna = false`` and ``[reader.capacity]``: an Omaha seat's four cards at a
spot that sees two, the folds in a muck nothing reads; every card where the script left it, no
alert, and each hand's report lists the rules not checked on this table."""

from __future__ import annotations

import json
from pathlib import Path

from controller.core.setups import setup_of
from hw_sim.random_hands import random_script
from rig.scenarios import NOISE, check_report
from tests.e2e.test_simulate_e2e import simulate


def test_simulate_deals_on_two_card_spots_without_a_muck_antenna(tmp_path: Path):
    script = random_script(40, hands=2, game="omaha", vary_seats=True, noise=dict(NOISE, seed=40))
    run = simulate(tmp_path, script, "--reader", "spots")
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(run.stdout)
    check_report(script, report)
    unchecked = sorted(setup_of("feig", muck=False, capacity={1: 2}).unchecked)
    assert [h["unchecked"] for h in report["hands"]] == [unchecked, unchecked]
