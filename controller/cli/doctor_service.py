"""``tablectl doctor``'s checks of what the service will meet, judged from the installed unit
(systemd/tablectl.service and its drop-ins, read as systemd merges them: :mod:`.unit_file`), not
from the shell doctor runs in:

- the unit's user and groups exist (systemd refuses to start it otherwise);
- the configuration and the deck manifests are readable by the unit's user, with its groups
  (``User=``, ``Group=``, ``SupplementaryGroups=``): every folder on the way searchable, the file
  readable; judged from the modes, without switching user;
- the unit's ``ExecStart=`` is executable by that user, and so is the interpreter its ``#!`` names
  (a virtual environment whose Python is gone);
- with ``[room]``: the unit lets the network in (the room's drop-in installed: ``PrivateNetwork=no``,
  ``AF_INET``/``AF_INET6``), its ``IPAddressAllow=`` covers the broker's address (``IPAddressDeny=any``
  drops everything else, and the daemon would log "Network is unreachable"), and, when the broker
  is named by host name, the name servers of ``/etc/resolv.conf`` too (DNS);
- last, how the service is now, where systemd is PID 1 (:mod:`.unit_state`: running, or failed,
  restarting, stopped, with the journal's last error lines).

Each failure names the fix. The system is reached through a :class:`~.checks.Host` (the root the
paths are under, the user database, the resolver), which the tests give.

>>> nameservers("# by NetworkManager\\nnameserver 10.20.0.1\\nnameserver fe80::1%eth0\\nsearch lan\\n")
['10.20.0.1', 'fe80::1']
>>> nameservers(""), sorted(hosts_names("127.0.0.1 localhost\\n10.20.0.2 broker.room.lan broker # the broker\\n"))
(['127.0.0.1', '::1'], ['broker', 'broker.room.lan', 'localhost'])
"""

from __future__ import annotations

import ipaddress
import os
from pathlib import Path
from typing import Any

from controller.cli.checks import SERVICE_USER, SYSUSERS_FIX, Check, Host, Identity, reach_fix, reach_problem
from controller.cli.unit_state import TABLE, unit_state
from controller.cli.unit_file import (Firewall, Unit, address_families, config_of, exec_start, family_allowed,
                                      load_unit, misplaced_dropins, resolve)

UNIT_NAME = "tablectl.service"
#: the room's drop-in as installed, and as shipped (docs/room.md, "The unit")
ROOM_DROPIN = "/etc/systemd/system/tablectl.service.d/room.conf"
SHIPPED_DROPIN = "/opt/tablectl/src/systemd/tablectl.service.d/room.conf"
RELOAD = "sudo systemctl daemon-reload && sudo systemctl restart tablectl"
#: the shipped drop-in's placeholder for the broker's address (TEST-NET-1: it routes nowhere)
PLACEHOLDER = "192.0.2.10"
#: where systemd looks for an ExecStart= given without a path (systemd.service(5), "Command lines")
EXEC_PATH = ("/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin")
#: glibc's name server when resolv.conf names none (resolv.conf(5))
DEFAULT_NAMESERVERS = ["127.0.0.1", "::1"]


def nameservers(text: str) -> list[str]:
    """The name servers a resolv.conf names, in order (an IPv6 address's ``%zone`` dropped); the
    resolver's default when it names none."""
    out = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split(";", 1)[0].split()
        if len(words) >= 2 and words[0] == "nameserver":
            out.append(words[1].split("%", 1)[0])
    return out or list(DEFAULT_NAMESERVERS)


def hosts_names(text: str) -> set[str]:
    """Every name an /etc/hosts gives an address to (those need no DNS), lowercased."""
    return {name.lower() for line in text.splitlines() for name in line.split("#", 1)[0].split()[1:]}


def is_address(host: str) -> bool:
    try:
        ipaddress.ip_address(host)
    except ValueError:
        return False
    return True


# -- the unit's user ---------------------------------------------------------------------------

def unit_user(unit: Unit) -> str:
    s = unit.last("Service", "User")
    return s.value if s is not None else "root"


def check_users(unit: Unit, host: Host) -> list[Check]:
    """The unit's ``User=``, ``Group=`` and ``SupplementaryGroups=`` exist (status 217/USER,
    216/GROUP otherwise)."""
    user = unit_user(unit)
    group = unit.last("Service", "Group")
    groups = ([group.value] if group is not None else []) + unit.words("Service", "SupplementaryGroups")
    return users_exist(str(unit.path), user, groups, host, keys="Group= or SupplementaryGroups=", fix=SYSUSERS_FIX)


def users_exist(unit: str, user: str, groups: list[str], host: Host, *, keys: str, fix: str) -> list[Check]:
    """The unit's user and groups exist on ``host`` (systemd refuses to start it otherwise: status
    217/USER, 216/GROUP); ``keys``: the unit's settings that name the groups, for the message."""
    out = []
    if host.users(user) is None:
        out.append(Check("fail", f"service: {unit} runs as user {user}, which does not exist (status 217/USER)", fix))
    missing = [g for g in groups if host.groups(g) is None]
    if missing:
        out.append(Check("fail", f"service: group {', '.join(missing)} does not exist: the unit's {keys} stops "
                                 f"it starting (status 216/GROUP)", fix))
    if not out:
        out.append(Check("ok", f"service: {unit}: user {user} and groups {', '.join(groups) or '-'} exist"))
    return out


def service_identity(unit: Unit, host: Host) -> Identity | None:
    """The user the unit runs as, with the groups the unit gives it (its own, ``Group=``,
    ``SupplementaryGroups=``); None if the user does not exist."""
    base = host.users(unit_user(unit))
    if base is None:
        return None
    gids = set(base.gids)
    group = unit.last("Service", "Group")
    for name in ([group.value] if group is not None else []) + unit.words("Service", "SupplementaryGroups"):
        gid = host.groups(name)
        if gid is not None:
            gids.add(gid)
    return Identity(base.name, base.uid, frozenset(gids), current=False,
                    group=group.value if group is not None else base.group)


# -- what it reads -----------------------------------------------------------------------------

def check_readable(files: list[tuple[str, str]], ident: Identity, *, root: Path = Path("/")) -> list[Check]:
    """Each of ``files`` (what, path) readable by ``ident``: every folder on the way searchable and
    the file readable. The daemon reads them all at its start: one it cannot read stops it (exit
    status 2, "cannot read the configuration", which the unit does not retry)."""
    out = []
    for what, path in files:
        problem = reach_problem(path, ident, os.R_OK, root=root)
        if problem is None:
            continue
        where, wrong = problem
        folder = where != Path(os.path.abspath(path))
        shown = f"folder {where}" if folder else str(where)
        out.append(Check("fail", f"{what}: {shown} {wrong}: the service would not start (exit status 2)",
                         reach_fix(where, ident, folder=folder)))
    if not out:
        names = [w for w, _ in files]
        out.append(Check("ok", f"config: {_listed(names)} readable by {ident.name}"))
    return out


def _listed(names: list[str]) -> str:
    """``config`` and ``2 deck manifests``, as one phrase."""
    decks = sum(1 for n in names if n.startswith("[[decks]]"))
    others = [n for n in names if not n.startswith("[[decks]]")]
    parts = ["the configuration" if n == "config" else n for n in others]
    if decks:
        parts.append(f"{decks} deck manifest{'s' if decks != 1 else ''}")
    return " and ".join(parts) if len(parts) <= 2 else ", ".join(parts[:-1]) + " and " + parts[-1]


def service_files(config_path: str, config: Any) -> list[tuple[str, str]]:
    """What the daemon reads at its start that doctor checks for its user: the configuration and
    the ``[[decks]]`` manifests (the room's files: :mod:`.doctor_room`)."""
    files = [("config", str(config_path))]
    files += [(f"[[decks]] #{i} manifest", m) for i, m in enumerate(getattr(config, "manifests", ()), 1)]
    return files


# -- what it runs ------------------------------------------------------------------------------

def check_exec(argv: list[str], ident: Identity, host: Host) -> list[Check]:
    """The unit's ``ExecStart=`` program executable by ``ident``, and the interpreter of its
    ``#!`` line (a virtual environment's script names the venv's Python, which is a link to the
    system's: gone after an upgrade of Python, the script cannot start)."""
    exe = argv[0]
    if not exe.startswith("/"):
        found = next((f"{d}/{exe}" for d in EXEC_PATH if resolve(host.root, f"{d}/{exe}") is not None), None)
        if found is None:
            return [Check("fail", f"service: ExecStart= names {exe}, which is in none of {':'.join(EXEC_PATH)}",
                          "give ExecStart= the full path (/opt/tablectl/venv/bin/tablectl)")]
        exe = found
    fix_missing = ("install tablectl into /opt/tablectl/venv (docs/install.md), or fix ExecStart= in a drop-in "
                   "(sudo systemctl edit tablectl)")
    problem = reach_problem(host.path(exe), ident, os.X_OK, root=host.root)
    if problem is not None:
        where, wrong = problem
        return [Check("fail", f"service: ExecStart= {exe}: {_shown(where, host)} {wrong}: the service cannot start "
                              f"(status 203/EXEC)",
                      fix_missing if wrong == "does not exist" else
                      reach_fix(where, ident, folder=where != host.path(exe), want=os.X_OK))]
    interpreter = _interpreter(host, exe)
    if interpreter is not None:
        problem = reach_problem(host.path(interpreter), ident, os.X_OK, root=host.root)
        if problem is not None:
            where, wrong = problem
            venv = Path(interpreter).parent.parent
            return [Check("fail", f"service: ExecStart= {exe} runs {interpreter} (its #! line), and "
                                  f"{_shown(where, host)} {wrong}: the service cannot start",
                          f"make the virtual environment again: sudo python3 -m venv --upgrade {venv} (or remove "
                          f"it and install again: docs/install.md)" if wrong == "does not exist" else
                          reach_fix(where, ident, folder=where != host.path(interpreter), want=os.X_OK))]
    through = f" (with {interpreter})" if interpreter else ""
    return [Check("ok", f"service: ExecStart= {exe} is executable by {ident.name}{through}")]


def _interpreter(host: Host, exe: str) -> str | None:
    """The program a script's ``#!`` line names (``/usr/bin/env``'s own path for ``env``)."""
    real = resolve(host.root, exe)
    if real is None:
        return None
    try:
        with open(real, "rb") as f:
            head = f.read(256)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode(errors="replace").split()
    return words[0] if words and words[0].startswith("/") else None


def _shown(path: Path, host: Host) -> str:
    """``path`` (under the host's root) as the Pi names it."""
    try:
        return "/" + str(path.relative_to(host.root)) if host.root != Path("/") else str(path)
    except ValueError:
        return str(path)


# -- the room link's network -------------------------------------------------------------------

def _dropin_fix(unit: Unit, host: Host) -> str:
    found = misplaced_dropins(host.root, UNIT_NAME)
    hint = (f" ({', '.join(_shown(p, host) for p in found)}: systemd ignores it; it reads only *.conf files in "
            f"/etc/systemd/system/{UNIT_NAME}.d/)") if found else ""
    return (f"install the room's drop-in: sudo install -D -m 0644 {SHIPPED_DROPIN} {ROOM_DROPIN}, put the broker's "
            f"address in its IPAddressAllow=, then {RELOAD} (docs/room.md, \"The unit\"){hint}")


def _allow_file(unit: Unit) -> str:
    """The drop-in that sets ``IPAddressAllow=`` (where the fix goes), else the room's."""
    sources = [s.source for s in unit.values("Service", "IPAddressAllow") if s.source in unit.dropins]
    return sources[-1] if sources else ROOM_DROPIN


def check_sandbox(unit: Unit, room: Any, host: Host) -> list[Check]:
    """With ``[room]``: whether the unit lets the daemon reach the broker (and DNS, the broker
    named by host name), from its own settings: the sandbox, not this shell, is what the daemon
    meets."""
    broker = room.host
    private = unit.last("Service", "PrivateNetwork")
    if unit.flag("Service", "PrivateNetwork"):
        assert private is not None
        return [Check("fail", f"service: [room] is set, but the unit keeps the network shut (PrivateNetwork="
                              f"{private.value} in {private.source}, and no drop-in opens it): the room link would log "
                              f"\"Network is unreachable\"", _dropin_fix(unit, host))]
    families = address_families(unit)
    firewall = Firewall.of(unit)
    allow_file = _allow_file(unit)
    out: list[Check] = []
    if is_address(broker):
        addresses = [broker]
    else:
        try:
            addresses = host.resolve(broker)
        except OSError as exc:
            addresses = []
            why = getattr(exc, "strerror", None) or exc
            out.append(Check("warn", f"service: cannot resolve {broker} here ({why}): "
                                     f"whether IPAddressAllow= lets the daemon reach the broker is not checked",
                             "fix the host name in [room] broker, or the name service"))
    if addresses:
        out.append(_broker_reached(addresses, broker, families, firewall, allow_file))
    if not is_address(broker) and broker.lower() != "localhost" and broker.lower() not in _hosts(host):
        out.append(_dns_allowed(broker, host, families, firewall, allow_file))
    return out


def _family(address: str) -> str:
    return "AF_INET6" if ipaddress.ip_address(address).version == 6 else "AF_INET"


def _reached(address: str, families: set[str] | None, firewall: Firewall) -> bool:
    return family_allowed(families, _family(address)) and firewall.allows(address)


def _allowed_words(firewall: Firewall) -> str:
    return " ".join(firewall.allow_words) or "nothing"


def _broker_reached(addresses: list[str], broker: str, families: set[str] | None, firewall: Firewall,
                    allow_file: str) -> Check:
    reached = [a for a in addresses if _reached(a, families, firewall)]
    named = broker if addresses == [broker] else f"{broker} ({', '.join(addresses)})"
    if not reached:
        if not any(family_allowed(families, _family(a)) for a in addresses):
            return Check("fail", f"service: RestrictAddressFamilies= leaves the daemon no {_family(addresses[0])} "
                                 f"socket: it cannot reach the broker {named}",
                         f"RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6 in {allow_file} (the shipped drop-in has "
                         f"it), then {RELOAD}")
        placeholder = (f" ({PLACEHOLDER} is the shipped drop-in's placeholder)"
                       if PLACEHOLDER in firewall.allow_words and PLACEHOLDER not in addresses else "")
        return Check("fail", f"service: IPAddressAllow= ({_allowed_words(firewall)}){placeholder} does not cover the "
                             f"broker {named}, and IPAddressDeny= drops the rest: the room link would log \"Network is "
                             f"unreachable\"",
                     f"in {allow_file}: IPAddressAllow={addresses[0]} (the broker's address, or the room network's "
                     f"prefix) instead of what is there, then {RELOAD}")
    if len(reached) < len(addresses):
        left = [a for a in addresses if a not in reached]
        return Check("warn", f"service: IPAddressAllow= covers the broker {broker} at {', '.join(reached)} but not "
                             f"at {', '.join(left)}: connections there fail first",
                     f"add IPAddressAllow={' '.join(left)} in {allow_file}, then {RELOAD}")
    return Check("ok", f"service: IPAddressAllow= ({_allowed_words(firewall)}) lets the daemon reach the broker "
                       f"{named}")


def _hosts(host: Host) -> set[str]:
    path = resolve(host.root, "/etc/hosts")
    try:
        return hosts_names(path.read_text(errors="replace")) if path is not None else set()
    except OSError:
        return set()


def _dns_allowed(broker: str, host: Host, families: set[str] | None, firewall: Firewall, allow_file: str) -> Check:
    path = resolve(host.root, "/etc/resolv.conf")
    try:
        text = path.read_text(errors="replace") if path is not None else ""
    except OSError:
        text = ""
    servers = nameservers(text)
    blocked = [s for s in servers if not _reached(s, families, firewall)]
    fix = (f"add IPAddressAllow={' '.join(blocked)} (the name servers) in {allow_file}, then {RELOAD}; or name "
           f"the broker by its address in [room] broker (its certificate must name that address)")
    if len(blocked) == len(servers):
        return Check("fail", f"service: the broker is named by host name ({broker}), and IPAddressAllow= "
                             f"({_allowed_words(firewall)}) does not cover the name servers of /etc/resolv.conf "
                             f"({', '.join(servers)}): the daemon cannot look it up", fix)
    if blocked:
        return Check("warn", f"service: IPAddressAllow= covers some of the name servers of /etc/resolv.conf but not "
                             f"{', '.join(blocked)}: a look-up there fails, then the next is tried", fix)
    return Check("ok", f"service: DNS allowed: IPAddressAllow= covers the name servers of /etc/resolv.conf "
                       f"({', '.join(servers)}), for the broker's name {broker}")


# -- all together ------------------------------------------------------------------------------

def service_checks(config_path: str, config: Any, ident: Identity, host: Host) -> list[Check]:
    """What the installed unit will meet, when it runs this configuration (``--config`` of its
    ``ExecStart=``); a note otherwise. ``ident``: whom the other checks judged access for (the
    files are judged again only for a service user who is someone else)."""
    unit = load_unit(host.root, UNIT_NAME)
    if unit is None:
        return [Check("note", f"service: {UNIT_NAME} is not installed: what the service will meet (its user, its "
                              f"sandbox) and its state are not checked", "install it (docs/install.md)")]
    argv = exec_start(unit)
    runs = config_of(argv)
    if argv is None or runs is None:
        return [Check("fail", f"service: {unit.path} has no ExecStart= with --config",
                      f"install the shipped unit again: sudo install -m 0644 /opt/tablectl/src/systemd/{UNIT_NAME} "
                      f"/etc/systemd/system/ && {RELOAD}")]
    if not _same_file(host.path(runs), Path(config_path)):
        return [Check("note", f"service: {unit.path} runs --config {runs}, not {config_path}: the service's checks "
                              f"are for that file", f"tablectl doctor --config {runs}")]
    out = check_users(unit, host)
    service = service_identity(unit, host)
    if service is not None:
        if service.uid != ident.uid:  # (else judged already, for ident)
            out += check_readable(service_files(config_path, config), service, root=host.root)
        out += check_exec(argv, service, host)
        if getattr(config, "room", None) is not None:
            out += check_sandbox(unit, config.room, host)
    return out + unit_state(TABLE, host)  # (last: how it is now, where systemd can say)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


__all__ = ["SERVICE_USER", "check_exec", "check_readable", "check_sandbox", "check_users", "service_checks"]
