"""Core throughput: events per second through ``Table.apply`` (target: over 200,000).

The events are reader cycles of a table dealing hands under the deal-script noise model (miss
0.05, repeat 0.3, crosstalk 0.01), five cycles per card pitched, no fold. The mixes:

- ``table``: nine-handed hold'em as at a real table, each betting round (pre-flop, flop, turn,
  river) lasting ``--betting`` cycles (default 60: about 15 s with a multiplexed reader at 4
  cycles/s);
- ``dealing``: the same hands with no betting at all, card after card: the worst case for the core;
- ``stud``: the table mix for six-handed seven-card stud (3rd street, then a burn and a card to
  each seat on 4th-7th, with the same betting rounds);
- ``draw27_triple``: the table mix for six-handed 2-7 triple draw, the simulator's random
  hands (hw_sim/random_draw.py) without folds: a betting round before each of the three draws
  and after the last, each seat's discards pushed to the muck at once, a stub rebuilt when the
  draws run it short (DRAW-005).

Issue 16 wants the stud and draw mixes within 20 % of hold'em's table mix. Like with like: the
same noise (one generator for all), the same pace (five cycles a card, the same betting rounds),
no fold in any, each game at its full table: hold'em nine (a full ring), stud six (seven would
need 53 cards to 7th street: the short stub, STUD-006), triple draw six (its most, DRAW-001).
What differs is what a game leaves on the table: a stud table ends with 46 cards out, a triple
draw one with its discards in the muck, a hold'em one with 26; the core reads every tag every
cycle, so the mixes are printed with their reads a cycle and their reads a second (docs/decisions/
0030-throughput-of-stud-and-draw-mixes.md).

They are generated first (untimed), as the reader link builds them (repeated data sets merged,
the set of ``(uid, antenna)`` pairs heard attached); only applying them is timed. Each figure is
the best of seven runs, the mixes timed in turn, round by round, so that a slow spell of a
shared machine falls on all of them alike, and each game mix's share of the table mix's figure
is printed with it (run it three times at a quiet moment, keep the best). Every mix's events
are held in memory at once, about 6 kB an event in the triple-draw mix: the four mixes take
1.6 GB at 200 hands, 2.4 GB at the default 300; on a Pi with 2 GB, ``--hands 100``.

    .venv/bin/python bench/core_throughput.py [--hands 300] [--betting 60] [--mix table dealing stud draw27_triple]
"""

from __future__ import annotations

import argparse
import gc
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.core.cards import FULL_DECK  # noqa: E402
from controller.core.effects import Alert  # noqa: E402
from controller.core.events import ButtonPress, ReaderCycle  # noqa: E402
from controller.core.registry import Deck, DeckRegistry  # noqa: E402
from controller.core.settings import TableSettings, deal_order  # noqa: E402
from controller.core.table import Table  # noqa: E402
from hw_sim.decks import sim_uid  # noqa: E402
from hw_sim.random_draw import DRAW_TEMPLATES, random_draw_hand  # noqa: E402

ANT = {f"seat:{n}": n for n in range(1, 11)} | {"board": 11, "burn": 12, "muck": 13}
GONE_CYCLES = TableSettings().gone_cycles


def hand_events(rng: random.Random, start_cycle: int, seats: list[int], button: int, betting: int,
                game: str = "holdem"):
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    field: dict[str, int] = {}
    cycle = start_cycle
    events: list = []

    def run(n: int) -> int:
        nonlocal cycle
        for _ in range(n):
            cycle += 1
            reads = []
            for uid, ant in field.items():
                if rng.random() >= 0.05:
                    # repeated data sets (repeat 0.3) are merged by the reader link before the core
                    reads.append((uid, ant, rng.randint(170, 230)))
                if rng.random() < 0.01:
                    reads.append((uid, ant + 1 if ant < 13 else ant - 1, rng.randint(60, 120)))
            events.append(ReaderCycle(float(cycle), "reader", cycle, tuple(reads)))
        return cycle

    order = deal_order(seats, button)
    if game in DRAW_TEMPLATES:
        draw_events(rng, run, field, events, seats, button, betting, game)
        return events, run(0)
    if game == "stud":  # three each on 3rd street; then a burn and one each on 4th-7th
        for _ in range(3):
            for s in order:
                field[sim_uid("A", deck.pop())] = s
                run(5)
        run(betting)
        for _ in range(4):
            events.append(ButtonPress(float(cycle) + 0.5, "round_done"))
            field[sim_uid("A", deck.pop())] = ANT["burn"]
            run(5)
            for s in order:
                field[sim_uid("A", deck.pop())] = s
                run(5)
            run(betting)
        field.clear()
        run(10)
        return events, cycle
    for _ in range(2):
        for s in order:
            field[sim_uid("A", deck.pop())] = s
            run(5)
    run(betting)
    for street in (3, 1, 1):
        events.append(ButtonPress(float(cycle) + 0.5, "round_done"))  # the tap before the burn
        field[sim_uid("A", deck.pop())] = ANT["burn"]
        run(5)
        for _ in range(street):
            field[sim_uid("A", deck.pop())] = ANT["board"]
            run(5)
        run(betting)
    field.clear()
    run(10)
    return events, cycle


def draw_events(rng: random.Random, run: Callable[[int], int], field: dict[str, int], events: list,
                seats: list[int], button: int, betting: int, game: str) -> None:
    """A draw hand of ``game`` as the simulator's random draw hands deal it, with no fold
    (hw_sim/random_draw.py: each round's discards, the tap, one burn, the draws; the stub
    rebuilt from its last card and earlier discards when it runs short, DRAW-005), paced as the
    other mixes: five cycles a card pitched (and a seat's discards, pushed to the muck at once),
    a betting round before each draw and after the last; a rebuilt stub's cards are off the
    table for as long as the core takes to see them gone (``gone_cycles`` + 2, as the
    simulator's dealer waits)."""
    hand = random_draw_hand(rng, game=game, seats=seats, button=button, fold_chance=0.0)
    betting_done = False  # the betting round before the draw under way
    for step in hand.steps:
        if "deal" in step:
            field[sim_uid("A", step["deal"])] = ANT[step["to"]]
            run(5)
            continue
        if ("discard" in step or "press" in step or "end" in step) and not betting_done:
            run(betting)
            betting_done = True
        if "discard" in step:
            for card in step["discard"]:
                field[sim_uid("A", card)] = ANT["muck"]
            run(5)
        elif step.get("press") == "round_done":
            events.append(ButtonPress(float(run(0)) + 0.5, "round_done"))  # the tap before the burn
            betting_done = False
        elif "restub" in step:
            for card in step["restub"]:
                field.pop(sim_uid("A", card), None)
            run(GONE_CYCLES + 2)
    field.clear()
    run(10)


class Mix:
    """One mix's events, generated once (untimed), and the table that applies them."""

    def __init__(self, hands: int, betting: int, game: str = "holdem", players: int = 9) -> None:
        rng = random.Random(1)
        self.hands, self.betting, self.game = hands, betting, game
        self.seats = list(range(1, players + 1))
        self.events: list[ReaderCycle | ButtonPress] = []
        cycle, button = 0, self.seats[-1]
        for _ in range(hands):
            evs, cycle = hand_events(rng, cycle, self.seats, button, betting, game)
            self.events += evs
            if game != "stud":  # stud has no button: the deal starts after the dealer's position
                button = deal_order(self.seats, button)[0]
        self.registry = DeckRegistry()
        self.registry.add(Deck("A", "red", {sim_uid("A", c): c for c in FULL_DECK}))
        cycles = [e for e in self.events if isinstance(e, ReaderCycle)]
        self.reads_a_cycle = sum(len(e.reads) for e in cycles) / len(cycles)
        self.best = 0.0  # events/s, the best run so far

    def table(self) -> Table:
        return Table(TableSettings(game=self.game, seats=tuple(self.seats), button=self.seats[-1]), self.registry)

    def run(self) -> float:
        """Apply every event to a new table, timed: this run's events/s (``best`` keeps the
        best)."""
        table = self.table()
        apply = table.apply
        t0 = time.perf_counter()
        for ev in self.events:
            apply(ev)
        dt = time.perf_counter() - t0
        assert table.hands_finished == self.hands, table.hands_finished
        rate = len(self.events) / dt
        self.best = max(self.best, rate)
        return rate

    def check(self) -> None:
        """Untimed: the table mix is clean play, and timing a flood of alerts would mislead (the
        dealing mix, five cycles a card and no betting at all, is faster than any dealer: a card
        confirmed late may arrive after the next street's burn, and is prompted)."""
        if self.betting:
            check = self.table()
            alerts = [e for ev in self.events for e in check.apply(ev) if isinstance(e, Alert)]
            assert not alerts, f"a clean hand raised {alerts[:3]}"


def time_mixes(mixes: list[Mix], rounds: int = 7) -> None:
    """Each mix's best of ``rounds`` runs (``Mix.best``), the mixes timed in turn, round by
    round: a shared machine's timings wander by a fifth over seconds, and a slow spell then falls
    on every mix alike instead of on the one timed during it, so the shares of hold'em's figure
    are steady from run to run."""
    for mix in mixes:
        mix.check()
    # (the events are alive through every run, and none is garbage: out of the collector's sight,
    # as a daemon holds no such pile)
    gc.collect()
    gc.freeze()
    for _ in range(rounds):
        for mix in mixes:
            mix.run()


def measure(hands: int, betting: int, game: str = "holdem", players: int = 9) -> tuple[int, float, float]:
    """One mix alone: (events, reads a cycle, events/s: the best of 7)."""
    mix = Mix(hands, betting, game, players)
    time_mixes([mix])
    return len(mix.events), mix.reads_a_cycle, mix.best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--betting", type=int, default=60, help="cycles per betting round in the table mix")
    # mix -> (cycles of betting a round, game, players)
    kinds = {"table": (None, "holdem", 9), "dealing": (0, "holdem", 9), "stud": (None, "stud", 6),
             "draw27_triple": (None, "draw27_triple", 6)}
    ap.add_argument("--mix", nargs="+", choices=tuple(kinds), default=list(kinds))
    args = ap.parse_args()
    mixes: dict[str, Mix] = {}
    for name in args.mix:
        betting, game, players = kinds[name]
        mixes[name] = Mix(args.hands, args.betting if betting is None else betting, game, players)
    time_mixes(list(mixes.values()))
    table = mixes.get("table")
    for name, mix in mixes.items():
        # (issue 16: the stud and draw mixes within a fifth of hold'em's table mix)
        share = f"; {mix.best / table.best:.0%} of the table mix's" if table and mix.game != "holdem" else ""
        print(f"core, {name} mix: {len(mix.events):,} events ({mix.reads_a_cycle:.1f} reads a cycle, "
              f"{len(mix.seats)} players), {args.hands} hands: {mix.best:,.0f} events/s, "
              f"{mix.best * mix.reads_a_cycle:,.0f} reads/s (best of 7{share})")


if __name__ == "__main__":
    main()
