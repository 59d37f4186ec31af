"""Table balance (BREAK-004): from each table's player count, which players to move and which
table breaks next. Pure: the floor's page asks it of the counts its tables last published.

BREAK-004 (docs/rules.md): table sizes stay within two players of each other while more than
six tables run, and within one at six or fewer. Players move one at a time from the table with
the most to the table with the fewest until the sizes are within that; among tables of equal
size, a player leaves the table that breaks soonest and joins the one that breaks last (a
player is not moved to a table about to break). A table breaks when the players left fit in one
table fewer; the next to break is the first of the tournament's break order still running (the
tables it does not name after them, by name). While a table is to break, no move is said: the
broken table's players fill the seats.

>>> b = balance({"t1": 9, "t2": 9, "t3": 9, "t4": 9, "t5": 9, "t6": 9, "t7": 5}, ["t1", "t2"], seats=9)
>>> b.within, [(m.source, m.target, m.players) for m in b.moves], b.breaks_next, b.break_now
(2, [('t1', 't7', 1), ('t2', 't7', 1)], 't1', False)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Move:
    """``players`` players from table ``source`` to table ``target``."""

    source: str
    target: str
    players: int


@dataclass(frozen=True, slots=True)
class Balance:
    """What the floor's page says of the tables' sizes."""

    #: the tables with players, and the players
    running: int
    players: int
    #: the most two tables may differ by now (BREAK-004: 2 over six tables, else 1)
    within: int
    moves: tuple[Move, ...]
    #: the table that breaks next (None: one table left, the final table)
    breaks_next: str | None
    #: the players left fit in one table fewer: break ``breaks_next`` now
    break_now: bool


def within(running: int) -> int:
    """The most two tables' sizes may differ by with ``running`` tables (BREAK-004).

    >>> within(7), within(6)
    (2, 1)
    """
    return 2 if running > 6 else 1


def balance(counts: Mapping[str, int], break_order: Sequence[str], *, seats: int) -> Balance:
    """What to do about ``counts`` (table -> its players; a table with none is not running),
    the tables breaking in ``break_order``, each seating ``seats``."""
    running = {t: n for t, n in counts.items() if n > 0}
    order = {t: i for i, t in enumerate(break_order)}

    def rank(t: str) -> tuple[int, int, str]:  # (the sooner a table breaks, the lower)
        return (0, order[t], "") if t in order else (1, 0, t)

    players = sum(running.values())
    ahead = sorted(running, key=rank)
    breaks_next = ahead[0] if len(ahead) > 1 else None
    break_now = breaks_next is not None and players <= (len(running) - 1) * seats
    tolerance = within(len(running))
    moves: list[Move] = []
    if not break_now:
        sizes = dict(running)
        while sizes:
            source = min(sizes, key=lambda t: (-sizes[t], rank(t)))
            target = max(sizes, key=lambda t: (-sizes[t], rank(t)))
            if sizes[source] - sizes[target] <= tolerance:
                break
            sizes[source] -= 1
            sizes[target] += 1
            if moves and (moves[-1].source, moves[-1].target) == (source, target):
                moves[-1] = Move(source, target, moves[-1].players + 1)
            else:
                moves.append(Move(source, target, 1))
    return Balance(running=len(running), players=players, within=tolerance, moves=tuple(moves),
                   breaks_next=breaks_next, break_now=break_now)
