"""BURN-002, MUCK-001 and STUB-006 never cry wolf (docs/design.md, "Never cry wolf"): random clean
hands of every game under the harsh noise, at a table with an antenna under the stub spot whose
dealer drops the stub after each hand's last card (``hw_sim.random_hands.with_stub_spot``), raise
none of their prompts or floor notes: no "round complete?" where the script taps before every
burn, no card missing from a seat, no stub missing or read wrong; and every stub dropped is read
whole, the count the arithmetic gives (STUB-003). ``bench/random_games.py --stub-spot`` deals a
thousand hands of each game so."""

from __future__ import annotations

import pytest

from hw_sim.random_hands import random_script, with_stub_spot
from hw_sim.script import GAMES
from rig.scenarios import LAPSES, NOISE, check_prompts, check_report, lapse_counts, play

@pytest.mark.parametrize("game", GAMES)
def test_random_hands_of_every_game_under_the_harsh_noise_raise_no_lapse(game):
    expect: list[list[dict]] = []
    script = with_stub_spot(random_script(39, hands=16, game=game, noise=dict(NOISE, seed=39, profile="harsh"),
                                          vary_seats=True, expect=expect))
    report = play(script)
    counts = lapse_counts(script, report)
    assert not any(counts[c] for c in LAPSES), counts
    if game != "chinese":  # (Chinese poker deals the whole deck: no stub)
        assert counts["stubs dropped"] == 16 and counts["stubs read whole"] == 16, counts
    if game not in ("chinese",):
        assert counts["tapped burns"] > 0  # (the check had burns to judge)
    check_report(script, report)  # (no dealer or floor alert at all, the zones exact)
    for i, (want, got) in enumerate(zip(expect, report["hands"], strict=True), 1):
        check_prompts(want, got.get("prompts", []), f"hand {i}")
