"""The roster: who sits where, who is dealt in, and the next hand's button and blinds
(DEAL-004..010, MISD-014)."""

from __future__ import annotations

from typing import Any

from controller.core import cash
from controller.core.effects import Effect, Prompt
from controller.core.errors import StateError
from controller.core.events import ButtonPress, DealerNamed, TableSetup
from controller.core.pads import Pad
from controller.core.positions import Positions, between, initial_positions, late_entry_waits, next_positions
from controller.core.rules import Finding
from controller.core.rules.misdeal import absence_counts
from controller.core.hand import Hand
from controller.core.state import checks
from controller.core.part import Part


class Roster(Part):
    """Seats and positions, and who deals: the roster's part of the table."""

    SECTION = "roster"
    STATE = ("seats", "_next_button", "_last_positions", "waiting", "_posted", "absent", "missed_bb", "missed_sb",
             "_buyer", "penalty", "_deferred", "_redeal", "dealer", "_next_dealer")
    NULLABLE = ("_next_button",)
    HINTS = {"seats": tuple[int, ...], "_next_button": int | None, "_last_positions": Positions | None,
             "waiting": set[int], "_posted": set[int], "absent": set[int], "missed_bb": set[int],
             "missed_sb": set[int], "_buyer": int | None, "penalty": dict[int, int], "_deferred": list[ButtonPress],
             "_redeal": Hand | None, "dealer": str | None, "_next_dealer": str | None}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        settings = self.settings
        self.seats: tuple[int, ...] = tuple(settings.seats)
        self._next_button: int | None = settings.button  # set by hand for the next hand, if any
        self._last_positions: Positions | None = None  # the last hand's button and blinds
        self.waiting: set[int] = set()  # newcomers not dealt in yet (DEAL-006)
        self._posted: set[int] = set()  # newcomers who posted (DEAL-007)
        self.absent: set[int] = set()  # DEAL-009 (a cash game: seats sitting out, not dealt in)
        # cash games (DEAL-008): the seats the big and the small blind went past while they sat out
        self.missed_bb: set[int] = set()
        self.missed_sb: set[int] = set()
        self._buyer: int | None = None  # the seat that bought the button in the last hand (DEAL-007/008)
        self.penalty: dict[int, int] = {}  # seat -> penalty hands left (DEAL-010)
        self._deferred: list[ButtonPress] = []  # seat changes waiting for the hand to end
        self._redeal: Hand | None = None  # the misdealt hand the next one replays (MISD-014)
        self.dealer: str | None = None  # who deals the next hand: the floor names them (RELIEF-003)
        self._next_dealer: str | None = None  # named ahead: dealing from the next relief press

    def link(self) -> None:
        self._flag = self._t.alerts.flag

    @property
    def hand(self) -> Hand | None:
        return self._t.dealing.hand

    @property
    def game_def(self) -> Any:
        return self._t.turns.game_def

    def check(self, where: str) -> None:
        for s in self.seats:
            checks.seat(f"{where}.seats", s)
        for name in ("waiting", "_posted", "absent", "missed_bb", "missed_sb"):
            for s in getattr(self, name):
                checks.seat(f"{where}.{name}", s)
        for s, n in self.penalty.items():
            checks.seat(f"{where}.penalty", s)
            checks.count(f"{where}.penalty[{s}]", n)
        for name in ("_next_button", "_buyer"):
            if getattr(self, name) is not None:
                checks.seat(f"{where}.{name}", getattr(self, name))
        for name in ("dealer", "_next_dealer"):
            checks.dealer(getattr(self, name), f"{where}.{name}")
        for p in self._deferred:
            if type(p).__name__ != "ButtonPress":
                raise StateError(f"{where}._deferred: holds something other than a press")
        if self._redeal is not None:
            checks.check_hand(self._redeal, f"{where}._redeal")
            if not self._redeal.penalty <= self.penalty.keys():
                raise StateError(f"{where}._redeal.penalty: a seat the table has no penalty for")

    # -- what the other parts ask of the roster --------------------------------------------
    @property
    def last_positions(self) -> Positions | None:
        """The last hand's button and blinds, as it was played (None: none yet, or the button set)."""
        return self._last_positions

    @property
    def next_button(self) -> int | None:
        """The next hand's button where it is set by hand (None: the rules move it)."""
        return self._next_button

    def relief(self) -> None:
        """RELIEF-003: the incoming dealer deals from the next hand, by the name the floor
        entered ahead; a relief nobody was named for leaves the down's dealer unknown."""
        self.dealer, self._next_dealer = self._next_dealer, None

    def set_next_button(self, seat: int | None) -> None:
        """The next hand's button, set (a high card, the stud/flop switch) or, None, moved by the rules."""
        self._next_button = seat

    def button_by_high_card(self, seat: int) -> None:
        """DEAL-011: the high card's seat has the button, and the blinds start from it."""
        self._next_button = seat
        self._last_positions = None

    @property
    def redeal(self) -> Hand | None:
        """The misdealt hand the next deal replays (MISD-014), if any."""
        return self._redeal

    def take_redeal(self) -> Hand | None:
        """The misdealt hand the hand now starting replays (MISD-014), if any: taken."""
        redeal, self._redeal = self._redeal, None
        return redeal

    def deal_in(self, joins: list[int]) -> set[int]:
        """A hand starts with ``joins`` dealt in: they are no longer waiting. The seats still waiting."""
        self.seats = tuple(sorted(set(self.seats) | set(joins)))
        self.waiting -= set(joins)
        self._posted -= set(joins)
        return set(self.waiting)

    def deferred_newcomers(self, seats: tuple[int, ...]) -> set[int]:
        """The seats that came in during a misdealt hand, not in its re-deal (MISD-014)."""
        return {p.seat for p in self._deferred if p.name in (Pad.SEAT_IN, Pad.SEAT_POSTED)
                and p.seat is not None and p.seat not in seats}

    def serve_penalties(self, hand: Hand) -> list[int]:
        """DEAL-010: a hand played out counts a hand of each penalised seat's penalty (a misdealt
        hand and its re-deal count once); the seats whose penalty is served."""
        served = []
        for seat in sorted(hand.penalty):
            self.penalty[seat] -= 1
            if self.penalty[seat] <= 0:
                del self.penalty[seat]
                served.append(seat)
        return served

    def hand_misdealt(self, hand: Hand) -> None:
        """MISD-014: the re-deal replays ``hand``; seat changes wait for it."""
        self._redeal = hand

    def hand_played(self, hand: Hand, out: list[Effect]) -> None:
        """DEAL-004: the button moves once the pot is pushed; where to, :meth:`plan` says. After
        a deal from a misplaced button that was played out, it moves on from where it was
        (MISD-015). The seat changes pressed during the hand take effect."""
        self._last_positions = hand.played_positions()
        deferred, self._deferred = self._deferred, []
        for press in deferred:
            self.seat_press(press, out)

    def plan(self) -> tuple[tuple[int, ...], Positions, list[int]]:
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
        if self.settings.event == "cash":
            return self._cash_plan(roster, last)
        # DEAL-006 (LATE_ENTRY): a player moved from another table comes in at once but between the
        # button and the small blind, whatever the rule for late registrants (001; FLOW-008's input)
        moved, rule = self._t.flow.moved, self.settings.rules.late_entry
        joins = [s for s in sorted(self.waiting)
                 if not late_entry_waits(s, last, roster + [s], "immediate" if moved(s) else rule, s in self._posted)]
        seats = tuple(sorted(roster + joins))
        return seats, next_positions(last, seats), joins

    def _cash_plan(self, roster: list[int], last: Positions) -> tuple[tuple[int, ...], Positions, list[int]]:
        """A cash game's next hand (DEAL-007/008): a seat waiting comes in when it posted (not
        between the button and the small blind, unless it buys the button) or when the big blind
        reaches it; after a button buy the buyer gets the button, or the button jumps over him
        (``BUY_BUTTON_NEXT``)."""
        rules = self.settings.rules
        joins = [s for s in sorted(self.waiting)
                 if cash.entry(s, last, roster + [s], posted=s in self._posted, missed_bb=s in self.missed_bb,
                               missed_sb=s in self.missed_sb, rule=rules.cash_entry) != "waits"]
        seats = tuple(sorted(roster + joins))
        pos = next_positions(last, seats)
        buyer = self._buyer
        if rules.buy_button_next == "buyer" and buyer in seats and len(seats) > 2 and buyer not in (pos.sb, pos.bb):
            pos = Positions(buyer, pos.sb, pos.bb)  # 001: the buyer is on the button the next hand
        return seats, pos, joins

    def next_positions(self) -> Positions:
        """The button and blinds of the next hand (see :meth:`plan`)."""
        return self.plan()[1]

    @property
    def button(self) -> int:
        """The button of the hand in progress, else of the next hand."""
        return self.hand.button if self.hand is not None else self.next_positions().button

    def seat_press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """Seats in and out (DEAL-005..010). A change to a seat in the hand under way waits for
        the hand to end (and a misdealt hand's for its re-deal: MISD-014)."""
        seat, hand = ev.seat, self.hand
        if seat is None:
            return
        name = ev.name
        cash_game = self.settings.event == "cash"
        if name == Pad.SEAT_ABSENT and not cash_game:  # DEAL-009: still dealt; mucked at the deadline
            if seat not in self.seats:
                return  # nobody sits there
            self.absent.add(seat)
            if hand is not None and not hand.deal_over and absence_counts(hand, self.settings.rules.absent_deadline):
                hand.absent.add(seat)
            return
        if name == Pad.SEAT_PENALTY:  # DEAL-010: dealt to the muck for ``hands`` hands
            self.penalty[seat] = ev.hands or 1
            if hand is not None and hand.hole_dealt == 0 and seat in hand.seats:
                hand.penalty.add(seat)
            return
        if name == Pad.SEAT_IN and seat in self.seats:  # back at his seat
            self.absent.discard(seat)
            if hand is not None and absence_counts(hand, self.settings.rules.absent_deadline):
                hand.absent.discard(seat)  # (back in time: ABSENT_DEADLINE)
            return
        if hand is not None or self._redeal is not None:
            self._deferred.append(ev)
            return
        if name == Pad.SEAT_OUT:
            self._seat_out(ev.ts, seat, out)
        elif cash_game:
            self._cash_press(ev.ts, name, seat, out)
        elif name in (Pad.SEAT_IN, Pad.SEAT_POSTED):
            self._newcomer(ev.ts, name, seat, out)

    def _seat_out(self, ts: float, seat: int, out: list[Effect]) -> None:
        """A player leaves the table, between hands."""
        self.seats = tuple(s for s in self.seats if s != seat)
        if len(self.seats) < 2:
            self._flag(out, ts, None, Finding("deal.table_short", "DEAL-012",
                                              f"{len(self.seats)} seat left: no hand can be dealt", audience="floor"))
        for group in (self.waiting, self.absent, self._posted, self.missed_bb, self.missed_sb):
            group.discard(seat)  # (a cash seat left empty: whoever sits there next is a newcomer)
        self.penalty.pop(seat, None)

    def _newcomer(self, ts: float, name: str, seat: int, out: list[Effect]) -> None:
        """A tournament's newcomer sits down (or posts), between hands: dealt in when DEAL-006 lets him."""
        self.waiting.add(seat)
        if name == Pad.SEAT_POSTED:
            self._posted.add(seat)
        if seat not in self.plan()[0]:
            self._flag(out, ts, None, Finding("deal.seat_waits", "DEAL-006",
                                              f"seat {seat} waits for the button to pass", seat))

    def cash_blinds(self, seats: tuple[int, ...], pos: Positions, joins: list[int]) -> None:
        """A cash hand starts (DEAL-007/008): the seats that came in owe nothing more; the one
        that came in between the button and the small blind bought the button (its place the
        next hand: ``BUY_BUTTON_NEXT``); and the blinds that went past a seat sitting out (or
        back and waiting) are recorded. Not when the button was set by hand: the blinds jumped."""
        self.missed_bb -= set(joins)
        self.missed_sb -= set(joins)
        gap = [j for j in joins if len(seats) > 2 and j != pos.button and between(j, pos.button, pos.sb)]
        self._buyer = gap[0] if gap else None
        last = self._last_positions
        if last is None or self._next_button is not None or not self.game_def.button:
            return
        away = self.absent | (self.waiting & (self.missed_bb | self.missed_sb))
        bb, sb = cash.passed(last, pos, away)
        self.missed_bb |= bb
        self.missed_sb |= sb

    def away(self, seat: int) -> str:
        """Why a cash seat has no hand, beyond what the hand knows (MISD-005's words): sitting
        out, or waiting and owing blinds or not yet posted. Nothing at a tournament."""
        if self.settings.event != "cash":
            return ""
        return cash.away_words(seat, sitting_out=seat in self.absent, waiting=seat in self.waiting,
                               missed_bb=seat in self.missed_bb, missed_sb=seat in self.missed_sb)

    def _cash_press(self, ts: float, name: str, seat: int, out: list[Effect]) -> None:
        """A cash player sits out, comes back, sits down or posts, between hands (DEAL-007/008).

        ``seat_absent``: he sits out; he is not dealt in and the blinds that go past him are
        recorded (:func:`controller.core.cash.passed`). ``seat_in``: back (nothing missed: dealt in
        at once; else he owes what he missed or waits for the big blind), or a newcomer (post
        or wait, ``CASH_ENTRY``). ``seat_posted``: he posted, and plays unless posting cannot
        bring him in where he sits. The dealer is told each time (a prompt, not an alert).
        """
        owes = seat in self.missed_bb or seat in self.missed_sb
        if name == Pad.SEAT_ABSENT:
            if seat in self.seats or (seat in self.waiting and owes):
                self.seats = tuple(s for s in self.seats if s != seat)
                self.waiting.discard(seat)
                self._posted.discard(seat)
                self.absent.add(seat)
            return
        if seat in self.seats:
            return  # dealt in already
        back = seat in self.absent
        self.absent.discard(seat)
        if back and not owes:
            self.seats = tuple(sorted({*self.seats, seat}))  # back before a blind went past him
            return
        self.waiting.add(seat)
        if name == Pad.SEAT_POSTED:
            self._posted.add(seat)
        last = self._last_positions
        roster = sorted(self.seats)
        if last is None or self._next_button is not None or len(roster) < 2 or not self.game_def.button:
            return  # the button set by hand (a session's first hand): every seat sitting is dealt in
        rules = self.settings.rules
        if name == Pad.SEAT_POSTED:
            verdict = cash.entry(seat, last, roster + [seat], posted=True, missed_bb=seat in self.missed_bb,
                                 missed_sb=seat in self.missed_sb, rule=rules.cash_entry)
            finding = cash.wait_button(seat) if verdict == "waits" else None
        else:
            finding = cash.prompt(seat, gap=cash.in_the_gap(seat, last, roster + [seat]), newcomer=not owes,
                                  missed_bb=seat in self.missed_bb, missed_sb=seat in self.missed_sb,
                                  rule=rules.cash_entry)
        if finding is not None:
            prompt = Prompt(ts, finding.code, finding.message, finding.rule, self._t.dealing.next_hand_number(),
                            seat=finding.seat)
            self._t.alerts.prompt_next_hand(out, prompt)

    def on_dealer(self, ev: DealerNamed) -> list[Effect]:
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

    def restates_redeal(self, ev: TableSetup) -> bool:
        """MISD-014: a set-up, while a misdealt hand's re-deal is pending, that would change
        nothing: the seats the table has (dealt in, or waiting to be), the misdealt hand's button
        or none, the game the table deals next or none, and at a cash table no seat's sitting out
        or blinds owed cleared by it. No word of the floor's (a script restating a hand's seats):
        the re-deal stands, with its seats, button and level. One that changes something is the
        floor's word and replaces the re-deal (docs/decisions/0040-a-set-up-during-a-re-deal.md).

        >>> from controller.core.settings import TableSettings
        >>> t = type("T", (), {"settings": TableSettings(seats=(1, 2, 4), button=4)})()
        >>> r = Roster(t); r._redeal = Hand(1, "holdem", 2, (1, 2, 4), 4, 0.0)
        >>> r.restates_redeal(TableSetup(1.0, (1, 2, 4), 4)), r.restates_redeal(TableSetup(1.0, (4, 2, 1)))
        (True, True)
        >>> r.restates_redeal(TableSetup(1.0, (1, 2, 4), 1)), r.restates_redeal(TableSetup(1.0, (1, 2, 4, 6), 4))
        (False, False)
        """
        redeal = self._redeal
        if redeal is None or set(ev.seats) != set(self.seats) | self.waiting:
            return False
        if ev.button is not None and (ev.button != redeal.button or self.waiting):
            return False  # (a button given deals the newcomers waiting in at once: a change)
        if ev.game is not None and ev.game != self._t.turns.game:
            return False
        if self.settings.event == "cash":
            owed = self.absent | self.missed_bb | self.missed_sb
            if any(s not in ev.seats or ev.button is not None for s in owed):
                return False
        return True

    def on_setup(self, ev: TableSetup) -> list[Effect]:
        """The floor sets the seats (and the button, or lets the daemon move it). Without a
        button, seats new to the table are newcomers under DEAL-006."""
        seats = set(ev.seats)
        if self.settings.event == "cash":
            # DEAL-008: a seat the floor leaves out is open, one it deals in with a button owes
            # nothing; a player sitting out stays out (not a newcomer) until he is back
            gone = {s for s in self.absent | self.missed_bb | self.missed_sb if s not in seats or ev.button is not None}
            self.absent -= gone
            self.missed_bb -= gone
            self.missed_sb -= gone
        if ev.button is not None:
            self._next_button = ev.button
            self.seats, self.waiting = tuple(sorted(seats)), set()
        else:
            self.waiting = (self.waiting | (seats - set(self.seats) - self.absent)) & seats
            self.seats = tuple(sorted(seats & set(self.seats)))
        # MISD-014: the floor's word replaces a pending re-deal: the next deal is a new hand (a set-up
        # that changes nothing is no word: Table._on_setup does not pass it on, restates_redeal)
        self._redeal = None
        return []
