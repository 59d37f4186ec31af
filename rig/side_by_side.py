"""Issue 40's side-by-side count: the same hands through the FEIG reader and through the bridge
board (its firmware's own logic on simulated PN5180s, ``hw_sim.bridge_reader``), under the harsh
noise, counted the same way for both: what ``bench/bridge_side_by_side.py`` prints for the whole
sample and ``tests/unit/hw_sim/test_bridge_side_by_side.py`` asserts on a part of it.

The hands (:func:`hands_of`): the PHH sample's hold'em and Omaha hands (tests/data/phh), random
clean hands of every game the core deals, one hand per dealer's fault of ``hw_sim.faults``
(``rig.faulty``), and the deck faults (:func:`deck_fault_hands`: a card of the spare deck, a tag of
no deck, a cloned tag), each in hold'em and Omaha. Per reader (:func:`count`): the clean hands
whose zones came out exact (as the script put them: ``rig.scenarios.check_report``'s zones),
the dealer's and floor's alerts on the clean hands (false alerts: must be none), the faults
found (their alert raised at their step; a cloned tag's in the hand: without signal strength the
board tells a clone ``TWIN_CYCLES`` cycles later, docs/decisions/0042-the-bridge-board.md), the
confirmation latency in cycles.

>>> [s.label for s in deck_fault_hands("holdem", 3)[:1]]
['holdem deck faults']
>>> [e[:2] for e in deck_fault_hands("holdem", 3)[0].expected]
[('wrong_deck', 'deck.wrong_deck'), ('unknown_tag', 'deck.unknown_tag'), ('clone', 'deck.cloned_tag')]
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Any

from controller.core.settings import GAMES
from hw_sim.phh import load_phh_hands, phh_script
from hw_sim.random_hands import random_hand_steps, random_script
from rig.faulty import faulty_hands
from rig.scenarios import NOISE, PHH_DIR, check_report, play

__all__ = ["HARSH", "Counts", "Sample", "count", "deck_fault_hands", "hands_of", "table"]

#: the harsh profile (docs/tracking.md) over the suite's noise
HARSH = dict(NOISE, profile="harsh")

#: the faults that count as found anywhere in their hand, not only at their step: a cloned tag, which
#: a reader without signal strength tells only after it has heard the tag in two zones for a while
#: (firmware_bridge.bridge_client.TWIN_CYCLES)
LATE = ("clone",)

#: a tag of no registered deck (DECK-006)
FOREIGN = "tag:E0040150A05F02B7"


@dataclass
class Sample:
    """A script to deal through both readers: ``expected`` is None for clean hands, else per hand
    ``(fault, code, rule, seat, step)``."""

    label: str
    script: dict[str, Any]
    expected: list[tuple[Any, ...]] | None = None


@dataclass
class Counts:
    """One reader's counts over the samples, and what went wrong where (to look at)."""

    reader: str
    hands: int = 0
    cards: int = 0
    exact: int = 0
    alerts: int = 0
    faults: int = 0
    found: int = 0
    p50: int = 0
    p99: int = 0
    seconds: float = 0.0
    inexact: list[str] = field(default_factory=list)
    false_alerts: list[str] = field(default_factory=list)
    missed: list[str] = field(default_factory=list)
    #: faults found later than their step (a clone, :data:`LATE`), and the other alerts of the
    #: faults' hands (a fault raises what follows from it too)
    late: list[str] = field(default_factory=list)
    others: list[str] = field(default_factory=list)


def deck_fault_hands(game: str, seed: int) -> list[Sample]:
    """Three random hands of ``game`` with a deck fault each: the first seat's second hole card of
    the spare deck (``@B``: ``deck.wrong_deck``, DECK-006), the first board card a tag of no deck
    (``deck.unknown_tag``, DECK-006), the last seat's first hole card carrying the tag of the first
    seat's first card (a clone: ``deck.cloned_tag``, DECK-007)."""
    rng = random.Random(seed)
    hands: list[dict[str, Any]] = []
    expected: list[tuple[Any, ...]] = []
    for fault in ("wrong_deck", "unknown_tag", "clone"):
        seats = sorted(rng.sample(range(1, 11), rng.randint(3, 8)))
        button = rng.choice(seats)
        while True:
            steps = random_hand_steps(rng, game=game, seats=seats, button=button, fold_chance=0.1)
            if any(s.get("to") == "board" for s in steps):
                break
        deals = [i for i, s in enumerate(steps) if "deal" in s and s["to"].startswith("seat:")]
        first, n = steps[deals[0]], len(seats)
        if fault == "wrong_deck":
            i = deals[n]  # the first seat's second card
            steps[i] = dict(steps[i], deal=steps[i]["deal"] + "@B")
            seat: int | None = int(steps[i]["to"].split(":")[1])
        elif fault == "unknown_tag":
            i = next(i for i, s in enumerate(steps) if s.get("to") == "board")
            steps[i] = dict(steps[i], deal=FOREIGN)
            seat = None
        else:
            i = deals[n - 1]  # the last seat's first card, a second tag of the first card's UID
            steps[i] = dict(steps[i], deal=first["deal"], clone=True)
            seat = int(steps[i]["to"].split(":")[1])  # (the second card's place)
        code, rule = {"wrong_deck": ("deck.wrong_deck", "DECK-006"), "unknown_tag": ("deck.unknown_tag", "DECK-006"),
                      "clone": ("deck.cloned_tag", "DECK-007")}[fault]
        hands.append({"seats": seats, "button": button, "steps": steps})
        expected.append((fault, code, rule, seat, i + 1))
    script = {"format": 1, "game": game, "seats": hands[0]["seats"], "button": hands[0]["button"],
              "noise": dict(HARSH, seed=seed), "hands": hands}
    return [Sample(f"{game} deck faults", script, expected)]


def hands_of(*, random_hands: int = 2, phh: int = 0, seed: int = 40,
             games: tuple[str, ...] | None = None) -> list[Sample]:
    """The side-by-side sample (the module's docstring): ``random_hands`` clean hands of each game
    (of ``games``, every game by default), ``phh`` PHH hands of hold'em and of Omaha (0: all of
    them; None: none)."""
    samples: list[Sample] = []
    if phh is not None:
        loaded = load_phh_hands(PHH_DIR)
        for game in ("holdem", "omaha"):
            mine = [h for _, h, g in loaded if g == game]
            mine = mine[:phh] if phh else mine
            samples.append(Sample(f"PHH {game}", phh_script(mine, game=game, noise=dict(HARSH, seed=9))))
    for i, game in enumerate(sorted(GAMES)):
        if games is None or game in games:
            samples.append(Sample(f"random {game}", random_script(seed + i, hands=random_hands, game=game,
                                                                  vary_seats=True, noise=dict(HARSH, seed=seed + i))))
    for game, fseed in (("holdem", 11), ("omaha", 12)):
        hands, expected = faulty_hands(game, fseed)
        script = {"format": 1, "game": game, "seats": hands[0]["seats"], "button": hands[0]["button"],
                  "noise": dict(HARSH, seed=fseed), "hands": hands}
        samples.append(Sample(f"{game} dealer's faults", script, [e[:5] for e in expected]))
        samples.extend(deck_fault_hands(game, fseed + 100))
    return samples


def _loud(hand: dict[str, Any]) -> list[dict[str, Any]]:
    return [a for a in hand["alerts"] if a["audience"] in ("dealer", "floor")]


def count(reader: str, samples: list[Sample]) -> Counts:
    """Deal every sample through ``reader`` (``feig`` or ``bridge``, in process) and count."""
    c = Counts(reader)
    t0 = time.monotonic()
    for sample in samples:
        report = play(sample.script, reader=reader)
        if sample.expected is None:
            c.hands += len(sample.script["hands"])
            c.cards += report["tracking"]["cards"]
            c.p50 = max(c.p50, report["tracking"]["confirm_cycles"]["p50"])
            c.p99 = max(c.p99, report["tracking"]["confirm_cycles"]["p99"])
            for i, (hand, got) in enumerate(zip(sample.script["hands"], report["hands"], strict=True), 1):
                loud = _loud(got)
                c.alerts += len(loud)
                c.false_alerts += [f"{sample.label}, hand {i}, step {a['step']}: {a['code']} ({a['rule']})"
                                   for a in loud]
                try:
                    check_report({"hands": [hand]}, {"hands": [dict(got, alerts=[])]})
                    c.exact += 1
                except AssertionError:
                    c.inexact.append(f"{sample.label}, hand {i}")
            continue
        for (fault, code, rule, seat, step), got in zip(sample.expected, report["hands"], strict=True):
            c.faults += 1
            mine = [a for a in got["alerts"] if (a["code"], a["rule"], a.get("seat")) == (code, rule, seat)]
            at = [a["step"] for a in mine if a["step"] == step or (fault in LATE and a["step"] >= step)]
            if at:
                c.found += 1
                if at[0] != step:
                    c.late.append(f"{sample.label}: {fault} ({code}) at step {at[0]}, dealt at step {step}")
            else:
                c.missed.append(f"{sample.label}: {fault} ({code} at step {step}): "
                                f"{[(a['code'], a['step']) for a in got['alerts']]}")
            c.others += [f"{sample.label}: {fault}: also {a['code']} at step {a['step']}" for a in got["alerts"]
                         if a["code"] != code and a["audience"] in ("dealer", "floor")
                         and not a["code"].startswith("deck.new_setup")]
    c.seconds = time.monotonic() - t0
    return c


HEADER = ("Reader", "Hands", "Cards confirmed", "Exact", "False alerts", "Faults found", "p50", "p99", "Seconds")


def table(counts: list[Counts]) -> str:
    """The counts side by side, as a Markdown table (decision 0042's).

    >>> print(table([Counts("feig", hands=2, cards=40, exact=2, faults=3, found=3, p50=1, p99=2, seconds=1.5)]))
    | Reader | Hands | Cards confirmed | Exact | False alerts | Faults found | p50 | p99 | Seconds |
    |---|---|---|---|---|---|---|---|---|
    | feig | 2 | 40 | 2 | 0 | 3 of 3 | 1 | 2 | 2 |
    """
    rows = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for c in counts:
        rows.append(f"| {c.reader} | {c.hands:,} | {c.cards:,} | {c.exact:,} | {c.alerts} | {c.found} of {c.faults} "
                    f"| {c.p50} | {c.p99} | {c.seconds:,.0f} |")
    return "\n".join(rows)
