"""The simulated readers' noise by RF set-up (hw_sim/noise.py): a lifted card is a crosstalk burst
at a FEIG reader's antennas (one transmitter switched over antennas the size of a spot) and none at
the bridge board's (a PN5180 module a zone, a few centimetres of range, only the polled zone's
field on: docs/protocols/bridge.md, "The simulated board's noise"); a cloned tag is heard at both
its cards under every profile."""

from __future__ import annotations

import random

import pytest

from hw_sim.bridge_reader import SimBridgeReader
from hw_sim.feig_reader import SimFeigReader
from hw_sim.noise import Harsh, Standard, profile

NEAR = {a: [b for b in (a - 1, a + 1) if 1 <= b <= 13] for a in range(1, 14)}


def looks(setup: str, field: list[tuple[str, int]], cycles: int) -> list[dict]:
    look = profile("harsh", seed=4, miss=0.0, crosstalk=0.0, neighbours=NEAR, setup=setup)
    rng = random.Random(4)
    return [look(rng, field) for _ in range(cycles)]


def test_a_lifted_card_is_heard_by_a_neighbour_of_a_feig_reader_and_by_none_of_the_bridge_s():
    field = [("H1", 5), ("H2", 5)]
    feig, bridge = looks("multiplexer", field, 3000), looks("module_per_zone", field, 3000)
    away = lambda cycles: sum(a != 5 for reads in cycles for rs in reads.values() for a, _ in rs)  # noqa: E731
    assert away(feig) > 20 and away(bridge) == 0
    # a lifted card is missed at its own spot on both (half the time, each cycle of a lift)
    missed = lambda cycles: sum(uid not in reads for reads in cycles for uid in ("H1", "H2"))  # noqa: E731
    assert missed(bridge) > 20 and missed(feig) > 20


def test_the_readers_simulators_say_their_set_up():
    assert SimFeigReader.RF_SETUP == "multiplexer" and SimBridgeReader.RF_SETUP == "module_per_zone"
    with pytest.raises(ValueError, match="unknown RF set-up 'loop'"):
        Harsh(0.0, 0.0, NEAR, setup="loop")


@pytest.mark.parametrize("look", [Standard(0.0, 0.0, NEAR), Harsh(0.0, 0.0, NEAR, seed=1)], ids=["standard", "harsh"])
def test_a_cloned_tag_is_heard_at_both_its_cards(look):
    # two cards, one UID (DECK-007): each card's antenna hears it (the harsh profile once kept the
    # second card's reads only, so that no reader could see a clone under it)
    reads = look(random.Random(1), [("C", 1), ("C", 9)])
    assert sorted(a for a, _ in reads["C"]) == [1, 9]
