"""JSON as the room's messages must be: no NaN or Infinity (no table sends them and no browser
can parse them back) and no key given twice (what is checked is then what is kept). The floor's
ingest and the tables' tournament signal read through these; the control socket has its own,
whose errors name the field for the technician."""

from __future__ import annotations

import json
from typing import Any


def no_constant(name: str) -> Any:
    """``json.loads``'s ``parse_constant``: NaN and Infinity refused."""
    raise ValueError(f"{name} is not JSON")


def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: an object without a key given twice."""
    out = dict(pairs)
    if len(out) != len(pairs):
        raise ValueError("a key given twice")
    return out


def loads(text: str | bytes) -> Any:
    """``text`` as JSON, strictly (ValueError otherwise).

    >>> loads('{"a": 1}')
    {'a': 1}
    >>> loads('{"a": 1, "a": 2}')
    Traceback (most recent call last):
    ...
    ValueError: a key given twice
    """
    return json.loads(text, parse_constant=no_constant, object_pairs_hook=no_duplicates)
