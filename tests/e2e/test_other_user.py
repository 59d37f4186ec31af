"""The code uid 65534 runs (rig/other_user.py, issue 37): the clone's own files, from a venv
that uid can read wherever the clone is, and nothing more than that uid may read."""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from rig.other_user import (NOBODY, PACKAGES, SHARED_TEMP, direct_dependencies, import_names,
                            interpreter_for_others, others_may_reach, runtime_distributions)
from rig.paths import ROOT


@pytest.fixture
def shared() -> Iterator[Path]:
    """A 0755 folder in /tmp, as the other user's copies are (tmp_path is under a 0700 root)."""
    d = Path(tempfile.mkdtemp(prefix="tablectl-other-user-test-", dir=SHARED_TEMP))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d)


def test_the_other_user_imports_the_code_and_its_dependencies_from_the_copy_only(other_user_code):
    deps = import_names(direct_dependencies())
    assert {"serial", "aiohttp", "paho", "cryptography"} <= set(deps)
    got = other_user_code.probe(*PACKAGES, "controller.cli.main", "controller.daemon.main", *deps)
    assert {n: Path(f).is_relative_to(other_user_code.site) for n, f in got["files"].items()} == \
        dict.fromkeys(got["files"], True)
    assert got["prefix"] == str(other_user_code.python.parent.parent) and got["version"] == list(sys.version_info[:2])
    # neither the clone nor its venv: what another uid imports is the copy, whatever its working folder
    assert not [p for p in got["path"] if p in ("", ".") or Path(p).is_relative_to(ROOT)], got["path"]


def test_the_copy_is_the_clones_packages_byte_for_byte(other_user_code):
    def sources(top: Path) -> dict[str, bytes]:
        return {str(f.relative_to(top)): f.read_bytes() for package in PACKAGES for f in (top / package).rglob("*")
                if f.is_file() and "__pycache__" not in f.parts}

    clone, copy = sources(ROOT), sources(other_user_code.site)
    assert "controller/cli/main.py" in clone and "controller/floor/static" in {str(Path(k).parent) for k in clone}
    assert sorted(copy) == sorted(clone)
    assert [k for k in clone if copy[k] != clone[k]] == []


def test_the_copy_is_within_the_other_users_reach_outside_pytests_temporary_root(other_user_code,
                                                                                tmp_path_factory):
    folder = other_user_code.folder
    assert not folder.is_relative_to(tmp_path_factory.getbasetemp().parent)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o755 and folder.stat().st_uid == os.geteuid()
    files = [f for f in folder.rglob("*") if f.is_file()]
    assert len(files) > 1000  # (the packages and the dependencies' own files)
    assert [f for f in files if not others_may_reach(f)] == []
    assert others_may_reach(other_user_code.python)


def test_the_other_user_is_given_nothing_but_the_copy(other_user_code, tmp_path, shared):
    """No capability kept (the tests that use the copy test what that uid may not do), and no way
    to write the copy."""
    private = shared / "root-only"
    private.write_text("As Kd\n")
    private.chmod(0o600)
    code = ("import json, sys\n"
            "def can(f):\n"
            "    try:\n        f()\n    except PermissionError:\n        return False\n    return True\n"
            "caps = [l.split()[1] for l in open('/proc/self/status') if l.startswith('CapEff')]\n"
            "print(json.dumps({'caps': caps, 'read': can(lambda: open(sys.argv[1]).read()),\n"
            "                  'list': can(lambda: __import__('os').listdir(sys.argv[2])),\n"
            "                  'write': can(lambda: open(sys.argv[3], 'a'))}))\n")
    r = subprocess.run(other_user_code.command("-c", code, str(private), str(tmp_path),
                                               str(other_user_code.site / "controller" / "__init__.py")),
                       capture_output=True, text=True, timeout=60, cwd="/", check=False)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"caps": ["0000000000000000"], "read": False, "list": False, "write": False}


def test_others_may_reach_a_file_only_through_folders_they_may_search(shared):
    inner = shared / "inner"
    inner.mkdir(mode=0o755)
    f = inner / "f"
    f.write_text("")
    f.chmod(0o644)
    assert others_may_reach(f)
    f.chmod(0o640)
    assert not others_may_reach(f)  # (the group's bits are not the other user's)
    f.chmod(0o744)
    assert not others_may_reach(f)  # executable, but not by others
    f.chmod(0o755)
    assert others_may_reach(f)
    link = shared / "link"
    link.symlink_to(f)
    assert others_may_reach(link)
    inner.chmod(0o700)
    assert not others_may_reach(f) and not others_may_reach(link)  # a folder above the target is closed
    inner.chmod(0o755)
    hidden = shared / "hidden"
    hidden.mkdir(mode=0o700)
    (hidden / "link").symlink_to(f)
    assert not others_may_reach(hidden / "link")  # the link's own folder is closed


def test_an_interpreter_out_of_reach_gives_way_to_one_of_the_same_version(other_user_code, shared):
    name = f"python{sys.version_info.major}.{sys.version_info.minor}"
    real = other_user_code.python.resolve()
    hidden = shared / "hidden"
    hidden.mkdir(mode=0o700)
    (hidden / name).symlink_to(real)  # as pyenv's under /root
    wrong, right = shared / "wrong", shared / "right"
    for d in (wrong, right):
        d.mkdir(mode=0o755)
    (wrong / name).write_text("#!/bin/sh\necho 2 7\n")  # another version under the same name
    (wrong / name).chmod(0o755)
    (right / name).symlink_to(real)
    assert interpreter_for_others(hidden / name, [str(hidden), str(wrong), str(right)]) == right / name
    assert interpreter_for_others(right / name, []) == right / name  # within reach: itself
    with pytest.raises(RuntimeError, match=f"no {name} that uid {NOBODY} may run: .*apt-get install {name}"):
        interpreter_for_others(hidden / name, [str(hidden), str(wrong)])


def test_the_copy_holds_the_run_time_dependencies_and_no_extras():
    names = {d.metadata["Name"].lower() for d in runtime_distributions()}
    assert {"pyserial", "gpiozero", "paho-mqtt", "aiohttp", "argon2-cffi", "pokerkit", "cryptography"} <= names
    assert {"multidict", "cffi"} <= names  # (theirs too)
    assert not names & {"pytest", "rich", "playwright", "pillow", "mypy", "lgpio"}  # the extras' are left out
