"""The tournament room at the table (docs/rules.md §19: FLOW-001..004, RELIEF-004): a part of the table.

The floor runs the tournament (docs/floor.md, "Running a tournament") and tells each table what
it must act on; each signal is a journalled core event (:mod:`controller.core.events`:
``LevelSet``, ``HandForHand``, ``Release``, ``BubbleMode``, ``BubbleHold``, ``ClockCalled``), so a
power cut replays it, and what the table last applied is kept here (:meth:`Tournament.seen_fields`:
the room link sends only what changed since).

- FLOW-001, the level: a ``LevelSet`` applies from the next deal; a misdeal's re-deal keeps the
  misdealt hand's level (MISD-014). A deal begins at its shuffle (SHUF-001): the first
  ``ShufflerReport`` after the last deal began freezes the next deal's level, so a level
  signalled after it waits for the deal after that one; a report during a hand is the next
  hand's shuffle (a two-deck table shuffles the spare meanwhile). Without a report the first
  card is all the table sees of the deal's start: the level is taken there. Every hand's record
  says the level it was dealt under (``"level"``, null outside a tournament). The dealer is told
  "new level" at the first shuffle after the change, or at the first card of the first deal
  dealt under it if no shuffle said it. A break (``kind`` ``break``) is the players' break:
  FLOW-005's button and DECK-008's deck reset (:meth:`Modes.players_break`).
- DECK-003, the deck spread for the players: at the tournament's start (its level 1) and when a
  break is over (the play level after it), said at once (:func:`_spread_due`).
- FLOW-002, hand-for-hand: while it is on, the table holds after each hand (not after a
  misdealt one: its re-deal is the hand the room waits for) until the floor's ``Release``
  (or hand-for-hand off). A hand's first card during a hold is the floor's to know. The hold is
  state: a restart keeps it, and a lost link does not end it (nothing but the floor's word does).
- RELIEF-004: no dealer push during hand-for-hand: a ``relief`` press is warned and logged for
  the floor (during a race-off RACE-006 warns: the floor's log is added).
- FLOW-003, the bubble: in bubble mode the dealer's ``allin`` press during a hand is the
  floor's, once a hand (the floor holds the other tables); a ``BubbleHold`` holds this table
  before its next deal (a deal under way finishes first) until it is lifted.
- FLOW-004, the player clock: ``ClockCalled`` (the floor's page) or the ``clock`` pad with a seat
  (the dealer's) puts a seat of the hand under way on a 30 s clock, counted on the monotonic
  clock (the daemon's ``Tick`` every second while it runs: :meth:`Tournament.clock_running`); the
  display counts it down (:mod:`controller.core.rules.flow`). At 0 the seat's hand is dead and its
  cards are expected in the muck: one of them anywhere else, or a card to that seat, is the
  floor's. A dead hand is never read for the pot (:meth:`Tournament.dead_seats`): its cards still
  at the seat when the showdown comes are a prompt to the dealer (kill it) and the floor's to
  know. ``round_done``, the seat's fold (a card of its to the muck) or the end of the hand stops
  it; a verbal raise is no event and leaves it running.
"""

from __future__ import annotations

from typing import Any

from controller.core.effects import Alert, Effect, Prompt
from controller.core.errors import StateError
from controller.core.events import (LEVEL_KINDS, BubbleHold, BubbleMode, ButtonPress, ClockCalled, HandForHand,
                                  LevelSet, Release, Tick)
from controller.core.hand import Hand
from controller.core.pads import Pad
from controller.core.part import PART_MIGRATIONS, Part
from controller.core.rules import Finding
from controller.core.rules.flow import CLOCK_COUNTS, CLOCK_S, clock_due, clock_step
from controller.core.settings import GAMES
from controller.core.state import checks
from controller.core.state.codec import conforms
from controller.core.zones import Zone, seat_of, seat_zone

#: the pads this part hears besides ``clock`` (:meth:`Tournament.press`)
TOURNAMENT_PADS = frozenset({Pad.RELIEF, Pad.ALLIN, Pad.ROUND_DONE})
#: the fields of the room link's ``Seen`` (controller/room/tournament.py): what the table last applied
SEEN = ("tournament", "level", "kind", "h4h", "round", "bubble_mode", "bubble", "bubble_table", "bubble_hand",
        "clock_n")


class Tournament(Part):
    """The floor's signals as the table applied them, its holds and the player clock."""

    SECTION = "tournament"
    VERSION = 2  # 2 (issue 39): the next deal's shuffle and the level it froze (SHUF-001)
    STATE = ("name", "level", "kind", "_limits", "dealt_level", "_level_due", "_shuffled", "_shuffled_level", "h4h",
             "round", "_h4h_hold", "bubble_mode", "bubble", "bubble_table", "bubble_hand", "_bubble_hold", "clock_n",
             "_clock", "_dead")
    HINTS = {"name": str | None, "level": int | None, "kind": str | None,
             "_limits": tuple[int | None, int | None, int | None, str | None] | None, "dealt_level": int | None,
             "_level_due": bool, "_shuffled": bool, "_shuffled_level": int | None, "h4h": bool, "round": int,
             "_h4h_hold": bool, "bubble_mode": bool, "bubble": bool,
             "bubble_table": str | None, "bubble_hand": int | None, "_bubble_hold": bool, "clock_n": int,
             "_clock": list[Any] | None, "_dead": tuple[int, int] | None}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        # FLOW-001: the level the floor set (the next deal's), its kind and its limits (small
        # blind, big blind, ante, game: the structure's, for the dealer's words)
        self.name: str | None = None  # the tournament's
        self.level: int | None = None
        self.kind: str | None = None
        self._limits: tuple[int | None, int | None, int | None, str | None] | None = None
        # the level of the deal under way, else of the last one dealt: its record's (the dealing's)
        self.dealt_level: int | None = None
        self._level_due = False  # "new level" not said yet
        # SHUF-001: the next deal's shuffle was reported (it began then), and the level it froze
        self._shuffled = False
        self._shuffled_level: int | None = None
        # FLOW-002: hand-for-hand on, the floor's releases counted, the table holding for one
        self.h4h = False
        self.round = 0
        self._h4h_hold = False
        # FLOW-003: the bubble on; another table's all-in holding the room (its table and hand);
        # this table holding for it
        self.bubble_mode = False
        self.bubble = False
        self.bubble_table: str | None = None
        self.bubble_hand: int | None = None
        self._bubble_hold = False
        # FLOW-004: the floor's clock calls counted; the clock running, as
        # [seat, hand, seconds counted, and the reading they were counted to: ts, mono, boot,
        # the last count said]; the seat whose hand died on the clock, as (hand, seat)
        self.clock_n = 0
        self._clock: list[Any] | None = None
        self._dead: tuple[int, int] | None = None
        self.watching = False  # (not state: it follows _clock and _dead; see link)

    def link(self) -> None:
        self._dealing = self._t.dealing
        # a seat of the hand is on the clock or dead: the dealing tells :meth:`moved` its cards'
        # moves (an attribute, not a property: read at every card moved; follows _clock and _dead)
        self.watching = self._clock is not None or self._dead is not None
        alerts = self._t.alerts
        self._alert, self._alert_once, self._notice = alerts.alert, alerts.alert_once, alerts.notice
        self._prompt, self._prompt_now, self._prompt_next_hand = alerts.prompt, alerts.prompt_now, \
            alerts.prompt_next_hand

    def check(self, where: str) -> None:
        if self.kind is not None and self.kind not in LEVEL_KINDS:
            raise StateError(f"{where}.kind: {self.kind!r}, want one of {', '.join(LEVEL_KINDS)} or null")
        for name in ("level", "dealt_level", "_shuffled_level", "bubble_hand"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise StateError(f"{where}.{name}: {v}, want 1 or more or null")
        checks.count(f"{where}.round", self.round)
        checks.count(f"{where}.clock_n", self.clock_n)
        if self._limits is not None:
            for n in self._limits[:3]:
                if n is not None:
                    checks.count(f"{where}._limits", n)
            if self._limits[3] is not None and self._limits[3] not in GAMES:
                raise StateError(f"{where}._limits: no game the table deals")
        if not self._shuffled and self._shuffled_level is not None:
            raise StateError(f"{where}._shuffled_level: a level frozen by no shuffle")
        if (self._h4h_hold and not self.h4h) or (self._bubble_hold and not self.bubble):
            raise StateError(f"{where}: a hold without its signal on")
        self._check_clock(where)

    def _check_clock(self, where: str) -> None:
        """A clock running, or a hand dead on it, belongs to the hand under way."""
        hand = self._dealing.hand
        if self._clock is not None:
            c = self._clock
            if len(c) != 7 or type(c[0]) is not int or not conforms(c[2], float) or c[2] < 0 \
                    or not conforms(c[3], float) or not conforms(c[4], float | None) \
                    or not conforms(c[5], str | None) or c[6] not in CLOCK_COUNTS:
                raise StateError(f"{where}._clock: want [seat, hand, counted, ts, mono, boot, count]")
            checks.seat(f"{where}._clock", c[0])
            if hand is None or c[1] != hand.number:
                raise StateError(f"{where}._clock: a clock of no hand under way")
        if self._dead is not None:
            checks.seat(f"{where}._dead", self._dead[1])
            if hand is None or self._dead[0] != hand.number:
                raise StateError(f"{where}._dead: a dead hand of no hand under way")

    # -- what the others ask (the room link, the floor's page, the daemon, the simulator) ------------
    def seen_fields(self) -> dict[str, Any]:
        """What the table last applied of the floor's signals: the fields of the room link's
        ``Seen`` (controller/room/tournament.py), so that it sends only what changed."""
        return {"tournament": self.name, **{name: getattr(self, name) for name in SEEN[1:]}}

    def holding(self) -> str | None:
        """``"bubble"`` or ``"h4h"`` while the table must not deal (the bubble named first: the
        room waits on one hand), else None."""
        return "bubble" if self._bubble_hold else "h4h" if self._h4h_hold else None

    def level_now(self) -> int | None:
        """The level of the deal under way, else of the next one (a re-deal's: the old one; one
        whose shuffle was reported: the level it was shuffled under, SHUF-001)."""
        if self._dealing.hand is not None or self._t.roster.redeal is not None:
            return self.dealt_level
        return self._shuffled_level if self._shuffled else self.level

    def clock_running(self) -> bool:
        """A player clock counts: the daemon sends a Tick every second meanwhile."""
        return self._clock is not None

    # -- FLOW-001: the level ------------------------------------------------------------------------
    def on_level(self, ev: LevelSet) -> list[Effect]:
        """The level now: the next deal's (the one under way keeps its own)."""
        out: list[Effect] = []
        if type(ev.level) is not int or ev.level < 1 or ev.kind not in LEVEL_KINDS or type(ev.tournament) is not str:
            return out  # (the room link parses the floor's signal; a row fed directly may be anything)
        spread = _spread_due(self.name, self.level, self.kind, ev)  # DECK-003: before the state moves on
        self.name, self.level, self.kind = ev.tournament, ev.level, ev.kind
        self._limits = (_chips(ev.small_blind), _chips(ev.big_blind), _chips(ev.ante),
                        ev.game if ev.game in GAMES else None)
        if ev.kind == "break":
            self._level_due = False  # (the level after the break is said when it comes)
            self._t.modes.players_break(ev.ts, out)  # FLOW-005, DECK-008
        else:
            # (a level already frozen for the next deal by its shuffle is what the new one is news to)
            self._level_due = ev.level != (self._shuffled_level if self._shuffled else self.dealt_level)
        if spread is not None:
            self._prompt_now(out, ev.ts, Finding("flow.spread_deck", "DECK-003",
                                                 f"{spread}: spread the deck on the table for the players to see"))
        return out

    def shuffled(self, ts: float, out: list[Effect]) -> None:
        """A shuffle reported: the next deal's (SHUF-001: it begins there), whether reported
        between hands or during one (a two-deck table's spare, shuffled for the hand after it). The
        first report since the last deal began freezes that deal's level; a later one is the same
        deal's (a shuffle run again, SHUF-004) and changes nothing. FLOW-001: "new level" at the
        first shuffle after the change; not before a re-deal, which keeps the old level."""
        if self._shuffled:
            return
        self._shuffled, self._shuffled_level = True, self.level
        if self._level_due and not self._redeal_next():
            self._say_level(ts, out, None)

    def _redeal_next(self) -> bool:
        hand = self._dealing.hand
        return hand.misdeal if hand is not None else self._t.roster.redeal is not None

    def _say_level(self, ts: float, out: list[Effect], hand: Hand | None) -> None:
        """Tell the dealer of the new level, in the record of the hand it starts (told between
        hands, or during the hand before: the next hand's)."""
        self._level_due = False
        sb, bb, ante, game = self._limits or (None, None, None, None)
        words = f"new level {self.level}"
        if sb is not None and bb is not None:
            words += f": blinds {sb}/{bb}" + (f", ante {ante}" if ante else "")
        if game is not None:
            words += f" ({game})"
        if hand is not None:
            self._prompt(out, ts, hand, Finding("flow.new_level", "FLOW-001", words, count=self.level))
        else:
            self._prompt_next_hand(out, Prompt(ts, "flow.new_level", words, "FLOW-001",
                                               self._t.dealing.next_hand_number(), count=self.level))

    def dealt(self, ts: float, hand: Hand, redeal: bool, out: list[Effect]) -> None:
        """A deal's first card (:meth:`Dealing._start_hand`): its level (the one its shuffle froze,
        SHUF-001; without a shuffle reported, the level now; a re-deal keeps the old, MISD-014),
        "new level" if it is dealt under the new level and no shuffle said it, and a hand dealt
        during a hold."""
        shuffled, frozen = self._shuffled, self._shuffled_level
        self._shuffled, self._shuffled_level = False, None  # (the shuffle was this deal's)
        if not redeal:
            self.dealt_level = frozen if shuffled else self.level
            if self._level_due and hand.kind == "hand" and self.dealt_level == self.level:
                self._say_level(ts, out, hand)
        hold = self.holding()
        if hold is None or hand.kind != "hand":
            return
        if hold == "h4h":
            rule, why = "FLOW-002", "hand-for-hand: the floor has not released the tables"
        else:
            at = _all_in_at(self.bubble_table, self.bubble_hand)
            rule, why = "FLOW-003", f"the room holds for the all-in at {at}"
        hand.notes.append(f"{rule}: dealt before the floor's release ({why})")
        self._alert(out, Alert(ts=ts, code="flow.dealt_before_release", audience="floor", rule=rule,
                               message=f"hand {hand.number} dealt before the floor's release: {why}",
                               hand=hand.number))

    def after_hand(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """A deal is over, its cards gathered: the clock with it; the holds begin (FLOW-002:
        after a hand played, not a misdealt one; FLOW-003: after any deal)."""
        if self._clock is not None:
            self._stop(ts, "the hand is over", out)
        self._dead, self.watching = None, False
        if self.h4h and not self._h4h_hold and hand.kind == "hand" and not hand.misdeal:
            self._hold("h4h", ts, out)
        if self.bubble and not self._bubble_hold:
            self._hold("bubble", ts, out)

    # -- FLOW-002: hand-for-hand ---------------------------------------------------------------------
    def on_h4h(self, ev: HandForHand) -> list[Effect]:
        """On: the table holds after the hand under way, or at once between hands (not before a
        misdealt hand's re-deal). Off: a hold ends."""
        out: list[Effect] = []
        if ev.on == self.h4h:
            return out
        self.h4h = ev.on
        if ev.on and self._dealing.hand is None and not self._redeal_next():
            self._hold("h4h", ev.ts, out)
        elif not ev.on and self._h4h_hold:
            self._h4h_hold = False
            self._prompt_now(out, ev.ts, Finding("flow.h4h_go", "FLOW-002", "hand-for-hand is over: deal on"))
        return out

    def on_release(self, ev: Release) -> list[Effect]:
        """The floor's go-ahead: a table holding deals its next hand (any release does: one
        missed while the link was down is made up by the next)."""
        out: list[Effect] = []
        if type(ev.round) is int and ev.round >= 0:
            self.round = ev.round
        if self._h4h_hold:
            self._h4h_hold = False
            self._prompt_now(out, ev.ts, Finding("flow.h4h_go", "FLOW-002",
                                                 "hand-for-hand: released, deal the next hand"))
        return out

    def _relief(self, ts: float, out: list[Effect]) -> None:
        """RELIEF-004: no push during hand-for-hand (the dealer is warned, the floor logs it);
        during a race-off RACE-006's prompt is the warning and the floor's log is added."""
        racing = self._t.modes.racing()
        if not self.h4h and not racing:
            return
        during = "hand-for-hand" if self.h4h else "the race-off"
        if self.h4h:
            self._prompt_now(out, ts, Finding("relief.no_push", "RELIEF-004",
                                              "hand-for-hand: no dealer push until it is over"))
        hand = self._dealing.hand
        self._alert(out, Alert(ts=ts, code="relief.no_push", audience="floor", rule="RELIEF-004",
                               message=f"a dealer push during {during}",
                               hand=hand.number if hand is not None else None))

    # -- FLOW-003: the bubble ------------------------------------------------------------------------
    def on_bubble_mode(self, ev: BubbleMode) -> list[Effect]:
        """The bubble on or off: while on, the dealer's ``allin`` is the floor's."""
        self.bubble_mode = ev.on
        return []

    def on_bubble_hold(self, ev: BubbleHold) -> list[Effect]:
        """Another table's all-in holds the room: this table holds before its next deal (a deal
        under way finishes first); lifted, it deals on."""
        out: list[Effect] = []
        if ev.on:
            self.bubble, self.bubble_table = True, ev.table if type(ev.table) is str else None
            self.bubble_hand = ev.hand if type(ev.hand) is int and ev.hand >= 1 else None
            if self._dealing.hand is None:
                self._hold("bubble", ev.ts, out)  # (said again if another all-in holds the room)
            return out
        at = _all_in_at(self.bubble_table, self.bubble_hand)
        self.bubble, self.bubble_table, self.bubble_hand = False, None, None
        if self._bubble_hold:
            self._bubble_hold = False
            self._prompt_now(out, ev.ts, Finding("flow.bubble_go", "FLOW-003",
                                                 f"bubble: the all-in at {at} is settled, deal on"))
        return out

    def _hold(self, kind: str, ts: float, out: list[Effect]) -> None:
        """The table holds (FLOW-002 ``h4h``, FLOW-003 ``bubble``) until the floor's word."""
        if kind == "h4h":
            self._h4h_hold = True
            finding = Finding("flow.h4h_wait", "FLOW-002", "hand-for-hand: wait for the floor's release (the deck "
                                                           "spread face down before the tray)")
        else:
            self._bubble_hold = True
            at = _all_in_at(self.bubble_table, self.bubble_hand)
            finding = Finding("flow.bubble_hold", "FLOW-003", f"bubble: hold, all-in at {at}: no new hand until it "
                                                              f"is settled")
        self._prompt_now(out, ts, finding)

    def _bubble_allin(self, ev: ButtonPress, out: list[Effect]) -> None:
        """In bubble mode, ``allin`` during a hand: the floor holds the other tables (once a hand)."""
        hand = self._dealing.hand
        if hand is None or hand.kind != "hand":
            return
        who = f"seat {ev.seat}" if ev.seat is not None else "a seat"
        self._alert_once(out, ev.ts, "flow.bubble_allin", "bubble", audience="floor", rule="FLOW-003",
                         seat=ev.seat, message=f"bubble: all-in called ({who}), hand {hand.number}: hold the "
                                               f"other tables")

    # -- the pads ------------------------------------------------------------------------------------
    def press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """``relief`` (RELIEF-004), ``allin`` in bubble mode (FLOW-003), ``round_done`` (it stops
        the clock, FLOW-004): heard here besides what they do elsewhere."""
        name = ev.name
        if name == Pad.RELIEF:
            self._relief(ev.ts, out)
        elif name == Pad.ALLIN and self.bubble_mode:
            self._bubble_allin(ev, out)
        elif name == Pad.ROUND_DONE and self._clock is not None:
            self._stop(ev.ts, "round_done", out)

    # -- FLOW-004: the player clock --------------------------------------------------------------------
    def on_clock(self, ev: ClockCalled) -> list[Effect]:
        """The floor calls the clock on a seat (its page)."""
        out: list[Effect] = []
        if type(ev.n) is int:
            self.clock_n = max(self.clock_n, ev.n)
        if type(ev.seat) is int and 1 <= ev.seat <= 10:  # (the room link checks it; a row fed directly may not)
            self._call(ev.ts, ev.seat, ev.mono, ev.boot, "the floor", out)
        return out

    def clock_pressed(self, ev: ButtonPress, out: list[Effect]) -> None:
        """The dealer's ``clock`` pad with a seat key (a press carries no monotonic reading: the
        first tick's is taken, with at most a second of the wall clock's time before it)."""
        if type(ev.seat) is int and 1 <= ev.seat <= 10:  # (the pad checks its seat: pads.check_press;
            # a journal fed directly may not)
            self._call(ev.ts, ev.seat, None, None, "the dealer", out)

    def _call(self, ts: float, seat: int, mono: float | None, boot: str | None, by: str, out: list[Effect]) -> None:
        """A seat of the hand under way, holding cards, goes on the clock; another call is
        noted and ignored."""
        hand = self._dealing.hand
        why = None
        if hand is None or hand.kind != "hand":
            why = "no hand under way"
        elif hand.misdeal:
            why = "the hand was declared a misdeal"
        elif seat not in hand.live_seats() or self._dead == (hand.number, seat):
            why = f"seat {seat} holds no live hand"
        elif self._clock is not None and self._clock[0] == seat:
            why = f"seat {seat} is on the clock already"
        if why is not None:
            note = f"FLOW-004: the clock on seat {seat} ({by}'s call) ignored: {why}"
            if hand is not None:
                hand.notes.append(note)
            self._notice(out, Alert(ts=ts, code="flow.clock_ignored", audience="floor", rule="FLOW-004", seat=seat,
                                    message=note.split(": ", 1)[1], hand=hand.number if hand is not None else None))
            return
        assert hand is not None
        if self._clock is not None:
            self._stop(ts, f"the clock is called on seat {seat}", out)  # (its player acted)
        self._clock, self.watching = [seat, hand.number, 0.0, ts, mono, boot, CLOCK_S], True
        self._prompt_now(out, ts, Finding("flow.clock", "FLOW-004", f"clock on seat {seat}: {CLOCK_S} seconds",
                                          seat, count=CLOCK_S))

    def on_tick(self, ev: Tick, out: list[Effect]) -> None:
        """The daemon's second: the count due, if any; the hand dead at 0."""
        c = self._clock
        if c is None:
            return
        c[2] += clock_step(ev.ts, ev.mono, ev.boot, (c[3], c[4], c[5]))
        c[3], c[4], c[5] = ev.ts, ev.mono, ev.boot
        due = clock_due(c[2], c[6])
        if due is None:
            return
        seat = c[0]
        if due:
            c[6] = due
            self._prompt_now(out, ev.ts, Finding("flow.clock", "FLOW-004", f"clock on seat {seat}: {due}", seat,
                                                 count=due))
            return
        self._clock, self._dead = None, (c[1], seat)
        self._prompt_now(out, ev.ts, Finding("flow.clock_dead", "FLOW-004",
                                             f"time: seat {seat} dead; its cards to the muck", seat))

    def _stop(self, ts: float, why: str, out: list[Effect]) -> None:
        assert self._clock is not None
        seat = self._clock[0]
        self._clock, self.watching = None, self._dead is not None
        self._prompt_now(out, ts, Finding("flow.clock_stopped", "FLOW-004", f"clock on seat {seat} stopped: {why}",
                                          seat))

    def moved(self, ts: float, hand: Hand, uid: str, prev: str | None, zone: str, out: list[Effect]) -> None:
        """A card of the hand went from ``prev`` (None: off the stub) to ``zone`` while a seat is
        on the clock (its fold stops it) or dead (its cards belong in the muck)."""
        c = self._clock
        if c is not None and zone == Zone.MUCK and prev == seat_zone(c[0]):
            self._stop(ts, f"seat {c[0]} folded", out)
        dead = self._dead
        if dead is None or dead[0] != hand.number:
            return
        seat = dead[1]
        if (hand.first_seat.get(uid) == seat and zone != Zone.MUCK) or seat_of(zone) == seat:
            label = hand.labels.get(uid)
            self._alert_once(out, ts, "flow.dead_hand_back", str(seat), audience="floor", rule="FLOW-004", seat=seat,
                             card=label, message=f"seat {seat}'s hand died on the clock and a card of it is "
                                                 f"in play: {label} from {prev or 'the stub'} to {zone}")

    def dead_seats(self, hand: Hand) -> frozenset[int]:
        """The seats of ``hand`` whose hands died on the clock (FLOW-004): never read for the pot."""
        dead = self._dead
        return frozenset((dead[1],)) if dead is not None and dead[0] == hand.number else frozenset()

    def dead_at_showdown(self, ts: float, hand: Hand, out: list[Effect], *, cards_out: bool) -> None:
        """The showdown comes (the ``showdown`` pad, or the pot pushed, ``cards_out``; or the hand
        gathered) while a hand dead on the clock still holds cards at its seat (FLOW-004: "the hand
        is dead on that word"): it is not read (:meth:`dead_seats`). While the cards are out the
        dealer is told to kill it; the floor is told, once a hand, and the record notes it."""
        for seat in sorted(self.dead_seats(hand)):
            if not hand.zones.get(seat_zone(seat)) or ("flow.dead_hand_at_showdown", str(seat)) in hand.flagged:
                continue
            if cards_out:
                self._prompt(out, ts, hand, Finding("flow.dead_hand_kill", "FLOW-004",
                                                    f"seat {seat}'s hand died on the clock: kill it, its cards to "
                                                    f"the muck (not read for the pot)", seat))
            hand.notes.append(f"FLOW-004: seat {seat}'s hand, dead on the clock, was still at the seat at the "
                              f"showdown: not read for the pot")
            self._alert_once(out, ts, "flow.dead_hand_at_showdown", str(seat), audience="floor", rule="FLOW-004",
                             seat=seat, message=f"seat {seat}'s hand died on the clock and its cards were still "
                                                f"at the seat at the showdown: not read for the pot")


def _spread_due(name: str | None, level: int | None, kind: str | None, ev: LevelSet) -> str | None:
    """DECK-003 ("the deck is spread at the start and after every break"; 002 §DECK INTRODUCTION,
    001 §SETTING UP): what a level signal ``ev`` ends, after the table's last (``name``, ``level``,
    ``kind``): the tournament's start (its level 1, which the floor sends only once its clock has
    started: controller/floor/signals.py; not the same signal again) or a break (a play level
    after a ``break``); None: neither.

    >>> [_spread_due(None, None, None, LevelSet(0, "main", 1)), _spread_due("main", 4, "break", LevelSet(0, "main", 4))]
    ['tournament start', 'break over']
    >>> [_spread_due("main", 1, "level", LevelSet(0, "main", 1)), _spread_due(None, None, None, LevelSet(0, "main", 3)),
    ...  _spread_due("main", 3, "level", LevelSet(0, "main", 4, "break"))]
    [None, None, None]
    """
    if ev.kind != "level":
        return None
    if ev.level == 1 and (name, level, kind) != (ev.tournament, 1, "level"):
        return "tournament start"
    return "break over" if kind == "break" else None


def _all_in_at(table: str | None, hand: int | None) -> str:
    """Where the all-in that holds the room is, as the dealer's words name it (FLOW-003).

    >>> _all_in_at("t3", 42), _all_in_at(None, None)
    ('t3 (hand 42)', 'another table')
    """
    return (table if table is not None else "another table") + (f" (hand {hand})" if hand is not None else "")


def _chips(n: int | None) -> int | None:
    """A structure's blind or ante, as the state keeps it (a row fed directly may hold anything)."""
    return n if type(n) is int and n >= 0 else None


def _no_shuffle_kept(fields: dict[str, Any]) -> dict[str, Any]:
    """Section version 1 -> 2 (issue 39): the next deal's shuffle, and the level it froze
    (SHUF-001). A version 1 table kept none: no shuffle reported for the next deal, whose level
    is then taken at its first card, as version 1 took it.

    >>> _no_shuffle_kept({"level": 5})
    {'level': 5, '_shuffled': False, '_shuffled_level': None}
    """
    return {**fields, "_shuffled": False, "_shuffled_level": None}


PART_MIGRATIONS[("tournament", 1)] = _no_shuffle_kept
