"""The draw games dealt by the daemon (issue 16; docs/rules.md: DRAW-001..005): five-card draw,
2-7 single and triple draw, A-5 triple draw, badugi, badeucy and badacey.

The oracles: the 001 guide's lowball section (its words quoted where a test rests on them), the
formats table of DRAW-001 written out here, and a stub counted in the test itself (52 less the
cards on the table); the random hands against the simulator's own generator
(hw_sim/random_draw.py, which knows nothing of the core).
"""

from __future__ import annotations

import json

import pytest

from controller.core.effects import Alert, CardPlaced, Figures, HandFinished, HandStarted, Prompt
from controller.core.games import game_of
from controller.core.settings import RuleSettings, TableSettings
from controller.core.state import STATE_VERSION
from controller.core.table import Table
from tests.stud_draw_e2e import deal_random_hands
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

BOARD, BURN, MUCK = 11, 12, 13
DATA = TESTS / "data" / "state"
DRAW_GAMES = ("draw5", "draw27_single", "draw27_triple", "draw_a5_triple", "badugi", "badeucy", "badacey")
#: hands a game in the suite (issue 16's acceptance: at least 100 a game through the in-process
#: harness; two to three seconds a game; the thousand a game belong to a benchmark run)
RANDOM_HANDS = 100


# -- random hands through the daemon, in process, under noise -----------------------------------
@pytest.mark.slow
@pytest.mark.parametrize("game", DRAW_GAMES)
def test_random_draw_hands_end_exact_with_the_generators_prompts(game: str) -> None:
    report = deal_random_hands(game, hands=RANDOM_HANDS)
    assert len(report["hands"]) == RANDOM_HANDS
    assert all(set(h["zones"]) - {"burn", "muck"} for h in report["hands"])  # (dealt: seats hold cards)


# -- helpers -----------------------------------------------------------------------------------
class Draw:
    """A draw hand fed card by card, with the stub kept here: the cards in the order they come
    off it, and what is on the table."""

    def __init__(self, game: str, seats: tuple[int, ...], button: int, **kw: object) -> None:
        self.f = Feeder(game=game, seats=seats, button=button, **kw)
        self.out: set[str] = set()  # cards on the table (the stub is 52 less these)

    def deal(self, card: str, antenna: int) -> None:
        self.out.add(card)
        self.f.put(card, antenna)

    def discard(self, seat: int, cards: list[str]) -> None:
        for c in cards:
            self.f.field[self.f.uid(c)] = MUCK
        self.f.tick(3)

    def restub(self, cards: list[str]) -> None:
        """The dealer gathers ``cards`` (the stub's last card, from the muck, from the burns)
        into a new stub."""
        for c in cards:
            self.f.field.pop(self.f.uid(c), None)
            self.out.discard(c)
        self.f.tick(4)

    @property
    def stub(self) -> int:
        return 52 - len(self.out)

    def alerts(self) -> list[Alert]:
        return self.f.of(Alert)

    def prompts(self, rule: str) -> list[Prompt]:
        return [p for p in self.f.of(Prompt) if p.rule == rule]


def deal_in(d: Draw, hands: dict[int, list[str]], order: list[int]) -> None:
    for i in range(len(hands[order[0]])):
        for seat in order:
            d.deal(hands[seat][i], seat)


# seats 1, 2, 4, the button at 4: the small blind (seat 1) gets the first card
FIVE = {1: ["2s", "3h", "4d", "Kc", "Qd"], 2: ["5s", "7h", "8d", "9c", "Js"], 4: ["2c", "3c", "6h", "7d", "Ts"]}


# -- DRAW-001: the templates and the deal from the small blind -----------------------------------
def test_DRAW_001_the_formats_table_of_the_guides() -> None:
    # docs/rules.md DRAW-001 (001 §LOWBALL GAMES and the games' sections): cards, draws, max players;
    # the betting rounds are the draws plus one. ADUCI/BADUCI give no maximum: triple draw's.
    table = {"draw27_single": (5, 1, 7), "draw27_triple": (5, 3, 6), "draw_a5_triple": (5, 3, 6),
             "badugi": (4, 3, 8), "badeucy": (5, 3, 6), "badacey": (5, 3, 6), "draw5": (5, 1, 7)}
    for name, (cards, draws, most) in table.items():
        g = game_of(name)
        assert (g.hole_cards, g.draws, g.max_players, g.burns) == (cards, draws, most, draws), name
        assert g.family == "draw" and g.dealt and g.board_total == 0


def test_DRAW_001_a_clean_single_draw_hand_raises_nothing_and_counts_its_stub() -> None:
    d = Draw("draw27_single", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    d.discard(1, ["Kc", "Qd"])
    d.discard(2, ["Js"])  # seat 4 stands pat
    d.f.press("round_done")
    d.deal("Ah", BURN)
    for card, seat in [("6c", 1), ("8s", 1), ("4h", 2)]:
        d.deal(card, seat)
    hand = d.f.table.hand
    assert hand is not None and hand.stub_count == d.stub == 52 - 15 - 1 - 3
    assert d.alerts() == [] and d.prompts("DRAW-005") == []
    d.f.field.clear()
    d.f.tick(4)
    [done] = d.f.of(HandFinished)
    assert done.record["zones"]["seat:1"] == ["2s", "3h", "4d", "6c", "8s"]
    assert done.record["zones"]["muck"] == ["Kc", "Qd", "Js"]  # (in the order they were dealt)
    assert done.record["alerts"] == []


def test_DRAW_004_the_figures_name_each_draw_round_the_seat_it_deals_to_next_and_who_acts_first() -> None:
    # what the dealer's display and the floor read: the street is the round the burns have
    # reached (001 §LOWBALL GAMES: "one burn card is dealt before each draw"), and the next card
    # is due at the first seat in the deal's order still short of its cards, then at the burn;
    # the first to act is DEAL-013's, each draw a later round
    d = Draw("draw27_triple", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    last = d.f.of(Figures)[-1]
    assert (last.street, last.next_to) == ("deal", "burn")  # every seat holds five: the first draw's burn
    assert last.first_to_act == 4  # DEAL-013: left of the big blind (seat 2) before the first draw
    d.discard(1, ["Kc", "Qd"])
    d.discard(2, ["Js"])  # seat 4 stands pat
    d.f.press("round_done")
    d.deal("Ah", BURN)
    last = d.f.of(Figures)[-1]
    assert (last.street, last.next_to) == ("draw 1", "seat:1")
    d.deal("6c", 1)
    d.deal("8s", 1)
    assert d.f.of(Figures)[-1].next_to == "seat:2"
    d.deal("4h", 2)
    last = d.f.of(Figures)[-1]
    assert (last.street, last.next_to) == ("draw 1", "burn")
    assert last.first_to_act == 1  # DEAL-013: after a draw, the first live seat left of the button (4)
    assert d.f.table.snapshot()["hand"]["street"] == "draw 1"
    d.discard(2, ["4h"])
    d.f.press("round_done")
    d.deal("Kd", BURN)
    last = d.f.of(Figures)[-1]
    assert (last.street, last.next_to) == ("draw 2", "seat:2")
    assert d.alerts() == []


def test_DRAW_001_a_card_in_the_middle_is_prompted_and_the_hand_goes_on() -> None:
    # the draw games deal no board (001 §LOWBALL GAMES: cards to the players and one burn a
    # round); a card laid in the middle is prompted, and the table's views go on working
    d = Draw("draw27_triple", (1, 2), 2)
    deal_in(d, FIVE, [1, 2])
    d.deal("Ah", BOARD)
    assert [(a.code, a.rule) for a in d.alerts()] == [("deal.draw_board_card", "DRAW-001")]
    hand = d.f.table.hand
    assert hand is not None and hand.street() == "deal" and d.f.table.snapshot()["hand"]["street"] == "deal"
    # a player's card, not a board's: it reaches no public output
    assert not [e for e in d.f.of(CardPlaced) if e.audience == "public"]


def test_DRAW_001_the_first_card_goes_to_the_small_blind() -> None:
    # 001: "The Dealer will always deal the first card to the 'live' player directly following
    # (clockwise) the Dealer button (Small Blind position)."
    d = Draw("draw5", (1, 2, 4), 4)
    d.deal("2s", 2)
    assert [a.rule for a in d.alerts()] == ["MISD-004"]


# -- DRAW-002: the over-full table -----------------------------------------------------------------
def test_DRAW_002_the_seats_after_the_big_blind_sit_out_and_a_card_to_them_is_flagged() -> None:
    # 001: "the player(s) sitting directly IN FRONT of the Big Blind will not receive a hand
    # ('under the gun' and, if applicable, the next player)". Triple draw takes six: eight seated,
    # the button at 8, the blinds 1 and 2: 3 and 4 sit out.
    d = Draw("draw27_triple", (1, 2, 3, 4, 5, 6, 7, 8), 8)
    d.deal("2s", 1)
    [started] = d.f.of(HandStarted)
    assert started.seats == (1, 2, 5, 6, 7, 8)
    assert d.alerts() == []
    d.deal("3s", 2)
    d.deal("4s", 3)
    assert [(a.code, a.seat) for a in d.alerts()] == [("misdeal.card_to_seat_not_dealt_in", 3)]


def test_DRAW_002_a_full_table_not_over_deals_everyone() -> None:
    d = Draw("badugi", (1, 2, 3, 4, 5, 6, 7, 8), 8)
    d.deal("2s", 1)
    [started] = d.f.of(HandStarted)
    assert started.seats == (1, 2, 3, 4, 5, 6, 7, 8)  # badugi takes eight


# -- DRAW-003: exposed cards -------------------------------------------------------------------------
def test_DRAW_003_an_exposed_wheel_card_on_the_deal_is_kept_in_a_cash_game() -> None:
    # 001 (lowball, cash games): "if a card is exposed on the deal, it will be replaced unless it
    # is a wheel card"
    d = Draw("draw_a5_triple", (1, 2, 4), 4, event="cash")
    d.deal("2s", 1)
    d.deal("5s", 2)
    d.deal("4h", 4)
    d.f.press("exposed")
    assert [(a.code, a.rule) for a in d.alerts()] == [("deal.draw_exposed_keep", "DRAW-003")]


def test_DRAW_003_an_exposed_card_that_is_no_wheel_card_is_replaced_on_the_deal() -> None:
    d = Draw("draw_a5_triple", (1, 2, 4), 4)
    d.deal("2s", 1)
    d.deal("5s", 2)
    d.deal("Kh", 4)
    d.f.press("exposed")
    assert [a.rule for a in d.alerts()] == ["MISD-010"]  # replaced, as in the flop games


def test_DRAW_003_no_exposed_card_is_kept_on_the_draw() -> None:
    # 001: "When drawing, no exposed card may be kept." (a wheel card too)
    d = Draw("draw_a5_triple", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    d.discard(1, ["Kc"])
    d.f.press("round_done")
    d.deal("Ah", BURN)
    d.deal("As", 1)
    d.f.press("exposed")
    assert [(a.code, a.rule) for a in d.alerts()] == [("deal.draw_exposed_replace", "DRAW-003")]
    d.discard(1, ["As"])  # set aside: this round's dead card, not a discard of the next
    d.deal("Kd", 1)  # its replacement
    d.discard(2, ["Js"])  # draw 2 begins: draw 1 was complete
    d.f.press("round_done")
    d.deal("Ad", BURN)
    assert len(d.alerts()) == 1
    assert d.f.table.hand is not None and d.f.table.hand.discards[d.f.uid("As")] == 1


# -- DRAW-004: discards, one burn, the draw; as many cards as thrown --------------------------------
def test_DRAW_004_one_burn_even_when_everyone_stands_pat() -> None:
    # 001: "If all players stand pat, one card is still burned to designate the round."
    d = Draw("draw27_triple", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    for burn in ("Ah", "Ad", "Ac"):
        d.f.press("round_done")
        d.deal(burn, BURN)
    assert d.alerts() == []
    d.f.press("round_done")
    d.deal("As", BURN)  # a fourth burn: triple draw has three draws
    assert [a.code for a in d.alerts()] == ["deal.draw_extra_burn"]


def test_DRAW_004_a_draw_card_before_the_burn_is_flagged() -> None:
    # 001: "Dealers should not burn and start to deal cards until all players have placed their
    # discards forward"; the burn designates the round, the draw comes after it
    d = Draw("draw27_single", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    d.discard(1, ["Kc"])
    d.deal("6c", 1)
    assert [(a.code, a.seat) for a in d.alerts()] == [("deal.draw_before_burn", 1)]


def test_DRAW_004_a_seat_over_or_short_on_the_draw_is_told_by_how_many() -> None:
    d = Draw("draw27_triple", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    d.discard(1, ["Kc", "Qd"])
    d.discard(2, ["Js"])
    d.f.press("round_done")
    d.deal("Ah", BURN)
    d.deal("6c", 1)  # seat 1 threw two and gets one: short by one
    d.deal("4h", 2)
    d.deal("5h", 2)  # seat 2 threw one and gets two: over by one
    assert [(a.code, a.seat, a.count) for a in d.alerts()] == [("deal.draw_too_many", 2, 1)]
    d.discard(4, ["Ts"])  # the next round's first discard: the draw is over
    assert [(a.code, a.seat, a.count) for a in d.alerts()][1:] == [("deal.draw_short", 1, 1)]


def test_DRAW_004_a_player_drawing_five_gets_them_one_after_another() -> None:
    # 001: "If a player wishes to draw an entirely new hand, the player will receive all cards
    # consecutively." A seat left with no card is not taken for folded once its draw comes.
    d = Draw("draw5", (1, 2, 4), 4)
    deal_in(d, FIVE, [1, 2, 4])
    d.discard(2, FIVE[2])
    d.f.press("round_done")
    d.deal("Ah", BURN)
    for card in ("2d", "3d", "4c", "5c", "6d"):
        d.deal(card, 2)
    d.f.field.clear()
    d.f.tick(4)
    [done] = d.f.of(HandFinished)
    assert done.record["alerts"] == [] and done.record["zones"]["seat:2"] == ["2d", "3d", "4c", "5c", "6d"]


# -- DRAW-005: running out of cards -----------------------------------------------------------------
SIX = (1, 2, 3, 4, 5, 6)


def six_handed_to_the_second_draw(d: Draw) -> tuple[dict[int, list[str]], list[str], list[str]]:
    """Triple draw six-handed, the button at 6: 30 cards dealt, a stub of 22. Draw 1: every
    seat throws three (18 cards: the stub holds 3 after it). Draw 2: every seat throws two (12):
    the burn leaves 2. Returns the hands, round 1's discards, and the stub's cards left."""
    deck = [r + s for r in "23456789TJQKA" for s in "cdhs"]
    hands = {s: deck[(s - 1) * 5:s * 5] for s in SIX}
    deal_in(d, hands, list(SIX))
    stub = deck[30:]
    first: list[str] = []
    for s in SIX:
        thrown = hands[s][:3]
        d.discard(s, thrown)
        first += thrown
        hands[s] = hands[s][3:]
    d.f.press("round_done")
    d.deal(stub.pop(0), BURN)
    for s in SIX:
        for _ in range(3):
            card = stub.pop(0)
            hands[s].append(card)
            d.deal(card, s)
    assert len(stub) == 3 and d.alerts() == [] and d.prompts("DRAW-005") == []
    for s in SIX:
        d.discard(s, hands[s][:2])
    d.f.press("round_done")
    d.deal(stub.pop(0), BURN)
    return hands, first, stub


def test_DRAW_005_the_stub_short_is_prompted_ahead_and_the_new_stub_is_dealt_without_a_burn() -> None:
    d = Draw("draw27_triple", SIX, 6)
    hands, first, stub = six_handed_to_the_second_draw(d)
    # 12 cards owed, a stub of 2 whose last card is never dealt: short by 11, told at the burn
    [short] = d.prompts("DRAW-005")
    assert short.count == 11 and "short by 11" in short.message
    d.deal(stub.pop(0), 1)  # the stub's last card but one
    d.restub([stub[0]] + first)  # the last card and draw 1's discards: 19 cards
    owed = [1] + [s for s in SIX[1:] for _ in range(2)]
    for seat, card in zip(owed, first, strict=False):
        d.deal(card, seat)
    hand = d.f.table.hand
    assert hand is not None and hand.stub_count == d.stub == 19 - 11  # the new stub, less the draw
    assert d.alerts() == [] and len(d.prompts("DRAW-005")) == 1


def test_DRAW_005_a_burn_after_the_new_stub_is_flagged() -> None:
    d = Draw("draw27_triple", SIX, 6)
    _, first, stub = six_handed_to_the_second_draw(d)
    d.deal(stub.pop(0), 1)
    d.restub([stub[0]] + first)
    d.deal(first[0], 1)
    d.deal(first[1], BURN)  # 001: "Deal the remaining draw cards without burning another card first."
    assert [(a.code, a.rule) for a in d.alerts()] == [("deal.draw_second_burn", "DRAW-005")]


@pytest.mark.parametrize("dead", ["burn", "this round"])
def test_DRAW_005_a_burn_or_a_discard_of_this_round_dealt_from_the_new_stub_is_the_floors(dead: str) -> None:
    # 001: the muck "does not include the discards from the current draw round"; "Burn cards
    # always remain on the table. They are never mixed with the muck for a reshuffle."
    d = Draw("draw27_triple", SIX, 6)
    hands, first, stub = six_handed_to_the_second_draw(d)
    d.deal(stub.pop(0), 1)
    # draw 1's burn (the 31st card off the deck), or seat 3's discard of draw 2
    card = [r + s for r in "23456789TJQKA" for s in "cdhs"][30] if dead == "burn" else hands[3][0]
    d.restub([stub[0], card] + first)
    d.deal(card, 1)
    found = [a for a in d.alerts() if a.code == "stub.draw_dead_card"]
    assert [(a.rule, a.audience, a.seat) for a in found] == [("DRAW-005", "floor", 1)]
    assert all(a.audience == "floor" for a in d.alerts()), d.alerts()


# -- the state: version 8 (issue 16) marks the discards of a draw hand -------------------------------
def test_the_state_of_a_draw_hand_written_by_release_8_loads_and_plays_on() -> None:
    """tests/data/state/v8-draw-mid-hand.json: triple draw, seats 1, 2, 4, the button at 4, the
    hands of FIVE dealt; seat 1 threw Kc Qd, seat 2 Js; the burn (Ah); seat 1 got 6c."""
    state = json.loads((DATA / "v8-draw-mid-hand.json").read_text())
    assert state["version"] == 8
    settings = TableSettings(game="draw27_triple", seats=(1, 2, 4), button=4, confirm_cycles=2, gone_cycles=3)
    table = Table.from_state(state, settings)
    hand = table.hand
    assert hand is not None and hand.game == "draw27_triple" and sorted(hand.discards.values()) == [1, 1, 1]
    assert hand.stub_count == 52 - 15 - 1 - 1
    f = Feeder(game="draw27_triple", seats=(1, 2, 4), button=4)
    f.table = table
    f.field = {f.uid(c): s for s, cards in FIVE.items() for c in cards}
    for c in ("Kc", "Qd", "Js"):
        f.field[f.uid(c)] = MUCK
    f.field[f.uid("Ah")] = BURN
    f.field[f.uid("6c")] = 1
    f.cycle = 100
    f.put("8s", 1)
    f.put("4h", 2)
    f.put("Ts", MUCK)  # draw 2: seat 4's discard, after a complete draw 1
    assert f.of(Alert) == []


def test_a_version_7_hand_migrates_with_no_discards_and_its_prompts_no_count() -> None:
    state = json.loads((DATA / "v7-stud-mid-hand.json").read_text())
    table = Table.from_state(state, TableSettings(game="stud", seats=(1, 2, 4), button=4, confirm_cycles=2,
                                                  gone_cycles=3))
    hand = table.hand
    assert hand is not None and (hand.discards, hand.draw_checked, hand.draw_rebuilt) == ({}, 0, 0)
    assert [(p.rule, p.count) for p in hand.prompts] == [("STUD-002", None)]
    assert json.loads(json.dumps(table.to_state()))["version"] == STATE_VERSION


# -- the showdown's words for two badugi hands of different sizes ----------------------------------
def test_two_badugi_reads_of_different_sizes_are_worded_not_a_crash() -> None:
    """A badugi half where one hand is a three-card hand and the other a two-card hand whose
    cards begin alike (Q-3-A against Q-3): the words once raised StopIteration, and the random
    badeucy hands' showdown stopped a hand from closing. Seat 1 keeps one card a suit (Qd Ac 3h,
    the Jc pairs the Ac's suit); seat 2 holds three clubs (the 3c kept) and the Qh."""
    from controller.core.showdown.evaluation import read_all

    reads = read_all("badugi", 0, {1: ["Qd", "Ac", "Jc", "3h"], 2: ["Qh", "9c", "4c", "3c"]})
    assert reads[1] is not None and reads[2] is not None
    assert (reads[1].words, reads[2].words) == ("three-card Q-3-A", "two-card Q-3")


# -- MISD-009: an exposed card in a draw game's starting hand ---------------------------------------
def test_MISD_009_under_001s_misdeal_table_an_exposed_starting_card_is_a_misdeal() -> None:
    # 001 §GAME MISDEAL: any exposed card of a draw starting hand is a misdeal (DRAW_EXPOSED_DEAL
    # "misdeal"), even a wheel card
    d = Draw("draw_a5_triple", (1, 2, 4), 4, rules=RuleSettings(draw_exposed_deal="misdeal"))
    d.deal("2s", 1)
    d.deal("5s", 2)
    d.deal("4h", 4)
    d.f.press("exposed")
    assert [(a.code, a.rule, a.seat) for a in d.alerts()] == [("misdeal.draw_exposed_card", "MISD-009", 4)]


def test_MISD_009_in_tournaments_a_wheel_card_is_replaced_too() -> None:
    # 001 §LOWBALL GAMES: in tournaments exposed cards are replaced on the deal: the flop games'
    # replacement, the card the next burn (MISD-010); by the event (the default, a tournament's)
    # or by DRAW_EXPOSED_DEAL "replace" whatever the event
    for kw in ({}, {"event": "cash", "rules": RuleSettings(draw_exposed_deal="replace")}):
        d = Draw("draw_a5_triple", (1, 2, 4), 4, **kw)
        d.deal("2s", 1)
        d.deal("5s", 2)
        d.deal("4h", 4)
        d.f.press("exposed")
        assert [a.rule for a in d.alerts()] == ["MISD-010"], kw
    d = Draw("draw_a5_triple", (1, 2, 4), 4, rules=RuleSettings(draw_exposed_deal="wheel_kept"))
    d.deal("2s", 1)
    d.deal("5s", 2)
    d.deal("4h", 4)
    d.f.press("exposed")
    assert [a.code for a in d.alerts()] == ["deal.draw_exposed_keep"]  # kept in a tournament if the house says so

