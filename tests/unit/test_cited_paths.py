"""Every ``tests/...`` path that the units in systemd/, the docs and the README cite exists (issue
41: the units cited tests/test_systemd_unit.py and tests/test_room_unit.py after the tests had
moved to tests/e2e/ and tests/unit/room/). A path with ``*`` must match a file."""

from __future__ import annotations

import re
from pathlib import Path

from rig.paths import ROOT

#: a path under tests/, as the files write it (in backquotes, in prose, in a comment)
CITED = re.compile(r"(?<![\w./-])tests/[\w./*-]*")


def citing_files() -> list[Path]:
    return sorted([*(ROOT / "systemd").rglob("*"), *(ROOT / "docs").rglob("*.md"), ROOT / "README.md"])


def cited(text: str) -> list[str]:
    """The tests/ paths ``text`` cites, without a sentence's final full stop or comma.

    >>> cited("(tests/e2e/test_systemd_unit.py holds it), see tests/unit/. and tests/data/state/v1*.json")
    ['tests/e2e/test_systemd_unit.py', 'tests/unit/', 'tests/data/state/v1*.json']
    """
    return [m.rstrip(".,") or m for m in CITED.findall(text)]


def test_every_tests_path_cited_in_systemd_and_docs_exists():
    missing = []
    count = 0
    for f in citing_files():
        if not f.is_file():
            continue
        for path in cited(f.read_text(errors="replace")):
            count += 1
            if not (list(ROOT.glob(path)) if "*" in path else (ROOT / path).exists()):
                missing.append(f"{f.relative_to(ROOT)}: {path}")
    assert count > 50  # (the docs cite many: the pattern finds them)
    assert missing == []


def test_the_units_cite_their_tests_where_they_are():
    unit = (ROOT / "systemd" / "tablectl.service").read_text()
    dropin = (ROOT / "systemd" / "tablectl.service.d" / "room.conf").read_text()
    assert "tests/e2e/test_systemd_unit.py" in unit and "tests/unit/room/test_room_unit.py" in dropin
