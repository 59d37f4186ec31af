"""The roster: who sits where, who is dealt in, and the next hand's button and blinds
(DEAL-004..010, MISD-014)."""

from __future__ import annotations

from controller.effects import Effect
from controller.events import ButtonPress, DealerNamed, TableSetup
from controller.pads import Pad
from controller.positions import Positions, initial_positions, late_entry_waits, next_positions
from controller.rules import Finding
from controller.deck_guard import DeckGuard


class Roster(DeckGuard):
    """Seats and positions (layer 4 of the table: see :mod:`controller.table_base`)."""

    def _plan(self) -> tuple[tuple[int, ...], Positions, list[int]]:
        """The next hand's seats, positions and the newcomers who join it.

        A re-deal replays the misdealt hand: same seats, same button (MISD-014). Otherwise the
        button is set by hand, or moves by the dead-button rule (DEAL-004, DEAL-005); a
        newcomer joins unless DEAL-006 makes him wait. A game without a button (stud) keeps the
        dealer's position.
        """
        if self._redeal is not None:
            return self._redeal.seats, self._redeal.positions, []
        roster = sorted(self.seats)
        everyone = tuple(sorted(set(roster) | self.waiting))
        if len(everyone) < 2:  # no hand can be dealt; cards dealt anyway are flagged seat by seat
            b = self._next_button or (self._last_positions.button if self._last_positions else self.settings.button)
            return everyone, Positions(b, b, b), sorted(self.waiting)
        if not self.game_def.button:
            # Stud has no button (STUD-001): every hand is dealt from the dealer's position, the
            # seat the deal starts after, and a newcomer antes in at once (MIXED-002)
            b = self._next_button or (self._last_positions.button if self._last_positions else self.settings.button)
            return everyone, initial_positions(everyone, b), sorted(self.waiting)
        if self._next_button is not None or self._last_positions is None or len(roster) < 2:
            return everyone, initial_positions(everyone, self._next_button or self.settings.button), \
                sorted(self.waiting)
        last = self._last_positions
        joins = [s for s in sorted(self.waiting)
                 if not late_entry_waits(s, last, roster + [s], self.settings.rules.late_entry, s in self._posted)]
        seats = tuple(sorted(roster + joins))
        return seats, next_positions(last, seats), joins

    def next_positions(self) -> Positions:
        """The button and blinds of the next hand (see :meth:`_plan`)."""
        return self._plan()[1]

    @property
    def button(self) -> int:
        """The button of the hand in progress, else of the next hand."""
        return self.hand.button if self.hand is not None else self.next_positions().button

    def _seat_press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """Seats in and out (DEAL-005..010). A change to a seat in the hand under way waits for
        the hand to end (and a misdealt hand's for its re-deal: MISD-014)."""
        seat, hand = ev.seat, self.hand
        if seat is None:
            return
        name = ev.name
        if name == Pad.SEAT_ABSENT:  # DEAL-009: still dealt; mucked at the deadline
            if seat not in self.seats:
                return  # nobody sits there
            self.absent.add(seat)
            if hand is not None and not hand.deal_over:
                hand.absent.add(seat)
            return
        if name == Pad.SEAT_PENALTY:  # DEAL-010: dealt to the muck for ``hands`` hands
            self.penalty[seat] = ev.hands or 1
            if hand is not None and hand.hole_dealt == 0 and seat in hand.seats:
                hand.penalty.add(seat)
            return
        if name == Pad.SEAT_IN and seat in self.seats:  # back at his seat
            self.absent.discard(seat)
            if hand is not None:
                hand.absent.discard(seat)
            return
        if hand is not None or self._redeal is not None:
            self._deferred.append(ev)
            return
        if name == Pad.SEAT_OUT:
            self.seats = tuple(s for s in self.seats if s != seat)
            if len(self.seats) < 2:
                self._flag(out, ev.ts, None, Finding("deal.table_short", "DEAL-012",
                                                     f"{len(self.seats)} seat left: no hand can be dealt",
                                                     audience="floor"))
            for group in (self.waiting, self.absent, self._posted):
                group.discard(seat)
            self.penalty.pop(seat, None)
        elif name in (Pad.SEAT_IN, Pad.SEAT_POSTED):
            self.waiting.add(seat)
            if name == Pad.SEAT_POSTED:
                self._posted.add(seat)
            if seat not in self._plan()[0]:
                self._flag(out, ev.ts, None, Finding("deal.seat_waits", "DEAL-006",
                                                     f"seat {seat} waits for the button to pass", seat))

    def _on_dealer(self, ev: DealerNamed) -> list[Effect]:
        """The floor names a dealer (RELIEF-003): now, or at the next relief press. A hand in
        progress keeps its dealer (RELIEF-001: the outgoing dealer finishes it); one that has
        none yet (the first name of a shift, given mid-hand) takes this one."""
        if ev.at_relief:
            self._next_dealer = ev.name
            return []
        self.dealer = ev.name
        if self.hand is not None and self.hand.dealer is None:
            self.hand.dealer = ev.name
        return []

    def _on_setup(self, ev: TableSetup) -> list[Effect]:
        """The floor sets the seats (and the button, or lets the daemon move it). Without a
        button, seats new to the table are newcomers under DEAL-006."""
        seats = set(ev.seats)
        if ev.button is not None:
            self._next_button = ev.button
            self.seats, self.waiting = tuple(sorted(seats)), set()
        else:
            self.waiting = (self.waiting | (seats - set(self.seats))) & seats
            self.seats = tuple(sorted(seats & set(self.seats)))
        self._redeal = None  # the floor's word overrides a pending re-deal
        return []
