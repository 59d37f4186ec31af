"""The dealer's ``floor`` pad calls the floor (docs/floor.md): one ``floor.call`` alert to the
floor, and nothing else changes at the table (docs/console.md: no LED, no sound)."""

from __future__ import annotations

import json

from hw_sim.harness import play
from tests.rules_common import BUTTON, CLEAN, SEATS


def script(steps: list) -> dict:
    return {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "hands": [{"steps": steps}]}


def test_the_floor_pad_calls_the_floor_and_changes_nothing_else():
    plain = play(script(CLEAN))
    called = play(script(CLEAN[:5] + [{"press": "floor"}] + CLEAN[5:]))
    calls = [e for _, e in called.seen["floor"] if type(e).__name__ == "Alert" and e.code == "floor.call"]
    assert [(c.audience, c.hand, c.message) for c in calls] == [("floor", 1, "the dealer calls the floor")]
    for audience in ("dealer", "public"):
        assert not [e for _, e in called.seen.get(audience, []) if getattr(e, "code", "") == "floor.call"]
    # the hand is what it was without the call, but for the call in its alerts
    hands = [json.loads(json.dumps(r)) for r in (plain.report["hands"][0], called.report["hands"][0])]
    for h in hands:
        h["alerts"] = [a for a in h.get("alerts", []) if a.get("code") != "floor.call"]
    # the same prompts, those after the press one step later (the press is step 6)
    assert [p["step"] + (p["step"] > 5) for p in hands[0]["prompts"]] == [p["step"] for p in hands[1]["prompts"]]
    assert hands[0]["prompts"], "a clean hand prompts the stub count: the comparison must not be empty"
    for h in hands:
        h["prompts"] = [{k: v for k, v in p.items() if k != "step"} for p in h["prompts"]]
    assert hands[0] == hands[1]
    assert [a["code"] for a in called.report["hands"][0]["alerts"]] == ["floor.call"]
    on_topic = [b for _, b in called.topics["events/floor"] if b.get("code") == "floor.call"]
    assert len(on_topic) == 1 and on_topic[0]["type"] == "Alert"
