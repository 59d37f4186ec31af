"""What ``tablectl doctor``'s checks share (its own and the room's, controller/cli/doctor_room.py):
a finding's form, and who the daemon runs as with what it may open."""

from __future__ import annotations

import grp
import os
import pwd
import socket
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from controller.cli.unit_file import in_root, resolve

#: the daemon's account, and the groups that open its devices (docs/install.md)
SERVICE_USER = "tablectl"
SERVICE_GROUPS = ("dialout", "gpio", "i2c")
LEVELS = {"ok": "ok", "note": "note", "warn": "warn", "fail": "FAIL"}
#: where ``tablectl setup`` installs systemd/tablectl.sysusers (the administrator's folder; Debian
#: ships only /usr/lib/sysusers.d, so ``install -D`` makes /etc/sysusers.d), and doctor's fix when
#: the user or a group is missing: the same path, so that the two never disagree (issue 41)
SYSUSERS_FILE = "/etc/sysusers.d/tablectl.conf"
SYSUSERS_FIX = (f"sudo tablectl setup (it installs {SYSUSERS_FILE}), or by hand: sudo install -D -m 0644 "
                f"/opt/tablectl/src/systemd/tablectl.sysusers {SYSUSERS_FILE} && sudo systemd-sysusers tablectl.conf")


@dataclass(frozen=True)
class Check:
    """One finding: ``level`` ok | note | warn | fail, what was found, and the fix if any."""

    level: str
    what: str
    fix: str = ""

    def line(self) -> str:
        text = f"{LEVELS[self.level]:<5} {self.what}"
        return f"{text} -> {self.fix}" if self.fix else text

    @property
    def failed(self) -> bool:
        return self.level == "fail"


# -- whose access ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Identity:
    """The user whose access is judged. ``current``: the user running doctor (``os.access``
    answers, ACLs included); otherwise the mode bits are read for ``uid`` and ``gids``."""

    name: str
    uid: int
    gids: frozenset[int]
    current: bool
    #: the primary group's name, for the fixes doctor names (``chgrp tablectl``); None: the user's name
    group: str | None = None

    def describe(self) -> str:
        names = []
        for gid in sorted(self.gids):
            try:
                names.append(grp.getgrgid(gid).gr_name)
            except KeyError:
                names.append(str(gid))
        return f"{self.name} (groups {', '.join(names) or '-'})"


def user_identity(name: str) -> Identity:
    """The identity of user ``name`` as the daemon would have it: its primary group, the groups
    listing it, and for the service's user the unit's SupplementaryGroups. KeyError if none."""
    pw = pwd.getpwnam(name)
    gids = {pw.pw_gid} | {g.gr_gid for g in grp.getgrall() if name in g.gr_mem}
    if name == SERVICE_USER:
        for group in SERVICE_GROUPS:
            try:
                gids.add(grp.getgrnam(group).gr_gid)
            except KeyError:
                pass
    try:
        group = grp.getgrgid(pw.pw_gid).gr_name
    except KeyError:
        group = str(pw.pw_gid)
    return Identity(name, pw.pw_uid, frozenset(gids), current=pw.pw_uid == os.geteuid() and name != SERVICE_USER,
                    group=group)


def current_identity() -> Identity:
    uid = os.geteuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    return Identity(name, uid, frozenset({os.getegid(), *os.getgroups()}), current=True)


def system_user(name: str) -> Identity | None:
    """The user ``name`` of this system's user database (:func:`user_identity`), or None."""
    try:
        return user_identity(name)
    except KeyError:
        return None


def system_group(name: str) -> int | None:
    """The id of group ``name`` of this system, or None."""
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        return None


def resolve_host(name: str) -> list[str]:
    """The addresses ``name`` resolves to here (OSError if it does not)."""
    infos = socket.getaddrinfo(name, None, proto=socket.IPPROTO_TCP)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


@dataclass(frozen=True)
class Host:
    """What doctor asks of the system, gathered so that a test can give its own: the folder the
    Pi's paths are under (``/``; a test's folder, as ``systemd-analyze --root`` takes one), the
    user and group databases, the resolver, who runs doctor, and the programs that ask systemd
    how the service is (``systemctl``, ``journalctl``: :mod:`.unit_state`). The tests run the
    service's checks without root, without systemd, without the host's users and without a
    network."""

    root: Path = Path("/")
    users: Callable[[str], Identity | None] = field(default=system_user)
    groups: Callable[[str], int | None] = field(default=system_group)
    resolve: Callable[[str], list[str]] = field(default=resolve_host)
    euid: Callable[[], int] = field(default=os.geteuid)
    systemctl: str = "systemctl"
    journalctl: str = "journalctl"

    def path(self, path: str | Path) -> Path:
        """``path`` as the Pi names it (``/etc/tablectl/tablectl.toml``), under :attr:`root`."""
        return in_root(self.root, path)


#: this system, as it is
HOST = Host()


def resolve_identity(user: str | None, host: Host = HOST) -> tuple[Identity, Check | None]:
    """Whose access to judge, and a note saying so when it is not simply the caller."""
    if user:
        ident = host.users(user)
        if ident is None:
            return current_identity(), Check("fail", f"user {user!r} does not exist",
                                             "name an existing user with --user")
        return ident, None if ident.current else Check("note", f"access judged for user {ident.describe()}")
    if host.euid() == 0:
        found = host.users(SERVICE_USER)
        if found is not None:
            ident = found
        else:
            return current_identity(), Check(
                "note", f"running as root and there is no user {SERVICE_USER}: access is judged for root "
                        f"(which reaches everything); --user NAME judges it for another user")
        return ident, Check("note", f"running as root: access judged for the service's user {ident.describe()}")
    return current_identity(), None


def can_access(path: str | Path, ident: Identity, want: int) -> bool:
    """Whether ``ident`` may ``want`` (os.R_OK | os.W_OK | os.X_OK) ``path`` (symlinks followed).

    >>> import tempfile, os
    >>> f = tempfile.NamedTemporaryFile()
    >>> os.chmod(f.name, 0o640)
    >>> nobody = Identity("x", 12345, frozenset({12345}), current=False)
    >>> can_access(f.name, nobody, os.R_OK)
    False
    >>> os.chmod(f.name, 0o644); can_access(f.name, nobody, os.R_OK), can_access(f.name, nobody, os.W_OK)
    (True, False)
    """
    if ident.current:
        return os.access(path, want)
    if ident.uid == 0:
        return True
    st = os.stat(path)
    if st.st_uid == ident.uid:
        bits = (st.st_mode >> 6) & 7
    elif st.st_gid in ident.gids:
        bits = (st.st_mode >> 3) & 7
    else:
        bits = st.st_mode & 7
    need = (4 if want & os.R_OK else 0) | (2 if want & os.W_OK else 0) | (1 if want & os.X_OK else 0)
    return bits & need == need


def owner_mode(path: str | Path) -> str:
    """``owner:group mode``, e.g. ``root:dialout 0660``."""
    st = os.stat(path)
    try:
        user = pwd.getpwuid(st.st_uid).pw_name
    except KeyError:
        user = str(st.st_uid)
    try:
        group = grp.getgrgid(st.st_gid).gr_name
    except KeyError:
        group = str(st.st_gid)
    return f"{user}:{group} {stat.S_IMODE(st.st_mode):04o}"


def _folders(path: Path, root: Path) -> list[Path]:
    """The folders between ``root`` (left out) and ``path`` (left out), top down."""
    try:
        rel = path.relative_to(root)
    except ValueError:
        return []
    return [root.joinpath(*rel.parts[:i]) for i in range(1, len(rel.parts))]


def reach_problem(path: str | Path, ident: Identity, want: int, *, root: Path = Path("/")) -> tuple[Path, str] | None:
    """What keeps ``ident`` from ``want`` (os.R_OK, os.X_OK ...) on ``path``, judged as the kernel
    would: every folder on the way (symlinks followed, under ``root``) searchable, then the file's
    own bits. None if nothing does; else (the path in the way, what is wrong with it).

    >>> import tempfile, os
    >>> top = Path(tempfile.mkdtemp()); (top / "etc").mkdir(); _ = (top / "etc" / "t.toml").write_text("")
    >>> os.chmod(top / "etc" / "t.toml", 0o644); os.chmod(top / "etc", 0o700)
    >>> stranger = Identity("x", 12345, frozenset({12345}), current=False)
    >>> where, what = reach_problem(top / "etc" / "t.toml", stranger, os.R_OK, root=top)
    >>> where == top / "etc", what.endswith("0700) is not searchable by x")
    (True, True)
    >>> os.chmod(top / "etc", 0o755); reach_problem(top / "etc" / "t.toml", stranger, os.R_OK, root=top) is None
    True
    """
    path = Path(os.path.abspath(path))
    if not str(path).startswith(str(root)):
        root = Path("/")
    real = resolve(root, "/" + str(path.relative_to(root)))  # (None: a part of it is missing)
    folders = list(dict.fromkeys([*_folders(path, root), *_folders(real or path, root)]))
    for folder in folders:
        if folder.is_symlink():
            continue  # (its target's folders are in the list: the link itself has no bits that count)
        if not folder.exists():
            return folder, "does not exist"
        if not can_access(folder, ident, os.X_OK):
            return folder, f"({owner_mode(folder)}) is not searchable by {ident.name}"
    if real is None or not real.exists():
        return path, "does not exist"
    if not can_access(real, ident, want):
        verb = {os.R_OK: "readable", os.X_OK: "executable", os.W_OK: "writable"}.get(want, "usable")
        return path, f"({owner_mode(real)}) is not {verb} by {ident.name}"
    return None


def reach_fix(where: Path, ident: Identity, *, folder: bool, want: int = os.R_OK) -> str:
    """The smallest change that lets ``ident`` through ``where``: the group's bit where the file's
    group is one of ``ident``'s, else the file's group made ``ident``'s own (a file), or the
    search bit for others (a folder: it shows no names, and what it holds keeps its own modes).

    >>> id = Identity("tablectl", 999, frozenset({999}), current=False, group="tablectl")
    >>> import tempfile; f = tempfile.NamedTemporaryFile()
    >>> reach_fix(Path(f.name), id, folder=False).startswith("sudo chgrp tablectl ")
    True
    """
    bit = {os.R_OK: "r", os.X_OK: "x", os.W_OK: "w"}.get(want, "r")
    try:
        st = os.stat(where)
    except OSError:
        return f"make {where} there"
    if st.st_uid == ident.uid:
        return f"sudo chmod u+{'x' if folder else bit} {where}"
    if st.st_gid in ident.gids:
        return f"sudo chmod g+{'x' if folder else bit} {where}"
    if folder:
        return f"sudo chmod o+x {where}"
    return f"sudo chgrp {ident.group or ident.name} {where} && sudo chmod g+{bit} {where}"


# -- the configuration -------------------------------------------------------------------------
