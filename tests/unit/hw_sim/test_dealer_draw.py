"""The scripted dealer (hw_sim/dealer.py) plays a draw round and a rebuilt stub onto the simulated
reader's field: discards land on the muck's antenna, gathered cards leave every antenna, and a
gathered card dealt again lies at its new seat. The daemon is left out (a stand-in that answers
every command): what is checked is the physical table the reader sees, through the daemon's own
FEIG client over a virtual line (firmware_bridge.virtual), as the in-process harness drives it."""

from __future__ import annotations

import json
import random

import pytest

from firmware_bridge.feig_client import FeigClient
from firmware_bridge.virtual import VirtualLine
from hw_sim.dealer import ScriptedDealer
from hw_sim.pacing import PacedTable
from hw_sim.decks import card_of_uid, sim_uid
from hw_sim.random_hands import random_hand
from hw_sim.feig_reader import SimFeigReader
from hw_sim.script import Noise, action_of, parse_script
from hw_sim.setup import ANTENNA_OF, ZONES
from rig.scenarios import expected_hand


class _Daemon(PacedTable):
    """A stand-in daemon: each cycle is the simulated reader asked through the daemon's FEIG
    client; every command answered, every alert and hand said."""

    def __init__(self, client: FeigClient) -> None:
        super().__init__()
        self.client = client

    def _cycle(self, instant: float) -> None:
        self.client.inventory(antennas=ZONES.antenna_mask(), deadline_s=1.0)

    def wait_hand_finished(self, hand: int, timeout: float) -> bool:
        return True

    def wait_alert(self, code: str, after: float, timeout: float) -> bool:
        return True

    def _command(self, instant: float, request: dict) -> dict:
        return {"ok": True}


def _table(seed: int):
    line = VirtualLine("reader")
    reader = SimFeigReader(line, antennas=ZONES.by_antenna,
                           noise=Noise(seed=seed, miss=0.05, repeat=0.3, crosstalk=0.01))
    line.receive = reader.receive
    client = FeigClient(line.open_port(), device="reader")
    dealer = ScriptedDealer(reader, ANTENNA_OF, _Daemon(client), confirm_cycles=3, gone_cycles=8)
    return reader, dealer


def where(reader: SimFeigReader, card: str) -> str | None:
    """The zone whose antenna the card lies on, or None (off the table)."""
    uid = sim_uid("A", card)
    for zone, antenna in ANTENNA_OF.items():
        if uid in reader.tags_at(antenna):
            return zone
    return None


def test_discards_go_to_the_muck_and_a_restub_takes_cards_off_every_antenna():
    text = """{"format": 1, "game": "draw27_triple", "seats": [1, 2], "button": 2, "hands": [{"steps": [
      {"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"deal": "7h", "to": "seat:1"},
      {"deal": "2c", "to": "seat:2"},
      {"discard": ["As", "7h"], "from": "seat:1"}, {"deal": "3d", "to": "burn"},
      {"deal": "4d", "to": "seat:1"}, {"deal": "5d", "to": "seat:1"},
      {"restub": ["As", "7h", "9s"]}, {"deal": "7h", "to": "seat:2"}]}]}"""
    reader, dealer = _table(seed=4)
    steps = parse_script(text).hands[0].steps
    seen = []
    for i, step in enumerate(steps[:-1], 1):  # (all but the end: the gather clears the field)
        dealer.play_step(1, i, action_of(step))
        seen.append({c: where(reader, c) for c in ("As", "7h", "Kd", "2c", "3d", "4d", "5d", "9s")})
    assert seen[3] == {"As": "seat:1", "7h": "seat:1", "Kd": "seat:2", "2c": "seat:2",
                       "3d": None, "4d": None, "5d": None, "9s": None}
    assert (seen[4]["As"], seen[4]["7h"], seen[4]["Kd"]) == ("muck", "muck", "seat:2")  # the discard
    assert seen[7]["4d"] == seen[7]["5d"] == "seat:1" and seen[7]["3d"] == "burn"
    assert (seen[8]["As"], seen[8]["7h"], seen[8]["9s"], seen[8]["3d"]) == (None, None, None, "burn")  # gathered
    assert seen[9]["7h"] == "seat:2" and seen[9]["As"] is None  # dealt again from the new stub
    assert dealer.steps_done == 10


def field(reader: SimFeigReader) -> dict[str, list[str]]:
    """Each zone's cards as the reader's field holds them (sorted: the field has no order)."""
    out = {}
    for zone, antenna in ANTENNA_OF.items():
        cards = sorted(card_of_uid(u)[1] for u in reader.tags_at(antenna))
        if cards:
            out[zone] = cards
    return out


@pytest.mark.parametrize("game,seed", [("draw27_triple", 2), ("razz", 3)])
def test_a_generated_hand_with_rebuilt_stubs_leaves_the_field_the_script_describes(game, seed):
    """A whole random hand whose stub is rebuilt (a full draw table; eight razz players to 7th
    street), played by the dealer under noise: before the gather, the reader's field holds what
    the script's steps say (rig.scenarios.expected_hand) and the gathered cards nowhere."""
    seats = list(range(1, 9)) if game != "draw27_triple" else list(range(1, 7))
    hand = random_hand(random.Random(seed), game=game, seats=seats, button=8 if game != "draw27_triple" else 6,
                       fold_chance=0)
    assert any("restub" in s for s in hand.steps)
    reader, dealer = _table(seed)
    steps = parse_script(json.dumps({"format": 1, "game": game, "seats": hand.seats, "button": hand.button,
                                     "hands": [hand.hand()]})).hands[0].steps
    for i, step in enumerate(steps[:-1], 1):
        dealer.play_step(1, i, action_of(step))
    want = expected_hand(hand.steps)
    assert field(reader) == {z: sorted(c) for z, c in want["zones"].items()}
    assert 52 - sum(len(c) for c in field(reader).values()) == want["stub_count"]
