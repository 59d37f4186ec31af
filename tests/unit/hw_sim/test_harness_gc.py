"""hw_sim/harness.py's garbage collection around a play: no full collection during it, the
heap as it was before set aside and given back, the play's own garbage (the harness itself)
collected at its end, whatever the play raised."""

from __future__ import annotations

import gc
import weakref

import pytest

from hw_sim import harness
from hw_sim.script import ScriptError


def test_a_play_leaves_the_collector_as_it_found_it_and_takes_its_harness_with_it(monkeypatch):
    before = gc.get_threshold(), gc.get_freeze_count()
    made: list[weakref.ref] = []
    real = harness.Harness.__init__

    def spy(self, *a, **kw):  # type: ignore[no-untyped-def]
        made.append(weakref.ref(self))
        real(self, *a, **kw)

    monkeypatch.setattr(harness.Harness, "__init__", spy)
    script = {"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,
              "hands": [{"steps": [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"end": True}]}]}
    played = harness.play(script, console=False)
    assert played.report["hands"][0]["zones"] == {"seat:1": ["As"], "seat:2": ["Kd"]}
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    assert made and made[0]() is None, "the harness (a cycle) was collected at the play's end"
    # a play that raises inside the collector's hold (the harness refuses a power cut as it is
    # built): the hold undone all the same. (A malformed script raises before the hold: ScriptError.)
    with pytest.raises(harness.HarnessUnsupported):
        harness.play(dict(script, crash_after=1), console=False)
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
    assert harness._GC_SAVED == []
    with pytest.raises(ScriptError):
        harness.play({"format": 1, "game": "holdem"})
    assert (gc.get_threshold(), gc.get_freeze_count()) == before


def test_no_full_collection_during_a_play_and_a_callers_frozen_objects_stay_frozen():
    threshold = gc.get_threshold()
    with harness._no_full_collections():
        assert gc.get_threshold()[2] > 10**6 and gc.get_threshold()[:2] == threshold[:2]
        with harness._no_full_collections():  # (a play inside another, or in another thread)
            pass
        assert gc.get_threshold()[2] > 10**6
    assert gc.get_threshold() == threshold
    # (the caller's frozen objects are out of the collector's generations: gc.get_objects() leaves
    # them out. Not gc.get_freeze_count(): a frozen object may die meanwhile, and the count drop)
    sentinel = [object()]
    gc.freeze()
    try:
        assert not any(o is sentinel for o in gc.get_objects())
        with harness._no_full_collections():
            pass
        assert not any(o is sentinel for o in gc.get_objects()), "the play unfroze the caller's objects"
    finally:
        gc.unfreeze()
