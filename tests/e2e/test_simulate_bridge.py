"""Issue 40: ``tablectl simulate --reader bridge``: the bridge board (its firmware's own logic on
simulated PN5180s, hw_sim/bridge_reader.py) on a real pseudo-terminal, the daemon a subprocess
reading it with driver ``bridge``; the same hands as through the FEIG reader, the same report."""

from __future__ import annotations

import json
from pathlib import Path

from hw_sim.random_hands import random_script
from rig.scenarios import NOISE, check_report
from tests.e2e.test_simulate_e2e import simulate


def test_simulate_deals_through_the_bridge_board_as_through_feig(tmp_path: Path):
    script = random_script(40, hands=2, game="omaha", vary_seats=True, noise=dict(NOISE, seed=40))
    runs = {}
    for reader in ("feig", "bridge"):
        run = simulate(tmp_path / reader, script, "--reader", reader)
        assert run.returncode == 0, run.stderr[-2000:]
        runs[reader] = json.loads(run.stdout)
    check_report(script, runs["bridge"])
    assert runs["bridge"]["hands"] == runs["feig"]["hands"]


def test_simulate_refuses_a_reader_it_has_not(tmp_path: Path):
    run = simulate(tmp_path, random_script(1, hands=1), "--reader", "impinj")
    assert run.returncode == 2 and "invalid choice: 'impinj'" in run.stderr
