"""Effects: everything the core decides, each addressed to an audience.

Audiences (docs/design.md, "Know the audience"):

- ``public``: may reach a player-facing output (board cards, counts, the button);
- ``dealer``: the dealer's console (prompts, misdeal flags); never hole cards;
- ``floor``: the discreet floor channel (deck faults, hole cards, hand records).

Sinks filter on :attr:`audience`; anything that names a hole card, a burn, a mucked card or
a deck fault is ``floor``.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Literal

Audience = Literal["public", "dealer", "floor"]
AUDIENCES: tuple[str, ...] = ("public", "dealer", "floor")


@dataclass(frozen=True, slots=True)
class Alert:
    """Something a person must know. ``code`` is a stable dotted name whose first part is the
    family (``misdeal``, ``deck``, ``device`` ...); ``rule`` its docs/rules.md id, if any; ``count``
    the figure that matters to the dealer (how many cards ``seat`` is short, over or owed: a
    count, never a card), if any. Alerts written before it existed have none (unknown)."""

    ts: float
    code: str
    audience: str
    message: str
    rule: str | None = None
    seat: int | None = None
    card: str | None = None
    hand: int | None = None
    count: int | None = None
    #: the dealer of the hand (or, between hands, of the table) it was raised in, when the floor
    #: named one (RELIEF-003: the down's log); left out of its dict when None
    dealer: str | None = None


@dataclass(frozen=True, slots=True)
class Prompt:
    """A routine instruction to the dealer that is not a fault (count the stub now, STUB-001/002).
    Kept apart from alerts: a clean hand raises no alert, yet the dealer is still prompted."""

    ts: float
    code: str
    message: str
    rule: str | None = None
    hand: int | None = None
    audience: str = "dealer"
    seat: int | None = None  # the seat it concerns (the stud bring-in's, STUD-002): its LED lights
    count: int | None = None  # the figure the display shows (a stub short by 3: DRAW-005), never a card
    game: str | None = None  # the game it names (MIXED-001: "last hand of razz", "next: stud")


@dataclass(frozen=True, slots=True)
class CardPlaced:
    """A card arrived in ``zone`` (from ``prev_zone``, or from the stub when None)."""

    ts: float
    hand: int
    uid: str
    card: str
    zone: str
    prev_zone: str | None
    audience: str


@dataclass(frozen=True, slots=True)
class CardLeft:
    """A card is no longer read anywhere on the table (gathered, or lifted off)."""

    ts: float
    hand: int
    uid: str
    card: str
    zone: str
    audience: str = "floor"


@dataclass(frozen=True, slots=True)
class Figures:
    """The live figures a dealer and a floor supervisor watch. No card identities.

    :meth:`controller.core.hand.Hand.figures` makes one at every card with its fields in this order,
    not by name: a field added goes last, or that call changes with it."""

    ts: float
    hand: int
    street: str
    counts: dict[str, int]
    burns: int
    board: int
    stub_count: int
    next_to: str | None
    button: int
    #: DEAL-013: the seat the dealer prompts first in the betting round under way
    first_to_act: int | None = None
    #: BOARD-009: players still in the hand, announced as the flop is dealt
    players: int = 0
    audience: str = "public"


@dataclass(frozen=True, slots=True)
class HandStarted:
    ts: float
    hand: int
    button: int
    seats: tuple[int, ...]
    game: str
    audience: str = "public"


@dataclass(frozen=True, slots=True)
class HandFinished:
    """The record of a finished hand: where every card ended, the stub count, its alerts."""

    ts: float
    hand: int
    record: dict[str, Any] = field(default_factory=dict)
    audience: str = "floor"


Effect = Alert | Prompt | CardPlaced | CardLeft | Figures | HandStarted | HandFinished
_FIELDS: dict[type, tuple[str, ...]] = {
    t: tuple(f.name for f in fields(t))
    for t in (Alert, Prompt, CardPlaced, CardLeft, Figures, HandStarted, HandFinished)}


def effect_to_dict(effect: Effect) -> dict[str, Any]:
    """The effect's fields and its ``type``, for JSON; an alert's dealer only when named (messages
    of tables that name none stay as they were). Shallow: a dict or tuple field (a record, the
    counts) is the effect's own, not a copy (``dataclasses.asdict`` deep-copied every hand
    record, a fifth of the harness's time); every caller serialises it or scrubs it into a copy.

    >>> effect_to_dict(HandStarted(ts=1.0, hand=7, button=3, seats=(1, 3), game="holdem"))
    {'ts': 1.0, 'hand': 7, 'button': 3, 'seats': (1, 3), 'game': 'holdem', 'audience': 'public', 'type': 'HandStarted'}
    >>> effect_to_dict(Alert(1.0, "floor.call", "floor", "the dealer calls the floor", dealer="Ann Lee"))["dealer"]
    'Ann Lee'
    >>> "dealer" in effect_to_dict(Alert(1.0, "floor.call", "floor", "the dealer calls the floor"))
    False
    """
    d = {name: getattr(effect, name) for name in _FIELDS[type(effect)]}
    if d.get("dealer", 0) is None:
        del d["dealer"]
    d["type"] = type(effect).__name__
    return d


def alert_to_dict(alert: Alert) -> dict[str, Any]:
    """The compact JSON form used in hand records and reports: empty fields left out."""
    d: dict[str, Any] = {"code": alert.code, "rule": alert.rule, "audience": alert.audience}
    if alert.seat is not None:
        d["seat"] = alert.seat
    if alert.card is not None:
        d["card"] = alert.card
    if alert.count is not None:
        d["count"] = alert.count
    d["message"] = alert.message
    d["ts"] = alert.ts
    if alert.dealer is not None:  # (RELIEF-003: the down's log; records of tables naming none unchanged)
        d["dealer"] = alert.dealer
    return d
