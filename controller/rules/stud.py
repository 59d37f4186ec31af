"""Stud's own rules (RULES.md §11): the bring-in (STUD-002), who acts first on 4th-7th street
(STUD-004) and the stub before 7th street (STUD-006..008).

The bring-in ranks single up cards, by rank and then suit (SUIT_ORDER: spades, hearts, diamonds,
clubs, clubs lowest). In stud and stud 8 the lowest card brings in, the ace high
(STUD_ACE_BRINGIN's default); in razz the highest, the ace low, so the king of spades is the
highest card (002 §Seven Card Games - Quick Reference).

>>> from controller.games import game_of
>>> bring_in({1: "2d", 3: "2c", 5: "Ah"}, game_of("stud"))  # the deuce of clubs: lowest by suit
3
>>> bring_in({1: "Kh", 3: "Ks", 5: "Ac"}, game_of("razz"))  # the king of spades: the ace is low
3

The stub before 7th street: players still in, plus one burn and the bottom card (STUD-006).
002's own example: five players need seven cards; a five-card stub and three burns are eight.

>>> short_stub(stub=5, players=5, burns=3).code
'stub.stud_short_use_burns'
>>> short_stub(stub=9, players=5, burns=3) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from controller.games import Game
from controller.rules import Finding

#: SUIT_ORDER (RULES.md §20, 002): higher is higher
SUIT_RANK = {"c": 0, "d": 1, "h": 2, "s": 3}
_RANKS = "23456789TJQKA"
RANK_HIGH = {r: i + 2 for i, r in enumerate(_RANKS)}  # the ace 14
RANK_LOW = {**RANK_HIGH, "A": 1}  # the ace 1 (razz)

#: STUD_SHORT_STUB_METHOD (RULES.md §20): 001 deals the stub down to its last card, mixes that
#: card with the burns, and deals on without a burn; 002 scrambles the stub with the burns, cuts
#: and burns. 001 is the proposed default.
SHORT_STUB_METHODS = ("001", "002")


def card_value(card: str, *, ace_low: bool) -> tuple[int, int]:
    """A single card's place by rank, then suit.

    >>> card_value("As", ace_low=True) < card_value("2c", ace_low=True)
    True
    >>> card_value("2d", ace_low=False) > card_value("2c", ace_low=False)
    True
    """
    ranks = RANK_LOW if ace_low else RANK_HIGH
    return ranks[card[0].upper()], SUIT_RANK[card[1].lower()]


def bring_in(up: Mapping[int, str], game: Game) -> int:
    """STUD-002: the seat that brings in, from each seat's 3rd-street up card."""
    if not up:
        raise ValueError("no up cards: nobody brings in")
    if game.bring_in == "high":
        return max(up, key=lambda s: card_value(up[s], ace_low=game.low_ace))
    return min(up, key=lambda s: card_value(up[s], ace_low=game.low_ace))


#: What the evaluation of showing hands gives the table (STUD-004): for each seat's up cards a
#: key, higher for the hand that acts first (the best showing hand in stud and stud 8, the
#: lowest in razz). Filled by the showdown's evaluator (pokerkit); the table holds no ranking.
ShowingRank = Callable[[Sequence[str]], tuple[int, ...]]


def first_to_act(showing: Mapping[int, Sequence[str]], order: Sequence[int], rank: ShowingRank) -> int | None:
    """STUD-004: from 4th street on, the seat whose showing cards rank first; on a tie
    (STUD_TIE_FIRST: the seeds are silent) the first of them in the dealing order.

    >>> by_high_card = lambda cards: tuple(sorted((RANK_HIGH[c[0]] for c in cards), reverse=True))
    >>> first_to_act({2: ["9c", "Kd"], 5: ["Ks", "4h"], 7: ["Qs", "Js"]}, [5, 7, 2], by_high_card)
    2
    """
    live = [s for s in order if showing.get(s)]
    if not live:
        return None
    best = max(rank(showing[s]) for s in live)
    return next(s for s in live if rank(showing[s]) == best)


def short_stub(*, stub: int, players: int, burns: int, method: str = "001") -> Finding | None:
    """STUD-006: before 7th street, the stub against the players still in plus two (one burn and
    the bottom card). None when it is enough; else the procedure to follow: the burns make it up
    (STUD-007, by ``method``), or one community card (STUD-008)."""
    if method not in SHORT_STUB_METHODS:
        raise ValueError(f"short-stub method {method!r}: want one of {', '.join(SHORT_STUB_METHODS)}")
    need = players + 2
    if stub >= need:
        return None
    told = f"stub {stub}, need {need} ({players} players + burn + bottom card)"
    if stub + burns >= need:
        if method == "001":
            how = ("deal from the stub but its last card; mix the last card with the burns, cut, and deal "
                   "the rest with no burn, never the bottom card")
        else:
            how = "scramble the stub with the burns, cut, burn, and deal 7th street"
        return Finding("stub.stud_short_use_burns", "STUD-007", f"{told}: {how}")
    if stub >= 3:
        how = "burn and deal one community card face up in the middle; announce it, not its rank"
    else:
        how = "scramble the stub with the burns, cut, burn, then deal one community card in the middle"
    return Finding("stub.stud_community_card", "STUD-008", f"{told}: {how}")
