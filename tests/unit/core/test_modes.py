"""The ``mode`` pad and the deals it watches instead of a hand (controller/core/table/modes.py): the
colour-up race-off (docs/rules.md: RACE-001..006), the table break's high card and the open seats
(§14, BREAK-001..004), the button before a break (FLOW-005). Dealt in process under noise (the
harness, with the check that nothing secret reached a public output); the settings' other
choices on the pure core.

The oracle of every ranking is the seeds' own words, not the module's code: 002 §COLOR UP / CHIP
RACE-OFF, "by rank and suit. (Card Rank: Spades, Hearts, Diamonds, Clubs)", the ace high.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from controller.core.effects import Alert, HandStarted, Prompt
from controller.core.events import ButtonPress, event_from_dict, event_to_dict
from controller.config.daemon import ConfigError, parse_config
from hw_sim.harness import Played, play as harness_play
from controller.core.settings import RuleSettings, TableSettings
from controller.core.table import Table
from tests.rules_common import END, clean_for, deal
from rig.scenarios import NOISE, assert_nothing_secret_public, play
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

DATA = TESTS / "data" / "state"
SEATS, BUTTON = [1, 2, 4, 6], 6
MUCK = 13
SEED_SUIT_ORDER = "Spades, Hearts, Diamonds, Clubs"  # 002, highest first
RANKS_HIGH_FIRST = "AKQJT98765432"


def seed_key(card: str) -> tuple[int, int]:
    """Higher cards sort first: by rank, then by the seed's suit order."""
    suits = [w.strip()[0].lower() for w in SEED_SUIT_ORDER.split(",")]
    return RANKS_HIGH_FIRST.index(card[0]), suits.index(card[1])


def listing(pairs: list[tuple[int, str]]) -> str:
    return ", ".join(f"{i}: seat {s} ({c})" for i, (s, c) in enumerate(pairs, 1))


def script(hands: list[dict[str, Any]], seats=SEATS, button=BUTTON, seed=3) -> dict[str, Any]:
    return {"format": 1, "game": "holdem", "seats": seats, "button": button, "noise": dict(NOISE, seed=seed),
            "hands": hands}


def played(hands: list[dict[str, Any]], **kw: Any) -> Played:
    """Every effect, as the outputs got them (the notices of the open seats are in no record)."""
    s = script(hands, **kw)
    p = harness_play(s)
    assert_nothing_secret_public(s, p)
    return p


def mode(name: str) -> dict[str, Any]:
    return {"press": "mode", "mode": name}


def prompts(hand: dict[str, Any], code: str) -> list[tuple[int | None, int | None, str]]:
    return [(p.get("seat"), p["step"], p["text"]) for p in hand["prompts"] if p["code"] == code]


def seen(p: Played, kind: type, code: str) -> list[tuple[tuple[int, int], Any]]:
    return [(w, e) for w, e in p.seen["floor"] if type(e) is kind and e.code == code]


RACE = {1: ["Ad"], 2: ["Ah", "2c"], 4: ["As"], 6: ["Kc"]}  # the odd chips: seat 2 has two
RACE_DEAL = [deal(c, s) for s in sorted(RACE) for c in RACE[s]]  # from seat 1, each seat's together


# -- the pad ----------------------------------------------------------------------------------------
def test_the_mode_press_is_journalled_with_its_mode_and_other_presses_as_before():
    press = ButtonPress(2.0, "mode", mode="highcard")
    assert event_from_dict(json.loads(json.dumps(event_to_dict(press)))) == press
    assert "mode" not in event_to_dict(ButtonPress(2.0, "ack"))  # rows of other presses unchanged


@pytest.mark.parametrize("rules, error", [
    ('race_allin = "first_chip"\nrace_one_per_player = "no"\nrace_remainder = "holder"\nopen_seat_hold = 4\n'
     'late_stage_hold = 1\nlate_stage = true', None),
    ('race_allin = "seat"', "[rules] race_allin: want one of floor, first_chip, got 'seat'"),
    ("open_seat_hold = 0", "[rules] open_seat_hold = 0: must be a whole number from 1 to 10 open seats"),
    ('late_stage = "yes"', "[rules] late_stage"),
])
def test_the_race_and_hold_settings_in_the_configuration(rules, error):
    text = f'[rules]\n{rules}\n[reader]\nport = "loop://"\n'
    if error is None:
        r = parse_config(text, path=Path("t.toml")).table.rules
        assert (r.race_allin, r.race_one_per_player, r.race_remainder, r.open_seat_hold, r.late_stage_hold,
                r.late_stage) == ("first_chip", "no", "holder", 4, 1, True)
        assert RuleSettings() == RuleSettings(race_allin="floor", race_one_per_player="yes", race_remainder="pooled",
                                              open_seat_hold=3, late_stage_hold=2, late_stage=False)  # rules.md §20
    else:
        with pytest.raises(ConfigError, match=re.escape(error)):
            parse_config(text, path=Path("t.toml"))


# -- RACE ---------------------------------------------------------------------------------------------
def test_RACE_001_the_race_off_is_dealt_from_seat_1_each_seats_cards_together():
    clean = [mode("race")] + RACE_DEAL + [END]
    # seat 2's second chip's card after seat 4's card: its cards are not together
    mixed = [mode("race"), deal("Ad", 1), deal("Ah", 2), deal("As", 4), deal("2c", 2), deal("Kc", 6), END]
    report = play(script([{"steps": clean}, {"steps": mixed}]))
    assert prompts(report["hands"][0], "race.deal_order") == []
    [(seat, step, text)] = prompts(report["hands"][1], "race.deal_order")
    assert (seat, step) == (2, 5) and "seat 2 dealt after seat 4" in text
    # started at seat 4: seat 1 then comes after it
    late = [mode("race"), deal("As", 4), deal("Ad", 1), END]
    [(seat, step, _)] = prompts(play(script([{"steps": late}]))["hands"][0], "race.deal_order")
    assert (seat, step) == (1, 3)


def test_RACE_002_the_ranking_highest_first_by_rank_then_suit_to_the_dealer_and_the_floor():
    steps = [mode("race")] + RACE_DEAL + [{"press": "round_done"}, END]
    [hand] = play(script([{"steps": steps}]))["hands"]
    best = {s: min(cs, key=seed_key) for s, cs in RACE.items()}
    want = sorted(best.items(), key=lambda sc: seed_key(sc[1]))
    assert [s for s, _ in want] == [4, 2, 1, 6]  # the three aces by suit: spades, hearts, diamonds
    [(seat, step, text)] = prompts(hand, "race.ranking")
    assert (seat, step) == (4, 7) and text == "race-off, highest first: " + listing(want)
    assert [(a["code"], a["audience"], a["step"]) for a in hand["alerts"] if a["rule"] == "RACE-002"] == [
        ("race.ranking", "floor", 7)]


def test_RACE_003_one_chip_a_player_in_ranking_order_and_his_cards_all_mucked():
    # in order: seat 4 (As), then seat 2 (both his cards), then seat 1: nothing to say
    good = [mode("race")] + RACE_DEAL + [{"press": "round_done"}, {"muck": "seat:4"}, {"muck": "seat:2"},
                                         {"muck": "seat:1"}, {"press": "hand_end"}, END]
    # seat 1 awarded before seat 2 (Ah ranks higher); seat 2's 2c left out after his Ah was mucked
    bad = [mode("race")] + RACE_DEAL + [{"press": "round_done"}, {"muck": "seat:4"}, {"move": "Ad", "to": "muck"},
                                        {"move": "Ah", "to": "muck"}, {"press": "hand_end"}, END]
    report = play(script([{"steps": good}, {"steps": bad}]))
    clean, wrong = report["hands"]
    assert prompts(clean, "race.award_order") == [] and prompts(clean, "race.cards_left") == []
    assert [(s, st) for s, st, _ in prompts(wrong, "race.award_order")] == [(2, 9)]
    assert [(s, st) for s, st, _ in prompts(wrong, "race.cards_left")] == [(2, 11)]  # at hand_end


def test_RACE_003_one_chip_a_card_when_the_house_says_so():
    # RACE_ONE_PER_PLAYER no (004): seat 2's second ace wins a chip of its own; his ace of hearts
    # before seat 1's ace of diamonds, then his 2c last: in order
    f = Feeder(seats=tuple(SEATS), button=BUTTON, rules=RuleSettings(race_one_per_player="no"))
    f.press("mode", mode="race")
    for s, cs in RACE.items():
        for c in cs:
            f.put(c, s)
    for c in ("As", "Ah", "Ad"):
        f.field[f.uid(c)] = MUCK
        f.tick(3)
    nexts = [(p.seat, p.message.split("(")[1][:2]) for p in f.of(Prompt) if p.code == "race.next_seat"]
    assert nexts == [(2, "Ah"), (1, "Ad"), (6, "Kc")]
    assert [p for p in f.of(Prompt) if p.code == "race.award_order"] == []


@pytest.mark.parametrize("remainder, words", [("pooled", "the chips left over, put together, make half a chip"),
                                              ("holder", "his own leftover is half a chip")])
def test_RACE_004_the_next_ranked_seat_and_the_remainder_rule(remainder, words):
    f = Feeder(seats=tuple(SEATS), button=BUTTON, rules=RuleSettings(race_remainder=remainder))
    f.press("mode", mode="race")
    for s, cs in RACE.items():
        for c in cs:
            f.put(c, s)
    f.field[f.uid("As")] = MUCK
    f.tick(3)
    [p] = [p for p in f.of(Prompt) if p.rule == "RACE-004"]
    assert p.seat == 2 and "next chip to seat 2" in p.message and words in p.message


def test_RACE_004_in_the_harness_each_award_names_the_next_seat():
    steps = [mode("race")] + RACE_DEAL + [{"muck": "seat:4"}, {"muck": "seat:2"}, {"press": "hand_end"}, END]
    [hand] = play(script([{"steps": steps}]))["hands"]
    assert [(s, st) for s, st, _ in prompts(hand, "race.next_seat")] == [(2, 7), (1, 8)]
    assert [st for _, st, _ in prompts(hand, "race.ranking")] == [7]  # given at the first award


def test_RACE_005_an_all_in_player_in_the_race_off_the_floor_decides():
    steps = [mode("race"), {"press": "allin", "seat": 6}] + RACE_DEAL + [{"press": "round_done"}, END]
    [hand] = play(script([{"steps": steps}]))["hands"]
    assert [(a["code"], a["seat"], a["audience"], a["step"]) for a in hand["alerts"] if a["rule"] == "RACE-005"] \
        == [("race.allin", 6, "floor", 2)]
    assert prompts(hand, "race.ranking")[0][0] == 4  # ranked by the cards


def test_RACE_005_an_all_in_player_gets_the_first_chip_when_the_house_says_so():
    f = Feeder(seats=tuple(SEATS), button=BUTTON, rules=RuleSettings(race_allin="first_chip"))
    f.press("mode", mode="race")
    for s, cs in RACE.items():
        for c in cs:
            f.put(c, s)
    f.press("round_done")
    f.press("allin", seat=6)  # told late: the ranking is given again
    f.press("allin")  # no seat: which player?
    ranks = [p for p in f.of(Prompt) if p.code == "race.ranking"]
    assert [p.seat for p in ranks] == [4, 6] and ranks[1].message.endswith(
        listing([(6, "Kc"), (4, "As"), (2, "Ah"), (1, "Ad")]))
    assert [p.code for p in f.of(Prompt) if p.rule == "RACE-005"] == ["race.allin_seat"]
    assert [a for a in f.of(Alert) if a.rule == "RACE-005"] == []


def test_RACE_006_the_floor_is_told_and_a_relief_during_the_race_off_is_warned():
    steps = [mode("race")] + RACE_DEAL[:2] + [{"press": "relief"}] + RACE_DEAL[2:] + [END]
    # the next hand from the other deck (the relief brought it in: RELIEF-001)
    spare = [dict(st, deal=st["deal"] + "@B") if "deal" in st else st for st in clean_for([1, 2, 4, 6])]
    report = play(script([{"steps": steps}, {"steps": spare}]))
    race, after = report["hands"]
    assert [(a["code"], a["audience"], a["step"]) for a in race["alerts"] if a["rule"] == "RACE-006"] == [
        ("race.race_off", "floor", 1)]
    assert [(p["code"], p["step"]) for p in race["prompts"] if p["rule"] == "RACE-006"] == [("race.no_relief", 4)]
    # the mode ended with the race's deal (the new down counts its stub: STUB-002)
    assert after["alerts"] == [] and [p["code"] for p in after["prompts"]] == ["stub.count_due"]


def test_a_mode_left_on_ends_when_its_cards_are_gathered_and_hand_end_ends_it_before():
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    f.press("mode", mode="race")
    f.press("hand_end")  # called off before a card: no race
    assert f.table.mode is None
    f.press("mode", mode="race")
    f.put("As", 4)
    f.field.clear()
    f.tick(4)
    assert f.table.mode is None and f.table.last_record["kind"] == "race"
    assert f.table.button == BUTTON  # a race-off's deal moves no button


# -- BREAK ---------------------------------------------------------------------------------------------
LAID = ["7d", "Qs", "7h", "3c"]  # laid above the tray in this order: seats 1, 2, 4, 6


def test_BREAK_001_the_cards_laid_in_a_line_map_to_the_players_in_seat_order_and_rank():
    steps = [mode("highcard")] + [deal(c, "board") for c in LAID] + [END]
    # a card pitched to a seat instead
    pitched = [mode("highcard"), deal("7d", "board"), deal("Qs", 2), END]
    report = play(script([{"steps": steps}, {"steps": pitched}]))
    hand, wrong = report["hands"]
    want = sorted(zip(sorted(SEATS), LAID, strict=True), key=lambda sc: seed_key(sc[1]))
    assert want[:2] == [(2, "Qs"), (4, "7h")]  # the sevens by suit: hearts over diamonds
    assert prompts(hand, "break.ranking") == [(2, 5, "table break, high card first: " + listing(want))]
    assert [(a["code"], a["audience"]) for a in hand["alerts"]] == [("break.ranking", "floor")]
    assert [(s, st) for s, st, _ in prompts(wrong, "break.pitched")] == [(2, 3)]
    assert prompts(wrong, "break.ranking") == []


def test_BREAK_002_open_seats_at_the_hold_tell_the_floor_and_a_deal_during_it_too():
    outs = [{"press": "seat_out", "seat": s} for s in (1, 2, 4)]
    table = [1, 2, 4, 6, 7, 9]
    hands = [{"steps": outs + clean_for([6, 7, 9])},  # dealt on during the hold
             {"steps": [{"press": "ack"}] + clean_for([7, 9, 6])}]  # the floor said deal on
    p = played(hands, seats=table, button=4)
    told = seen(p, Alert, "break.seats_open")
    assert [(w, a.count, a.audience) for w, a in told] == [((1, 3), 3, "floor")]
    holds = [(w, e.count) for w, e in p.seen["dealer"] if type(e) is Prompt and e.code == "break.hold"]
    assert holds == [((1, 3), 3)]
    dealt = seen(p, Alert, "break.dealt_in_hold")
    assert [(w, a.count) for w, a in dealt] == [((1, 4), 3)]  # the first card; none after the ack
    first, second = p.report["hands"]
    assert first["alerts"] == [] and second["alerts"] == []  # the table's notices, no hand's fault


def test_BREAK_002_the_hold_is_at_open_seat_hold_or_late_stage_hold():
    for rules, at in ((RuleSettings(), 3), (RuleSettings(open_seat_hold=4), 4),
                      (RuleSettings(open_seat_hold=4, late_stage=True), 2)):
        f = Feeder(seats=(1, 2, 3, 4, 5, 6), button=6, rules=rules)
        for s in (1, 2, 3, 4):
            f.press("seat_out", seat=s)
        assert [a.count for a in f.of(Alert) if a.code == "break.seats_open"] == list(range(at, 5)), rules


def test_BREAK_003_seat_open_at_once_and_again_after_the_next_hand_unless_filled():
    # seats 2 and 4 open before hand 1; seat 4 is taken again during it: only seat 2 is told again
    steps = [{"press": "seat_out", "seat": 2}, {"press": "seat_out", "seat": 4}] + clean_for([1, 6])[:-1] \
        + [{"press": "seat_in", "seat": 4}, {"press": "hand_end"}, END]
    p = played([{"steps": steps}], seats=SEATS, button=BUTTON)
    notices = [(w, a.seat, a.message) for w, a in seen(p, Alert, "break.seat_open")]
    assert notices == [((1, 1), 2, "seat 2 open"), ((1, 2), 4, "seat 4 open"),
                       ((1, 19), 2, "seat 2 still open (its seat card not collected)")]


def test_BREAK_003_a_seat_out_during_a_hand_is_told_again_after_the_next_hand():
    f = Feeder(seats=(1, 2, 4), button=4)
    f.put("As", 1)
    f.press("seat_out", seat=2)
    f.press("hand_end")  # the hand it left in: too soon
    f.field.clear()
    f.tick(4)
    f.put("Kd", 4)
    f.press("hand_end")
    told = [(a.seat, a.hand) for a in f.of(Alert) if a.code == "break.seat_open"]
    assert told == [(2, 1), (2, 2)]


def test_BREAK_004_the_player_count_reaches_the_floor_every_hand():
    # the count is in what the floor has every hand already: each hand's start (public), its
    # record, and the room's retained state (controller/daemon/room_link.py public_state)
    hands = [{"steps": clean_for([1, 2, 4, 6])},
             {"steps": [{"press": "seat_out", "seat": 2}] + clean_for([4, 6, 1])}]  # button 1, no SB (2 out)
    p = played(hands)
    assert [h["alerts"] for h in p.report["hands"]] == [[], []]
    started = [len(e.seats) for _, e in p.seen["public"] if type(e) is HandStarted]
    records = [len(e.record["seats"]) for _, e in p.seen["floor"] if type(e).__name__ == "HandFinished"]
    assert started == records == [4, 3]
    states = [len(b["seats"]) for (h, _), b in p.topics["state"] if b.get("seats") is not None]
    assert states[0] == 4 and states[-1] == 3


# -- FLOW-005 --------------------------------------------------------------------------------------
def test_FLOW_005_the_button_after_the_break_between_hands_and_at_the_end_of_the_hand():
    # seats 1, 2, 4, 6: hand 1's button is 6, and the button moves to 1 (DEAL-004). Pressed during
    # hand 1: said when it is over (1). Pressed between hands: said at once (1). Pressed during
    # hand 2 (button 1, SB 2, BB 4) after seat 2 left: the BB moves on to 6, the SB to 4, and the
    # button to the old small blind's seat, empty: a dead button on seat 2 (DEAL-005).
    hands = [{"steps": clean_for([1, 2, 4, 6])[:-1] + [mode("break"), END]},
             {"steps": [mode("break")]},
             {"steps": clean_for([2, 4, 6, 1])[:3] + [{"press": "seat_out", "seat": 2}, mode("break")]
              + clean_for([2, 4, 6, 1])[3:]}]
    p = played(hands)
    said = [(w, e.seat) for w, e in p.seen["dealer"] if type(e) is Prompt and e.code == "flow.button_after_break"]
    assert said == [((1, 21), 1), ((2, 1), 1), ((3, 22), 2)]
    assert [h["button"] for h in p.report["hands"] if h["zones"]] == [6, 1]


# -- the state: version 10 keeps the mode and the open seats ------------------------------------------
def test_the_state_of_a_race_off_written_by_release_10_loads_and_plays_on():
    """tests/data/state/v10-modes-mid-hand.json: seats 1, 2, 4, 6, the race-off (mode race), seat
    6 all in, Ad Ah 2c As dealt to seats 1, 2, 2, 4; seat 9 left earlier (open)."""
    state = json.loads((DATA / "v10-modes-mid-hand.json").read_text())
    assert state["version"] == 10
    settings = TableSettings(seats=(1, 2, 4, 6, 9), button=6, confirm_cycles=2, gone_cycles=3,
                             rules=RuleSettings(race_allin="first_chip"))
    table = Table.from_state(state, settings)
    assert table.mode == "race" and table.modes._race_allin == [6] and table.open_seats == [9]
    assert table.hand is not None and table.hand.kind == "race"
    f = Feeder(seats=(1, 2, 4, 6, 9), button=6, rules=RuleSettings(race_allin="first_chip"))
    f.table = table
    f.field = {f.uid(c): s for s, cs in RACE.items() if s != 6 for c in cs}
    f.cycle = 100
    f.put("Kc", 6)
    f.press("round_done")
    [p] = [p for p in f.of(Prompt) if p.code == "race.ranking"]
    assert p.message.endswith(listing([(6, "Kc"), (4, "As"), (2, "Ah"), (1, "Ad")]))


def test_a_version_8_table_migrates_with_no_mode_and_no_open_seat():
    state = json.loads((DATA / "v8-draw-mid-hand.json").read_text())
    table = Table.from_state(state, TableSettings(game="draw27_triple", seats=(1, 2, 4), button=4,
                                                  confirm_cycles=2, gone_cycles=3))
    holds = table.holds
    assert (table.mode, table.modes._race_allin, table.open_seats, holds._seat_notices, holds._hold_released) == \
        (None, [], [], {}, False)


@pytest.mark.e2e
def test_the_mode_press_through_tablectl_simulate_and_the_control_socket(tmp_path):
    """The daemon as a subprocess: the script's mode press goes over the control socket."""
    from tests.e2e.test_simulate_e2e import simulate

    steps = [mode("race")] + RACE_DEAL + [{"press": "round_done"}, {"muck": "seat:4"}, {"press": "hand_end"}, END]
    r = simulate(tmp_path, script([{"steps": steps}]))
    assert r.returncode == 0, r.stderr
    [hand] = json.loads(r.stdout)["hands"]
    got = [(p["code"], p.get("seat"), p["step"]) for p in hand["prompts"]]
    # The ranking comes with the press (step 7); the next seat with the muck (step 8). A race-off
    # has no expected zone, so the muck takes two firm reads; the simulator's dealer, outside the
    # daemon, paces itself on the reads it answers (two cycles the strongest, and one more), and
    # on a loaded machine a weak read can put the daemon's confirmation a cycle after the dealer
    # pressed the next pad: the prompt is then traced to that press (step 9). The in-process tests
    # above trace it exactly.
    assert got[0] == ("race.ranking", 4, 7) and len(got) == 2
    assert got[1][:2] == ("race.next_seat", 2) and got[1][2] in (8, 9), got


def test_a_mode_pressed_for_the_next_deal_outlives_the_one_under_way():
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    f.press("mode", mode="race")
    f.put("As", 4)
    f.press("mode", mode="highcard")  # the table breaks after the race-off
    f.press("hand_end")
    f.field.clear()
    f.tick(4)
    assert f.table.last_record["kind"] == "race" and f.table.mode == "highcard"
    f.put("Qs", 11)
    assert f.table.hand.kind == "table_break"


# -- foul cards in a mode's deal (the deck guard's: ranked nowhere) ---------------------------------
FOREIGN = "tag:E00499FF00112233"  # belongs to no registered deck


def test_RACE_002_a_foreign_or_wrong_deck_card_ranks_nowhere_and_the_race_ends():
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    f.press("mode", mode="race")
    f.put("Ad", 1)
    f.put("Kh", 2, deck="B")  # the other deck's card: Kh@B
    f.put(FOREIGN, 4)
    f.put("Kc", 6)
    f.press("round_done")  # threw ValueError before (card_strength of 'Kh@B')
    [p] = [p for p in f.of(Prompt) if p.code == "race.ranking"]
    assert p.message == "race-off, highest first: " + listing([(1, "Ad"), (6, "Kc")]) and p.seat == 1
    assert {"deck.wrong_deck", "deck.unknown_tag"} <= {a.code for a in f.of(Alert) if a.rule == "DECK-006"}
    f.field[FOREIGN[4:]] = MUCK  # mucking the foul card awards nothing
    f.tick(3)
    assert [p for p in f.of(Prompt) if p.code in ("race.award_order", "race.next_seat")] == []
    f.press("hand_end")
    assert f.table.mode is None
    assert not any("E004" in p.message or "@B" in p.message for p in f.of(Prompt))


def test_BREAK_001_a_foreign_card_in_the_line_keeps_its_place_and_ranks_nowhere():
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    f.press("mode", mode="highcard")
    for card in ("7d", FOREIGN, "7h", "3c"):  # seats 1, 2, 4, 6 in seat order
        f.put(card, 11)
    [p] = [p for p in f.of(Prompt) if p.code == "break.ranking"]
    assert p.message == "table break, high card first: " + listing([(4, "7h"), (1, "7d"), (6, "3c")])
    f.press("hand_end")
    assert f.table.mode is None


def _race_pressed_mid_hand() -> Feeder:
    """Hand 1 of hold'em dealt to seats 1, 2, 4, 6 and its flop; then ``mode race`` (for the next deal)."""
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("Qh", 6), ("2h", 1), ("3h", 2), ("Qs", 4), ("4d", 6)]:
        f.put(card, seat)
    f.press("round_done")
    f.put("9d", 12)
    for c in ("Th", "Jh", "4s"):
        f.put(c, 11)
    f.press("mode", mode="race")
    return f


def test_RACE_005_a_race_pressed_during_a_hand_leaves_that_hands_allin_to_it():
    f = _race_pressed_mid_hand()
    f.press("allin")  # SHOW-005 in hand 1, not the race-off's "which seat?"
    assert [p.code for p in f.of(Prompt) if p.rule == "RACE-005"] == []
    assert [a.code for a in f.of(Alert) if a.rule == "SHOW-005"] == ["showdown.all_up"]
    assert f.table.mode == "race" and f.table.hand.kind == "hand"


def test_RACE_006_a_relief_during_a_hand_with_a_race_pressed_for_after_it_is_no_race_relief():
    f = _race_pressed_mid_hand()
    f.press("relief")
    assert [p.code for p in f.of(Prompt) if p.rule == "RACE-006"] == []
    f.press("hand_end")
    f.field.clear()
    f.tick(4)
    f.put("As", 4, deck="B")  # the race-off's deal (the relief brought deck B in)
    f.press("relief")  # now during the race-off: warned
    assert [p.code for p in f.of(Prompt) if p.rule == "RACE-006"] == ["race.no_relief"]


def test_BREAK_002_a_cash_table_does_not_hold_and_each_seat_open_is_still_told():
    f = Feeder(seats=(1, 2, 3, 4, 5, 6), button=6, event="cash")
    for s in (1, 2, 3, 4):
        f.press("seat_out", seat=s)
    assert [a.seat for a in f.of(Alert) if a.code == "break.seat_open"] == [1, 2, 3, 4]  # BREAK-003 stays
    assert [a for a in f.of(Alert) if a.rule == "BREAK-002"] == []
    assert [p for p in f.of(Prompt) if p.rule == "BREAK-002"] == []
    f.put("As", 5)  # dealt on: no "dealt in hold"
    f.put("Kd", 6)
    assert [a for a in f.of(Alert) if a.rule == "BREAK-002"] == []


def test_BREAK_003_a_cash_player_sitting_out_who_leaves_opens_his_seat():
    f = Feeder(seats=(1, 2, 4, 6), button=6, event="cash")
    f.press("seat_absent", seat=2)  # sits out (DEAL-008): off the seats dealt in
    assert 2 not in f.table.seats and 2 in f.table.roster.absent
    f.press("seat_out", seat=2)  # then leaves
    assert [(a.seat, a.message) for a in f.of(Alert) if a.code == "break.seat_open"] == [(2, "seat 2 open")]
    assert f.table.open_seats == [2]


@pytest.mark.parametrize("press", ["race", "highcard", "draw"])
def test_CHIN_002_five_handed_chinese_poker_keeps_the_button_in_a_mode_deal_and_the_draw(press):
    """CHIN-002 leaves the button out of a five-handed hand, not out of a race-off, a table
    break's high card or the draw for the button (DEAL-011)."""
    seats, button = (1, 2, 3, 4, 5), 5
    f = Feeder(seats=seats, button=button, game="chinese")
    if press == "draw":
        f.press("highcard")
    else:
        f.press("mode", mode=press)
    f.put("As", 11 if press == "highcard" else button)
    hand = f.table.hand
    assert hand.kind == {"race": "race", "highcard": "table_break", "draw": "highcard"}[press]
    assert hand.seats == seats


@pytest.mark.parametrize("bad", ["h4h", "Race", None])
def test_MODE_a_mode_the_core_does_not_know_is_ignored_and_the_state_still_loads(bad):
    """docs/rules.md's legend has MODE(race|highcard|break|h4h|bubble|satellite); the table knows three.
    A journal replayed (event_from_dict) does not pass the pad's check: the core ignores the rest."""
    f = Feeder(seats=tuple(SEATS), button=BUTTON)
    row = {**event_to_dict(ButtonPress(1.0, "mode", mode="race")), "mode": bad}
    f.effects += f.table.apply(event_from_dict(row))
    assert f.table.mode is None and f.effects == []
    state = json.loads(json.dumps(f.table.to_state()))
    assert Table.from_state(state, f.table.settings).mode is None  # check_table refused mode 'h4h' before


# -- BREAK-002: the ack during a hold, as the dealer's console takes it ------------------------------
class Console:
    """The core and the dealer's console (controller.core.prompts.PromptBoard) fed the same presses and
    effects, as the daemon feeds them: after every step, the hold waits on the console exactly
    while the core holds (so the ack the console gives the hold is the one the core takes)."""

    def __init__(self, f: Feeder) -> None:
        from controller.core.prompts import PromptBoard

        self.f, self.board, self.seen = f, PromptBoard(), 0
        self.sync()

    def sync(self) -> None:
        self.board.apply(self.f.effects[self.seen:])
        self.seen = len(self.f.effects)
        assert ("break.hold" in self.codes()) == self.f.table.holding(), (self.codes(), self.f.table.open_seats)

    def press(self, name: str, **kw: Any) -> None:
        self.board.press(ButtonPress(0.0, name, **kw))
        self.f.press(name, **kw)
        self.sync()

    def device(self, name: str, online: bool) -> None:
        from controller.core.events import DeviceStatus

        self.f.effects += self.f.table.apply(DeviceStatus(float(self.f.cycle) + 0.5, name, online))
        self.sync()

    def codes(self) -> list[str]:
        return [w.code for w in sorted(self.board.waiting, key=lambda w: w.seq)]


def test_BREAK_002_an_ack_of_the_stub_count_under_the_hold_is_not_the_go_ahead():
    from tests.unit.core.test_table import deal_clean_hand

    c = Console(Feeder(seats=(1, 2, 4), button=4, rules=RuleSettings(open_seat_hold=1)))
    deal_clean_hand(c.f)
    c.sync()
    assert c.codes() == ["stub.count_due"] and c.f.table.stub.asked is not None
    c.press("seat_out", seat=1)  # the hold comes on top of the count (it outranks it)
    assert c.board.shown().code == "break.hold"
    c.press("next")  # seen: not the go-ahead, and the hold stays up
    assert c.f.table.holding() and c.board.shown().code == "break.hold"
    c.press("ack")  # the hold's: the floor's go-ahead; the count still waits
    assert c.f.table.holds._hold_released and c.f.table.stub.asked is not None and c.codes() == ["stub.count_due"]
    c.press("ack")  # the count's (before: the first ack was both)
    assert c.f.table.stub.asked is None and c.codes() == []


def test_BREAK_002_an_ack_of_a_misdeal_alert_or_while_a_device_is_offline_is_not_the_go_ahead():
    c = Console(Feeder(seats=(1, 2, 4), button=4, rules=RuleSettings(open_seat_hold=1)))
    c.press("seat_out", seat=2)
    c.f.put("As", 1)
    c.f.put("Kd", 3)  # a seat not dealt in: a misdeal alert, shown above the hold
    c.sync()
    assert c.board.shown().code == "misdeal.card_to_seat_not_dealt_in"
    c.press("ack")  # the misdeal alert's
    assert c.f.table.holding() and c.board.shown().code == "break.hold"
    c.press("ack")  # the hold's
    assert not c.f.table.holding()
    c.press("seat_out", seat=4)  # a second seat open: the hold again
    c.device("reader", False)  # the reader's offline prompt shows; an ack answers nothing
    c.press("ack")
    assert c.f.table.holding() and c.board.shown().code == "device.reader_offline"
    c.device("reader", True)
    c.press("ack")
    assert not c.f.table.holding()


def test_BREAK_002_seats_filled_below_the_hold_end_it_on_the_console_too():
    c = Console(Feeder(seats=(1, 2, 3, 4, 5, 6), button=6))
    for s in (1, 2, 3):
        c.press("seat_out", seat=s)
    assert c.f.table.holding() and c.codes() == ["break.hold"]
    c.press("seat_in", seat=2)  # two open: under the hold
    assert c.codes() == ["break.hold_over"] and not c.f.table.holding()
    assert [p.message for p in c.f.of(Prompt) if p.code == "break.hold_over"] == [
        "seats filled: the hold is over, deal on"]
