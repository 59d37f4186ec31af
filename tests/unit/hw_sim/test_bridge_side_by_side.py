"""Issue 40: hands dealt through the bridge board (its firmware's own logic on simulated PN5180s,
the deal script's noise laid on the chips each cycle, hw_sim/bridge_reader.py) and through the
FEIG reader, side by side: under the harsh noise (``rig.side_by_side``, whose whole sample
``bench/bridge_side_by_side.py`` deals and prints), the zones exact, no false alert, and the
injected misdeals and deck faults found on both (one move to the muck a step late on the board:
not yet at parity); under the standard noise, the same alerts as FEIG's. In process (the
harness, on its virtual line).

Under the harsh profile the board's neighbours hear nothing of a lifted card, as a module a zone
with only the polled zone's field on does not (hw_sim/noise.py, "module_per_zone";
docs/protocols/bridge.md, "The simulated board's noise"; docs/decisions/0042-the-bridge-board.md)."""

from __future__ import annotations

import json

import pytest

from controller.core.settings import GAMES
from hw_sim.harness import Harness
from hw_sim.phh import load_phh_hands, phh_script
from hw_sim.random_hands import random_script
from hw_sim.script import parse_script
from rig.scenarios import NOISE, PHH_DIR, check_report, play
from rig.faulty import faulty_hands
from rig.side_by_side import HARSH, Sample, count, deck_fault_hands, hands_of, table

STANDARD = dict(NOISE, profile="standard")

pytestmark = pytest.mark.slow


def alerts(report: dict) -> list[list[tuple]]:
    return [[(a["code"], a["rule"], a.get("seat"), a["step"]) for a in h["alerts"]] for h in report["hands"]]


def both(script: dict) -> tuple[dict, dict]:
    return play(script, reader="feig"), play(script, reader="bridge")


@pytest.mark.parametrize("game", sorted(GAMES))
def test_clean_hands_of_every_game_raise_no_alert(game):
    script = random_script(40, hands=2, game=game, vary_seats=True, noise=dict(STANDARD, seed=40))
    feig, bridge = both(script)
    assert alerts(bridge) == alerts(feig) == [[], []]
    # every card the script dealt is where the daemon says (in the order confirmed, for Chinese
    # poker's stacks; a zone's cards in any order: without signal strength a card heard in two
    # zones waits for one to hear it alone, which may confirm it a cycle after the next)
    check_stacks_all = [{z: sorted(c) for z, c in h["zones"].items()} for h in bridge["hands"]]
    assert check_stacks_all == [{z: sorted(c) for z, c in h["zones"].items()} for h in feig["hands"]]


def test_the_injected_faults_are_found_as_on_feig():
    hands, expected = faulty_hands("holdem", 11)
    script = {"format": 1, "game": "holdem", "seats": hands[0]["seats"], "button": hands[0]["button"],
              "noise": dict(STANDARD, seed=11), "hands": hands}
    feig, bridge = both(script)
    assert alerts(bridge) == alerts(feig)
    found = sum((code, rule, seat, step) in got
                for (_, code, rule, seat, step, _), got in zip(expected, alerts(bridge), strict=True))
    assert found == len(expected) == len(hands)


def test_real_hands_raise_no_alert():
    loaded = [h for _, h, g in load_phh_hands(PHH_DIR) if g == "holdem"][:8]
    script = phh_script(loaded, game="holdem", noise=dict(STANDARD, seed=9))
    feig, bridge = both(script)
    check_report(script, feig)
    assert alerts(bridge) == alerts(feig) == [[]] * 8


def test_the_board_unplugged_and_plugged_again_is_told_at_its_steps():
    script = random_script(11, hands=2, game="holdem", seats=[1, 3, 5, 8], noise=dict(NOISE, seed=11))
    steps = script["hands"][0]["steps"]
    cut = next(i for i, s in enumerate(steps) if s.get("to") == "burn")
    steps[cut:cut] = [{"unplug": "reader"}, {"plug": "reader"}]
    feig, bridge = both(script)
    assert alerts(bridge) == alerts(feig)
    assert [(a["code"], a["step"]) for a in bridge["hands"][0]["alerts"]] == [
        ("device.reader_offline", cut + 1), ("device.reader_online", cut + 2)]


def test_chips_that_freeze_now_and_then_cost_cycles_not_cards():
    # a zone's chip freezing (as PN5180s do when a card is put on or taken off): the board resets
    # the chips and says so, the host drops that cycle (its cards unknown, not gone), the hands
    # come out exact with no alert
    script = random_script(12, hands=3, game="holdem", vary_seats=True, noise=dict(STANDARD, seed=12))
    table = Harness(parse_script(json.dumps(script)), reader="bridge")
    chips = table.reader.board.chips
    freezes = 0

    def freeze(zone: int) -> None:
        nonlocal freezes
        original(zone)
        if zone == 1 and table.reader.cycles % 7 == 3:  # every seventh cycle, a seat's chip in turn
            chips[1 + freezes % 10].faults.stick_after = 5
            freezes += 1

    original = table.reader.board.on_field
    table.reader.board.on_field = freeze
    report = table.play().report
    check_report(script, report)
    assert freezes > 10 and sum(c.resets for c in chips.values()) > 10 * 13
    assert table.daemon.reader.stats.events["cycles dropped (error status)"] >= 10


#: four real hands, and random hands of three games of which two (razz's and badugi's second) the
#: board confirmed wrong while its neighbours heard lifted cards as a FEIG reader's antennas do
#: (``SimBridgeReader.RF_SETUP = "multiplexer"``: a lift's crosstalk burst, which the board's own
#: modules do not hear, hw_sim/noise.py)
PHH_HANDS = 4


def harsh_sample() -> list[Sample]:
    loaded = [h for _, h, g in load_phh_hands(PHH_DIR) if g == "holdem"]
    real = phh_script(loaded[:PHH_HANDS], game="holdem", noise=dict(HARSH, seed=9))
    return [Sample("PHH holdem", real),
            *[s for s in hands_of(random_hands=2, phh=None, games=("holdem", "razz", "badugi"))
              if not s.label.startswith("omaha")]]


def test_under_the_harsh_noise_the_board_deals_exact_with_no_false_alert_and_finds_the_faults():
    # a part of the bench's sample, the same hands through both readers, counted the same way:
    # every clean hand's zones exact, no false alert, every dealer's and deck fault found on both
    samples = harsh_sample()
    feig, bridge = count("feig", samples), count("bridge", samples)
    print(table([feig, bridge]))
    assert bridge.false_alerts == [] and bridge.inexact == []
    assert bridge.exact == bridge.hands == feig.hands == 10 and bridge.cards == feig.cards
    assert feig.missed == [] and feig.found == feig.faults == 29 + 3
    # Not yet at FEIG's parity (docs/decisions/0042-the-bridge-board.md, "Consequences"): a move
    # between two zones where the card was confirmed takes the board three lone reads against
    # FEIG's two, and the dealer moves on after two reads and a cycle: the burn pushed into the
    # muck here is told at the dealer's next step. When the board catches up, this list empties.
    assert bridge.missed == ["holdem dealer's faults: burn_to_muck (burn.moved_early at step 24): "
                             "[('burn.moved_early', 25)]"]
    assert bridge.found == bridge.faults - 1


def test_the_deck_faults_are_found_on_both_readers():
    # a card of the spare deck and a tag of no deck at their step on both; a clone at its step on
    # FEIG (two full-strength reads), on the board once it has heard the tag in two zones
    # TWIN_CYCLES cycles more than in one (no signal strength: firmware_bridge/bridge_client.py)
    samples = deck_fault_hands("omaha", 7) + deck_fault_hands("holdem", 211)
    feig, bridge = count("feig", samples), count("bridge", samples)
    assert feig.missed == bridge.missed == [] and feig.late == []
    assert feig.found == bridge.found == feig.faults == 6
    assert [x.split(":")[1].split()[0] for x in bridge.late] == ["clone"]
