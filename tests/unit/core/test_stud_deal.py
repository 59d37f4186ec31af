"""Stud dealt through the core (STUD-001, 002, 006..008): the template's streets, the bring-in,
the stub before 7th street and its procedures. Every hand is written out here card by card; the
expected seats and prompts are read off the guides (docs/rules.md: STUD, 001 §STUD GAMES, 002 §SHORT
STUB - Seven Card Games), never computed by the code under test."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from controller.core.effects import Alert, HandFinished, Prompt
from controller.core.settings import RuleSettings, TableSettings
from controller.core.state import STATE_VERSION
from controller.core.table import Table
from hw_sim.random_stud import random_stud_hand
from rig.scenarios import NOISE, deal_and_check
from tests.unit.core.test_state import SETTINGS as SETTINGS_V3
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

BURN, BOARD = 12, 11
DECK = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def deal_streets(f: Feeder, seats: list[int], hands: dict[int, list[str]], streets: range) -> None:
    """Deal the given streets (3 = 3rd ... 7 = 7th) card by card, round by round, with the burn
    before each of 4th-7th and the dealer's tap before it."""
    burns = iter(c for c in DECK if all(c not in h for h in hands.values()) and f.uid(c) not in f.field)
    for street in streets:
        if street > 3:
            f.press("round_done")
            f.put(next(burns), BURN)
        rounds = range(3) if street == 3 else range(street - 1, street)
        for r in rounds:
            for seat in seats:
                f.put(hands[seat][r], seat)


def prompts(f: Feeder) -> list[Prompt]:
    return f.of(Prompt)


def alerts(f: Feeder) -> list[Alert]:
    return f.of(Alert)


# seats 1, 2, 4, the dealer's position at 4: the deal starts at seat 1. Up cards on 3rd street
# (the third card of each): 7h, 3c, 3d.
THREE = {1: ["Ks", "Kd", "7h", "9c", "Tc", "Jc", "2s"],
         2: ["Qs", "Qd", "3c", "9d", "Td", "Jd", "2d"],
         4: ["As", "Ad", "3d", "9h", "Th", "Jh", "2h"]}


def test_STUD_001_a_clean_stud_hand_raises_nothing_and_follows_the_template() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 4))
    hand = f.table.hand
    assert hand is not None and hand.street() == "3rd" and hand.next_to() == "burn"
    deal_streets(f, [1, 2, 4], THREE, range(4, 6))
    assert hand.street() == "5th" and hand.next_to() == "burn"
    deal_streets(f, [1, 2, 4], THREE, range(6, 8))
    assert hand.street() == "7th" and hand.next_to() is None
    assert hand.count("burn") == 4  # one before each of 4th-7th
    assert hand.stub_count == 52 - 21 - 4
    assert not alerts(f), alerts(f)
    # the table knows the up cards from the order they came: 3rd (the third card), 4th-6th
    from controller.core.families.stud.rules import up_cards
    assert up_cards(hand, 2) == ["3c", "9d", "Td", "Jd"]
    f.field.clear()
    f.tick(4)
    record = f.of(HandFinished)[-1].record
    assert record["game"] == "stud" and record["zones"]["seat:1"] == THREE[1]
    assert any(n == "STUD-006: stub 31 before 7th street; 3 players + 2 = 5 needed" for n in record["notes"])


def test_STUD_002_the_lowest_up_card_brings_in_in_stud_the_highest_in_razz() -> None:
    # stud: the treys tie by rank; clubs is the lowest suit (002: "by RANK and SUIT"): seat 2
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 4))
    bring = [p for p in prompts(f) if p.rule == "STUD-002"]
    assert [(p.code, p.message) for p in bring] == [("deal.bring_in", "seat 2 brings in: 3c, the lowest card showing")]
    assert f.table.hand is not None and f.table.hand.first_to_act() == 2
    # razz: the highest card brings in (002: "The HIGHEST CARD showing by rank and suit"): the 7h
    r = Feeder(game="razz", seats=(1, 2, 4), button=4)
    deal_streets(r, [1, 2, 4], THREE, range(3, 4))
    assert [p.message for p in prompts(r) if p.rule == "STUD-002"] == ["seat 1 brings in: 7h, the highest card showing"]
    assert not alerts(f) and not alerts(r)


def test_STUD_002_the_ace_is_low_in_razz_and_the_king_of_spades_highest() -> None:
    hands = {1: ["2c", "3c", "Ac"], 2: ["2d", "3d", "Ks"], 3: ["2h", "3h", "Kh"]}
    r = Feeder(game="razz", seats=(1, 2, 3), button=3)
    deal_streets(r, [1, 2, 3], hands, range(3, 4))
    assert [p.message for p in prompts(r)] == ["seat 2 brings in: Ks, the highest card showing"]
    s = Feeder(game="stud", seats=(1, 2, 3), button=3)
    deal_streets(s, [1, 2, 3], hands, range(3, 4))
    assert [p.message for p in prompts(s)] == ["seat 3 brings in: Kh, the lowest card showing"]  # ace high in stud


def full_table(n: int, cards_each: int) -> tuple[list[int], dict[int, list[str]]]:
    seats = list(range(1, n + 1))
    cards = iter(DECK[::-1])  # aces first: the burns are the low cards left over
    return seats, {s: [next(cards) for _ in range(cards_each)] for s in seats}


def test_STUD_007_seven_players_the_burns_make_up_the_stub() -> None:
    # 7 players to 6th street: 42 cards + 3 burns out, the stub holds 7; 7 + 2 = 9 are needed;
    # 7 + 3 burns = 10 is enough: 001's method (the default): deal the stub but its last card,
    # mix that card with the burns, cut, and deal the rest with no burn
    seats, hands = full_table(7, 7)
    f = Feeder(game="stud", seats=tuple(seats), button=7)
    deal_streets(f, seats, hands, range(3, 7))
    assert not [p for p in prompts(f) if p.rule in ("STUD-007", "STUD-008")]  # not before 6th's betting is done
    f.press("round_done")  # the tap that ends it: now the stub is checked (STUD-006)
    short = [p for p in prompts(f) if p.rule in ("STUD-007", "STUD-008")]
    assert [p.code for p in short] == ["stub.stud_short_use_burns"]
    assert short[0].message.startswith("stub 7, need 9 (7 players + burn + bottom card)")
    assert f.table.hand is not None and f.table.hand.stub_count == 7
    burns = list(f.table.hand.zones["burn"])
    for seat in seats[:6]:  # 7th street from the stub, no burn, the last card kept back
        f.put(hands[seat][6], seat)
    for uid in burns:  # the burns gathered with the last card into a new stub
        f.field.pop(uid)
    f.tick(4)
    f.field[burns[0]] = seats[6]  # the last player's 7th card: an old burn, from the rebuilt stub
    f.tick(3)
    hand = f.table.hand
    assert all(hand.count(f"seat:{s}") == 7 for s in seats)
    assert not alerts(f), alerts(f)


def seven_players_short(method: str) -> tuple[Feeder, list[int], dict[int, list[str]], list[str]]:
    """Seven players to 6th street and the tap (as above: stub 7, burns 3), by ``method``; the
    dealer has gathered the burns into the stub (002: scrambled, cut)."""
    seats, hands = full_table(7, 7)
    f = Feeder(game="stud", seats=tuple(seats), button=7, rules=RuleSettings(stud_short_stub_method=method))
    deal_streets(f, seats, hands, range(3, 7))
    f.press("round_done")
    assert f.table.hand is not None
    burns = list(f.table.hand.zones["burn"])
    for uid in burns:
        f.field.pop(uid)
    f.tick(4)
    return f, seats, hands, burns


def test_STUD_007_by_002s_method_the_stub_and_burns_are_scrambled_cut_and_7th_is_burned() -> None:
    # 002 §SHORT STUB: "put the stub together with the burn cards, scramble, cut, burn and deal";
    # the 10 cards (stub 7 + 3 burns) give a burn and the seven 7th-street cards
    f, seats, hands, burns = seven_players_short("002")
    short = [p for p in prompts(f) if p.rule in ("STUD-007", "STUD-008")]
    assert [(p.code, p.message) for p in short] == [(
        "stub.stud_short_scramble",
        "stub 7, need 9 (7 players + burn + bottom card): scramble the stub with the burns, cut, burn, and deal "
        "7th street")]
    f.field[burns[0]] = BURN  # the burn: an old burn, out of the scrambled stub
    f.tick(3)
    for seat in seats[:5]:
        f.put(hands[seat][6], seat)
    f.field[burns[1]] = seats[5]  # two more old burns, dealt as 7th-street cards
    f.field[burns[2]] = seats[6]
    f.tick(3)
    hand = f.table.hand
    assert hand is not None and all(hand.count(f"seat:{s}") == 7 for s in seats)
    assert hand.board.burns_total == 4 and hand.next_to() is None
    assert not alerts(f), alerts(f)


def test_STUD_007_by_002s_method_7th_street_without_its_burn_is_prompted() -> None:
    f, seats, hands, _ = seven_players_short("002")
    f.put(hands[1][6], 1)  # 7th street dealt straight from the scrambled stub: no burn
    assert [(a.code, a.rule, a.message) for a in alerts(f)] == [
        ("burn.missing", "BURN-001", "7th street was dealt without its burn")]
    g, seats, hands, _ = seven_players_short("001")  # 001's method deals the rest with no burn
    g.put(hands[1][6], 1)
    assert not alerts(g) and [p.code for p in prompts(g) if p.rule == "STUD-007"] == ["stub.stud_short_use_burns"]


def test_STUD_007_by_002s_method_random_seven_player_hands_through_the_daemon_under_noise() -> None:
    # the generator follows 002 (hw_sim/random_stud.py: the stub and the burns gathered off the
    # table into a new stub, a burn, 7th street) and the daemon, configured so, prompts it and
    # raises nothing: exact zones and stub counts, the expected prompts, no secret in public
    rng = random.Random("stud-002")
    hands = [random_stud_hand(rng, game=game, seats=list(range(1, 8)), button=7, fold_chance=0,
                              short_stub_method="002") for game in ("stud", "razz")]
    assert all(e["procedure"] == "STUD-007" for h in hands for e in h.expect if e["rule"] == "STUD-006")
    script = {"format": 1, "game": "stud", "seats": hands[0].seats, "button": 7, "noise": dict(NOISE, seed=7),
              "hands": [h.hand(game) for h, game in zip(hands, ("stud", "razz"), strict=True)]}
    report = deal_and_check(script, [h.expect for h in hands], rules_extra='stud_short_stub_method = "002"')
    for hand in report["hands"]:
        assert [p["code"] for p in hand["prompts"] if p["rule"] == "STUD-007"] == ["stub.stud_short_scramble"]
        assert len(hand["zones"]["burn"]) >= 1 and not hand["alerts"]


def test_STUD_007_the_short_stub_method_is_read_and_checked(tmp_path: Path) -> None:
    from controller.config.daemon import ConfigError, load_config
    from tests.unit.config.test_config import good

    assert load_config(good(tmp_path)).table.rules.stud_short_stub_method == "001"  # the proposed default
    cfg = good(tmp_path, '[rules]\nstud_short_stub_method = "002"\n')
    assert load_config(cfg).table.rules.stud_short_stub_method == "002"
    bad = good(tmp_path, '[rules]\nstud_short_stub_method = "003"\n')
    with pytest.raises(ConfigError, match=r"\[rules\] stud_short_stub_method: want one of 001, 002"):
        load_config(bad)


def test_STUD_008_eight_players_one_community_card() -> None:
    # 8 players to 6th street: 48 cards + 3 burns out, the stub holds 1; 8 + 2 = 10 needed, and
    # 1 + 3 burns is not enough: one community card. The stub has fewer than three cards (002):
    # rebuild it with the burns, cut, burn, and deal the card in the middle
    seats, hands = full_table(8, 6)
    f = Feeder(game="stud", seats=tuple(seats), button=8)
    deal_streets(f, seats, hands, range(3, 7))
    f.press("round_done")
    short = [p for p in prompts(f) if p.rule in ("STUD-007", "STUD-008")]
    assert [p.code for p in short] == ["stub.stud_community_card"]
    assert "stub 1, need 10" in short[0].message and "scramble the stub with the burns" in short[0].message
    hand = f.table.hand
    assert hand is not None
    burns = list(hand.zones["burn"])
    for uid in burns[1:]:  # two burns go into the new stub (the third stays where it lies)...
        f.field.pop(uid)
    f.tick(4)
    f.field[burns[1]] = BURN  # ...one of them is burned again, another is the community card
    f.field[burns[2]] = BOARD
    f.tick(3)
    assert hand.count("board") == 1 and hand.next_to() is None
    assert not alerts(f), alerts(f)


def test_STUD_001_a_street_without_its_burn_is_prompted() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 4))
    f.press("round_done")
    f.put(THREE[1][3], 1)  # 4th street with no burn
    found = [(a.code, a.rule, a.message) for a in alerts(f)]
    assert found == [("burn.missing", "BURN-001", "4th street was dealt without its burn")]


def test_STUD_008_a_card_in_the_middle_without_a_short_stub() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 5))
    f.put("5s", BOARD)
    assert [a.code for a in alerts(f)] == ["deal.stud_board_card"]


def test_DEAL_012_stud_deals_at_most_eight() -> None:
    f = Feeder(game="stud", seats=tuple(range(1, 10)), button=9)
    f.put("2c", 1)
    assert [(a.code, a.message) for a in alerts(f)] == [
        ("deal.too_many_players", "9 seats dealt in; this game deals at most 8")]


def test_STUD_007_a_7th_street_card_never_comes_from_the_muck() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    deal_streets(f, [1, 2, 4], THREE, range(3, 7))
    for card in THREE[4][:6]:  # seat 4 folds on 6th street
        f.field[f.uid(card)] = 13
    f.tick(4)
    f.press("round_done")
    f.put("4c", BURN)
    f.put(THREE[4][0], 1)  # a folded card dealt to seat 1 as its 7th
    found = [a for a in alerts(f) if a.code.startswith("muck.")]
    assert found and all(a.audience == "floor" for a in found), alerts(f)


# -- the state: version 7 (issue 16) gives a prompt its seat ----------------------------------------
DATA = TESTS / "data" / "state"


def test_the_state_of_a_stud_hand_written_by_release_7_loads_and_plays_on() -> None:
    state = json.loads((DATA / "v7-stud-mid-hand.json").read_text())
    assert state["version"] == 7
    table = Table.from_state(state, TableSettings(game="stud", seats=(1, 2, 4), button=4, confirm_cycles=2,
                                                  gone_cycles=3))
    hand = table.hand
    assert hand is not None and hand.game == "stud" and hand.street() == "4th"
    assert [(p.rule, p.seat) for p in hand.prompts] == [("STUD-002", 2)]  # seat 2's 3c brings in
    assert hand.next_to() == "seat:2"  # 4th street goes on from seat 1's card


def test_a_version_3_prompt_migrates_with_no_seat() -> None:
    state = json.loads((DATA / "v3-mid-hand.json").read_text())
    hand = state["table"]["hand"]["v"]
    hand["prompts"] = [{"o": "Prompt", "v": {"ts": 5.0, "code": "stub.count_due", "message": "count the stub",
                                             "rule": "STUB-001", "hand": 2, "audience": "dealer"}}]
    table = Table.from_state(state, SETTINGS_V3)
    assert table.hand is not None and [(p.code, p.seat) for p in table.hand.prompts] == [("stub.count_due", None)]
    assert STATE_VERSION >= 7


def test_STUD_001_stud_has_no_button_every_hand_starts_after_the_dealer() -> None:
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    for hand in range(2):
        deal_streets(f, [1, 2, 4], {1: [f"{r}c" for r in "234"], 2: [f"{r}d" for r in "234"],
                                    4: [f"{r}h" for r in "234"]}, range(3, 4))
        assert f.table.hand is not None and f.table.hand.order == [1, 2, 4], hand
        f.field.clear()
        f.tick(4)
    assert [e.record["button"] for e in f.of(HandFinished)] == [4, 4] and f.table.button == 4
    assert not alerts(f)


def test_STUD_005_an_open_pair_on_4th_street_in_stud_high_only() -> None:
    # seat 2 shows 3c on 3rd street and 3s on 4th: a pair showing (002: "If there is a pair showing
    # on 4th street, all players ... have the option of betting or raising to the higher limit";
    # "applies to Seven Card Stud - High Only")
    hands = {1: ["Ks", "Kd", "7h", "9c"], 2: ["Qs", "Qd", "3c", "3s"], 4: ["As", "Ad", "5d", "9h"]}
    for game, want in (("stud", [("deal.open_pair", 2)]), ("stud8", []), ("razz", [])):
        f = Feeder(game=game, seats=(1, 2, 4), button=4)
        deal_streets(f, [1, 2, 4], hands, range(3, 5))
        assert [(p.code, p.seat) for p in prompts(f) if p.rule == "STUD-005"] == want, game
        assert not alerts(f)


def test_STUD_006_the_players_are_those_left_after_6th_streets_betting() -> None:
    # eight dealt to 6th street leave a stub of 1; six fold before 7th: 2 players + 2 = 4 needed,
    # and the stub of 1 with the 3 burns makes 4: the burns make it up (STUD-007), where the
    # eight would have needed a community card (STUD-008)
    seats, hands = full_table(8, 6)
    f = Feeder(game="stud", seats=tuple(seats), button=8)
    deal_streets(f, seats, hands, range(3, 7))
    for seat in (2, 3, 4, 5, 6, 7):
        for card in hands[seat]:
            f.field[f.uid(card)] = 13
    f.tick(4)
    f.press("round_done")
    notes = f.table.hand.notes if f.table.hand else []
    want = "STUD-006: stub 1 before 7th street; 2 players + 2 = 4 needed"
    assert [n for n in notes if n.startswith("STUD-006")] == [want]
    assert [p.rule for p in prompts(f) if p.rule in ("STUD-007", "STUD-008")] == ["STUD-007"]


# -- MISD-008: a down card exposed on 3rd street ------------------------------------------------
def test_MISD_008_a_down_card_exposed_on_3rd_street_is_a_misdeal() -> None:
    # 001 §GAME MISDEAL, 002 §MISDEALS: "the dealer exposes either of a player's two initial down
    # cards": a misdeal. Seat 2's second card (its second down card) is exposed.
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    for seat in (1, 2, 4):
        f.put(THREE[seat][0], seat)
    f.put(THREE[1][1], 1)
    f.put(THREE[2][1], 2)
    f.press("exposed")
    assert [(a.code, a.rule, a.seat) for a in alerts(f)] == [("misdeal.stud_down_card_exposed", "MISD-008", 2)]


def test_MISD_008_the_up_card_exposed_is_no_misdeal() -> None:
    # the third card of 3rd street is dealt face up: a press for it is no misdeal, and no
    # replacement (the flop games' MISD-010 would make it the next burn)
    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    for r in range(2):
        for seat in (1, 2, 4):
            f.put(THREE[seat][r], seat)
    f.put(THREE[1][2], 1)
    f.press("exposed")
    assert alerts(f) == []
    assert [(p.code, p.rule, p.seat) for p in prompts(f)] == [("deal.stud_up_card_exposed", "MISD-008", 1)]
    hand = f.table.hand
    assert hand is not None and hand.board.expected_burn is None
    for seat in (2, 4):
        f.put(THREE[seat][2], seat)
    assert alerts(f) == []


def test_MISD_008_a_press_that_beats_the_reader_is_judged_when_the_card_is_read() -> None:
    # the dealer presses while the reader has only heard the card (a read at seat 2 with crosstalk
    # at seat 4): the press is for that card, seat 2's first down card
    from controller.core.events import ReaderCycle

    f = Feeder(game="stud", seats=(1, 2, 4), button=4)
    f.put(THREE[1][0], 1)
    f.cycle += 1
    reads = ((f.uid(THREE[1][0]), 1, 200), (f.uid(THREE[2][0]), 2, 200), (f.uid(THREE[2][0]), 4, 120))
    f.effects += f.table.apply(ReaderCycle(float(f.cycle), "reader", f.cycle, reads))
    assert f.table.tracker.pending_arrivals() == [(f.uid(THREE[2][0]), "seat:2")]  # heard, not yet placed
    f.press("exposed")
    assert alerts(f) == []
    f.put(THREE[2][0], 2)
    assert [(a.code, a.seat) for a in alerts(f)] == [("misdeal.stud_down_card_exposed", 2)]
