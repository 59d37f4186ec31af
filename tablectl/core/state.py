"""The table's state as plain data: what a journal snapshot holds, versioned, never a pickle.

:meth:`tablectl.core.table.Table.to_state` turns the table and everything it holds (the hand, the
tracker, the decks and their registry, positions, stub counts, device health...) into a dict of
JSON values; :meth:`tablectl.core.table.Table.from_state` builds the table back from one, after
checking every value. A state can only ever make objects of the classes in :data:`CLASSES`
(the core's own, by a short name), and only with fields those classes have: reading a state
calls no code it names, so a journal restored from anywhere cannot run anything.

Encoding (docs/journal.md): ``None``, ``bool``, ``int``, ``float`` (finite), ``str`` and
``list`` are themselves; every other value is a one-key object naming its kind:
``{"t": [...]}`` a tuple, ``{"s": [...]}`` a set, ``{"fs": [...]}`` a frozenset,
``{"d": {...}}`` a dict with string keys, ``{"dk": [[k, v], ...]}`` any other dict,
``{"o": "Hand", "v": {field: value}}`` an object of the core.

>>> from tablectl.core.positions import Positions
>>> encode({"x": (1, 2), 3: {"a"}})
{'dk': [['x', {'t': [1, 2]}], [3, {'s': ['a']}]]}
>>> decode(encode(Positions(3, 4, 5)))
Positions(button=3, sb=4, bb=5)
>>> decode({"o": "os.system", "v": {}})
Traceback (most recent call last):
...
tablectl.core.errors.StateError: state: 'os.system' is not a class of the table's state
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Any
from tablectl.core.errors import StateError as StateError  # (the state's error, raised by the registry too)
from tablectl.core import deck_rack, effects, events, hand, positions, registry, rules, tracker
from tablectl.core.dealers import check_dealer_name
from tablectl.core.deck_rack import DeckRack
from tablectl.core.effects import Alert, Prompt
from tablectl.core.events import ButtonPress
from tablectl.core.hand import Hand
from tablectl.core.pads import MODES
from tablectl.core.positions import Positions
from tablectl.core.registry import DeckRegistry, TagInfo
from tablectl.core.rules import board, stub
from tablectl.core.rules.board import BoardState
from tablectl.core.rules.stub import StubCounts
from tablectl.core.settings import GAMES, keyed
from tablectl.core.tracker import Tracker
from tablectl.core.zones import ALL_ZONES
import hashlib

#: The version of the state written by this release. A change to what the state holds bumps
#: it, and :func:`migrate` learns to bring the previous version's states up to it.
STATE_VERSION = 12

MAX_DEPTH = 48  # nesting: the deepest real state is about 8
MAX_STR = 65536  # an alert's message is the longest string
MAX_INT = 1 << 62


def _classes() -> dict[str, type]:
    """The classes a state may hold, by name."""

    found: dict[str, type] = {}
    for cls in (hand.Hand, tracker.Tracker, deck_rack.DeckRack, deck_rack.DeckChange, stub.StubCounts,
                positions.Positions, board.BoardState, board._Premature, registry.DeckRegistry, registry.Deck,
                registry.TagInfo, effects.Alert, effects.Prompt, rules.Finding, *events.EVENT_TYPES.values()):
        found[cls.__name__] = cls
    return found


_CLASSES: dict[str, type] | None = None


def classes() -> dict[str, type]:
    global _CLASSES
    if _CLASSES is None:
        _CLASSES = _classes()
    return _CLASSES


# -- encoding --------------------------------------------------------------------------------
def encode(value: Any) -> Any:
    """``value`` as JSON values (see the module's docstring)."""
    t = type(value)
    if value is None or t is bool or t is int or t is str:
        return value
    if t is float:
        if not math.isfinite(value):
            raise StateError(f"state: {value!r} is not a finite number")
        return value
    if t is list:
        return [encode(v) for v in value]
    if t is tuple:
        return {"t": [encode(v) for v in value]}
    if t is set or t is frozenset:
        items = sorted((encode(v) for v in value), key=repr)  # the same state, the same text
        return {"s" if t is set else "fs": items}
    if t is dict:
        if all(isinstance(k, str) for k in value):
            return {"d": {str.__str__(k): encode(v) for k, v in value.items()}}
        return {"dk": [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, str):  # a name of the core's (a Zone): written as the name it is
        return str.__str__(value)
    name = t.__name__
    if classes().get(name) is not t:
        raise StateError(f"state: a {t.__module__}.{t.__qualname__} is not part of the table's state")
    return {"o": name, "v": {k: encode(v) for k, v in fields_of(value).items()}}


def fields_of(obj: Any) -> dict[str, Any]:
    """What an object of the core keeps in a state: its own ``to_state`` if it has one, a
    dataclass's fields, else its attributes less those named in ``_STATE_SKIP`` (functions
    and aliases that its owner links again)."""
    own = getattr(obj, "to_state", None) if classes().get(type(obj).__name__) is type(obj) else None
    if own is not None:
        return own()  # type: ignore[no-any-return]
    if dataclasses.is_dataclass(obj):
        return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
    skip = getattr(type(obj), "_STATE_SKIP", ())
    return {k: v for k, v in vars(obj).items() if k not in skip}


# -- decoding --------------------------------------------------------------------------------
#: Fresh objects of the plain (not dataclass) classes: a state's object must have exactly their
#: attributes, each of the same type where the fresh one's is not None.
TEMPLATES: dict[str, Callable[[], Any]] = {}


def _templates() -> dict[str, Callable[[], Any]]:
    if not TEMPLATES:

        TEMPLATES["Hand"] = lambda: Hand(1, "holdem", 2, (1, 2), 1, 0.0)
        TEMPLATES["Tracker"] = lambda: Tracker(lambda antenna: None)
    return TEMPLATES


def decode(data: Any, where: str = "state", depth: int = 0) -> Any:
    """The value ``data`` encodes; :class:`StateError` naming ``where`` if it is not one."""
    if depth > MAX_DEPTH:
        raise StateError(f"{where}: nested deeper than {MAX_DEPTH}")
    t = type(data)
    if data is None or t is bool or t is str:
        if t is str and len(data) > MAX_STR:
            raise StateError(f"{where}: a string of {len(data)} characters (at most {MAX_STR})")
        return data
    if t is int:
        if not -MAX_INT <= data <= MAX_INT:
            raise StateError(f"{where}: {data} is out of range")
        return data
    if t is float:
        if not math.isfinite(data):
            raise StateError(f"{where}: {data!r} is not a finite number")
        return data
    if t is list:
        return [decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(data)]
    if t is not dict or len(data) not in (1, 2):
        raise StateError(f"{where}: {_kind(data)} is not a state value")
    if len(data) == 2:
        if set(data) != {"o", "v"}:
            raise StateError(f"{where}: an object with keys {sorted(data)}; want o and v")
        return _object(data["o"], data["v"], where, depth)
    (tag, body), = data.items()
    if tag in ("t", "s", "fs"):
        if type(body) is not list:
            raise StateError(f"{where}: {tag!r} holds {_kind(body)}, not a list")
        items = [decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(body)]
        try:
            return tuple(items) if tag == "t" else set(items) if tag == "s" else frozenset(items)
        except TypeError as exc:  # a list in a set
            raise StateError(f"{where}: {exc}") from exc
    if tag == "d":
        if type(body) is not dict:
            raise StateError(f"{where}: 'd' holds {_kind(body)}, not an object")
        # (paths name a dict's entries by place, never by key: keys are UIDs, and paths are logged)
        return {k: decode(v, f"{where}[{i}]", depth + 1) for i, (k, v) in enumerate(body.items())}
    if tag == "dk":
        if type(body) is not list or not all(type(p) is list and len(p) == 2 for p in body):
            raise StateError(f"{where}: 'dk' holds no list of [key, value] pairs")
        out = {}
        for i, (k, v) in enumerate(body):
            key = decode(k, f"{where}[{i}].key", depth + 1)
            try:
                out[key] = decode(v, f"{where}[{i}]", depth + 1)
            except TypeError as exc:  # an unhashable key
                raise StateError(f"{where}[{i}]: {exc}") from exc
        return out
    raise StateError(f"{where}: unknown kind {tag!r}")


def _kind(x: Any) -> str:
    """What ``x`` is, never its value (a state holds UIDs and cards; errors are logged)."""
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return names.get(type(x), type(x).__name__)


def check_fields(obj: Any, where: str) -> None:
    """The fields of a dataclass of the core (an event read from a journal, say) are of the
    types it declares; raises :class:`StateError` naming the field.

    >>> from tablectl.core.events import ButtonPress
    >>> check_fields(ButtonPress(1.0, "sa", long="false"), "event #7")
    Traceback (most recent call last):
    ...
    tablectl.core.errors.StateError: event #7.long: a string is not a bool
    """
    hints = _hints(type(obj))
    for f in dataclasses.fields(obj):
        v = getattr(obj, f.name)
        hint = hints.get(f.name)
        if hint is not None and not conforms(v, hint):
            raise StateError(f"{where}.{f.name}: {_kind(v)} is not a {_show(hint)}")
        if type(v) is float and not math.isfinite(v):
            raise StateError(f"{where}.{f.name}: not a finite number")


def _object(name: Any, body: Any, where: str, depth: int) -> Any:
    cls = classes().get(name) if type(name) is str else None
    if cls is None:
        raise StateError(f"{where}: {name!r} is not a class of the table's state")
    where = f"{where}<{name}>"
    if type(body) is not dict:
        raise StateError(f"{where}: its fields are {_kind(body)}, not an object")
    values = {k: decode(v, f"{where}.{k}", depth + 1) for k, v in body.items()}
    own = getattr(cls, "from_state", None)
    if own is not None:
        return own(values, where=where)
    if dataclasses.is_dataclass(cls):
        return _dataclass(cls, values, where)
    make = _templates().get(name)
    if make is None:
        raise StateError(f"{where}: {name} cannot be read from a state")
    obj = make()
    expect(values, obj, where)
    for k, v in values.items():
        setattr(obj, k, v)
    return obj


def _refuse_fields(where: str, missing: list[str], unknown: list[str]) -> None:
    """One StateError naming the fields missing and the fields unknown, if any."""
    if missing or unknown:
        parts = (["missing " + ", ".join(missing)] if missing else []) + (
            ["unknown " + ", ".join(unknown)] if unknown else [])
        raise StateError(f"{where}: " + "; ".join(parts))


def expect(values: dict[str, Any], template: Any, where: str, nullable: tuple[str, ...] = ()) -> None:
    """``values`` has exactly the fields ``template`` keeps in a state, each of its type where
    the template's is not None, and None only where the template's is (or ``nullable`` names it)."""
    want = fields_of(template)
    missing, unknown = sorted(want.keys() - values.keys()), sorted(values.keys() - want.keys())
    _refuse_fields(where, missing, unknown)
    for k, ref in want.items():
        v = values[k]
        if ref is None or (v is None and k in nullable):
            continue
        if type(v) is not type(ref) and not (type(ref) is float and type(v) is int):
            raise StateError(f"{where}.{k}: {_kind(v) if v is not None else 'null'}, want {_kind(ref)}")


def _dataclass(cls: type, values: dict[str, Any], where: str) -> Any:
    fs = {f.name: f for f in dataclasses.fields(cls)}
    missing = sorted(n for n, f in fs.items() if n not in values and
                     f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING)
    unknown = sorted(values.keys() - fs.keys())
    _refuse_fields(where, missing, unknown)
    hints = _hints(cls)
    for k, v in values.items():
        hint = hints.get(k)
        if hint is not None and not conforms(v, hint):
            raise StateError(f"{where}.{k}: {_kind(v)} is not a {_show(hint)}")
    init = {k: v for k, v in values.items() if fs[k].init}
    try:
        obj = cls(**init)
    except (TypeError, ValueError) as exc:  # the class's own checks (DeckRack's rotate, say)
        raise StateError(f"{where}: {exc}") from exc
    for k, v in values.items():
        if not fs[k].init:
            object.__setattr__(obj, k, v)
    return obj


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    if cls not in _HINTS:
        try:
            _HINTS[cls] = typing.get_type_hints(cls)
        except (NameError, TypeError, AttributeError):  # a hint that does not resolve: the leaves are still checked
            _HINTS[cls] = {}
    return _HINTS[cls]


def _show(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def conforms(value: Any, hint: Any) -> bool:
    """``value`` is of the type ``hint`` names (the types the core's dataclasses use).

    >>> conforms((1, "a"), tuple[int, str]), conforms({"a": 1}, dict[str, str])
    (True, False)
    >>> conforms(True, int), conforms(3, float), conforms(None, int | None)
    (False, True, True)
    """
    if hint is Any or hint is object:
        return True
    if hint is None or hint is type(None):
        return value is None
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
    if origin is None:
        if hint is float:
            return type(value) in (float, int)
        if hint is int:
            return type(value) is int
        if isinstance(hint, type):
            return type(value) is hint
        return True  # a construct the core does not use: not judged here
    if origin is tuple:
        if type(value) is not tuple:
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(conforms(v, args[0]) for v in value)
        return len(args) == len(value) and all(conforms(v, a) for v, a in zip(value, args, strict=True))
    if origin in (list, set, frozenset):
        return type(value) is origin and all(conforms(v, args[0]) for v in value) if args else type(value) is origin
    if origin is dict:
        return type(value) is dict and (not args or all(conforms(k, args[0]) and conforms(v, args[1])
                                                         for k, v in value.items()))
    return True


# -- the table -------------------------------------------------------------------------------
class StateMismatch(StateError):
    """A sound state of a table configured otherwise (seats, zones, rules changed since)."""


def settings_key(settings: Any) -> str:
    """A short fingerprint of the table's configuration: a state is taken only under the same.
    It is the text of the settings as their repr writes it, less the fields marked out of it
    (:data:`tablectl.core.settings.UNKEYED`): the same text, and key, as before those existed.

    >>> from tablectl.core.settings import RuleSettings, TableSettings
    >>> settings_key(TableSettings()) == settings_key(TableSettings())
    True
    >>> settings_key(TableSettings()) == settings_key(TableSettings(button=3))
    False
    >>> settings_key(TableSettings()) == settings_key(TableSettings(rules=RuleSettings(race_allin="first_chip")))
    True
    """

    text = _keyed(settings)
    rotation = getattr(settings, "rotation", None)
    if rotation is not None and rotation.on:
        # (the rotation's games and counts are out of the fingerprint: they may be edited between
        # shifts and the state carries on from its place; but a state saved on a rotation holds
        # the rotation's next game, which a table without one would deal for ever, and the other
        # way round: a mismatch, the table starts afresh, the history kept)
        text += " rotation"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _keyed(value: Any) -> str:
    """``repr(value)``, a dataclass's written as its repr would be without its unkeyed fields."""

    if not dataclasses.is_dataclass(value) or isinstance(value, type):
        return repr(value)
    fields = dataclasses.fields(value)
    if all(map(keyed, fields)):
        return repr(value)  # (its own repr: a ZoneMap's names)
    shown = (f"{f.name}={_keyed(getattr(value, f.name))}" for f in fields if f.repr and keyed(f))
    return f"{type(value).__qualname__}({', '.join(shown)})"


def table_to_state(table: Any) -> dict[str, Any]:
    """``{"version", "settings", "table"}``: the table's own fields, encoded."""
    return {"version": STATE_VERSION, "settings": settings_key(table.settings),
            "table": {k: encode(v) for k, v in fields_of(table).items()}}


#: version -> the step that turns a state of that version into one of the next. A change to
#: what the table holds (a new attribute, a renamed one, a new class) bumps STATE_VERSION and
#: adds its step here, e.g. ``MIGRATIONS[1] = lambda st: _add_field(st, "_new_timer", None)``;
#: tests/data/state/v1-mid-hand.json must keep loading (docs/journal.md, "Changing the state").
MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {}


def _deal_counted_as_deal_over(state: dict[str, Any]) -> dict[str, Any]:
    """Version 1 -> 2 (issue 11): ``Hand.deal_counted``, the end-of-deal counts checked
    (MISD-006/007). Under version 1 they were checked exactly when the deal window closed, so a
    hand's ``deal_over`` says whether they were (a copy, not a constant: a hand whose counts
    were checked must not be counted, and flagged, twice)."""
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("o") == "Hand" and isinstance(node.get("v"), dict):
                node["v"].setdefault("deal_counted", node["v"].get("deal_over") is True)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(state["table"])
    return state


MIGRATIONS[1] = _deal_counted_as_deal_over


def _timers_on_the_monotonic_clock(state: dict[str, Any]) -> dict[str, Any]:
    """Version 2 -> 3 (issue 12): the offline and shuffler-fault timers measure on the
    monotonic clock, so each keeps its start's monotonic reading and boot after its wall time
    (``[since, told, mono, boot]``, ``[state, since, told, mono, boot]``). A version 2 timer
    has no reading: null, null; the first reading it meets starts it again
    (``tablectl.core.device_health._elapsed``): late, never early."""
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
    """Version 9 -> 10 (issue 16, the modes: tablectl/core/table_modes.py): the deal a ``mode`` press
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

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("o") == obj and isinstance(node.get("v"), dict):
                node["v"].setdefault(name, encoded)
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(state["table"])
    return state


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
        if step is None or type(state.get("table")) is not dict:
            raise StateError(f"state: version {version} cannot be brought up to {STATE_VERSION}")
        state = step(state)
        version += 1
        state["version"] = version
    return state


def table_from_state(cls: type, state: Any, settings: Any) -> Any:
    """The table ``state`` holds under ``settings``; every value checked (types and ranges)."""

    if type(state) is not dict:
        raise StateError(f"state: {_kind(state)}, not an object")
    state = migrate(state)
    unknown = sorted(set(state) - {"version", "settings", "table"})
    if unknown:
        raise StateError(f"state: unknown keys {', '.join(unknown)}")
    if state.get("settings") != settings_key(settings):
        raise StateMismatch("state: the table's configuration changed since it was written")
    body = state.get("table")
    if type(body) is not dict:
        raise StateError("state.table: missing, or not an object")
    values = {k: decode(v, f"state.table.{k}") for k, v in body.items()}
    registry = values.get("registry")
    if type(registry) is not DeckRegistry:
        raise StateError("state.table.registry: missing, or not a DeckRegistry")
    table = cls(settings, registry)
    expect(values, table, "state.table", nullable=("_next_button", "game"))
    if values.get("game") is None:  # (a version 10 state: the configuration's game, see _one_game)
        values["game"] = settings.game
    for name, want in (("hand", Hand), ("_redeal", Hand), ("_last_positions", Positions),
                       ("_last_report", tuple), ("_shuffler_fault", list), ("last_record", dict),
                       ("_figures_key", tuple), ("_next_button", int), ("_buyer", int)):
        v = values[name]
        if v is not None and type(v) is not want:
            raise StateError(f"state.table.{name}: {_kind(v)}, want {want.__name__} or null")
    for k, v in values.items():
        setattr(table, k, v)
    tracker = table.tracker
    if (tracker.confirm_cycles, tracker.gone_cycles, tracker.strong_rssi) != \
            (settings.confirm_cycles, settings.gone_cycles, settings.strong_rssi):
        raise StateMismatch("state: the tracker's cycles differ from the configuration's")
    tracker._zone_of = settings.zones.by_antenna.get
    table._track = tracker.cycle
    table._clones = tracker.clones
    check_table(table)
    return table


def check_table(table: Any) -> None:
    """The ranges a state's values must keep: seats, hand numbers, zones, counts."""

    def seat(where: str, s: Any) -> None:
        if type(s) is not int or not 1 <= s <= 10:
            raise StateError(f"{where}: seat {s!r}, want 1 to 10")

    def count(where: str, n: Any) -> None:
        if type(n) is not int or n < 0:
            raise StateError(f"{where}: {n!r}, want a whole number 0 or more")

    def zone(where: str, z: Any) -> None:
        if z not in ALL_ZONES:
            raise StateError(f"{where}: {z!r} is no zone")

    _typed(table, {k: v for k, v in _table_hints().items() if hasattr(table, k)}, "state.table")
    for s in table.seats:
        seat("state.table.seats", s)
    for name in ("waiting", "_posted", "absent", "missed_bb", "missed_sb", "_race_allin", "open_seats",
                 "_seat_notices", "_all_in_next"):
        for s in getattr(table, name):
            seat(f"state.table.{name}", s)
    for s, n in table._seat_notices.items():
        count(f"state.table._seat_notices[{s}]", n)
    if table.mode is not None and table.mode not in MODES:
        raise StateError(f"state.table.mode: {table.mode!r}, want one of {', '.join(MODES)} or null")
    for s, n in table.penalty.items():
        seat("state.table.penalty", s)
        count(f"state.table.penalty[{s}]", n)
    for name in ("_next_button", "_buyer"):
        if getattr(table, name) is not None:
            seat(f"state.table.{name}", getattr(table, name))
    count("state.table.hands_finished", table.hands_finished)

    if table.game not in GAMES:
        raise StateError(f"state.table.game: {table.game!r} is no game the table deals")
    count("state.table._rotation_at", table._rotation_at)
    count("state.table._game_hands", table._game_hands)
    for s in table._game_buttons:
        seat("state.table._game_buttons", s)
    for d in table.devices_offline:
        if type(d) is not str:
            raise StateError(f"state.table.devices_offline: {d!r} is no device name")
    def reading(v: list[Any]) -> bool:  # a timer's monotonic start and its boot, or none
        return (v[-2] is None and v[-1] is None) or (conforms(v[-2], float) and conforms(v[-1], str | None))

    for d, v in table._offline_since.items():
        if type(v) is not list or len(v) != 4 or not conforms(v[0], float) or type(v[1]) is not bool \
                or not reading(v):
            raise StateError(f"state.table._offline_since.{d}: want [since, told, mono, boot]")
    f = table._shuffler_fault
    if f is not None and (len(f) != 5 or type(f[0]) is not str or not conforms(f[1], float) or type(f[2]) is not bool
                          or not reading(f)):
        raise StateError("state.table._shuffler_fault: want [state, since, told, mono, boot]")
    for name in ("dealer", "_next_dealer"):
        _dealer(getattr(table, name), f"state.table.{name}")
    for p in table._deferred:
        if type(p).__name__ != "ButtonPress":
            raise StateError("state.table._deferred: holds something other than a press")
    for name in ("hand", "_redeal"):
        hand = getattr(table, name)
        if hand is not None:
            check_hand(hand, f"state.table.{name}")
            if not hand.penalty <= table.penalty.keys():
                raise StateError(f"state.table.{name}.penalty: a seat the table has no penalty for")
    hand = table.hand
    if hand is not None and hand.number <= table.hands_finished:
        raise StateError(f"state.table.hand: hand {hand.number} is not after the {table.hands_finished} "
                         f"hands finished")
    tr = table.tracker
    check_tracker(tr)
    for z in tr._home.values():
        zone("state.table.tracker._home", z)
    for c in tr._cands.values():
        if type(c) is not tuple or len(c) != 4 or not all(type(n) is int for n in c[1:]):
            raise StateError("state.table.tracker._cands: want (zone, evidence, last, first)")
        zone("state.table.tracker._cands", c[0])


def _dealer(name: Any, where: str) -> None:
    """A dealer's name in a state is one the inputs take, as they keep it (RELIEF-003)."""

    if name is None:
        return
    try:
        ok = check_dealer_name(name) == name
    except ValueError:
        ok = False
    if not ok:
        raise StateError(f"{where}: not a dealer's name as the inputs keep it")


def _typed(obj: Any, hints: dict[str, Any], where: str) -> None:
    """Each attribute of ``obj`` named in ``hints`` is of that type (to its elements)."""
    for name, hint in hints.items():
        if not conforms(getattr(obj, name), hint):
            raise StateError(f"{where}.{name}: not a {_show(hint)}")


def _hand_hints() -> dict[str, Any]:

    opt_int, opt_str = int | None, str | None
    return {
        "number": int, "game": str, "hole_cards": int, "seats": tuple[int, ...], "button": int,
        "started": float, "order": list[int], "positions": Positions, "zones": dict[str, list[str]],
        "where": dict[str, str], "labels": dict[str, str], "on_table": set[str], "hole_dealt": int,
        "dealt_to": dict[int, int], "deal_index": dict[str, int], "first_seat": dict[str, int],
        "arrivals": list[int], "arrival_ts": list[float], "now": float,
        "exposure_waiting": tuple[str, float] | None, "deferred": tuple[Any, float] | None,
        "last_hole": opt_str, "last_card": opt_str, "deal_over": bool, "deal_counted": bool, "closed_by": opt_str,
        "misdeal": bool,
        "exposed": int, "boxed": int, "allowance": dict[int, int], "exposed_from": dict[int, int],
        "exposure_candidate": opt_str, "exposure_resolved": bool,
        "expected_burn": tuple[str | None, str] | None, "owed": dict[int, int], "dealt_button": opt_int,
        "absent": set[int], "penalty": set[int], "waiting": set[int], "redeal_of": opt_int,
        "new_seats": set[int], "board": BoardState, "pot_pushed": bool,
        "left": dict[str, tuple[str, float]], "off": dict[str, str], "deck": opt_str, "kind": str,
        "notes": list[str], "alerts": list[Alert], "prompts": list[Prompt], "flagged": set[tuple[str, str]],
        "dealer": opt_str, "shown": dict[str, list[str]] | None, "discards": dict[str, int], "draw_checked": int,
        "draw_rebuilt": int, "all_in": set[int], "reserve": set[str],
    }


def _table_hints() -> dict[str, Any]:

    return {
        "registry": DeckRegistry, "rack": DeckRack, "stub": StubCounts, "seats": tuple[int, ...],
        "_next_button": int | None, "waiting": set[int], "_posted": set[int], "absent": set[int],
        "penalty": dict[int, int], "_deferred": list[ButtonPress], "_highcard": bool, "_taps_seen": bool,
        "hands_finished": int, "last_record": dict[str, Any] | None, "devices_offline": set[str],
        "_pending_alerts": list[Alert], "_figures_key": tuple[Any, ...] | None,
        "_offline_since": dict[str, list[Any]], "_retired_tags": dict[str, TagInfo],
        "_last_report": tuple[str, int, tuple[str, ...] | None] | None,
        "dealer": str | None, "_next_dealer": str | None, "missed_bb": set[int], "missed_sb": set[int],
        "_buyer": int | None, "_pending_prompts": list[Prompt],
        "mode": str | None, "_race_allin": list[int], "open_seats": list[int], "_seat_notices": dict[int, int],
        "_hold_released": bool,
        "game": str, "_rotation_at": int, "_game_hands": int, "_game_buttons": set[int], "_all_in_next": set[int],
    }


_TRACKER_HINTS: dict[str, Any] = {
    "confirm_cycles": int, "gone_cycles": int, "strong_rssi": int, "_home": dict[str, str],
    "_home_ant": dict[str, int], "_home_pairs": set[tuple[str, int]], "_absent": dict[str, int],
    "_cands": dict[str, tuple[str, int, int, int]], "_since": dict[str, int],
    "_twins": dict[str, tuple[int, int]], "clones": list[tuple[str, tuple[str, str]]],
}


def check_tracker(tr: Any, where: str = "state.table.tracker") -> None:
    """The tracker's maps agree with one another: every tag at home has its antenna and its
    pair, the unheard and the evidence are of tags it knows (tablectl.core.tracker)."""
    _typed(tr, {k: v for k, v in _TRACKER_HINTS.items() if hasattr(tr, k)}, where)
    for a in tr._home_ant.values():
        if not 1 <= a <= 16:
            raise StateError(f"{where}._home_ant: antenna {a!r}, want 1 to 16")
    home = tr._home
    if tr._home_ant.keys() != home.keys() or tr._home_pairs != set(tr._home_ant.items()):
        raise StateError(f"{where}: its tags at home, their antennas and their pairs disagree")
    if not tr._absent.keys() <= home.keys():
        raise StateError(f"{where}._absent: a tag unheard that is not on the table")


def check_hand(hand: Any, where: str) -> None:

    _typed(hand, {k: v for k, v in _hand_hints().items() if hasattr(hand, k)}, where)

    if type(hand.number) is not int or hand.number < 1:
        raise StateError(f"{where}.number: {hand.number!r}, want 1 or more")
    # (Chinese poker, two players: two hands of 13 each, CHIN-002)
    if hand.game not in GAMES or hand.hole_cards not in (GAMES[hand.game],
                                                         2 * GAMES[hand.game] if hand.game == "chinese" else -1):
        raise StateError(f"{where}.game: {hand.game!r} with {hand.hole_cards!r} hole cards")
    if not hand.seats or any(type(s) is not int or not 1 <= s <= 10 for s in hand.seats):
        raise StateError(f"{where}.seats: {hand.seats!r}, want seats 1 to 10")
    if hand.kind not in ("hand", "highcard", "race", "table_break"):
        raise StateError(f"{where}.kind: {hand.kind!r}")
    _dealer(hand.dealer, f"{where}.dealer")
    for z, uids in hand.zones.items():
        if z not in ALL_ZONES or type(uids) is not list or not all(type(u) is str for u in uids):
            raise StateError(f"{where}.zones: {z!r} is no zone of cards")
    for uid, z in hand.where.items():
        if z not in ALL_ZONES or uid not in hand.zones.get(z, ()) or uid not in hand.labels:
            raise StateError(f"{where}.where: a card in {z!r} that the zones do not hold")
    # (a draw game deals a card again from a rebuilt stub, DRAW-005: up to 30 cards a round)
    if len(hand.where) > 2 * 52 or not 0 <= hand.hole_dealt <= 3 * 52:
        raise StateError(f"{where}: {len(hand.where)} cards out, {hand.hole_dealt} dealt: more than a deck")
    for name in ("absent", "penalty", "waiting", "new_seats", "all_in"):
        if any(not 1 <= x <= 10 for x in getattr(hand, name)):
            raise StateError(f"{where}.{name}: a seat that is not 1 to 10")
    for name in ("dealt_to", "allowance", "exposed_from", "owed"):
        for s, n in getattr(hand, name).items():
            if type(s) is not int or type(n) is not int or n < 0:
                raise StateError(f"{where}.{name}: {s!r}: {n!r}")
    if hand.shown is not None and any(z not in ALL_ZONES or not (z.startswith("seat:") or z == "board")
                                      for z in hand.shown):
        raise StateError(f"{where}.shown: a zone that is neither a seat nor the board")
    b = hand.board
    if type(b.runs) is not int or not 1 <= b.runs <= 3 or type(b.runs_dealt) is not int \
            or not 1 <= b.runs_dealt <= b.runs or type(b.run_from) is not int or not 0 <= b.run_from <= 2:
        raise StateError(f"{where}.board: runs {b.runs!r}, {b.runs_dealt!r} dealt, from street {b.run_from!r}: "
                         f"want 1 to 3 runs from street 0 to 2")
