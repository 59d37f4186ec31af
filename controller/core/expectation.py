"""What the table expects the next reads to show, for the tracker's prior (controller.core.tracker).

The table knows where the next card off the stub is due (a seat in the deal's order, then the
burn and the board, BURN-001), which seats still hold cards that a fold would send to the muck,
and when the hand may be over and its cards gathered. Evidence that agrees with this confirms
sooner; nothing here ever moves a card by itself (docs/tracking.md).

>>> from controller.core.hand import Hand
>>> hand = Hand(1, "holdem", 2, (1, 3, 5), 5, 0.0)
>>> expectation(hand, None)
('seat:1', frozenset(), False)
>>> expectation(None, 3)  # between hands: the next hand's first card, left of its button
('seat:3', frozenset(), False)
"""

from __future__ import annotations

from controller.core.hand import Hand
from controller.core.zones import seat_zone

#: (the zone the next card off the stub is due in, the seats whose cards may fold, gather)
Expectation = tuple["str | None", frozenset[str], bool]


def expectation(hand: Hand | None, next_first_seat: int | None) -> Expectation:
    """The table's expectation during ``hand``, or between hands (``hand`` None: the next hand's
    first card is due at ``next_first_seat``, if the table knows it)."""
    if hand is None:
        return (f"seat:{next_first_seat}" if next_first_seat is not None else None), frozenset(), False
    if hand.kind != "hand":  # a draw for the button (DEAL-011): any seat, gathered at the end
        return None, frozenset(), False
    live = hand.live_seats()
    won = len(live) < 2 and hand.hole_dealt >= hand.hole_target  # every seat folded but one
    # (a draw game after the deal: each round's burn, then the seats' draws in order, DRAW-004;
    # a seat's discards are expected in the muck as a fold is, ``folds``: the seats in)
    due = hand.next_to()
    # every card of the game's template is out (the river; stud's 7th street, or its community
    # card; a draw game's last draw)
    # (Chinese poker: no card is ever due, and the play goes on once the stacks are out: its
    # cards are gathered once thrown to the muck, ``won``)
    dealt_out = due is None and hand.hole_dealt >= hand.hole_target and hand.game_def.family != "chin"
    gather = hand.misdeal or hand.pot_pushed or won or dealt_out
    return due, hand.kept("folds", hand._zoned, _fold_zones), gather


def _fold_zones(hand: Hand) -> frozenset[str]:
    """The live seats' zones (equal to their names), made again only when a seat fills or
    empties."""
    return frozenset(map(seat_zone, hand.live_seats()))
