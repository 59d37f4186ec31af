"""What each topic carries: one JSON object per effect, addressed by audience.

Under ``tablectl/<room>/<table>/``:

- ``events/public``, ``events/dealer``, ``events/floor``: each effect addressed to exactly that
  audience (the core addresses anything naming a hole card, a burn, a mucked card or a deck
  fault to the floor), its ``uid`` field removed: a tag's UID never crosses the broker;
- ``hands``: each finished hand's record (floor clearance), chained by hash (:mod:`.outbox`);
- ``broadcast`` (only with ``broadcast_delay``): the cards as they are dealt, hole cards
  included, published no earlier than the delay after the card was dealt (:mod:`.link`).

>>> from controller.core.effects import CardPlaced
>>> route([CardPlaced(1.0, 3, "E004015000000001", "As", "seat:1", None, "floor")], broadcast=False)
[('events/floor', 0, 1.0, {'ts': 1.0, 'hand': 3, 'card': 'As', 'zone': 'seat:1', 'prev_zone': None, \
'audience': 'floor', 'type': 'CardPlaced'})]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.core.effects import CardLeft, CardPlaced, Effect, Figures, HandFinished, HandStarted, effect_to_dict

#: the topics the outbox numbers, each with its own sequence
EVENT_TOPICS = ("events/public", "events/dealer", "events/floor")
SEQ_TOPICS = (*EVENT_TOPICS, "hands", "broadcast")
#: what a broadcast production receives (after the delay): the cards and the figures, no alert
BROADCAST_TYPES = (CardPlaced, CardLeft, HandStarted, Figures)
#: fields never published, whatever the topic
NEVER = frozenset({"uid", "uids"})

Row = tuple[str, int, float, dict[str, Any]]


#: values scrub passes on as they are, without a call (a record holds thousands of them)
_PLAIN = frozenset({str, int, float, bool, type(None)})


def scrub(value: Any) -> Any:
    """``value`` without any field named in :data:`NEVER`, at any depth.

    >>> scrub({"uid": "E004", "cards": [{"uid": "E005", "card": "As"}, "Kd"], "ts": 1.0})
    {'cards': [{'card': 'As'}, 'Kd'], 'ts': 1.0}
    """
    if isinstance(value, dict):
        return {k: v if type(v) in _PLAIN else scrub(v) for k, v in value.items() if k not in NEVER}
    if isinstance(value, (list, tuple)):
        return [v if type(v) in _PLAIN else scrub(v) for v in value]
    return value


def route(effects: Sequence[Effect], *, broadcast: bool) -> list[Row]:
    """``(topic, effect index, ts, body)`` for each message ``effects`` make; the index is the
    effect's place in the event's list, so (event id, index, topic) names a message for good."""
    out: list[Row] = []
    for idx, e in enumerate(effects):
        if type(e) is HandFinished:
            out.append(("hands", idx, e.ts, {"type": "HandFinished", "hand": e.hand, "ts": e.ts,
                                             "record": scrub(e.record)}))
        else:
            audience = e.audience if e.audience in ("public", "dealer", "floor") else "floor"
            body = scrub(effect_to_dict(e))
            out.append((f"events/{audience}", idx, e.ts, body))
            if broadcast and isinstance(e, BROADCAST_TYPES):
                # (the same body, a copy of its own: a sink that changes one message leaves the other)
                out.append(("broadcast", idx, e.ts, scrub(body)))
    return out
