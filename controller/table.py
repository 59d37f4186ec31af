"""The table's brain: ``Table.apply(event) -> [Effect]``. No I/O, no clock, no randomness.

Same events in, same effects out: the shell journals every event before applying it, so a
recorded shift replays exactly.

>>> from controller.registry import Deck, DeckRegistry
>>> reg = DeckRegistry(); reg.add(Deck("A", "red", {"U1": "As", "U2": "Kd"}))
>>> table = Table(TableSettings(seats=(1, 2), button=2, confirm_cycles=1, gone_cycles=2), reg)
>>> [type(e).__name__ for e in table.apply(ReaderCycle(1.0, "reader", 1, (("U1", 1, 200),)))]
['HandStarted', 'CardPlaced', 'Figures']
>>> table.hand.zone_labels()
{'seat:1': ['As']}
"""

from __future__ import annotations

from typing import Any

from controller.cards import is_card
from controller.effects import Alert, CardLeft, CardPlaced, Effect, HandFinished, HandStarted
from controller.events import ButtonPress, DeviceStatus, Event, ReaderCycle, TableSetup
from controller.hand import Hand
from controller.registry import DeckRegistry
from controller.rules.misdeal import check_end_of_deal, check_exposed, check_hole_card
from controller.positions import Positions, initial_positions, next_positions
from controller.settings import TableSettings
from controller.tracker import Tracker


class Table:
    """Applies events to the table's state and says what follows from each."""

    def __init__(self, settings: TableSettings, registry: DeckRegistry) -> None:
        self.settings = settings
        self.registry = registry
        self.tracker = Tracker(settings.zones.by_antenna.get, confirm_cycles=settings.confirm_cycles,
                               gone_cycles=settings.gone_cycles)
        self._track = self.tracker.cycle
        self.seats: tuple[int, ...] = tuple(settings.seats)
        self._next_button: int | None = settings.button  # set by hand for the next hand, if any
        self._last_positions: Positions | None = None  # the last hand's button and blinds
        self.hand: Hand | None = None
        self.hands_finished = 0
        self.last_record: dict[str, Any] | None = None
        self.devices_offline: set[str] = set()
        self._pending_alerts: list[Alert] = []  # raised between hands; kept for the next hand
        self._figures_key: tuple[Any, ...] | None = None
        self._dispatch = {  # ReaderCycle is handled in apply() itself
            DeviceStatus: self._on_device,
            ButtonPress: self._on_press,
            TableSetup: self._on_setup,
        }

    # -- the one entry point -------------------------------------------------------------
    def apply(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects it gives rise to, in order."""
        if type(event) is ReaderCycle:  # nearly every event: spare it the dispatch
            moves, departures = self._track(event.cycle, event.reads, event.heard)
            if not moves and not departures:
                return []
            return self._on_moves(event.ts, moves, departures)
        return self._dispatch[type(event)](event)

    # -- reader cycles ---------------------------------------------------------------------
    def _label(self, uid: str, ts: float, out: list[Effect]) -> str:
        info = self.registry.lookup(uid)
        if info is None:
            label = f"tag:{uid}"
            self._alert_once(out, ts, "deck.unknown_tag", uid, rule="DECK-006", audience="floor",
                             card=label, message=f"tag {uid} belongs to no registered deck")
            return label
        if info.deck != self.settings.deck_in_play:
            label = f"{info.card}@{info.deck}"
            self._alert_once(out, ts, "deck.wrong_deck", uid, rule="DECK-006", audience="floor",
                             card=label, message=f"{info.card} of deck {info.deck} ({info.back} back) "
                             f"is in play; the deck in play is {self.settings.deck_in_play}")
            return label
        return info.card

    def _on_moves(self, ts: float, moves: list, departures: list) -> list[Effect]:  # type: ignore[type-arg]
        out: list[Effect] = []
        hand = self.hand
        # Departures first: when the last card of a hand leaves in the cycle in which the next
        # hand's first card lands, the old hand ends before the new one begins.
        if hand is not None and departures:
            for uid, zone in departures:
                if uid in hand.on_table:
                    hand.on_table.discard(uid)
                    out.append(CardLeft(ts, hand.number, uid, hand.labels[uid], zone))
            if not hand.on_table:
                # Every card of the hand has left the table: the dealer gathered them.
                self._finish_hand(ts, out)
        # Cards confirmed in one cycle arrived in an order the reader cannot tell.
        new_seats = frozenset(int(z[5:]) for u, p, z in moves if p is None and z.startswith("seat:"))
        for uid, _prev, zone in moves:
            hand = self.hand
            if hand is None:
                hand = self._start_hand(ts, out)
            label = hand.labels.get(uid) or self._label(uid, ts, out)
            if uid not in hand.where and zone.startswith("seat:"):
                seat = int(zone[5:])
                self._flag(out, ts, hand, check_hole_card(hand, seat, new_seats), seat)
            elif uid not in hand.where and zone in ("burn", "board"):
                for code, rule, message, seat in check_end_of_deal(hand):
                    self._flag(out, ts, hand, (code, rule, message), seat)
            came_from = hand.place(uid, label, zone)
            if came_from != zone:
                # Only a board card of the deck in play is public; hole cards, burns, the muck
                # and any foreign card are the floor's. A public effect never carries the UID:
                # watching UIDs and cards together would teach anyone the deck's tags.
                if zone == "board" and is_card(label):
                    out.append(CardPlaced(ts, hand.number, "", label, zone, came_from, "public"))
                else:
                    out.append(CardPlaced(ts, hand.number, uid, label, zone, came_from, "floor"))
        hand = self.hand
        if hand is not None:
            key = hand.figures_key()
            if key != self._figures_key:
                self._figures_key = key
                out.append(hand.figures(ts))
        return out

    def next_positions(self) -> Positions:
        """The button and blinds of the next hand: set by hand, or moved by the dead-button
        rule from the last hand's (DEAL-004, DEAL-005)."""
        if self._next_button is not None or self._last_positions is None:
            return initial_positions(self.seats, self._next_button or self.settings.button)
        return next_positions(self._last_positions, self.seats)

    @property
    def button(self) -> int:
        """The button of the hand in progress, else of the next hand."""
        return self.hand.button if self.hand is not None else self.next_positions().button

    def _start_hand(self, ts: float, out: list[Effect]) -> Hand:
        number = self.hands_finished + 1
        pos = self.next_positions()
        hand = Hand(number, self.settings.game, self.settings.hole_cards, self.seats, pos.button, ts,
                    positions=pos)
        self._next_button = None
        self.hand = hand
        self._figures_key = None
        out.append(HandStarted(ts, number, self.button, self.seats, self.settings.game))
        if self._pending_alerts:
            hand.alerts.extend(self._pending_alerts)
            self._pending_alerts.clear()
        return hand

    def _finish_hand(self, ts: float, out: list[Effect]) -> None:
        hand = self.hand
        assert hand is not None
        record = hand.record(ts)
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))
        # DEAL-004: the button moves once the pot is pushed; where to, next_positions() says.
        self._last_positions = hand.positions

    # -- alerts ----------------------------------------------------------------------------
    def _alert(self, out: list[Effect], alert: Alert) -> None:
        if self.hand is not None:
            self.hand.alerts.append(alert)
        else:
            self._pending_alerts.append(alert)
        out.append(alert)

    def _flag(self, out: list[Effect], ts: float, hand: Hand, finding: tuple[str, str, str] | None,
              seat: int | None) -> None:
        """A dealing rule's finding, as an alert to the dealer (every flag is advisory, MISD-016)."""
        if finding is not None:
            code, rule, message = finding
            self._alert(out, Alert(ts=ts, code=code, audience="dealer", message=message, rule=rule,
                                   seat=seat, hand=hand.number))

    def _alert_once(self, out: list[Effect], ts: float, code: str, key: str, **kw: Any) -> None:
        hand = self.hand
        if hand is not None:
            if (code, key) in hand.flagged:
                return
            hand.flagged.add((code, key))
        self._alert(out, Alert(ts=ts, code=code, hand=hand.number if hand else None, **kw))

    # -- other events ----------------------------------------------------------------------
    def _on_device(self, ev: DeviceStatus) -> list[Effect]:
        out: list[Effect] = []
        hand_no = self.hand.number if self.hand else None
        if not ev.online and ev.device not in self.devices_offline:
            self.devices_offline.add(ev.device)
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_offline", audience="dealer",
                                   hand=hand_no, message=f"{ev.device} offline" + (f" ({ev.detail})" if ev.detail else "")))
        elif ev.online and ev.device in self.devices_offline:
            self.devices_offline.discard(ev.device)
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_online", audience="dealer",
                                   hand=hand_no, message=f"{ev.device} back online"))
        return out

    def _on_press(self, ev: ButtonPress) -> list[Effect]:
        out: list[Effect] = []
        hand = self.hand
        if ev.name == "exposed" and hand is not None:
            seat = hand.order[(hand.hole_dealt - 1) % len(hand.order)] if hand.hole_dealt else None
            self._flag(out, ev.ts, hand, check_exposed(hand), seat)
        return out

    def _on_setup(self, ev: TableSetup) -> list[Effect]:
        self.seats = tuple(sorted(ev.seats))
        if ev.button is not None:
            self._next_button = ev.button
        return []

    # -- views -----------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The whole table for a private view (floor or technician): includes hole cards."""
        hand = self.hand
        snap: dict[str, Any] = {
            "seats": list(self.seats), "button": self.button, "hands_finished": self.hands_finished,
            "devices_offline": sorted(self.devices_offline), "hand": None,
        }
        if hand is not None:
            snap["hand"] = {
                "number": hand.number, "button": hand.button, "street": hand.street(),
                "zones": hand.zone_labels(), "stub_count": hand.stub_count,
                "next_to": hand.next_to(), "alerts": len(hand.alerts),
            }
        return snap
