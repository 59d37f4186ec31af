"""``[floor]``: the floor's service (docs/floor.md): its broker account, where it listens, its
database, its TLS certificate.

>>> from pathlib import Path
>>> c = parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1:1883"\\ndatabase = "floor.db"\\n',
...                      path=Path("/etc/tablectl/floor.toml"))
>>> c.listen, c.port, c.database, c.tls
('127.0.0.1', 8080, '/etc/tablectl/floor.db', False)
>>> parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1"\\nport = 0\\n', path=Path("f.toml"))
Traceback (most recent call last):
...
tablectl.config.daemon.ConfigError: f.toml: [floor] port: want a whole number from 1 to 65535, got 0
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tablectl.config.daemon import ConfigError, _Section
from tablectl.config.room import is_loopback


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

    def section_of(self, room: str, table: str) -> str | None:
        """The section ``room/table`` is in, or None.

        >>> c = parse_floor_text('[floor]\\nbroker = "mqtt://127.0.0.1"\\n[floor.sections]\\n'
        ...                      '"Pit A" = ["main/t1", "t2"]\\n', path=Path("f.toml"))
        >>> c.section_of("main", "t1"), c.section_of("east", "t2"), c.section_of("east", "t1")
        ('Pit A', 'Pit A', None)
        """
        for name, tables in self.sections.items():
            if f"{room}/{table}" in tables or table in tables:
                return name
        return None

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


def _whole(s: _Section, key: str, default: int, lo: int, hi: int) -> int:
    s.used.add(key)
    value = s.data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise s.err(key, f"want a whole number from {lo} to {hi}, got {value!r}")
    return value


def parse_floor(doc: dict[str, Any], *, src: str, base: Path) -> FloorConfig:
    """``[floor]`` of the parsed TOML document ``doc``."""
    if "floor" not in doc:
        raise ConfigError(f"{src}: no [floor] section (docs/floor.md)")
    s = _Section(src, "floor", doc["floor"])
    broker = s.get("broker", str, "")
    try:
        url = urlsplit(broker)
        port_given = url.port
    except ValueError as exc:
        raise s.err("broker", f"not an address: {exc}") from None
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname or url.path not in ("", "/"):
        raise s.err("broker", f"want mqtts://HOST:PORT (or mqtt://127.0.0.1:PORT), got {broker!r}")
    mqtt_tls = url.scheme == "mqtts"
    if not mqtt_tls and not is_loopback(url.hostname):
        raise s.err("broker", f"mqtt:// (no TLS) only for a broker on this host; use mqtts://{url.hostname}:8883")

    def path(key: str, must_exist: bool = True) -> str | None:
        value = s.get(key, str, None)
        if value is None:
            return None
        p = Path(value) if Path(value).is_absolute() else base / value
        if must_exist and not p.is_file():
            raise s.err(key, f"{p}: no such file")
        return str(p)

    username = s.get("username", str, None)
    password_file = path("password_file")
    if password_file is not None and username is None:
        raise s.err("password_file", "a password needs a username")
    ca_file, cert_file, key_file = path("ca_file"), path("cert_file"), path("key_file")
    if (cert_file is None) != (key_file is None):
        raise s.err("cert_file" if cert_file is None else "key_file",
                    "a client certificate needs both cert_file and key_file")
    tls_cert, tls_key = path("tls_cert"), path("tls_key")
    if (tls_cert is None) != (tls_key is None):
        raise s.err("tls_cert" if tls_cert is None else "tls_key", "HTTPS needs both tls_cert and tls_key")
    room = s.get("room", str, "+")
    if not room or any(c in room for c in "/#") or (room != "+" and "+" in room):
        raise s.err("room", f"want a room's name or \"+\" (every room), got {room!r}")
    client_id = s.get("client_id", str, "tablectl-floor")
    listen = s.get("listen", str, "127.0.0.1")
    port = _whole(s, "port", 8080, 1, 65535)
    session_seconds = _whole(s, "session_minutes", 720, 1, 10080) * 60
    database = path("database", must_exist=False) or str(base / "floor.db")
    secure_cookie = s.get("secure_cookie", bool, tls_cert is not None)
    command_timeout = _whole(s, "command_timeout", 10, 1, 300)
    table_keys = _table_keys(s)
    require_signatures = s.get("require_signatures", bool, False)
    login_delay = _whole(s, "login_delay", 1, 1, 60)
    sections = _sections(s)
    s.finish()
    return FloorConfig(broker=broker, host=url.hostname, port_mqtt=port_given or (8883 if mqtt_tls else 1883),
                       mqtt_tls=mqtt_tls, username=username, password_file=password_file, ca_file=ca_file,
                       cert_file=cert_file, key_file=key_file, client_id=client_id, room=room, listen=listen,
                       port=port, database=database, tls_cert=tls_cert, tls_key=tls_key,
                       session_seconds=session_seconds, secure_cookie=secure_cookie,
                       command_timeout=command_timeout, table_keys=table_keys,
                       require_signatures=require_signatures, login_delay=login_delay, sections=sections)


def _table_keys(s: _Section) -> dict[str, str]:
    """``[floor.tables]``: ``"room/table" = "64 hex digits"``, each table's public signing key."""
    from tablectl.room.signing import is_key  # (the floor's service, not the table: no cost to a Pi)

    s.used.add("tables")
    raw = s.data.get("tables", {})
    if not isinstance(raw, dict):
        raise s.err("tables", 'want a table of "room/table" = "the table\'s public key (64 hex digits)"')
    out = {}
    for name, key in raw.items():
        room, _, table = str(name).partition("/")
        if not room or not table or "/" in table or len(name) > 129:
            raise s.err(f"tables.{name}"[:80], 'want "room/table" as the key, e.g. "main/t7"')
        if not isinstance(key, str) or not is_key(key.lower()):
            raise s.err(f"tables.{name}"[:80], "want the table's public key: 64 hex digits (tablectl room enroll)")
        out[name] = key.lower()
    return out


#: the most sections, and the most tables in one
MAX_SECTIONS, MAX_SECTION_TABLES = 100, 500


def _sections(s: _Section) -> dict[str, tuple[str, ...]]:
    """``[floor.sections]``: ``"Pit A" = ["main/t1", "t2"]``, each table in one section at most."""
    s.used.add("sections")
    raw = s.data.get("sections", {})
    if not isinstance(raw, dict) or len(raw) > MAX_SECTIONS:
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
