"""Stud's procedures for what befalls a hand (docs/rules.md: STUD): the bring-in all in for the ante
(STUD-003), 7th street dealt face up (STUD-009), an up card dealt before the betting is done
(STUD-010), the absent player (STUD-011), all in and called (STUD-012), a fold and lifted up
cards (STUD-013). Each function says what the dealer is told, as a :class:`Finding`; the table
calls them (controller/core/families/stud/part.py). The words follow the guides (002 §ALL-IN for the ANTE,
§EXPOSED SEVENTH STREET, §CARD EXPOSED - DELIVERED with ACTION INCOMPLETE, §ABSENT PLAYERS, §HEADS
UP - ALL-IN & CALL, §DEAD HANDS and MUCKING in STUD; 001 §STUD GAMES). No message names a hole
card: the prompts name seats (an up card is in every player's sight, but none is needed here).

>>> seventh_face_up(4, first=True).message  # doctest: +NORMALIZE_WHITESPACE
'7th street dealt face up to seat 4, the first player: deal the rest face UP; offer seat 4 all in
 before any 7th-street action'
>>> seventh_face_up(6, first=False).code
'deal.stud_seventh_up_rest_down'
>>> absent_dealt(3, bring_in=True, method="until_bet") is None  # 001: dealt on until it faces a bet
True
>>> absent_dealt(3, bring_in=True, method="no_streets").message
'seat 3 is absent: deal it no further streets (it posted the bring-in; STUD_ABSENT_BRINGIN no_streets)'
"""

from __future__ import annotations

from controller.core.rules import Finding

#: STUD_ABSENT_BRINGIN (docs/rules.md §20): an absent seat that posted the bring-in is dealt on until it
#: faces a bet (001, the default), or dealt no further street (002)
ABSENT_BRINGIN = ("until_bet", "no_streets")


def bring_in_passes(owner: int, duty: int) -> Finding:
    """STUD-003: the bring-in card's owner is all in for the ante; the next player clockwise
    brings in or completes, never the next card by rank (002: "Do not jump across the table")."""
    return Finding("deal.bring_in_passes", "STUD-003",
                   f"seat {owner} is all in for the ante: seat {duty}, next clockwise, brings in or completes "
                   f"(not the next card by rank)", duty)


def seventh_face_up(seat: int, *, first: bool) -> Finding:
    """STUD-009: 7th street dealt face up to ``seat``. To the first active player: the rest get
    it face up too; to any other: the rest face down. The player may play on or declare all in
    before any 7th-street action (002 §EXPOSED SEVENTH STREET)."""
    offer = f"offer seat {seat} all in before any 7th-street action"
    if first:
        return Finding("deal.stud_seventh_up_rest_up", "STUD-009",
                       f"7th street dealt face up to seat {seat}, the first player: deal the rest face UP; {offer}",
                       seat)
    return Finding("deal.stud_seventh_up_rest_down", "STUD-009",
                   f"7th street dealt face up to seat {seat}: deal the rest face DOWN; {offer}", seat)


def set_aside(seat: int, street: str) -> Finding:
    """STUD-010: an up card of 4th-6th street dealt before the betting was done: the steps of
    002 §CARD EXPOSED - DELIVERED with ACTION INCOMPLETE."""
    return Finding("deal.stud_card_set_aside", "STUD-010",
                   f"{street} street card to seat {seat} before the betting was done: set it aside in front of "
                   f"the tray, do not muck it; finish the round, seat {seat} gets the next card; complete the "
                   f"betting; deal one card face down per player onto it; burn and deal on; before 7th street "
                   f"scramble the set-aside cards into a new stub (four burns in all)", seat)


def reserve_early(seat: int | None) -> Finding:
    """STUD-010: a set-aside card dealt again before 7th street (it may come back only in 7th
    street's new stub)."""
    where = f"to seat {seat}" if seat is not None else "to the burn"
    return Finding("deal.stud_reserve_early", "STUD-010",
                   f"a set-aside card was dealt {where} before 7th street: it waits for 7th street's new stub",
                   seat)


def new_stub_from_set_aside() -> Finding:
    """STUD-010, step 6: before 7th street the set-aside cards make the new stub."""
    return Finding("stub.stud_from_set_aside", "STUD-010",
                   "before 7th street: scramble the set-aside cards into a new stub, burn, and deal 7th street")


def four_burns(burns: int) -> Finding | None:
    """STUD-010: "There should be four (4) Burn Cards, NO MORE - NO LESS" (002).

    >>> four_burns(4) is None, four_burns(5).count
    (True, 5)
    """
    if burns == 4:
        return None
    return Finding("burn.stud_not_four", "STUD-010",
                   f"{burns} burns this hand: with a card set aside, stud still burns four, no more, no less",
                   count=burns)


def absent_down_cards(seat: int) -> Finding:
    """STUD-011: the absent seat is dealt its 3rd-street cards; its down cards are mucked at
    once, its up card stays (it counts for the bring-in, which is posted for it)."""
    return Finding("deal.stud_absent_down_cards", "STUD-011",
                   f"seat {seat} is absent: muck its down cards now, leave its up card; post the bring-in for it "
                   f"if it has it; muck the up card in turn", seat)


def absent_dealt(seat: int, *, bring_in: bool, method: str) -> Finding | None:
    """STUD-011: a card of 4th street or later dealt to an absent seat. A seat that did not
    bring in is dealt no more (its up card is mucked in turn); one that did is dealt on until it
    faces a bet (001, ``until_bet``: the table sees no bets, so nothing is said) or no more
    (002, ``no_streets``)."""
    if method not in ABSENT_BRINGIN:
        raise ValueError(f"stud_absent_bringin {method!r}: want one of {', '.join(ABSENT_BRINGIN)}")
    if bring_in and method == "until_bet":
        return None
    why = f"it posted the bring-in; STUD_ABSENT_BRINGIN {method}" if bring_in else "its up card is mucked in turn"
    return Finding("deal.stud_absent_dealt", "STUD-011", f"seat {seat} is absent: deal it no further streets ({why})",
                   seat)


def face_up_until_seventh() -> Finding:
    """STUD-012: all in and called: the later streets face up until 7th, which is dealt down and
    turned up by the players (001 §STUD GAMES, ALL-IN; 002 §HEADS UP - ALL-IN & CALL)."""
    return Finding("deal.stud_face_up", "STUD-012",
                   "all in and called: deal the rest face up until 7th street; 7th face down, then the players "
                   "turn it up")


def lifted(seat: int) -> Finding:
    """STUD-013: an up card left the seat's antenna without reaching the muck while the hand
    is live: lifted? A player who picks up his up cards while facing action has a dead hand;
    the floor decides (002 §DEAD HANDS and MUCKING in STUD)."""
    return Finding("deal.stud_lifted_cards", "STUD-013",
                   f"seat {seat} lifted cards? an up card left the table while the hand is live: call the floor "
                   f"(a dead hand if facing action)", seat)


def folded_note(seat: int, cards: int) -> str:
    """STUD-013: the record's line for a fold (every card of the seat in the muck)."""
    return f"STUD-013: seat {seat} folded ({cards} cards to the muck)"
