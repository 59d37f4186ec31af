"""The dealer's display, pure: what the screen says for a console state, per layout.

The prompt model (:mod:`controller.core.prompts`) picks one prompt at a time; this module words it
for a small screen from the table in ``display_text.toml`` (data: a row per dealer code, with
placeholders) and a layout per device (``lcd16x2``, ``lcd20x4``, ``oled128x64``). No bus, no
library here: ``firmware_bridge.display`` puts the lines on the glass.

What the players must not see: the lines come from the table and the placeholders only, never
from a prompt's message; no placeholder can hold a card (seats, counts, the hand number), so
nothing drawn names a hole card, a burn, a mucked card or a deck fault's detail.

>>> from controller.core.prompts import ConsoleState
>>> s = ConsoleState(code="stub.count_due", prompt_seat=None, hand=12, seat=None, between=False,
...                  figures=(("players", 9), ("out", 26), ("stub", 26), ("burns", 3), ("board", 5),
...                           ("hole", 18)))
>>> render(s, "lcd16x2")
['COUNT THE STUB', 'stub must be 26']
>>> render(s, "lcd20x4")
['COUNT THE STUB', 'stub must be 26', '18+3+5=26 out', 'hand 12']
>>> render(ConsoleState(seat=4, hand=12, between=True), "lcd16x2")
['ready', 'first card s4']

A part may give alternatives, the first that can be said is shown: ``seat 4 short 1`` with the
count, ``seat 4 short`` without (an alert from before counts were kept):

>>> short = ConsoleState(code="misdeal.seat_short", prompt_seat=4, prompt_count=1, between=False)
>>> render(short, "lcd16x2"), render(ConsoleState(code="misdeal.seat_short", prompt_seat=4), "lcd16x2")
(['seat 4 short 1', 'misdeal? hold'], ['seat 4 short', 'misdeal? hold'])
"""

from __future__ import annotations

import re
import string
import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from controller.core.prompts import ConsoleState

#: the layouts, by name (docs/console.md, "The display")
LAYOUTS = ("lcd16x2", "lcd20x4", "oled128x64")
#: every placeholder a row may use, at its widest (the fit test and ``tablectl display --preview``);
#: ``game``: a game's words from the table's ``[games]`` (MIXED-001), none wider than this
WIDEST: dict[str, int | str] = {"seat": 10, "next": 10, "hand": 99999, "players": 10, "out": 999, "stub": 999,
                                "burns": 999, "board": 999, "hole": 999, "waiting": 99, "count": 999,
                                "game": "2-7 triple draw"}
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
    (title, action, detail) per code. Each part of a row is its alternatives, in order (one,
    mostly; a list in the file gives several: see :func:`pick`)."""

    layouts: dict[str, Layout]
    common: dict[str, str]
    quiet: dict[str, dict[str, tuple[str, ...]]]
    prompts: dict[str, dict[str, tuple[str, ...]]]
    #: each game's words on a small screen (``[games]``: ``stud8 = "stud hi-lo"``), by its id
    games: dict[str, str] = field(default_factory=dict)


class DisplayTextError(ValueError):
    """The text table is malformed: names the row and the part."""


@lru_cache(maxsize=4096)
def placeholders(template: str) -> frozenset[str]:
    """The names a template uses. Cached: a screen is worded from the same few hundred templates
    (the text table's) again and again, and parsing one is most of filling it in.

    >>> sorted(placeholders("{hole}+{burns}={out} out"))
    ['burns', 'hole', 'out']
    """
    return frozenset(f for _, f, _, _ in string.Formatter().parse(template) if f)


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
    prompts: dict[str, dict[str, tuple[str, ...]]] = {}
    quiet: dict[str, dict[str, tuple[str, ...]]] = {}
    for kind, into in (("prompt", prompts), ("quiet", quiet)):
        for code, row in doc.get(kind, {}).items():
            if set(row) != set(ROW_PARTS):
                raise DisplayTextError(f"{source}: [{kind}.\"{code}\"]: wants exactly {ROW_PARTS}")
            into[code] = {}
            for k, v in row.items():
                alts = tuple(str(x) for x in v) if isinstance(v, list) else (str(v),)
                if not alts:
                    raise DisplayTextError(f"{source}: [{kind}.\"{code}\"] {k}: an empty list")
                into[code][k] = alts
    common = {k: str(v) for k, v in doc.get("common", {}).items()}
    for where, text in [(f"{c}.{k}", t) for c, r in prompts.items() for k, ts in r.items() for t in ts] + \
            [(f"quiet.{c}.{k}", t) for c, r in quiet.items() for k, ts in r.items() for t in ts] + \
            list(common.items()):
        unknown = placeholders(text) - set(WIDEST)
        if unknown:
            raise DisplayTextError(f"{source}: {where}: unknown placeholder {sorted(unknown)}")
    games = {str(k): str(v) for k, v in doc.get("games", {}).items()}
    return TextTable(layouts, common, quiet, prompts, games)


@lru_cache(maxsize=1)
def text_table() -> TextTable:
    """The table shipped with the package."""
    raw = resources.files("controller.core").joinpath("display_text.toml").read_text(encoding="utf-8")
    return parse_table(tomllib.loads(raw))


Values = dict[str, int | str | None]


def _fill(template: str, values: Values) -> str:
    """The template with its values; blank if one it needs has none."""
    names = placeholders(template)
    for n in names:  # (a loop, not any() over a generator: every part of every screen comes here)
        if values.get(n) is None:
            return ""
    return template.format(**{n: values[n] for n in names})


def pick(alternatives: tuple[str, ...], values: Values, cols: int) -> str:
    """The first alternative whose placeholders all have values and that fits ``cols``, else
    the first that can be said (too wide: the fit test fails on it), else blank.

    >>> pick(("seat {seat} short {count}", "s{seat} short {count}", "seat {seat} short"),
    ...      {"seat": 10, "count": 999}, 16)
    's10 short 999'
    >>> pick(("seat {seat} short {count}", "seat {seat} short"), {"seat": 4, "count": None}, 16)
    'seat 4 short'
    """
    first = ""  # (the alternatives filled one by one, up to the first that fits: most screens fit the first)
    for a in alternatives:
        t = _fill(a, values)
        if t:
            if len(t) <= cols:
                return t
            first = first or t
    return first


def values_of(state: ConsoleState, table: TextTable | None = None) -> Values:
    """The placeholders' values for a state: seats, the hand, the prompt's count, the public
    counts, the game the prompt names (its words in ``[games]``)."""
    game = state.prompt_game
    words = (table or text_table()).games.get(game, game) if game is not None else None
    v: Values = {"seat": state.prompt_seat, "next": state.seat, "hand": state.hand,
                 "count": state.prompt_count, "game": words,
                 "waiting": state.waiting - 1 if state.waiting > 1 else None}
    v.update(dict(state.figures))
    return v


def lines_for(code: str | None, values: Values, layout: str, *, between: bool = False,
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
        row = t.prompts.get(code) or {"title": (code.split(".", 1)[0].upper(),), "action": ("see the floor",),
                                      "detail": ("",)}
    status = _fill(t.common.get("status", ""), values) or _fill(t.common.get("status_hand", ""), values)
    parts = {"title": pick(row["title"], values, lay.cols), "action": pick(row["action"], values, lay.cols),
             "detail": pick(row["detail"], values, lay.cols), "more": _fill(t.common.get("more", ""), values),
             "status": status if code is not None else ""}
    return [parts[p] for p in lay.lines]


def render(state: ConsoleState, layout: str, *, table: TextTable | None = None) -> list[str]:
    """What the screen of ``layout`` shows for ``state``: one string per row, each at most the
    layout's width (a value wider than the table was checked for is cut, never wrapped)."""
    t = table or text_table()
    cols = t.layouts[layout].cols
    lines = lines_for(state.code, values_of(state, t), layout, between=state.between, table=t)
    return [line[:cols] for line in lines]


def names_a_card(line: str) -> bool:
    """Whether a line names a card (``As``, ``10h``): the secrets check's test.

    >>> names_a_card("seat 4 short"), names_a_card("As on the board")
    (False, True)
    """
    return bool(_CARD.search(line))
