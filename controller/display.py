"""The dealer's display, pure: what the screen says for a console state, per layout.

The prompt model (:mod:`controller.prompts`) picks one prompt at a time; this module words it
for a small screen from the table in ``display_text.toml`` (data: a row per dealer code, with
placeholders) and a layout per device (``lcd16x2``, ``lcd20x4``, ``oled128x64``). No bus, no
library here: ``firmware_bridge.display`` puts the lines on the glass.

What the players must not see: the lines come from the table and the placeholders only, never
from a prompt's message; no placeholder can hold a card (seats, counts, the hand number), so
nothing drawn names a hole card, a burn, a mucked card or a deck fault's detail.

>>> from controller.prompts import ConsoleState
>>> s = ConsoleState(code="stub.count_due", prompt_seat=None, hand=12, seat=None, between=False,
...                  figures=(("players", 9), ("out", 26), ("stub", 26), ("burns", 3), ("board", 5),
...                           ("hole", 18)))
>>> render(s, "lcd16x2")
['COUNT THE STUB', 'stub must be 26']
>>> render(s, "lcd20x4")
['COUNT THE STUB', 'stub must be 26', '18+3+5=26 out', 'hand 12']
>>> render(ConsoleState(seat=4, hand=12, between=True), "lcd16x2")
['ready', 'first card s4']
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

from controller.prompts import ConsoleState

#: the layouts, by name (docs/console.md, "The display")
LAYOUTS = ("lcd16x2", "lcd20x4", "oled128x64")
#: every placeholder a row may use, at its widest (the fit test and ``tablectl display --preview``)
WIDEST: dict[str, int] = {"seat": 10, "next": 10, "hand": 99999, "players": 10, "out": 999, "stub": 999,
                          "burns": 999, "board": 999, "hole": 999, "waiting": 99}
#: the parts of a row, and of the lines every prompt shares
ROW_PARTS = ("title", "action", "detail")
_CARD = re.compile(r"\b(?:10|[2-9TJQKA])[shdc]\b")


@dataclass(frozen=True, slots=True)
class Layout:
    """A screen as a grid of characters: ``cols`` wide, ``rows`` high, and which part of the
    prompt each row shows (``title``, ``action``, ``detail``, ``more``, ``status``)."""

    name: str
    cols: int
    rows: int
    lines: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TextTable:
    """``display_text.toml``, read: the layouts, the shared lines, the quiet screens and a row
    (title, action, detail) per code."""

    layouts: dict[str, Layout]
    common: dict[str, str]
    quiet: dict[str, dict[str, str]]
    prompts: dict[str, dict[str, str]]


class DisplayTextError(ValueError):
    """The text table is malformed: names the row and the part."""


def placeholders(template: str) -> set[str]:
    """The names a template uses.

    >>> sorted(placeholders("{hole}+{burns}={out} out"))
    ['burns', 'hole', 'out']
    """
    return {f for _, f, _, _ in string.Formatter().parse(template) if f}


def parse_table(doc: dict[str, Any], *, source: str = "display_text.toml") -> TextTable:
    """Check and read the table: every layout row a known part, every row the three parts, every
    placeholder a known one."""
    layouts = {}
    for name, d in doc.get("layouts", {}).items():
        lines = tuple(d["lines"])
        if len(lines) != d["rows"] or not set(lines) <= {*ROW_PARTS, "more", "status"}:
            raise DisplayTextError(f"{source}: [layouts.{name}]: lines must be {d['rows']} of "
                                   f"{ROW_PARTS + ('more', 'status')}")
        layouts[name] = Layout(name, int(d["cols"]), int(d["rows"]), lines)
    prompts: dict[str, dict[str, str]] = {}
    quiet: dict[str, dict[str, str]] = {}
    for kind, into in (("prompt", prompts), ("quiet", quiet)):
        for code, row in doc.get(kind, {}).items():
            if set(row) != set(ROW_PARTS):
                raise DisplayTextError(f"{source}: [{kind}.\"{code}\"]: wants exactly {ROW_PARTS}")
            into[code] = {k: str(v) for k, v in row.items()}
    common = {k: str(v) for k, v in doc.get("common", {}).items()}
    for where, text in [(f"{c}.{k}", t) for c, r in prompts.items() for k, t in r.items()] + \
            [(f"quiet.{c}.{k}", t) for c, r in quiet.items() for k, t in r.items()] + list(common.items()):
        unknown = placeholders(text) - set(WIDEST)
        if unknown:
            raise DisplayTextError(f"{source}: {where}: unknown placeholder {sorted(unknown)}")
    return TextTable(layouts, common, quiet, prompts)


@lru_cache(maxsize=1)
def text_table() -> TextTable:
    """The table shipped with the package."""
    raw = resources.files("controller").joinpath("display_text.toml").read_text(encoding="utf-8")
    return parse_table(tomllib.loads(raw))


def _fill(template: str, values: dict[str, int | None]) -> str:
    """The template with its values; blank if one it needs has none."""
    names = placeholders(template)
    if any(values.get(n) is None for n in names):
        return ""
    return template.format(**{n: values[n] for n in names})


def values_of(state: ConsoleState) -> dict[str, int | None]:
    """The placeholders' values for a state: seats, the hand, the public counts."""
    v: dict[str, int | None] = {"seat": state.prompt_seat, "next": state.seat, "hand": state.hand,
                                "waiting": state.waiting - 1 if state.waiting > 1 else None}
    v.update(dict(state.figures))
    return v


def lines_for(code: str | None, values: dict[str, int | None], layout: str, *, between: bool = False,
              table: TextTable | None = None) -> list[str]:
    """The lines of ``layout`` for ``code`` (None: a quiet screen, ``between`` hands or while
    dealing), not cut to the width (the fit test checks them whole). A code of no row shows
    only its family, in words the table cannot have missed (``deal``...): the fit test makes
    sure no code the core raises falls here."""
    t = table or text_table()
    lay = t.layouts[layout]
    if code is None:
        row = t.quiet["between" if between else "dealing"]
    else:
        row = t.prompts.get(code) or {"title": code.split(".", 1)[0].upper(), "action": "see the floor",
                                      "detail": ""}
    status = _fill(t.common.get("status", ""), values) or _fill(t.common.get("status_hand", ""), values)
    parts = {"title": _fill(row["title"], values), "action": _fill(row["action"], values),
             "detail": _fill(row["detail"], values), "more": _fill(t.common.get("more", ""), values),
             "status": status if code is not None else ""}
    return [parts[p] for p in lay.lines]


def render(state: ConsoleState, layout: str, *, table: TextTable | None = None) -> list[str]:
    """What the screen of ``layout`` shows for ``state``: one string per row, each at most the
    layout's width (a value wider than the table was checked for is cut, never wrapped)."""
    t = table or text_table()
    cols = t.layouts[layout].cols
    lines = lines_for(state.code, values_of(state), layout, between=state.between, table=t)
    return [line[:cols] for line in lines]


def names_a_card(line: str) -> bool:
    """Whether a line names a card (``As``, ``10h``): the secrets check's test.

    >>> names_a_card("seat 4 short"), names_a_card("As on the board")
    (False, True)
    """
    return bool(_CARD.search(line))
