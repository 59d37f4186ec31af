"""The table's state as data (issue 12): to_state -> JSON -> from_state is the same table.

Random clean hands (hw_sim.random_hands) with read noise, wrong-deck cards, clones and presses
are fed to a Table; at a random event the table is written to JSON and read back, and both go
on with the same events: every effect after the cut, and the table's view, are the same.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.core.events import (
    ButtonPress,
    DeviceStatus,
    ReaderCycle,
    ShufflerStatus,
    Tick,
)
from controller.core.settings import TableSettings
from controller.core.state import STATE_VERSION, StateError, StateMismatch
from controller.core.table import Table
from hw_sim.decks import sim_uid
from hw_sim.random_hands import random_hand_steps
from tests.unit.core.test_table import registry
from rig.paths import TESTS
from rig.states import field_home

DATA = TESTS / "data" / "state"
SETTINGS = TableSettings(seats=(1, 2, 4, 6), button=6, confirm_cycles=2, gone_cycles=3)
ANTENNA = {"board": 11, "burn": 12, "muck": 13, **{f"seat:{n}": n for n in range(1, 11)}}


def random_events(seed: int, hands: int = 3) -> list:
    """Events of ``hands`` clean hands, with misses, crosstalk, a foreign card now and then,
    presses of every kind, device faults and ticks."""
    rng = random.Random(seed)
    events: list = []
    field: dict[str, int] = {}
    cycle = [0]
    ts = [100.0]

    def tick(n: int = 1) -> None:
        for _ in range(n):
            cycle[0] += 1
            ts[0] += 0.25
            reads = [(u, a, 200) for u, a in field.items() if rng.random() > 0.05]  # misses
            if field and rng.random() < 0.05:  # crosstalk: a neighbour hears a card weaker
                u, a = rng.choice(sorted(field.items()))
                reads.append((u, a % 13 + 1, 60))
            events.append(ReaderCycle(ts[0], "reader", cycle[0], tuple(reads)))

    button = 6
    for _ in range(hands):
        steps = random_hand_steps(rng, game="holdem", seats=[1, 2, 4, 6], button=button)
        for step in steps:
            if "deal" in step:
                deck = "B" if rng.random() < 0.03 else "A"
                field[sim_uid(deck, step["deal"])] = ANTENNA[step["to"]]
                tick(3)
            elif "muck" in step:
                for u, a in list(field.items()):
                    if a == ANTENNA[step["muck"]]:
                        field[u] = ANTENNA["muck"]
                tick(3)
            elif "press" in step:
                events.append(ButtonPress(ts[0] + 0.1, step["press"]))
            if rng.random() < 0.04:
                events.append(ButtonPress(ts[0] + 0.1, rng.choice(["exposed", "sa", "relief", "ack"])))
            if rng.random() < 0.02:
                events.append(DeviceStatus(ts[0], "reader", False, "unplugged"))
                events.append(Tick(ts[0] + 70.0))
                events.append(DeviceStatus(ts[0] + 71.0, "reader", True, None))
            if rng.random() < 0.02:
                events.append(ShufflerStatus(ts[0], "shuffler", "jam"))
        field.clear()
        tick(5)
        button = {6: 1, 1: 2, 2: 4, 4: 6}[button]
    return events


def through_json(table: Table) -> Table:
    return Table.from_state(json.loads(json.dumps(table.to_state())), SETTINGS)


@pytest.mark.parametrize("seed", range(30))
def test_a_table_written_and_read_back_mid_hand_goes_on_as_the_original(seed):
    events = random_events(seed)
    cut = random.Random(seed).randrange(1, len(events))
    a = Table(SETTINGS, registry())
    for ev in events[:cut]:
        a.apply(ev)
    b = through_json(a)
    assert b.snapshot() == a.snapshot()
    after_a = [e for ev in events[cut:] for e in a.apply(ev)]
    after_b = [e for ev in events[cut:] for e in b.apply(ev)]
    assert after_b == after_a
    assert b.snapshot() == a.snapshot()


def test_the_state_is_plain_json_and_the_same_text_twice():
    a = Table(SETTINGS, registry())
    for ev in random_events(7)[:200]:
        a.apply(ev)
    text = json.dumps(a.to_state(), sort_keys=True)
    assert json.dumps(through_json(a).to_state(), sort_keys=True) == text
    assert json.loads(text)["version"] == STATE_VERSION


def _state_mid_hand() -> dict:
    a = Table(SETTINGS, registry())
    for ev in random_events(3)[:120]:
        a.apply(ev)
    assert a.hand is not None
    return json.loads(json.dumps(a.to_state()))


def _set(state: dict, path: str, value) -> dict:
    """``path`` names a field as the table's (``table/hands_finished``), wherever the state keeps it."""
    keys = path.split("/")
    node = field_home(state, keys[1]) if keys[0] == "table" else state
    keys = keys[1:] if keys[0] == "table" else keys
    for k in keys[:-1]:
        node = node[int(k)] if isinstance(node, list) else node[k]
    if value is KeyError:
        del node[keys[-1]]
    else:
        node[keys[-1]] = value
    return state


BAD = [
    ("table/hands_finished", -1, "hands_finished: -1"),
    ("table/hands_finished", "3", "hands_finished: a string, want int"),
    ("table/seats", {"t": [1, 2, 11]}, "seat 11"),
    ("table/hand/v/number", 0, "number: 0"),
    ("table/hand/v/game", "stud", "game: 'stud'"),
    ("table/hand/o", "Popen", "'Popen' is not a class"),
    ("table/hand", {"o": "os.system", "v": {"command": "touch /tmp/x"}}, "'os.system' is not a class"),
    ("table/hand/v/renamed", 1, "unknown renamed"),
    ("table/hand/v/zones", KeyError, "missing zones"),
    ("table/tracker/v/_home_ant", {"dk": [["E00401", 99]]}, "antenna 99"),
    ("table/_last_positions", {"o": "Positions", "v": {"button": "x", "sb": 1, "bb": 2}}, "button: a string"),
    ("table/hand/v/started", float("nan"), "not a finite number"),
    ("table/hand/v/labels", {"zz": {}}, "unknown kind 'zz'"),
    ("table/registry/v/decks", [["A", "red", {"d": {"E0": "Xx"}}]], "a card that is no card"),
    ("version", STATE_VERSION + 1, f"version {STATE_VERSION + 1} was written by a newer release"),
    ("version", "1", "not a version number"),
    ("settings", "0000", "configuration changed"),
]


@pytest.mark.parametrize("path,value,says", BAD, ids=[b[0] + ":" + b[2][:20] for b in BAD])
def test_a_bad_state_is_refused_in_one_error_naming_where(path, value, says):
    state = _set(_state_mid_hand(), path, value)
    with pytest.raises(StateError) as err:
        Table.from_state(json.loads(json.dumps(state)), SETTINGS)
    assert says in str(err.value)
    assert "\n" not in str(err.value)


def test_a_state_nested_without_end_is_refused_not_a_recursion_error():
    deep: object = 1
    for _ in range(500):
        deep = {"t": [deep]}
    state = _set(_state_mid_hand(), "table/last_record", deep)
    with pytest.raises(StateError, match="nested deeper"):
        Table.from_state(state, SETTINGS)


def test_a_state_of_another_configuration_is_a_mismatch_not_damage():
    state = _state_mid_hand()
    with pytest.raises(StateMismatch):
        Table.from_state(state, TableSettings(seats=(1, 2, 4, 6), button=6, confirm_cycles=3, gone_cycles=3))


# -- fixtures written by releases: they keep loading (bump STATE_VERSION and migrate) -----------
def test_the_state_written_by_release_1_still_loads_and_plays_on():
    state = json.loads((DATA / "v1-mid-hand.json").read_text())
    assert state["version"] == 1
    table = Table.from_state(state, SETTINGS)
    assert table.hand is not None and table.hand.number == 2  # mid-hand 2, as it was written
    assert table.hands_finished == 1
    effects = [e for ev in random_events(11, hands=1)[-30:] for e in table.apply(ev)]
    assert isinstance(effects, list)


def test_release_1s_hands_migrate_with_their_end_of_deal_counts_already_checked():
    """Version 2 (issue 11) added ``Hand.deal_counted``; a version 1 hand past its deal window had
    its counts checked (MISD-006/007), so it must not check them again at the next fold."""
    state = json.loads((DATA / "v1-mid-hand.json").read_text())
    assert "deal_counted" not in json.dumps(state)
    table = Table.from_state(state, SETTINGS)
    assert table.hand is not None and table.hand.deal_over is True
    assert table.hand.deal_counted is True


def test_the_state_written_by_release_2_still_loads_and_plays_on():
    state = json.loads((DATA / "v2-mid-hand.json").read_text())
    assert state["version"] == 2
    table = Table.from_state(state, SETTINGS)
    assert table.hand is not None and table.hand.number == 2 and table.hand.deal_counted is True
    assert table.hands_finished == 1
    effects = [e for ev in random_events(11, hands=1)[-30:] for e in table.apply(ev)]
    assert isinstance(effects, list)


def test_release_3s_alerts_migrate_with_their_count_unknown():
    """Version 4 (issue 15) added ``Alert.count`` (and ``Finding.count``): a version 3 alert
    has none; it loads as unknown, and the display words it without the figure."""
    state = json.loads((DATA / "v3-mid-hand.json").read_text())
    assert state["version"] == 3 and '"count"' not in json.dumps(state)
    table = Table.from_state(state, SETTINGS)
    alerts = table.hand.alerts + table.alerts._pending_alerts
    assert len(alerts) >= 3 and all(a.count is None for a in alerts)
    assert json.loads(json.dumps(table.to_state()))["version"] == STATE_VERSION


def test_the_state_written_by_release_4_still_loads_with_its_alerts_count():
    """tests/data/state/v4-mid-hand.json: seats 1, 2, 4, 6, seat 4 dealt one card of two, the
    window closed (``sa``): ``misdeal.seat_short`` at seat 4, one card short."""
    state = json.loads((DATA / "v4-mid-hand.json").read_text())
    assert state["version"] == 4
    table = Table.from_state(state, SETTINGS)
    assert table.hand is not None and table.hand.number == 1
    assert [(a.code, a.seat, a.count) for a in table.hand.alerts] == [("misdeal.seat_short", 4, 1)]
    effects = [e for ev in random_events(11, hands=1)[-30:] for e in table.apply(ev)]
    assert isinstance(effects, list)


def test_a_state_from_a_future_release_is_refused_in_one_line():
    state = json.loads((DATA / "v999-future.json").read_text())
    with pytest.raises(StateError) as err:
        Table.from_state(state, SETTINGS)
    assert str(err.value) == f"state: version 999 was written by a newer release (this one reads up to {STATE_VERSION})"


# -- fuzz: any JSON anywhere in a real state is taken or refused with a StateError, nothing else --
JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=8) | st.sampled_from(["Hand", "Tracker", "t", "s", "d", "o", "seat:1"]),
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
                        st.sampled_from(["t", "s", "fs", "d", "dk", "o", "v", "x"]), inner, max_size=2),
                    max_leaves=12)
_BASE = None


def _paths(node, prefix=()):
    """Every place in a state a value can be put."""
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, (*prefix, i))


_MORE = random_events(3)[120:200]


@pytest.mark.slow
@settings(max_examples=400, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_any_value_anywhere_in_a_state_is_refused_or_plays_on_never_a_crash(data):
    global _BASE
    if _BASE is None:
        _BASE = json.dumps(_state_mid_hand())
    state = json.loads(_BASE)
    paths = [p for p in _paths(state) if p]
    path = data.draw(st.sampled_from(paths))
    node = state
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = data.draw(JSON)
    try:
        table = Table.from_state(state, SETTINGS)
    except StateError as exc:
        assert "\n" not in str(exc)
        return
    for ev in _MORE:  # a state taken is a table that plays on
        table.apply(ev)
    table.snapshot()
