"""The rules on the pure core, where the reader misses reads or is slower than the dealer:
none of it may become a misdeal flag (a false misdeal stops a real game), and nothing private
may reach a public effect. Found in review; each test failed before its fix."""

from __future__ import annotations

from controller.core.effects import Alert, CardPlaced
from controller.core.events import ButtonPress
from controller.core.settings import RuleSettings
from tests.unit.core.test_table import Feeder

HOLE3 = [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]  # seats 1, 2, 4, button 4


def codes(f):
    return [a.code for a in f.of(Alert)]


def test_a_hole_card_unread_for_a_while_in_the_deal_is_a_prompt_then_undone():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 2)
    del f.field[f.uid("As")]
    f.tick(4)  # unheard for gone_cycles: it may have left the table
    f.put("7c", 4)  # the deal goes on
    assert codes(f) == ["deal.card_off_table"]  # MISD-011 prompt, never MISD-001
    f.put("As", 1)  # it was there all along
    for card, seat in HOLE3[3:]:
        f.put(card, seat)
    f.press("round_done")
    f.put("8h", 12)
    assert codes(f) == ["deal.card_off_table"]  # no replacement owed, no burn expected


def test_an_exposed_press_before_the_reader_confirmed_the_card_is_for_that_card():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 2)
    f.field[f.uid("7c")] = 4
    f.tick(1)  # 7c heard once: not confirmed yet
    f.press("exposed")
    f.tick(3)
    [alert] = f.of(Alert)
    assert (alert.code, alert.rule, alert.seat) == ("deal.exposed_card_becomes_burn", "MISD-010", 4)


def test_heads_up_first_cards_confirmed_together_are_not_a_misplaced_button():
    f = Feeder(seats=(1, 2), button=2)
    for pair in (("Kd", "As"), ("3d", "2c")):  # seat 2's card listed first, both in one cycle
        f.field[f.uid(pair[0])] = 2
        f.field[f.uid(pair[1])] = 1
        f.tick(3)
    f.press("round_done")
    assert codes(f) == []


def test_a_card_unread_in_the_high_card_draw_is_no_misdeal_and_the_draw_completes():
    f = Feeder()
    f.effects += f.table.apply(ButtonPress(0.5, "highcard"))
    f.put("As", 1)
    f.put("Kd", 2)
    del f.field[f.uid("As")]
    f.tick(4)
    f.put("7c", 4)
    f.put("As", 1)
    assert [a.code for a in f.of(Alert)] == ["deal.button_by_high_card"] and f.table.hand.button == 1


def test_the_last_seat_out_leaves_no_exception():
    f = Feeder(seats=(1, 2), button=2)
    f.effects += f.table.apply(ButtonPress(0.5, "seat_out", seat=2))
    assert f.table.snapshot()["seats"] == [1]
    assert codes(f) == ["break.seat_open", "deal.table_short"]  # (the seat is open: BREAK-003)
    f.put("As", 1)  # a card dealt anyway does not stop the daemon
    assert f.table.hand is not None


def test_a_hole_card_moved_onto_the_board_is_never_public():
    f = Feeder()
    for card, seat in HOLE3:
        f.put(card, seat)
    f.put("Kd", 11)  # seat 2's card slides onto the board antenna
    public = [e for e in f.of(CardPlaced) if e.audience == "public"]
    assert public == []


def test_an_exposed_press_after_a_fold_does_not_show_the_folded_card():
    f = Feeder()
    for card, seat in HOLE3:
        f.put(card, seat)
    f.press("round_done")
    for card, ant in [("8h", 12), ("Th", 11), ("Tc", 11), ("6d", 11)]:
        f.put(card, ant)
    f.put("2h", 13)  # seat 1 folds: its card is the last to arrive anywhere
    f.press("exposed")
    [alert] = f.of(Alert)
    assert alert.code == "board.exposed_card" and alert.card is None


def test_a_burn_read_after_the_first_flop_card_it_came_before_is_not_missing():
    f = Feeder(confirm_cycles=3)
    for card, seat in HOLE3:
        f.put(card, seat)
    f.press("round_done")
    f.field[f.uid("8h")] = 12
    f.tick(1)  # the burn is heard once...
    f.field[f.uid("Th")] = 11
    f.field.pop(f.uid("8h"))
    f.tick(1)  # ...missed...
    f.field[f.uid("8h")] = 12
    f.tick(2)  # ...so the flop card is confirmed first
    f.tick(2)
    for card in ("Tc", "6d"):
        f.put(card, 11)
    assert codes(f) == []


def test_heads_up_players_holding_their_cards_up_is_no_rabbit_hunt():
    # (the Feeder's cycles are a second apart: seat 1 holds its cards up for 16 s, past MUCK-001's
    # default wait, whose prompt is test_muck.py's; here the wait is longer than the hand)
    f = Feeder(seats=(1, 2), button=2, rules=RuleSettings(muck_timeout_s=60.0))
    for card, seat in [("As", 1), ("Kd", 2), ("2h", 1), ("3h", 2)]:
        f.put(card, seat)
    for card in ("As", "2h"):
        del f.field[f.uid(card)]
    f.tick(4)  # seat 1 picks its cards up
    f.press("round_done")
    for card, ant in [("8h", 12), ("Th", 11), ("Tc", 11), ("6d", 11)]:
        f.put(card, ant)
    assert codes(f) == []


def test_an_absent_seat_left_short_is_a_prompt_not_a_misdeal():
    f = Feeder()
    f.effects += f.table.apply(ButtonPress(0.5, "seat_absent", seat=2))
    for card, seat in HOLE3[:4] + HOLE3[5:]:  # seat 2's second card never read
        f.put(card, seat)
    f.press("round_done")
    assert codes(f) == ["deal.absent_seat_short"]
