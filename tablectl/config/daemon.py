"""The daemon's configuration: a TOML file, checked key by key.

A bad file gets one error that names the file, the key and what is wrong, e.g.
``tablectl.toml: [reader] answer_timeout = nan: must be a finite number from 0.05 to 10 s``.
See ``docs/configuration.md`` for every key.
"""

from __future__ import annotations

import grp
import math
import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tablectl.core.deck_rack import ROTATIONS
from tablectl.core.mixed import PRESETS, Rotation, rotation_of
from tablectl.core.registry import MANIFEST_MAX_BYTES, Deck, DeckRegistry, RegistryError, parse_manifest
from tablectl.core.settings import EVENTS, GAMES, RULE_SETTINGS, RuleSettings, TableSettings
from tablectl.core.text import NotUtf8, decode_utf8, shorten
from tablectl.core.zones import ZoneError, ZoneMap



class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class ReaderConfig:
    driver: str = "feig"
    port: str = "/dev/tablectl/reader"
    baudrate: int = 38400
    parity: str = "E"
    address: int = 0x00  # the reader's bus address (COM-ADR): FEIG's factory default is 0
    answer_timeout: float = 0.5
    max_timeouts: int = 3
    poll_interval: float = 0.0
    antenna_select_bytes: int = 2
    strong_rssi: int = 150
    #: ``[reader.levels]``: antenna -> its own level (``tablectl calibrate``), else strong_rssi
    levels: dict[int, int] = field(default_factory=dict)


@dataclass(frozen=True)
class ShufflerConfig:
    """The automatic shuffler's bridge board (docs/protocols/shuffler.md)."""

    port: str = "/dev/tablectl/shuffler"
    baudrate: int = 115200
    poll_interval: float = 0.5
    answer_timeout: float = 0.3
    max_timeouts: int = 3


@dataclass(frozen=True)
class JournalConfig:
    """The event journal (SQLite, WAL): every event before the core sees it, every alert and
    finished hand (docs/daemon.md, "The journal"). ``path`` None: no journal (a simulation without one)."""

    path: str | None = "/var/lib/tablectl/journal.sqlite3"
    retention_days: float = 30.0  # finished hands and their events older than this are dropped


@dataclass(frozen=True)
class OutputConfig:
    feed: str | None = None  # private JSON-lines feed of every effect (floor audience)
    control: str | None = None  # Unix socket for floor and technician commands
    log_level: str = "info"
    #: seconds the daemon waits at start for each device's first verdict before READY (0..60)
    ready_wait: float = 5.0


@dataclass(frozen=True)
class ControlConfig:
    """Who may use the control socket, and where its ``decks`` command reads manifests
    (docs/daemon.md, "The control socket"; docs/configuration.md, ``[control]``)."""

    #: the group whose members may use the socket, besides root and the service's own user;
    #: None: nobody else. ``group_name`` is the name as written (for messages), or the number
    group: int | None = None
    group_name: str | None = None
    #: the folder ``decks`` reads manifests from, by plain file name; None: ``decks`` is refused
    manifests: str | None = None
    #: seconds a connection may stay without a complete request before it is closed
    idle_timeout: float = 30.0


@dataclass(frozen=True)
class Config:
    path: Path
    table: TableSettings
    reader: ReaderConfig
    decks: tuple[Deck, ...]
    outputs: OutputConfig = field(default_factory=OutputConfig)
    #: the dealer's console (tablectl/config/console.py); None: no console
    console: Any = None
    #: the dealer's display (tablectl/config/display.py); None: no display
    display: Any = None
    #: None: the table has no shuffler (hand shuffling)
    shuffler: ShufflerConfig | None = None
    journal: JournalConfig = field(default_factory=lambda: JournalConfig(path=None))
    control: ControlConfig = field(default_factory=ControlConfig)
    #: the room link (tablectl/config/room.py); None: no network
    room: Any = None

    def registry(self) -> DeckRegistry:
        reg = DeckRegistry()
        for d in self.decks:
            reg.add(d)
        return reg


@dataclass(frozen=True)
class Bound:
    """The range of one numeric key: ``lo`` to ``hi`` (both included) in ``unit``; ``whole``: an
    integer; ``choices``: only these values (a baud rate)."""

    lo: float
    hi: float
    unit: str
    whole: bool = False
    choices: tuple[int, ...] = ()
    each: bool = False  # the key is a list of such numbers

    def rule(self) -> str:
        """What a value must be, as the error says it.

        >>> BOUNDS["reader.answer_timeout"].rule()
        'must be a finite number from 0.05 to 10 s'
        >>> BOUNDS["table.confirm_cycles"].rule()
        'must be a whole number from 1 to 20 reader cycles'
        """
        if self.choices:
            return f"must be one of {', '.join(map(str, self.choices))} {self.unit}".rstrip()
        kind = "a whole number" if self.whole else "a finite number"
        each = "each " if self.each else ""
        return f"{each}must be {kind} from {_num(self.lo)} to {_num(self.hi)} {self.unit}".rstrip()

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


#: Every numeric key of the file and its range (docs/configuration.md, "Numeric bounds"). A key
#: read as a number must be here: :meth:`_Section.number` looks it up, so a new key without
#: bounds fails every load (and tests/unit/config/test_config_bounds.py). ``section.*``: any key of the section.
BOUNDS: dict[str, Bound] = {
    "table.seats": Bound(1, 10, "(a seat number)", whole=True, each=True),
    "table.button": Bound(1, 10, "(a seat number)", whole=True),
    "table.confirm_cycles": Bound(1, 20, "reader cycles", whole=True),
    "table.gone_cycles": Bound(1, 200, "reader cycles", whole=True),
    "table.change": Bound(1, 100, 'hands of each game (or "orbit")', whole=True),
    "rules.seats_max": Bound(2, 10, "seats", whole=True),
    "rules.shuffler_floor_after": Bound(1, 3600, "s"),
    "rules.offline_floor_after": Bound(0.5, 3600, "s"),
    "rules.open_seat_hold": Bound(1, 10, "open seats", whole=True),
    "rules.late_stage_hold": Bound(1, 10, "open seats", whole=True),
    "reader.baudrate": Bound(4800, 115200, "(the FEIG baud rates)", whole=True,
                             choices=(4800, 9600, 19200, 38400, 57600, 115200)),
    "reader.address": Bound(0, 254, "(the reader's bus address, COM-ADR)", whole=True),
    "reader.answer_timeout": Bound(0.05, 10, "s"),
    "reader.max_timeouts": Bound(1, 100, "unanswered inventories", whole=True),
    "reader.poll_interval": Bound(0, 10, "s"),
    "reader.antenna_select_bytes": Bound(1, 4, "(bytes of ANT_SEL)", whole=True, choices=(1, 2, 4)),
    "reader.strong_rssi": Bound(1, 255, "(the reader's RSSI scale)", whole=True),
    "reader.levels.*": Bound(1, 255, "(the reader's RSSI scale)", whole=True),
    "shuffler.baudrate": Bound(9600, 115200, "(the bridge board's baud rates)", whole=True,
                               choices=(9600, 19200, 38400, 57600, 115200)),
    "shuffler.poll_interval": Bound(0.05, 10, "s"),
    "shuffler.answer_timeout": Bound(0.05, 10, "s"),
    "shuffler.max_timeouts": Bound(1, 100, "unanswered polls", whole=True),
    "journal.retention_days": Bound(1, 3650, "days"),
    "outputs.ready_wait": Bound(0, 60, "s"),
    "room.outbox_days": Bound(0.01, 366, "days"),
    "room.broadcast_delay": Bound(0.1, 3600, "s"),
    "control.group": Bound(0, 2**32 - 2, "(a group number), or a group name", whole=True),
    "control.idle_timeout": Bound(0.1, 3600, "s"),
    "console.bounce_time": Bound(0.001, 0.5, "s"),
    "console.hold_time": Bound(0.05, 10, "s"),
    "console.seat_timeout": Bound(1, 120, "s"),
    "console.buzzer": Bound(2, 27, "(a BCM pin of the header)", whole=True),
    "console.buttons.*": Bound(2, 27, "(a BCM pin of the header)", whole=True),
    "console.leds.*": Bound(2, 27, "(a BCM pin of the header)", whole=True),
    "console.seat_leds.*": Bound(2, 27, "(a BCM pin of the header)", whole=True),
    "display.width": Bound(16, 128, "(characters of an LCD, pixels of an OLED)", whole=True,
                           choices=(16, 20, 128)),
    "display.height": Bound(2, 64, "(lines of an LCD, pixels of an OLED)", whole=True, choices=(2, 4, 64)),
    "display.bus": Bound(0, 31, "(the N of /dev/i2c-N)", whole=True),
    "display.address": Bound(0x03, 0x77, "(a 7-bit I2C address)", whole=True),
}


def _key(key: str) -> str:
    """A key as written in an error: whole unless it is long (a typo of 5,000 characters)."""
    return key if len(key) <= 40 else f"{key[:32]}... ({len(key)} characters)"


def bound_of(section: str, key: str) -> Bound:
    """The bounds of ``[section] key``; LookupError for a key that has none (a bug: add it)."""
    for name in (f"{section}.{key}", f"{section}.*"):
        if name in BOUNDS:
            return BOUNDS[name]
    raise LookupError(f"[{section}] {key}: a numeric key without bounds (add it to config.BOUNDS and "
                      f"docs/configuration.md)")


class _Section:
    """Typed access to one table of the TOML document, with errors that name the key."""

    def __init__(self, src: str, name: str, data: Any) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{src}: [{name}] must be a table")
        self.src, self.name, self.data = src, name, data
        self.used: set[str] = set()

    def err(self, key: str, what: str) -> ConfigError:
        return ConfigError(f"{self.src}: [{self.name}] {_key(key)}: {what}")

    def out_of_bounds(self, key: str, value: object, bound: Bound) -> ConfigError:
        """``t.toml: [reader] answer_timeout = nan: must be a finite number from 0.05 to 10 s``."""
        return ConfigError(f"{self.src}: [{self.name}] {_key(key)} = {show_value(value)}: {bound.rule()}")

    def checked(self, key: str, value: object) -> Any:
        """``value`` of ``key`` if it is in its bounds (:data:`BOUNDS`), as a float unless the key is
        whole; else the error that gives the range."""
        bound = bound_of(self.name, key)
        if not bound.accepts(value):
            raise self.out_of_bounds(key, value, bound)
        return value if bound.whole else float(value)  # type: ignore[arg-type]

    def number(self, key: str, default: Any) -> Any:
        """A numeric key, checked against its :data:`BOUNDS` (the default is taken as it is)."""
        bound_of(self.name, key)  # (even when absent: a key without bounds is a bug to find at once)
        self.used.add(key)
        if key not in self.data:
            return default
        return self.checked(key, self.data[key])

    def get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if int in kinds or float in kinds:
            raise LookupError(f"[{self.name}] {key}: read numbers with number(), against BOUNDS")
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        bool_ok = bool in kinds
        if not isinstance(value, kind) or (isinstance(value, bool) and not bool_ok):
            names = {"str": "a string", "list": "a list", "bool": "true or false", "dict": "a table"}
            want = " or ".join(names.get(k.__name__, k.__name__) for k in kinds)
            raise self.err(key, f"want {want}, got {show_value(value)}")
        return value

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self.err(unknown[0], "unknown key (see docs/configuration.md)")


def _levels(s: _Section, zones: ZoneMap) -> dict[int, int]:
    """``[reader.levels]``: antenna number = its level (``tablectl calibrate`` writes them)."""
    out = {}
    for key in list(s.data):
        if not (key.isascii() and key.isdigit() and len(key) <= 3 and int(key) in zones.by_antenna):
            raise s.err(key, "not an antenna of [antennas] (keys are antenna numbers)")
        out[int(key)] = s.number(key, None)
    s.finish()
    return out


def _rotation(t: _Section) -> Rotation:
    """``[table] rotation`` (a preset's name or a list of games), ``change`` ("orbit" or the hands
    of each game: MIXED_HANDS_PER_GAME) and ``count_redeal`` (MIXED_COUNT_REDEAL): MIXED-001."""
    value = t.get("rotation", (str, list), None)
    games: tuple[str, ...] = ()
    if value is not None:
        if isinstance(value, list):
            bad = [g for g in value if not isinstance(g, str) or g not in GAMES]
            if bad:
                raise t.err("rotation", f"{show_value(bad[0])} is not a game (games: {', '.join(GAMES)})")
        try:
            games = rotation_of(value)
        except ValueError:
            raise t.err("rotation", f"{shorten(str(value))} is no rotation (presets: {', '.join(PRESETS)}; "
                                    f"or a list of games)") from None
        if len(games) < 2:
            raise t.err("rotation", "a rotation needs two games or more (one game: [table] game)")
    change = t.data.get("change", "orbit")
    t.used.add("change")
    hands = None if change == "orbit" else t.checked("change", change)
    count_redeal = t.get("count_redeal", bool, False)
    return Rotation(games, hands, count_redeal)


def parse_config(text: str, *, path: Path) -> Config:
    """Parse and check a configuration. Relative paths are relative to the file's folder."""
    src = str(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{src}: not valid TOML: {exc}") from None
    except RecursionError:  # (tomllib recurses once per [ or { )
        raise ConfigError(f"{src}: not valid TOML: arrays or inline tables nested too deeply") from None
    except ValueError:  # int() of more digits than Python converts (sys.get_int_max_str_digits)
        raise ConfigError(f"{src}: not valid TOML: {_long_number(text)}") from None
    known = {"table", "rules", "reader", "antennas", "decks", "outputs", "console", "shuffler", "journal",
             "control", "room", "display"}
    for key in doc:
        if key not in known:
            raise ConfigError(f"{src}: [{_key(key)}]: unknown section (sections: {', '.join(sorted(known))})")
    base = path.parent

    t = _Section(src, "table", doc.get("table", {}))
    game = t.get("game", str, "holdem")
    if game not in GAMES:
        raise t.err("game", f"{shorten(game)} is not supported (games: {', '.join(GAMES)})")
    rotation = _rotation(t)
    if rotation.games and "game" not in t.data:
        game = rotation.games[0]  # (a mixed game starts with its rotation's first game)
    elif rotation.games and game not in rotation.games:
        raise t.err("game", f"{shorten(game)} is not in the rotation ({', '.join(rotation.games)}): the game "
                            f"a mixed table starts with is one of its rotation's (leave it out: the first)")
    seats = t.get("seats", list, list(range(1, 10)))
    if not all(BOUNDS["table.seats"].accepts(seat) for seat in seats):
        raise t.out_of_bounds("seats", seats, BOUNDS["table.seats"])
    if len(set(seats)) != len(seats):
        raise t.err("seats", f"a seat is listed twice: {show_value(seats)}")
    if len(seats) < 2:
        raise t.err("seats", "a hand needs at least two seats")
    button = t.number("button", max(seats))
    deck_in_play = t.get("deck_in_play", str, "A")
    confirm = t.number("confirm_cycles", 2)  # (docs/tracking.md: the budget's)
    gone = t.number("gone_cycles", 20)
    two_hands = t.get("chinese_two_hands", bool, False)  # CHIN-002 (docs/configuration.md)
    event = t.get("event", str, "tournament")
    if event not in EVENTS:
        raise t.err("event", f"want one of {', '.join(EVENTS)}, got {shorten(event)}")
    t.finish()

    ru = _Section(src, "rules", doc.get("rules", {}))
    rule_values: dict[str, Any] = {}
    for key, (choices, default) in RULE_SETTINGS.items():
        value = ru.get(key, str, default)
        if value not in choices:
            raise ru.err(key, f"want one of {', '.join(choices)}, got {shorten(value)}")
        rule_values[key] = value
    pad = ru.get("round_done_pad", (bool, str), "auto")
    if isinstance(pad, str) and pad != "auto":
        raise ru.err("round_done_pad", f"want true, false or \"auto\", got {shorten(pad)}")
    rule_values["round_done_pad"] = None if pad == "auto" else pad
    seats_max = ru.number("seats_max", 10)
    rotate = ru.get("rotate_decks", str, "relief")
    if rotate not in ROTATIONS:
        raise ru.err("rotate_decks", f"want one of {', '.join(ROTATIONS)}, got {shorten(rotate)}")
    floor_after = ru.number("shuffler_floor_after", 30.0)
    offline_after = ru.number("offline_floor_after", 60.0)
    open_hold, late_hold = ru.number("open_seat_hold", 3), ru.number("late_stage_hold", 2)  # BREAK-002
    late_stage = ru.get("late_stage", bool, False)
    ru.finish()
    rules = RuleSettings(seats_max=seats_max, rotate_decks=rotate, shuffler_floor_after=floor_after,
                         offline_floor_after=offline_after, open_seat_hold=open_hold, late_stage_hold=late_hold,
                         late_stage=late_stage, **rule_values)

    a = doc.get("antennas")
    if a is None:
        zones = ZoneMap.default()
    else:
        if not isinstance(a, dict):
            raise ConfigError(f"{src}: [antennas] must be a table of antenna number = zone")
        try:
            zones = ZoneMap.from_mapping(a)
        except ZoneError as exc:
            raise ConfigError(f"{src}: [antennas] {exc}") from exc
        fed = set(zones.by_antenna.values())
        unfed = [f"seat:{n}" for n in seats if f"seat:{n}" not in fed] + \
            [z for z in ("board", "burn", "muck") if z not in fed]
        if unfed:  # a written map replaces the default one: a zone left out is a zone the daemon is blind to
            raise ConfigError(f"{src}: [antennas]: no antenna feeds {unfed[0]} (a map you write replaces the "
                              f"default: list every seat of [table] seats, the board, the burn and the muck)")

    r = _Section(src, "reader", doc.get("reader", {}))
    driver = r.get("driver", str, "feig")
    if driver != "feig":
        raise r.err("driver", f"{shorten(driver)} is not a reader driver (drivers: feig)")
    if type(r.data.get("address")) is int and r.data["address"] == 0xFF:
        # FF reaches every reader on the line and each answers with its own address: the daemon
        # could not tell its reader's answers from another device's (docs/reader-link.md).
        raise r.err("address", "255 is FEIG's broadcast address, which the daemon does not use: set the "
                               "reader's own bus address, 0..254 (factory default 0)")
    reader = ReaderConfig(
        driver=driver,
        port=r.get("port", str, ReaderConfig.port),
        baudrate=r.number("baudrate", 38400),
        parity=r.get("parity", str, "E"),
        address=r.number("address", ReaderConfig.address),
        answer_timeout=r.number("answer_timeout", 0.5),
        max_timeouts=r.number("max_timeouts", 3),
        poll_interval=r.number("poll_interval", 0.0),
        antenna_select_bytes=r.number("antenna_select_bytes", 2),
        strong_rssi=r.number("strong_rssi", 150),
        levels=_levels(_Section(src, "reader.levels", r.get("levels", dict, {})), zones),
    )
    if reader.parity not in ("N", "E", "O"):
        raise r.err("parity", f"want 'N', 'E' or 'O', got {shorten(reader.parity)}")
    too_high = [n for n in zones.by_antenna if n > 8 * reader.antenna_select_bytes]
    if too_high:
        raise ConfigError(f"{src}: [antennas] {too_high[0]}: antenna beyond what "
                          f"[reader] antenna_select_bytes = {reader.antenna_select_bytes} can select")
    r.finish()

    decks: list[Deck] = []
    manifest_paths: list[str] = []
    raw_decks = doc.get("decks", [])
    if not isinstance(raw_decks, list):
        raise ConfigError(f"{src}: [[decks]] must be an array of tables")
    for i, d in enumerate(raw_decks, 1):
        s = _Section(src, f"decks #{i}", d)
        deck_id = s.get("id", str, "")
        if not deck_id:
            raise s.err("id", "every deck needs an id")
        back = s.get("back", str, "")
        if not back:
            raise s.err("back", "every deck needs a back colour")
        manifest = s.get("manifest", str, "")
        if not manifest:
            raise s.err("manifest", "every deck needs a manifest file (UID CARD per line)")
        mpath = (base / manifest) if not Path(manifest).is_absolute() else Path(manifest)
        manifest_paths.append(str(mpath))
        try:
            cards = parse_manifest(read_bounded(mpath, MANIFEST_MAX_BYTES), source=str(mpath))
        except OSError as exc:
            raise s.err("manifest", f"cannot read {mpath}: {exc.strerror or exc}") from None
        except RegistryError as exc:
            raise s.err("manifest", str(exc)) from None
        except ValueError as exc:
            raise s.err("manifest", f"{mpath}: {exc}; a manifest is at most that") from None
        s.finish()
        decks.append(Deck(deck_id, back, cards))
    try:
        reg = DeckRegistry()
        for d in decks:
            reg.add(d)
    except RegistryError as exc:
        raise ConfigError(f"{src}: [[decks]] {exc}") from exc
    backs = {}
    for d in decks:  # DECK-004: the pair must be told apart at a glance
        if d.back.lower() in backs:
            raise ConfigError(f"{src}: [[decks]] back: decks {shorten(backs[d.back.lower()])} and {shorten(d.id)} "
                              f"both have {shorten(d.back)} backs; a table's two decks must differ (DECK-004)")
        backs[d.back.lower()] = d.id
    if decks and deck_in_play not in {d.id for d in decks}:
        raise ConfigError(f"{src}: [table] deck_in_play: no deck {shorten(deck_in_play)} among [[decks]]")

    shuffler = None
    if "shuffler" in doc:
        sh = _Section(src, "shuffler", doc["shuffler"])
        shuffler = ShufflerConfig(
            port=sh.get("port", str, ShufflerConfig.port),
            baudrate=sh.number("baudrate", 115200),
            poll_interval=sh.number("poll_interval", 0.5),
            answer_timeout=sh.number("answer_timeout", 0.3),
            max_timeouts=sh.number("max_timeouts", 3),
        )
        sh.finish()

    journal = JournalConfig(path=None)
    if "journal" in doc:
        jr = _Section(src, "journal", doc["journal"])
        jpath = jr.get("path", str, JournalConfig.path)
        jpath = str(base / jpath) if not Path(jpath).is_absolute() else jpath
        journal = JournalConfig(path=jpath, retention_days=jr.number("retention_days", 30.0))
        jr.finish()
        if not Path(jpath).parent.is_dir():
            raise jr.err("path", f"folder {Path(jpath).parent} does not exist (under systemd, "
                                 f"StateDirectory=tablectl creates /var/lib/tablectl)")

    o = _Section(src, "outputs", doc.get("outputs", {}))
    feed = o.get("feed", str, None)
    control = o.get("control", str, None)
    outputs = OutputConfig(
        feed=str(base / feed) if feed else None,
        control=str(base / control) if control else None,
        log_level=o.get("log_level", str, "info"),
        ready_wait=o.number("ready_wait", 5.0),
    )
    for key, value in (("feed", outputs.feed), ("control", outputs.control)):
        if value and not Path(value).parent.is_dir():
            raise o.err(key, f"folder {Path(value).parent} does not exist (under systemd, "
                             f"RuntimeDirectory=tablectl creates /run/tablectl)")
    if outputs.log_level not in ("debug", "info", "warning", "error"):
        raise o.err("log_level", f"want debug, info, warning or error, got {shorten(outputs.log_level)}")
    o.finish()

    control_cfg = _parse_control(_Section(src, "control", doc.get("control", {})), base)

    table = TableSettings(game=game, seats=tuple(seats), button=button, deck_in_play=deck_in_play,
                          zones=zones, confirm_cycles=confirm, gone_cycles=gone, rules=rules, event=event,
                          strong_rssi=reader.strong_rssi, rssi_levels=dict(reader.levels), rotation=rotation,
                          chinese_two_hands=two_hands)
    from tablectl.config.console import parse_console  # (it imports this module)
    from tablectl.config.room import parse_room  # (it imports this module)
    from tablectl.config.display import parse_display  # (it imports this module)

    config = Config(path=path, table=table, reader=reader, decks=tuple(decks), outputs=outputs,
                    console=parse_console(doc, src=src), shuffler=shuffler, journal=journal,
                    control=control_cfg, room=parse_room(doc, src=src, base=base),
                    display=parse_display(doc, src=src, base=base))
    check_paths(config, manifests=[(f"[[decks]] #{i} manifest", m) for i, m in enumerate(manifest_paths, 1)])
    return config


#: the first 16 bytes of every SQLite database file
SQLITE_HEADER = b"SQLite format 3\0"


def _where(path: str) -> tuple[Path, tuple[int, int] | None]:
    """A path as the kernel will find it: symlinks resolved, and (device, inode) if it exists
    (two names of one file, a hard link, are the same file)."""
    real = Path(os.path.abspath(path)).resolve()
    try:
        st = os.stat(real)
    except OSError:
        return real, None
    return real, (st.st_dev, st.st_ino)


def check_paths(config: Config, *, manifests: list[tuple[str, str]] | None = None) -> None:
    """Refuse, before anything is opened for writing, a file the daemon would destroy: the paths
    it writes (the journal and its -wal, -shm and .hands, the feed, the control socket) must be
    distinct from each other, from the configuration file, from the ``[[decks]]`` manifests, and
    outside the manifests folder; an existing journal must be an SQLite database (or empty: the
    journal's salvage rebuilds a zero-byte file beside its WAL) and an existing control path a
    socket. One :class:`ConfigError` line names both keys. Nothing is written, renamed or removed.
    """
    src = str(config.path)
    written: list[tuple[str, str]] = []
    if config.journal.path:
        j = config.journal.path
        written += [("[journal] path", j), ("[journal] path (its -wal)", j + "-wal"),
                    ("[journal] path (its -shm)", j + "-shm"), ("[journal] path (its .hands)", j + ".hands")]
    if config.outputs.feed:
        written.append(("[outputs] feed", config.outputs.feed))
    if config.outputs.control:
        written.append(("[outputs] control", config.outputs.control))
    read = [("the configuration file itself", str(config.path)), *(manifests or [])]
    seen: list[tuple[str, Path, tuple[int, int] | None]] = []
    for key, path in written + read:
        real, ident = _where(path)
        for other_key, other_real, other_ident in seen:
            if other_real == real or (ident is not None and ident == other_ident):
                if key in dict(read) and other_key in dict(read):
                    continue  # (two things only read may be one file)
                raise ConfigError(f"{src}: {other_key} and {key} are the same file ({real}); the daemon would "
                                  f"overwrite it: give each its own path (nothing was opened)")
        seen.append((key, real, ident))
    folder = config.control.manifests
    if folder:
        real_folder, _ = _where(folder)
        for key, path in written:
            real, _ = _where(path)
            if real == real_folder or real.is_relative_to(real_folder):
                raise ConfigError(f"{src}: {key} ({real}) is inside [control] manifests ({real_folder}); the "
                                  f"daemon writes it, and `decks` reads that folder: keep them apart (nothing "
                                  f"was opened)")
    if config.journal.path:
        _check_journal_file(src, config.journal.path)
    if config.outputs.control:
        try:
            st = os.lstat(config.outputs.control)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise ConfigError(f"{src}: [outputs] control: cannot look at {config.outputs.control}: "
                              f"{exc.strerror}") from None
        else:
            if not stat.S_ISSOCK(st.st_mode):
                raise ConfigError(f"{src}: [outputs] control: {config.outputs.control} is {_kind(st.st_mode)}, not "
                                  f"a socket; the daemon would have to remove it: point [outputs] control at a "
                                  f"free path (nothing was opened)")
    if config.outputs.feed:
        try:
            st = os.stat(config.outputs.feed)
        except OSError:
            pass
        else:
            if stat.S_ISDIR(st.st_mode) or stat.S_ISSOCK(st.st_mode):
                raise ConfigError(f"{src}: [outputs] feed: {config.outputs.feed} is {_kind(st.st_mode)}, not a "
                                  f"file the feed can be appended to")


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISREG, "a regular file"), (stat.S_ISDIR, "a folder"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _check_journal_file(src: str, path: str) -> None:
    """An existing journal must be a regular file that starts as every SQLite database does, or be
    empty. Only its first 16 bytes are read (never quoted)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{src}: [journal] path: cannot look at {path}: {exc.strerror}") from None
    if not stat.S_ISREG(st.st_mode):
        raise ConfigError(f"{src}: [journal] path: {path} is {_kind(st.st_mode)}, not a journal")
    if st.st_size == 0:
        return  # new, or a zero-byte file beside its WAL: the journal's salvage rebuilds it
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    except OSError:
        return  # unreadable: the journal's own check says so, with the fix (chown)
    try:
        head = os.read(fd, len(SQLITE_HEADER))
    finally:
        os.close(fd)
    if head != SQLITE_HEADER:
        raise ConfigError(f"{src}: [journal] path: {path} is not an SQLite journal ({st.st_size} bytes that do "
                          f"not begin as one); nothing was opened: point [journal] path at the journal, or, if "
                          f"this is the journal damaged, set it aside (mv {path} {path}.bad) and a new one is "
                          f"started")


def _parse_control(c: _Section, base: Path) -> ControlConfig:
    """``[control]``: the socket's allow-list and limits (docs/configuration.md).

    >>> s = _Section("t.toml", "control", {"group": 4242, "idle_timeout": 5})
    >>> _parse_control(s, Path("."))
    ControlConfig(group=4242, group_name='4242', manifests=None, idle_timeout=5.0)
    """
    c.used.add("group")
    group = c.data.get("group")  # a name, or a number in its BOUNDS
    gid: int | None = None
    if isinstance(group, str):
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise c.err("group", f"no group {shorten(group)} on this system (make it: sudo groupadd NAME, then "
                                 f"sudo usermod -aG {group} USER for each floor account)") from None
    elif group is not None:
        gid = c.checked("group", group)
    manifests = c.get("manifests", str, None)
    if manifests is not None:
        if not manifests:
            raise c.err("manifests", "want a folder, got an empty string (leave the key out to refuse `decks`)")
        manifests = str(base / manifests)
        if not Path(manifests).is_dir():
            raise c.err("manifests", f"{manifests} is not a folder (make it, and put the deck manifests in it)")
    idle = c.number("idle_timeout", ControlConfig.idle_timeout)
    c.finish()
    return ControlConfig(group=gid, group_name=None if group is None else str(group), manifests=manifests,
                         idle_timeout=idle)


def _long_number(text: str) -> str:
    """Where the number too long to read is, for the message (never the number itself)."""
    m = re.search(r"[0-9][0-9_]{" + str(sys.get_int_max_str_digits()) + ",}", text)
    line = f" on line {text.count(chr(10), 0, m.start()) + 1}" if m else ""
    return f"a number of more than {sys.get_int_max_str_digits()} digits{line}"


#: the largest configuration file read (a real one is a few KiB)
CONFIG_MAX_BYTES = 1024 * 1024


def read_bounded(path: str | Path, limit: int) -> bytes:
    """The bytes of ``path``, at most ``limit`` of them: OSError, or ValueError saying the file is
    larger (a ``/dev/zero`` is never read to its end)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise ValueError(f"larger than {limit} bytes")
    return b"".join(chunks)


def load_config(path: str | Path) -> Config:
    p = Path(path)
    try:
        data = read_bounded(p, CONFIG_MAX_BYTES)
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the configuration: {exc.strerror or exc}") from None
    except ValueError as exc:
        raise ConfigError(f"{p}: not a configuration: {exc}") from None
    try:
        text = decode_utf8(data)
    except NotUtf8 as exc:
        raise ConfigError(f"{p}: {exc}; save the file as UTF-8") from None
    return parse_config(text, path=p)
