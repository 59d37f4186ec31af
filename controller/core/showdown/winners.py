"""The showdown: the winners of each half, who gets the odd chips, and the record's ``showdown``.

Pure: the cards in, the verdict out. The hands are read by :mod:`controller.core.showdown.evaluation`
(pokerkit); this module applies the guides' rules around them: cards speak (SHOW-004), a hand
with the wrong number of cards is dead (SHOW-002), tied hands split (SPLIT-001), hi-lo halves
(SPLIT-002, no qualifying low: the high takes the pot), the odd chip (SPLIT-004..008).

>>> sd = showdown("holdem", {2: ["Kh", "7c"], 5: ["Ah", "Qd"]}, ["Ks", "7d", "2c", "9h", "3d"], button=9)
>>> sd.winners, sd.words(0, 2)
(((2,),), 'two pair, kings and sevens')
>>> block(sd)["high"], block(sd)["hands"]
([2], {'2': 'two pair, kings and sevens', '5': 'ace high'})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from controller.core.cards import is_card
from controller.core.showdown.evaluation import GAMES, EvaluationError, Game, Read, game_of, read_all
from controller.core.cards import SUIT_ORDER
from controller.core.settings import ODD_CHIP_SETTINGS, RuleSettings, deal_order

@dataclass(frozen=True)
class OddChipRules:
    """The odd-chip settings (:data:`ODD_CHIP_SETTINGS`), with the proposed defaults."""

    stud_odd_chip_cards: str = "received"
    stud_odd_chip_low: str = "lowest"
    hybrid_odd_chip: str = "five_card"

    def __post_init__(self) -> None:
        for name, (choices, _) in ODD_CHIP_SETTINGS.items():
            if getattr(self, name) not in choices:
                raise ValueError(f"{name}: {getattr(self, name)!r} is not one of {', '.join(choices)}")

    @classmethod
    def of(cls, rules: RuleSettings) -> OddChipRules:
        """The odd-chip settings of the configuration's ``[rules]`` (controller/config/daemon.py).

        >>> OddChipRules.of(RuleSettings(stud_odd_chip_low="highest")).stud_odd_chip_low
        'highest'
        """
        return _odd_chip_of(rules)


@lru_cache(maxsize=8)
def _odd_chip_of(rules: RuleSettings) -> OddChipRules:
    """One :class:`OddChipRules` per configuration (both frozen): the table asks at every card
    mucked from a seat and every hand's end, and the answer only changes with the settings."""
    return OddChipRules(**{name: getattr(rules, name) for name in ODD_CHIP_SETTINGS})


@dataclass(frozen=True)
class Showdown:
    """The verdict. Halves are indexed as the game's (:attr:`controller.core.showdown.evaluation.Game.halves`):
    0 the high (or the only half), 1 the low in a split game.

    ``seats``: every seat holding cards; ``live``: those read; ``dead``: seat -> its card count (SHOW-002); ``unread``:
    the zones holding a card not of the deck in play (no verdict can use them); ``reads``: per
    half, each live seat's hand (None: no qualifying low); ``winners``: per half (the low's
    empty when no hand qualifies); ``odd_chip``: per half, its winners in the order the odd
    chips go, one each (SPLIT-004..007); ``odd_half``: the half that takes the pot's odd chip
    when the two halves go to different players (SPLIT-005, SPLIT-008)."""

    game: Game
    seats: tuple[int, ...]
    dead: dict[int, int]
    unread: tuple[str, ...]
    reads: tuple[dict[int, Read | None], ...]
    winners: tuple[tuple[int, ...], ...]
    odd_chip: tuple[tuple[int, ...], ...]
    odd_half: int
    live: tuple[int, ...]

    def words(self, half: int, seat: int) -> str | None:
        read = self.reads[half].get(seat)
        return None if read is None else read.words


def showdown(game: str | Game, hands: Mapping[int, Sequence[str]], board: Sequence[str] = (), *,
             button: int, rules: OddChipRules = OddChipRules()) -> Showdown | None:
    """Read every seat's cards in ``hands`` (seat -> the card labels it holds, as
    :func:`controller.core.cards.parse_card` spells them) with ``board``; None when fewer than two
    seats hold cards or a flop game's board is not complete (no showdown). ``button``: the
    button (stud: the dealer's position; unused there).

    >>> sd = showdown("omaha8", {1: ["As", "2d", "Kc", "Kh"], 4: ["Ad", "2c", "Qs", "Qh"], 6: ["Jd", "Jh"]},
    ...               ["4h", "6c", "8d", "Ks", "Js"], button=1)
    >>> sd.winners, sd.dead, sd.words(0, 1), sd.words(1, 1), sd.words(1, 4)
    (((1,), (1, 4)), {6: 2}, 'three of a kind, kings', '8-6', '8-6')
    >>> sd.odd_chip  # the tied lows' odd chip: the first clockwise from the button (SPLIT-005)
    ((1,), (4, 1))
    >>> split_pot(7, sd)  # the pot's odd chip to the high half: 4 high, 3 low (2 and 1)
    {1: 5, 4: 2}
    """
    g = game if isinstance(game, Game) else game_of(game)
    if len(hands) < 2 or (g.board and len(board) != g.board):
        return None
    if not g.board and not g.stud:
        board = ()  # a draw game has no board: a card there is the board rules' fault, not a hand's
    unread, dead, live = _who_is_read(g, hands, board)
    reads = tuple(read_all(g, i, {s: hands[s] for s in live}, board) for i in range(len(g.halves)))
    winners = tuple(_winners(r) for r in reads)
    odd = tuple(_odd_order(g, i, winners[i], hands, reads[i], button, rules) for i in range(len(g.halves)))
    odd_half = 0
    if g.split and winners[1] and rules.hybrid_odd_chip == "button" and g.halves[1].style == "badugi":
        first = deal_order(sorted(set(winners[0]) | set(winners[1])), button)[0]
        odd_half = 0 if first in winners[0] else 1
    return Showdown(g, tuple(sorted(hands)), dead, unread, reads, winners, odd, odd_half, live)


def _who_is_read(g: Game, hands: Mapping[int, Sequence[str]], board: Sequence[str]) \
        -> tuple[tuple[str, ...], dict[int, int], tuple[int, ...]]:
    """The places whose cards cannot be read, the seats whose hands are dead (SHOW-002: the
    wrong number of cards) and the seats read."""
    # a card of another deck, a stray tag, or one card read in two places (a cloned tag, DECK-007:
    # the floor is told by the deck rules) cannot be read as part of a hand
    seen = Counter(c for cs in (*hands.values(), board) for c in cs)

    def foul(cs: Sequence[str]) -> bool:
        return any(not is_card(c) or seen[c] > 1 for c in cs)

    unread = tuple(["board"] if foul(board) else []) + tuple(f"seat:{s}" for s in sorted(hands) if foul(hands[s]))
    need = g.cards - len(board) if g.stud else g.cards
    dead = {s: len(cs) for s, cs in sorted(hands.items()) if len(cs) != need}  # SHOW-002
    live = tuple(s for s in sorted(hands) if s not in dead and f"seat:{s}" not in unread)
    if "board" in unread:
        live = ()
    return unread, dead, live


def _winners(reads: Mapping[int, Read | None]) -> tuple[int, ...]:
    """The seats with the best read (ties all win: SPLIT-001; suits never break them, EVAL-008)."""
    found = {s: r for s, r in reads.items() if r is not None}
    if not found:
        return ()
    top = max(r.hand for r in found.values())
    return tuple(sorted(s for s, r in found.items() if r.hand == top))


def _strength(card: str, ace_low: bool) -> tuple[int, int]:
    """A card by rank, then by suit (SUIT_ORDER ♠ ♥ ♦ ♣): what the stud odd chip goes by."""
    rank = 1 if ace_low and card[0] == "A" else "23456789TJQKA".index(card[0]) + 2
    return rank, SUIT_ORDER.index(card[1])


def _odd_order(g: Game, half: int, winners: tuple[int, ...], hands: Mapping[int, Sequence[str]],
               reads: Mapping[int, Read | None], button: int, rules: OddChipRules) -> tuple[int, ...]:
    """The winners of one half in the order its odd chips go, at most one each (SPLIT-007).
    Button games: clockwise from the first seat left of the button (SPLIT-004/005). Stud: by
    the seat's highest card, by rank and suit; in a low game (razz, stud 8's low half) by its
    lowest, the ace low (SPLIT-006, STUD_ODD_CHIP_CARDS and STUD_ODD_CHIP_LOW)."""
    if len(winners) < 2:
        return winners
    if not g.stud:
        return tuple(deal_order(list(winners), button))
    spec = g.halves[half]
    low = spec.ace_low and rules.stud_odd_chip_low == "lowest"

    def cards(seat: int) -> Sequence[str]:
        read = reads[seat]
        return read.cards if rules.stud_odd_chip_cards == "shown" and read is not None else hands[seat]

    if low:
        return tuple(sorted(winners, key=lambda s: min(_strength(c, True) for c in cards(s))))
    return tuple(sorted(winners, key=lambda s: max(_strength(c, spec.ace_low) for c in cards(s)), reverse=True))


def split_pot(chips: int, sd: Showdown) -> dict[int, int]:
    """Share a pot of ``chips`` (counted in the smallest chip still in play: SPLIT-009 breaks the
    odd chip down first) between the winners: the halves (the odd chip to :attr:`Showdown.odd_half`),
    then each half evenly, its odd chips one each in :attr:`Showdown.odd_chip` order.

    >>> sd = showdown("holdem", {1: ["Ah", "2c"], 4: ["Ad", "3c"], 8: ["As", "4c"]},
    ...               ["Ks", "Kd", "Qs", "Qd", "Jh"], button=4)
    >>> split_pot(100, sd)  # three ways: the odd chip to seat 8, the first left of the button
    {8: 34, 1: 33, 4: 33}
    """
    halves = [i for i, w in enumerate(sd.winners) if w]
    shares: dict[int, int] = {}
    if not halves:
        return shares
    if len(halves) == 2:
        big = chips - chips // 2
        amounts = {sd.odd_half: big, 1 - sd.odd_half: chips - big}
    else:
        amounts = {halves[0]: chips}
    for half, amount in amounts.items():
        order = sd.odd_chip[half]
        each, odd = divmod(amount, len(order))
        for i, seat in enumerate(order):
            shares[seat] = shares.get(seat, 0) + each + (1 if i < odd else 0)
    return shares


def block(sd: Showdown) -> dict[str, Any]:
    """The report's and the hand record's ``showdown`` (deal-script.md "Report additions";
    docs/deal-script.md lists the additions: ``halves``, ``low_hands``, ``odd_chip``, ``dead``,
    ``unread``)."""
    g = sd.game
    out: dict[str, Any] = {"seats": list(sd.seats), "high": list(sd.winners[0])}
    if g.split:
        out["low"] = list(sd.winners[1])
    out["hands"] = {str(s): r.words for s, r in sd.reads[0].items() if r is not None}
    if g.split:
        out["low_hands"] = {str(s): r.words for s, r in sd.reads[1].items() if r is not None}
    if g.split or g.halves[0].name != "high":
        out["halves"] = [h.name for h in g.halves]
    odd: dict[str, Any] = {("high", "low")[i]: list(o) for i, o in enumerate(sd.odd_chip) if len(o) > 1}
    if g.split and sd.winners[1] and set(sd.winners[0]) != set(sd.winners[1]):
        odd["pot"] = ("high", "low")[sd.odd_half]
    if odd:
        out["odd_chip"] = odd
    if sd.dead:
        out["dead"] = {str(s): n for s, n in sd.dead.items()}
    if sd.unread:
        out["unread"] = list(sd.unread)
    return out


def run_boards(board: Sequence[str], runs: int | None = None) -> list[list[str]] | None:
    """BOARD-011: the boards of a flop game's board run ``runs`` times (1 to 3), from its cards in
    the order they were dealt: the cards before the runs, then each run's own. None when the count
    fits no run-out; ``runs`` None: told from the count, except 7 (twice from the turn, or three
    times on the river), which needs the ``RUN_IT`` press.

    >>> run_boards("2c 7d 9h Js 3s 4h".split())  # the river run twice
    [['2c', '7d', '9h', 'Js', '3s'], ['2c', '7d', '9h', 'Js', '4h']]
    >>> run_boards("2c 7d 9h Js 3s Qd 4h".split(), 2)  # turn and river twice
    [['2c', '7d', '9h', 'Js', '3s'], ['2c', '7d', '9h', 'Qd', '4h']]
    >>> run_boards("2c 7d 9h Js 3s Qd 4h".split()) is None
    True
    """
    n = len(board)
    if runs is None:
        runs = 1 if n <= 5 else {6: 2, 10: 2, 9: 3, 15: 3}.get(n, 0)
    if runs == 1:
        return [list(board)] if n == 5 else None
    if runs not in (2, 3) or (5 * runs - n) % (runs - 1):
        return None
    shared = (5 * runs - n) // (runs - 1)  # the cards dealt before the runs: none, the flop, or the turn too
    if shared not in (0, 3, 4):
        return None
    own = 5 - shared
    return [list(board[:shared]) + list(board[shared + i * own:shared + (i + 1) * own]) for i in range(runs)]


def split_runs(chips: int, verdicts: Sequence[Showdown]) -> dict[int, int]:
    """A pot run several times (BOARD-011): each run wins its share, the odd chips to the first
    runs (the guides are silent), each run's share split as :func:`split_pot` splits a pot.

    >>> one = showdown("holdem", {1: ["As", "Ad"], 2: ["Kc", "Kd"]}, "2c 7d 9h Js 3s".split(), button=2)
    >>> two = showdown("holdem", {1: ["As", "Ad"], 2: ["Kc", "Kd"]}, "2c 7d 9h Js Kh".split(), button=2)
    >>> split_runs(101, [one, two])
    {1: 51, 2: 50}
    """
    out: dict[int, int] = {}
    each, odd = divmod(chips, len(verdicts))
    for i, sd in enumerate(verdicts):
        for seat, n in split_pot(each + (1 if i < odd else 0), sd).items():
            out[seat] = out.get(seat, 0) + n
    return out


def from_record(record: Mapping[str, Any], rules: OddChipRules = OddChipRules()) -> dict[str, Any] | None:
    """The ``showdown`` of a finished hand's record (:meth:`controller.core.hand.Hand.record`): the
    seats still holding cards and the board, as the record's ``zones`` have them. None when
    there was no showdown (fewer than two hands, an incomplete board, a draw for the button, a
    misdeal, a game the evaluator does not know). A board run twice or three times (BOARD-011,
    the record's ``runs``): the first run's verdict, and ``runs``, every run's, each with its
    ``board``.

    >>> from_record({"game": "holdem", "button": 3, "zones": {
    ...     "seat:1": ["As", "Ad"], "seat:3": ["Kc", "Kd"], "board": ["2c", "7d", "9h", "Js", "3s"],
    ...     "muck": ["Qh", "Qs"]}})["high"]
    [1]
    >>> sd = from_record({"game": "holdem", "button": 3, "runs": 2, "zones": {
    ...     "seat:1": ["As", "Ad"], "seat:3": ["Kc", "Kd"], "board": ["2c", "7d", "9h", "Js", "3s", "Kh"]}})
    >>> sd["high"], [(r["board"][-1], r["high"]) for r in sd["runs"]]
    ([1], [('3s', [1]), ('Kh', [3])])
    """
    if record.get("kind", "hand") != "hand" or record.get("misdeal") or record.get("game") not in GAMES:
        return None
    try:
        read = verdicts(record, rules)
    except EvaluationError as e:  # the hand record is built whatever the cards: say why there is no verdict
        zones = record.get("zones", {})
        return {"seats": sorted(int(z[5:]) for z, cs in zones.items() if z.startswith("seat:") and cs),
                "high": [], "hands": {}, "error": str(e)}
    if read is None:
        return None
    boards, sds = read
    out = block(sds[0])
    if len(sds) > 1:
        out["runs"] = [{"board": b, **block(sd)} for b, sd in zip(boards, sds, strict=True)]
    return out


def verdicts(record: Mapping[str, Any], rules: OddChipRules = OddChipRules()) \
        -> tuple[list[list[str]], list[Showdown]] | None:
    """The boards and their verdicts of a hand as a record has it (``game``, ``button``,
    ``zones``, ``runs``): one per run of the board (BOARD-011). None when there is no showdown
    (fewer than two hands, a board that fits neither a complete board nor the runs).
    Raises :class:`controller.core.showdown.evaluation.EvaluationError` for cards the evaluator cannot read.

    >>> boards, sds = verdicts({"game": "holdem", "button": 3, "runs": 2, "zones": {
    ...     "seat:1": ["As", "Ad"], "seat:3": ["Kc", "Kd"], "board": "2c 7d 9h Js 3s Kh".split()}})
    >>> [b[-1] for b in boards], [sd.winners[0] for sd in sds]
    (['3s', 'Kh'], [(1,), (3,)])
    """
    zones = record.get("zones", {})
    hands = {int(z[5:]): list(cs) for z, cs in zones.items() if z.startswith("seat:") and cs}
    board = list(zones.get("board", ()))
    # the runs only as the record says (the RUN_IT press): a sixth board card without one is a
    # board fault (a burn turned up, a premature card), not a second run
    boards = run_boards(board, record.get("runs", 1)) if GAMES[record["game"]].board else [board]
    if not boards:
        return None
    sds = [showdown(record["game"], hands, b, button=record["button"], rules=rules) for b in boards]
    found = [sd for sd in sds if sd is not None]
    return (boards, found) if len(found) == len(sds) else None
