"""The floor's tournament signal to one table: a retained message on
``tablectl/<room>/<table>/floor/tournament`` (docs/room.md, docs/floor.md "Running a tournament").

The floor service publishes, for every table of a running tournament, the whole of what that
table must act on now, retained, so that a table that starts, or whose link comes back, reads
where the room is at once::

    {"v": 1, "tournament": "main",
     "level": {"n": 5, "kind": "level", "sb": 100, "bb": 200, "ante": 25, "game": "holdem"},
     "h4h": {"on": true, "round": 7},
     "bubble": {"mode": true, "on": true, "table": "t3", "hand": 42},
     "clock": {"seat": 4, "n": 2}}

- ``level``: the level now (``kind`` ``break`` during a break; ``game`` for a mixed event; null
  before the clock starts);
- ``h4h``: hand-for-hand on or off, and ``round``, the releases the floor has given in this
  tournament: a table holding is released by any round above the one it last saw;
- ``bubble``: ``mode``, the bubble is on for the tournament (the dealer presses ``allin`` when an
  all-in is called); ``on`` while another table's called all-in holds the room (``table``,
  ``hand``);
- ``clock``: the last player clock the floor called at this table (``n`` counts them: a call is
  made once, whatever number of times the message arrives).

The table turns the difference between the message and what it last applied into core events
(:func:`signals_for`), journalled like every event. A message that is not exactly this shape,
in bounds, is refused whole (:class:`SignalError`, one line naming the field) and the table
keeps what it had.

>>> s = parse_signal(b'{"v": 1, "tournament": "main", "level": {"n": 2, "kind": "level", "sb": 50, '
...                  b'"bb": 100, "ante": 0, "game": null}, "h4h": {"on": false, "round": 0}, '
...                  b'"bubble": {"mode": false, "on": false, "table": null, "hand": null}, "clock": null}')
>>> [type(e).__name__ for e in signals_for(Seen(), s, ts=1.0)]
['LevelSet']
>>> parse_signal(b'{"v": 1, "tournament": "main", "level": {"n": -1}}')
Traceback (most recent call last):
...
controller.room.tournament.SignalError: tournament signal: level: missing kind, sb, bb, ante, game
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from controller.core.events import (LEVEL_KINDS, BubbleHold, BubbleMode, ClockCalled, Event, HandForHand,
                                  LevelSet, Release)
from controller.core.settings import GAMES
from controller.room import strict_json

#: the largest signal, in bytes (a real one is about 250)
MAX_SIGNAL = 4096
#: the most levels a structure has, the most releases, calls and chips any value may count
MAX_LEVEL = 1000
MAX_COUNT = 1_000_000
MAX_CHIPS = 10**12
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


class SignalError(ValueError):
    """A tournament signal refused: what is wrong, in one line (never the payload itself)."""


def tournament_topic(room: str, table: str) -> str:
    """The retained topic of ``table``'s tournament signal."""
    return f"tablectl/{room}/{table}/floor/tournament"


@dataclass(frozen=True, slots=True)
class Level:
    """A level of the structure, as the signal carries it."""

    n: int
    kind: str = "level"
    sb: int | None = None
    bb: int | None = None
    ante: int | None = None
    game: str | None = None


@dataclass(frozen=True, slots=True)
class Signal:
    """One tournament signal, checked."""

    tournament: str
    level: Level | None = None
    h4h: bool = False
    round: int = 0
    bubble_mode: bool = False
    bubble: bool = False
    bubble_table: str | None = None
    bubble_hand: int | None = None
    clock_seat: int | None = None
    clock_n: int = 0


@dataclass(frozen=True, slots=True)
class Seen:
    """What a table last applied of its tournament's signals (its core's tournament part keeps
    it: a restart does not apply a signal twice)."""

    tournament: str | None = None
    level: int | None = None
    kind: str | None = None
    h4h: bool = False
    round: int = 0
    bubble_mode: bool = False
    bubble: bool = False
    bubble_table: str | None = None
    bubble_hand: int | None = None
    clock_n: int = 0


def _int(where: str, v: Any, lo: int, hi: int, *, null: bool = False) -> int | None:
    if v is None and null:
        return None
    if type(v) is not int or not lo <= v <= hi:
        raise SignalError(f"tournament signal: {where}: want a whole number {lo} to {hi}"
                          + (" or null" if null else ""))
    return v


def _name(where: str, v: Any, *, null: bool = False) -> str | None:
    if v is None and null:
        return None
    if type(v) is not str or not _NAME.match(v):
        raise SignalError(f"tournament signal: {where}: want a name of letters, digits, '_', '.', '-'"
                          + (" or null" if null else ""))
    return v


def _object(where: str, v: Any, keys: tuple[str, ...]) -> dict[str, Any]:
    if type(v) is not dict:
        raise SignalError(f"tournament signal: {where}: want an object")
    missing, unknown = [k for k in keys if k not in v], sorted(set(v) - set(keys))
    if missing or unknown:
        said = (["missing " + ", ".join(missing)] if missing else []) + (["unknown " + ", ".join(unknown)]
                                                                          if unknown else [])
        raise SignalError(f"tournament signal: {where}: " + "; ".join(said))
    return v


def _level(v: Any) -> Level | None:
    if v is None:
        return None
    d = _object("level", v, ("n", "kind", "sb", "bb", "ante", "game"))
    kind = d["kind"]
    if kind not in LEVEL_KINDS:
        raise SignalError(f"tournament signal: level.kind: want one of {', '.join(LEVEL_KINDS)}")
    game = d["game"]
    if game is not None and game not in GAMES:
        raise SignalError("tournament signal: level.game: no game the table deals")
    sb = _int("level.sb", d["sb"], 0, MAX_CHIPS, null=True)
    bb = _int("level.bb", d["bb"], 0, MAX_CHIPS, null=True)
    if sb is not None and bb is not None and sb > bb:
        raise SignalError("tournament signal: level: the small blind is over the big blind")
    return Level(n=_int("level.n", d["n"], 1, MAX_LEVEL) or 1, kind=kind, sb=sb, bb=bb,
                 ante=_int("level.ante", d["ante"], 0, MAX_CHIPS, null=True), game=game)


def parse_signal(payload: bytes) -> Signal:
    """The signal ``payload`` carries; :class:`SignalError` if it is not exactly one."""
    if len(payload) > MAX_SIGNAL:
        raise SignalError(f"tournament signal: {len(payload)} bytes (at most {MAX_SIGNAL})")
    try:
        body = strict_json.loads(payload)
    except (ValueError, RecursionError) as exc:  # (UnicodeDecodeError is a ValueError)
        raise SignalError(f"tournament signal: not JSON ({type(exc).__name__})") from exc
    if type(body) is not dict:
        raise SignalError("tournament signal: want an object")
    if body.get("v") != 1:
        raise SignalError("tournament signal: v: want 1")
    unknown = sorted(set(body) - {"v", "tournament", "level", "h4h", "bubble", "clock"})
    if unknown:
        raise SignalError(f"tournament signal: unknown {', '.join(unknown)}")
    d = {k: body.get(k) for k in ("tournament", "level", "h4h", "bubble", "clock")}
    h4h = _object("h4h", d["h4h"] if d["h4h"] is not None else {"on": False, "round": 0}, ("on", "round"))
    bubble = _object("bubble", d["bubble"] if d["bubble"] is not None else
                     {"mode": False, "on": False, "table": None, "hand": None}, ("mode", "on", "table", "hand"))
    for where, v in (("h4h.on", h4h["on"]), ("bubble.mode", bubble["mode"]), ("bubble.on", bubble["on"])):
        if type(v) is not bool:
            raise SignalError(f"tournament signal: {where}: want true or false")
    clock = d["clock"]
    seat = n = None
    if clock is not None:
        c = _object("clock", clock, ("seat", "n"))
        seat, n = _int("clock.seat", c["seat"], 1, 10), _int("clock.n", c["n"], 1, MAX_COUNT)
    if bubble["on"] and (bubble["table"] is None or bubble["hand"] is None):
        raise SignalError("tournament signal: bubble: a hold names its table and hand")
    return Signal(tournament=_name("tournament", d["tournament"]) or "", level=_level(d["level"]),
                  h4h=h4h["on"], round=_int("h4h.round", h4h["round"], 0, MAX_COUNT) or 0,
                  bubble_mode=bubble["mode"], bubble=bubble["on"],
                  bubble_table=_name("bubble.table", bubble["table"], null=True),
                  bubble_hand=_int("bubble.hand", bubble["hand"], 1, MAX_COUNT, null=True),
                  clock_seat=seat, clock_n=n or 0)


def signal_to_payload(s: Signal) -> bytes:
    """The message of ``s`` (the floor's side), in the form :func:`parse_signal` reads."""
    level = None if s.level is None else {"n": s.level.n, "kind": s.level.kind, "sb": s.level.sb,
                                          "bb": s.level.bb, "ante": s.level.ante, "game": s.level.game}
    body = {"v": 1, "tournament": s.tournament, "level": level, "h4h": {"on": s.h4h, "round": s.round},
            "bubble": {"mode": s.bubble_mode, "on": s.bubble, "table": s.bubble_table, "hand": s.bubble_hand},
            "clock": None if s.clock_seat is None else {"seat": s.clock_seat, "n": s.clock_n}}
    return json.dumps(body, separators=(",", ":")).encode()


def signals_for(seen: Seen, s: Signal, *, ts: float, mono: float | None = None,
                boot: str | None = None) -> list[Event]:
    """The core events that take a table from what it applied (``seen``) to signal ``s``: only
    what changed, so a signal read twice (a reconnect, a restart) does nothing twice."""
    out: list[Event] = []
    if s.level is not None and (seen.tournament, seen.level, seen.kind) != (s.tournament, s.level.n, s.level.kind):
        lv = s.level
        out.append(LevelSet(ts, s.tournament, lv.n, lv.kind, lv.sb, lv.bb, lv.ante, lv.game))
    if s.h4h != seen.h4h:
        out.append(HandForHand(ts, s.h4h))
    if s.round > seen.round or (seen.tournament is not None and seen.tournament != s.tournament
                                and s.round != seen.round):
        out.append(Release(ts, s.round))
    if s.bubble_mode != seen.bubble_mode:
        out.append(BubbleMode(ts, s.bubble_mode))
    bubble = (s.bubble, s.bubble_table, s.bubble_hand) if s.bubble else (False, None, None)
    if bubble != (seen.bubble, seen.bubble_table, seen.bubble_hand):
        out.append(BubbleHold(ts, *bubble))
    if s.clock_seat is not None and s.clock_n > seen.clock_n:
        out.append(ClockCalled(ts, s.clock_seat, mono=mono, boot=boot, n=s.clock_n))
    return out

