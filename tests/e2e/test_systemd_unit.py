"""The systemd unit, the sysusers file and the udev rules in systemd/ (issue 6).

The static checks always run. Where systemd's own tools are installed they judge the files too:
``systemd-analyze security --offline=true`` must rate the unit at 2.0 or lower,
``systemd-analyze verify`` must accept it, ``systemd-sysusers --root`` must make the user.
"""

from __future__ import annotations

import os
import fnmatch
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.cli import doctor
from controller.config.daemon import JournalConfig
from rig.paths import ROOT

UNIT = ROOT / "systemd" / "tablectl.service"
SYSUSERS = ROOT / "systemd" / "tablectl.sysusers"
TMPFILES = ROOT / "systemd" / "tablectl.tmpfiles"
RULES = ROOT / "systemd" / "99-tablectl.rules"
INSTALL = ROOT / "docs" / "install.md"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """A unit file: section -> key -> every value given, in order (units repeat keys; an empty
    value resets a list, and is kept here as "")."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    pending = ""
    for raw in text.splitlines():
        line = pending + raw.strip()
        pending = ""
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"a setting outside any section: {line!r}"
        key, sep, value = line.partition("=")
        assert sep, f"not KEY=VALUE: {line!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


@pytest.fixture(scope="module")
def unit() -> dict[str, dict[str, list[str]]]:
    return parse_unit(UNIT.read_text())


def one(unit, section: str, key: str) -> str:
    values = unit[section].get(key)
    assert values, f"[{section}] {key}= is missing"
    return values[-1]


def words(unit, section: str, key: str) -> list[str]:
    return [w for v in unit[section].get(key, []) for w in v.split()]


def seconds(value: str) -> float:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)\s*(ms|s|min)?", value)
    assert m, f"not a time span: {value!r}"
    return float(m.group(1)) * {"ms": 0.001, "s": 1, "min": 60, None: 1}[m.group(2)]


def test_unit_is_notify_with_watchdog_and_restart(unit):
    assert one(unit, "Service", "Type") == "notify"
    assert one(unit, "Service", "NotifyAccess") == "main"
    assert 2 <= seconds(one(unit, "Service", "WatchdogSec")) <= 60
    assert one(unit, "Service", "Restart") == "on-failure"
    assert seconds(one(unit, "Service", "RestartSec")) >= 1
    # a bad configuration (exit 2) is not retried forever
    assert "2" in words(unit, "Service", "RestartPreventExitStatus")
    assert one(unit, "Install", "WantedBy") == "multi-user.target"


def test_unit_runs_the_documented_command_as_the_static_user(unit):
    exec_start = one(unit, "Service", "ExecStart")
    assert exec_start.split()[:2] == ["/opt/tablectl/venv/bin/tablectl", "run"]
    # the command, the config path and doctor's default agree with docs/install.md
    assert exec_start in INSTALL.read_text()
    assert doctor.unit_config_path(UNIT) == doctor.DEFAULT_CONFIG
    assert one(unit, "Service", "User") == "tablectl"
    assert "DynamicUser" not in unit["Service"]
    groups = words(unit, "Service", "SupplementaryGroups")
    assert "dialout" in groups and "gpio" in groups and "i2c" in groups  # (i2c: the dealer's display)


def test_unit_directories_fit_the_daemon(unit):
    assert one(unit, "Service", "StateDirectory") == "tablectl"
    assert one(unit, "Service", "RuntimeDirectory") == "tablectl"
    # the journal's default path is in the StateDirectory, the outputs in the RuntimeDirectory
    assert JournalConfig.path.startswith("/var/lib/tablectl/")
    # lgpio makes a notification pipe in its working directory: it must be writable
    assert one(unit, "Service", "WorkingDirectory") == "/run/tablectl"
    assert "LG_WD=/run/tablectl" in words(unit, "Service", "Environment")
    assert int(one(unit, "Service", "UMask"), 8) & 0o077 == 0o077


def test_unit_reaches_its_devices_and_nothing_else(unit):
    assert one(unit, "Service", "DevicePolicy") == "closed"
    allowed = unit["Service"]["DeviceAllow"]
    for entry in ("char-ttyUSB rw", "char-ttyACM rw", "char-gpiochip rw", "char-i2c rw"):
        assert entry in allowed
    # the device classes must exist when the unit starts: the drivers are loaded first
    wants = words(unit, "Unit", "Wants")
    assert "modprobe@usbserial.service" in wants and "modprobe@cdc_acm.service" in wants
    assert "modprobe@i2c_dev.service" in wants
    assert set(wants) <= set(words(unit, "Unit", "After"))
    # settings that would cut the daemon off its devices or its Pi detection
    assert unit["Service"].get("PrivateDevices", ["no"])[-1] in ("no", "false")
    assert unit["Service"].get("ProcSubset", ["all"])[-1] == "all"
    assert unit["Service"].get("PrivateUsers", ["no"])[-1] in ("no", "false")
    # hot-plug: the service is not tied to a device unit
    for key in ("BindsTo", "Requires", "PartOf", "Requisite"):
        assert not [w for w in words(unit, "Unit", key) if w.endswith(".device")], key


def test_unit_hardening(unit):
    s = unit["Service"]
    expected = {"ProtectSystem": "strict", "ProtectHome": "yes", "PrivateTmp": "yes", "NoNewPrivileges": "yes",
                "CapabilityBoundingSet": "", "RestrictNamespaces": "yes", "LockPersonality": "yes",
                "MemoryDenyWriteExecute": "yes", "SystemCallArchitectures": "native",
                "ProtectKernelTunables": "yes", "ProtectKernelModules": "yes", "ProtectKernelLogs": "yes",
                "ProtectControlGroups": "yes", "ProtectClock": "yes", "ProtectHostname": "yes",
                "ProtectProc": "invisible", "RestrictRealtime": "yes", "RestrictSUIDSGID": "yes",
                "PrivateNetwork": "yes", "RestrictAddressFamilies": "AF_UNIX", "IPAddressDeny": "any"}
    for key, value in expected.items():
        assert s.get(key, [None])[-1] == value, f"{key}={s.get(key)}"
    assert "@system-service" in words(unit, "Service", "SystemCallFilter")


def exposure(output: str) -> float:
    m = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", output)
    assert m, output[-500:]
    return float(m.group(1))


def test_unit_exposure_at_most_2(unit):
    """systemd-analyze's rating, where it is installed; the static checks above hold the
    settings it rates everywhere else."""
    assert one(unit, "Service", "DevicePolicy") == "closed"  # (so this test never passes empty)
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return
    r = subprocess.run([analyze, "security", "--offline=true", "--threshold=20", "--no-pager", str(UNIT)],
                       capture_output=True, text=True, timeout=60)
    level = exposure(r.stdout + r.stderr)
    assert level <= 2.0, r.stdout[-3000:]
    assert r.returncode == 0, r.stdout[-3000:] + r.stderr


def test_unit_verifies(tmp_path, unit):
    """systemd-analyze verify, offline: in a root holding the system's units and a stand-in
    for the venv's tablectl (the real one is installed on the Pi, not here)."""
    exec_path = Path(one(unit, "Service", "ExecStart").split()[0])
    assert exec_path.is_absolute()
    analyze = shutil.which("systemd-analyze")
    system_units = next((p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))
                         if (p / "sysinit.target").exists()), None)
    if analyze is None or system_units is None:
        return
    root = tmp_path / "root"
    shutil.copytree(system_units, root / "usr/lib/systemd/system", symlinks=True)
    fake = root / exec_path.relative_to("/")
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, root / "etc/systemd/system/tablectl.service")
    r = subprocess.run([analyze, "verify", f"--root={root}", "tablectl.service"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "tablectl.service" not in r.stderr, r.stderr


# -- sysusers ----------------------------------------------------------------------------------

def sysusers_lines() -> list[list[str]]:
    import shlex

    return [shlex.split(line) for line in SYSUSERS.read_text().splitlines()
            if line.strip() and not line.lstrip().startswith("#")]


def test_sysusers_makes_the_user_and_groups(tmp_path):
    lines = sysusers_lines()
    users = [entry for entry in lines if entry[0] == "u"]
    assert [u[1] for u in users] == ["tablectl"]
    assert users[0][-1] in ("/usr/sbin/nologin", "/sbin/nologin")
    assert ["g", "gpio", "-"] in lines
    assert ["m", "tablectl", "dialout"] in lines and ["m", "tablectl", "gpio"] in lines
    assert ["g", "i2c", "-"] in lines and ["m", "tablectl", "i2c"] in lines
    tool = shutil.which("systemd-sysusers")
    if tool is None:
        return
    (tmp_path / "etc").mkdir()
    r = subprocess.run([tool, f"--root={tmp_path}", str(SYSUSERS)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    passwd = (tmp_path / "etc/passwd").read_text()
    group = (tmp_path / "etc/group").read_text()
    assert re.search(r"^tablectl:x:\d+:\d+:", passwd, re.M)
    assert re.search(r"^dialout:x:\d+:tablectl$", group, re.M)
    assert re.search(r"^gpio:x:\d+:tablectl$", group, re.M)
    assert re.search(r"^i2c:x:\d+:tablectl$", group, re.M)


def test_tmpfiles_make_the_units_folders(tmp_path, unit):
    entries = [line.split() for line in TMPFILES.read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    made = {e[1]: (e[0], e[2], e[3], e[4]) for e in entries}
    state = "/var/lib/" + one(unit, "Service", "StateDirectory")
    runtime = "/run/" + one(unit, "Service", "RuntimeDirectory")
    assert made == {state: ("d", one(unit, "Service", "StateDirectoryMode"), "tablectl", "tablectl"),
                    runtime: ("d", one(unit, "Service", "RuntimeDirectoryMode"), "tablectl", "tablectl")}
    sysusers, tmpfiles = shutil.which("systemd-sysusers"), shutil.which("systemd-tmpfiles")
    if sysusers is None or tmpfiles is None or os.geteuid() != 0:  # (handing folders to tablectl needs root)
        return
    (tmp_path / "etc").mkdir()
    subprocess.run([sysusers, f"--root={tmp_path}", str(SYSUSERS)], check=True, capture_output=True, timeout=60)
    r = subprocess.run([tmpfiles, f"--root={tmp_path}", "--create", str(TMPFILES)], capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    uid = int(re.search(r"^tablectl:x:(\d+):", (tmp_path / "etc/passwd").read_text(), re.M).group(1))
    for path, (_, mode, _, _) in made.items():
        st = (tmp_path / path.lstrip("/")).stat()
        assert (st.st_uid, oct(st.st_mode & 0o777)) == (uid, oct(int(mode, 8))), path


# -- udev rules --------------------------------------------------------------------------------

TOKEN = re.compile(r'\s*(?P<key>[A-Z_]+(?:\{[^}]+\})?)\s*(?P<op>==|!=|\+=|-=|:=|=)\s*"(?P<value>[^"]*)"\s*')
MATCH_KEYS = {"SUBSYSTEM", "SUBSYSTEMS", "KERNEL", "KERNELS", "ATTRS", "ATTR", "ENV", "DRIVERS", "ACTION", "TAG"}
ASSIGN_KEYS = {"SYMLINK", "GROUP", "MODE", "OWNER", "TAG", "ENV", "GOTO", "LABEL"}


def parse_rule(line: str) -> list[tuple[str, str, str]]:
    """One udev rule: [(key, operator, value)]; AssertionError naming the bad part."""
    out = []
    pos = 0
    while pos < len(line):
        m = TOKEN.match(line, pos)
        assert m, f"cannot parse {line[pos:]!r} in {line!r}"
        out.append((m["key"], m["op"], m["value"]))
        pos = m.end()
        if pos < len(line):
            assert line[pos] == ",", f"want a comma at {line[pos:]!r}"
            pos += 1
    for key, op, _ in out:
        base = key.split("{")[0]
        if op in ("==", "!="):
            assert base in MATCH_KEYS, f"{key}{op}: not a match key"
        else:
            assert base in ASSIGN_KEYS, f"{key}{op}: not an assignment key"
    return out


def rules(commented: bool = False) -> list[list[tuple[str, str, str]]]:
    """The active rules, or (commented) the templates left commented out for the installer."""
    out = []
    for line in RULES.read_text().splitlines():
        s = line.strip()
        if commented:
            if s.startswith("#") and re.match(r"#\s*(SUBSYSTEM|KERNEL)", s):
                out.append(parse_rule(s.lstrip("#").strip()))
        elif s and not s.startswith("#"):
            out.append(parse_rule(s))
    return out


def names(device: dict[str, str], *, templates: bool = False) -> list[str]:
    """The /dev names the rules give a tty ``device`` ({"KERNEL": ..., "ATTRS{idVendor}": ...}),
    as udev applies them: in order, every match key equal (a missing attribute matches nothing),
    GOTO skipping to its LABEL. ``templates``: with the commented serial templates in force and
    the catch-all bridge rule out (what the file tells an installer with two Picos to do)."""
    out, skip = [], None
    lines = [ln.strip() for ln in RULES.read_text().splitlines()]
    if templates:
        lines = [ln.lstrip("#").strip() if re.match(r"#SUBSYSTEM.*2e8a.*ATTRS\{serial\}", ln) else ln for ln in lines]
        lines = [ln for ln in lines if not (ln.startswith("SUBSYSTEM") and "2e8a" in ln and "ATTRS{serial}" not in ln)]
    for line in lines:
        if not line or line.startswith("#"):
            continue
        rule = parse_rule(line)
        if skip is not None:
            if ("LABEL", "=", skip) in rule:
                skip = None
            continue
        matched = True
        for key, op, value in rule:
            if op not in ("==", "!="):
                continue
            have = {"SUBSYSTEM": "tty", "SUBSYSTEMS": "usb", **device}.get(key)
            ok = have is not None and fnmatch.fnmatchcase(have, value)
            matched &= ok if op == "==" else not ok
        if matched:
            out += [v for k, op, v in rule if k == "SYMLINK"]
            skip = next((v for k, _, v in rule if k == "GOTO"), None)
    return out


PICO = {"KERNEL": "ttyACM1", "ATTRS{idVendor}": "2e8a", "ATTRS{idProduct}": "0005"}


def test_each_board_gets_one_name():
    # issue 40: a MicroPython Pico is a ttyACM device, which the shuffler's catch-all names too
    ftdi = {"KERNEL": "ttyUSB0", "ATTRS{idVendor}": "0403", "ATTRS{idProduct}": "6001", "ATTRS{serial}": "A10K1234"}
    arduino = {"KERNEL": "ttyACM0", "ATTRS{idVendor}": "2341", "ATTRS{idProduct}": "0043", "ATTRS{serial}": "7"}
    assert names(ftdi) == ["tablectl/reader"]
    assert names({**PICO, "ATTRS{serial}": "E6614104035A2B31"}) == ["tablectl/reader"]
    assert names(arduino) == ["tablectl/shuffler"]
    # two Picos, pinned by serial as the file says
    assert names({**PICO, "ATTRS{serial}": "E6614104035A2B31"}, templates=True) == ["tablectl/reader"]
    assert names({**PICO, "ATTRS{serial}": "E6614104035A2B32"}, templates=True) == ["tablectl/shuffler"]


def test_udev_rules_parse_and_name_the_devices():
    active, templates = rules(), rules(commented=True)
    assert active and templates
    symlinks = {}
    for rule in active + templates:
        keys = {(k, op): v for k, op, v in rule}
        if ("SYMLINK", "+=") in keys or any(k == "SYMLINK" for k, _, _ in rule):
            assert ("SYMLINK", "+=") in keys, f"SYMLINK must be added with +=: {rule}"
            link = keys[("SYMLINK", "+=")]
            assert link.startswith("tablectl/"), link
            assert keys[("SUBSYSTEM", "==")] == "tty"
            assert keys[("GROUP", "=")] == "dialout" and keys[("MODE", "=")] == "0660"
            assert keys.get(("TAG", "+=")) == "systemd"
            if rule in active:
                symlinks.setdefault(link, []).append(keys)
        assert not any(k == "ENV{SYSTEMD_WANTS}" for k, _, _ in rule), "plugging a device must not start the daemon"
    assert set(symlinks) == {"tablectl/reader", "tablectl/shuffler"}
    reader = symlinks["tablectl/reader"][0]
    assert (reader[("ATTRS{idVendor}", "==")], reader[("ATTRS{idProduct}", "==")]) == ("0403", "6001")
    # the installer's templates pin a device by its serial
    assert any(("ATTRS{serial}", "==") in {(k, op) for k, op, _ in t} for t in templates)


def test_udev_rules_give_gpio_to_the_gpio_group():
    gpio = [dict(((k, op), v) for k, op, v in r) for r in rules()
            if any(k == "KERNEL" and v.startswith("gpiochip") for k, _, v in r)]
    assert gpio and gpio[0][("GROUP", "=")] == "gpio" and gpio[0][("MODE", "=")] == "0660"


def test_udev_rule_parser_refuses_mistakes():
    with pytest.raises(AssertionError):
        parse_rule('SUBSYSTEM=="tty", SYMLINK=="tablectl/reader"')  # a match where an assignment was meant
    with pytest.raises(AssertionError):
        parse_rule('SUBSYSTEM=="tty" GROUP="dialout"')  # a missing comma
