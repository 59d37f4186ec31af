"""The table's brain: ``Table.apply(event) -> [Effect]``. No I/O, no clock, no randomness.

Same events in, same effects out: the shell journals every event before applying it, so a
recorded shift replays exactly.

>>> from controller.core.registry import Deck, DeckRegistry
>>> reg = DeckRegistry(); reg.add(Deck("A", "red", {"U1": "As", "U2": "Kd"}))
>>> table = Table(TableSettings(seats=(1, 2), button=2, confirm_cycles=1, gone_cycles=2), reg)
>>> [type(e).__name__ for e in table.apply(ReaderCycle(1.0, "reader", 1, (("U1", 1, 200),)))]
['HandStarted', 'CardPlaced', 'Figures']
>>> table.hand.zone_labels()
{'seat:1': ['As']}

The table is made of parts, each owning its share of the state (:mod:`controller.core.part`):

- ``reads``: the tracker (:mod:`~controller.core.table.reads`);
- ``alerts``: how the parts raise alerts and prompts, and those raised between hands;
- ``devices``: devices offline and the shuffler's faults (:mod:`~controller.core.table.devices`);
- ``decks``: deck integrity, the pair and the counts (:mod:`~controller.core.table.decks`);
- ``roster``: the seats, the button and blinds of the next hand, who deals;
- ``turns``: the next hand's game and a mixed game's rotation;
- ``modes``: the race-off, a table break's high card, the players' break;
- ``holds``: the open seats and the hold they put the dealer in;
- ``tournament``: the floor's signals (the level, hand-for-hand, the bubble) and the player
  clock (:mod:`~controller.core.table.tournament`);
- ``flow``: long absences, a single-table satellite's gate and opening deck, the table add-on,
  the rake cap (:mod:`~controller.core.table.flow`: FLOW-006..009, DECK-009);
- ``dealing``: the hand under way and the hands finished, with a part for each game family
  (``stud``, ``draw``, ``chinese``, ``flop``: :mod:`controller.core.families`);
- ``lapses``: what the reads should show within a time and do not: a card off its seat that
  arrives nowhere (MUCK-001), the stub not on its spot (STUB-006) (:mod:`~controller.core.table.lapses`).

This class routes each event to the parts it concerns, and gives the views.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from controller.core.effects import Alert, Effect
from controller.core.events import (BubbleHold, BubbleMode, ButtonPress, ClockCalled, DealerNamed, DeckSetup,
                                  DeviceStatus, Event, HandForHand, LevelSet, ReaderCycle, Release, SatelliteApproved,
                                  ShufflerReport, ShufflerStatus, TableSetup, Tick)
from controller.core.expectation import expectation
from controller.core.families.chinese.part import ChineseStacks
from controller.core.families.draw.part import DrawRounds
from controller.core.families.flop.part import FlopBoard
from controller.core.families.stud.part import StudRounds
from controller.core.games import Game
from controller.core.hand import Hand
from controller.core.pads import DECK_PADS, ROSTER_PADS, SATELLITE, Pad
from controller.core.positions import Positions
from controller.core.registry import DeckRegistry
from controller.core.settings import TableSettings, deal_order
from controller.core.state import table_from_state, table_to_state
from controller.core.table.alerts import Alerts
from controller.core.table.dealing import Dealing
from controller.core.table.decks import DeckGuard
from controller.core.table.lapses import Lapses
from controller.core.table.devices import DeviceHealth
from controller.core.table.flow import FLOW_PADS, TableFlow
from controller.core.table.modes import Modes
from controller.core.table.open_seats import OpenSeats
from controller.core.part import Part
from controller.core.table.reads import Reads
from controller.core.table.roster import Roster
from controller.core.table.tournament import TOURNAMENT_PADS, Tournament
from controller.core.table.turns import GameTurns
from controller.core.zones import Zone


class Table:
    """Applies events to the table's state and says what follows from each."""

    #: the parts that keep state, in the order a state's sections are checked
    PARTS: tuple[type[Part], ...] = (Reads, Alerts, DeviceHealth, DeckGuard, Roster, GameTurns, Modes, OpenSeats,
                                     StudRounds, Dealing, Tournament, Lapses, TableFlow)

    def __init__(self, settings: TableSettings, registry: DeckRegistry) -> None:
        self.settings = settings
        self.reads = Reads(self)
        self.alerts = Alerts(self)
        self.devices = DeviceHealth(self)
        self.decks = DeckGuard(self, registry)
        self.roster = Roster(self)
        self.turns = GameTurns(self)
        self.modes = Modes(self)
        self.holds = OpenSeats(self)
        self.stud = StudRounds(self)
        self.draw = DrawRounds(self)
        self.chinese = ChineseStacks(self)
        self.flop = FlopBoard(self)
        self.dealing = Dealing(self)
        self.tournament = Tournament(self)
        self.lapses = Lapses(self)
        self.flow = TableFlow(self)
        # ReaderCycle is handled in apply() itself; each handler takes the event of its key
        self._dispatch: dict[type[Event], Callable[[Any], list[Effect]]] = {
            DeviceStatus: self.devices.on_device,
            ButtonPress: self._on_press,
            TableSetup: self._on_setup,
            ShufflerReport: self.decks.on_shuffler_report,
            ShufflerStatus: self.devices.on_shuffler_status,
            DeckSetup: self.decks.on_deck_setup,
            Tick: self._on_tick,
            DealerNamed: self.roster.on_dealer,
            # the floor's signals (the tournament room: docs/rules.md §19)
            LevelSet: self.tournament.on_level,
            HandForHand: self.tournament.on_h4h,
            Release: self.tournament.on_release,
            BubbleMode: self.tournament.on_bubble_mode,
            BubbleHold: self.tournament.on_bubble_hold,
            ClockCalled: self.tournament.on_clock,
            SatelliteApproved: self.flow.on_approved,  # FLOW-007 (the floor's command)
        }
        self.linked_again()
        self._expect()

    def parts(self) -> Iterator[Part]:
        """The parts that keep state, in :data:`PARTS`' order."""
        yield from (self.reads, self.alerts, self.devices, self.decks, self.roster, self.turns, self.modes,
                     self.holds, self.stud, self.dealing, self.tournament, self.lapses, self.flow)

    def linked_again(self) -> None:
        """Every part's links to the others made again (after a state replaced what they hold)."""
        for part in (*self.parts(), self.draw, self.chinese, self.flop):
            part.link()
        tracker = self.reads.tracker
        self._track = tracker.cycle
        self._clones = tracker.clones  # the same list: the tracker fills it, the dealing empties it
        self._on_moves = self.dealing.on_moves
        self._on_clones = self.dealing.on_clones

    # -- the one entry point -------------------------------------------------------------
    def apply(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects it gives rise to, in order. An event at or past
        the time something falls due (MUCK-001, STUB-006: :class:`Lapses`) says it after its own."""
        lapses = self.lapses
        if type(event) is ReaderCycle:  # nearly every event: spare it the dispatch
            moves, departures = self._track(event.cycle, event.reads, event.heard)
            if not moves and not departures:
                if event.ts >= lapses.due:
                    out: list[Effect] = []
                    lapses.on_time(event.ts, out)
                    return self._on_clones(event.ts, out) if self._clones else out
                if not self._clones:
                    return []
                return self._on_clones(event.ts, [])
            out = self._on_moves(event.ts, moves, departures)
            if event.ts >= lapses.due:
                lapses.on_time(event.ts, out)
            self._expect()
            return self._on_clones(event.ts, out) if self._clones else out
        out = self._dispatch[type(event)](event)
        if event.ts >= lapses.due:
            lapses.on_time(event.ts, out)
        self._expect()
        return out

    def _expect(self) -> None:
        """Tell the tracker what the table expects next (controller.core.expectation): after every
        event that may have changed the hand, never on a quiet reader cycle."""
        hand = self.dealing.hand
        first = None
        if hand is None and not self.dealing.deals_highcard and self.modes.mode is None:
            seats, pos, _ = self.roster.plan()
            first = deal_order(seats, pos.button)[0] if seats else None
        due, folds, gather = expectation(hand, first)
        if due is None and hand is not None and self.lapses.spot:
            due = Zone.STUB  # STUB-006: no card due, the stub is (on its spot, where read)
        self.reads.tracker.expect(due, folds, gather)

    def _on_press(self, ev: ButtonPress) -> list[Effect]:
        """A pad: the modes and the open seats first, then the roster's, the decks' or the hand's;
        the tournament hears its own (the player clock's pad is its alone)."""
        out: list[Effect] = []
        if ev.name == Pad.CLOCK:
            self.tournament.clock_pressed(ev, out)
            return out
        if ev.name in TOURNAMENT_PADS:
            self.tournament.press(ev, out)
        if ev.name in FLOW_PADS:
            self.flow.press(ev, out)  # FLOW-006/008: before the roster seats a newcomer
        if ev.name == Pad.MODE and ev.mode == SATELLITE:
            self.flow.satellite(ev, out)  # FLOW-007, DECK-009: a satellite starts (no deal of the modes')
        elif self.modes.press(ev, out) or self.holds.press(ev, out):
            pass
        elif ev.name in ROSTER_PADS:
            self.roster.seat_press(ev, out)
        elif ev.name in DECK_PADS:
            self.decks.press(ev, out)
        else:
            self.dealing.press(ev, out)
        if ev.name == Pad.FLOOR:  # the dealer calls the floor: nothing changes at the table, the floor's
            # screen shows the call until someone answers it (its ack: docs/floor.md)
            hand = self.dealing.hand
            self.alerts.alert(out, Alert(ts=ev.ts, code="floor.call", audience="floor",
                                         message="the dealer calls the floor",
                                         hand=hand.number if hand is not None else None))
        return out

    def _on_tick(self, ev: Tick) -> list[Effect]:
        """The daemon's second: the devices' timers, the player clock."""
        out = self.devices.on_tick(ev)
        self.tournament.on_tick(ev, out)
        return out

    def _on_setup(self, ev: TableSetup) -> list[Effect]:
        """The floor sets the seats (and the button, or lets the daemon move it), and may name
        the next game; the open seats it fills are filled. While a misdeal's re-deal is pending,
        a set-up that changes nothing is no word of the floor's and does nothing (MISD-014)."""
        out: list[Effect] = []
        if self.roster.restates_redeal(ev):
            return out
        self.flow.on_setup(ev)  # (before the roster: the seats it adds are players moved here)
        self.roster.on_setup(ev)
        self.turns.on_setup(ev)
        self.holds.on_setup(ev, out)
        return out

    # -- views -----------------------------------------------------------------------------
    @property
    def hand(self) -> Hand | None:
        """The hand under way, if any."""
        return self.dealing.hand

    @property
    def hands_finished(self) -> int:
        return self.dealing.hands_finished

    @property
    def last_record(self) -> dict[str, Any] | None:
        """The last finished hand's record."""
        return self.dealing.last_record

    @property
    def tracker(self) -> Any:
        return self.reads.tracker

    @property
    def registry(self) -> DeckRegistry:
        return self.decks.registry

    @property
    def rack(self) -> Any:
        return self.decks.rack

    @property
    def stub(self) -> Any:
        return self.decks.stub

    @property
    def devices_offline(self) -> set[str]:
        return self.devices.devices_offline

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats of the roster (dealt in the next hand, less newcomers waiting)."""
        return self.roster.seats

    @property
    def dealer(self) -> str | None:
        """Who deals the next hand (RELIEF-003), if the floor named them."""
        return self.roster.dealer

    @property
    def next_dealer(self) -> str | None:
        """The dealer named to take over at the next relief press, if any."""
        return self.roster._next_dealer

    @property
    def game(self) -> str:
        """The game of the next hand."""
        return self.turns.game

    @property
    def game_def(self) -> Game:
        """The definition of the next hand's game (:mod:`controller.core.games`)."""
        return self.turns.game_def

    @property
    def mode(self) -> str | None:
        return self.modes.mode

    @property
    def open_seats(self) -> list[int]:
        return self.holds.open_seats

    def holding(self) -> bool:
        """BREAK-002: the dealer holds for the open seats."""
        return self.holds.holding()

    def plan(self) -> tuple[tuple[int, ...], Positions, list[int]]:
        """The next hand's seats, positions and the newcomers who join it (the roster's)."""
        return self.roster.plan()

    @property
    def button(self) -> int:
        """The button of the hand in progress, else of the next hand."""
        hand = self.dealing.hand
        return hand.button if hand is not None else self.roster.next_positions().button

    @property
    def game_now(self) -> str:
        """The game of the hand under way, else of the next hand (as ``button`` is)."""
        hand = self.dealing.hand
        return hand.game if hand is not None else self.turns.game

    def snapshot(self) -> dict[str, Any]:
        """The whole table for a private view (floor or technician): includes hole cards."""
        hand = self.hand
        snap: dict[str, Any] = {
            "seats": list(self.seats), "button": self.button, "game": self.game_now,
            "hands_finished": self.hands_finished,
            "devices_offline": sorted(self.devices_offline), "hand": None,
            "decks": self.rack.state(), "down": self.stub.down,
        }
        if hand is not None:
            snap["hand"] = {
                "number": hand.number, "game": hand.game, "button": hand.button, "street": hand.street(),
                "zones": hand.zone_labels(), "stub_count": hand.stub_count,
                "next_to": hand.next_to(), "alerts": len(hand.alerts),
                "first_to_act": hand.first_to_act(), "players": len(hand.live_seats()),
            }
        return snap

    # -- the state a journal snapshot keeps (controller.core.state, docs/journal.md) -------------------
    def to_state(self) -> dict[str, Any]:
        """The whole table as JSON values, versioned, a section a part: see :mod:`controller.core.state`."""
        return table_to_state(self)

    @classmethod
    def from_state(cls, state: Any, settings: TableSettings) -> Table:
        """The table ``state`` holds, every value checked; raises one StateError otherwise."""
        table: Table = table_from_state(cls, state, settings)
        table._expect()  # (not state: it follows from the hand)
        return table
