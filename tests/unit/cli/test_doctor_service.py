"""``tablectl doctor`` judges what the service will meet (issue 41): the configuration and the deck
manifests readable by the unit's user, its ``ExecStart=`` runnable, the room's drop-in there when
``[room]`` is set, the broker inside ``IPAddressAllow=`` and DNS allowed when the broker is named
by host name; no ``[[decks]]``; the room's secrets the service user's own.

Each test builds a Pi's files under a folder (``Host.root``, as ``systemd-analyze --root`` takes
one): the shipped unit and drop-in from systemd/, a virtual environment's script, a configuration
from hw_sim/setup.py. The service's user is a made-up ``tablectl`` (a uid no file here has, in the
test runner's group), handed to doctor through ``Host.users``: the tests need neither root, nor
systemd, nor the host's own users, and pass the same whether or not a ``tablectl`` user exists."""

from __future__ import annotations

import os
import re
import shutil
import socket
from pathlib import Path
from types import SimpleNamespace

import pytest

from controller.cli import doctor
from controller.cli.checks import Check, Host, Identity
from controller.cli.doctor_room import check_files, unloaded_room_secrets
from controller.cli.doctor_service import check_sandbox, nameservers
from controller.cli.unit_file import Firewall, address_families, find_dropins, load_unit, parse_unit
from controller.config.room import parse_room
from controller.room.signing import new_key_pair
from hw_sim.setup import write_setup
from rig.paths import ROOT

UNIT = ROOT / "systemd" / "tablectl.service"
DROPIN = ROOT / "systemd" / "tablectl.service.d" / "room.conf"
#: the service's user: no file of the test's is its own; it shares the test runner's group, so a
#: file's group bits decide for it (as root:tablectl 0640 decides on a Pi)
TABLECTL = Identity("tablectl", 54320, frozenset({54320, os.getegid()}), current=False, group="tablectl")
GROUPS = {"tablectl": 54320, "dialout": 54321, "gpio": 54322, "i2c": 54323}
BROKER_IP = "10.20.0.2"


def fake_resolve(name: str) -> list[str]:
    if name == "broker.room.lan":
        return [BROKER_IP]
    raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")


def host_of(root: Path, user: Identity = TABLECTL) -> Host:
    """The Pi under ``root``, doctor run by root (euid 0), its one user ``user``."""
    return Host(root=root, users={user.name: user}.get, groups=GROUPS.get, resolve=fake_resolve, euid=lambda: 0)


def put(path: Path, text: str, mode: int = 0o644) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.chmod(path, mode)
    return path


@pytest.fixture
def pi(tmp_path: Path) -> SimpleNamespace:
    """A table's Pi under tmp_path/root, as docs/install.md leaves it: the shipped unit, the venv's
    script and its Python, /etc/tablectl (0750) with the configuration and the decks (0640), all
    readable by the service's user through its group."""
    root = tmp_path / "root"
    put(root / "etc/systemd/system/tablectl.service", UNIT.read_text())
    put(root / "usr/bin/python3", "#!/bin/sh\n", 0o755)
    (root / "opt/tablectl/venv/bin").mkdir(parents=True)
    os.symlink("/usr/bin/python3", root / "opt/tablectl/venv/bin/python")  # (as venv makes it: absolute)
    put(root / "opt/tablectl/venv/bin/tablectl", "#!/opt/tablectl/venv/bin/python\nimport sys\n", 0o755)
    put(root / "etc/resolv.conf", "nameserver 10.20.0.1\n")
    put(root / "etc/hosts", "127.0.0.1 localhost\n")
    etc = root / "etc/tablectl"
    etc.mkdir()
    config = write_setup(etc, journal=True, console=False)
    for f in etc.iterdir():
        if f.is_file():
            os.chmod(f, 0o640)  # (docs/install.md: root:tablectl, readable by the group)
    for folder in (root, *[p for p in root.rglob("*") if p.is_dir() and not p.is_symlink()]):
        os.chmod(folder, 0o755)
    os.chmod(etc, 0o750)
    return SimpleNamespace(root=root, etc=etc, config=config, host=host_of(root))


def service_lines(checks) -> list[tuple[str, str]]:
    return [(c.level, c.what) for c in checks if c.what.startswith(("service:", "config:", "[[decks]]"))]


def run(pi) -> list:
    return doctor.run_checks(str(pi.config), open_ports=False, host=pi.host, env={"GPIOZERO_PIN_FACTORY": "mock"})


# -- the configuration and the manifests, for the service's user --------------------------------

def test_the_installed_pi_passes_the_services_checks(pi):
    found = run(pi)
    assert found[0].what.startswith("running as root: access judged for the service's user tablectl")
    lines = service_lines(found)
    assert ("ok", "config: the configuration and 2 deck manifests readable by tablectl") in lines
    assert ("ok", "service: /etc/systemd/system/tablectl.service: user tablectl and groups tablectl, dialout, gpio, "
                  "i2c exist") in lines
    assert ("ok", "service: ExecStart= /opt/tablectl/venv/bin/tablectl is executable by tablectl (with "
                  "/opt/tablectl/venv/bin/python)") in lines
    assert not [line for line in lines if line[0] == "fail"], lines


def test_a_configuration_the_service_cannot_read_fails_naming_the_fix(pi):
    """Issue 41, break 3: a root:root 0600 configuration gave "ok config loads" while the daemon
    exits 2. Here: the runner's 0600 file, which the service's user (another uid) cannot read."""
    os.chmod(pi.config, 0o600)
    [fail] = [c for c in run(pi) if c.failed and c.what.startswith("config:")]
    assert fail.what == (f"config: {pi.config} ({_owner(pi.config)} 0600) is not readable by tablectl: the service "
                         f"would not start (exit status 2)")
    assert fail.fix == f"sudo chmod g+r {pi.config}"  # (its group is one of the user's already)
    os.chmod(pi.config, 0o640)  # the fix as given: readable again
    assert not [c for c in run(pi) if c.failed and c.what.startswith("config:")]
    # a file of a group the user is not in (root:root 0600 on a Pi): its group made the user's
    outsider = Identity("tablectl", 54320, frozenset({54320}), current=False, group="tablectl")
    pi.host = host_of(pi.root, outsider)
    os.chmod(pi.etc, 0o755)  # (else the folder is in its way first)
    os.chmod(pi.config, 0o600)
    [fail, *_] = [c for c in run(pi) if c.failed and c.what.startswith("config:")]
    assert fail.fix == f"sudo chgrp tablectl {pi.config} && sudo chmod g+r {pi.config}"


def test_a_folder_on_the_way_without_its_search_bit_is_named(pi):
    os.chmod(pi.etc, 0o700)
    fails = [c for c in run(pi) if c.failed and c.what.startswith(("config:", "[[decks]]"))]
    assert [c.what for c in fails][0] == (f"config: folder {pi.etc} ({_owner(pi.etc)} 0700) is not searchable by "
                                          f"tablectl: the service would not start (exit status 2)")
    assert fails[0].fix == f"sudo chmod g+x {pi.etc}"  # (its group is one of the user's)


def test_a_deck_manifest_the_service_cannot_read_fails(pi):
    manifest = pi.etc / "deck-B.txt"
    os.chmod(manifest, 0o600)  # (as `tablectl register --out` writes it: its owner's alone)
    [fail] = [c for c in run(pi) if c.failed and c.what.startswith("[[decks]]")]
    assert fail.what.startswith(f"[[decks]] #2 manifest: {manifest} (") and "is not readable by tablectl" in fail.what
    assert fail.fix == f"sudo chmod g+r {manifest}"


def _owner(path: Path) -> str:
    from controller.cli.checks import owner_mode

    return owner_mode(path).rsplit(" ", 1)[0]


# -- the unit's ExecStart -----------------------------------------------------------------------

def test_execstart_missing_or_its_venvs_python_gone_fails(pi):
    python = pi.root / "usr/bin/python3"
    python.unlink()  # (Python upgraded under the venv)
    [fail] = [c for c in run(pi) if c.failed and "ExecStart=" in c.what]
    assert fail.what == ("service: ExecStart= /opt/tablectl/venv/bin/tablectl runs /opt/tablectl/venv/bin/python "
                         "(its #! line), and /opt/tablectl/venv/bin/python does not exist: the service cannot start")
    assert "python3 -m venv --upgrade /opt/tablectl/venv" in fail.fix
    (pi.root / "opt/tablectl/venv/bin/tablectl").unlink()
    [fail] = [c for c in run(pi) if c.failed and "ExecStart=" in c.what]
    assert fail.what == ("service: ExecStart= /opt/tablectl/venv/bin/tablectl: /opt/tablectl/venv/bin/tablectl does "
                         "not exist: the service cannot start (status 203/EXEC)")
    assert "install tablectl into /opt/tablectl/venv" in fail.fix


def test_execstart_not_executable_by_the_service(pi):
    script = pi.root / "opt/tablectl/venv/bin/tablectl"
    os.chmod(script, 0o744)
    [fail] = [c for c in run(pi) if c.failed and "ExecStart=" in c.what]
    assert "is not executable by tablectl" in fail.what
    assert fail.fix == f"sudo chmod g+x {script}"


def test_a_unit_for_another_configuration_is_only_noted(pi, tmp_path):
    other = write_setup(tmp_path, console=False)
    found = doctor.run_checks(str(other), open_ports=False, host=pi.host, user="tablectl")
    [note] = [c for c in found if c.what.startswith("service:")]
    assert note.level == "note" and "runs --config /etc/tablectl/tablectl.toml, not" in note.what
    shutil.rmtree(pi.root / "etc/systemd")
    [note] = [c for c in doctor.run_checks(str(pi.config), open_ports=False, host=pi.host)
              if c.what.startswith("service:")]
    assert note.level == "note" and "tablectl.service is not installed" in note.what


# -- the room link's sandbox --------------------------------------------------------------------

def room(pi, broker: str = "mqtts://broker.room.lan:8883"):
    cfg = parse_room({"room": {"broker": broker, "room": "main", "table": "t7"}, "journal": {}},
                     src=str(pi.config), base=pi.etc)
    assert cfg is not None
    return cfg


def sandbox(pi, broker: str = "mqtts://broker.room.lan:8883"):
    unit = load_unit(pi.root, "tablectl.service")
    assert unit is not None
    return check_sandbox(unit, room(pi, broker), pi.host)


def install_dropin(pi, text: str | None = None, name: str = "room.conf") -> Path:
    return put(pi.root / "etc/systemd/system/tablectl.service.d" / name, text if text is not None else
               DROPIN.read_text().replace("IPAddressAllow=192.0.2.10", f"IPAddressAllow={BROKER_IP} 10.20.0.1"))


def test_room_without_its_dropin_fails_naming_it(pi):
    [fail] = sandbox(pi)
    assert fail.failed and fail.what == (
        "service: [room] is set, but the unit keeps the network shut (PrivateNetwork=yes in "
        "/etc/systemd/system/tablectl.service, and no drop-in opens it): the room link would log \"Network is "
        "unreachable\"")
    assert fail.fix.startswith("install the room's drop-in: sudo install -D -m 0644 "
                               "/opt/tablectl/src/systemd/tablectl.service.d/room.conf "
                               "/etc/systemd/system/tablectl.service.d/room.conf")


def test_a_dropin_in_a_misnamed_folder_is_named_as_ignored(pi):
    put(pi.root / "etc/systemd/system/tablectl.d/room.conf", DROPIN.read_text())
    put(pi.root / "etc/systemd/system/tablectl.service.d/room.conf.orig", DROPIN.read_text())
    [fail] = sandbox(pi)
    assert fail.failed and "(/etc/systemd/system/tablectl.d, /etc/systemd/system/tablectl.service.d/room.conf.orig: " \
                           "systemd ignores it" in fail.fix


def test_the_placeholder_left_in_ipaddressallow_fails(pi):
    install_dropin(pi, DROPIN.read_text())  # as shipped: 192.0.2.10
    found = sandbox(pi)
    broker = found[0]
    assert broker.failed and broker.what == (
        "service: IPAddressAllow= (192.0.2.10 localhost) (192.0.2.10 is the shipped drop-in's placeholder) does not "
        "cover the broker broker.room.lan (10.20.0.2), and IPAddressDeny= drops the rest: the room link would log "
        "\"Network is unreachable\"")
    assert broker.fix.startswith("in /etc/systemd/system/tablectl.service.d/room.conf: IPAddressAllow=10.20.0.2 ")
    # and the broker named by host name: DNS (10.20.0.1, from resolv.conf) is blocked too
    assert found[1].failed and found[1].what == (
        "service: the broker is named by host name (broker.room.lan), and IPAddressAllow= (192.0.2.10 localhost) "
        "does not cover the name servers of /etc/resolv.conf (10.20.0.1): the daemon cannot look it up")
    assert "IPAddressAllow=10.20.0.1" in found[1].fix


def test_the_broker_and_dns_inside_ipaddressallow_pass(pi):
    install_dropin(pi)
    assert [(c.level, c.what) for c in sandbox(pi)] == [
        ("ok", "service: IPAddressAllow= (10.20.0.2 10.20.0.1 localhost) lets the daemon reach the broker "
               "broker.room.lan (10.20.0.2)"),
        ("ok", "service: DNS allowed: IPAddressAllow= covers the name servers of /etc/resolv.conf (10.20.0.1), for "
               "the broker's name broker.room.lan")]
    # a broker named by its address needs no DNS; a prefix covers it
    install_dropin(pi, DROPIN.read_text().replace("IPAddressAllow=192.0.2.10", "IPAddressAllow=10.20.0.0/24"))
    [ok] = sandbox(pi, f"mqtts://{BROKER_IP}:8883")
    assert ok.level == "ok" and "(10.20.0.0/24 localhost)" in ok.what
    # a name /etc/hosts gives needs no DNS either
    put(pi.root / "etc/hosts", f"127.0.0.1 localhost\n{BROKER_IP} broker.room.lan\n")
    assert [c.level for c in sandbox(pi)] == ["ok"]


def test_systemd_resolveds_stub_is_covered_by_localhost(pi):
    install_dropin(pi, DROPIN.read_text().replace("IPAddressAllow=192.0.2.10", f"IPAddressAllow={BROKER_IP}"))
    put(pi.root / "run/systemd/resolve/stub-resolv.conf", "nameserver 127.0.0.53\noptions edns0\n")
    (pi.root / "etc/resolv.conf").unlink()
    os.symlink("../run/systemd/resolve/stub-resolv.conf", pi.root / "etc/resolv.conf")
    assert [c.level for c in sandbox(pi)] == ["ok", "ok"]


def test_a_later_dropin_that_resets_the_allow_list_is_followed(pi):
    install_dropin(pi)
    install_dropin(pi, "[Service]\nIPAddressAllow=\nIPAddressAllow=10.9.9.9\n", name="zz-local.conf")
    broker, dns = sandbox(pi)
    assert broker.failed and "IPAddressAllow= (10.9.9.9) does not cover the broker" in broker.what
    assert broker.fix.startswith("in /etc/systemd/system/tablectl.service.d/zz-local.conf: ")
    assert dns.failed


def test_address_families_without_inet_fail(pi):
    install_dropin(pi)
    install_dropin(pi, "[Service]\nRestrictAddressFamilies=\nRestrictAddressFamilies=AF_UNIX\n", name="zz.conf")
    [broker, dns] = sandbox(pi)
    assert broker.failed and broker.what.startswith("service: RestrictAddressFamilies= leaves the daemon no AF_INET")
    assert dns.failed


def test_run_checks_with_room_checks_the_sandbox(pi):
    """Through doctor's own run: [room] on a loopback broker (refused at once: no network needed),
    no drop-in: the unit's shut network is named."""
    pi.config.write_text(pi.config.read_text() + '\n[room]\nbroker = "mqtt://127.0.0.1:1"\nroom = "r"\ntable = "t"\n')
    found = run(pi)
    assert [c.what for c in found if c.failed and c.what.startswith("service:")] == [
        "service: [room] is set, but the unit keeps the network shut (PrivateNetwork=yes in "
        "/etc/systemd/system/tablectl.service, and no drop-in opens it): the room link would log \"Network is "
        "unreachable\""]
    install_dropin(pi)  # (localhost: the shipped drop-in's second line)
    assert [(c.level, c.what) for c in run(pi) if c.what.startswith("service: IPAddressAllow")] == [
        ("ok", "service: IPAddressAllow= (10.20.0.2 10.20.0.1 localhost) lets the daemon reach the broker 127.0.0.1")]


# -- the unit's files as systemd merges them ----------------------------------------------------

def test_dropins_one_per_name_the_higher_folder_winning_sorted_by_name(tmp_path):
    put(tmp_path / "usr/lib/systemd/system/t.service", "[Service]\nUser=a\n")
    put(tmp_path / "usr/lib/systemd/system/t.service.d/b.conf", "[Service]\nUser=lib\n")
    put(tmp_path / "etc/systemd/system/t.service.d/b.conf", "[Service]\nUser=etc\n")
    put(tmp_path / "etc/systemd/system/t.service.d/a.conf", "[Service]\nUser=first\n")
    put(tmp_path / "etc/systemd/system/service.d/0.conf", "[Service]\nGroup=all\n")
    os.symlink("/dev/null", tmp_path / "etc/systemd/system/t.service.d/z.conf")  # masked
    assert [str(p.relative_to(tmp_path)) for p in find_dropins(tmp_path, "t.service")] == [
        "etc/systemd/system/service.d/0.conf", "etc/systemd/system/t.service.d/a.conf",
        "etc/systemd/system/t.service.d/b.conf"]
    unit = load_unit(tmp_path, "t.service")
    assert unit is not None and unit.last("Service", "User").value == "etc"
    assert unit.path == "/usr/lib/systemd/system/t.service"


def test_the_firewall_keywords_and_prefixes():
    unit = parse_unit("[Service]\nIPAddressDeny=any\nIPAddressAllow=localhost link-local\n"
                      "IPAddressAllow=10.20.0.0/24 fd00::/8 not-an-address\n", "u")
    fw = Firewall.of(unit)
    assert [fw.allows(a) for a in ("127.0.0.5", "::1", "169.254.1.1", "10.20.0.77", "fd12::1", "10.20.1.1",
                                   "8.8.8.8")] == [True, True, True, True, True, False, False]
    assert fw.ignored == ("not-an-address",)
    # no deny: everything passes; "any" allowed: everything passes
    assert Firewall.of(parse_unit("[Service]\nIPAddressAllow=10.0.0.1\n", "u")).allows("8.8.8.8")
    assert Firewall.of(parse_unit("[Service]\nIPAddressDeny=any\nIPAddressAllow=any\n", "u")).allows("8.8.8.8")
    # the shipped unit alone: nothing
    shipped = Firewall.of(parse_unit(UNIT.read_text(), str(UNIT)))
    assert not shipped.allows("127.0.0.1") and not shipped.allows(BROKER_IP)
    assert address_families(parse_unit(UNIT.read_text(), str(UNIT))) == {"AF_UNIX"}


def test_nameservers_default_when_none_given():
    assert nameservers("search lan\n") == ["127.0.0.1", "::1"]


# -- decks --------------------------------------------------------------------------------------

def test_no_decks_fails_doctor(pi):
    text = pi.config.read_text()
    pi.config.write_text(text[:text.index("[[decks]]")] + text[text.index("[journal]"):])
    found = run(pi)
    assert found[1].what.endswith("decks none)")  # the configuration loads ...
    [fail] = [c for c in found if c.what.startswith("decks:")]
    assert fail.failed and fail.what == ("decks: no [[decks]] in the configuration: [table] deck_in_play = \"A\" "
                                         "names no deck, and every card read would be a tag of no registered deck "
                                         "(DECK-006)")
    assert "tablectl register" in fail.fix and "[[decks]]" in fail.fix


# -- the room's secrets: the service user's own (break 4) -------------------------------------

def test_a_group_readable_secret_of_roots_names_chown_not_chmod_alone(pi):
    """install.md's recursive chmod leaves a room secret root:tablectl 0640: readable by the
    service through its group, so the old check said "chmod 600", which would lock the service
    out (root's own file). The fix gives it to the service's user."""
    pw = put(pi.etc / "room.password", "secret\n", 0o640)
    cfg = parse_room({"room": {"broker": "mqtt://127.0.0.1:1", "room": "r", "table": "t", "username": "u",
                               "password_file": str(pw)}, "journal": {}}, src="t.toml", base=pi.etc)
    [fail] = check_files("room", cfg, TABLECTL)
    assert fail.failed and fail.what == (f"[room] password_file: {pw} ({_owner(pw)} 0640) must be tablectl's alone "
                                         f"(owner tablectl, 0600): a secret the service reads as tablectl")
    assert fail.fix == f"sudo chown tablectl: {pw} && sudo chmod 600 {pw}"


def test_a_signing_key_refused_at_load_gets_the_fix_that_works(pi):
    private, _ = new_key_pair()
    key = put(pi.etc / "room.signing-key", private + "\n", 0o640)
    pi.config.write_text(pi.config.read_text() + '\n[room]\nbroker = "mqtt://127.0.0.1:1"\nroom = "r"\ntable = "t"\n'
                                                 'signing_key = "room.signing-key"\n')
    found = run(pi)
    assert found[1].failed and "[room] signing_key" in found[1].what  # the configuration is refused ...
    assert [(c.what, c.fix) for c in found[2:]] == [  # ... and the key's owner and mode named, with the fix
        (f"[room] signing_key: {key} ({_owner(key)} 0640) must be tablectl's alone (owner tablectl, 0600): a secret "
         f"the service reads as tablectl", f"sudo chown tablectl: {key} && sudo chmod 600 {key}")]
    # judged for its owner (a developer's own key): the mode alone
    assert unloaded_room_secrets(str(pi.config), Identity("me", os.geteuid(), frozenset(), current=True)) == [
        Check("fail", f"[room] signing_key: {key} is 0640: a secret must be readable by its owner alone (0600)",
              f"sudo chmod 600 {key}")]


# -- the service as systemd has it now (controller/cli/unit_state.py) --------------------------

def test_doctor_does_not_pass_a_table_whose_service_has_failed(pi, tmp_path, capsys):
    """Issue 41, found by rig/install_container.py: doctor said "all checks passed" while
    tablectl.service had failed, exiting 2 at each start. systemd as PID 1 is a test double here
    (rig/fake_systemd.py) answering as systemd 252 did for such a unit (tests/unit/cli/test_unit_state.py)."""
    from rig.fake_systemd import FakeSystemd
    from tests.unit.cli.test_unit_state import FAILED, FAILED_JOURNAL

    # a table doctor passes but for the service: its reader a pyserial URL (not a device to check),
    # its journal in a folder the service's user may write (its group's)
    state = pi.root / "var/lib/tablectl"
    state.mkdir(parents=True)
    os.chmod(state, 0o770)
    text = pi.config.read_text()
    text = re.sub(r'(?m)^port = ".*"$', 'port = "loop://"', text, count=1)
    text = re.sub(r'(?m)^path = ".*journal.sqlite3"$', f'path = "{state}/journal.sqlite3"', text)
    pi.config.write_text(text)
    assert doctor.main(str(pi.config), open_ports=False, host=pi.host) == 0
    out = capsys.readouterr().out
    assert "\nall checks passed\n" in out
    assert "service: tablectl.service's state (running, failed) is not checked: systemd is not PID 1 here" in out

    fake = FakeSystemd(tmp_path / "bin")
    fake.show(FAILED)
    fake.journal(FAILED_JOURNAL)
    assert doctor.main(str(pi.config), open_ports=False, host=fake.host(pi.host)) == 1
    out = capsys.readouterr().out
    assert "all checks passed" not in out and "\n1 problem found\n" in out
    assert "FAIL  service: tablectl.service has failed since Sun 2026-11-29 14:58:53 UTC: the daemon exited with " \
           "status 2" in out
    assert "note  service: the journal says: tablectl: /run/tablectl/control.sock: cannot give it to group " \
           "tablectl: Operation not permitted" in out
