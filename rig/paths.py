"""Where the tests find the data they read: inside this repository, never beside it.

>>> PHH_DIR.name, DEAL_SCRIPT_DOC.name
('phh', 'deal-script.md')
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the tests' folder (their data: tests/data)
TESTS = ROOT / "tests"
#: The real hands (PHH, MIT; see tests/data/phh/SOURCE.md).
PHH_DIR = ROOT / "tests" / "data" / "phh"
#: The project's reference for the deal-script format; its first JSON example is parsed.
DEAL_SCRIPT_DOC = ROOT / "docs" / "deal-script.md"
