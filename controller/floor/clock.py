"""The tournament's level clock as data (FLOW-001): where it is, computed from what it was at its
last change and the time since, never ticked; no I/O, no clock of its own (the service passes the
time in).

The clock is kept as the step of the structure it is in, the seconds of that step used (``spent``)
and the seconds added to it (``added``, "add time"; negative: taken off), read at a moment
(:class:`Moment`: the monotonic clock, the boot it belongs to, the wall clock). While it runs,
the time since that moment is used up step by step; paused, it stays. Each action (start, pause,
resume, skip, add time) first brings it to now, then changes it: the store keeps the result
(controller/floor/store.py, ``tournaments``), so a restart of the floor resumes it where it would
have been had the service run on.

**Time across a restart.** Within one boot the time since is read on the monotonic clock (which
only moves forward, whatever is done to the wall clock): a restart of the service resumes
without drift. After a reboot the monotonic readings of two boots cannot be compared (the clock
starts again near zero), so the time since is read on the wall clock, never less than nothing,
and the clock is brought to that moment of the new boot at once (:func:`where`): from then on it
is on the new boot's monotonic clock again. The daemon's timers start again after a reboot (the
floor told late rather than early: docs/journal.md); a level clock must not, since the
tournament went on meanwhile: the wall time is the only reading that spans the reboot.

A structure of 20 minutes at 25/50, a 10 minute break, 20 minutes at 50/100:

>>> from controller.config.structure import Step, Structure
>>> s = Structure((Step("level", 1, 20, 25, 50, 0), Step("break", 2, 10), Step("level", 2, 20, 50, 100, 10)))
>>> c = start(s, LevelClock(), Moment(100.0, "b1", 5000.0))
>>> v = view(s, c, Moment(100.0 + 19 * 60, "b1", 0.0))
>>> v.level.n, v.time_left, v.to_break
(1, 60.0, 60.0)
>>> v = view(s, c, Moment(100.0 + 25 * 60, "b1", 0.0))
>>> v.level.kind, v.time_left, v.next.big_blind
('break', 300.0, 100)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.config.structure import Step, Structure


class ClockError(ValueError):
    """An action the clock cannot take now (paused already, not started): one line."""


@dataclass(frozen=True, slots=True)
class Moment:
    """A reading of the clocks: ``mono`` (seconds of the monotonic clock), ``boot`` (the boot
    it belongs to: firmware_bridge.clock), ``wall`` (seconds since the epoch)."""

    mono: float
    boot: str
    wall: float


def between(then: Moment, now: Moment) -> float:
    """Seconds from ``then`` to ``now``: on the monotonic clock within one boot, else on the wall
    clock, and never less than nothing (a wall clock set back at boot, before NTP).

    >>> between(Moment(10.0, "a", 1000.0), Moment(70.0, "a", 5.0))
    60.0
    >>> between(Moment(10.0, "a", 1000.0), Moment(3.0, "b", 1300.0)), between(Moment(10.0, "a", 1000.0),
    ...                                                                       Moment(3.0, "b", 900.0))
    (300.0, 0.0)
    """
    if then.boot == now.boot:
        return max(0.0, now.mono - then.mono)
    return max(0.0, now.wall - then.wall)


@dataclass(frozen=True, slots=True)
class LevelClock:
    """The clock as the store keeps it: whether it started and runs, the step it is in, the
    seconds of it used and added, read at ``at``."""

    started: bool = False
    running: bool = False
    step: int = 0
    spent: float = 0.0
    added: float = 0.0
    at: Moment | None = None

    def to_dict(self) -> dict[str, Any]:
        at = None if self.at is None else {"mono": self.at.mono, "boot": self.at.boot, "wall": self.at.wall}
        return {"started": self.started, "running": self.running, "step": self.step, "spent": self.spent,
                "added": self.added, "at": at}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LevelClock:
        """The clock the store kept; ValueError if it is not one (the service then starts afresh)."""
        at = d.get("at")
        moment = None if at is None else Moment(float(at["mono"]), str(at["boot"]), float(at["wall"]))
        clock = cls(started=bool(d["started"]), running=bool(d["running"]), step=int(d["step"]),
                    spent=float(d["spent"]), added=float(d["added"]), at=moment)
        if clock.step < 0 or clock.spent < 0 or (clock.running and moment is None):
            raise ValueError("not a level clock")
        return clock


@dataclass(frozen=True, slots=True)
class ClockView:
    """Where the clock is at a moment: the level (or break) now, its time left, the next step,
    the time to the next break (None: none to come), whether it runs."""

    started: bool
    running: bool
    step: int
    level: Step
    time_left: float
    next: Step | None
    to_break: float | None
    #: the last step: it lasts until the tournament ends
    last: bool


def _length(s: Structure, step: int, added: float) -> float:
    return max(0.0, s.steps[step].seconds + added)


def where(s: Structure, c: LevelClock, now: Moment) -> LevelClock:
    """The clock brought to ``now``: the time since its reading used up step by step while it
    runs (the last step stays, its time at nothing), read again at ``now``."""
    if not c.started:
        return c
    step = min(c.step, len(s.steps) - 1)
    spent, added = c.spent, c.added
    if c.running and c.at is not None:
        spent += between(c.at, now)
    last = len(s.steps) - 1
    while step < last and spent >= _length(s, step, added):
        spent -= _length(s, step, added)
        step, added = step + 1, 0.0
    if step == last:
        spent = min(spent, _length(s, step, added))
    return replace(c, step=step, spent=spent, added=added, at=now)


def view(s: Structure, c: LevelClock, now: Moment) -> ClockView:
    """What the clock shows at ``now`` (before the start: the first level, its whole time)."""
    c = where(s, c, now)
    step = min(c.step, len(s.steps) - 1)
    left = _length(s, step, c.added) - c.spent
    to_break: float | None = None
    ahead = left
    for i in range(step + 1, len(s.steps)):
        if s.steps[i].kind == "break":
            to_break = ahead
            break
        ahead += s.steps[i].seconds
    return ClockView(started=c.started, running=c.running, step=step, level=s.steps[step], time_left=max(0.0, left),
                     next=s.steps[step + 1] if step + 1 < len(s.steps) else None, to_break=to_break,
                     last=step == len(s.steps) - 1)


def until_change(s: Structure, c: LevelClock, now: Moment) -> float | None:
    """Seconds from ``now`` until the clock moves to its next step (None: it does not run, or is
    in its last step): the service looks again then."""
    v = view(s, c, now)
    if not v.running or v.last:
        return None
    return v.time_left


def start(s: Structure, c: LevelClock, now: Moment) -> LevelClock:
    """The clock starts, at the first step, running."""
    if c.started:
        raise ClockError("the clock has started already (pause and resume it, or skip)")
    return LevelClock(started=True, running=True, step=0, spent=0.0, added=0.0, at=now)


def pause(s: Structure, c: LevelClock, now: Moment) -> LevelClock:
    if not c.started:
        raise ClockError("the clock has not started")
    if not c.running:
        raise ClockError("the clock is paused already")
    return replace(where(s, c, now), running=False)


def resume(s: Structure, c: LevelClock, now: Moment) -> LevelClock:
    if not c.started:
        raise ClockError("the clock has not started: start it")
    if c.running:
        raise ClockError("the clock runs already")
    return replace(where(s, c, now), running=True)


def skip(s: Structure, c: LevelClock, now: Moment, by: int = 1) -> LevelClock:
    """``by`` steps on (a negative ``by``: back), at the start of that step, running or paused as
    it was; not past the first or the last step."""
    if not c.started:
        raise ClockError("the clock has not started")
    c = where(s, c, now)
    step = max(0, min(len(s.steps) - 1, c.step + by))
    if step == c.step:
        raise ClockError("no step " + ("after the last" if by > 0 else "before the first"))
    return replace(c, step=step, spent=0.0, added=0.0)


def add(s: Structure, c: LevelClock, now: Moment, seconds: float) -> LevelClock:
    """``seconds`` more to the step now (taken off if negative; taking off more than is left
    ends the step: the clock moves on)."""
    if not c.started:
        raise ClockError("the clock has not started")
    c = where(s, c, now)
    # (no less than what is used: time taken off past the end ends the step now, and the next
    # one starts whole, not short of what was taken off)
    added = max(c.added + seconds, c.spent - s.steps[c.step].seconds)
    return where(s, replace(c, added=added), now)
