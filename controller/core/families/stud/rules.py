"""Stud's own rules (docs/rules.md: STUD): the bring-in (STUD-002), who acts first on 4th-7th street
(STUD-004) and the stub before 7th street (STUD-006..008).

The bring-in ranks single up cards, by rank and then suit (SUIT_ORDER: spades, hearts, diamonds,
clubs, clubs lowest). In stud and stud 8 the lowest card brings in, the ace high
(STUD_ACE_BRINGIN's default); in razz the highest, the ace low, so the king of spades is the
highest card (002 §Seven Card Games - Quick Reference).

>>> from controller.core.games import game_of
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
>>> short_stub(stub=5, players=5, burns=3, method="002").message  # doctest: +ELLIPSIS
'stub 5, need 7 (...): scramble the stub with the burns, cut, burn, and deal 7th street'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING

from controller.core.cards import is_card
from controller.core.games import Game
from controller.core.rules import Finding
from controller.core.settings import RULE_SETTINGS
from controller.core.zones import SEAT_ZONES, Zone, seat_zone

if TYPE_CHECKING:
    from controller.core.hand import Hand

#: SUIT_ORDER (docs/rules.md §20, 002): higher is higher
SUIT_RANK = {"c": 0, "d": 1, "h": 2, "s": 3}
_RANKS = "23456789TJQKA"
RANK_HIGH = {r: i + 2 for i, r in enumerate(_RANKS)}  # the ace 14
RANK_LOW = {**RANK_HIGH, "A": 1}  # the ace 1 (razz)

#: STUD_SHORT_STUB_METHOD (docs/rules.md §20, ``[rules] stud_short_stub_method``): 001 deals the stub
#: down to its last card, mixes that card with the burns, and deals on without a burn; 002
#: scrambles the stub with the burns, cuts and burns. 001 is the proposed default.
SHORT_STUB_METHODS = RULE_SETTINGS["stud_short_stub_method"][0]
#: STUD-007 by 002's method: the prompt's code, by which the hand knows 7th street is burned
SCRAMBLE = "stub.stud_short_scramble"


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
    ranked = [(rank(showing[s]), s) for s in order if showing.get(s)]  # (each hand ranked once)
    if not ranked:
        return None
    best = max(r for r, _ in ranked)
    return next(s for r, s in ranked if r == best)


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
            return Finding("stub.stud_short_use_burns", "STUD-007",
                           f"{told}: deal from the stub but its last card; mix the last card with the burns, cut, "
                           f"and deal the rest with no burn, never the bottom card")
        return Finding(SCRAMBLE, "STUD-007",
                       f"{told}: scramble the stub with the burns, cut, burn, and deal 7th street")
    if stub >= 3:
        how = "burn and deal one community card face up in the middle; announce it, not its rank"
    else:
        how = "scramble the stub with the burns, cut, burn, then deal one community card in the middle"
    return Finding("stub.stud_community_card", "STUD-008", f"{told}: {how}")


# -- the stud deal, street by street (STUD-001), read off the hand's counts ---------------------
# Nothing new is kept in the hand: the street is the number of burns dealt (each of 4th-7th
# comes after one; the board's count of every burn, ``BoardState.burns_total``, which burns
# gathered into a rebuilt stub do not undo), and a seat's cards are what lies at its antenna.
def street_index(hand: Hand) -> int:
    """The street under way: 0 for 3rd street, then one more for each burn, at most 7th's; or
    the next street, if a seat already holds one of its cards (a street dealt without its burn,
    or 7th street dealt from a rebuilt stub with none: STUD-007)."""
    # (asked half a dozen times a card: kept until a card moves or a burn is counted)
    return hand.kept("street", (hand._moved, hand.board.burns_total), _street_index)


def _street_index(hand: Hand) -> int:
    game = hand.game_def
    last = len(game.streets) - 1
    k = min(hand.board.burns_total, last)
    if k < last:
        due, zones = game.cards_after[k], hand.zones
        for s in hand.order:  # (a plain loop, seat_zone(s) without the call)
            if len(zones.get(SEAT_ZONES[s - 1], ())) > due:
                return k + 1
    return k


def cards_due(game: Game, street: int) -> int:
    """The cards a live seat holds once ``street`` (0 = 3rd) is dealt: 3, 4, 5, 6, 7."""
    return game.cards_after[street]


def seat_cards(hand: Hand, seat: int) -> list[str]:
    """The seat's cards, in the order they came (their uids)."""
    return hand.zones.get(seat_zone(seat), [])


def up_uids(hand: Hand, seat: int) -> list[str]:
    """The seat's up cards (their uids) still at its antenna, by the template: the table cannot
    see faces, it knows which cards were dealt up from the order the seat received them. A
    card's place is among the cards dealt to the seat, so an absent seat whose down cards went
    to the muck still shows its up card (STUD-011), a card set aside (STUD-010) leaves its place
    to the card that replaces it, and a card a player lifted and put back keeps its place."""
    pattern = hand.game_def.up_pattern
    held = seat_cards(hand, seat)
    if not held:
        return []
    if len(held) == hand.dealt_to.get(seat, 0) and not hand.reserve:  # (every card it was dealt: in order)
        return [u for i, u in enumerate(held) if i < len(pattern) and pattern[i]]
    index, first = hand.deal_index, hand.first_seat
    dealt = sorted((u for u, s in first.items() if s == seat and u not in hand.reserve), key=index.__getitem__)
    dealt += [u for u in held if u not in first]  # (dealt again from a rebuilt stub: after the others)
    on = set(held)
    return [u for i, u in enumerate(dealt) if i < len(pattern) and pattern[i] and u in on]


def up_cards(hand: Hand, seat: int) -> list[str]:
    """The labels of the seat's up cards (:func:`up_uids`)."""
    labels = hand.labels
    return [labels[u] for u in up_uids(hand, seat)]


def community_card(hand: Hand) -> bool:
    """STUD-008: one card in the middle stands for every live seat's 7th card."""
    return hand.count("board") > 0


def next_to(hand: Hand) -> str | None:
    """Where the next card of a stud hand goes: the seats in order on each street, then the burn
    before the next street; nothing once 7th street (or its community card) is out."""
    live = hand.live_seats()
    if len(live) < 2 or community_card(hand):
        return None
    k = street_index(hand)
    due = cards_due(hand.game_def, k)
    zones = hand.zones  # (each seat's cards, as seat_cards gives them, without the call)
    for seat in live:
        if len(zones.get(SEAT_ZONES[seat - 1], ())) < due:
            return seat_zone(seat)
    return Zone.BURN if k < len(hand.game_def.streets) - 1 else None


def street_name(hand: Hand) -> str:
    if hand.hole_dealt < hand.hole_target and hand.count("burn") == 0:
        return "deal"
    return hand.game_def.streets[street_index(hand)].name


def bring_in_owner(hand: Hand) -> int | None:
    """STUD-002 on the hand: once every seat has its 3rd-street cards, the seat whose up card
    brings in (cards of another deck or no deck are left out; an absent seat's up card counts,
    STUD-011)."""
    if hand.hole_dealt < hand.hole_target:
        return None
    up = {}
    for seat in hand.order:
        shown = up_cards(hand, seat)
        if shown and is_card(shown[0]):
            up[seat] = shown[0]
    return bring_in(up, hand.game_def) if up else None


def next_clockwise(hand: Hand, seat: int, skip: set[int] | frozenset[int] = frozenset()) -> int | None:
    """The next seat after ``seat`` clockwise (the dealing order) that holds cards, leaving out
    ``skip``; None if there is none.

    >>> from controller.core.hand import Hand
    >>> h = Hand(1, "stud", 3, (2, 5, 7), 7, 0.0)
    >>> for i, s in enumerate((2, 5, 7)):
    ...     _ = h.place(f"u{i}", "2c", f"seat:{s}")
    >>> next_clockwise(h, 5), next_clockwise(h, 7), next_clockwise(h, 2, {5})
    (7, 2, 7)
    """
    order = hand.order
    if seat not in order:
        return None
    i = order.index(seat)
    return next((s for s in order[i + 1:] + order[:i] if s not in skip and seat_cards(hand, s)), None)


def bring_in_seat(hand: Hand) -> int | None:
    """The seat that must bring in: the owner of the bring-in card (STUD-002), unless it is all
    in for the ante; then the next player clockwise who is not, never the next card by rank
    (STUD-003: 002 §ALL-IN for the ANTE, "Do not jump across the table")."""
    owner = bring_in_owner(hand)
    if owner is None or owner not in hand.all_in:
        return owner
    return next_clockwise(hand, owner, hand.all_in)


def _shape(cards: Sequence[str], ranks: Mapping[str, int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """A showing hand's groups: how many of each rank, most first, and those ranks, highest
    first within a size (four cards or fewer make no straight or flush: quads, trips, two pair,
    a pair, high cards)."""
    if ranks is not RANK_LOW and ranks is not RANK_HIGH:
        raise ValueError("a showing hand ranks by RANK_HIGH or RANK_LOW")
    return _shape_of(tuple(cards), ranks is RANK_LOW)


@lru_cache(maxsize=4096)
def _shape_of(cards: tuple[str, ...], ace_low: bool) -> tuple[tuple[int, ...], tuple[int, ...]]:
    # (cached: the table ranks every live seat's showing hand at every card, and a seat's up
    # cards change once a street)
    ranks = RANK_LOW if ace_low else RANK_HIGH
    counts: dict[int, int] = {}
    for c in cards:
        v = ranks[c[0].upper()]
        counts[v] = counts.get(v, 0) + 1
    groups = sorted([(n, r) for r, n in counts.items()], reverse=True)  # by count, then rank
    return tuple(n for n, _ in groups), tuple(r for _, r in groups)


def best_showing(cards: Sequence[str]) -> tuple[int, ...]:
    """Stud and stud 8 (STUD-004): the best showing high hand acts first.

    >>> best_showing(["7c", "7d"]) > best_showing(["Ac", "Kd"]) > best_showing(["Qc", "Jd"])
    True
    """
    return _showing_key(tuple(cards), False)


def lowest_showing(cards: Sequence[str]) -> tuple[int, ...]:
    """Razz (STUD-004): the lowest showing hand acts first, the ace low, any pair worse than none.

    >>> lowest_showing(["Qc", "Jd"]) > lowest_showing(["Kc", "2d"]) > lowest_showing(["2c", "2d"])
    True
    """
    return _showing_key(tuple(cards), True)


@lru_cache(maxsize=4096)
def _showing_key(cards: tuple[str, ...], razz: bool) -> tuple[int, ...]:
    # (cached: every live seat's showing hand is ranked at every card, and changes once a street)
    if razz:
        shape, ranks = _shape_of(cards, True)
        return (*(-n for n in shape), 0, *(-r for r in ranks))
    shape, ranks = _shape_of(cards, False)
    return (*shape, 0, *ranks)


#: The ranking of showing hands (STUD-004) per game: a key, higher for the hand that acts first.
#: The core's own (a showing hand of four cards or fewer ranks by its groups alone); an
#: evaluator may put its own here.
SHOWING_RANK: dict[str, ShowingRank] = {"stud": best_showing, "stud8": best_showing, "razz": lowest_showing}


def showing_words(cards: Sequence[str]) -> str:
    """What the dealer announces of a showing hand: its pair or made hand (STUD-004: "every new
    pair or better"), else "no pair". No ranks: a prompt is text, and ranks in a row ("Q-9") are
    how the showdown words a hand, which nothing may say before the hands are up.

    >>> showing_words(["7c", "Kd", "7h"]), showing_words(["Qc", "6d"]), showing_words(["5s", "5d", "9c", "9h"])
    ('a pair', 'no pair', 'two pair')
    """
    shape, _ = _shape(cards, RANK_HIGH)
    made = {(4,): "four of a kind", (3,): "three of a kind", (2, 2): "two pair", (2,): "a pair"}
    for head, words in made.items():
        if shape[: len(head)] == head:
            return words
    return "no pair"


def stud_first_to_act(hand: Hand) -> int | None:
    """3rd street: the bring-in (STUD-002); 4th-7th: the best (stud) or lowest (razz) showing
    hand, through :data:`SHOWING_RANK` (STUD-004), once the street under way is dealt out
    (every live seat has its card of it, or the community card is out): None while it is
    being dealt, when who acts first is not known yet (the STUD-004 prompt waits for it too)."""
    k = street_index(hand)
    if k == 0:
        return bring_in_seat(hand)
    rank = SHOWING_RANK.get(hand.game)
    live = hand.live_seats()
    if rank is None or not (_dealt_out(hand, k, live) or community_card(hand)):
        return None
    showing = {s: up_cards(hand, s) for s in live}
    return first_to_act(showing, hand.order, rank)


def on_seat_card(hand: Hand, seat: int, *, restubbed: bool = False) -> Finding | None:
    """A card off the stub to ``seat`` after 3rd street (before it is counted): the first card
    of a street that came with no burn (BURN-001, STUD-001). After a short stub's rebuild
    (``restubbed``: STUD-007 by 001's method, STUD-008) 7th street is not checked for its burn:
    001's method deals it with none, and a burn drawn from the rebuilt stub may be an old burn,
    which never left the burn spot as the reader sees it. By 002's method (the burns scrambled
    into the stub and cut, which takes them off the burn spot) 7th street is burned as any other,
    and checked."""
    k = street_index(hand)
    if restubbed:
        return None
    if k + 1 >= len(hand.game_def.streets):
        return None
    due = cards_due(hand.game_def, k)
    live = hand.live_seats()
    if all(len(seat_cards(hand, s)) >= due for s in live) and len(seat_cards(hand, seat)) >= due:
        return Finding("burn.missing", "BURN-001",
                       f"{hand.game_def.streets[k + 1].name} street was dealt without its burn")
    return None


def on_burn(hand: Hand) -> Finding | None:
    """A burn (before it is counted): a second one before any card of its street (BURN-001)."""
    burns = hand.board.burns_total
    if burns == 0:
        return None
    if burns >= len(hand.game_def.streets) - 1:
        return Finding("burn.double", "BURN-001", "a burn after 7th street: stud burns four cards")
    before = cards_due(hand.game_def, burns - 1)
    if all(len(seat_cards(hand, s)) <= before for s in hand.live_seats()):
        return Finding("burn.double", "BURN-001",
                       f"two burns before {hand.game_def.streets[burns].name} street: one burn per street")
    return None


def street_out(hand: Hand, street: int) -> bool:
    """Every live seat has its cards of ``street`` (0 = 3rd) and the next has not begun."""
    if street_index(hand) != street:
        return False
    live = hand.live_seats()
    return len(live) >= 2 and _dealt_out(hand, street, live)


def _dealt_out(hand: Hand, street: int, live: Sequence[int]) -> bool:
    """Every seat of ``live`` has its cards of ``street`` (0 = 3rd)."""
    due, zones = hand.game_def.cards_after[street], hand.zones
    for s in live:  # (a plain loop: asked several times a card)
        if len(zones.get(SEAT_ZONES[s - 1], ())) < due:
            return False
    return True


def first_to_act_due(hand: Hand) -> int | None:
    """The street (1 = 4th ... 4 = 7th) whose first seat to act is due now (STUD-004): once
    every live seat has its card of it (on 7th, or once the community card is out), one prompt
    a street. None when none is due."""
    asked = sum(1 for p in hand.prompts if p.rule == "STUD-004")
    street = asked + 1
    if street >= len(hand.game_def.streets):
        return None
    if street_out(hand, street):
        return street
    if street == len(hand.game_def.streets) - 1 and community_card(hand):
        return street
    return None


def open_pairs(hand: Hand) -> list[int]:
    """STUD-005: once 4th street is out, in stud high, the seats showing a pair (their two up
    cards of one rank): the big bet is allowed (not in stud 8 or razz: 002)."""
    if not hand.game_def.open_pair_option or not street_out(hand, 1):
        return []
    return [s for s in hand.live_seats() if len({c[0] for c in up_cards(hand, s)}) == 1]


def sixth_street_out(hand: Hand) -> bool:
    """Every live seat has its 6th-street card and 7th street has not begun: the moment of the
    stub check (STUD-006)."""
    return street_out(hand, len(hand.game_def.streets) - 2)


def on_exposed_third(hand: Hand) -> Finding | None:
    """The dealer exposed the card just dealt (the ``exposed`` pad) on 3rd street: either of a
    seat's two down cards is a misdeal (MISD-008; 004: any initial down card); its up card was
    meant to be seen, so nothing. None after 3rd street, or with no hole card dealt yet: other
    rules judge those.

    >>> from controller.core.hand import Hand
    >>> h = Hand(1, "stud", 7, (1, 2), 2, 0.0)
    >>> for uid, seat in (("a", 1), ("b", 2), ("c", 1)):
    ...     _ = h.place(uid, "2c", seat_zone(seat))
    >>> on_exposed_third(h).code  # seat 1's second down card
    'misdeal.stud_down_card_exposed'
    >>> for uid, seat in (("d", 2), ("e", 1)):
    ...     _ = h.place(uid, "2c", seat_zone(seat))
    >>> on_exposed_third(h).code  # seat 1's up card
    'deal.stud_up_card_exposed'
    """
    uid = hand.last_hole
    if uid is None or street_index(hand) != 0:
        return None
    for seat in hand.order:
        cards = seat_cards(hand, seat)
        if uid in cards:
            index = cards.index(uid)
            if index < len(hand.game_def.up_pattern) and hand.game_def.up_pattern[index]:
                return Finding("deal.stud_up_card_exposed", "MISD-008",
                               f"seat {seat}'s up card: it is dealt face up, play on", seat)
            return Finding("misdeal.stud_down_card_exposed", "MISD-008",
                           f"a down card of seat {seat} was exposed on 3rd street: misdeal", seat)
    return None
