"""The key tables of docs/configuration.md, written from the schema (controller/config/schema.py).

Each table sits in the docs between two markers, which this module rewrites whole::

    <!-- NAME: written from the schema by python -m controller.config.reference -->
    | Key | ...
    <!-- end of NAME -->

``python -m controller.config.reference [docs/configuration.md]`` writes them; ``--check`` only
says whether they are up to date (exit status 1 if not). tests/unit/config/test_config_docs.py
checks that the docs hold exactly the tables the schema gives, so the docs cannot drift.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from controller.config import daemon, floor, structure
from controller.config.schema import bounds_table, markdown_table

#: each table of the docs: its name -> the table, as the schema gives it
TABLES: dict[str, Callable[[], str]] = {
    "every key of tablectl.toml": lambda: markdown_table(daemon.SECTIONS),
    "the numeric bounds of tablectl.toml": lambda: bounds_table(daemon.SECTIONS),
    "every key of floor.toml": lambda: markdown_table(floor.SECTIONS),
    "every key of a structure file": lambda: markdown_table(structure.SECTIONS),
}


def markers(name: str) -> tuple[str, str]:
    return (f"<!-- {name}: written from the schema by python -m controller.config.reference -->",
            f"<!-- end of {name} -->")


def fill(text: str) -> str:
    """``text`` (the docs) with every table between its markers written afresh from the schema;
    ValueError naming a table whose markers are missing."""
    for name, table in TABLES.items():
        begin, end = markers(name)
        if begin not in text or end not in text.split(begin, 1)[1]:
            raise ValueError(f"no markers for {name!r}: {begin} ... {end}")
        head, rest = text.split(begin, 1)
        text = f"{head}{begin}\n{table()}{end}{rest.split(end, 1)[1]}"
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.config.reference", description=__doc__.splitlines()[0])
    parser.add_argument("path", nargs="?", default="docs/configuration.md", type=Path)
    parser.add_argument("--check", action="store_true", help="only say whether the tables are up to date")
    args = parser.parse_args(argv)
    text = args.path.read_text(encoding="utf-8")
    try:
        new = fill(text)
    except ValueError as exc:
        print(f"{args.path}: {exc}", file=sys.stderr)
        return 2
    if new == text:
        return 0
    if args.check:
        print(f"{args.path}: the key tables differ from the schema: python -m controller.config.reference",
              file=sys.stderr)
        return 1
    args.path.write_text(new, encoding="utf-8")
    print(f"{args.path}: key tables written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
