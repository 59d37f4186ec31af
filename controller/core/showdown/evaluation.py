"""Reading a hand at the showdown: the games' evaluation rules (EVAL-001..008) and the words a
dealer announces.

The rankings are pokerkit's (a well-kept, MIT-licensed rules library): a poker evaluator is rules,
not something this project writes. This module only says which of pokerkit's hands each game
plays (best five of seven, exactly two plus three, eight-or-better, A-5, 2-7, badugi) and names
the result the way a dealer reads it out.

>>> GAMES["omaha8"].halves[1].name
'8-or-better'
>>> best("holdem", 0, ["As", "Kd"], ["Ah", "Ac", "7s", "7d", "2c"]).words
'aces full of sevens'
>>> best("omaha8", 1, ["As", "2d", "Kc", "Kh"], ["3h", "6c", "8d", "Qs", "Js"]).words
'8-6'
>>> best("omaha8", 1, ["As", "Ad", "Kc", "Kh"], ["3h", "6c", "8d", "Qs", "Js"]) is None  # no qualifying low
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import combinations
from types import ModuleType
from typing import TYPE_CHECKING, Any

from controller.core.cards import is_card

if TYPE_CHECKING:
    from pokerkit import Card, Hand

# pokerkit is imported at the first hand read, not with the core: it builds its lookup tables as
# it loads (a quarter of a second here, more on a Pi), and most processes that import the table
# (the tools, a daemon between showdowns) never read a hand. Its labels are compared by value.
_HIGH_CARD, _ONE_PAIR, _TWO_PAIR, _TRIPS = "High card", "One pair", "Two pair", "Three of a kind"
_STRAIGHT, _FLUSH, _FULL_HOUSE, _QUADS = "Straight", "Flush", "Full house", "Four of a kind"
_STRAIGHT_FLUSH = "Straight flush"


@cache
def _pokerkit() -> ModuleType:
    import pokerkit  # (pokerkit's tables loaded at the first showdown, not at start-up)
    return pokerkit


class EvaluationError(ValueError):
    """Cards that cannot be read as the game's hand (an unknown game, a card that is not a card)."""


@dataclass(frozen=True)
class Half:
    """One way a game's pot is won: the hand pokerkit evaluates, and how it is named.

    ``hand``: the name of pokerkit's class of hand. ``style``: ``high`` (pairs, straights,
    flushes named), ``low`` (a no-pair hand named by its ranks, "8-6"; pairs and the 2-7
    straights and flushes as a high hand), ``badugi``.
    ``ace_low``: the ace counts as one (A-5, eight-or-better, razz, badugi) for the words and the
    odd chip; ``qualifier``: a seat may have no such hand (eight-or-better)."""

    name: str
    hand: str  # the pokerkit class, by name (:func:`kind_of`)
    style: str
    ace_low: bool = False
    qualifier: bool = False


@dataclass(frozen=True)
class Game:
    """A game as the showdown sees it. ``cards``: the cards a live hand holds (stud: seat and
    board together, the community card of STUD-008 being on the board); ``board``: the board a
    showdown needs (0: no board); ``stud``: the odd chip goes by the cards (SPLIT-006), not by the
    button. ``halves``: one for a one-winner game; two for the split games, the first the half
    that takes the pot's odd chip (the high; the five-card hand in the badugi hybrids, SPLIT-008)."""

    name: str
    cards: int
    board: int
    halves: tuple[Half, ...]
    stud: bool = False

    @property
    def split(self) -> bool:
        return len(self.halves) == 2


HIGH = Half("high", "StandardHighHand", "high")
_OMAHA_HIGH = Half("high", "OmahaHoldemHand", "high")
_EIGHT = Half("8-or-better", "EightOrBetterLowHand", "low", ace_low=True, qualifier=True)
_OMAHA_EIGHT = Half("8-or-better", "OmahaEightOrBetterLowHand", "low", ace_low=True, qualifier=True)
_A5 = Half("A-5", "RegularLowHand", "low", ace_low=True)  # EVAL-004/005: flushes and straights ignored
_27 = Half("2-7", "StandardLowHand", "low")  # EVAL-004, LOWBALL_27_SF "count": they are high hands
_BADUGI = Half("badugi", "BadugiHand", "badugi", ace_low=True)  # EVAL-006
_BADUGI_ACE_HIGH = Half("badugi", "StandardBadugiHand", "badugi")  # EVAL-007: BADUCI, the ace excluded

#: The games of deal-script.md ("Stud, draw and mixed games"), by the name a script uses.
GAMES: dict[str, Game] = {g.name: g for g in (
    Game("holdem", 2, 5, (HIGH,)),  # EVAL-001
    Game("omaha", 4, 5, (_OMAHA_HIGH,)),  # EVAL-002
    Game("omaha8", 4, 5, (_OMAHA_HIGH, _OMAHA_EIGHT)),  # EVAL-002, EVAL-003
    Game("stud", 7, 0, (HIGH,), stud=True),
    Game("stud8", 7, 0, (HIGH, _EIGHT), stud=True),  # EVAL-003
    Game("razz", 7, 0, (_A5,), stud=True),  # EVAL-005
    Game("draw27_single", 5, 0, (_27,)),
    Game("draw27_triple", 5, 0, (_27,)),
    Game("draw_a5_triple", 5, 0, (_A5,)),
    Game("badugi", 4, 0, (_BADUGI,)),
    Game("badeucy", 5, 0, (_27, _BADUGI_ACE_HIGH)),  # EVAL-007 BADUCI
    Game("badacey", 5, 0, (_A5, _BADUGI)),  # EVAL-007 ADUCI
    Game("draw5", 5, 0, (HIGH,)),
)}


def kind_of(half: Half) -> type[Hand]:
    """pokerkit's class of hand for ``half``.

    >>> kind_of(GAMES["omaha8"].halves[1]).__name__
    'OmahaEightOrBetterLowHand'
    """
    kind: type[Hand] = getattr(_pokerkit(), half.hand)
    return kind


def game_of(name: str) -> Game:
    """The game called ``name``; :class:`EvaluationError` naming it and the games known otherwise."""
    try:
        return GAMES[name]
    except KeyError:
        raise EvaluationError(f"unknown game {name!r} (known: {', '.join(GAMES)})") from None


@dataclass(frozen=True)
class Read:
    """A seat's best hand for one half: pokerkit's hand (compare them with ``<``, ``==``: suits
    never break a tie, EVAL-008), the five (badugi: one to four) cards it plays, and the words."""

    hand: Hand
    cards: tuple[str, ...]
    words: str


def best(game: str | Game, half: int, hole: Sequence[str], board: Sequence[str] = (),
         others: Sequence[Read] = ()) -> Read | None:
    """The best hand ``hole`` and ``board`` make for half ``half`` of ``game``; None when there
    is none (no qualifying low). ``others``: the other seats' reads of this half, so the words name
    the kickers that tell this hand from theirs ("pair of kings, ace kicker").

    >>> best("holdem", 0, ["Kh", "7c"], ["Ks", "7d", "2c", "9h", "Qd"]).words
    'two pair, kings and sevens'
    >>> best("razz", 0, ["Kh", "7c", "Ah", "Ad", "2s", "5c", "9d"]).words
    '9-7'
    >>> best("holdem", 0, ["Ah", "2c"], ["Ks", "8d", "2s", "9h", "Qd"]).cards  # the pair first
    ('2c', '2s', 'Ah', 'Ks', 'Qd')
    """
    g = game if isinstance(game, Game) else game_of(game)
    hand = _best_of(g, half, hole, board)
    return None if hand is None else _worded(g.halves[half], hand, others)


def _best_of(g: Game, half: int, hole: Sequence[str], board: Sequence[str]) -> Hand | None:
    """pokerkit's best hand for half ``half`` (None: no qualifying low), unworded."""
    spec = g.halves[half]
    try:
        hand = best_hand(kind_of(spec), pk_cards(hole), pk_cards(board))
    except ValueError as e:  # pokerkit refuses the cards themselves
        raise EvaluationError(f"{g.name}: cannot read {list(hole)} with board {list(board)}: {e}") from None
    if hand is None and not spec.qualifier:
        raise EvaluationError(f"{g.name}: no {spec.name} hand in {list(hole)} with board {list(board)}")
    return hand


def best_hand(kind: type[Hand], hole: Sequence[Card], board: Sequence[Card] = ()) -> Hand | None:
    """pokerkit's ``kind.from_game_or_none(hole, board)``: the same five cards, chosen the same
    way (every allowed choice in pokerkit's order, the first of the strongest kept), looked up
    once each in pokerkit's table where ``from_game`` builds a hand and looks it up three times:
    three times faster, which a showdown on a Pi wants. Badugi hands go to pokerkit as they are.

    >>> from pokerkit import Card, OmahaHoldemHand
    >>> best_hand(OmahaHoldemHand, list(Card.parse("6c7c8c9c")), list(Card.parse("8s9sTc")))
    6c7c8s9sTc
    """
    # (pokerkit's tables loaded at the first showdown, not at start-up)
    from pokerkit.hands import BoardCombinationHand, CombinationHand, HoleBoardCombinationHand
    if issubclass(kind, HoleBoardCombinationHand):
        choices: Iterable[tuple[Card, ...]] = (
            h + b for h in combinations(hole, kind.hole_card_count)
            for b in combinations(board, kind.board_card_count))
    elif issubclass(kind, CombinationHand) and not issubclass(kind, BoardCombinationHand):
        choices = combinations([*hole, *board], kind.card_count)
    else:
        return kind.from_game_or_none(hole, board)
    lookup, low = kind.lookup, kind.low
    entries, primes = _table(lookup)
    top: tuple[Card, ...] | None = None
    top_entry = None
    for cards in choices:
        if entries is None:
            entry = lookup.get_entry_or_none(cards)
        else:  # pokerkit's own key (the product of the ranks' primes, suited or not), made here
            key = 1
            for c in cards:
                key *= primes[c.rank]
            suit = cards[0].suit
            entry = entries.get((key, all(c.suit == suit for c in cards)))
        if entry is not None and (top_entry is None or (entry < top_entry if low else entry > top_entry)):
            top, top_entry = cards, entry
    return None if top is None else kind(top)


def _table(lookup: Any) -> tuple[dict[tuple[int, bool], Any] | None, dict[Any, int]]:
    """pokerkit's lookup table and its rank primes (private to pokerkit 0.7, pinned below 0.8 in
    pyproject.toml), for a key made without pokerkit's per-call checks of the cards: half a
    showdown's time. Where they are not found, None: the public ``get_entry_or_none`` is used.
    tests/unit/core/test_showdown_crosscheck.py checks the hand chosen against ``from_game`` for every kind."""
    entries = getattr(lookup, "_Lookup__entries", None)
    primes = getattr(type(lookup), "_Lookup__multipliers", None)
    if not isinstance(entries, dict) or not isinstance(primes, dict):
        return None, {}
    return entries, primes


def _worded(spec: Half, hand: Hand, others: Sequence[Read]) -> Read:
    """``hand`` named as a dealer reads it, as far as it takes to tell it from ``others``."""
    return _worded_against(spec, hand, _key(spec, hand), [_key(spec, o.hand) for o in others])


def _key(spec: Half, hand: Hand) -> tuple[str, list[str]]:
    """A hand's label and the ranks that decide between two hands of that label (looked up once:
    pokerkit's ``entry`` looks the hand up again at every call)."""
    label = hand.entry.label
    return label, _deciders([repr(c) for c in hand.cards], spec.ace_low, label)


def _worded_against(spec: Half, hand: Hand, own: tuple[str, list[str]],
                    others: Sequence[tuple[str, list[str]]]) -> Read:
    label, deciders = own
    cards = tuple(sorted((repr(c) for c in hand.cards), key=lambda c: deciders.index(c[0])))
    depth = _BASE_DEPTH.get(label, 1) if spec.style == "high" or label != _HIGH_CARD else 2
    for other_label, theirs in others:
        if other_label == label and theirs != deciders:
            # (badugi halves of one label may differ in length: a prefix differs where it ends)
            same = next((i for i, (a, b) in enumerate(zip(deciders, theirs, strict=False)) if a != b),
                        min(len(deciders), len(theirs)))
            depth = max(depth, same + 1)
    return Read(hand, cards, _words(spec, label, cards, deciders, min(depth, len(deciders))))


def read_all(game: str | Game, half: int, hands: dict[int, Sequence[str]],
             board: Sequence[str] = ()) -> dict[int, Read | None]:
    """Every seat's read of one half, worded against each other (kickers named where they decide).

    >>> reads = read_all("holdem", 0, {2: ["Kh", "Ac"], 5: ["Kd", "Qc"]}, ["Ks", "7d", "2c", "9h", "3d"])
    >>> reads[2].words, reads[5].words
    ('pair of kings, ace kicker', 'pair of kings, queen kicker')
    """
    g = game if isinstance(game, Game) else game_of(game)
    spec = g.halves[half]
    first = {seat: _best_of(g, half, cards, board) for seat, cards in hands.items()}
    keys = {seat: _key(spec, h) for seat, h in first.items() if h is not None}
    return {seat: None if h is None else _worded_against(spec, h, keys[seat],
                                                         [k for s, k in keys.items() if s != seat])
            for seat, h in first.items()}


# -- the words ---------------------------------------------------------------------------------
_NAMES = {"A": "ace", "2": "deuce", "3": "three", "4": "four", "5": "five", "6": "six", "7": "seven",
          "8": "eight", "9": "nine", "T": "ten", "J": "jack", "Q": "queen", "K": "king"}
_PLURAL = {"6": "sixes"}
_SHORT = {"T": "10"}  # a low is read in figures: "10-8", "8-6"
_BASE_DEPTH = {_TWO_PAIR: 2, _FULL_HOUSE: 2}


def _value(rank: str, ace_low: bool) -> int:
    return 1 if rank == "A" and ace_low else "23456789TJQKA".index(rank) + 2


def _deciders(cards: Sequence[str], ace_low: bool, label: str) -> list[str]:
    """The ranks in the order they decide between two hands of one kind: the biggest group first
    (the trips of a full house, the pairs of two pair), then by rank, each rank once; the wheel
    is five high (in 2-7 A-5-4-3-2 is no straight: pokerkit labels it a high card, ace high)."""
    counts = Counter(c[0] for c in cards)
    ranks = sorted(counts, key=lambda r: (counts[r], _value(r, ace_low)), reverse=True)
    if label in (_STRAIGHT, _STRAIGHT_FLUSH) and ranks[:2] == ["A", "5"]:
        ranks = ranks[1:] + ranks[:1]  # the wheel: five high
    return ranks


def _name(rank: str) -> str:
    return _NAMES[rank]


def _plural(rank: str) -> str:
    return _PLURAL.get(rank, _NAMES[rank] + "s")


def _figures(ranks: Sequence[str]) -> str:
    return "-".join(_SHORT.get(r, r) for r in ranks)


def _kickers(ranks: Sequence[str]) -> str:
    return f", {'-'.join(_name(r) for r in ranks)} kicker" if ranks else ""


def _words(spec: Half, label: str, cards: Sequence[str], d: list[str], depth: int) -> str:
    if spec.style == "badugi":
        n = len(cards)
        return f"badugi, {_figures(d[:max(depth, 2)])}" if n == 4 else \
            f"{('one', 'two', 'three')[n - 1]}-card {_figures(d[:max(depth, 1)])}"
    if spec.style == "low" and label == _HIGH_CARD:
        return _figures(d[:depth])
    if label == _HIGH_CARD:
        return f"{'-'.join(_name(r) for r in d[:depth])} high"
    if label == _ONE_PAIR:
        return f"pair of {_plural(d[0])}{_kickers(d[1:depth])}"
    if label == _TWO_PAIR:
        return f"two pair, {_plural(d[0])} and {_plural(d[1])}{_kickers(d[2:depth])}"
    if label == _TRIPS:
        return f"three of a kind, {_plural(d[0])}{_kickers(d[1:depth])}"
    if label == _STRAIGHT:
        return f"straight, {_name(d[0])} high"
    if label == _FLUSH:
        return f"flush, {'-'.join(_name(r) for r in d[:depth])} high"
    if label == _FULL_HOUSE:
        return f"{_plural(d[0])} full of {_plural(d[1])}"
    if label == _QUADS:
        return f"four of a kind, {_plural(d[0])}{_kickers(d[1:depth])}"
    return "royal flush" if d[0] == "A" else f"straight flush, {_name(d[0])} high"


def greek_holdem() -> type[Hand]:
    """pokerkit's hand that plays both hole cards and three of the board (SHOW-008's test)."""
    kind: type[Hand] = _pokerkit().GreekHoldemHand
    return kind


def pk_cards(cards: Sequence[str]) -> list[Card]:
    """The project's card labels as pokerkit's cards (the same spelling: rank then suit)."""
    for c in cards:
        if not is_card(c):
            raise EvaluationError(f"not a card of the deck in play: {c!r}")
    return list(_pokerkit().Card.parse("".join(cards)))
