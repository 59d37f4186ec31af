"""Who deals (RELIEF-003): a dealer's name as every input takes it (the control socket, the
floor's ``cmd``, the floor's page), checked the same way everywhere.

A name is text of printable characters (no control character, tab or new line); runs of
spaces become one and the ends are trimmed; what is left is 1 to :data:`MAX_NAME` characters.

>>> check_dealer_name("  Ann   Lee ")
'Ann Lee'
>>> check_dealer_name("Ann\\nLee")
Traceback (most recent call last):
...
ValueError: dealer: the name must hold printable characters only (no control character, tab or new line)
>>> check_dealer_name("   ")
Traceback (most recent call last):
...
ValueError: dealer: the name is empty
>>> check_dealer_name("x" * 65)
Traceback (most recent call last):
...
ValueError: dealer: the name must be at most 64 characters, got 65
>>> check_dealer_name(7)
Traceback (most recent call last):
...
ValueError: dealer: the name must be text, got int
"""

from __future__ import annotations

#: the longest name a record keeps (a name and an employee number fit: RELIEF-003)
MAX_NAME = 64


def check_dealer_name(name: object) -> str:
    """``name`` as records keep it (spaces tidied), or ValueError saying what is wrong."""
    if type(name) is not str:
        raise ValueError(f"dealer: the name must be text, got {type(name).__name__}")
    if not name.isprintable():
        raise ValueError("dealer: the name must hold printable characters only (no control character, tab or "
                         "new line)")
    clean = " ".join(name.split())
    if not clean:
        raise ValueError("dealer: the name is empty")
    if len(clean) > MAX_NAME:
        raise ValueError(f"dealer: the name must be at most {MAX_NAME} characters, got {len(clean)}")
    return clean
