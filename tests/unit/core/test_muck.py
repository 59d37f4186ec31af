"""The muck (docs/rules.md: MUCK): MUCK-001 and MUCK-002 in process (the harness) and on the pure
core (MUCK-001's wait on the events' own timestamps; MUCK-002 for each ``MUCK_RETRIEVAL``
setting)."""

from __future__ import annotations

import pytest

from controller.core.effects import Alert, CardLeft
from controller.core.settings import RuleSettings
from rig.scenarios import play as scenario_play
from tests.rules_common import CLEAN, run, run_hands
from tests.unit.core.test_table import Feeder


def test_MUCK_002_cards_taken_back_out_of_the_muck(tmp_path):
    fold = CLEAN[:10] + [{"muck": "seat:4"}]  # seat 4 folds (7c, 9c) at step 11
    back = fold + [{"move": "7c", "to": "seat:4"}, {"move": "9c", "to": "seat:4"}] + CLEAN[10:]
    assert run(tmp_path / "own", back) == [("muck.retrieved", "MUCK-002", 4, "floor", 12)]
    swap = fold + [{"muck": "seat:6"}, {"move": "2h", "to": "seat:4"}] + CLEAN[10:]
    assert run(tmp_path / "swap", swap) == [("muck.card_swap", "MUCK-002", 4, "floor", 13)]
    assert run(tmp_path / "clean", fold + CLEAN[10:]) == []


@pytest.mark.parametrize("setting, want", [("never", "hand is dead"), ("floor", "identity"), ("dealer", None)])
def test_MUCK_002_retrieval_follows_the_setting(setting, want):
    f = Feeder(rules=RuleSettings(muck_retrieval=setting))
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        f.put(card, seat)
    f.put("As", 13)
    f.put("2h", 13)
    f.put("As", 1)
    alerts = f.of(Alert)
    if want is None:
        assert alerts == []  # the dealer's call: logged in the hand record only
    else:
        [alert] = alerts
        assert (alert.code, alert.audience, alert.seat) == ("muck.retrieved", "floor", 1) and want in alert.message


# -- MUCK-001: folds go straight to the muck -------------------------------------------------------
# docs/rules.md (MUCK-001): "Tags that leave a seat but do not reach the muck within MUCK_TIMEOUT_S
# → PROMPT; if they stay missing → FLOOR (possible held-out card)". MUCK_TIMEOUT_S is 5 s (§20's
# example, the setting's default). CLEAN: the flop is out at step 15, the turn's tap is 16.

AFTER_FLOP = 15


def test_MUCK_001_a_look_shorter_than_the_timeout_raises_nothing(tmp_path):
    look = CLEAN[:AFTER_FLOP] + [{"look": "seat:4", "for": 3}] + CLEAN[AFTER_FLOP:]
    assert run(tmp_path, look) == []


def test_MUCK_001_a_look_longer_than_the_timeout_prompts_the_dealer_only(tmp_path):
    """Seat 4's cards off the table for 8 s, then back: the dealer is asked at the look (step
    16), and the floor is not told, since the cards came back."""
    look = CLEAN[:AFTER_FLOP] + [{"look": "seat:4", "for": 8}] + CLEAN[AFTER_FLOP:]
    assert run(tmp_path, look) == [("muck.card_missing", "MUCK-001", 4, "dealer", 16)]


def test_MUCK_001_a_card_held_out_goes_to_the_floor(tmp_path):
    """Seat 4 keeps its 7c off the table (step 16) while the hand goes on for 11 s (step 17): the
    dealer is asked after 5 s, the floor told after 10, naming the card."""
    held = CLEAN[:AFTER_FLOP] + [{"lift": "7c"}, {"wait": 11}] + CLEAN[AFTER_FLOP:]
    [hand] = run_hands(tmp_path, [{"steps": held}])["hands"]
    assert [(a["code"], a["rule"], a.get("seat"), a.get("card"), a["audience"], a["step"]) for a in hand["alerts"]] \
        == [("muck.card_missing", "MUCK-001", 4, None, "dealer", 17),
            ("muck.card_held_out", "MUCK-001", 4, "7c", "floor", 17)]
    assert hand["zones"]["seat:4"] == ["7c", "9c"]  # (where it was last read: the record keeps it)


def test_MUCK_001_a_card_still_missing_when_the_hand_ends_goes_to_the_floor_then(tmp_path):
    held = CLEAN[:AFTER_FLOP] + [{"lift": "7c"}, {"wait": 6}] + CLEAN[AFTER_FLOP:]
    assert run(tmp_path, held) == [("muck.card_missing", "MUCK-001", 4, "dealer", 17),
                                   ("muck.card_held_out", "MUCK-001", 4, "floor", len(held))]


def test_MUCK_001_a_card_that_reaches_the_muck_or_its_seat_in_time_raises_nothing(tmp_path):
    late_fold = CLEAN[:AFTER_FLOP] + [{"lift": "7c"}, {"wait": 2}, {"move": "7c", "to": "muck"},
                                      {"muck": "seat:4"}] + CLEAN[AFTER_FLOP:]
    assert run(tmp_path / "fold", late_fold) == []
    back = CLEAN[:AFTER_FLOP] + [{"lift": "7c"}, {"wait": 3}, {"move": "7c", "to": "seat:4"}] + CLEAN[AFTER_FLOP:]
    assert run(tmp_path / "back", back) == []


def test_MUCK_001_the_timeout_is_the_setting(tmp_path):
    """``[rules] muck_timeout_s``: at 20 s the 8-second look is no lapse; at 2 s a 3-second one is."""
    script = {"format": 1, "game": "holdem", "seats": [1, 2, 4, 6, 9], "button": 9, "noise": {"seed": 3, "miss": 0.05},
              "hands": [{"steps": CLEAN[:AFTER_FLOP] + [{"look": "seat:4", "for": 8}] + CLEAN[AFTER_FLOP:]}]}
    assert scenario_play(script, rules_extra="muck_timeout_s = 20")["hands"][0]["alerts"] == []
    script["hands"][0]["steps"][AFTER_FLOP] = {"look": "seat:4", "for": 3}
    [alert] = scenario_play(script, rules_extra="muck_timeout_s = 2")["hands"][0]["alerts"]
    assert (alert["code"], alert["audience"], alert["step"]) == ("muck.card_missing", "dealer", 16)


def test_MUCK_001_the_wait_runs_on_the_events_timestamps():
    """The core has no clock: with reader cycles one second apart (the Feeder's ``ts``), a card
    gone from seat 4 after the deal (its departure confirmed after ``gone_cycles`` = 3 unheard
    cycles) is asked about at the first event 5 s after the departure, not a cycle before, and
    the floor is told 5 s later; the same card back a cycle before the 5 s raises nothing."""
    def dealt() -> tuple[Feeder, float]:
        f = Feeder(rules=RuleSettings(muck_timeout_s=5.0))
        for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
            f.put(card, seat)
        f.press("round_done")
        del f.field[f.uid("7c")]
        f.tick(3)  # unheard 3 cycles: gone
        [left] = f.of(CardLeft)
        return f, left.ts

    f, left = dealt()
    f.tick(4)
    assert f.cycle == left + 4 and f.of(Alert) == []
    f.tick(1)
    [alert] = f.of(Alert)
    assert (alert.code, alert.seat, alert.ts, alert.audience) == ("muck.card_missing", 4, left + 5, "dealer")
    f.tick(5)
    floor = f.of(Alert)[1]
    assert (floor.code, floor.card, floor.ts, floor.audience) == ("muck.card_held_out", "7c", left + 10, "floor")

    f, left = dealt()
    f.tick(3)
    f.field[f.uid("7c")] = 4  # back at its seat
    f.tick(10)
    assert f.of(Alert) == []
