"""What a stud dealer announces, worked out here from the dealer guides alone: the simulator's
oracle for the random stud hands (``hw_sim.random_stud``) and the real ones (``hw_sim.phh_stud``).

It is written apart from the daemon's game definitions on purpose: a hand's expected bring-in
and first seat to act must not come from the code they will check.

- **Bring-in** (STUD-002): in stud and stud 8 the lowest up card by rank, then by suit; in razz
  the highest, the ace low, so the king of spades is the highest card (002, "RAZZ"). Suits rank
  clubs, diamonds, hearts, spades from the lowest (docs/rules.md ``SUIT_ORDER``); the ace is high for
  the stud-high bring-in (``STUD_ACE_BRINGIN``'s default).
- **First to act on 4th to 7th street** (STUD-004): the best showing hand in stud and stud 8
  (a high hand), the lowest in razz (the ace low; any pair is worse than no pair). Showing hands
  of four cards or fewer have no straight or flush, so they rank as quads, trips, two pair, a
  pair, high cards. Seventh street is dealt down, so who acts first there is who acted first on
  sixth (002's note on the community card says the same). The guides leave ties open
  (``STUD_TIE_FIRST``): :func:`first_to_act` says which seats tie.
- **The short stub** (STUD-006 to 008): before 7th street, the stub against the players left plus
  two (the burn and the bottom card); if short, enough with the burns (STUD-007), or one
  community card (STUD-008).

>>> bring_in({1: "4d", 2: "4c", 3: "Qs"}, "stud")
2
>>> bring_in({1: "Kh", 2: "Ks", 3: "As"}, "razz")
2
>>> first_to_act({1: ["Qc", "6d"], 2: ["3s", "9s"]}, "stud")
([1], 'Q-6')
>>> first_to_act({1: ["Qc", "6d"], 2: ["3s", "9s"]}, "razz")
([2], '9-3')
>>> short_stub(live=5, stub=5, burns=3)   # 002's example: 5 + 2 = 7 needed, 5 + 3 burns = 8
('STUD-007', 7)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence

#: suits from the lowest (docs/rules.md SUIT_ORDER: spades, hearts, diamonds, clubs from the highest)
SUITS_UP = "cdhs"
#: ranks from the lowest, ace high (stud, stud 8) and ace low (razz)
RANKS_HIGH = "23456789TJQKA"
RANKS_LOW = "A23456789TJQK"
STUD_GAMES = ("stud", "stud8", "razz")
#: categories of a showing hand of up to four cards, from the lowest
HIGH_CARD, PAIR, TWO_PAIR, TRIPS, QUADS = range(5)
CATEGORY_WORDS = ("", "a pair", "two pair", "three of a kind", "four of a kind")


def _check(game: str) -> None:
    if game not in STUD_GAMES:
        raise ValueError(f"not a stud game: {game!r} (games: {', '.join(STUD_GAMES)})")


def card_value(card: str, game: str) -> tuple[int, int]:
    """(rank, suit) of a card, both from 0 for the lowest, as ``game`` ranks ranks.

    >>> card_value("As", "stud"), card_value("As", "razz"), card_value("2c", "stud")
    ((12, 3), (0, 3), (0, 0))
    """
    ranks = RANKS_LOW if game == "razz" else RANKS_HIGH
    return ranks.index(card[0]), SUITS_UP.index(card[1])


def bring_in(up: Mapping[int, str], game: str) -> int:
    """The seat that brings in, from each seat's up card on 3rd street (STUD-002)."""
    _check(game)
    if not up:
        raise ValueError("no up cards")
    pick = max if game == "razz" else min
    return pick(up, key=lambda seat: card_value(up[seat], game))


def showing_key(cards: Sequence[str], game: str) -> tuple[int, tuple[int, ...]]:
    """A showing hand's rank: (category, its ranks by weight: the pair's first, then the
    others from the highest). Higher is better in stud and stud 8, lower in razz.

    >>> showing_key(["Kd", "7c", "Kh"], "stud")
    (1, (11, 11, 5))
    >>> showing_key(["Ad", "2c"], "razz") < showing_key(["3d", "3c"], "razz")  # no pair beats a pair
    True
    """
    _check(game)
    ranks = [card_value(c, game)[0] for c in cards]
    counts = Counter(ranks)
    order = sorted(counts, key=lambda r: (counts[r], r), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    category = {4: QUADS, 3: TRIPS}.get(shape[0], TWO_PAIR if shape[:2] == [2, 2] else PAIR if shape[0] == 2
                                         else HIGH_CARD)
    return category, tuple(r for r in order for _ in range(counts[r]))


def describe(cards: Sequence[str], game: str) -> str:
    """What the dealer calls: ``a pair of kings``-like words are the core's; here the ranks,
    highest first, e.g. ``K-K-7``: enough to tell two showing hands apart in a message."""
    ranks = RANKS_LOW if game == "razz" else RANKS_HIGH
    return "-".join(ranks[r] for r in showing_key(cards, game)[1])


def first_to_act(showing: Mapping[int, Sequence[str]], game: str) -> tuple[list[int], str]:
    """The seats whose showing hand acts first on 4th to 6th street (STUD-004): one seat, or
    every seat that ties (the guides leave ties to the house), in the order given; and the
    hand, as :func:`describe` writes it."""
    _check(game)
    if not showing:
        raise ValueError("no live seats")
    keys = {seat: showing_key(cards, game) for seat, cards in showing.items()}
    best = (min if game == "razz" else max)(keys.values())
    seats = [seat for seat in showing if keys[seat] == best]
    return seats, describe(showing[seats[0]], game)


def short_stub(*, live: int, stub: int, burns: int) -> tuple[str | None, int]:
    """Before 7th street (STUD-006): the procedure and the cards needed (``live`` + 2: a burn and
    the bottom card). None when the stub is enough; ``STUD-007`` when the stub and the burns are
    (``stub + burns >= need``, 002's example); else ``STUD-008``, one community card.

    >>> short_stub(live=8, stub=1, burns=3)   # eight players to 7th street: 52 - 24 - 3 - 24 = 1
    ('STUD-008', 10)
    >>> short_stub(live=4, stub=20, burns=3)
    (None, 6)
    """
    need = live + 2
    if stub >= need:
        return None, need
    return ("STUD-007" if stub + burns >= need else "STUD-008"), need
