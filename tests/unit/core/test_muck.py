"""The muck (docs/rules.md: MUCK): MUCK-002 in process (the harness) and, for each
``MUCK_RETRIEVAL`` setting, on the pure core."""

from __future__ import annotations

import pytest

from controller.core.effects import Alert
from controller.core.settings import RuleSettings
from tests.rules_common import CLEAN, run
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
