"""Games as data (controller/core/games.py) and stud's own rules (controller/core/families/stud/rules.py), against
the tables of docs/rules.md and the dealer guides' own examples, written out here by hand."""

from __future__ import annotations

import itertools

import pytest

from controller.core.showdown.evaluation import GAMES as EVALUATED
from controller.core.games import DECK_SIZE, GAMES, game_of
from controller.core.families.stud.rules import bring_in, first_to_act, short_stub
from controller.core.settings import GAMES as DEALT_GAMES

# (game, hole cards dealt first, cards a seat ends with, draws, burns, board, most players), read
# off docs/rules.md: STUD-001 (two down one up, up 4th-6th, down 7th, a burn before 4th-7th, at most
# eight), DRAW-001's table (cards, draws, max players), BURN-001 / BOARD-001 (3 burns, 3+1+1),
# DEAL-012 (button games 2-10)
TEMPLATES = [
    ("holdem", 2, 2, 0, 3, 5, 10),
    ("omaha", 4, 4, 0, 3, 5, 10),
    ("omaha8", 4, 4, 0, 3, 5, 10),
    ("stud", 3, 7, 0, 4, 0, 8),
    ("stud8", 3, 7, 0, 4, 0, 8),
    ("razz", 3, 7, 0, 4, 0, 8),
    ("draw27_single", 5, 5, 1, 1, 0, 7),
    ("draw27_triple", 5, 5, 3, 3, 0, 6),
    ("draw_a5_triple", 5, 5, 3, 3, 0, 6),
    ("badugi", 4, 4, 3, 3, 0, 8),
    ("badeucy", 5, 5, 3, 3, 0, 6),
    ("badacey", 5, 5, 3, 3, 0, 6),
    ("draw5", 5, 5, 1, 1, 0, 7),  # as single draw: no seed gives five-card draw
    ("chinese", 13, 13, 0, 0, 0, 5),  # CHIN-001: four stacks of 13, no burn, no board; CHIN-002: five (the button out)
]


def test_every_game_of_the_deal_script_contract_is_defined_once() -> None:
    # deal-script.md's list of game ids
    ids = ("holdem omaha omaha8 stud stud8 razz draw27_single draw27_triple draw_a5_triple badugi badeucy "
           "badacey draw5 chinese").split()
    assert [g.name for g in GAMES] == ids
    # the showdown's definitions (controller/core/showdown/evaluation.py): every game whose hands the table reads,
    # that is all but Chinese poker, where the players score each other (001 §CHINESE POKER: "Players
    # will table their hands and pay each other accordingly")
    assert [g.name for g in GAMES if not g.showdown] == ["chinese"]
    assert list(EVALUATED) == [g.name for g in GAMES if g.showdown]
    assert {row[0] for row in TEMPLATES} == set(ids)
    for g in GAMES:
        assert g.source, g.name


@pytest.mark.parametrize(("name", "first", "per_seat", "draws", "burns", "board", "most"), TEMPLATES)
def test_the_template_says_what_the_rules_say(name: str, first: int, per_seat: int, draws: int, burns: int,
                                              board: int, most: int) -> None:
    g = game_of(name)
    assert (g.hole_cards, g.cards_per_seat, g.draws, g.burns, g.board_total, g.max_players) == \
        (first, per_seat, draws, burns, board, most)
    if g.family == "draw":
        assert len(g.streets) == draws + 1  # DRAW-001: betting rounds = draws + 1 (2 for one draw, 4 for three)


def test_stud_knows_which_cards_are_up() -> None:
    # STUD-001: two down and one up on 3rd, one up on each of 4th-6th, one down on 7th
    stud = game_of("razz")
    assert [s.hole for s in stud.streets] == [(False, False, True), (True,), (True,), (True,), (False,)]
    assert [s.burn for s in stud.streets] == [False, True, True, True, True]
    assert stud.button is False and game_of("holdem").button is True


def test_the_stub_arithmetic_of_a_full_table() -> None:
    # STUB-003: nine-handed hold'em has 18 + 3 + 5 = 26 out; Omaha 36 + 8 = 44
    assert game_of("holdem").cards_out(9) == 26
    assert game_of("omaha").stub_after(9) == 8
    # the issue: eight players in stud need 56 cards plus 4 burns from 52
    assert game_of("stud").cards_out(8) == 60 and game_of("stud").stub_after(8) == DECK_SIZE - 60
    assert game_of("stud").stub_after(6) == 52 - 42 - 4


def test_the_configuration_takes_the_games_the_core_deals() -> None:
    assert DEALT_GAMES == {"holdem": 2, "omaha": 4, "omaha8": 4, "stud": 3, "stud8": 3, "razz": 3,
                           "draw27_single": 5, "draw27_triple": 5, "draw_a5_triple": 5, "badugi": 4,
                           "badeucy": 5, "badacey": 5, "draw5": 5, "chinese": 13}


# -- STUD-002: the bring-in -------------------------------------------------------------------
# An order written here from the guides' words, not the module's: ranks two to ace (ace high in
# stud: STUD_ACE_BRINGIN's default), ace to king in razz; suits clubs, diamonds, hearts, spades
# (002: "by rank and suit"; docs/rules.md §20 SUIT_ORDER)
SUITS = "cdhs"
HIGH_ORDER = [r + s for r in "23456789TJQKA" for s in SUITS]
LOW_ORDER = [r + s for r in "A23456789TJQK" for s in SUITS]


@pytest.mark.parametrize(("game", "up", "seat"), [
    ("stud", {1: "3h", 2: "3c", 4: "5d"}, 2),  # the lowest rank, clubs lowest of the treys
    ("stud", {1: "Ac", 2: "2s", 3: "Kd"}, 2),  # the ace is high in stud
    ("stud8", {6: "4s", 7: "4d", 8: "4h"}, 7),
    ("razz", {1: "Ks", 2: "Kh", 3: "Qs"}, 1),  # 002: "King of Spades is the highest card"
    ("razz", {1: "Ac", 2: "2c"}, 2),  # 002: "The Ace always plays as a low card in Razz"
])
def test_STUD_002_the_bring_in_from_the_guides(game: str, up: dict[int, str], seat: int) -> None:
    assert bring_in(up, game_of(game)) == seat


@pytest.mark.parametrize("game", ["stud", "razz"])
def test_STUD_002_the_bring_in_of_every_two_cards(game: str) -> None:
    order = LOW_ORDER if game == "razz" else HIGH_ORDER
    for a, b in itertools.combinations(order, 2):  # a ranks below b
        want = 2 if game == "razz" else 1  # razz: the higher card; stud: the lower
        assert bring_in({1: a, 2: b}, game_of(game)) == want, (a, b)


# -- STUD-004: first to act, through the hook the showdown's evaluator fills -------------------
def test_STUD_004_first_to_act_is_the_best_showing_hand_first_in_order_on_a_tie() -> None:
    def pairs_then_high(cards: list[str] | tuple[str, ...]) -> tuple[int, ...]:  # a reference: pair beats no pair
        ranks = sorted(("23456789TJQKA".index(c[0]) for c in cards), reverse=True)
        return (1 if len(set(ranks)) < len(ranks) else 0, *ranks)

    showing = {1: ["Kh", "9c"], 3: ["4s", "4d"], 6: ["Ac", "Kd"], 8: []}
    assert first_to_act(showing, [3, 6, 8, 1], pairs_then_high) == 3  # the open pair of fours
    tie = {2: ["Qh", "5c"], 5: ["Qs", "5d"]}
    assert first_to_act(tie, [5, 2], pairs_then_high) == 5
    assert first_to_act({}, [1, 2], pairs_then_high) is None


# -- STUD-006..008: the stub before 7th street -------------------------------------------------
@pytest.mark.parametrize(("stub", "players", "burns", "rule"), [
    (7, 5, 3, None),  # 002: five players + 2 = 7 cards: enough
    (5, 5, 3, "STUD-007"),  # 002's example: "5 card stub + 3 burn cards = 8 cards total": YES
    (4, 5, 2, "STUD-008"),  # 4 + 2 = 6 < 7: NO, and the stub has three or more: a community card
    (1, 8, 3, "STUD-008"),  # eight players to 6th street: 52 - 48 - 3 = 1 card left
])
def test_STUD_006_the_stub_before_7th(stub: int, players: int, burns: int, rule: str | None) -> None:
    found = short_stub(stub=stub, players=players, burns=burns)
    assert (found.rule if found else None) == rule
    if found is not None:
        assert f"stub {stub}, need {players + 2}" in found.message


def test_STUD_007_the_method_of_each_guide() -> None:
    f001 = short_stub(stub=5, players=5, burns=3)
    f002 = short_stub(stub=5, players=5, burns=3, method="002")
    assert f001 is not None and "last card" in f001.message and "no burn" in f001.message  # 001
    assert f002 is not None and "scramble the stub with the burns, cut, burn" in f002.message  # 002
    few = short_stub(stub=2, players=5, burns=3)
    assert few is not None and few.rule == "STUD-008" and "scramble" in few.message  # 002: 1 or 2 cards
    with pytest.raises(ValueError, match="short-stub method 'x'"):
        short_stub(stub=5, players=5, burns=3, method="x")
