"""Issue 40: hands dealt through the bridge board (its firmware's own logic on simulated PN5180s,
the deal script's noise laid on the chips each cycle, hw_sim/bridge_reader.py), against the
script and side by side with the FEIG reader: under the standard noise, a clean hand of every
game and real hands raise no alert with every card where the script put it, and the injected
faults whose alert hangs on a card moved off the zone where it was confirmed (the board's slower
case) raise FEIG's alerts; under the harsh noise (a part of ``rig.side_by_side``'s sample, whose
whole ``bench/bridge_side_by_side.py`` deals and prints), the zones exact, no false alert, and
those faults and the deck faults found on both. In
process (the harness, on its virtual line).

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
from rig.faulty import faulty_hands
from rig.scenarios import NOISE, PHH_DIR, check_report, expected_hand, play
from rig.side_by_side import HARSH, Sample, count, deck_fault_hands, hands_of, table

STANDARD = dict(NOISE, profile="standard")

pytestmark = pytest.mark.slow


def alerts(report: dict) -> list[list[tuple]]:
    return [[(a["code"], a["rule"], a.get("seat"), a["step"]) for a in h["alerts"]] for h in report["hands"]]


def both(script: dict) -> tuple[dict, dict]:
    return play(script, reader="feig"), play(script, reader="bridge")


def where_the_script_put_them(script: dict, report: dict) -> None:
    """Every card the script dealt is where the daemon says, a zone's cards in any order (without
    signal strength a card heard in two zones waits for one to hear it alone, which may confirm
    it a cycle after the next; Chinese poker's stacks arrive together)."""
    assert [{z: sorted(c) for z, c in h["zones"].items()} for h in report["hands"]] == [
        {z: sorted(c) for z, c in expected_hand(h["steps"])["zones"].items()} for h in script["hands"]]


@pytest.mark.parametrize("game", sorted(GAMES))
def test_a_clean_hand_of_every_game_raises_no_alert(game):
    # the board against the script itself (rig.scenarios.expected_hand); a game's second hand,
    # the seats changed: the harsh test's razz below
    script = random_script(40, hands=1, game=game, vary_seats=True, noise=dict(STANDARD, seed=40))
    bridge = play(script, reader="bridge")
    assert alerts(bridge) == [[]]
    where_the_script_put_them(script, bridge)


#: the dealer's faults whose alert hangs on a card moved off the zone where it was confirmed: the
#: board's slower case (three cycles heard at its new zone and not at its old to confirm such a
#: move, FEIG two firm reads: decision 0042, "Without signal strength"). The others raise their
#: alert at a card's first placement; all are dealt through both readers by
#: bench/bridge_side_by_side.py, and through FEIG by test_faults_caught.
MOVED = ("expose_later_card_wrong_burn", "card_off_table", "burn_to_muck", "muck_retrieval", "muck_swap")


def moved_card_faults(noise: dict) -> tuple[dict, list[tuple]]:
    """The hold'em dealer's faults of rig.faulty (seed 11) that are in :data:`MOVED`, as one script."""
    hands, expected = faulty_hands("holdem", 11)
    keep = [i for i, e in enumerate(expected) if e[0] in MOVED]
    hands, expected = [hands[i] for i in keep], [expected[i] for i in keep]
    assert [e[0] for e in expected] == list(MOVED)
    return {"format": 1, "game": "holdem", "seats": hands[0]["seats"], "button": hands[0]["button"],
            "noise": dict(noise, seed=11), "hands": hands}, expected


def test_the_injected_faults_of_a_moved_card_are_found_as_on_feig():
    script, expected = moved_card_faults(STANDARD)
    feig, bridge = both(script)
    assert alerts(bridge) == alerts(feig)
    for (name, code, rule, seat, step, first), got in zip(expected, alerts(bridge), strict=True):
        assert (code, rule, seat, step) in got, f"{name}: {got}"  # rig.faulty's oracle
        assert all(s >= first for *_, s in got), f"{name}: {got}"


def test_real_hands_raise_no_alert():
    # hold'em's PHH hands 5 to 8 (the first four: the harsh test's)
    loaded = [h for _, h, g in load_phh_hands(PHH_DIR) if g == "holdem"][PHH_HANDS:2 * PHH_HANDS]
    script = phh_script(loaded, game="holdem", noise=dict(STANDARD, seed=9))
    bridge = play(script, reader="bridge")
    check_report(script, bridge)  # (the zones exact, in order, and no dealer's or floor's alert)
    assert alerts(bridge) == [[]] * PHH_HANDS


def test_the_board_unplugged_and_plugged_again_is_told_at_its_steps():
    script = random_script(11, hands=2, game="holdem", seats=[1, 3, 5, 8], noise=dict(NOISE, seed=11))
    steps = script["hands"][0]["steps"]
    cut = next(i for i, s in enumerate(steps) if s.get("to") == "burn")
    steps[cut:cut] = [{"unplug": "reader"}, {"plug": "reader"}]
    bridge = play(script, reader="bridge")
    assert [[(a["code"], a["step"]) for a in h["alerts"]] for h in bridge["hands"]] == [
        [("device.reader_offline", cut + 1), ("device.reader_online", cut + 2)], []]


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


#: four real hands, and random hands of razz: two hands of which the second is one the board
#: confirmed wrong while its neighbours heard lifted cards as a FEIG reader's antennas do
#: (``SimBridgeReader.RF_SETUP = "multiplexer"``: a lift's crosstalk burst, which the board's own
#: modules do not hear, hw_sim/noise.py)
PHH_HANDS = 4


def harsh_sample() -> list[Sample]:
    loaded = [h for _, h, g in load_phh_hands(PHH_DIR) if g == "holdem"]
    real = phh_script(loaded[:PHH_HANDS], game="holdem", noise=dict(HARSH, seed=9))
    script, expected = moved_card_faults(HARSH)
    return [Sample("PHH holdem", real),
            *[s for s in hands_of(random_hands=2, phh=None, games=("razz",)) if s.expected is None],
            Sample("holdem dealer's faults of a moved card", script, [e[:5] for e in expected])]


def test_under_the_harsh_noise_the_board_deals_exact_with_no_false_alert_and_finds_the_faults():
    # a part of the bench's sample, the same hands through both readers, counted the same way:
    # every clean hand's zones exact, no false alert, every fault of a moved card found on both
    samples = harsh_sample()
    feig, bridge = count("feig", samples), count("bridge", samples)
    print(table([feig, bridge]))
    assert bridge.false_alerts == [] and bridge.inexact == []
    assert bridge.exact == bridge.hands == feig.hands == PHH_HANDS + 2 and bridge.cards == feig.cards
    assert feig.missed == [] and feig.found == feig.faults == len(MOVED)
    # (a move between two zones where the card was confirmed takes the board three cycles heard
    # at its new zone against FEIG's two firm reads, and the dealer moves on after two reads and a
    # cycle: a miss in that cycle tells the fault a step late; docs/decisions/0042, "Consequences")
    assert bridge.missed == [] and bridge.found == bridge.faults == len(MOVED)


def test_a_fold_heard_at_the_burn_spot_too_on_its_first_cycle_ends_in_the_muck_on_both_readers():
    # three hands under the harsh noise whose last fold (seat 2's, the third hand) is heard in the
    # muck and at the burn spot beside it on its first cycle, in the muck alone on its second, then
    # gathered: the board had no evidence from the first, one read short of the fold's two, and
    # left the card at seat 2 in the hand's record, as in six of the bench's PHH hands (decision
    # 0042, "Consequences"; the reads themselves: tests/unit/firmware_bridge/test_lone_zone_moves.py)
    script = random_script(613, hands=3, game="holdem", vary_seats=True, noise=dict(HARSH, seed=613))
    feig, bridge = both(script)
    check_report(script, feig)
    check_report(script, bridge)  # (every zone exact, the muck in order, and no alert)


def test_the_deck_faults_are_found_on_both_readers():
    # a card of the spare deck and a tag of no deck at their step on both; a clone at its step on
    # FEIG (two full-strength reads), on the board once it has heard the tag in two zones
    # TWIN_CYCLES cycles more than in one (no signal strength: firmware_bridge/bridge_client.py);
    # under the harsh noise (rig.side_by_side.deck_fault_hands)
    samples = deck_fault_hands("holdem", 211)
    feig, bridge = count("feig", samples), count("bridge", samples)
    assert feig.missed == bridge.missed == [] and feig.late == []
    assert feig.found == bridge.found == feig.faults == 3
    assert [x.split(":")[1].split()[0] for x in bridge.late] == ["clone"]
