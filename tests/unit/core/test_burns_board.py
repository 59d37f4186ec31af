"""Burns and the board (docs/rules.md: BURN, BOARD), one test per rule id in process (the harness)
under noise: the faulty hand raises the alert at the right step; the clean hand raises none.
The dealer taps (``round_done``) before each burn; ``CLEAN`` is: hole cards 1-10, tap 11,
burn 12, flop 13-15, tap 16, burn 17, turn 18, tap 19, burn 20, river 21, end 22."""

from __future__ import annotations

import random

import pytest

from hw_sim.random_draw import random_draw_hand
from hw_sim.random_stud import random_stud_hand
from rig.scenarios import NOISE, play
from tests.rules_common import (
    BUTTON, SEATS, CLEAN, END, FLOP, RD, RIVER, TURN, alerts_of, deal, hole, run, run_hands, street,
)


def run_tapping(tmp_path, steps):
    """``steps`` as the second hand of a table that taps ``round_done`` (the first hand, clean,
    shows it: ``round_done_pad`` = auto turns the premature checks on at the first tap)."""
    first, second = run_hands(tmp_path, [{"steps": CLEAN}, {"seats": SEATS, "button": BUTTON, "steps": steps}])["hands"]
    assert alerts_of(first) == []
    return alerts_of(second)


def test_a_table_that_never_taps_gets_no_premature_prompts(tmp_path):
    # deal-script.md's clean hand has no taps: round_done_pad = auto keeps it clean
    untapped = [st for st in CLEAN if st.get("press") != "round_done"]
    assert run(tmp_path, untapped) == []



def test_BOARD_001_streets_from_arrival_order_and_a_short_flop(tmp_path):
    [hand] = run_hands(tmp_path / "clean", [{"steps": CLEAN}])["hands"]
    assert hand["zones"]["board"] == ["Th", "Tc", "6d", "Jc", "3c"] and hand["alerts"] == []
    # a flop of two cards, then the turn's tap and burn
    short = hole() + street("8h", "Th", "Tc") + TURN + RIVER + [END]
    assert run(tmp_path / "short", short) == [("board.street_short", "BOARD-001", None, "dealer", 16)]


def test_BURN_001_one_burn_before_each_street(tmp_path):
    no_flop_burn = CLEAN[:11] + CLEAN[12:]
    assert run(tmp_path / "a", no_flop_burn) == [("burn.missing", "BURN-001", None, "dealer", 12)]
    no_turn_burn = CLEAN[:16] + CLEAN[17:]
    assert run(tmp_path / "b", no_turn_burn) == [("burn.missing", "BURN-001", None, "dealer", 17)]
    double = CLEAN[:12] + [deal("2c", "burn")] + CLEAN[12:]
    assert run(tmp_path / "c", double) == [("burn.double", "BURN-001", None, "dealer", 13)]
    # a flop card before the burn: the burn that follows is that street's, late
    board_first = CLEAN[:11] + [CLEAN[12], CLEAN[11]] + CLEAN[13:]
    assert run(tmp_path / "d", board_first) == [("burn.missing", "BURN-001", None, "dealer", 12)]


def test_BURN_003_burns_stay_apart_until_the_pot_is_pushed(tmp_path):
    early = CLEAN[:21] + [{"move": "8h", "to": "muck"}, END]
    assert run(tmp_path / "early", early) == [("burn.moved_early", "BURN-003", None, "dealer", 22)]
    folds = [{"muck": f"seat:{s}"} for s in (1, 2, 6, 9)]  # (two hands left at the pot: SHOW-006's prompt)
    pushed = CLEAN[:21] + folds + [{"press": "hand_end"}, {"move": "8h", "to": "muck"}, END]
    assert run(tmp_path / "pushed", pushed) == []


def test_BURN_006_a_flop_game_burns_three(tmp_path):
    extra = CLEAN[:21] + [deal("2c", "burn"), END]  # a burn after the river
    assert run(tmp_path, extra) == [("burn.count_wrong", "BURN-006", None, "dealer", 23)]


def test_BOARD_002_four_card_flop(tmp_path):
    four = hole() + street("8h", "Th", "Tc", "6d", "2c")  # 11-16
    # the procedure: the four scrambled, one drawn (Tc) is the turn's burn
    done = four + [{"move": "Tc", "to": "burn"}, RD, deal("Jc", "board")] + RIVER + [END]
    assert run(tmp_path / "done", done) == [("board.four_card_flop", "BOARD-002", None, "dealer", 16)]
    # the drawn card put back on the stub, and another card burned for the turn
    wrong = four + [{"move": "Tc", "to": "stub"}] + TURN + RIVER + [END]
    assert run(tmp_path / "wrong", wrong) == [("board.four_card_flop", "BOARD-002", None, "dealer", 16),
                                              ("board.extra_card_not_burned", "BOARD-002",
                                               None, "dealer", 19)]


def test_BOARD_003_two_cards_on_the_turn_or_the_river(tmp_path):
    turn = hole() + FLOP + street("5d", "Jc", "2c")  # the second turn card at 19
    done = turn + [{"move": "2c", "to": "burn"}, RD, deal("3c", "board"), END]  # 2c is the river's burn
    assert run(tmp_path / "turn", done) == [("board.two_cards_on_street", "BOARD-003", None, "dealer", 19)]
    river = hole() + FLOP + TURN + street("Ks", "3c", "2c")  # the second river card at 22
    done = river + [{"move": "2c", "to": "stub"}, {"muck": "seat:4"}, END]
    [hand] = run_hands(tmp_path / "river", [{"steps": done}])["hands"]
    assert [(a["code"], a["step"]) for a in hand["alerts"]] == [("board.two_cards_on_street", 22)]
    assert hand["zones"]["board"] == ["Th", "Tc", "6d", "Jc", "3c"]  # 2c is back on the stub


PREMATURE_FLOP = hole() + [deal("8h", "burn"), deal("Th", "board"), deal("Tc", "board"), deal("6d", "board")]
FLOP_PROCEDURE = [{"move": c, "to": "stub"} for c in ("Th", "Tc", "6d")] + street("5d", "Jc", "Ks", "3c")
#: BURN-002 at a premature street's burn (step ``n``): the burn came with no tap before it ("It may
#: be a premature card": the board card that follows says which, BOARD-004..006)
def no_tap(n: int) -> tuple:
    return ("burn.no_tap", "BURN-002", None, "dealer", n)


def test_BOARD_004_premature_flop(tmp_path):
    # no tap before the flop (12-14); the procedure: the flop back on the stub (15-17), tap,
    # burn, a new flop (18-22), the turn with no burn, then the river as usual
    steps = PREMATURE_FLOP + FLOP_PROCEDURE + street(None, "9d") + street("8s", "7h") + [END]
    assert run_tapping(tmp_path / "a", steps) == [no_tap(11), ("board.premature_flop", "BOARD-004", None, "dealer", 12)]
    # the old flop may not make up the new one
    reused = PREMATURE_FLOP + FLOP_PROCEDURE[:3] + street("5d", "Th", "Ks", "3c") + [END]
    assert run_tapping(tmp_path / "b", reused)[2:] == [("board.card_back_on_board", "BOARD-004", None, "dealer", 20)]


def test_BOARD_005_premature_turn(tmp_path):
    steps = hole() + FLOP + [deal("5d", "burn"), deal("Jc", "board")]  # no tap: turn at 17
    steps += [{"move": "Jc", "to": "stub"}] + street("Ks", "3c") + street(None, "9d") + [END]
    assert run_tapping(tmp_path, steps) == [no_tap(16), ("board.premature_turn", "BOARD-005", None, "dealer", 17)]


def test_BOARD_006_premature_river(tmp_path):
    steps = hole() + FLOP + TURN + [deal("Ks", "burn"), deal("3c", "board")]  # no tap: river at 20
    # shuffled back into the stub, the river is dealt again with no burn (here the same card)
    steps += [{"move": "3c", "to": "stub"}] + street(None, "3c") + [END]
    assert run_tapping(tmp_path, steps) == [no_tap(19), ("board.premature_river", "BOARD-006", None, "dealer", 20)]


def test_BOARD_007_no_burn_after_the_reshuffle(tmp_path):
    steps = PREMATURE_FLOP + FLOP_PROCEDURE + street("9d", "8s") + [END]  # burn 9d before the turn: 24
    assert run_tapping(tmp_path, steps) == [no_tap(11), ("board.premature_flop", "BOARD-004", None, "dealer", 12),
                                            ("board.burn_after_reshuffle", "BOARD-007", None, "dealer", 24)]


def test_BOARD_008_a_card_found_face_up_on_the_board_is_used(tmp_path):
    steps = CLEAN[:13] + [{"press": "exposed"}] + CLEAN[13:]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    [alert] = hand["alerts"]
    assert (alert["code"], alert["rule"], alert["step"], alert["card"]) == ("board.exposed_card", "BOARD-008", 14, "Th")
    assert hand["zones"]["board"] == ["Th", "Tc", "6d", "Jc", "3c"]  # used as if face down


def test_BOARD_010_no_rabbit_hunting(tmp_path):
    # everyone but seat 9 folds before the flop; the dealer then deals the flop anyway
    folds = [{"muck": f"seat:{s}"} for s in (1, 2, 4, 6)]  # steps 11-14
    steps = hole() + folds + FLOP + [END]  # tap 15, burn 16, flop 17-19
    assert run(tmp_path / "rabbit", steps) == [("board.rabbit_hunt", "BOARD-010", None, "dealer", 16)]
    assert run(tmp_path / "clean", hole() + folds + [END]) == []


# -- BURN-002: the tap before the burn -----------------------------------------------------------

def test_BURN_002_a_burn_with_no_tap_asks_round_complete_at_the_burn(tmp_path):
    """docs/rules.md (BURN-002): "A burn with no preceding ROUND_DONE → PROMPT 'round complete?'".
    The turn's burn pitched before the tap (CLEAN's tap 16 left out: the burn is step 16) is
    asked about at the burn itself; the players then say the betting was over (the tap) and the
    turn comes: its own prompt, and nothing else follows it."""
    late_tap = CLEAN[:15] + [CLEAN[16], RD] + CLEAN[17:]
    assert late_tap[15] == deal("5d", "burn")
    assert run(tmp_path / "late", late_tap) == [no_tap(16)]
    # each street's tap before its burn raises nothing (the clean hand taps three times)
    assert run(tmp_path / "clean", CLEAN) == []


def test_BURN_002_round_done_pad_true_asks_from_the_first_burn(tmp_path):
    """``[rules] round_done_pad = true``: the table taps from the first burn on, so a flop burned
    with no tap before any tap was ever seen is asked about too (auto would wait for a tap)."""
    untapped_flop = CLEAN[:10] + CLEAN[11:]  # the flop's burn is step 11
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": untapped_flop}]}
    on = play(script, rules_extra="round_done_pad = true")["hands"][0]
    assert alerts_of(on)[0] == no_tap(11)
    auto = play(script)["hands"][0]  # (auto: no tap seen yet at the flop's burn)
    assert no_tap(11) not in alerts_of(auto)


def _drop_tap(steps: list[dict], nth: int) -> tuple[list[dict], int]:
    """``steps`` less the ``nth`` tap (from 1) that comes right before a burn; and the burn's step."""
    taps = [i for i, st in enumerate(steps[:-1]) if st == RD and steps[i + 1].get("to") == "burn"]
    i = taps[nth - 1]
    return steps[:i] + steps[i + 1:], i + 1


@pytest.mark.parametrize("game", ["stud", "razz", "draw27_triple", "badugi"])
def test_BURN_002_in_stud_and_the_draw_games(game):
    """BURN-002's games are FLOP, STUD, DRAW: a stud street's burn (before 5th street) or a draw
    round's burn (the second draw) with no tap before it is asked about; the same hand with
    every tap raises nothing."""
    rng = random.Random(f"burn-002:{game}")
    make = random_stud_hand if game in ("stud", "razz") else random_draw_hand
    h = make(rng, game=game, seats=[1, 3, 5, 7], button=7, fold_chance=0.0)
    script = {"format": 1, "game": game, "seats": h.seats, "button": h.button, "noise": dict(NOISE, seed=11),
              "hands": [h.hand()]}
    assert alerts_of(play(script)["hands"][0]) == []
    steps, burn = _drop_tap(h.steps, 2)
    [hand] = play({**script, "hands": [{**h.hand(), "steps": steps}]})["hands"]
    assert alerts_of(hand) == [no_tap(burn)]
