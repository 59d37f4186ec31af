"""The room link end to end (docs/room.md): ``tablectl simulate --broker`` against a real
mosquitto started by the test; a subscriber on ``tablectl/#`` checks every topic's sequence,
the hands' chain, ``state`` and its will, and that nothing secret reaches ``events/public``."""

from __future__ import annotations

import json
import subprocess

import pytest

from controller.room.outbox import check_chain
from rig.broker import Subscriber, contiguous
from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
from rig.scenarios import NOISE, _CARD, _UID, secret_cards, strings
from tests.e2e.test_simulate_e2e import simulate

pytestmark = pytest.mark.e2e
PREFIX = "tablectl/r1/t9"


def deck_fault_script() -> dict:
    """Two hands: one clean, one with a card of a foreign deck dealt to a seat (a deck fault)."""
    foul = hole()[:3] + [deal("2h@B", 6)] + CLEAN[4:-1] + [END]
    return {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
            "hands": [{"steps": CLEAN}, {"steps": foul}]}


def test_simulate_with_the_broker_publishes_every_topic_in_sequence_and_nothing_secret_in_public(broker, tmp_path):
    sub = Subscriber(broker.port, [f"{PREFIX}/#"]).start()
    script = deck_fault_script()
    r = simulate(tmp_path, script, "--broker", broker.url, "--room", "r1", "--table", "t9")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert len(report["hands"]) == 2
    sub.wait(lambda: sub.count(f"{PREFIX}/hands") >= 2 and
             json.loads(sub.messages.get(f"{PREFIX}/state", [b"{}"])[-1]).get("online") is False,
             what="both hands and the offline state")
    # every sequence contiguous from 1; one hands record per hand, chained
    for topic in ("events/public", "events/dealer", "events/floor", "hands"):
        seqs = sub.by_seq(f"{PREFIX}/{topic}")
        assert seqs and contiguous(seqs), (topic, sorted(seqs)[:20])
    hands = sub.by_seq(f"{PREFIX}/hands")
    assert [h["hand"] for h in hands.values()] == [1, 2]
    assert check_chain([hands[s] for s in sorted(hands)]) == []
    # the deck fault reaches the floor and never the public topic
    floor_codes = [m.get("code") for m in sub.by_seq(f"{PREFIX}/events/floor").values()]
    assert "deck.wrong_deck" in floor_codes
    secrets = {i: secret_cards(h["steps"]) for i, h in enumerate(script["hands"], 1)}
    for m in sub.by_seq(f"{PREFIX}/events/public").values():
        assert m["audience"] == "public" and not str(m.get("code", "")).startswith("deck.")
        for text in strings(m):
            assert not _UID.search(text), m
            assert not ({c.group(1) for c in _CARD.finditer(text)} & secrets[m["hand"]]), m
    # state: online while it ran, with no card or UID; offline (retained) at the end
    states = sub.json(f"{PREFIX}/state")
    online = [s for s in states if s["online"]]
    assert online and online[-1]["game"] == "holdem" and online[-1]["room"] == "r1"
    for s in states:
        for text in strings(s):
            assert not _UID.search(text) and not _CARD.search(text), s
    late = Subscriber(broker.port, [f"{PREFIX}/state"]).start()
    late.wait(lambda: f"{PREFIX}/state" in late.retained, what="the retained state")
    assert json.loads(late.retained[f"{PREFIX}/state"])["online"] is False
    late.stop()
    sub.stop()


def test_simulate_exits_3_naming_what_the_broker_did_not_acknowledge(tmp_path, monkeypatch, capsys):
    """No broker on that port: nothing is acknowledged; status 3, the count named, the report
    still printed. (In process, with the 30 s wait shortened to 1 s.)"""
    from hw_sim import simulate as sim
    from rig.broker import free_port

    monkeypatch.setattr(sim, "ACK_WAIT", 1.0)
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
                                "hands": [{"steps": CLEAN}]}))
    status = sim.main(str(path), as_json=True, broker=f"mqtt://127.0.0.1:{free_port()}")
    out, err = capsys.readouterr()
    assert status == 3, err
    assert "the broker did not acknowledge" in err and "message(s) within 1 s" in err
    n = int(err.split("did not acknowledge ")[1].split()[0])
    assert n >= 10  # at least a hands record and the hand's public effects
    assert json.loads(out)["hands"][0]["stub_count"] == 34


def test_simulate_refuses_a_plain_broker_off_this_host(tmp_path):
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "hands": [{"steps": CLEAN}]}
    r = simulate(tmp_path, script, "--broker", "mqtt://broker.example:1883")
    assert r.returncode == 2
    assert "[room] broker: mqtt:// (no TLS) only for a broker on this host" in r.stderr


def test_the_will_says_offline_when_the_table_vanishes(broker, tmp_path):
    """SIGKILL the daemon after its hand: the broker publishes the will (retained ``state`` offline)."""
    from hw_sim.simulate import room_section, run_script
    from hw_sim.dealer import SimulationError
    from hw_sim.script import parse_script

    sub = Subscriber(broker.port, [f"{PREFIX}/state"]).start()

    def kill(number: int, proc: subprocess.Popen) -> None:
        sub.wait(lambda: any(json.loads(p)["online"] for p in sub.messages.get(f"{PREFIX}/state", [])),
                 what="the online state")
        proc.kill()
        proc.wait()

    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "hands": [{"steps": CLEAN}]}
    with pytest.raises(SimulationError, match="exited"):
        run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_hand=kill,
                   room=room_section(broker.url, "r1", "t9"))
    sub.wait(lambda: json.loads(sub.messages[f"{PREFIX}/state"][-1])["online"] is False, what="the will")
    sub.stop()
