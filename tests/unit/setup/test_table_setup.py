"""``tablectl setup --root DIR`` for a table (issue 41): every file written, its mode, its owner
(the root's own /etc/passwd, as systemd-sysusers --root makes it), its contents against the
shipped files under systemd/ (differing only where controller/cli/setup/table.py says), a second
run that writes nothing, an edited file kept with its difference shown, --dry-run that lists
exactly what the real run writes, and --remove.

These run systemd's own offline tools (systemd-sysusers, systemd-tmpfiles, systemctl --root):
where one is missing the test fails, saying so (a skip is no pass)."""

from __future__ import annotations

import io
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from controller.cli.setup import plan, table
from controller.config.console import DEFAULT_CONSOLE
from controller.room import enroll
from rig.fake_pi import USB_BRIDGE, USB_READER, USB_READER_BOARD, fake_pi
from rig.paths import ROOT

SHIPPED = ROOT / "systemd"
TOOLS = ("systemd-sysusers", "systemd-tmpfiles", "systemctl")


@pytest.fixture(autouse=True)
def _tools():
    missing = [t for t in TOOLS if shutil.which(t) is None]
    assert not missing, f"systemd's offline tools are needed here: {missing}"


def run_setup(root: Path, **options) -> tuple[int, str]:
    out = io.StringIO()
    opts = {"root": str(root), "doctor": False, "display": "none", **options}
    status = table.main(opts, out=out)
    return status, out.getvalue()


def tree(root: Path) -> dict[str, tuple[int, int, int, bytes | str | None]]:
    """Every path under root (sys/, proc/ aside): (uid, gid, mode, contents or link target)."""
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root)
        if rel.parts[0] in ("sys", "proc"):
            continue
        st = p.lstat()
        body = os.readlink(p) if p.is_symlink() else p.read_bytes() if p.is_file() else None
        out[str(rel)] = (st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode), body)
    return out


def load(root: Path, text: str):
    """The configuration text as the root would load it (its group, its folders there)."""
    path = root / "etc/tablectl/check.toml"
    path.write_text(text)
    try:
        return table.config_in_root(plan.Target(root), path)
    finally:
        path.unlink()


def ids(root: Path, name: str, table_name: str = "passwd") -> int:
    m = re.search(rf"^{name}:x:(\d+):", (root / "etc" / table_name).read_text(), re.M)
    assert m, f"{name} not in {table_name}"
    return int(m.group(1))


def written(output: str, verb: str = "write") -> list[str]:
    """The paths a run's lines say it writes (or would), in order."""
    return re.findall(rf"^  (?:would )?{verb}\s+(\S+)", output, re.M)


def test_a_feig_table_every_file_its_owner_mode_and_contents(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    status, out = run_setup(root, reader="feig", seats="1-9")
    # under --root nothing that needs a running systemd or udev is run: said, and exit status 3
    assert status == plan.EXIT_NOT_APPLIED, out
    assert "not applied  udevadm control --reload  (--root: not run on this system)" in out
    assert "not applied  systemctl daemon-reload" in out
    uid, gid = ids(root, "tablectl"), ids(root, "tablectl", "group")
    files = tree(root)

    def check(path: str, mode: int, owner: tuple[int, int] = (0, 0)) -> bytes:
        assert path.lstrip("/") in files, f"{path} not written: {sorted(files)}"
        u, g, m, body = files[path.lstrip("/")]
        if os.geteuid() == 0:
            assert (u, g) == owner, path
        assert m == mode, (path, oct(m))
        return body

    # as shipped, byte for byte
    assert check(table.SYSUSERS, 0o644) == (SHIPPED / "tablectl.sysusers").read_bytes()
    assert check(table.TMPFILES, 0o644) == (SHIPPED / "tablectl.tmpfiles").read_bytes()
    assert check(table.UNIT, 0o644) == (SHIPPED / "tablectl.service").read_bytes()
    # the udev rules: the shipped ones, the reader's line pinned to the device found (its ids AND serial)
    rules = check(table.RULES, 0o644).decode()
    shipped_rules = (SHIPPED / "99-tablectl.rules").read_text()
    added = [ln for ln in rules.splitlines() if ln not in shipped_rules.splitlines()]
    assert added == ["# tablectl setup: the reader found, ttyUSB0 (USB 0403:6001, serial A10K1234)",
                     'SUBSYSTEM=="tty", KERNEL=="ttyUSB[0-9]*", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", '
                     'ATTRS{serial}=="A10K1234", SYMLINK+="tablectl/reader", GROUP="dialout", MODE="0660", '
                     'TAG+="systemd"']
    gone = [ln for ln in shipped_rules.splitlines() if ln not in rules.splitlines()]
    assert len(gone) == 1 and gone[0].startswith('SUBSYSTEM=="tty", KERNEL=="ttyUSB[0-9]*"')  # the generic one
    # the configuration: root:tablectl 0640, generated, loads
    config = check(table.CONFIG, 0o640, (0, gid)).decode()
    cfg = load(root, config)
    assert cfg.table.seats == tuple(range(1, 10)) and cfg.shuffler is None and cfg.room is None
    assert cfg.console is not None and cfg.console.pin_factory == "auto"  # a Raspberry Pi's model in the device tree
    assert cfg.reader.port == "/dev/tablectl/reader"
    assert cfg.journal.path == str(root / "var/lib/tablectl/journal.sqlite3")  # (/var/lib/tablectl, in the root)
    assert check("/etc/tablectl", 0o750, (0, gid)) is None and check("/etc/tablectl/decks", 0o750, (0, gid)) is None
    # the folders systemd-tmpfiles made, the user systemd-sysusers made (in this root)
    assert check("/var/lib/tablectl", 0o700, (uid, gid)) is None
    assert re.search(r"^dialout:x:\d+:tablectl$", (root / "etc/group").read_text(), re.M)
    assert files["usr/local/bin/tablectl"][3] == "/opt/tablectl/venv/bin/tablectl"
    assert os.readlink(root / "etc/systemd/system/multi-user.target.wants/tablectl.service").endswith(
        "tablectl.service")  # systemctl --root enable
    assert "etc/systemd/system/tablectl.service.d/room.conf" not in files  # no [room]: the network stays shut


def test_sysusers_is_installed_where_systemd_sysusers_reads_it(tmp_path):
    """Break 1: /etc/sysusers.d did not exist on Debian and install.md's `install` failed; what
    setup writes must be what `systemd-sysusers` (no file named: its own search) applies."""
    root = fake_pi(tmp_path / "root")
    run_setup(root)
    for name in ("passwd", "group", "shadow", "gshadow"):
        (root / "etc" / name).unlink(missing_ok=True)
    r = __import__("subprocess").run(["systemd-sysusers", f"--root={root}"], capture_output=True, text=True,
                                     timeout=60)
    assert r.returncode == 0, r.stderr
    assert ids(root, "tablectl") > 0 and re.search(r"^i2c:x:\d+:tablectl$", (root / "etc/group").read_text(), re.M)


def test_doctors_fix_for_a_missing_user_names_the_file_setup_writes(tmp_path):
    """Doctor's fix for a missing user or group named /usr/lib/sysusers.d while setup writes
    /etc/sysusers.d: the two name the same file, the one setup installs (and systemd-sysusers reads)."""
    from controller.cli import doctor
    from controller.cli.checks import Host
    from controller.cli.doctor_service import check_users
    from controller.cli.unit_file import parse_unit

    root = fake_pi(tmp_path / "root")
    run_setup(root)
    assert (root / table.SYSUSERS.lstrip("/")).read_bytes() == (ROOT / "systemd/tablectl.sysusers").read_bytes()
    nobody = Host(users=lambda name: None, groups=lambda name: None)
    unit = parse_unit((ROOT / "systemd/tablectl.service").read_text(), "/etc/systemd/system/tablectl.service")
    fixes = [c.fix for c in check_users(unit, nobody)]
    fixes += [c.fix for c in doctor.check_service(ROOT / "systemd/tablectl.service", host=nobody)]
    assert len(fixes) == 4 and all(c for c in fixes)
    for fix in fixes:
        named = set(re.findall(r"/[\w/.-]*sysusers\.d/[\w.-]*\w", fix))
        assert named == {table.SYSUSERS}, fix


def test_a_bridge_table_pins_both_devices_and_configures_the_shuffler(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER, USB_BRIDGE])
    status, out = run_setup(root, reader="bridge", seats="1-6")
    assert status == plan.EXIT_NOT_APPLIED, out
    rules = (root / "etc/udev/rules.d/99-tablectl.rules").read_text()
    assert ('ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="000a", ATTRS{serial}=="E6614C311B7A5E2F", '
            'SYMLINK+="tablectl/shuffler"') in rules
    active = [ln for ln in rules.splitlines() if ln and not ln.startswith("#")]
    bridge = table.found.SerialDevice("ttyACM0", "2e8a", "000a", "E6614C311B7A5E2F")
    assert [ln for ln in active if "tablectl/shuffler" in ln] == [table.pinned_rule("shuffler", bridge)]
    cfg = load(root, (root / "etc/tablectl/tablectl.toml").read_text())
    assert cfg.shuffler is not None and cfg.shuffler.port == "/dev/tablectl/shuffler"
    assert cfg.table.seats == (1, 2, 3, 4, 5, 6)
    assert sorted(cfg.console.layout.seat_leds) == [1, 2, 3, 4, 5, 6]  # LEDs for the seats played only


def test_a_table_read_by_our_bridge_board_pins_the_micropython_pico_as_the_reader(tmp_path):
    """--reader bridge: the reader is our bridge board (issue 40), a Pico running MicroPython
    (2e8a:0005), pinned by its serial with the shipped rule's end of the serial rules kept (else
    the generic ttyACM rule would name it the shuffler too); the shuffler's board beside it (a Pico
    of other firmware) is the shuffler; the configuration asks the bridge driver."""
    root = fake_pi(tmp_path / "root", devices=[USB_READER_BOARD, USB_BRIDGE])
    status, out = run_setup(root, reader="bridge", seats="1-6")
    assert status == plan.EXIT_NOT_APPLIED, out
    rules = (root / "etc/udev/rules.d/99-tablectl.rules").read_text()
    active = [ln for ln in rules.splitlines() if ln and not ln.startswith("#")]
    assert [ln for ln in active if "tablectl/reader" in ln] == [
        'SUBSYSTEM=="tty", KERNEL=="ttyUSB[0-9]*", ATTRS{idVendor}=="0403", ATTRS{idProduct}=="6001", '
        'SYMLINK+="tablectl/reader", GROUP="dialout", MODE="0660", TAG+="systemd"',  # (FEIG's, as shipped)
        'SUBSYSTEM=="tty", KERNEL=="ttyACM[0-9]*", ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="0005", '
        'ATTRS{serial}=="E6614104035A2B31", SYMLINK+="tablectl/reader", GROUP="dialout", MODE="0660", '
        'TAG+="systemd", GOTO="tablectl_serial_end"']
    assert [ln for ln in active if "tablectl/shuffler" in ln] == [
        'SUBSYSTEM=="tty", KERNEL=="ttyACM[0-9]*", ATTRS{idVendor}=="2e8a", ATTRS{idProduct}=="000a", '
        'ATTRS{serial}=="E6614C311B7A5E2F", SYMLINK+="tablectl/shuffler", GROUP="dialout", MODE="0660", '
        'TAG+="systemd"']
    cfg = load(root, (root / "etc/tablectl/tablectl.toml").read_text())
    assert cfg.reader.driver == "bridge" and cfg.reader.port == "/dev/tablectl/reader"
    assert cfg.shuffler is not None and cfg.shuffler.port == "/dev/tablectl/shuffler"


def test_with_a_display_the_console_leaves_the_i2c_pins(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root, display="hd44780", seats="1-10")
    cfg = load(root, (root / "etc/tablectl/tablectl.toml").read_text())  # (it loads: no console pin on the bus)
    pins = {b.pin for b in cfg.console.layout.buttons}
    assert not pins & {2, 3} and cfg.display is not None and cfg.display.kind == "hd44780"
    assert {b.name for b in cfg.console.layout.buttons} >= {"round_done", "exposed"}  # moved, not dropped
    assert DEFAULT_CONSOLE.count("round_done = 2") == 1  # (the recommended layout itself is unchanged)


def test_a_second_run_writes_nothing_and_says_so(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root)
    before = tree(root)
    status, out = run_setup(root)
    assert status == plan.EXIT_OK, out
    assert written(out) == [] and "nothing to do: every file is as setup would write it" in out
    assert "not applied" not in out  # (nothing left to run either)
    assert tree(root) == before


def test_an_edited_file_is_kept_and_its_difference_shown(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root)
    unit = root / "etc/systemd/system/tablectl.service"
    unit.write_text(unit.read_text().replace("RestartSec=2s", "RestartSec=5s"))
    status, out = run_setup(root)
    assert "RestartSec=5s" in unit.read_text()  # never overwritten
    assert f"kept         {table.UNIT}: edited since setup wrote it" in out
    assert "-RestartSec=5s\n+RestartSec=2s\n" in out  # the unified diff, what setup would write on the + side
    assert table.UNIT not in written(out)


def test_a_file_setup_wrote_is_upgraded_in_place(tmp_path):
    """Not edited since setup wrote it: a new release's file replaces it (an upgrade)."""
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root)
    record = plan.read_record(plan.Target(root))
    old = b"# an older release's unit\n"
    (root / "etc/systemd/system/tablectl.service").write_bytes(old)
    record["table"][table.UNIT] = plan.sha(old)
    (root / plan.RECORD.lstrip("/")).write_bytes(plan.record_bytes(record))
    status, out = run_setup(root)
    assert table.UNIT in written(out)
    assert (root / "etc/systemd/system/tablectl.service").read_bytes() == (SHIPPED / "tablectl.service").read_bytes()


def test_dry_run_lists_exactly_what_the_real_run_writes_and_writes_nothing(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER, USB_BRIDGE])
    before = tree(root)
    status, dry = run_setup(root, reader="bridge", dry_run=True)
    assert status == 0 and tree(root) == before  # nothing written
    status, real = run_setup(root, reader="bridge")
    assert written(dry) and written(dry) == written(real)
    assert written(dry, "run") == written(real, "run")  # the commands too, in order
    assert written(dry, "make") == written(real, "make")


def test_remove_undoes_and_keeps_the_configuration(tmp_path):
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root)
    status, out = run_setup(root, remove=True)
    files = tree(root)
    for path in (table.UNIT, table.RULES, table.SYSUSERS, table.TMPFILES, "/usr/local/bin/tablectl"):
        assert path.lstrip("/") not in files, path
    assert "etc/tablectl/tablectl.toml" in files and "kept         /etc/tablectl/tablectl.toml" in out
    assert not (root / "etc/systemd/system/multi-user.target.wants/tablectl.service").exists()  # disabled
    status, out = run_setup(root, remove=True, purge=True)
    assert "etc/tablectl/tablectl.toml" not in tree(root)


def test_the_room_bundle_installs_its_files_room_and_the_dropin(tmp_path):
    enrolled = tmp_path / "broker-host"
    enrolled.mkdir()
    ca = enrolled / "room-ca.crt"
    ca.write_text("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
    bundle = enrolled / "t7.bundle"
    assert enroll.main("t7", "main", str(enrolled), bundle=str(bundle), broker="mqtts://localhost:8883",
                       ca_file=str(ca)) == 0
    assert oct(bundle.stat().st_mode & 0o777) == "0o600"
    root = fake_pi(tmp_path / "root", devices=[USB_READER], nameservers=("10.20.0.1", "fe80::1%eth0"))
    status, out = run_setup(root, room_bundle=str(bundle))
    uid, gid = ids(root, "tablectl"), ids(root, "tablectl", "group")
    password = root / "etc/tablectl/room.password"
    key = root / "etc/tablectl/room.signing-key"
    assert password.read_text() == (enrolled / "t7.password").read_text()  # nothing typed twice
    assert key.read_text() == (enrolled / "t7.signing-key").read_text()
    for p in (password, key):
        st = p.stat()
        assert oct(st.st_mode & 0o777) == "0o600"
        if os.geteuid() == 0:
            assert (st.st_uid, st.st_gid) == (uid, gid)
    assert (root / "etc/tablectl/room-ca.crt").read_text() == ca.read_text()
    text = (root / "etc/tablectl/tablectl.toml").read_text()
    cfg = load(root, text)
    assert (cfg.room.broker, cfg.room.room, cfg.room.table, cfg.room.username) == (
        "mqtts://localhost:8883", "main", "t7", "table-main-t7")
    assert cfg.room.password_file == str(root / "etc/tablectl/room.password")
    # the bundle deleted, setup again (an upgrade): the room is kept, from the files it installed
    bundle.unlink()
    status, out = run_setup(root)
    assert "nothing to do" in out and written(out) == [], out
    dropin = (root / "etc/systemd/system/tablectl.service.d/room.conf").read_text()
    shipped = (SHIPPED / "tablectl.service.d/room.conf").read_text()
    allowed = re.findall(r"^IPAddressAllow=(.+)$", dropin, re.M)
    assert "IPAddressAllow=192.0.2.10" not in dropin  # the placeholder is gone
    assert "127.0.0.1" in allowed and "10.20.0.1" in allowed and "fe80::1" in allowed  # the broker, the DNS servers
    assert allowed[-1] == "localhost"  # the shipped lines after it kept
    rest = [ln for ln in dropin.splitlines() if not ln.startswith(("IPAddressAllow=", "# tablectl setup:"))]
    assert rest == [ln for ln in shipped.splitlines() if not ln.startswith("IPAddressAllow=")]


def test_the_room_bundle_puts_room_into_a_configuration_the_technician_edited(tmp_path):
    """install.md has the technician edit the configuration (``[antennas]``, ``[[decks]]``) and
    calibrate write into it before the room's enrollment (its step 6): ``setup --room-bundle`` then
    puts ``[room]`` into it, every line of theirs kept, with its owner and mode, and says so. It
    once left the edited file whole: the bundle's secrets and drop-in installed, but no ``[room]``,
    so the table never joined the room (rig/install_container.py found it)."""
    enrolled = tmp_path / "broker-host"
    enrolled.mkdir()
    bundle = enrolled / "t7.bundle"
    assert enroll.main("t7", "main", str(enrolled), bundle=str(bundle), broker="mqtts://localhost:8883") == 0
    root = fake_pi(tmp_path / "root", devices=[USB_READER])
    run_setup(root)
    config = root / "etc/tablectl/tablectl.toml"
    edited = config.read_text().replace('11 = "board"\n12 = "burn"', '11 = "burn"\n12 = "board"')
    edited += "\n[reader.levels]\n1 = 150\n"
    assert edited != config.read_text()
    config.write_text(edited)  # (in place, as an editor writes: the owner and mode kept)
    status, dry = run_setup(root, room_bundle=str(bundle), dry_run=True)
    assert config.read_text() == edited and "would put    /etc/tablectl/tablectl.toml: [room]" in dry, dry
    status, out = run_setup(root, room_bundle=str(bundle))
    text = config.read_text()
    assert "put          /etc/tablectl/tablectl.toml: [room] from the room's bundle, the rest of the file as it is" \
        in out, out
    assert text.startswith(edited.rstrip("\n")) and '11 = "burn"' in text and "[reader.levels]\n1 = 150" in text
    cfg = load(root, text)
    assert (cfg.room.room, cfg.room.table, cfg.room.username) == ("main", "t7", "table-main-t7")
    assert cfg.table.zones.by_antenna[11] == "burn" and cfg.reader.levels == {1: 150}
    st = config.stat()
    assert oct(st.st_mode & 0o777) == "0o640"
    if os.geteuid() == 0:
        assert (st.st_uid, st.st_gid) == (0, ids(root, "tablectl", "group"))
    # still the technician's: run again, it is kept as it is, its difference shown, nothing put again
    status, again = run_setup(root)
    assert config.read_text() == text and "put " not in again
    assert f"kept         {table.CONFIG}: edited since setup wrote it" in again


def test_bad_answers_are_refused_naming_the_key(tmp_path, capsys):
    answers = tmp_path / "answers.toml"
    answers.write_text('reader = "feig"\nseat = [1, 2]\n')
    status, _ = run_setup(fake_pi(tmp_path / "root"), answers=str(answers))
    assert status == plan.EXIT_INPUT
    assert f"{answers}: seat: unknown key" in capsys.readouterr().err


def test_an_answers_file_gives_what_cannot_be_found(tmp_path):
    """Unattended: no sysfs device plugged in, the devices and the reader's serial from the answers."""
    answers = tmp_path / "answers.toml"
    answers.write_text('reader = "feig"\nseats = [1, 2, 3]\ngame = "omaha"\ndisplay = "ssd1306"\n'
                       'reader_serial = "FT2"\n'
                       '[[device]]\ntty = "ttyUSB0"\nvendor = "0403"\nproduct = "6001"\nserial = "FT1"\n'
                       '[[device]]\ntty = "ttyUSB1"\nvendor = "0403"\nproduct = "6001"\nserial = "FT2"\n')
    root = fake_pi(tmp_path / "root")
    status, out = run_setup(root, answers=str(answers), display=None)
    assert status == plan.EXIT_NOT_APPLIED, out
    rules = (root / "etc/udev/rules.d/99-tablectl.rules").read_text()
    assert 'ATTRS{serial}=="FT2", SYMLINK+="tablectl/reader"' in rules and '"FT1"' not in rules
    config = (root / "etc/tablectl/tablectl.toml").read_text()
    assert 'game = "omaha"' in config and "seats = [1, 2, 3]" in config and 'kind = "ssd1306"' in config
