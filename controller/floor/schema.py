"""What a table's message may hold, field by field (docs/room.md, "Payloads"): the floor keeps
a message only if every field it knows is of its type and within its bounds, and the message
speaks for the table whose topic it came on. Anything else is counted, logged by topic and
reason (never its content: it may name a card) and kept out of the records.

>>> check("state", {"online": True, "room": "main", "table": "t7", "seats": [1, 2, 11]}, "main", "t7")
'seats: want up to 10 different seats 1 to 10'
>>> check("state", {"online": True, "room": "main", "table": "t8"}, "main", "t7")
"table: a message on t7's topic speaks for 't8'"
>>> check("events/floor", {"type": "Alert", "seq": 4, "ts": 1.0, "code": "deck.foreign_card", "seat": 3,
...                        "audience": "floor", "hand": 2}, "main", "t7") is None
True
>>> check("events/floor", {"type": "Alert", "seq": 4, "ts": 1.0, "code": "<b>hi</b>", "audience": "floor"},
...       "main", "t7")
"code: want a code like 'deck.foreign_card'"
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from typing import Any

MAX_INT = 2 ** 62
#: a code on the wire: ``family.name`` (controller/core/codes.py)
CODE = re.compile(r"[a-z][a-z0-9_]{0,30}\.[a-z0-9_]{1,48}")
#: a rule id (docs/rules.md): ``MISD-004``
RULE = re.compile(r"[A-Z]{2,8}-[0-9]{3}")
HEX64 = re.compile(r"[0-9a-f]{64}")
HEX128 = re.compile(r"[0-9a-f]{128}")
#: the effects the tables publish (controller/core/effects.py), and the table's acknowledgment
TYPES = frozenset({"Alert", "Prompt", "CardPlaced", "CardLeft", "Figures", "HandStarted", "HandFinished", "Ack"})
AUDIENCES = frozenset({"public", "dealer", "floor"})

Check = Callable[[Any], str | None]


def _int(lo: int = 0, hi: int = MAX_INT, *, none: bool = False) -> Check:
    def check(v: Any) -> str | None:
        if v is None and none:
            return None
        if type(v) is not int or not lo <= v <= hi:
            return f"want a whole number {lo} to {hi}"
        return None
    return check


def _text(most: int, *, none: bool = True, pattern: re.Pattern[str] | None = None, like: str = "") -> Check:
    def check(v: Any) -> str | None:
        if v is None and none:
            return None
        if not isinstance(v, str) or len(v) > most:
            return f"want text of at most {most} characters"
        if pattern is not None and not pattern.fullmatch(v):
            return f"want {like}"
        if not v.isprintable():
            return "want printable text"
        return None
    return check


def _ts(v: Any) -> str | None:
    if type(v) not in (int, float) or not math.isfinite(v) or not 0 <= v < 1e11:
        return "want a time in seconds"
    return None


def _bool(v: Any) -> str | None:
    return None if isinstance(v, bool) else "want true or false"


def _one_of(values: frozenset[str]) -> Check:
    def check(v: Any) -> str | None:
        return None if isinstance(v, str) and v in values else f"want one of {', '.join(sorted(values))}"
    return check


def _seats(v: Any) -> str | None:
    if not isinstance(v, list) or len(v) > 10 or len(set(map(str, v))) != len(v) \
            or any(type(s) is not int or not 1 <= s <= 10 for s in v):
        return "want up to 10 different seats 1 to 10"
    return None


def _devices(v: Any) -> str | None:
    if not isinstance(v, dict) or len(v) > 16 or any(not isinstance(k, str) or len(k) > 32 or not isinstance(b, bool)
                                                     for k, b in v.items()):
        return "want device names (at most 16) each true or false"
    return None


def _counts(v: Any) -> str | None:
    if not isinstance(v, dict) or len(v) > 16 or any(not isinstance(k, str) or len(k) > 32 or type(n) is not int
                                                     or not 0 <= n <= MAX_INT for k, n in v.items()):
        return "want names (at most 16) each with a whole number"
    return None


def _holding(v: Any) -> str | None:
    return None if v is None or v in ("h4h", "bubble") else "want h4h, bubble or null"


def _record(v: Any) -> str | None:
    return None if isinstance(v, dict) else "want the hand's record (an object)"


SEAT = _int(1, 10, none=True)
HAND = _int(0, MAX_INT, none=True)
COMMON: dict[str, Check] = {"seq": _int(1), "ts": _ts, "type": _one_of(TYPES), "audience": _one_of(AUDIENCES),
                            "hand": HAND, "epoch": _text(32, none=False), "sig": _text(128, pattern=HEX128,
                                                                                           like="a signature")}
BY_TYPE: dict[str, dict[str, Check]] = {
    "Alert": {"code": _text(80, none=False, pattern=CODE, like="a code like 'deck.foreign_card'"),
              "rule": _text(16, pattern=RULE, like="a rule id like 'DECK-006'"), "seat": SEAT, "card": _text(40),
              "message": _text(1000), "dealer": _text(64), "count": _int(0, 10_000, none=True)},
    "Prompt": {"code": _text(80, none=False, pattern=CODE, like="a code like 'stub.count_due'"),
               "rule": _text(16, pattern=RULE, like="a rule id like 'STUB-001'"), "seat": SEAT,
               "message": _text(1000), "dealer": _text(64)},
    "Ack": {"ack_seq": _int(1), "command": _text(64, none=False), "user": _text(80),
            "code": _text(80, pattern=CODE, like="a code like 'deck.foreign_card'")},
    "HandFinished": {"record": _record, "prev": _text(64, none=False, pattern=HEX64, like="a hash"),
                     "hash": _text(64, none=False, pattern=HEX64, like="a hash")},
    "CardPlaced": {"card": _text(40), "zone": _text(16), "prev_zone": _text(16)},
    "CardLeft": {"card": _text(40), "zone": _text(16)},
}
STATE: dict[str, Check] = {
    "online": _bool, "epoch": _text(32, none=False), "devices": _devices, "game": _text(32), "seats": _seats,
    "hand": HAND, "button": SEAT, "hands_finished": _int(), "stub_count": _int(0, 104, none=True),
    "deck_in_play": _text(8), "clock": _text(32), "outbox": _counts, "dealer": _text(64),
    "dealer_next": _text(64),
    # a tournament's table (issue 32): what it holds for ("h4h", "bubble", or null: it deals) and
    # the level of its hand under way, or of its next (FLOW-001)
    "holding": _holding, "level": _int(1, 1000, none=True)}
#: the fields a message of each type must have (beyond ``type``, ``seq`` and ``ts``)
REQUIRED = {"Alert": ("code",), "Prompt": ("code",), "Ack": ("ack_seq", "command"),
            "HandFinished": ("hand", "record", "prev", "hash"), "CardPlaced": ("card", "zone"),
            "CardLeft": ("card",)}
#: what a numbered topic may carry
TOPIC_TYPES = {"hands": frozenset({"HandFinished"}),
               "events/floor": TYPES - {"HandFinished"}, "events/dealer": TYPES - {"HandFinished", "Ack"}}


def check(topic: str, body: dict[str, Any], room: str, table: str) -> str | None:
    """What is wrong with ``body`` on ``topic`` of table ``room/table`` (the first thing found),
    or None. Fields the schema does not know are left alone (a later release's additions)."""
    if topic == "state":
        if "online" not in body:
            return "online: missing"
        for name in ("room", "table"):
            want = room if name == "room" else table
            if name in body and body[name] != want:
                return f"{name}: a message on {want}'s topic speaks for {str(body[name])[:40]!r}"
        return _fields(body, STATE)
    if topic == "cmd/reply":
        return _fields(body, {"ok": _bool, "id": _text(64), "error": _text(1000), "cmd": _text(16),
                              "epoch": _text(32)})
    kind = body.get("type")
    allowed = TOPIC_TYPES.get(topic)
    if allowed is not None and kind not in allowed:
        return f"type: want one of {', '.join(sorted(allowed))} on {topic}"
    missing = [f for f in ("seq", "ts", *REQUIRED.get(str(kind), ())) if f not in body]
    if missing:
        return f"{missing[0]}: missing"
    return _fields(body, COMMON) or _fields(body, BY_TYPE.get(str(kind), {}))


def _fields(body: dict[str, Any], spec: dict[str, Check]) -> str | None:
    for name, test in spec.items():
        if name in body:
            wrong = test(body[name])
            if wrong is not None:
                return f"{name}: {wrong}"
    return None
