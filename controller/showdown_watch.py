"""The showdown at the table (issue 17): the ``showdown`` and ``run_it`` pads, and the winning
hand guarded until the pot is pushed (MUCK-005/006).

The table feeds it three moments of a hand: a press of one of :data:`PADS`, a card that goes
from a seat to the muck, and the hand's record. What it keeps is on the hand, as plain data (the
journal's state keeps it): ``hand.shown``, the seats' and the board's cards when the hands were
known to be up (None before), and ``hand.board.runs`` (BOARD-011).

The hands are up when the dealer presses ``showdown``, or once a board run more than once is
complete (``run_it`` is pressed only at an all-in with the action complete, where every hand is
turned up: SHOW-005). Nothing is said before: until the hands are turned up, nothing the players
can read may hint at them (the dealer's display is in their sight), and a fold to a bet on the
river, which the table cannot tell from a mucked winner, is no fault. The verdict is the one of
the hands when they were up: a hand that touches the muck afterwards is dead (MUCK-006) and
cannot make a losing hand the winner.

>>> from controller.hand import Hand
>>> h = Hand(1, "holdem", 2, (3, 5), 5, 0.0)
>>> for i, (card, zone) in enumerate([("As", "seat:3"), ("Kc", "seat:5"), ("Ad", "seat:3"), ("Kd", "seat:5"),
...                                   ("2c", "board"), ("7d", "board"), ("9h", "board"), ("Js", "board"),
...                                   ("3s", "board")]):
...     _ = h.place(f"U{i}", card, zone)
>>> [f.message for f in on_muck(h, 3)]  # before the press: a fold, nothing to say
[]
>>> [f.message for f in on_press(h, "showdown")]
['seat 3 wins: pair of aces']
>>> [(f.audience, f.message) for f in on_muck(h, 3)]  # doctest: +NORMALIZE_WHITESPACE
[('dealer', 'check: seat 3 had the best hand'),
 ('floor', "seat 3's winning hand (As Ad: pair of aces) touched the muck while seat 5 still holds cards")]
>>> on_muck(h, 5)  # the loser: what the guides ask
[]
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from controller.evaluation import EvaluationError
from controller.rules import Finding
from controller.rules.showdown import findings, winner_guard
from controller.showdown import Showdown, verdicts

if TYPE_CHECKING:
    from controller.hand import Hand

#: the pads this module answers (controller/pads.py)
PADS = ("showdown", "run_it")
#: BOARD-011 (002 §RUNNING IT TWICE): a board is run at most three times (RULES.md MAX_RUNS)
MAX_RUNS = 3


def _read(hand: Hand, zones: dict[str, list[str]]) -> list[Showdown]:
    """The verdict of each run of the board for the seats and board in ``zones``; none when
    there is no showdown or the cards cannot be read (the record then says why)."""
    record = {"game": hand.game, "button": hand.button, "zones": zones, "runs": hand.board.runs}
    try:
        read = verdicts(record)
    except EvaluationError:
        return []
    return read[1] if read is not None else []


def _at_showdown(hand: Hand) -> dict[str, list[str]]:
    """The seats' and the board's cards as they lie now."""
    return {z: cs for z, cs in hand.zone_labels().items() if z.startswith("seat:") or z == "board"}


def _all_up(hand: Hand) -> bool:
    """Every run of a board run more than once is dealt (SHOW-005: the hands are up)."""
    b = hand.board
    return b.runs > 1 and b.runs_dealt == b.runs and b.street >= 3 and b.cards >= b.size()


def on_press(hand: Hand, name: str) -> list[Finding]:
    """A press of ``run_it`` (BOARD-011: one run more; the prompt when it cannot be) or of
    ``showdown``: the seats' hands are read as they lie now and the dealer is told the dead
    hands (SHOW-002) and the winners with the words to announce (SHOW-004, SPLIT-*), per run.
    A second press says it again, from the hands of the first."""
    if name == "run_it":
        refused = hand.board.run_it(MAX_RUNS)
        return [refused] if refused is not None else []
    zones = hand.shown if hand.shown is not None else _at_showdown(hand)
    sds = _read(hand, zones)
    if not sds:
        return []
    hand.shown = zones
    out: list[Finding] = []
    for i, sd in enumerate(sds):
        said = findings(sd)
        if len(sds) > 1:  # every run wins its share: the dead hands once, the winners run by run
            said = [f if f.code == "showdown.dead_hand" else replace(f, message=f"run {i + 1}: {f.message}")
                    for f in said if i == 0 or f.code != "showdown.dead_hand"]
        out.extend(said)
    return out


def on_muck(hand: Hand, seat: int) -> list[Finding]:
    """A card of ``seat`` reached the muck (before the table moves it there). After the press
    and before the pot is pushed, a winning hand (of any half, of any run) mucked while a seat
    that did not win that share still holds its cards: the dealer is told to check, with no
    card named, and the floor which cards to take back (MUCK-005/006). The hands of a board
    run more than once are up once its runs are dealt, pressed or not."""
    if hand.pot_pushed:
        return []
    if hand.shown is None and _all_up(hand) and _read(hand, _at_showdown(hand)):
        hand.shown = _at_showdown(hand)
    zones = hand.shown
    if zones is None:
        return []
    holding = {int(z[5:]) for z, uids in hand.zones.items() if z.startswith("seat:") and uids}
    if not holding - {seat}:
        return []  # the last hand out: nobody left to lose to it (and no hand to read again)
    cards = zones.get(f"seat:{seat}", [])
    for i, sd in enumerate(_read(hand, zones)):
        found = winner_guard(sd, seat, holding, cards)
        if found:
            run = f" (run {i + 1})" if hand.board.runs > 1 else ""
            return [f if f.audience != "floor" else replace(f, message=f.message + run) for f in found]
    return []
