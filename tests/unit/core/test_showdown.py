"""The showdown's rules, a test (or more) per rule id, on the dealer guides' own examples where
they give one (quoted in the comments from the guides docs/rules.md cites); the hand words a dealer
announces; the record's ``showdown`` block."""

from __future__ import annotations

import pytest

from controller.core.showdown.evaluation import EvaluationError, best, read_all
from controller.core.showdown.rules import bad_beat, findings, winner_guard
from controller.core.showdown import OddChipRules, block, from_record, run_boards, showdown, split_pot, split_runs


def cards(text: str) -> list[str]:
    return text.split()


def winners(game: str, hands: dict[int, str], board: str = "", button: int = 9, **kw) -> tuple:
    sd = showdown(game, {s: cards(h) for s, h in hands.items()}, cards(board), button=button, **kw)
    assert sd is not None
    return sd.winners


# -- EVAL ----------------------------------------------------------------------------------------
def test_eval_001_holdem_best_five_of_seven_and_playing_the_board():
    # the board plays for both: a royal flush on the board ties every hand (SPLIT-001)
    assert winners("holdem", {1: "2c 3d", 2: "Ac Ad"}, "As Ks Qs Js Ts") == ((1, 2),)
    # one hole card, four board cards: the ace-high flush beats the board's straight
    assert winners("holdem", {1: "Ah 2c", 2: "Kc Qd"}, "9h Th Jh 3h 8s") == ((1,),)
    assert best("holdem", 0, cards("Ah 2c"), cards("9h Th Jh 3h 8s")).words == "flush, ace high"


def test_eval_002_omaha_exactly_two_plus_three():
    board = "As Ks Qs Js 2d"
    # one spade in the hand: no flush, no straight in Omaha; the same cards make a royal flush in hold'em
    assert best("omaha", 0, cards("Ts 3c 4c 5c"), cards(board)).words == "ace high"
    assert best("holdem", 0, cards("Ts 3c"), cards(board)).words == "royal flush"
    # four aces in the hand play as a pair (only two of them count)
    assert best("omaha", 0, cards("Ac Ad Ah As"), cards("2c 7d 9h Jc Ks")).words.startswith("pair of aces")
    # the low takes exactly two too: A-2 in the hand, 3-4-8 on the board
    assert best("omaha8", 1, cards("As 2s Kc Kd"), cards("3h 4d 8c Qs Qd")).words == "8-4"
    assert best("omaha8", 1, cards("As Ks Kc Kd"), cards("3h 4d 8c 7s 6d")) is None


def test_eval_003_eight_or_better_qualifier_and_the_ace_both_ways():
    # 002: "An Ace can be played either high or low": a wheel is the best low and a straight for high
    sd = showdown("stud8", {1: cards("As 2d 3c 4h 5s Kd Kc"), 2: cards("Ah Ad Ac 9s 9d 7c 6c")}, button=1)
    assert sd.words(0, 1) == "straight, five high" and sd.words(1, 1) == "5-4"
    assert sd.winners == ((2,), (1,))  # aces full high; the wheel low
    # five different ranks, all eight or lower: a nine, or a pair, is no low
    assert best("stud8", 1, cards("As 2d 3c 4h 9s Kd Qc")) is None
    assert best("stud8", 1, cards("As Ad 2c 3h 4s Kd Qc")) is None
    # SPLIT-002: no qualifying low: the low half has no winner and the high takes the whole pot
    sd = showdown("omaha8", {1: cards("Kc Kd Qh Js"), 2: cards("As Ac 9d 9h")}, cards("Ks Td 9s 3c 2h"), button=2)
    assert sd.winners == ((1,), ()) and split_pot(9, sd) == {1: 9}
    assert block(sd)["low"] == [] and block(sd)["low_hands"] == {}


def test_eval_004_lowball_a5_and_27():
    # 001: A-5: 5-4-3-2-A is the best hand, aces low, straights and flushes do not count
    assert winners("draw_a5_triple", {1: "As 2s 3s 4s 5s", 2: "Ah 2d 3c 4h 6s"}) == ((1,),)
    assert best("draw_a5_triple", 0, cards("As 2s 3s 4s 5s")).words == "5-4"
    # 2-7: 7-5-4-3-2 is the best; aces high only; straights and flushes are high hands (LOWBALL_27_SF "count")
    assert winners("draw27_single", {1: "7c 5d 4h 3s 2c", 2: "8c 5h 4d 3c 2d"}) == ((1,),)
    assert winners("draw27_single", {1: "As 5d 4h 3s 2c", 2: "Kc Qd Jh 9s 8c"}) == ((2,),)  # A-5-4-3-2 is ace high
    assert winners("draw27_triple", {1: "8c 7d 6h 5s 4c", 2: "Kc Qd Jh 9s 8d"}) == ((2,),)  # the straight loses
    assert winners("draw27_triple", {1: "9c 7c 5c 4c 2c", 2: "Kc Qd Jh 9s 8d"}) == ((2,),)  # the flush loses
    assert best("draw27_triple", 0, cards("9c 7c 5c 4c 2c")).words == "flush, nine high"
    assert best("draw27_single", 0, cards("7c 5d 4h 3s 2c")).words == "7-5"


def test_eval_005_razz_the_ace_always_low():
    # 002: "Best Hand - Wheel (Ace Plays Low)"; the ace beats a deuce; the pair is avoided
    hands = {1: "As 2d 3c 4h 5s Kd Kc", 2: "Ah 2c 3d 4s 6h 6d 6c", 3: "2s 3h 4d 5c 7h Qd Qh"}
    assert winners("razz", hands) == ((1,),)
    sd = showdown("razz", {s: cards(h) for s, h in hands.items()}, button=1)
    assert [sd.words(0, s) for s in (1, 2, 3)] == ["5-4", "6-4", "7-5"]
    # pairs count against a razz hand: one pair of jacks (K-Q-J-J-10) beats aces and kings
    assert winners("razz", {1: "Ah Ad Ac As Kh Kd Qc", 2: "Kc Ks Qh Qd Jc Js Th"}) == ((2,),)


def test_eval_006_badugi_the_guides_example():
    # 001 §BADUGI: A♠2♠4♣5♦ plays as A-4-5; A♦2♣2♥3♠ plays as A-2-3 and wins
    sd = showdown("badugi", {1: cards("As 2s 4c 5d"), 2: cards("Ad 2c 2h 3s")}, button=2)
    assert sd.winners == ((2,),)
    assert sorted(sd.reads[0][1].cards) == sorted(["As", "4c", "5d"])
    assert sd.words(0, 1) == "three-card 5-4" and sd.words(0, 2) == "three-card 3-2"
    # a four-card badugi beats every three-card one; A-2-3-4 in four suits is the best
    assert winners("badugi", {1: "Kc Qd Jh Ts", 2: "Ah 2s 3c 3d", 3: "Ad 2c 3s 4h"}) == ((3,),)
    assert winners("badugi", {1: "Kc Qd Jh Ts", 2: "Ac 2d 3h 3s"}) == ((1,),)


def test_eval_007_the_badugi_hybrids():
    # ADUCI (badacey): badugi and A-5; the nut is a four-suit A-2-3-4 with any 5
    sd = showdown("badacey", {1: cards("Ac 2d 3h 4s 5c"), 2: cards("Ad 2c 3s 5h 6d")}, button=2)
    assert sd.winners == ((1,), (1,)) and block(sd)["halves"] == ["A-5", "badugi"]
    # BADUCI (badeucy): badugi with the ace high, and 2-7; the nut is a four-suit 2-3-4-5 with any 7
    sd = showdown("badeucy", {1: cards("2c 3d 4h 5s 7c"), 2: cards("Ac 2d 3h 4s 8c")}, button=2)
    assert sd.winners == ((1,), (1,))
    # the ace is high in badeucy's badugi: A-2-3-4 loses to 2-3-4-6; in badacey it wins
    assert winners("badeucy", {1: "Ac 2d 3h 4s Kc", 2: "2c 3d 4h 6s Kd"})[1] == (2,)
    assert winners("badacey", {1: "Ac 2d 3h 4s Kc", 2: "2c 3d 4h 6s Kd"})[1] == (1,)


def test_eval_008_suits_never_break_a_tie_kickers_do():
    # 000 §The Showdown: identical hands tie, whatever their suits
    assert winners("holdem", {1: "Ah Kh", 2: "Ad Kd"}, "As 9c 7d 4s 2h") == ((1, 2),)
    assert winners("holdem", {1: "Ah Kh", 2: "Ad Qd"}, "As 9c 7d 4s 2h") == ((1,),)
    assert winners("draw5", {1: "Ks Qs Js 9s 7s", 2: "Kh Qh Jh 9h 7h"}) == ((1, 2),)
    reads = read_all("holdem", 0, {1: cards("Ah Kh"), 2: cards("Ad Qd")}, cards("As 9c 7d 4s 2h"))
    assert reads[1].words == "pair of aces, king kicker" and reads[2].words == "pair of aces, queen kicker"


# -- the words ------------------------------------------------------------------------------------
@pytest.mark.parametrize("hole, board, words", [
    ("Ah 9h", "Kh 7h 2h 3c 4d", "flush, ace high"),
    ("Kh 7c", "Ks 7d 2c 9h Qd", "two pair, kings and sevens"),
    ("Kh Kc", "Ks 9d 9c 2h 3d", "kings full of nines"),
    ("6h 6c", "6s 6d Ac 2h 3d", "four of a kind, sixes"),
    ("5h 4c", "3s 2d Ac Kh Qd", "straight, five high"),
    ("9h 8h", "7h 6h 5h Kc Qd", "straight flush, nine high"),
    ("Th 9c", "Ts Td 2c 3h 5d", "three of a kind, tens"),
    ("6h 9c", "7s 5d 2c 3h 4d", "straight, seven high"),
    ("Jh 9c", "8s 6d 2c 3h 4d", "jack high"),
])
def test_the_words_a_dealer_announces(hole, board, words):
    assert best("holdem", 0, cards(hole), cards(board)).words == words


def test_a_low_is_read_to_the_card_that_decides():
    sd = showdown("omaha8", {1: cards("As 2d Kc Kh"), 4: cards("Ad 3c Qs Qh")}, cards("4h 6c 8d Ks Js"), button=6)
    assert (sd.words(1, 1), sd.words(1, 4)) == ("8-6-4-2", "8-6-4-3")
    assert best("razz", 0, cards("Th 9c 8s 7d 6c Kd Kc")).words == "10-9"


def test_bad_cards_are_named():
    with pytest.raises(EvaluationError, match="unknown game 'pineapple'"):
        best("pineapple", 0, cards("As Ks"))
    with pytest.raises(EvaluationError, match="'As@B'"):
        best("holdem", 0, ["As@B", "Kd"], cards("2c 3c 4c 5c 7d"))


# -- SHOW ----------------------------------------------------------------------------------------
def test_show_002_the_wrong_number_of_cards_is_a_dead_hand():
    # 003 §Two Cards to Win: one card, or three, is dead; the live hand wins whatever it holds
    sd = showdown("holdem", {1: cards("As"), 2: cards("7c 2d"), 3: cards("Ah Ad Kc")}, cards("Ac Kd 9h 5s 3c"),
                  button=3)
    assert sd.dead == {1: 1, 3: 3} and sd.winners == ((2,),)
    assert block(sd)["dead"] == {"1": 1, "3": 3} and block(sd)["seats"] == [1, 2, 3]
    # stud: six at the seat and the community card on the board (STUD-008) is a whole hand
    six = {1: cards("As Ad Kc Kd 2h 3h"), 2: cards("Qs Qd Jc Jd 4h 5h")}
    sd = showdown("stud", six, cards("9c"), button=1)
    assert sd.dead == {} and sd.winners == ((1,),)
    assert showdown("stud", six, button=1).dead == {1: 6, 2: 6}


def test_show_004_cards_speak_and_a_single_hand_or_a_short_board_is_no_showdown():
    # a draw game reads the hands alone (a card on a board there is a board fault, not a hand's)
    sd = showdown("draw5", {1: cards("As Ad 2c 3d 4h"), 2: cards("Kc Kd 5c 6d 7h")}, cards("Ah"), button=1)
    assert sd.winners == ((1,),) and sd.words(0, 1) == "pair of aces"
    assert showdown("holdem", {1: cards("As Ad")}, cards("2c 3d 4h 5s 9c"), button=1) is None
    assert showdown("holdem", {1: cards("As Ad"), 2: cards("Kc Kd")}, cards("2c 3d 4h"), button=1) is None


# -- SPLIT ---------------------------------------------------------------------------------------
def test_split_001_tied_hands_split_evenly():
    sd = showdown("holdem", {2: cards("Ah 3c"), 5: cards("Ad 4c")}, cards("Ks Kd Qs Qd Jh"), button=9)
    assert sd.winners == ((2, 5),) and split_pot(200, sd) == {2: 100, 5: 100}


@pytest.mark.parametrize("button, first", [(9, 2), (2, 5), (5, 8), (8, 2)])
def test_split_004_odd_chip_first_winner_clockwise_from_the_button(button, first):
    # 000: "any odd chip will be awarded to the first hand clockwise from the button"
    sd = showdown("holdem", {2: cards("Ah 3c"), 5: cards("Ad 4c"), 8: cards("Ac 5d")}, cards("Ks Kd Qs Qd Jh"),
                  button=button)
    assert sd.odd_chip[0][0] == first
    shares = split_pot(301, sd)
    assert shares[first] == 101 and sum(shares.values()) == 301
    assert block(sd)["odd_chip"] == {"high": list(sd.odd_chip[0])}


def test_split_005_hi_lo_the_odd_chip_to_the_high_then_clockwise():
    # 001/002: between the high and the low the odd chip goes to the high half
    sd = showdown("omaha8", {1: cards("Kc Kd Qh Js"), 3: cards("As 2c 9d 9h")}, cards("Ks 7d 5s 3c Th"), button=3)
    assert sd.winners == ((1,), (3,))
    assert split_pot(9, sd) == {1: 5, 3: 4}
    assert block(sd)["odd_chip"] == {"pot": "high"}
    # tied lows: the low half's odd chip to the first of them clockwise from the button
    sd = showdown("omaha8", {1: cards("Kc Kd Qh Js"), 3: cards("As 2c 9d 9h"), 6: cards("Ah 2d Jc Jd")},
                  cards("Ks 7d 5s 3c Th"), button=3)
    assert sd.winners == ((1,), (3, 6)) and sd.odd_chip[1] == (6, 3)
    assert split_pot(11, sd) == {1: 6, 6: 3, 3: 2}


def test_split_006_stud_odd_chip_by_the_highest_card_received():
    # the same straight (8-high) at both seats; seat 2 also received the A♠, seat 1 the A♥
    hands = {1: cards("4c 5d 6h 7s 8c Ah 2d"), 2: cards("4d 5c 6s 7h 8d As 2c")}
    sd = showdown("stud", hands, button=1)
    assert sd.winners == ((1, 2),) and sd.odd_chip[0] == (2, 1)  # A♠ beats A♥ (SUIT_ORDER)
    # STUD_ODD_CHIP_CARDS "shown" (002): only the five played: 8♦ beats 8♣
    sd = showdown("stud", hands, button=1, rules=OddChipRules(stud_odd_chip_cards="shown"))
    assert sd.odd_chip[0] == (2, 1)
    hands = {1: cards("4c 5d 6h 7s 8d Ah 2d"), 2: cards("4d 5c 6s 7h 8c As 2c")}
    assert showdown("stud", hands, button=1, rules=OddChipRules(stud_odd_chip_cards="shown")).odd_chip[0] == (1, 2)
    assert showdown("stud", hands, button=1).odd_chip[0] == (2, 1)


def test_split_006_razz_odd_chip_by_the_lowest_card():
    # the same 6-4 low; the lowest card: A♣ at seat 2 is lower than A♦ at seat 1 (STUD_ODD_CHIP_LOW "lowest")
    hands = {1: cards("Ad 2h 3s 4c 6d Kc Qd"), 2: cards("Ac 2s 3h 4d 6c Ks Qs")}
    assert showdown("razz", hands, button=1).odd_chip[0] == (2, 1)
    # "highest" (002): the K♠ at seat 2 is the highest card
    hands = {1: cards("Ad 2h 3s 4c 6d Kc Qd"), 2: cards("Ac 2s 3h 4d 6c Ks Qs")}
    assert showdown("razz", hands, button=1, rules=OddChipRules(stud_odd_chip_low="highest")).odd_chip[0] == (2, 1)
    hands = {1: cards("Ad 2h 3s 4c 6d Ks Qd"), 2: cards("Ac 2s 3h 4d 6c Kc Qs")}
    assert showdown("razz", hands, button=1, rules=OddChipRules(stud_odd_chip_low="highest")).odd_chip[0] == (1, 2)


def test_split_007_several_odd_chips_one_per_player():
    # three-way tie in stud, two odd chips: the highest card, then the next
    hands = {1: cards("4c 5d 6h 7s 8c Ah 2d"), 2: cards("4d 5c 6s 7h 8d As 2c"), 3: cards("4h 5s 6d 7c 8h Kd 2h")}
    sd = showdown("stud", hands, button=1)
    assert sd.odd_chip[0] == (2, 1, 3)
    assert split_pot(11, sd) == {2: 4, 1: 4, 3: 3}


def test_split_008_hybrid_odd_chip_to_the_five_card_half():
    # badeucy: seat 1 the 2-7, seat 2 the badugi: the odd chip to the 2-7 (HYBRID_ODD_CHIP "five_card")
    hands = {1: cards("2c 3c 4d 5h 7s"), 2: cards("2d 3s 4h 6c Kc")}
    sd = showdown("badeucy", hands, button=1)
    assert sd.winners == ((1,), (2,)) and split_pot(5, sd) == {1: 3, 2: 2}
    # "button" (001 by analogy): to the first winner clockwise from the button: seat 2 with the button at 1
    sd = showdown("badeucy", hands, button=1, rules=OddChipRules(hybrid_odd_chip="button"))
    assert split_pot(5, sd) == {1: 2, 2: 3} and block(sd)["odd_chip"] == {"pot": "low"}
    with pytest.raises(ValueError, match="hybrid_odd_chip"):
        OddChipRules(hybrid_odd_chip="random")


def test_split_009_the_odd_chip_broken_down_first():
    # 002: 900 between two players: nine 100s, the odd one broken into four 25s while 25s are in play
    sd = showdown("holdem", {2: cards("Ah 3c"), 5: cards("Ad 4c")}, cards("Ks Kd Qs Qd Jh"), button=9)
    assert split_pot(900 // 25, sd) == {2: 18, 5: 18}
    assert split_pot(900 // 100, sd) == {2: 5, 5: 4}  # the 25s are gone: seat 2, first clockwise, gets it


# -- the record --------------------------------------------------------------------------------------
def record(game: str, zones: dict[str, str], button: int = 1, **extra) -> dict:
    return {"hand": 3, "game": game, "button": button, "zones": {z: cards(c) for z, c in zones.items()}, **extra}


def test_the_record_showdown_block():
    rec = record("omaha8", {"seat:2": "Kc Kd Qh Js", "seat:7": "As 2c 9d 9h", "board": "Ks 8d 6s 3c Th",
                            "muck": "4c 4d 5c 5d", "burn": "2h 3h 4h"})
    assert from_record(rec) == {
        "seats": [2, 7], "high": [2], "low": [7],
        "hands": {"2": "three of a kind, kings", "7": "pair of nines"}, "low_hands": {"7": "8-6"},
        "halves": ["high", "8-or-better"], "odd_chip": {"pot": "high"}}


def test_the_record_without_a_showdown():
    assert from_record(record("holdem", {"seat:2": "Kc Kd", "board": "Ks 8d 6s 3c Th", "muck": "2c 2d"})) is None
    both = {"seat:2": "Kc Kd", "seat:4": "Ac Ad", "board": "Ks 8d 6s 3c Th"}
    assert from_record(record("holdem", both))["high"] == [2]
    assert from_record(record("holdem", both, misdeal=True)) is None
    assert from_record(record("holdem", both, kind="highcard")) is None
    assert from_record(record("chinese", both)) is None


def test_the_record_with_a_card_of_another_deck():
    rec = record("holdem", {"seat:2": "Kc Kd", "seat:4": "Ac Ad@B", "board": "Ks 8d 6s 3c Th"})
    assert from_record(rec) == {"seats": [2, 4], "high": [2], "hands": {"2": "three of a kind, kings"},
                                "unread": ["seat:4"]}
    rec = record("holdem", {"seat:2": "Kc Kd", "seat:4": "Ac Ad", "board": "Ks 8d 6s 3c tag:E004A1"})
    assert from_record(rec) == {"seats": [2, 4], "high": [], "hands": {}, "unread": ["board"]}


# -- what the dealer and the floor are told (controller/core/showdown/rules.py) ----------------------------
def told(game: str, hands: dict[int, str], board: str = "", button: int = 9, **kw) -> list[tuple]:
    sd = showdown(game, {s: cards(h) for s, h in hands.items()}, cards(board), button=button, **kw)
    return [(f.code, f.rule, f.seat, f.message) for f in findings(sd)]


def test_show_004_the_winner_and_the_hand_to_announce():
    assert told("holdem", {3: "Ah 9h", 5: "Kc Kd"}, "Kh 7h 2h 3c 4d") == [
        ("showdown.winner", "SHOW-004", 3, "seat 3 wins: flush, ace high")]
    # a losing hand is never named to the dealer (it may be mucked unseen)
    assert "three of a kind" not in told("holdem", {3: "Ah 9h", 5: "Kc Kd"}, "Kh 7h 2h 3c 4d")[0][3]


def test_split_001_and_002_the_splits_as_the_dealer_reads_them():
    assert told("holdem", {2: "Ah 3c", 5: "Ad 4c"}, "Ks Kd Qs Qd Jh", button=2) == [
        ("showdown.split", "SPLIT-001", 5, "split 2 ways: seats 2, 5 (two pair, kings and queens); odd chip: seat 5")]
    assert told("omaha8", {1: "Kc Kd Qh Js", 3: "As 2c 9d 9h"}, "Ks 7d 5s 3c Th", button=3) == [
        ("showdown.split", "SPLIT-002", 1,
         "split: seat 1 high (three of a kind, kings), seat 3 low (7-5); odd chip: seat 1")]
    assert told("omaha8", {1: "Kc Kd Qh Js", 3: "As 2c 9d 9h", 6: "Ah 2d Jc Jd"}, "Ks 7d 5s 3c Th", button=3)[0][3] \
        == "split: seat 1 high (three of a kind, kings), seats 3, 6 low (7-5); odd chip: seat 1; " \
           "the low's odd chip: seat 6"
    assert told("omaha8", {1: "Kc Kd Qh Js", 3: "As Ac 9d 9h"}, "Ks Td 9s 3c 2h") == [
        ("showdown.no_low", "SPLIT-002", 1, "no qualifying low: seat 1 high (straight, king high)")]
    assert told("stud8", {1: "As 2d 3c 4h 5s Kd Kc", 2: "Qh Qd Jc 9s 8d 7c 6c"}, button=1) == [
        ("showdown.winner", "SHOW-004", 1, "seat 1 scoops: straight, five high and 5-4 low")]
    assert told("badeucy", {1: "2c 3c 4d 5h 7s", 2: "2d 3s 4h 6c Kc"}) == [
        ("showdown.split", "SPLIT-002", 1, "split: seat 1 2-7 (7-5), seat 2 badugi (badugi, 6-4); odd chip: seat 1")]


def test_show_002_a_dead_hand_is_told_first():
    assert told("holdem", {3: "Ah 9h Qc", 5: "Kc Kd"}, "Kh 7h 2h 3c 4d") == [
        ("showdown.dead_hand", "SHOW-002", 3, "seat 3: 3 cards - dead"),
        ("showdown.winner", "SHOW-004", 5, "seat 5 wins: three of a kind, kings")]


def test_muck_005_the_winner_mucked_while_a_loser_is_out():
    sd = showdown("omaha8", {1: cards("Kc Kd Qh Js"), 3: cards("As 2c 9d 9h"), 6: cards("Qs Qc 8c 8d")},
                  cards("Ks 7d 5s 3c Th"), button=3)
    # the loser mucks first: nothing (the winners are paid, then their hands go in after the push)
    assert winner_guard(sd, 6, {1, 3, 6}, cards("Qs Qc 8c 8d")) == []
    # the low's winner mucked while the high (no low) is out: seat 1 would scoop, so it is a check
    assert [f.code for f in winner_guard(sd, 3, {1, 3}, cards("As 2c 9d 9h"))] == ["muck.winner_guard",
                                                                                   "muck.winner_mucked"]
    # the low's winner mucked while seat 6 (no low) still holds its hand: told at once
    dealer, floor = winner_guard(sd, 3, {1, 3, 6}, cards("As 2c 9d 9h"))
    assert (dealer.code, dealer.audience, dealer.seat, dealer.message) == (
        "muck.winner_guard", "dealer", 3, "check: seat 3 had the best hand")
    assert not any(c in dealer.message for c in cards("As 2c 9d 9h"))  # the dealer's text names no card
    assert (floor.code, floor.rule, floor.audience) == ("muck.winner_mucked", "MUCK-005", "floor")
    assert floor.message == ("seat 3's winning hand (As 2c 9d 9h: 7-5) touched the muck while seats 1, 6 "
                             "still hold cards")


def test_a_card_read_in_two_places_is_not_read_as_a_hand():
    # a cloned tag (DECK-007, the floor's): the ace of spades at seat 1 twice, or at two seats
    rec = record("holdem", {"seat:1": "As As", "seat:2": "Kc Kd", "board": "2c 3d 7h 9s Jc"})
    assert from_record(rec) == {"seats": [1, 2], "high": [2], "hands": {"2": "pair of kings"}, "unread": ["seat:1"]}
    rec = record("holdem", {"seat:1": "As Ad", "seat:2": "As Kd", "seat:3": "Qc Qd", "board": "2c 3d 7h 9s Jc"})
    assert from_record(rec)["unread"] == ["seat:1", "seat:2"] and from_record(rec)["high"] == [3]
    rec = record("holdem", {"seat:1": "As Ad", "seat:2": "Qc Kd", "board": "As 3d 7h 9s Jc"})
    assert from_record(rec)["unread"] == ["board", "seat:1"] and from_record(rec)["high"] == []


# -- BOARD-011: running it twice (or three times) ----------------------------------------------------
def test_board_011_each_run_its_own_board():
    flop, runs = cards("2c 7d 9h"), cards("Js 3s Qd 4h 5c 6c")
    assert run_boards(cards("2c 7d 9h Js 3s Qd 4h 5c 6c Kh")) == [cards("2c 7d 9h Js 3s"), cards("Qd 4h 5c 6c Kh")]
    assert run_boards(flop + runs) == [flop + runs[0:2], flop + runs[2:4], flop + runs[4:6]]  # 9: thrice from the flop
    assert run_boards(flop + runs[:4], 2) == [flop + runs[0:2], flop + runs[2:4]]
    assert run_boards(flop + runs[:4], 3) == [flop + ["Js", "3s"], flop + ["Js", "Qd"], flop + ["Js", "4h"]]
    assert run_boards(flop + runs[:4]) is None  # 7 cards: twice from the turn or thrice on the river
    assert run_boards(flop + runs[:5]) is None and run_boards(flop + runs, 4) is None and run_boards(flop) is None


def test_board_011_each_run_wins_its_share():
    hands = {1: cards("As Ad"), 3: cards("Kc Kd")}
    rec = record("holdem", {"seat:1": "As Ad", "seat:3": "Kc Kd", "board": "2c 7d 9h Js 3s Qd Kh"}, runs=2)
    sd = from_record(rec)
    assert [(r["board"][3:], r["high"], r["hands"]["3"]) for r in sd["runs"]] == [
        (["Js", "3s"], [1], "pair of kings"), (["Qd", "Kh"], [3], "three of a kind, kings")]
    verdicts = [showdown("holdem", hands, cards(b), button=3) for b in ("2c 7d 9h Js 3s", "2c 7d 9h Qd Kh")]
    assert split_runs(1001, verdicts) == {1: 501, 3: 500}
    seats = {"seat:1": "As Ad", "seat:3": "Kc Kd"}
    assert "runs" not in from_record(record("holdem", seats | {"board": "2c 7d 9h Js 3s"}))
    # without the RUN_IT press a longer board is a board fault, not runs: no showdown
    assert from_record(record("holdem", seats | {"board": "2c 7d 9h Js 3s Qd"})) is None
    assert from_record(record("holdem", seats | {"board": "2c 7d 9h Js 3s Qd"}, runs=2))["runs"][1]["high"] == [1]


# -- SHOW-008: the bad-beat jackpot's candidates ----------------------------------------------------
def beat(hands: dict[int, str], board: str, dealt_in=(1, 2, 5, 7), game: str = "holdem") -> list[tuple]:
    hs = {s: cards(h) for s, h in hands.items()}
    sd = showdown(game, hs, cards(board), button=9)
    return [(f.code, f.audience, f.seat) for f in bad_beat(sd, hs, cards(board), list(dealt_in))]


def test_show_008_aces_full_of_kings_beaten_both_hole_cards_playing():
    # 002: the least losing hand is aces full of kings; both hole cards of both players play
    found = beat({2: "Ac Kc", 5: "Jd Td"}, "Ah Ad Kd Qd 2c")
    assert found == [("showdown.bad_beat", "floor", 2), ("showdown.dont_touch", "dealer", 2)]
    hs = {2: cards("Ac Kc"), 5: cards("Jd Td")}
    [floor, dealer] = bad_beat(showdown("holdem", hs, cards("Ah Ad Kd Qd 2c"), button=9), hs, cards("Ah Ad Kd Qd 2c"),
                               [1, 2, 5, 7])
    assert floor.message == ("bad-beat candidate: seat 2 (aces full of kings) loses to seat 5 (royal flush); "
                             "the others dealt in: seats 1, 7; confirm the pot")
    assert "Ac" not in dealer.message and dealer.audience == "dealer"


def test_show_008_what_does_not_qualify():
    assert beat({2: "Kc Ks", 5: "Jd Td"}, "Ah Ad Kd Qd 2c") == []  # kings full of aces: below the least
    assert beat({2: "As 2s", 5: "Jd Td"}, "Ah Ad Kd Kc Qd") == []  # aces full with one hole card playing
    assert beat({2: "Ac Kc", 5: "Jd Td"}, "Ah Ad Kd Qd 2c", dealt_in=(2, 5, 7)) == []  # three dealt in
    assert beat({2: "Ac Kc Jc Tc", 5: "Jd Td 3c 4c"}, "Ah Ad Kd Qd 2s", game="omaha") == []  # hold'em only
    assert beat({2: "Ac Kc", 5: "As Ks"}, "Ah Ad Kd Qd 2c") == []  # a split: nobody was beaten
