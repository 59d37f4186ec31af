"""What ``tablectl setup`` and ``tablectl floor setup`` do, as data: a plan of folders, files,
links and commands, in order, and the one function that carries it out (or only says it).

A plan is built first (nothing touched), then :func:`carry_out` walks it:

- a **folder** is made if missing, then given its owner and mode;
- a **file** is written through the one writer (controller/config/writer.py: a temporary file,
  its owner and mode set before a byte is in it, ``check`` reading it, then a rename). A file
  that holds the bytes already is left alone (its owner and mode put right if they differ). A file
  that differs is replaced only when it is still what setup last wrote there (its SHA-256 in the
  record, :data:`RECORD`): a file someone edited is **never overwritten**; its difference from
  what setup would write is shown (a unified diff; a secret's is not) and it is left as it is;
- a **link** is made (a symbolic link, for ``tablectl`` on the PATH);
- a **command** runs when one of the files it follows was written in this run, or when its own
  test (``needed``) says its work is not done; one that needs a running systemd or udev is
  said and skipped where there is none (a container, ``--root``): the run then ends with
  :data:`EXIT_NOT_APPLIED`;
- a **step** is a function of setup's own (the floor's first user).

``--dry-run`` walks the same plan with the same tests and writes nothing: what it lists is what
the real run would write and run, in order. ``--root DIR`` puts every path under DIR, as
systemd's own tools do (their ``--root=`` is passed on to them).

Exit status of both commands (docs/install.md): 0 everything done; 1 a command failed, or a
file was refused by its check; 2 bad input (an option, the answers file, a bundle); 3 done,
but some commands need a running systemd or udev, which this system has not (said one by one).
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import pwd
import grp
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, TextIO

from controller.config.writer import Stat, write_file

EXIT_OK, EXIT_FAILED, EXIT_INPUT, EXIT_NOT_APPLIED = 0, 1, 2, 3
#: what setup last wrote, by setup and path: {"table": {"/etc/...": "sha256"}, "floor": {...}}
RECORD = "/var/lib/tablectl-setup/written.json"


class SetupError(Exception):
    """Bad input (exit status 2): the message names the option, key or file."""


@dataclass(frozen=True)
class Folder:
    path: str
    mode: int
    user: str = "root"
    group: str = "root"
    what: str = ""


@dataclass(frozen=True)
class File:
    path: str
    #: the bytes, or a function giving them when the runner reaches the file (made by a step
    #: before it: None when that step has not run, in a dry run)
    content: bytes | Callable[[], bytes | None]
    mode: int
    user: str = "root"
    group: str = "root"
    what: str = ""
    #: reads the temporary file before it replaces anything; raises to refuse it
    check: Callable[[Path], None] | None = None
    #: its content is never shown (a password, a key)
    secret: bool = False
    #: kept by ``--remove`` unless ``--purge`` (the configuration, the room's secrets)
    keep_on_remove: bool = False
    #: for a file edited since setup wrote it: the file with setup's own part of it put right (the
    #: configuration's ``[room]``, from the bundle given), every other line as it is; None: the
    #: edited file is kept whole. ``merge_what`` names that part.
    merge: Callable[[bytes], bytes] | None = None
    merge_what: str = ""


@dataclass(frozen=True)
class Link:
    path: str
    target: str
    what: str = ""


@dataclass(frozen=True)
class Command:
    argv: tuple[str, ...]
    what: str = ""
    #: run when one of these paths was written (or its owner or mode put right) in this run
    after: tuple[str, ...] = ()
    #: or when this says the work is not done (None: only ``after`` decides; no ``after``: always)
    needed: Callable[[], bool] | None = None
    #: "systemd" (PID 1) or "udev" (a running udevd), else "" (runs anywhere, --root included)
    needs: str = ""


@dataclass(frozen=True)
class Step:
    """A step of setup's own: ``run(dry, changed)`` (``changed``: the paths written so far in this
    run) returns what it did (or would do), "" for nothing."""

    what: str
    run: Callable[[bool, set[str]], str]


Item = Folder | File | Link | Command | Step


@dataclass
class Outcome:
    """What a run did: the paths written, the commands run, what could not be applied, what failed."""

    written: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    not_applied: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)

    @property
    def status(self) -> int:
        if self.failed:
            return EXIT_FAILED
        return EXIT_NOT_APPLIED if self.not_applied else EXIT_OK


class Target:
    """The system being set up: ``/`` or a folder standing for it (``--root``)."""

    def __init__(self, root: str | Path = "/") -> None:
        self.root = Path(root).resolve()

    @property
    def real(self) -> bool:
        return self.root == Path("/")

    def path(self, path: str) -> Path:
        """``/etc/x`` as it is on this target."""
        return self.root / path.lstrip("/")

    def root_args(self) -> tuple[str, ...]:
        """``--root=DIR`` for systemd's tools, when not ``/``."""
        return () if self.real else (f"--root={self.root}",)

    def systemd_running(self) -> bool:
        """systemd is PID 1 here (sd_booted(3): /run/systemd/system exists); never under --root."""
        return self.real and Path("/run/systemd/system").is_dir()

    def udev_running(self) -> bool:
        return self.real and Path("/run/udev/control").exists()

    def uid(self, user: str) -> int | None:
        return self._id(user, "passwd", pwd.getpwnam, "pw_uid")

    def gid(self, group: str) -> int | None:
        return self._id(group, "group", grp.getgrnam, "gr_gid")

    def _id(self, name: str, table: str, lookup: Callable[[str], Any], attr: str) -> int | None:
        if name == "root":
            return 0
        if self.real:
            try:
                return int(getattr(lookup(name), attr))
            except KeyError:
                return None
        try:  # (an alternate root's own /etc/passwd and /etc/group, as systemd-sysusers --root writes them)
            for line in self.path(f"/etc/{table}").read_text().splitlines():
                parts = line.split(":")
                if len(parts) > 2 and parts[0] == name:
                    return int(parts[2])
        except (OSError, ValueError):
            pass
        return None


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_record(target: Target) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(target.path(RECORD).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def record_bytes(record: dict[str, dict[str, str]]) -> bytes:
    return (json.dumps(record, indent=1, sort_keys=True) + "\n").encode()


def diff(old: bytes, new: bytes, path: str) -> str:
    """The unified difference between the file as it is and what setup would write."""
    a = old.decode("utf-8", "replace").splitlines(keepends=True)
    b = new.decode("utf-8", "replace").splitlines(keepends=True)
    return "".join(difflib.unified_diff(a, b, f"{path} (as it is)", f"{path} (what setup would write)"))


def _mode(m: int) -> str:
    return f"{m:04o}"


class Runner:
    """Carries a plan out on a target, or (``dry``) only says what it would do, line by line."""

    def __init__(self, target: Target, name: str, *, dry: bool = False, out: TextIO = sys.stdout,
                 run: Callable[[Sequence[str]], subprocess.CompletedProcess[str]] | None = None) -> None:
        self.target, self.name, self.dry, self.out = target, name, dry, out
        self.outcome = Outcome()
        self.changed: set[str] = set()
        self.record = read_record(target)
        self.mine = dict(self.record.get(name, {}))
        self._run = run or (lambda argv: subprocess.run(list(argv), capture_output=True, text=True, timeout=300))

    def say(self, verb: str, text: str) -> None:
        print(f"  {verb:<12} {text}", file=self.out, flush=True)

    def _would(self, verb: str) -> str:
        return f"would {verb}" if self.dry else verb

    # -- items --------------------------------------------------------------------------------

    def folder(self, f: Folder) -> None:
        p = self.target.path(f.path)
        uid, gid = self.target.uid(f.user), self.target.gid(f.group)
        if not p.is_dir():
            self.say(self._would("make"), f"{f.path}/  ({f.user}:{f.group} {_mode(f.mode)}) {f.what}".rstrip())
            self.changed.add(f.path)
            if self.dry:
                return
            p.mkdir(parents=True, exist_ok=True)
            self.outcome.written.append(f.path + "/")
        self._owner_mode(p, f.path, uid, gid, f.mode, f.user, f.group, fresh=f.path in self.changed)

    def _owner_mode(self, p: Path, shown: str, uid: int | None, gid: int | None, mode: int, user: str, group: str,
                    *, fresh: bool) -> None:
        """Put the owner and mode right; say so unless the path was made in this run."""
        if self.dry and not p.exists():
            return
        st = Stat.of(p)
        want_uid = st.uid if uid is None else uid
        want_gid = st.gid if gid is None else gid
        if (st.uid, st.gid, st.mode) == (want_uid, want_gid, mode):
            if uid is None or gid is None:
                self._unknown(shown, user, group, uid, gid)
            return
        if not fresh:
            self.say(self._would("set"), f"{shown}  {user}:{group} {_mode(mode)} (was {st.uid}:{st.gid} "
                                         f"{_mode(st.mode)})")
            self.changed.add(shown)
        if self.dry:
            return
        if (st.uid, st.gid) != (want_uid, want_gid):
            os.chown(p, want_uid, want_gid)
        os.chmod(p, mode)
        if not fresh:
            self.outcome.written.append(shown)
        if uid is None or gid is None:
            self._unknown(shown, user, group, uid, gid)

    def _unknown(self, shown: str, user: str, group: str, uid: int | None, gid: int | None) -> None:
        missing = user if uid is None else group
        if self.dry:
            return
        self.outcome.not_applied.append(f"{shown}: owner {user}:{group}: {missing} does not exist here")
        self.say("not applied", f"{shown}: owner {user}:{group}: {missing} does not exist (yet) on this system")

    def file(self, f: File) -> None:
        p = self.target.path(f.path)
        uid, gid = self.target.uid(f.user), self.target.gid(f.group)
        label = f"{f.path}  ({f.user}:{f.group} {_mode(f.mode)}) {f.what}".rstrip()
        content = f.content() if callable(f.content) else f.content
        if content is None:  # (made by a step that a dry run did not run)
            self.say(self._would("write"), label)
            self.changed.add(f.path)
            if not self.dry:
                self.outcome.failed.append(f"{f.path}: not made")
                self.say("FAILED", f"{f.path}: not made by the step before it")
            return
        f = replace(f, content=content)
        try:
            old: bytes | None = p.read_bytes()
        except FileNotFoundError:
            old = None
        if old == f.content:
            self.mine[f.path] = sha(f.content)
            self._owner_mode(p, f.path, uid, gid, f.mode, f.user, f.group, fresh=False)
            if f.path not in self.changed:
                self.say("same", f.path)
            return
        if old is not None and self.mine.get(f.path) != sha(old):
            if f.merge is not None and not f.secret:
                old = self._merge(f, p, old, uid, gid)
                if old == f.content:
                    return
            self.outcome.kept.append(f.path)
            if f.secret:
                self.say("kept", f"{f.path}: not what setup wrote (a secret: its difference is not shown); "
                                 f"left as it is")
            else:
                self.say("kept", f"{f.path}: edited since setup wrote it (or not setup's): left as it is; the "
                                 f"difference from what setup would write:")
                print(diff(old, f.content, f.path), end="", file=self.out)
            return
        self.say(self._would("write"), label)
        self.changed.add(f.path)
        if self.dry:
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        try:
            write_file(p, f.content, mode=f.mode, uid=uid, gid=gid, check=f.check, only_if_changed=False)
        except Exception as exc:  # (the check's refusal: a configuration that does not load)
            self.changed.discard(f.path)
            self.outcome.failed.append(f"{f.path}: {exc}")
            self.say("FAILED", f"{f.path}: not written: {exc}")
            return
        self.mine[f.path] = sha(f.content)
        self.outcome.written.append(f.path)
        if uid is None or gid is None:
            self._unknown(f.path, f.user, f.group, uid, gid)

    def _merge(self, f: File, p: Path, old: bytes, uid: int | None, gid: int | None) -> bytes:
        """Put setup's own part of an edited file right (``f.merge``), the rest as it is; the
        file stays the technician's (its SHA-256 is not recorded: a later run never replaces it
        whole). Returns the file as it now is (as it would be, in a dry run)."""
        assert f.merge is not None and isinstance(f.content, bytes)
        merged = f.merge(old)
        if merged == old:
            return old
        self.say(self._would("put"), f"{f.path}: {f.merge_what}, the rest of the file as it is (edited since setup "
                                     f"wrote it):")
        print(diff(old, merged, f.path), end="", file=self.out)
        self.changed.add(f.path)
        if self.dry:
            return merged
        try:
            write_file(p, merged, mode=f.mode, uid=uid, gid=gid, check=f.check, only_if_changed=False)
        except Exception as exc:  # (the check's refusal: a configuration that does not load)
            self.changed.discard(f.path)
            self.outcome.failed.append(f"{f.path}: {exc}")
            self.say("FAILED", f"{f.path}: {f.merge_what}: not written: {exc}")
            return old
        self.outcome.written.append(f.path)
        return merged

    def link(self, link: Link) -> None:
        p = self.target.path(link.path)
        if p.is_symlink() and os.readlink(p) == link.target:
            self.say("same", f"{link.path} -> {link.target}")
            return
        if p.exists() or p.is_symlink():
            self.outcome.kept.append(link.path)
            self.say("kept", f"{link.path}: there already, not a link to {link.target}: left as it is")
            return
        self.say(self._would("link"), f"{link.path} -> {link.target}  {link.what}".rstrip())
        self.changed.add(link.path)
        if self.dry:
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        os.symlink(link.target, p)
        self.outcome.written.append(link.path)

    def command(self, c: Command) -> None:
        due = any(a in self.changed for a in c.after) or (c.needed is not None and c.needed()) \
            or (not c.after and c.needed is None)
        if not due:
            return
        shown = " ".join(c.argv)
        unavailable = {"systemd": not self.target.systemd_running(), "udev": not self.target.udev_running()}
        if c.needs and unavailable[c.needs]:
            why = ("--root: not run on this system" if not self.target.real
                   else "systemd is not PID 1 here" if c.needs == "systemd" else "no udev daemon runs here")
            self.say("not applied", f"{shown}  ({why})")
            if not self.dry:
                self.outcome.not_applied.append(f"{shown}: {why}")
            return
        self.say(self._would("run"), f"{shown}  {c.what}".rstrip())
        if self.dry:
            return
        try:
            r = self._run(c.argv)
        except (OSError, subprocess.SubprocessError) as exc:
            self.outcome.failed.append(f"{shown}: {exc}")
            self.say("FAILED", f"{shown}: {exc}")
            return
        if r.returncode != 0:
            last = (r.stderr or r.stdout or "").strip().splitlines()
            self.outcome.failed.append(f"{shown}: exit status {r.returncode}")
            self.say("FAILED", f"{shown}: exit status {r.returncode}: {last[-1] if last else ''}")
            return
        self.outcome.ran.append(shown)

    def step(self, s: Step) -> None:
        try:
            said = s.run(self.dry, self.changed)
        except (ValueError, OSError) as exc:
            self.outcome.failed.append(f"{s.what}: {exc}")
            self.say("FAILED", f"{s.what}: {exc}")
            return
        if said:
            self.say(self._would("do") if self.dry else "done", said)
            if not self.dry:
                self.outcome.ran.append(said)

    # -- the whole plan -----------------------------------------------------------------------

    def carry_out(self, plan: Sequence[Item]) -> Outcome:
        for item in plan:
            if isinstance(item, Folder):
                self.folder(item)
            elif isinstance(item, File):
                self.file(item)
            elif isinstance(item, Link):
                self.link(item)
            elif isinstance(item, Command):
                self.command(item)
            else:
                self.step(item)
        self.save_record()
        return self.outcome

    def save_record(self) -> None:
        record = dict(self.record)
        record[self.name] = self.mine
        data = record_bytes(record)
        p = self.target.path(RECORD)
        try:
            same = p.read_bytes() == data
        except OSError:
            same = False
        if same:
            return
        self.say(self._would("write"), f"{RECORD}  (root:root 0644) what setup wrote, to tell an edited file")
        if self.dry:
            return
        p.parent.mkdir(parents=True, exist_ok=True)
        write_file(p, data, mode=0o644, uid=0 if os.geteuid() == 0 else None, gid=0 if os.geteuid() == 0 else None)
        self.outcome.written.append(RECORD)


def remove(target: Target, name: str, plan: Sequence[Item], *, purge: bool, dry: bool, out: TextIO = sys.stdout,
           commands: Sequence[Command] = ()) -> Outcome:
    """Undo ``plan``: its files (those kept on removal only with ``purge``), links and then its
    empty folders; an edited file is left, and said. ``commands`` run first (stop and disable)."""
    runner = Runner(target, name, dry=dry, out=out)
    for c in commands:
        runner.command(c)
    folders = []
    for item in plan:
        if isinstance(item, Folder):
            folders.append(item)
            continue
        if not isinstance(item, (File, Link)):
            continue
        p = target.path(item.path)
        if not (p.exists() or p.is_symlink()):
            continue
        if isinstance(item, File):
            if item.keep_on_remove and not purge:
                runner.say("kept", f"{item.path}  (yours: --purge removes it)")
                continue
            if not purge and runner.mine.get(item.path) != sha(p.read_bytes()):
                runner.say("kept", f"{item.path}: edited since setup wrote it: left as it is")
                runner.outcome.kept.append(item.path)
                continue
        elif not (p.is_symlink() and os.readlink(p) == item.target):
            continue
        runner.say(runner._would("remove"), item.path)
        if not dry:
            p.unlink()
            runner.mine.pop(item.path, None)
            runner.outcome.written.append(item.path)
    for f in reversed(folders):
        p = target.path(f.path)
        if p.is_dir() and not any(p.iterdir()) and f.path not in ("/etc/sysusers.d", "/etc/tmpfiles.d"):
            runner.say(runner._would("remove"), f.path + "/")
            if not dry:
                p.rmdir()
    runner.save_record()
    return runner.outcome
