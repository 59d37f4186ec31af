"""The docs hold what they promise (issue 30): every test docs/rules.md names exists, the README is one
page with both set-up commands on its first screen, and no file of the repository cites a document
outside it.

The tests are found by file name anywhere under tests/, not by the folder docs/rules.md gives, so
the rules' table survives the tests being regrouped (tests/unit/<layer>, tests/e2e, tests/golden).
"""

from __future__ import annotations

import ast
import fnmatch
import re
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
RULES = ROOT / "docs" / "rules.md"
README = ROOT / "README.md"

#: the README's two set-up commands, exactly as a newcomer copies them
DEMO_COMMAND = "python3 -m venv .venv && .venv/bin/pip install -q -e '.[demo]' && .venv/bin/tablectl demo"
TEST_COMMAND = "./scripts/test"
README_MAX_WORDS = 900
README_FIRST_SCREEN = 40

#: documents that lived outside the repository (now docs/rules.md, docs/design.md, docs/protocols/);
#: spelt in pieces so that this file does not cite them itself
OUTSIDE = tuple(s.encode() for s in ("RULES" + ".md", "DESIGN" + ".md", "PROTOCOLS" + ".md",
                                     ".." + "/shared", "/work" + "/shared"))

#: a test file (``tests/unit/core/test_seats.py``, ``test_seats.py``), optionally with a test
#: (``::test_DEAL_003_*``, a trailing ``*`` for any name that begins so); a helper module under
#: tests/ (``tests/rules_common.py``); or a test named alone, which belongs to the file named last
#: before it in the same table cell or paragraph (``test_showdown_table.py::test_run_it_*``,
#: ``test_a_longer_board_*``)
TOKEN = re.compile(r"(?P<file>(?<![\w/.-])(?:tests/[\w/]*?)?test_\w+\.py|(?<![\w/.-])tests/[\w/]+\.py)"
                   r"(?:::(?P<test>test_\w+\*?))?"
                   r"|(?<![\w/.:-])(?P<bare>test_\w+\*?)(?![\w*]|\.py)")


def units(text: str) -> list[str]:
    """The places a bare test name refers back within: each cell of a table row, each paragraph."""
    out: list[str] = []
    for block in re.split(r"\n\s*\n", text):
        rows = [line for line in block.splitlines() if line.startswith("|")]
        prose = [line for line in block.splitlines() if not line.startswith("|")]
        for row in rows:
            out.extend(row.split(" | "))
        out.append("\n".join(prose))
    return out


def named_in(text: str) -> list[tuple[str, str | None]]:
    """(test file's name or path, test name or pattern or None) for every test the text names.

    >>> named_in("| `test_a.py::test_x_*`, `test_y` | `tests/unit/test_b.py` | `test_z` |")
    [('test_a.py', 'test_x_*'), ('test_a.py', 'test_y'), ('tests/unit/test_b.py', None), ('', 'test_z')]
    """
    found: list[tuple[str, str | None]] = []
    for unit in units(text):
        current = ""
        for m in TOKEN.finditer(unit):
            if m["file"]:
                current = m["file"]
                found.append((current, m["test"]))
            else:
                found.append((current, m["bare"]))
    return found


@cache
def files_under_tests() -> dict[str, list[Path]]:
    """Every Python file under tests/, by its file name."""
    out: dict[str, list[Path]] = {}
    for path in sorted(TESTS.rglob("*.py")):
        out.setdefault(path.name, []).append(path)
    return out


@cache
def defined(path: Path) -> frozenset[str]:
    """The functions (and methods, and names assigned at the top) a test file defines."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names = {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    names |= {target.id for node in tree.body if isinstance(node, ast.Assign)
              for target in node.targets if isinstance(target, ast.Name)}
    return frozenset(names)


def missing_tests(text: str) -> list[str]:
    """What the text names that is not there, one line each."""
    missing: list[str] = []
    for file, test in named_in(text):
        name = Path(file).name
        paths = files_under_tests().get(name, []) if file else [p for ps in files_under_tests().values() for p in ps]
        if not paths:
            missing.append(f"{file}: no file of that name under tests/")
        elif test and not any(fnmatch.filter(defined(p), test) for p in paths):
            missing.append(f"{file or 'tests/'}::{test}: no such test" + (f" in {name}" if file else ""))
    return list(dict.fromkeys(missing))


def test_every_test_docs_rules_names_exists():
    text = RULES.read_text(encoding="utf-8")
    assert len(named_in(text)) > 150  # the rules' tables are read, not skipped
    assert missing_tests(text) == []


def test_a_test_that_does_not_exist_is_caught():
    text = ("| X-001 | — | — | `test_seats.py::test_no_such_rule_*`, `test_nor_this` |\n\n"
            "See `tests/unit/nowhere/test_no_such_file.py`.")
    assert missing_tests(text) == ["test_seats.py::test_no_such_rule_*: no such test in test_seats.py",
                                   "test_seats.py::test_nor_this: no such test in test_seats.py",
                                   "tests/unit/nowhere/test_no_such_file.py: no file of that name under tests/"]


def test_the_readme_is_one_page_with_both_commands_on_its_first_screen():
    text = README.read_text(encoding="utf-8")
    words = len(text.split())
    assert words < README_MAX_WORDS, f"README.md has {words} words; a newcomer's page is under {README_MAX_WORDS}"
    first_screen = "\n".join(text.splitlines()[:README_FIRST_SCREEN])
    assert DEMO_COMMAND in first_screen
    assert TEST_COMMAND in first_screen


def repository_files() -> list[Path]:
    """The files git tracks (``git ls-files``), those of them the worktree still has."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the repository's files cannot be listed")
    return [ROOT / name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


def test_no_file_of_the_repository_cites_a_document_outside_it():
    cites = [f"{path.relative_to(ROOT)}:{n}: {line.decode(errors='replace').strip()[:120]}"
             for path in repository_files()
             for n, line in enumerate(path.read_bytes().splitlines(), 1)
             if any(name in line for name in OUTSIDE)]
    assert cites == [], "cite docs/rules.md, docs/design.md or docs/protocols/ instead:\n" + "\n".join(cites)
