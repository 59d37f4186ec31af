"""The dealer's pads: their names, and which of them concern a seat.

RULES.md's legend names the pads the rules assume; these are their names here. A press may come
from the dealer console (GPIO), the control socket or a deal script; every one becomes a
:class:`controller.events.ButtonPress`.

>>> check_press("seat_out", seat=4)
>>> check_press("seat_out")
Traceback (most recent call last):
...
ValueError: press 'seat_out' needs a seat (1 to 10)
>>> check_press("exposd")
Traceback (most recent call last):
...
ValueError: unknown pad 'exposd' (pads: exposed, exposed_player, boxed, misdeal, round_done, sa, hand_end, showdown,
    allin, run_it, seat_in, seat_out, seat_absent, seat_penalty, seat_posted, highcard, next, floor, new_deck, relief,
    stub_wrong, ack)
"""

from __future__ import annotations

#: pad name -> what it means (the dealer console documents them the same way)
PADS: dict[str, str] = {
    "exposed": "the card just dealt was exposed by the dealer (long press: by the player)",
    "exposed_player": "a player exposed one of his own cards (MISD-012); the card stays in the hand",
    "boxed": "a card was found face up in the deck while dealing (MISD-003)",
    "misdeal": "the dealer declares a misdeal (MISD-016); the re-deal replays the hand (MISD-014)",
    "round_done": "the betting round is complete: the tap before the burn (BURN-002)",
    "sa": "substantial action reached: the misdeal window closes (MISD-013)",
    "hand_end": "the pot is pushed",
    "showdown": "the betting is over and the hands are turned up: name the winners (SHOW-004)",
    "allin": "a player is all in and no more betting is possible: every hand is turned up, nobody folds (SHOW-005)",
    "run_it": "the players agreed to run the rest of the board again: twice, pressed again three times (BOARD-011)",
    "seat_in": "a player takes or returns to the seat (DEAL-006, DEAL-007)",
    "seat_out": "the seat's player is gone: eliminated or left (DEAL-005)",
    "seat_absent": "the seat's player is away; the seat is still dealt (DEAL-009)",
    "seat_penalty": "the seat sits out a penalty: its cards are dealt to the muck (DEAL-010)",
    "seat_posted": "a cash player posted to come in (DEAL-007)",
    "highcard": "the next cards, one to each seat, draw for the button (DEAL-011)",
    "next": "acknowledge the prompt on the display",
    "floor": "call the floor",
    "new_deck": "a new deck is brought in (with a reason: RELIEF-002)",
    "relief": "a new dealer sits down: a new down begins, the spare deck comes in (RELIEF-001)",
    "stub_wrong": "the stub count is wrong: the deck is sticky (STUB-004)",
    "ack": "the dealer did what the prompt asked (counted the stub and it is right)",
}
#: why a deck may be changed (RELIEF-002, DECK_CHANGE_REASONS of RULES.md §20); the first is the
#: reason a ``new_deck`` press without one is taken to give
DECK_CHANGE_REASONS: tuple[str, ...] = ("setup", "relief", "stub_count", "marked", "damaged", "player_request")
#: pads that concern one seat: a press of one of them must name it
SEAT_PADS = frozenset({"exposed_player", "seat_in", "seat_out", "seat_absent", "seat_penalty", "seat_posted"})


def check_press(name: str, seat: int | None = None, hands: int | None = None, reason: str | None = None) -> None:
    """Raise ValueError naming what is wrong with a press, or return None."""
    if reason is not None and (name != "new_deck" or reason not in DECK_CHANGE_REASONS):
        raise ValueError(f"press {name!r}: a reason goes only with new_deck, one of {', '.join(DECK_CHANGE_REASONS)}; "
                         f"got {reason!r}")
    if name not in PADS:
        raise ValueError(f"unknown pad {name!r} (pads: {', '.join(PADS)})")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= 10):
        raise ValueError(f"press {name!r}: seat must be 1 to 10, got {seat!r}")
    if name in SEAT_PADS and seat is None and name != "exposed_player":
        raise ValueError(f"press {name!r} needs a seat (1 to 10)")
    if hands is not None and (not isinstance(hands, int) or isinstance(hands, bool) or hands < 1):
        raise ValueError(f"press {name!r}: hands must be a whole number of hands, 1 or more")
