"""A reference evaluator written here, by brute force and from
the rules alone (EVAL-001/002/003/008): seeded random hold'em, Omaha and Omaha hi-lo deals.

The reference knows nothing of pokerkit: a five-card hand is ranked by its category, then its
ranks in the order they decide; every allowed five-card choice is tried. ``bench/eval_crosscheck.py``
runs the same check over 100,000 deals.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

from controller.core.cards import FULL_DECK

RANK = {r: i for i, r in enumerate("23456789TJQKA", 2)}


def high5(cards: tuple[str, ...]) -> tuple:
    """A five-card high hand as a tuple that sorts weakest first (suits only make flushes)."""
    values = sorted((RANK[c[0]] for c in cards), reverse=True)
    counts = Counter(values)
    flush = len({c[1] for c in cards}) == 1
    distinct = sorted(counts, reverse=True)
    straight_top = None
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight_top = distinct[0]
        elif distinct == [14, 5, 4, 3, 2]:
            straight_top = 5  # the wheel
    groups = sorted(counts, key=lambda v: (counts[v], v), reverse=True)
    shape = sorted(counts.values(), reverse=True)
    if straight_top and flush:
        return (8, straight_top)
    if shape == [4, 1]:
        return (7, *groups)
    if shape == [3, 2]:
        return (6, *groups)
    if flush:
        return (5, *values)
    if straight_top:
        return (4, straight_top)
    if shape == [3, 1, 1]:
        return (3, *groups)
    if shape == [2, 2, 1]:
        return (2, *groups)
    if shape == [2, 1, 1, 1]:
        return (1, *groups)
    return (0, *values)


def low5(cards: tuple[str, ...]) -> tuple | None:
    """An eight-or-better low: five different ranks, all eight or lower, the ace one; a tuple
    that sorts best (lowest) first. None when it does not qualify."""
    values = sorted(((1 if c[0] == "A" else RANK[c[0]]) for c in cards), reverse=True)
    if len(set(values)) != 5 or values[0] > 8:
        return None
    return tuple(values)


def ref_holdem(hole: list[str], board: list[str]) -> tuple:
    return max(high5(c) for c in combinations(hole + board, 5))  # EVAL-001: any five of seven


def ref_omaha(hole: list[str], board: list[str]) -> tuple:
    return max(high5(h + b) for h in combinations(hole, 2) for b in combinations(board, 3))  # EVAL-002


def ref_omaha_low(hole: list[str], board: list[str]) -> tuple | None:
    lows = [v for h in combinations(hole, 2) for b in combinations(board, 3) if (v := low5(h + b))]
    return min(lows) if lows else None


def winners(values: dict[int, tuple | None], low: bool = False) -> tuple[int, ...]:
    found = {s: v for s, v in values.items() if v is not None}
    if not found:
        return ()
    best = (min if low else max)(found.values())
    return tuple(sorted(s for s, v in found.items() if v == best))


def deals(seed: int, count: int, most: int, hole: int):
    """``count`` deals of two to ``most`` seats (chosen among 1..9), with a five-card board."""
    rng = random.Random(seed)
    for _ in range(count):
        players = rng.randint(2, most)
        cards = rng.sample(FULL_DECK, players * hole + 5)
        hands = {seat: cards[i * hole:(i + 1) * hole] for i, seat in enumerate(rng.sample(range(1, 10), players))}
        yield hands, cards[players * hole:]
