"""Chinese poker's stacks in the dealing procedure (CHIN-001..004): the table's hooks, the rules
themselves in :mod:`controller.core.families.chinese.rules`. Chinese poker's part of the table: the
dealing calls these where Chinese poker
differs from the other games (a card at a seat off the stub, the end of the deal, a card moved
between seats, a card at the burn or the board).

The deal is four stacks of 13 pushed whole to the seats, not one card at a time round the table,
so the misdeal rules of a deal in turn (MISD-004..007, MISD-015) are not asked: a stack is
checked by the count each seat holds once the stacks are out (every seat due a hand has received
its cards, or the stub is empty), or at the first sign that the play is over (cards thrown to
the muck, the hand gathered). A fix the dealer was told of (CHIN-003's 14 and 12, CHIN-002's
stack at the five-handed button) is checked at every card that moves from seat to seat; a hand
played on without it is the floor's. What the hand keeps for this is what any hand keeps
(``deal_counted``, its alerts and notes): no state of its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.core.effects import Effect
from controller.core.rules import Finding
from controller.core.families.chinese import rules as chinese
from controller.core.part import Part
from controller.core.zones import seat_of, seat_zone

if TYPE_CHECKING:  # (a type here, no import at run time: the hand imports the families' rules)
    from controller.core.hand import Hand

#: the codes of a fix the dealer was told to make (CHIN-002, CHIN-003)
_FIXES = ("deal.chinese_one_over_one_short", "deal.chinese_no_hand")
_FIXED = "CHIN-003: fixed"


class ChineseStacks(Part):
    """Chinese poker's stacks: its part of the table (no state of its own)."""

    SECTION = "chinese"

    def link(self) -> None:
        alerts = self._t.alerts
        self._flag, self._flag_once = alerts.flag, alerts.flag_once

    def seats(self, seats: tuple[int, ...], button: int) -> tuple[tuple[int, ...], int]:
        """CHIN-002: the seats dealt a hand (five players: not the button) and the cards each
        gets (26 with ``chinese_two_hands`` and two players)."""
        return chinese.seats_dealt(seats, button, two_hands=self.settings.chinese_two_hands)

    def card(self, ts: float, hand: Hand, seat: int, out: list[Effect]) -> None:
        """A card off the stub at ``seat``, before it is placed: a seat with no hand (CHIN-002)."""
        found = chinese.on_seat_card(seat, hand.seats, hand.button, self._t.roster.seats)
        self._flag_once(out, ts, hand, found, f"chin:{seat}")

    def placed(self, ts: float, hand: Hand, prev: str | None, zone: str, out: list[Effect]) -> None:
        """After a card of a Chinese poker hand is placed: the counts once the stacks are out
        (CHIN-001..003); a card from seat to seat while a fix is due, the fix checked."""
        if not hand.deal_counted:
            if hand.hole_dealt >= hand.hole_target or hand.stub_count == 0:
                self.count(ts, hand, out)
            return
        if prev is None and seat_of(zone) is not None:  # a card off the stub once every seat had its own
            held = {s: hand.dealt_to.get(s, 0) for s in _seats(hand)}
            for f in chinese.counts(held, _want(hand)):
                self._flag_once(out, ts, hand, f, "chin:count")
            return
        if prev is not None and seat_of(prev) is not None and seat_of(zone) is not None and _fix_due(hand):
            held = {s: hand.count(seat_zone(s)) for s in _seats(hand)}
            if chinese.balanced(held, _want(hand)):
                hand.notes.append(f"{_FIXED}: every seat holds its {hand.hole_cards} cards")
            elif not any(a.code == "deal.chinese_no_hand" for a in hand.alerts):
                # CHIN-003's fix is one card from the 14 to the 12: it went elsewhere
                self._flag_once(out, ts, hand, _not_fixed(hand, held), "chin:fix")

    def count(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """The counts each seat received off the stub, once a hand (CHIN-001..003)."""
        hand.deal_counted = hand.deal_over = True
        held = {s: hand.dealt_to.get(s, 0) for s in _seats(hand)}
        for f in chinese.counts(held, _want(hand)):
            self._flag(out, ts, hand, f)

    def deal_over(self, ts: float, hand: Hand, out: list[Effect], play_over: bool) -> None:
        """A pad ended the deal (``sa``, ``round_done``) or the play is over (``play_over``: a
        seat's cards to the muck, ``hand_end``, the hand gathered): the counts if not yet
        checked; at the play's end, a fix still due is the floor's."""
        if hand.kind != "hand" or hand.misdeal:
            return
        if not hand.deal_counted:
            self.count(ts, hand, out)
        elif play_over and _fix_due(hand):
            held = {s: hand.count(seat_zone(s)) for s in _seats(hand)}
            self._flag_once(out, ts, hand, _not_fixed(hand, held), "chin:fix")

    def no_board(self, ts: float, hand: Hand, zone: str, out: list[Effect]) -> None:
        """CHIN-001: no burn and no board in Chinese poker."""
        self._flag_once(out, ts, hand, Finding(
            "deal.chinese_no_board", "CHIN-001",
            f"a card at the {zone}: Chinese poker has no burn and no board; it belongs in a stack"), "chin:board")


def _seats(hand: Hand) -> set[int]:
    """The seats dealt a hand and any seat that got cards."""
    return set(hand.seats) | {s for z in hand.zones if (s := seat_of(z)) is not None} | set(hand.dealt_to)


def _want(hand: Hand) -> dict[int, int]:
    return {s: hand.hole_cards for s in hand.seats}


def _fix_due(hand: Hand) -> bool:
    """The dealer was told of a fix (CHIN-002/003) that is not done, and not yet the floor's."""
    return any(a.code in _FIXES for a in hand.alerts) and not any(n.startswith(_FIXED) for n in hand.notes) \
        and ("deal.chinese_count_wrong", "chin:fix") not in hand.flagged


def _not_fixed(hand: Hand, held: dict[int, int]) -> Finding:
    said = ", ".join(f"seat {s} {held.get(s, 0)} of {hand.hole_cards if s in hand.seats else 0}" for s in sorted(held))
    return Finding("deal.chinese_count_wrong", "CHIN-003",
                   f"Chinese poker stacks not put right after the dealer was told ({said})", audience="floor")
