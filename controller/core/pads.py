"""The dealer's pads: their names, and which of them concern a seat.

The legend of docs/rules.md names the pads the rules assume; these are their names here. A press may come
from the dealer console (GPIO), the control socket or a deal script; every one becomes a
:class:`controller.core.events.ButtonPress`.

>>> check_press("seat_out", seat=4)
>>> check_press("allin"), check_press("allin", seat=3)  # a seat is optional (OPTIONAL_SEAT_PADS)
(None, None)
>>> check_press("seat_out")
Traceback (most recent call last):
...
ValueError: press 'seat_out' needs a seat (1 to 10)
>>> check_press("exposd")
Traceback (most recent call last):
...
ValueError: unknown pad 'exposd' (pads: exposed, exposed_player, boxed, misdeal, round_done, sa, hand_end, showdown,
    allin, run_it, seat_in, seat_out, seat_absent, seat_penalty, seat_posted, highcard, next, floor, new_deck, relief,
    stub_wrong, ack, mode, clock)

The ``mode`` pad says which deal the table watches next instead of a hand (docs/rules.md, legend:
``MODE(race|highcard|break)``), or that a single-table satellite starts (``satellite``: FLOW-007,
DECK-009); it carries its mode as ``reason`` carries a deck change's:

>>> check_press("mode", mode="race")
>>> check_press("mode")
Traceback (most recent call last):
...
ValueError: press 'mode' needs a mode: one of race, highcard, break, satellite
>>> check_press("ack", mode="race")
Traceback (most recent call last):
...
ValueError: press 'ack': a mode goes only with the mode pad, one of race, highcard, break, satellite; got 'race'
"""

from __future__ import annotations

from enum import StrEnum


class Pad(StrEnum):
    """A dealer's pad (its value is its name on the wire, in scripts and in the journal)."""

    def __repr__(self) -> str:
        return repr(self._value_)  # shown as its name, as a message quoting a pad always did

    EXPOSED = "exposed"
    EXPOSED_PLAYER = "exposed_player"
    BOXED = "boxed"
    MISDEAL = "misdeal"
    ROUND_DONE = "round_done"
    SA = "sa"
    HAND_END = "hand_end"
    SHOWDOWN = "showdown"
    ALLIN = "allin"
    RUN_IT = "run_it"
    SEAT_IN = "seat_in"
    SEAT_OUT = "seat_out"
    SEAT_ABSENT = "seat_absent"
    SEAT_PENALTY = "seat_penalty"
    SEAT_POSTED = "seat_posted"
    HIGHCARD = "highcard"
    NEXT = "next"
    FLOOR = "floor"
    NEW_DECK = "new_deck"
    RELIEF = "relief"
    STUB_WRONG = "stub_wrong"
    ACK = "ack"
    MODE = "mode"
    CLOCK = "clock"


#: pad name -> what it means (the dealer console documents them the same way)
PADS: dict[Pad, str] = {
    Pad.EXPOSED: "the card just dealt was exposed by the dealer (long press: by the player)",
    Pad.EXPOSED_PLAYER: "a player exposed one of his own cards (MISD-012); the card stays in the hand",
    Pad.BOXED: "a card was found face up in the deck while dealing (MISD-003)",
    Pad.MISDEAL: "the dealer declares a misdeal (MISD-016); the re-deal replays the hand (MISD-014)",
    Pad.ROUND_DONE: "the betting round is complete: the tap before the burn (BURN-002)",
    Pad.SA: "substantial action reached: the misdeal window closes (MISD-013)",
    Pad.HAND_END: "the pot is pushed",
    Pad.SHOWDOWN: "the betting is over and the hands are turned up: name the winners (SHOW-004)",
    Pad.ALLIN: "a player is all in and no more betting is possible: every hand is turned up, nobody folds (SHOW-005); "
               "with a seat, in stud: that seat is all in (on 3rd street before its action, for the ante: STUD-003)",
    Pad.RUN_IT: "the players agreed to run the rest of the board again: twice, pressed again three times (BOARD-011)",
    Pad.SEAT_IN: "a player takes or returns to the seat (DEAL-006, DEAL-007, DEAL-008); a long press: a player "
                 "moved from another table (DEAL-006's LATE_ENTRY, FLOW-008: no table add-on)",
    Pad.SEAT_OUT: "the seat's player is gone: eliminated or left (DEAL-005)",
    Pad.SEAT_ABSENT: "the seat's player is away; the seat is still dealt (DEAL-009); in a cash game he sits out "
                     "and owes the blinds that pass him (DEAL-008)",
    Pad.SEAT_PENALTY: "the seat sits out a penalty: its cards are dealt to the muck (DEAL-010)",
    Pad.SEAT_POSTED: "a cash player posted to come in, or to make up missed blinds (DEAL-007, DEAL-008)",
    Pad.HIGHCARD: "the next cards, one to each seat, draw for the button (DEAL-011)",
    Pad.NEXT: "acknowledge the prompt on the display",
    Pad.FLOOR: "call the floor",
    Pad.NEW_DECK: "a new deck is brought in (with a reason: RELIEF-002)",
    Pad.RELIEF: "a new dealer sits down: a new down begins, the spare deck comes in (RELIEF-001)",
    Pad.STUB_WRONG: "the stub count is wrong: the deck is sticky (STUB-004)",
    Pad.ACK: "the dealer did what the prompt asked (counted the stub and it is right)",
    Pad.MODE: "the next deal is not a hand: a colour-up race-off (race), the high card of a table break "
              "(highcard), or a players' break is due (break); hand_end or the cards gathered end it; or a "
              "single-table satellite starts (satellite): the deal waits for the floor's approval (FLOW-007)",
    Pad.CLOCK: "the player clock on the seat (FLOW-004): 30 s counted down on the display, the hand dead at 0; "
               "round_done or the seat's fold stops it",
}
#: what a ``mode`` press may say (docs/rules.md, legend: MODE(...)): the race-off (RACE-001..006), the
#: table break's high card (BREAK-001), the players' break (FLOW-005), a single-table satellite's start
#: (FLOW-007, DECK-009: :data:`SATELLITE`)
MODES: tuple[str, ...] = ("race", "highcard", "break", "satellite")
#: the mode that starts a single-table satellite: the table's own (controller/core/table/flow.py), not a deal
SATELLITE = "satellite"
#: why a deck may be changed (RELIEF-002, DECK_CHANGE_REASONS of docs/rules.md §20); the first is the
#: reason a ``new_deck`` press without one is taken to give
DECK_CHANGE_REASONS: tuple[str, ...] = ("setup", "relief", "stub_count", "marked", "damaged", "player_request")
#: pads that concern one seat: a press of one of them must name it
SEAT_PADS = frozenset({Pad.EXPOSED_PLAYER, Pad.SEAT_IN, Pad.SEAT_OUT, Pad.SEAT_ABSENT, Pad.SEAT_PENALTY,
                       Pad.SEAT_POSTED, Pad.CLOCK})

#: pads that may name a seat or not: the player who exposed his card (MISD-012), the seat all in
#: (STUD-003; without one, ``allin`` says the action is complete: SHOW-005)
OPTIONAL_SEAT_PADS = frozenset({Pad.EXPOSED_PLAYER, Pad.ALLIN})

#: the pads of the roster (controller.core.table.roster) and of the decks (controller.core.table.decks); the rest
#: concern the hand under way (controller.core.table.dealing)
ROSTER_PADS = frozenset({Pad.SEAT_IN, Pad.SEAT_OUT, Pad.SEAT_ABSENT, Pad.SEAT_PENALTY, Pad.SEAT_POSTED})
DECK_PADS = frozenset({Pad.RELIEF, Pad.NEW_DECK, Pad.STUB_WRONG, Pad.ACK})


def check_press(name: str, seat: int | None = None, hands: int | None = None, reason: str | None = None,
                mode: str | None = None) -> None:
    """Raise ValueError naming what is wrong with a press, or return None."""
    if reason is not None and (name != Pad.NEW_DECK or reason not in DECK_CHANGE_REASONS):
        raise ValueError(f"press {name!r}: a reason goes only with new_deck, one of {', '.join(DECK_CHANGE_REASONS)}; "
                         f"got {reason!r}")
    if mode is not None and (name != Pad.MODE or mode not in MODES):
        raise ValueError(f"press {name!r}: a mode goes only with the mode pad, one of {', '.join(MODES)}; "
                         f"got {mode!r}")
    if name == Pad.MODE and mode is None:
        raise ValueError(f"press 'mode' needs a mode: one of {', '.join(MODES)}")
    if name not in PADS:
        raise ValueError(f"unknown pad {name!r} (pads: {', '.join(PADS)})")
    if seat is not None and (not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= 10):
        raise ValueError(f"press {name!r}: seat must be 1 to 10, got {seat!r}")
    if name in SEAT_PADS and seat is None and name not in OPTIONAL_SEAT_PADS:
        raise ValueError(f"press {name!r} needs a seat (1 to 10)")
    if hands is not None and (not isinstance(hands, int) or isinstance(hands, bool) or hands < 1):
        raise ValueError(f"press {name!r}: hands must be a whole number of hands, 1 or more")
