"""Accounts, sessions and roles of the floor's page.

Passwords are hashed with argon2id (argon2-cffi's defaults, RFC 9106's second recommended
parameters); a session is a random token whose SHA-256 alone is stored, with its own CSRF token.
Five wrong passwords in a row lock the account for 15 minutes (while locked, even the right
password is refused); an unknown name costs the same argon2 work and gets the same answer, so
the answers do not tell which names exist.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from controller.service.floor.store import Store

ROLES = ("floor", "technician", "viewer")
#: wrong passwords in a row before the account locks, and for how long
MAX_FAILURES = 5
LOCK_SECONDS = 15 * 60
NAME_MAX = 64

_hasher = PasswordHasher()
_DUMMY = _hasher.hash("not a password: the work an unknown name costs")


class AuthError(Exception):
    """A login refused: the message is what the page shows (never which part was wrong)."""


@dataclass(frozen=True)
class Session:
    user: str
    role: str
    csrf: str


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def valid_name(name: str) -> bool:
    return 0 < len(name) <= NAME_MAX and all(c.isalnum() or c in "._-" for c in name)


def add_user(store: Store, name: str, role: str, password: str, *, by: str = "cli") -> None:
    """Create ``name`` or set its role and password (and unlock it)."""
    if not valid_name(name):
        raise ValueError(f"a user name is 1 to {NAME_MAX} letters, digits, '.', '_' or '-', got {name!r}")
    if role not in ROLES:
        raise ValueError(f"--role must be one of {', '.join(ROLES)}, got {role!r}")
    if len(password) < 8:
        raise ValueError("the password must be at least 8 characters")
    store.db.execute("INSERT INTO users (name, role, hash, failures, locked_until, created) VALUES (?, ?, ?, 0, 0, ?) "
                     "ON CONFLICT(name) DO UPDATE SET role = excluded.role, hash = excluded.hash, failures = 0, "
                     "locked_until = 0", (name, role, _hasher.hash(password), store.clock()))
    # A new password or role ends every session the user had: an old cookie (a stolen one, a
    # page left open with more rights) must log in again. The service re-checks an open page's
    # session before each message it sends (app.FloorService._live), so open pages end too.
    store.db.execute("DELETE FROM sessions WHERE user = ?", (name,))
    store.audit(by, "adduser", f"{name} role={role}")


def login(store: Store, name: str, password: str) -> tuple[str, Session]:
    """Check a password; returns (the cookie's token, the session). Raises :class:`AuthError`."""
    now = store.clock()
    row = store.db.execute("SELECT role, hash, failures, locked_until FROM users WHERE name = ?",
                           (name,)).fetchone() if valid_name(name) else None
    if row is None:
        try:
            _hasher.verify(_DUMMY, password)
        except VerificationError:
            pass
        store.audit(name[:NAME_MAX], "login refused", "unknown user")
        raise AuthError("wrong name or password")
    role, stored, failures, locked_until = row
    try:
        ok = _hasher.verify(stored, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        ok = False
    if locked_until > now:
        store.audit(name, "login refused", "locked")
        raise AuthError("too many wrong passwords: this account is locked for a while")
    if not ok:
        failures += 1
        locked = now + LOCK_SECONDS if failures >= MAX_FAILURES else 0
        store.db.execute("UPDATE users SET failures = ?, locked_until = ? WHERE name = ?",
                         (0 if locked else failures, locked, name))
        store.audit(name, "login refused", "wrong password" + (" (locked)" if locked else ""))
        raise AuthError("wrong name or password")
    store.db.execute("UPDATE users SET failures = 0 WHERE name = ?", (name,))
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    store.db.execute("INSERT INTO sessions (token, user, csrf, created, seen) VALUES (?, ?, ?, ?, ?)",
                     (_digest(token), name, csrf, now, now))
    store.audit(name, "login", role)
    return token, Session(name, role, csrf)


def session(store: Store, token: str | None, max_idle: float) -> Session | None:
    """The live session of a cookie's token, or None (none, unknown, expired, user removed)."""
    if not token:
        return None
    now = store.clock()
    row = store.db.execute("SELECT s.user, u.role, s.csrf, s.seen FROM sessions s JOIN users u ON u.name = s.user "
                           "WHERE s.token = ?", (_digest(token),)).fetchone()
    if row is None:
        return None
    if now - row[3] > max_idle:
        store.db.execute("DELETE FROM sessions WHERE token = ?", (_digest(token),))
        return None
    store.db.execute("UPDATE sessions SET seen = ? WHERE token = ?", (now, _digest(token)))
    return Session(row[0], row[1], row[2])


def logout(store: Store, token: str) -> None:
    store.db.execute("DELETE FROM sessions WHERE token = ?", (_digest(token),))
