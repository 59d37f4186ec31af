"""A table's signing key as its file and the floor's configuration write it (docs/room.md, "Who can
write a table's history"): 64 hex digits; the private key's file is the table's own (mode 0600).

Here, under the configuration, so that ``[room] signing_key`` and ``[floor.tables]`` are checked
when the file is read without the configuration importing the room link (the layers: the room
link is above the configuration); controller/room/signing.py signs and verifies with the keys.

>>> is_key("ab" * 32), is_key("AB" * 32), is_key("ab" * 31)
(True, False, False)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

HEX = frozenset("0123456789abcdef")


def is_key(text: str) -> bool:
    """Whether ``text`` is a key as these files and configurations write one: 64 hex digits."""
    return len(text) == 64 and set(text) <= HEX


def read_key_file(path: str | Path) -> bytes:
    """The private key in ``path``: 64 hex digits on the first line, the file readable by its owner
    only. ValueError naming what is wrong, OSError if it cannot be read."""
    st = os.stat(path)
    if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ValueError(f"{path} is readable by others (mode {st.st_mode & 0o777:o}): chmod 600 {path}")
    with open(path, encoding="ascii", errors="replace") as f:
        text = f.readline(200).strip().lower()
    if not is_key(text):
        raise ValueError(f"{path} does not hold a signing key (64 hex digits, as tablectl room enroll writes)")
    return bytes.fromhex(text)
