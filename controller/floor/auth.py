"""Accounts, sessions and roles of the floor's page.

Passwords are hashed with argon2id (argon2-cffi's defaults, RFC 9106's second recommended
parameters); a session is a random token whose SHA-256 alone is stored, with its own CSRF token.

Wrong passwords are slowed, never locked out (OWASP's authentication guidance: a lock anyone can
trigger locks the floor out on a busy night). Per client address and per account, after a few
failures each next attempt must wait a delay that doubles with every failure, up to a bound
(:class:`Throttle`); an attempt that comes sooner is refused before any hashing. An unknown
name, a wrong password and a throttled attempt get the same answer ("wrong name or password")
and an unknown name costs the same argon2 work, so the answers tell nothing of which names
exist or which are being slowed. Every failure goes to the audit log, with the address.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from dataclasses import dataclass

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (a type only: the password checks' process imports this module for check(), and
    # the store would bring the room's signing, cryptography, along: controller/floor/hashing.py)
    from controller.floor.store import Store

ROLES = ("floor", "technician", "viewer")
NAME_MAX = 64
#: the answer to every refused login, whatever was wrong
REFUSED = "wrong name or password"

_hasher = PasswordHasher()


def _dummy_hash(hasher: PasswordHasher) -> str:
    """What an unknown name's password is checked against: an argon2id hash with the hasher's own
    parameters, so that checking any password against it costs the same work as a real account's
    (argon2 computes, then compares). It matches no password a test could find, and a match would
    still be refused (:func:`check`: the name is unknown). Written out, not hashed: hashing it at
    import cost every process that imports the floor (the service, its CLI) an argon2 run.

    >>> from argon2 import extract_parameters
    >>> extract_parameters(_dummy_hash(_hasher)) == extract_parameters(_hasher.hash("x"))
    True
    """
    def b64(n: int, fill: int) -> str:
        return base64.b64encode(bytes([fill]) * n).decode().rstrip("=")

    return (f"$argon2id$v=19$m={hasher.memory_cost},t={hasher.time_cost},p={hasher.parallelism}"
            f"${b64(hasher.salt_len, 0x5A)}${b64(hasher.hash_len, 0xA5)}")


_DUMMY = _dummy_hash(_hasher)


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


def add_user(store: Store, name: str, role: str, password: str, *, by: str = "cli",
             hasher: PasswordHasher = _hasher) -> None:
    """Create ``name`` or set its role and password (and lift any slowdown on it). ``hasher``: the
    argon2 parameters to hash with, the service's own unless given (a hash carries its parameters,
    and a login is checked by them: the tests' rig gives its users argon2's cheapest)."""
    if not valid_name(name):
        raise ValueError(f"a user name is 1 to {NAME_MAX} letters, digits, '.', '_' or '-', got {name!r}")
    if role not in ROLES:
        raise ValueError(f"--role must be one of {', '.join(ROLES)}, got {role!r}")
    if len(password) < 8:
        raise ValueError("the password must be at least 8 characters")
    store.db.execute("INSERT INTO users (name, role, hash, failures, locked_until, created) VALUES (?, ?, ?, 0, 0, ?) "
                     "ON CONFLICT(name) DO UPDATE SET role = excluded.role, hash = excluded.hash, failures = 0, "
                     "locked_until = 0", (name, role, hasher.hash(password), store.clock()))
    # A new password or role ends every session the user had: an old cookie (a stolen one, a
    # page left open with more rights) must log in again. The service re-checks an open page's
    # session before each message it sends (app.FloorService._live), so open pages end too.
    store.db.execute("DELETE FROM sessions WHERE user = ?", (name,))
    store.audit(by, "adduser", f"{name} role={role}")


@dataclass(frozen=True)
class Slowdown:
    """After ``free`` failures in a row, each next attempt waits ``first`` seconds, doubled with
    every further failure, up to ``most``."""

    free: int
    first: float
    most: float

    def delay(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.most, self.first * 2 ** (failures - self.free))


#: per client address: three free tries, then 1 s, 2 s, 4 s ... at most a minute
BY_ADDRESS = Slowdown(free=3, first=1.0, most=60.0)
#: per account (from any address): five free tries, then 1 s, 2 s ... at most 30 s: slowed, never locked
BY_ACCOUNT = Slowdown(free=5, first=1.0, most=30.0)


class Throttle:
    """The failures of each client address, in memory (a restart forgets them: the accounts'
    own, in the database, remain). Bounded: the oldest addresses are forgotten first."""

    MAX_ADDRESSES = 10_000

    def __init__(self, slowdown: Slowdown = BY_ADDRESS) -> None:
        self.slowdown = slowdown
        self._by_address: dict[str, tuple[int, float]] = {}  # address -> (failures, not before)

    def wait(self, address: str, now: float) -> float:
        """Seconds this address must still wait (0: it may try now)."""
        entry = self._by_address.get(address)
        return max(0.0, entry[1] - now) if entry is not None else 0.0

    def failures(self, address: str) -> int:
        entry = self._by_address.get(address)
        return entry[0] if entry is not None else 0

    def reserve(self, address: str, now: float) -> None:
        """An attempt from ``address`` is being checked: counted as failed until it succeeds, so
        that attempts sent at once cannot all pass before the first failure is counted."""
        failures = self._by_address.pop(address, (0, 0.0))[0] + 1
        self._by_address[address] = (failures, now + self.slowdown.delay(failures))
        while len(self._by_address) > self.MAX_ADDRESSES:
            self._by_address.pop(next(iter(self._by_address)))

    def succeeded(self, address: str) -> None:
        self._by_address.pop(address, None)


@dataclass(frozen=True)
class Attempt:
    """A login as :func:`begin` found it: the hash to check the password against (a dummy one
    for an unknown name), or throttled (no hash checked at all)."""

    name: str
    address: str
    stored: str
    known: bool
    throttled: bool


def begin(store: Store, throttle: Throttle, name: str, address: str) -> Attempt:
    """The first half of a login, on the service's thread: who, and whether this attempt is
    throttled (too soon after failures from this address or on this account)."""
    now = store.clock()
    row = store.db.execute("SELECT hash, locked_until FROM users WHERE name = ?",
                           (name,)).fetchone() if valid_name(name) else None
    # The account's slowdown holds back only addresses that have failed already: the owner at a
    # fresh address (or after a success) is never kept out by someone else's guesses.
    throttled = throttle.wait(address, now) > 0 or (
        row is not None and row[1] > now and throttle.failures(address) > 0)
    if not throttled:
        throttle.reserve(address, now)
    return Attempt(name, address, row[0] if row is not None else _DUMMY, row is not None, throttled)


def check(attempt: Attempt, password: str) -> bool:
    """The password against the hash: argon2's work, for a worker thread (never the event loop)."""
    if attempt.throttled:
        return False
    try:
        return bool(_hasher.verify(attempt.stored, password)) and attempt.known
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


def finish(store: Store, throttle: Throttle, attempt: Attempt, ok: bool) -> tuple[str, Session]:
    """The second half, on the service's thread: the session, or :class:`AuthError` with the one
    answer for every refusal; the failure counted and audited with its reason and address."""
    now, name, address = store.clock(), attempt.name, attempt.address
    if not ok:
        why = "throttled" if attempt.throttled else "wrong password" if attempt.known else "unknown user"
        if not attempt.throttled:  # (a throttled attempt adds nothing: it was never checked)
            # (the address's failure was counted when the attempt began: Throttle.reserve)
            if attempt.known:
                failures = store.db.execute("SELECT failures FROM users WHERE name = ?", (name,)).fetchone()[0] + 1
                store.db.execute("UPDATE users SET failures = ?, locked_until = ? WHERE name = ?",
                                 (failures, now + BY_ACCOUNT.delay(failures), name))
        store.audit(name[:NAME_MAX] if valid_name(name) else "?", "login refused", f"{why} from {address[:64]}")
        raise AuthError(REFUSED)
    throttle.succeeded(address)
    role = store.db.execute("SELECT role FROM users WHERE name = ?", (name,)).fetchone()[0]
    store.db.execute("UPDATE users SET failures = 0, locked_until = 0 WHERE name = ?", (name,))
    token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    store.db.execute("INSERT INTO sessions (token, user, csrf, created, seen) VALUES (?, ?, ?, ?, ?)",
                     (_digest(token), name, csrf, now, now))
    store.audit(name, "login", f"{role} from {address[:64]}")
    return token, Session(name, role, csrf)


_CHECK_SECONDS: list[float] = []


def check_seconds() -> float:
    """How long one password check takes here (measured once): a throttled attempt is answered
    after as long, so that the time of an answer tells nothing."""
    if not _CHECK_SECONDS:

        t0 = time.perf_counter()
        try:
            _hasher.verify(_DUMMY, "a timing probe")
        except VerificationError:
            pass
        _CHECK_SECONDS.append(time.perf_counter() - t0)
    return _CHECK_SECONDS[0]


def login(store: Store, name: str, password: str, *, throttle: Throttle | None = None,
          address: str = "local") -> tuple[str, Session]:
    """A whole login in the caller's thread (the tests, a tool): :func:`begin`, :func:`check`,
    :func:`finish`. Returns (the cookie's token, the session); raises :class:`AuthError`."""
    throttle = throttle if throttle is not None else Throttle()
    attempt = begin(store, throttle, name, address)
    return finish(store, throttle, attempt, check(attempt, password))


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
