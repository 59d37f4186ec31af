"""Deal scripts straight into the core, under a noise profile, watching the tracker against
the physical field: how many cycles each card took to be confirmed, and every false move.

The in-process harness (``hw_sim.harness``) runs the whole daemon and the FEIG
codec, about 25 ms a hand; this feeds ``Table.apply`` directly with the reads the simulated
reader's noise profile (``hw_sim.noise``) gives, about a millisecond a hand, so that
``bench/tracking.py`` can deal tens of thousands of hands and the suite a few hundred.

The dealer here is the simulator's (``hw_sim.dealer``) in spirit: a step's cards are laid on
their antennas (a fold's or a draw's discards on the muck's), cycles run until the table has
confirmed them where they lie, then one more; the cards gathered into a rebuilt stub (a draw
game's or stud's ``restub``) leave every antenna, and ``gone_cycles`` + 2 cycles run.
Between betting rounds (before a pad is pressed, and before the gather) the cards lie still for
``idle`` cycles, exposed to the noise. A *false move* is a move the tracker confirmed to a zone
in which the card does not lie, or a departure of a card that still lies on the table.
A card's *latency* counts reader cycles from the cycle in which the reader first heard it at
the antenna it landed on to the cycle in which the table confirmed it there, both included.

>>> from hw_sim.random_hands import random_script
>>> from hw_sim.script import parse_script
>>> import json
>>> run = run_script(parse_script(json.dumps(random_script(1, hands=2, game="holdem"))), profile="standard")
>>> run.false_moves, run.alerts, run.hands, max(run.latency) <= 2
(0, [], 2, True)
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from controller.core.cards import FULL_DECK
from controller.core.effects import Alert
from controller.core.events import ButtonPress, ReaderCycle, TableSetup
from controller.core.registry import Deck, DeckRegistry
from controller.core.settings import TableSettings
from hw_sim import script as sc
from hw_sim.decks import DECK_BACKS, sim_uid
from hw_sim.noise import profile as noise_profile
from hw_sim.setup import ANTENNA_OF, ZONES

#: the noise of the deal script's model (deal-script.md) that both profiles start from
MISS, CROSSTALK = 0.05, 0.01
ZONE_OF_ANTENNA = ZONES.by_antenna


class Unsupported(ValueError):
    """A step this driver does not play (the shuffler, cables, clones): use the harness."""


@dataclass
class TrackingRun:
    """What a run saw: per card placed, its latency in cycles; the false moves; the alerts the
    dealer or the floor would have had; gathers (cycles from the last card lifted to the hand's
    end); hands and cycles played."""

    latency: list[int] = field(default_factory=list)
    gather: list[int] = field(default_factory=list)
    false_moves: int = 0
    false: list[str] = field(default_factory=list)  # what the first few were, for a message
    alerts: list[str] = field(default_factory=list)
    hands: int = 0
    cycles: int = 0

    def add(self, other: TrackingRun) -> None:
        self.latency += other.latency
        self.gather += other.gather
        self.false_moves += other.false_moves
        self.false += other.false[: max(0, 5 - len(self.false))]
        self.alerts += other.alerts
        self.hands += other.hands
        self.cycles += other.cycles


def percentile(values: Sequence[int], p: float) -> int:
    """The nearest-rank percentile ``p`` (0 to 100) of ``values``.

    >>> percentile([1, 1, 1, 2], 50), percentile([1, 1, 1, 2], 99), percentile([3], 99)
    (1, 2, 3)
    """
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * p // 100))  # ceil, at least the first
    return ordered[int(rank) - 1]


def registry() -> DeckRegistry:
    """The simulated table's two decks (hw_sim.decks): ``A`` in play, ``B`` the spare."""
    reg = DeckRegistry()
    for d in ("A", "B"):
        reg.add(Deck(d, DECK_BACKS[d], {sim_uid(d, c): c for c in FULL_DECK}))
    return reg


class _Driver:
    def __init__(self, script: sc.Script, *, profile: str, seed: int, idle: int, confirm_cycles: int,
                 gone_cycles: int) -> None:
        # (the core table imported here: ``tablectl simulate`` imports this module for
        # :func:`percentile` (its report), and its own process runs no table: the daemon does)
        from controller.core.table import Table

        self.table = Table(TableSettings(game=script.game, seats=tuple(script.seats), button=script.button,
                                         confirm_cycles=confirm_cycles, gone_cycles=gone_cycles), registry())
        neighbours = {a: [b for b in (a - 1, a + 1) if b in ZONE_OF_ANTENNA] for a in ZONE_OF_ANTENNA}
        self.look = noise_profile(profile, seed=seed, miss=MISS, crosstalk=CROSSTALK, neighbours=neighbours,
                                  muck=ANTENNA_OF["muck"])
        self.rng = random.Random(seed)
        self.idle = idle
        self.gone_cycles = gone_cycles
        self.field: dict[str, int] = {}  # uid -> the antenna it lies on
        self.waiting: dict[str, tuple[str, int | None]] = {}  # uid -> (zone, cycle first heard there)
        self.cycle = 0
        self.run = TrackingRun()
        self._track = self.table._track
        self.table._track = self._checked_track  # (a link, not state: Table.linked_again)

    def _checked_track(self, cycle: int, reads: Any, heard: Any) -> Any:
        moves, departures = self._track(cycle, reads, heard)
        for uid, _, zone in moves:
            lies = self.field.get(uid)
            if lies is None or ZONE_OF_ANTENNA.get(lies) != zone:
                self._false(f"cycle {cycle}: {uid} confirmed at {zone}, lies at {lies}")
        for uid, zone in departures:
            if uid in self.field:
                self._false(f"cycle {cycle}: {uid} taken off the table from {zone}, lies at {self.field[uid]}")
        return moves, departures

    def _false(self, what: str) -> None:
        self.run.false_moves += 1
        if len(self.run.false) < 5:
            self.run.false.append(what)

    def tick(self) -> None:
        self.cycle += 1
        self.run.cycles += 1
        heard = self.look(self.rng, sorted((u, a) for u, a in self.field.items()))
        reads = tuple((uid, a, r) for uid, rs in heard.items() for a, r in rs)
        for uid, (zone, first) in list(self.waiting.items()):
            if first is None and any(a == self.field[uid] for a, _ in heard.get(uid, ())):
                self.waiting[uid] = (zone, self.cycle)
        for e in self.table.apply(ReaderCycle(float(self.cycle), "reader", self.cycle, reads)):
            self._effect(e)
        tracker = self.table.tracker
        for uid, (zone, first) in list(self.waiting.items()):
            if first is not None and tracker.location(uid) == zone:
                self.run.latency.append(self.cycle - first + 1)
                del self.waiting[uid]

    def _effect(self, e: Any) -> None:
        if isinstance(e, Alert) and e.audience in ("dealer", "floor"):
            self.run.alerts.append(f"{e.code} ({e.message})")

    def settle(self, limit: int = 200) -> None:
        for _ in range(limit):
            if not self.waiting:
                break
            self.tick()
        else:
            raise RuntimeError(f"cards never confirmed in {limit} cycles: {sorted(self.waiting.values())}")
        self.tick()

    def lay(self, uid: str, zone: str) -> None:
        self.field[uid] = ANTENNA_OF[zone]
        self.waiting[uid] = (zone, None)

    @staticmethod
    def uid(ref: sc.CardRef) -> str:
        return ref.uid or sim_uid(ref.deck or "A", ref.card or "")

    def restub(self, uids: list[str]) -> None:
        """The cards gathered into a rebuilt stub leave every antenna; as the simulator's dealer
        does (hw_sim.dealer), wait ``gone_cycles`` + 2 cycles for the table to take that in."""
        gone = [u for u in uids if self.field.pop(u, None) is not None]
        if gone:
            for _ in range(self.gone_cycles + 2):
                self.tick()
            left = [u for u in gone if self.table.tracker.location(u) is not None]
            if left:
                raise RuntimeError(f"cards gathered into a new stub still on the table: {left}")

    def press(self, action: sc.Press) -> None:
        for _ in range(self.idle):
            self.tick()
        ev = ButtonPress(float(self.cycle) + 0.5, action.name, long=action.long, seat=action.seat,
                         hands=action.hands, mode=action.mode)
        for e in self.table.apply(ev):
            self._effect(e)
        self.tick()

    def gather(self) -> None:
        for _ in range(self.idle):
            self.tick()
        before = self.table.hands_finished
        had = bool(self.field)
        self.field.clear()
        start = self.cycle
        while had and self.table.hands_finished == before:
            if self.cycle - start > 200:
                raise RuntimeError("the hand never ended after the gather")
            self.tick()
        if had:
            self.run.gather.append(self.cycle - start)
            self.run.hands += 1


def run_script(script: sc.Script, *, profile: str = "standard", seed: int | None = None, idle: int = 20,
               confirm_cycles: int = 2, gone_cycles: int = 20) -> TrackingRun:
    """Play ``script`` into a fresh table under the noise ``profile``; ``seed`` defaults to the
    script's noise seed. ``confirm_cycles``, ``gone_cycles``: the table's (the defaults)."""
    d = _Driver(script, profile=profile, seed=script.noise.seed if seed is None else seed, idle=idle,
                confirm_cycles=confirm_cycles, gone_cycles=gone_cycles)
    for hand in script.hands:
        if hand.seats is not None or hand.button is not None:
            d.table.apply(TableSetup(float(d.cycle) + 0.5, tuple(hand.seats or script.seats), hand.button))
        for step in hand.steps:
            action = sc.action_of(step)
            if isinstance(action, sc.Deal) and not action.clone:
                d.lay(d.uid(action.card), action.to)
                d.settle()
            elif isinstance(action, sc.Muck):
                seat = ANTENNA_OF[f"seat:{action.seat}"]
                for uid in [u for u, a in d.field.items() if a == seat]:
                    d.lay(uid, "muck")
                d.settle()
            elif isinstance(action, sc.Discard):  # a draw: the seat's discards pushed into the muck
                for ref in action.cards:
                    d.lay(d.uid(ref), "muck")
                d.settle()
            elif isinstance(action, sc.Stack):  # Chinese poker: a stack pushed whole (CHIN-001)
                for ref in action.cards:
                    d.lay(d.uid(ref), action.to)
                d.settle()
            elif isinstance(action, sc.Restub):  # the rebuilt stub (DRAW-005): off every antenna
                d.restub([d.uid(ref) for ref in action.cards])
            elif isinstance(action, sc.Press):
                d.press(action)
            elif isinstance(action, sc.End):
                d.gather()
            else:
                raise Unsupported(f"step {type(action).__name__} is played by the harness only")
    return d.run
