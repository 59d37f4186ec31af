"""Random sessions that go near the guides' last flow rules and do nothing wrong (issue 39), for the
tests and ``bench/random_games.py``: the flow rules' fault prompts and floor notes must stay quiet.

A session of any game deals clean random hands (``hw_sim.random_hands.random_hand``) at one table
whose button moves one seat a hand (stud's dealer's position stands), and adds what a right table
does:

- a single-table satellite opens it (``mode satellite``, the floor's approval before the first
  card: FLOW-007), the button on the last seat as the guide has it; another opens each time the
  button is back on the last seat, a rotation or more later, on the other deck (a ``new_deck``
  press, its hands dealt from that deck: DECK-009);
- a player is away (``seat_absent``) from the second hand, back (``seat_in``) one hand short of
  two full rotations where every seat is dealt every hand (a rotation and a hand at a draw or
  Chinese table, where a seat may sit a hand out): never two full ones (FLOW-006); then another
  player, the hand after, and so on. His
  hand is dealt and killed at DEAL-009's deadline, which prompts the dealer as it must (DEAL-009,
  STUD-011: :data:`ABSENCE_RULES`).

>>> s = flow_session(5, game="holdem", hands=8)
>>> s.script["hands"][0]["steps"][:2]
[{'press': 'mode', 'mode': 'satellite'}, {'floor': 'approve'}]
>>> s.script["hands"][0]["button"] == max(s.script["seats"]), s.away_for == 2 * len(s.script["seats"]) - 1
(True, True)
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from controller.core.settings import next_button
from hw_sim.random_draw import DRAW_TEMPLATES
from hw_sim.random_hands import STUD_GAMES, most_seats, random_hand
from rig.scenarios import check_prompts, expected_hand

SATELLITE = {"press": "mode", "mode": "satellite"}
APPROVE = {"floor": "approve"}
#: the rules an absent seat's own procedure prompts under (its hand dealt, then killed)
ABSENCE_RULES = frozenset({"DEAL-009", "STUD-011"})
#: the flow rules' faults: each must stay quiet in a right session (code -> its rule)
FLOW_FAULTS = {"flow.long_absence": "FLOW-006", "flow.dealt_before_approval": "FLOW-007",
               "flow.satellite_not_rotated": "DECK-009"}


@dataclass
class FlowSession:
    """A session's script, the prompts each hand must give (the generators' ``expect``), and what it
    did: the satellites opened, the absences (seat, first hand away, hands away), ``away_for`` each."""

    script: dict[str, Any]
    expect: list[list[dict[str, Any]]] = field(default_factory=list)
    satellites: int = 0
    absences: list[tuple[int, int, int]] = field(default_factory=list)
    away_for: int = 0

    @property
    def hands_away(self) -> int:
        return sum(n for _, _, n in self.absences)


def flow_session(seed: int, *, game: str, hands: int, noise: dict[str, Any] | None = None,
                 away_for: int | None = None) -> FlowSession:
    """A right session of ``hands`` hands (at least three) of ``game`` (see the module). ``away_for``:
    the hands each player stays away (default: one short of two rotations, see the module)."""
    rng = random.Random(seed)
    seats = sorted(rng.sample(range(1, 11), rng.randint(2, min(most_seats(game), 8))))
    button = max(seats)  # FLOW-007: the satellite's button waits on the last seat
    stud = game in STUD_GAMES
    out, expect, buttons = [], [], []
    for _ in range(hands):
        generated = random_hand(rng, game=game, seats=seats, button=button)
        out.append(generated.hand())
        expect.append(generated.expect)
        buttons.append(button)
        if not stud:
            button = next_button(seats, button)
    session = FlowSession({"format": 1, "game": game, "seats": seats, "button": buttons[0],
                           "noise": noise if noise is not None else {"seed": seed}, "hands": out}, expect)
    first: list[list[dict[str, Any]]] = [[] for _ in out]  # the presses before each hand's first card
    deck, last = "A", None
    for i in range(hands):  # FLOW-007, DECK-009: a satellite on the last seat, each on the other deck
        if buttons[i] == max(seats) and (last is None or i - last >= len(seats)):
            if last is not None:
                deck = "B" if deck == "A" else "A"
                first[i] += [dict(SATELLITE), {"press": "new_deck"}, dict(APPROVE)]
            else:
                first[i] += [dict(SATELLITE), dict(APPROVE)]
            last, session.satellites = i, session.satellites + 1
        if deck != "A":
            out[i]["steps"] = [_of_deck(s, deck) for s in out[i]["steps"]]
    tight = game not in DRAW_TEMPLATES and game != "chinese"  # (every seat dealt every hand)
    session.away_for = away_for if away_for is not None else 2 * len(seats) - 1 if tight else len(seats) + 1
    start = 1
    while start < hands - 1:  # FLOW-006: away from hand ``start`` for ``away_for`` hands, then back
        seat, n = rng.choice(seats), min(session.away_for, hands - 1 - start)
        first[start].append({"press": "seat_absent", "seat": seat})
        if start + n < hands:
            first[start + n].append({"press": "seat_in", "seat": seat})
        session.absences.append((seat, start + 1, n))
        start += n + 1
    for hand, presses in zip(out, first, strict=True):
        hand["steps"][:0] = presses
    return session


def _of_deck(step: dict[str, Any], deck: str) -> dict[str, Any]:
    """``step`` with every card one of ``deck``'s (``As@B``)."""
    step = dict(step)
    for key in ("deal", "move"):
        if key in step:
            step[key] = f"{step[key]}@{deck}"
    for key in ("discard", "restub", "stack"):
        if key in step:
            step[key] = [f"{c}@{deck}" for c in step[key]]
    return step


def flow_faults(report: dict[str, Any]) -> list[tuple[int | None, str, str]]:
    """Every flow fault a report holds: (hand, code, where: alerts or prompts), then those said
    between hands, which no hand's record keeps (None, code, ``between_hands``)."""
    return [(i, item["code"], kind) for i, hand in enumerate(report["hands"], 1)
            for kind in ("alerts", "prompts") for item in hand[kind] if item["code"] in FLOW_FAULTS] + \
           [(None, item["code"], "between_hands") for item in report.get("between_hands", [])
            if item["code"] in FLOW_FAULTS]


def loud_beyond_the_absence(hand: dict[str, Any]) -> list[dict[str, Any]]:
    """A hand's dealer and floor alerts but the absent seat's own procedure (:data:`ABSENCE_RULES`)."""
    return [a for a in hand["alerts"] if a["audience"] in ("dealer", "floor") and a["rule"] not in ABSENCE_RULES]


def check_session(session: FlowSession, report: dict[str, Any]) -> None:
    """Every hand as its steps put the cards (deck ``B``'s named plainly while it is in play), with
    no alert but the absent seat's own (DEAL-009), and the prompts its generator expects. (In a
    draw game the generator plays an absent seat's hand on, where a right table kills it at the
    deadline: its draws then need other cards than the stub count the dealer is told of, so
    DRAW-005's prompt is not compared in those hands.)"""
    away = {h for _, first, n in session.absences for h in range(first, first + n)}
    draw = session.script["game"] in DRAW_TEMPLATES
    for i, (hand, got, want) in enumerate(zip(session.script["hands"], report["hands"], session.expect,
                                              strict=True), 1):
        prompts = got.get("prompts", [])
        if draw and i in away:
            want = [e for e in want if e["rule"] != "DRAW-005"]
            prompts = [p for p in prompts if p["rule"] != "DRAW-005"]
        exp = expected_hand(hand["steps"])
        zones = {z: sorted(c.removesuffix("@B") for c in cards) for z, cards in exp["zones"].items()}
        if any("stack" in s for s in hand["steps"]):  # Chinese poker's stacks: as sets (rig.scenarios)
            assert {z: sorted(c) for z, c in got["zones"].items()} == zones, f"hand {i}: zones"
        else:
            assert got["zones"] == {z: [c.removesuffix("@B") for c in cards] for z, cards in exp["zones"].items()}, \
                f"hand {i}: zones"
        assert (got["stub_count"], got["button"]) == (exp["stub_count"], hand["button"]), f"hand {i}: stub, button"
        loud = loud_beyond_the_absence(got)
        assert loud == [], f"hand {i}: {loud}"
        check_prompts(want, prompts, f"hand {i}")
