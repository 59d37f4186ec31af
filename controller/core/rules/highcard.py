"""DEAL-011: the button by high card. One card to each seat; the highest by rank, then by
``SUIT_ORDER`` (♠ ♥ ♦ ♣, 002), takes the button.

>>> high_card({1: "Kd", 4: "Ks", 6: "2c"})
4
>>> high_card({2: "Ah", 3: "Kc"})
2
"""

from __future__ import annotations

from controller.core.cards import SUIT_ORDER as SUIT_ORDER  # (named here too: the draw for the button's order)

HIGH_RANKS = "23456789TJQKA"  # the ace is high in a draw for the button


def card_strength(card: str) -> tuple[int, int]:
    return HIGH_RANKS.index(card[0]), SUIT_ORDER.index(card[1])


def high_card(cards: dict[int, str]) -> int:
    """The seat whose card is highest."""
    return max(cards, key=lambda seat: card_strength(cards[seat]))
