"""A tournament's structure file (TOML): its levels in order, with their durations, blinds,
antes and game (for a mixed event), and the breaks among them (docs/floor.md, "Running a
tournament"; an example: docs/structure-example.toml).

::

    [[levels]]
    minutes = 20
    small_blind = 25
    big_blind = 50

    [[levels]]
    kind = "break"
    minutes = 10

Checked as every configuration is (controller/config/schema.py): each key declared once with its
type and bounds, an unknown key refused, and a bad value refused in one line naming the file,
the level (counted from 1, as the file writes them) and the key:

>>> parse_structure_text('[[levels]]\\nminutes = 20\\nsmall_blind = 25\\nbig_blind = 0\\n', src="s.toml")
Traceback (most recent call last):
...
controller.config.schema.ConfigError: s.toml: levels[1].big_blind: want a whole number from 1 to 1000000000000
chips, got 0

The levels are numbered as the players know them: the play levels 1, 2, 3...; a break carries
the number of the level after it (the break before level 5 is "break, level 5 next"), so a
structure ends with a level (the last one lasts until the tournament ends):

>>> s = parse_structure_text('[[levels]]\\nminutes = 20\\nsmall_blind = 25\\nbig_blind = 50\\n'
...                          '[[levels]]\\nkind = "break"\\nminutes = 10\\n'
...                          '[[levels]]\\nminutes = 20\\nsmall_blind = 50\\nbig_blind = 100\\nante = 10\\n',
...                          src="s.toml")
>>> [(x.kind, x.n, x.seconds, x.big_blind) for x in s.steps]
[('level', 1, 1200.0, 50), ('break', 2, 600.0, None), ('level', 2, 1200.0, 100)]
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config.schema import Bound, ConfigError, File, Key, Refused, Section, check, show_value
from controller.core.events import LEVEL_KINDS
from controller.core.settings import GAMES

#: the structure file: a number out of range is refused ``levels[3].big_blind: want ..., got 0``
STRUCTURE_TOML = File("structure.toml", number_errors="want")
#: the most steps (levels and breaks) a structure has (the signal's level number is at most 1000)
MAX_STEPS = 1000
#: the most chips a blind or an ante is (the signal's bound)
MAX_CHIPS = 10**12
#: a structure file larger than this is not read (a real one is a few KiB)
MAX_BYTES = 1024 * 1024

CHIPS = Bound(0, MAX_CHIPS, "chips", whole=True, why="up to a trillion: any tournament's chips")
LEVEL = Section("levels", (
    Key("kind", "level", choices=LEVEL_KINDS, doc='"level" (play) or "break" (the players\' break)'),
    Key("minutes", None, required=True, bound=Bound(1, 600, "minutes", why="a minute to ten hours"),
        doc="how long it lasts (fractions taken: 7.5)"),
    Key("small_blind", None, bound=CHIPS, shown="(required on a level)", doc="a level's small blind (none on a break)"),
    Key("big_blind", None, bound=Bound(1, MAX_CHIPS, "chips", whole=True, why="at least one chip"),
        shown="(required on a level)",
        doc="a level's big blind, at least the small blind (none on a break)"),
    Key("ante", 0, bound=CHIPS, doc="a level's ante (none on a break)"),
    Key("game", None, kind=(str,), choices=tuple(GAMES), wrong="want a game the tables deal ({choices}), got {value}",
        doc="a mixed event's game for the level; none: the table's own"),
), file=STRUCTURE_TOML, array=True, doc="a tournament's structure file ([floor.tournaments.NAME] structure): "
                                        "each [[levels]] a level or a break, in order")
#: the structure file's sections, in the docs' order
SECTIONS = (LEVEL,)
#: what a break may say
BREAK_KEYS = frozenset({"kind", "minutes"})


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the structure: a level (``kind`` "level", its blinds, ante and game) or a
    break; ``n``: the level's number (a break: the number of the level after it)."""

    kind: str
    n: int
    minutes: float
    small_blind: int | None = None
    big_blind: int | None = None
    ante: int | None = None
    game: str | None = None

    @property
    def seconds(self) -> float:
        return self.minutes * 60.0


@dataclass(frozen=True, slots=True)
class Structure:
    """A structure, checked: its steps in order (at least one level; the last a level)."""

    steps: tuple[Step, ...]
    #: the file it was read from
    src: str = ""


def _err(src: str, where: str, what: str) -> ConfigError:
    return ConfigError(f"{src}: {where}: {what}")


def _level(src: str, i: int, data: object) -> dict[str, Any]:
    """The ``i``-th ``[[levels]]`` (from 1), key by key against :data:`LEVEL`."""
    where = f"levels[{i}]"
    if not isinstance(data, dict):
        raise _err(src, where, "want a table ([[levels]])")
    out: dict[str, Any] = {}
    for key in LEVEL.keys:
        if key.name not in data:
            if key.required:
                raise _err(src, f"{where}.{key.name}", "missing")
            out[key.name] = key.default
            continue
        value = data[key.name]
        try:
            out[key.name] = check(key, LEVEL.bound(key), value)
        except Refused as refused:
            what = refused.what if refused.bound is None else f"want {refused.bound.what()}, got {show_value(value)}"
            raise _err(src, f"{where}.{key.name}", what) from None
    unknown = sorted(set(data) - {k.name for k in LEVEL.keys})
    if unknown:
        raise _err(src, f"{where}.{unknown[0][:40]}", "unknown key (see docs/configuration.md)")
    if out["kind"] == "break":
        given = sorted(set(data) - BREAK_KEYS)
        if given:
            raise _err(src, f"{where}.{given[0]}", "a break has no blinds, ante or game")
        return out
    for blind in ("small_blind", "big_blind"):
        if blind not in data:
            raise _err(src, f"{where}.{blind}", "missing: a level has its blinds")
    if out["small_blind"] > out["big_blind"]:
        raise _err(src, f"{where}.small_blind", f"over the big blind ({out['big_blind']})")
    return out


def parse_structure(doc: dict[str, Any], *, src: str) -> Structure:
    """The structure the parsed TOML document ``doc`` of the file ``src`` gives."""
    unknown = sorted(set(doc) - {"levels"})
    if unknown:
        raise _err(src, unknown[0][:40], "unknown key (see docs/configuration.md: a structure is [[levels]])")
    raw = doc.get("levels")
    if not isinstance(raw, list) or not raw:
        raise _err(src, "levels", "want at least one [[levels]]")
    if len(raw) > MAX_STEPS:
        raise _err(src, "levels", f"want at most {MAX_STEPS} [[levels]], got {len(raw)}")
    read = [_level(src, i, d) for i, d in enumerate(raw, start=1)]
    if read[-1]["kind"] == "break":
        raise _err(src, f"levels[{len(read)}]", "the last is a level, not a break (it lasts until the tournament ends)")
    steps = []
    n = 1
    for lv in read:
        if lv["kind"] == "break":
            steps.append(Step("break", n, lv["minutes"]))
            continue
        steps.append(Step("level", n, lv["minutes"], lv["small_blind"], lv["big_blind"], lv["ante"], lv["game"]))
        n += 1
    return Structure(tuple(steps), src)


def parse_structure_text(text: str, *, src: str) -> Structure:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{src}: not valid TOML: {exc}") from None
    return parse_structure(doc, src=src)


def load_structure(path: Path) -> Structure:
    """Read and check the structure file ``path``."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_BYTES + 1)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_BYTES:
        raise ConfigError(f"{path}: over {MAX_BYTES // 1024} KiB: not a structure file")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text") from None
    return parse_structure_text(text, src=str(path))
