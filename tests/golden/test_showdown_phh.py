"""Every real hand (PHH, tests/data/phh) that reaches a showdown of two or more shown hands: the
winners the showdown names are the players the history shows winning, and the chips each pot
gives them are the chips the history gives them.

The history's side is read from its own numbers, not by replaying it with pokerkit: what each
player put in is summed from the antes, blinds and betting actions written in the file (an
uncalled bet goes back), and what each won is its finishing stack minus its starting stack plus
what it put in. The pots are built from what the players put in (SPLIT-003: each pot split on
its own, the players who put in at least its level eligible); the showdown names each pot's
winners from the shown cards and the board, and :func:`split_pot` shares it out.

Left out, with the reason, in :data:`EXCLUDED`: hands whose showdown has one shown hand (the
others mucked unseen: nothing to compare), and the three famous hands, which record no
finishing stacks (the history does not say who won; one of them is also the short-deck game
the table does not deal).
"""

from __future__ import annotations

import tomllib
from collections import defaultdict

import pytest

from controller.core.showdown import showdown, split_pot
from rig.paths import PHH_DIR

#: PHH variant -> the deal script's game (deal-script.md). FT is fixed-limit hold'em.
GAME = {"NT": "holdem", "FT": "holdem", "PO": "omaha", "FO/8": "omaha8", "F7S": "stud", "F7S/8": "stud8",
        "FR": "razz"}


def showdown_files() -> list[str]:
    lines = (PHH_DIR / "MANIFEST.tsv").read_text().splitlines()
    head = lines[0].split("\t")
    rows = [dict(zip(head, line.split("\t"), strict=True)) for line in lines[1:] if line.strip()]
    return [r["path"] for r in rows if int(r["showdown_actions"]) > 0]


def history(path: str) -> dict:
    """What the file says: the shown cards (each player's last ``sm``), the board, what each
    player put in and what each won."""
    doc = tomllib.loads((PHH_DIR / path).read_text())
    n = len(doc["starting_stacks"])
    start = doc["starting_stacks"]
    antes = doc.get("antes") or [0] * n
    blinds = doc.get("blinds_or_straddles") or [0] * n
    dead = [min(start[i], antes[i]) for i in range(n)]  # antes: dead money, in the main pot
    bet = [min(start[i] - dead[i], blinds[i]) for i in range(n)]  # the blinds open the first street
    street = list(bet)
    shown: dict[int, list[str]] = {}
    board: list[str] = []
    acted = False
    for action in doc["actions"]:
        w = action.split("#")[0].split()
        if w[0] == "d":
            if acted:  # a deal after betting starts a new street
                street, acted = [0] * n, False
            if w[1] == "db":
                board += [w[2][i:i + 2] for i in range(0, len(w[2]), 2)]
            continue
        p, verb = int(w[0][1:]) - 1, w[1]
        acted = True
        if verb in ("cbr", "pb"):
            to = int(w[2]) if verb == "cbr" else doc["bring_in"]
            bet[p] += to - street[p]
            street[p] = to
        elif verb == "cc":
            pay = min(max(street) - street[p], start[p] - dead[p] - bet[p])  # all in for less
            bet[p] += pay
            street[p] += pay
        elif verb == "sm":
            if len(w) > 2:
                shown[p + 1] = [w[2][i:i + 2] for i in range(0, len(w[2]), 2)]
            else:
                shown.pop(p + 1, None)  # mucked unseen
    called = sorted(bet)[-2]  # the part of the biggest bet nobody called went back
    bet = [min(x, called) for x in bet]
    final = doc.get("finishing_stacks")
    won = {i + 1: final[i] - start[i] + dead[i] + bet[i] for i in range(n)} if final else None
    return {"variant": doc["variant"], "players": n, "shown": shown, "board": board, "antes": sum(dead),
            "bet": bet, "won": won}


def predicted(h: dict) -> dict[int, int]:
    """What each shown player wins by the showdown's verdict, pot by pot (SPLIT-003)."""
    game, shown, bet = GAME[h["variant"]], h["shown"], h["bet"]
    gets: dict[int, int] = defaultdict(int)
    below = 0
    for level in sorted({bet[s - 1] for s in shown}):
        amount = sum(min(x, level) - min(x, below) for x in bet) + (h["antes"] if below == 0 else 0)
        eligible = {s: cards for s, cards in shown.items() if bet[s - 1] >= level}
        below = level
        if len(eligible) == 1:
            gets[next(iter(eligible))] += amount
            continue
        sd = showdown(game, eligible, h["board"], button=h["players"])  # PHH: the last player has the button
        assert sd is not None and not sd.dead and not sd.unread, (sd and sd.dead, sd and sd.unread)
        for seat, chips in split_pot(amount, sd).items():
            gets[seat] += chips
    return dict(gets)


FILES = showdown_files()
EXCLUDED: dict[str, str] = {}
CHECKED: list[str] = []
for _path in FILES:
    _h = history(_path)
    if _h["won"] is None:
        EXCLUDED[_path] = "no finishing stacks: the history does not say who won"
    elif _h["variant"] not in GAME:
        EXCLUDED[_path] = f"variant {_h['variant']}: not a game the table deals (short deck)"
    elif len(_h["shown"]) < 2:
        EXCLUDED[_path] = "one hand shown, the others mucked unseen: no showdown to compare"
    else:
        CHECKED.append(_path)


@pytest.mark.parametrize("path", CHECKED)
def test_the_showdown_names_the_players_the_history_shows_winning(path):
    h = history(path)
    expected = {s for s in h["shown"] if h["won"][s] > 0}
    gets = predicted(h)
    assert {s for s, chips in gets.items() if chips > 0} == expected, (h["shown"], h["board"], h["won"])
    assert gets == {s: h["won"][s] for s in gets}  # and the very chips, odd chips included


def test_which_hands_were_checked():
    """The selection itself: every showdown in the sample is either checked or left out with a
    reason; the checked ones cover every game the sample has."""
    assert len(FILES) == 139 and len(CHECKED) + len(EXCLUDED) == len(FILES)
    assert len(CHECKED) == 81  # 16 of them split a pot, 2 are three-way with a side pot
    assert {history(p)["variant"] for p in CHECKED} == set(GAME) - {"FT"}  # FT's showdowns show one hand
    assert sum(1 for r in EXCLUDED.values() if r.startswith("no finishing")) == 3
    splits = [p for p in CHECKED if sum(1 for c in predicted(history(p)).values() if c > 0) > 1]
    assert len(splits) == 16  # SPLIT-001/002 and the odd chips were met for real
