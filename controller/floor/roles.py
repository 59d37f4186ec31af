"""What each role receives, built on the server from lists of allowed fields (never the whole
record with the secret parts hidden in the browser).

- ``floor``: everything, the cards included;
- ``technician``: tables, devices and alert codes, never a card (nor an alert's message, which
  may name one);
- ``viewer``: the tiles' public figures only: no alert, no device detail.

>>> a = {"room": "main", "table": "t7", "seq": 4, "ts": 1.0, "hand": 3, "seat": 2, "rule": "DECK-006",
...      "code": "deck.foreign_card", "card": "7h", "message": "7h is foreign", "acked_by": None, "acked_at": None}
>>> sorted(alert_for("technician", a))  # doctest: +NORMALIZE_WHITESPACE
['acked_at', 'acked_by', 'acked_how', 'code', 'dealer', 'epoch', 'hand', 'meaning', 'room', 'rule', 'seat', 'seq',
 'severity', 'table', 'ts']
>>> alert_for("floor", a)["card"], alert_for("viewer", a)
('7h', None)
"""

from __future__ import annotations

from typing import Any

from controller.floor.rules import TECHNICIAN_FAMILIES, meaning, severity

ALERT_TECH = ("room", "table", "epoch", "seq", "ts", "hand", "seat", "rule", "code", "acked_by", "acked_at", "dealer",
              "acked_how")
ALERT_FLOOR = (*ALERT_TECH, "card", "message")
#: a dealer's incident (``events/dealer``): no card ever (the dealer's audience has none); its
#: message for the floor only, as with alerts
INCIDENT_TECH = ("room", "table", "epoch", "seq", "ts", "hand", "seat", "rule", "code", "count", "dealer")
INCIDENT_FLOOR = (*INCIDENT_TECH, "message")
#: the seats and the button are what the players see at the table; ``section`` is the floor's;
#: a tournament's table says what it holds for and its level (public: the players see them);
#: ``unsigned``: a table the floor has no key for, never shown online (every role sees why)
TILE_VIEWER = ("room", "table", "online", "game", "hand", "button", "seats", "stub_count", "deck_in_play", "section",
               "retired", "holding", "level", "unsigned")
TILE_TECH = (*TILE_VIEWER, "devices", "hands_finished", "clock", "outbox", "open_alerts", "open_calls", "severity",
             "chain_breaks", "suspects", "epoch", "started_over", "updated", "dealer", "dealer_next", "lost")
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
    out["severity"] = severity(alert.get("code"))  # (the page sorts by it: floor/rules.py's, not a copy)
    return out


def incident_for(role: str, incident: dict[str, Any]) -> dict[str, Any] | None:
    """A dealer's incident as ``role`` may see it, or None: the floor's lane has them all; a
    technician sees the devices' own (TECHNICIAN_FAMILIES), the code and rule without the
    message; a viewer none.

    >>> i = {"room": "main", "table": "t7", "seq": 9, "code": "misdeal.seat_skipped", "rule": "MISD-006",
    ...      "seat": 4, "hand": 31, "message": "seat 4 was skipped"}
    >>> incident_for("floor", i)["seat"], incident_for("technician", i), incident_for("viewer", i)
    (4, None, None)
    >>> sorted(incident_for("technician", {**i, "code": "device.reader_offline", "rule": None}))[:4]
    ['code', 'count', 'dealer', 'epoch']
    """
    if role == "floor":
        keys = INCIDENT_FLOOR
    elif role == "technician" and str(incident.get("code", "")).partition(".")[0] in TECHNICIAN_FAMILIES:
        keys = INCIDENT_TECH
    else:
        return None
    out = {k: incident.get(k) for k in keys}
    out["meaning"] = meaning(incident.get("rule"))
    return out


def tile_for(role: str, state: dict[str, Any]) -> dict[str, Any]:
    keys = TILE_FLOOR if role == "floor" else TILE_TECH if role == "technician" else TILE_VIEWER
    out = {k: state.get(k) for k in keys if k in state}
    if "retired" in out and role == "viewer":  # (that it is, not who retired it)
        out["retired"] = bool(out["retired"])
    if isinstance(out.get("devices"), dict):  # (device name -> up or not: nothing more)
        out["devices"] = {str(k): bool(v) for k, v in out["devices"].items()}
    return out
