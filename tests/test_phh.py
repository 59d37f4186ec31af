"""Real hands (PHH, ../shared/phh) converted to deal scripts and dealt through the simulator.

Real hands find what invented ones miss: heads-up deals, folds before the flop, all-in run-outs
dealt after the showdown, unknown hole cards, eight-handed final tables.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import pytest

from hw_sim.phh import UnsupportedHand, load_phh_hands, parse_phh, phh_game, phh_to_hand
from hw_sim.script import parse_script
from tests.conftest import TABLECTL
from tests.test_simulate_e2e import NOISE, check_report

PHH = Path(__file__).resolve().parents[1].parent / "shared" / "phh"


@pytest.fixture(scope="module")
def hands():
    assert PHH.is_dir(), f"the PHH hands are missing: expected them at {PHH}"
    return load_phh_hands(PHH)


def test_every_flop_game_hand_is_found(hands):
    games = [g for _, g, _ in hands]
    assert len(hands) == 329  # NT 300 + FT 7 + PO 8 + FO/8 14 (SOURCE.md)
    assert games.count("omaha") == 22


@pytest.mark.parametrize("variant", ["F7S", "FR", "NS", "F2L3D"])
def test_other_games_are_refused_by_name(variant):
    with pytest.raises(UnsupportedHand, match=variant):
        phh_game(variant)


def test_conversion_keeps_every_known_card_and_burns_every_street(hands):
    rng = random.Random(3)
    for path, game, text in hands:
        truth = parse_phh(text)
        hand = phh_to_hand(text, rng=rng)
        dealt = [s for s in hand["steps"] if "deal" in s]
        assert len({s["deal"] for s in dealt}) == len(dealt), path  # no card twice
        for p, cards in truth["hole"].items():
            got = [s["deal"] for s in dealt if s["to"] == f"seat:{p}"]
            assert [c for c in cards if c != "??"] == [g for c, g in zip(cards, got) if c != "??"], path
        board = [c for kind, v in truth["events"] if kind == "board" for c in v]
        assert [s["deal"] for s in dealt if s["to"] == "board"] == board, path
        streets = sum(1 for kind, _ in truth["events"] if kind == "board")
        assert sum(1 for s in dealt if s["to"] == "burn") == streets, path
        assert hand["button"] == truth["players"]
        parse_script(json.dumps({"format": 1, "game": game, "seats": hand["seats"],
                                 "button": hand["button"], "hands": [hand]}))


@pytest.mark.e2e
@pytest.mark.parametrize("game", ["holdem", "omaha"])
def test_real_hands_dealt_through_the_simulator_end_exactly_right(tmp_path, hands, game):
    """Every hold'em and Omaha hand of the dataset, under miss 0.05, repeat 0.3, crosstalk 0.01:
    the daemon's zones match the hand (the players' hole cards, the board) and nothing alerts."""
    rng = random.Random(9)
    mine = [(path, text, phh_to_hand(text, rng=rng)) for path, g, text in hands if g == game]
    first = mine[0][2]
    script = {"format": 1, "game": game, "seats": first["seats"], "button": first["button"],
              "noise": dict(NOISE, seed=9), "hands": [h for _, _, h in mine]}
    path = tmp_path / f"phh-{game}.json"
    path.write_text(json.dumps(script))
    r = subprocess.run([*TABLECTL, "simulate", str(path), "--json"], capture_output=True, text=True,
                       timeout=900)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    check_report(script, report)
    for (name, text, _), got in zip(mine, report["hands"]):
        truth = parse_phh(text)
        folded = {v for kind, v in truth["events"] if kind == "fold"}
        for p, cards in truth["hole"].items():
            if p not in folded and "??" not in cards:
                assert got["zones"][f"seat:{p}"] == cards, name
        board = [c for kind, v in truth["events"] if kind == "board" for c in v]
        assert got["zones"].get("board", []) == board, name
