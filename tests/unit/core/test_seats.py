"""Button, blinds and seats (docs/rules.md: DEAL) dealt in process under noise (the harness), and
the settings-dependent ones on the pure core."""

from __future__ import annotations

import pytest

from controller.core.effects import Alert, Figures
from controller.core.expectation import expectation
from controller.core.hand import Hand
from controller.core.settings import RuleSettings
from tests.rules_common import CLEAN, END, alerts_of, clean_for, deal, run, run_hands
from tests.unit.core.test_table import Feeder



def test_DEAL_003_three_to_two_the_next_big_blind_is_the_big_blind(tmp_path):
    # seats 1, 2, 3, button 1: SB 2, BB 3. The BB (3) busts: heads-up, the seat that would have
    # been the next BB (1) is the BB and gets the first card; 2 is button and small blind.
    report = run_hands(tmp_path, [{"steps": clean_for([2, 3, 1])},
                                  {"steps": [{"press": "seat_out", "seat": 3}] + clean_for([1, 2])}],
                       seats=[1, 2, 3], button=1)
    assert [h["button"] for h in report["hands"]] == [1, 2]
    assert [alerts_of(h) for h in report["hands"]] == [[], []]


def test_DEAL_006_a_newcomer_between_button_and_small_blind_waits(tmp_path):
    # button 6: SB 9, BB 1. Seat 10 sits down: the next hand's button is 9 and SB 1, so seat 10
    # (between them) waits one hand, then comes in.
    hands = [{"steps": clean_for([9, 1, 2, 4, 6])},
             {"steps": [{"press": "seat_in", "seat": 10}] + clean_for([1, 2, 4, 6, 9])},
             {"steps": clean_for([2, 4, 6, 9, 10, 1])}]
    report = run_hands(tmp_path / "a", hands, button=6)
    assert [h["button"] for h in report["hands"]] == [6, 9, 1]
    assert [alerts_of(h) for h in report["hands"]] == [
        [], [("deal.seat_waits", "DEAL-006", 10, "dealer", 1)], []]
    # dealt in anyway while he waits: a card to a seat not dealt in
    hands[1] = {"steps": [{"press": "seat_in", "seat": 10}] + clean_for([1, 2, 4, 6, 9, 10])}
    report = run_hands(tmp_path / "b", hands[:2], button=6)
    assert alerts_of(report["hands"][1]) == [  # once for the seat, at its first card
        ("deal.seat_waits", "DEAL-006", 10, "dealer", 1),
        ("misdeal.card_to_seat_not_dealt_in", "MISD-005", 10, "dealer", 7)]


def test_DEAL_009_an_absent_seat_is_dealt_then_mucked(tmp_path):
    steps = [{"press": "seat_absent", "seat": 4}] + CLEAN[:10] + [{"muck": "seat:4"}] + CLEAN[10:]
    assert run(tmp_path, steps) == [("deal.muck_absent_seat", "DEAL-009", 4, "dealer", 11)]


HOLE = [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]  # seats 1, 2, 4; button 4


def absent_said(f: Feeder) -> list[tuple[int | None, str]]:
    return [(a.seat, a.message) for a in f.of(Alert) if a.rule == "DEAL-009"]


def test_DEAL_009_absent_deadline_first_card_the_hand_is_dead_at_the_first_card():
    # 004 §Poker Rules: "A player must be at his seat when the first card is dealt on the initial
    # deal or he will have a dead hand"
    f = Feeder(rules=RuleSettings(absent_deadline="first_card"))
    f.press("seat_absent", seat=4)
    f.put(*HOLE[0])
    dead = [(4, "seat 4 was absent at the first card: its hand is dead; deal it in, then muck it")]
    assert absent_said(f) == dead  # at the first card, before seat 4 has any
    f.press("seat_in", seat=4)  # back during the deal: too late
    f.press("seat_absent", seat=2)  # seat 2 was there at the first card: his hand plays
    for card, seat in HOLE[1:]:
        f.put(card, seat)
    assert absent_said(f) == dead and len(f.of(Alert)) == 1
    assert f.table.hand is not None and f.table.hand.absent == {4}


def test_DEAL_009_absent_deadline_last_card_a_player_back_during_the_deal_plays():
    # 001/002 (the default): the deadline is the last initial card (the button's second)
    f = Feeder()
    f.press("seat_absent", seat=4)
    f.put(*HOLE[0])
    f.press("seat_in", seat=4)
    for card, seat in HOLE[1:]:
        f.put(card, seat)
    assert f.of(Alert) == []
    g = Feeder()
    g.press("seat_absent", seat=2)
    for i, (card, seat) in enumerate(HOLE):
        assert absent_said(g) == [], i  # nothing before the last initial card
        g.put(card, seat)
    assert absent_said(g) == [(2, "seat 2 is absent at the end of the deal: muck its hand")]


def test_DEAL_009_absent_deadline_own_turn_is_told_at_the_last_card_to_wait_for_the_turn():
    # 003: "the player's turn to act"; the table sees no turns: at the last initial card the
    # dealer is told to muck the hand when its turn comes
    f = Feeder(rules=RuleSettings(absent_deadline="own_turn"))
    f.press("seat_absent", seat=2)
    for card, seat in HOLE[:-1]:
        f.put(card, seat)
    assert absent_said(f) == []
    f.put(*HOLE[-1])
    assert absent_said(f) == [(2, "seat 2 is absent: muck its hand when its turn to act comes, unless he is back")]


def test_DEAL_009_the_absent_deadline_setting_is_read_and_checked(tmp_path):
    from controller.config.daemon import ConfigError, load_config
    from tests.unit.config.test_config import good

    assert load_config(good(tmp_path)).table.rules.absent_deadline == "last_card"  # 001, 002: the default
    assert load_config(good(tmp_path, '[rules]\nabsent_deadline = "first_card"\n')).table.rules.absent_deadline \
        == "first_card"
    with pytest.raises(ConfigError, match=r"\[rules\] absent_deadline: want one of last_card, first_card, own_turn"):
        load_config(good(tmp_path, '[rules]\nabsent_deadline = "turn"\n'))


def test_DEAL_010_a_penalised_seat_is_dealt_to_the_muck(tmp_path):
    steps = [{"press": "seat_penalty", "seat": 4, "hands": 1}] + clean_for([1, 2, 4, 6, 9], to={4: "muck"})
    assert run(tmp_path / "a", steps) == [("deal.penalty_served", "DEAL-010", 4, "dealer", len(steps))]
    dealt = [{"press": "seat_penalty", "seat": 4, "hands": 1}] + CLEAN
    assert run(tmp_path / "b", dealt)[0] == ("misdeal.card_to_seat_not_dealt_in", "MISD-005", 4, "dealer", 4)


def test_DEAL_012_more_seats_than_the_game_deals_is_prompted():
    f = Feeder(seats=(1, 2, 3, 4), button=4, rules=RuleSettings(seats_max=3))
    f.put("As", 1)
    [alert] = f.of(Alert)
    assert (alert.code, alert.rule) == ("deal.too_many_players", "DEAL-012")
    g = Feeder(seats=(1, 2, 3), button=3, rules=RuleSettings(seats_max=3))
    g.put("As", 1)
    assert g.of(Alert) == []


def test_DEAL_013_first_to_act_left_of_the_big_blind_then_left_of_the_button():
    f = Feeder(seats=(1, 2, 4, 6), button=6)  # SB 1, BB 2
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 6), ("3h", 1), ("Qs", 2), ("Jd", 4), ("9c", 6)]:
        f.put(card, seat)
    assert f.of(Figures)[-1].first_to_act == 4  # pre-flop: left of the big blind
    f.press("round_done")
    for card, antenna in [("8h", 12), ("Th", 11), ("Tc", 11), ("6d", 11)]:
        f.put(card, antenna)
    assert f.of(Figures)[-1].first_to_act == 1  # after the flop: left of the button
    f.field[f.uid("As")] = 13  # seat 1 folds: the next live seat acts first
    f.field[f.uid("3h")] = 13
    f.tick(3)
    assert f.of(Figures)[-1].first_to_act == 2
    h = Feeder(seats=(3, 7), button=7)  # heads-up: the button is the small blind and acts first
    h.put("As", 3)
    assert h.of(Figures)[-1].first_to_act == 7


def test_DEAL_013_first_to_act_and_the_seats_in_follow_every_seat_dealt_in_or_out():
    # The figures are kept (Hand.kept) until a seat fills or empties or a card is dealt: a
    # penalised seat's card dealt to a muck already holding one changes neither, yet deals the
    # seat out (DEAL-010).
    hand = Hand(1, "holdem", 2, (1, 3, 5), 5, 0.0)  # button 5: SB 1, BB 3
    assert hand.first_to_act() == 5  # nobody dealt yet, every seat in: left of the big blind
    hand.place("M", "Qh", "muck")
    hand.place("A", "As", "seat:1")
    assert hand.live_seats() == [1] and hand.first_to_act() == 5
    hand.count_hole("B", 5)  # DEAL-010: seat 5 is dealt to the muck
    hand.place("B", "Kd", "muck")
    assert hand.first_to_act() == 1  # seat 5 is out: the first seat in left of the big blind
    hand.place("C", "7c", "seat:3")
    assert hand.live_seats() == [1, 3] and expectation(hand, None)[1] == {"seat:1", "seat:3"}
    hand.place("A", "As", "muck")  # seat 1 folds
    assert hand.live_seats() == [3] and expectation(hand, None)[1] == {"seat:3"}
    assert hand.first_to_act() is None  # one seat left: nobody to act
    hand.take_off("C")  # seat 3's card lifted off the table (an exposed card taken away)
    assert hand.live_seats() == [] and expectation(hand, None)[1] == frozenset()


def test_MISD_013_late_fault_dead_kills_the_misdealt_seats_hand():
    f = Feeder(seats=(1, 2, 4), button=4, rules=RuleSettings(late_fault="dead"))
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        f.put(card, seat)
    f.press("sa")
    f.put("Jd", 4)  # a third card after substantial action
    [alert] = f.of(Alert)
    assert (alert.code, alert.rule, alert.seat) == ("late_fault.too_many_cards", "MISD-013", 4)
    assert "seat 4's hand is dead" in alert.message


def test_MISD_007_button_only_fixes_make_the_small_blinds_third_card_a_misdeal():
    f = Feeder(seats=(1, 2, 4), button=4, rules=RuleSettings(deal_count_fixes="button_only"))
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4), ("Jd", 1)]:
        f.put(card, seat)
    [alert] = f.of(Alert)
    assert (alert.code, alert.seat) == ("misdeal.too_many_cards", 1)


def test_BOARD_009_the_figures_count_the_players_in_the_hand():
    f = Feeder(seats=(1, 2, 4), button=4)
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        f.put(card, seat)
    assert f.of(Figures)[-1].players == 3
    f.field[f.uid("As")] = f.field[f.uid("2h")] = 13  # seat 1 folds
    f.tick(3)
    f.press("round_done")
    f.put("8h", 12)
    f.put("Th", 11)
    assert f.of(Figures)[-1].players == 2 and f.of(Alert) == []


def test_DEAL_011_the_button_by_high_card(tmp_path):
    draw = [{"press": "highcard"}] + [deal(c, s) for c, s in [("Kd", 1), ("Ks", 2), ("2c", 4), ("Ah", 6), ("Ad", 9)]]
    report = run_hands(tmp_path / "a", [{"steps": draw + [END]}, {"steps": clean_for([9, 1, 2, 4, 6])}])
    assert [alerts_of(h) for h in report["hands"]] == [[("deal.button_by_high_card", "DEAL-011", 6, "dealer", 6)], []]
    assert [h["button"] for h in report["hands"]] == [6, 6]  # the ace of hearts beats the ace of diamonds
    redo = draw[:3] + [deal("3c", 2)] + draw[3:] + [END]
    [hand] = run_hands(tmp_path / "b", [{"steps": redo}])["hands"]
    assert alerts_of(hand)[0] == ("deal.highcard_redo", "DEAL-011", 2, "dealer", 4)


def test_MISD_005_a_tournament_newcomer_dealt_anyway_is_told_why_he_waits():
    # DEAL-006: in the button-small blind gap he waits for the button to pass (002, 004); under
    # LATE_ENTRY = wait_for_bb (001) he waits for the big blind
    def hand(f: Feeder, order: list[int]) -> None:
        for i, seat in enumerate(order * 2):
            f.put(f"{'23456789TJ'[i]}s", seat)
        f.field.clear()
        f.tick(4)

    f = Feeder(seats=(1, 2, 4), button=2)  # SB 4, BB 1; next hand button 4, SB 1, BB 2
    hand(f, [4, 1, 2])
    f.press("seat_in", seat=5)  # between the next button (4) and small blind (1)
    f.put("Ah", 1)
    f.put("Kh", 5)
    assert [a.message for a in f.of(Alert) if a.rule == "MISD-005"] == [
        "a card went to seat 5, which is not dealt in (waiting for the button to pass: his seat is between the "
        "button and the small blind): misdeal"]
    g = Feeder(seats=(1, 2, 4), button=4, rules=RuleSettings(late_entry="wait_for_bb"))  # next: 1, 2, 4
    hand(g, [1, 2, 4])
    g.press("seat_in", seat=5)  # the big blind reaches him in two hands
    g.put("Ah", 2)
    g.put("Kh", 5)
    assert [a.message for a in g.of(Alert) if a.rule == "MISD-005"] == [
        "a card went to seat 5, which is not dealt in (waiting for the big blind): misdeal"]
