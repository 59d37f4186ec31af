"""Issue 18: cards confirmed in one reader cycle, under the harsh noise profile too, with no
false move. Hands dealt straight into the core (``hw_sim.tracking_run``) under each profile of
the simulated reader (``hw_sim.noise``); the harness's own runs of the 500 random and the PHH
hands under the standard profile (tests/unit/hw_sim/test_harness.py, tests/golden/test_phh.py) assert the same
figures through the whole daemon. ``bench/tracking.py`` deals 10,000 hands per game."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from hw_sim.noise import Harsh, Standard
from hw_sim.phh import load_phh_hands, phh_script
from hw_sim.random_hands import random_script
from hw_sim.script import ScriptError, parse_script
from hw_sim.tracking_run import TrackingRun, percentile, run_script
from rig.paths import TESTS

PHH = TESTS / "data" / "phh"
NEAR = {a: [b for b in (a - 1, a + 1) if 1 <= b <= 13] for a in range(1, 14)}


def deal(profile: str, game: str, hands: int, seed: int) -> TrackingRun:
    run = TrackingRun()
    for i in range(0, hands, 10):
        script = parse_script(json.dumps(random_script(seed + i, hands=min(10, hands - i), game=game,
                                                       vary_seats=True)))
        run.add(run_script(script, profile=profile, seed=seed + i, idle=5))
    return run


@pytest.mark.parametrize("profile,p99,per_game", [("standard", 2, 50), ("harsh", 3, 100)])
def test_random_hands_confirm_fast_and_never_falsely(profile, p99, per_game):
    """Random hands of each game (2 to 10 seats): p50 1 cycle, p99 within the issue's bound, no
    false move, no alert to the dealer or the floor. (The standard profile's 500 hands also go
    through the whole daemon in tests/unit/hw_sim/test_harness.py.)"""
    run = deal(profile, "holdem", per_game, 18)
    run.add(deal(profile, "omaha", per_game, 1800))
    assert run.hands == 2 * per_game and len(run.latency) > 2 * per_game * 20
    assert run.false_moves == 0, run.false
    assert run.alerts == []
    assert percentile(run.latency, 50) == 1 and percentile(run.latency, 99) <= p99, Counter(run.latency)
    # the gather: every card of the hand silent for 4 cycles ends it (not gone_cycles = 20)
    assert set(run.gather) == {4}


@pytest.mark.parametrize("profile,p99", [("standard", 2), ("harsh", 3)])
def test_stud_and_triple_draw_hands_confirm_fast_and_never_falsely(profile, p99):
    """A seeded few hands of each new game family (seven-card stud, a triple draw, whose draws
    send discards to the muck and take one burn a round): the issue's bounds, no false move, no
    alert. (bench/tracking.py deals every game the core deals, 10,000 hands each.)"""
    run = deal(profile, "stud", 10, 180)
    run.add(deal(profile, "draw27_triple", 10, 1810))
    assert run.hands == 20 and len(run.latency) > 20 * 30
    assert run.false_moves == 0, run.false
    assert run.alerts == []
    assert percentile(run.latency, 50) == 1 and percentile(run.latency, 99) <= p99, Counter(run.latency)


@pytest.mark.parametrize("game,seed,seats", [("draw27_triple", 2, 6), ("razz", 3, 8)])
def test_a_rebuilt_stub_takes_its_cards_off_the_table_without_a_false_move(game, seed, seats):
    """A full table whose stub is rebuilt (DRAW-005, STUD-007: the gathered cards leave every
    antenna, some dealt again later), under the harsh profile: every card confirmed where it
    lies, no false move, no alert."""
    from hw_sim.random_hands import random_hand

    hand = random_hand(random.Random(seed), game=game, seats=list(range(1, seats + 1)), button=seats,
                       fold_chance=0)
    assert any("restub" in s for s in hand.steps)
    script = parse_script(json.dumps({"format": 1, "game": game, "seats": hand.seats, "button": hand.button,
                                      "hands": [hand.hand()]}))
    run = run_script(script, profile="harsh", seed=seed, idle=5)
    assert run.hands == 1 and run.false_moves == 0, run.false
    assert run.alerts == []
    # every card laid is confirmed once: the cards dealt again after the rebuild counted afresh
    laid = sum(len(s["discard"]) if "discard" in s else 1 for s in hand.steps if "deal" in s or "discard" in s)
    assert len(run.latency) == laid


def test_real_hands_under_the_harsh_profile():
    """Every eighth PHH hand of each game under the harsh profile: p99 within 3 cycles, no false
    move, no alert."""
    run = TrackingRun()
    loaded = load_phh_hands(PHH)
    for game in ("holdem", "omaha", "omaha8"):  # (the FO/8 hands are Omaha hi-lo's)
        mine = [h for _, h, g in loaded if g == game][::8]
        run.add(run_script(parse_script(json.dumps(phh_script(mine, game=game))), profile="harsh", seed=5, idle=5))
    assert run.hands > 40
    assert run.false_moves == 0, run.false
    assert run.alerts == []
    assert percentile(run.latency, 50) == 1 and percentile(run.latency, 99) <= 3


# -- the harsh profile is what the issue describes -------------------------------------------------

def _reads(look, field, cycles, seed=1):
    rng = random.Random(seed)
    return [look(rng, sorted(field.items())) for _ in range(cycles)]


def test_a_stacked_muck_misses_each_tag_a_fifth_of_the_time_and_a_short_one_does_not():
    harsh = Harsh(0.05, 0.0, NEAR, seed=2)
    stack = {f"M{i:02}": 13 for i in range(22)}
    cycles = _reads(harsh, stack, 600)
    missed = sum(uid not in reads for reads in cycles for uid in stack) / (600 * 22)
    assert 0.19 < missed < 0.24  # a fifth, and the bursts on top
    short = {f"M{i:02}": 13 for i in range(19)}  # under 20 tags: the plain miss rate, and bursts
    missed = sum(uid not in reads for reads in _reads(harsh, short, 600) for uid in short) / (600 * 19)
    assert 0.05 < missed < 0.08


def test_misses_come_in_bursts_of_two_to_five_cycles():
    harsh = Harsh(0.0, 0.0, NEAR, seed=3)  # no independent misses: every miss is a burst's
    field = {f"T{i}": 11 for i in range(10)}
    runs: Counter[int] = Counter()
    cycles = _reads(harsh, field, 2000)
    for uid in field:
        silent = 0
        for reads in cycles:
            if uid in reads:
                if silent:
                    runs[silent] += 1
                silent = 0
            else:
                silent += 1
    assert runs and set(runs) <= set(range(2, 11))  # 2 to 5, or bursts back to back
    assert {2, 3, 4, 5} <= set(runs)


def test_a_player_lifting_his_cards_makes_a_crosstalk_burst():
    harsh = Harsh(0.0, 0.0, NEAR, seed=4)  # no crosstalk outside a lift
    cycles = _reads(harsh, {"H1": 5, "H2": 5}, 3000)
    cross = [i for i, reads in enumerate(cycles) if any(a != 5 for rs in reads.values() for a, _ in rs)]
    assert cross, "no lift in 3,000 cycles"
    # both cards of the seat are lifted together, in bursts of cycles close to one another
    assert any(cross[i + 1] - cross[i] <= 2 for i in range(len(cross) - 1))
    for i in cross:
        assert {a for rs in cycles[i].values() for a, _ in rs} <= {4, 5, 6}


def test_the_signal_varies_around_each_antenna_s_own_mean():
    harsh = Harsh(0.0, 0.0, NEAR, seed=5)
    rssi = [r for reads in _reads(harsh, {"A": 2}, 2000) for a, r in reads.get("A", []) if a == 2]
    mean = sum(rssi) / len(rssi)
    sd = (sum((r - mean) ** 2 for r in rssi) / len(rssi)) ** 0.5
    assert abs(mean - harsh.mean[2]) < 1.5 and 10 < sd < 14
    assert len(set(harsh.mean.values())) > 5  # antennas differ: one level for all would not do


def test_the_standard_profile_is_the_deal_script_model():
    rssi = [r for reads in _reads(Standard(0.05, 0.0, NEAR), {"A": 2}, 2000) for _, r in reads.get("A", [])]
    assert 0.93 < len(rssi) / 2000 < 0.97 and min(rssi) >= 170 and max(rssi) <= 230


def test_a_script_names_its_profile():
    base = {"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": [{"deal": "As", "to": "seat:1"}]}]}
    script = parse_script(json.dumps({**base, "noise": {"seed": 3, "miss": 0.05, "profile": "harsh"}}))
    assert script.noise.profile == "harsh"
    assert parse_script(json.dumps(base)).noise.profile == "standard"
    with pytest.raises(ScriptError, match='"noise.profile" must be "standard" or "harsh", got \'bogus\''):
        parse_script(json.dumps({**base, "noise": {"profile": "bogus"}}))


def test_the_harsh_profile_through_the_whole_daemon():
    """A script naming the harsh profile, played in process (the simulated FEIG reader and the
    daemon): every hand exactly right, no alert, and the report's tracking block."""
    from rig.scenarios import check_report, play

    script = random_script(7, hands=4, game="holdem", seats=[1, 2, 3, 4, 5, 6, 7, 8, 9],
                           noise={"seed": 7, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01, "profile": "harsh"})
    report = play(script, console=False)
    check_report(script, report)
    tracking = report["tracking"]
    assert tracking["cards"] > 4 * 20 and tracking["confirm_cycles"]["p50"] == 1
    assert tracking["confirm_cycles"]["p99"] <= 3, tracking


# -- the table's expectation, through Table.apply ------------------------------------------------

class _Table:
    """A table fed cycle by cycle from what lies where (every read firm, 200)."""

    def __init__(self, **kw):
        from controller.core.settings import TableSettings
        from controller.core.table import Table
        from hw_sim.tracking_run import registry

        self.table = Table(TableSettings(seats=(1, 2, 4), button=4, **kw), registry())
        self.field: dict[str, int] = {}
        self.cycle = 0

    def cycles_to_confirm(self, card: str, antenna: int, zone: str) -> int:
        from controller.core.events import ReaderCycle
        from hw_sim.decks import sim_uid

        uid = sim_uid("A", card)
        self.field[uid] = antenna
        for n in range(1, 30):
            self.cycle += 1
            reads = tuple((u, a, 200) for u, a in self.field.items())
            self.table.apply(ReaderCycle(float(self.cycle), "reader", self.cycle, reads))
            if self.table.tracker.location(uid) == zone:
                return n
        raise AssertionError(f"{card} never confirmed at {zone}")

    def cycles_to_end(self) -> int:
        from controller.core.events import ReaderCycle

        self.field.clear()
        before = self.table.hands_finished
        for n in range(1, 40):
            self.cycle += 1
            self.table.apply(ReaderCycle(float(self.cycle), "reader", self.cycle, ()))
            if self.table.hands_finished > before:
                return n
        raise AssertionError("the hand never ended")


def test_where_the_table_expects_the_card_one_cycle_else_confirm_cycles():
    t = _Table()
    # seats 1, 2, 4, button 4: the deal starts at seat 1 (DEAL-001), so seat 2 is out of turn
    assert t.cycles_to_confirm("As", 2, "seat:2") == 2
    t2 = _Table()
    order = [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]
    assert [t2.cycles_to_confirm(c, s, f"seat:{s}") for c, s in order] == [1] * 6
    # then the burn and the flop, the turn's burn and card, the river's (BURN-001)
    street = [("9d", 12, "burn"), ("Th", 11, "board"), ("Jh", 11, "board"), ("4s", 11, "board"),
              ("5c", 12, "burn"), ("6c", 11, "board"), ("8c", 12, "burn"), ("2c", 11, "board")]
    assert [t2.cycles_to_confirm(c, a, z) for c, a, z in street] == [1] * 8
    # a fold of a seat in the hand is expected: one cycle
    assert t2.cycles_to_confirm("As", 13, "muck") == 1
    # the river is out: the gather is expected, and ends the hand 4 cycles after the cards go
    assert t2.cycles_to_end() == 4


def test_a_draw_round_expects_the_discards_in_the_muck_then_the_burn_then_each_seat_s_draw():
    """DRAW-004 (docs/rules.md): the players discard, the dealer burns one card, then deals each
    player as many cards as he threw, in the deal's order. Each card where the round says it
    goes next confirms on its first firm read; a draw card to a seat out of that order needs
    ``confirm_cycles`` (2) reads."""
    from controller.core.expectation import expectation

    t = _Table(game="draw27_triple")  # seats 1, 2, 4, button 4: the deal starts at seat 1
    deck = iter("As Ks Qs Js Ts 9s 8s 7s 6s 5s 4s 3s 2s Ah Kh Qh Jh Th 9h 8h".split())
    hands: dict[int, list[str]] = {1: [], 2: [], 4: []}
    for _ in range(5):
        for seat in (1, 2, 4):
            card = next(deck)
            hands[seat].append(card)
            assert t.cycles_to_confirm(card, seat, f"seat:{seat}") == 1
    assert expectation(t.table.hand, None)[:2] == ("burn", frozenset({"seat:1", "seat:2", "seat:4"}))
    # the discards: seat 1 throws two, seat 4 one, each expected in the muck
    for card in (hands[1][0], hands[1][1], hands[4][0]):
        assert t.cycles_to_confirm(card, 13, "muck") == 1
    assert t.cycles_to_confirm(next(deck), 12, "burn") == 1  # the round's one burn
    assert expectation(t.table.hand, None)[0] == "seat:1"  # seat 1 draws first, its two cards
    assert t.cycles_to_confirm(next(deck), 4, "seat:4") == 2  # seat 4 before seat 1: not expected
    assert [t.cycles_to_confirm(next(deck), 1, "seat:1") for _ in range(2)] == [1, 1]
    assert expectation(t.table.hand, None)[0] == "burn"  # the second draw's burn is next


def test_a_hand_gathered_where_nothing_expects_it_waits_gone_cycles():
    t = _Table(gone_cycles=20)
    for card, seat in [("As", 1), ("Kd", 2)]:  # two cards of the deal, then everything lifted
        t.cycles_to_confirm(card, seat, f"seat:{seat}")
    assert t.cycles_to_end() == 20


def test_simulate_s_text_report_ends_with_the_tracking_line():
    from hw_sim.simulate import format_report

    text = format_report({"hands": [{"button": 2, "zones": {}, "stub_count": 52, "alerts": []}],
                          "tracking": {"cards": 24, "confirm_cycles": {"p50": 1, "p99": 2, "max": 3}}})
    assert text.splitlines()[-1] == ("tracking  24 cards confirmed in 1 reader cycle(s) at the median, "
                                     "2 at the 99th percentile, 3 at most")
    assert "tracking" not in format_report({"hands": [], "tracking": {"cards": 0, "confirm_cycles": {}}})
