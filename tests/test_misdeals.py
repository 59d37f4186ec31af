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
        ("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3, "dealer", 3),
        # and the seat it was due to ends the deal a card short
        ("misdeal.seat_short", "MISD-007", 4, "dealer", 11)]


@pytest.mark.e2e
def test_MISD_013_after_the_first_burn_no_misdeal_is_flagged(tmp_path):
    # a card reaching an empty seat after the flop's burn is not flagged as a misdeal
    steps = CLEAN[:11] + [{"deal": "2c", "to": "seat:3"}] + CLEAN[11:]
    assert [a for a in run(tmp_path, steps) if a[0].startswith("misdeal.")] == []


@pytest.mark.e2e
def test_MISD_006_a_seat_dealt_in_is_skipped(tmp_path):
    steps = [st for st in CLEAN if st.get("to") != "seat:6"]  # seat 6 gets nothing
    burn = next(i for i, st in enumerate(steps, 1) if st.get("to") == "burn")
    assert run(tmp_path, steps) == [("misdeal.seat_skipped", "MISD-006", 6, "dealer", burn)]


@pytest.mark.e2e
def test_MISD_007_a_third_card_to_a_seat(tmp_path):
    steps = CLEAN[:10] + [{"deal": "2c", "to": "seat:4"}] + CLEAN[10:]
    assert run(tmp_path, steps) == [("misdeal.too_many_cards", "MISD-007", 4, "dealer", 11)]


@pytest.mark.e2e
def test_MISD_007_the_small_blinds_third_card_is_pulled_not_a_misdeal(tmp_path):
    steps = CLEAN[:10] + [{"deal": "2c", "to": "seat:1"}] + CLEAN[10:]  # seat 1 is the small blind
    assert run(tmp_path, steps) == [("deal.pull_small_blind_extra_card", "MISD-007", 1, "dealer", 11)]


@pytest.mark.e2e
def test_MISD_007_the_button_one_card_short_is_topped_up_not_a_misdeal(tmp_path):
    steps = CLEAN[:9] + CLEAN[10:]  # seat 9 (the button) misses its second card
    assert run(tmp_path, steps) == [("deal.button_short", "MISD-007", 9, "dealer", 10)]


@pytest.mark.e2e
def test_MISD_007_another_seat_one_card_short_is_a_misdeal(tmp_path):
    steps = CLEAN[:7] + CLEAN[8:]  # seat 4 misses its second card
    assert run(tmp_path, steps) == [("misdeal.seat_short", "MISD-007", 4, "dealer", 10)]


@pytest.mark.e2e
@pytest.mark.parametrize("after", [1, 2])
def test_MISD_001_either_of_the_first_two_cards_exposed(tmp_path, after):
    steps = CLEAN[:after] + [{"press": "exposed"}] + CLEAN[after:]
    assert run(tmp_path, steps) == [("misdeal.first_two_cards_exposed", "MISD-001", after, "dealer", after + 1)]


@pytest.mark.e2e
def test_MISD_010_one_exposed_card_becomes_the_burn(tmp_path):
    steps = CLEAN[:4] + [{"press": "exposed"}] + CLEAN[4:]  # the 4th card, to seat 6
    assert run(tmp_path, steps) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5)]


@pytest.mark.e2e
def test_MISD_002_a_second_exposed_card_in_the_deal(tmp_path):
    steps = CLEAN[:4] + [{"press": "exposed"}] + CLEAN[4:7] + [{"press": "exposed"}] + CLEAN[7:]
    assert run(tmp_path, steps) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5),
                                    ("misdeal.second_exposed_card", "MISD-002", 2, "dealer", 9)]


@pytest.mark.e2e
def test_an_exposed_press_on_the_board_is_not_a_misdeal(tmp_path):
    steps = CLEAN[:12] + [{"press": "exposed"}] + CLEAN[12:]
    assert run(tmp_path, steps) == []
