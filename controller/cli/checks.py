"""What ``tablectl doctor``'s checks share (its own and the room's, controller/cli/doctor_room.py):
a finding's form, and who the daemon runs as with what it may open."""

from __future__ import annotations

import grp
import os
import pwd
import stat
from dataclasses import dataclass
from pathlib import Path

#: the daemon's account, and the groups that open its devices (docs/install.md)
SERVICE_USER = "tablectl"
SERVICE_GROUPS = ("dialout", "gpio", "i2c")
LEVELS = {"ok": "ok", "note": "note", "warn": "warn", "fail": "FAIL"}


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
    return Identity(name, pw.pw_uid, frozenset(gids), current=pw.pw_uid == os.geteuid() and name != SERVICE_USER)


def current_identity() -> Identity:
    uid = os.geteuid()
    try:
        name = pwd.getpwuid(uid).pw_name
    except KeyError:
        name = str(uid)
    return Identity(name, uid, frozenset({os.getegid(), *os.getgroups()}), current=True)


def resolve_identity(user: str | None) -> tuple[Identity, Check | None]:
    """Whose access to judge, and a note saying so when it is not simply the caller."""
    if user:
        try:
            ident = user_identity(user)
        except KeyError:
            return current_identity(), Check("fail", f"user {user!r} does not exist",
                                             "name an existing user with --user")
        return ident, None if ident.current else Check("note", f"access judged for user {ident.describe()}")
    if os.geteuid() == 0:
        try:
            ident = user_identity(SERVICE_USER)
        except KeyError:
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


# -- the configuration -------------------------------------------------------------------------
