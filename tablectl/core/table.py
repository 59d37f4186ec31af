"""The table's brain: ``Table.apply(event) -> [Effect]``. No I/O, no clock, no randomness.

Same events in, same effects out: the shell journals every event before applying it, so a
recorded shift replays exactly.

>>> from tablectl.core.registry import Deck, DeckRegistry
>>> reg = DeckRegistry(); reg.add(Deck("A", "red", {"U1": "As", "U2": "Kd"}))
>>> table = Table(TableSettings(seats=(1, 2), button=2, confirm_cycles=1, gone_cycles=2), reg)
>>> [type(e).__name__ for e in table.apply(ReaderCycle(1.0, "reader", 1, (("U1", 1, 200),)))]
['HandStarted', 'CardPlaced', 'Figures']
>>> table.hand.zone_labels()
{'seat:1': ['As']}

The table is built in layers, each a module with one job (see :mod:`tablectl.core.table_base`):
device health, deck integrity, the roster, and the dealing procedure, which follows the game's
template (:mod:`tablectl.core.games`). This module is the entry point and the views.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tablectl.core.dealing import Dealing
from tablectl.core.effects import Alert, Effect
from tablectl.core.events import (ButtonPress, DealerNamed, DeckSetup, DeviceStatus, Event, ReaderCycle,
                               ShufflerReport, ShufflerStatus, TableSetup, Tick)
from tablectl.core.pads import Pad
from tablectl.core.registry import DeckRegistry
from tablectl.core.expectation import expectation
from tablectl.core.settings import TableSettings, deal_order
from tablectl.core.state import table_from_state, table_to_state


class Table(Dealing):
    """Applies events to the table's state and says what follows from each."""

    def __init__(self, settings: TableSettings, registry: DeckRegistry) -> None:
        super().__init__(settings, registry)
        # ReaderCycle is handled in apply() itself; each handler takes the event of its key
        self._dispatch: dict[type[Event], Callable[[Any], list[Effect]]] = {
            DeviceStatus: self._on_device,
            ButtonPress: self._on_press,
            TableSetup: self._on_setup,
            ShufflerReport: self._on_shuffler_report,
            ShufflerStatus: self._on_shuffler_status,
            DeckSetup: self._on_deck_setup,
            Tick: self._on_tick,
            DealerNamed: self._on_dealer,
        }
        self._expect()

    # -- the one entry point -------------------------------------------------------------
    def apply(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects it gives rise to, in order."""
        if type(event) is ReaderCycle:  # nearly every event: spare it the dispatch
            moves, departures = self._track(event.cycle, event.reads, event.heard)
            if not moves and not departures:
                if not self._clones:
                    return []
                return self._on_clones(event.ts, [])
            out = self._on_moves(event.ts, moves, departures)
            self._expect()
            return self._on_clones(event.ts, out) if self._clones else out
        out = self._dispatch[type(event)](event)
        self._expect()
        return out

    def _expect(self) -> None:
        """Tell the tracker what the table expects next (tablectl.core.expectation): after every
        event that may have changed the hand, never on a quiet reader cycle."""
        hand = self.hand
        first = None
        if hand is None and not self._highcard and self.mode is None:
            seats, pos, _ = self._plan()
            first = deal_order(seats, pos.button)[0] if seats else None
        self.tracker.expect(*expectation(hand, first))

    def _on_press(self, ev: ButtonPress) -> list[Effect]:
        out = self._press(ev)
        if ev.name == Pad.FLOOR:  # the dealer calls the floor: nothing changes at the table, the floor's
            # screen shows the call until someone answers it (its ack: docs/floor.md)
            self._alert(out, Alert(ts=ev.ts, code="floor.call", audience="floor", message="the dealer calls the floor",
                                   hand=self.hand.number if self.hand is not None else None))
        return out

    # -- views -----------------------------------------------------------------------------
    @property
    def game_now(self) -> str:
        """The game of the hand under way, else of the next hand (as ``button`` is)."""
        return self.hand.game if self.hand is not None else self.game

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

    # -- the state a journal snapshot keeps (tablectl.core.state, docs/journal.md) -------------------
    _STATE_SKIP = ("settings", "_track", "_clones", "_dispatch")  # the configuration's, or links

    def to_state(self) -> dict[str, Any]:
        """The whole table as JSON values, versioned: see :mod:`tablectl.core.state`."""
        return table_to_state(self)

    @classmethod
    def from_state(cls, state: Any, settings: TableSettings) -> Table:
        """The table ``state`` holds, every value checked; raises one StateError otherwise."""
        table: Table = table_from_state(cls, state, settings)
        table._expect()  # (not state: it follows from the hand)
        return table

