"""What a table takes as a request, and its bounds: one definition for every layer that takes a
table's request or sends one (issue 38, "One bound for what goes to a table").

- The table reads each request with :func:`parse_request` (bounded numbers, no duplicate field,
  no NaN, no deep nesting) and checks its fields with :func:`check_setup`, :func:`check_dealer`
  and :func:`check_decks`: the control socket (controller/daemon/control.py) and the floor's
  ``cmd`` (controller/daemon/room_commands.py) alike.
- The floor checks a command with :func:`check_command` before it sends it, with these same
  checks: what the table would refuse is refused at once with a 400 naming the field, never sent
  to sit at "sent" and then "failed".
- A refusal names the request's id whenever the request had one readable (:func:`readable_id`),
  even when the request could not be read whole: the floor then shows it "refused by the table"
  with the reason.

Every error is one line naming the field, with a client's value cut short (:func:`show`).

>>> check_command({"cmd": "setup", "seats": [2 ** 70], "button": 1})
Traceback (most recent call last):
...
ValueError: setup: 'seats' must list at least two different seats 1 to 10
>>> readable_id(b'{"id": "c-1", "user": "floor:ann", "cmd": "setup", "seats": [1180591620717411303424]}')
'c-1'
"""

from __future__ import annotations

import json
from typing import Any

from controller.core.dealers import check_dealer_name
from controller.core.settings import GAMES

#: the largest command on a table's ``cmd``, in bytes (the biggest real one, ``decks``, is a few
#: hundred)
MAX_COMMAND = 16 * 1024
#: the longest pad name, deck id, back colour, reason, command id or user
MAX_WORD = 64
#: the most digits a number in a request may have (a seat, a count: two or three)
MAX_DIGITS = 20
#: the largest penalty a ``hands`` count may give
MAX_HANDS = 99
#: the longest manifest file name, in bytes (a file name's limit on Linux)
MAX_FILE_NAME = 255
#: the commands a table takes on its ``cmd`` and the fields of each (``id``, ``user`` and ``cmd``
#: besides)
ROOM_COMMANDS: dict[str, frozenset[str]] = {
    "ack": frozenset({"seq", "epoch"}),
    "setup": frozenset({"seats", "button", "game"}),
    "decks": frozenset({"decks", "in_play"}),
    "dealer": frozenset({"name", "at_relief"}),
    "replay": frozenset({"topic", "from", "to", "epoch"}),
    "approve": frozenset(),  # FLOW-007: the single-table satellite may start
}
DECK_FIELDS = frozenset({"id", "back", "manifest"})
#: what a table's own id can take at most, added by the sender once checked: ``"id":"..."``, a comma
ID_ROOM = MAX_WORD + 8


def show(value: Any) -> str:
    """A client's value in an error, cut short: an error is never a megabyte long.

    >>> show("x" * 100)
    "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...'"
    """
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "...'"


def bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise ValueError(f"a number of more than {MAX_DIGITS} digits")
    return int(text)


def bounded_float(text: str) -> float:
    if len(text) > 2 * MAX_DIGITS:
        raise ValueError(f"a number of more than {2 * MAX_DIGITS} characters")
    return float(text)


def no_constant(text: str) -> Any:
    raise ValueError(f"{text} is not a number a request may hold")


def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"field {show(key)} given twice")
        out[key] = value
    return out


def parse_request(line: bytes) -> Any:
    """One request as JSON; ValueError says what is wrong, never with a traceback.

    >>> parse_request(b'{"cmd": "ping"}')
    {'cmd': 'ping'}
    >>> parse_request(b'[' * 5000 + b']' * 5000)
    Traceback (most recent call last):
    ...
    ValueError: not a request: nested too deeply
    >>> parse_request(b'{"hands": ' + b'9' * 5000 + b'}')
    Traceback (most recent call last):
    ...
    ValueError: not a request: a number of more than 20 digits
    """
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"not a request: not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text, parse_int=bounded_int, parse_float=bounded_float, parse_constant=no_constant,
                          object_pairs_hook=no_duplicates)
    except RecursionError:
        raise ValueError("not a request: nested too deeply") from None
    except json.JSONDecodeError as exc:  # (its message says where, never what)
        raise ValueError(f"not a request: not JSON: {exc.msg} at column {exc.colno}") from None
    except ValueError as exc:  # from the hooks above
        raise ValueError(f"not a request: {exc}") from None


class _Unread:
    """A value :func:`readable_id` does not read (a number, a constant): it never needs one."""


_UNREAD = _Unread()
#: a top-level ``id`` given more than once: no id can be said to be the request's
_TWICE = object()


def _pairs_keeping_ids(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if sum(1 for key, _ in pairs if key == "id") > 1:
        out["id"] = _TWICE
    return out


def readable_id(payload: bytes) -> str | None:
    """The id of a request that :func:`parse_request` or its checks refuse, when one can be read
    all the same: JSON whose top level names one ``id``, a word (:func:`word`), whatever else is
    wrong (a number of 70 digits, NaN, another field given twice). None otherwise (not JSON, not
    UTF-8, nested too deep, too long, no id, an id given twice or not a word).

    Numbers and constants are never converted here (a 5,000-digit number costs nothing), and the
    request is at most :data:`MAX_COMMAND` bytes when it is read at all.

    >>> readable_id(b'{"id": "c-9", "cmd": "ack", "seq": NaN, "seq": 2}')
    'c-9'
    >>> readable_id(b'{"id": "c-9", "id": "c-10"}') is None
    True
    """
    if len(payload) > MAX_COMMAND:
        return None
    try:
        req = json.loads(payload.decode("utf-8"), parse_int=lambda _: _UNREAD, parse_float=lambda _: _UNREAD,
                         parse_constant=lambda _: _UNREAD, object_pairs_hook=_pairs_keeping_ids)
    except (ValueError, RecursionError):  # (UnicodeDecodeError and JSONDecodeError are ValueErrors)
        return None
    if not isinstance(req, dict):
        return None
    found = req.get("id")
    if type(found) is not str or not found or len(found) > MAX_WORD or not found.isprintable():
        return None
    return found


def check_fields(req: dict[str, Any], cmd: str, allowed: frozenset[str]) -> None:
    """No field of ``req`` but ``cmd`` and those ``allowed``."""
    unknown = sorted(set(req) - {"cmd"} - allowed)
    if unknown:
        raise ValueError(f"{cmd}: unknown field {show(unknown[0])} (fields: {', '.join(sorted(allowed)) or 'none'})")


def whole(req: dict[str, Any], cmd: str, key: str, lo: int, hi: int) -> int | None:
    """``req[key]``: a whole number lo..hi (never a bool, a float or a string), or None if absent."""
    value = req.get(key)
    if value is None:
        return None
    if type(value) is not int or not lo <= value <= hi:
        raise ValueError(f"{cmd}: {key!r} must be a whole number {lo} to {hi}, got {show(value)}")
    return value


def word(req: dict[str, Any], cmd: str, key: str, *, required: bool) -> str | None:
    """``req[key]``: a non-empty string of at most MAX_WORD characters, or None if absent and allowed."""
    value = req.get(key)
    if value is None and not required:
        return None
    if type(value) is not str or not value or len(value) > MAX_WORD or not value.isprintable():
        raise ValueError(f"{cmd}: {key!r} must be a word of 1 to {MAX_WORD} printable characters, got {show(value)}")
    return value


def check_setup(req: dict[str, Any]) -> tuple[tuple[int, ...], int | None, str | None]:
    """A ``setup``'s seats, button and game (each checked; the button and the game may be absent)."""
    seats = req.get("seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 10 or \
            not all(type(s) is int and 1 <= s <= 10 for s in seats) or len(set(seats)) != len(seats):
        raise ValueError("setup: 'seats' must list at least two different seats 1 to 10")
    button = whole(req, "setup", "button", 1, 10)
    game = word(req, "setup", "game", required=False)
    if game is not None and game not in GAMES:
        raise ValueError(f"setup: 'game' {show(game)} is no game the table deals (games: {', '.join(GAMES)})")
    return tuple(seats), button, game


def check_dealer(req: dict[str, Any]) -> tuple[str, bool]:
    """A ``dealer``'s name, as the records keep it, and whether it waits for the relief pad."""
    if "name" not in req:
        raise ValueError("dealer: 'name' is required: the dealer's name (RELIEF-003)")
    at_relief = req.get("at_relief", False)
    if type(at_relief) is not bool:
        raise ValueError(f"dealer: 'at_relief' must be true or false, got {show(at_relief)}")
    return check_dealer_name(req["name"]), at_relief


def check_manifest_name(name: Any, folder: str | None) -> str:
    """A manifest's name: a plain file name (no ``/``, no ``..``), of the table's ``folder``
    (``[control] manifests``: the floor does not know it, None)."""
    where = folder if folder is not None else "the table's [control] manifests"
    if type(name) is not str or not name:
        raise ValueError(f"decks: 'manifest' must be a file name in {where}, got {show(name)}")
    if "/" in name or name in (".", "..") or "\0" in name or len(name.encode("utf-8", "replace")) > MAX_FILE_NAME:
        raise ValueError(f"decks: manifest {show(name)}: give a file name in {where}, not a path")
    return name


def check_decks(req: dict[str, Any], folder: str | None = None) -> tuple[list[tuple[str, str, str]], str]:
    """A ``decks``'s decks, each ``(id, back, manifest name)``, and the deck in play; what only the
    table can check (its manifests, their cards) is left to it."""
    decks = req.get("decks")
    if not isinstance(decks, list) or not 1 <= len(decks) <= 2 or not all(isinstance(d, dict) for d in decks):
        raise ValueError("decks: 'decks' must list one or two decks, each {id, back, manifest} (DECK-005)")
    in_play = word(req, "decks", "in_play", required=True)
    assert in_play is not None
    backs: dict[str, str] = {}
    out = []
    for d in decks:
        check_fields(d, "decks: a deck", DECK_FIELDS)
        if not all(k in d for k in DECK_FIELDS):
            raise ValueError("decks: each deck needs an 'id', a 'back' colour and a 'manifest' file name")
        deck_id, back = word(d, "decks", "id", required=True), word(d, "decks", "back", required=True)
        assert deck_id is not None and back is not None
        if back.lower() in backs:
            raise ValueError(f"decks: {backs[back.lower()]} and {deck_id} both have {back} backs; "
                             f"a table's two decks must differ (DECK-004)")
        backs[back.lower()] = deck_id
        out.append((deck_id, back, check_manifest_name(d["manifest"], folder)))
    return out, in_play


def check_command(req: dict[str, Any]) -> None:
    """A command for a table's ``cmd`` (without its ``id``), checked as the table checks it before
    it acts: its fields, each with the table's bounds (ValueError naming the field), and the whole
    within what the table reads (:data:`MAX_COMMAND` bytes with its id, :func:`parse_request`).
    What only the table knows (its journal's epoch, its alerts, its manifests) it checks itself.

    >>> check_command({"cmd": "dealer", "name": "Ann Lee", "at_relief": "yes"})
    Traceback (most recent call last):
    ...
    ValueError: dealer: 'at_relief' must be true or false, got 'yes'
    """
    cmd = req.get("cmd")
    if type(cmd) is not str or cmd not in ROOM_COMMANDS:
        raise ValueError(f"unknown command {show(cmd)} (commands: {', '.join(ROOM_COMMANDS)})")
    check_fields({k: v for k, v in req.items() if k not in ("id", "user")}, cmd, ROOM_COMMANDS[cmd])
    word(req, "command", "user", required=False)
    if cmd == "setup":
        check_setup(req)
    elif cmd == "dealer":
        check_dealer(req)
    elif cmd == "decks":
        check_decks(req)
    try:
        text = json.dumps(req, separators=(",", ":"), allow_nan=False)
    except ValueError:  # (NaN or Infinity: no JSON the table reads)
        raise ValueError(f"{cmd}: a number the table cannot read (NaN or Infinity)") from None
    data = text.encode("utf-8")
    if len(data) + ID_ROOM > MAX_COMMAND:
        raise ValueError(f"{cmd}: a command is at most {MAX_COMMAND} bytes with its id; this one is {len(data)}")
    parse_request(data)  # (any field the checks above leave alone: within the parser's bounds)
