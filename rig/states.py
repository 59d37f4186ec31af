"""Where a field of the table lies in a saved state, for the tests that spoil one on purpose.

Up to version 12 a state kept the table's fields in one object (``state["table"]``); from version
13 each part of the table keeps its own in its section (``state["parts"][section]["state"]``).
The tests name a field as the table's (``hands_finished``) whatever the version.
"""

from __future__ import annotations

from typing import Any


def field_home(state: dict[str, Any], name: str) -> dict[str, Any]:
    """The object of ``state`` that holds the table's field ``name`` (KeyError if none does)."""
    if "parts" not in state:
        return state["table"]  # type: ignore[no-any-return]
    for section in state["parts"].values():
        if name in section["state"]:
            return section["state"]  # type: ignore[no-any-return]
    raise KeyError(name)
