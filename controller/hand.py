"""One hand: where its cards are, its street, its live figures and its record.

Cards are known by their UID here; :class:`Hand` also keeps each card's label for records
(``As`` for the deck in play, ``As@B`` for a card of the other deck, ``tag:UID`` for a tag
in no registered deck).
"""

from __future__ import annotations

from typing import Any

from controller.effects import Alert, Figures, alert_to_dict
from controller.positions import Positions, initial_positions
from controller.settings import deal_order
from controller.zones import ALL_ZONES, seat_of

DECK_SIZE = 52
_ZONE_RANK = {z: i for i, z in enumerate(ALL_ZONES)}


class Hand:
    """The state of the hand in progress. Mutated only by :class:`controller.table.Table`."""

    def __init__(self, number: int, game: str, hole_cards: int, seats: tuple[int, ...],
                 button: int, started: float, positions: Positions | None = None) -> None:
        self.number = number
        self.game = game
        self.hole_cards = hole_cards
        self.seats = seats
        self.button = button
        self.started = started
        self.order = deal_order(seats, button)
        self.positions: Positions = positions or initial_positions(seats, button)
        self.zones: dict[str, list[str]] = {}  # zone -> uids in arrival order
        self.where: dict[str, str] = {}  # uid -> last known zone
        self.labels: dict[str, str] = {}  # uid -> card label
        self.on_table: set[str] = set()  # uids read on the table now
        self.hole_dealt = 0  # cards that arrived at a seat from the stub
        self.dealt_to: dict[int, int] = {}  # seat -> cards it received from the stub (folds or not)
        self.exposed = 0  # cards the dealer marked exposed during the initial deal
        self.alerts: list[Alert] = []
        self.flagged: set[tuple[str, str]] = set()  # (code, uid) already alerted this hand

    # -- changes -------------------------------------------------------------------------
    def place(self, uid: str, label: str, zone: str) -> str | None:
        """Record that ``uid`` arrived in ``zone``; returns the zone it came from, if any."""
        prev = self.where.get(uid)
        if prev == zone:
            self.on_table.add(uid)
            return prev
        if prev is not None:
            self.zones[prev].remove(uid)
            if not self.zones[prev]:
                del self.zones[prev]
        elif zone.startswith("seat:"):
            self.hole_dealt += 1
            seat = int(zone[5:])
            self.dealt_to[seat] = self.dealt_to.get(seat, 0) + 1
        self.zones.setdefault(zone, []).append(uid)
        self.where[uid] = zone
        self.labels[uid] = label
        self.on_table.add(uid)
        return prev

    # -- derived figures -----------------------------------------------------------------
    def count(self, zone: str) -> int:
        return len(self.zones.get(zone, ()))

    @property
    def stub_count(self) -> int:
        """52 minus every card out (STUB-003)."""
        return DECK_SIZE - len(self.where)

    @property
    def hole_target(self) -> int:
        return self.hole_cards * len(self.seats)

    def live_seats(self) -> list[int]:
        return [s for s in self.order if self.zones.get(f"seat:{s}")]

    def street(self) -> str:
        board = self.count("board")
        if board == 0:
            if self.hole_dealt < self.hole_target and self.count("burn") == 0:
                return "deal"
            return "preflop"
        return "flop" if board <= 3 else ("turn" if board == 4 else "river")

    def next_to(self) -> str | None:
        """Where the next card should go: a seat during the deal, then burn/board (BURN-001)."""
        if self.hole_dealt < self.hole_target:
            return f"seat:{self.order[self.hole_dealt % len(self.order)]}"
        board, burns = self.count("board"), self.count("burn")
        if board >= 5 or len(self.live_seats()) < 2:
            return None
        streets = 0 if board == 0 else (1 if board <= 3 else board - 2)
        if board in (1, 2):
            return "board"
        return "burn" if burns <= streets else "board"

    def figures(self, ts: float) -> Figures:
        return Figures(ts=ts, hand=self.number, street=self.street(),
                       counts={z: len(u) for z, u in self.zones.items()},
                       burns=self.count("burn"), board=self.count("board"),
                       stub_count=self.stub_count, next_to=self.next_to(), button=self.button)

    def figures_key(self) -> tuple[Any, ...]:
        return (tuple((z, len(u)) for z, u in self.zones.items()), self.hole_dealt)

    def zone_labels(self) -> dict[str, list[str]]:
        return {z: [self.labels[u] for u in self.zones[z]]
                for z in sorted(self.zones, key=lambda z: _ZONE_RANK.get(z, 99))}

    def record(self, ended: float) -> dict[str, Any]:
        """The finished hand as history and the simulator's report see it (floor only)."""
        return {
            "hand": self.number,
            "game": self.game,
            "seats": list(self.seats),
            "button": self.button,
            "blinds": {"sb": self.positions.sb if self.positions.live_sb(self.seats) else None,
                       "bb": self.positions.bb},
            "started": self.started,
            "ended": ended,
            "zones": self.zone_labels(),
            "stub_count": self.stub_count,
            "alerts": [alert_to_dict(a) for a in self.alerts],
        }


__all__ = ["Hand", "DECK_SIZE", "seat_of"]
