"""The showdown at the table (issue 17): the ``showdown`` and ``run_it`` pads, and the winning
hand guarded until the pot is pushed (MUCK-005/006).

The table feeds it four moments of a hand: a press of one of :data:`PADS`, a card that goes
from a seat to the muck, the ``hand_end`` press and the hand's record. What it keeps is on the
hand, as plain data (the journal's state keeps it): ``hand.shown``, the seats' and the board's
cards when the hands were known to be up (None before; the seats alone after an ``allin``
press, the board still to come), and ``hand.board.runs`` (BOARD-011).

The hands are up when the dealer presses ``showdown``; when he presses ``allin`` (a player all
in, no more betting possible: every hand is turned up before more cards come and nobody folds,
SHOW-005), the seats' hands are up and the board is read as it comes; and once a board run more
than once is complete (``run_it`` is pressed only at such an all-in). Nothing is said before:
until the hands are turned up, nothing the players can read may hint at them (the dealer's
display is in their sight), and a fold to a bet on the river, which the table cannot tell from a
mucked winner, is no fault. The verdict is the one of the hands when they were up: a hand that
touches the muck afterwards is dead (MUCK-006) and cannot make a losing hand the winner. A hand
that died on the player clock (FLOW-004: the table's ``dead``, :meth:`Tournament.dead_seats`) is
never read, wherever its cards lie.

>>> from controller.core.hand import Hand
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

from controller.core.showdown.evaluation import GAMES, EvaluationError
from controller.core.rules import Finding
from controller.core.showdown.rules import bad_beat, findings, seat_list, winner_guard
from controller.core.showdown.winners import OddChipRules, Showdown, verdicts

if TYPE_CHECKING:
    from controller.core.hand import Hand

#: the pads this module answers (controller/core/pads.py)
PADS = ("showdown", "run_it", "allin")
#: BOARD-011 (002 §RUNNING IT TWICE): a board is run at most three times (docs/rules.md §20 MAX_RUNS): the
#: default of ``[rules] max_runs``
MAX_RUNS = 3
_DEFAULT = OddChipRules()


def _boards_read(hand: Hand, zones: dict[str, list[str]], rules: OddChipRules) \
        -> tuple[list[list[str]], list[Showdown]]:
    """Each run's board and its verdict for the seats and board in ``zones``; none when there is
    no showdown or the cards cannot be read (the record then says why)."""
    record = {"game": hand.game, "button": hand.button, "zones": zones, "runs": hand.board.runs}
    try:
        read = verdicts(record, rules)
    except EvaluationError:
        return [], []
    return read if read is not None else ([], [])


def _read(hand: Hand, zones: dict[str, list[str]], rules: OddChipRules) -> list[Showdown]:
    """The verdict of each run of the board (:func:`_boards_read`)."""
    return _boards_read(hand, zones, rules)[1]


def _at_showdown(hand: Hand, dead: frozenset[int] = frozenset()) -> dict[str, list[str]]:
    """The seats' and the board's cards as they lie now (but a hand ``dead`` on the clock)."""
    return {z: cs for z, cs in hand.zone_labels().items()
            if (z.startswith("seat:") and int(z[5:]) not in dead) or z == "board"}


def _holding(hand: Hand, dead: frozenset[int] = frozenset()) -> set[int]:
    return {int(z[5:]) for z, uids in hand.zones.items() if z.startswith("seat:") and uids} - dead


def _live(zones: dict[str, list[str]] | None, dead: frozenset[int]) -> dict[str, list[str]] | None:
    """``zones`` without the seats whose hands are ``dead`` (FLOW-004: never read for the pot)."""
    if zones is None or not dead:
        return zones
    return {z: cs for z, cs in zones.items() if not (z.startswith("seat:") and int(z[5:]) in dead)}


def _board_done(hand: Hand) -> bool:
    """Every street of every run of the board is dealt (BOARD-011)."""
    b = hand.board
    return b.street >= 3 and b.cards >= b.size() and b.runs_dealt == b.runs


def _all_up(hand: Hand) -> bool:
    """Every run of a board run more than once is dealt (SHOW-005: the hands are up)."""
    return hand.board.runs > 1 and _board_done(hand)


def _dealt_out(hand: Hand, zones: dict[str, list[str]]) -> bool:
    """The cards a showdown needs are out: a flop game's board complete, in stud a hand of seven
    (a stud hand short of its cards, or a board short, is no showdown yet)."""
    g = GAMES.get(hand.game)
    hands = [cs for z, cs in zones.items() if z.startswith("seat:") and cs]
    if g is None or len(hands) < 2:
        return True  # no showdown to wait for (the verdict says why)
    if g.board:  # the board's cards (its state knows the runs: BOARD-011)
        return len(zones.get("board", [])) >= g.board and (hand.board.runs == 1 or _board_done(hand))
    return not g.stud or max(map(len, hands)) >= g.cards - len(zones.get("board", []))


def hands_up(hand: Hand, dead: frozenset[int] = frozenset()) -> dict[str, list[str]] | None:
    """The seats and board a verdict reads: None before the hands are up; the hands as the
    ``showdown`` press found them; after an ``allin`` press, the seats' hands as they were then
    or as they are now (a stud hand still gets its cards) and the board as it lies. Never the
    seats whose hands are ``dead`` on the clock (FLOW-004)."""
    if hand.shown is None or "board" in hand.shown:
        return _live(hand.shown, dead)
    now = {z: cs for z, cs in _at_showdown(hand, dead).items() if cs}
    return _live({**hand.shown, **now}, dead)


def _once(hand: Hand, found: list[Finding]) -> list[Finding]:
    """What a press says goes into the record once: a second press repeats nothing."""
    out = []
    for f in found:
        key = (f.code, f"said:{f.message}")
        if key not in hand.flagged:
            hand.flagged.add(key)
            out.append(f)
    return out


def on_press(hand: Hand, name: str, rules: OddChipRules = _DEFAULT, *, cash: bool = False,
             dead: frozenset[int] = frozenset(), max_runs: int = MAX_RUNS) -> list[Finding]:
    """A press of ``run_it`` (BOARD-011: one run more; the prompt when it cannot be), of
    ``allin`` (SHOW-005: all hands up) or of ``showdown``: the seats' hands are read as they lie
    now (or as the ``allin`` press found them) and the dealer is told the dead hands (SHOW-002)
    and the winners with the words to announce (SHOW-004, SPLIT-*, the odd chip by ``rules``),
    per run; at a ``cash`` table, a bad-beat candidate after them (SHOW-008). Pressed before the
    cards are all out, the dealer is told to deal them first. A second press says nothing new:
    the record has it once. The seats whose hands are ``dead`` on the clock (FLOW-004) are not
    read. ``max_runs``: BOARD-011's MAX_RUNS (``[rules] max_runs``)."""
    if name == "run_it":
        refused = hand.board.run_it(max_runs)
        return [refused] if refused is not None else []
    if name == "allin":
        return _once(hand, _all_in(hand, dead))
    zones = hands_up(hand, dead) or _at_showdown(hand, dead)
    if not _dealt_out(hand, zones):
        what = "board" if GAMES[hand.game].board else "hands"
        return _once(hand, [Finding("showdown.not_dealt_out", "SHOW-004",
                                    f"showdown? the {what} not dealt out: deal the rest first")])
    boards, sds = _boards_read(hand, zones, rules)
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
    if cash:
        # SHOW-008: "only the first natural five community cards dealt. (If players run it twice
        # the additional boards do not qualify)"; every seat dealt in at the start shares
        hands = {int(z[5:]): cs for z, cs in zones.items() if z.startswith("seat:") and cs}
        out.extend(bad_beat(sds[0], hands, boards[0], [s for s in hand.order if s not in hand.penalty]))
    return _once(hand, out)


def _all_in(hand: Hand, dead: frozenset[int] = frozenset()) -> list[Finding]:
    """SHOW-005: a player is all in and no more betting is possible. Every live hand is turned
    up before more cards come, and nobody may fold: the seats' hands are kept as they are now
    (a winner is then known as the board comes, and the MUCK-005 guard applies)."""
    seats = sorted(_holding(hand, dead))
    if hand.shown is not None or len(seats) < 2:
        return []
    hand.shown = {f"seat:{s}": cs for s in seats if (cs := hand.zone_labels().get(f"seat:{s}", []))}
    return [Finding("showdown.all_up", "SHOW-005", f"all in, the action complete: {seat_list(seats)}, "
                                                  f"turn your hands up; nobody folds")]


def on_muck(hand: Hand, seat: int, rules: OddChipRules = _DEFAULT, dead: frozenset[int] = frozenset()) \
        -> list[Finding]:
    """A card of ``seat`` reached the muck (before the table moves it there). After the press
    and before the pot is pushed, a winning hand (of any half, of any run) mucked while a seat
    that did not win that share still holds its cards: the dealer is told to check, with no
    card named, and the floor which cards to take back (MUCK-005/006). The hands of a board
    run more than once are up once its runs are dealt, pressed or not. After an ``allin``
    press and before the cards are out, a hand that goes to the muck is a fold nobody may make
    (SHOW-005): the dealer is told. A hand ``dead`` on the clock (FLOW-004) is read by nobody:
    its muck is what the dealer was told to do."""
    if hand.pot_pushed or seat in dead:
        return []
    if hand.shown is None and _all_up(hand) and _read(hand, _at_showdown(hand, dead), rules):
        hand.shown = _at_showdown(hand, dead)
    zones = hands_up(hand, dead)
    if zones is None:
        return []
    holding = _holding(hand, dead)
    if not holding - {seat}:
        return []  # the last hand out: nobody left to lose to it (and no hand to read again)
    if not _dealt_out(hand, zones):
        return [Finding("showdown.no_fold", "SHOW-005", f"seat {seat}: all in, the action complete: no folding, "
                                                  f"the hand stays up", seat)]
    cards = zones.get(f"seat:{seat}", [])
    for i, sd in enumerate(_read(hand, zones, rules)):
        found = winner_guard(sd, seat, holding, cards)
        if found:
            run = f" (run {i + 1})" if hand.board.runs > 1 else ""
            return [f if f.audience != "floor" else replace(f, message=f.message + run) for f in found]
    return []


def on_hand_end(hand: Hand, dead: frozenset[int] = frozenset()) -> list[Finding]:
    """SHOW-006: the pot is pushed (``hand_end``) while two or more seats still hold cards no
    verdict has read, where a showdown was due: the cards are all out (the river dealt), or an
    ``allin`` press turned the hands up. The dealer is told the pot went before the hands were
    read. A hand won uncontested leaves one seat holding; before the river, cards still at the
    seats are folds not yet gathered (the table sees no betting), so nothing is said.

    >>> from controller.core.hand import Hand
    >>> h = Hand(1, "holdem", 2, (2, 5), 5, 0.0)
    >>> for i, (card, zone) in enumerate([("Ah", "seat:2"), ("Ac", "seat:2"), ("7d", "seat:5"), ("4c", "seat:5")]):
    ...     _ = h.place(f"U{i}", card, zone)
    >>> on_hand_end(h)  # no board: the hand ended before a showdown
    []
    >>> for i, card in enumerate("Ks Kd Qs Qd Jh".split()):
    ...     _ = h.place(f"B{i}", card, "board")
    >>> [f.message for f in on_hand_end(h)]
    ['pot pushed while seats 2, 5 still hold cards: read the hands first']
    """
    seats = sorted(_holding(hand, dead))  # (a hand dead on the clock is no hand to read: FLOW-004)
    if hand.kind != "hand" or len(seats) < 2 or (hand.shown is not None and "board" in hand.shown) \
            or _all_up(hand):
        return []
    if hand.shown is None and not _dealt_out(hand, _at_showdown(hand, dead)):
        return []
    return [Finding("showdown.pushed_unread", "SHOW-006",
                    f"pot pushed while {seat_list(seats)} still hold cards: read the hands first", seats[0])]
