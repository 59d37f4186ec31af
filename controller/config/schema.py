"""The configuration's schema: every key of a file declared once, with its type, bounds and default.

A section of a file is a :class:`Section` of :class:`Key` s. One validator (:func:`check`, through
:meth:`Section.read`) checks a section of the parsed TOML document against it, key by key, and
refuses an unknown key; the section's parser (``controller/config/daemon.py``, ``console.py``,
``display.py``, ``room.py``, ``floor.py``) then makes its settings out of the values and checks
what involves more than one key. The docs' tables of docs/configuration.md are written from the
same declarations (:func:`markdown_table`, :func:`bounds_table`; ``python -m
controller.config.reference``), and a test compares them. Pure Python: the standard library (and the
core's ``shorten``), nothing compiled.

Every refusal is one line naming the file, the section and the key:

>>> reader = Section("reader", (Key("port", "/dev/tablectl/reader"),
...                             Key("answer_timeout", 0.5, bound=Bound(0.05, 10, "s"))))
>>> values = reader.read("t.toml", {"answer_timeout": 2})
>>> values["port"], values["answer_timeout"]
('/dev/tablectl/reader', 2.0)
>>> reader.read("t.toml", {"answer_timeout": float("nan")})
Traceback (most recent call last):
...
controller.config.schema.ConfigError: t.toml: [reader] answer_timeout = nan: must be a finite number from 0.05 to 10 s
>>> reader.read("t.toml", {"port": 5})
Traceback (most recent call last):
...
controller.config.schema.ConfigError: t.toml: [reader] port: want a string, got 5
>>> reader.read("t.toml", {"speed": 3})
Traceback (most recent call last):
...
controller.config.schema.ConfigError: t.toml: [reader] speed: unknown key (see docs/configuration.md)
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any

from controller.core.text import shorten

#: where a refused unknown key sends the reader
DOCS = "docs/configuration.md"


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class Bound:
    """The range of one numeric key: ``lo`` to ``hi`` (both included) in ``unit``; ``whole``: an
    integer; ``choices``: only these values (a baud rate); ``each``: the key is a list of such
    numbers. ``why``: the docs' reason for the range (docs/configuration.md, "Numeric bounds")."""

    lo: float
    hi: float
    unit: str
    whole: bool = False
    choices: tuple[int, ...] = ()
    each: bool = False
    why: str = field(default="", compare=False)

    def what(self) -> str:
        """What a value must be, without the verb: ``a whole number from 1 to 20 reader cycles``."""
        if self.choices:
            return f"one of {', '.join(map(str, self.choices))} {self.unit}".rstrip()
        kind = "a whole number" if self.whole else "a finite number"
        return f"{kind} from {_num(self.lo)} to {_num(self.hi)} {self.unit}".rstrip()

    def rule(self) -> str:
        """What a value must be, as the error says it.

        >>> Bound(0.05, 10, "s").rule()
        'must be a finite number from 0.05 to 10 s'
        >>> Bound(1, 10, "(a seat number)", whole=True, each=True).rule()
        'each must be a whole number from 1 to 10 (a seat number)'
        """
        return f"{'each ' if self.each else ''}must be {self.what()}"

    def range(self) -> str:
        """The range as the docs' table writes it: ``1 to 20 (whole)``, ``0.05 to 10``, ``1, 2, 4``."""
        if self.choices:
            return ", ".join(map(str, self.choices))
        return f"{_num(self.lo)} to {_num(self.hi)}{' (whole)' if self.whole else ''}"

    def accepts(self, value: object) -> bool:
        """A TOML value in range: a bool is not a number, nan and the infinities are in no range,
        a whole-number key takes no fraction (not even ``3.0``)."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return False
        if isinstance(value, float) and (self.whole or not math.isfinite(value)):
            return False
        if self.choices:
            return value in self.choices
        return self.lo <= value <= self.hi  # (an int of any length compares exactly)


def _num(x: float) -> str:
    """A bound as a technician writes it: ``10``, ``0.05``, ``4294967294``."""
    return str(int(x)) if float(x).is_integer() else repr(x)


def show_value(value: object, limit: int = 40) -> str:
    """A TOML value quoted in an error, as it would be written, and never long.

    >>> show_value(float("nan")), show_value(True), show_value(-float("inf")), show_value("30")
    ('nan', 'true', '-inf', '"30"')
    >>> show_value(10 ** 300)
    '100000000000000000000... (301 digits)'
    >>> show_value([0, 11, "x"])
    '[0, 11, "x"]'
    """
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if value != value else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int):
        text = str(value)  # (tomllib refuses an integer too long for str() to give back)
        return text if len(text) <= max(limit, 24) else f"{text[:21]}... ({len(text.lstrip('-'))} digits)"
    if isinstance(value, str):
        text = '"' + value.encode("unicode_escape").decode("ascii").replace('"', '\\"') + '"'
        return text if len(text) <= limit else text[: limit - 4] + '..."'
    if isinstance(value, list):
        text = "[" + ", ".join(show_value(v, 12) for v in value[:limit // 2]) + "]"
        return text if len(text) <= limit else text[: limit - 4] + "...]"
    return "a table" if isinstance(value, dict) else type(value).__name__


def shown_key(key: str) -> str:
    """A key as written in an error: whole unless it is long (a typo of 5,000 characters)."""
    return key if len(key) <= 40 else f"{key[:32]}... ({len(key)} characters)"


#: how a refusal names each TOML type a key takes
KIND_NAMES = {str: "a string", bool: "true or false", list: "a list", dict: "a table"}


@dataclass(frozen=True)
class Key:
    """One key of a section: its name, default, the TOML types it takes and what it may be.

    - ``kind``: the types taken besides a number (``str``, ``bool``, ``list``, ``dict``); left
      out, the default's type (a number has a ``bound`` instead);
    - ``bound``: a number's range (numbers are taken only with one);
    - ``choices``: the words a string may be (``wrong`` says the refusal, with ``{value}`` and
      ``{choices}``); with a ``bound`` and no ``str`` in ``kind``: the words taken instead of a
      number (``change = "orbit"``);
    - ``want``: what a value of another type is refused for wanting (default: the types named);
    - ``refused``: numbers refused with a reason of their own, said before the range (FEIG's
      broadcast address, the HAT EEPROM's pins);
    - ``required``: no default; a file without the key is checked as if it gave ``default``;
    - ``shown``: the default as the docs say it, when it depends on another key;
    - ``doc``: the docs' note.

    The name ``*`` stands for every key of the section (a table of name = value).
    """

    name: str
    default: Any = None
    kind: tuple[type, ...] = ()
    bound: Bound | None = None
    choices: tuple[str, ...] = ()
    wrong: str = "want one of {choices}, got {value}"
    want: str = ""
    refused: tuple[tuple[int, str], ...] = ()
    required: bool = False
    shown: str = ""
    doc: str = ""

    def __post_init__(self) -> None:
        if not self.kind:
            if self.bound is not None:
                kind: tuple[type, ...] = (list,) if self.bound.each else ()
            elif isinstance(self.default, (str, bool, list, dict)):
                kind = (type(self.default),)
            else:
                raise TypeError(f"{self.name}: say the key's kind (a number needs a Bound)")
            object.__setattr__(self, "kind", kind)
        if any(k in (int, float) for k in self.kind):
            raise TypeError(f"{self.name}: a number is taken only with a Bound, not as a kind")

    def wanted(self) -> str:
        """What a value must be, as a refusal of the wrong type says it."""
        return self.want or " or ".join(KIND_NAMES.get(k, k.__name__) for k in self.kind)


class Refused(Exception):
    """A value :func:`check` refuses: ``what`` is wrong with it; ``bound``: it is a number out of
    that range (said ``key = value: must be ...``)."""

    def __init__(self, what: str = "", bound: Bound | None = None) -> None:
        super().__init__(what or (bound.rule() if bound else ""))
        self.what, self.bound = what, bound


def check(key: Key, bound: Bound | None, value: object) -> Any:
    """The validator: ``value`` of ``key`` as it is read (a number that is not whole as a float),
    or :class:`Refused`. ``bound``: the key's range, as its file's index has it.

    >>> hands = Bound(1, 100, "hands", whole=True)
    >>> change = Key("change", "orbit", bound=hands, choices=("orbit",))
    >>> check(change, hands, 3), check(change, hands, "orbit")
    (3, 'orbit')
    >>> check(change, hands, "weekly")
    Traceback (most recent call last):
    ...
    controller.config.schema.Refused: must be a whole number from 1 to 100 hands
    >>> check(Key("pad", "auto", kind=(bool, str), choices=("auto",)), None, 1)
    Traceback (most recent call last):
    ...
    controller.config.schema.Refused: want true or false or a string, got 1
    """
    if isinstance(value, str) and (str in key.kind or value in key.choices):
        return _word(key, value)
    if bound is not None and not bound.each:
        return _number(key, bound, value)
    if not isinstance(value, key.kind):
        raise Refused(f"want {key.wanted()}, got {show_value(value)}")
    if bound is not None and isinstance(value, list) and not all(bound.accepts(v) for v in value):  # (each)
        raise Refused(bound=bound)
    return value


def _word(key: Key, value: str) -> str:
    if key.choices and value not in key.choices:
        raise Refused(key.wrong.format(value=shorten(value), choices=", ".join(key.choices)))
    return value


def _number(key: Key, bound: Bound, value: object) -> Any:
    reason = dict(key.refused).get(value) if type(value) is int else None
    if reason is not None:
        raise Refused(reason)
    if not bound.accepts(value):
        raise Refused(bound=bound)
    return value if bound.whole else float(value)  # type: ignore[arg-type]


@dataclass(eq=False)
class File:
    """One configuration file's schema: the index of its numeric keys (``section.key``, or
    ``section.*`` for every key of a section -> :class:`Bound`), which its sections fill as they
    are declared and read every number through; and how a number out of range is refused:
    ``assign`` (``[s] key = value: must be ...``) or ``want`` (``[s] key: want ..., got value``)."""

    name: str
    number_errors: str = "assign"
    bounds: dict[str, Bound] = field(default_factory=dict)

    def bound_of(self, section: str, key: str) -> Bound:
        """The bounds of ``[section] key``; LookupError for a key that has none (a bug)."""
        for name in (f"{section}.{key}", f"{section}.*"):
            if name in self.bounds:
                return self.bounds[name]
        raise LookupError(f"[{section}] {key}: a numeric key without bounds (in the schema of {self.name}, "
                          f"and so in {DOCS})")


#: the daemon's file, tablectl.toml: its sections are declared by controller/config/daemon.py,
#: console.py, display.py and room.py
TABLECTL_TOML = File("tablectl.toml")


@dataclass(frozen=True)
class Section:
    """One table of a file (``[reader]``, ``[console.buttons]``): its keys in the docs' order."""

    name: str
    keys: tuple[Key, ...]
    file: File | None = None
    #: the docs' note on the section: a row of its own in the key table (a ``*`` section's: its row's note)
    doc: str = ""
    #: an array of tables (``[[decks]]``)
    array: bool = False

    def __post_init__(self) -> None:
        if self.file is not None:
            for k in self.keys:
                if k.bound is not None:
                    name = f"{self.name}.{k.name}"
                    if name in self.file.bounds:
                        raise ValueError(f"[{self.name}] {k.name}: declared twice in {self.file.name}")
                    self.file.bounds[name] = k.bound

    def __getitem__(self, name: str) -> Key:
        for k in self.keys:
            if k.name == name:
                return k
        raise KeyError(name)

    def bound(self, key: Key) -> Bound | None:
        """``key``'s range, through its file's index when the section is in a file."""
        if key.bound is None:
            return None
        return self.file.bound_of(self.name, key.name) if self.file is not None else key.bound

    def read(self, src: str, data: object, *, label: str | None = None) -> Values:
        """The section ``data`` of the file ``src``, checked key by key in the schema's order (the
        entries of a ``*`` in the file's), then for unknown keys. ``label``: the section as the
        errors name it, if not ``name`` (``decks #2``)."""
        label = label or self.name
        if not isinstance(data, dict):
            raise ConfigError(f"{src}: [{label}] must be a table")
        values = Values(self, src, label, data)
        for key in self.keys:
            values.take(key, self.bound(key))  # (a bound looked up even when absent: a number without one fails)
        declared = {k.name for k in self.keys}
        unknown = sorted(set(data) - declared) if "*" not in declared else []
        if unknown:
            raise values.err(unknown[0], f"unknown key (see {DOCS})")
        return values


class Values:
    """One section of a file as its schema read it: ``values[key]``, the value the file gives
    (checked) or the key's default (``values.values``: all of them, by key); ``key in values``: the
    file gives it; ``values.entries``: a ``*`` section's, in the file's order; :meth:`err` for what
    the section's parser finds wrong."""

    def __init__(self, section: Section, src: str, label: str, data: dict[str, Any]) -> None:
        self.section, self.src, self.label, self.data = section, src, label, data
        self.values: dict[str, Any] = {}
        self.entries: dict[str, Any] = {}

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    def __contains__(self, key: object) -> bool:
        return key in self.data

    def err(self, key: str, what: str) -> ConfigError:
        """``t.toml: [room] broker: what``."""
        return ConfigError(f"{self.src}: [{self.label}] {shown_key(key)}: {what}")

    def take(self, key: Key, bound: Bound | None) -> None:
        """Read ``key`` (every entry, for a ``*``): the file's value checked, else its default (a
        required key's checked as if the file gave it)."""
        if key.name == "*":
            self.entries = {name: self.check(key, name, value, bound) for name, value in self.data.items()}
        elif key.name in self.data or key.required:
            self.values[key.name] = self.check(key, key.name, self.data.get(key.name, key.default), bound)
        else:
            self.values[key.name] = copy.copy(key.default)

    def path(self, key: str, base: Path, *, file: bool = False) -> str | None:
        """The path ``key`` gives (None if it gives none), relative to ``base`` (the file's folder);
        ``file``: it must be a file that exists."""
        value = self[key]
        if value is None:
            return None
        path = Path(value) if Path(value).is_absolute() else base / value
        if file and not path.is_file():
            raise self.err(key, f"{path}: no such file")
        return str(path)

    def check(self, key: Key, name: str, value: object, bound: Bound | None) -> Any:
        """``value`` of the key ``name`` (``key``, or the section's ``*``), checked."""
        try:
            return check(key, bound, value)
        except Refused as refused:
            if refused.bound is None:
                raise self.err(name, refused.what) from None
            file = self.section.file
            if file is not None and file.number_errors == "want":
                raise self.err(name, f"want {refused.bound.what()}, got {show_value(value)}") from None
            raise ConfigError(f"{self.src}: [{self.label}] {shown_key(name)} = {show_value(value)}: "
                              f"{refused.bound.rule()}") from None


# -- the docs' tables ----------------------------------------------------------------------------

def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _kind_text(key: Key) -> str:
    """The types a key takes, as the docs' table says them."""
    parts = []
    if key.bound is not None:
        number = "whole number" if key.bound.whole else "number"
        parts.append(f"list of {number}s" if key.bound.each else number)
    names = {str: "string", bool: "true/false", list: "list", dict: "table"}
    parts += [names[k] for k in key.kind if not (k is list and key.bound is not None and key.bound.each)]
    if key.bound is not None and key.choices and str not in key.kind:
        parts.append("string")
    return " or ".join(parts)


def _default_text(key: Key) -> str:
    if key.name == "*":
        return ""
    if key.shown:
        return key.shown
    if key.required:
        return "(required)"
    if key.default is None or key.default == {}:
        return "none"
    return f"`{show_value(key.default, 60)}`"


def _allowed_text(key: Key) -> str:
    parts = []
    if key.bound is not None:
        parts.append(key.bound.range())
    if key.choices:
        parts.append(", ".join(f"`{c}`" for c in key.choices))
    return "; ".join(parts)


def _title(section: Section) -> str:
    return f"[[{section.name}]]" if section.array else f"[{section.name}]"


def markdown_table(sections: Iterable[Section]) -> str:
    """Every key of ``sections``, one row each: its type, default, allowed values and note (the
    docs' "Every key" tables); a section with a note of its own has a row first."""
    lines = ["| Key | Type | Default | Allowed | Note |", "|---|---|---|---|---|"]
    for section in sections:
        star = [k for k in section.keys if k.name == "*"]
        if section.doc and not star:
            lines.append(f"| `{_title(section)}` | section | | | {_cell(section.doc)} |")
        for key in section.keys:
            note = key.doc or (section.doc if key.name == "*" else "")
            lines.append(f"| `{_title(section)} {key.name}` | {_kind_text(key)} | {_cell(_default_text(key))} | "
                         f"{_cell(_allowed_text(key))} | {_cell(note)} |")
    return "\n".join(lines) + "\n"


def bounds_table(sections: Iterable[Section]) -> str:
    """Every numeric key of ``sections`` with its range, unit and why (the docs' "Numeric bounds")."""
    lines = ["| Key | Range | Unit | Why this range |", "|---|---|---|---|"]
    for section in sections:
        for key in section.keys:
            b = key.bound
            if b is None:
                continue
            unit = re.sub(r"^\((.*?)\)", r"\1", b.unit) + (", each" if b.each else "")
            lines.append(f"| `{_title(section)} {key.name}` | {b.range()} | {_cell(unit)} | {_cell(b.why)} |")
    return "\n".join(lines) + "\n"


# -- a settings dataclass whose fields are the keys ----------------------------------------------

#: the metadata of a dataclass field that is a key (:func:`setting`)
KEY = "controller.config.key"


def setting(default: Any = None, *, factory: Callable[[], Any] | None = None, **what: Any) -> Any:
    """A field of a settings dataclass that is a key of its section, ``what`` as :class:`Key`
    takes it (``bound``, ``choices``, ``doc``...); its default is the key's. :func:`section_of`
    makes the section of such a class."""
    if factory is not None:
        return field(default_factory=factory, metadata={KEY: what})
    return field(default=default, metadata={KEY: what})


def section_of(name: str, cls: type, *, file: File | None = None, doc: str = "") -> Section:
    """The section ``[name]`` whose keys are the fields of the dataclass ``cls`` made with
    :func:`setting`, in their order (other fields are the parser's: derived, not in the file).

    >>> @dataclass(frozen=True)
    ... class Journal:
    ...     path: str = setting("/var/lib/tablectl/journal.sqlite3")
    ...     retention_days: float = setting(30.0, bound=Bound(1, 3650, "days"))
    >>> Journal(**section_of("journal", Journal).read("t.toml", {"retention_days": 7}).values)
    Journal(path='/var/lib/tablectl/journal.sqlite3', retention_days=7.0)
    """
    keys = []
    for f in fields(cls):
        if KEY in f.metadata:
            default = f.default_factory() if f.default_factory is not MISSING else f.default
            keys.append(Key(f.name, default, **f.metadata[KEY]))
    return Section(name, tuple(keys), file=file, doc=doc)
