"""Where effects go: each sink takes only the audiences it is trusted with.

- :class:`FeedSink`: the private JSON-lines feed (floor audience: everything, hole cards
  included). File permissions 0600; for the floor's tools and ``tablectl simulate``.
- :class:`LogSink`: alerts into the log, for the technician: floor alerts by code and rule
  only. Hole cards, UIDs and the seat of a foul card never go there.
- :class:`CallbackSink`: in-process consumers (the demo's view), filtered by audience.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable, Sequence

from controller.core.effects import Alert, Effect, effect_to_dict
from controller.daemon.private import open_private

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
        self._f = open_private(path, "a", buffering=1)  # it holds hole cards: 0600 even if it existed

    def note(self, record: dict) -> None:
        self._f.write(json.dumps(record, separators=(",", ":")) + "\n")

    def write(self, effects: Sequence[Effect]) -> None:
        lines = [json.dumps(effect_to_dict(e), separators=(",", ":")) for e in effects]
        if lines:
            self._f.write("\n".join(lines) + "\n")

    def close(self) -> None:
        self._f.close()


class LogSink(Sink):
    """Alerts into the technician's log. A floor alert by its code and rule only: its message
    names the card, the seat a foul card lies at, a tag's UID (the floor's business, never the
    log's). A dealer's or public alert with its message, which the dealer reads at the table
    anyway; never an alert's ``card`` field.

    >>> import logging, sys
    >>> h = logging.StreamHandler(sys.stdout); h.setFormatter(logging.Formatter("%(message)s"))
    >>> log.addHandler(h)
    >>> LogSink().write([Alert(1.0, "deck.unknown_tag", "floor", "seat 3: tag E004015012345678 of no deck",
    ...                        rule="DECK-006", seat=3, card="tag:E004015012345678", hand=2),
    ...                  Alert(1.0, "deck.new_setup", "dealer", "new setup", hand=2)])
    floor alert deck.unknown_tag (DECK-006)
    dealer alert deck.new_setup (-): new setup
    >>> log.removeHandler(h)
    """

    # Cleared for everything so that floor alerts reach it at all; what it writes of them is
    # decided here, alert by alert.
    clearance = "floor"

    def write(self, effects: Sequence[Effect]) -> None:
        for e in effects:
            if not isinstance(e, Alert):
                continue
            if e.audience == "floor":
                log.warning("floor alert %s (%s)", e.code, e.rule or "-")
            else:
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
