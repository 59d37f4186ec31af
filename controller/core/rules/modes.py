"""The deals a ``mode`` press watches instead of a hand: the colour-up race-off (docs/rules.md:
RACE-001..005) and the high card of a table break (BREAK-001). Cards rank by rank, then by
``SUIT_ORDER`` (♠ > ♥ > ♦ > ♣, 002), with the ace high: the order of the draw for the button
(:mod:`controller.core.rules.highcard`, DEAL-011), not the deck-reset stacking order (DECK-008).

RACE-002: one chip a player (RACE_ONE_PER_PLAYER ``yes``), each ranked by his best card; the
seats RACE_ALLIN ``first_chip`` puts first come first (RACE-005). Seat 4's ace of spades beats
seat 2's two aces:

>>> race_ranking({2: ["Ah", "Ad"], 4: ["As"], 7: ["Kc"]})
[(4, 'As'), (2, 'Ah'), (7, 'Kc')]
>>> race_ranking({2: ["Ah", "Ad"], 4: ["As"], 7: ["Kc"]}, first=(7,))
[(7, 'Kc'), (4, 'As'), (2, 'Ah')]

RACE_ONE_PER_PLAYER ``no`` (004): every card ranks, so a player may win twice:

>>> race_ranking({2: ["Ah", "Ad"], 4: ["As"], 7: ["Kc"]}, one_per_player=False)
[(4, 'As'), (2, 'Ah'), (2, 'Ad'), (7, 'Kc')]

BREAK-001: the cards laid above the tray go to the players in seat order, and rank the same way:

>>> break_ranking(["7d", "Qs", "7h"], (2, 5, 9))
[(5, 'Qs'), (9, '7h'), (2, '7d')]

A label that is no card of the deck in play (a foreign tag ``tag:…``, another deck's ``Kh@B``)
is left out of every ranking: it is the deck guard's floor alert already (DECK-006), and neither
its label nor its seat's missing rank reaches the dealer. A seat with no card left is unranked:

>>> race_ranking({2: ["Kh@B"], 4: ["As", "tag:E004"]})
[(4, 'As')]
>>> break_ranking(["7d", "tag:E004", "7h"], (2, 5, 9))
[(9, '7h'), (2, '7d')]

>>> ranking_text([(5, "Qs"), (9, "7h")])
'1: seat 5 (Qs), 2: seat 9 (7h)'
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from controller.core.cards import is_card
from controller.core.rules.highcard import card_strength


def race_ranking(cards: dict[int, list[str]], *, one_per_player: bool = True,
                 first: Iterable[int] = ()) -> list[tuple[int, str]]:
    """``(seat, card)`` highest first: each seat by its best card (``one_per_player``), else
    every card; the seats of ``first`` (in their order) ahead of the rest. Only cards rank."""
    cards = {s: [c for c in cs if is_card(c)] for s, cs in cards.items()}
    if one_per_player:
        ranked = sorted(((s, max(cs, key=card_strength)) for s, cs in cards.items() if cs),
                        key=lambda sc: card_strength(sc[1]), reverse=True)
    else:
        ranked = sorted(((s, c) for s, cs in cards.items() for c in cs),
                        key=lambda sc: card_strength(sc[1]), reverse=True)
    ahead = [s for s in dict.fromkeys(first) if s in cards and cards[s]]
    top = [(s, max(cards[s], key=card_strength)) for s in ahead]
    return top + [sc for sc in ranked if sc[0] not in ahead]


def break_ranking(laid: Sequence[str], seats: Sequence[int]) -> list[tuple[int, str]]:
    """The cards laid in a line (in deal order) given to ``seats`` in seat order, highest first
    (a label that is no card keeps its place in the line and ranks nowhere)."""
    given = [(s, c) for s, c in zip(sorted(seats), laid, strict=False) if is_card(c)]
    return sorted(given, key=lambda sc: card_strength(sc[1]), reverse=True)


def ranking_text(ranking: Sequence[tuple[int, str]]) -> str:
    """The ranking as the dealer and the floor read it (the cards are face up at the table)."""
    return ", ".join(f"{i}: seat {s} ({c})" for i, (s, c) in enumerate(ranking, 1))
