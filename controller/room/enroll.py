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
topic read tablectl/main/t7/floor/tournament
"""

from __future__ import annotations

import base64
import json
import hashlib
import os
import secrets
import sys
from pathlib import Path

from controller.config.floor_tables import add_table_key, check_free
from controller.config.room import NAME
from controller.room.bundle import bundle_text, parse_bundle, write_bundle
from controller.room.signing import Signer, new_key_pair
import shutil
import subprocess

#: mosquitto 2's PBKDF2-SHA512 iterations (mosquitto_passwd's default)
ITERATIONS = 101
WRITES = ("state", "events/public", "events/dealer", "events/floor", "hands", "broadcast", "cmd/reply")
#: what a table reads: the floor's commands and its tournament signal (its own only)
READS = ("cmd", "floor/tournament")


def username(room: str, table: str) -> str:
    return f"table-{room}-{table}"


def password_line(user: str, password: str, *, salt: bytes | None = None, iterations: int = ITERATIONS) -> str:
    """``user:$7$iterations$salt$hash``, as mosquitto_passwd writes it."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations)
    return f"{user}:$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def acl_lines(room: str, table: str) -> str:
    """The table's ACL: it writes only under its own topics, reads only its own ``cmd`` and its
    own tournament signal (the floor's, retained: controller/room/tournament.py)."""
    prefix = f"tablectl/{room}/{table}"
    return "\n".join([f"user {username(room, table)}", *(f"topic write {prefix}/{t}" for t in WRITES),
                       *(f"topic read {prefix}/{t}" for t in READS)])


def signing_key(table: str, room: str, folder: Path) -> tuple[Path, str]:
    """The table's Ed25519 key pair (room/signing.py): the private key written to
    ``DIR/TABLE.signing-key`` (0600, made so before a byte is in it); returns its path and the
    public key, for the floor's ``[floor.tables]``."""

    path = folder / f"{table}.signing-key"
    if path.exists():
        raise ValueError(f"{path} exists: remove it first to make a new key (and give the floor the new public key)")
    private, public = new_key_pair()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(private + "\n")
    return path, public


def _signing_lines(room: str, table: str, path: Path, public: str) -> str:
    return (f"# the table's signing key: {path} (mode 0600; copy it to the table as its [room] signing_key):\n"
            f"signing_key = \"/etc/tablectl/room.signing-key\"\n\n"
            f"# on the floor, in floor.toml (its records' signatures are checked: docs/room.md):\n"
            f"[floor.tables]\n\"{room}/{table}\" = \"{public}\"\n\n")


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
    key_path = folder / f"{table}.signing-key"
    if key_path.exists():
        raise ValueError(f"{key_path} exists: remove it first to make a new key")
    password = secrets.token_urlsafe(32)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(password + "\n")
    key_path, public = signing_key(table, room, folder)
    user = username(room, table)
    return (f"# the table's password: {path} (mode 0600; copy it to the table as its [room] password_file)\n"
            f"# on the table, in tablectl.toml:\n[room]\nbroker = \"mqtts://BROKER:8883\"\nroom = \"{room}\"\n"
            f"table = \"{table}\"\nusername = \"{user}\"\npassword_file = \"/etc/tablectl/room.password\"\n"
            f"ca_file = \"/etc/tablectl/room-ca.crt\"\n"
            + _signing_lines(room, table, key_path, public) +
            f"# on the broker, append to /etc/mosquitto/tablectl.passwd:\n{password_line(user, password)}\n\n"
            f"# on the broker, append to /etc/mosquitto/tablectl.acl:\n{acl_lines(room, table)}\n\n"
            f"# then: systemctl reload mosquitto\n")


def enroll_cert(table: str, room: str, folder: Path, ca_cert: Path, ca_key: Path, days: int = 825) -> str:
    """A client certificate from the room's CA instead of a password: ``TABLE.key`` (0600) and
    ``TABLE.crt`` in ``folder``, CN the table's username (the broker's ``use_identity_as_username``),
    made with the openssl command; returns what to add where."""

    for what, value in (("TABLE", table), ("--room", room)):
        if not NAME.fullmatch(value):
            raise ValueError(f"{what}: want a name of 1 to 64 letters, digits, '_', '.' or '-', got {value[:70]!r}")
    openssl = shutil.which("openssl")
    if openssl is None:
        raise ValueError("--cert needs the openssl command (apt install openssl)")
    for what, p in (("--ca-cert", ca_cert), ("--ca-key", ca_key)):
        if not p.is_file():
            raise ValueError(f"{what}: {p}: no such file")
    key, crt, csr = folder / f"{table}.key", folder / f"{table}.crt", folder / f"{table}.csr"
    for p in (key, crt):
        if p.exists():
            raise ValueError(f"{p} exists: remove it first to make a new certificate")
    user = username(room, table)
    os.close(os.open(key, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # (0600 before a byte is in it)
    try:
        for args in (["req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
                      str(key), "-out", str(csr), "-subj", f"/CN={user}"],
                     ["x509", "-req", "-in", str(csr), "-CA", str(ca_cert), "-CAkey", str(ca_key), "-CAcreateserial",
                      "-days", str(days), "-out", str(crt)]):
            r = subprocess.run([openssl, *args], capture_output=True, text=True)
            if r.returncode != 0:
                raise ValueError(f"openssl {args[0]} failed: {r.stderr.strip().splitlines()[-1] if r.stderr else ''}")
    except ValueError:
        key.unlink(missing_ok=True)
        raise
    finally:
        csr.unlink(missing_ok=True)
    os.chmod(key, 0o600)
    key_path, public = signing_key(table, room, folder)
    return (f"# the table's key and certificate: {key} (mode 0600), {crt}; copy both to the table\n"
            f"# on the table, in tablectl.toml:\n[room]\nbroker = \"mqtts://BROKER:8883\"\nroom = \"{room}\"\n"
            f"table = \"{table}\"\ncert_file = \"/etc/tablectl/room.crt\"\nkey_file = \"/etc/tablectl/room.key\"\n"
            f"ca_file = \"/etc/tablectl/room-ca.crt\"\n"
            + _signing_lines(room, table, key_path, public) +
            f"# on the broker: require_certificate true and use_identity_as_username true (docs/room/mosquitto.conf)\n"
            f"# on the broker, append to /etc/mosquitto/tablectl.acl:\n{acl_lines(room, table)}\n\n"
            f"# then: systemctl reload mosquitto\n")


def make_bundle(path: Path, table: str, room: str, folder: Path, *, broker: str, ca_file: str | None) -> str:
    """The table's room bundle (controller/room/bundle.py) from what :func:`enroll` made in
    ``folder``: for ``tablectl setup --room-bundle`` on the table's Pi; returns the line to print."""
    password = (folder / f"{table}.password").read_text().splitlines()[0]
    key = (folder / f"{table}.signing-key").read_text().splitlines()[0]
    ca = Path(ca_file).read_text() if ca_file else None
    text = bundle_text(broker=broker, room=room, table=table, username=username(room, table), password=password,
                       signing_key=key, ca=ca)
    parse_bundle(text, src=str(path))  # (what setup will read: checked here, before it travels)
    write_bundle(path, text)
    return (f"# the table's bundle: {path} (mode 0600). Copy it to the table's Pi, then there:\n"
            f"#   sudo tablectl setup --room-bundle {path.name}\n"
            f"# (it installs the password, the key, the room CA and [room], and opens the unit to the broker)\n")


#: the broker's files, as `tablectl floor setup --mosquitto` installs them (docs/room.md)
MOSQUITTO_PASSWD = "/etc/mosquitto/tablectl.passwd"
MOSQUITTO_ACL = "/etc/mosquitto/tablectl.acl"


def enrolled_already(user: str, passwd: str | Path, acl: str | Path) -> None:
    """ValueError if the broker's files name ``user`` already (before anything is made)."""
    for path in (Path(passwd), Path(acl)):
        lines = path.read_text().splitlines()
        if any(line.split(":", 1)[0] == user or line.strip() == f"user {user}" for line in lines):
            raise ValueError(f"--mosquitto: {path} has {user} already: remove its lines first to enroll it again")


def add_to_broker(table: str, room: str, folder: Path, *, passwd: str | Path = MOSQUITTO_PASSWD,
                  acl: str | Path = MOSQUITTO_ACL) -> str:
    """Append the table's password-file line and its ACL lines to the broker's files (on the
    broker's host: nothing copied by hand); refused if the user is in either already."""
    user = username(room, table)
    enrolled_already(user, passwd, acl)
    password = (folder / f"{table}.password").read_text().splitlines()[0]
    for path, lines in ((Path(passwd), password_line(user, password)), (Path(acl), acl_lines(room, table))):
        text = path.read_text()
        with open(path, "a") as f:
            f.write(("" if text.endswith("\n") or not text else "\n") + lines + "\n")
    return (f"# appended to {passwd} and {acl}; the broker reads them at: systemctl reload mosquitto\n")


def add_to_floor(table: str, room: str, folder: Path, floor_config: str | Path) -> str:
    """Put the table's public key (from the key :func:`signing_key` made in ``folder``) into the
    floor's ``[floor.tables]`` (controller/config/floor_tables.py: its owner and mode kept)."""
    seed = (folder / f"{table}.signing-key").read_text().splitlines()[0]
    public = Signer(bytes.fromhex(seed)).public()
    name = f"{room}/{table}"
    written = add_table_key(floor_config, name, public)
    return (f"# {'added to' if written else 'already in'} {floor_config} [floor.tables]: \"{name}\" = \"{public}\"; "
            f"the floor reads it at: systemctl restart tablectl-floor\n")


def main(table: str, room: str, folder: str, *, cert: bool = False, ca_cert: str | None = None,
         ca_key: str | None = None, bundle: str | None = None, broker: str | None = None,
         ca_file: str | None = None, mosquitto: bool = False, passwd: str | Path = MOSQUITTO_PASSWD,
         acl: str | Path = MOSQUITTO_ACL, floor_config: str | None = None) -> int:
    try:
        if floor_config is not None:  # (refused before anything is made: a new key would differ)
            try:
                text = Path(floor_config).read_text()
            except OSError as exc:
                raise ValueError(f"--floor-config: cannot read {floor_config}: {exc.strerror or exc}") from None
            check_free(text, f"{room}/{table}", what=f"--floor-config: {floor_config}: [floor.tables]")
        if bundle is not None:
            if cert:
                raise ValueError("--bundle: with a password (a client certificate travels as its two files)")
            if broker is None:
                raise ValueError("--bundle needs --broker (mqtts://HOST:8883, as the tables reach it)")
            if Path(bundle).exists():
                raise ValueError(f"--bundle: {bundle} exists: remove it first")
            if ca_file is not None and not Path(ca_file).is_file():
                raise ValueError(f"--ca-file: {ca_file}: no such file")
        if mosquitto:
            if cert:
                raise ValueError("--mosquitto: with a password (a certificate's table has no password line)")
            for path in (passwd, acl):
                if not Path(path).is_file():
                    raise ValueError(f"--mosquitto: {path}: no such file (tablectl floor setup --mosquitto makes it)")
            enrolled_already(username(room, table), passwd, acl)
        if cert:
            if ca_cert is None or ca_key is None:
                raise ValueError("--cert needs --ca-cert and --ca-key (the room CA's certificate and key)")
            if not Path(folder).is_dir():
                raise ValueError(f"--dir: {folder} is not a folder")
            print(enroll_cert(table, room, Path(folder), Path(ca_cert), Path(ca_key)), end="")
        else:
            text = enroll(table, room, Path(folder))
            if broker is not None:
                text = text.replace('broker = "mqtts://BROKER:8883"', f"broker = {json.dumps(broker)}")
            print(text, end="")
            if bundle is not None:
                print(make_bundle(Path(bundle), table, room, Path(folder), broker=broker or "", ca_file=ca_file),
                      end="")
            if mosquitto:
                print(add_to_broker(table, room, Path(folder), passwd=passwd, acl=acl), end="")
        if floor_config is not None:
            print(add_to_floor(table, room, Path(folder), floor_config), end="")
    except (ValueError, OSError) as exc:
        print(f"tablectl room enroll: {exc}", file=sys.stderr)
        return 2
    return 0
