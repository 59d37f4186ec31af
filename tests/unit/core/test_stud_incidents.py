"""Stud's incidents dealt through the core (STUD-003, 009..013) and the antes (SHUF-006). Every
hand is written out card by card; the seats and the words expected come from the guides
(002 §ALL-IN for the ANTE, §EXPOSED SEVENTH STREET (FINAL DOWN CARD), §CARD EXPOSED - DELIVERED
with ACTION INCOMPLETE, §ABSENT PLAYERS (stud), §HEADS UP - ALL-IN & CALL, §DEAD HANDS and
MUCKING in STUD, §CUTTING; 001 §STUD GAMES, §CUTTING), never from the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.core.cards import FULL_DECK
from controller.core.effects import Alert, Figures, HandFinished, Prompt
from controller.core.events import ShufflerReport
from controller.core.mixed import Rotation
from controller.core.pads import check_press
from controller.core.families.stud.rules import up_cards
from controller.core.settings import RuleSettings, TableSettings
from controller.core.state import STATE_VERSION
from controller.core.table import Table
from hw_sim.decks import sim_uid
from hw_sim.random_hands import random_script
from hw_sim.harness import Played, play as harness_play
from rig.scenarios import assert_nothing_secret_public, check_prompts, check_report
from tests.unit.core.test_stud_deal import BURN, THREE, deal_streets
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

MUCK = 13
DATA = TESTS / "data" / "state"


def prompts(f: Feeder, rule: str | None = None) -> list[Prompt]:
    return [p for p in f.of(Prompt) if rule is None or p.rule == rule]


def alerts(f: Feeder) -> list[Alert]:
    return f.of(Alert)


def first_to_act(f: Feeder) -> int | None:
    return [e for e in f.of(Figures)][-1].first_to_act


# -- STUD-003: the bring-in all in for the ante ---------------------------------------------------
# Four seats, the deal from seat 1. Up cards: 9h, 3c, Kd, 4s. The 3c (seat 2) is the lowest; the
# next card by rank is seat 5's 4s; the next player clockwise from seat 2 is seat 4.
FOUR = {1: ["Ks", "Qd", "9h"], 2: ["Qs", "Jd", "3c"], 4: ["As", "Ad", "Kd"], 5: ["Jc", "Tc", "4s"]}


def test_STUD_003_the_bring_in_all_in_for_the_ante_passes_clockwise_not_to_the_next_card() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4, 5), button=5)
    f.put("Ks", 1)
    f.press("allin", seat=2)  # seat 2 put his last chips in as the ante
    for r in range(3):
        for seat in (1, 2, 4, 5):
            if (seat, r) != (1, 0):
                f.put(FOUR[seat][r], seat)
    assert [(p.rule, p.seat) for p in prompts(f)] == [("STUD-002", 2), ("STUD-003", 4)]
    assert prompts(f, "STUD-003")[0].message == ("seat 2 is all in for the ante: seat 4, next clockwise, brings in "
                                                 "or completes (not the next card by rank)")
    assert first_to_act(f) == 4  # the figures' first to act: not seat 5 (the 4s)
    assert not alerts(f)


def test_STUD_003_pressed_once_3rd_street_is_out_and_only_before_its_action() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4, 5), button=5)
    deal_streets(f, [1, 2, 4, 5], FOUR, range(3, 4))
    f.press("allin", seat=5)  # not the bring-in's seat: nothing passes
    assert [p.rule for p in prompts(f)] == ["STUD-002"]
    f.press("allin", seat=2)
    assert [(p.rule, p.seat) for p in prompts(f)] == [("STUD-002", 2), ("STUD-003", 4)]
    # seats 2 and 5 all in: from seat 2, seat 4 is next; had seat 4 been all in too, seat 1
    g = Feeder(game="stud", seats=(1, 2, 4, 5), button=5)
    deal_streets(g, [1, 2, 4, 5], FOUR, range(3, 4))
    g.press("allin", seat=4)
    g.press("allin", seat=2)
    assert [(p.rule, p.seat) for p in prompts(g)] == [("STUD-002", 2), ("STUD-003", 5)]
    # after the 3rd-street betting (the tap), an all-in is no ante all-in: nothing passes
    h = Feeder(game="stud", seats=(1, 2, 4, 5), button=5)
    deal_streets(h, [1, 2, 4, 5], FOUR, range(3, 4))
    h.press("round_done")
    h.press("allin", seat=2)
    assert [p.rule for p in prompts(h)] == ["STUD-002"]
    assert h.table.hand is not None and h.table.hand.all_in == {2}


@pytest.mark.parametrize("before_the_deal", [True, False])
def test_STUD_003_the_re_deal_of_a_misdealt_hand_keeps_the_ante_all_in(before_the_deal: bool) -> None:
    # MISD-014: the re-deal is an exact replay: seat 2, all in for the ante (pressed before the
    # first card, or on 3rd street before its action), is all in for the ante in the re-deal too;
    # the hand after it, played out, is not
    f = Feeder(game="stud", seats=(1, 2, 4, 5), button=5)
    if before_the_deal:
        f.press("allin", seat=2)
    deal_streets(f, [1, 2, 4, 5], FOUR, range(3, 4))
    if not before_the_deal:
        f.press("allin", seat=2)
    f.press("misdeal")
    f.field.clear()
    f.tick(4)
    for n in (2, 3):  # the re-deal, then the next hand
        deal_streets(f, [1, 2, 4, 5], FOUR, range(3, 4))
        hand = f.table.hand
        assert hand is not None and hand.number == n
        assert (hand.redeal_of, hand.all_in) == ((1, {2}) if n == 2 else (None, set()))
        assert [(p.hand, p.seat) for p in prompts(f, "STUD-003")] == [(1, 4), (2, 4)]
        f.field.clear()
        f.tick(4)
    assert not alerts(f), alerts(f)


def test_STUD_003_pressed_before_a_stud_hand_of_a_rotation_that_began_with_holdem() -> None:
    # MIXED-001: the press is judged by the next hand's game, not the configuration's first one
    f = Feeder(game="holdem", seats=(1, 2, 4, 5), button=5, rotation=Rotation(("holdem", "stud"), hands=1))
    for i, seat in enumerate([1, 2, 4, 5] * 2):  # a hold'em hand, over before the flop
        f.put(FULL_DECK[i], seat)
    f.field.clear()
    f.tick(4)
    assert f.table.game == "stud"
    f.press("allin", seat=2)
    deal_streets(f, [1, 2, 4, 5], FOUR, range(3, 4))
    assert [(p.hand, p.seat) for p in prompts(f, "STUD-003")] == [(2, 4)]


def test_STUD_003_through_the_daemon_a_deal_scripts_allin_names_its_seat() -> None:
    steps: list[dict] = [{"press": "allin", "seat": 2}]
    for r in range(3):
        for seat in (1, 2, 4, 5):
            steps.append({"deal": FOUR[seat][r], "to": f"seat:{seat}", **({"face_up": True} if r == 2 else {})})
    steps.append({"end": True})
    played = played_checked({"format": 1, "game": "stud", "seats": [1, 2, 4, 5], "button": 5,
                             "hands": [{"button": 5, "steps": steps}]})
    said = [(p["rule"], p.get("seat")) for p in played.report["hands"][0]["prompts"]]
    assert said == [("STUD-002", 2), ("STUD-003", 4)]
    assert any(state.code == "deal.bring_in_passes" and state.prompt_seat == 4 for _, state in played.screens)


def test_the_allin_pad_takes_an_optional_seat() -> None:
    check_press("allin")
    check_press("allin", seat=3)
    with pytest.raises(ValueError, match="seat must be 1 to 10"):
        check_press("allin", seat=11)


# -- STUD-009: 7th street dealt face up ------------------------------------------------------------
@pytest.mark.parametrize(("exposed", "folded", "code", "words"), [
    (1, None, "deal.stud_seventh_up_rest_up", "deal the rest face UP"),  # seat 1 is first to get 7th
    (2, None, "deal.stud_seventh_up_rest_down", "deal the rest face DOWN"),
    (2, 1, "deal.stud_seventh_up_rest_up", "deal the rest face UP"),  # seat 1 folded: seat 2 is first
])
def test_STUD_009_seventh_street_face_up(exposed: int, folded: int | None, code: str, words: str) -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 7))
    if folded is not None:
        for card in THREE[folded][:6]:
            f.field[f.uid(card)] = MUCK
        f.tick(4)
    f.press("round_done")
    f.put("4c", BURN)
    live = [s for s in (1, 2, 4) if s != folded]
    for seat in live:
        f.put(THREE[seat][6], seat)
        if seat == exposed:
            f.press("exposed")
    [p] = prompts(f, "STUD-009")
    assert (p.code, p.seat) == (code, exposed)
    assert words in p.message and f"offer seat {exposed} all in before any 7th-street action" in p.message
    assert not alerts(f), alerts(f)


# -- STUD-010: an up card before the betting is done -------------------------------------------------
def test_STUD_010_the_set_aside_card_waits_for_7th_streets_new_stub_four_burns() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    f.put("5c", BURN)  # 5th street, dealt while 4th street's betting goes on (no tap)
    f.put("8s", 1)
    f.press("exposed")  # the dealer: that card came before the action was complete
    [p] = prompts(f, "STUD-010")
    assert (p.code, p.seat) == ("deal.stud_card_set_aside", 1)
    assert "set it aside" in p.message and "do not muck it" in p.message and "four burns" in p.message
    del f.field[f.uid("8s")]  # set aside in front of the tray: no antenna reads it
    f.tick(4)
    for seat in (1, 2, 4):  # the round finished: seat 1 gets the next card
        f.put(THREE[seat][4], seat)
    f.press("round_done")  # the betting completed; one card face down per player onto the set-aside
    # card (8d, 8h, 8c: read by no antenna), then a burn and 6th street as normal
    hand = f.table.hand
    assert hand is not None and up_cards(hand, 1) == ["7h", "9c", "Tc"]
    f.put("6c", BURN)
    for seat in (1, 2, 4):
        f.put(THREE[seat][5], seat)
    f.press("round_done")  # before 7th street: the set-aside cards make the new stub
    assert [p.code for p in prompts(f, "STUD-010")] == ["deal.stud_card_set_aside", "stub.stud_from_set_aside"]
    assert not prompts(f, "STUD-007") and not prompts(f, "STUD-008")
    f.put("8d", BURN)  # 7th street from the new stub: its burn, and the set-aside card itself
    f.put("8s", 1)
    f.put("8h", 2)
    f.put("8c", 4)
    assert hand.count("burn") == 4 and all(hand.count(f"seat:{s}") == 7 for s in (1, 2, 4))
    f.field.clear()
    f.tick(4)
    record = f.of(HandFinished)[-1].record
    # the 5th street's burn with no tap before it: BURN-002's "round complete?" (the catalogue:
    # "It may be a premature card → ... STUD-010"), at the burn; nothing else
    assert [(a["code"], a["rule"]) for a in record["alerts"]] == [("burn.no_tap", "BURN-002")], record["alerts"]


def test_STUD_010_a_set_aside_card_dealt_before_7th_street_is_told() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    f.put("5c", BURN)
    f.put("8s", 1)
    f.press("exposed")
    del f.field[f.uid("8s")]
    f.tick(4)
    f.put(THREE[1][4], 1)
    f.put("8s", 2)  # the set-aside card dealt to seat 2 as its 5th-street card
    found = [(a.code, a.rule, a.seat) for a in alerts(f)]
    assert found == [("burn.no_tap", "BURN-002", None), ("deal.stud_reserve_early", "STUD-010", 2)]


# -- STUD-011: the absent seat ------------------------------------------------------------------
ABSENT = {1: ["Ks", "Kd", "7h", "9c"], 2: ["Qs", "Qd", "5c", "9d"], 4: ["As", "Ad", "2c", "9h"]}


def absent_hand(bringin: str = "until_bet", absent: int = 4) -> Feeder:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4, rules=RuleSettings(stud_absent_bringin=bringin))
    f.press("seat_absent", seat=absent)
    deal_streets(f, [1, 2, 4], ABSENT, range(3, 4))
    return f


def test_STUD_011_the_absent_seats_down_cards_are_mucked_its_up_card_brings_in() -> None:
    f = absent_hand()
    [p] = prompts(f, "STUD-011")
    assert (p.code, p.seat) == ("deal.stud_absent_down_cards", 4)
    assert p.message.startswith("seat 4 is absent: muck its down cards now, leave its up card")
    assert [(q.rule, q.seat) for q in prompts(f, "STUD-002")] == [("STUD-002", 4)]  # its 2c, the lowest
    for card in ABSENT[4][:2]:  # the down cards to the muck
        f.field[f.uid(card)] = MUCK
    f.tick(4)
    hand = f.table.hand
    assert hand is not None and up_cards(hand, 4) == ["2c"] and first_to_act(f) == 4
    assert not alerts(f), alerts(f)
    # 001 (the default): the absent seat that posted the bring-in is dealt on until it faces a bet
    f.press("round_done")
    f.put("3d", BURN)
    for seat in (1, 2, 4):
        f.put(ABSENT[seat][3], seat)
    assert not alerts(f), alerts(f)


@pytest.mark.parametrize(("bringin", "absent", "told"), [
    ("no_streets", 4, True),  # 002: "DO NOT deal subsequent streets to a missing player"
    ("until_bet", 2, True),  # seat 2 did not bring in: its up card is mucked in turn
    ("until_bet", 4, False),
])
def test_STUD_011_a_card_to_an_absent_seat_after_3rd_street(bringin: str, absent: int, told: bool) -> None:
    f = absent_hand(bringin, absent)
    f.press("round_done")
    f.put("3d", BURN)
    for seat in (1, 2, 4):
        f.put(ABSENT[seat][3], seat)
    found = [(a.code, a.seat) for a in alerts(f)]
    assert found == ([("deal.stud_absent_dealt", absent)] if told else []), found
    assert not any(a.rule == "DEAL-009" for a in alerts(f))  # stud mucks the down cards, not the hand


@pytest.mark.parametrize(("deadline", "told"), [("first_card", True), ("last_card", False)])
def test_STUD_011_a_player_back_after_the_first_card_under_the_absent_deadline(deadline: str, told: bool) -> None:
    # ABSENT_DEADLINE: 004 ("at his seat when the first card is dealt ... or he will have a dead
    # hand") keeps him absent; 001/002 (the last initial card) let him play
    f = Feeder(game="stud", seats=(1, 2, 4), button=4, rules=RuleSettings(absent_deadline=deadline))
    f.press("seat_absent", seat=4)
    f.put(ABSENT[1][0], 1)
    f.press("seat_in", seat=4)
    deal = iter((ABSENT[s][r], s) for r in range(3) for s in (1, 2, 4))
    next(deal)
    for card, seat in deal:
        f.put(card, seat)
    assert [(p.code, p.seat) for p in prompts(f, "STUD-011")] == ([("deal.stud_absent_down_cards", 4)] if told else [])
    assert not alerts(f), alerts(f)


def test_STUD_011_the_absent_bring_in_setting_is_read_and_checked(tmp_path: Path) -> None:
    from controller.config.daemon import ConfigError, load_config
    from tests.unit.config.test_config import good

    assert load_config(good(tmp_path)).table.rules.stud_absent_bringin == "until_bet"  # 001, the default
    cfg = good(tmp_path, '[rules]\nstud_absent_bringin = "no_streets"\n')
    assert load_config(cfg).table.rules.stud_absent_bringin == "no_streets"
    bad = good(tmp_path, '[rules]\nstud_absent_bringin = "never"\n')
    with pytest.raises(ConfigError, match=r"\[rules\] stud_absent_bringin: want one of until_bet, no_streets"):
        load_config(bad)


# -- STUD-012: all in and called ---------------------------------------------------------------------
def test_STUD_012_all_in_and_called_deal_face_up_until_7th() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    f.press("allin")
    [p] = prompts(f, "STUD-012")
    assert p.code == "deal.stud_face_up" and "face up until 7th street; 7th face down" in p.message
    f.press("allin")  # once a hand
    assert len(prompts(f, "STUD-012")) == 1
    g = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(g, [1, 2, 4], THREE, range(3, 8))
    g.press("allin")  # all of 7th street out: nothing more to deal face up
    assert not prompts(g, "STUD-012")


# -- STUD-013: folds and lifted cards ---------------------------------------------------------------
def test_STUD_013_a_fold_is_recorded_and_a_lifted_up_card_prompted() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    for card in THREE[4][:4]:  # seat 4 turns his up cards down and pushes all in: a fold
        f.field[f.uid(card)] = MUCK
    f.tick(4)
    hand = f.table.hand
    assert hand is not None and "STUD-013: seat 4 folded (4 cards to the muck)" in hand.notes
    del f.field[f.uid(THREE[1][0])]  # seat 1 looks at a down card: his to do
    f.tick(4)
    f.press("round_done")
    assert not prompts(f, "STUD-013")
    f.field[f.uid(THREE[1][0])] = 1
    f.tick(2)
    del f.field[f.uid(THREE[2][3])]  # seat 2 picks up his 4th-street up card
    f.tick(4)
    f.put("4c", BURN)
    [p] = prompts(f, "STUD-013")
    assert (p.code, p.seat) == ("deal.stud_lifted_cards", 2) and p.message.startswith("seat 2 lifted cards?")
    assert not alerts(f), alerts(f)


def test_STUD_013_no_lifted_prompt_after_the_pot_or_when_the_card_reaches_the_muck() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    del f.field[f.uid(THREE[4][2])]  # seat 4's up card off the antenna...
    f.tick(4)
    for card in THREE[4]:  # ...and into the muck with the rest: a fold, in the cycle that commits it
        if f.uid(card) in f.field or card == THREE[4][2]:
            f.field[f.uid(card)] = MUCK
    f.tick(3)
    f.press("hand_end")
    del f.field[f.uid(THREE[1][2])]  # the pot pushed: the dealer gathers
    f.tick(4)
    f.put(THREE[2][0], MUCK)
    assert not prompts(f, "STUD-013")


def played_checked(script: dict) -> Played:
    """``script`` dealt in process (as rig.scenarios.play: nothing secret on a public output,
    the zones and stub exact, no alert), with what the harness saw."""
    played = harness_play(script)
    assert_nothing_secret_public(script, played)
    check_report(script, played.report)
    return played


# -- clean noisy hands stay quiet ---------------------------------------------------------------------
INCIDENTS = ("STUD-003", "STUD-009", "STUD-010", "STUD-011", "STUD-012", "STUD-013")


def test_clean_noisy_stud_hands_raise_none_of_the_incidents() -> None:
    expect: list = []
    script = random_script(13, hands=6, game="stud", vary_seats=True,
                           noise={"seed": 13, "miss": 0.08, "repeat": 0.3, "crosstalk": 0.02}, expect=expect)
    played = played_checked(script)
    for want, got in zip(expect, played.report["hands"], strict=True):
        check_prompts(want, got.get("prompts", []))
    said = [p for h in played.report["hands"] for p in h.get("prompts", []) if p["rule"] in INCIDENTS]
    assert said == []
    records = {e.record["hand"]: e.record for seen in played.seen.values() for _, e in seen
               if isinstance(e, HandFinished)}
    folds = [n for r in records.values() for n in r.get("notes", []) if n.startswith("STUD-013")]
    mucks = sum(1 for h in script["hands"] for s in h["steps"] if "muck" in s)
    assert len(records) == 6 and mucks > 0 and len(folds) == mucks  # every fold, and only folds


# -- SHUF-006: the antes ------------------------------------------------------------------------------
def full_report(ts: float) -> ShufflerReport:
    return ShufflerReport(ts, "shuffler", 52, tuple(sim_uid("A", c) for c in FULL_DECK), seq=int(ts))


def test_SHUF_006_stud_prompts_the_antes_once_the_shuffle_is_complete() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    f.effects += f.table.apply(full_report(0.5))
    [p] = prompts(f)
    assert (p.code, p.rule, p.hand) == ("deal.antes", "SHUF-006", 1) and "collect the antes, then cut" in p.message
    f.put("Ks", 1)
    f.effects += f.table.apply(full_report(9.5))  # the spare deck shuffled during a hand: not now
    assert len(prompts(f, "SHUF-006")) == 1
    h = Feeder(game="holdem", seats=(1, 2, 4), button=4)
    h.effects += h.table.apply(full_report(0.5))
    assert not prompts(h)  # blinds, no antes


def test_SHUF_006_and_STUD_003_follow_the_next_hands_game_not_the_configurations() -> None:
    # a mixed table configured with hold'em whose next hand is stud (the floor's setup names it,
    # MIXED-001): the antes are prompted, and a seat all in before the first card is taken
    from controller.core.events import TableSetup

    f = Feeder(game="holdem", seats=(1, 2, 4, 5), button=5)
    f.effects += f.table.apply(TableSetup(0.2, (1, 2, 4, 5), game="stud"))
    f.effects += f.table.apply(full_report(0.5))
    assert [p.rule for p in prompts(f)] == ["SHUF-006"]
    f.press("allin", seat=2)  # before the first card (the antes are taken before the cut)
    for r in range(3):
        for seat in (1, 2, 4, 5):
            f.put(FOUR[seat][r], seat)
    assert [(p.rule, p.seat) for p in prompts(f) if p.rule.startswith("STUD")] == [("STUD-002", 2), ("STUD-003", 4)]


def test_SHUF_006_a_stud_script_with_the_shuffler_deals_clean_with_the_antes_on_the_display() -> None:
    steps: list[dict] = [{"shuffler": "deck"}]
    for r in range(3):
        for seat in (1, 2, 4):
            steps.append({"deal": THREE[seat][r], "to": f"seat:{seat}", **({"face_up": True} if r == 2 else {})})
    steps.append({"end": True})
    played = played_checked({"format": 1, "game": "stud", "seats": [1, 2, 4], "button": 4,
                             "hands": [{"button": 4, "steps": steps}]})
    codes = [state.code for _, state in played.screens]
    assert "deal.antes" in codes and codes.index("deal.antes") < codes.index("deal.bring_in")
    assert [p["rule"] for p in played.report["hands"][0]["prompts"]] == ["STUD-002"]  # (the hand's record)


# -- the state: version 12 keeps the seats all in and the set-aside cards ------------------------------
def test_a_stud_hand_with_a_card_set_aside_is_kept_across_a_restart() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    f.press("allin", seat=2)
    f.put("5c", BURN)
    f.put("8s", 1)
    f.press("exposed")
    state = json.loads(json.dumps(f.table.to_state()))
    assert state["version"] == STATE_VERSION
    back = Table.from_state(state, f.table.settings)
    assert back.hand is not None and back.hand.reserve == {f.uid("8s")} and back.hand.all_in == {2}
    fixture = json.loads((DATA / "v12-stud-incidents-mid-hand.json").read_text())
    assert fixture["version"] == 12
    table = Table.from_state(fixture, TableSettings(game="stud", seats=(1, 2, 4), button=4, confirm_cycles=2,
                                                    gone_cycles=3))
    assert table.hand is not None and table.hand.reserve == {sim_uid("A", "8s")} and table.hand.all_in == {2}
    assert [p.rule for p in table.hand.prompts] == ["STUD-002", "STUD-004", "STUD-010"]


def test_a_version_8_hand_migrates_with_no_seat_all_in_and_nothing_set_aside() -> None:
    state = json.loads((DATA / "v8-draw-mid-hand.json").read_text())
    assert state["version"] == 8
    settings = TableSettings(game="draw27_triple", seats=(1, 2, 4), button=4, confirm_cycles=2, gone_cycles=3)
    table = Table.from_state(state, settings)
    assert table.hand is not None and table.hand.all_in == set() and table.hand.reserve == set()
