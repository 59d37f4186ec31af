"""Burns and the board (docs/rules.md: BURN, BOARD), one test per rule id in process (the harness)
under noise: the faulty hand raises the alert at the right step; the clean hand raises none.
The dealer taps (``round_done``) before each burn; ``CLEAN`` is: hole cards 1-10, tap 11,
burn 12, flop 13-15, tap 16, burn 17, turn 18, tap 19, burn 20, river 21, end 22."""

from __future__ import annotations


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


def test_BOARD_004_premature_flop(tmp_path):
    # no tap before the flop (12-14); the procedure: the flop back on the stub (15-17), tap,
    # burn, a new flop (18-22), the turn with no burn, then the river as usual
    steps = PREMATURE_FLOP + FLOP_PROCEDURE + street(None, "9d") + street("8s", "7h") + [END]
    assert run_tapping(tmp_path / "a", steps) == [("board.premature_flop", "BOARD-004", None, "dealer", 12)]
    # the old flop may not make up the new one
    reused = PREMATURE_FLOP + FLOP_PROCEDURE[:3] + street("5d", "Th", "Ks", "3c") + [END]
    assert run_tapping(tmp_path / "b", reused)[1:] == [("board.card_back_on_board", "BOARD-004", None, "dealer", 20)]


def test_BOARD_005_premature_turn(tmp_path):
    steps = hole() + FLOP + [deal("5d", "burn"), deal("Jc", "board")]  # no tap: turn at 17
    steps += [{"move": "Jc", "to": "stub"}] + street("Ks", "3c") + street(None, "9d") + [END]
    assert run_tapping(tmp_path, steps) == [("board.premature_turn", "BOARD-005", None, "dealer", 17)]


def test_BOARD_006_premature_river(tmp_path):
    steps = hole() + FLOP + TURN + [deal("Ks", "burn"), deal("3c", "board")]  # no tap: river at 20
    # shuffled back into the stub, the river is dealt again with no burn (here the same card)
    steps += [{"move": "3c", "to": "stub"}] + street(None, "3c") + [END]
    assert run_tapping(tmp_path, steps) == [("board.premature_river", "BOARD-006", None, "dealer", 20)]


def test_BOARD_007_no_burn_after_the_reshuffle(tmp_path):
    steps = PREMATURE_FLOP + FLOP_PROCEDURE + street("9d", "8s") + [END]  # burn 9d before the turn: 24
    assert run_tapping(tmp_path, steps) == [("board.premature_flop", "BOARD-004", None, "dealer", 12),
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
