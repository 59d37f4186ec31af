"""Files that can hold cards: owner only (0600), whether they existed or not.

``os.open(..., 0o600)`` sets the mode of a file it *creates* only, and even then the umask may
take bits away but never adds them back; a file that already exists keeps its mode, so
``history --out`` onto a 0644 file would write hole cards world-readable. Every writer of a
card-bearing file (the feed, ``history --out``, the register's manifests, the journal and its
side files, the simulator's manifests) opens it here: ``fchmod`` on the open descriptor, before
a byte is written, so there is no moment when the new content sits in a readable file.

>>> import os, stat, tempfile, pathlib
>>> p = pathlib.Path(tempfile.mkdtemp()) / "hands.jsonl"
>>> _ = p.write_text("old"); os.chmod(p, 0o644)
>>> with open_private(p, "w") as f:
...     _ = f.write("As Kd")
>>> oct(stat.S_IMODE(os.stat(p).st_mode)), p.read_text()
('0o600', 'As Kd')
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import IO, Any

#: owner read and write, nothing for the group or others
MODE = 0o600


class NotPrivate(PermissionError):
    """A file that cannot be made 0600 (another user's) and is readable by others."""

_FLAGS = {
    # (no O_TRUNC: a file that cannot be made private must be left as it was; "w" truncates
    # once the file is private)
    "w": os.O_WRONLY | os.O_CREAT,
    "a": os.O_WRONLY | os.O_CREAT | os.O_APPEND,
    "x": os.O_WRONLY | os.O_CREAT | os.O_EXCL,
    "r+": os.O_RDWR | os.O_CREAT,
}


def _private_fd(fd: int, path: str | Path) -> None:
    """Make the open file ``fd`` 0600, or refuse it (closing ``fd``) if that cannot be done
    and it is readable by others: a file another user owns (root's, after a ``sudo``)."""
    try:
        os.fchmod(fd, MODE)
        return
    except PermissionError:
        st = os.fstat(fd)
        if not stat.S_IMODE(st.st_mode) & 0o077:
            return  # not ours to chmod, but private already
        os.close(fd)
        raise NotPrivate(errno.EPERM, f"belongs to uid {st.st_uid} with mode {stat.S_IMODE(st.st_mode):03o}, so "
                                   f"it cannot be made private (0600) and would hold cards others can read; "
                                   f"fix: chown the file to this user, or remove it", str(path)) from None
    except OSError:
        os.close(fd)
        raise


def open_private(path: str | Path, mode: str = "w", *, encoding: str | None = None,
                 buffering: int = -1) -> IO[Any]:
    """Open ``path`` for writing (``mode``: ``w``, ``a``, ``x`` or ``r+``, with ``b`` for
    bytes), created 0600 and made 0600 if it existed. Raises ``OSError`` (with the file
    name) like :func:`open`, and when the file cannot be made private."""
    binary = "b" in mode
    flags = _FLAGS[mode.replace("b", "")] | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags, MODE)
    _private_fd(fd, path)
    if mode.startswith("w"):
        try:
            os.ftruncate(fd, 0)
        except OSError:
            os.close(fd)
            raise
    if binary:
        return os.fdopen(fd, mode, buffering=buffering)
    return os.fdopen(fd, mode, buffering=buffering, encoding=encoding or "utf-8")


def make_private(path: str | Path, *, create: bool = True) -> bool:
    """Make ``path`` 0600 (creating it empty if ``create`` and it does not exist: so that
    SQLite, which gives a database's ``-wal`` and ``-shm`` the mode of the database, makes
    those 0600 too). False if it does not exist and was not created."""
    # (read-only is enough: fchmod needs ownership, not write access; O_CREAT with it creates)
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | (os.O_CREAT if create else 0)
    try:
        fd = os.open(path, flags, MODE)
    except FileNotFoundError:
        return False
    _private_fd(fd, path)  # (closes fd when it raises)
    os.close(fd)
    return True
