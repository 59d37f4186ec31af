"""Misdeals (RULES.md §5), one test per rule id, each through ``tablectl simulate``: the faulty
hand raises the alert at the right step and seat, the same hand dealt cleanly raises none."""

from __future__ import annotations

import json

import pytest

from tests.test_simulate_e2e import NOISE, simulate

SEATS, BUTTON = [1, 2, 4, 6, 9], 9  # deal order 1, 2, 4, 6, 9
CLEAN = [{"deal": c, "to": f"seat:{s}"} for c, s in zip(
    ["As", "Kd", "7c", "2h", "3h", "Qs", "Jd", "9c", "5s", "4d"], [1, 2, 4, 6, 9] * 2)] + [
    {"deal": "8h", "to": "burn"}, {"deal": "Th", "to": "board"}, {"deal": "Tc", "to": "board"},
    {"deal": "6d", "to": "board"}, {"end": True}]


def run(tmp_path, steps):
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
              "noise": dict(NOISE, seed=3), "hands": [{"steps": steps}]}
    r = simulate(tmp_path, script)
    assert r.returncode == 0, r.stderr
    [hand] = json.loads(r.stdout)["hands"]
    return [(a["code"], a["rule"], a.get("seat"), a["audience"], a["step"]) for a in hand["alerts"]]


@pytest.mark.e2e
def test_clean_hand_raises_nothing(tmp_path):
    assert run(tmp_path, CLEAN) == []


@pytest.mark.e2e
def test_MISD_004_first_card_to_the_wrong_seat(tmp_path):
    steps = [dict(CLEAN[1], deal="As")] + [dict(CLEAN[0], deal="Kd")] + CLEAN[2:]  # seats 2 then 1
    assert run(tmp_path, steps) == [
        ("misdeal.first_card_wrong_seat", "MISD-004", 2, "dealer", 1)]


@pytest.mark.e2e
def test_MISD_005_a_card_to_a_seat_not_dealt_in(tmp_path):
    steps = CLEAN[:2] + [{"deal": "7c", "to": "seat:3"}] + CLEAN[3:]
    assert run(tmp_path, steps) == [
        ("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3, "dealer", 3)]


@pytest.mark.e2e
def test_MISD_013_after_the_first_burn_no_misdeal_is_flagged(tmp_path):
    # a card reaching an empty seat after the flop's burn is not flagged as a misdeal
    steps = CLEAN[:11] + [{"deal": "2c", "to": "seat:3"}] + CLEAN[11:]
    assert [a for a in run(tmp_path, steps) if a[0].startswith("misdeal.")] == []
