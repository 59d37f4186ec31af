"""Misdeals and the initial deal of a flop game (docs/rules.md: MISD, with DEAL-009 and DEAL-010).

Each check looks at one thing that happened (a card arriving at a seat off the stub, a pad, a
hole card leaving the table) and says what is wrong, as :class:`~controller.core.rules.Finding`
values. Only what the sensors are certain of is flagged as a misdeal: the seat a card landed at
is certain; that a card was never pitched is not (it may be a missed read).

The misdeal window (MISD-013) closes at substantial action. The reader cannot see chips, so the
window closes when the dealer presses ``sa`` (substantial action reached) or ``round_done``, or
at the first burn or board card, whichever comes first; that moment also ends the initial deal,
and the deal's counts are checked then (:func:`end_of_deal`). A fault found after it follows
``LATE_FAULT`` (:func:`late`).

>>> from controller.core.hand import Hand
>>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
>>> check_hole_card(h, 2).code
'misdeal.first_card_wrong_seat'
>>> check_hole_card(h, 1) is None
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dataclasses import replace

from controller.core.codes import late_code
from controller.core.rules import Finding
from controller.core.positions import between
from controller.core.settings import RULE_SETTINGS, deal_order

if TYPE_CHECKING:  # (the hand module runs these rules: a type here, no import at run time)
    from controller.core.hand import Hand


def window_open(hand: Hand) -> bool:
    """MISD-013: open until ``sa``, ``round_done`` or the first burn or board card."""
    return not hand.deal_over


def not_dealt_in_why(hand: Hand, seat: int, away: str = "") -> str:
    """MISD-005's words for why ``seat`` has no hand: a penalty; a seat waiting to come in, for
    the button to pass (it is on the hand's button, its small blind or between them: DEAL-006,
    DEAL-007/008's gap) or for the big blind (001's late entry, a cash player who has not
    posted); ``away``: what the table knows beyond the hand (a cash seat sitting out, what a
    waiting one owes).

    >>> from controller.core.hand import Hand
    >>> from controller.core.positions import Positions
    >>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0, positions=Positions(4, 1, 2))
    >>> h.waiting = {3, 6}
    >>> not_dealt_in_why(h, 6)
    ' (waiting for the button to pass: his seat is between the button and the small blind)'
    >>> not_dealt_in_why(h, 3, "he has not posted")
    ' (waiting for the big blind; he has not posted)'
    """
    if seat in hand.penalty:
        return " (sitting out a penalty: its cards go to the muck)"
    more = f"; {away}" if away else ""
    if seat in hand.waiting:
        pos = hand.positions
        if between(seat, pos.button, pos.sb):
            return f" (waiting for the button to pass: his seat is between the button and the small blind{more})"
        return f" (waiting for the big blind{more})"
    return f" ({away})" if away else ""


def check_hole_card(hand: Hand, seat: int, same_cycle: frozenset[int] = frozenset(),
                    fixes: str = "003", away: str = "") -> Finding | None:
    """A card arrived at ``seat`` off the stub, before it is counted. What is wrong?

    ``same_cycle`` holds the seats that got a card confirmed in the same reader cycle: their
    order is unknown (a dealer may pitch faster than the reader cycles), so they count as one.
    ``fixes`` is ``DEAL_COUNT_FIXES``; ``away``, for a seat with no hand, what the table knows
    of it (:func:`not_dealt_in_why`).
    """
    if hand.owed.get(seat, 0) > 0:
        return None  # the button's top-up or an exposed card's replacement, as prompted
    if seat not in hand.seats or seat in hand.penalty:
        if seat in hand.new_seats:
            return Finding("misdeal.redeal_new_seat", "MISD-014",
                           f"a card went to seat {seat}, seated after the misdeal: the re-deal deals the "
                           f"same seats: misdeal", seat)
        # MISD-005: an empty seat, an eliminated player, a newcomer waiting, a seat not dealt in
        return Finding("misdeal.card_to_seat_not_dealt_in", "MISD-005",
                       f"a card went to seat {seat}, which is not dealt in{not_dealt_in_why(hand, seat, away)}: "
                       f"misdeal", seat)
    if hand.hole_dealt == 0 and seat != hand.order[0] and hand.order[0] not in same_cycle:
        # MISD-004 (with DEAL-001/002/005 for the seat due); not if the due seat's card was
        # confirmed in the same cycle, which may well have come first
        return Finding("misdeal.first_card_wrong_seat", "MISD-004",
                       f"the first card went to seat {seat}; it is due at seat {hand.order[0]}: misdeal", seat)
    if hand.dealt_to.get(seat, 0) >= hand.hole_cards + hand.allowance.get(seat, 0):
        # MISD-007 with DEAL_COUNT_FIXES = the 003 list: the small blind's extra card is pulled,
        # any other seat's is a misdeal.
        if fixes == "003" and seat == hand.positions.sb and hand.positions.live_sb(hand.seats) \
                and not hand.deal_over:
            return Finding("deal.pull_small_blind_extra_card", "MISD-007",
                           f"seat {seat} (small blind) got one card too many: pull it", seat)
        got = hand.dealt_to.get(seat, 0) + 1 - hand.exposed_from.get(seat, 0)
        over = got - hand.hole_cards
        return Finding("misdeal.too_many_cards", "MISD-007",
                       f"seat {seat} got {got} cards; {hand.game} deals {hand.hole_cards}: misdeal", seat,
                       count=over if over > 0 else None)
    return None


#: ABSENT_DEADLINE (docs/rules.md §20, ``[rules] absent_deadline``): the last initial card (001, 002:
#: the default), the first card of the deal (004), the player's turn to act (003)
ABSENT_DEADLINES = RULE_SETTINGS["absent_deadline"][0]
_ABSENT_WORDS = {"last_card": "is absent at the end of the deal: muck its hand",
                 "first_card": "was absent at the first card: its hand is dead; deal it in, then muck it",
                 "own_turn": "is absent: muck its hand when its turn to act comes, unless he is back"}


def absent_deadline(hand: Hand, deadline: str = "last_card") -> list[Finding]:
    """DEAL-009: absent seats are dealt in and their hands are mucked if the player is not back
    in time (``deadline``: ``ABSENT_DEADLINE``). Called at each hole card once counted: the
    absent seats' findings once the deadline is reached, the first card's or the last's. The
    table sees no turn to act (003): the dealer is told at the last initial card to muck the
    hand when its turn comes.

    >>> from controller.core.hand import Hand
    >>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
    >>> h.absent = {4}
    >>> h.count_hole("u1", 1)
    >>> absent_deadline(h), [f.message for f in absent_deadline(h, "first_card")]
    ([], ['seat 4 was absent at the first card: its hand is dead; deal it in, then muck it'])
    """
    if deadline not in ABSENT_DEADLINES:
        raise ValueError(f"absent_deadline {deadline!r}: want one of {', '.join(ABSENT_DEADLINES)}")
    if hand.hole_dealt < (1 if deadline == "first_card" else hand.hole_target):
        return []
    return [Finding("deal.muck_absent_seat", "DEAL-009", f"seat {s} {_ABSENT_WORDS[deadline]}", s)
            for s in hand.order if s in hand.absent]


def absence_counts(hand: Hand, deadline: str) -> bool:
    """Whether a player leaving or coming back still changes the hand's absent seats (DEAL-009):
    not once the first card is out when it is the deadline (004: "at his seat when the first
    card is dealt ... or he will have a dead hand")."""
    return not (deadline == "first_card" and hand.hole_dealt > 0)


def end_of_deal(hand: Hand, *, closes_window: bool = True) -> list[Finding]:
    """The initial deal is over: is every seat's hand complete?

    MISD-006: a seat dealt in that got no card. MISD-007: the button one card short is topped
    up (it may take two cards in a row); any other seat short is a misdeal. MISD-010/011: a seat
    still owed the replacement of an exposed card is told so. MISD-015: a deal that went round
    from another seat than the button. The counts are checked once a hand (later calls find
    nothing). ``closes_window``: the moment also closes the misdeal window (MISD-013: ``sa``,
    ``round_done``, the first burn or board card); the first fold and the end of the hand end
    the deal without closing it (a fold is no substantial action, and a hand that ends before
    the flop was still dealt).

    >>> from controller.core.hand import Hand
    >>> h = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
    >>> h.count_hole("u1", 1); h.count_hole("u2", 2); h.count_hole("u3", 4); h.count_hole("u4", 1)
    >>> [f.code for f in end_of_deal(h, closes_window=False)], h.deal_over  # seat 2 folds first
    (['misdeal.seat_short', 'deal.button_short'], False)
    >>> end_of_deal(h), h.deal_over  # the tap: the window closes; nothing is flagged twice
    ([], True)
    """
    if hand.deal_over:
        return []
    if closes_window:
        hand.deal_over = True
    if hand.deal_counted:
        return []
    hand.deal_counted = True
    if hand.misdeal:
        return []
    out: list[Finding] = []
    if not hand.exposure_resolved and hand.exposure_candidate is not None:
        # no other hole card left the table: the exposed card is the one pressed for
        hand.exposure_resolved = True
    for seat in hand.order:
        got = hand.dealt_to.get(seat, 0) - hand.exposed_from.get(seat, 0)
        short = hand.hole_cards - got
        if short > 0 and seat in hand.absent:
            # DEAL-009: an absent seat is never short-pitched; no read there may be a short pitch
            out.append(Finding("deal.absent_seat_short", "DEAL-009",
                               f"seat {seat} (absent) has {max(got, 0)} of {hand.hole_cards} cards: deal it "
                               f"its hand", seat, count=hand.hole_cards - max(got, 0)))
        elif hand.dealt_to.get(seat, 0) == 0:
            out.append(Finding("misdeal.seat_skipped", "MISD-006", f"seat {seat} was dealt no cards: misdeal",
                               seat))
        elif short > 0 and hand.exposed_from.get(seat, 0) >= short:
            hand.owed[seat] = short
            out.append(Finding("deal.replacement_due", "MISD-010",
                               f"seat {seat} is owed the replacement of its exposed card: deal it now", seat,
                               count=short))
        elif short == 1 and seat == hand.button:
            hand.owed[seat] = 1
            out.append(Finding("deal.button_short", "MISD-007",
                               f"seat {seat} (button) is one card short: deal it one more", seat, count=1))
        elif short > 0:
            out.append(Finding("misdeal.seat_short", "MISD-007",
                               f"seat {seat} got {got} of {hand.hole_cards} cards: misdeal", seat,
                               count=short))
    out.extend(_misplaced_button(hand))
    return out


def _misplaced_button(hand: Hand) -> list[Finding]:
    """MISD-015: the first round went clockwise from another seat than the one due: the deal
    went from a misplaced button. Flagged while the window is open (it is, at the end of the
    deal); if the hand is played out, the button moves on from where the deal put it."""
    n = len(hand.order)
    first = hand.arrivals[:n]
    if len(first) < n or _same_round(first, hand.order, hand.arrival_ts[:n]):
        return []
    for seat in hand.seats:
        if _same_round(first, deal_order(hand.seats, seat), hand.arrival_ts[:n]):
            hand.dealt_button = seat
            return [Finding("misdeal.button_misplaced", "MISD-015",
                            f"the deal went round as if the button were at seat {seat}; it is at seat "
                            f"{hand.button}: misdeal", seat)]
    return []


def _same_round(seen: list[int], order: list[int], times: list[float]) -> bool:
    """Whether the seats ``seen`` (confirmed at ``times``) can be ``order``: cards confirmed in
    the same reader cycle arrived in an order the reader cannot tell."""
    rank = {s: i for i, s in enumerate(order)}
    return [s for _, _, s in sorted(zip(times, (rank.get(s, -1) for s in seen), seen, strict=True))] == order


def on_exposed(hand: Hand, kind: str, seat: int | None = None, last_label: str | None = None) -> Finding | None:
    """A pad said a card was seen face up. ``kind``: ``dealer`` (the ``exposed`` pad), ``boxed``
    (found face up in the deck), ``player`` (the player showed it: long ``exposed``,
    ``exposed_player``).

    MISD-001: either of the first two cards off the deck exposed is a misdeal. MISD-002: a
    second exposed card during the initial deal is a misdeal; MISD-003: so are two boxed cards.
    MISD-010: otherwise the card is replaced once everyone has a hand, waits on the stub and
    becomes the next burn. MISD-012: a card the player exposes stays in his hand. BOARD-008:
    after the deal, a card found face up is shown and used as if face down.
    """
    if kind == "player":
        where = f"seat {seat}" if seat is not None else "a player"
        return Finding("deal.player_exposed_card", "MISD-012",
                       f"{where} exposed a card: it stays in the hand, no replacement; announce it", seat)
    if hand.deal_over or hand.misdeal:
        return Finding("board.exposed_card", "BOARD-008",
                       "card found face up while dealing the board: show it, use it as if face down",
                       card=last_label)
    hand.exposed += 1
    if kind == "boxed":
        hand.boxed += 1
        if hand.boxed >= 2:
            return Finding("misdeal.second_boxed_card", "MISD-003", "a second boxed card in the deal: misdeal")
        if hand.exposed >= 2:
            return Finding("misdeal.second_exposed_card", "MISD-002", "a second card was exposed in the deal: misdeal")
        hand.board.expected_burn = (None, "MISD-003")
        return Finding("deal.boxed_card_becomes_burn", "MISD-003",
                       "boxed card: show it; it is the next burn")
    uid = hand.last_hole
    index = hand.deal_index.get(uid, 0) if uid else 0
    card_seat = hand.first_seat.get(uid) if uid else None
    return _exposure(hand, uid, card_seat, index, "MISD-010")


def _exposure(hand: Hand, uid: str | None, seat: int | None, index: int, rule: str) -> Finding:
    if index in (1, 2):
        return Finding("misdeal.first_two_cards_exposed", "MISD-001",
                       f"card {index} off the deck was exposed: misdeal", seat)
    if hand.exposed >= 2:
        return Finding("misdeal.second_exposed_card", "MISD-002",
                       "a second card was exposed in the deal: misdeal", seat)
    if seat is not None:
        hand.allowance[seat] = hand.allowance.get(seat, 0) + 1
        hand.exposed_from[seat] = hand.exposed_from.get(seat, 0) + 1
    hand.board.expected_burn = (uid, rule)
    hand.exposure_candidate, hand.exposure_resolved = uid, False
    return Finding("deal.exposed_card_becomes_burn", "MISD-010",
                   "exposed card: announce it, replace it after the deal, it is the next burn", seat)


def on_hole_left(hand: Hand, uid: str, seat: int, ts: float) -> Finding | None:
    """A hole card left the table (not to the muck) while the deal went on.

    If the dealer had pressed ``exposed`` and this is a card he took away, that exposure is now
    known (it may be the card dealt just before the one pressed for, if the press beat the
    reader). Otherwise MISD-011: a card off the table counts as exposed.
    """
    if hand.deal_over or hand.misdeal:
        return None
    if not hand.exposure_resolved:
        hand.exposure_resolved = True
        was = hand.exposure_candidate
        if was != uid and was is not None:
            old = hand.first_seat.get(was)
            if old is not None and old != seat:
                hand.allowance[old] -= 1
                hand.exposed_from[old] -= 1
                hand.allowance[seat] = hand.allowance.get(seat, 0) + 1
                hand.exposed_from[seat] = hand.exposed_from.get(seat, 0) + 1
        hand.board.expected_burn = (uid, "MISD-010")
        return None
    # The reader lost it: a card off the table, or reads missed. Sensor-uncertain, so a prompt,
    # never a misdeal flag (docs/rules.md, "Sensor limits"); undone if it is read at its seat again.
    hand.allowance[seat] = hand.allowance.get(seat, 0) + 1
    hand.exposed_from[seat] = hand.exposed_from.get(seat, 0) + 1
    hand.board.expected_burn = (uid, "MISD-011")
    return Finding("deal.card_off_table", "MISD-011",
                   f"a card left the table at seat {seat}: it counts as exposed: show it, replace it after "
                   f"the deal, it is the next burn", seat, ts=ts)


def on_hole_back(hand: Hand, uid: str, seat: int) -> None:
    """A hole card taken for off the table is read at its seat again: it never left (missed
    reads); undo what :func:`on_hole_left` assumed."""
    if hand.board.expected_burn == (uid, "MISD-011"):
        hand.board.expected_burn = None
        hand.allowance[seat] = max(0, hand.allowance.get(seat, 0) - 1)
        hand.exposed_from[seat] = max(0, hand.exposed_from.get(seat, 0) - 1)


def late(finding: Finding, late_fault: str) -> Finding:
    """MISD-013: a misdeal found after substantial action is not one; ``LATE_FAULT`` says what
    follows: the hand proceeds (001, 002) or the misdealt seat's hand is dead (003)."""
    what = finding.message.removesuffix(": misdeal")
    if late_fault == "dead" and finding.seat is not None:
        then = f"past substantial action: seat {finding.seat}'s hand is dead, the others play on"
    else:
        then = "past substantial action: the hand proceeds"
    return replace(finding, code=late_code(finding.code), rule="MISD-013",
                   message=f"{what}; {then}")
