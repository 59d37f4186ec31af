"""``tablectl setup``: a table's Pi, from a fresh Raspberry Pi OS to a daemon that starts at boot,
in one command that says what it does (docs/install.md has the table of every file it writes).

What it finds out itself (controller/cli/setup/found.py): the Pi's model (so the pin factory),
the USB serial devices plugged in (so udev rules pinned to their ids and serial numbers), whether
an I2C display answers (so ``[display]`` and the console moved off the bus), the broker's address
and the DNS servers (so the room drop-in's ``IPAddressAllow=``). What it must be told: the reader
set-up (``--reader feig|bridge``), the seats, the game, the room bundle; from the command line or
an answers file (controller/cli/setup/answers.py).

The shipped files (systemd/, the repository's) are installed as they are, except where this
module says: the udev rules' reader and shuffler lines pinned to the devices found, and the room
drop-in's placeholder ``IPAddressAllow=192.0.2.10`` replaced by the broker's and the DNS
servers' addresses. The configuration is generated (controller/cli/setup/skeleton.py).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any, TextIO
from urllib.parse import urlsplit

from controller.cli.checks import SYSUSERS_FILE
from controller.cli.setup import found
from controller.cli.setup.answers import DISPLAYS, READERS, TABLE_KEYS, read_answers, seat_list
from controller.cli.setup.plan import (EXIT_INPUT, Command, File, Folder, Item, Link, Outcome, Runner, SetupError,
                                       Step, Target, remove)
from controller.cli.setup.skeleton import put_section, room_section, table_config, toml_value
from controller.config.daemon import Config, load_config, parse_config
from controller.config.display import ADDRESSES
from controller.core.games import GAMES
from controller.room.bundle import Bundle, read_bundle

VENV = "/opt/tablectl/venv"
SRC = "/opt/tablectl/src"
CONFIG = "/etc/tablectl/tablectl.toml"
UNIT = "/etc/systemd/system/tablectl.service"
DROPIN = "/etc/systemd/system/tablectl.service.d/room.conf"
RULES = "/etc/udev/rules.d/99-tablectl.rules"
SYSUSERS = SYSUSERS_FILE  # (doctor names the same file in its fix)
TMPFILES = "/etc/tmpfiles.d/tablectl.conf"
RELEASE = "/var/lib/tablectl-setup/release"
#: the answers of the last run (no secret), read first by the next: a run again writes the same files
SAVED = "/var/lib/tablectl-setup/table.toml"
ROOM_FILES = {"password": "/etc/tablectl/room.password", "key": "/etc/tablectl/room.signing-key",
              "ca": "/etc/tablectl/room-ca.crt"}
#: the placeholder of the shipped drop-in (systemd/tablectl.service.d/room.conf)
PLACEHOLDER = "IPAddressAllow=192.0.2.10"
#: how long setup waits for the hand under way to end before it restarts the daemon
BETWEEN_HANDS_WAIT = 1800.0


def source_tree() -> Path:
    """The repository whose shipped files (systemd/, docs/room/) setup installs: this package's
    own tree when it is one (a clone, an editable install), else where the bootstrap clones it."""
    here = Path(__file__).resolve().parents[3]
    return here if (here / "systemd" / "tablectl.service").is_file() else Path(SRC)


def release_text(src: Path) -> str:
    """What is installed: the package's version and the clone's commit (an upgrade changes it,
    and the daemon is restarted between hands)."""
    try:
        ver = version("tablectl")
    except PackageNotFoundError:
        ver = "unknown"
    commit = "unknown"
    head = src / ".git" / "HEAD"
    try:
        ref = head.read_text().strip()
        if ref.startswith("ref: "):
            ref_path = src / ".git" / ref[5:]
            if ref_path.is_file():
                commit = ref_path.read_text().strip()
            else:
                packed = (src / ".git" / "packed-refs").read_text()
                commit = next((ln.split()[0] for ln in packed.splitlines() if ln.endswith(" " + ref[5:])), "unknown")
        else:
            commit = ref
    except OSError:
        pass
    return f"tablectl {ver}\ncommit {commit}\n"


# -- what is found and what is told ------------------------------------------------------------

@dataclass
class TableAnswers:
    reader: str = "feig"
    seats: list[int] = field(default_factory=lambda: list(range(1, 10)))
    game: str = "holdem"
    display: tuple[str, int] | None = None
    bundle: Bundle | None = None
    broker_addresses: list[str] = field(default_factory=list)
    dns: list[str] = field(default_factory=list)
    pin_factory: str = "auto"
    pin_note: str = ""
    reader_device: found.SerialDevice | None = None
    shuffler_device: found.SerialDevice | None = None
    #: what setup found out, and what it could not decide (said before the plan)
    notes: list[str] = field(default_factory=list)


def _device(saved: Any) -> found.SerialDevice | None:
    if not isinstance(saved, dict):
        return None
    return found.SerialDevice(str(saved.get("tty", "?")), str(saved.get("vendor", "")),
                              str(saved.get("product", "")), saved.get("serial"))


def installed_room(target: Target, room: dict[str, Any]) -> Bundle:
    """The room an earlier run installed from its bundle: its names from the saved answers, its
    secrets from the files it wrote (the bundle itself is deleted once installed)."""
    def read(path: str) -> str | None:
        try:
            return target.path(path).read_text()
        except OSError:
            return None
    password, key, ca = read(ROOM_FILES["password"]), read(ROOM_FILES["key"]), read(ROOM_FILES["ca"])
    if not password or not key:
        raise SetupError(f"{SAVED}: [room] was installed, but {ROOM_FILES['password']} or {ROOM_FILES['key']} is "
                         f"gone: give the table's bundle again (--room-bundle FILE)")
    try:
        return Bundle(broker=str(room["broker"]), room=str(room["room"]), table=str(room["table"]),
                      username=str(room["username"]), password=password.splitlines()[0],
                      signing_key=key.splitlines()[0], ca=ca if room.get("ca") else None)
    except KeyError as exc:
        raise SetupError(f"{SAVED}: room: {exc.args[0]} is missing") from None


def saved_answers(a: TableAnswers) -> str:
    """What the next run starts from (no secret)."""
    lines = ["# tablectl setup's answers of its last run (read first by the next; options change them)",
             f"reader = {toml_value(a.reader)}", f"seats = {toml_value(a.seats)}", f"game = {toml_value(a.game)}",
             f"display = {toml_value(a.display[0] if a.display else 'none')}"]
    if a.display:
        lines.append(f"display_address = {a.display[1]}")
    for name, d in (("reader_device", a.reader_device), ("shuffler_device", a.shuffler_device)):
        if d is not None:
            fields = {"tty": d.tty, "vendor": d.vendor, "product": d.product, **({"serial": d.serial} if d.serial
                                                                                else {})}
            lines.append(f"{name} = {{ {', '.join(f'{k} = {toml_value(v)}' for k, v in fields.items())} }}")
    if a.bundle is not None:
        b = a.bundle
        lines.append(f"room = {{ broker = {toml_value(b.broker)}, room = {toml_value(b.room)}, table = "
                     f"{toml_value(b.table)}, username = {toml_value(b.username)}, "
                     f"ca = {toml_value(b.ca is not None)} }}")
    return "\n".join(lines) + "\n"


def _pick(devices: Sequence[found.SerialDevice], serial: str | None, what: str, notes: list[str],
          default_ids: tuple[str, str], *, before: found.SerialDevice | None = None) -> found.SerialDevice | None:
    if serial is None and before is not None and before.serial:
        for d in devices:
            if d.serial == before.serial:
                return d
        if not devices or all(d.serial != before.serial for d in devices):
            notes.append(f"{what}: {before.describe()} pinned by an earlier run: kept (not plugged in now)"
                         if not devices else f"{what}: {before.describe()} pinned by an earlier run is not plugged "
                         f"in; kept (--{what}-serial to pin another)")
            return before
    if serial is not None:
        for d in devices:
            if d.serial == serial:
                return d
        notes.append(f"{what}: serial {serial} (the answers) is not plugged in: pinned by that serial and "
                     f"USB {default_ids[0]}:{default_ids[1]}")
        return found.SerialDevice("(not plugged in)", default_ids[0], default_ids[1], serial)
    if len(devices) == 1:
        return devices[0]
    if not devices:
        notes.append(f"{what}: none plugged in: the shipped rule is kept (any such device); plug it in and run "
                     f"setup again to pin it by its serial number")
    else:
        notes.append(f"{what}: {len(devices)} candidates ({', '.join(d.describe() for d in devices)}): the shipped "
                     f"rule is kept; say which with --{what}-serial (or {what}_serial in the answers)")
    return None


def gather(options: dict[str, Any], target: Target) -> TableAnswers:
    """The answers, from the options (which win) and the answers file, and what is found."""
    a = TableAnswers()
    saved_path = target.path(SAVED)
    saved = read_answers(str(saved_path), TABLE_KEYS) if saved_path.is_file() else {}
    file = read_answers(options.get("answers"), TABLE_KEYS)
    given = {**saved, **file, **{k: v for k, v in options.items() if v is not None and k != "answers"}}
    if saved:
        a.notes.append(f"the answers of the last run: {SAVED} (an option or --answers changes them)")
    a.reader = given.get("reader", "feig")
    if a.reader not in READERS:
        raise SetupError(f"reader: want {' or '.join(READERS)}, got {a.reader!r}")
    if "seats" in given:
        a.seats = seat_list(given["seats"])
    a.game = given.get("game", "holdem")
    if a.game not in {g.name for g in GAMES}:
        raise SetupError(f"game: {a.game!r} is not a game (docs/games.md)")
    # the Pi, and so the pin factory
    model = found.pi_model(target.root)
    a.pin_factory = given.get("pin_factory") or ("auto" if model and "Raspberry Pi" in model else "mock")
    if "pin_factory" in given:
        a.notes.append(f"pin factory: {a.pin_factory} (the answers)")
    elif model and "Raspberry Pi" in model:
        a.notes.append(f"board: {model}: [console] pin_factory = \"auto\" (lgpio, else RPi.GPIO)")
    else:
        a.pin_note = "; not a Raspberry Pi here: mock pins"
        a.notes.append(f"board: {model or 'not a Raspberry Pi (no device-tree model)'}: [console] pin_factory = "
                       f"\"mock\" (no pins to drive)")
    # the display
    display = given.get("display", "auto")
    if display not in DISPLAYS:
        raise SetupError(f"display: want {', '.join(DISPLAYS)}, got {display!r}")
    if display == "auto":
        seen = found.display_on_bus(1) if target.real else None
        a.display = seen
        a.notes.append(f"display: {seen[0]} answers at 0x{seen[1]:02x} on /dev/i2c-1" if seen
                       else "display: none answers on /dev/i2c-1 (or no bus, no i2cdetect): none configured")
    elif display != "none":
        a.display = (display, int(given.get("display_address", ADDRESSES[display])))
        a.notes.append(f"display: {display} at 0x{a.display[1]:02x} (told)")
    if a.display is not None:
        a.notes.append("display: the console's buttons on BCM 2 and 3 (the I2C bus) are moved (docs/console.md)")
    # the devices
    devices = [found.SerialDevice(str(d.get("tty", "?")), str(d.get("vendor", "")).lower(),
                                  str(d.get("product", "")).lower(), d.get("serial"))
               for d in given.get("device", [])] or found.serial_devices(target.root)
    for d in devices:
        a.notes.append(f"device: {d.describe()}")
    def micropython(d: found.SerialDevice) -> bool:
        return d.tty.startswith("ttyACM") and (d.vendor, d.product) == (found.PICO, found.MICROPYTHON)

    if a.reader == "bridge":  # (our reader board: a MicroPython Pico, docs/protocols/bridge.md)
        a.reader_device = _pick([d for d in devices if micropython(d)], given.get("reader_serial"), "reader",
                                a.notes, (found.PICO, found.MICROPYTHON), before=_device(given.get("reader_device")))
    else:
        ftdi = [d for d in devices if d.tty.startswith("ttyUSB") and d.vendor == found.FTDI]
        a.reader_device = _pick(ftdi, given.get("reader_serial"), "reader", a.notes, ("0403", "6001"),
                                before=_device(given.get("reader_device")))
    # the shuffler's board: a USB serial device of its own (ttyACM), not the reader's board
    acm = [d for d in devices if d.tty.startswith("ttyACM") and d is not a.reader_device and not micropython(d)]
    if acm or given.get("shuffler_serial") or given.get("shuffler_device"):
        a.shuffler_device = _pick(acm, given.get("shuffler_serial"), "shuffler", a.notes, ("", ""),
                                  before=_device(given.get("shuffler_device")))
        if a.shuffler_device is not None and not a.shuffler_device.vendor:
            raise SetupError("shuffler_serial: the shuffler's board is not plugged in: its USB ids are not known; "
                             "plug it in, or leave shuffler_serial out")
    # the room
    bundle = given.get("room_bundle")
    if bundle:
        try:
            a.bundle = read_bundle(bundle)
        except ValueError as exc:
            raise SetupError(str(exc)) from None
    elif isinstance(given.get("room"), dict):
        a.bundle = installed_room(target, given["room"])
    if a.bundle is not None:
        host = urlsplit(a.bundle.broker).hostname or ""
        a.broker_addresses = found.resolve(host)
        if not a.broker_addresses:
            raise SetupError(f"--room-bundle: the broker {host} does not resolve here: the drop-in's IPAddressAllow= "
                             f"needs its address (check the Pi's network and DNS, then run setup again)")
        named = host not in a.broker_addresses
        a.dns = found.dns_servers(target.root) if named else []
        a.notes.append(f"room: {a.bundle.room}/{a.bundle.table} at {host} ({', '.join(a.broker_addresses)})"
                       + (f"; DNS servers {', '.join(a.dns) or 'none in /etc/resolv.conf'}" if named else ""))
    return a


# -- the files, from the shipped ones ------------------------------------------------------------

def _udev_string(value: str) -> bool:
    return bool(re.fullmatch(r"[A-Za-z0-9._:+-]{1,64}", value))


def pinned_rule(link: str, d: found.SerialDevice) -> str:
    """The rule that names ``d`` /dev/tablectl/``link`` by its USB ids and serial number."""
    kernel = "ttyACM[0-9]*" if d.tty.startswith("ttyACM") else "ttyUSB[0-9]*"
    serial = f'ATTRS{{serial}}=="{d.serial}", ' if d.serial and _udev_string(d.serial) else ""
    # (a MicroPython Pico's rule ends the serial rules, as the shipped one does: the generic
    # ttyACM rule after it would name the reader the shuffler too)
    end = ', GOTO="tablectl_serial_end"' if (d.vendor, d.product) == (found.PICO, found.MICROPYTHON) else ""
    return (f'SUBSYSTEM=="tty", KERNEL=="{kernel}", ATTRS{{idVendor}}=="{d.vendor}", '
            f'ATTRS{{idProduct}}=="{d.product}", {serial}SYMLINK+="tablectl/{link}", GROUP="dialout", MODE="0660", '
            f'TAG+="systemd"{end}')


def udev_rules(shipped: str, *, reader: found.SerialDevice | None, shuffler: found.SerialDevice | None) -> str:
    """The shipped rules with the reader's and the shuffler's active rule replaced by ones pinned
    to the devices found (each after a comment saying so); the rest as shipped."""
    out = []
    for line in shipped.splitlines():
        for link, device in (("reader", reader), ("shuffler", shuffler)):
            # (the shipped rule for the device's kind: a FEIG reader's ttyUSB, the reader board's
            # ttyACM by its ids, the shuffler's any ttyACM)
            kernel = "ttyACM" if device is not None and device.tty.startswith("ttyACM") else "ttyUSB"
            if link == "reader" and kernel == "ttyACM" and f'ATTRS{{idVendor}}=="{found.PICO}"' not in line:
                continue
            if device is not None and not line.startswith("#") and f'SYMLINK+="tablectl/{link}"' in line \
                    and f'KERNEL=="{kernel}' in line:
                out.append(f"# tablectl setup: the {link} found, {device.describe()}")
                line = pinned_rule(link, device)
        out.append(line)
    return "\n".join(out) + "\n"


def room_dropin(shipped: str, *, host: str, broker: Sequence[str], dns: Sequence[str]) -> str:
    """The shipped drop-in with its placeholder address replaced by the broker's (and the DNS
    servers', when the broker is named): nothing else leaves the unit."""
    if PLACEHOLDER not in shipped:
        raise ValueError(f"the shipped drop-in has no {PLACEHOLDER} line")
    lines = [f"# tablectl setup: the broker {host}" + (" and the DNS servers of /etc/resolv.conf" if dns else "")]
    lines += [f"IPAddressAllow={a}" for a in broker]
    lines += [f"IPAddressAllow={a}" for a in dns if a not in broker]
    return shipped.replace(PLACEHOLDER, "\n".join(lines))


def config_in_root(target: Target, path: Path) -> Config:
    """The configuration at ``path`` loaded as the target would have it: under ``--root`` its
    ``[control] group`` looked up in the root's /etc/group and its absolute paths (the journal's
    folder, the sockets) inside the root."""
    if target.real:
        return load_config(path)
    text = path.read_text()
    gid = target.gid("tablectl")
    if gid is not None:
        text = text.replace('group = "tablectl"', f"group = {gid}")
    text = re.sub(r'"(/(?:var|run|etc)/[^"]*)"', lambda m: json.dumps(str(target.path(m.group(1)))), text)
    return parse_config(text, path=path)


def _check_config(target: Target):  # type: ignore[no-untyped-def]
    """The configuration's check before it replaces anything: it loads."""
    def check(temp: Path) -> None:
        config_in_root(target, temp)
    return check


def _room_values(b: Bundle) -> dict[str, Any]:
    values: dict[str, Any] = {"broker": b.broker, "room": b.room, "table": b.table, "username": b.username,
                              "password_file": "room.password"}
    if b.ca is not None:
        values["ca_file"] = "room-ca.crt"
    values["signing_key"] = "room.signing-key"
    return values


def table_plan(target: Target, a: TableAnswers, src: Path) -> list[Item]:
    """Every folder, file, link and command, in order."""
    shipped = src / "systemd"
    ra = target.root_args()
    t = target.path

    def missing_user() -> bool:
        return target.uid("tablectl") is None

    def not_enabled() -> bool:
        return not t("/etc/systemd/system/multi-user.target.wants/tablectl.service").is_symlink()

    plan: list[Item] = [
        Folder("/etc/sysusers.d", 0o755, what="(Debian ships /usr/lib/sysusers.d only)"),
        File(SYSUSERS, (shipped / "tablectl.sysusers").read_bytes(), 0o644,
             what="the service's user and its groups (systemd/tablectl.sysusers)"),
        Command(("systemd-sysusers", *ra, "tablectl.conf"), "the user tablectl; groups gpio, i2c",
                after=(SYSUSERS,), needed=missing_user),
        Folder("/etc/tmpfiles.d", 0o755),
        File(TMPFILES, (shipped / "tablectl.tmpfiles").read_bytes(), 0o644,
             what="its folders (systemd/tablectl.tmpfiles)"),
        Command(("systemd-tmpfiles", *ra, "--create", "tablectl.conf"), "/var/lib/tablectl, /run/tablectl",
                after=(TMPFILES,), needed=lambda: not t("/var/lib/tablectl").is_dir()),
        Folder("/etc/udev/rules.d", 0o755),
        File(RULES, udev_rules((shipped / "99-tablectl.rules").read_text(), reader=a.reader_device,
                               shuffler=a.shuffler_device).encode(), 0o644,
             what="/dev/tablectl/reader, /dev/tablectl/shuffler, GPIO and I2C groups"),
        Command(("udevadm", "control", "--reload"), after=(RULES,), needs="udev"),
        Command(("udevadm", "trigger", "--subsystem-match=tty", "--subsystem-match=gpio", "--subsystem-match=i2c-dev"),
                after=(RULES,), needs="udev"),
        Folder("/etc/tablectl", 0o750, "root", "tablectl", "the configuration (the service reads it)"),
        Folder("/etc/tablectl/decks", 0o750, "root", "tablectl", "the deck manifests"),
    ]
    if a.bundle is not None:
        b = a.bundle
        plan += [
            File(ROOM_FILES["password"], (b.password + "\n").encode(), 0o600, "tablectl", "tablectl",
                 "the table's broker password", secret=True, keep_on_remove=True),
            File(ROOM_FILES["key"], (b.signing_key + "\n").encode(), 0o600, "tablectl", "tablectl",
                 "the table's signing key", secret=True, keep_on_remove=True),
        ]
        if b.ca is not None:
            plan.append(File(ROOM_FILES["ca"], b.ca.encode(), 0o644, "root", "tablectl", "the room CA's certificate",
                             keep_on_remove=True))
    config = table_config(seats=a.seats, game=a.game, reader=a.reader, shuffler=a.shuffler_device is not None,
                          display=a.display,
                          pin_factory=a.pin_factory, pin_note=a.pin_note,
                          room=_room_values(a.bundle) if a.bundle is not None else None)
    room_part = None
    if a.bundle is not None:  # (the technician's own configuration, edited as install.md asks, gets [room] too)
        room = room_section(_room_values(a.bundle))
        room_part = lambda old: put_section(old.decode(), "room", room).encode()  # noqa: E731
    plan.append(File(CONFIG, config.encode(), 0o640, "root", "tablectl", "the configuration (loaded before it "
                     "replaces anything)", check=_check_config(target), keep_on_remove=True,
                     merge=room_part, merge_what="[room] from the room's bundle"))
    plan.append(File(UNIT, (shipped / "tablectl.service").read_bytes(), 0o644,
                     what="the unit (systemd/tablectl.service)"))
    units = [UNIT]
    if a.bundle is not None:
        host = urlsplit(a.bundle.broker).hostname or ""
        dropin = room_dropin((shipped / "tablectl.service.d" / "room.conf").read_text(), host=host,
                             broker=a.broker_addresses, dns=a.dns)
        plan += [Folder("/etc/systemd/system/tablectl.service.d", 0o755),
                 File(DROPIN, dropin.encode(), 0o644, what="the room's drop-in: IP to the broker alone")]
        units.append(DROPIN)
    plan += [
        Link("/usr/local/bin/tablectl", f"{VENV}/bin/tablectl", "tablectl at a shell"),
        Folder("/var/lib/tablectl-setup", 0o755),
        File(RELEASE, release_text(src).encode(), 0o644, what="the release installed (an upgrade restarts the daemon)"),
        File(SAVED, saved_answers(a).encode(), 0o644, what="these answers, for the next run (no secret)"),
        Command(("systemctl", *ra, "enable", "tablectl.service"), "start at boot", needed=not_enabled),
        Command(("systemctl", "daemon-reload"), after=tuple(units), needs="systemd"),
    ]
    changed_for_daemon = (*units, CONFIG, RELEASE, *(ROOM_FILES.values()))
    if target.systemd_running():
        plan.append(Step("start the daemon, or restart it between hands", lambda dry, changed: start_or_restart(
            dry, changed=lambda: any(p in changed for p in changed_for_daemon), control="/run/tablectl/control.sock")))
    else:
        plan.append(Command(("systemctl", "restart", "tablectl.service"), "(between hands: the control socket's ping)",
                            after=changed_for_daemon, needs="systemd"))
    return plan


# -- the running daemon: started, or restarted between hands ---------------------------------------

def _systemctl(*args: str) -> int:
    return subprocess.run(["systemctl", *args], capture_output=True, text=True, timeout=120).returncode


def wait_between_hands(control: str, *, deadline: float, ask: Any = None, pause: Any = time.sleep) -> str:
    """Wait until the daemon says no hand is under way (its ``ping``'s ``in_hand``); returns why it
    may restart now. A daemon that does not say (a release before ``in_hand``) or does not answer
    is restarted at once: it carries on mid-hand from its journal (docs/install.md)."""
    from controller.daemon.control import send  # (the control socket's client, loaded only to restart a daemon)

    ask = ask or (lambda: send(control, {"cmd": "ping"}, timeout=2.0))
    while True:
        try:
            answer = ask()
        except (OSError, ValueError):
            return "the daemon does not answer on its control socket"
        if "in_hand" not in answer:
            return "the daemon does not say whether a hand is under way (an older release)"
        if not answer["in_hand"]:
            return "between hands"
        if time.monotonic() > deadline:
            return "a hand still under way after 30 minutes"
        pause(1.0)


def start_or_restart(dry: bool, *, changed: Any, control: str) -> str:
    """Start the daemon if it is not running; if it runs and setup changed what it runs with
    (``changed()``), restart it between hands."""
    active = _systemctl("is-active", "--quiet", "tablectl.service") == 0
    if not active:
        if not dry and _systemctl("start", "tablectl.service") != 0:
            raise OSError("systemctl start tablectl.service failed: journalctl -u tablectl says why")
        return "systemctl start tablectl.service"
    if not changed():
        return ""
    if dry:
        return "systemctl restart tablectl.service (once no hand is under way)"
    why = wait_between_hands(control, deadline=time.monotonic() + BETWEEN_HANDS_WAIT)
    if _systemctl("restart", "tablectl.service") != 0:
        raise OSError("systemctl restart tablectl.service failed: journalctl -u tablectl says why")
    return f"systemctl restart tablectl.service ({why})"


# -- the command ----------------------------------------------------------------------------------

def main(options: dict[str, Any], *, out: TextIO = sys.stdout) -> int:
    """``tablectl setup``; ``options``: the command line's (``root``, ``dry_run``, ``remove``,
    ``purge``, ``doctor`` and the answers)."""
    target = Target(options.pop("root", None) or "/")
    dry, rm, purge = options.pop("dry_run", False), options.pop("remove", False), options.pop("purge", False)
    run_doctor = options.pop("doctor", True)
    if target.real and os.geteuid() != 0 and not dry:
        print("tablectl setup: run it as root (sudo tablectl setup ...), or --dry-run to see what it would do",
              file=sys.stderr)
        return EXIT_INPUT
    src = source_tree()
    try:
        a = gather(options, target)
        plan = table_plan(target, a, src)
    except (SetupError, ValueError, OSError) as exc:
        print(f"tablectl setup: {exc}", file=sys.stderr)
        return EXIT_INPUT
    where = "" if target.real else f" in {target.root}"
    mode = " (dry run: nothing is written)" if dry else ""
    if rm:
        print(f"tablectl setup --remove{where}{mode}:", file=out)
        stop = [Command(("systemctl", *target.root_args(), "disable", "tablectl.service"), "not at boot",
                        needed=lambda: True)]
        if target.systemd_running():
            stop.insert(0, Command(("systemctl", "stop", "tablectl.service"), needed=lambda: True, needs="systemd"))
        outcome = remove(target, "table", plan, purge=purge, dry=dry, out=out, commands=stop)
        print("  the user tablectl and its groups are kept (systemd never removes a user: userdel tablectl)"
              + ("" if purge else "; the configuration, the journal, the decks and the room's files are kept "
                 "(--purge removes the configuration and the room's files)"), file=out)
        return _finish(outcome, dry, out)
    print(f"tablectl setup{where}: a table, reader {a.reader}, seats {','.join(map(str, a.seats))}, {a.game}{mode}",
          file=out)
    for note in a.notes:
        print(f"  found        {note}", file=out)
    runner = Runner(target, "table", dry=dry, out=out)
    outcome = runner.carry_out(plan)
    status = _finish(outcome, dry, out)
    if run_doctor and target.real and not dry:
        # doctor's last lines say what only a person can do next, judged from what it found
        # (controller/cli/doctor_next.py): setup lists nothing of its own
        print("\ntablectl doctor:", file=out, flush=True)
        from controller.cli import doctor  # (doctor's checks, loaded only to end a real run with them)

        doctor.main(CONFIG)
    else:
        print("\nthen: sudo tablectl doctor (its last lines name what only a person can do next)", file=out)
    return status


def _finish(outcome: Outcome, dry: bool, out: TextIO) -> int:
    if dry:
        print("dry run: nothing written, nothing run", file=out)
        return 0
    if not outcome.written and not outcome.ran:
        print("nothing to do: every file is as setup would write it", file=out)
    else:
        print(f"{len(outcome.written)} written, {len(outcome.ran)} command(s) run", file=out)
    for kept in outcome.kept:
        print(f"kept as it is (edited): {kept}", file=out)
    if outcome.not_applied:
        print(f"not applied here ({len(outcome.not_applied)}; exit status 3):", file=out)
        for n in outcome.not_applied:
            print(f"  {n}", file=out)
    for f in outcome.failed:
        print(f"FAILED: {f}", file=out)
    return outcome.status

