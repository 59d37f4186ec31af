"""The table as a state: ``{"version", "settings", "parts": {section: {"version", "state"}}}``,
each part of the table (controller/core/table/) writing its own fields as its section, and read
back by the same parts, every value checked (:mod:`controller.core.state.codec`,
:mod:`controller.core.state.checks`)."""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any

from controller.core.errors import StateError
from controller.core.part import PART_MIGRATIONS
from controller.core.registry import DeckRegistry
from controller.core.settings import keyed
from controller.core.state.checks import seat
from controller.core.state.codec import _kind, _show, conforms, decode, encode, expect
from controller.core.state.migrations import STATE_VERSION, migrate, migrate_section


# -- the table -------------------------------------------------------------------------------
class StateMismatch(StateError):
    """A sound state of a table configured otherwise (seats, zones, rules changed since)."""


def settings_key(settings: Any) -> str:
    """A short fingerprint of the table's configuration: a state is taken only under the same.
    It is the text of the settings as their repr writes it, less the fields marked out of it
    (:data:`controller.core.settings.UNKEYED`): the same text, and key, as before those existed.

    >>> from controller.core.settings import RuleSettings, TableSettings
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
    """``{"version", "settings", "parts"}``: each part's own fields, encoded, in its section."""
    return {"version": STATE_VERSION, "settings": settings_key(table.settings),
            "parts": {p.SECTION: {"version": p.VERSION, "state": {k: encode(v) for k, v in p.fields().items()}}
                      for p in table.parts()}}


def table_from_state(cls: Any, state: Any, settings: Any) -> Any:
    """The table ``state`` holds under ``settings``; every value checked (types and ranges)."""

    if type(state) is not dict:
        raise StateError(f"state: {_kind(state)}, not an object")
    state = migrate(state)
    if "table" in state and type(state["table"]) is dict:  # a field of version 12 that no part owns
        raise StateError(f"state.table: unknown {', '.join(sorted(state['table']))}")
    unknown = sorted(set(state) - {"version", "settings", "parts"})
    if unknown:
        raise StateError(f"state: unknown keys {', '.join(unknown)}")
    if state.get("settings") != settings_key(settings):
        raise StateMismatch("state: the table's configuration changed since it was written")
    sections = state.get("parts")
    if type(sections) is not dict:
        raise StateError("state.parts: missing, or not an object")
    kinds = {part.SECTION: part for part in cls.PARTS}
    missing, extra = sorted(kinds.keys() - sections.keys()), sorted(sections.keys() - kinds.keys())
    if missing or extra:
        raise StateError("state.parts: " + "; ".join((["missing " + ", ".join(missing)] if missing else []) +
                                                       (["unknown " + ", ".join(extra)] if extra else [])))
    # (an error names a field as the table's, "state.table.dealer": the parts' fields have names
    # of their own across the table, as when it was one object, and the messages stay the same)
    values: dict[str, dict[str, Any]] = {}
    for name, part in kinds.items():
        fields = migrate_section(name, sections[name], PART_MIGRATIONS, part.VERSION, f"state.parts.{name}")
        values[name] = {k: decode(v, f"state.table.{k}") for k, v in fields.items()}
    registry = values["decks"].get("registry")
    if type(registry) is not DeckRegistry:
        raise StateError("state.table.registry: missing, or not a DeckRegistry")
    table = cls(settings, registry)
    for part in table.parts():
        _read_part(part, values[part.SECTION], "state.table")
    table.linked_again()
    for part in table.parts():
        part.check("state.table")
    return table


def _read_part(part: Any, values: dict[str, Any], where: str) -> None:
    """A part's fields from its section: exactly its own, each of its type."""
    expect(values, part.fields(), where, nullable=part.NULLABLE)
    values = part.read_defaults(values)
    for name, hint in part.HINTS.items():
        if not conforms(values[name], hint):
            v = values[name]
            raise StateError(f"{where}.{name}: {_kind(v) if v is not None else 'null'}, not a {_show(hint)}")
    for name in part.SEATS:
        v = values[name]
        for s in ((v,) if type(v) is int else () if v is None else v):  # (a dict: its keys)
            seat(f"{where}.{name}", s)
    for k, v in values.items():
        setattr(part, k, v)
