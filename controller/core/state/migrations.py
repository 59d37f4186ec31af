"""The steps that bring a state of an earlier version up to this release's (docs/journal.md,
"Changing the state").

Two kinds of version: the state's own (:data:`STATE_VERSION`, the layout of the whole), and each
part's section's (``Part.VERSION``, :data:`controller.core.part.PART_MIGRATIONS`). Up to
version 12 the table was one flat object (``{"version", "settings", "table": {field: value}}``);
version 13 keeps each part's fields in its own section (``"parts": {section: {"version", "state"}}``),
and from then on a change to one part's fields is a step of that part's section alone; a new
part is a new section, and a new version of the whole (14: the tournament; 15: the lapses; 16: the
flow rules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from controller.core.errors import StateError
from controller.core.state.codec import encode

#: The version of the state written by this release. A change to the layout of the whole bumps
#: it, and :func:`migrate` learns to bring the previous version's states up to it; a change to
#: what one part keeps bumps that part's ``VERSION`` instead.
STATE_VERSION = 16

#: version -> the step that turns a state of that version into one of the next. A change to
#: what the table holds (a new attribute, a renamed one, a new class) bumps STATE_VERSION and
#: adds its step here, e.g. ``MIGRATIONS[1] = lambda st: _add_field(st, "_new_timer", None)``;
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def _deal_counted_as_deal_over(state: dict[str, Any]) -> dict[str, Any]:
    """Version 1 -> 2 (issue 11): ``Hand.deal_counted``, the end-of-deal counts checked
    (MISD-006/007). Under version 1 they were checked exactly when the deal window closed, so a
    hand's ``deal_over`` says whether they were (a copy, not a constant: a hand whose counts
    were checked must not be counted, and flagged, twice)."""
    each_object(state["table"], "Hand", lambda v: v.setdefault("deal_counted", v.get("deal_over") is True))
    return state


MIGRATIONS[1] = _deal_counted_as_deal_over


def _timers_on_the_monotonic_clock(state: dict[str, Any]) -> dict[str, Any]:
    """Version 2 -> 3 (issue 12): the offline and shuffler-fault timers measure on the
    monotonic clock, so each keeps its start's monotonic reading and boot after its wall time
    (``[since, told, mono, boot]``, ``[state, since, told, mono, boot]``). A version 2 timer
    has no reading: null, null; the first reading it meets starts it again
    (``controller.core.device_health._elapsed``): late, never early."""
    body = state["table"]
    offline = body.get("_offline_since")
    if isinstance(offline, dict) and isinstance(offline.get("d"), dict):
        for timer in offline["d"].values():
            if isinstance(timer, list) and len(timer) == 2:
                timer.extend([None, None])
    fault = body.get("_shuffler_fault")
    if isinstance(fault, list) and len(fault) == 3:
        fault.extend([None, None])
    return state


MIGRATIONS[2] = _timers_on_the_monotonic_clock


def _alerts_with_a_count(state: dict[str, Any]) -> dict[str, Any]:
    """Version 3 -> 4 (issue 15): an alert (and the finding it comes from) says how many cards
    its seat is short, over or owed (``count``, for the dealer's display: ``seat 4 short 1``).
    A version 3 alert does not say: null, unknown (the display words it without the figure)."""
    return add_field(add_field(state, "count", None, obj="Alert"), "count", None, obj="Finding")


MIGRATIONS[3] = _alerts_with_a_count


def _no_dealer_named(state: dict[str, Any]) -> dict[str, Any]:
    """Version 4 -> 5 (issue 14): who deals (RELIEF-003). The table's ``dealer`` and the name
    waiting for the next relief (``_next_dealer``), and each hand's ``dealer``: a version 4
    table never had one named, so none (an alert's ``dealer`` has its default, None)."""
    add_field(state, "dealer", None)
    add_field(state, "_next_dealer", None)
    return add_field(state, "dealer", None, obj="Hand")


MIGRATIONS[4] = _no_dealer_named


def _no_showdown_pressed(state: dict[str, Any]) -> dict[str, Any]:
    """Version 5 -> 6 (issue 17): the hands the ``showdown`` pad found (``Hand.shown``) and the
    runs of the board (``BoardState.runs``, ``run_from``, ``runs_dealt``: the ``run_it`` pad,
    BOARD-011). A version 5 hand had neither pad: not pressed, the board dealt once."""
    add_field(state, "shown", None, obj="Hand")
    for name, value in (("runs", 1), ("run_from", 0), ("runs_dealt", 1)):
        add_field(state, name, value, obj="BoardState")
    return state


MIGRATIONS[5] = _no_showdown_pressed


def _prompts_name_a_seat(state: dict[str, Any]) -> dict[str, Any]:
    """Version 6 -> 7 (issue 16): a ``Prompt`` names the seat it concerns (the stud bring-in,
    STUD-002), so the console lights its LED and the report lists it. The prompts of version 6
    (stub counts) concern no seat: null."""
    return add_field(state, "seat", None, obj="Prompt")


MIGRATIONS[6] = _prompts_name_a_seat


def _draw_rounds(state: dict[str, Any]) -> dict[str, Any]:
    """Version 7 -> 8 (issue 16, the draw games): a hand marks each discard with its draw round
    (``discards``), the last round whose counts were checked (``draw_checked``) and the round
    whose stub was rebuilt (``draw_rebuilt``, DRAW-004/005); a ``Prompt`` carries the figure
    the display shows (``count``: "stub short by 3"). A version 7 table dealt no draw game:
    none, nothing checked, no rebuild, no figure."""
    add_field(state, "discards", {}, obj="Hand")
    add_field(state, "draw_checked", 0, obj="Hand")
    add_field(state, "draw_rebuilt", 0, obj="Hand")
    return add_field(state, "count", None, obj="Prompt")


MIGRATIONS[7] = _draw_rounds


def _no_missed_blinds(state: dict[str, Any]) -> dict[str, Any]:
    """Version 8 -> 9 (issue 16, cash games): the blinds each seat missed while it sat out
    (``missed_bb``, ``missed_sb``, DEAL-008), the seat that bought the button last hand
    (``_buyer``) and the prompts told between hands for the next hand's record
    (``_pending_prompts``, DEAL-007). A version 8 table was a tournament's: none of them."""
    add_field(state, "missed_bb", set())
    add_field(state, "missed_sb", set())
    add_field(state, "_buyer", None)
    return add_field(state, "_pending_prompts", [])


MIGRATIONS[8] = _no_missed_blinds


def _no_mode_on(state: dict[str, Any]) -> dict[str, Any]:
    """Version 9 -> 10 (issue 16, the modes: controller/core/table_modes.py): the deal a ``mode`` press
    announced (``mode``), the race-off's all-in seats (``_race_allin``, RACE-005), the open seats
    and their notices (``open_seats``, ``_seat_notices``, BREAK-002/003) and the floor's go-ahead
    during a hold (``_hold_released``). A version 9 table had no mode pad and counted no open
    seat: none on, none open."""
    for name, value in (("mode", None), ("_race_allin", []), ("open_seats", []), ("_seat_notices", {}),
                        ("_hold_released", False)):
        add_field(state, name, value)
    return state


MIGRATIONS[9] = _no_mode_on


def _one_game(state: dict[str, Any]) -> dict[str, Any]:
    """Version 10 -> 11 (issue 16, mixed games): the table holds the game of the next hand
    (``game``), its place in a rotation (``_rotation_at``), the hands of that game counted
    (``_game_hands``) and the seats that had the button in them (``_game_buttons``, an orbit);
    a ``Prompt`` may name a game ("next: razz"). A version 10 table dealt its configuration's
    game, and a state is only taken under the configuration it was written with (the game is
    in the fingerprint): null here, the configuration's game when it is read
    (:func:`table_from_state`); nothing counted; no prompt named a game."""
    add_field(state, "game", None)
    add_field(state, "_rotation_at", 0)
    add_field(state, "_game_hands", 0)
    add_field(state, "_game_buttons", set())
    return add_field(state, "game", None, obj="Prompt")


MIGRATIONS[10] = _one_game


def _stud_incidents(state: dict[str, Any]) -> dict[str, Any]:
    """Version 11 -> 12 (issue 16, stud's incidents): a hand keeps the seats pressed all in
    (``all_in``: the bring-in all in for the ante, STUD-003; the table's ``_all_in_next``, pressed
    before the hand's first card) and the cards set aside before the betting was done (``reserve``,
    STUD-010). A version 11 table had none of them: none."""
    add_field(state, "all_in", set(), obj="Hand")
    add_field(state, "_all_in_next", set())
    return add_field(state, "reserve", set(), obj="Hand")


MIGRATIONS[11] = _stud_incidents


def add_field(state: dict[str, Any], name: str, value: Any, *, obj: str = "table") -> dict[str, Any]:
    """A migration step's helper: give the table (``obj="table"``), or every object of the
    class named ``obj`` in the state, the field ``name`` set to ``value`` (encoded).

    >>> add_field({"version": 1, "table": {"a": 1}}, "b", (1, 2))["table"]
    {'a': 1, 'b': {'t': [1, 2]}}
    """
    encoded = encode(value)
    if obj == "table":
        state["table"].setdefault(name, encoded)
        return state

    each_object(state["table"], obj, lambda v: v.setdefault(name, encoded))
    return state


def each_object(node: Any, cls: str, change: Callable[[dict[str, Any]], Any]) -> None:
    """``change`` each encoded object of the class named ``cls`` in ``node``, at any depth (its fields)."""
    if isinstance(node, dict):
        if node.get("o") == cls and isinstance(node.get("v"), dict):
            change(node["v"])
        for v in node.values():
            each_object(v, cls, change)
    elif isinstance(node, list):
        for v in node:
            each_object(v, cls, change)


def migrate(state: dict[str, Any]) -> dict[str, Any]:
    """Bring a state of an earlier version up to :data:`STATE_VERSION`, step by step
    (:data:`MIGRATIONS`); refuse a version this release does not know."""
    version = state.get("version")
    if type(version) is not int:
        raise StateError(f"state: version {version!r} is not a version number")
    if version > STATE_VERSION:
        raise StateError(f"state: version {version} was written by a newer release (this one reads "
                         f"up to {STATE_VERSION})")
    if version < 1:
        raise StateError(f"state: version {version} is no version this release knows")
    while version < STATE_VERSION:
        step = MIGRATIONS.get(version)
        if step is None or type(state.get("table" if version < 13 else "parts")) is not dict:
            raise StateError(f"state: version {version} cannot be brought up to {STATE_VERSION}")
        state = step(state)
        version += 1
        state["version"] = version
    return state


#: Version 12 -> 13: the part of the table that owns each field of a version 12 table
#: (controller/core/table/: each part's STATE), by section.
OWNERS: dict[str, tuple[str, ...]] = {
    "alerts": ("_pending_alerts", "_pending_prompts"),
    "devices": ("devices_offline", "_offline_since", "_shuffler_fault"),
    "decks": ("registry", "rack", "stub", "_last_report", "_retired_tags"),
    "reads": ("tracker",),
    "roster": ("seats", "_next_button", "_last_positions", "waiting", "_posted", "absent", "missed_bb",
               "missed_sb", "_buyer", "penalty", "_deferred", "_redeal", "dealer", "_next_dealer"),
    "turns": ("game", "_rotation_at", "_game_hands", "_game_buttons"),
    "modes": ("mode", "_race_allin"),
    "open_seats": ("open_seats", "_seat_notices", "_hold_released"),
    "dealing": ("hand", "hands_finished", "last_record", "_highcard", "_taps_seen", "_figures_key"),
    "stud": ("_all_in_next",),
}


def _parts_own_their_fields(state: dict[str, Any]) -> dict[str, Any]:
    """Version 12 -> 13 (issue 31, the table made of parts): the table's fields, one flat object
    until now, go to the sections of the parts that own them (:data:`OWNERS`), each at its
    version 1. A field no part owns is left in ``"table"``, for the reading to refuse by name."""
    body: dict[str, Any] = state.pop("table")
    parts: dict[str, Any] = {}
    for section, names in OWNERS.items():
        parts[section] = {"version": 1, "state": {n: body.pop(n) for n in names if n in body}}
    state["parts"] = parts
    if body:
        state["table"] = body
    return state


MIGRATIONS[12] = _parts_own_their_fields

#: Version 13 -> 14: the tournament's section as a fresh part of version 1 holds it (the values of
#: controller/core/table/tournament.py's ``Tournament()``, as they were when the part was made: a
#: later change to the part is its own section's step)
FRESH_TOURNAMENT: dict[str, Any] = {
    "name": None, "level": None, "kind": None, "_limits": None, "dealt_level": None, "_level_due": False,
    "h4h": False, "round": 0, "_h4h_hold": False, "bubble_mode": False, "bubble": False, "bubble_table": None,
    "bubble_hand": None, "_bubble_hold": False, "clock_n": 0, "_clock": None, "_dead": None,
}


def _no_tournament(state: dict[str, Any]) -> dict[str, Any]:
    """Version 13 -> 14 (issue 32, the tournament room): the table keeps what it applied of the
    floor's signals, its holds and the player clock (the part ``tournament``). A version 13
    table had no floor signal: no level, no hand-for-hand, no bubble, no clock, as a fresh part."""
    state["parts"].setdefault("tournament", {"version": 1,
                                             "state": {k: encode(v) for k, v in FRESH_TOURNAMENT.items()}})
    return state


MIGRATIONS[13] = _no_tournament


def _no_lapses(state: dict[str, Any]) -> dict[str, Any]:
    """Version 14 -> 15 (issue 39, MUCK-001 and STUB-006: controller/core/table/lapses.py): the
    cards of the hand under way off their seats and when they left, when its last card came and
    the tags its stub spot read. A version 14 table waited on none of them: none (a card off its
    seat at the cut is waited for no longer; the hand's stub is not counted)."""
    state["parts"].setdefault("lapses", {"version": 1, "state": {
        "away": encode({}), "dealt_out_at": None, "stub_read": encode(set())}})
    return state


MIGRATIONS[14] = _no_lapses


#: Version 15 -> 16: the flow rules' section as a fresh part of version 1 holds it
#: (controller/core/table/flow.py's ``TableFlow()``, as it was when the part was made)
FRESH_FLOW: dict[str, Any] = {
    "_away": {}, "_gate": False, "satellites": 0, "_opened": None, "_last_opened": None, "_deck_told": False,
    "_addon": {}, "_moved": set(),
}


def _no_flow(state: dict[str, Any]) -> dict[str, Any]:
    """Version 15 -> 16 (issue 39 part B, the guides' last flow rules): the table counts the
    orbits of the seats away (FLOW-006), keeps a single-table satellite's gate and opening deck
    (FLOW-007, DECK-009) and the newcomers' add-on windows and moves (FLOW-008): the part
    ``flow``. A version 15 table counted no absence and started no satellite: as a fresh part (a
    seat away at the upgrade is counted from its next ``seat_absent``)."""
    state["parts"].setdefault("flow", {"version": 1, "state": {k: encode(v) for k, v in FRESH_FLOW.items()}})
    return state


MIGRATIONS[15] = _no_flow


def migrate_section(section: str, data: Any, steps: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]],
                    current: int, where: str) -> dict[str, Any]:
    """A part's section brought up to the part's ``current`` version, step by step (``steps``:
    the parts' migrations); its fields, encoded. StateError if it cannot be."""
    if type(data) is not dict or set(data) != {"version", "state"}:
        raise StateError(f"{where}: want an object of version and state")
    version = data["version"]
    fields: dict[str, Any] = data["state"]
    if type(version) is not int or not 1 <= version <= current:
        raise StateError(f"{where}: version {version!r}; this release reads 1 to {current}")
    if type(fields) is not dict:
        raise StateError(f"{where}.state: not an object")
    while version < current:
        step = steps.get((section, version))
        if step is None:
            raise StateError(f"{where}: version {version} cannot be brought up to {current}")
        fields = step(fields)
        version += 1
    return fields
