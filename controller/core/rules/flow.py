"""Tournament flow (docs/rules.md §19), the parts that are arithmetic: the player clock's
countdown (FLOW-004). The table's part that runs the tournament's signals is
:mod:`controller.core.table.tournament`.

The clock gives the player ``CLOCK_S`` seconds (30, 003 §Clock); the dealer's display counts
them down: the call itself (30), the warnings at 20 and 10, then 5, 4, 3, 2, 1, and at 0 the hand
is dead. Each count is said once, when the time left reaches it: at the first reading at or
past it (the daemon reads the clock once a second, so a count is late by less than a second,
never early):

>>> [clock_due(e, 30) for e in (0.0, 9.9, 10.0, 10.4)]
[None, None, 20, 20]
>>> clock_due(25.0, 10), clock_due(26.2, 5), clock_due(30.0, 1)
(5, 4, 0)

A reading that jumps past several counts (a late tick) says only the last one reached: the
display shows the time left, not a backlog:

>>> clock_due(25.5, 20)
5

The time counted follows the monotonic clock (:func:`clock_step`): a wall clock set back or on
while the clock runs changes nothing.
"""

from __future__ import annotations

#: FLOW-004: the player's time (CLOCK_S of docs/rules.md §20)
CLOCK_S = 30
#: the counts the display says, highest first: the call, the warnings, the last five (003 §Clock)
CLOCK_COUNTS = (30, 20, 10, 5, 4, 3, 2, 1)
#: the most wall time one step may add when the two readings cannot be compared on the monotonic
#: clock (a pad's call carries none; a restart is another boot): the daemon reads every second,
#: so a larger step is the wall clock set, or the time the table was down
MAX_WALL_STEP = 1.0
#: (readings a millionth of a second short of a count are at it: float sums of ticks)
_EPS = 1e-6


def clock_due(elapsed: float, told: int) -> int | None:
    """The count due ``elapsed`` seconds after the call, if it is lower than the last one said
    (``told``); 0 when the time is up; None when nothing new is due."""
    left = CLOCK_S - elapsed
    if left <= _EPS:
        return 0
    due = min(c for c in CLOCK_COUNTS if c >= left - _EPS)
    return due if due < told else None


def clock_step(ts: float, mono: float | None, boot: str | None, last: tuple[float, float | None, str | None]) -> float:
    """The seconds from the reading ``last`` (wall ``ts``, monotonic ``mono``, ``boot``) to this
    one: on the monotonic clock when both have a reading of the same boot; on the wall clock when
    neither has one (journal rows from before the readings, as :mod:`controller.core.table.devices`
    reads them); otherwise the wall clock's step, at most :data:`MAX_WALL_STEP` (the count goes
    on late rather than early).

    >>> clock_step(100.0 + 86400, 12.0, "b1", (100.0, 11.0, "b1"))  # the wall clock set a day on
    1.0
    >>> clock_step(7.0, 50.0, "b2", (5.0, 11.0, "b1"))  # another boot (a restart): at most a second
    1.0
    >>> clock_step(105.5, None, None, (100.0, None, None))  # rows of an earlier release: wall time
    5.5
    >>> clock_step(100.5, 20.0, "b1", (100.0, None, None))  # the dealer's pad (no reading) and a tick
    0.5
    """
    last_ts, last_mono, last_boot = last
    if mono is not None and last_mono is not None and boot == last_boot and mono >= last_mono:
        return mono - last_mono
    wall = max(ts - last_ts, 0.0)
    if mono is None and last_mono is None:
        return wall
    return min(wall, MAX_WALL_STEP)
