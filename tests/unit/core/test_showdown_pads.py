"""The showdown's pads at the table (issue 17, the rest): ``allin`` (SHOW-005), ``hand_end``
with hands unread (SHOW-006), the winner told to table the whole hand (SHOW-001), a
``showdown`` press too early or twice, the odd-chip settings read from ``[rules]`` (SPLIT-006,
SPLIT-008), and what the public outputs may carry after the press (SHOW-007).

The hold'em hands are tests/rules_common.py's (board Th Tc 6d Jc 3c): seat 4 (7c 9c) wins with
a club flush over seat 2's jacks and tens; seat 1 As Qs, seat 6 2h 5s, seat 9 3h 4d. The razz
hands are the guides' SPLIT-006 rule applied by hand (tests/unit/core/test_showdown.py has the same).
"""

from __future__ import annotations


import pytest

from controller.core.display import render
from controller.core.effects import HandFinished
from controller.core.hand import Hand
from controller.core.pads import check_press
from controller.core.prompts import ConsoleState
from controller.config.daemon import ConfigError, load_config
from controller.config.console import DEFAULT_CONSOLE
from controller.daemon.control import request_to_event
from hw_sim.harness import play as harness_play
from controller.core.showdown import OddChipRules
from controller.core.showdown.watch import on_hand_end, on_muck, on_press
from tests.rules_common import BUTTON, END, FLOP, RIVER, SEATS, TURN, alerts_of, hole, run_hands, step_no
from rig.scenarios import NOISE, assert_no_showdown_before_the_press, assert_nothing_secret_public, secret_cards
from tests.unit.config.test_config import good
from rig.paths import ROOT

ALLIN = {"press": "allin"}
SHOWDOWN = {"press": "showdown"}
HAND_END = {"press": "hand_end"}


def muck(*seats: int) -> list[dict]:
    return [{"muck": f"seat:{s}"} for s in seats]


def script_of(steps: list[dict]) -> dict:
    return {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
            "hands": [{"steps": steps}]}


# -- SHOW-005: all in, the action complete ------------------------------------------------------
def test_the_allin_pad_is_a_pad_with_a_button_on_the_console_show_005():
    check_press("allin")  # the deal scripts check a press with it (hw_sim/script.py)
    ev = request_to_event({"cmd": "press", "name": "allin"}, now=1.0)  # and the control socket
    assert (ev.name, ev.seat) == ("allin", None)
    assert 'allin = "round_done"' in DEFAULT_CONSOLE.split("[console.long]")[1].split("[")[0]
    docs = (ROOT / "docs" / "console.md").read_text()
    assert "| `allin` | **hold** `round_done` |" in docs


def test_allin_turns_the_hands_up_forbids_folding_and_guards_the_winner_as_the_board_comes_show_005(tmp_path):
    # all in on the flop: the dealer is told to turn every hand up; seat 6 mucks on the turn (no
    # folding); once the river is out the winner is known, and seat 4 mucking first is guarded
    steps = hole() + FLOP + [ALLIN] + TURN + muck(6) + RIVER + muck(4) + muck(1, 2, 9) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    press, fold = steps.index(ALLIN) + 1, step_no(steps, "Jc") + 1
    assert alerts_of(hand) == [("showdown.all_up", "SHOW-005", None, "dealer", press),
                               ("showdown.no_fold", "SHOW-005", 6, "dealer", fold),
                               ("muck.winner_guard", "MUCK-005", 4, "dealer", len(steps) - 4),
                               ("muck.winner_mucked", "MUCK-005", 4, "floor", len(steps) - 4)]
    played = harness_play(script_of(steps))
    assert_no_showdown_before_the_press(script_of(steps), played)  # the allin press turns them up
    [record] = [e.record for _, e in played.seen["floor"] if type(e) is HandFinished]
    [up] = [a["message"] for a in record["alerts"] if a["code"] == "showdown.all_up"]
    assert up == "all in, the action complete: seats 1, 2, 4, 6, 9, turn your hands up; nobody folds"
    assert record["showdown"]["high"] == [4]  # the hands as they were turned up, the board as it came


def test_allin_then_the_showdown_pad_names_the_winner_once_show_005(tmp_path):
    steps = hole() + FLOP + [ALLIN] + TURN + RIVER + [SHOWDOWN, SHOWDOWN] + muck(1, 2, 6, 9, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert [a[:3] for a in alerts_of(hand)] == [("showdown.all_up", "SHOW-005", None),
                                                ("showdown.winner", "SHOW-004", 4)]


def test_allin_with_one_hand_left_says_nothing_show_005():
    h = Hand(1, "holdem", 2, (2, 5), 5, 0.0)
    h.place("U1", "Ah", "seat:2")
    assert on_press(h, "allin") == [] and h.shown is None


def test_the_allin_pad_has_words_on_the_display_show_005():
    assert render(ConsoleState(code="showdown.all_up"), "lcd16x2") == ["ALL IN", "all hands up"]
    assert render(ConsoleState(code="showdown.no_fold", prompt_seat=6), "lcd16x2") == ["s6 no folding",
                                                                                       "hand stays up"]


# -- a showdown press too early, or twice -------------------------------------------------------
def test_the_showdown_pad_pressed_twice_files_its_prompts_once_sho_004(tmp_path):
    steps = hole() + FLOP + TURN + RIVER + [SHOWDOWN, SHOWDOWN] + muck(1, 2, 6, 9, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [("showdown.winner", "SHOW-004", 4, "dealer", steps.index(SHOWDOWN) + 1)]


def test_the_showdown_pad_before_the_river_says_the_board_is_not_dealt_out_sho_004(tmp_path):
    steps = hole() + FLOP + TURN + [SHOWDOWN] + RIVER + [SHOWDOWN] + muck(1, 2, 6, 9, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    early, late = [i for i, st in enumerate(steps, 1) if st == SHOWDOWN]
    assert alerts_of(hand) == [("showdown.not_dealt_out", "SHOW-004", None, "dealer", early),
                               ("showdown.winner", "SHOW-004", 4, "dealer", late)]
    assert render(ConsoleState(code="showdown.not_dealt_out"), "lcd16x2") == ["not dealt out", "deal the rest"]


def test_a_stud_hand_short_of_its_seventh_card_is_not_dealt_out():
    h = Hand(1, "stud", 3, (1, 2), 1, 0.0)
    for i, (card, seat) in enumerate(zip("As Ks Qs Js Ts 2c 3c 4c 5c 6c".split(), [1, 2] * 5, strict=True)):
        h.place(f"U{i}", card, f"seat:{seat}")
    [said] = on_press(h, "showdown")
    assert (said.code, said.message) == ("showdown.not_dealt_out", "showdown? the hands not dealt out: deal the "
                                                                   "rest first")
    assert h.shown is None


# -- SHOW-006: the pot pushed with the hands unread ----------------------------------------------
def test_hand_end_with_two_hands_unread_prompts_show_006(tmp_path):
    steps = hole() + FLOP + TURN + RIVER + [HAND_END, END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [("showdown.pushed_unread", "SHOW-006", 1, "dealer", len(steps) - 1)]
    assert render(ConsoleState(code="showdown.pushed_unread", prompt_seat=1), "lcd16x2") == [
        "hands not read", "pot pushed early"]


def test_hand_end_after_the_showdown_or_with_one_hand_left_says_nothing_show_006(tmp_path):
    read = hole() + FLOP + TURN + RIVER + [SHOWDOWN] + muck(1, 2, 6, 9) + [HAND_END, END]
    folded = hole() + FLOP + TURN + RIVER + muck(1, 2, 6, 9) + [HAND_END, END]
    said = [[a[0] for a in alerts_of(h)] for steps in (read, folded)
            for h in run_hands(tmp_path, [{"steps": steps}])["hands"]]
    assert said == [["showdown.winner"], []]


def test_hand_end_message_names_the_seats_holding_show_006():
    h = Hand(1, "holdem", 2, (2, 5, 8), 8, 0.0)
    for i, (card, zone) in enumerate([("Ah", "seat:2"), ("Ac", "seat:2"), ("7d", "seat:5"), ("4c", "seat:5")]
                                     + [(c, "board") for c in "Ks Kd Qs Qd Jh".split()]):
        h.place(f"U{i}", card, zone)
    [said] = on_hand_end(h)
    assert (said.rule, said.message) == ("SHOW-006", "pot pushed while seats 2, 5 still hold cards: read the hands "
                                                     "first")


# -- SHOW-001: the winner tables the whole hand ---------------------------------------------------
def test_the_winner_is_told_to_show_all_cards_show_001():
    assert render(ConsoleState(code="showdown.winner", prompt_seat=4), "lcd16x2") == ["seat 4 wins",
                                                                                      "show all cards"]


# -- the odd chip by the configuration (SPLIT-006, SPLIT-008) -------------------------------------
RAZZ = {1: "Ad 2h 3s 4c 6d Ks Qd", 2: "Ac 2s 3h 4d 6c Kc Qs"}  # the same 6-4 low at both seats


def _razz() -> Hand:
    h = Hand(1, "razz", 3, (1, 2), 1, 0.0)
    for seat, cards in RAZZ.items():
        for card in cards.split():
            h.place(f"U{card}", card, f"seat:{seat}")
    return h


@pytest.mark.parametrize("setting,seat", [("", 2), ('stud_odd_chip_low = "highest"\n', 1)])
def test_the_odd_chip_settings_come_from_the_rules_section_split_006(tmp_path, setting, seat):
    # the lowest card: A♣ (seat 2) is below A♦ (seat 1), ♣ being the lowest suit; the highest: K♠ (seat 1)
    rules = load_config(good(tmp_path, "[rules]\n" + setting)).table.rules
    h = _razz()
    [split] = on_press(h, "showdown", OddChipRules.of(rules))
    assert (split.code, split.seat) == ("showdown.split", seat) and split.message.endswith(f"odd chip: seat {seat}")
    assert render(ConsoleState(code=split.code, prompt_seat=split.seat), "lcd16x2")[1] == f"odd chip s{seat}"
    assert h.record(1.0, OddChipRules.of(rules))["showdown"]["odd_chip"]["high"][0] == seat


@pytest.mark.parametrize("key,value", [("stud_odd_chip_cards", "seven"), ("stud_odd_chip_low", "low"),
                                       ("hybrid_odd_chip", "high")])
def test_an_unknown_odd_chip_setting_names_the_file_and_the_key_split_006_008(tmp_path, key, value):
    cfg = good(tmp_path, f'[rules]\n{key} = "{value}"\n')
    with pytest.raises(ConfigError) as exc:
        load_config(cfg)
    assert str(cfg) in str(exc.value) and f"[rules] {key}: want one of" in str(exc.value)


def test_the_odd_chip_settings_default_to_the_proposed_ones(tmp_path):
    rules = load_config(good(tmp_path)).table.rules
    assert OddChipRules.of(rules) == OddChipRules()  # docs/rules.md §20: received, lowest, five-card half


# -- SHOW-007: what is public after the press ------------------------------------------------------
def test_no_hole_card_reaches_a_public_output_after_the_showdown_press_show_007():
    """docs/decisions/0024-no-hole-card-public-at-the-showdown.md: the table cannot see which hands
    were turned up, so no hole card goes to a public output, the winner's neither, the mucked
    loser's never."""
    steps = hole() + FLOP + TURN + RIVER + [SHOWDOWN] + muck(1, 2, 6, 9) + [END]
    played = harness_play(script_of(steps))
    secrets = secret_cards(steps)
    assert {"7c", "9c", "Kd", "Jd"} <= secrets  # the winner's and a mucked loser's are secrets to the check
    assert_nothing_secret_public(script_of(steps), played)
    assert played.seen["public"], "no public output at all: the check would be empty"


def test_the_guard_after_allin_is_quiet_for_a_loser_mucking_after_the_river_muck_005():
    h = Hand(1, "holdem", 2, (3, 5), 5, 0.0)
    for i, (card, zone) in enumerate([("As", "seat:3"), ("Kc", "seat:5"), ("Ad", "seat:3"), ("Kd", "seat:5")]):
        h.place(f"U{i}", card, zone)
    assert [f.code for f in on_press(h, "allin")] == ["showdown.all_up"]
    assert [f.code for f in on_muck(h, 5)] == ["showdown.no_fold"]  # the board not out: no folding
    for i, card in enumerate("2c 7d 9h Js 3s".split()):
        h.place(f"B{i}", card, "board")
    assert on_muck(h, 5) == []  # the loser, after the river: what the guides ask
    assert [f.code for f in on_muck(h, 3)] == ["muck.winner_guard", "muck.winner_mucked"]


def test_hand_end_before_the_river_is_quiet_but_after_allin_prompts_show_006(tmp_path):
    # before the river, cards at the seats may be folds not yet gathered; after allin the hands are up
    early = hole() + FLOP + [HAND_END, END]
    allin = hole() + FLOP + [ALLIN, HAND_END, END]
    said = [[a[:3] for a in alerts_of(h)] for steps in (early, allin)
            for h in run_hands(tmp_path, [{"steps": steps}])["hands"]]
    assert said == [[], [("showdown.all_up", "SHOW-005", None), ("showdown.pushed_unread", "SHOW-006", 1)]]
