"""The daemon's configuration: a TOML file, checked key by key.

A bad file gets one error that names the file, the key and what is wrong, e.g.
``tablectl.toml: [reader] baudrate: 12345 is not a FEIG baud rate (4800, 9600, ...)``.
See ``docs/configuration.md`` for every key.
"""

from __future__ import annotations

import grp
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.deck_rack import ROTATIONS
from controller.registry import Deck, DeckRegistry, RegistryError, parse_manifest
from controller.settings import GAMES, RULE_SETTINGS, RuleSettings, TableSettings
from controller.zones import ZoneError, ZoneMap

FEIG_BAUDS = (4800, 9600, 19200, 38400, 57600, 115200)


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names the file and the key."""


@dataclass(frozen=True)
class ReaderConfig:
    driver: str = "feig"
    port: str = "/dev/tablectl/reader"
    baudrate: int = 38400
    parity: str = "E"
    address: int = 0xFF
    answer_timeout: float = 0.5
    max_timeouts: int = 3
    poll_interval: float = 0.0
    antenna_select_bytes: int = 2
    strong_rssi: int = 150


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
    #: the dealer's console (controller/service/console_config.py); None: no console
    console: Any = None
    #: None: the table has no shuffler (hand shuffling)
    shuffler: ShufflerConfig | None = None
    journal: JournalConfig = field(default_factory=lambda: JournalConfig(path=None))
    control: ControlConfig = field(default_factory=ControlConfig)
    #: the room link (controller/service/room_config.py); None: no network
    room: Any = None

    def registry(self) -> DeckRegistry:
        reg = DeckRegistry()
        for d in self.decks:
            reg.add(d)
        return reg


class _Section:
    """Typed access to one table of the TOML document, with errors that name the key."""

    def __init__(self, src: str, name: str, data: Any) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{src}: [{name}] must be a table")
        self.src, self.name, self.data = src, name, data
        self.used: set[str] = set()

    def err(self, key: str, what: str) -> ConfigError:
        return ConfigError(f"{self.src}: [{self.name}] {key}: {what}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any) -> Any:
        self.used.add(key)
        if key not in self.data:
            return default
        value = self.data[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        bool_ok = kind is bool or (isinstance(kind, tuple) and bool in kind)
        if not isinstance(value, kind) or (isinstance(value, bool) and not bool_ok):
            names = {"int": "a whole number", "float": "a number", "str": "a string", "list": "a list",
                     "bool": "true or false"}
            want = names.get(kind.__name__, kind.__name__) if isinstance(kind, type) else \
                " or ".join(names.get(k.__name__, k.__name__) for k in kind)
            raise self.err(key, f"want {want}, got {value!r}")
        return value

    def positive(self, key: str, kind: type, default: Any, *, zero_ok: bool = False) -> Any:
        value = self.get(key, kind, default)
        if value < 0 or (value == 0 and not zero_ok):
            raise self.err(key, f"must be {'zero or more' if zero_ok else 'positive'}, got {value!r}")
        return value

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            raise self.err(unknown[0], "unknown key (see docs/configuration.md)")


def parse_config(text: str, *, path: Path) -> Config:
    """Parse and check a configuration. Relative paths are relative to the file's folder."""
    src = str(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{src}: not valid TOML: {exc}") from exc
    known = {"table", "rules", "reader", "antennas", "decks", "outputs", "console", "shuffler", "journal",
             "control", "room"}
    for key in doc:
        if key not in known:
            raise ConfigError(f"{src}: [{key}]: unknown section (sections: {', '.join(sorted(known))})")
    base = path.parent

    t = _Section(src, "table", doc.get("table", {}))
    game = t.get("game", str, "holdem")
    if game not in GAMES:
        raise t.err("game", f"{game!r} is not supported (games: {', '.join(GAMES)})")
    seats = t.get("seats", list, list(range(1, 10)))
    if not seats or not all(isinstance(s, int) and not isinstance(s, bool) and 1 <= s <= 10 for s in seats):
        raise t.err("seats", f"want a list of seat numbers 1 to 10, got {seats!r}")
    if len(set(seats)) != len(seats):
        raise t.err("seats", f"a seat is listed twice: {seats!r}")
    if len(seats) < 2:
        raise t.err("seats", "a hand needs at least two seats")
    button = t.get("button", int, max(seats))
    if not 1 <= button <= 10:
        raise t.err("button", f"want a seat number 1 to 10, got {button}")
    deck_in_play = t.get("deck_in_play", str, "A")
    confirm = t.positive("confirm_cycles", int, 3)
    gone = t.positive("gone_cycles", int, 8)
    t.finish()

    ru = _Section(src, "rules", doc.get("rules", {}))
    rule_values: dict[str, Any] = {}
    for key, (choices, default) in RULE_SETTINGS.items():
        value = ru.get(key, str, default)
        if value not in choices:
            raise ru.err(key, f"want one of {', '.join(choices)}, got {value!r}")
        rule_values[key] = value
    pad = ru.get("round_done_pad", (bool, str), "auto")
    if isinstance(pad, str) and pad != "auto":
        raise ru.err("round_done_pad", f"want true, false or \"auto\", got {pad!r}")
    rule_values["round_done_pad"] = None if pad == "auto" else pad
    seats_max = ru.positive("seats_max", int, 10)
    if not 2 <= seats_max <= 10:
        raise ru.err("seats_max", f"want 2 to 10, got {seats_max}")
    rotate = ru.get("rotate_decks", str, "relief")
    if rotate not in ROTATIONS:
        raise ru.err("rotate_decks", f"want one of {', '.join(ROTATIONS)}, got {rotate!r}")
    floor_after = ru.positive("shuffler_floor_after", float, 30.0)
    offline_after = ru.positive("offline_floor_after", float, 60.0)
    ru.finish()
    rules = RuleSettings(seats_max=seats_max, rotate_decks=rotate, shuffler_floor_after=floor_after,
                         offline_floor_after=offline_after, **rule_values)

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
        raise r.err("driver", f"{driver!r} is not a reader driver (drivers: feig)")
    reader = ReaderConfig(
        driver=driver,
        port=r.get("port", str, ReaderConfig.port),
        baudrate=r.get("baudrate", int, 38400),
        parity=r.get("parity", str, "E"),
        address=r.get("address", int, 0xFF),
        answer_timeout=r.positive("answer_timeout", float, 0.5),
        max_timeouts=r.positive("max_timeouts", int, 3),
        poll_interval=r.positive("poll_interval", float, 0.0, zero_ok=True),
        antenna_select_bytes=r.get("antenna_select_bytes", int, 2),
        strong_rssi=r.get("strong_rssi", int, 150),
    )
    if not 1 <= reader.strong_rssi <= 255:
        raise r.err("strong_rssi", f"want 1..255 (the reader's RSSI scale), got {reader.strong_rssi}")
    if reader.baudrate not in FEIG_BAUDS:
        raise r.err("baudrate", f"{reader.baudrate} is not a FEIG baud rate ({', '.join(map(str, FEIG_BAUDS))})")
    if reader.parity not in ("N", "E", "O"):
        raise r.err("parity", f"want 'N', 'E' or 'O', got {reader.parity!r}")
    if not 0 <= reader.address <= 255:
        raise r.err("address", f"want 0..255, got {reader.address}")
    if reader.antenna_select_bytes not in (1, 2, 4):
        raise r.err("antenna_select_bytes", f"want 1, 2 or 4, got {reader.antenna_select_bytes}")
    too_high = [n for n in zones.by_antenna if n > 8 * reader.antenna_select_bytes]
    if too_high:
        raise ConfigError(f"{src}: [antennas] {too_high[0]}: antenna beyond what "
                          f"[reader] antenna_select_bytes = {reader.antenna_select_bytes} can select")
    r.finish()

    decks: list[Deck] = []
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
        try:
            cards = parse_manifest(mpath.read_text(), source=str(mpath))
        except OSError as exc:
            raise s.err("manifest", f"cannot read {mpath}: {exc.strerror or exc}") from exc
        except RegistryError as exc:
            raise s.err("manifest", str(exc)) from exc
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
            raise ConfigError(f"{src}: [[decks]] back: decks {backs[d.back.lower()]!r} and {d.id!r} both have "
                              f"{d.back!r} backs; a table's two decks must differ (DECK-004)")
        backs[d.back.lower()] = d.id
    if decks and deck_in_play not in {d.id for d in decks}:
        raise ConfigError(f"{src}: [table] deck_in_play: no deck {deck_in_play!r} among [[decks]]")

    shuffler = None
    if "shuffler" in doc:
        sh = _Section(src, "shuffler", doc["shuffler"])
        shuffler = ShufflerConfig(
            port=sh.get("port", str, ShufflerConfig.port),
            baudrate=sh.positive("baudrate", int, 115200),
            poll_interval=sh.positive("poll_interval", float, 0.5),
            answer_timeout=sh.positive("answer_timeout", float, 0.3),
            max_timeouts=sh.positive("max_timeouts", int, 3),
        )
        if shuffler.baudrate not in (9600, 19200, 38400, 57600, 115200):
            raise sh.err("baudrate", f"want 9600, 19200, 38400, 57600 or 115200, got {shuffler.baudrate}")
        sh.finish()

    journal = JournalConfig(path=None)
    if "journal" in doc:
        jr = _Section(src, "journal", doc["journal"])
        jpath = jr.get("path", str, JournalConfig.path)
        jpath = str(base / jpath) if not Path(jpath).is_absolute() else jpath
        journal = JournalConfig(path=jpath, retention_days=jr.positive("retention_days", float, 30.0))
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
        ready_wait=o.positive("ready_wait", float, 5.0, zero_ok=True),
    )
    if outputs.ready_wait > 60:
        raise o.err("ready_wait", f"want 0 to 60 seconds, got {outputs.ready_wait:g}")
    for key, value in (("feed", outputs.feed), ("control", outputs.control)):
        if value and not Path(value).parent.is_dir():
            raise o.err(key, f"folder {Path(value).parent} does not exist (under systemd, "
                             f"RuntimeDirectory=tablectl creates /run/tablectl)")
    if outputs.log_level not in ("debug", "info", "warning", "error"):
        raise o.err("log_level", f"want debug, info, warning or error, got {outputs.log_level!r}")
    o.finish()

    control_cfg = _parse_control(_Section(src, "control", doc.get("control", {})), base)

    table = TableSettings(game=game, seats=tuple(seats), button=button, deck_in_play=deck_in_play,
                          zones=zones, confirm_cycles=confirm, gone_cycles=gone, rules=rules,
                          strong_rssi=reader.strong_rssi)
    from controller.service.console_config import parse_console  # (it imports this module)
    from controller.service.room_config import parse_room  # (it imports this module)

    return Config(path=path, table=table, reader=reader, decks=tuple(decks), outputs=outputs,
                  console=parse_console(doc, src=src), shuffler=shuffler, journal=journal,
                  control=control_cfg, room=parse_room(doc, src=src, base=base))


#: the longest and shortest idle time a control connection may be given, in seconds
IDLE_TIMEOUT_RANGE = (0.1, 3600.0)


def _parse_control(c: _Section, base: Path) -> ControlConfig:
    """``[control]``: the socket's allow-list and limits (docs/configuration.md).

    >>> s = _Section("t.toml", "control", {"group": 4242, "idle_timeout": 5})
    >>> _parse_control(s, Path("."))
    ControlConfig(group=4242, group_name='4242', manifests=None, idle_timeout=5.0)
    """
    group = c.get("group", (str, int), None)
    gid: int | None = None
    if isinstance(group, str):
        try:
            gid = grp.getgrnam(group).gr_gid
        except KeyError:
            raise c.err("group", f"no group {group!r} on this system (make it: sudo groupadd {group}, then "
                                 f"sudo usermod -aG {group} USER for each floor account)") from None
    elif group is not None:
        if not 0 <= group < 2**32 - 1:
            raise c.err("group", f"want a group name or a group number 0..4294967294, got {group}")
        gid = group
    manifests = c.get("manifests", str, None)
    if manifests is not None:
        if not manifests:
            raise c.err("manifests", "want a folder, got an empty string (leave the key out to refuse `decks`)")
        manifests = str(base / manifests)
        if not Path(manifests).is_dir():
            raise c.err("manifests", f"{manifests} is not a folder (make it, and put the deck manifests in it)")
    lo, hi = IDLE_TIMEOUT_RANGE
    idle = c.get("idle_timeout", float, ControlConfig.idle_timeout)
    if not lo <= idle <= hi:  # (nan is in no range)
        raise c.err("idle_timeout", f"want {lo:g} to {hi:g} seconds, got {idle!r}")
    c.finish()
    return ControlConfig(group=gid, group_name=None if group is None else str(group), manifests=manifests,
                         idle_timeout=idle)


def load_config(path: str | Path) -> Config:
    p = Path(path)
    try:
        text = p.read_text()
    except OSError as exc:
        raise ConfigError(f"{p}: cannot read the configuration: {exc.strerror or exc}") from exc
    return parse_config(text, path=p)
