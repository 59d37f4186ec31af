"""The table's settings as the pure core sees them (the shell loads them from TOML)."""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.zones import ZoneMap

GAMES = {"holdem": 2, "omaha": 4}  # game -> hole cards per seat


def deal_order(seats: tuple[int, ...] | list[int], button: int) -> list[int]:
    """The seats in dealing order: clockwise from the first seat left of the button.

    DEAL-001: one card at a time, clockwise, starting left of the button. Heads-up this is
    the non-button seat, as DEAL-002 asks. The button need not be a dealt-in seat (a dead
    button, DEAL-005).

    >>> deal_order([1, 2, 4, 6, 9], 9)
    [1, 2, 4, 6, 9]
    >>> deal_order([1, 2, 4, 6, 9], 4)
    [6, 9, 1, 2, 4]
    >>> deal_order([3, 7], 7)
    [3, 7]
    """
    s = sorted(seats)
    after = [x for x in s if x > button]
    return after + [x for x in s if x <= button]


def next_button(seats: tuple[int, ...] | list[int], button: int) -> int:
    """The next dealt-in seat clockwise from ``button`` (DEAL-004, without dead-button rules).

    >>> next_button([1, 2, 4, 6, 9], 9)
    1
    >>> next_button([1, 2, 4, 6, 9], 4)
    6
    """
    return deal_order(seats, button)[0]


@dataclass(frozen=True)
class TableSettings:
    game: str = "holdem"
    seats: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9)
    button: int = 9
    deck_in_play: str = "A"
    zones: ZoneMap = field(default_factory=ZoneMap.default)
    #: cycles of evidence before a card counts as arrived (see controller.tracker)
    confirm_cycles: int = 3
    #: cycles without any read before a card counts as gone from the table
    gone_cycles: int = 8

    @property
    def hole_cards(self) -> int:
        return GAMES[self.game]
