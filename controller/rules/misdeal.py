"""Misdeals in the initial deal of a flop game (RULES.md §5).

Each check looks at one card arriving at a seat from the stub and says what is wrong, if
anything. Only what the sensors are certain of is flagged (RULES.md, "Sensor limits"): the seat
a card landed at is certain; that a card was never pitched is not (it may be a missed read).
Every flag is advisory: a misdeal exists only once the dealer declares it (MISD-016).

>>> from controller.hand import Hand
>>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
>>> check_hole_card(h, 2)
('misdeal.first_card_wrong_seat', 'MISD-004', 'the first card went to seat 2; it is due at seat 1: misdeal')
>>> check_hole_card(h, 1) is None
True
"""

from __future__ import annotations

from controller.hand import Hand

Finding = tuple[str, str, str]  # (alert code, rule id, message for the dealer)


def window_open(hand: Hand) -> bool:
    """MISD-013: the misdeal window closes at substantial action; the reader cannot see chips,
    so it closes at the first burn (the ``sa`` and ``round_done`` pads come with the console)."""
    return hand.count("burn") == 0 and hand.count("board") == 0


def check_hole_card(hand: Hand, seat: int, same_cycle: frozenset[int] = frozenset()) -> Finding | None:
    """A card arrived at ``seat`` from the stub, before it is counted. What is wrong?

    ``same_cycle`` holds the seats that got a card confirmed in the same reader cycle: their
    order is unknown (a dealer may pitch faster than the reader cycles), so they count as one.
    """
    if not window_open(hand):
        return None
    if seat not in hand.seats:
        # MISD-005: an empty seat, an eliminated player, a seat not dealt in
        return ("misdeal.card_to_seat_not_dealt_in", "MISD-005",
                f"a card went to seat {seat}, which is not dealt in: misdeal")
    if hand.hole_dealt == 0 and seat != hand.order[0] and hand.order[0] not in same_cycle:
        # MISD-004 (with DEAL-001/002/005 for the seat due); not if the due seat's card was
        # confirmed in the same cycle, which may well have come first
        return ("misdeal.first_card_wrong_seat", "MISD-004",
                f"the first card went to seat {seat}; it is due at seat {hand.order[0]}: misdeal")
    if hand.dealt_to.get(seat, 0) >= hand.hole_cards:
        # MISD-007 with DEAL_COUNT_FIXES = the 003 list: the small blind's extra card is pulled,
        # any other seat's is a misdeal.
        if seat == hand.positions.sb and hand.positions.live_sb(hand.seats):
            return ("deal.pull_small_blind_extra_card", "MISD-007",
                    f"seat {seat} (small blind) got one card too many: pull it")
        return ("misdeal.too_many_cards", "MISD-007",
                f"seat {seat} got {hand.dealt_to[seat] + 1} cards; {hand.game} deals {hand.hole_cards}: misdeal")
    return None


def check_end_of_deal(hand: Hand) -> list[tuple[str, str, str, int]]:
    """The first burn or board card ends the initial deal: is every seat's hand complete?

    MISD-006: a seat dealt in that got no card. MISD-007: the button one card short is topped
    up (it may take two cards in a row); any other seat short is a misdeal. Returns
    ``(code, rule, message, seat)`` for each finding, in dealing order.
    """
    if not window_open(hand):
        return []
    out = []
    for seat in hand.order:
        got = hand.dealt_to.get(seat, 0)
        if got == 0:
            out.append(("misdeal.seat_skipped", "MISD-006", f"seat {seat} was dealt no cards: misdeal", seat))
        elif got < hand.hole_cards:
            if seat == hand.button and got == hand.hole_cards - 1:
                out.append(("deal.button_short", "MISD-007", f"seat {seat} (button) is one card short: "
                                                            f"deal it one more", seat))
            else:
                out.append(("misdeal.seat_short", "MISD-007", f"seat {seat} got {got} of {hand.hole_cards} "
                                                              f"cards: misdeal", seat))
    return out


def check_exposed(hand: Hand) -> Finding | None:
    """The dealer pressed ``exposed`` for the card just dealt (the reader cannot see faces).

    MISD-001: either of the first two cards off the deck exposed is a misdeal. MISD-002: a
    second card exposed by the dealer during the initial deal is a misdeal. MISD-010: otherwise
    the card is replaced once everyone has a hand, waits on the stub and becomes the next burn;
    the dealer announces it. After the deal (the board) it is BOARD-008's business, not a misdeal.
    """
    if hand.hole_dealt >= hand.hole_target or not window_open(hand):
        return None
    hand.exposed += 1
    if hand.hole_dealt in (1, 2):
        return ("misdeal.first_two_cards_exposed", "MISD-001",
                f"card {hand.hole_dealt} off the deck was exposed: misdeal")
    if hand.exposed >= 2:
        return ("misdeal.second_exposed_card", "MISD-002", "a second card was exposed in the deal: misdeal")
    return ("deal.exposed_card_becomes_burn", "MISD-010",
            "exposed card: announce it, replace it after the deal, it is the next burn")
