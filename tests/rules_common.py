"""A clean hold'em hand as a deal script, and a runner that gives each alert as
``(code, rule, seat, audience, step)``: what the rule tests compare. The scripts are dealt in
process (``rig.scenarios.play``: the harness, with the check that nothing secret reached a
public output)."""

from __future__ import annotations

from typing import Any

from rig.scenarios import NOISE, play

SEATS, BUTTON = [1, 2, 4, 6, 9], 9  # deal order 1, 2, 4, 6, 9: small blind 1, big blind 2
HOLE = [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 6), ("3h", 9), ("Qs", 1), ("Jd", 2), ("9c", 4), ("5s", 6), ("4d", 9)]
RD = {"press": "round_done"}
END = {"end": True}


def deal(card: str, to: str | int) -> dict[str, Any]:
    return {"deal": card, "to": to if isinstance(to, str) else f"seat:{to}"}


def hole(pairs=HOLE) -> list[dict[str, Any]]:
    return [deal(c, s) for c, s in pairs]


def street(burn: str | None, *cards: str) -> list[dict[str, Any]]:
    """The tap, the burn, the street's cards."""
    return [dict(RD)] + ([deal(burn, "burn")] if burn else []) + [deal(c, "board") for c in cards]


FLOP = street("8h", "Th", "Tc", "6d")
TURN = street("5d", "Jc")
RIVER = street("Ks", "3c")
CLEAN = hole() + FLOP + TURN + RIVER + [END]  # 22 steps: hole 1-10, tap 11, burn 12, flop 13-15, ...


def step_no(steps: list[dict[str, Any]], card: str) -> int:
    """The 1-based step at which ``card`` is first dealt or moved."""
    return next(i for i, st in enumerate(steps, 1) if st.get("deal") == card or st.get("move") == card)


def run_hands(tmp_path, hands: list[dict[str, Any]], *, seats=SEATS, button=BUTTON, game="holdem",
              seed=3) -> dict[str, Any]:
    """The report of ``hands`` dealt in process (``tmp_path`` is not needed any more: kept so
    the rule tests read as before)."""
    script = {"format": 1, "game": game, "seats": seats, "button": button,
              "noise": dict(NOISE, seed=seed), "hands": hands}
    return play(script)


def alerts_of(hand: dict[str, Any]) -> list[tuple]:
    return [(a["code"], a["rule"], a.get("seat"), a["audience"], a["step"]) for a in hand["alerts"]]


def run(tmp_path, steps: list[dict[str, Any]], **kw: Any) -> list[tuple]:
    [hand] = run_hands(tmp_path, [{"steps": steps}], **kw)["hands"]
    return alerts_of(hand)

HOLE_CARDS = ["As", "Kd", "7c", "2h", "3h", "Qs", "Jd", "9c", "5s", "4d",
              "8c", "Ac", "Ad", "Kc", "Qc", "Qd", "2s", "2d", "3s", "3d"]


def clean_for(order: list[int], *, to: dict[int, str] | None = None) -> list[dict[str, Any]]:
    """A clean hand dealt in ``order`` (two rounds), then flop, turn and river. ``to`` sends a
    seat's cards elsewhere (a penalised seat's to the muck)."""
    to = to or {}
    pairs = [(HOLE_CARDS[i], order[i % len(order)]) for i in range(2 * len(order))]
    return [deal(c, to.get(s, f"seat:{s}")) for c, s in pairs] + FLOP + TURN + RIVER + [END]
