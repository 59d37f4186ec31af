"""The floor's tournament signal as a table takes it in: the retained message of
``tablectl/<room>/<table>/floor/tournament`` (:mod:`controller.room.tournament`, docs/room.md
"The tournament signal").

Two threads share it, and it keeps them apart:

- the room link's MQTT thread :meth:`SignalInbox.put` s each message: parsed and checked there
  (:func:`~controller.room.tournament.parse_signal`); a good one is kept as the latest, a
  malformed one is refused whole, counted, and said in one log line naming the table and what
  is wrong (never the payload), and the table keeps what it had;
- the daemon's loop thread, the only one that touches the table, asks :meth:`SignalInbox.events`
  for the core events that take the table from what it last applied (its ``seen`` view) to the
  latest signal. Only the latest counts: a signal is the whole of what the table must act on
  now, so one that arrives while the loop is busy simply replaces the one before.

:class:`SignalDue` is what the MQTT thread puts on the daemon's queue to have the loop look
(it is no core event, and is never journalled: the events the loop makes from it are).

>>> inbox = SignalInbox("r1/t1")
>>> inbox.put(b'{"v": 1, "tournament": "main", "level": {"n": 2, "kind": "level", "sb": 50, "bb": 100, '
...           b'"ante": 0, "game": null}}')
True
>>> gen, events = inbox.events(Seen(), ts=1.0)
>>> gen, [(type(e).__name__, e.level) for e in events]
(1, [('LevelSet', 2)])
>>> inbox.put(b'{"v": 1, "tournament": "main", "level": {"n": 3}}')  # refused: the table keeps level 2
False
>>> inbox.counts()
{'received': 1, 'refused': 1, 'last_refused': 'tournament signal: level: missing kind, sb, bb, ante, game'}
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from controller.core.events import Event
from controller.room.tournament import Seen, Signal, SignalError, parse_signal, signals_for

log = logging.getLogger("tablectl.room")


@dataclass(frozen=True, slots=True)
class SignalDue:
    """On the daemon's queue: the latest signal may hold something the table has not applied.
    ``settles``: put after the events of one turn, once they are all queued; the loop looks
    again then (a signal that arrived meanwhile), and not before (its ``seen`` view would lag
    behind the events still queued)."""

    settles: bool = False


class SignalInbox:
    """The latest good signal and the counts (see the module); thread-safe."""

    def __init__(self, where: str) -> None:
        """``where``: the table, as the log names it (``room/table``)."""
        self.where = where
        self._lock = threading.Lock()
        self._latest: Signal | None = None
        self.generation = 0  # one more at each signal taken: the loop's turn knows what it saw
        self.received = 0
        self.refused = 0
        self.last_refused: str | None = None

    def put(self, payload: bytes) -> bool:
        """One message of the topic (the MQTT thread): True if it is a signal to look at. An
        empty message is the floor's retained signal removed (no tournament for this table any
        more): nothing to apply, and nothing refused, so the table keeps what it had."""
        if not payload:
            log.info("room: %s: the floor removed its tournament signal; the table keeps what it applied",
                     self.where)
            return False
        try:
            signal = parse_signal(payload)
        except SignalError as exc:  # (its text names the field, never the value: it goes to the log)
            with self._lock:
                self.refused += 1
                self.last_refused = str(exc)
                n = self.refused
            log.warning("room: %s: the floor's tournament signal refused (%d so far): %s; the table keeps "
                        "what it had", self.where, n, exc)
            return False
        with self._lock:
            self._latest = signal
            self.generation += 1
            self.received += 1
        return True

    def events(self, seen: Seen, *, ts: float, mono: float | None = None,
               boot: str | None = None) -> tuple[int, list[Event]]:
        """The generation of the latest signal, and the events that take a table that applied
        ``seen`` to it (none: nothing new, or no signal yet). The loop thread's."""
        with self._lock:
            signal, generation = self._latest, self.generation
        if signal is None:
            return generation, []
        return generation, signals_for(seen, signal, ts=ts, mono=mono, boot=boot)

    def counts(self) -> dict[str, Any]:
        """For the daemon's status (the control socket's ``ping``) and the retained ``state``."""
        with self._lock:
            return {"received": self.received, "refused": self.refused, "last_refused": self.last_refused}
