"""The showdown at the table (issue 17): the ``showdown`` pad names the winners (SHOW-004) and
the dead hands (SHOW-002), ``run_it`` runs the board again (BOARD-011), and the winning hand is
guarded until the pot is pushed (MUCK-005/006). Deal scripts in process; a few checks on the
hand alone.

The hands (tests/rules_common.py CLEAN, board Th Tc 6d Jc 3c): seat 4 (7c 9c) wins with a club
flush, jack high, over seat 2's jacks and tens (Kd Jd); seat 1 As Qs, seat 6 2h 5s, seat 9 3h 4d.
"""

from __future__ import annotations

import dataclasses
import json

import pytest

from controller.core.effects import Alert, HandFinished
from controller.core.hand import Hand
from hw_sim.harness import play as harness_play
from controller.config.daemon import ConfigError, parse_config
from controller.core.settings import RuleSettings, TableSettings
from controller.core.showdown.watch import MAX_RUNS, on_muck, on_press
from controller.core.table import Table
from tests.rules_common import (BUTTON, CLEAN, END, FLOP, RD, RIVER, SEATS, TURN, alerts_of, deal, hole, run_hands,
                                street)
from rig.scenarios import NOISE, assert_no_showdown_before_the_press, assert_nothing_secret_public, play
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

STATES = TESTS / "data" / "state"

SHOWDOWN = {"press": "showdown"}
PLAYED = CLEAN[:-1]  # every card dealt, the hands still at the seats (steps 1-21)
PRESS = len(PLAYED) + 1  # the showdown pad's step


def muck(*seats: int) -> list[dict]:
    return [{"muck": f"seat:{s}"} for s in seats]


def messages(steps: list[dict]) -> list[tuple[str, str]]:
    """Each alert's code and words, from the floor's hand record (the report leaves the words out),
    the script dealt in process with the secrets checks of every scenario."""
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": steps}]}
    played = harness_play(script)
    assert_nothing_secret_public(script, played)
    [record] = [e.record for _, e in played.seen["floor"] if type(e) is HandFinished]
    return [(a["code"], a["message"]) for a in record["alerts"]]


def test_the_showdown_pad_names_the_winner_and_the_hand_words_sho_004(tmp_path):
    steps = PLAYED + [SHOWDOWN] + muck(1, 2, 6, 9, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [("showdown.winner", "SHOW-004", 4, "dealer", PRESS)]
    assert messages(steps) == [("showdown.winner", "seat 4 wins: flush, jack high")]
    # the record keeps the hands as the pad found them, though only seat 4's were left at the end
    assert hand["showdown"]["seats"] == [1, 2, 4, 6, 9] and hand["showdown"]["high"] == [4]


def test_the_winner_mucked_first_prompts_the_dealer_and_tells_the_floor_the_cards_muck_005(tmp_path):
    steps = PLAYED + [SHOWDOWN] + muck(4, 1, 2, 6, 9) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [("showdown.winner", "SHOW-004", 4, "dealer", PRESS),
                               ("muck.winner_guard", "MUCK-005", 4, "dealer", PRESS + 1),
                               ("muck.winner_mucked", "MUCK-005", 4, "floor", PRESS + 1)]
    _, (_, guard), (_, told) = messages(steps)
    assert guard == "check: seat 4 had the best hand"  # no card named to the dealer
    assert "(7c 9c: flush, jack high)" in told and "while seats 1, 2, 6, 9 still hold cards" in told


def test_the_losers_mucking_first_raise_nothing_muck_005(tmp_path):
    steps = PLAYED + [SHOWDOWN] + muck(2, 1, 9, 6, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert [a["code"] for a in hand["alerts"]] == ["showdown.winner"]


def test_without_the_pad_a_fold_of_the_best_hand_is_no_fault_muck_006(tmp_path):
    # a river fold to a bet: the table sees no betting, so before the pad nothing is a showdown
    steps = PLAYED + muck(4) + muck(1, 2, 6, 9) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == []


def test_run_it_twice_is_no_board_fault_and_each_run_has_its_winners_board_011(tmp_path):
    # all in on the flop, run twice: the second turn Ah and river Ac give seat 1 aces full of tens
    steps = hole() + FLOP + [{"press": "run_it"}] + TURN + RIVER + street("8d", "Ah")[1:] \
        + street("8s", "Ac")[1:] + [SHOWDOWN] + muck(2, 6, 9) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert messages(steps) == [
        ("showdown.winner", "run 1: seat 4 wins: flush, jack high"),
        ("showdown.winner", "run 2: seat 1 wins: aces full of tens")]
    sd = hand["showdown"]
    assert [(r["board"], r["high"]) for r in sd["runs"]] == [
        (["Th", "Tc", "6d", "Jc", "3c"], [4]), (["Th", "Tc", "6d", "Ah", "Ac"], [1])]


def test_a_longer_board_without_run_it_is_still_a_board_fault_board_011(tmp_path):
    steps = hole() + FLOP + TURN + RIVER + [deal("Ah", "board"), END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert [(a["code"], a["rule"]) for a in hand["alerts"]] == [("board.two_cards_on_street", "BOARD-003")]
    assert "showdown" not in hand


def test_the_run_winner_mucked_while_the_other_run_winner_holds_is_guarded_board_011(tmp_path):
    steps = hole() + FLOP + [{"press": "run_it"}] + TURN + RIVER + street("8d", "Ah")[1:] \
        + street("8s", "Ac")[1:] + [SHOWDOWN] + muck(2, 6, 9, 1, 4) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert [a for a in alerts_of(hand) if a[0].startswith("muck.")] == [
        ("muck.winner_guard", "MUCK-005", 1, "dealer", len(steps) - 2),
        ("muck.winner_mucked", "MUCK-005", 1, "floor", len(steps) - 2)]
    [told] = [m for c, m in messages(steps) if c == "muck.winner_mucked"]
    assert "(As Qs: aces full of tens)" in told and "while seat 4 still holds cards (run 2)" in told


def test_a_board_run_twice_has_every_hand_up_without_the_pad_show_005_muck_005(tmp_path):
    # run_it is an all-in with the action complete: the hands are up once the runs are dealt
    steps = hole() + FLOP + [{"press": "run_it"}] + TURN + RIVER + street("8d", "Ah")[1:] \
        + street("8s", "Ac")[1:] + muck(2, 6, 9, 4, 1) + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [("muck.winner_guard", "MUCK-005", 4, "dealer", len(steps) - 2),
                               ("muck.winner_mucked", "MUCK-005", 4, "floor", len(steps) - 2)]
    assert hand["showdown"]["seats"] == [1, 2, 4, 6, 9]  # read when the runs were dealt


# -- the hand alone (fast) --------------------------------------------------------------------------
def _hand(cards: list[tuple[str, str]], seats=(2, 5, 8), button=8) -> Hand:
    h = Hand(1, "holdem", 2, seats, button, 0.0)
    for i, (card, zone) in enumerate(cards):
        h.place(f"U{i}", card, zone)
    return h


BOARD = [(c, "board") for c in "Ks Kd Qs Qd Jh".split()]


def test_a_seat_with_the_wrong_number_of_cards_is_a_dead_hand_show_002():
    h = _hand([("Ah", "seat:2"), ("3c", "seat:2"), ("Ad", "seat:5"), ("4c", "seat:5"), ("7h", "seat:8")] + BOARD)
    said = on_press(h, "showdown")
    assert [(f.code, f.rule, f.seat, f.message) for f in said] == [
        ("showdown.dead_hand", "SHOW-002", 8, "seat 8: 1 card - dead"),
        ("showdown.split", "SPLIT-001", 2, "split 2 ways: seats 2, 5 (two pair, kings and queens); odd chip: seat 2")]


def test_one_hand_left_is_no_showdown_and_nothing_is_guarded():
    h = _hand([("Ah", "seat:2"), ("3c", "seat:2")] + BOARD)
    assert on_press(h, "showdown") == [] and h.shown is None
    assert on_muck(h, 2) == []


def test_the_pot_pushed_ends_the_guard_muck_005():
    h = _hand([("Ah", "seat:2"), ("Ac", "seat:2"), ("7d", "seat:5"), ("4c", "seat:5")] + BOARD)
    on_press(h, "showdown")
    h.pot_pushed = True
    assert on_muck(h, 2) == []


def test_a_fourth_run_or_a_run_after_the_river_is_refused_board_011():
    h = _hand(BOARD)
    h.board.street, h.board.cards = 3, 1  # the river is out
    [refused] = on_press(h, "run_it")
    assert (refused.code, refused.rule) == ("board.run_it_refused", "BOARD-011") and h.board.runs == 1
    h = _hand([])
    assert [on_press(h, "run_it") for _ in range(MAX_RUNS - 1)] == [[], []] and h.board.runs == MAX_RUNS
    assert [f.code for f in on_press(h, "run_it")] == ["board.run_it_refused"]


def _runs_script(steps: list[dict]) -> dict:
    return {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
            "hands": [{"steps": steps}]}


RUN_TWICE = hole() + FLOP + [{"press": "run_it"}]  # all in on the flop, the players agree to run it twice


def test_BOARD_011_max_runs_2_refuses_a_third_run(tmp_path):
    """``[rules] max_runs = 2`` (MAX_RUNS, 002 §RUNNING IT TWICE: "two or three times, never more",
    the house choosing two): a second ``run_it`` press asks for a third run, more runs than
    allowed: the dealer is told, and the board is run twice. Under the guide's three (the default)
    the same press is agreed: the third run is dealt with no fault."""
    again = [{"press": "run_it"}]
    runs = TURN + RIVER + street("8d", "Ah")[1:] + street("8s", "Ac")[1:]
    two = RUN_TWICE + again + runs + [SHOWDOWN, END]
    [hand] = play(_runs_script(two), rules_extra="max_runs = 2")["hands"]
    assert alerts_of(hand)[0] == ("board.run_it_refused", "BOARD-011", None, "dealer", len(RUN_TWICE) + 1)
    assert [m for c, m in messages_with(two, "max_runs = 2") if c == "board.run_it_refused"] == [
        "run it again? at most 2 runs: deal no more board cards"]
    assert len(hand["showdown"]["runs"]) == 2
    three = RUN_TWICE + again + runs + street("9d", "Kh")[1:] + street("4s", "Kc")[1:] + [SHOWDOWN, END]
    [hand] = play(_runs_script(three))["hands"]  # the guide's three: agreed
    assert not [a for a in hand["alerts"] if a["code"].startswith(("board.", "burn."))]
    assert len(hand["showdown"]["runs"]) == 3
    # a third run dealt anyway under max_runs 2 is a board too long (BOARD-001), as a longer board
    # without the press is: no showdown is read from it
    [hand] = play(_runs_script(three), rules_extra="max_runs = 2")["hands"]
    assert [(a["code"], a["rule"]) for a in hand["alerts"] if a["code"].startswith("board.")] == [
        ("board.run_it_refused", "BOARD-011")] + [("board.too_many_cards", "BOARD-001")] * 2  # its turn, its river
    assert "showdown" not in hand


def test_BOARD_011_run_burns_false_deals_the_runs_without_burns_and_raises_no_burn_alert(tmp_path):
    """``[rules] run_burns = false`` (RUN_BURNS, the seeds silent: the house's): the second run's
    turn and river come straight off the stub, no burn before either: no burn is missing (BURN-001)
    and the hand's burns are the first run's three (BURN-006). Under the default (each run burns as
    the first) the same hand is one burn short at the second run's turn."""
    steps = RUN_TWICE + TURN + RIVER + [deal("Ah", "board"), deal("Ac", "board"), SHOWDOWN] + muck(2, 6, 9) + [END]
    [hand] = play(_runs_script(steps), rules_extra="run_burns = false")["hands"]
    assert not [a for a in hand["alerts"] if a["code"].startswith(("burn.", "board."))], hand["alerts"]
    assert [(r["board"], r["high"]) for r in hand["showdown"]["runs"]] == [
        (["Th", "Tc", "6d", "Jc", "3c"], [4]), (["Th", "Tc", "6d", "Ah", "Ac"], [1])]
    [hand] = play(_runs_script(steps))["hands"]  # RUN_BURNS' default: each run burns as the first
    assert ("burn.missing", "BURN-001") in [(a["code"], a["rule"]) for a in hand["alerts"]]
    # and with run_burns false, a burn before a further run's street is one burn too many (BURN-006)
    burned = RUN_TWICE + TURN + RIVER + street("8d", "Ah")[1:] + [deal("Ac", "board"), SHOWDOWN] \
        + muck(2, 6, 9) + [END]
    [hand] = play(_runs_script(burned), rules_extra="run_burns = false")["hands"]
    assert [(a["code"], a["rule"]) for a in hand["alerts"] if a["code"].startswith("burn.")] == [
        ("burn.count_wrong", "BURN-006")]


def test_BOARD_011_the_settings_defaults_bounds_and_a_bad_value_naming_its_key_and_file(tmp_path):
    assert (RuleSettings().max_runs, RuleSettings().run_burns) == (MAX_RUNS, True) == (3, True)
    path = tmp_path / "tablectl.toml"
    cfg = parse_config('[reader]\nport = "loop://"\n[rules]\nmax_runs = 1\nrun_burns = false\n', path=path)
    assert (cfg.table.rules.max_runs, cfg.table.rules.run_burns) == (1, False)
    for text, want in (("max_runs = 4", "[rules] max_runs = 4: must be a whole number from 1 to 3 runs"),
                       ("max_runs = 0", "[rules] max_runs = 0: must be a whole number from 1 to 3 runs"),
                       ("run_burns = 1", "[rules] run_burns: want true or false, got 1")):
        with pytest.raises(ConfigError) as err:
            parse_config(f'[reader]\nport = "loop://"\n[rules]\n{text}\n', path=path)
        assert str(err.value).startswith(f"{path}: {want}"), str(err.value)


def messages_with(steps: list[dict], rules_extra: str) -> list[tuple[str, str]]:
    """:func:`messages` under ``[rules]`` lines."""
    script = _runs_script(steps)
    played = harness_play(script, rules_extra=rules_extra)
    assert_nothing_secret_public(script, played)
    [record] = [e.record for _, e in played.seen["floor"] if type(e) is HandFinished]
    return [(a["code"], a["message"]) for a in record["alerts"]]


def test_the_round_done_taps_are_not_needed_between_runs_board_011(tmp_path):
    # a tapping table (round_done before each street), then the run-out without taps
    steps = hole() + FLOP + [{"press": "run_it"}] + [s for s in TURN + RIVER if s != RD] \
        + street("8d", "Ah")[1:] + street("8s", "Ac")[1:] + [END]
    [hand] = run_hands(tmp_path, [{"steps": steps}])["hands"]
    assert alerts_of(hand) == [] and hand["showdown"]["runs"][1]["high"] == [1]


def test_the_secrets_check_catches_a_showdown_prompt_before_the_pad():
    """The check every scenario runs (rig/scenarios.py): a showdown prompt filed before the
    press is caught, on the dealer's outputs and on the display."""
    steps = PLAYED + [SHOWDOWN, END]
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": steps}]}
    played = harness_play(script)
    assert_no_showdown_before_the_press(script, played)  # as dealt: nothing before the pad
    early = Alert(1.0, "muck.something", "dealer", "seat 4: flush, jack high")
    played.seen["dealer"].append(((1, PRESS - 1), early))
    with pytest.raises(AssertionError, match="hand words"):
        assert_no_showdown_before_the_press(script, played)
    played.seen["dealer"].pop()
    [(where, state)] = [(w, s) for w, s in played.screens if s.code == "showdown.winner"][:1]
    played.screens.append(((1, PRESS - 1), dataclasses.replace(state)))
    with pytest.raises(AssertionError, match="on the dealer's display before the showdown pad"):
        assert_no_showdown_before_the_press(script, played)


# -- the table's state keeps the showdown (STATE_VERSION 6) -------------------------------------------
def test_a_state_written_after_the_press_guards_the_winner_after_a_restart_muck_005():
    """tests/data/state/v6-mid-hand.json: seats 1, 2, 4, 6 (button 6), all in on the flop Th Tc 6d,
    run twice (Jc 3c, then Ah Ac), the showdown pressed: seat 4 wins run 1, seat 1 run 2."""
    state = json.loads((STATES / "v6-mid-hand.json").read_text())
    assert state["version"] == 6
    f = Feeder(seats=(1, 2, 4, 6), button=6)
    f.table = Table.from_state(state, f.table.settings)
    hand = f.table.hand
    assert (hand.board.runs, hand.board.runs_dealt) == (2, 2) and hand.shown["seat:1"] == ["As", "Qs"]
    antenna = {"board": 11, "burn": 12, "muck": 13} | {f"seat:{s}": s for s in range(1, 11)}
    f.field = {uid: antenna[zone] for uid, zone in hand.where.items()}
    f.tick(2)
    assert [e for e in f.effects if hasattr(e, "code")] == []  # the restart itself says nothing
    for card in ("As", "Qs"):  # seat 1, run 2's winner, mucks while seat 4 still holds
        f.field[f.uid(card)] = 13
    f.tick(3)
    assert [(e.code, e.seat, e.audience) for e in f.effects if hasattr(e, "code")] == [
        ("muck.winner_guard", 1, "dealer"), ("muck.winner_mucked", 1, "floor")]


def test_an_earlier_state_migrates_with_no_showdown_pressed_and_the_board_dealt_once():
    state = json.loads((STATES / "v5-mid-hand.json").read_text())
    table = Table.from_state(state, TableSettings(seats=(1, 2, 4, 6), button=6, confirm_cycles=2, gone_cycles=3))
    assert table.hand.shown is None and (table.hand.board.runs, table.hand.board.runs_dealt) == (1, 1)


# -- SHOW-008: the bad-beat jackpot at a cash hold'em table --------------------------------------
# 002 §BAD BEAT JACKPOT: cash hold'em only; aces full of kings or better beaten; four or more
# dealt in; the first natural board; both hole cards of both players play. Seats 1, 2, 4, 6
# (button 6): seat 1 Ac Kc makes aces full of kings (Ac Ah Ad Kc Kd), seat 2 Jd Td a royal flush
# (Ad Kd Qd Jd Td): both hands use both hole cards. Seats 4 and 6 share the others' quarter.
BAD_BEAT = {1: ["Ac", "Kc"], 2: ["Jd", "Td"], 4: ["2h", "3h"], 6: ["7s", "8s"]}


def bad_beat_feeder(seats=(1, 2, 4, 6), board=("Ah", "Ad", "Kd", "Qd", "9c"), hands=BAD_BEAT, **kw) -> Feeder:
    f = Feeder(seats=seats, button=seats[-1], **kw)
    for r in range(2):
        for seat in seats:
            f.put(hands[seat][r], seat)
    for burn, cards in (("4c", board[:3]), ("5c", board[3:4]), ("6c", board[4:])):
        f.press("round_done")
        f.put(burn, 12)
        for card in cards:
            f.put(card, 11)
    return f


def bad_beats(f: Feeder) -> list[tuple[str, str, int | None]]:
    return [(a.code, a.audience, a.seat) for a in f.of(Alert) if a.rule == "SHOW-008"]


def test_SHOW_008_a_bad_beat_at_a_cash_holdem_table_calls_the_floor_and_nobody_touches_the_cards():
    script = {"format": 1, "game": "holdem", "seats": [1, 2, 4, 6], "button": 6, "noise": dict(NOISE, seed=5),
              "hands": [{"steps": [deal(BAD_BEAT[s][r], s) for r in range(2) for s in (1, 2, 4, 6)]
                         + [RD, deal("4c", "burn"), deal("Ah", "board"), deal("Ad", "board"), deal("Kd", "board"),
                            RD, deal("5c", "burn"), deal("Qd", "board"), RD, deal("6c", "burn"), deal("9c", "board"),
                            {"press": "showdown"}, END]}]}
    [hand] = play(script, table_extra='event = "cash"')["hands"]  # (secrets checked: rig/scenarios.py)
    found = [(code, audience, seat) for code, rule, seat, audience, _ in alerts_of(hand) if rule == "SHOW-008"]
    assert found == [("showdown.bad_beat", "floor", 1), ("showdown.dont_touch", "dealer", 1)]


def test_SHOW_008_at_a_cash_table_not_at_a_tournament_nor_with_three_dealt_in():
    f = bad_beat_feeder(event="cash")
    f.press("showdown")
    assert bad_beats(f) == [("showdown.bad_beat", "floor", 1), ("showdown.dont_touch", "dealer", 1)]
    [floor, dealer] = [a.message for a in f.of(Alert) if a.rule == "SHOW-008"]
    assert floor.startswith("bad-beat candidate: seat 1 (") and " loses to seat 2 (" in floor
    assert floor.endswith("the others dealt in: seats 4, 6; confirm the pot")
    assert dealer == "bad beat? don't touch the cards: call the floor"
    g = bad_beat_feeder()  # a tournament (the default event)
    g.press("showdown")
    assert bad_beats(g) == [] and [a.seat for a in g.of(Alert) if a.code == "showdown.winner"] == [2]
    h = bad_beat_feeder(seats=(1, 2, 4), event="cash")  # three dealt in
    h.press("showdown")
    assert bad_beats(h) == [] and [a.seat for a in h.of(Alert) if a.code == "showdown.winner"] == [2]


def test_SHOW_008_one_hole_card_of_the_loser_not_playing_does_not_qualify():
    # seat 1 Ac 2c on Ah Ad Kd Kh Qd: aces full of kings with one hole card (Ac Ah Ad Kd Kh)
    hands = {**BAD_BEAT, 1: ["Ac", "2c"]}
    f = bad_beat_feeder(board=("Ah", "Ad", "Kd", "Kh", "Qd"), hands=hands, event="cash")
    f.press("showdown")
    assert bad_beats(f) == [] and [a.seat for a in f.of(Alert) if a.code == "showdown.winner"] == [2]


def test_SHOW_008_a_bad_beat_on_the_second_run_does_not_qualify():
    # all in on the flop Ah Ad Kd, run twice: run 1 (9c, 2s) seat 1's aces full of kings wins;
    # run 2 (Qd, 3s) seat 2's royal flush beats it: "the additional boards do not qualify"
    f = Feeder(seats=(1, 2, 4, 6), button=6, event="cash")
    for r in range(2):
        for seat in (1, 2, 4, 6):
            f.put(BAD_BEAT[seat][r], seat)
    f.press("round_done")
    for card, antenna in (("4c", 12), ("Ah", 11), ("Ad", 11), ("Kd", 11)):
        f.put(card, antenna)
    f.press("run_it")
    for burn, card in (("5c", "9c"), ("6c", "2s"), ("7c", "Qd"), ("8c", "3s")):
        f.press("round_done")
        f.put(burn, 12)
        f.put(card, 11)
    f.press("showdown")
    winners = [a.message for a in f.of(Alert) if a.code == "showdown.winner"]
    assert [m.split(":")[0] for m in winners] == ["run 1", "run 2"] and "seat 2 wins" in winners[1]
    assert bad_beats(f) == []
