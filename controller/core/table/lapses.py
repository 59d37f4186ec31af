"""What the reads should show within a time and do not (docs/rules.md: MUCK-001, STUB-006): a part
of the table.

The core has no clock: time is each event's own ``ts``. After every event the table compares its
``ts`` with :attr:`Lapses.due`, the earliest instant at which something here falls due, and an
event at or past it runs :meth:`Lapses.on_time` (a quiet reader cycle too: they come every 50 ms,
so a wait ends within a cycle of its time, replayed exactly from the journal).

- MUCK-001, a card off the table: a card whose departure from its seat the tracker confirmed
  (``gone_cycles`` unheard) after the initial deal, while the hand is played (not after a
  misdeal, the pot pushed, or once one seat is left: those cards are being gathered), and that
  has arrived nowhere since. ``MUCK_TIMEOUT_S`` after the departure the dealer is told
  (``muck.card_missing``, once a seat a hand, no card named); still missing as long again, or
  when the hand ends, the floor is told (``muck.card_held_out``, the card named): a card may be
  held out. A card read again anywhere (back at its seat, in the muck, anywhere on the table)
  ends the wait: a player who looks at his cards and puts them back within the time raises
  nothing. The time counts from the departure, itself ``gone_cycles`` after the last read: late,
  never early. A stud up card lifted is STUD-013's at once; its seat is not told twice.
- STUB-006, the stub spot (a table whose antenna map feeds ``stub``): the tags read there are the
  stub, no card of the hand (:meth:`take_stub`); a card dealt from the spot afterwards leaves it.
  At the hand's end the tags read are the free count: against the deck's cards not out, right
  (the down's count is done, STUB-001/002, and the record says how many: ``stub_read``) or wrong
  (the floor is told which cards, and the deck goes as a wrong count sends it: STUB-004). Once the
  hand's last card is out (the game's template has no card due), no stub read within
  ``STUB_DROP_S`` of the last card off the stub is a prompt (``stub.not_dropped``).

>>> from controller.core.rules.muck import card_missing
>>> card_missing(3).rule
'MUCK-001'
"""

from __future__ import annotations

import math
from typing import Any

from controller.core.effects import Effect
from controller.core.hand import Hand
from controller.core.part import Part
from controller.core.rules.muck import card_held_out, card_missing
from controller.core.rules.stub import not_dropped
from controller.core.state import checks
from controller.core.tracker import Move
from controller.core.zones import Zone, seat_zone

NEVER = math.inf


class Lapses(Part):
    """The cards away from their seats and the stub spot, with the times they fall due."""

    SECTION = "lapses"
    STATE = ("away", "dealt_out_at", "stub_read")
    HINTS = {"away": dict[str, tuple[int, float]], "dealt_out_at": float | None, "stub_read": set[str]}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        #: MUCK-001: uid -> (its seat, when it left the table), for the hand under way
        self.away: dict[str, tuple[int, float]] = {}
        #: STUB-006: when the last card off the stub came, once the hand had every card out
        self.dealt_out_at: float | None = None
        #: STUB-006: the tags read on the stub spot this hand, less those dealt from it since
        self.stub_read: set[str] = set()
        #: the earliest instant something here falls due (not state: it follows from the rest)
        self.due = NEVER
        self.spot = self.settings.zones.has_stub_spot

    def link(self) -> None:
        self._alerts = self._t.alerts
        self._due_again()

    def check(self, where: str) -> None:
        for seat, _ in self.away.values():
            checks.seat(f"{where}.away", seat)

    @property
    def hand(self) -> Hand | None:
        return self._t.dealing.hand

    # -- the dealing tells -------------------------------------------------------------------
    def hand_started(self) -> None:
        self.away, self.dealt_out_at, self.stub_read = {}, None, set()
        self.due = NEVER

    def left(self, ts: float, hand: Hand, uid: str, seat: int) -> None:
        """A card of ``seat`` left the table (the tracker's departure), the hand going on."""
        if hand.kind != "hand" or hand.misdeal or hand.pot_pushed or hand.game_def.family == "chin" \
                or hand.hole_dealt < hand.hole_target or len(hand.live_seats()) < 2:
            return  # (the deal's: MISD-011; a gather; Chinese poker's players set their hands in hand)
        self.away[uid] = (seat, ts)
        self._due_again()

    def arrived(self, uid: str) -> None:
        """A card was read somewhere on the table again (or dealt from the stub spot)."""
        if self.away.pop(uid, None) is not None:
            self._due_again()
        self.stub_read.discard(uid)

    def take_stub(self, moves: list[Move]) -> list[Move]:
        """STUB-006: the tags the tracker confirmed on the stub spot this cycle are the stub, no
        card of the hand: kept (during a hand) and taken out of ``moves``, the rest returned (a
        card dealt from the spot afterwards arrives where it lands, as a card off the stub does)."""
        if not any(z == Zone.STUB for _, _, z in moves):
            return moves
        if self.hand is not None:
            self.stub_read.update(uid for uid, _, z in moves if z == Zone.STUB)
            self._due_again()
        return [m for m in moves if m[2] != Zone.STUB]

    def card_out(self, ts: float, hand: Hand) -> None:
        """A card off the stub was placed: once none is due (the template dealt out, two seats or
        more still in), it is the last so far (STUB-006)."""
        if hand.kind == "hand" and not hand.misdeal and hand.game_def.family != "chin" \
                and hand.hole_dealt >= hand.hole_target and hand.next_to() is None and len(hand.live_seats()) >= 2:
            self.dealt_out_at = ts
            self._due_again()

    # -- time --------------------------------------------------------------------------------
    def _due_again(self) -> None:
        """:attr:`due` from the state: each card away at its departure plus the timeout (twice
        once the dealer was told), the stub at the last card plus STUB_DROP_S until one is read."""
        rules, due = self.settings.rules, NEVER
        hand = self.hand
        if self.away and hand is not None:
            t = rules.muck_timeout_s
            for seat, at in self.away.values():
                told = ("muck.card_missing", f"seat:{seat}") in hand.flagged
                due = min(due, at + (2 * t if told else t))
        if self.dealt_out_at is not None and not self.stub_read and hand is not None and hand.stub_count > 0 \
                and ("stub.not_dropped", "") not in hand.flagged:
            due = min(due, self.dealt_out_at + rules.stub_drop_s)
        self.due = due

    def on_time(self, ts: float, out: list[Effect]) -> None:
        """An event at or past :attr:`due`: what fell due is said."""
        hand = self.hand
        if hand is None:
            self.hand_started()
            return
        t = self.settings.rules.muck_timeout_s
        for uid, (seat, at) in sorted(self.away.items(), key=lambda kv: (kv[1][1], kv[0])):
            if hand.misdeal or hand.where.get(uid) != seat_zone(seat) or uid in hand.on_table:
                del self.away[uid]  # dead hand, taken off (MISD-011, STUD-010), or read again
                continue
            key = f"seat:{seat}"
            if ts >= at + t and ("muck.card_missing", key) not in hand.flagged:
                hand.flagged.add(("muck.card_missing", key))
                if not hand.prompted("STUD-013", seat):  # (a stud up card lifted: told already)
                    self._alerts.flag(out, ts, hand, card_missing(seat))
            if ts >= at + 2 * t:
                self._alerts.flag_once(out, ts, hand, card_held_out(seat, hand.labels[uid], ts - at), uid)
                del self.away[uid]
        if self.dealt_out_at is not None and not self.stub_read and hand.stub_count > 0 \
                and ts >= self.dealt_out_at + self.settings.rules.stub_drop_s:
            self._alerts.flag_once(out, ts, hand, not_dropped(), "")
        self._due_again()

    def finish(self, ts: float, hand: Hand, out: list[Effect]) -> int | None:
        """The hand ends (before its record is made): a card the dealer was told of and that
        never came back goes to the floor (MUCK-001); the stub read is counted (STUB-006).
        Returns how many cards the stub spot read, or None when it read none."""
        for uid, (seat, _) in sorted(self.away.items(), key=lambda kv: (kv[1][1], kv[0])):
            if ("muck.card_missing", f"seat:{seat}") in hand.flagged and hand.where.get(uid) == seat_zone(seat):
                self._alerts.flag_once(out, ts, hand, card_held_out(seat, hand.labels[uid], None), uid)
        self.away = {}
        read = None
        if self.stub_read and hand.kind == "hand" and not hand.misdeal:
            read = len(self.stub_read)
            self._t.decks.stub_read(ts, hand, set(self.stub_read), out)
        self.due = NEVER
        return read
