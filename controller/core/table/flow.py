"""The guides' last checkable flow rules (docs/rules.md: FLOW-006..009, DECK-009): a part of the table.

- FLOW-006, a long absence: a tournament seat pressed ``seat_absent`` is counted from the first
  hand that starts after the press, orbit by orbit (:func:`controller.core.rules.table_flow.orbit_done`:
  every seat dealt in has had the button, or in stud a hand a player), over the hands played
  (not a misdealt one: it and its re-deal count once), until ``seat_in`` (he is back) or
  ``seat_out``. After two full orbits the floor is told (``flow.long_absence``, in the next
  hand's record) and the dealer too (the players may ask for him to be removed: 003).
- FLOW-007, a single-table satellite's start gate: the ``mode satellite`` press starts a
  satellite (where an event starts): the button goes to the last seat, the dealer is told to
  wait, the floor that the table waits for its approval; the floor's ``approve``
  (:class:`controller.core.events.SatelliteApproved`) lets the deal begin. A hand's first card
  before it is the floor's to know (``flow.dealt_before_approval``, a note in the record); the
  gate stands until the floor's word.
- FLOW-008, the table add-on (``[rules] table_addon``): a player new to the table (``seat_in``
  of a seat nobody holds) is offered it; a long ``seat_in``, or a seat the floor's ``setup``
  adds, is a player moved from another table, who is not (and who, under DEAL-006's
  ``LATE_ENTRY = wait_for_bb``, comes in at once except between the button and the small blind,
  as 001 has moved players do: :meth:`TableFlow.moved`). The offer closes at that seat's first
  card (a note in the hand's record).
- FLOW-009, a cash table's rake cap: at each hand's first card, the cap for the seats dealt in
  (``[rules] rake_cap`` ...), as a prompt in the hand's record.
- DECK-009, each satellite opens on the other deck: the deck a satellite opens on (its first
  deal's) is kept; the next satellite's first shuffler report, or else its first card, of that
  same deck is a prompt to the dealer (``flow.satellite_not_rotated``).

Nothing here names a card: the words are seats, counts and deck ids.
"""

from __future__ import annotations

from typing import Any

from controller.core.effects import Alert, Effect, Prompt
from controller.core.errors import StateError
from controller.core.events import ButtonPress, SatelliteApproved, TableSetup
from controller.core.hand import Hand
from controller.core.pads import Pad
from controller.core.part import Part
from controller.core.rules import Finding
from controller.core.rules.table_flow import LONG_ABSENCE_ORBITS, orbit_done, rake_cap, rake_words, satellite_button
from controller.core.state import checks

#: the pads :meth:`TableFlow.press` hears (the roster hears them too)
FLOW_PADS = frozenset({Pad.SEAT_IN, Pad.SEAT_POSTED, Pad.SEAT_ABSENT, Pad.SEAT_OUT})
#: FLOW-006's words for an orbit count
_ORBITS = {1: "one full orbit", 2: "two full orbits"}


class TableFlow(Part):
    """Absences counted in orbits, a satellite's gate and opening deck, add-on offers, the rake cap."""

    SECTION = "flow"
    STATE = ("_away", "_gate", "satellites", "_opened", "_last_opened", "_deck_told", "_addon", "_moved")
    HINTS = {"_away": dict[int, tuple[int, int, tuple[int, ...], int]], "_gate": bool, "satellites": int,
             "_opened": str | None, "_last_opened": str | None, "_deck_told": bool, "_addon": dict[int, int],
             "_moved": set[int]}
    SEATS = ("_away", "_addon", "_moved")

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        # FLOW-006: seat -> (the first hand counted, full orbits counted, the seats that had the
        # button in the orbit under way, the hands played in it)
        self._away: dict[int, tuple[int, int, tuple[int, ...], int]] = {}
        # FLOW-007: the satellite waits for the floor's approval; satellites started at the table
        self._gate = False
        self.satellites = 0
        # DECK-009: the deck the satellite under way opened on (None: not dealt yet), the one the
        # satellite before it opened on, and whether the dealer was told of a deck not rotated
        self._opened: str | None = None
        self._last_opened: str | None = None
        self._deck_told = False
        # FLOW-008: seat -> the hand before which its new player was offered the add-on; the seats
        # of players moved from another table; both until the seat's first card
        self._addon: dict[int, int] = {}
        self._moved: set[int] = set()

    def link(self) -> None:
        alerts = self._t.alerts
        self._alert, self._notice, self._prompt = alerts.alert, alerts.notice, alerts.prompt
        self._prompt_now, self._prompt_next_hand = alerts.prompt_now, alerts.prompt_next_hand
        self._dealing, self._roster = self._t.dealing, self._t.roster

    def check(self, where: str) -> None:
        checks.count(f"{where}.satellites", self.satellites)
        if self._gate and not self.satellites:
            raise StateError(f"{where}._gate: a gate shut with no satellite started")
        for seat, (since, orbits, buttons, hands) in self._away.items():
            if since < 1:
                raise StateError(f"{where}._away[{seat}]: hand {since}, want 1 or more")
            checks.count(f"{where}._away[{seat}]", orbits)
            checks.count(f"{where}._away[{seat}]", hands)
            for b in buttons:
                checks.seat(f"{where}._away[{seat}]", b)
        for seat, n in self._addon.items():
            checks.count(f"{where}._addon[{seat}]", n)

    # -- what the others ask ---------------------------------------------------------------------
    def moved(self, seat: int) -> bool:
        """DEAL-006: the newcomer at ``seat`` was moved from another table (001: he comes in at
        once unless between the button and the small blind, whatever ``LATE_ENTRY``)."""
        return seat in self._moved

    @property
    def watching_seats(self) -> bool:
        """A newcomer's first card is awaited (FLOW-008): the dealing tells :meth:`first_card`."""
        return bool(self._addon or self._moved)

    def gated(self) -> bool:
        """FLOW-007: the satellite waits for the floor's approval."""
        return self._gate

    # -- the pads --------------------------------------------------------------------------------
    def press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """The seat pads, heard before the roster's (a newcomer is one only before it seats him)."""
        seat = ev.seat
        if seat is None or self.settings.event == "cash":
            return
        name = ev.name
        if name == Pad.SEAT_ABSENT:
            if seat in self._roster.seats and seat not in self._away:  # FLOW-006: counted from the next hand
                self._away[seat] = (self._dealing.next_hand_number(), 0, (), 0)
        elif name == Pad.SEAT_OUT:
            self._forget(seat)
        elif name in (Pad.SEAT_IN, Pad.SEAT_POSTED):
            self._seat_taken(ev, seat, out)

    def _seat_taken(self, ev: ButtonPress, seat: int, out: list[Effect]) -> None:
        """``seat_in`` (``seat_posted``): a player back (FLOW-006 over), new (FLOW-008's offer) or
        moved from another table (a long press: no offer). A newcomer pressed again (not dealt a
        card yet) is decided again: a short press mistaken for a long one is put right."""
        roster, hand = self._roster, self._dealing.hand
        seated = set(roster.seats) | roster.waiting | (set(hand.seats) if hand is not None else set())
        if seat in seated and seat not in self._addon and seat not in self._moved:
            if ev.name == Pad.SEAT_IN:
                self._away.pop(seat, None)  # FLOW-006: back
            return
        if ev.long:
            self._moved.add(seat)
            self._addon.pop(seat, None)
            return
        self._moved.discard(seat)
        if self.settings.rules.table_addon and seat not in self._addon:
            self._offer(ev.ts, seat, out)

    def _offer(self, ts: float, seat: int, out: list[Effect]) -> None:
        """FLOW-008: "Every NEW player coming to the table should be offered the add-on chips" (002)."""
        hand = self._dealing.hand
        self._addon[seat] = self._dealing.next_hand_number()
        finding = Finding("flow.addon_offer", "FLOW-008", f"seat {seat} is new at the table: offer the table "
                                                          f"add-on (until his first card)", seat)
        if hand is not None:
            self._prompt(out, ts, hand, finding)
        else:
            self._prompt_next_hand(out, Prompt(ts, finding.code, finding.message, finding.rule,
                                               self._dealing.next_hand_number(), seat=seat))

    def _forget(self, seat: int) -> None:
        self._away.pop(seat, None)
        self._addon.pop(seat, None)
        self._moved.discard(seat)

    def on_setup(self, ev: TableSetup) -> None:
        """The floor's seating (before the roster takes it): a seat it adds is a player moved from
        another table (FLOW-008: no add-on; DEAL-006); a seat it leaves out is nobody's now."""
        if self.settings.event == "cash":
            return
        roster = self._roster
        before = set(roster.seats) | roster.waiting
        for seat in set(ev.seats) - before:
            self._moved.add(seat)
            self._addon.pop(seat, None)
        for seat in before - set(ev.seats):
            self._forget(seat)

    # -- FLOW-007, DECK-009: a single-table satellite --------------------------------------------------
    def satellite(self, ev: ButtonPress, out: list[Effect]) -> None:
        """``mode satellite``: a single-table satellite starts here. The button waits on the last
        seat and the deal on the floor's approval (001 §DEALING (satellite)); the satellite before
        it opened on the deck this one must not open on (DECK-009). Pressed again before its
        first deal, the same satellite: told again."""
        if not (self._gate and self._opened is None):
            self.satellites += 1
            if self._opened is not None:
                self._last_opened = self._opened
            self._opened, self._deck_told = None, False
        self._gate = True
        button = satellite_button(self._roster.plan()[0])
        self._roster.set_next_button(button)
        hand = self._dealing.hand
        self._notice(out, Alert(ts=ev.ts, code="flow.satellite_ready", audience="floor", rule="FLOW-007",
                                message=f"single-table satellite {self.satellites}: the table waits for the floor's "
                                        f"approval (the buy-ins checked) to deal",
                                hand=hand.number if hand is not None else None, count=self.satellites))
        self._prompt_now(out, ev.ts, Finding("flow.satellite_wait", "FLOW-007",
                                             f"satellite: the button on seat {button}; wait for the floor's "
                                             f"approval before dealing", button))

    def on_approved(self, ev: SatelliteApproved) -> list[Effect]:
        """The floor approves the satellite: the deal may begin ("start the clock and deal", 001);
        nothing waiting: nothing to say."""
        out: list[Effect] = []
        if self._gate:
            self._gate = False
            self._prompt_now(out, ev.ts, Finding("flow.satellite_go", "FLOW-007",
                                                 "satellite approved: start the clock and deal"))
        return out

    def shuffled(self, ts: float, deck: str | None, out: list[Effect]) -> None:
        """DECK-009: the satellite's first shuffle, before its first deal, of the deck the last
        satellite opened on (a two-deck table's report during a hand is the next hand's deck)."""
        if self._opened is not None or self._deck_told or deck is None or deck != self._last_opened:
            return
        self._not_rotated(ts, deck, out)

    def deck_adopted(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """DECK-009: the first deal of a satellite says which deck it opened on."""
        if not self.satellites or self._opened is not None or hand.deck is None:
            return
        self._opened = hand.deck
        if hand.deck == self._last_opened and not self._deck_told:
            self._not_rotated(ts, hand.deck, out)

    def _not_rotated(self, ts: float, deck: str, out: list[Effect]) -> None:
        self._deck_told = True
        hand = self._dealing.hand
        self._alert(out, Alert(ts=ts, code="flow.satellite_not_rotated", audience="dealer", rule="DECK-009",
                               message=f"a new satellite opens on the other deck: deck {deck} opened the last "
                                       f"one; bring the other in",
                               hand=hand.number if hand is not None else None))

    # -- a hand ---------------------------------------------------------------------------------------
    def dealt(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """A hand's first card: dealt before the satellite's approval (FLOW-007); the rake cap of
        a cash table (FLOW-009)."""
        if hand.kind != "hand":
            return
        if self._gate:
            hand.notes.append("FLOW-007: dealt before the floor approved the satellite")
            self._alert(out, Alert(ts=ts, code="flow.dealt_before_approval", audience="floor", rule="FLOW-007",
                                   message=f"hand {hand.number} dealt before the floor approved the satellite",
                                   hand=hand.number))
        rules = self.settings.rules
        if self.settings.event == "cash" and rules.rake_cap > 0:
            players = len(hand.seats)
            cap, promo = rake_cap(players, rules.rake_caps)
            self._prompt(out, ts, hand, Finding("flow.rake_cap", "FLOW-009", rake_words(players, cap, promo),
                                                count=cap))

    def first_card(self, ts: float, hand: Hand, seat: int) -> None:
        """A card off the stub at ``seat``: a newcomer's first, if he is dealt in, closes his
        add-on window (FLOW-008) and makes him a player of the table (DEAL-006)."""
        if hand.kind != "hand" or seat not in hand.seats:
            return
        offered = self._addon.pop(seat, None)
        if offered is not None:
            hand.notes.append(f"FLOW-008: seat {seat}'s table add-on window closed at its first card")
        self._moved.discard(seat)

    def after_hand(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """FLOW-006: a hand played (its button moved on by the roster already) counts for every seat
        still absent since before it; the second full orbit is told."""
        if not self._away or hand.kind != "hand" or hand.misdeal:
            return
        roster = self._roster
        has_button = hand.game_def.button
        for seat, (since, orbits, buttons, hands) in sorted(self._away.items()):
            if seat not in roster.absent or seat not in roster.seats:
                del self._away[seat]  # back, gone, or not seated any more
                continue
            if hand.number < since:
                continue  # the hand under way at the press: not a full one
            buttons, hands = tuple(sorted({*buttons, hand.button})), hands + 1
            if orbit_done(buttons, hands, hand.seats, has_button=has_button):
                orbits, buttons, hands = orbits + 1, (), 0
                if orbits == LONG_ABSENCE_ORBITS:
                    self._long_absence(ts, hand, seat, since, orbits, out)
            self._away[seat] = (since, orbits, buttons, hands)

    def _long_absence(self, ts: float, hand: Hand, seat: int, since: int, orbits: int, out: list[Effect]) -> None:
        """Two full orbits away: the floor decides (003: "at the request of the other players")."""
        span = _ORBITS.get(orbits, f"{orbits} full orbits")
        self._alert(out, Alert(ts=ts, code="flow.long_absence", audience="floor", rule="FLOW-006", seat=seat,
                               message=f"seat {seat} has been away {span} (counted from hand {since}): if the "
                                       f"other players ask, he may be removed", hand=hand.number, count=orbits))
        self._prompt_next_hand(out, Prompt(ts, "flow.long_absence", f"seat {seat} away {span}: the floor is told",
                                           "FLOW-006", self._dealing.next_hand_number(), seat=seat, count=orbits))
