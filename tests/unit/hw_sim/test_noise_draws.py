"""The harsh profile's loop (hw_sim/noise.py) draws what its parts say, in their order: its
``__call__`` writes ``_missed``, ``_heard`` and ``_rssi`` out for speed, and must stay the same
model, draw for draw (every harsh script's report depends on it)."""

from __future__ import annotations

import random

import pytest

from hw_sim.noise import Harsh


class _ByParts(Harsh):
    """The cycle as the parts make it, one call each per tag."""

    def __call__(self, rng, tags, **_):  # type: ignore[no-untyped-def, override]
        on: dict[int, int] = {}
        for _, antenna in tags:
            on[antenna] = on.get(antenna, 0) + 1
        self._lifts(rng, on)
        stacked = frozenset(a for a in self.stacks if on.get(a, 0) >= self.STACK)
        for uid in [u for u in self._burst if self._burst[u] <= 0]:
            del self._burst[uid]
        reads: dict[str, list[tuple[int, int]]] = {}
        for uid, antenna in tags:
            lifted = antenna in self._lift
            missed = self._missed(rng, uid, antenna, stacked, lifted)
            heard = self._heard(rng, antenna, missed=missed, lifted=lifted)
            if heard:
                reads.setdefault(uid, []).extend(heard)
        return reads


@pytest.mark.parametrize("setup", ["multiplexer", "module_per_zone"])
def test_the_harsh_loop_draws_as_its_parts(setup):
    near = {a: [b for b in (a - 1, a + 1) if 1 <= b <= 14] for a in range(1, 15)}
    for seed in range(6):
        loop = Harsh(0.05, 0.05, near, seed=seed, setup=setup, stub=14)
        parts = _ByParts(0.05, 0.05, near, seed=seed, setup=setup, stub=14)
        rng_loop, rng_parts, field = random.Random(seed), random.Random(seed), random.Random(seed + 100)
        for cycle in range(300):
            # a stacked muck (13) and stub (14) now and then, seats lifting, clones (one UID twice)
            tags = sorted((f"E0{field.randrange(40):02d}", field.choice([1, 2, 3, 4, 5, 13, 13, 13, 13, 14]))
                          for _ in range(field.randrange(0, 60)))
            assert loop(rng_loop, tags) == parts(rng_parts, tags), (seed, cycle)
        assert rng_loop.getstate() == rng_parts.getstate()
        assert loop._burst == parts._burst and loop._lift == parts._lift
