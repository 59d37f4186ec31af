"""A table's room bundle: what ``tablectl room enroll ... --bundle FILE`` makes on the broker's
host and ``tablectl setup --room-bundle FILE`` installs on the table's Pi, so that nothing is
typed twice: the broker's address, the room and the table's names, its username, its password,
its signing key and the room CA's certificate, in one TOML file (mode 0600: it holds secrets;
delete it once installed).

>>> text = bundle_text(broker="mqtts://broker.room.lan:8883", room="main", table="t7", username="table-main-t7",
...                    password="pw-123456", signing_key="ab" * 32, ca=None)
>>> b = parse_bundle(text, src="t7.bundle")
>>> b.room, b.table, b.username, b.ca
('main', 't7', 'table-main-t7', None)
>>> parse_bundle(text.replace('room = "main"', 'room = "a/b"'), src="t7.bundle")
Traceback (most recent call last):
...
ValueError: t7.bundle: room: want 1 to 64 letters, digits, '_', '.' or '-', got 'a/b'
"""

from __future__ import annotations

import json
import os
import tomllib
from dataclasses import dataclass
from pathlib import Path

from controller.config.keys import is_key
from controller.config.room import NAME

VERSION = 1
KEYS = ("version", "broker", "room", "table", "username", "password", "signing_key", "ca")


@dataclass(frozen=True)
class Bundle:
    broker: str
    room: str
    table: str
    username: str
    password: str
    signing_key: str
    #: the room CA's certificate (PEM), or None for a broker on the table's own host (mqtt://)
    ca: str | None


def bundle_text(*, broker: str, room: str, table: str, username: str, password: str, signing_key: str,
                ca: str | None) -> str:
    lines = ["# tablectl room bundle (docs/room.md): on the table's Pi, sudo tablectl setup --room-bundle THIS-FILE",
             "# It holds the table's password and signing key: mode 0600; delete it once installed.",
             f"version = {VERSION}"]
    for key, value in (("broker", broker), ("room", room), ("table", table), ("username", username),
                       ("password", password), ("signing_key", signing_key)):
        lines.append(f"{key} = {json.dumps(value)}")
    if ca is not None:
        lines.append(f"ca = {json.dumps(ca)}")
    return "\n".join(lines) + "\n"


def parse_bundle(text: str, *, src: str) -> Bundle:
    """A bundle's text, checked: ValueError naming the file and the key."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{src}: not a room bundle: {exc}") from None
    unknown = sorted(set(doc) - set(KEYS))
    if unknown:
        raise ValueError(f"{src}: {unknown[0]}: unknown key (a bundle of a newer release?)")
    if doc.get("version") != VERSION:
        raise ValueError(f"{src}: version: want {VERSION}, got {doc.get('version')!r}")
    for key in ("broker", "room", "table", "username", "password", "signing_key"):
        if not isinstance(doc.get(key), str) or not doc[key]:
            raise ValueError(f"{src}: {key}: missing, or not a string")
    for key in ("room", "table"):
        if not NAME.fullmatch(doc[key]):
            raise ValueError(f"{src}: {key}: want 1 to 64 letters, digits, '_', '.' or '-', got {doc[key][:70]!r}")
    if "\n" in doc["password"] or len(doc["password"]) < 8:
        raise ValueError(f"{src}: password: want one line of 8 characters or more")
    if not is_key(doc["signing_key"].lower()):
        raise ValueError(f"{src}: signing_key: want 64 hex digits (tablectl room enroll writes it)")
    ca = doc.get("ca")
    if ca is not None and (not isinstance(ca, str) or "-----BEGIN CERTIFICATE-----" not in ca):
        raise ValueError(f"{src}: ca: want the room CA's certificate (PEM)")
    return Bundle(broker=doc["broker"], room=doc["room"], table=doc["table"], username=doc["username"],
                  password=doc["password"], signing_key=doc["signing_key"].lower(), ca=ca)


def read_bundle(path: str | Path) -> Bundle:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"--room-bundle: {p}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_bundle(text, src=str(p))


def write_bundle(path: str | Path, text: str) -> None:
    """The bundle, made 0600 before a byte is in it; an existing file is not replaced."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(text)
