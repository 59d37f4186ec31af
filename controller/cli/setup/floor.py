"""``tablectl floor setup``: the floor's server in one command (docs/floor.md, "Install").

It installs the floor's unit (systemd/tablectl-floor.service), the service's user (the same
systemd/tablectl.sysusers as a table's), its folder ``/var/lib/tablectl-floor`` (systemd/
tablectl-floor.tmpfiles), a configuration generated from the schema whose ``database`` is
absolute, in that folder (the unit makes /etc read-only), the floor's broker password (random,
0600, made once) and the first floor user (its password read once from the terminal, or one
line of standard input). With ``--mosquitto`` (on the broker's host) also the broker's set-up
from docs/room/: mosquitto's configuration, the ACL and the password file (each written only
when absent: ``tablectl room enroll`` appends the tables to them), and TLS: a room CA made once
(its key in /root/tablectl-room-ca, 0700: move it offline) and the broker's certificate for
``--broker-name``. It ends with the floor's checks (``tablectl doctor --floor``).
"""

from __future__ import annotations

import getpass
import os
import secrets
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TextIO

from controller.cli.setup.answers import FLOOR_KEYS, read_answers
from controller.cli.setup.plan import (EXIT_INPUT, Command, File, Folder, Item, Link, Runner, SetupError, Step,
                                       Target, remove)
from controller.cli.setup.skeleton import floor_config
from controller.cli.setup.table import SYSUSERS, VENV, _finish, source_tree
from controller.config.floor import parse_floor_text
from controller.floor.main import give_to_folder_owner
from controller.room.enroll import password_line

CONFIG = "/etc/tablectl/floor.toml"
PASSWORD = "/etc/tablectl/floor.password"
CA = "/etc/tablectl/room-ca.crt"
UNIT = "/etc/systemd/system/tablectl-floor.service"
TMPFILES = "/etc/tmpfiles.d/tablectl-floor.conf"
DATABASE = "/var/lib/tablectl-floor/floor.db"
MOSQUITTO_CONF = "/etc/mosquitto/conf.d/tablectl.conf"
MOSQUITTO_ACL = "/etc/mosquitto/tablectl.acl"
MOSQUITTO_PASSWD = "/etc/mosquitto/tablectl.passwd"
CERTS = "/etc/mosquitto/certs"
CA_DIR = "/root/tablectl-room-ca"
ROLES = ("floor", "technician", "viewer")


def _existing(target: Target, path: str) -> bytes | None:
    try:
        return target.path(path).read_bytes()
    except OSError:
        return None


def floor_password(target: Target) -> str:
    """The floor's broker password: the one already there, else a new random one."""
    old = _existing(target, PASSWORD)
    if old and old.decode(errors="replace").strip():
        return old.decode(errors="replace").splitlines()[0]
    return secrets.token_urlsafe(32)


def make_tls(target: Target, name: str, ips: list[str], *, dry: bool,
             run: Callable[[list[str]], Any] = lambda argv: subprocess.run(argv, check=True, capture_output=True,
                                                                            text=True, timeout=120)) -> str:
    """The room CA (once) and the broker's certificate for ``name`` (and ``ips``), signed by it,
    as docs/room.md's openssl commands make them; "" when the certificate is there already."""
    certs, ca_dir = target.path(CERTS), target.path(CA_DIR)
    if (certs / "broker.crt").exists():
        return ""
    said = f"the room CA ({CA_DIR}/room-ca.key: move it offline) and the broker's certificate for {name}"
    if dry:
        return f"make {said}"
    openssl = shutil.which("openssl")
    if openssl is None:
        raise OSError("openssl is not installed (apt-get install openssl)")
    ca_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    certs.mkdir(mode=0o755, parents=True, exist_ok=True)
    ca_key, ca_crt = ca_dir / "room-ca.key", ca_dir / "room-ca.crt"
    if not ca_crt.exists():
        run([openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
             "-days", "3650", "-keyout", str(ca_key), "-out", str(ca_crt), "-subj", "/CN=card room CA"])
        os.chmod(ca_key, 0o600)
    san = ",".join([f"DNS:{name}", *(f"IP:{ip}" for ip in ips)])
    ext = ca_dir / "san.ext"
    ext.write_text(f"subjectAltName={san}\n")
    run([openssl, "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(certs / "broker.key"), "-out", str(ca_dir / "broker.csr"), "-subj", f"/CN={name}"])
    run([openssl, "x509", "-req", "-in", str(ca_dir / "broker.csr"), "-CA", str(ca_crt), "-CAkey", str(ca_key),
         "-CAcreateserial", "-days", "825", "-out", str(certs / "broker.crt"), "-extfile", str(ext)])
    shutil.copyfile(ca_crt, certs / "room-ca.crt")
    gid = target.gid("mosquitto")
    for f in ("broker.key", "broker.crt", "room-ca.crt"):
        p = certs / f
        if gid is not None:
            os.chown(p, 0, gid)
        os.chmod(p, 0o640)
    return said


def add_first_user(target: Target, name: str, role: str, *, dry: bool, read_password: Callable[[], str]) -> str:
    """The first floor user, in the floor's database (owned by the service's user); "" when it
    exists already (``tablectl floor adduser`` changes it)."""
    db = target.path(DATABASE)
    if db.exists():
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
        try:
            has = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'users'").fetchone() and \
                con.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone()
        finally:
            con.close()
        if has:
            return ""
    if dry:
        return f"add the floor user {name} ({role}) to {DATABASE} (its password read once)"
    # (the floor's store and argon2, loaded only when a user is added)
    from controller.floor import auth
    from controller.floor.store import Store

    password = read_password()
    db.parent.mkdir(parents=True, exist_ok=True)
    store = Store(db)
    try:
        auth.add_user(store, name, role, password)
    finally:
        store.close()
    give_to_folder_owner(db)
    return f"the floor user {name} ({role}) added to {DATABASE}"


def password_once() -> str:
    """The first user's password: typed once at a terminal (it can be changed with ``tablectl
    floor adduser``), or the first line of standard input."""
    if sys.stdin.isatty():
        return getpass.getpass("the first floor user's password (8 characters or more): ")
    return sys.stdin.readline().rstrip("\n")


def floor_plan(target: Target, given: dict[str, Any], src: Path,
               read_password: Callable[[], str] = password_once) -> list[Item]:
    shipped = src / "systemd"
    ra = target.root_args()
    broker = given.get("broker")
    mosquitto = bool(given.get("mosquitto"))
    name = given.get("broker_name")
    if broker is None and mosquitto and name:
        broker = f"mqtts://{name}:8883"
    if not broker:
        raise SetupError("--broker: the room's broker (mqtts://HOST:8883), or --mosquitto --broker-name HOST")
    if mosquitto and not name:
        raise SetupError("--mosquitto needs --broker-name (the broker's host name, in its certificate)")
    ca_file = given.get("ca_file")
    password = floor_password(target)
    plan: list[Item] = [
        Folder("/etc/sysusers.d", 0o755),
        File(SYSUSERS, (shipped / "tablectl.sysusers").read_bytes(), 0o644, what="the service's user"),
        Command(("systemd-sysusers", *ra, "tablectl.conf"), "the user tablectl", after=(SYSUSERS,),
                needed=lambda: target.uid("tablectl") is None),
        Folder("/etc/tmpfiles.d", 0o755),
        File(TMPFILES, (shipped / "tablectl-floor.tmpfiles").read_bytes(), 0o644,
             what="/var/lib/tablectl-floor (systemd/tablectl-floor.tmpfiles)"),
        Command(("systemd-tmpfiles", *ra, "--create", "tablectl-floor.conf"), "/var/lib/tablectl-floor",
                after=(TMPFILES,), needed=lambda: not target.path("/var/lib/tablectl-floor").is_dir()),
        Folder("/etc/tablectl", 0o750, "root", "tablectl"),
        File(PASSWORD, (password + "\n").encode(), 0o600, "tablectl", "tablectl", "the floor's broker password",
             secret=True, keep_on_remove=True),
    ]
    if mosquitto:
        room = src / "docs" / "room"
        ips = list(given.get("broker_ip", []))
        plan += [
            Folder("/etc/mosquitto/conf.d", 0o755),
            File(MOSQUITTO_CONF, (room / "mosquitto.conf").read_bytes(), 0o644,
                 what="mosquitto's listener, TLS, ACL and passwords (docs/room/mosquitto.conf)"),
            Step("the room CA and the broker's certificate",
                 lambda dry, changed: make_tls(target, name, ips, dry=dry)),
        ]
        if _existing(target, MOSQUITTO_ACL) is None:
            plan.append(File(MOSQUITTO_ACL, (room / "acl").read_bytes(), 0o640, "root", "mosquitto",
                             "the ACL (docs/room/acl); room enroll appends the tables", keep_on_remove=True))
        if _existing(target, MOSQUITTO_PASSWD) is None:
            plan.append(File(MOSQUITTO_PASSWD, (password_line("floor", password) + "\n").encode(), 0o640, "root",
                             "mosquitto", "the broker's passwords: the floor's (room enroll appends the tables)",
                             secret=True, keep_on_remove=True))
        # the room CA's certificate, made by the step above (or there from an earlier run)
        plan.append(File(CA, lambda: _existing(target, f"{CA_DIR}/room-ca.crt"), 0o644, "root", "tablectl",
                         "the room CA's certificate (from the CA made above)"))
        ca_file = CA
        plan.append(Command(("systemctl", "reload-or-restart", "mosquitto.service"),
                            after=(MOSQUITTO_CONF, MOSQUITTO_ACL, MOSQUITTO_PASSWD), needs="systemd"))
    elif ca_file:
        try:
            ca_bytes = Path(ca_file).read_bytes()
        except OSError as exc:
            raise SetupError(f"--ca-file: {ca_file}: cannot read it: {exc.strerror or exc}") from None
        plan.append(File(CA, ca_bytes, 0o644, "root", "tablectl", "the room CA's certificate"))
    has_ca = ca_file is not None

    def check(temp: Path) -> None:
        parse_floor_text(temp.read_text(), path=temp)

    config = floor_config(broker=broker, room=given.get("room", "+"), ca_file="room-ca.crt" if has_ca else None,
                          listen=given.get("listen", "127.0.0.1"), port=int(given.get("port", 8080)))
    plan += [
        File(CONFIG, config.encode(), 0o640, "root", "tablectl", "the floor's configuration (loaded first)",
             check=check, keep_on_remove=True),
        File(UNIT, (shipped / "tablectl-floor.service").read_bytes(), 0o644,
             what="the unit (systemd/tablectl-floor.service)"),
        Link("/usr/local/bin/tablectl", f"{VENV}/bin/tablectl", "tablectl at a shell"),
    ]
    user = given.get("user")
    if user:
        role = given.get("role", "floor")
        if role not in ROLES:
            raise SetupError(f"--role: want {', '.join(ROLES)}, got {role!r}")
        plan.append(Step("the first floor user", lambda dry, changed: add_first_user(
            target, user, role, dry=dry, read_password=read_password)))
    plan += [
        Command(("systemctl", *ra, "enable", "tablectl-floor.service"), "start at boot",
                needed=lambda: not target.path(
                    "/etc/systemd/system/multi-user.target.wants/tablectl-floor.service").is_symlink()),
        Command(("systemctl", "daemon-reload"), after=(UNIT,), needs="systemd"),
        Command(("systemctl", "restart", "tablectl-floor.service"), after=(UNIT, CONFIG, PASSWORD, CA),
                needs="systemd"),
    ]
    return plan


def main(options: dict[str, Any], *, out: TextIO = sys.stdout) -> int:
    target = Target(options.pop("root", None) or "/")
    dry, rm, purge = options.pop("dry_run", False), options.pop("remove", False), options.pop("purge", False)
    run_doctor = options.pop("doctor", True)
    if target.real and os.geteuid() != 0 and not dry:
        print("tablectl floor setup: run it as root (sudo), or --dry-run to see what it would do", file=sys.stderr)
        return EXIT_INPUT
    try:
        given = {**read_answers(options.pop("answers", None), FLOOR_KEYS),
                 **{k: v for k, v in options.items() if v is not None and v is not False}}
        plan = floor_plan(target, given, source_tree())
    except (SetupError, OSError) as exc:
        print(f"tablectl floor setup: {exc}", file=sys.stderr)
        return EXIT_INPUT
    where = "" if target.real else f" in {target.root}"
    mode = " (dry run: nothing is written)" if dry else ""
    if rm:
        print(f"tablectl floor setup --remove{where}{mode}:", file=out)
        stop = [Command(("systemctl", *target.root_args(), "disable", "tablectl-floor.service"), needed=lambda: True)]
        outcome = remove(target, "floor", plan, purge=purge, dry=dry, out=out, commands=stop)
        print("  kept: the user tablectl, /var/lib/tablectl-floor (the floor's records), the broker's files"
              + ("" if purge else ", the configuration and the password (--purge removes them)"), file=out)
        return _finish(outcome, dry, out)
    broker_too = ", and the broker (mosquitto)" if given.get("mosquitto") else ""
    print(f"tablectl floor setup{where}: the floor's service{broker_too}{mode}", file=out)
    outcome = Runner(target, "floor", dry=dry, out=out).carry_out(plan)
    status = _finish(outcome, dry, out)
    if run_doctor and target.real and not dry:
        print("\ntablectl doctor --floor:", file=out, flush=True)
        from controller.cli import doctor  # (doctor's checks, loaded only to end a real run with them)

        doctor.main(floor=CONFIG)
    print("\nWhat only a person can do next, one command each:", file=out)
    steps = []
    if not given.get("user"):
        steps.append("the first floor user: sudo tablectl floor adduser NAME --role floor")
    steps.append("each table, on the broker's host: tablectl room enroll TABLE --room ROOM --broker "
                 f"{given.get('broker') or 'mqtts://' + str(given.get('broker_name')) + ':8883'} --ca-file {CA} "
                 "--bundle TABLE.bundle" + (" --mosquitto && systemctl reload mosquitto" if given.get("mosquitto")
                                            else " (then append the lines it prints to the broker's files)"))
    steps.append(f"open the page: http://{given.get('listen', '127.0.0.1')}:{given.get('port', 8080)}/")
    for i, step in enumerate(steps, 1):
        print(f"  {i}. {step}", file=out)
    return status
