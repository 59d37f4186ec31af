"""An upgraded daemon is restarted between hands, never mid-hand (issue 41): the daemon's ``ping``
says whether a hand is under way (``in_hand``), and setup waits for it to say no."""

from __future__ import annotations

from controller.cli.setup import table
from hw_sim import harness
from hw_sim.harness import play as harness_play
from tests.rules_common import BUTTON, CLEAN, SEATS


def test_the_daemons_status_says_a_hand_is_under_way(monkeypatch):
    """Read where the room's ``state`` is read, at each hand's start and end: true once the hand
    has started, false once it has finished."""
    orig = harness.public_state
    seen = []

    def spy(daemon):
        seen.append(daemon.status()["in_hand"])
        return orig(daemon)

    monkeypatch.setattr(harness, "public_state", spy)
    harness_play({"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
                  "hands": [{"steps": CLEAN}, {"steps": CLEAN}]}, console=False)
    assert seen == [True, False, True, False]


def test_setup_waits_for_the_hand_to_end():
    answers = iter([{"ok": True, "in_hand": True}, {"ok": True, "in_hand": True}, {"ok": True, "in_hand": False}])
    asked = []

    def ask():
        answer = next(answers)
        asked.append(answer["in_hand"])
        return answer

    why = table.wait_between_hands("/run/x.sock", deadline=float("inf"), ask=ask, pause=lambda s: None)
    assert why == "between hands" and asked == [True, True, False]


def test_a_daemon_that_cannot_say_is_restarted_at_once():
    assert table.wait_between_hands("x", deadline=0, ask=lambda: {"ok": True, "hands_finished": 3},
                                    pause=lambda s: None).startswith("the daemon does not say")

    def gone():
        raise ConnectionRefusedError

    assert table.wait_between_hands("x", deadline=0, ask=gone, pause=lambda s: None) == \
        "the daemon does not answer on its control socket"
    assert table.wait_between_hands("x", deadline=0, ask=lambda: {"in_hand": True}, pause=lambda s: None) == \
        "a hand still under way after 30 minutes"
