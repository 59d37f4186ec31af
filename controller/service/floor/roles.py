"""What each role receives, built on the server from lists of allowed fields (never the whole
record with the secret parts hidden in the browser).

- ``floor``: everything, the cards included;
- ``technician``: tables, devices and alert codes, never a card (nor an alert's message, which
  may name one);
- ``viewer``: the tiles' public figures only: no alert, no device detail.

>>> a = {"room": "main", "table": "t7", "seq": 4, "ts": 1.0, "hand": 3, "seat": 2, "rule": "DECK-006",
...      "code": "deck.foreign_card", "card": "7h", "message": "7h is foreign", "acked_by": None, "acked_at": None}
>>> sorted(alert_for("technician", a))  # doctest: +NORMALIZE_WHITESPACE
['acked_at', 'acked_by', 'code', 'dealer', 'epoch', 'hand', 'meaning', 'room', 'rule', 'seat', 'seq', 'table',
 'ts']
>>> alert_for("floor", a)["card"], alert_for("viewer", a)
('7h', None)
"""

from __future__ import annotations

from typing import Any

from controller.service.floor.rules import meaning

ALERT_TECH = ("room", "table", "epoch", "seq", "ts", "hand", "seat", "rule", "code", "acked_by", "acked_at", "dealer")
ALERT_FLOOR = (*ALERT_TECH, "card", "message")
TILE_VIEWER = ("room", "table", "online", "game", "hand", "button", "stub_count", "deck_in_play")
TILE_TECH = (*TILE_VIEWER, "devices", "seats", "hands_finished", "clock", "outbox", "open_alerts", "chain_breaks",
             "suspects", "epoch", "started_over", "updated", "dealer", "dealer_next")
TILE_FLOOR = TILE_TECH


def can_ack(role: str) -> bool:
    return role == "floor"


def can_command(role: str) -> bool:
    """Seat changes and deck-pair exchanges sent to a table: the floor's."""
    return role == "floor"


def sees_hands(role: str) -> bool:
    """Hand records name every card (hole cards, burns): the floor's alone."""
    return role == "floor"


def sees_alerts(role: str) -> bool:
    return role in ("floor", "technician")


def alert_for(role: str, alert: dict[str, Any]) -> dict[str, Any] | None:
    """The alert as ``role`` may see it, or None."""
    if not sees_alerts(role):
        return None
    keys = ALERT_FLOOR if role == "floor" else ALERT_TECH
    out = {k: alert.get(k) for k in keys}
    out["meaning"] = meaning(alert.get("rule"))
    return out


def tile_for(role: str, state: dict[str, Any]) -> dict[str, Any]:
    keys = TILE_FLOOR if role == "floor" else TILE_TECH if role == "technician" else TILE_VIEWER
    out = {k: state.get(k) for k in keys if k in state}
    if isinstance(out.get("devices"), dict):  # (device name -> up or not: nothing more)
        out["devices"] = {str(k): bool(v) for k, v in out["devices"].items()}
    return out
