"""Where effects go: each sink takes only the audiences it is trusted with.

- :class:`FeedSink`: the private JSON-lines feed (floor audience: everything, hole cards
  included). File permissions 0600; for the floor's tools and ``tablectl simulate``.
- :class:`LogSink`: alerts into the log, for the technician. Hole cards never go there.
- :class:`CallbackSink`: in-process consumers (the demo's view), filtered by audience.
"""

from __future__ import annotations

import json
import logging
import os
from typing import Callable, Iterable, Sequence

from controller.effects import Alert, Effect, effect_to_dict

log = logging.getLogger("tablectl.alerts")

_RANK = {"public": 0, "dealer": 1, "floor": 2}


def visible_to(effect: Effect, clearance: str) -> bool:
    """Whether an effect addressed to ``effect.audience`` may reach an output cleared for
    ``clearance``: a floor output sees everything, a public one only public effects."""
    return _RANK[effect.audience] <= _RANK[clearance]


class Sink:
    clearance = "public"

    def write(self, effects: Sequence[Effect]) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


class FeedSink(Sink):
    clearance = "floor"

    def __init__(self, path: str) -> None:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self._f = os.fdopen(fd, "a", buffering=1)

    def note(self, record: dict) -> None:
        self._f.write(json.dumps(record, separators=(",", ":")) + "\n")

    def write(self, effects: Sequence[Effect]) -> None:
        lines = [json.dumps(effect_to_dict(e), separators=(",", ":")) for e in effects]
        if lines:
            self._f.write("\n".join(lines) + "\n")

    def close(self) -> None:
        self._f.close()


class LogSink(Sink):
    clearance = "dealer"  # the log is read by technicians: no hole cards, no deck faults' cards

    def write(self, effects: Sequence[Effect]) -> None:
        for e in effects:
            if isinstance(e, Alert):
                log.warning("%s alert %s (%s): %s", e.audience, e.code, e.rule or "-", e.message)


class CallbackSink(Sink):
    def __init__(self, fn: Callable[[list[Effect]], None], clearance: str = "public") -> None:
        self.fn = fn
        self.clearance = clearance

    def write(self, effects: Sequence[Effect]) -> None:
        if effects:  # fan_out has filtered them for this sink's clearance already
            self.fn(list(effects))


_failing: set[tuple[int, type]] = set()


def fan_out(sinks: Iterable[Sink], effects: Sequence[Effect]) -> None:
    """Give each sink what it is cleared for. A sink that fails (a full disk, a viewer's bug)
    is logged once per kind of failure and skipped: it never stops the table."""
    for s in sinks:
        try:
            s.write(effects if s.clearance == "floor" else [e for e in effects if visible_to(e, s.clearance)])
        except Exception as exc:
            key = (id(s), type(exc))
            if key not in _failing:
                _failing.add(key)
                logging.getLogger("tablectl.daemon").error("daemon: output %s failed (%s); it is skipped "
                                                           "until it works again", type(s).__name__, exc)
