"""A tournament as the floor keeps it, and the signal each of its tables gets from it
(controller/room/tournament.py: the retained ``floor/tournament`` topic). Pure: the director
(controller/floor/director.py) keeps it in the store and publishes what changed.

What a table gets is computed, never edited by hand: the level from the clock at that moment
(FLOW-001), hand-for-hand and the releases given (FLOW-002), the bubble's mode and the oldest
hold of *another* table (FLOW-003: the table whose all-in holds the room does not wait for
itself), and the last player clock the floor called at that table (FLOW-004).

>>> from controller.config.structure import Step, Structure
>>> s = Structure((Step("level", 1, 20, 25, 50, 0),))
>>> t = TournamentState(bubble_mode=True, holds=[Hold("main", "t3", 42, 10.0)])
>>> signal_for("main", s, t, "main", "t3", None).bubble, signal_for("main", s, t, "main", "t5", None).bubble_table
(False, 't3')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.config.structure import Structure
from controller.floor.clock import ClockView, LevelClock
from controller.room.tournament import Level, Signal


@dataclass(frozen=True, slots=True)
class Hold:
    """A called all-in on the bubble (FLOW-003): ``room/table``'s hand ``hand`` holds the other
    tables of its tournament, since ``since`` (wall time)."""

    room: str
    table: str
    hand: int
    since: float


@dataclass
class TournamentState:
    """What the floor keeps of one tournament (the store's ``tournaments`` row)."""

    clock: LevelClock = field(default_factory=LevelClock)
    h4h: bool = False
    #: the releases given (the signal's ``h4h.round``)
    round: int = 0
    #: when the round now began (wall time): hand-for-hand turned on, or the last release
    round_since: float | None = None
    bubble_mode: bool = False
    #: the holds open, oldest first
    holds: list[Hold] = field(default_factory=list)
    #: "room/table" -> [seat, n]: the last player clock the floor called there, and how many
    clocks: dict[str, list[int]] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"clock": self.clock.to_dict(), "h4h": self.h4h, "round": self.round, "round_since": self.round_since,
                "bubble_mode": self.bubble_mode,
                "holds": [[h.room, h.table, h.hand, h.since] for h in self.holds],
                "clocks": {k: list(v) for k, v in self.clocks.items()}}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> TournamentState:
        """The state the store kept; ValueError (or KeyError, TypeError) if it is not one."""
        return cls(clock=LevelClock.from_dict(d["clock"]), h4h=bool(d["h4h"]), round=int(d["round"]),
                   round_since=None if d["round_since"] is None else float(d["round_since"]),
                   bubble_mode=bool(d["bubble_mode"]),
                   holds=[Hold(str(r), str(t), int(h), float(s)) for r, t, h, s in d["holds"]],
                   clocks={str(k): [int(v[0]), int(v[1])] for k, v in d["clocks"].items()})

    def hold_for(self, room: str, table: str) -> Hold | None:
        """The hold ``room/table`` waits for: the oldest of another table."""
        return next((h for h in self.holds if (h.room, h.table) != (room, table)), None)


def level_of(v: ClockView | None) -> Level | None:
    """The signal's level of the clock's view (None: the clock has not started)."""
    if v is None or not v.started:
        return None
    s = v.level
    return Level(n=s.n, kind=s.kind, sb=s.small_blind, bb=s.big_blind, ante=s.ante, game=s.game)


def signal_for(name: str, structure: Structure, t: TournamentState, room: str, table: str,
               v: ClockView | None) -> Signal:
    """The whole of what ``room/table`` must act on now, ``v`` the clock's view now."""
    hold = t.hold_for(room, table) if t.bubble_mode else None
    called = t.clocks.get(f"{room}/{table}")
    return Signal(tournament=name, level=level_of(v), h4h=t.h4h, round=t.round, bubble_mode=t.bubble_mode,
                  bubble=hold is not None, bubble_table=hold.table if hold else None,
                  bubble_hand=hold.hand if hold else None,
                  clock_seat=called[0] if called else None, clock_n=called[1] if called else 0)


@dataclass(frozen=True, slots=True)
class TableSeen:
    """What the floor knows of one table of a tournament, for the hand-for-hand board: its
    retained state (``online``; ``holding``, absent from a table that does not say it, and when
    the state came), the first hand record received since the round began (None: none), the
    players seated."""

    room: str
    table: str
    online: bool
    holding: str | None = None
    says_holding: bool = False
    state_at: float | None = None
    hand_since: float | None = None
    players: int = 0


def h4h_status(t: TableSeen, round_since: float | None, now: float) -> tuple[str, float | None]:
    """The board's word for ``t`` in the round begun at ``round_since`` (FLOW-002), and the
    seconds it took (done) or has taken so far (dealing): ``offline`` (it holds until released
    or back), ``done`` (its hand finished and it holds), ``dealing``.

    A table that says whether it holds (its state's ``holding``) is done when it says so, from
    a state of this round or with a hand finished in it; one that does not say is done when a
    hand record has come from it in this round.

    >>> h4h_status(TableSeen("main", "t1", True, hand_since=130.0), 100.0, 150.0)
    ('done', 30.0)
    >>> h4h_status(TableSeen("main", "t1", True, holding="h4h", says_holding=True, state_at=90.0), 100.0, 150.0)
    ('dealing', 50.0)
    """
    since = round_since if round_since is not None else now
    if not t.online:
        return "offline", None
    if t.says_holding:
        fresh = (t.state_at is not None and t.state_at >= since) or t.hand_since is not None
        if t.holding is not None and fresh:
            done_at = t.hand_since if t.hand_since is not None else t.state_at
            return "done", max(0.0, (done_at or since) - since)
        return "dealing", max(0.0, now - since)
    if t.hand_since is not None:
        return "done", max(0.0, t.hand_since - since)
    return "dealing", max(0.0, now - since)
