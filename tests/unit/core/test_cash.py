"""Cash games (``[table] event = "cash"``): coming in and coming back after missed blinds
(DEAL-007, DEAL-008), through the seat pads, on the pure core (settings-dependent, as in
tests/unit/core/test_seats.py).

The oracle is the guides' text (001 §INCOMING PLAYERS (Cash Games), §MISSED BLINDS; 002
§INCOMING PLAYER, §POSTING, §MISSED BLINDS) applied by hand in each test's comments: the
dead-button positions (DEAL-005) hand by hand, the gap between the button and the small blind,
and the order each hand is dealt in, which the test deals as a dealer following the rule would.
"""

from __future__ import annotations

import json

import pytest

from controller.core.effects import Alert, HandFinished, Prompt
from controller.core.events import ButtonPress
from controller.core.settings import RuleSettings, TableSettings
from controller.core.table import Table
from tests.unit.core.test_table import Feeder, deal_board
from rig.paths import TESTS
from rig.states import field_home

HOLE = ["As", "Kd", "7c", "2h", "3h", "Qs", "Jd", "9c", "5s", "4d", "8c", "Ac", "Ad", "Kc", "Qc", "Qd", "2s", "2d"]
DATA = TESTS / "data" / "state"


def cash(seats=(1, 2, 3, 4, 5, 6), button=1, **rules) -> Feeder:
    return Feeder(seats=seats, button=button, event="cash", rules=RuleSettings(**rules))


def deal_hand(f: Feeder, order: list[int], *, extra: int | None = None) -> None:
    """Two cards a seat in ``order`` (``extra``: a third seat-card round to one more seat after
    the first round, a dealer dealing in a seat that must wait), flop, turn, river, gathered."""
    seats = order + ([extra] if extra is not None else [])
    for i in range(2 * len(seats)):
        f.put(HOLE[i], seats[i % len(seats)])
    deal_board(f, burns=("9h", "5c", "8h"))
    f.field.clear()
    f.tick(4)


def said(f: Feeder) -> list[tuple[str | None, str, int | None]]:
    """The seat prompts of the session (the stub counts left out), as (rule, message, seat)."""
    return [(p.rule, p.message, p.seat) for p in f.of(Prompt) if p.rule in ("DEAL-007", "DEAL-008")]


def loud(f: Feeder) -> list[tuple[str, str | None, int | None]]:
    return [(a.code, a.rule, a.seat) for a in f.of(Alert)]


def buttons(f: Feeder) -> list[int]:
    return [e.record["button"] for e in f.of(HandFinished)]


def test_DEAL_007_a_new_cash_player_posts_a_big_blind_or_waits_for_it():
    # 001 §INCOMING PLAYERS (Cash Games): "can begin play by either waiting for the Big Blind
    # position or by posting a Big Blind bet". Seats 1-6, button 1: SB 2, BB 3. Seat 8 sits down;
    # next hand: button 2, SB 3, BB 4 (seat 8 is not between the button and the SB).
    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_in", seat=8)
    assert said(f) == [("DEAL-007", "seat 8: post BB or wait", 8)]
    # he waits: the BB goes 4, 5, 6, then reaches him (hand 5: button 5, SB 6, BB 8)
    deal_hand(f, [3, 4, 5, 6, 1, 2])
    deal_hand(f, [4, 5, 6, 1, 2, 3])
    deal_hand(f, [5, 6, 1, 2, 3, 4])
    deal_hand(f, [6, 8, 1, 2, 3, 4, 5])
    assert buttons(f) == [1, 2, 3, 4, 5] and loud(f) == []
    # the same player posts instead: dealt in at once, in his place (hand 2: 3, 4, 5, 6, 8, 1, 2)
    g = cash()
    deal_hand(g, [2, 3, 4, 5, 6, 1])
    g.press("seat_in", seat=8)
    g.press("seat_posted", seat=8)
    deal_hand(g, [3, 4, 5, 6, 8, 1, 2])
    assert loud(g) == []
    # not posted, dealt anyway: a card to a seat not dealt in (MISD-005), once for the seat
    h = cash()
    deal_hand(h, [2, 3, 4, 5, 6, 1])
    h.press("seat_in", seat=8)
    deal_hand(h, [3, 4, 5, 6, 1, 2], extra=8)
    assert loud(h) == [("misdeal.card_to_seat_not_dealt_in", "MISD-005", 8)]


@pytest.mark.parametrize("rule, buttons_after", [("buyer", [1, 2, 3]), ("skip", [1, 2, 4])])
def test_DEAL_007_between_the_button_and_the_small_blind_only_by_buying_the_button(rule, buttons_after):
    # Seats 1, 2, 4, 5, 6, button 1: SB 2, BB 4. Seat 3 sits down: next hand button 2, SB 4, so
    # he is in the gap: "cannot join ... unless the player opts to buy the Button" (001); "may
    # post a big blind between the Button and Small Blind" (002).
    f = cash(seats=(1, 2, 4, 5, 6), buy_button_next=rule)
    deal_hand(f, [2, 4, 5, 6, 1])
    f.press("seat_in", seat=3)
    assert said(f) == [("DEAL-007", "seat 3: buy the button (post BB) or wait", 3)]
    f.press("seat_posted", seat=3)
    deal_hand(f, [3, 4, 5, 6, 1, 2])  # he bought the button: dealt in, the first card is his
    # BUY_BUTTON_NEXT: 001 puts the buyer on the button (3: SB 5, BB 6, seat 4 first); in 002
    # the button jumps over him (2 -> 4: SB 5, BB 6, seat 5 first)
    deal_hand(f, [4, 5, 6, 1, 2, 3] if rule == "buyer" else [5, 6, 1, 2, 3, 4])
    assert buttons(f) == buttons_after and loud(f) == []
    # without the post he waits for the button to pass; dealt in anyway: MISD-005
    g = cash(seats=(1, 2, 4, 5, 6))
    deal_hand(g, [2, 4, 5, 6, 1])
    g.press("seat_in", seat=3)
    deal_hand(g, [4, 5, 6, 1, 2], extra=3)
    assert loud(g) == [("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3)]


def test_DEAL_007_the_placard_lets_a_newcomer_in_free_unless_in_the_best_position():
    # 002 §INCOMING PLAYER: "can enter the game without posting UNLESS the open seat is in the
    # best position; at which time the player must wait one hand".
    f = cash(seats=(1, 2, 4, 5, 6), cash_entry="placard")
    deal_hand(f, [2, 4, 5, 6, 1])
    f.press("seat_in", seat=8)  # after the BB: in at once, free, nothing to say
    f.press("seat_in", seat=3)  # the gap (button 2, SB 4): waits one hand
    assert said(f) == [("DEAL-007", "seat 3: buy the button (post BB) or wait", 3)]
    deal_hand(f, [4, 5, 6, 8, 1, 2])
    deal_hand(f, [5, 6, 8, 1, 2, 3, 4])  # button 4, SB 5, BB 6: seat 3 plays
    assert buttons(f) == [1, 2, 4] and loud(f) == []


def test_DEAL_008_missed_blinds_are_owed_on_return():
    # Seats 1-6, button 1: SB 2, BB 3. Seat 4 steps away. Hand 2: button 2, SB 3, BB 5: the BB
    # skipped him. Hand 3: button 3, SB 5, BB 6: the SB went past him. He is back for hand 4
    # (button 5, SB 6, BB 1): "making up two blind bets, the Big Blind bet is live and the Small
    # Blind bet is placed in the pot" (001, 002 §MISSED BLINDS).
    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=4)
    deal_hand(f, [3, 5, 6, 1, 2])
    assert (f.table.roster.missed_bb, f.table.roster.missed_sb) == ({4}, set())
    deal_hand(f, [5, 6, 1, 2, 3])
    assert (f.table.roster.missed_bb, f.table.roster.missed_sb) == ({4}, {4})
    f.press("seat_in", seat=4)
    assert said(f) == [("DEAL-008", "seat 4 owes BB + SB dead, or wait for BB", 4)]
    f.press("seat_posted", seat=4)
    deal_hand(f, [6, 1, 2, 3, 4, 5])
    assert buttons(f) == [1, 2, 3, 5] and loud(f) == []
    assert (f.table.roster.missed_bb, f.table.roster.missed_sb) == (set(), set())  # paid up
    # dealt in while away: MISD-005 (a cash seat sitting out is not dealt, unlike a tournament's)
    g = cash()
    deal_hand(g, [2, 3, 4, 5, 6, 1])
    g.press("seat_absent", seat=4)
    deal_hand(g, [3, 5, 6, 1, 2], extra=4)
    assert loud(g) == [("misdeal.card_to_seat_not_dealt_in", "MISD-005", 4)]


def test_DEAL_008_who_missed_only_the_big_blind_may_buy_the_button():
    # As above, back before hand 3 (button 3, SB 5): he missed only the BB and sits in the gap.
    # "He may Buy the Button by posting the Big Blind (live) and the Small Blind (dead)".
    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=4)
    deal_hand(f, [3, 5, 6, 1, 2])
    f.press("seat_in", seat=4)
    assert said(f) == [("DEAL-008", "seat 4 missed the BB: buy the button (BB live + SB dead) or wait for BB", 4)]
    f.press("seat_posted", seat=4)
    deal_hand(f, [4, 5, 6, 1, 2, 3])
    # "the player who bought the Button in the Dealer position" the next hand: SB 6, BB 1
    deal_hand(f, [5, 6, 1, 2, 3, 4])
    assert buttons(f) == [1, 2, 3, 4] and loud(f) == []


def test_DEAL_008_blinds_cannot_be_made_up_between_the_small_blind_and_the_button():
    # Seats 1-6, button 1: SB 2, BB 3. The BB (3) steps away: hand 2 has a dead SB on his seat
    # (button 2, SB 3, BB 4): he missed the SB. Back for hand 3, his seat holds the button
    # (button 3, SB 4): "The player cannot make up the blind bets and begin play in between
    # the Small Blind position and the Button. The player must wait for the Button to pass."
    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=3)
    deal_hand(f, [4, 5, 6, 1, 2])
    assert (f.table.roster.missed_bb, f.table.roster.missed_sb) == (set(), {3})
    f.press("seat_in", seat=3)
    f.press("seat_posted", seat=3)
    msg = "seat 3 owes SB: no make-up between the button and the small blind: wait for the button to pass"
    assert said(f) == [("DEAL-008", msg, 3),
                       ("DEAL-008", "seat 3: no make-up between the button and the small blind: wait for the "
                                    "button to pass", 3)]
    deal_hand(f, [4, 5, 6, 1, 2], extra=3)  # dealt in there anyway
    assert loud(f) == [("misdeal.card_to_seat_not_dealt_in", "MISD-005", 3)]
    # the button passed (hand 4: button 4, SB 5, BB 6): his post brings him in
    deal_hand(f, [5, 6, 1, 2, 3, 4])
    assert buttons(f) == [1, 2, 3, 4] and len(loud(f)) == 1


def test_DEAL_008_tournaments_have_no_missed_blinds():
    # 001 §MISSED BLINDS, Tournaments: "There are no missed blinds": the absent seat is dealt
    # (DEAL-009) and nothing is recorded or owed
    f = Feeder(seats=(1, 2, 3, 4, 5, 6), button=1)
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=4)
    deal_hand(f, [3, 4, 5, 6, 1, 2])
    f.press("seat_in", seat=4)
    assert (f.table.roster.missed_bb, f.table.roster.missed_sb, said(f)) == (set(), set(), [])
    assert [(a.code, a.seat) for a in f.of(Alert)] == [("deal.muck_absent_seat", 4)]


def test_a_clean_cash_session_with_players_leaving_and_coming_back_raises_no_alert():
    f = cash(seats=(1, 2, 3, 4, 5, 6, 7))
    deal_hand(f, [2, 3, 4, 5, 6, 7, 1])  # button 1, SB 2, BB 3
    f.press("seat_absent", seat=5)
    f.press("seat_out", seat=7)  # leaves: the seat is open
    deal_hand(f, [3, 4, 6, 1, 2])  # button 2, SB 3, BB 4
    f.press("seat_in", seat=9)  # a newcomer: post or wait; he waits for the BB
    deal_hand(f, [4, 6, 1, 2, 3])  # button 3, SB 4, BB 6: the BB skipped seat 5
    f.press("seat_in", seat=5)  # in the gap (next: button 4, SB 6), missed only the BB: he waits
    deal_hand(f, [6, 9, 1, 2, 3, 4])  # button 4, SB 6, BB 9 (it reached him); the SB went by seat 5
    f.press("seat_posted", seat=5)  # owes BB + SB dead; posts, out of the gap: dealt in
    deal_hand(f, [9, 1, 2, 3, 4, 5, 6])  # button 6, SB 9, BB 1
    f.press("seat_absent", seat=2)  # the next BB steps away and is back before a blind went by him
    f.press("seat_in", seat=2)
    deal_hand(f, [1, 2, 3, 4, 5, 6, 9])  # button 9, SB 1, BB 2
    deal_hand(f, [2, 3, 4, 5, 6, 9, 1])  # button 1, SB 2, BB 3
    assert buttons(f) == [1, 2, 3, 4, 6, 9, 1]
    # no fault; the one floor alert is the notice that seat 7 is open (BREAK-003: the floor seats
    # the next player from the list)
    assert loud(f) == [("break.seat_open", "BREAK-003", 7)]
    assert [r for r, _, _ in said(f)] == ["DEAL-007", "DEAL-008"]
    r = f.table.roster
    assert (r.waiting, r.absent, r.missed_bb, r.missed_sb) == (set(), set(), set(), set())


def test_the_state_of_a_cash_table_written_by_release_9_loads_and_plays_on():
    """tests/data/state/v9-cash-mid-hand.json: seats 1-6, cash; seat 4 away since hand 2 (the
    BB skipped him), hand 3 under way (button 3, SB 5, BB 6: the SB went by him), three cards
    dealt (seats 5, 6, 1)."""
    state = json.loads((DATA / "v9-cash-mid-hand.json").read_text())
    assert state["version"] == 9
    settings = TableSettings(seats=(1, 2, 3, 4, 5, 6), button=1, confirm_cycles=2, gone_cycles=3, event="cash")
    table = Table.from_state(state, settings)
    assert (table.roster.missed_bb, table.roster.missed_sb, table.roster.absent) == ({4}, {4}, {4})
    assert table.hand is not None and table.hand.number == 3 and table.hand.button == 3
    f = cash()
    f.table, f.cycle = table, int(table.hand.now) + 1  # (the reader's cycles go on from the state's)
    f.field = {f.uid(c): s for c, s in [("As", 5), ("Kd", 6), ("7c", 1)]}
    deal_rest = [5, 6, 1, 2, 3]
    for i in range(3, 10):
        f.put(HOLE[i], deal_rest[i % 5])
    f.field.clear()
    f.tick(4)  # everyone folds to the BB: the pot is pushed, the hand is over
    f.press("seat_in", seat=4)
    assert said(f) == [("DEAL-008", "seat 4 owes BB + SB dead, or wait for BB", 4)] and loud(f) == []


def test_a_state_of_release_8_migrates_with_no_missed_blinds():
    state = json.loads((DATA / "v8-draw-mid-hand.json").read_text())
    assert state["version"] == 8 and "missed_bb" not in json.dumps(state)
    from controller.core.state import migrate
    state = migrate(state)
    body = {name: field_home(state, name)[name] for name in ("missed_bb", "missed_sb", "_buyer", "_pending_prompts")}
    assert (body["missed_bb"], body["missed_sb"], body["_buyer"], body["_pending_prompts"]) == \
        ({"s": []}, {"s": []}, None, [])


def test_the_cash_settings_are_read_and_a_bad_word_is_refused_naming_the_key(tmp_path):
    from controller.config.daemon import ConfigError, parse_config

    base = '[reader]\nport = "loop://"\n'
    t = parse_config(base, path=tmp_path / "t.toml").table
    assert (t.event, t.rules.cash_entry, t.rules.buy_button_next) == ("tournament", "post_or_wait", "buyer")
    t = parse_config('[table]\nevent = "cash"\n[rules]\ncash_entry = "placard"\nbuy_button_next = "skip"\n' + base,
                     path=tmp_path / "t.toml").table
    assert (t.event, t.rules.cash_entry, t.rules.buy_button_next) == ("cash", "placard", "skip")
    for section, key, says in (("table", "event", "want one of tournament, cash, got 'ring'"),
                               ("rules", "cash_entry", "want one of post_or_wait, placard, got 'ring'"),
                               ("rules", "buy_button_next", "want one of buyer, skip, got 'ring'")):
        with pytest.raises(ConfigError) as err:
            parse_config(f'[{section}]\n{key} = "ring"\n' + base, path=tmp_path / "t.toml")
        assert str(err.value) == f"{tmp_path / 't.toml'}: [{section}] {key}: {says}"


def test_the_cash_prompts_on_the_dealers_display():
    from controller.core.display import render
    from controller.core.prompts import PromptBoard

    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=4)
    deal_hand(f, [3, 5, 6, 1, 2])
    deal_hand(f, [5, 6, 1, 2, 3])
    f.press("seat_in", seat=4)
    f.press("seat_in", seat=8)
    board = PromptBoard()
    state = board.apply(f.effects)
    assert render(state, "lcd16x2") == ["s4 owes BB+SB", "SB dead/wait BB"]  # the first told, shown first
    assert render(board.press(ButtonPress(0.0, "next")), "lcd20x4")[:3] == \
        ["s8 new player", "post BB or wait", "DEAL-007"]


def test_the_floors_setup_keeps_a_player_sitting_out_out_and_a_button_set_clears_what_is_owed():
    from controller.core.events import TableSetup

    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_absent", seat=4)
    deal_hand(f, [3, 5, 6, 1, 2])  # the BB skipped seat 4
    f.effects += f.table.apply(TableSetup(float(f.cycle), (1, 2, 3, 4, 5, 6)))
    r = f.table.roster
    assert (r.absent, r.waiting, r.missed_bb) == ({4}, set(), {4})  # still sitting out
    f.effects += f.table.apply(TableSetup(float(f.cycle), (1, 2, 3, 4, 5, 6), button=6))
    assert (f.table.roster.absent, f.table.roster.missed_bb) == (set(), set())
    deal_hand(f, [1, 2, 3, 4, 5, 6])  # the floor's button: everyone listed is dealt
    assert buttons(f) == [1, 2, 6] and loud(f) == []


def test_a_cash_session_dealt_under_noise_through_the_daemon_raises_no_alert():
    """The clean session above through the in-process harness (the daemon, the console's pads,
    the reader under noise, the secrets check): the prompts are in the next hand's record, at
    the press's step."""
    from tests.rules_common import clean_for
    from rig.scenarios import NOISE, expected_hand, play

    def press(name, seat):
        return {"press": name, "seat": seat}

    hands = [clean_for([2, 3, 4, 5, 6, 7, 1]),  # button 1, SB 2, BB 3
             [press("seat_absent", 5), press("seat_out", 7)] + clean_for([3, 4, 6, 1, 2]),  # button 2
             [press("seat_in", 9)] + clean_for([4, 6, 1, 2, 3]),  # button 3, SB 4, BB 6: seat 9 waits
             [press("seat_in", 5)] + clean_for([6, 9, 1, 2, 3, 4]),  # button 4, SB 6, BB 9: seat 5 waits
             [press("seat_posted", 5)] + clean_for([9, 1, 2, 3, 4, 5, 6])]  # button 6: seat 5 pays up
    script = {"format": 1, "game": "holdem", "seats": [1, 2, 3, 4, 5, 6, 7], "button": 1,
              "noise": dict(NOISE, seed=5), "hands": [{"steps": s} for s in hands]}
    report = play(script, table_extra='event = "cash"')
    assert [h["button"] for h in report["hands"]] == [1, 2, 3, 4, 6]
    assert [h["alerts"] for h in report["hands"]] == [[]] * 5
    assert [h["zones"] for h in report["hands"]] == [expected_hand(s)["zones"] for s in hands]
    told = [[(p["rule"], p.get("seat"), p["step"]) for p in h["prompts"] if p["rule"] in ("DEAL-007", "DEAL-008")]
            for h in report["hands"]]
    assert told == [[], [], [("DEAL-007", 9, 1)], [("DEAL-008", 5, 1)], []]


def test_MISD_005_a_cash_seat_dealt_anyway_is_told_why_it_waits():
    # MISD-005's words say why the seat has no hand (the guides' reasons, DEAL-007/008), not
    # "waiting for the button to pass" for every seat that waits
    def why(f: Feeder) -> list[str]:
        return [a.message for a in f.of(Alert) if a.rule == "MISD-005"]

    # a newcomer who has not posted waits for the big blind (hand 2: button 2, SB 3, BB 4)
    f = cash()
    deal_hand(f, [2, 3, 4, 5, 6, 1])
    f.press("seat_in", seat=8)
    deal_hand(f, [3, 4, 5, 6, 1, 2], extra=8)
    assert why(f) == ["a card went to seat 8, which is not dealt in (waiting for the big blind; he has not "
                      "posted): misdeal"]
    # a player sitting out
    g = cash()
    deal_hand(g, [2, 3, 4, 5, 6, 1])
    g.press("seat_absent", seat=5)
    deal_hand(g, [3, 4, 6, 1, 2], extra=5)
    assert why(g) == ["a card went to seat 5, which is not dealt in (sitting out): misdeal"]
    # back and owing the SB on the button's seat (hand 3: dead button 3, SB 4, BB 5): the button
    # must pass (as in test_DEAL_008_blinds_cannot_be_made_up_between_the_small_blind_and_the_button)
    h = cash()
    deal_hand(h, [2, 3, 4, 5, 6, 1])
    h.press("seat_absent", seat=3)
    deal_hand(h, [4, 5, 6, 1, 2])
    h.press("seat_in", seat=3)
    h.press("seat_posted", seat=3)
    deal_hand(h, [4, 5, 6, 1, 2], extra=3)
    assert why(h) == ["a card went to seat 3, which is not dealt in (waiting for the button to pass: his seat is "
                      "between the button and the small blind; he owes SB): misdeal"]
