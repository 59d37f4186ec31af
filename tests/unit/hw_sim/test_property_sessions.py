"""Property (hypothesis): random legal hold'em and Omaha sessions of 2 to 10 seats, any button
(dead ones too), eliminations between hands announced by ``seat_out``, under the noise model,
raise no dealer or floor alert; the daemon moves the button where the dead-button rule says
(DEAL-002..005) and every card ends where it was put. Dealt in process (the harness)."""

from __future__ import annotations

import pytest

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hw_sim.random_hands import random_session
from tests.dead_button import session_expectations
from rig.scenarios import NOISE, expected_hand, play


@settings(max_examples=30, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), game=st.sampled_from(["holdem", "omaha"]),
       hands=st.integers(2, 8), eliminate=st.sampled_from([0.0, 0.15, 0.3, 0.5]),
       miss=st.sampled_from([0.0, 0.05, 0.1]))
@pytest.mark.slow
def test_random_legal_sessions_raise_no_alert(seed, game, hands, eliminate, miss):
    noise = dict(NOISE, seed=seed % 10_000, miss=miss)
    script = random_session(seed, hands=hands, game=game, noise=noise, eliminate=eliminate)
    report = play(script)
    want = session_expectations(script)
    assert len(report["hands"]) == len(script["hands"]) == len(want)
    assert [h["button"] for h in report["hands"]] == [w.button for w in want]
    for i, (hand, got) in enumerate(zip(script["hands"], report["hands"], strict=True), 1):
        loud = [a for a in got["alerts"] if a["audience"] in ("dealer", "floor")]
        assert loud == [], f"hand {i}: {loud}"
        exp = expected_hand(hand["steps"])
        assert got["zones"] == exp["zones"] and got["stub_count"] == exp["stub_count"], f"hand {i}"
