"""Writing a file the service reads: whole or not at all, with its owner and mode said, never left
to the umask of whoever runs the command.

:func:`write_file` writes a temporary file in the same folder (so that the rename is atomic and a
relative path in it resolves as in the final file), gives it its mode and owner *before* a byte
is in it, writes, flushes and fsyncs it, lets ``check`` read it (a configuration is loaded before
it replaces anything), renames it over the file and fsyncs the folder. A failure at any step
leaves the old file as it was and no temporary file behind.

``keep=True`` keeps the owner, group and mode of the file being replaced (``tablectl calibrate``
on ``/etc/tablectl/tablectl.toml``, ``root:tablectl 0640``: issue 41's second silent break, where
a plain write-and-rename left ``root:root 0644`` under umask 022 and ``0600`` under umask 077,
and the daemon, not root, could no longer read it).

>>> import tempfile, os
>>> folder = Path(tempfile.mkdtemp())
>>> old = os.umask(0o077)
>>> write_file(folder / "a.toml", b"x = 1\\n", mode=0o640)
True
>>> oct((folder / "a.toml").stat().st_mode & 0o777)
'0o640'
>>> write_file(folder / "a.toml", b"x = 1\\n", mode=0o640)   # the same bytes and mode: nothing written
False
>>> write_file(folder / "a.toml", b"x = 2\\n", mode=0o600, keep=True)   # the file's own mode kept
True
>>> oct((folder / "a.toml").stat().st_mode & 0o777), sorted(p.name for p in folder.iterdir())
('0o640', ['a.toml'])
>>> _ = os.umask(old)
"""

from __future__ import annotations

import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Stat:
    """A file's owner, group and permission bits."""

    uid: int
    gid: int
    mode: int

    @classmethod
    def of(cls, path: str | Path) -> Stat:
        st = os.stat(path)
        return cls(st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode))


def write_file(path: str | Path, data: bytes, *, mode: int, uid: int | None = None, gid: int | None = None,
               keep: bool = False, check: Callable[[Path], None] | None = None, only_if_changed: bool = True) -> bool:
    """Put ``data`` in ``path`` atomically, with ``mode`` and the owner ``uid``:``gid`` (None: the
    caller's own); ``keep``: those of the file replaced instead, if there is one. ``check(temp)``
    may refuse the new file by raising: the old one is then left as it was. Returns whether
    anything was written (``only_if_changed``: not when the file already holds ``data`` with that
    owner and mode)."""
    path = Path(path)
    try:
        old = Stat.of(path)
    except FileNotFoundError:
        old = None
    if keep and old is not None:
        uid, gid, mode = old.uid, old.gid, old.mode
    want_uid = os.geteuid() if uid is None else uid
    want_gid = os.getegid() if gid is None else gid
    if only_if_changed and old is not None and (old.uid, old.gid, old.mode) == (want_uid, want_gid, mode):
        try:
            if path.read_bytes() == data:
                return False
        except OSError:
            pass
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".new")  # (0600 from the start)
    done = False
    try:
        if (want_uid, want_gid) != (os.geteuid(), os.getegid()):
            os.fchown(fd, want_uid, want_gid)  # (before the mode: chown clears set-id bits)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            fd = -1
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        if check is not None:
            check(Path(temp))
        os.replace(temp, path)
        done = True
    finally:
        if fd >= 0:
            os.close(fd)
        if not done:
            try:
                os.unlink(temp)
            except FileNotFoundError:
                pass
    sync_folder(path.parent)
    return True


def sync_folder(folder: str | Path) -> None:
    """fsync a folder, so that a rename in it survives a power cut (where the system allows it)."""
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(dfd)
    except OSError:
        pass
    finally:
        os.close(dfd)
