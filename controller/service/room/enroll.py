"""``tablectl room enroll TABLE --room ROOM``: a table's credentials for the room's broker, and
its lines for mosquitto's password and ACL files (docs/room.md, "Enrolling a table").

The password is random (32 bytes, URL-safe base64), written to ``DIR/TABLE.password`` (mode
0600: the table's ``[room] password_file``); the password-file line is mosquitto's own format
(PBKDF2-SHA512, ``$7$``, as ``mosquitto_passwd`` writes it), so the password itself never
reaches the broker's host.

>>> print(acl_lines("main", "t7"))
user table-main-t7
topic write tablectl/main/t7/state
topic write tablectl/main/t7/events/public
topic write tablectl/main/t7/events/dealer
topic write tablectl/main/t7/events/floor
topic write tablectl/main/t7/hands
topic write tablectl/main/t7/broadcast
topic write tablectl/main/t7/cmd/reply
topic read tablectl/main/t7/cmd
"""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import sys
from pathlib import Path

from controller.service.room_config import NAME

#: mosquitto 2's PBKDF2-SHA512 iterations (mosquitto_passwd's default)
ITERATIONS = 101
WRITES = ("state", "events/public", "events/dealer", "events/floor", "hands", "broadcast", "cmd/reply")


def username(room: str, table: str) -> str:
    return f"table-{room}-{table}"


def password_line(user: str, password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """``user:$7$iterations$salt$hash``, as mosquitto_passwd writes it."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"{user}:$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_lines(room: str, table: str) -> str:
    """The table's ACL: it writes only under its own topics, reads only its own ``cmd``."""
    prefix = f"tablectl/{room}/{table}"
    return "\n".join([f"user {username(room, table)}", *(f"topic write {prefix}/{t}" for t in WRITES),
                      f"topic read {prefix}/cmd"])


def enroll(table: str, room: str, folder: Path) -> str:
    """Make the table's password file in ``folder``; return what to add where (printed)."""
    for what, value in (("TABLE", table), ("--room", room)):
        if not NAME.fullmatch(value):
            raise ValueError(f"{what}: want a name of 1 to 64 letters, digits, '_', '.' or '-', got {value[:70]!r}")
    if not folder.is_dir():
        raise ValueError(f"--dir: {folder} is not a folder")
    path = folder / f"{table}.password"
    if path.exists():
        raise ValueError(f"{path} exists: remove it first to make a new password (the old one stops working "
                         f"once its line is replaced in the broker's password file)")
    password = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(password + "\n")
    user = username(room, table)
    return (f"# the table's password: {path} (mode 0600; copy it to the table as its [room] password_file)\n"
            f"# on the table, in tablectl.toml:\n[room]\nbroker = \"mqtts://BROKER:8883\"\nroom = \"{room}\"\n"
            f"table = \"{table}\"\nusername = \"{user}\"\npassword_file = \"/etc/tablectl/room.password\"\n"
            f"ca_file = \"/etc/tablectl/room-ca.crt\"\n\n"
            f"# on the broker, append to /etc/mosquitto/tablectl.passwd:\n{password_line(user, password)}\n\n"
            f"# on the broker, append to /etc/mosquitto/tablectl.acl:\n{acl_lines(room, table)}\n\n"
            f"# then: systemctl reload mosquitto\n")


def main(table: str, room: str, folder: str) -> int:
    try:
        print(enroll(table, room, Path(folder)), end="")
    except (ValueError, OSError) as exc:
        print(f"tablectl room enroll: {exc}", file=sys.stderr)
        return 2
    return 0
