"""scripts/bootstrap asks apt only for what the machine needs and lacks (issue 41: run by
rig/install_container.py on Debian without a Pi, its second run ran ``apt-get update`` again,
because ``python3-lgpio``, which only a Pi needs, was never installed there). A second run on an
installed host runs no apt-get at all; ``python3-lgpio`` is wanted on a Raspberry Pi only.

The script's functions are sourced (its ``main`` runs only when it is run) into bash with a PATH
of test doubles: ``dpkg -s`` answers from a list of installed packages, ``apt-get install`` adds
to it, and every apt-get and apt-cache call is written down. The oracle is the issue's: no
apt-get on the second run."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from rig.paths import ROOT

BASH = shutil.which("bash") or "/bin/bash"
#: the test doubles: dpkg -s from the list; apt-get and apt-cache written down, apt-get install
#: adding to the list; apt-cache show finding what the machine's archive has (python3-lgpio only
#: in a Pi's: Raspberry Pi OS)
FAKES = {
    "dpkg": '''#!/bin/bash
if [[ $1 == -s ]] && grep -qx "$2" "$STATE/installed"; then
    echo "Package: $2"; echo "Status: install ok installed"; exit 0
fi
echo "dpkg-query: package '$2' is not installed" >&2; exit 1
''',
    "apt-get": '''#!/bin/bash
echo "apt-get $*" >>"$STATE/calls"
if [[ $1 == install ]]; then
    for p in "${@:2}"; do [[ $p == -* ]] || echo "$p" >>"$STATE/installed"; done
fi
''',
    "apt-cache": '''#!/bin/bash
echo "apt-cache $*" >>"$STATE/calls"
[[ $1 == show ]] && grep -qx "$2" "$STATE/archive"
''',
}


@pytest.fixture
def machine(tmp_path: Path):
    """A blank machine of test doubles: ``run(model)`` runs the bootstrap's package step (its
    functions sourced, ``model`` the device tree's model, or none; a Pi's archive has
    python3-lgpio) and returns what it said and the apt calls it made."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in FAKES.items():
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    for tool in ("grep",):  # (the real ones the script uses; nothing else of the host's on PATH, so
        os.symlink(shutil.which(tool) or f"/bin/{tool}", bin_ / tool)  # no git or openssl is found there)
    state = tmp_path / "state"
    state.mkdir()
    (state / "installed").write_text("")

    def run(model: str | None = None) -> tuple[str, list[str]]:
        (state / "calls").write_text("")
        (state / "archive").write_text("python3-venv\ngit\ni2c-tools\nopenssl\n"
                                       + ("python3-lgpio\n" if model and "Raspberry Pi" in model else ""))
        model_file = tmp_path / "model"
        if model is not None:
            model_file.write_bytes(model.encode() + b"\0")  # (as the kernel gives it: NUL-terminated)
        script = (f'source {ROOT / "scripts/bootstrap"}\nMODEL_FILES=({model_file})\n'
                  f'install_packages "${{PACKAGES[@]}}"\n')
        r = subprocess.run([BASH, "-c", script], capture_output=True, text=True, timeout=60,
                           env={"PATH": str(bin_), "STATE": str(state)})
        assert r.returncode == 0, r.stderr
        return r.stderr, (state / "calls").read_text().splitlines()

    return run


def test_a_second_run_on_an_installed_machine_that_is_no_pi_runs_no_apt_get(machine):
    said, calls = machine()
    assert calls == ["apt-get update -q", "apt-get install -y -q python3-venv git i2c-tools openssl"]
    assert "python3-lgpio" not in said  # (not wanted here: not even looked for in the archive)
    said, calls = machine()
    assert calls == []
    assert "bootstrap: system packages: all there (python3-venv git i2c-tools openssl)" in said


def test_on_a_raspberry_pi_python3_lgpio_is_installed_too_then_left_alone(machine):
    pi = "Raspberry Pi 4 Model B Rev 1.4"
    said, calls = machine(pi)
    assert calls == ["apt-get update -q", "apt-cache show python3-lgpio",
                     "apt-get install -y -q python3-venv git i2c-tools openssl python3-lgpio"]
    said, calls = machine(pi)
    assert calls == []
    assert "all there (python3-venv git i2c-tools openssl python3-lgpio)" in said
    # a board of another make is no Pi
    said, calls = machine("Hardkernel ODROID-C4")
    assert calls == []
