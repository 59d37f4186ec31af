"""``tablectl doctor`` says how the installed service is (issue 41: doctor said "all checks passed"
while ``tablectl.service`` had failed, exiting 2 at each start under systemd): running, or failed,
restarting, stopped, with the journal's last error lines and the command to read further; only
where systemd is PID 1 and the unit is installed, and it says why not elsewhere.

systemd cannot be PID 1 in a test run: ``systemctl`` and ``journalctl`` are test doubles
(rig/fake_systemd.py) that print what a real systemd printed. The captures below are systemd 252's
(Debian bookworm, booted by ``systemd-nspawn -b`` on the root rig/install_container.py makes),
2026-11-29, for units whose ``ExecStart=`` printed the daemon's lines and then exited 2, exited 1
under ``Restart=on-failure``, ran, was stopped, was killed by its watchdog, or named a user that
does not exist: the oracle is systemd's own words, not doctor's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import doctor
from controller.cli.checks import Host
from controller.cli.unit_state import FLOOR, PROPERTIES, TABLE, parse_show, unit_state, why_stopped
from rig.fake_systemd import FakeSystemd
from rig.paths import ROOT

#: a unit whose program printed its start-up's refusal and exited 2 (RestartPreventExitStatus=2)
FAILED = """MainPID=0
Result=exit-code
NRestarts=0
ExecMainStartTimestamp=Sun 2026-11-29 14:58:53 UTC
ExecMainCode=1
ExecMainStatus=2
LoadState=loaded
ActiveState=failed
SubState=failed
UnitFileState=static
StateChangeTimestamp=Sun 2026-11-29 14:58:53 UTC
NeedDaemonReload=no
"""
FAILED_JOURNAL = """2026-11-29 14:44:54,100 INFO tablectl.daemon: daemon: starting
tablectl: /run/tablectl/control.sock: cannot give it to group tablectl: Operation not permitted
"""
#: a unit that exited 1 under Restart=on-failure, waiting to be started again
RESTARTING = """MainPID=0
Result=exit-code
NRestarts=0
ExecMainStartTimestamp=Sun 2026-11-29 14:58:53 UTC
ExecMainCode=1
ExecMainStatus=1
LoadState=loaded
ActiveState=activating
SubState=auto-restart
UnitFileState=static
StateChangeTimestamp=Sun 2026-11-29 14:58:53 UTC
NeedDaemonReload=no
"""
TRACEBACK = """Traceback (most recent call last):
  File x, line 1
PermissionError: [Errno 13] Permission denied: /dev/tablectl/reader
"""
RUNNING_DISABLED = """MainPID=58
Result=success
NRestarts=0
ExecMainStartTimestamp=Sun 2026-11-29 14:58:53 UTC
ExecMainCode=0
ExecMainStatus=0
LoadState=loaded
ActiveState=active
SubState=running
UnitFileState=disabled
StateChangeTimestamp=Sun 2026-11-29 14:58:53 UTC
NeedDaemonReload=no
"""
STOPPED = """MainPID=0
Result=success
NRestarts=0
ExecMainStartTimestamp=Sun 2026-11-29 14:59:36 UTC
ExecMainCode=2
ExecMainStatus=15
LoadState=loaded
ActiveState=inactive
SubState=dead
UnitFileState=enabled
StateChangeTimestamp=Sun 2026-11-29 14:59:42 UTC
NeedDaemonReload=no
"""
FAILED_AS = "LoadState=loaded\nActiveState=failed\nSubState=failed\n"
WATCHDOG = "Result=watchdog\nExecMainCode=2\nExecMainStatus=6\n" + FAILED_AS
NO_USER = "Result=exit-code\nExecMainCode=1\nExecMainStatus=217\n" + FAILED_AS
#: journalctl run by a user outside adm and systemd-journal
NOT_ALLOWED = "No journal files were opened due to insufficient permissions.\n"


@pytest.fixture
def fake(tmp_path: Path) -> FakeSystemd:
    return FakeSystemd(tmp_path / "bin")


def installed(tmp_path: Path, fake: FakeSystemd, unit: str = "tablectl.service") -> Host:
    """A machine under tmp_path/root with the shipped ``unit`` installed, booted with the fake
    systemd as PID 1."""
    root = tmp_path / "root"
    (root / "etc/systemd/system").mkdir(parents=True)
    (root / "etc/systemd/system" / unit).write_text((ROOT / "systemd" / unit).read_text())
    return fake.host(Host(root=root))


def lines(checks) -> list[str]:
    return [c.line() for c in checks]


def test_a_failed_service_fails_naming_its_exit_and_the_journals_error_line(tmp_path, fake):
    fake.show(FAILED)
    fake.journal(FAILED_JOURNAL)
    found = unit_state(TABLE, installed(tmp_path, fake))
    assert [c.level for c in found] == ["fail", "note"], lines(found)
    assert found[0].what == ("service: tablectl.service has failed since Sun 2026-11-29 14:58:53 UTC: the daemon "
                             "exited with status 2 (a bad configuration or command line, or a journal it cannot "
                             "use): the table is not watched")
    assert "journalctl -u tablectl -n 50" in found[0].fix
    assert "sudo systemctl reset-failed tablectl && sudo systemctl restart tablectl" in found[0].fix
    # the error line, not the start-up's INFO line before it
    assert found[1].what == ("service: the journal says: tablectl: /run/tablectl/control.sock: cannot give it to "
                             "group tablectl: Operation not permitted")
    # systemd asked about the unit by name; the journal read for the unit's own lines, since its last start
    assert fake.calls("systemctl") == [["show", "tablectl.service", f"--property={','.join(PROPERTIES)}"]]
    [journal] = fake.calls("journalctl")
    assert "_SYSTEMD_UNIT=tablectl.service" in journal
    assert journal[journal.index("--since") + 1] == "Sun 2026-11-29 14:58:53 UTC"


def test_a_restarting_service_fails_with_its_tracebacks_last_line(tmp_path, fake):
    fake.show(RESTARTING)
    fake.journal(TRACEBACK)
    found = unit_state(TABLE, installed(tmp_path, fake))
    assert found[0].level == "fail"
    assert found[0].what.startswith("service: tablectl.service is restarting since Sun 2026-11-29 14:58:53 UTC: the "
                                    "daemon exited with status 1, and systemd starts it again")
    assert [c.what for c in found[1:]] == [
        "service: the journal says: PermissionError: [Errno 13] Permission denied: /dev/tablectl/reader"]


def test_a_stopped_service_fails_and_says_how_to_start_it(tmp_path, fake):
    fake.show(STOPPED)
    [found] = unit_state(TABLE, installed(tmp_path, fake))
    assert found.line() == ("FAIL  service: tablectl.service is inactive (dead) since Sun 2026-11-29 14:59:42 UTC: "
                            "not running: the table is not watched -> sudo systemctl start tablectl")
    assert fake.calls("journalctl") == []  # (stopped cleanly: no error to show)


def test_a_running_service_passes_and_one_not_enabled_is_a_warning(tmp_path, fake):
    fake.show(RUNNING_DISABLED)
    found = unit_state(TABLE, installed(tmp_path, fake))
    assert lines(found) == [
        "ok    service: tablectl.service is active (running) since Sun 2026-11-29 14:58:53 UTC, main PID 58",
        "warn  service: tablectl.service is not enabled: it will not start at boot -> sudo systemctl enable tablectl"]
    fake.show(RUNNING_DISABLED.replace("UnitFileState=disabled", "UnitFileState=enabled")
              .replace("NRestarts=0", "NRestarts=3"))
    assert lines(unit_state(TABLE, installed(tmp_path / "again", fake)))[1:] == [
        "note  service: systemd restarted tablectl.service 3 times since it was started -> "
        "journalctl -u tablectl -n 50 says why"]


@pytest.mark.parametrize("show, said", [
    (WATCHDOG, "its watchdog killed it: the daemon's event loop stopped answering (WatchdogSec=)"),
    (NO_USER, "systemd could not start the daemon: status 217/USER: the unit's user does not exist"),
    (WATCHDOG.replace("Result=watchdog", "Result=signal"), "the daemon was killed by signal 6 (SIGABRT)"),
])
def test_why_it_stopped_in_systemds_terms(show, said):
    assert why_stopped(parse_show(show), TABLE) == said


def test_an_unreadable_journal_is_said_with_the_command_that_reads_it(tmp_path, fake):
    fake.show(FAILED)
    fake.journal("", NOT_ALLOWED, status=1)
    found = unit_state(TABLE, installed(tmp_path, fake))
    assert found[1].line() == ("note  service: the journal could not be read here (No journal files were opened due "
                               "to insufficient permissions.) -> sudo journalctl -u tablectl -n 50")


def test_without_systemd_as_pid_1_the_state_is_not_checked_and_doctor_says_why(tmp_path, fake):
    host = installed(tmp_path, fake)
    os.rmdir(host.path("/run/systemd/system"))  # (a chroot, a container: no marker)
    fake.show(FAILED)
    [found] = unit_state(TABLE, host)
    assert found.level == "note"
    assert found.what == ("service: tablectl.service's state (running, failed) is not checked: systemd is not PID 1 "
                          "here (no /run/systemd/system: a container or a chroot)")
    assert fake.calls("systemctl") == []


def test_a_unit_not_installed_is_not_asked_about(tmp_path, fake):
    host = fake.host(Host(root=tmp_path / "root"))
    assert lines(unit_state(FLOOR, host)) == [
        "note  service: tablectl-floor.service is not installed: its state is not checked"]
    assert unit_state(TABLE, host, installed_note=False) == []  # (the table's doctor said it with the rest)
    assert fake.calls("systemctl") == []


def test_systemctl_failing_is_a_note_naming_what_it_said(tmp_path, fake):
    fake.show("", "Failed to connect to bus: No such file or directory\n", status=1)
    [found] = unit_state(TABLE, installed(tmp_path, fake))
    assert found.line() == ("note  service: tablectl.service's state is not checked: systemctl show said Failed to "
                            "connect to bus: No such file or directory")


def test_the_floors_doctor_checks_the_floors_unit(tmp_path, fake):
    """``doctor --floor``: the floor's unit, by its own name, with its own exit statuses."""
    host = installed(tmp_path, fake, "tablectl-floor.service")
    fake.show(FAILED)
    fake.journal("tablectl floor: /etc/tablectl/floor.toml: [floor] port: want a whole number from 1 to 65535, "
                 "got 0\n")
    cfg = tmp_path / "floor.toml"  # (a configuration that loads; its broker, refused at once, fails on its own)
    cfg.write_text(f'[floor]\nbroker = "mqtt://127.0.0.1:1"\ndatabase = "{tmp_path}/floor.db"\nport = 8080\n')
    found = [c for c in doctor.run_floor_checks(str(cfg), host=host) if c.what.startswith("service:")]
    assert found[0].line().startswith(
        "FAIL  service: tablectl-floor.service has failed since Sun 2026-11-29 14:58:53 UTC: the daemon exited with "
        "status 2 (a configuration it refused): the floor's page is down -> ")
    assert "journalctl -u tablectl-floor -n 50" in found[0].fix
    assert found[1].what == ("service: the journal says: tablectl floor: /etc/tablectl/floor.toml: [floor] port: "
                             "want a whole number from 1 to 65535, got 0")
    assert fake.calls("systemctl")[0][:2] == ["show", "tablectl-floor.service"]
