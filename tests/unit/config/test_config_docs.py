"""docs/configuration.md's key tables are the schema's (issue 30): written from it by
``python -m controller.config.reference``, compared here, so the docs cannot drift from the checks."""

from __future__ import annotations

import subprocess
import sys

from controller.config import daemon, floor
from controller.config.reference import TABLES, fill, main, markers
from controller.config.schema import bounds_table, markdown_table
from rig.paths import ROOT

DOC = ROOT / "docs" / "configuration.md"


def test_the_docs_hold_exactly_the_tables_the_schema_gives():
    text = DOC.read_text(encoding="utf-8")
    assert fill(text) == text, "docs/configuration.md: run python -m controller.config.reference"
    for name, table in TABLES.items():
        begin, end = markers(name)
        assert f"{begin}\n{table()}{end}" in text


def test_every_key_of_every_section_has_its_row():
    text = DOC.read_text(encoding="utf-8")
    for sections in (daemon.SECTIONS, floor.SECTIONS):
        for section in sections:
            for key in section.keys:
                title = f"[[{section.name}]]" if section.array else f"[{section.name}]"
                assert f"| `{title} {key.name}` |" in text, (section.name, key.name)
    assert markdown_table(daemon.SECTIONS) in text and bounds_table(daemon.SECTIONS) in text


def test_a_table_edited_by_hand_is_found_and_written_back(tmp_path):
    path = tmp_path / "configuration.md"
    good = DOC.read_text(encoding="utf-8")
    path.write_text(good.replace("| `[reader] port` | string |", "| `[reader] port` | text |"), encoding="utf-8")
    assert main(["--check", str(path)]) == 1
    assert main([str(path)]) == 0
    assert path.read_text(encoding="utf-8") == good
    assert main(["--check", str(path)]) == 0


def test_the_module_runs_as_a_command():
    done = subprocess.run([sys.executable, "-m", "controller.config.reference", "--check", str(DOC)],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
