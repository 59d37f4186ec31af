"""Every dealer error of :mod:`hw_sim.faults`, injected into random clean hands of both games
and dealt in process (the harness) under noise: the daemon raises the rule's alert at the
step where the error is committed (or where it can first be known), for the right seat, and
nothing before it. One script per game holds one hand per fault, each with its own seats."""

from __future__ import annotations

import pytest

from hw_sim.faults import FAULTS
from rig.faulty import EXPECT, faulty_hands
from rig.scenarios import NOISE, play


def test_every_fault_has_an_expected_alert():
    assert set(EXPECT) == set(FAULTS)


@pytest.mark.parametrize("game, seed", [("holdem", 11), ("omaha", 12)])
def test_every_injected_fault_is_caught_at_its_step(game, seed):
    hands, expected = faulty_hands(game, seed)
    script = {"format": 1, "game": game, "seats": hands[0]["seats"], "button": hands[0]["button"],
              "noise": dict(NOISE, seed=seed), "hands": hands}
    report = play(script)
    assert len(report["hands"]) == len(expected)
    for (name, code, rule, seat, step, first), got in zip(expected, report["hands"], strict=True):
        alerts = [(a["code"], a["rule"], a.get("seat"), a["step"]) for a in got["alerts"]]
        assert (code, rule, seat, step) in alerts, f"{name}: {alerts}"
        assert all(s >= first for *_, s in alerts), f"{name}: {alerts}"
