"""The table's state as plain data: what a journal snapshot holds, versioned, never a pickle.

:meth:`controller.core.table.Table.to_state` turns the table and everything it holds (the hand, the
tracker, the decks and their registry, positions, stub counts, device health...) into a dict of
JSON values; :meth:`controller.core.table.Table.from_state` builds the table back from one, after
checking every value. A state can only ever make objects of the classes in :data:`CLASSES`
(the core's own, by a short name), and only with fields those classes have: reading a state
calls no code it names, so a journal restored from anywhere cannot run anything.

Encoding (docs/journal.md): ``None``, ``bool``, ``int``, ``float`` (finite), ``str`` and
``list`` are themselves; every other value is a one-key object naming its kind:
``{"t": [...]}`` a tuple, ``{"s": [...]}`` a set, ``{"fs": [...]}`` a frozenset,
``{"d": {...}}`` a dict with string keys, ``{"dk": [[k, v], ...]}`` any other dict,
``{"o": "Hand", "v": {field: value}}`` an object of the core.

>>> from controller.core.positions import Positions
>>> encode({"x": (1, 2), 3: {"a"}})
{'dk': [['x', {'t': [1, 2]}], [3, {'s': ['a']}]]}
>>> decode(encode(Positions(3, 4, 5)))
Positions(button=3, sb=4, bb=5)
>>> decode({"o": "os.system", "v": {}})
Traceback (most recent call last):
...
controller.core.errors.StateError: state: 'os.system' is not a class of the table's state
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable
from typing import Any
from controller.core.errors import StateError as StateError  # (the state's error, raised by the registry too)
from controller.core import deck_rack, effects, events, hand, positions, registry, rules, tracker
from controller.core.hand import Hand
from controller.core.families.flop import board
from controller.core.rules import stub
from controller.core.tracker import Tracker

#: The version of the state written by this release. A change to what the state holds bumps
#: it, and :func:`migrate` learns to bring the previous version's states up to it.

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
    if data is None or t is bool or t is str or t is int or t is float:
        return _scalar(data, where)
    if t is list:
        return [decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(data)]
    if t is not dict or len(data) not in (1, 2):
        raise StateError(f"{where}: {_kind(data)} is not a state value")
    if len(data) == 2:
        if set(data) != {"o", "v"}:
            raise StateError(f"{where}: an object with keys {sorted(data)}; want o and v")
        return _object(data["o"], data["v"], where, depth)
    (tag, body), = data.items()
    kind = _KINDS.get(tag)
    if kind is None:
        raise StateError(f"{where}: unknown kind {tag!r}")
    return kind(tag, body, where, depth)


def _scalar(data: Any, where: str) -> Any:
    """None, a bool, a string, an int or a float, within the state's bounds."""
    t = type(data)
    if t is str and len(data) > MAX_STR:
        raise StateError(f"{where}: a string of {len(data)} characters (at most {MAX_STR})")
    if t is int and not -MAX_INT <= data <= MAX_INT:
        raise StateError(f"{where}: {data} is out of range")
    if t is float and not math.isfinite(data):
        raise StateError(f"{where}: {data!r} is not a finite number")
    return data


def _collection(tag: str, body: Any, where: str, depth: int) -> Any:
    """``{"t": [...]}``, ``{"s": [...]}``, ``{"fs": [...]}``: a tuple, a set, a frozenset."""
    if type(body) is not list:
        raise StateError(f"{where}: {tag!r} holds {_kind(body)}, not a list")
    items = [decode(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(body)]
    try:
        return tuple(items) if tag == "t" else set(items) if tag == "s" else frozenset(items)
    except TypeError as exc:  # a list in a set
        raise StateError(f"{where}: {exc}") from exc


def _named_dict(tag: str, body: Any, where: str, depth: int) -> dict[str, Any]:
    """``{"d": {...}}``: a dict with string keys."""
    if type(body) is not dict:
        raise StateError(f"{where}: 'd' holds {_kind(body)}, not an object")
    # (paths name a dict's entries by place, never by key: keys are UIDs, and paths are logged)
    return {k: decode(v, f"{where}[{i}]", depth + 1) for i, (k, v) in enumerate(body.items())}


def _keyed_dict(tag: str, body: Any, where: str, depth: int) -> dict[Any, Any]:
    """``{"dk": [[key, value], ...]}``: a dict with keys of any kind."""
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


#: a one-key object's kind -> how to read it
_KINDS: dict[str, Callable[[str, Any, str, int], Any]] = {
    "t": _collection, "s": _collection, "fs": _collection, "d": _named_dict, "dk": _keyed_dict}


def _kind(x: Any) -> str:
    """What ``x`` is, never its value (a state holds UIDs and cards; errors are logged)."""
    names: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}
    return names.get(type(x), type(x).__name__)


def check_fields(obj: Any, where: str) -> None:
    """The fields of a dataclass of the core (an event read from a journal, say) are of the
    types it declares; raises :class:`StateError` naming the field.

    >>> from controller.core.events import ButtonPress
    >>> check_fields(ButtonPress(1.0, "sa", long="false"), "event #7")
    Traceback (most recent call last):
    ...
    controller.core.errors.StateError: event #7.long: a string is not a bool
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
    want = template if type(template) is dict else fields_of(template)
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
    if origin is None:
        return _conforms_plain(value, hint)
    return _conforms_generic(value, origin, typing.get_args(hint))


def _conforms_plain(value: Any, hint: Any) -> bool:
    """``value`` is of a class (not a generic)."""
    if hint is float:
        return type(value) in (float, int)
    if hint is int:
        return type(value) is int
    if isinstance(hint, type):
        return type(value) is hint
    return True  # a construct the core does not use: not judged here


def _conforms_generic(value: Any, origin: Any, args: tuple[Any, ...]) -> bool:
    """``value`` is of a generic: a union, a tuple, a list, a set or a dict, to its elements."""
    if origin in (typing.Union, types.UnionType):
        return any(conforms(value, a) for a in args)
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
