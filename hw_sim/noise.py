"""The simulated reader's noise: what one inventory cycle hears of the tags on its antennas.

Two profiles, named in a deal script's ``noise`` (``"profile"``, deal-script.md):

- ``standard`` (the default, the deal script's model): each cycle an antenna misses a tag with
  the chance ``miss``; a neighbouring antenna also hears it with the chance ``crosstalk``, weaker.
  A read at the antenna the tag lies on is 170 to 230 on FEIG's scale, crosstalk 60 to 120.
- ``harsh``: the same, and what a busy table adds (docs/tracking.md gives the figures):

  - misses in bursts: a tag starts a burst of 2 to 5 cycles unread with the chance
    :attr:`Harsh.BURST` each cycle (a card slid under another, a hand over it);
  - a stacked muck: while :attr:`Harsh.STACK` tags or more lie on the muck's antenna, each is
    missed a fifth of the time (tags stacked flat shade one another); so is a stub dropped on a
    stub spot's antenna (STUB-006), where the table has one;
  - a player lifting his cards: a seat holding cards starts a lift of 2 to 6 cycles with the
    chance :attr:`Harsh.LIFT` each cycle; meanwhile its own antenna misses each card half the
    time and a neighbour hears it half the time (a crosstalk burst);
  - the signal varies around its mean: each antenna has its own mean (185 to 215, so that one
    level for all would not do: ``tablectl calibrate``), a read is that mean plus a normal
    spread of :attr:`Harsh.SD`; crosstalk is 100 under the mean of the antenna that hears it.

What a neighbour hears depends on the reader's RF set-up (``setup``, :data:`SETUPS`):

- ``multiplexer`` (the FEIG reader: one transmitter switched over antennas the size of a spot,
  at up to a watt): a card lifted off its spot stays in range of the antennas around it, so a
  lift is a crosstalk burst, as above;
- ``module_per_zone`` (our bridge board: a PN5180 module a zone, a few centimetres of range, its
  field on only while its zone is polled, docs/decisions/0042-the-bridge-board.md): a lifted card
  goes out of its own module's range (missed half the time, as above) and comes nowhere near a
  neighbour's antenna 20-30 cm away, which only then has its field on: a lift brings no crosstalk
  (:attr:`Harsh.LIFT_CROSSTALK` is 0). The independent crosstalk (``crosstalk``, a card at the
  edge of its spot) is kept at the script's rate: more than such a module hears, so that the
  driver's handling of a tag heard in two zones is still exercised.

Both are repeatable: the same seed and the same field give the same reads. The standard
profile draws exactly as the reader always has, so every seed of an existing script reads
the same.

>>> import random
>>> look = Standard(0.0, 0.0, {1: [2], 2: [1]})
>>> look(random.Random(1), [("E0", 1)])
{'E0': [(1, 224)]}
>>> harsh = Harsh(0.05, 0.01, {1: [2], 2: [1]}, seed=3)
>>> sorted(harsh.mean)[:2], 185 <= harsh.mean[1] <= 215
([1, 2], True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

#: What one answered inventory cycle reported: uid -> [(antenna, rssi), ...]
CycleReads = dict[str, list[tuple[int, int]]]

PROFILES = ("standard", "harsh")
#: the readers' RF set-ups a profile knows (the module's docstring): what a lifted card's
#: neighbours hear
SETUPS = ("multiplexer", "module_per_zone")


class Standard:
    """Independent misses and crosstalk (the deal script's model)."""

    STRONG = (170, 230)  # RSSI range at the antenna a tag lies on
    WEAK = (60, 120)  # RSSI range of crosstalk at a neighbouring antenna

    def __init__(self, miss: float, crosstalk: float, neighbours: Mapping[int, Sequence[int]]) -> None:
        self.miss, self.crosstalk, self.neighbours = miss, crosstalk, neighbours

    def __call__(self, rng: random.Random, tags: Sequence[tuple[str, int]], *,
                 strong: tuple[int, int] = STRONG, weak: tuple[int, int] = WEAK) -> CycleReads:
        """The reads of one cycle of the ``tags`` lying where they are (``(uid, antenna)``,
        sorted); ``strong`` and ``weak``: the RSSI ranges (a test may fix them)."""
        reads: CycleReads = {}
        miss, crosstalk = self.miss, self.crosstalk
        # rng.randint(lo, hi) is lo + rng._randbelow(hi - lo + 1): the same draw, without the
        # two calls and the checks around it (every tag, every cycle: the simulator's hot loop)
        below, random_ = rng._randbelow, rng.random  # type: ignore[attr-defined]
        s_lo, s_n = strong[0], strong[1] - strong[0] + 1
        w_lo, w_n = weak[0], weak[1] - weak[0] + 1
        for uid, antenna in tags:
            heard: list[tuple[int, int]] = []
            if random_() >= miss:
                heard.append((antenna, s_lo + below(s_n)))
            if crosstalk and random_() < crosstalk:
                near = self.neighbours.get(antenna) or []
                if near:
                    heard.append((rng.choice(near), w_lo + below(w_n)))
            if heard:
                reads.setdefault(uid, []).extend(heard)
        return reads


class Harsh(Standard):
    """A busy table's noise (the module's docstring): bursts, a stacked muck, lifted cards,
    a signal that varies. Keeps its bursts and lifts from cycle to cycle."""

    BURST = 0.004  # per tag and cycle: a burst of misses starts
    BURST_LEN = (2, 5)
    STACK, STACK_MISS = 20, 0.2  # from this many tags on the muck, each missed this often
    LIFT = 0.004  # per seat holding cards and cycle: its player lifts them
    LIFT_LEN = (2, 6)
    LIFT_MISS, LIFT_CROSSTALK = 0.5, 0.5
    MEAN, SPREAD = 200, 15  # antennas' means: 185 to 215
    SD = 12  # a read's spread around its antenna's mean
    CROSSTALK_DROP = 100  # crosstalk: this far under the mean of the antenna that hears it

    def __init__(self, miss: float, crosstalk: float, neighbours: Mapping[int, Sequence[int]], *,
                 seed: int = 0, muck: int | None = 13, seats: Sequence[int] = tuple(range(1, 11)),
                 stub: int | None = None, setup: str = "multiplexer") -> None:
        """``setup``: the reader's RF set-up (:data:`SETUPS`); a ``module_per_zone`` reader's
        neighbours hear nothing of a lifted card (the module's docstring).

        >>> Harsh(0.05, 0.01, {}).lift_crosstalk, Harsh(0.05, 0.01, {}, setup="module_per_zone").lift_crosstalk
        (0.5, 0.0)
        """
        if setup not in SETUPS:
            raise ValueError(f"unknown RF set-up {setup!r} (set-ups: {', '.join(SETUPS)})")
        super().__init__(miss, crosstalk, neighbours)
        #: the chance a neighbour hears a lifted card, each cycle of the lift
        self.lift_crosstalk = self.LIFT_CROSSTALK if setup == "multiplexer" else 0.0
        own = random.Random(f"harsh-antennas-{seed}")  # (its own stream: the means are the table's)
        ants = sorted(set(neighbours) | {a for near in neighbours.values() for a in near})
        self.mean = {a: self.MEAN + own.randint(-self.SPREAD, self.SPREAD) for a in ants}
        self.muck, self.seats = muck, frozenset(seats)
        #: the antennas a stack shades: the muck's, and a stub spot's where there is one
        self.stacks = tuple(a for a in (muck, stub) if a is not None)
        self._burst: dict[str, int] = {}  # uid -> cycles of its burst still to come
        self._lift: dict[int, int] = {}  # seat antenna -> cycles of its lift still to come

    def _rssi(self, rng: random.Random, mean: float) -> int:
        return min(255, max(0, round(rng.gauss(mean, self.SD))))

    def __call__(self, rng: random.Random, tags: Sequence[tuple[str, int]], *,
                 strong: tuple[int, int] = Standard.STRONG, weak: tuple[int, int] = Standard.WEAK) -> CycleReads:
        """The reads of one cycle of the ``tags`` lying where they are (``(uid, antenna)``,
        sorted). ``strong`` and ``weak`` are not used: a harsh read's strength comes from its
        antenna's mean (the module's docstring)."""
        on: dict[int, int] = {}  # antenna -> the tags lying on it
        for _, antenna in tags:
            on[antenna] = on.get(antenna, 0) + 1
        self._lifts(rng, on)
        stacked = frozenset(a for a in self.stacks if on.get(a, 0) >= self.STACK)
        burst = self._burst
        for uid in [u for u in burst if burst[u] <= 0]:
            del burst[uid]
        reads: CycleReads = {}
        # :meth:`_missed` and :meth:`_heard` (with :meth:`_rssi`) written out in the loop, drawing
        # the same numbers in the same order: every tag, every cycle (a third of a harsh scenario)
        random_, gauss, lift = rng.random, rng.gauss, self._lift
        mean_of, neighbours, sd, drop, default = self.mean.get, self.neighbours, self.SD, self.CROSSTALK_DROP, self.MEAN
        burst_p, stack_miss, miss, lift_miss = self.BURST, self.STACK_MISS, self.miss, self.LIFT_MISS
        lift_crosstalk, crosstalk = self.lift_crosstalk, self.crosstalk
        for uid, antenna in tags:
            lifted = antenna in lift
            # _missed
            if burst.get(uid, 0) > 0:
                burst[uid] -= 1
                missed = True
            elif random_() < burst_p:
                burst[uid] = rng.randint(*self.BURST_LEN) - 1
                missed = True
            else:
                missed = random_() < (stack_miss if antenna in stacked else miss)
            if lifted and not missed:
                missed = random_() < lift_miss
            # _heard
            heard: list[tuple[int, int]] = []
            if not missed:
                heard.append((antenna, min(255, max(0, round(gauss(mean_of(antenna, default), sd))))))
            if random_() < (lift_crosstalk if lifted else crosstalk):
                near = neighbours.get(antenna) or []
                if near:
                    b = rng.choice(near)
                    heard.append((b, min(255, max(0, round(gauss(mean_of(b, default) - drop, sd))))))
            if heard:
                reads.setdefault(uid, []).extend(heard)  # (a clone: two tags, one UID, both heard)
        return reads

    def _lifts(self, rng: random.Random, on: Mapping[int, int]) -> None:
        """A cycle of the players' lifts: each under way goes on (and ends when its seat holds no
        card any more); a seat holding cards may start one."""
        lift = self._lift
        for ant in sorted(lift):
            lift[ant] -= 1
            if lift[ant] <= 0 or ant not in on:
                del lift[ant]
        for ant in sorted(a for a in on if a in self.seats and a not in lift):
            if rng.random() < self.LIFT:
                lift[ant] = rng.randint(*self.LIFT_LEN)

    def _missed(self, rng: random.Random, uid: str, antenna: int, stacked: frozenset[int], lifted: bool) -> bool:
        """Whether the tag ``uid`` goes unread at its own ``antenna`` this cycle: in a burst of
        misses (going on, or starting now), or missed on a stacked muck or by chance; a lifted
        card is missed half the time besides. (The model: :meth:`__call__` writes it out inline,
        and tests/unit/hw_sim/test_noise_draws.py holds the two equal, draw for draw.)"""
        burst = self._burst
        if burst.get(uid, 0) > 0:
            burst[uid] -= 1
            missed = True
        elif rng.random() < self.BURST:
            burst[uid] = rng.randint(*self.BURST_LEN) - 1
            missed = True
        else:
            missed = rng.random() < (self.STACK_MISS if antenna in stacked else self.miss)
        if lifted and not missed:
            missed = rng.random() < self.LIFT_MISS
        return missed

    def _heard(self, rng: random.Random, antenna: int, *, missed: bool, lifted: bool) -> list[tuple[int, int]]:
        """A tag's reads on ``antenna`` (unless ``missed``) and, by crosstalk (a burst of it under
        a lifted card), on a neighbour of it. (The model, as :meth:`_missed`.)"""
        heard: list[tuple[int, int]] = []
        if not missed:
            heard.append((antenna, self._rssi(rng, self.mean.get(antenna, self.MEAN))))
        if rng.random() < (self.lift_crosstalk if lifted else self.crosstalk):
            near = self.neighbours.get(antenna) or []
            if near:
                b = rng.choice(near)
                heard.append((b, self._rssi(rng, self.mean.get(b, self.MEAN) - self.CROSSTALK_DROP)))
        return heard


def profile(name: str, *, seed: int, miss: float, crosstalk: float, neighbours: Mapping[int, Sequence[int]],
            muck: int | None = 13, stub: int | None = None, setup: str = "multiplexer") -> Standard:
    """The noise profile ``name`` (:data:`PROFILES`); ``stub``: a stub spot's antenna, if any;
    ``setup``: the reader's RF set-up (:data:`SETUPS`)."""
    if name == "standard":
        return Standard(miss, crosstalk, neighbours)
    if name == "harsh":
        return Harsh(miss, crosstalk, neighbours, seed=seed, muck=muck, stub=stub, setup=setup)
    raise ValueError(f"unknown noise profile {name!r} (profiles: {', '.join(PROFILES)})")
