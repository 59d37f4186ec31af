"""A non-editable install (the wheel ``pip install .`` builds) holds the three packages and their
data: the floor's page (``controller/floor/static``) and the display's words
(``controller/core/display_text.toml``). The editable install of the suite reads them from the
source tree, so only an installed wheel shows that the package data moved with the code."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from rig.broker import Broker, have_mosquitto
from rig.floor import FloorProc
from rig.paths import ROOT
from rig.waiting import PATIENCE


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The wheel built from a copy of this checkout's sources, installed (without dependencies:
    the suite's environment has them) into a folder of its own. A copy, because setuptools reads
    the editable install's ``*.egg-info`` list of files in the checkout: a wheel built there could
    hold the data even with pyproject's package-data wrong."""
    where = tmp_path_factory.mktemp("wheel")
    src = where / "src"
    for name in ("controller", "firmware_bridge", "hw_sim"):
        shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, src / name)
    # built as ``pip wheel --no-build-isolation`` builds it (PEP 517): pyproject's build-backend, from
    # this environment, asked for a wheel in the source folder; pip's own start-up (a CPU second) spared
    subprocess.run([sys.executable, "-c", "import importlib, sys, tomllib; "
                    "backend = tomllib.load(open('pyproject.toml', 'rb'))['build-system']['build-backend']; "
                    "importlib.import_module(backend).build_wheel(sys.argv[1])", str(where / "dist")],
                   cwd=src, check=True, capture_output=True, timeout=300)
    [wheel] = (where / "dist").glob("tablectl-*.whl")
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(where / "site"),
                    str(wheel)], check=True, capture_output=True, timeout=300)
    return where / "site"


def run_installed(site: Path, code: str) -> str:
    """``code`` run by a Python that imports the packages from ``site`` (before the editable
    install's finder, which would read the source tree)."""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=site,
                       env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert r.returncode == 0, r.stderr
    return r.stdout


def test_the_wheel_holds_the_three_packages_and_the_command(installed: Path) -> None:
    assert {p.name for p in installed.iterdir() if (p / "__init__.py").exists()} == \
        {"controller", "firmware_bridge", "hw_sim"}
    [dist] = installed.glob("tablectl-*.dist-info")
    assert "tablectl = controller.cli.main:main" in (dist / "entry_points.txt").read_text()
    assert not (installed / "tests").exists() and not (installed / "rig").exists()
    # the bridge board's MicroPython firmware is flashed from a clone, never installed on the Pi
    # (docs/decisions/0042-the-bridge-board.md)
    assert (ROOT / "firmware_bridge" / "firmware" / "main.py").exists()
    assert not (installed / "firmware_bridge" / "firmware").exists()


def test_the_display_words_are_read_from_the_installed_package(installed: Path) -> None:
    out = run_installed(installed, (
        "import json; from importlib import resources; from controller.core.display import render; "
        "from controller.core.prompts import ConsoleState; "
        "s = ConsoleState(code='stub.count_due', hand=12, between=False, figures=(('stub', 26),)); "
        "print(json.dumps([str(resources.files('controller.core') / 'display_text.toml'), render(s, 'lcd16x2')]))"))
    where, lines = json.loads(out)
    assert where == str(installed / "controller" / "core" / "display_text.toml")
    assert lines == ["COUNT THE STUB", "stub must be 26"]  # (the words of the file's stub.count_due row)


def test_the_floor_serves_its_page_from_the_installed_package(installed: Path, tmp_path: Path) -> None:
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    (tmp_path / "broker").mkdir()
    broker = Broker(tmp_path / "broker")
    broker.start()
    floor = FloorProc(tmp_path, broker, code=installed)
    try:
        floor.start()
        with urllib.request.urlopen(floor.url + "/login", timeout=10 * PATIENCE) as r:
            page = r.read().decode()
        with urllib.request.urlopen(floor.url + "/static/style.css", timeout=10 * PATIENCE) as r:
            css = r.read().decode()
    finally:
        floor.stop()
        broker.stop()
    assert "<form" in page and "password" in page
    assert css == (ROOT / "controller/floor/static/style.css").read_text()
