"""Who deals (RELIEF-003): the floor names the dealer, now or at the next relief press, and
every hand record and alert of that dealer's down names them (the core; the control socket and
the floor's ``cmd`` are tested in tests/test_dealers_e2e.py)."""

from __future__ import annotations

import json

import pytest

from controller.core.dealers import check_dealer_name
from controller.core.effects import Alert, HandFinished, effect_to_dict
from controller.core.events import DealerNamed, event_from_dict, event_to_dict
from controller.core.state import STATE_VERSION, StateError
from controller.core.table import Table
from tests.unit.core.test_state import SETTINGS
from tests.unit.core.test_table import Feeder, deal_clean_hand
from rig.paths import TESTS

DATA = TESTS / "data" / "state"


def finish(f: Feeder) -> dict:
    """Gather the cards: the hand in progress ends; its record."""
    f.field.clear()
    f.tick(4)
    return f.of(HandFinished)[-1].record


def name(f: Feeder, who: str, **kw) -> None:
    f.effects += f.table.apply(DealerNamed(float(f.cycle) + 0.5, who, **kw))


def test_the_dealer_named_deals_the_next_hands_and_a_hand_in_progress_keeps_its_own():
    f = Feeder()
    name(f, "Ann Lee")
    deal_clean_hand(f)
    name(f, "Bo Chen")  # mid-hand: the outgoing dealer finishes it (RELIEF-001)
    assert finish(f)["dealer"] == "Ann Lee"
    deal_clean_hand(f)
    assert finish(f)["dealer"] == "Bo Chen"


def test_the_first_name_of_a_shift_given_mid_hand_names_the_hand_in_progress():
    f = Feeder()
    f.put("As", 1)
    name(f, "Ann Lee")
    deal_clean_hand(f)
    assert finish(f)["dealer"] == "Ann Lee"


def test_a_name_entered_ahead_waits_for_the_relief_press():
    f = Feeder()
    name(f, "Ann Lee")
    name(f, "Bo Chen", at_relief=True)  # the incoming dealer, entered ahead
    deal_clean_hand(f)
    assert finish(f)["dealer"] == "Ann Lee"
    deal_clean_hand(f)
    f.press("relief")  # during the hand: Ann finishes it, Bo deals the next
    assert finish(f)["dealer"] == "Ann Lee"
    deal_clean_hand(f)
    rec = finish(f)
    assert rec["dealer"] == "Bo Chen" and rec["down"] == 2


def test_a_relief_with_no_name_entered_leaves_the_down_unnamed_never_the_last_dealers():
    f = Feeder()
    name(f, "Ann Lee")
    f.press("relief")
    deal_clean_hand(f)
    assert "dealer" not in finish(f)


def test_a_table_that_names_nobody_keeps_its_records_and_alerts_as_they_were():
    f = Feeder()
    deal_clean_hand(f)
    f.press("floor")
    assert "dealer" not in finish(f)
    [call] = f.of(Alert)
    assert call.dealer is None and "dealer" not in effect_to_dict(call)


def test_every_alert_names_the_dealer_of_its_hand_or_between_hands_of_the_table():
    f = Feeder()
    name(f, "Ann Lee")
    f.put("Kd", 2, deck="B")  # DECK-006 in Ann's hand
    name(f, "Bo Chen")
    f.press("floor")  # still Ann's hand
    f.put("As", 1)
    finish(f)
    f.press("floor")  # between hands: the table's dealer now
    alerts = [(a.code, a.dealer) for a in f.of(Alert) if a.audience == "floor"]
    assert alerts == [("deck.wrong_deck", "Ann Lee"), ("floor.call", "Ann Lee"), ("floor.call", "Bo Chen")]
    assert effect_to_dict(f.of(Alert)[-1])["dealer"] == "Bo Chen"


def test_the_event_goes_through_the_journal_as_it_came():
    ev = DealerNamed(3.5, "Ann Lee", at_relief=True, peer_uid=1000)
    assert event_from_dict(json.loads(json.dumps(event_to_dict(ev)))) == ev


@pytest.mark.parametrize(("bad", "error"), [
    ("", "dealer: the name is empty"),
    ("  ", "dealer: the name is empty"),
    ("A" * 65, "dealer: the name must be at most 64 characters, got 65"),
    ("Ann\tLee", "dealer: the name must hold printable characters only"),
    ("Ann\x1b[2J", "dealer: the name must hold printable characters only"),
    ("Ann\u2028Lee", "dealer: the name must hold printable characters only"),
    (None, "dealer: the name must be text, got NoneType"),
])
def test_a_bad_name_is_refused_saying_what_is_wrong(bad, error):
    with pytest.raises(ValueError, match="^" + error.replace("[", r"\[")):
        check_dealer_name(bad)
    assert check_dealer_name(" Ann  Lee #4021 ") == "Ann Lee #4021"  # (spaces tidied; what is kept)


# -- the table's state: version 5 names the dealers; versions 3 and 4 migrate with none -------------------
def test_the_state_written_by_release_5_loads_with_its_dealers():
    state = json.loads((DATA / "v5-mid-hand.json").read_text())
    assert state["version"] == 5 <= STATE_VERSION
    table = Table.from_state(state, SETTINGS)
    assert (table.dealer, table.next_dealer) == ("Ann Lee", "Bo Chen")
    assert table.hand is not None and table.hand.dealer == "Ann Lee"
    assert [a.dealer for a in table.hand.alerts if a.code == "floor.call"] == ["Ann Lee"]


@pytest.mark.parametrize("release", [3, 4])
def test_an_earlier_state_migrates_with_no_dealer_named(release):
    table = Table.from_state(json.loads((DATA / f"v{release}-mid-hand.json").read_text()), SETTINGS)
    assert (table.dealer, table.next_dealer) == (None, None)
    assert table.hand is not None and table.hand.dealer is None


@pytest.mark.parametrize(("where", "value"), [("dealer", "Ann\nLee"), ("_next_dealer", " Bo"), ("dealer", 7)])
def test_a_dealer_name_no_input_would_take_is_refused_in_a_state(where, value):
    state = json.loads((DATA / "v5-mid-hand.json").read_text())
    state["table"][where] = value
    with pytest.raises(StateError, match=f"state.table.{where}"):
        Table.from_state(state, SETTINGS)


def test_tablectl_history_lists_each_hands_dealer():
    from controller.cli.history import line_of

    f = Feeder()
    name(f, "Ann Lee")
    deal_clean_hand(f)
    assert "  stub 38  dealer Ann Lee  alerts: none" in line_of(finish(f))
