"""Misdeals (docs/rules.md: MISD), one test per rule id, each dealt in process under noise (the harness):
the faulty hand raises the alert at the right step and seat; the same hand dealt cleanly
(``CLEAN``, ``test_clean_hand_raises_nothing``) raises none."""

from __future__ import annotations

from tests.rules_common import CLEAN, END, FLOP, HOLE, RIVER, TURN, alerts_of, deal, hole, run, run_hands



def test_clean_hand_raises_nothing(tmp_path):
    assert run(tmp_path, CLEAN) == []


def test_MISD_001_either_of_the_first_two_cards_exposed(tmp_path):
    for after in (1, 2):
        steps = CLEAN[:after] + [{"press": "exposed"}] + CLEAN[after:]
        assert run(tmp_path / str(after), steps) == [
            ("misdeal.first_two_cards_exposed", "MISD-001", after, "dealer", after + 1)]


def test_MISD_002_a_second_exposed_card_in_the_deal(tmp_path):
    # the dealer declares the misdeal after the flag: nothing more is checked in the dead hand
    steps = CLEAN[:4] + [{"press": "exposed"}] + CLEAN[4:7] + [{"press": "exposed"}, {"press": "misdeal"}] + CLEAN[7:]
    assert run(tmp_path, steps) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5),
                                    ("misdeal.second_exposed_card", "MISD-002", 2, "dealer", 9)]


def test_MISD_003_boxed_cards_one_is_the_burn_two_are_a_misdeal(tmp_path):
    one = CLEAN[:5] + [{"press": "boxed"}] + CLEAN[5:]
    assert run(tmp_path / "one", one) == [("deal.boxed_card_becomes_burn", "MISD-003", None, "dealer", 6)]
    two = CLEAN[:5] + [{"press": "boxed"}] + CLEAN[5:8] + [{"press": "boxed"}] + CLEAN[8:]
    assert run(tmp_path / "two", two) == [("deal.boxed_card_becomes_burn", "MISD-003", None, "dealer", 6),
                                          ("misdeal.second_boxed_card", "MISD-003", None, "dealer", 10)]


def test_MISD_004_first_card_to_the_wrong_seat(tmp_path):
    steps = [deal("As", 2), deal("Kd", 1)] + CLEAN[2:]  # seats 2 then 1
    assert run(tmp_path, steps) == [("misdeal.first_card_wrong_seat", "MISD-004", 2, "dealer", 1)]


def test_MISD_004_heads_up_the_first_card_to_the_button_is_the_wrong_seat(tmp_path):
    """DEAL-002: heads-up the button is the small blind and is dealt LAST; the big blind gets
    the first card. Seats 3 and 8, button 8: the first card is due at seat 3."""
    heads_up = {"seats": [3, 8], "button": 8}
    pairs = [("As", 3), ("Kd", 8), ("Qs", 3), ("Jd", 8)]
    clean = hole(pairs) + FLOP + TURN + RIVER + [END]
    assert run(tmp_path / "clean", clean, **heads_up) == []
    wrong = hole([("As", 8), ("Kd", 3), ("Qs", 8), ("Jd", 3)]) + FLOP + TURN + RIVER + [END]
    assert run(tmp_path / "wrong", wrong, **heads_up) == [
        ("misdeal.first_card_wrong_seat", "MISD-004", 8, "dealer", 1),
        # and at the tap the deal is seen to have gone round from seat 3 as the button (MISD-015)
        ("misdeal.button_misplaced", "MISD-015", 3, "dealer", 5)]


def test_MISD_005_a_card_to_a_seat_not_dealt_in(tmp_path):
    steps = CLEAN[:2] + [deal("7c", 3)] + CLEAN[3:]
    assert run(tmp_path, steps) == [
        ("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3, "dealer", 3),
        # and the seat it was due to ends the deal a card short, found at the tap
        ("misdeal.seat_short", "MISD-007", 4, "dealer", 11)]


def test_MISD_006_a_seat_dealt_in_is_skipped(tmp_path):
    steps = [st for st in CLEAN if st.get("to") != "seat:6"]  # seat 6 gets nothing
    assert run(tmp_path, steps) == [("misdeal.seat_skipped", "MISD-006", 6, "dealer", 9)]  # at the tap


def test_MISD_007_wrong_card_counts(tmp_path):
    third = CLEAN[:10] + [deal("2c", 4)] + CLEAN[10:]
    assert run(tmp_path / "a", third) == [("misdeal.too_many_cards", "MISD-007", 4, "dealer", 11)]
    sb_third = CLEAN[:10] + [deal("2c", 1)] + CLEAN[10:]  # seat 1 is the small blind: 003 pulls it
    assert run(tmp_path / "b", sb_third) == [("deal.pull_small_blind_extra_card", "MISD-007", 1, "dealer", 11)]
    # the button one card short is topped up when the dealer is told, even after the tap
    button_short = CLEAN[:9] + [CLEAN[10], deal("4d", 9)] + CLEAN[11:]
    assert run(tmp_path / "c", button_short) == [("deal.button_short", "MISD-007", 9, "dealer", 10)]
    other_short = CLEAN[:7] + CLEAN[8:]  # seat 4 misses its second card
    assert run(tmp_path / "d", other_short) == [("misdeal.seat_short", "MISD-007", 4, "dealer", 10)]


def test_MISD_010_an_exposed_card_is_replaced_and_becomes_the_burn(tmp_path):
    # 2h (the 4th card, seat 6) is exposed: it goes back on the stub, seat 6 gets a replacement
    # after the deal, and 2h is the flop's burn. The daemon prompts once and nothing more.
    done_right = (CLEAN[:4] + [{"press": "exposed"}, {"move": "2h", "to": "stub"}] + CLEAN[4:10]
                  + [deal("7s", 6), CLEAN[10], deal("2h", "burn")] + CLEAN[12:])
    assert run(tmp_path / "right", done_right) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5)]
    # the exposed card moved straight from the seat to the burn spot is the burn too
    straight = CLEAN[:4] + [{"press": "exposed"}] + CLEAN[4:10] + [deal("7s", 6), CLEAN[10],
                                                                   {"move": "2h", "to": "burn"}] + CLEAN[12:]
    assert run(tmp_path / "straight", straight) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5)]
    # another card burned instead of the exposed one
    wrong = (CLEAN[:4] + [{"press": "exposed"}, {"move": "2h", "to": "stub"}] + CLEAN[4:10]
             + [deal("7s", 6)] + CLEAN[10:])
    assert run(tmp_path / "wrong", wrong) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5),
                                              ("burn.not_the_exposed_card", "MISD-010", None, "dealer", 15)]
    # no replacement by the tap: the dealer is told the seat is owed one
    unreplaced = CLEAN[:4] + [{"press": "exposed"}, {"move": "2h", "to": "stub"}] + CLEAN[4:10] + \
        [CLEAN[10], deal("7s", 6), deal("2h", "burn")] + CLEAN[12:]
    assert run(tmp_path / "owed", unreplaced) == [("deal.exposed_card_becomes_burn", "MISD-010", 6, "dealer", 5),
                                                  ("deal.replacement_due", "MISD-010", 6, "dealer", 13)]


def test_MISD_011_a_card_off_the_table_counts_as_exposed(tmp_path):
    # 2h slides off the table at seat 6 (no pad pressed): the reader loses it, the deal goes on
    steps = CLEAN[:4] + [{"move": "2h", "to": "stub"}] + CLEAN[4:10] + [deal("7s", 6), CLEAN[10],
                                                                        deal("2h", "burn")] + CLEAN[12:]
    assert run(tmp_path, steps) == [("deal.card_off_table", "MISD-011", 6, "dealer", 5)]


def test_MISD_012_a_card_the_player_exposes_is_not_replaced(tmp_path):
    steps = CLEAN[:10] + [{"press": "exposed_player", "seat": 4}] + CLEAN[10:]
    assert run(tmp_path / "a", steps) == [("deal.player_exposed_card", "MISD-012", 4, "dealer", 11)]
    # a replacement dealt anyway is a card too many
    replaced = CLEAN[:10] + [{"press": "exposed_player", "seat": 4}, deal("7s", 4)] + CLEAN[10:]
    assert run(tmp_path / "b", replaced) == [("deal.player_exposed_card", "MISD-012", 4, "dealer", 11),
                                             ("misdeal.too_many_cards", "MISD-007", 4, "dealer", 12)]


def test_MISD_013_substantial_action_closes_the_window(tmp_path):
    # after "sa" a card to an empty seat is no longer a misdeal: LATE_FAULT (hand proceeds)
    steps = CLEAN[:10] + [{"press": "sa"}, deal("7s", 3)] + CLEAN[10:]
    assert run(tmp_path / "sa", steps) == [
        ("late_fault.card_to_seat_not_dealt_in", "MISD-013", 3, "dealer", 12)]
    # a misdeal declared after the first burn: the floor is told
    late = CLEAN[:13] + [{"press": "misdeal"}] + CLEAN[13:]
    assert run(tmp_path / "late", late) == [("misdeal.declared_late", "MISD-013", None, "floor", 14)]
    # after the first burn nothing of the deal is a misdeal any more
    after_burn = CLEAN[:12] + [deal("2c", 3)] + CLEAN[12:]
    assert run(tmp_path / "burn", after_burn) == [
        ("late_fault.card_to_seat_not_dealt_in", "MISD-013", 3, "dealer", 13)]


def test_MISD_014_the_re_deal_is_an_exact_replay(tmp_path):
    bad = [deal("As", 2), {"press": "misdeal"}, {"press": "seat_in", "seat": 3}, END]
    report = run_hands(tmp_path / "a", [{"steps": bad}, {"steps": CLEAN}, {"steps": CLEAN}])
    first, redeal, after = report["hands"]
    assert alerts_of(first) == [("misdeal.first_card_wrong_seat", "MISD-004", 2, "dealer", 1)]
    assert alerts_of(redeal) == [] and redeal["button"] == 9  # same button, same seats
    assert after["button"] == 1  # then the button moves on; seat 3 has come in (the big blind)
    # a card to the newcomer in the re-deal
    new_seat = CLEAN[:2] + [deal("2c", 3)] + CLEAN[2:]
    report = run_hands(tmp_path / "b", [{"steps": bad}, {"steps": new_seat}])
    assert alerts_of(report["hands"][1])[0] == ("misdeal.redeal_new_seat", "MISD-014", 3, "dealer", 3)


def test_MISD_015_a_deal_from_a_misplaced_button(tmp_path):
    # dealt as if the button were at seat 2: 4, 6, 9, 1, 2
    order = [4, 6, 9, 1, 2]
    steps = hole([(c, order[i % 5]) for i, (c, _) in enumerate(HOLE)]) + CLEAN[10:]
    report = run_hands(tmp_path, [{"steps": steps}, {"steps": []}])
    assert alerts_of(report["hands"][0]) == [
        ("misdeal.first_card_wrong_seat", "MISD-004", 4, "dealer", 1),
        ("misdeal.button_misplaced", "MISD-015", 2, "dealer", 11)]
    # played out, the hand moves the button on from where the deal put it (2 -> 4)
    assert report["hands"][1]["button"] == 4


def test_MISD_016_a_flag_is_advice_only_the_dealer_declares(tmp_path):
    # a first card to the wrong seat, played out: no misdeal declared, so no replay
    steps = [deal("As", 2), deal("Kd", 1)] + CLEAN[2:]
    report = run_hands(tmp_path, [{"steps": steps}, {"steps": []}])
    assert alerts_of(report["hands"][0]) == [("misdeal.first_card_wrong_seat", "MISD-004", 2, "dealer", 1)]
    assert report["hands"][1]["button"] == 1


def test_an_exposed_press_on_the_board_is_BOARD_008_not_a_misdeal(tmp_path):
    steps = CLEAN[:13] + [{"press": "exposed"}] + CLEAN[13:]
    assert run(tmp_path, steps) == [("board.exposed_card", "BOARD-008", None, "dealer", 14)]
