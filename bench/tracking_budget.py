"""The false-move budget of docs/tracking.md, computed from the read model (no simulation).

For each noise profile (``hw_sim.noise``: the parameters are read from there) it gives, per card
and per hand (``N`` = 1,000 reader cycles on the table: four minutes at four cycles a second):

- a false *move*: evidence for a zone the card does not lie in reaching ``2 * confirm_cycles``
  points before the card is read strongest at home again (an absorbing Markov chain over the
  points, with the per-cycle chances of a firm and of a weak read at the wrong zone);
- a false *expected arrival*: a card pitched next to the seat where it was due (a dealer's slip)
  confirmed at the due seat, from the prior, in the cycles before its true zone confirms it;
- a false *departure*: a card silent ``gone_cycles`` cycles in a row while it lies there (a
  forward pass over the profile's burst and lift states, restricted to silent cycles), for a
  seat's card (lifts) and for one in a stacked muck (missed a fifth of the time all hand long);
- a false *gather*: the four tags of the smallest hand still on the table (two hole cards of
  one seat, lifted together, and two in the muck) all silent ``GATHER_CYCLES`` cycles together,
  over the 200 cycles of a last betting round in which the table expects the gather.

RSSI is modelled as normal around each antenna's mean (the standard profile's uniform ranges,
170-230 and 60-120, have the same mean and spread; the normal's tails are the margin), with the
levels ``tablectl calibrate`` gives (the mean less 50; uncalibrated, 150 for every antenna).

    .venv/bin/python bench/tracking_budget.py
"""

from __future__ import annotations

import math
import sys
from itertools import product
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from controller.core.tracker import FIRM_MARGIN, GATHER_CYCLES  # noqa: E402
from hw_sim.noise import Harsh  # noqa: E402

N = 1000  # cycles a card is on the table in a long hand
W = 200  # cycles of the last betting round, in which the gather is expected
K = 6  # cycles a mis-pitched card is new and unconfirmed, at most (its true zone confirms it)
MISS, CROSSTALK = 0.05, 0.01


def tail(z: float) -> float:
    """P(a standard normal > z)."""
    return 0.5 * math.erfc(z / math.sqrt(2))


def reach(p_firm: float, p_weak: float, p_reset: float, start: int, target: int) -> float:
    """P(points go from ``start`` to ``target`` before a reset): firm +2, weak +1, else stay."""
    p = [1.0] * (target + 2)
    move = p_firm + p_weak + p_reset
    for k in range(target - 1, start - 1, -1):
        p[k] = (p_firm * p[k + 2] + p_weak * p[k + 1]) / move
    return p[start]


def silent_run(miss: float, burst: float, lift: float, cycles: int, cards: int = 1) -> float:
    """P(``cards`` tags lying on one antenna (a seat's, lifted together) all unheard for
    ``cycles`` cycles in a row, from the chain's stationary state): the profile's bursts
    (2-5 cycles, each card its own) and lifts (2-6 cycles; then each card is missed half the
    time at home and heard by a neighbour half the time)."""
    bursts = range(0, Harsh.BURST_LEN[1])  # cycles of a burst still to come, per card
    lifts = range(0, Harsh.LIFT_LEN[1] + 1)
    states = list(product(lifts, *[bursts] * cards))

    def step(state: tuple[int, ...]) -> list[tuple[float, tuple[int, ...], bool]]:
        """(probability, next state, every card silent) of one cycle."""
        out = []
        lo, hi = Harsh.LIFT_LEN
        l0 = state[0]
        if l0 > 1:
            lift_next = [(1.0, l0 - 1)]
        else:
            lift_next = [(1 - lift, 0)] + [(lift / (hi - lo + 1), n) for n in range(lo, hi + 1)]
        for pl, lnext in lift_next:
            lifted = lnext > 0
            per_card = []
            for b in state[1:]:
                opts = []  # (probability, next burst, silent)
                if b > 0:
                    opts.append((1.0, b - 1, True))
                else:
                    blo, bhi = Harsh.BURST_LEN
                    for n in range(blo, bhi + 1):
                        opts.append((burst / (bhi - blo + 1), n - 1, True))
                    rest = 1 - burst
                    heard_home = 1 - miss
                    if lifted:
                        heard_home *= 1 - Harsh.LIFT_MISS
                    xt = Harsh.LIFT_CROSSTALK if lifted else CROSSTALK
                    p_silent = (1 - heard_home) * (1 - xt)
                    opts.append((rest * p_silent, 0, True))
                    opts.append((rest * (1 - p_silent), 0, False))
                # (in a burst the home antenna misses; a neighbour may still hear crosstalk: ignored,
                # which counts more silence, never less)
                per_card.append(opts)
            for combo in product(*per_card):
                p = pl * math.prod(o[0] for o in combo)
                out.append((p, (lnext, *(o[1] for o in combo)), all(o[2] for o in combo)))
        return out

    moves = {s: step(s) for s in states}
    dist = {s: 1.0 / len(states) for s in states}
    for _ in range(300):  # the stationary state
        new = dict.fromkeys(states, 0.0)
        for s, p in dist.items():
            for q, t, _ in moves[s]:
                new[t] += p * q
        dist = new
    alive = dist
    for _ in range(cycles):  # only the paths on which every card stays silent
        new = dict.fromkeys(states, 0.0)
        for s, p in alive.items():
            for q, t, silent in moves[s]:
                if silent:
                    new[t] += p * q
        alive = new
    return sum(alive.values())


def budget(profile: str, *, confirm_cycles: int = 2, gone_cycles: int = 20, calibrated: bool = True) -> dict:
    target = 2 * confirm_cycles
    if profile == "standard":
        sd = 17.3  # true reads 200 +- 17 (uniform 170-230), crosstalk 90 +- 17 (60-120)
        under = 60.0  # crosstalk's mean under the level (150)
        worst_xt = MISS * CROSSTALK  # a cycle's best read elsewhere: home missed, a neighbour heard it
        p_reset = 1 - MISS  # the home antenna hears it, strongest: the evidence for elsewhere is dropped
        burst = lift = 0.0
        stack_miss = MISS
    else:
        sd = Harsh.SD
        # calibrated, each antenna's level is its mean less 50 and crosstalk 100 under the mean of
        # the antenna that hears it; uncalibrated, the level is 150 and the worst antenna's
        # crosstalk (215 - 100) is 35 under it
        under = 50.0 if calibrated else 150.0 - (Harsh.MEAN + Harsh.SPREAD - Harsh.CROSSTALK_DROP)
        # every cycle taken as a lift's (the worst state): home missed half the time, a neighbour
        # hearing it half the time
        worst_xt = Harsh.LIFT_MISS * Harsh.LIFT_CROSSTALK
        p_reset = 1 - Harsh.LIFT_MISS
        burst, lift = Harsh.BURST, Harsh.LIFT
        stack_miss = Harsh.STACK_MISS
    p_firm = worst_xt * tail((under + FIRM_MARGIN) / sd)
    p_weak = worst_xt * (tail(under / sd) - tail((under + FIRM_MARGIN) / sd))
    move = N * (p_firm * reach(p_firm, p_weak, p_reset, 2, target) + p_weak * reach(p_firm, p_weak, p_reset, 1, target))
    expected = K * (p_firm + p_weak * (p_firm + p_weak) / (p_firm + p_weak + p_reset))
    depart_seat = N * silent_run(MISS, burst, lift, gone_cycles)  # a seat's card, its player lifting it
    depart_muck = N * silent_run(stack_miss, burst, 0.0, gone_cycles)  # in a stacked muck, all hand long
    pair = silent_run(MISS, burst, lift, GATHER_CYCLES, cards=2)
    muck = silent_run(MISS, burst, 0.0, GATHER_CYCLES)
    gather = W * pair * muck * muck
    return {"firm read at the wrong zone, per cycle": p_firm, "weak read there, per cycle": p_weak,
            "move (unexpected)": move, "arrival at the due seat, per mis-pitched card": expected,
            f"departure of a seat's card ({gone_cycles} silent)": depart_seat,
            f"departure from a stacked muck ({gone_cycles} silent)": depart_muck,
            f"gather ({GATHER_CYCLES} silent cycles, 4 tags)": gather}


def main() -> None:
    for profile, allowed in (("standard", 1e-9), ("harsh", 1e-6)):
        print(f"{profile} (budget {allowed:g} per card and hand):")
        for what, p in budget(profile).items():
            print(f"  {what:48} {p:.1e}")
        less = budget(profile, confirm_cycles=1, gone_cycles=18)
        print(f"  {'  with confirm_cycles = 1: move':48} {less['move (unexpected)']:.1e}")
        worst = max(less["departure of a seat's card (18 silent)"], less["departure from a stacked muck (18 silent)"])
        print(f"  {'  with gone_cycles = 18: departure':48} {worst:.1e}")
    print("harsh, uncalibrated (150 for every antenna):")
    for what, p in budget("harsh", calibrated=False).items():
        print(f"  {what:48} {p:.1e}")


if __name__ == "__main__":
    main()
