"""``tablectl doctor``'s look at the installed service as systemd has it now: running, failed,
restarting, starting or stopped; when it is not running, why (systemd's account of its last run)
and the last error lines the daemon wrote to the journal, with the command to read further.
(What the unit will meet when it starts, read from its files: :mod:`.doctor_service`.)

Only systemd can say: so only where it is PID 1 (sd_booted(3): ``/run/systemd/system`` exists)
and the unit is installed. Elsewhere (a chroot, a container, a machine booted otherwise) doctor
says it did not look, and why, as for its other checks that cannot be made. systemd is asked
through ``systemctl show`` and ``journalctl``, named by the :class:`~.checks.Host` (the tests give
scripts of their own: systemd cannot be PID 1 in a test run).

>>> props = parse_show("ActiveState=failed\\nSubState=failed\\nResult=exit-code\\nExecMainCode=1\\n"
...                    "ExecMainStatus=2\\n")
>>> props["ActiveState"], why_stopped(props, TABLE)
('failed', 'the daemon exited with status 2 (a bad configuration or command line, or a journal it cannot use)')
>>> error_lines(["2026-11-29 14:44:54,100 INFO tablectl.daemon: daemon: started",
...              "tablectl: /etc/tablectl/tablectl.toml: [reader] port: want a path, got 7"])
['tablectl: /etc/tablectl/tablectl.toml: [reader] port: want a path, got 7']
"""

from __future__ import annotations

import re
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from controller.cli.checks import Check, Host
from controller.cli.unit_file import find_unit

#: the marker of a system booted with systemd as PID 1 (sd_booted(3)), under the host's root
SYSTEMD_MARKER = "/run/systemd/system"
#: what doctor asks ``systemctl show`` (systemd.unit(5), systemd.service(5), org.freedesktop.systemd1(5))
PROPERTIES = ("LoadState", "ActiveState", "SubState", "Result", "ExecMainCode", "ExecMainStatus", "MainPID",
              "NRestarts", "UnitFileState", "NeedDaemonReload", "StateChangeTimestamp", "ExecMainStartTimestamp")
#: seconds each of systemctl and journalctl may take
TIMEOUT = 15.0
#: the journal's lines doctor reads (the unit's own, its last run), and the error lines it shows
JOURNAL_READ = 40
JOURNAL_SHOWN = 3
#: a line shown is cut there (a line of the daemon's is short; a traceback's may not be)
LINE_CHARS = 300
#: how systemd ended the main process (ExecMainCode: waitid(2)'s si_code)
CLD_EXITED, CLD_KILLED, CLD_DUMPED = 1, 2, 3
#: systemd's own exit statuses, when it could not start the program (systemd.exec(5), "Process
#: Exit Codes"): those the shipped units can meet
SYSTEMD_STATUSES = {200: "CHDIR: its WorkingDirectory= is missing", 203: "EXEC: ExecStart= cannot be run",
                    216: "GROUP: a group of the unit does not exist", 217: "USER: the unit's user does not exist",
                    218: "CAPABILITIES", 226: "NAMESPACE: the sandbox could not be set up",
                    228: "SECCOMP", 233: "RUNTIME_DIRECTORY", 238: "STATE_DIRECTORY"}
#: the error lines of the daemon's log: the start-up's one line (controller/daemon/startup.py,
#: controller/floor/main.py), a log record at ERROR or CRITICAL (startup.setup_logging's format),
#: the last line of a traceback (the exception)
ERROR_LINE = re.compile(r"^tablectl( floor)?: |^\S+ \S+ (ERROR|CRITICAL) \S+: |^[A-Za-z_][\w.]*(Error|Exception)\b")


@dataclass(frozen=True)
class Service:
    """A unit doctor looks at: its name, its short name (the commands'), and what the exit
    statuses of its program mean (the program's own, e.g. 2: a configuration it refused)."""

    unit: str
    name: str
    #: what is lost while it is down
    down: str
    statuses: Mapping[int, str] = field(default_factory=dict)

    @property
    def more(self) -> str:
        return f"journalctl -u {self.name} -n 50"


#: the table's daemon (systemd/tablectl.service; controller/cli/main.py's cmd_run)
TABLE = Service("tablectl.service", "tablectl", "the table is not watched",
                {2: "a bad configuration or command line, or a journal it cannot use"})
#: the floor's service (systemd/tablectl-floor.service; controller/floor/main.py)
FLOOR = Service("tablectl-floor.service", "tablectl-floor", "the floor's page is down",
                {1: "its port taken, or a certificate it cannot read", 2: "a configuration it refused"})


def parse_show(text: str) -> dict[str, str]:
    """``systemctl show``'s ``Key=value`` lines as a dict (values as they are)."""
    out = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def _int(props: Mapping[str, str], key: str) -> int:
    try:
        return int(props.get(key, "") or 0)
    except ValueError:
        return 0


def exit_described(props: Mapping[str, str], service: Service) -> str:
    """How the main process ended, from ``ExecMainCode`` and ``ExecMainStatus``; "" if it never ran.

    >>> exit_described({"ExecMainCode": "2", "ExecMainStatus": "6"}, TABLE)
    'the daemon was killed by signal 6 (SIGABRT)'
    >>> exit_described({"ExecMainCode": "1", "ExecMainStatus": "217"}, TABLE)
    "systemd could not start the daemon: status 217/USER: the unit's user does not exist"
    """
    code, status = _int(props, "ExecMainCode"), _int(props, "ExecMainStatus")
    if code == CLD_EXITED:
        if status in SYSTEMD_STATUSES:
            return f"systemd could not start the daemon: status {status}/{SYSTEMD_STATUSES[status]}"
        meaning = service.statuses.get(status)
        return f"the daemon exited with status {status}" + (f" ({meaning})" if meaning else "")
    if code in (CLD_KILLED, CLD_DUMPED):
        try:
            name = signal.Signals(status).name
        except ValueError:
            name = "?"
        return f"the daemon was killed by signal {status} ({name})" + (", core dumped" if code == CLD_DUMPED else "")
    return ""


def why_stopped(props: Mapping[str, str], service: Service) -> str:
    """systemd's account of the last run's end (``Result``, and how the main process ended)."""
    result = props.get("Result", "")
    ended = exit_described(props, service)
    reasons = {
        "watchdog": "its watchdog killed it: the daemon's event loop stopped answering (WatchdogSec=)",
        "timeout": "it timed out (not ready within TimeoutStartSec=, or not stopped within TimeoutStopSec=)",
        "start-limit-hit": "it failed too often in a row (StartLimitBurst= within StartLimitIntervalSec=) and "
                           "systemd stopped starting it",
        "oom-kill": "the kernel's out-of-memory killer ended it",
        "protocol": "it broke its service type's protocol (Type=notify: it ended before it said READY=1)",
        "resources": "systemd could not set up what the unit asks for (its user, its folders, its sandbox)",
    }
    if result in ("exit-code", "signal", "core-dump") and ended:
        return ended
    if result in reasons:
        return reasons[result] + (f"; the last time, {ended}" if ended and result != "watchdog" else "")
    if result and result != "success":
        return f"Result={result}" + (f"; {ended}" if ended else "")
    return ended


def error_lines(lines: Sequence[str], shown: int = JOURNAL_SHOWN) -> list[str]:
    """The last ``shown`` error lines of ``lines`` (:data:`ERROR_LINE`), or its last ``shown``
    lines when none is one; a line said again at once (the same error at each restart) once;
    each cut at :data:`LINE_CHARS`.

    >>> error_lines(["a", "b", "c", "d"], 2)
    ['c', 'd']
    >>> error_lines(["x ERROR tablectl.daemon: broke", "x ERROR tablectl.daemon: broke"])
    ['x ERROR tablectl.daemon: broke']
    """
    errors = [line for line in lines if ERROR_LINE.search(line)] or list(lines)
    once = [line for i, line in enumerate(errors) if i == 0 or line != errors[i - 1]]  # (a restart's same words)
    return [(line if len(line) <= LINE_CHARS else line[:LINE_CHARS] + " ...") for line in once[-shown:]]


def _run(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``argv``; OSError and a timeout as status -1."""
    try:
        r = subprocess.run(argv, capture_output=True, text=True, errors="replace", timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return -1, "", str(exc)
    return r.returncode, r.stdout, r.stderr


def _first_line(text: str) -> str:
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def journal_checks(service: Service, props: Mapping[str, str], host: Host) -> list[Check]:
    """The last error lines the unit's own processes wrote since its main process last started
    (``ExecMainStartTimestamp``: its last run; an earlier run's error is not why it stopped now),
    one note each. (Not by the run's ``_SYSTEMD_INVOCATION_ID``: journald leaves it out of the
    lines of a process that exits at once, as a daemon refusing its configuration does.)

    Why these lines may be shown: they are the daemon's own log, and it never logs a card, a tag's
    UID or a deck fault's cards (its log sink writes an alert's code and rule only: docs/design.md,
    "The table's outputs"; tests/e2e/test_logs.py holds it), nor the floor's service a message's
    content (docs/floor.md), nor either a password. And journalctl runs as whoever runs doctor:
    it shows them nothing their own ``journalctl -u`` would not."""
    argv = [host.journalctl, "--no-pager", "-o", "cat", "-n", str(JOURNAL_READ), f"_SYSTEMD_UNIT={service.unit}"]
    started = props.get("ExecMainStartTimestamp", "")
    if started:  # (as systemctl prints it, to the second, in this host's time zone: journalctl reads it so)
        argv += ["--since", started]
    status, out, err = _run(argv)
    lines = [line for line in out.splitlines() if line.strip() and not line.startswith("-- ")]
    if not lines:
        if status != 0 or err.strip():
            return [Check("note", f"service: the journal could not be read here ({_first_line(err) or status})",
                          f"sudo {service.more}")]
        return [Check("note", f"service: {service.unit} wrote nothing to the journal in its last run",
                      f"{service.more} (systemd's own lines about it)")]
    return [Check("note", f"service: the journal says: {line}") for line in error_lines(lines)]


def unit_state(service: Service, host: Host, *, installed_note: bool = True) -> list[Check]:
    """The state of ``service`` as systemd has it: one check, and when it is not running, the
    journal's last error lines. ``installed_note``: say so when the unit is not installed (the
    table's doctor says it already, with what else it could not check)."""
    if find_unit(host.root, service.unit) is None:
        return [Check("note", f"service: {service.unit} is not installed: its state is not checked")] \
            if installed_note else []
    if not host.path(SYSTEMD_MARKER).is_dir():
        return [Check("note", f"service: {service.unit}'s state (running, failed) is not checked: systemd is not "
                              f"PID 1 here (no {SYSTEMD_MARKER}: a container or a chroot)")]
    status, out, err = _run([host.systemctl, "show", service.unit, f"--property={','.join(PROPERTIES)}"])
    props = parse_show(out)
    if status != 0 or "ActiveState" not in props:
        return [Check("note", f"service: {service.unit}'s state is not checked: systemctl show said "
                              f"{_first_line(err) or _first_line(out) or f'nothing (exit status {status})'}")]
    return _judged(service, props, host)


def _judged(service: Service, props: Mapping[str, str], host: Host) -> list[Check]:
    """The checks of ``service``'s state, from ``systemctl show``'s ``props``."""
    unit, name = service.unit, service.name
    load, active, sub = props.get("LoadState", ""), props["ActiveState"], props.get("SubState", "")
    if load == "masked":
        return [Check("fail", f"service: {unit} is masked: it cannot start",
                      f"sudo systemctl unmask {name} && sudo systemctl start {name}")]
    if load == "not-found":
        return [Check("fail", f"service: {unit} is installed, but systemd has not loaded it",
                      f"sudo systemctl daemon-reload && sudo systemctl enable --now {name}")]
    if load and load != "loaded":
        return [Check("fail", f"service: systemd cannot load {unit} (LoadState={load})",
                      f"{service.more}; systemd-analyze verify {unit}")]
    since = f" since {props['StateChangeTimestamp']}" if props.get("StateChangeTimestamp") else ""
    restarts = _int(props, "NRestarts")
    times = f"{restarts} time{'s' if restarts != 1 else ''}"
    why = why_stopped(props, service) or f"Result={props.get('Result') or '?'}"
    below = f"the journal's lines below say why; more: {service.more}"
    disabled = props.get("UnitFileState") == "disabled"
    out: list[Check] = []
    if active == "active":
        pid = _int(props, "MainPID")
        out.append(Check("ok", f"service: {unit} is active ({sub}){since}" + (f", main PID {pid}" if pid else "")))
        if restarts:
            out.append(Check("note", f"service: systemd restarted {unit} {times} since it was started",
                             f"{service.more} says why"))
    elif active == "activating" and sub == "auto-restart":
        so_far = f" (restarted {times} so far)" if restarts else ""
        out.append(Check("fail", f"service: {unit} is restarting{since}: {why}, and systemd starts it again{so_far}: "
                                 f"{service.down}", below))
        out += journal_checks(service, props, host)
    elif active in ("activating", "reloading", "deactivating"):
        out.append(Check("warn", f"service: {unit} is {active} ({sub}){since}",
                         f"run doctor again in a minute; if it stays so: {service.more}"))
    elif active == "failed":
        after = f", after {restarts} restart{'s' if restarts != 1 else ''}" if restarts else ""
        out.append(Check("fail", f"service: {unit} has failed{since}: {why}{after}: {service.down}",
                         f"{below}; once mended: sudo systemctl reset-failed {name} && sudo systemctl restart {name}"))
        out += journal_checks(service, props, host)
    else:  # inactive: stopped, or never started
        failed_before = props.get("Result") not in (None, "", "success")
        out.append(Check("fail", f"service: {unit} is {active} ({sub}){since}: not running"
                                 + (f", {why}" if failed_before else "") + f": {service.down}",
                         f"sudo systemctl enable --now {name}" if disabled else f"sudo systemctl start {name}"))
        if failed_before:
            out += journal_checks(service, props, host)
        disabled = False  # (said in the fix)
    if disabled:
        out.append(Check("warn", f"service: {unit} is not enabled: it will not start at boot",
                         f"sudo systemctl enable {name}"))
    if props.get("NeedDaemonReload") == "yes":
        out.append(Check("warn", f"service: {unit} changed on disk since systemd read it: the old unit still counts",
                         f"sudo systemctl daemon-reload && sudo systemctl restart {name}"))
    return out
