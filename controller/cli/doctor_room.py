"""``tablectl doctor``'s checks of the room link (``[room]`` of a table, docs/room.md) and of the
floor's service (``[floor]``, docs/floor.md): the files they read, the broker, the floor's
database. Each finding names its section, its key and its file.

- each file the section names (``password_file``, ``ca_file``, ``cert_file``, ``key_file``,
  ``signing_key``, and the floor's ``tls_cert``, ``tls_key``) exists and the service's user can
  read it; a secret (a password file, a private key) is that user's alone (its owner, 0600), also
  when the configuration is refused for it (a signing key readable by others);
- the broker answers at its address, over TLS verified against ``ca_file`` when ``mqtts://``,
  and accepts the section's user and password (a CONNECT with a client id of doctor's own: the
  running service's session is left alone);
- the floor's database: its folder exists and is writable by the service's user, and the file,
  once there, is the user's and private (it holds cards);
- a running table's link (its ``ping``): the floor's tournament signals it refused, if any.

>>> private_mode_problem(0o100600), private_mode_problem(0o100640)
(None, '0640: a secret must be readable by its owner alone (0600)')
"""

from __future__ import annotations

import os
import socket
import ssl
import stat
import time
import tomllib
from pathlib import Path
from typing import TYPE_CHECKING, Any

from controller.cli.checks import SERVICE_USER, Check, Identity, can_access, owner_mode
from controller.config.daemon import ConfigError
from controller.config.floor import load_floor

if TYPE_CHECKING:  # (a type only here: paho is imported by the check that connects, see check_broker)
    import paho.mqtt.client as mqtt

#: seconds doctor waits for the broker to answer
BROKER_TIMEOUT = 3.0
#: the files a section may name: key -> whether it holds a secret (the service user's alone, 0600)
FILE_KEYS = {"password_file": True, "ca_file": False, "cert_file": False, "key_file": True,
             "signing_key": True, "tls_cert": False, "tls_key": True}
#: the secrets of ``[room]`` (docs/room.md: owned by the service's user, 0600)
ROOM_SECRETS = ("password_file", "key_file", "signing_key")


def private_mode_problem(mode: int, what: str = "a secret") -> str | None:
    """What is wrong with a secret's mode (group or others may read it), or None."""
    if stat.S_IMODE(mode) & 0o077:
        return f"{stat.S_IMODE(mode):04o}: {what} must be readable by its owner alone (0600)"
    return None


def check_files(section: str, cfg: Any, ident: Identity) -> list[Check]:
    """Each file ``cfg`` names (:data:`FILE_KEYS`): there, readable by ``ident``, a secret private."""
    out = []
    for key, secret in FILE_KEYS.items():
        path = getattr(cfg, key, None)
        if path is None:
            continue
        where = f"[{section}] {key}: {path}"
        if not os.path.isfile(path):
            out.append(Check("fail", f"{where} does not exist (or is not a file)", f"put it there, or fix {key}"))
            continue
        if not can_access(path, ident, os.R_OK):
            out.append(Check("fail", f"{where} ({owner_mode(path)}) is not readable by {ident.name}",
                             f"sudo chown {ident.name}: {path}; sudo chmod {'600' if secret else '644'} {path}"))
            continue
        wrong = secret_problem(where, path, ident) if secret else None
        if wrong is not None:
            out.append(wrong)
            continue
        out.append(Check("ok", f"{where} ({owner_mode(path)}) is readable by {ident.name}"))
    return out


def secret_problem(where: str, path: str, ident: Identity) -> Check | None:
    """A secret (a password, a private key) must be ``ident``'s alone: owned by it, mode 0600. A
    file of root's group-readable by the service (``root:tablectl 0640``, as a recursive chmod of
    the configuration's folder leaves it) is readable, but refused (the signing key) or exposed
    (the password): the fix must give it to the service's user, since a chmod alone would leave
    the service unable to read it."""
    st = os.stat(path)
    mine = ident.uid == 0 or st.st_uid == ident.uid  # (a service run as root reads whatever it owns)
    problem = private_mode_problem(st.st_mode)
    if mine and problem is None:
        return None
    if mine:
        return Check("fail", f"{where} is {problem}", f"sudo chmod 600 {path}")
    return Check("fail", f"{where} ({owner_mode(path)}) must be {ident.name}'s alone (owner {ident.name}, 0600): a "
                         f"secret the service reads as {ident.name}",
                 f"sudo chown {ident.name}: {path} && sudo chmod 600 {path}")


def unloaded_room_secrets(config_path: str, ident: Identity) -> list[Check]:
    """For a configuration that did not load: the ``[room]`` secrets it names, each with its owner
    and mode judged, so that a secret refused as the configuration loads (a signing key readable by
    others) gets the fix that works for the service's user. Read from the file's TOML as it is
    (relative paths from its folder); nothing if it cannot be read or names none."""
    try:
        with open(config_path, "rb") as f:
            room = tomllib.load(f).get("room")
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return []
    if not isinstance(room, dict):
        return []
    out = []
    for key in ROOM_SECRETS:
        value = room.get(key)
        if not isinstance(value, str) or not value:
            continue
        path = str(Path(config_path).parent / value) if not os.path.isabs(value) else value
        if os.path.isfile(path):
            wrong = secret_problem(f"[room] {key}: {path}", path, ident)
            if wrong is not None:
                out.append(wrong)
    return out


def check_broker(section: str, cfg: Any, *, timeout: float = BROKER_TIMEOUT) -> Check:
    """Whether the broker of ``cfg`` (a RoomConfig or a FloorConfig) accepts a connection with
    its TLS files and credentials, within ``timeout`` seconds."""

    # (paho imported here: only a configuration with [room] (or the floor's) has a broker to try;
    # the doctor of a table without one never loads the room link's library)
    import paho.mqtt.client as mqtt
    from paho.mqtt.enums import CallbackAPIVersion

    host, port = cfg.host, getattr(cfg, "port_mqtt", None) or cfg.port
    where = f"[{section}] broker: {cfg.broker}"
    c = mqtt.Client(CallbackAPIVersion.VERSION2, client_id=f"tablectl-doctor-{os.getpid()}", protocol=mqtt.MQTTv5)
    c.connect_timeout = timeout
    failed = _set_tls(c, cfg, where) if cfg.tls else None
    if failed is None and cfg.username is not None:
        failed = _set_login(c, section, cfg)
    if failed is not None:
        return failed
    answer: dict[str, Any] = {}
    c.on_connect = lambda client, userdata, flags, reason, props: answer.setdefault("reason", reason)
    failed = _connect(c, cfg, where, host, port, timeout)
    if failed is not None:
        return failed
    _wait_for_answer(c, answer, timeout)
    return _verdict(answer.get("reason"), cfg, where, f"{host}:{port}", timeout)


def _set_tls(c: mqtt.Client, cfg: Any, where: str) -> Check | None:
    """The client's TLS from ``cfg``'s files (the broker's certificate verified); a failed check
    if they do not load."""
    try:
        c.tls_set(ca_certs=cfg.ca_file, certfile=cfg.cert_file, keyfile=cfg.key_file,
                  cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT)
    except (OSError, ssl.SSLError) as exc:
        named = f"cert_file {cfg.cert_file} with key_file {cfg.key_file}" if cfg.cert_file else \
            f"ca_file {cfg.ca_file}"
        return Check("fail", f"{where}: cannot load {named}: {_why(exc)}",
                     "give a PEM certificate and its own private key (docs/room.md, step 2)")
    return None


def _set_login(c: mqtt.Client, section: str, cfg: Any) -> Check | None:
    """The client's user and the password from ``cfg``'s password file; a failed check if the file
    cannot be read."""
    try:
        password = cfg.password()
    except (OSError, UnicodeDecodeError) as exc:
        return Check("fail", f"[{section}] password_file: {cfg.password_file}: cannot read it: {_why(exc)}",
                     f"sudo chown {SERVICE_USER}: {cfg.password_file}; sudo chmod 600 {cfg.password_file}")
    c.username_pw_set(cfg.username, password)
    return None


def _connect(c: mqtt.Client, cfg: Any, where: str, host: str, port: int, timeout: float) -> Check | None:
    """Open the connection (and TLS); a failed check naming what stood in the way, None once
    connected (the broker's answer still to come)."""
    try:
        c.connect(host, port, keepalive=max(5, int(timeout) + 1))
    except ssl.SSLCertVerificationError as exc:
        return Check("fail", f"{where}: the broker's certificate does not verify against ca_file {cfg.ca_file}: "
                             f"{exc.verify_message}",
                     "give the room CA that signed the broker's certificate (docs/room.md, step 2), and an "
                     "address the certificate names")
    except ssl.SSLError as exc:
        return Check("fail", f"{where}: TLS failed: {_why(exc)}", "is this the broker's TLS port (8883)?")
    except ConnectionRefusedError:
        return Check("fail", f"{where}: nothing accepts connections at {host}:{port}",
                     "start mosquitto (systemctl status mosquitto), or fix the address in broker")
    except socket.gaierror as exc:
        return Check("fail", f"{where}: cannot resolve {host}: {_why(exc)}", "fix the host name in broker")
    except OSError as exc:  # (a timeout, no route...)
        return Check("fail", f"{where}: cannot reach {host}:{port}: {_why(exc) or 'no answer'}",
                     "check the network and the broker's firewall")
    return None


def _wait_for_answer(c: mqtt.Client, answer: dict[str, Any], timeout: float) -> None:
    """Run the client until the broker's CONNACK is in ``answer`` (or ``timeout``), then hang up."""
    from paho.mqtt.client import MQTT_ERR_SUCCESS  # (loaded by check_broker already: see there)

    deadline = time.monotonic() + timeout
    try:
        while "reason" not in answer and time.monotonic() < deadline:
            if c.loop(timeout=0.1) != MQTT_ERR_SUCCESS:
                break
    finally:
        c.disconnect()


def _verdict(reason: Any, cfg: Any, where: str, address: str, timeout: float) -> Check:
    """The check from the broker's CONNACK reason (None: it never answered)."""
    user = cfg.username
    if reason is None:
        return Check("fail", f"{where}: {address} accepted the connection but never answered as an MQTT "
                             f"broker within {timeout:g} s",
                     "is this the broker's port? mqtts:// for its TLS listener")
    if reason.is_failure:
        fix = (f"the user and the password in password_file {cfg.password_file} must be the broker's "
               f"(mosquitto_passwd /etc/mosquitto/tablectl.passwd {user}); the ACL must list the user"
               if user is not None else "give username and password_file (the broker refuses anonymous clients)")
        return Check("fail", f"{where}: the broker refused user {user or '(anonymous)'}: {reason}", fix)
    how = f"TLS verified against {cfg.ca_file or 'the system CAs'}" if cfg.tls else "no TLS: this host only"
    return Check("ok", f"{where} accepts user {user or '(anonymous)'} ({how})")


def check_room(room: Any, ident: Identity, *, timeout: float = BROKER_TIMEOUT) -> list[Check]:
    """A table's ``[room]``: its files, then its broker."""
    files = check_files("room", room, ident)
    if any(f.failed for f in files):  # (a connection with files that cannot be read says nothing more)
        return files
    return [*files, check_broker("room", room, timeout=timeout)]


def daemon_room_checks(room: Any) -> list[Check]:
    """What a running daemon's ``ping`` says of its room link (``room``, absent without
    ``[room]``): the floor's tournament signals it refused (docs/room.md, "The tournament signal").

    >>> daemon_room_checks({"signals": {"received": 4, "refused": 0, "last_refused": None}})
    []
    >>> [c.what for c in daemon_room_checks({"signals": {"received": 4, "refused": 2,
    ...                                      "last_refused": "tournament signal: v: want 1"}})]
    ['daemon: 2 tournament signal(s) from the floor refused (the last: tournament signal: v: want 1); the table \
keeps what it last applied']
    """
    signals = room.get("signals") if isinstance(room, dict) else None
    if not isinstance(signals, dict) or not signals.get("refused"):
        return []
    return [Check("warn", f"daemon: {signals['refused']} tournament signal(s) from the floor refused (the last: "
                          f"{signals.get('last_refused')}); the table keeps what it last applied",
                  "the floor's service published what the table cannot read: see the floor's log and its "
                  "version (docs/room.md, \"The tournament signal\")")]


def check_floor_database(path: str, ident: Identity) -> list[Check]:
    """The floor's database: its folder writable by ``ident``, the file (and SQLite's -wal and
    -shm beside it) readable and writable by ``ident`` and private."""
    db = Path(path)
    folder = db.parent
    where = f"[floor] database: {db}"
    if not folder.is_dir():
        return [Check("fail", f"{where}: folder {folder} does not exist",
                      f"under systemd, StateDirectory=tablectl-floor creates /var/lib/tablectl-floor; or "
                      f"sudo install -d -o {ident.name} -m 0700 {folder}")]
    if not can_access(folder, ident, os.W_OK | os.X_OK):
        return [Check("fail", f"{where}: folder {folder} ({owner_mode(folder)}) is not writable by {ident.name}",
                      f"sudo chown {ident.name}: {folder}; sudo chmod 700 {folder}")]
    out = []
    for f in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        if not f.exists():
            continue
        if not can_access(f, ident, os.R_OK | os.W_OK):
            out.append(Check("fail", f"[floor] database: {f} ({owner_mode(f)}) is not readable and writable by "
                                     f"{ident.name}", f"sudo chown {ident.name}: {f}"))
            continue
        problem = private_mode_problem(os.stat(f).st_mode, "it holds cards: it")
        if problem is not None:
            out.append(Check("fail", f"[floor] database: {f} is {problem}",
                             f"sudo chmod 600 {db}*"))
    if out:
        return out
    there = "private" if db.exists() else "not there yet (the service creates it, 0600)"
    return [Check("ok", f"{where}: folder writable by {ident.name}; the file is {there}")]


def floor_checks(path: str, ident: Identity, *, timeout: float = BROKER_TIMEOUT) -> list[Check]:
    """``tablectl doctor --floor FILE``: the floor's configuration loads, then its files, its
    database and its broker."""

    try:
        cfg = load_floor(Path(path))
    except ConfigError as exc:
        return [Check("fail", str(exc), "fix the key it names (docs/floor.md)")]
    out = [Check("ok", f"floor: {path} loads (broker {cfg.broker}, listening on {cfg.listen}:{cfg.port})")]
    files = check_files("floor", cfg, ident)
    out += files
    out += check_floor_database(cfg.database, ident)
    if not any(f.failed for f in files):
        out.append(check_broker("floor", cfg, timeout=timeout))
    return out


def _why(exc: BaseException) -> str:
    return str(getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc)
