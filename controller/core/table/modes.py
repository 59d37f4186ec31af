"""The deals a ``mode`` press announces instead of a hand (docs/rules.md: RACE, BREAK-001,
FLOW-005): a part of the table. The open seats are :mod:`controller.core.table.open_seats`'s.

- ``mode race`` (RACE-001..006): the floor is told at once (RACE-006). The next cards are the
  colour-up race-off: dealt face up from seat 1 clockwise, each player's cards together
  (RACE-001); ranked highest first by rank, then suit (RACE-002) at ``round_done`` or
  ``showdown`` (the cards are all out), or at the first award; each award is the seat's cards
  pushed to the muck: one chip a player, in ranking order (RACE-003), and the next-ranked seat
  prompted with the remainder rule (RACE-004). ``allin`` with a seat: the floor decides, or he
  is ranked first (RACE-005). ``relief`` meanwhile: a warning (RACE-006).
- ``mode highcard`` (BREAK-001): one card a player laid on the board antenna in a line, given to
  the players in seat order and ranked; a card at a seat was pitched.
- ``mode break`` (FLOW-005): "button will be seat X", now between hands, else at the hand's end;
  with it DECK-008's "reset both decks". A break of the tournament's structure is the same
  (:mod:`controller.core.table.tournament`).

A mode ends at ``hand_end`` (the chips are awarded, the draw is read) or when its deal's cards
are gathered, whichever comes first: a mode left on by mistake does not swallow the next hand.
"""

from __future__ import annotations

from typing import Any

from controller.core.cards import is_card
from controller.core.effects import Alert, Effect
from controller.core.errors import StateError
from controller.core.events import ButtonPress
from controller.core.hand import Hand
from controller.core.pads import MODES, Pad
from controller.core.rules import Finding
from controller.core.rules.modes import break_ranking, race_ranking, ranking_text
from controller.core.state import checks
from controller.core.part import Part
from controller.core.zones import Zone, seat_of, seat_zone

#: mode -> the kind of the deal it watches (``Hand.kind``); ``break`` deals nothing
MODE_KINDS: dict[str, str] = {"race": "race", "highcard": "table_break"}
MODE_HANDS = frozenset(MODE_KINDS.values())
#: RACE-004's words for each RACE_REMAINDER
_REMAINDER = {
    "pooled": "the last chip only if the chips left over, put together, make half a chip or more",
    "holder": "a chip only if his own leftover is half a chip or more",
}


class Modes(Part):
    """The modes: the race-off, a table break's high card, the players' break."""

    SECTION = "modes"
    STATE = ("mode", "_race_allin")
    HINTS = {"mode": str | None, "_race_allin": list[int]}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self.mode: str | None = None  # race | highcard | break (controller.core.pads.MODES) until its deal ends
        self._race_allin: list[int] = []  # RACE-005: seats all in for the race-off, in press order

    def link(self) -> None:
        alerts = self._t.alerts
        self._alert, self._prompt, self._prompt_once = alerts.alert, alerts.prompt, alerts.prompt_once
        self._mode_prompt = alerts.prompt_now
        self._tracker = self._t.reads.tracker

    @property
    def hand(self) -> Hand | None:
        return self._t.dealing.hand

    def check(self, where: str) -> None:
        for s in self._race_allin:
            checks.seat(f"{where}._race_allin", s)
        if self.mode is not None and self.mode not in MODES:
            raise StateError(f"{where}.mode: {self.mode!r}, want one of {', '.join(MODES)} or null")

    # -- presses ----------------------------------------------------------------------------
    def press(self, ev: ButtonPress, out: list[Effect]) -> bool:
        """What a press means to the modes; True if it means nothing else (the mode pad, and
        the pads that act on the race-off or the draw under way)."""
        name, hand = ev.name, self.hand
        if name == Pad.MODE:
            self._mode_on(ev, out)
            return True
        if name == Pad.RELIEF and self.racing():
            self._mode_prompt(out, ev.ts, Finding("race.no_relief", "RACE-006",
                                                  "race-off under way: no dealer relief until every table has "
                                                  "coloured up"))
        if name == Pad.ALLIN and self.racing():
            self._race_allin_press(ev, out)
            return True
        mode_hand = hand is not None and hand.kind in MODE_HANDS
        if name == Pad.HAND_END and (mode_hand or (hand is None and self.mode in MODE_KINDS)):
            self._mode_end(ev.ts, out)
            return True
        if mode_hand and hand is not None and hand.kind == "race" and name in (Pad.ROUND_DONE, Pad.SHOWDOWN):
            self._race_ranked(ev.ts, hand, out)  # every card is out
            return True
        return False

    def _mode_on(self, ev: ButtonPress, out: list[Effect]) -> None:
        mode, hand = ev.mode, self.hand
        if mode not in MODES:
            # the pad checks its mode (pads.check_press); a journal replayed or a simulator feeds
            # the core directly: a mode it does not know (docs/rules.md's h4h, bubble, satellite) is
            # ignored, not kept for check_table to refuse at the next start
            return
        self.mode = mode
        if mode == "race":
            self._race_allin = []
            # RACE-006: the colour-up is not done without a floorperson (the floor's page names the table)
            self._alert(out, Alert(ts=ev.ts, code="race.race_off", audience="floor", rule="RACE-006",
                                   message="race-off at the table: a floorperson must be present; dealers "
                                           "are not relieved until every table has coloured up",
                                   hand=hand.number if hand is not None else None))
        elif mode == "break":
            self.players_break(ev.ts, out)

    def _mode_end(self, ts: float, out: list[Effect]) -> None:
        """``hand_end`` in a mode: the race's chips are awarded, the draw is read."""
        hand = self.hand
        if hand is not None and hand.kind == "race" and not hand.pot_pushed:
            self._race_ranked(ts, hand, out)  # (once: if nobody tapped and nothing was awarded)
            if self.settings.rules.race_one_per_player == "yes":
                self._race_cards_left(ts, hand, self._race_awarded(hand), out)
        if hand is not None:
            hand.pot_pushed = True
        if hand is None or self.kind() == hand.kind:  # (a mode pressed for the next deal stays)
            self.mode, self._race_allin = None, []

    def gathered(self, hand: Hand) -> None:
        """The mode's deal was gathered: the mode is over (if a new one was not pressed)."""
        if self.kind() == hand.kind:
            self.mode, self._race_allin = None, []

    def kind(self) -> str | None:
        """The kind of the deal the next card starts (None: a hand)."""
        return MODE_KINDS.get(self.mode) if self.mode is not None else None

    def card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
        """A card off the stub in a mode's deal."""
        if hand.kind == "race":
            self._race_card(ts, hand, uid, zone, out)
        else:
            self._break_card(ts, hand, uid, label, zone, out)

    def moved(self, ts: float, hand: Hand, uid: str, prev: str, zone: str, out: list[Effect]) -> None:
        """A card of a mode's deal moved on the table: a race-off award (a seat's card to the
        muck before ``hand_end``), or a table break's card pitched after all."""
        seat = seat_of(prev)
        if hand.kind == "race" and zone == Zone.MUCK and seat is not None and not hand.pot_pushed:
            self._race_award(ts, hand, uid, seat, out)
        elif hand.kind == "table_break" and seat_of(zone) is not None:
            self._break_card(ts, hand, uid, hand.labels[uid], zone, out)

    # -- FLOW-005, DECK-008 ----------------------------------------------------------------------
    def players_break(self, ts: float, out: list[Effect]) -> None:
        """A players' break: ``mode break``, or a break of the tournament's structure (its
        ``LevelSet``, controller/core/table/tournament.py). Now between hands; during a hand, at
        its end."""
        self.mode = "break"
        hand = self.hand
        if hand is None or hand.kind != "hand":
            self._break_due(ts, out)

    def _break_due(self, ts: float, out: list[Effect]) -> None:
        """FLOW-005: the seat with the button when the players come back (DEAL-004/005's model;
        a re-deal's after a misdeal, MISD-014); stud has no button: nothing to say. DECK-008:
        both decks of the table's pair put back in order during the break (the next shuffle
        counts each: DECK-001, STUB-005)."""
        self.mode = None
        roster = self._t.roster
        if self._t.turns.game_def.button and len(roster.seats) >= 2:
            seat = roster.next_positions().button
            self._mode_prompt(out, ts, Finding("flow.button_after_break", "FLOW-005",
                                               f"break: the button will be seat {seat}; tell the players", seat))
        if len(self._t.decks.rack.pair) == 2:
            self._mode_prompt(out, ts, Finding("flow.reset_decks", "DECK-008",
                                               "break: reset both decks, each in order from the bottom: diamonds, "
                                               "clubs, hearts, spades, the king first and the ace on top"))

    def after_hand(self, ts: float, out: list[Effect]) -> None:
        """A hand finished: a players' break pressed during it is due now (FLOW-005, DECK-008)."""
        if self.mode == "break":
            self._break_due(ts, out)

    # -- the race-off (RACE-001..006) ---------------------------------------------------------
    def racing(self) -> bool:
        """``allin`` and ``relief`` are the race-off's (RACE-005/006) while its deal is under way,
        or pressed for the next deal between hands; a ``mode race`` pressed during a hand leaves
        that hand's presses to it (SHOW-005, STUD-012, a relief)."""
        hand = self.hand
        if hand is None:
            return self.mode == "race"
        return hand.kind == "race" and (self.mode == "race" or not hand.pot_pushed)

    def _race_cards(self, hand: Hand) -> dict[int, list[str]]:
        """Each seat's race-off cards, wherever they are now (an award sends them to the muck)."""
        cards: dict[int, list[str]] = {}
        for uid, seat in hand.first_seat.items():
            cards.setdefault(seat, []).append(hand.labels[uid])
        return cards

    def _race_ranking(self, hand: Hand) -> list[tuple[int, str]]:
        rules = self.settings.rules
        first = self._race_allin if rules.race_allin == "first_chip" else ()
        return race_ranking(self._race_cards(hand), one_per_player=rules.race_one_per_player == "yes", first=first)

    def _race_awarded(self, hand: Hand) -> list[str]:
        """The uids awarded so far: the race-off's cards in the muck, in the order they came."""
        return [u for u in hand.zones.get(Zone.MUCK, ()) if u in hand.first_seat and is_card(hand.labels[u])]

    def _race_ranked(self, ts: float, hand: Hand, out: list[Effect], *, again: bool = False) -> None:
        """RACE-002: the ranking, highest first, to the dealer and the floor (once; ``again``
        after an all-in player was put first)."""
        if hand.prompted("RACE-002") and not again:
            return
        ranking = self._race_ranking(hand)
        if not ranking:
            return  # no card of the deck in play out yet (a foreign card is the deck guard's)
        text = "race-off, highest first: " + ranking_text(ranking)
        self._prompt(out, ts, hand, Finding("race.ranking", "RACE-002", text, ranking[0][0], count=len(ranking)))
        self._alert(out, Alert(ts=ts, code="race.ranking", audience="floor", message=text, rule="RACE-002",
                               seat=ranking[0][0], hand=hand.number))

    def _race_card(self, ts: float, hand: Hand, uid: str, zone: str, out: list[Effect]) -> None:
        """RACE-001: a card off the stub. The seats' cards come from seat 1 up, each seat's
        together: a card pitched (the tracker's evidence began) after a card of a higher seat is
        out of order. Cards read in one cycle came in an order nobody can tell: never a finding."""
        seat = seat_of(zone)
        if seat is None:
            hand.notes.append(f"RACE-001: a card to the {zone} during the race-off")
            return
        since = self._tracker.since(uid)
        later = [s for z, uids in hand.zones.items() if (s := seat_of(z)) is not None and s > seat
                 and any(self._tracker.since(u) < since for u in uids)]
        if later:
            self._prompt_once(out, ts, hand, Finding(
                "race.deal_order", "RACE-001",
                f"race-off: seat {seat} dealt after seat {max(later)}: deal from seat 1 clockwise, each "
                f"player's cards together", seat), f"order:{seat}")

    def _race_award(self, ts: float, hand: Hand, uid: str, seat: int, out: list[Effect]) -> None:
        """A race-off card from ``seat`` to the muck before ``hand_end``: an award. RACE-003: one
        chip a player, highest first, each player's cards mucked as he is awarded; RACE-004: the
        next-ranked seat, and the remainder rule for the last chip. The chips themselves are not
        read: the order of the awards is what is checked."""
        rules = self.settings.rules
        label = hand.labels[uid]
        if not is_card(label):
            return  # a foreign or wrong-deck card (DECK-006, the floor's): it ranks nowhere, wins nothing
        self._race_ranked(ts, hand, out)
        ranking = self._race_ranking(hand)
        before = self._race_awarded(hand)
        if rules.race_one_per_player == "yes":
            seats = list(dict.fromkeys(hand.first_seat[u] for u in before))
            if seat in seats:
                return  # the rest of an awarded player's cards
            want = next(((s, c) for s, c in ranking if s not in seats), None)
            if want is not None and want[0] != seat:
                self._prompt_once(out, ts, hand, Finding(
                    "race.award_order", "RACE-003",
                    f"race-off: seat {seat} awarded before seat {want[0]} ({want[1]}), who ranks higher", want[0]),
                    f"award:{seat}")
            self._race_cards_left(ts, hand, before, out)
            nxt = next(((s, c) for s, c in ranking if s not in seats and s != seat), None)
        else:
            done = [hand.labels[u] for u in before]
            want = next(((s, c) for s, c in ranking if c not in done), None)
            if want is not None and want[1] != label:
                self._prompt_once(out, ts, hand, Finding(
                    "race.award_order", "RACE-003",
                    f"race-off: {label} (seat {seat}) awarded before {want[1]} (seat {want[0]}), which ranks higher",
                    want[0]), f"award:{label}")
            nxt = next(((s, c) for s, c in ranking if c not in done and c != label), None)
        if nxt is not None:
            remainder = _REMAINDER[rules.race_remainder]
            self._prompt(out, ts, hand, Finding("race.next_seat", "RACE-004",
                                                f"race-off: next chip to seat {nxt[0]} ({nxt[1]}); {remainder}",
                                                nxt[0]))

    def _race_cards_left(self, ts: float, hand: Hand, awarded: list[str], out: list[Effect]) -> None:
        """RACE-003: an awarded player's cards all go to the muck (his other cards would be
        ranked again)."""
        for seat in dict.fromkeys(hand.first_seat[u] for u in awarded):
            if hand.zones.get(seat_zone(seat)):
                self._prompt_once(out, ts, hand, Finding(
                    "race.cards_left", "RACE-003",
                    f"race-off: seat {seat} was awarded: muck all his cards", seat), f"left:{seat}")

    def _race_allin_press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """RACE-005: nobody is knocked out by a race-off."""
        seat, hand = ev.seat, self.hand
        if seat is None:
            self._mode_prompt(out, ev.ts, Finding("race.allin_seat", "RACE-005",
                                                  "race-off: press allin with the all-in player's seat"))
            return
        if self.settings.rules.race_allin == "floor":
            self._alert(out, Alert(ts=ev.ts, code="race.allin", audience="floor", rule="RACE-005", seat=seat,
                                   message=f"seat {seat} is all in for the race-off: the floor decides "
                                           f"(a race-off knocks no one out)",
                                   hand=hand.number if hand is not None else None))
            return
        if seat not in self._race_allin:
            self._race_allin.append(seat)  # RACE_ALLIN first_chip: ranked first, whatever his card
        if hand is not None and hand.kind == "race":
            hand.notes.append(f"RACE-005: seat {seat} all in: the first chip")
            self._race_ranked(ev.ts, hand, out, again=hand.prompted("RACE-002"))

    # -- the table break's high card (BREAK-001) ------------------------------------------------
    def _break_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
        """One card a player, laid in a line above the tray (the board antenna), not pitched."""
        seat = seat_of(zone)
        if seat is not None:
            self._prompt_once(out, ts, hand, Finding(
                "break.pitched", "BREAK-001",
                f"table break: don't pitch the cards: lay them in a line above the tray (a card at seat {seat})",
                seat), f"pitched:{seat}")
            return
        if zone != Zone.BOARD:
            return
        laid = [*hand.zones.get(Zone.BOARD, ()), uid]
        players = len(hand.seats)
        if len(laid) == players:
            # in the order they were laid: a card read late is put back in its place by when its
            # evidence began (the tracker's), not by when it was confirmed
            order = sorted(laid, key=lambda u: (self._tracker.since(u), laid.index(u)))
            labels = {**hand.labels, uid: label}
            ranking = break_ranking([labels[u] for u in order], hand.seats)
            if not ranking:
                return  # not one card of the deck in play (the deck guard's alerts)
            text = "table break, high card first: " + ranking_text(ranking)
            self._prompt(out, ts, hand, Finding("break.ranking", "BREAK-001", text, ranking[0][0],
                                                count=players))
            self._alert(out, Alert(ts=ts, code="break.ranking", audience="floor", message=text, rule="BREAK-001",
                                   seat=ranking[0][0], hand=hand.number))
        elif len(laid) > players:
            hand.notes.append(f"BREAK-001: {len(laid)} cards laid for {players} players")
