"""The code under test, where another user can run it: for the tests that run ``tablectl`` or a
client as uid 65534 (``setpriv``), because root ignores file modes (issue 37).

Why a copy. The clone may sit in any folder: under ``/root`` or a home folder (0700 on Debian 12),
or in ``mktemp -d`` (0700). Its ``.venv`` and its packages are then out of another user's reach, and
``setpriv`` hides it: it changes the uid keeping root's capabilities until ``execve``, so the
venv's ``python`` still starts as 65534, then finds neither its ``pyvenv.cfg`` nor the code
(``ModuleNotFoundError: No module named 'controller'``). What was weighed:

- opening the path to the clone (``chmod o+x`` or an ACL on every folder above it) changes the
  user's own folders, ``/root`` among them: never a test's business;
- letting the other user keep ``CAP_DAC_READ_SEARCH`` would let it read what the tests check it
  cannot: the probes would prove nothing;
- a bind mount needs a mount namespace around every command, and is Linux-and-root-only twice;
- an installed copy (``pip install`` into another folder) could be an older build, and needs an index.

So, once per session (per pytest-xdist worker), a folder of mode 0755 in ``/tmp`` (pytest's own
temporary root is 0700, and is where the tests' other files go) holds a virtual environment that
the other user can read: the three packages copied from this clone as they are now (the files
under test, byte for byte, with their bytecode compiled), and the distributions ``tablectl``
needs at run time (its ``[project] dependencies`` and theirs, extras left out) copied from the
tests' own environment: no index, no older copy. Its interpreter is the tests' own Python when the
other user can reach it, else a system one of the same version (``pyenv`` under ``/root``: Debian's
``/usr/bin/python3.11``). Commands run with ``-I`` (isolated): no working folder, no
``PYTHONPATH``, no user site on ``sys.path``, so what is imported is the copy and nothing else.
Before any test uses it, the other user imports everything from it (:meth:`OtherUserCode.check`):
a machine where that cannot work fails there, saying why, rather than in every test. The folder
is removed at the end of the session.

>>> setpriv(uid=65532, gid=65532, groups=(65533,))
['setpriv', '--reuid=65532', '--regid=65532', '--groups=65533']
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from rig.paths import ROOT

#: the unprivileged uid (and its own group) the tests run as when permissions are the point
NOBODY = 65534
#: the packages under test, copied as they are in the clone
PACKAGES = ("controller", "firmware_bridge", "hw_sim")
#: the distribution whose run-time dependencies the other user needs (pyproject's [project] name)
DISTRIBUTION = "tablectl"
#: where the copies go: /tmp (1777), not pytest's temporary root (0700 root) nor $TMPDIR (maybe 0700)
SHARED_TEMP = Path("/tmp")

# What the other user runs to show where it imports from (a copy's own check and its test).
PROBE = r"""
import importlib, json, sys
names = sys.argv[1:]
print(json.dumps({"prefix": sys.prefix, "version": list(sys.version_info[:2]), "path": sys.path,
                  "files": {n: importlib.import_module(n).__file__ for n in names}}))
"""


def setpriv(*, uid: int = NOBODY, gid: int = NOBODY, groups: Sequence[int] = ()) -> list[str]:
    """The command prefix that runs what follows as ``uid``:``gid`` with exactly ``groups``
    (none: ``--clear-groups``); the umask is the caller's."""
    ids = [f"--reuid={uid}", f"--regid={gid}"]
    return ["setpriv", *ids, f"--groups={','.join(map(str, groups))}" if groups else "--clear-groups"]


def others_may_reach(path: Path) -> bool:
    """Whether a user that is neither the owner nor in the group (uid 65534, no groups) may
    read ``path`` (and run it if it is executable): every folder above it searchable by others,
    the link's folders and its target's both (a symlink is followed from where it is)."""
    for p in {Path(os.path.abspath(path)), path.resolve()}:
        if any(not os.stat(folder).st_mode & stat.S_IXOTH for folder in p.parents):
            return False
    mode = os.stat(path).st_mode
    wanted = stat.S_IROTH | (stat.S_IXOTH if mode & (stat.S_IXUSR | stat.S_IXGRP) else 0)
    return mode & wanted == wanted


def interpreter_for_others(base: Path | None = None, search: Iterable[str] | None = None) -> Path:
    """A Python of this one's version the other user can run: ``base`` (the tests' own, under
    their venv) if it and its standard library are within reach, else the first ``pythonX.Y``
    within reach on ``search`` (the PATH, then the usual system folders), checked to be X.Y."""
    if base is None:
        base = Path(getattr(sys, "_base_executable", sys.executable))
        stdlib = Path(os.__file__).parent
        if others_may_reach(base) and others_may_reach(stdlib / "os.py"):
            return base
    elif others_may_reach(base):
        return base
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    folders = list(search) if search is not None else [
        *os.environ.get("PATH", "").split(os.pathsep), "/usr/local/bin", "/usr/bin", "/bin"]
    for folder in folders:
        candidate = Path(folder or ".", name)
        if not candidate.is_file() or not others_may_reach(candidate):
            continue
        r = subprocess.run([str(candidate), "-I", "-c", "import sys; print(*sys.version_info[:2])"],
                           capture_output=True, text=True, timeout=60, check=False)
        if r.returncode == 0 and r.stdout.split() == [str(sys.version_info.major), str(sys.version_info.minor)]:
            return candidate
    raise RuntimeError(f"no {name} that uid {NOBODY} may run: {base} is out of its reach (a folder above it is "
                       f"not searchable by others) and none is on {folders}; the tests that run as another user "
                       f"need one (on Debian: apt-get install {name})")


def _runtime_requirements(dist: importlib.metadata.Distribution) -> list[str]:
    """The names ``dist`` requires at run time here: its ``Requires-Dist`` without an extra's
    (test, demo, pi, display), markers evaluated for this interpreter."""
    reqs = [Requirement(r) for r in dist.requires or []]
    return [canonicalize_name(r.name) for r in reqs if r.marker is None or r.marker.evaluate({"extra": ""})]


def direct_dependencies(name: str = DISTRIBUTION) -> list[importlib.metadata.Distribution]:
    """What ``name`` itself requires at run time, as installed here."""
    return [importlib.metadata.distribution(r) for r in _runtime_requirements(importlib.metadata.distribution(name))]


def runtime_distributions(name: str = DISTRIBUTION) -> list[importlib.metadata.Distribution]:
    """``name``'s dependencies at run time and theirs, as installed here."""
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = _runtime_requirements(importlib.metadata.distribution(name))
    while todo:
        key = todo.pop()
        if key not in found:
            found[key] = importlib.metadata.distribution(key)
            todo += _runtime_requirements(found[key])
    return [found[k] for k in sorted(found)]


def import_names(dists: Iterable[importlib.metadata.Distribution]) -> list[str]:
    """The public top-level modules the distributions install (``pyserial``: ``serial``)."""
    wanted = {canonicalize_name(d.metadata["Name"]) for d in dists}
    return sorted(module for module, owners in importlib.metadata.packages_distributions().items()
                  if not module.startswith("_") and wanted & {canonicalize_name(o) for o in owners})


def _copy_distribution(dist: importlib.metadata.Distribution, site: Path) -> None:
    """The files a distribution installed into site-packages (its RECORD), mtimes kept so that
    its bytecode stays valid; scripts installed elsewhere (``../../bin``) are not needed."""
    if dist.files is None:
        raise RuntimeError(f"{dist.metadata['Name']} has no RECORD: its files cannot be copied")
    for f in dist.files:
        if f.parts and f.parts[0] == "..":
            continue
        src = Path(str(dist.locate_file(f)))
        if not src.is_file():
            continue  # (a RECORD may name bytecode never written)
        dst = site / f
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)


def _open_to_others(folder: Path) -> None:
    """Folders 0755, files 0644 (0755 if executable), whatever the clone's umask made them; a
    symlink is left alone (chmod would follow it: the venv's python is the system's)."""
    for path in [folder, *folder.rglob("*")]:
        if path.is_symlink():
            continue
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode) or mode & stat.S_IXUSR:
            path.chmod(0o755)
        else:
            path.chmod(0o644)


@dataclass(frozen=True)
class OtherUserCode:
    """A venv another user can run the code under test from (the module's docstring says why)."""

    folder: Path
    python: Path  # the venv's interpreter
    site: Path  # its site-packages: the copies

    def command(self, *args: str, uid: int = NOBODY, gid: int = NOBODY, groups: Sequence[int] = ()) -> list[str]:
        """``python -I args`` as ``uid`` (see :func:`setpriv`)."""
        return [*setpriv(uid=uid, gid=gid, groups=groups), str(self.python), "-I", *args]

    def tablectl(self, *args: str, uid: int = NOBODY, gid: int = NOBODY, groups: Sequence[int] = ()) -> list[str]:
        """``tablectl args`` as ``uid``: the CLI by module, as tests.conftest.TABLECTL runs it."""
        return self.command("-m", "controller.cli.main", *args, uid=uid, gid=gid, groups=groups)

    def probe(self, *modules: str, uid: int = NOBODY) -> dict[str, Any]:
        """As ``uid``, from ``/``: the interpreter's prefix, version, ``sys.path`` and the file
        each module was imported from."""
        r = subprocess.run(self.command("-c", PROBE, *modules, uid=uid), capture_output=True, text=True,
                           timeout=60, cwd="/", check=False, env={"PATH": os.environ.get("PATH", "")})
        if r.returncode != 0:
            raise RuntimeError(f"uid {uid} cannot import {modules} from {self.site}: {r.stderr.strip()}")
        return dict(json.loads(r.stdout))

    def check(self) -> None:
        """The other user imports the packages and ``tablectl``'s direct dependencies from the
        copy, on this Python's version: else the session stops here, saying why."""
        got = self.probe(*PACKAGES, *import_names(direct_dependencies()))
        outside = {n: f for n, f in got["files"].items() if not Path(f).is_relative_to(self.site)}
        if outside or got["version"] != list(sys.version_info[:2]):
            raise RuntimeError(f"uid {NOBODY} imports {outside} from outside {self.site}, "
                               f"Python {got['version']}")


def make_other_user_code(folder: Path) -> OtherUserCode:
    """Build the venv in ``folder`` (empty; made 0755): see the module's docstring."""
    interpreter = interpreter_for_others()
    venv = folder / "venv"
    subprocess.run([str(interpreter), "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True,
                   timeout=120)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-I", "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               check=True, capture_output=True, text=True, timeout=60).stdout.strip())
    for package in PACKAGES:
        # (the bytecode too, mtimes kept: what the tests' own runs compiled stays valid)
        shutil.copytree(ROOT / package, site / package, copy_function=shutil.copy2)
    for dist in runtime_distributions():
        _copy_distribution(dist, site)
    # the other user cannot write here: compiled now, once, rather than at every start of the daemon
    subprocess.run([str(python), "-I", "-m", "compileall", "-q", *(str(site / p) for p in PACKAGES)],
                   check=True, capture_output=True, timeout=300)
    _open_to_others(folder)
    return OtherUserCode(folder=folder, python=python, site=site)


@pytest.fixture(scope="session")
def other_user_code() -> Iterator[OtherUserCode]:
    """The session's :class:`OtherUserCode` (one a pytest-xdist worker), checked, removed at the end."""
    folder = Path(tempfile.mkdtemp(prefix="tablectl-other-user-", dir=SHARED_TEMP))
    try:
        code = make_other_user_code(folder)
        code.check()
        yield code
    finally:
        shutil.rmtree(folder, ignore_errors=True)
