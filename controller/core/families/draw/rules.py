"""The draw games' own rules (docs/rules.md: DRAW-001..005): who sits out at an over-full table,
each draw round's counts, and running out of cards.

A draw round (DRAW-004): the players discard (a seat's cards to the muck), the dealer burns one
card, even when everyone stands pat, then deals each player as many cards as he threw. The
reader sees discards as ``seat -> muck`` moves, the burn as a card to the burn spot, the draw
as cards to the seats. A fold is a seat's whole hand to the muck, which the reader cannot tell
from a player throwing every card: a seat left with no card is taken for folded until a card
comes to it. So the counts are read off the seats: once a round's draw is over, every seat still
in holds the game's cards (DRAW-001), and no seat ever holds more.

The round under way is the number of burns dealt: round ``r``'s discards are made while ``r - 1``
burns lie on the burn spot, its draw once ``r`` do. A discard is marked with its round
(``Hand.discards``), which is what tells an earlier round's discard, the stuff of a rebuilt
stub, from this round's, which never is (DRAW-005).

>>> sitting_out((1, 2, 3, 4, 5, 6, 7, 8), bb=2, most=6)  # over by two: UTG, then the next
[3, 4]
>>> sitting_out((2, 4, 6, 8, 9, 10, 1), bb=1, most=6)
[2]
>>> short_by(need=19, stub=20), short_by(need=21, stub=20)  # the stub's last card is not dealt
(None, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from controller.core.cards import is_card
from controller.core.rules import Finding
from controller.core.zones import SEAT_ZONES, Zone, seat_zone

if TYPE_CHECKING:
    from controller.core.hand import Hand

#: the wheel's ranks (A-5): a card of these exposed on the deal is kept in cash games (DRAW-003)
WHEEL_RANKS = frozenset("A2345")


def sitting_out(seats: Sequence[int], *, bb: int, most: int) -> list[int]:
    """DRAW-002: at an over-full table, the seats directly after the big blind (under the gun,
    then the next) sit the hand out, as many as the table is over ``most``."""
    ring = sorted(seats)
    if len(ring) <= most or bb not in ring:
        return []
    at = ring.index(bb)
    return [ring[(at + 1 + i) % len(ring)] for i in range(len(ring) - most)]


def short_by(*, need: int, stub: int) -> int | None:
    """DRAW-005: the cards a draw of ``need`` cards lacks from a stub of ``stub`` (after the
    burn), its last card never dealt; None when the stub suffices."""
    lack = need - (stub - 1)
    return lack if lack > 0 else None


def draw_round(hand: Hand) -> int:
    """The draw round whose cards are being dealt: the burns dealt, one a round (counted as
    they come: a burn gathered into a new stub by mistake still designated its round)."""
    return hand.board.burns_total


def in_draws(hand: Hand) -> bool:
    """The initial deal is done and the draws have begun (a discard, or a burn)."""
    return hand.hole_dealt >= hand.hole_target and (bool(hand.discards) or draw_round(hand) > 0)


def held(hand: Hand, seat: int) -> int:
    return len(hand.zones.get(SEAT_ZONES[seat - 1], ()))  # (hand.count(seat_zone(seat)), no call)


def owed(hand: Hand) -> int:
    """The cards the seats still in are owed in this round's draw, as far as the reader can
    tell: a seat holding none may have folded, and owes nothing until a card comes to it."""
    full, zones, total = hand.hole_cards, hand.zones, 0
    for s in hand.order:  # (asked at every draw card: a plain loop, held() without the call)
        n = len(zones.get(SEAT_ZONES[s - 1], ()))
        if 0 < n < full:
            total += full - n
    return total


def next_to(hand: Hand) -> str | None:
    """Where the next card off the stub is due once the deal is done (DRAW-004), for the
    tracker's expectation: in a round's draw, the first seat in the deal's order short of its
    cards (a seat that threw its whole hand cannot be told from a fold until its first card
    comes); otherwise the next round's burn, if a round is to come. None once the last draw is
    dealt."""
    rnd = draw_round(hand)
    if rnd >= 1 and not _next_round_begun(hand, rnd):
        full, zones = hand.hole_cards, hand.zones
        for s in hand.order:
            if 0 < len(zones.get(SEAT_ZONES[s - 1], ())) < full:  # (held(), without the call)
                return seat_zone(s)
    if rnd < hand.game_def.draws and len(hand.live_seats()) >= 2:
        return Zone.BURN
    return None


def on_draw_card(hand: Hand, seat: int) -> Finding | None:
    """A card off the stub to ``seat`` in the draws (before it is placed): after the round's
    burn (DRAW-004), and no more than the seat threw (a hand is never over the game's cards)."""
    rnd = draw_round(hand)
    if _next_round_begun(hand, rnd) and held(hand, seat) < hand.hole_cards:
        return Finding("deal.draw_before_burn", "DRAW-004",
                       f"a draw card to seat {seat} before the burn: discards, one burn, then the draw", seat)
    over = held(hand, seat) + 1 - hand.hole_cards
    if over > 0:
        return Finding("deal.draw_too_many", "DRAW-004",
                       f"seat {seat} got {over} more than it threw: {hand.game} holds {hand.hole_cards}", seat,
                       count=over)
    return None


def draw_done(hand: Hand) -> list[Finding]:
    """The draw of the round under way is over (the next discard or fold, the dealer's tap,
    the next burn, the end of the hand): each seat still in holds the game's cards. Once a
    round (``Hand.draw_checked``)."""
    rnd = draw_round(hand)
    if rnd < 1 or hand.draw_checked >= rnd:
        return []
    hand.draw_checked = rnd
    full = hand.hole_cards
    return [Finding("deal.draw_short", "DRAW-004",
                    f"seat {s} holds {n} of {full} cards after draw {rnd}: deal it as many as it threw", s,
                    count=full - n)
            for s in hand.order if 0 < (n := held(hand, s)) < full]


def stub_short(hand: Hand) -> Finding | None:
    """DRAW-005's prompt ahead of time, once a round: the draw under way needs the stub's last
    card or more. Asked after the burn and after each draw card: a seat that threw its whole
    hand is known to draw once its first card comes (before, it may have folded), and the
    shortfall is the same whenever it is seen (each card dealt takes one from the stub and one
    from what is owed)."""
    rnd = draw_round(hand)
    if rnd < 1 or _next_round_begun(hand, rnd) or _prompted(hand, rnd):  # (the cheaper test first)
        return None
    if hand.draw_rebuilt == rnd:
        # the stub ran out before the shortfall could be seen (a seat drawing its whole hand):
        # what the new stub deals, this first card of it and what is still owed
        lack: int | None = owed(hand) + 1
    else:
        lack = short_by(need=owed(hand), stub=hand.stub_count)
    if lack is None:
        return None
    return Finding("stub.draw_short", "DRAW-005",
                   f"draw {rnd}: stub short by {lack}: deal to the last card, then shuffle it with the "
                   f"earlier discards (not this round's, not the burns) into a new stub; no burn", count=lack)


def _next_round_begun(hand: Hand, rnd: int) -> bool:
    """A seat has thrown cards (or folded) since the burn of round ``rnd``."""
    # (asked two or three times a card: the latest round kept until a card moves; a discard is
    # marked just before its card is placed, so no one asks in between)
    return hand.kept("discarded", (hand._moved, len(hand.discards)), _latest_discard) > rnd


def _latest_discard(hand: Hand) -> int:
    return max(hand.discards.values(), default=0)


def _prompted(hand: Hand, rnd: int) -> bool:
    for p in hand.prompts:  # (asked at every draw card: a plain loop, the words made only for a DRAW-005)
        if p.rule == "DRAW-005" and p.message.startswith(f"draw {rnd}:"):
            return True
    return False


def from_muck_or_burns(hand: Hand, uid: str, label: str, origin: str, seat: int) -> Finding | None:
    """A card that left the muck or the burns comes to ``seat``: from a stub rebuilt
    (DRAW-005; ``Hand.draw_rebuilt`` says in which round, set when its cards left the table).
    The new stub is the last card and the earlier rounds' discards: a burn, or a card thrown
    this round, is a floor matter."""
    rnd = draw_round(hand)
    what = "a burn" if origin == Zone.BURN else \
        f"a discard of this round (draw {rnd})" if hand.discards.get(uid, 0) >= rnd else None
    if what is None:
        return None
    card = label if is_card(label) else None
    return Finding("stub.draw_dead_card", "DRAW-005",
                   f"{label} dealt to seat {seat} from the rebuilt stub is {what}: the new stub is the last card "
                   "and the earlier rounds' discards only", seat, audience="floor", card=card)


def on_burn(hand: Hand) -> Finding | None:
    """A burn (before it is placed): one a round, and none after the stub's rebuild while the
    round's draw goes on (DRAW-005 step 4)."""
    rnd = draw_round(hand)
    if hand.draw_rebuilt == rnd and rnd >= 1 and owed(hand) > 0 and not _next_round_begun(hand, rnd):
        return Finding("deal.draw_second_burn", "DRAW-005",
                       f"a burn after the new stub in draw {rnd}: finish the draw without another burn")
    if rnd >= hand.game_def.draws:
        return Finding("deal.draw_extra_burn", "DRAW-004",
                       f"a burn with no draw round to come: {hand.game} has {hand.game_def.draws} "
                       f"draw{'s' if hand.game_def.draws > 1 else ''}")
    return None


def exposed(card: str | None, *, on_deal: bool, replace_wheel: bool) -> Finding:
    """DRAW-003: a card exposed by the dealer. On the deal it is replaced, except a wheel card
    (A to 5) in a cash game (``replace_wheel`` false), which the player keeps; on the draw an
    exposed card is never kept.

    >>> exposed("4h", on_deal=True, replace_wheel=False).code
    'deal.draw_exposed_keep'
    >>> exposed("4h", on_deal=False, replace_wheel=False).code
    'deal.draw_exposed_replace'
    """
    if on_deal and card is not None and card[0].upper() in WHEEL_RANKS and not replace_wheel:
        return Finding("deal.draw_exposed_keep", "DRAW-003",
                       "an exposed wheel card on the deal: the player keeps it")
    when = "deal" if on_deal else "draw"
    return Finding("deal.draw_exposed_replace", "DRAW-003",
                   f"an exposed card on the {when}: replace it (the exposed card is not kept)")


def exposed_misdeal(seat: int | None) -> Finding:
    """MISD-009 under 001's misdeal table (DRAW_EXPOSED_DEAL ``misdeal``): any card of a draw
    game's starting hand exposed by the dealer is a misdeal.

    >>> exposed_misdeal(3).message
    'a card of the starting hand exposed (seat 3): misdeal'
    """
    where = f" (seat {seat})" if seat is not None else ""
    return Finding("misdeal.draw_exposed_card", "MISD-009", f"a card of the starting hand exposed{where}: misdeal",
                   seat)
