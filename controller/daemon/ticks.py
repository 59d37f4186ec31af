"""When the daemon's loop sends a :class:`controller.core.events.Tick`: the core has no clock, so
whatever at the table waits on time needs the shell's ticks, once a second, while it waits:

- a device offline: the core tells the floor when it stays away (``offline_floor_after``);
- a player clock counting down (FLOW-004: 30 s, warnings at 20 and 10, then 5-4-3-2-1 and
  "seat s dead"): each second must reach the dealer's display on time.

The first tick goes at once (a clock just called is counted from it), then one every
:data:`TICK_EVERY` seconds in the same phase: a loop that is late one turn does not shift the
seconds that follow, nor send a burst to catch up. A clock called while ticks already run for an
offline device starts a phase of its own. :meth:`Ticks.wait` tells the loop how long it may
block on its queue so that the next tick is not late.

>>> from types import SimpleNamespace as NS
>>> clock = NS(running=False)
>>> table = NS(devices_offline=set(), tournament=NS(clock_running=lambda: clock.running))
>>> ticks = Ticks()
>>> ticks.due(table, 10.0), ticks.wait(10.0, 0.2)
(False, 0.2)
>>> clock.running = True
>>> [t for t in (10.3, 10.9, 11.3, 12.2, 12.29, 12.31, 15.0, 15.2) if ticks.due(table, t)]
[10.3, 11.3, 12.31, 15.0]
>>> round(ticks.wait(15.2, 0.2), 2)  # the next second is 15.3
0.1
"""

from __future__ import annotations

from typing import Any

#: seconds between two ticks
TICK_EVERY = 1.0


def waits_on_time(table: Any) -> bool:
    """The table waits on time: a device away, or a player's clock counting down (the daemon's
    loop and the simulator's pacing both tick once a second then)."""
    return bool(table.devices_offline) or bool(table.tournament.clock_running())


class Ticks:
    """The loop's tick schedule (see the module): ask :meth:`due` at every turn."""

    def __init__(self, every: float = TICK_EVERY) -> None:
        self.every = every
        self._next: float | None = None  # when the next tick is due (monotonic seconds); None: no ticks
        self._clock = False  # a player clock was counting at the last turn

    def due(self, table: Any, now: float) -> bool:
        """Whether the loop sends a tick at ``now`` (monotonic seconds)."""
        clock = bool(table.tournament.clock_running())
        if not clock and not table.devices_offline:
            self._next, self._clock = None, False
            return False
        called, self._clock = clock and not self._clock, clock
        if self._next is None or called:
            self._next = now + self.every  # the phase: from the first tick of this wait
            return True
        if now < self._next:
            return False
        while self._next <= now:  # in phase, and no burst after a slow turn
            self._next += self.every
        return True

    def wait(self, now: float, most: float) -> float:
        """How long the loop may wait for an event at ``now``: ``most``, or less if a tick falls due sooner."""
        if self._next is None:
            return most
        return max(0.0, min(most, self._next - now))
