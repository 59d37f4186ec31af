"""rig/tournament.py, the room's tests' helper: simulated tables (real daemon subprocesses on
simulated devices) over one broker. Two enrolled by ``tablectl room enroll``'s code over the
shipped broker set-up (TLS, passwords, the ACL: tests/e2e/test_room_broker.py's ``room_broker``),
dealt together and a piece at a time, then stopped; three holding for hand-for-hand (this one
needs the core's part of issue 32)."""

from __future__ import annotations

import json
import shutil

import pytest

from rig.broker import Subscriber, have_mosquitto
from rig.tournament import Tournament
from controller.daemon import control
from controller.room.signing import verify
from tests.e2e.test_room_broker import PASSWORDS, room_broker as room_broker, tls  # noqa: F401
from tests.rules_common import BUTTON, CLEAN, SEATS

pytestmark = [pytest.mark.e2e, pytest.mark.skipif(not have_mosquitto(), reason="mosquitto is needed")]


@pytest.mark.skipif(not shutil.which("openssl"), reason="openssl makes the room's certificates")
def test_two_enrolled_tables_deal_together_and_a_piece_at_a_time_then_stop(room_broker, tmp_path):
    b = room_broker
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
              "hands": [{"steps": CLEAN}, {"steps": CLEAN, "seats": SEATS, "button": BUTTON}]}
    room = Tournament(tmp_path / "room", f"mqtts://127.0.0.1:{b.tls_port}", {"a1": script, "a2": script},
                      room="r1", enroll=True, ca_file=b.pki["ca"])
    # the broker takes the enrolled tables' lines, as the room's administrator appends them
    e = room.enrolment
    assert len(e.passwd) == 2 and set(e.floor_tables) == {"r1/a1", "r1/a2"}
    (b.folder / "passwd").write_text((b.folder / "passwd").read_text() + "\n".join(e.passwd) + "\n")
    (b.folder / "acl").write_text((b.folder / "acl").read_text() + "\n" + "\n\n".join(e.acl) + "\n")
    b.stop()
    b.start()
    floor = Subscriber(b.tls_port, ["tablectl/r1/+/hands", "tablectl/r1/+/cmd/reply"], "floor",
                       PASSWORDS["floor"], tls(b)).start()
    hands = {t: f"tablectl/r1/{t}/hands" for t in ("a1", "a2")}
    with room:
        room.play({"a1": 1, "a2": 1})  # hand 1 at both tables, together
        floor.wait(lambda: all(floor.count(hands[t]) == 1 for t in hands), what="hand 1 of both tables at the floor")
        # the floor names a2's dealer over the broker while a2 is idle between its hands
        floor.client.publish("tablectl/r1/a2/cmd", json.dumps({"id": "c-1", "user": "floor:maria", "cmd": "dealer",
                                                                "name": "Ann Lee"}), qos=1).wait_for_publish(5)
        room.wait_until(lambda: floor.json("tablectl/r1/a2/cmd/reply"), what="a2's reply")
        assert floor.json("tablectl/r1/a2/cmd/reply")[0]["ok"] is True
        room.play({"a1": (2, 5)})  # a piece: a1 to hand 2's fifth card
        assert (room["a1"].hands_finished, room["a2"].hands_finished) == (1, 1)
        room.play({"a1": None, "a2": None})  # the rest, together
        reports = {t: room[t].report() for t in hands}
        records = {t: room[t].records for t in hands}
        # what reaches an idle table from outside the simulator's beats (as the room link's
        # signals do; here the floor pad over its control socket) is seen at the next wait
        assert "floor.call" not in room["a2"].alerts
        control.send(room["a2"].sim.daemon.control_path, {"cmd": "press", "name": "floor"}, timeout=10)
        room.wait_until(lambda: "floor.call" in room["a2"].alerts, what="a2's floor call, taken in while idle")
    floor.wait(lambda: all(floor.count(hands[t]) == 2 for t in hands), what="hand 2 of both tables at the floor")
    for t in hands:
        assert [h["zones"]["board"] for h in reports[t]["hands"]] == [["Th", "Tc", "6d", "Jc", "3c"]] * 2
        assert [h["alerts"] for h in reports[t]["hands"]] == [[], []]
        for body in floor.json(hands[t]):  # signed with the key the enrolment gave the floor
            assert verify(e.floor_tables[f"r1/{t}"], body, f"r1/{t}/hands")
    assert records["a2"][2].get("dealer") == "Ann Lee" and "dealer" not in records["a1"][2]
    assert "dealer" not in records["a2"][1]
    floor.stop()
    for t in hands:  # stopped: no daemon left running
        assert room[t].sim.daemon is not None and room[t].sim.daemon.proc is not None
        assert room[t].sim.daemon.proc.poll() is not None


def test_the_tables_hold_for_hand_for_hand_and_a_release_lets_them_deal(broker, tmp_path):
    """Needs the core's part of issue 32 (FLOW-002's prompts). The floor's signals from each
    table's script (hand-for-hand turned on in hand 1, the release at hand 2's first step): each
    table holds after its hand, as the waits see it, until its release."""
    release = {"steps": [{"floor": "release"}] + CLEAN, "seats": SEATS, "button": BUTTON}
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
              "hands": [{"steps": CLEAN[:1] + [{"floor": "h4h", "on": True}] + CLEAN[1:]}, release]}
    with Tournament(tmp_path / "room", broker.url, {"t1": script, "t2": script, "t3": script}) as room:
        assert room.holding() == {"t1": None, "t2": None, "t3": None}
        room.play({"t1": 1, "t2": 1})
        room.wait_until(lambda: room.all_holding("h4h", but=("t3",)), what="t1 and t2 holding")
        assert room["t3"].holding() is None  # still dealing its hand
        room.play({"t3": 1})
        room.wait_until(lambda: room.all_holding("h4h"), what="every table holding")
        room.play({"t1": (2, 1), "t2": (2, 1), "t3": (2, 1)})  # the release
        room.wait_until(lambda: room.holding() == {"t1": None, "t2": None, "t3": None}, what="every table released")
        room.play({"t1": None, "t2": None, "t3": None})
        assert room.all_holding("h4h")  # after hand 2: holding again
        assert room["t1"].report()["holds"] == [{"kind": "h4h", "from_step": 23, "released_step": 24},
                                                {"kind": "h4h", "from_step": 46, "released_step": None}]
