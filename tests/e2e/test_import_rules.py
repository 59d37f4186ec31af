"""The import rules (pyproject's [tool.importlinter], run by scripts/test): they hold, and each
contract fails on a deliberate violation of its own, in a copy of the package. ``bench/`` and
``scripts/`` are not packages import-linter can read: their imports are checked here."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rig.paths import ROOT

LINT = Path(sys.executable).with_name("lint-imports")
CONTRACTS = {
    "layers": "The controller's layers: each imports only the layers below",
    "core": "The core imports no I/O and nothing else of ours",
    "bridge": "The firmware bridge imports nothing of ours: bytes, pins and tags, never cards",
    "sim": "Production never imports the simulator, the rig or the tests",
    "tests": "Nothing imports the tests (the packages, the simulator and the rig)",
    "cycles": "No cycles among the modules of any package",
}
#: the packages of the repository: what the copy holds
PACKAGES = ("controller", "firmware_bridge", "hw_sim", "rig", "tests")
#: a violation of each contract: the files written into the copy, each module named for its
#: violation (all are written at once, and each contract's report must name its own)
VIOLATIONS = {
    "layers": {"controller/config/_violation_layers.py": "import controller.daemon.main\n"},
    "core": {"controller/core/_violation_core.py": "import sqlite3\n"},
    "core_bridge": {"controller/core/_violation_core_bridge.py": "from firmware_bridge import feig\n"},
    "bridge": {"firmware_bridge/_violation_bridge.py": "from controller.core import events\n"},
    "bridge_deep": {"firmware_bridge/_violation_bridge_deep.py": "import controller.floor.app\n"},
    "bridge_sim": {"firmware_bridge/_violation_bridge_sim.py": "from hw_sim import pacing\n"},
    "sim": {"controller/floor/_violation_sim.py": "from hw_sim import pacing\n"},
    "sim_bridge": {"firmware_bridge/_violation_sim_bridge.py": "import rig.broker\n"},
    "tests": {"rig/_violation_tests.py": "import tests.rules_common\n"},
    "cycles": {"controller/core/_violation_cycles_a.py": "from controller.core import _violation_cycles_b\n",
               "controller/core/_violation_cycles_b.py": "from controller.core import _violation_cycles_a\n"},
}


def lint(where: Path) -> str:
    r = subprocess.run([str(LINT), "--config", str(where / "pyproject.toml")], cwd=where, capture_output=True,
                       text=True, timeout=300, env={"PYTHONPATH": str(where), "PATH": "/usr/bin:/bin"})
    return r.stdout + r.stderr


def kept(out: str, name: str) -> bool:
    return f"{CONTRACTS[name]} KEPT" in out


@pytest.fixture(scope="module")
def copy(tmp_path_factory):
    where = tmp_path_factory.mktemp("imports")
    for folder in PACKAGES:
        shutil.copytree(ROOT / folder, where / folder, ignore=shutil.ignore_patterns("__pycache__", "data"))
    shutil.copy(ROOT / "pyproject.toml", where / "pyproject.toml")
    return where


def test_every_contract_holds(copy):
    out = lint(copy)
    assert all(kept(out, name) for name in CONTRACTS), out


def broken_section(out: str, name: str) -> str:
    """What lint-imports' "Broken contracts" part says under contract ``name`` ("" if nothing).

    >>> out = ("x BROKEN\\n\\nBroken contracts\\n----------------\\n\\n" + CONTRACTS["core"]
    ...        + "\\n---\\n\\n- a -> b\\n\\n" + CONTRACTS["tests"] + "\\n---\\n- c\\n")
    >>> broken_section(out, "core")
    '\\n- a -> b\\n\\n'
    """
    _, _, broken = out.partition("Broken contracts\n")
    heads = sorted((at, head) for head in CONTRACTS.values() if (at := broken.find(f"\n{head}\n")) >= 0)
    for i, (at, head) in enumerate(heads):
        if head == CONTRACTS[name]:
            start = broken.index("\n", at + len(head) + 2) + 1  # (past the heading's underline)
            return broken[start:heads[i + 1][0] + 1 if i + 1 < len(heads) else len(broken)]
    return ""


@pytest.fixture(scope="module")
def broken(copy):
    """lint-imports' report on the copy with every violation of :data:`VIOLATIONS` in it (one run
    for all: each test reads its own contract's part), the copy left as it was."""
    written = []
    try:
        for files in VIOLATIONS.values():
            for rel, text in files.items():
                (copy / rel).write_text(text)
                written.append(copy / rel)
        return lint(copy)
    finally:
        for path in written:
            path.unlink()


@pytest.mark.parametrize("name", list(VIOLATIONS))
def test_each_contract_fails_on_a_violation_of_its_own(broken, name):
    contract = name.split("_")[0]
    assert f"{CONTRACTS[contract]} BROKEN" in broken, broken
    section = broken_section(broken, contract)
    # (named in the contract's own part of the report: each violation is caught by its contract)
    assert any(re.search(rf"\b{Path(rel).stem}\b", section) for rel in VIOLATIONS[name]), section


def test_bench_and_scripts_import_no_tests():
    found = []
    for path in sorted((ROOT / "bench").glob("*.py")) + sorted((ROOT / "scripts").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            found += [f"{path.name}: {n}" for n in names if n == "tests" or n.startswith("tests.")]
    assert found == []


def late_imports_without_a_reason() -> list[str]:
    """Every import inside a function of the package with no comment saying why: on its line, or
    on the line above it (or above the block of imports it is in)."""
    found = []
    for path in sorted(p for pkg in ("controller", "firmware_bridge", "hw_sim") for p in (ROOT / pkg).rglob("*.py")):
        lines = path.read_text().split("\n")
        seen: set[int] = set()
        for node in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for sub in ast.walk(node):
                if not isinstance(sub, (ast.Import, ast.ImportFrom)) or sub.lineno in seen:
                    continue
                seen.add(sub.lineno)
                at = sub.lineno - 1
                if "#" in "".join(lines[at:sub.end_lineno]):
                    continue
                above = at - 1
                while above >= 0 and lines[above].strip().startswith(("from ", "import ")):
                    above -= 1
                if not lines[above].strip().startswith("#"):
                    found.append(f"{path.relative_to(ROOT)}:{sub.lineno}: {lines[at].strip()}")
    return found


def test_every_import_inside_a_function_says_why():
    """Imports go at the top; one inside a function is deliberate (pokerkit's tables loaded at the
    first showdown, a command's own modules, an optional extra's library) and says so."""
    assert late_imports_without_a_reason() == []
