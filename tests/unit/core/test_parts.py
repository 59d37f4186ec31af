"""The table made of parts (issue 31): each part owns its fields, no other part assigns them,
and no class of the core grows past about 30 methods.

The checks read the source (ast): an assignment ``self.field = ...`` (or ``+=``) in a class that
does not own that field, or an assignment to a field of a part reached by its name
(``self._t.roster.seats = ...``, ``roster.seats = ...``) outside its owner, is one part setting
another's state. (A hand's fields are the hand's: ``hand.seats = ...`` is not a part's.)
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from rig.paths import ROOT
from controller.core.registry import DeckRegistry
from controller.core.settings import TableSettings
from controller.core.state.migrations import OWNERS
from controller.core.table import Table
from controller.core.table.flow import TableFlow
from controller.core.table.lapses import Lapses
from controller.core.table.tournament import Tournament

CORE = ROOT / "controller" / "core"
MOST_METHODS = 30
#: a receiver that is a part: ``self``, or a part by its name on the table (``self._t.roster``, ``roster``)
_PART = re.compile(r"^(self|(.*\.)?(_t\.)?(reads|alerts|devices|decks|roster|turns|modes|holds|stud|dealing|"
                   r"_?tournament|_?flow))$")


def _owners() -> dict[str, str]:
    """field -> the class of the part that owns it."""
    owned: dict[str, str] = {}
    for part in Table.PARTS:
        for name in part.STATE:
            assert name not in owned, f"{name} is owned by {owned.get(name)} and {part.__name__}"
            owned[name] = part.__name__
    return owned


def _assignments(path: Path) -> list[tuple[str, str, int]]:
    """(class it is in, or '', the attribute assigned, line) for every ``<a part>.attr = ...``."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, cls: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.ClassDef):
                visit(child, child.name)
                continue
            targets: list[ast.expr] = []
            if isinstance(child, ast.Assign):
                targets = child.targets
            elif isinstance(child, (ast.AugAssign, ast.AnnAssign)):
                targets = [child.target]
            for t in targets:
                for e in (t.elts if isinstance(t, ast.Tuple) else [t]):
                    if isinstance(e, ast.Attribute) and _PART.match(ast.unparse(e.value)):
                        found.append((cls, e.attr, e.lineno))
            visit(child, cls)

    visit(ast.parse(path.read_text()), "")
    return found


def test_every_field_of_the_table_has_one_owner_and_the_split_of_version_12_knows_them_all() -> None:
    owned = _owners()
    # the fields of the one object of version 12, none lost, none added; and those of the parts
    # made since (version 14: the tournament; 15: the lapses; 16: the flow rules; each its own
    # section from the start)
    since_12 = {p.SECTION: set(p.STATE) for p in Table.PARTS if p.SECTION not in OWNERS}
    # (the tournament's section version 2, issue 39: 17 fields and the next deal's shuffle, 2 more;
    # the lapses, state version 15: 3; the flow rules, state version 16: 8)
    assert since_12 == {"tournament": set(Tournament.STATE), "lapses": set(Lapses.STATE),
                        "flow": set(TableFlow.STATE)}
    assert len(Tournament.STATE) == 19 and len(Lapses.STATE) == 3 and len(TableFlow.STATE) == 8
    of_12 = {n: owner for n, owner in owned.items() if owner not in ("Tournament", "Lapses", "TableFlow")}
    assert len(of_12) == 41 and len(owned) == 41 + 19 + 3 + 8
    assert {n for names in OWNERS.values() for n in names} == set(of_12)
    assert {s: set(names) for s, names in OWNERS.items()} == {p.SECTION: set(p.STATE) for p in Table.PARTS
                                                              if p.SECTION in OWNERS}


def test_no_part_assigns_a_field_another_part_owns() -> None:
    owned = _owners()
    wrong = []
    for path in sorted(CORE.rglob("*.py")):
        for cls, attr, line in _assignments(path):
            owner = owned.get(attr)
            if owner is not None and cls != owner and cls in {p.__name__ for p in Table.PARTS} | {"Table"}:
                wrong.append(f"{path.relative_to(ROOT)}:{line}: {cls} assigns {attr} ({owner}'s)")
    assert wrong == []


def test_the_check_finds_a_part_setting_another_parts_field(tmp_path: Path) -> None:
    spoilt = tmp_path / "spoilt.py"
    spoilt.write_text("class Dealing:\n    def f(self, hand):\n        self._t.roster.seats = ()\n"
                      "        self.hands_finished += 1\n        hand.seats = ()\n        roster.absent = set()\n")
    found = [(cls, attr) for cls, attr, _ in _assignments(spoilt)]
    assert found == [("Dealing", "seats"), ("Dealing", "hands_finished"), ("Dealing", "absent")]
    assert _owners()["seats"] == "Roster"  # so the test above would name it


def test_every_part_sets_up_what_it_owns() -> None:
    table = Table(TableSettings(), DeckRegistry())
    for part in table.parts():
        fields = part.fields()
        assert set(fields) == set(part.STATE) and set(part.HINTS) == set(part.STATE), part.SECTION


def test_no_class_of_the_core_has_more_than_about_30_methods() -> None:
    big = []
    for path in sorted(CORE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                n = sum(isinstance(b, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in node.body)
                if n > MOST_METHODS:
                    big.append(f"{path.relative_to(ROOT)}: {node.name} has {n}")
    assert big == []
