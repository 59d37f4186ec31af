"""The daemon's configuration: a TOML file, checked key by key.

Every section is declared once in the schema (controller/config/schema.py): its keys, their types,
bounds and defaults, here for the table, the rules, the devices, the journal, the outputs and the
control socket, and in console.py, display.py and room.py for theirs. :func:`parse_config` reads
each section through it, then checks what involves more than one key (the small functions below).
A bad file gets one error that names the file, the key and what is wrong, e.g.
``tablectl.toml: [reader] answer_timeout = nan: must be a finite number from 0.05 to 10 s``.
``docs/configuration.md`` lists every key (its tables are written from the schema).
"""

from __future__ import annotations

import grp
import os
import re
import stat
import sys
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.core.deck_rack import ROTATIONS
from controller.core.mixed import PRESETS, Rotation, rotation_of
from controller.core.registry import (MANIFEST_MAX_BYTES, Deck, DeckRegistry, RegistryError, check_header,
                                      parse_manifest)
from controller.core.settings import EVENTS, GAMES, RULE_SETTINGS, RuleSettings, TableSettings
from controller.core.text import NotUtf8, decode_utf8, shorten
from controller.core.zones import ZoneError, ZoneMap
from controller.config.console import CONSOLE_SECTIONS, ConsoleConfig, parse_console
from controller.config.display import DISPLAY, DisplayConfig, parse_display
from controller.config.room import ROOM, RoomConfig, parse_room
from controller.config.schema import (TABLECTL_TOML, Bound, ConfigError, Key, Section, Values, section_of, setting,
                                    show_value, shown_key)
from firmware_bridge.drivers import READERS, SHUFFLERS

__all__ = ["BOUNDS", "SECTIONS", "Config", "ConfigError", "ControlConfig", "JournalConfig", "OutputConfig",
           "ReaderConfig", "ShufflerConfig", "check_paths", "load_config", "parse_config", "read_bounded"]

#: the drivers of ``[reader] driver`` and ``[shuffler] driver``, by name (the first is the default)
#: the drivers a [reader] and a [shuffler] may name: the devices' registry (firmware_bridge/drivers.py)
READER_DRIVERS = tuple(READERS)
SHUFFLER_DRIVERS = tuple(SHUFFLERS)
#: ``[outputs] log_level``
LOG_LEVELS = ("debug", "info", "warning", "error")
#: the rule each ``[rules]`` word settles (docs/rules.md), for the docs' table
RULE_NOTES = {
    "late_entry": "DEAL-006", "late_fault": "MISD-013", "deal_count_fixes": "MISD-007",
    "muck_retrieval": "MUCK-002", "four_flop_picker": "BOARD-002", "cash_entry": "DEAL-007 (cash games)",
    "buy_button_next": "DEAL-008 (cash games)", "stud_absent_bringin": "STUD-011",
    "absent_deadline": "DEAL-009, STUD-011",
    "stud_short_stub_method": "STUD-007", "stud_odd_chip_cards": "SPLIT-006 (stud)",
    "stud_odd_chip_low": "SPLIT-006 (razz, stud 8's low)", "hybrid_odd_chip": "SPLIT-008 (badacey, badeucy)",
    "race_one_per_player": "RACE-003", "race_remainder": "RACE-004", "race_allin": "RACE-005",
    "draw_exposed_deal": "MISD-009, DRAW-003",
}
#: FLOW-009's ``[rules]`` keys, each with its words for the docs and the guide's value (002 §RAKE,
#: §RAKE REDUCTION)
RAKE_KEYS = (
    ("rake_cap", "FLOW-009, cash: the rake's most, five-handed or more (0: no rake, nothing said)", "$4"),
    ("rake_promo", "FLOW-009, cash: the promotional rake on top of it, five-handed or more", "$1"),
    ("rake_cap_four", "FLOW-009, cash: the rake's most four-handed", "$3"),
    ("rake_promo_four", "FLOW-009, cash: the promotional rake four-handed", "$1"),
    ("rake_cap_three", "FLOW-009, cash: the rake's most three-handed or fewer", "$2"),
    ("rake_promo_three", "FLOW-009, cash: the promotional rake three-handed or fewer", "none"),
)
#: why ``[reader] address = 255`` is refused, before its range
BROADCAST = ("255 is FEIG's broadcast address, which the daemon does not use: set the reader's own bus address, "
             "0..254 (factory default 0)")


@dataclass(frozen=True)
class ReaderConfig:
    """``[reader]``: the RFID reader (docs/reader-link.md)."""

    #: the reader's driver, by name (firmware_bridge): FEIG's ISO Host protocol
    driver: str = setting("feig", choices=READER_DRIVERS, wrong="{value} is not a reader driver (drivers: {choices})",
                      doc="the reader's protocol (firmware_bridge), by name")
    port: str = setting("/dev/tablectl/reader", doc="any pyserial URL: a device path, socket://host:port, loop://")
    baudrate: int = setting(38400, bound=Bound(4800, 115200, "(the FEIG baud rates)", whole=True,
                                           choices=(4800, 9600, 19200, 38400, 57600, 115200),
                                           why="the FEIG reader's rates"))
    parity: str = setting("E", choices=("N", "E", "O"), wrong="want 'N', 'E' or 'O', got {value}")
    #: the reader's bus address (COM-ADR): FEIG's factory default is 0. FF reaches every reader on
    #: the line and each answers with its own address: the daemon could not tell its reader's
    #: answers from another device's (docs/reader-link.md)
    address: int = setting(0x00, refused=((0xFF, BROADCAST),),
                       bound=Bound(0, 254, "(the reader's bus address, COM-ADR)", whole=True,
                                   why="one byte; 255 is FEIG's broadcast, refused (docs/reader-link.md, "
                                       "\"Bus address\")"))
    answer_timeout: float = setting(0.5, doc="seconds to wait for each answer",
                                bound=Bound(0.05, 10, "s", why="an answer takes milliseconds; more than 10 s hides "
                                                                "a dead reader"))
    max_timeouts: int = setting(3, bound=Bound(1, 100, "unanswered inventories", whole=True),
                            doc="unanswered inventories in a row before the reader counts as lost")
    poll_interval: float = setting(0.0, bound=Bound(0, 10, "s", why="0: as fast as the reader answers"),
                               doc="seconds between cycles")
    antenna_select_bytes: int = setting(2, bound=Bound(1, 4, "(bytes of ANT_SEL)", whole=True, choices=(1, 2, 4),
                                                   why="docs/protocols/feig.md"),
                                    doc="the width of ANT_SEL (1 for an eight-port reader)")
    strong_rssi: int = setting(150, bound=Bound(1, 255, "(the reader's RSSI scale)", whole=True),
                           doc="a read this strong is a card lying on the antenna (DECK-007)")
    #: ``[reader.levels]``: antenna -> its own level (``tablectl calibrate``), else strong_rssi
    levels: dict[int, int] = setting(factory=dict, kind=(dict,), shown="none (strong_rssi)",
                                 doc="[reader.levels], below")
    #: ``[reader.capacity]``: antenna -> the most cards it can see at once (a two-card seat spot)
    capacity: dict[int, int] = setting(factory=dict, kind=(dict,), shown="none (no limit)",
                                   doc="[reader.capacity], below")
    #: False: the table has no antenna under the muck; [antennas] feeds no muck, and a muck is
    #: inferred from cards leaving the seats (docs/rules.md, "What each reader set-up can check")
    muck_antenna: bool = setting(True, doc="false: no antenna under the muck (a muck inferred from cards "
                                           "leaving the seats; the rules that need its contents not checked)")


@dataclass(frozen=True)
class ShufflerConfig:
    """``[shuffler]``: the automatic shuffler's bridge board (docs/protocols/shuffler.md)."""

    #: the shuffler's driver, by name (firmware_bridge): the bridge board's protocol
    driver: str = setting("tablectl", choices=SHUFFLER_DRIVERS,
                      wrong="{value} is not a shuffler driver (drivers: {choices})",
                      doc="the bridge board's protocol (firmware_bridge), by name")
    port: str = setting("/dev/tablectl/shuffler", doc="the bridge board (8N1): any pyserial URL")
    baudrate: int = setting(115200, bound=Bound(9600, 115200, "(the bridge board's baud rates)", whole=True,
                                            choices=(9600, 19200, 38400, 57600, 115200),
                                            why="the bridge board's rates"))
    poll_interval: float = setting(0.5, bound=Bound(0.05, 10, "s", why="the heartbeat"),
                               doc="seconds between status polls")
    answer_timeout: float = setting(0.3, bound=Bound(0.05, 10, "s"), doc="seconds to wait for each answer")
    max_timeouts: int = setting(3, bound=Bound(1, 100, "unanswered polls", whole=True),
                            doc="unanswered polls in a row before the shuffler counts as lost")


@dataclass(frozen=True)
class JournalConfig:
    """The event journal (SQLite, WAL): every event before the core sees it, every alert and
    finished hand (docs/daemon.md, "The journal"). ``path`` None: no journal (a simulation without one)."""

    path: str | None = setting("/var/lib/tablectl/journal.sqlite3", kind=(str,),
                           doc="SQLite, WAL; relative to the file's folder")
    #: finished hands and their events older than this are dropped
    retention_days: float = setting(30.0, bound=Bound(1, 3650, "days", why="a day to ten years of hand history"),
                                doc="finished hands and their alerts are kept this long")


@dataclass(frozen=True)
class OutputConfig:
    #: private JSON-lines feed of every effect (floor audience)
    feed: str | None = setting(None, kind=(str,), doc="the private JSON-lines feed of every effect (mode 0600)")
    #: Unix socket for floor and technician commands
    control: str | None = setting(None, kind=(str,), doc="the control socket (docs/daemon.md)")
    log_level: str = setting("info", choices=LOG_LEVELS, wrong="want debug, info, warning or error, got {value}")
    #: seconds the daemon waits at start for each device's first verdict before READY (0..60)
    ready_wait: float = setting(5.0, bound=Bound(0, 60, "s", why="systemd's start timeout is longer"),
                            doc="seconds the daemon waits at start for each device's first answer")


@dataclass(frozen=True)
class ControlConfig:
    """Who may use the control socket, and where its ``decks`` command reads manifests
    (docs/daemon.md, "The control socket"; docs/configuration.md, ``[control]``)."""

    #: the group whose members may use the socket, besides root and the service's own user;
    #: None: nobody else. ``group_name`` is the name as written (for messages), or the number
    group: int | None = setting(None, kind=(str,), doc="its members may use the socket; a name or a number",
                            bound=Bound(0, 2**32 - 2, "(a group number), or a group name", whole=True,
                                        why="4294967295 is \"no group\" to the kernel"))
    group_name: str | None = None
    #: the folder ``decks`` reads manifests from, by plain file name; None: ``decks`` is refused
    manifests: str | None = setting(None, kind=(str,), doc="the folder `decks` reads manifests from")
    #: seconds a connection may stay without a complete request before it is closed
    idle_timeout: float = setting(30.0, bound=Bound(0.1, 3600, "s"),
                              doc="seconds a connection may go without a request before it is closed")


@dataclass(frozen=True)
class Config:
    path: Path
    table: TableSettings
    reader: ReaderConfig
    decks: tuple[Deck, ...]
    outputs: OutputConfig = field(default_factory=OutputConfig)
    #: the dealer's console (controller/config/console.py); None: no console
    console: ConsoleConfig | None = None
    #: the dealer's display (controller/config/display.py); None: no display
    display: DisplayConfig | None = None
    #: None: the table has no shuffler (hand shuffling)
    shuffler: ShufflerConfig | None = None
    journal: JournalConfig = field(default_factory=lambda: JournalConfig(path=None))
    control: ControlConfig = field(default_factory=ControlConfig)
    #: the room link (controller/config/room.py); None: no network
    room: RoomConfig | None = None
    #: the ``[[decks]]`` manifests' paths, in the decks' order (``tablectl doctor`` checks that the
    #: service's user can read them)
    manifests: tuple[str, ...] = ()

    def registry(self) -> DeckRegistry:
        reg = DeckRegistry()
        for d in self.decks:
            reg.add(d)
        return reg


# -- the schema of the file's own sections (the console's, the display's, the room's: in their modules)

TABLE = Section("table", (
    Key("game", TableSettings.game, choices=tuple(GAMES), wrong="{value} is not supported (games: {choices})",
        shown='`"holdem"`; with a rotation, its first game', doc="docs/games.md"),
    Key("seats", list(TableSettings.seats), doc="the seats dealt in",
        bound=Bound(1, 10, "(a seat number)", whole=True, each=True, why="the table's ten seats")),
    Key("button", None, shown="the highest seat", doc="the button's seat for the first hand",
        bound=Bound(1, 10, "(a seat number)", whole=True, why="a dead button may be on a seat not dealt in")),
    Key("deck_in_play", TableSettings.deck_in_play, doc="the id of the deck being dealt (one of [[decks]])"),
    Key("confirm_cycles", TableSettings.confirm_cycles, doc="firm reads before a card counts as arrived",
        bound=Bound(1, 20, "reader cycles", whole=True, why="more would take seconds to see a card arrive; under "
                                                            "2 misses the false-move budget (docs/tracking.md)")),
    Key("gone_cycles", TableSettings.gone_cycles, doc="cycles unheard before a card counts as off the table",
        bound=Bound(1, 200, "reader cycles", whole=True, why="about ten seconds at the reader's pace; under 20 "
                                                             "misses the budget under the harsh noise")),
    Key("rotation", None, kind=(str, list), shown="none (one game)",
        doc=f"a mixed game (MIXED-001): a preset ({', '.join(PRESETS)}) or a list of two games or more"),
    Key("change", "orbit", choices=("orbit",), doc="MIXED_HANDS_PER_GAME: an orbit of the button, or a number of "
                                                   "hands",
        bound=Bound(1, 100, 'hands of each game (or "orbit")', whole=True,
                    why="MIXED_HANDS_PER_GAME; the guides give no number (001's counting chips)")),
    Key("count_redeal", False, doc="MIXED_COUNT_REDEAL: a misdealt hand counts one of the game's hands too"),
    Key("chinese_two_hands", TableSettings.chinese_two_hands,
        doc="CHIN-002: two players of Chinese poker play two hands each"),
    Key("event", TableSettings.event, choices=EVENTS, doc="cash: posting to come in, missed blinds (DEAL-007/008)"),
), file=TABLECTL_TOML)

RULES = Section("rules", (
    *(Key(name, default, choices=choices, doc=RULE_NOTES.get(name, ""))
      for name, (choices, default) in RULE_SETTINGS.items()),
    Key("round_done_pad", "auto", kind=(bool, str), choices=("auto",), wrong='want true, false or "auto", got {value}',
        doc="premature-card checks: on once the dealer has tapped round_done (auto), or always on or off"),
    Key("seats_max", RuleSettings.seats_max, bound=Bound(2, 10, "seats", whole=True, why="DEAL-012"),
        doc="DEAL-012: most seats a hand deals"),
    Key("rotate_decks", RuleSettings.rotate_decks, choices=ROTATIONS,
        doc="SHUF-007/RELIEF-001: the decks change places at each relief, or every hand"),
    Key("shuffler_floor_after", RuleSettings.shuffler_floor_after,
        bound=Bound(1, 3600, "s", why="up to an hour of a jammed shuffler before the floor is told"),
        doc="seconds a shuffler fault lasts before the floor is told"),
    Key("offline_floor_after", RuleSettings.offline_floor_after,
        bound=Bound(0.5, 3600, "s", why="up to an hour of a device gone before the floor is told"),
        doc="seconds a device may be gone before the floor is told"),
    Key("muck_timeout_s", RuleSettings.muck_timeout_s,
        bound=Bound(1, 600, "s", why="MUCK_TIMEOUT_S: a look at one's cards takes seconds; ten minutes is no fold"),
        doc="MUCK-001: seconds a card may be off its seat, arrived nowhere, before the dealer is told"),
    Key("stub_drop_s", RuleSettings.stub_drop_s,
        bound=Bound(1, 600, "s", why="STUB_DROP_S: the stub goes down once the last card is out"),
        doc="STUB-006: seconds after the last card by which the stub lies on its spot (a stub antenna)"),
    Key("max_runs", RuleSettings.max_runs, doc="BOARD-011 (MAX_RUNS): the most runs of a board (1: run once)",
        bound=Bound(1, 3, "runs", whole=True,
                    why="BOARD-011 (002 §RUNNING IT TWICE: two or three times, never more)")),
    Key("run_burns", RuleSettings.run_burns,
        doc="BOARD-011 (RUN_BURNS): each further run burns before each street as the first (false: no burns)"),
    Key("open_seat_hold", RuleSettings.open_seat_hold, doc="BREAK-002: open seats at which the dealer holds",
        bound=Bound(1, 10, "open seats", whole=True, why="BREAK-002 (OPEN_SEAT_HOLD: 3 in 001, 4 in 002)")),
    Key("late_stage_hold", RuleSettings.late_stage_hold, doc="BREAK-002: the same once late_stage",
        bound=Bound(1, 10, "open seats", whole=True, why="BREAK-002 (LATE_STAGE_HOLD: 2 in 001)")),
    Key("late_stage", RuleSettings.late_stage, doc="twelve or fewer tables remain (the floor sets it)"),
    Key("table_addon", RuleSettings.table_addon,
        doc="FLOW-008: the tournament sells a table add-on: a new player is offered it until his first card"),
    *(Key(name, getattr(RuleSettings, name), doc=doc,
          bound=Bound(0, 1000, "(the house's money)", whole=True,
                      why=f"FLOW-009 (the guide's {guide}: 002 §RAKE, §RAKE REDUCTION)"))
      for name, doc, guide in RAKE_KEYS),
), file=TABLECTL_TOML, doc="docs/rules.md §20 settings; the defaults are the proposed ones")

READER = section_of("reader", ReaderConfig, file=TABLECTL_TOML)
LEVELS = Section("reader.levels", (
    Key("*", doc="antenna number = its level (`tablectl calibrate` writes them); an antenna left out uses "
                 "strong_rssi",
        bound=Bound(1, 255, "(the reader's RSSI scale)", whole=True,
                    why="each antenna's own level (`tablectl calibrate`)")),
), file=TABLECTL_TOML)
CAPACITY = Section("reader.capacity", (
    Key("*", doc="antenna number = the most cards it can see at once (a two-card seat spot: 2); an antenna left "
                 "out has no limit",
        bound=Bound(1, 255, "cards", whole=True,
                    why="a cheap ISO 14443A module reads one or two cards of a stack; the bridge board says "
                        "each zone's in its handshake")),
), file=TABLECTL_TOML)
SHUFFLER = section_of("shuffler", ShufflerConfig, file=TABLECTL_TOML,
                      doc="leave the section out for a table that shuffles by hand")
#: (read by :meth:`ZoneMap.from_mapping`, whose errors name the antenna and the zone)
ANTENNAS = Section("antennas", (
    Key("*", kind=(str,), doc='antenna number = zone ("seat:N", "board", "burn", "muck", and "stub" for a stub '
                              'spot, STUB-006); default: 1..10 the seats, 11 board, 12 burn, 13 muck, no stub spot; '
                              "a map written replaces it whole"),
), file=TABLECTL_TOML)
DECK = Section("decks", (
    Key("id", "", required=True, doc="the deck's id ([table] deck_in_play names one)"),
    Key("back", "", required=True, doc="its back's colour: a table's two decks differ (DECK-004)"),
    Key("manifest", "", required=True, doc='its manifest: one "UID CARD" per line, 52 cards'),
), file=TABLECTL_TOML, array=True, doc="at most two (DECK-005)")
JOURNAL = section_of("journal", JournalConfig, file=TABLECTL_TOML,
                     doc="leave it out and nothing survives a restart")
OUTPUTS = section_of("outputs", OutputConfig, file=TABLECTL_TOML)
CONTROL = section_of("control", ControlConfig, file=TABLECTL_TOML)

#: the sections of the file, in the docs' order
SECTIONS: tuple[Section, ...] = (TABLE, RULES, READER, LEVELS, CAPACITY, SHUFFLER, ANTENNAS, DECK, JOURNAL, OUTPUTS,
                                 CONTROL, *CONSOLE_SECTIONS, DISPLAY, ROOM)
#: the file's top-level sections
KNOWN = sorted(s.name for s in SECTIONS if "." not in s.name)

#: Every numeric key of the file and its range (``section.key``, or ``section.*``: any key of the
#: section), as the schema declares them: the index every number is read through (a number the
#: index lacks fails every load), and docs/configuration.md's "Numeric bounds", written from it
#: (tests/unit/config/test_config_bounds.py tries every key).
BOUNDS: dict[str, Bound] = TABLECTL_TOML.bounds


# -- the checks of more than one key, and of what the schema cannot say --------------------------

def _toml(text: str, src: str) -> dict[str, Any]:
    """The TOML document, of known sections only."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{src}: not valid TOML: {exc}") from None
    except RecursionError:  # (tomllib recurses once per [ or { )
        raise ConfigError(f"{src}: not valid TOML: arrays or inline tables nested too deeply") from None
    except ValueError:  # int() of more digits than Python converts (sys.get_int_max_str_digits)
        raise ConfigError(f"{src}: not valid TOML: {_long_number(text)}") from None
    for name in doc:
        if name not in KNOWN:
            raise ConfigError(f"{src}: [{shown_key(name)}]: unknown section (sections: {', '.join(KNOWN)})")
    return doc


def _rotation(t: Values) -> Rotation:
    """``[table] rotation`` (a preset's name or a list of games), ``change`` ("orbit" or the hands
    of each game: MIXED_HANDS_PER_GAME) and ``count_redeal`` (MIXED_COUNT_REDEAL): MIXED-001."""
    value = t["rotation"]
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
    return Rotation(games, None if t["change"] == "orbit" else t["change"], t["count_redeal"])


def _game(t: Values, rotation: Rotation) -> str:
    """``[table] game``: a mixed table's is one of its rotation's (left out: the first)."""
    if rotation.games and "game" not in t:
        return rotation.games[0]
    if rotation.games and t["game"] not in rotation.games:
        raise t.err("game", f"{shorten(t['game'])} is not in the rotation ({', '.join(rotation.games)}): the game "
                            f"a mixed table starts with is one of its rotation's (leave it out: the first)")
    return str(t["game"])


def _seats(t: Values) -> tuple[tuple[int, ...], int]:
    """``[table] seats``, each once and at least two, and the button (left out: the highest seat)."""
    seats = t["seats"]
    if len(set(seats)) != len(seats):
        raise t.err("seats", f"a seat is listed twice: {show_value(seats)}")
    if len(seats) < 2:
        raise t.err("seats", "a hand needs at least two seats")
    return tuple(seats), max(seats) if t["button"] is None else t["button"]


def _rules(ru: Values) -> RuleSettings:
    """``[rules]``: ``round_done_pad = "auto"`` is None."""
    pad = ru["round_done_pad"]
    return RuleSettings(**{**ru.values, "round_done_pad": None if pad == "auto" else pad})


def _zones(src: str, a: object, seats: tuple[int, ...], *, muck: bool = True) -> ZoneMap:
    """``[antennas]``: the default map, or one that feeds every seat dealt in, the board, the burn
    and the muck (a written map replaces the default: a zone left out is one the daemon is blind to).
    ``muck`` False (``[reader] muck_antenna = false``): a map that feeds no muck, written out."""
    if a is None:
        if not muck:
            raise ConfigError(f"{src}: [reader] muck_antenna = false: write the [antennas] map, without "
                              f"the muck (the default map has antenna 13 under it)")
        return ZoneMap.default()
    if not isinstance(a, dict):
        raise ConfigError(f"{src}: [antennas] must be a table of antenna number = zone")
    try:
        zones = ZoneMap.from_mapping(a)
    except ZoneError as exc:
        raise ConfigError(f"{src}: [antennas] {exc}") from exc
    fed = set(zones.by_antenna.values())
    if not muck and "muck" in fed:
        raise ConfigError(f"{src}: [antennas] {zones.antennas_of('muck')[0]} feeds the muck, and [reader] "
                          f"muck_antenna = false says there is none")
    unfed = [f"seat:{n}" for n in seats if f"seat:{n}" not in fed] + \
        [z for z in ("board", "burn", "muck") if z not in fed and (muck or z != "muck")]
    if unfed:
        raise ConfigError(f"{src}: [antennas]: no antenna feeds {unfed[0]} (a map you write replaces the "
                          f"default: list every seat of [table] seats, the board, the burn and the muck)")
    return zones


def _reader(r: Values, zones: ZoneMap) -> ReaderConfig:
    """``[reader]`` and its ``[reader.levels]``; every antenna within what ANT_SEL selects."""
    reader = ReaderConfig(**{**r.values, "levels": _levels(LEVELS.read(r.src, r["levels"]), zones),
                             "capacity": _capacity(CAPACITY.read(r.src, r["capacity"]), zones)})
    too_high = [n for n in zones.by_antenna if n > 8 * reader.antenna_select_bytes]
    if too_high:
        raise ConfigError(f"{r.src}: [antennas] {too_high[0]}: antenna beyond what "
                          f"[reader] antenna_select_bytes = {reader.antenna_select_bytes} can select")
    return reader


def _capacity(s: Values, zones: ZoneMap) -> dict[int, int]:
    """``[reader.capacity]``: antenna number = the most cards it can see at once."""
    out = {}
    for name, n in s.entries.items():
        if not (name.isascii() and name.isdigit() and len(name) <= 3 and int(name) in zones.by_antenna):
            raise s.err(name, "not an antenna of [antennas] (keys are antenna numbers)")
        out[int(name)] = n
    return out


def _levels(s: Values, zones: ZoneMap) -> dict[int, int]:
    """``[reader.levels]``: antenna number = its level (``tablectl calibrate`` writes them)."""
    out = {}
    for name, level in s.entries.items():
        if not (name.isascii() and name.isdigit() and len(name) <= 3 and int(name) in zones.by_antenna):
            raise s.err(name, "not an antenna of [antennas] (keys are antenna numbers)")
        out[int(name)] = level
    return out


def _decks(src: str, raw: object, base: Path, deck_in_play: str) -> tuple[list[Deck], list[str]]:
    """``[[decks]]`` with their manifests read, and the manifests' paths: two decks at most, no tag
    shared, their backs told apart at a glance (DECK-004), the deck in play among them."""
    if not isinstance(raw, list):
        raise ConfigError(f"{src}: [[decks]] must be an array of tables")
    decks, paths = [], []
    for i, d in enumerate(raw, 1):
        deck, path = _deck(DECK.read(src, d, label=f"decks #{i}"), base)
        decks.append(deck)
        paths.append(path)
    try:
        reg = DeckRegistry()
        for deck in decks:
            reg.add(deck)
    except RegistryError as exc:
        raise ConfigError(f"{src}: [[decks]] {exc}") from exc
    backs: dict[str, str] = {}
    for deck in decks:  # DECK-004: the pair must be told apart at a glance
        if deck.back.lower() in backs:
            raise ConfigError(f"{src}: [[decks]] back: decks {shorten(backs[deck.back.lower()])} and "
                              f"{shorten(deck.id)} both have {shorten(deck.back)} backs; a table's two decks must "
                              f"differ (DECK-004)")
        backs[deck.back.lower()] = deck.id
    if decks and deck_in_play not in {d.id for d in decks}:
        raise ConfigError(f"{src}: [table] deck_in_play: no deck {shorten(deck_in_play)} among [[decks]]")
    return decks, paths


#: what each deck must give, and the refusal without it
DECK_NEEDS = (("id", "every deck needs an id"), ("back", "every deck needs a back colour"),
              ("manifest", "every deck needs a manifest file (UID CARD per line)"))


def _deck(s: Values, base: Path) -> tuple[Deck, str]:
    """One ``[[decks]]`` table: the deck with its manifest read, and the manifest's path."""
    for name, refusal in DECK_NEEDS:
        if not s[name]:
            raise s.err(name, refusal)
    mpath = (base / s["manifest"]) if not Path(s["manifest"]).is_absolute() else Path(s["manifest"])
    try:
        data = read_bounded(mpath, MANIFEST_MAX_BYTES)
        cards = parse_manifest(data, source=str(mpath))
        check_header(data, deck_id=s["id"], back=s["back"], source=str(mpath))  # (its own first line)
    except OSError as exc:
        raise s.err("manifest", f"cannot read {mpath}: {exc.strerror or exc}") from None
    except RegistryError as exc:
        raise s.err("manifest", str(exc)) from None
    except ValueError as exc:
        raise s.err("manifest", f"{mpath}: {exc}; a manifest is at most that") from None
    return Deck(s["id"], s["back"], cards), str(mpath)


def _journal(jr: Values, base: Path) -> JournalConfig:
    """``[journal]``: its path relative to the file's folder, in a folder that exists."""
    path = str(jr.path("path", base))
    if not Path(path).parent.is_dir():
        raise jr.err("path", f"folder {Path(path).parent} does not exist (under systemd, "
                             f"StateDirectory=tablectl creates /var/lib/tablectl)")
    return JournalConfig(path=path, retention_days=jr["retention_days"])


def _outputs(o: Values, base: Path) -> OutputConfig:
    """``[outputs]``: the feed and the control socket relative to the file's folder, in folders
    that exist."""
    paths = {name: str(base / o[name]) if o[name] else None for name in ("feed", "control")}
    for name, path in paths.items():
        if path and not Path(path).parent.is_dir():
            raise o.err(name, f"folder {Path(path).parent} does not exist (under systemd, "
                              f"RuntimeDirectory=tablectl creates /run/tablectl)")
    return OutputConfig(**{**o.values, **paths})


def parse_config(text: str, *, path: Path) -> Config:
    """Parse and check a configuration. Relative paths are relative to the file's folder."""
    src, base = str(path), path.parent
    doc = _toml(text, src)
    t = TABLE.read(src, doc.get("table", {}))
    rotation = _rotation(t)
    game = _game(t, rotation)
    seats, button = _seats(t)
    rules = _rules(RULES.read(src, doc.get("rules", {})))
    raw_reader = READER.read(src, doc.get("reader", {}))
    zones = _zones(src, doc.get("antennas"), seats, muck=raw_reader["muck_antenna"])
    reader = _reader(raw_reader, zones)
    decks, manifests = _decks(src, doc.get("decks", []), base, t["deck_in_play"])
    shuffler = ShufflerConfig(**SHUFFLER.read(src, doc["shuffler"]).values) if "shuffler" in doc else None
    journal = _journal(JOURNAL.read(src, doc["journal"]), base) if "journal" in doc else JournalConfig(path=None)
    outputs = _outputs(OUTPUTS.read(src, doc.get("outputs", {})), base)
    control = _control(CONTROL.read(src, doc.get("control", {})), base)
    table = TableSettings(game=game, seats=seats, button=button, deck_in_play=t["deck_in_play"], zones=zones,
                          confirm_cycles=t["confirm_cycles"], gone_cycles=t["gone_cycles"], rules=rules,
                          event=t["event"], strong_rssi=reader.strong_rssi, rssi_levels=dict(reader.levels),
                          capacity=dict(reader.capacity),
                          rotation=rotation, chinese_two_hands=t["chinese_two_hands"])
    config = Config(path=path, table=table, reader=reader, decks=tuple(decks), outputs=outputs,
                    console=parse_console(doc, src=src), shuffler=shuffler, journal=journal,
                    control=control, room=parse_room(doc, src=src, base=base),
                    display=parse_display(doc, src=src, base=base), manifests=tuple(manifests))
    check_paths(config, manifests=[(f"[[decks]] #{i} manifest", m) for i, m in enumerate(manifests, 1)])
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
    written = _written_paths(config)
    read = [("the configuration file itself", str(config.path)), *(manifests or [])]
    _check_distinct(src, written, read)
    if config.control.manifests:
        _check_outside_manifests(src, written, config.control.manifests)
    if config.journal.path:
        _check_journal_file(src, config.journal.path)
    if config.outputs.control:
        _check_control_file(src, config.outputs.control)
    if config.outputs.feed:
        _check_feed_file(src, config.outputs.feed)


def _written_paths(config: Config) -> list[tuple[str, str]]:
    """``(key, path)`` of every file the daemon writes: the journal and its -wal, -shm and
    .hands, the feed, the control socket."""
    written: list[tuple[str, str]] = []
    if config.journal.path:
        j = config.journal.path
        written += [("[journal] path", j), ("[journal] path (its -wal)", j + "-wal"),
                    ("[journal] path (its -shm)", j + "-shm"), ("[journal] path (its .hands)", j + ".hands")]
    if config.outputs.feed:
        written.append(("[outputs] feed", config.outputs.feed))
    if config.outputs.control:
        written.append(("[outputs] control", config.outputs.control))
    return written


def _check_distinct(src: str, written: list[tuple[str, str]], read: list[tuple[str, str]]) -> None:
    """No file written is another written or one read (by path, symlink or hard link); two files
    only read may be one."""
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


def _check_outside_manifests(src: str, written: list[tuple[str, str]], folder: str) -> None:
    """No file written is in ``[control] manifests`` (or is that folder): `decks` reads it."""
    real_folder, _ = _where(folder)
    for key, path in written:
        real, _ = _where(path)
        if real == real_folder or real.is_relative_to(real_folder):
            raise ConfigError(f"{src}: {key} ({real}) is inside [control] manifests ({real_folder}); the "
                              f"daemon writes it, and `decks` reads that folder: keep them apart (nothing "
                              f"was opened)")


def _check_control_file(src: str, path: str) -> None:
    """An existing ``[outputs] control`` must be a socket (an old one of the daemon's): anything
    else there the daemon would have to remove to bind its own."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise ConfigError(f"{src}: [outputs] control: cannot look at {path}: {exc.strerror}") from None
    if not stat.S_ISSOCK(st.st_mode):
        raise ConfigError(f"{src}: [outputs] control: {path} is {_kind(st.st_mode)}, not "
                          f"a socket; the daemon would have to remove it: point [outputs] control at a "
                          f"free path (nothing was opened)")


def _check_feed_file(src: str, path: str) -> None:
    """An existing ``[outputs] feed`` must be a file lines can be appended to: not a folder, not a
    socket."""
    try:
        st = os.stat(path)
    except OSError:
        return
    if stat.S_ISDIR(st.st_mode) or stat.S_ISSOCK(st.st_mode):
        raise ConfigError(f"{src}: [outputs] feed: {path} is {_kind(st.st_mode)}, not a "
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


def _control(c: Values, base: Path) -> ControlConfig:
    """``[control]``: the socket's allow-list and limits (docs/configuration.md); a group by name
    must exist, the manifests' folder too.

    >>> _control(CONTROL.read("t.toml", {"group": 4242, "idle_timeout": 5}), Path("."))
    ControlConfig(group=4242, group_name='4242', manifests=None, idle_timeout=5.0)
    """
    group = c["group"]  # a name, or a number in its bounds
    gid: int | None = group
    if isinstance(group, str):
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise c.err("group", f"no group {shorten(group)} on this system (make it: sudo groupadd NAME, then "
                                 f"sudo usermod -aG {group} USER for each floor account)") from None
    manifests = c["manifests"]
    if manifests is not None:
        if not manifests:
            raise c.err("manifests", "want a folder, got an empty string (leave the key out to refuse `decks`)")
        manifests = str(base / manifests)
        if not Path(manifests).is_dir():
            raise c.err("manifests", f"{manifests} is not a folder (make it, and put the deck manifests in it)")
    return ControlConfig(group=gid, group_name=None if group is None else str(group), manifests=manifests,
                         idle_timeout=c["idle_timeout"])


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
