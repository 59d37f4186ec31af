"""``tablectl doctor``: each check alone, and the command as a subprocess against real
pseudo-terminals, a real SQLite journal and real configuration files."""

from __future__ import annotations

import errno
import os
import pwd
import sqlite3
import subprocess
import sys
import termios
from pathlib import Path
from types import SimpleNamespace

import pytest
import serial

from controller.cli import doctor
from controller.config.daemon import JournalConfig
from controller.daemon.control import ControlServer
from controller.cli.doctor import Check, Identity
from hw_sim.decks import DECK_BACKS, manifest_text
from hw_sim.pty_device import PtyDevice
from rig.paths import ROOT

TABLECTL = [sys.executable, "-m", "controller.cli.main"]
ME = pwd.getpwuid(os.geteuid()).pw_name
IS_ROOT = os.geteuid() == 0
#: someone who is not the caller and not root, to judge access by mode bits (root's os.access
#: ignores them)
STRANGER = Identity("stranger", 54321, frozenset({54321}), current=False)


def write_config(tmp: Path, *, reader: str, shuffler: str | None = None, journal: bool = True,
                 console: str | None = None, extra: str = "") -> Path:
    text = f'[reader]\nport = "{reader}"\nparity = "N"\n'
    for deck in DECK_BACKS:  # (a table deals registered decks: doctor fails without [[decks]])
        (tmp / f"{deck}.txt").write_text(manifest_text(deck))
        text += f'\n[[decks]]\nid = "{deck}"\nback = "{DECK_BACKS[deck]}"\nmanifest = "{deck}.txt"\n'
    if shuffler:
        text += f'\n[shuffler]\nport = "{shuffler}"\n'
    if journal:
        (tmp / "state").mkdir(exist_ok=True)
        text += '\n[journal]\npath = "state/journal.sqlite3"\n'
    if console:
        text += f'\n[console]\npin_factory = "{console}"\n[console.buttons]\nround_done = 5\n'
    path = tmp / "tablectl.toml"
    path.write_text(text + extra)
    return path


def make_journal(path: Path, events: int = 3, *, wal: bool = True) -> None:
    con = sqlite3.connect(path)
    if wal:
        con.execute("PRAGMA journal_mode=wal")
    con.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, kind TEXT, body TEXT)")
    con.executemany("INSERT INTO events (kind, body) VALUES (?, ?)", [("ReaderCycle", "{}")] * events)
    con.commit()
    con.close()


def run_doctor(config: Path, *args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if k != "GPIOZERO_PIN_FACTORY"}
    environ.update(env or {})
    return subprocess.run([*TABLECTL, "doctor", "--config", str(config), *args], capture_output=True, text=True,
                          timeout=60, env=environ, cwd=ROOT)


def lines(out: str, level: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith(level + " ")]


# -- the command -------------------------------------------------------------------------------

def test_good_setup_passes(tmp_path):
    """Reader and shuffler on pseudo-terminals behind symlinks (as udev makes them), a WAL
    journal, a console on mock pins: every line ok, exit 0."""
    with PtyDevice(tmp_path / "reader") as reader, PtyDevice(tmp_path / "shuffler"):
        config = write_config(tmp_path, reader=str(tmp_path / "reader"), shuffler=str(tmp_path / "shuffler"),
                              console="mock")
        make_journal(tmp_path / "state" / "journal.sqlite3", events=3)
        r = run_doctor(config, "--user", ME)
    assert r.returncode == 0, r.stdout + r.stderr
    assert not lines(r.stdout, "FAIL")
    ok = "\n".join(lines(r.stdout, "ok"))
    assert f"config: {config} loads" in ok
    assert f"reader: {tmp_path / 'reader'} -> {reader.slave_name} is a character device, read-write for {ME}" in ok
    assert f"reader: {tmp_path / 'reader'} opens (38400 8N1)" in ok
    assert f"shuffler: {tmp_path / 'shuffler'} opens (115200 8N1)" in ok
    assert "journal.sqlite3 is sound, WAL, 3 events" in ok
    assert "gpio: pin factory mock" in ok
    # the summary, then what only a person can do next (no levels, no [room]; the decks registered)
    out = r.stdout.splitlines()
    assert out[out.index("Next:") - 1] == "all checks passed"
    assert [line.split(":")[0] for line in out[out.index("Next:") + 1:]] == [
        "  1. map the antennas", "  2. calibrate each antenna", "  3. enroll in the room"]


def test_missing_device_fails_naming_it_and_the_fix(tmp_path):
    with PtyDevice(tmp_path / "reader"):
        config = write_config(tmp_path, reader=str(tmp_path / "reader"), shuffler=str(tmp_path / "shuffler"))
        r = run_doctor(config, "--user", ME)
    assert r.returncode == 1
    [fail] = lines(r.stdout, "FAIL")
    assert f"shuffler: {tmp_path / 'shuffler'} does not exist -> plug the device in" in fail
    assert "[shuffler] port" in fail
    assert lines(r.stdout, "ok")  # the rest is still checked
    out = r.stdout.splitlines()
    assert out[out.index("Next:") - 1] == "1 problem found"


def test_udev_name_missing_points_at_the_rules():
    [c] = doctor.check_device_path("reader", "/dev/tablectl/no-such-reader", STRANGER, rules=None)
    assert c.failed and "/dev/tablectl/no-such-reader does not exist" in c.what
    assert "99-tablectl.rules" in c.fix and "udevadm trigger" in c.fix
    [c] = doctor.check_device_path("reader", "/dev/tablectl/no-such-reader", STRANGER,
                                   rules=Path("/etc/udev/rules.d/99-tablectl.rules"))
    assert "udevadm info" in c.fix


def test_unplugged_device_is_a_dangling_link(tmp_path):
    (tmp_path / "reader").symlink_to("/dev/pts/no-such-pty")
    [c] = doctor.check_device_path("reader", str(tmp_path / "reader"), STRANGER)
    assert c.failed and "does not exist (unplugged?)" in c.what and "/dev/pts/no-such-pty" in c.what


def test_not_a_character_device(tmp_path):
    (tmp_path / "reader").write_text("")
    [c] = doctor.check_device_path("reader", str(tmp_path / "reader"), STRANGER)
    assert c.failed and "is not a character device" in c.what and "[reader] port" in c.fix


def test_pyserial_url_is_noted_not_checked():
    [c] = doctor.check_device_path("reader", "socket://10.0.0.5:10001", STRANGER)
    assert c.level == "note" and "pyserial URL" in c.what


def test_unreadable_device_fails_with_the_group_fix(tmp_path):
    """A device the daemon's user may not open. Run as root, os.access would say yes whatever
    the mode: then access is judged for another user (--user), by the mode bits."""
    with PtyDevice(tmp_path / "reader") as dev:
        os.chmod(dev.slave_name, 0)
        config = write_config(tmp_path, reader=str(tmp_path / "reader"), journal=False)
        args = ("--user", "nobody") if IS_ROOT else ()
        r = run_doctor(config, *args)
        [c] = doctor.check_device_path("reader", str(tmp_path / "reader"),
                                       STRANGER if IS_ROOT else doctor.current_identity())
    assert r.returncode == 1
    # (as root, judged for nobody: the test's 0700 folders keep nobody from the configuration too)
    [fail] = [line for line in lines(r.stdout, "FAIL") if line.startswith("FAIL  reader:")]
    assert f"reader: {tmp_path / 'reader'} -> {dev.slave_name}" in fail
    assert "0000) is not readable and writable by" in fail
    assert "GROUP=\"dialout\" MODE=\"0660\"" in fail and "usermod -aG dialout" in fail
    assert c.failed and "is not readable and writable" in c.what
    # a journal-less configuration is a warning, not a failure
    assert lines(r.stdout, "warn") and "journal: none" in lines(r.stdout, "warn")[0]


def test_can_access_reads_the_mode_bits_for_another_user(tmp_path):
    f = tmp_path / "dev"
    f.write_text("")
    st = f.stat()
    owner = Identity("owner", st.st_uid if st.st_uid else 4242, frozenset({99999}), current=False)
    if st.st_uid == 0:  # (root owns it: give it to a made-up owner's uid instead)
        os.chown(f, 4242, st.st_gid)
    group = Identity("member", 54322, frozenset({st.st_gid}), current=False)
    os.chmod(f, 0o060)  # the group may, the owner may not: the owner's bits decide for the owner
    assert not doctor.can_access(f, owner, os.R_OK)
    assert doctor.can_access(f, group, os.R_OK | os.W_OK)
    assert not doctor.can_access(f, STRANGER, os.R_OK)
    os.chmod(f, 0o604)
    assert doctor.can_access(f, STRANGER, os.R_OK) and not doctor.can_access(f, STRANGER, os.W_OK)
    assert doctor.can_access(f, Identity("root", 0, frozenset({0}), current=False), os.W_OK)


def test_bad_config_prints_the_config_error(tmp_path):
    config = tmp_path / "tablectl.toml"
    config.write_text('[reader]\nport = "loop://"\nbaudrate = 12345\n')
    r = run_doctor(config)
    assert r.returncode == 1
    [fail] = lines(r.stdout, "FAIL")
    assert f"FAIL  {config}: [reader] baudrate = 12345: must be one of 4800" in fail
    assert "docs/configuration.md" in fail


def test_missing_config_file(tmp_path):
    r = run_doctor(tmp_path / "nowhere.toml")
    assert r.returncode == 1
    assert f"{tmp_path / 'nowhere.toml'}: cannot read the configuration" in r.stdout


def test_port_held_by_the_daemon_is_left_alone(tmp_path):
    with PtyDevice(tmp_path / "reader") as dev:
        held = serial.serial_for_url(str(tmp_path / "reader"), exclusive=True)  # as the daemon opens it
        try:
            c = doctor.check_device_opens("reader", str(tmp_path / "reader"), baudrate=38400, parity="N")
        finally:
            held.close()
        assert dev.is_open
    assert c.level == "note" and "in use by another program" in c.what


def test_running_daemon_is_asked(tmp_path):
    sock = str(tmp_path / "control.sock")
    server = ControlServer(sock, lambda event: None,
                           lambda: {"hands_finished": 4, "online": {"reader": True, "shuffler": False}})
    server.start()
    try:
        found, running = doctor.check_daemon(sock)
    finally:
        server.close()
    assert running
    assert [c.level for c in found] == ["note", "ok", "fail"]
    assert "4 hands finished" in found[0].what and found[2].what == "daemon: shuffler offline"
    assert doctor.check_daemon(sock) == ([], False)  # gone: nothing to say


# -- the journal -------------------------------------------------------------------------------

def test_corrupt_journal_fails_naming_the_file(tmp_path):
    with PtyDevice(tmp_path / "reader"):
        config = write_config(tmp_path, reader=str(tmp_path / "reader"))
        journal = tmp_path / "state" / "journal.sqlite3"
        journal.write_bytes(b"\x00garbage, not SQLite\xff" * 300)
        r = run_doctor(config, "--user", ME, "--no-open")
    assert r.returncode == 1
    [fail] = lines(r.stdout, "FAIL")
    # (the configuration's path check finds it first: issue 12, tests/unit/config/test_config_paths.py)
    assert f"[journal] path: {journal} is not an SQLite journal" in fail
    assert f"mv {journal} {journal}.bad" in fail


def test_journal_checks(tmp_path):
    me = doctor.current_identity()
    path = tmp_path / "journal.sqlite3"
    [c] = doctor.check_journal(JournalConfig(path=str(path)), me)
    assert c.level == "ok" and "is not there yet" in c.what
    con = sqlite3.connect(path)
    con.execute("PRAGMA journal_mode=wal")
    con.close()
    [c] = doctor.check_journal(JournalConfig(path=str(path)), me)
    assert c.level == "ok" and c.what.endswith("is sound, WAL, empty")  # no events table yet: empty
    other = tmp_path / "other.sqlite3"
    make_journal(other, events=2, wal=False)
    c = doctor.inspect_journal(other)
    assert c.level == "warn" and "2 events" in c.what and "delete mode, not WAL" in c.what
    [c] = doctor.check_journal(JournalConfig(path=str(tmp_path / "missing" / "j.sqlite3")), me)
    assert c.failed and "does not exist" in c.what and "StateDirectory" in c.fix
    [c] = doctor.check_journal(JournalConfig(path=None), me)
    assert c.level == "warn"


def test_journal_folder_not_writable_for_the_daemons_user(tmp_path):
    os.chmod(tmp_path, 0o700)
    [c] = doctor.check_journal(JournalConfig(path=str(tmp_path / "j.sqlite3")), STRANGER)
    assert c.failed and "is not writable by stranger" in c.what and "sudo -u tablectl" in c.fix


# -- GPIO --------------------------------------------------------------------------------------

def console(factory: str) -> SimpleNamespace:
    return SimpleNamespace(pin_factory=factory)


def test_gpio_mock_from_the_environment_is_ok(tmp_path):
    with PtyDevice(tmp_path / "reader"):
        config = write_config(tmp_path, reader=str(tmp_path / "reader"), console="auto")
        r = run_doctor(config, "--user", ME, env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert r.returncode == 0, r.stdout
    assert "ok    gpio: pin factory mock (GPIOZERO_PIN_FACTORY)" in r.stdout
    [c] = doctor.check_gpio(console("auto"), STRANGER, env={"GPIOZERO_PIN_FACTORY": "mock"})
    assert c.level == "ok"


def test_gpio_without_the_pi_packages_says_install_the_extra(tmp_path):
    def absent(module):
        return f"the {module} package is not installed"

    [c] = doctor.check_gpio(console("auto"), STRANGER, env={}, importer=absent, dev=tmp_path)
    assert c.failed and "lgpio" in c.what and "RPi.GPIO" in c.what
    assert "pip install '/opt/tablectl/src[pi]'" in c.fix and 'pin_factory = "mock"' in c.fix
    # the configured factory wins over the environment unless it is auto
    [c] = doctor.check_gpio(console("lgpio"), STRANGER, env={"GPIOZERO_PIN_FACTORY": "mock"}, importer=absent,
                            dev=tmp_path)
    assert c.failed and c.what.startswith("gpio: pin factory lgpio ([console] pin_factory)")


def test_gpio_chips_must_be_there_and_reachable(tmp_path):
    loads = lambda module: None  # noqa: E731
    ok, missing = doctor.check_gpio(console("auto"), STRANGER, env={}, importer=loads, dev=tmp_path)
    assert ok.level == "ok" and "lgpio loads" in ok.what
    assert missing.failed and "gpiochip*" in missing.what
    chip = tmp_path / "gpiochip0"
    chip.write_text("")
    os.chmod(chip, 0o600)
    _, denied = doctor.check_gpio(console("lgpio"), STRANGER, env={}, importer=loads, dev=tmp_path)
    assert denied.failed and "gpiochip0" in denied.what and "GROUP=\"gpio\"" in denied.fix
    os.chmod(chip, 0o666)
    _, reachable = doctor.check_gpio(console("lgpio"), STRANGER, env={}, importer=loads, dev=tmp_path)
    assert reachable.level == "ok"
    assert doctor.check_gpio(None, STRANGER)[0].level == "note"


def test_gpio_rpigpio_needs_gpiomem(tmp_path):
    loads = lambda module: None  # noqa: E731
    _, missing = doctor.check_gpio(console("rpigpio"), STRANGER, env={}, importer=loads, dev=tmp_path)
    assert missing.failed and "gpiomem" in missing.what


# -- the service -------------------------------------------------------------------------------

def test_service_user_and_groups():
    unit = ROOT / "systemd" / "tablectl.service"
    [c] = doctor.check_service(unit, user="root", groups=("root",))
    assert c.level == "ok"
    found = doctor.check_service(unit, user="no-such-user-tablectl", groups=("root", "no-such-group-tablectl"))
    assert [c.failed for c in found] == [True, True]
    assert "systemd-sysusers" in found[0].fix and "216/GROUP" in found[1].what


def test_resolve_identity():
    ident, note = doctor.resolve_identity(ME)
    assert ident.uid == os.geteuid() and note is None
    _, note = doctor.resolve_identity("no-such-user-tablectl")
    assert note is not None and note.failed
    if IS_ROOT:
        _, note = doctor.resolve_identity(None)
        assert note is not None and "running as root" in note.what


def test_check_line_format():
    assert Check("warn", "journal: none", "add one").line() == "warn  journal: none -> add one"
    assert Check("note", "x").line() == "note  x"


@pytest.fixture
def refusing_ports(monkeypatch):
    """``refuseparity://PATH`` opens PATH with pyserial's POSIX port, whose ``tcsetattr`` fails
    with EINVAL when asked for a parity bit, as some USB adapters' drivers do
    (tests/serial_handlers/protocol_refuseparity.py): a real pseudo-terminal behind it, and
    pyserial's own open and configure code in front."""
    monkeypatch.setattr(serial, "protocol_handler_packages", [*serial.protocol_handler_packages,
                                                               "tests.serial_handlers"])


def test_a_port_refusing_parity_e_is_one_line_naming_it(tmp_path, refusing_ports):
    """The doctor used to crash with ``termios.error`` here."""
    with PtyDevice(tmp_path / "reader"):
        url = f"refuseparity://{tmp_path / 'reader'}"
        with pytest.raises(termios.error):  # the handler does refuse, through pyserial's own open
            serial.serial_for_url(url, parity=serial.PARITY_EVEN)
        serial.serial_for_url(url, parity=serial.PARITY_NONE).close()  # and accepts no parity

        c = doctor.check_device_opens("reader", url, baudrate=38400, parity="E")
    assert c.level == "fail"
    assert c.what == f"reader: {url} refuses parity E (38400 8E1: Invalid argument)"
    assert "\n" not in c.line() and "adapter that supports parity" in c.line()


def test_a_port_refusing_every_setting_names_the_whole_setting(tmp_path, refusing_ports):
    with PtyDevice(tmp_path / "reader"):
        url = f"refuseparity://{tmp_path / 'reader'}"
        err = termios.error(errno.EINVAL, "Invalid argument")
        assert doctor._refused_setting("reader", url, baudrate=38400, parity="N", error=err).what == \
            f"reader: {url} refuses 38400 8N1 (Invalid argument)"
    # the pseudo-terminal is gone: the probe without parity fails too, so the whole setting is named
    c = doctor._refused_setting("reader", url, baudrate=9600, parity="O", error=err)
    assert c.what == f"reader: {url} refuses 9600 8O1 (Invalid argument)"


def test_a_port_that_does_not_open_is_one_line(tmp_path):
    c = doctor.check_device_opens("reader", str(tmp_path / "nothing"), baudrate=38400, parity="E")
    assert c.level == "fail" and c.what.startswith(f"reader: {tmp_path / 'nothing'} does not open")


# -- the dealer's display ----------------------------------------------------------------------

def test_display_library_and_bus_must_be_there_and_reachable(tmp_path):
    display = SimpleNamespace(kind="hd44780", bus=1, address=0x27, sim_cable=None)
    absent = lambda module: f"the {module} package is not installed"  # noqa: E731
    [sim] = doctor.check_display(SimpleNamespace(kind="hd44780", bus=1, address=0x27, sim_cable="/tmp/x/display"),
                                 STRANGER, importer=absent, dev=tmp_path)
    assert sim.level == "note" and "simulated" in sim.what  # (tablectl simulate's: no bus, no library)
    [c] = doctor.check_display(display, STRANGER, importer=absent, dev=tmp_path)
    assert c.failed and "RPLCD.i2c" in c.what and "smbus2" in c.what and "[pi,display]" in c.fix
    loads = lambda module: None  # noqa: E731
    ok, missing = doctor.check_display(display, STRANGER, importer=loads, dev=tmp_path)
    assert ok.level == "ok" and missing.failed and "i2c-1" in missing.what and "do_i2c" in missing.fix
    bus = tmp_path / "i2c-1"
    bus.write_text("")
    os.chmod(bus, 0o600)
    _, denied = doctor.check_display(display, STRANGER, importer=loads, dev=tmp_path)
    assert denied.failed and 'GROUP="i2c"' in denied.fix
    os.chmod(bus, 0o666)
    _, reachable = doctor.check_display(display, STRANGER, importer=loads, dev=tmp_path)
    assert reachable.level == "ok" and "should show 27" in reachable.what
    assert doctor.check_display(None, STRANGER)[0].level == "note"
