"""A table saved mid-hand by an earlier release resumes in this one exactly as it would have gone
on in that one (issue 31: the table made of parts, state version 13).

tests/data/state/resume-v12.json was written by the last release of state version 12 (the table
as one object, commit 8c103f2) with tests/data/state/resume_fixture.py: each case holds a table saved
mid-hand, the events that followed, and the effects that release gave for them. Today's code
reads the state (through the migrations) and must give the same effects, one for one, and the
same view at the end: the expected values come from the code before the change, not from the
code under test. resume-v13.json is the same for the states of version 13, for the releases after
it. Since version 14 (issue 32, the tournament) a hand's record carries its level (``"level"``,
FLOW-001): null outside a tournament, and these tables were in none; it is the one thing those
releases did not write (:func:`_as_then`). resume-v14.json was written by c52d92e, the last
commit before issue 37 moved the code into ``controller/``, ``firmware_bridge/`` and ``hw_sim/``: a
table saved by the code before the move resumes mid-hand after it. resume-v15.json was written by
44c29e6, main's last commit of state version 15 (issue 39's part C, the lapses); version 16 (part
B, the flow rules) adds a section of its own, fresh, and must change nothing else: a table saved
by version 15 goes on as it did.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from rig.paths import TESTS
from controller.core.effects import Effect, HandFinished
from controller.core.events import event_from_dict
from controller.core.part import PART_MIGRATIONS
from controller.core.state import STATE_VERSION, StateError
from controller.core.table import Table
from tests.unit.core.test_state import SETTINGS

DATA = TESTS / "data" / "state"
FIXTURES = {version: json.loads((DATA / f"resume-v{version}.json").read_text()) for version in (12, 13, 14, 15)}


def _cases(version: int) -> list[Any]:
    return [pytest.param(c, id=f"v{version}-seed{c['seed']}") for c in FIXTURES[version]["cases"]]


def _as_then(effect: Effect, version: int) -> str:
    """An effect as the releases of ``version`` gave it: before version 14, a hand's record without
    its level (version 14, FLOW-001), which must be null (no tournament: no level)."""
    if type(effect) is HandFinished and version < 14:
        record = dict(effect.record)
        assert "level" in record and record.pop("level") is None
        effect = replace(effect, record=record)
    return repr(effect)


def _play_on(case: dict[str, Any]) -> tuple[list[str], dict[str, Any]]:
    version = case["state"]["version"]
    table = Table.from_state(copy.deepcopy(case["state"]), SETTINGS)
    assert table.hand is not None  # saved mid-hand
    effects = [_as_then(e, version) for d in case["events"] for e in table.apply(event_from_dict(d))]
    return effects, json.loads(json.dumps(table.snapshot()))


def test_the_fixtures_are_of_the_versions_they_are_named_for() -> None:
    assert FIXTURES[12]["version"] == 12 and all(c["state"]["version"] == 12 for c in FIXTURES[12]["cases"])
    assert FIXTURES[13]["version"] == 13 and STATE_VERSION == 16
    assert all("parts" in c["state"] for c in FIXTURES[13]["cases"])
    assert FIXTURES[14]["version"] == 14 and all(c["state"]["version"] == 14 for c in FIXTURES[14]["cases"])
    assert FIXTURES[15]["version"] == 15 and all(c["state"]["version"] == 15 and "lapses" in c["state"]["parts"]
                                                 and "flow" not in c["state"]["parts"] for c in FIXTURES[15]["cases"])


@pytest.mark.parametrize("case", _cases(12) + _cases(13) + _cases(14) + _cases(15))
def test_a_table_saved_mid_hand_by_a_release_goes_on_as_that_release_did(case: dict[str, Any]) -> None:
    effects, view = _play_on(case)
    assert len(effects) == len(case["effects"]) > 50
    assert effects == case["effects"]
    assert view == case["snapshot"]


def test_a_version_12_state_is_split_into_the_sections_of_the_parts_that_own_its_fields() -> None:
    state = copy.deepcopy(FIXTURES[12]["cases"][0]["state"])
    table = Table.from_state(state, SETTINGS)
    written = table.to_state()
    assert written["version"] == STATE_VERSION and "table" not in written
    # (version 14's section, the tournament, 15's, the lapses, and 16's, the flow rules: a fresh
    # part's each, as version 13 had none of them)
    fresh = Table(SETTINGS, table.registry).to_state()["parts"]
    for later in ("tournament", "lapses", "flow"):
        assert written["parts"].pop(later) == fresh[later]
    owned = {name: set(s["state"]) for name, s in written["parts"].items()}
    every = [f for fields in owned.values() for f in fields]
    assert len(every) == len(set(every))  # no field kept by two parts
    assert set(every) == set(FIXTURES[12]["cases"][0]["state"]["table"])  # and none lost, none new
    assert owned["roster"] >= {"seats", "_redeal", "dealer"} and owned["dealing"] >= {"hand", "hands_finished"}


@pytest.mark.parametrize("case", _cases(15))
def test_a_version_15_state_gains_the_flow_rules_section_fresh_and_keeps_every_other(case: dict[str, Any]) -> None:
    """Version 15 -> 16 (issue 39 part B): the part ``flow`` comes in as a fresh one (no seat away
    counted, no satellite, no add-on window), and every section version 15 wrote is written back
    as it was read."""
    state = copy.deepcopy(case["state"])
    table = Table.from_state(state, SETTINGS)
    written = json.loads(json.dumps(table.to_state()))
    assert written["version"] == STATE_VERSION == 16
    assert written["parts"].pop("flow") == Table(SETTINGS, table.registry).to_state()["parts"]["flow"]
    assert written["parts"] == case["state"]["parts"]
    assert table.flow.fields() == {"_away": {}, "_gate": False, "satellites": 0, "_opened": None,
                                   "_last_opened": None, "_deck_told": False, "_addon": {}, "_moved": set()}


def test_a_field_of_a_version_12_state_that_no_part_owns_is_refused_by_name() -> None:
    state = copy.deepcopy(FIXTURES[12]["cases"][0]["state"])
    state["table"]["_spare"] = 3
    with pytest.raises(StateError, match="state.table: unknown _spare"):
        Table.from_state(state, SETTINGS)


def test_a_part_that_changes_what_it_keeps_migrates_its_own_section(monkeypatch: pytest.MonkeyPatch) -> None:
    """Version 2 of the roster, say, renames a field: its step alone brings its version 1 up."""
    from controller.core.table.roster import Roster

    state = copy.deepcopy(FIXTURES[13]["cases"][0]["state"])
    section = state["parts"]["roster"]
    section["state"]["dealer_then"] = section["state"].pop("dealer")  # a version 1 that spelt it so

    def step(fields: dict[str, Any]) -> dict[str, Any]:
        fields["dealer"] = fields.pop("dealer_then")
        return fields

    with pytest.raises(StateError, match="missing dealer; unknown dealer_then"):
        Table.from_state(copy.deepcopy(state), SETTINGS)  # no step for it: refused, by name
    monkeypatch.setattr(Roster, "VERSION", 2)
    monkeypatch.setitem(PART_MIGRATIONS, ("roster", 1), step)
    table = Table.from_state(state, SETTINGS)
    assert table.to_state()["parts"]["roster"]["version"] == 2
    case = FIXTURES[13]["cases"][0]
    assert [_as_then(e, 13) for d in case["events"] for e in table.apply(event_from_dict(d))] == case["effects"]


@pytest.mark.parametrize(("spoil", "says"), [
    (lambda s: s["parts"]["roster"].__setitem__("version", 9),
     "state.parts.roster: version 9; this release reads 1 to 1"),
    (lambda s: s["parts"].pop("modes"), "state.parts: missing modes"),
    (lambda s: s["parts"].__setitem__("clock", {"version": 1, "state": {}}), "state.parts: unknown clock"),
    (lambda s: s["parts"].__setitem__("roster", [1]), "state.parts.roster: want an object of version and state"),
    (lambda s: s["parts"]["stud"]["state"].__setitem__("_all_in_next", {"s": [12]}), "_all_in_next: seat 12"),
])
def test_a_spoilt_section_is_refused_in_one_line_naming_it(spoil: Any, says: str) -> None:
    state = copy.deepcopy(FIXTURES[13]["cases"][0]["state"])
    spoil(state)
    with pytest.raises(StateError) as err:
        Table.from_state(state, SETTINGS)
    assert says in str(err.value) and "\n" not in str(err.value)
