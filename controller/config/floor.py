"""``[floor]``: the floor's service (docs/floor.md): its broker account, where it listens, its
database, its TLS certificate, its sections and the tournaments it runs
(``[floor.tournaments.NAME]``, each with its structure file: controller/config/structure.py).

>>> from pathlib import Path
>>> c = parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1:1883"\\ndatabase = "floor.db"\\n',
...                      path=Path("/etc/tablectl/floor.toml"))
>>> c.listen, c.port, c.database, c.tls
('127.0.0.1', 8080, '/etc/tablectl/floor.db', False)
>>> parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1"\\nport = 0\\n', path=Path("f.toml"))
Traceback (most recent call last):
...
controller.config.schema.ConfigError: f.toml: [floor] port: want a whole number from 1 to 65535, got 0
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.config.keys import is_key
from controller.config.schema import Bound, ConfigError, File, Key, Section, Values
from controller.config.room import is_loopback
from controller.config.structure import Structure, load_structure


@dataclass(frozen=True)
class TournamentConfig:
    """One tournament the floor runs (``[floor.tournaments.NAME]``): its structure, its tables
    (named, and those of its sections) and the order they break (BREAK-004)."""

    name: str
    title: str
    structure: Structure
    #: its tables as the file names them: "room/table" or "table" (that name in any room)
    tables: tuple[str, ...] = ()
    #: its sections of ``[floor.sections]``
    sections: tuple[str, ...] = ()
    #: the order its tables break: the first one still running breaks next (the others after, by name)
    break_order: tuple[str, ...] = ()
    #: the players a table seats: a table breaks when the players left fit in one table fewer
    seats: int = 9


@dataclass(frozen=True)
class FloorConfig:
    """The floor service's settings, checked."""

    broker: str
    host: str
    port_mqtt: int
    mqtt_tls: bool
    username: str | None
    password_file: str | None
    ca_file: str | None
    cert_file: str | None
    key_file: str | None
    #: the MQTT client id: the broker keeps this session (and its queued messages) while we are away
    client_id: str
    #: the room(s) to follow: a name, or "+" for every room on the broker
    room: str
    listen: str
    port: int
    database: str
    tls_cert: str | None
    tls_key: str | None
    #: sessions expire after this many seconds without a request
    session_seconds: int
    #: the session cookie's Secure flag: on with HTTPS here, or set behind a TLS reverse proxy
    secure_cookie: bool
    #: seconds a table has to answer a command before the page shows it failed (or queued, the
    #: table offline)
    command_timeout: int = 10
    #: "room/table" -> the table's public signing key (``[floor.tables]``, from ``tablectl room
    #: enroll``): its records' signatures are checked (room/signing.py)
    table_keys: dict[str, str] = field(default_factory=dict)
    #: refuse the records of a table with no key in ``table_keys`` (a broker's owner cannot
    #: invent a table then)
    require_signatures: bool = False
    #: seconds an address waits after its free login tries, doubled with each further failure
    login_delay: int = 1
    #: the room's sections (pits), in the configuration's order: a name -> its tables, each
    #: "room/table" or "table" (that table name in any room) (``[floor.sections]``)
    sections: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the tournaments the floor runs, by name, in the file's order (``[floor.tournaments.NAME]``)
    tournaments: dict[str, TournamentConfig] = field(default_factory=dict)

    def tournament_of(self, room: str, table: str) -> str | None:
        """The tournament ``room/table`` plays in (named, or in one of its sections), or None."""
        section = self.section_of(room, table)
        named = _index(self, "_tournament_index", lambda: {
            x: name for name, t in reversed(self.tournaments.items()) for x in t.tables})
        by_section = _index(self, "_tournament_sections", lambda: {
            sec: name for name, t in reversed(self.tournaments.items()) for sec in t.sections})
        found = [x for x in (named.get(f"{room}/{table}"), named.get(table),
                             by_section.get(section) if section is not None else None) if x is not None]
        # (the first in the file's order, as a scan of the tournaments would find it)
        order = list(self.tournaments)
        return min(found, key=order.index) if found else None

    def section_of(self, room: str, table: str) -> str | None:
        """The section ``room/table`` is in, or None.

        >>> c = parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1"\\n[floor.sections]\\n'
        ...                      '"Pit A" = ["main/t1", "t2"]\\n', path=Path("f.toml"))
        >>> c.section_of("main", "t1"), c.section_of("east", "t2"), c.section_of("east", "t1")
        ('Pit A', 'Pit A', None)
        """
        # (a dict built once, not a scan of every section's tables: the page's push asks this of
        # each tile, and a room of several hundred tables would pay tiles x tables)
        index = _index(self, "_section_index", lambda: {
            x: name for name, tables in reversed(self.sections.items()) for x in tables})
        a, b = index.get(f"{room}/{table}"), index.get(table)
        if a is None or b is None:
            return a if b is None else b
        order = list(self.sections)
        return a if order.index(a) <= order.index(b) else b

    @property
    def https(self) -> bool:
        return self.tls_cert is not None

    @property
    def tls(self) -> bool:
        return self.mqtt_tls

    def password(self) -> str | None:
        if self.password_file is None:
            return None
        with open(self.password_file, encoding="utf-8") as f:
            return f.readline().strip()


#: the floor's file, floor.toml: a number out of range is refused ``[floor] port: want ..., got 0``
FLOOR_TOML = File("floor.toml", number_errors="want")

#: the files ``[floor]`` names, relative to the file's folder; each must exist
FILES = ("password_file", "ca_file", "cert_file", "key_file", "tls_cert", "tls_key")
#: the most tables of the largest room the floor is sized for (a tournament series' several
#: hundred tables, with room to spare: bench/floor.py measures 600): a section, a tournament's
#: tables, sections and break order each name at most this many
MAX_ROOM_TABLES = 1000
#: the most sections, and the most tables in one (a room of one section: all of it)
MAX_SECTIONS, MAX_SECTION_TABLES = 100, MAX_ROOM_TABLES
#: the most tournaments one floor runs
MAX_TOURNAMENTS = 20

FLOOR = Section("floor", (
    Key("broker", "", required=True, doc="mqtts://HOST[:PORT] (8883), or mqtt:// for a broker on this host (1883)"),
    Key("username", None, kind=(str,), doc="the floor's broker account"),
    Key("password_file", None, kind=(str,), doc="its first line is the password; needs a username"),
    Key("ca_file", None, kind=(str,), shown="the system's CAs", doc="the CA that signed the broker's certificate"),
    Key("cert_file", None, kind=(str,), doc="a client certificate, with key_file"),
    Key("key_file", None, kind=(str,), doc="its key, with cert_file"),
    Key("tls_cert", None, kind=(str,), doc="the page's HTTPS certificate, with tls_key; none: HTTP"),
    Key("tls_key", None, kind=(str,), doc="its key, with tls_cert"),
    Key("room", "+", doc='the room to follow, or "+" for every room on the broker'),
    Key("client_id", "tablectl-floor", doc="the MQTT client id: the broker keeps its session while the floor is away"),
    Key("listen", "127.0.0.1", doc="the address the page is served on"),
    Key("port", 8080, bound=Bound(1, 65535, "", whole=True, why="a TCP port"), doc="the page's port"),
    Key("session_minutes", 720, bound=Bound(1, 10080, "minutes", whole=True, why="a minute to a week"),
        doc="a session expires after this long without a request"),
    Key("database", "/var/lib/tablectl-floor/floor.db",
        doc="the floor's SQLite database (a relative path: from the file's folder); the default is the unit's "
            "StateDirectory, which the service may write"),
    Key("secure_cookie", None, kind=(bool,), shown="true with tls_cert",
        doc="the session cookie's Secure flag: set it behind a TLS reverse proxy"),
    Key("command_timeout", FloorConfig.command_timeout, bound=Bound(1, 300, "s", whole=True, why="up to five minutes"),
        doc="seconds a table has to answer a command before the page shows it failed (or queued)"),
    Key("tables", {}, want='a table of "room/table" = "the table\'s public key (64 hex digits)"',
        doc='[floor.tables]: "room/table" = its public signing key (`tablectl room enroll`): its records\' '
            "signatures are checked"),
    Key("require_signatures", FloorConfig.require_signatures,
        doc="refuse the records of a table with no key in [floor.tables]"),
    Key("login_delay", FloorConfig.login_delay, bound=Bound(1, 60, "s", whole=True, why="up to a minute"),
        doc="seconds an address waits after its free login tries, doubled with each further failure"),
    Key("sections", {}, want=f'up to {MAX_SECTIONS} sections: "Pit A" = ["main/t1", "t2"]',
        doc=f'[floor.sections]: the room\'s sections (pits) in order, "Pit A" = ["main/t1", "t2"]: up to '
            f"{MAX_SECTION_TABLES} tables each, \"room/table\" or \"table\", each table in one section"),
    Key("tournaments", {}, want=f"up to {MAX_TOURNAMENTS} tournaments: [floor.tournaments.NAME]",
        doc="[floor.tournaments.NAME]: the tournaments the floor runs (below)"),
), file=FLOOR_TOML, doc="the floor's service (docs/floor.md): its own file, floor.toml")

TOURNAMENT = Section("floor.tournaments.NAME", (
    Key("structure", "", required=True,
        doc="its structure file (levels, blinds, breaks: docs/structure-example.toml), relative to this file's folder"),
    Key("title", None, kind=(str,), shown="its name", doc="the clock screen's title (1 to 60 printable characters)"),
    Key("tables", [], doc='its tables, "room/table" or "table" (that name in any room)'),
    Key("sections", [], doc="its sections of [floor.sections]: their tables"),
    Key("break_order", [], doc="the order its tables break (BREAK-004): the first still running breaks next; "
                               "those not named after them, by name"),
    Key("seats", TournamentConfig.seats, bound=Bound(2, 10, "seats", whole=True, why="a table of 2 to 10 seats"),
        doc="the players a table seats: a table breaks when the players left fit in one table fewer"),
), file=FLOOR_TOML, doc="a tournament the floor runs (docs/floor.md, \"Running a tournament\"): NAME is "
                        "letters, digits, '_', '.', '-'; each table in one tournament")
#: the sections of the floor's file, in the docs' order
SECTIONS = (FLOOR, TOURNAMENT)
#: a tournament's name, as its signal carries it (controller/room/tournament.py)
TOURNAMENT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


def parse_floor(doc: dict[str, Any], *, src: str, base: Path) -> FloorConfig:
    """``[floor]`` of the parsed TOML document ``doc``."""
    if "floor" not in doc:
        raise ConfigError(f"{src}: no [floor] section (docs/floor.md)")
    s = FLOOR.read(src, doc["floor"])
    host, port_mqtt, mqtt_tls = _broker(s)
    files = _files(s, base)
    room = s["room"]
    if not room or any(c in room for c in "/#") or (room != "+" and "+" in room):
        raise s.err("room", f"want a room's name or \"+\" (every room), got {room!r}")
    database = str(s.path("database", base))  # (never None: it has a default)
    secure_cookie = files["tls_cert"] is not None if s["secure_cookie"] is None else s["secure_cookie"]
    sections = _sections(s)
    return FloorConfig(broker=s["broker"], host=host, port_mqtt=port_mqtt, mqtt_tls=mqtt_tls, username=s["username"],
                       client_id=s["client_id"], room=room, listen=s["listen"], port=s["port"], database=database,
                       session_seconds=s["session_minutes"] * 60, secure_cookie=secure_cookie,
                       command_timeout=s["command_timeout"], table_keys=_table_keys(s),
                       require_signatures=s["require_signatures"], login_delay=s["login_delay"],
                       sections=sections, tournaments=_tournaments(s, src, base, sections), **files)


def _broker(s: Values) -> tuple[str, int, bool]:
    """``broker``: the host, the port and whether the link is TLS; no TLS only on this host."""
    try:
        url = urlsplit(s["broker"])
        port_given = url.port
    except ValueError as exc:
        raise s.err("broker", f"not an address: {exc}") from None
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname or url.path not in ("", "/"):
        raise s.err("broker", f"want mqtts://HOST:PORT (or mqtt://127.0.0.1:PORT), got {s['broker']!r}")
    mqtt_tls = url.scheme == "mqtts"
    if not mqtt_tls and not is_loopback(url.hostname):
        raise s.err("broker", f"mqtt:// (no TLS) only for a broker on this host; use mqtts://{url.hostname}:8883")
    return url.hostname, port_given or (8883 if mqtt_tls else 1883), mqtt_tls


def _files(s: Values, base: Path) -> dict[str, str | None]:
    """The files of :data:`FILES`, relative to ``base``, each there; a password with a username, a
    certificate with its key."""
    files = {key: s.path(key, base, file=True) for key in FILES}
    if files["password_file"] is not None and s["username"] is None:
        raise s.err("password_file", "a password needs a username")
    for cert, key, what in (("cert_file", "key_file", "a client certificate"), ("tls_cert", "tls_key", "HTTPS")):
        if (files[cert] is None) != (files[key] is None):
            raise s.err(cert if files[cert] is None else key,
                        f"{what} needs both {cert} and {key}")
    return files


def _table_keys(s: Values) -> dict[str, str]:
    """``[floor.tables]``: ``"room/table" = "64 hex digits"``, each table's public signing key."""
    raw = s["tables"]
    out = {}
    for name, key in raw.items():
        room, _, table = str(name).partition("/")
        if not room or not table or "/" in table or len(name) > 129:
            raise s.err(f"tables.{name}"[:80], 'want "room/table" as the key, e.g. "main/t7"')
        if not isinstance(key, str) or not is_key(key.lower()):
            raise s.err(f"tables.{name}"[:80], "want the table's public key: 64 hex digits (tablectl room enroll)")
        out[name] = key.lower()
    return out


def _sections(s: Values) -> dict[str, tuple[str, ...]]:
    """``[floor.sections]``: ``"Pit A" = ["main/t1", "t2"]``, each table in one section at most."""
    raw = s["sections"]
    if len(raw) > MAX_SECTIONS:
        raise s.err("sections", f'want up to {MAX_SECTIONS} sections: "Pit A" = ["main/t1", "t2"]')
    out: dict[str, tuple[str, ...]] = {}
    where: dict[str, str] = {}
    for name, tables in raw.items():
        key = f"sections.{name}"[:80]
        if not 0 < len(name) <= 40 or not name.isprintable():
            raise s.err(key, "want a section's name of 1 to 40 printable characters")
        if not isinstance(tables, list) or not tables or len(tables) > MAX_SECTION_TABLES:
            raise s.err(key, f'want a list of 1 to {MAX_SECTION_TABLES} tables, "room/table" or "table"')
        for t in tables:
            parts = t.split("/") if isinstance(t, str) else []
            if not 1 <= len(parts) <= 2 or not all(p and len(p) <= 64 and p.isprintable() and "+" not in p
                                                   and "#" not in p for p in parts):
                raise s.err(key, f'want "room/table" or "table", got {str(t)[:40]!r}')
            if t in where:
                raise s.err(key, f"{t} is in section {where[t]!r} already: a table is in one section")
            where[t] = name
        out[name] = tuple(tables)
    return out


def _table_name(t: object) -> bool:
    """A table as the file names it: "room/table" or "table" (no MQTT wildcard)."""
    parts = t.split("/") if isinstance(t, str) else []
    return 1 <= len(parts) <= 2 and all(p and len(p) <= 64 and p.isprintable() and "+" not in p and "#" not in p
                                        for p in parts)


def _overlaps(a: str, b: str) -> bool:
    """Whether two tables as the file names them may be the same table ("t1" is "main/t1")."""
    return a == b or a.rpartition("/")[2] == b.rpartition("/")[2] and ("/" not in a or "/" not in b)


def _tournaments(s: Values, src: str, base: Path, sections: dict[str, tuple[str, ...]]) -> dict[str, TournamentConfig]:
    """``[floor.tournaments.NAME]``: each its structure (read and checked now), its tables and
    sections, its break order; a table in one tournament at most (its signal is one topic)."""
    raw = s["tournaments"]
    if len(raw) > MAX_TOURNAMENTS:
        raise s.err("tournaments", f"want up to {MAX_TOURNAMENTS} tournaments: [floor.tournaments.NAME]")
    out: dict[str, TournamentConfig] = {}
    taken: dict[str, str] = {}  # a table as named -> its tournament
    # the names taken by their table's part: only those can overlap (not every name taken, each
    # time: a room's thousand tables would cost a million comparisons)
    by_table: dict[str, list[str]] = {}
    for name, data in raw.items():
        if not TOURNAMENT_NAME.fullmatch(name):
            raise s.err(f"tournaments.{name}"[:80], "want a name of letters, digits, '_', '.', '-' (at most 64)")
        t = TOURNAMENT.read(src, data, label=f"floor.tournaments.{name}")
        _check_name_lists(t)
        members = _members(t, sections)
        for x in members:
            other = next((o for o in by_table.get(x.rpartition("/")[2], ()) if _overlaps(o, x)), None)
            if other is not None:
                raise t.err("tables", f"{x[:40]} is in tournament {taken[other]!r} already: a table plays in one")
        for x in members:
            taken[x] = name
            by_table.setdefault(x.rpartition("/")[2], []).append(x)
        strange = [x for x in t["break_order"] if x not in members]
        if strange:
            raise t.err("break_order", f"{strange[0][:40]!r} is not one of its tables (as its tables or "
                                       f"sections name them)")
        title = name if t["title"] is None else t["title"]
        if not 0 < len(title) <= 60 or not title.isprintable():
            raise t.err("title", "want 1 to 60 printable characters")
        out[name] = TournamentConfig(name=name, title=title, structure=_structure(t, base),
                                     tables=tuple(t["tables"]), sections=tuple(t["sections"]),
                                     break_order=tuple(t["break_order"]), seats=t["seats"])
    return out


def _check_name_lists(t: Values) -> None:
    """A tournament's tables, sections and break order: lists of names, each named once."""
    for key in ("tables", "sections", "break_order"):
        if not all(isinstance(x, str) for x in t[key]) or len(t[key]) > MAX_SECTION_TABLES:
            raise t.err(key, f"want a list of up to {MAX_SECTION_TABLES} names")
        once: set[str] = set()  # (a set, not a scan of the names before: a thousand names cost a thousand steps)
        twice = next((x for x in t[key] if x in once or once.add(x)), None)
        if twice is not None:
            raise t.err(key, f"{twice[:40]!r} is named twice")
    bad = [x for x in t["tables"] if not _table_name(x)]
    if bad:
        raise t.err("tables", f'want "room/table" or "table", got {bad[0][:40]!r}')


def _index(cfg: FloorConfig, attr: str, build: Any) -> dict[str, str]:
    """``cfg``'s lookup ``attr``, built by ``build()`` the first time (the configuration is frozen:
    set past the dataclass's guard, once)."""
    found = cfg.__dict__.get(attr)
    if found is None:
        found = build()
        object.__setattr__(cfg, attr, found)
    return found


def _members(t: Values, sections: dict[str, tuple[str, ...]]) -> list[str]:
    """A tournament's tables, as it names them and as its sections do (at least one)."""
    missing = [x for x in t["sections"] if x not in sections]
    if missing:
        raise t.err("sections", f"no section {missing[0][:40]!r} in [floor.sections]")
    members = [*t["tables"], *(x for sec in t["sections"] for x in sections[sec])]
    if not members:
        raise t.err("tables", "a tournament has tables: name them (tables) or its sections (sections)")
    return members


def _structure(t: Values, base: Path) -> Any:
    """A tournament's structure file, read and checked (relative to the configuration's folder)."""
    if "structure" not in t:
        raise t.err("structure", "missing: the tournament's structure file")
    structure_path = Path(t["structure"]) if Path(t["structure"]).is_absolute() else base / t["structure"]
    if not t["structure"] or not structure_path.is_file():
        raise t.err("structure", f"{structure_path}: no such file")
    return load_structure(structure_path)


def parse_floor_text(text: str, *, path: Path) -> FloorConfig:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return parse_floor(doc, src=str(path), base=path.parent)


def load_floor(path: Path) -> FloorConfig:
    """Read and check the floor's configuration file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    return parse_floor_text(text, path=path)
