"""``[room]``: the table's link to the card room's MQTT broker (docs/room.md).

No ``[room]``, no network: the table works alone. With it, ``[journal]`` is required (the
journal is the outbox: nothing is published that is not on disk first).

>>> from pathlib import Path
>>> c = parse_room({"room": {"broker": "mqtt://127.0.0.1:1883", "room": "main", "table": "t7"},
...                 "journal": {}}, src="t.toml", base=Path("."))
>>> c.prefix, c.host, c.port, c.tls
('tablectl/main/t7', '127.0.0.1', 1883, False)
>>> parse_room({"room": {"broker": "mqtt://broker.lan:1883", "room": "main", "table": "t7"},
...             "journal": {}}, src="t.toml", base=Path("."))  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
tablectl.config.daemon.ConfigError: t.toml: [room] broker: mqtt:// (no TLS) only for a broker on this host ...
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tablectl.config.daemon import ConfigError, _Section

#: a room or table name: it is a topic level, so no ``/``, ``+``, ``#`` or spaces
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
LOOPBACK_NAMES = ("localhost",)
#: the longest broadcast delay, in seconds (a production runs a few minutes behind at most)


@dataclass(frozen=True)
class RoomConfig:
    """The room link's settings, checked."""

    broker: str
    host: str
    port: int
    tls: bool
    room: str
    table: str
    username: str | None = None
    password_file: str | None = None
    cert_file: str | None = None
    key_file: str | None = None
    ca_file: str | None = None
    #: days of play the outbox keeps (acknowledged rows, for ``replay``; unacknowledged ones
    #: beyond it are dropped, counted and said)
    outbox_days: float = 7.0
    #: seconds after a card is dealt before ``broadcast`` may carry it; None: no ``broadcast``
    broadcast_delay: float | None = None
    #: the table's Ed25519 private key (room/signing.py): its records signed; None: unsigned
    signing_key: str | None = None

    @property
    def prefix(self) -> str:
        return f"tablectl/{self.room}/{self.table}"

    def password(self) -> str | None:
        """The password, read from ``password_file`` (first line) when the link connects."""
        if self.password_file is None:
            return None
        try:
            with open(self.password_file, encoding="utf-8") as f:
                return f.readline().strip()
        except (OSError, UnicodeDecodeError):
            return ""  # (checked when the configuration was read; gone since: the broker refuses it)


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_room(doc: dict[str, Any], *, src: str, base: Path) -> RoomConfig | None:
    """``[room]`` of the parsed TOML document ``doc``, or None without one."""
    if "room" not in doc:
        return None
    s = _Section(src, "room", doc["room"])
    broker = s.get("broker", str, "")
    if not broker:
        raise s.err("broker", "want the broker's address, e.g. \"mqtts://broker.lan:8883\"")
    try:
        url = urlsplit(broker)
        port_given = url.port
    except ValueError as exc:
        raise s.err("broker", f"not an address: {exc}") from None
    if url.scheme not in ("mqtt", "mqtts") or not url.hostname or url.path not in ("", "/") or url.query \
            or url.username or url.password:
        raise s.err("broker", f"want mqtts://HOST:PORT (or mqtt://127.0.0.1:PORT), got {broker!r}")
    host = url.hostname
    tls = url.scheme == "mqtts"
    if not tls and not is_loopback(host):
        raise s.err("broker", f"mqtt:// (no TLS) only for a broker on this host (127.0.0.1, ::1, localhost); "
                              f"for {host} use mqtts://{host}:8883")
    port = port_given or (8883 if tls else 1883)
    names = {}
    for key in ("room", "table"):
        value = s.get(key, str, "")
        if not NAME.fullmatch(value):
            raise s.err(key, f"want a name of 1 to 64 letters, digits, '_', '.' or '-' (a topic level), "
                             f"got {value[:70]!r}")
        names[key] = value

    def path(key: str) -> str | None:
        value = s.get(key, str, None)
        if value is None:
            return None
        p = Path(value) if Path(value).is_absolute() else base / value
        if not p.is_file():
            raise s.err(key, f"{p}: no such file")
        return str(p)

    username = s.get("username", str, None)
    password_file = path("password_file")
    if password_file is not None:  # (read now, as the daemon's user: a file it cannot read is one line here)
        try:
            with open(password_file, encoding="utf-8") as f:
                first = f.readline().strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise s.err("password_file", f"{password_file}: cannot read it: "
                                         f"{getattr(exc, 'strerror', None) or exc}") from None
        if not first:
            raise s.err("password_file", f"{password_file}: its first line is empty (it holds the password)")
    cert_file, key_file, ca_file = path("cert_file"), path("key_file"), path("ca_file")
    if (cert_file is None) != (key_file is None):
        raise s.err("cert_file" if cert_file is None else "key_file",
                    "a client certificate needs both cert_file and key_file")
    if password_file is not None and username is None:
        raise s.err("password_file", "a password needs a username")
    if (ca_file or cert_file) and not tls:
        raise s.err("ca_file" if ca_file else "cert_file", "certificates need an mqtts:// broker")
    signing_key = path("signing_key")
    if signing_key is not None:  # (read now: a key the daemon cannot use is one line here, not a crash later)
        from tablectl.room.signing import Signer

        try:
            Signer.from_file(signing_key)
        except (OSError, ValueError) as exc:
            raise s.err("signing_key", str(getattr(exc, "strerror", None) or exc)) from None
    days = s.number("outbox_days", 7.0)  # (bounds: config.BOUNDS, docs/configuration.md)
    delay = s.number("broadcast_delay", None)
    s.finish()
    if "journal" not in doc:
        raise ConfigError(f"{src}: [room] needs [journal]: the journal is the room link's outbox "
                          f"(nothing is published that is not on disk first)")
    return RoomConfig(broker=broker, host=host, port=port, tls=tls, room=names["room"], table=names["table"],
                      username=username, password_file=password_file, cert_file=cert_file, key_file=key_file,
                      ca_file=ca_file, outbox_days=days, broadcast_delay=delay, signing_key=signing_key)
