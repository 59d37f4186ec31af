"""An alert's count (issue 15: ``seat 4 short 1`` on the dealer's display) through every place
that writes alerts down: the hand record and the journal (``alert_to_dict``), the room link's
JSON (``route``), the prompt model, the floor; and old data without one (unknown) still taken."""

from __future__ import annotations

import json

from controller.core.effects import Alert, alert_to_dict
from controller.core.prompts import PromptBoard
from controller.core.rules.misdeal import late
from controller.core.rules import Finding
from controller.floor.store import Store
from controller.cli.history import line_of
from controller.room.topics import route

SHORT = Alert(2.0, "misdeal.seat_short", "dealer", "seat 4 got 1 of 2 cards: misdeal", "MISD-007", seat=4,
              hand=7, count=1)
OLD = Alert(2.0, "misdeal.seat_short", "dealer", "seat 4 got 1 of 2 cards: misdeal", "MISD-007", seat=4, hand=7)


def test_the_hand_record_and_the_journal_keep_a_count_and_leave_out_none() -> None:
    assert alert_to_dict(SHORT)["count"] == 1
    assert "count" not in alert_to_dict(OLD)  # (as seat and card: an empty field left out)
    # the history reads records with and without
    for a in (SHORT, OLD):
        assert "misdeal.seat_short(MISD-007)" in line_of({"hand": 7, "ended": 0, "alerts": [alert_to_dict(a)]})


def test_the_room_link_publishes_the_count_on_the_dealers_topic() -> None:
    [(topic, _, _, body)] = route([SHORT], broadcast=False)
    assert topic == "events/dealer" and json.loads(json.dumps(body))["count"] == 1
    [(_, _, _, body)] = route([OLD], broadcast=False)
    assert body["count"] is None


def test_the_prompt_model_carries_the_count_and_a_late_fault_keeps_it() -> None:
    board = PromptBoard()
    assert board.apply([SHORT]).prompt_count == 1
    assert PromptBoard().apply([OLD]).prompt_count is None
    finding = late(Finding("misdeal.seat_short", "MISD-007", "seat 4 got 1 of 2 cards: misdeal", 4, count=2), "play")
    assert (finding.code, finding.count) == ("late_fault.seat_short", 2)
    # the same prompt said again with another count: the newer figure shown
    again = Alert(3.0, "misdeal.seat_short", "dealer", "...", "MISD-007", seat=4, count=2)
    assert board.apply([again]).prompt_count == 2


def test_the_floor_takes_alerts_with_and_without_a_count(tmp_path) -> None:
    st = Store(tmp_path / "floor.db")
    t = "tablectl/main/t7/"
    for seq, count in ((1, 3), (2, None)):
        body = {"type": "Alert", "seq": seq, "ts": 10.0 + seq, "code": "deck.x", "audience": "floor", "hand": 7}
        if count is not None:
            body["count"] = count
        assert st.ingest(t + "events/floor", json.dumps(body).encode()).kind == "alert"
    assert [a["seq"] for a in st.alerts()] == [2, 1]
