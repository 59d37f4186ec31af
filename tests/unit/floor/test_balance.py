"""Table balance (BREAK-004, controller/floor/balance.py) against cases worked out by hand: within
two players while more than six tables run, within one at six or fewer; the next table to break by
the tournament's break order, and when the players left fit in one table fewer."""

from __future__ import annotations

from controller.floor.balance import balance


def moves(b) -> list[tuple[str, str, int]]:
    return [(m.source, m.target, m.players) for m in b.moves]


def test_BREAK_004_seven_tables_are_balanced_within_two_players():
    # a..g: 9 9 8 8 8 8 5, breaking g first; 55 players do not fit in six tables of nine (54).
    # By hand: b (a 9, breaking before a) gives one to g (9-5 = 4 > 2): b 8, g 6; a (9) gives one
    # to g (9-6 = 3 > 2): a 8, g 7; now 8 - 7 = 1: balanced.
    b = balance({"a": 9, "b": 9, "c": 8, "d": 8, "e": 8, "f": 8, "g": 5}, ["g", "f", "e", "d", "c", "b", "a"],
                seats=9)
    assert (b.running, b.players, b.within) == (7, 55, 2)
    assert moves(b) == [("b", "g", 1), ("a", "g", 1)]
    assert (b.breaks_next, b.break_now) == ("g", False)


def test_BREAK_004_at_six_tables_the_sizes_stay_within_one():
    # seven tables 9 9 9 9 9 9 7 are within two: nothing to do; six tables 9 9 9 9 9 7 are not
    # within one: t1 (first by name, none in a break order) gives one to t6: 8 9 9 9 9 8
    seven = balance({f"t{i}": 9 for i in range(1, 7)} | {"t7": 7}, [], seats=10)
    assert (seven.within, moves(seven), seven.break_now) == (2, [], False)
    six = balance({f"t{i}": 9 for i in range(1, 6)} | {"t6": 7}, [], seats=10)
    assert (six.within, moves(six)) == (1, [("t1", "t6", 1)])


def test_BREAK_004_a_player_leaves_the_table_breaking_soonest_for_the_one_breaking_last():
    # t1 9 t2 9 t3 9 t4 7 t5 8 t6 9 (51 players, more than five tables of ten): t1 (9, first by
    # name) to t4 (7); then the largest are 9 and the smallest 8: within one
    b = balance({"t1": 9, "t2": 9, "t3": 9, "t4": 7, "t5": 8, "t6": 9}, [], seats=10)
    assert (moves(b), b.breaks_next) == ([("t1", "t4", 1)], "t1")
    # with t6 breaking first and t1 last: of the nines, t6 (breaking soonest) gives one to t4;
    # then 9 9 9 8 8 8: within one
    b = balance({"t1": 9, "t2": 9, "t3": 9, "t4": 7, "t5": 8, "t6": 9}, ["t6", "t5", "t4", "t3", "t2", "t1"],
                seats=10)
    assert (moves(b), b.breaks_next) == ([("t6", "t4", 1)], "t6")


def test_BREAK_004_moves_to_one_table_are_counted_together():
    # two tables of ten seats, 10 and 4 (14 players: more than one table): 10-4 -> 9-5 -> 8-6 -> 7-7
    b = balance({"a": 10, "b": 4}, [], seats=10)
    assert (moves(b), b.within, b.breaks_next, b.break_now) == ([("a", "b", 3)], 1, "a", False)


def test_BREAK_004_a_table_breaks_when_the_players_fit_in_one_table_fewer():
    # 17 players fit in two tables of nine: t3 breaks now (the break order), and no move is said
    b = balance({"t1": 6, "t2": 6, "t3": 5}, ["t3"], seats=9)
    assert (b.breaks_next, b.break_now, moves(b)) == ("t3", True, [])
    # 19 do not: the next to break is still t3, not now; 7 6 6 balanced within one
    b = balance({"t1": 7, "t2": 6, "t3": 6}, ["t3"], seats=9)
    assert (b.breaks_next, b.break_now, moves(b)) == ("t3", False, [])
    # the order names t9, which has no player left: the next in it still running breaks
    b = balance({"t1": 7, "t2": 6, "t3": 6, "t9": 0}, ["t9", "t2"], seats=9)
    assert (b.running, b.breaks_next) == (3, "t2")


def test_BREAK_004_the_final_table_breaks_no_more():
    b = balance({"t1": 8, "t2": 0}, ["t1"], seats=9)
    assert (b.running, b.players, b.breaks_next, b.break_now, moves(b)) == (1, 8, None, False, [])
    assert balance({}, [], seats=9).running == 0
