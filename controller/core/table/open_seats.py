"""The open seats (BREAK-002, BREAK-003): a part of the table.

Every ``seat_out`` opens its seat (the floor is told at once,
and again after the next hand's ``hand_end`` while nobody sits there); at OPEN_SEAT_HOLD open
seats (LATE_STAGE_HOLD late in the event) the dealer holds and the floor is told (a tournament's:
a cash table deals on); the dealer's ``ack`` of the hold is the floor's go-ahead (see
``_ack_is_the_holds``); a hand dealt during the hold is the floor's to know. These are the table's
notices, not a hand's faults: floor alerts as they happen (the floor's page, ``events/floor``,
the journal), kept in no hand's record, whose alerts stay the faults of that hand (a clean hand
at a table losing players raises none); the hand dealt during a hold notes it.
"""

from __future__ import annotations

from typing import Any

from controller.core.effects import Alert, Effect
from controller.core.events import ButtonPress, TableSetup
from controller.core.hand import Hand
from controller.core.pads import Pad
from controller.core.rules import Finding
from controller.core.state import checks
from controller.core.part import Part

#: the marks of the acks a misdeal alert took during a hand (``Hand.flagged``: see _ack_is_the_holds)
_MISDEAL_ACKED = "console_ack"
#: the one device whose offline prompt ranks below the hold (controller.core.prompts)
_BELOW_THE_HOLD = frozenset({"display"})


class OpenSeats(Part):
    """The seats put out and not filled since, and the hold they put the dealer in."""

    SECTION = "open_seats"
    STATE = ("open_seats", "_seat_notices", "_hold_released")
    HINTS = {"open_seats": list[int], "_seat_notices": dict[int, int], "_hold_released": bool}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self.open_seats: list[int] = []  # BREAK-002/003: seats put out, not filled since, in order
        self._seat_notices: dict[int, int] = {}  # BREAK-003: seat -> the hand at whose hand_end it is told again
        self._hold_released = False  # BREAK-002: the floor's go-ahead (ack) while seats are open

    def link(self) -> None:
        alerts = self._t.alerts
        self._notice, self._mode_prompt = alerts.notice, alerts.prompt_now

    def check(self, where: str) -> None:
        for s in self.open_seats:
            checks.seat(f"{where}.open_seats", s)
        for s, n in self._seat_notices.items():
            checks.seat(f"{where}._seat_notices", s)
            checks.count(f"{where}._seat_notices[{s}]", n)

    def press(self, ev: ButtonPress, out: list[Effect]) -> bool:
        """What a press means to the open seats; True if it means nothing else (the hold's ack)."""
        name, seat, hand = ev.name, ev.seat, self._t.dealing.hand
        if name == Pad.SEAT_OUT and seat is not None:
            self._seat_opened(ev.ts, seat, out)
        elif name in (Pad.SEAT_IN, Pad.SEAT_POSTED) and seat is not None:
            self._seat_filled(ev.ts, {seat}, out)
        elif name == Pad.ACK and self._ack_is_the_holds(hand):
            self._hold_released = True  # BREAK-002: the floor said deal on
            return True  # the hold's ack, not the stub count's (shown under it)
        elif name == Pad.HAND_END and hand is not None and hand.kind == "hand":
            self._seat_notices_due(ev.ts, hand, out)
        return False

    def on_setup(self, ev: TableSetup, out: list[Effect]) -> None:
        """The floor seated the table: its open seats are filled."""
        self._seat_filled(ev.ts, set(ev.seats), out)

    # -- open seats (BREAK-002, BREAK-003) -----------------------------------------------------
    def _hold_at(self) -> int:
        rules = self.settings.rules
        return rules.late_stage_hold if rules.late_stage else rules.open_seat_hold

    def _holds(self) -> bool:
        """BREAK-002 is a tournament's (tables broken and balanced); a cash table deals on."""
        return self.settings.event != "cash"

    def holding(self) -> bool:
        return self._holds() and len(self.open_seats) >= self._hold_at() and not self._hold_released

    def _ack_is_the_holds(self, hand: Hand | None) -> bool:
        """BREAK-002: an ``ack`` answers the prompt the console shows (controller.core.prompts), and
        ``break.hold`` outranks every prompt an ack answers but a misdeal alert: during the hold,
        the ack is the hold's (the floor's go-ahead, given through the dealer) unless a misdeal
        alert of the hand is up (that ack is its: counted here) or a device is offline (the
        console shows that, and an ack answers nothing). The stub count, "NEXT GAME" and the
        other prompts wait under the hold: their ack comes after."""
        if hand is not None and not hand.misdeal:
            up = {(a.code, a.seat) for a in hand.alerts if a.audience == "dealer" and a.code.startswith("misdeal.")}
            answered = sum(1 for code, _ in hand.flagged if code == _MISDEAL_ACKED)
            if len(up) > answered:
                hand.flagged.add((_MISDEAL_ACKED, str(answered)))  # this ack was the misdeal alert's
                return False
        return self.holding() and not (self._t.devices.devices_offline - _BELOW_THE_HOLD)

    def _seat_opened(self, ts: float, seat: int, out: list[Effect]) -> None:
        hand, roster = self._t.dealing.hand, self._t.roster
        # (a cash player sitting out is off the roster's seats, in its absent: DEAL-008)
        sitting = set(roster.seats) | roster.waiting | roster.absent | (set(hand.seats) if hand is not None else set())
        if seat not in sitting or seat in self.open_seats:
            return
        self.open_seats.append(seat)
        number = hand.number if hand is not None else None
        # BREAK-003: "seat open" at once (002); told again after the next hand's hand_end (001)
        self._seat_notices[seat] = (hand.number + 1) if hand is not None else self._t.dealing.hands_finished + 1
        self._notice(out, Alert(ts=ts, code="break.seat_open", audience="floor", rule="BREAK-003", seat=seat,
                                message=f"seat {seat} open", hand=number))
        k, at = len(self.open_seats), self._hold_at()
        if k >= at and self._holds():  # BREAK-002: the dealer stops; the floor breaks or fills the table
            self._hold_released = False
            self._notice(out, Alert(ts=ts, code="break.seats_open", audience="floor", rule="BREAK-002", count=k,
                                    message=f"{k} seats open: the dealer holds (the hold is at {at})", hand=number))
            self._mode_prompt(out, ts, Finding("break.hold", "BREAK-002",
                                               f"{k} seats open: hold the deal, the floor is told", count=k))

    def _seat_filled(self, ts: float, seats: set[int], out: list[Effect]) -> None:
        holding = self.holding()
        self.open_seats = [s for s in self.open_seats if s not in seats]
        for s in seats:
            self._seat_notices.pop(s, None)
        if holding and not self.holding():  # filled below the hold: the console's hold is over too
            self._mode_prompt(out, ts, Finding("break.hold_over", "BREAK-002",
                                               "seats filled: the hold is over, deal on"))

    def _seat_notices_due(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """BREAK-003: the seats still open when the hand after their notice is over, told again."""
        for seat, due in sorted(self._seat_notices.items()):
            if hand.number >= due:
                del self._seat_notices[seat]
                self._notice(out, Alert(ts=ts, code="break.seat_open", audience="floor", rule="BREAK-003",
                                        seat=seat, message=f"seat {seat} still open (its seat card not collected)",
                                        hand=hand.number))

    def hold_deal(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """BREAK-002: a hand's first card during the hold."""
        if self.holding():
            k = len(self.open_seats)
            hand.notes.append(f"BREAK-002: dealt while {k} seats were open, before the floor's go-ahead")
            self._notice(out, Alert(ts=ts, code="break.dealt_in_hold", audience="floor", rule="BREAK-002", count=k,
                                    message=f"a hand dealt while {k} seats are open (the dealer was told to hold)",
                                    hand=hand.number))

