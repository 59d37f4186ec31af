"""The showdown in the hand record and the simulator's report (deal-script.md "Report
additions"), dealt in process: the hands still at the seats when the hand ends are read."""

from __future__ import annotations

from controller.core.effects import HandFinished
from hw_sim.harness import play as harness_play
from hw_sim.simulate import format_report
from tests.rules_common import CLEAN, END, run_hands
from rig.scenarios import NOISE


def test_the_report_carries_the_showdown_of_the_hands_left_at_the_seats(tmp_path):
    # CLEAN: nobody folds. Board Th Tc 6d Jc 3c. Seat 1 As Qs: tens, ace kicker; seat 2 Kd Jd: jacks
    # and tens; seat 4 7c 9c: a club flush, jack high; seat 6 2h 5s: tens, the board's jack kicker
    # (the card that tells it from seat 1's); seat 9 3h 4d: tens and threes.
    fold = CLEAN[:10] + [{"muck": "seat:6"}] + CLEAN[10:]  # seat 6 folds before the flop
    everyone, folded = run_hands(tmp_path, [{"steps": CLEAN}, {"steps": fold}])["hands"]
    assert everyone["showdown"] == {
        "seats": [1, 2, 4, 6, 9], "high": [4],
        "hands": {"1": "pair of tens, ace kicker", "2": "two pair, jacks and tens", "4": "flush, jack high",
                  "6": "pair of tens, jack kicker", "9": "two pair, tens and threes"}}
    assert folded["showdown"]["seats"] == [1, 2, 4, 9] and folded["showdown"]["high"] == [4]


def test_no_showdown_when_one_hand_is_left(tmp_path):
    steps = CLEAN[:10] + [{"muck": f"seat:{s}"} for s in (2, 4, 6, 9)] + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert "showdown" not in hand


def test_the_hand_record_carries_it_for_the_floor_only():
    script = {"format": 1, "game": "holdem", "seats": [1, 2, 4, 6, 9], "button": 9, "noise": dict(NOISE, seed=5),
              "hands": [{"steps": CLEAN}]}
    played = harness_play(script, console=False)
    [record] = [e.record for _, e in played.seen["floor"] if type(e) is HandFinished]
    assert record["showdown"]["high"] == [4] and record["showdown"]["hands"]["4"] == "flush, jack high"
    assert not [e for _, e in played.seen.get("public", []) if type(e) is HandFinished]
    [(_, body)] = played.topics["hands"]  # the room's floor topic: the record as the floor's hand page has it
    assert body["record"]["showdown"]["high"] == [4]
    text = format_report(played.report)
    assert "  showdown high seat 4 | 1: pair of tens, ace kicker;" in text and "4: flush, jack high" in text
