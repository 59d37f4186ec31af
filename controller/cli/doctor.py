"""``tablectl doctor``: what stands between this Pi and a running table, and how to fix it.

It checks, in order: the configuration loads, it has ``[[decks]]``, and it and its manifests are
readable by the daemon's user; each serial device of the configuration exists,
is a character device, is readable and writable by the daemon's user and opens; every antenna
has its own RSSI level (``tablectl calibrate``); the journal's
folder is writable and its file is a sound SQLite database in WAL mode; the dealer's console's
GPIO pin factory loads and its devices are reachable; and, when the configuration is the one
the installed systemd unit runs, what the service will meet (:mod:`.doctor_service`: its user
and groups, its access to the files, its ``ExecStart=``, and with ``[room]`` its sandbox's network),
and, where systemd is PID 1, how the service is now (:mod:`.unit_state`: running, or failed,
restarting, stopped, with the journal's last error lines). With ``[room]``, the room link's files
and its broker (:mod:`.doctor_room`); ``--floor FILE`` checks the floor's service instead (its
files, its database, its broker, its unit's state). docs/doctor.md.

Each check is a small function returning :class:`Check` results (no printing), so that each
can be tested alone; :func:`run_checks` strings them together and :func:`main` prints one line
per result, then its last lines, ``Next:`` and what only a person can do next, judged from what
was found (:mod:`.doctor_next`), and returns 1 if anything failed::

    ok    config: /etc/tablectl/tablectl.toml loads (holdem, 9 seats, decks A, B)
    FAIL  reader: /dev/tablectl/reader does not exist -> install systemd/99-tablectl.rules ...

Access is judged for the user the daemon runs as. Run by root, doctor checks for the service's
user ``tablectl`` (with the groups the unit gives it) when that user exists, since root itself
can open anything; ``--user NAME`` names another.

>>> Check("ok", "config: t.toml loads").line()
'ok    config: t.toml loads'
>>> Check("fail", "reader: /dev/x does not exist", "plug it in").line()
'FAIL  reader: /dev/x does not exist -> plug it in'
"""

from __future__ import annotations

import atexit
import errno
import termios
import importlib
import importlib.util
import os
import shutil
import sqlite3
import stat
import sys
import tempfile
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterable, Mapping
from urllib.parse import quote

import serial

from controller.cli.checks import (  # (shared with doctor_room: the checks' form, who the daemon runs as)
    HOST as HOST, LEVELS as LEVELS, SERVICE_GROUPS as SERVICE_GROUPS, SERVICE_USER as SERVICE_USER, Check as Check,
    Host as Host, Identity as Identity, can_access as can_access, current_identity as current_identity,
    owner_mode as owner_mode, resolve_identity as resolve_identity, user_identity as user_identity,
    SYSUSERS_FIX as SYSUSERS_FIX,
)
from controller.cli.doctor_room import check_room, daemon_room_checks, floor_checks, unloaded_room_secrets
from controller.cli.doctor_next import next_lines, next_steps
from controller.cli.doctor_service import check_readable, service_checks, service_files, users_exist
from controller.cli.unit_state import FLOOR, unit_state
from controller.config.daemon import ConfigError, load_config
from controller.core.setups import setup_of
from controller.daemon.control import send
from controller.daemon.journal import diagnose
from firmware_bridge.serial_port import PARITIES

DEFAULT_CONFIG = "/etc/tablectl/tablectl.toml"
#: the static user of systemd/tablectl.service, and the groups its SupplementaryGroups= adds
#: where an installed unit and the udev rules live
UNIT_PATHS = (Path("/etc/systemd/system/tablectl.service"), Path("/usr/lib/systemd/system/tablectl.service"),
              Path("/lib/systemd/system/tablectl.service"))
UDEV_RULES = (Path("/etc/udev/rules.d/99-tablectl.rules"), Path("/usr/lib/udev/rules.d/99-tablectl.rules"),
              Path("/lib/udev/rules.d/99-tablectl.rules"))
#: pin factory name -> the package that drives the pins, and the devices it opens
GPIO_PACKAGES = {"lgpio": ("lgpio", "gpiochip*"), "rpigpio": ("RPi.GPIO", "gpiomem")}
PI_EXTRA = "/opt/tablectl/venv/bin/pip install '/opt/tablectl/src[pi]' (the pi extra, into the daemon's venv)"

def check_config(path: str | Path) -> tuple[Check, Any]:
    """Load the configuration: (ok, Config) or (fail with the ConfigError as it is, None)."""

    try:
        config = load_config(path)
    except ConfigError as exc:
        return Check("fail", str(exc), "fix the key it names (docs/configuration.md)"), None
    decks = ", ".join(d.id for d in config.decks) or "none"
    table = config.table
    return Check("ok", f"config: {path} loads ({table.game}, {len(table.seats)} seats, decks {decks})"), config


def check_decks(config: Any) -> list[Check]:
    """A table deals a deck: with no ``[[decks]]`` every tag the reader sees is a card of no
    registered deck (DECK-006: ``deck.unknown_tag`` on every read), and ``[table] deck_in_play``
    names a deck that is not there. (Whether each manifest's own header agrees with its entry is
    checked as the configuration loads: controller.core.registry.check_header.)"""
    if config.decks:
        return []
    return [Check("fail", f"decks: no [[decks]] in the configuration: [table] deck_in_play = "
                          f"\"{config.table.deck_in_play}\" names no deck, and every card read would be a tag of "
                          f"no registered deck (DECK-006)",
                  "register each deck (tablectl register --port /dev/tablectl/reader --deck A --back red --out "
                  "/etc/tablectl/decks/A.txt, then B) and give each its [[decks]] entry: id, back, manifest "
                  "(docs/configuration.md, \"Deck manifests\")")]


# -- serial devices ----------------------------------------------------------------------------

def rules_installed(paths: Iterable[Path] = UDEV_RULES) -> Path | None:
    return next((p for p in paths if p.exists()), None)


def _missing_fix(port: str, section: str, rules: Path | None) -> str:
    if port.startswith("/dev/tablectl/"):
        if rules is None:
            return ("install the udev rules: sudo install -m 0644 systemd/99-tablectl.rules /etc/udev/rules.d/ && "
                    "sudo udevadm control --reload && sudo udevadm trigger; then plug the device in "
                    "(docs/install.md)")
        return (f"plug the device in; if it is plugged in, the ids in {rules} are not its ids: compare them with "
                f"`udevadm info --query=property --name=/dev/ttyUSB0` (or ttyACM0) and `ls -l /dev/tablectl/`")
    return (f"plug the device in, or correct [{section}] port (stable paths: ls -l /dev/tablectl/ "
            f"/dev/serial/by-id/)")


def check_device_path(name: str, port: str, ident: Identity, *, section: str | None = None,
                      rules: Path | None = None) -> list[Check]:
    """The device behind ``port``: there, a character device, readable and writable by ``ident``.
    A pyserial URL (``socket://``, ``loop://``, ...) is not a path and is skipped with a note."""
    section = section or name
    if "://" in port:
        return [Check("note", f"{name}: {port} is a pyserial URL, not a device: not checked")]
    p = Path(port)
    if not p.exists():
        if p.is_symlink():
            target = os.readlink(p)
            return [Check("fail", f"{name}: {port} points to {target}, which does not exist (unplugged?)",
                          "plug the device in; ls -l /dev/tablectl/ shows where the link points")]
        return [Check("fail", f"{name}: {port} does not exist", _missing_fix(port, section, rules))]
    real = os.path.realpath(p)
    shown = f"{port} -> {real}" if real != str(p) else port
    st = os.stat(real)
    if not stat.S_ISCHR(st.st_mode):
        return [Check("fail", f"{name}: {shown} is not a character device",
                      f"[{section}] port must name the serial device (ls -l /dev/tablectl/ /dev/serial/by-id/)")]
    if not can_access(real, ident, os.R_OK | os.W_OK):
        fix = ("the udev rules give it GROUP=\"dialout\" MODE=\"0660\" (systemd/99-tablectl.rules); the service's "
               f"user gets dialout from the unit's SupplementaryGroups=; for {ident.name} at a shell: "
               f"sudo usermod -aG dialout {ident.name} (then log in again)")
        return [Check("fail", f"{name}: {shown} ({owner_mode(real)}) is not readable and writable by {ident.name}",
                      fix)]
    return [Check("ok", f"{name}: {shown} is a character device, read-write for {ident.name}")]


def check_device_opens(name: str, port: str, *, baudrate: int, parity: str) -> Check:
    """Open the port as the daemon would (exclusively) and close it at once. A port another
    program holds (the running daemon) is reported as in use, and left alone."""


    try:
        s = serial.serial_for_url(port, do_not_open=True, baudrate=baudrate, parity=PARITIES[parity],
                                  timeout=0.1, write_timeout=0.5, exclusive=True if port.startswith("/") else None)
        s.open()
    except termios.error as exc:
        # The device opened but refused its settings (tcsetattr): name the one refused.
        return _refused_setting(name, port, baudrate=baudrate, parity=parity, error=exc)
    except serial.SerialException as exc:
        if exc.errno in (errno.EAGAIN, errno.EWOULDBLOCK) or "exclusively lock" in str(exc):
            return Check("note", f"{name}: {port} is in use by another program (the daemon, if it runs): not opened")
        return Check("fail", f"{name}: {port} does not open: {exc}",
                     "unplug and replug it; dmesg | tail shows what the kernel made of it")
    except (OSError, ValueError) as exc:
        return Check("fail", f"{name}: {port} does not open: {exc}",
                     "unplug and replug it; dmesg | tail shows what the kernel made of it")
    try:
        s.close()
    except Exception:
        pass
    return Check("ok", f"{name}: {port} opens ({baudrate} 8{parity}1)")


def _refused_setting(name: str, port: str, *, baudrate: int, parity: str, error: termios.error) -> Check:
    """The port opened but refused ``baudrate`` 8``parity``1: try it without parity to tell
    whether the parity or the baud rate is refused, and say which in one line."""

    detail = error.args[1] if len(error.args) > 1 else str(error)
    setting = f"{baudrate} 8{parity}1"
    if parity != "N":
        try:
            probe = serial.serial_for_url(port, baudrate=baudrate, parity=serial.PARITY_NONE, timeout=0.1)
        except (termios.error, serial.SerialException, OSError, ValueError):
            pass
        else:
            probe.close()
            return Check("fail", f"{name}: {port} refuses parity {parity} ({setting}: {detail})",
                         "use an adapter that supports parity (the FEIG reader's default is 8E1), or set the "
                         f"reader and [{name}] parity alike")
    return Check("fail", f"{name}: {port} refuses {setting} ({detail})",
                 f"set [{name}] baudrate and parity to what the device and its adapter support")


# -- the running daemon ------------------------------------------------------------------------

def check_daemon(control: str | None, *, timeout: float = 1.0) -> tuple[list[Check], bool]:
    """Ask a running daemon over its control socket; (findings, whether it answered)."""
    if not control or not os.path.exists(control):
        return [], False

    try:
        answer = send(control, {"cmd": "ping"}, timeout=timeout)
    except PermissionError:
        return [Check("note", f"daemon: cannot ask it over {control} (permission denied; run doctor as root or "
                              f"as {SERVICE_USER})")], False
    except (OSError, ValueError):
        return [Check("note", f"daemon: not running ({control} does not answer)")], False
    if not answer.get("ok"):  # e.g. this uid is not on the socket's allow-list ([control] group)
        return [Check("note", f"daemon: running, but it refused doctor over {control}: {answer.get('error')}")], True
    online = answer.get("online") or {}
    out = [Check("note", f"daemon: running, {answer.get('hands_finished', 0)} hands finished")]
    for device, up in sorted(online.items()):
        if up:
            out.append(Check("ok", f"daemon: {device} online"))
        else:
            out.append(Check("fail", f"daemon: {device} offline",
                             "check its cable and power; journalctl -u tablectl names the error"))
    out.extend(daemon_room_checks(answer.get("room")))
    return out, True


# -- the journal -------------------------------------------------------------------------------

def inspect_journal(path: str | Path) -> Check:
    """Open the journal read-only and check it: integrity, WAL mode, the events it holds."""
    uri = f"file:{quote(str(Path(path).absolute()))}?mode=ro"
    if not Path(f"{path}-wal").exists():
        uri += "&immutable=1"  # else SQLite makes an empty WAL, and the start no longer sees one lost
    fix = (f"stop the daemon (systemctl stop tablectl), move the file aside (mv {path} {path}.bad) and start it "
           f"again: it starts a new, empty journal; keep the bad file for the floor")
    try:
        con = sqlite3.connect(uri, uri=True, timeout=2.0)
        try:
            result = [row[0] for row in con.execute("PRAGMA integrity_check")]
            mode = con.execute("PRAGMA journal_mode").fetchone()[0]
            if uri.endswith("immutable=1"):  # (immutable reads report no WAL: the header says)
                with open(path, "rb") as f:
                    mode = "wal" if f.read(20)[18:20] == b"\x02\x02" else mode
            has_events = con.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").fetchone()
            events = con.execute("SELECT count(*) FROM events").fetchone()[0] if has_events else 0
        finally:
            con.close()
    except sqlite3.Error as exc:
        return Check("fail", f"journal: {path} is not a usable SQLite database ({exc})", fix)
    if result != ["ok"]:
        return Check("fail", f"journal: {path} fails its integrity check: {'; '.join(result[:3])}", fix)
    held = f"{events} events" if has_events else "empty"
    if mode.lower() != "wal":
        return Check("warn", f"journal: {path} is sound ({held}) but in {mode} mode, not WAL",
                     "the daemon switches it to WAL when it opens it; if it stays so, is another program "
                     "writing it?")
    return Check("ok", f"journal: {path} is sound, WAL, {held}")


def check_journal(journal: Any, ident: Identity, settings: Any = None) -> list[Check]:
    """``journal``: the config's JournalConfig (``path`` None: no journal); ``settings``: the
    table's, to judge the snapshots by (controller.daemon.journal.diagnose)."""
    if journal is None or journal.path is None:
        return [Check("warn", "journal: none ([journal] is not in the configuration): a crash or power cut "
                              "loses the hand in progress",
                      "add a [journal] section; its path defaults to /var/lib/tablectl/journal.sqlite3")]
    path = Path(journal.path)
    folder = path.parent
    if not folder.is_dir():
        return [Check("fail", f"journal: folder {folder} does not exist",
                      "under systemd, StateDirectory=tablectl creates /var/lib/tablectl: start the service once, "
                      f"or sudo install -d -o {SERVICE_USER} -m 0700 {folder}")]
    if not can_access(folder, ident, os.W_OK | os.X_OK):
        return [Check("fail", f"journal: folder {folder} ({owner_mode(folder)}) is not writable by {ident.name}",
                      f"run doctor as the daemon's user (sudo -u {SERVICE_USER} tablectl doctor, or as root); "
                      f"the unit's StateDirectory=tablectl gives {SERVICE_USER} /var/lib/tablectl")]
    if not path.exists():
        return [Check("ok", f"journal: folder {folder} is writable; {path.name} is not there yet "
                            f"(the daemon creates it)")]
    if not can_access(path, ident, os.R_OK | os.W_OK):
        return [Check("fail", f"journal: {path} ({owner_mode(path)}) is not readable and writable by {ident.name}",
                      f"sudo chown {SERVICE_USER}: {path}*  (the daemon's user owns its journal)")]

    found = diagnose(path, settings)  # (first: it looks for the WAL before SQLite is asked)
    first = inspect_journal(path)
    fix = (f"nothing to do by hand: the daemon salvages it at its next start and says what is lost "
           f"(docs/journal.md); keep {path}* as they are")
    newer = f"run the release that wrote it, or mv {path} {path}.new (the daemon then starts a new journal)"
    return [first] + [Check(level, msg, newer if "newer release" in msg else fix)
                      for level, msg in found]


# -- GPIO --------------------------------------------------------------------------------------

def gpio_factory(configured: str, env: Mapping[str, str]) -> tuple[str, str]:
    """The pin factory gpiozero will use, and why: (name, source). ``auto`` follows
    GPIOZERO_PIN_FACTORY, as firmware_bridge.console.make_pin_factory does.

    >>> gpio_factory("auto", {"GPIOZERO_PIN_FACTORY": "Mock"})
    ('mock', 'GPIOZERO_PIN_FACTORY')
    >>> gpio_factory("lgpio", {"GPIOZERO_PIN_FACTORY": "mock"})
    ('lgpio', '[console] pin_factory')
    >>> gpio_factory("auto", {})
    ('auto', '[console] pin_factory')
    """
    if configured == "auto":
        env_name = env.get("GPIOZERO_PIN_FACTORY", "").strip().lower()
        if env_name:
            return env_name, "GPIOZERO_PIN_FACTORY"
    return configured, "[console] pin_factory"


def try_import(module: str) -> str | None:
    """Import ``module``; None if it works, else why not. lgpio makes a notification pipe in its
    working directory when imported: it is pointed at a private temporary folder (LG_WD)."""
    if importlib.util.find_spec(module.split(".")[0]) is None:
        return f"the {module} package is not installed"
    here = os.getcwd()
    work = tempfile.mkdtemp(prefix="tablectl-doctor-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    os.environ.setdefault("LG_WD", work)
    try:
        os.chdir(work)
        importlib.import_module(module)
    except Exception as exc:  # RPi.GPIO: RuntimeError off a Pi; lgpio: its own errors
        return f"{module} does not load: {exc}"
    finally:
        os.chdir(here)
    return None


def check_gpio(console: Any, ident: Identity, *, env: Mapping[str, str] = os.environ,
               importer: Callable[[str], str | None] = try_import, dev: Path = Path("/dev")) -> list[Check]:
    """The console's pin factory loads, and its devices are there and reachable by ``ident``."""
    if console is None:
        return [Check("note", "gpio: no [console] in the configuration: not checked")]
    name, source = gpio_factory(console.pin_factory, env)
    if name == "mock":
        return [Check("ok", f"gpio: pin factory mock ({source}): simulated pins, no hardware to check")]
    if name == "auto":
        candidates = ["lgpio", "rpigpio"]
    elif name in GPIO_PACKAGES:
        candidates = [name]
    else:
        return [Check("warn", f"gpio: pin factory {name!r} ({source}) is not one tablectl checks "
                              f"(lgpio, rpigpio, mock)", "unset GPIOZERO_PIN_FACTORY, or set [console] pin_factory")]
    errors = []
    chosen = None
    for candidate in candidates:
        why = importer(GPIO_PACKAGES[candidate][0])
        if why is None:
            chosen = candidate
            break
        errors.append(why)
    if chosen is None:
        return [Check("fail", f"gpio: pin factory {name} ({source}): {'; '.join(errors)}",
                      f"on a Pi: {PI_EXTRA}; on a machine without GPIO: [console] pin_factory = \"mock\"")]
    out = [Check("ok", f"gpio: pin factory {chosen} ({source}): {GPIO_PACKAGES[chosen][0]} loads")]
    pattern = GPIO_PACKAGES[chosen][1]
    nodes = sorted(dev.glob(pattern))
    if not nodes:
        what = "GPIO chip" if chosen == "lgpio" else "GPIO memory device"
        out.append(Check("fail", f"gpio: no {dev / pattern}: no {what} here",
                         "on a Pi the kernel makes it at boot; elsewhere use [console] pin_factory = \"mock\""))
        return out
    denied = [n for n in nodes if not can_access(n, ident, os.R_OK | os.W_OK)]
    if denied:
        out.append(Check("fail", f"gpio: {', '.join(f'{n} ({owner_mode(n)})' for n in denied)} not read-write "
                                 f"for {ident.name}",
                         "the udev rules give the GPIO devices GROUP=\"gpio\" MODE=\"0660\" "
                         "(systemd/99-tablectl.rules); the unit's SupplementaryGroups= gives the service gpio; "
                         f"at a shell: sudo usermod -aG gpio {ident.name}"))
    else:
        out.append(Check("ok", f"gpio: {', '.join(str(n) for n in nodes)} read-write for {ident.name}"))
    return out


DISPLAY_EXTRA = "/opt/tablectl/venv/bin/pip install '/opt/tablectl/src[pi,display]' (into the daemon's venv)"
#: [display] kind -> the library that drives it
DISPLAY_PACKAGES = {"hd44780": "RPLCD.i2c", "ssd1306": "luma.oled.device", "sh1106": "luma.oled.device"}


def check_display(display: Any, ident: Identity, *, importer: Callable[[str], str | None] = try_import,
                  dev: Path = Path("/dev")) -> list[Check]:
    """The dealer's display's library loads (and smbus2), and its bus is there and reachable by
    ``ident``. Whether the display answers is the daemon's to say (``device.display_offline``)."""
    if display is None:
        return [Check("note", "display: no [display] in the configuration: not checked")]
    if display.sim_cable is not None:
        return [Check("note", f"display: simulated ([display] sim_cable = {display.sim_cable}): no bus to check")]
    why = [w for w in (importer(DISPLAY_PACKAGES[display.kind]), importer("smbus2")) if w]
    if why:
        return [Check("fail", f"display: {display.kind}: {'; '.join(why)}", DISPLAY_EXTRA)]
    out = [Check("ok", f"display: {display.kind}: {DISPLAY_PACKAGES[display.kind]} and smbus2 load")]
    node = dev / f"i2c-{display.bus}"
    if not node.exists():
        out.append(Check("fail", f"display: no {node}: the I2C bus is off",
                         "sudo raspi-config nonint do_i2c 0 (or dtparam=i2c_arm=on in /boot/firmware/config.txt), "
                         "then reboot; or set [display] bus"))
    elif not can_access(node, ident, os.R_OK | os.W_OK):
        out.append(Check("fail", f"display: {node} ({owner_mode(node)}) not read-write for {ident.name}",
                         "the udev rules give it GROUP=\"i2c\" MODE=\"0660\" (systemd/99-tablectl.rules); the "
                         f"unit's SupplementaryGroups= gives the service i2c; at a shell: sudo usermod -aG i2c "
                         f"{ident.name}"))
    else:
        out.append(Check("ok", f"display: {node} read-write for {ident.name}; "
                               f"i2cdetect -y {display.bus} should show {display.address:02x}"))
    return out


# -- the systemd service -----------------------------------------------------------------------

def check_levels(reader: Any, zones: Any) -> Check:
    """Every antenna has its own RSSI level (``tablectl calibrate``, docs/tracking.md)."""
    fix = "lay a card on each antenna in turn: tablectl calibrate --config FILE"
    if getattr(reader, "driver", "feig") == "bridge":
        return Check("note", "reader: a bridge board (docs/protocols/bridge.md): its zones give no signal strength, "
                             "so there are no levels; tablectl calibrate checks each zone reads its card and no "
                             "other zone does")
    levels = reader.levels
    if not levels:
        return Check("note", f"reader: antennas not calibrated (one level, strong_rssi = {reader.strong_rssi}, "
                             f"for all)", fix)
    missing = sorted(a for a in zones.by_antenna if a not in levels)
    if missing:
        return Check("warn", f"reader: antenna {missing[0]} ({zones.by_antenna[missing[0]]}) has no level of its "
                             f"own (strong_rssi = {reader.strong_rssi})", fix)
    low, high = min(levels.values()), max(levels.values())
    return Check("ok", f"reader: {len(levels)} antennas calibrated (levels {low} to {high})")


#: each reader driver's set-up, and what it cannot check (docs/rules.md, "What each reader set-up
#: can check"); a configuration with limits (no muck antenna, antennas that see a few cards) is
#: the "spots" set-up whatever its driver (controller.core.setups)
SETUPS = {
    "feig": ("a FEIG reader with an antenna multiplexer", "every rule of docs/rules.md is checked"),
    "bridge": ("our bridge board, a PN5180 (or an MFRC522) a zone (docs/protocols/bridge.md)",
               "every rule of docs/rules.md is checked; without signal strength a cloned tag (DECK-007) is told "
               "after about 10 cycles in two zones, not 2"),
}


def check_setup(reader: Any, zones: Any = None) -> Check:
    """The reader set-up the configuration describes, and what it cannot check."""
    driver = getattr(reader, "driver", "feig")
    muck = getattr(reader, "muck_antenna", True) and (zones is None or bool(zones.antennas_of("muck")))
    setup = setup_of(driver, muck=muck, capacity=getattr(reader, "capacity", {}) or {})
    where = "(docs/rules.md, \"What each reader set-up can check\")"
    if setup.name in SETUPS:
        what, limits = SETUPS[setup.name]
        return Check("note", f"reader: set-up: {what}: {limits} {where}")
    if setup.name != "spots":
        return Check("note", f"reader: set-up: reader driver {driver}: see docs/rules.md {where}")
    limits = []
    capacity = getattr(reader, "capacity", {}) or {}
    if capacity:
        limits.append("antennas that see a few cards (" + ", ".join(f"{a}: {n}" for a, n in sorted(capacity.items()))
                      + "): the cards under them are kept where they were confirmed")
    if not muck:
        limits.append("no muck antenna: a muck inferred from cards leaving the seats")
    late = f"; checked in part (or late, on the inferred muck): {', '.join(setup.partly)}" if setup.partly else ""
    return Check("note", f"reader: set-up: {setup.what}: " + "; ".join(limits)
                 + f"; not checked on this table: {', '.join(setup.unchecked)}{late} {where}")


def installed_unit(paths: Iterable[Path] = UNIT_PATHS) -> Path | None:
    return next((p for p in paths if p.exists()), None)


def unit_config_path(unit: Path) -> str | None:
    """The --config of the unit's ExecStart, if it has one."""
    for line in unit.read_text().splitlines():
        line = line.strip()
        if line.startswith("ExecStart="):
            words = line.split()
            for i, word in enumerate(words):
                if word == "--config" and i + 1 < len(words):
                    return words[i + 1]
                if word.startswith("--config="):
                    return word.split("=", 1)[1]
    return None


def check_service(unit: Path, *, user: str = SERVICE_USER, groups: Iterable[str] = SERVICE_GROUPS,
                  host: Host = HOST) -> list[Check]:
    """The installed unit's user and groups exist (systemd refuses to start it otherwise). (The
    unit's own User= and groups: controller.cli.doctor_service.check_users.)"""
    return users_exist(str(unit), user, list(groups), host, keys="SupplementaryGroups=", fix=SYSUSERS_FIX)


# -- all together ------------------------------------------------------------------------------

def run_checks(config_path: str, *, user: str | None = None, open_ports: bool = True,
               env: Mapping[str, str] = os.environ, host: Host = HOST) -> list[Check]:
    """Every check of a table's configuration, in order. ``host``: the system they look at (the
    tests give their own: a root folder, users, a resolver)."""
    return table_checks(config_path, user=user, open_ports=open_ports, env=env, host=host)[0]


def table_checks(config_path: str, *, user: str | None = None, open_ports: bool = True,
                 env: Mapping[str, str] = os.environ, host: Host = HOST) -> tuple[list[Check], Any]:
    """:func:`run_checks`, and the configuration they judged (None if it did not load): what is
    left to do next is judged from both (controller/cli/doctor_next.py)."""
    ident, note = resolve_identity(user, host)
    out: list[Check] = [note] if note else []
    if note is not None and note.failed:
        return out, None
    first, config = check_config(config_path)
    out.append(first)
    if config is None:  # (a room secret of the wrong owner or mode is refused: name the fix that works)
        out.extend(unloaded_room_secrets(config_path, ident))
        return out, None
    out.extend(check_decks(config))
    if not ident.current:  # (the caller read it all: for someone else, judge the modes)
        out.extend(check_readable(service_files(config_path, config), ident, root=host.root))
    daemon, running = check_daemon(config.outputs.control)
    rules = rules_installed()
    ports = [("reader", config.reader.port, config.reader.baudrate, config.reader.parity)]
    if config.shuffler is not None:
        ports.append(("shuffler", config.shuffler.port, config.shuffler.baudrate, "N"))
    for name, port, baudrate, parity in ports:
        found = check_device_path(name, port, ident, rules=rules)
        out.extend(found)
        if open_ports and "://" not in port and not any(c.failed for c in found):
            out.append(check_device_opens(name, port, baudrate=baudrate, parity=parity))
    out.append(check_setup(config.reader, config.table.zones))
    out.append(check_levels(config.reader, config.table.zones))
    out.extend(daemon)
    out.extend(check_journal(config.journal, ident, config.table))
    if config.room is not None:

        out.extend(check_room(config.room, ident))
    out.extend(check_gpio(config.console, ident, env=env))
    out.extend(check_display(config.display, ident))
    out.extend(service_checks(config_path, config, ident, host))
    return out, config


def run_floor_checks(floor: str, *, user: str | None = None, host: Host = HOST) -> list[Check]:
    """``--floor FILE``: the floor service's configuration, files, database and broker."""

    ident, note = resolve_identity(user, host)
    if note is not None and note.failed:
        return [note]
    return ([note] if note else []) + floor_checks(floor, ident) + unit_state(FLOOR, host)


def main(config: str = DEFAULT_CONFIG, *, user: str | None = None, open_ports: bool = True,
         floor: str | None = None, host: Host = HOST) -> int:
    """Print each finding; 1 if any failed. ``floor``: check the floor service's configuration
    (docs/floor.md) instead of a table's."""
    steps: list[str] = []
    if floor:
        results = run_floor_checks(floor, user=user, host=host)
    else:
        results, loaded = table_checks(config, user=user, open_ports=open_ports, host=host)
        steps = next_steps(loaded, results, config_path=config)
    for result in results:
        print(result.line())
    failed = sum(r.failed for r in results)
    warned = sum(r.level == "warn" for r in results)
    if failed:
        print(f"{failed} problem{'s' if failed != 1 else ''} found" + (f", {warned} warning{'s' if warned != 1 else ''}"
                                                                      if warned else ""))
    else:
        print("all checks passed" + (f" ({warned} warning{'s' if warned != 1 else ''})" if warned else ""))
    for line in next_lines(steps):  # (last: what only a person can do next, one command each)
        print(line)
    return 1 if failed else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else DEFAULT_CONFIG))
