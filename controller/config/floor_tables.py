"""A table's public signing key put into the floor's ``[floor.tables]`` by ``tablectl room enroll
--floor-config FILE`` (docs/room.md): the key typed nowhere, the floor's host needing no paste.

:func:`with_table_key` is the pure edit of the file's text: the line ``"room/table" = "KEY"``
added at the end of ``[floor.tables]`` (the section added at the end of the file when it has
none); the rest of the file, its comments and its order, left as they were. The same key already
there: the text unchanged (a second run writes nothing). Another key there for that table:
refused, since the floor would stop accepting the records the table signs with it.
:func:`add_table_key` writes it through controller/config/writer.py, keeping the file's owner and
mode (``root:tablectl 0640`` as ``tablectl floor setup`` writes it).

>>> KEY = "ab" * 32
>>> print(with_table_key('[floor]\\nroom = "main"\\n', "main/t7", KEY), end="")
[floor]
room = "main"
<BLANKLINE>
[floor.tables]  # each table's public key (tablectl room enroll)
"main/t7" = "abababababababababababababababababababababababababababababababab"
>>> text = '[floor]\\nroom = "main"\\n\\n[floor.tables]\\n"main/t1" = "' + "cd" * 32 + '"\\n\\n[floor.sections]\\n'
>>> print(with_table_key(text, "main/t7", KEY), end="")
[floor]
room = "main"
<BLANKLINE>
[floor.tables]
"main/t1" = "cdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcdcd"
"main/t7" = "abababababababababababababababababababababababababababababababab"
<BLANKLINE>
[floor.sections]
>>> with_table_key(with_table_key(text, "main/t7", KEY), "main/t7", KEY) == with_table_key(text, "main/t7", KEY)
True
>>> with_table_key(text, "main/t1", KEY)
Traceback (most recent call last):
ValueError: [floor.tables] has another key for main/t1 already: remove its line first to enroll it again
  (the floor then refuses what the table signs with the old key)
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

from controller.config.writer import write_file

#: a ``[floor.tables]`` header line (TOML allows spaces around the dot and in the brackets)
_HEADER = re.compile(r"^[ \t]*\[[ \t]*floor[ \t]*\.[ \t]*tables[ \t]*\][ \t]*(?:#.*)?$")
#: any table header (the end of a section)
_ANY_HEADER = re.compile(r"^[ \t]*\[")
_KEY_LINE = re.compile(r"^[ \t]*[^#\s]")


def table_keys(doc: dict[str, Any]) -> dict[str, Any]:
    floor = doc.get("floor")
    tables = floor.get("tables") if isinstance(floor, dict) else None
    return tables if isinstance(tables, dict) else {}


def _parse(text: str, what: str) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{what} is not valid TOML: {exc}") from None


def check_free(text: str, name: str, *, what: str = "[floor.tables]") -> None:
    """ValueError if the floor's configuration ``text`` has a key for ``name`` already (before a
    new key is made: it would differ), or is not TOML."""
    if name in table_keys(_parse(text, what)):
        raise ValueError(f"{what} has a key for {name} already: remove its line first to enroll it again (the floor "
                         f"then refuses what the table signs with the old key)")


def with_table_key(text: str, name: str, public: str) -> str:
    """``text`` with ``"name" = "public"`` in ``[floor.tables]``: see the module's examples."""
    doc = _parse(text, "the floor's configuration")
    have = table_keys(doc)
    if name in have:
        if str(have[name]).lower() == public.lower():
            return text
        raise ValueError(f"[floor.tables] has another key for {name} already: remove its line first to enroll it "
                         f"again\n  (the floor then refuses what the table signs with the old key)")
    entry = f"{json.dumps(name)} = {json.dumps(public)}\n"
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if _HEADER.match(line)), None)
    if start is None:
        if "floor" in doc and isinstance(doc["floor"], dict) and "tables" in doc["floor"]:
            raise ValueError("[floor] tables is written inline (tables = {...}): add the table's key there by hand, "
                             "or make it a [floor.tables] section")
        head = text if not text or text.endswith("\n") else text + "\n"
        out = (head + ("\n" if head.strip() else "")
               + "[floor.tables]  # each table's public key (tablectl room enroll)\n" + entry)
    else:
        end = next((i for i in range(start + 1, len(lines)) if _ANY_HEADER.match(lines[i])), len(lines))
        last = max((i for i in range(start, end) if i == start or _KEY_LINE.match(lines[i])), default=start)
        if not lines[last].endswith("\n"):
            lines[last] += "\n"
        out = "".join(lines[:last + 1]) + entry + "".join(lines[last + 1:])
    # what was written is what was meant: the entry there, the rest of the document as it was
    new = _parse(out, "the edited configuration")
    if table_keys(new).get(name) != public or _without(new, name) != _without(doc, name):
        raise ValueError(f"[floor.tables]: the file's layout defeats the edit: add {entry.strip()} by hand")
    return out


def _without(doc: dict[str, Any], name: str) -> dict[str, Any]:
    """``doc`` without ``name``'s key, and without a ``[floor.tables]`` or ``[floor]`` left empty."""
    out = dict(doc)
    if isinstance(doc.get("floor"), dict):
        floor = dict(doc["floor"])
        tables = {k: v for k, v in table_keys(doc).items() if k != name}
        floor.pop("tables", None)
        if tables:
            floor["tables"] = tables
        out["floor"] = floor
        if not floor:
            del out["floor"]
    return out


def add_table_key(path: str | Path, name: str, public: str) -> bool:
    """Put ``name``'s key into the floor's configuration at ``path`` (its owner and mode kept);
    whether anything was written (not when the key is there already)."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ValueError(f"--floor-config: cannot read {path}: {exc.strerror or exc}") from None
    try:
        new = with_table_key(text, name, public)
    except ValueError as exc:
        raise ValueError(f"--floor-config: {path}: {exc}") from None
    if new == text:
        return False
    def read_back(temp: Path) -> None:  # (the file as it will be, before it replaces the old one)
        if table_keys(_parse(temp.read_text(), str(temp))).get(name) != public:
            raise ValueError(f"--floor-config: {path}: the key did not read back")

    return write_file(path, new.encode(), mode=0o640, keep=True, check=read_back)
