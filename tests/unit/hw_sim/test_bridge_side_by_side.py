"""Issue 40: hands dealt through the bridge board (its firmware's own logic on simulated PN5180s,
the deal script's harsh noise laid on the chips each cycle, hw_sim/bridge_reader.py) and through
the FEIG reader, side by side: the zones come out exact and the same, no false alert, and every
injected misdeal and deck fault is found as on FEIG. In process (the harness, on its virtual
line); ``bench/bridge_side_by_side.py`` deals the whole PHH sample and more random hands and
prints the counts."""

from __future__ import annotations

import pytest

from controller.core.settings import GAMES
from hw_sim.phh import load_phh_hands, phh_script
from hw_sim.random_hands import random_script
from rig.scenarios import NOISE, PHH_DIR, check_report, play
from tests.unit.hw_sim.test_faults_caught import _faulty_hands

HARSH = dict(NOISE, profile="harsh")

pytestmark = pytest.mark.slow


def alerts(report: dict) -> list[list[tuple]]:
    return [[(a["code"], a["rule"], a.get("seat"), a["step"]) for a in h["alerts"]] for h in report["hands"]]


def both(script: dict) -> tuple[dict, dict]:
    return play(script, reader="feig"), play(script, reader="bridge")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_clean_hands_of_every_game_come_out_exact_with_no_alert(game):
    script = random_script(40, hands=1, game=game, vary_seats=True, noise=dict(HARSH, seed=40))
    feig, bridge = both(script)
    check_report(script, bridge)  # (Chinese poker's stacks: each zone's cards, in any order)
    order = sorted if game == "chinese" else list
    assert [{z: order(c) for z, c in h["zones"].items()} for h in bridge["hands"]] == \
        [{z: order(c) for z, c in h["zones"].items()} for h in feig["hands"]]
    assert alerts(bridge) == alerts(feig) == [[]]


def test_the_injected_faults_are_found_as_on_feig():
    hands, expected = _faulty_hands("holdem", 11)
    script = {"format": 1, "game": "holdem", "seats": hands[0]["seats"], "button": hands[0]["button"],
              "noise": dict(HARSH, seed=11), "hands": hands}
    feig, bridge = both(script)
    assert alerts(bridge) == alerts(feig)
    found = sum((code, rule, seat, step) in got
                for (_, code, rule, seat, step, _), got in zip(expected, alerts(bridge), strict=True))
    assert found == len(expected) == len(hands)


def test_real_hands_come_out_exact():
    loaded = [h for _, h, g in load_phh_hands(PHH_DIR) if g == "holdem"][:8]
    script = phh_script(loaded, game="holdem", noise=dict(HARSH, seed=9))
    feig, bridge = both(script)
    check_report(script, bridge)
    assert [h["zones"] for h in bridge["hands"]] == [h["zones"] for h in feig["hands"]]
    assert alerts(bridge) == alerts(feig) == [[]] * 8
