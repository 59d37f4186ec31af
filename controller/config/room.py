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
controller.config.schema.ConfigError: t.toml: [room] broker: mqtt:// (no TLS) only for a broker on this host ...
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from controller.config.keys import read_key_file
from controller.config.schema import TABLECTL_TOML, Bound, ConfigError, Key, Section, Values

#: a room or table name: it is a topic level, so no ``/``, ``+``, ``#`` or spaces
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
LOOPBACK_NAMES = ("localhost",)


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


#: the files ``[room]`` names, relative to the configuration's folder; each must exist
FILES = ("password_file", "cert_file", "key_file", "ca_file", "signing_key")

ROOM = Section("room", (
    Key("broker", "", required=True,
        doc="mqtts://HOST[:PORT] (8883), or mqtt:// for a broker on this host (1883): 127.0.0.1, ::1, localhost"),
    Key("room", "", required=True, doc="the topic prefix tablectl/ROOM/TABLE/: each 1 to 64 letters, digits, "
                                       "'_', '.', '-'"),
    Key("table", "", required=True, doc="(with room)"),
    Key("username", None, kind=(str,), doc="from `tablectl room enroll`"),
    Key("password_file", None, kind=(str,), doc="its first line is the password; needs a username"),
    Key("cert_file", None, kind=(str,), doc="a client certificate from the room's CA, with key_file; only with "
                                            "mqtts://"),
    Key("key_file", None, kind=(str,), doc="its key, with cert_file"),
    Key("ca_file", None, kind=(str,), shown="the system's CAs",
        doc="the CA that signed the broker's certificate; only with mqtts://"),
    Key("outbox_days", RoomConfig.outbox_days,
        doc="acknowledged rows are kept this long (for `replay`); unacknowledged rows older than this are dropped, "
            "counted and said",
        bound=Bound(0.01, 366, "days", why="what the outbox keeps unacknowledged through a broker outage: a "
                                           "quarter of an hour to a year")),
    Key("broadcast_delay", RoomConfig.broadcast_delay, shown="off",
        doc="hole cards reach `broadcast` no earlier than this after they were dealt",
        bound=Bound(0.1, 3600, "s", why="off when absent; a production sets tens of seconds to minutes (the tests "
                                        "a fraction of a second)")),
    Key("signing_key", None, kind=(str,), shown="none (unsigned)",
        doc="the table's Ed25519 private key: its records signed (docs/room.md)"),
), file=TABLECTL_TOML, doc="the room link (docs/room.md); needs [journal]; leave it out for no network")


def parse_room(doc: dict[str, Any], *, src: str, base: Path) -> RoomConfig | None:
    """``[room]`` of the parsed TOML document ``doc``, or None without one."""
    if "room" not in doc:
        return None
    s = ROOM.read(src, doc["room"])
    host, port, tls = _broker(s)
    for key in ("room", "table"):
        if not NAME.fullmatch(s[key]):
            raise s.err(key, f"want a name of 1 to 64 letters, digits, '_', '.' or '-' (a topic level), "
                             f"got {s[key][:70]!r}")
    files = _files(s, base, tls)
    if "journal" not in doc:
        raise ConfigError(f"{src}: [room] needs [journal]: the journal is the room link's outbox "
                          f"(nothing is published that is not on disk first)")
    return RoomConfig(broker=s["broker"], host=host, port=port, tls=tls, room=s["room"], table=s["table"],
                      username=s["username"], outbox_days=s["outbox_days"], broadcast_delay=s["broadcast_delay"],
                      **files)


def _broker(s: Values) -> tuple[str, int, bool]:
    """``broker``: the host, the port and whether the link is TLS; no TLS only on this host."""
    broker = s["broker"]
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
    return host, port_given or (8883 if tls else 1883), tls


def _files(s: Values, base: Path, tls: bool) -> dict[str, str | None]:
    """The files of :data:`FILES`, each there, read now as the daemon's user where it must be
    (the password, the signing key: one line here, not a failure later); a certificate with its
    key, a password with a username, certificates with TLS only."""
    files = {key: s.path(key, base, file=True) for key in FILES}
    if files["password_file"] is not None:
        _check_password(s, files["password_file"])
    if (files["cert_file"] is None) != (files["key_file"] is None):
        raise s.err("cert_file" if files["cert_file"] is None else "key_file",
                    "a client certificate needs both cert_file and key_file")
    if files["password_file"] is not None and s["username"] is None:
        raise s.err("password_file", "a password needs a username")
    if (files["ca_file"] or files["cert_file"]) and not tls:
        raise s.err("ca_file" if files["ca_file"] else "cert_file", "certificates need an mqtts:// broker")
    if files["signing_key"] is not None:
        _check_signing_key(s, files["signing_key"])
    return files


def _check_password(s: Values, path: str) -> None:
    try:
        with open(path, encoding="utf-8") as f:
            first = f.readline().strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise s.err("password_file", f"{path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    if not first:
        raise s.err("password_file", f"{path}: its first line is empty (it holds the password)")


def _check_signing_key(s: Values, path: str) -> None:
    try:
        read_key_file(path)
    except (OSError, ValueError) as exc:
        raise s.err("signing_key", str(getattr(exc, "strerror", None) or exc)) from None
