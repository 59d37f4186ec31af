"""Mixed games (MIXED-001, MIXED-002): the game of each hand, and the rotation that changes it.

A mixed table deals its games in turn: the configuration's rotation (HORSE, 8-game, or any
list of :mod:`controller.core.games` names), each game for a number of hands (the dealer's counting
chips, ``MIXED_HANDS_PER_GAME``) or for an orbit of the button. The table holds the game of the
next hand (``Table.game``); a hand keeps its own (``Hand.game``), so the hand under way is never
changed under the dealer. At the start of a game's last hand the dealer is told "last hand of
X"; at that hand's end the table switches to the next game and tells "next: Y", kept on the
console until the dealer presses ``ack`` (001 §MIXED GAMES: "announce the last hand of (game)",
"change the game plaque and announce ... what the next game is").

An orbit (``change = "orbit"``) is over when every seat dealt in has had the button once in this
game. Stud has no button (STUD-001): there an orbit is as many hands as players dealt in.

A misdealt hand is not counted unless ``MIXED_COUNT_REDEAL`` says so (its re-deal is the hand
that counts, as MISD-014 replays it), and the game never changes after a misdeal: the re-deal
is dealt in the misdealt hand's game.

>>> rotation_of("horse")
('holdem', 'omaha8', 'razz', 'stud', 'stud8')
>>> rotation_of(["holdem", "razz"])
('holdem', 'razz')
>>> rotation_of("8game")[0], len(rotation_of("8game"))
('draw27_triple', 8)
>>> rotation_of("pineapple")
Traceback (most recent call last):
...
ValueError: 'pineapple' is no rotation (presets: horse, 8game) and no list of games
>>> last_of_game(Rotation(("holdem", "razz"), hands=3), played=2, buttons=set(), button=4, seats=(1, 4),
...              has_button=True)
True
>>> last_of_game(Rotation(("holdem", "razz")), played=1, buttons={1}, button=4, seats=(1, 4, 6),
...              has_button=True)  # seat 6 has not had the button yet
False
>>> last_of_game(Rotation(("holdem", "razz")), played=2, buttons=set(), button=4, seats=(1, 4, 6),
...              has_button=False)  # stud: as many hands as players
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.core.games import game_of

#: The rotations the configuration may name instead of a list (docs/rules.md: MIXED). HORSE: hold'em,
#: Omaha hi-lo, razz, stud, stud hi-lo. The 8-game mix: 2-7 triple draw, limit hold'em, Omaha
#: hi-lo, razz, stud, stud hi-lo, no-limit hold'em, pot-limit Omaha; the betting structure does
#: not change the deal (deal-script.md), so the two hold'ems are one game here, twice.
PRESETS: dict[str, tuple[str, ...]] = {
    "horse": ("holdem", "omaha8", "razz", "stud", "stud8"),
    "8game": ("draw27_triple", "holdem", "omaha8", "razz", "stud", "stud8", "holdem", "omaha"),
}


@dataclass(frozen=True, slots=True)
class Rotation:
    """The configuration's rotation: the games in turn (none: one game, no rotation), the hands
    each game lasts (None: an orbit of the button) and whether a misdealt hand counts one."""

    games: tuple[str, ...] = ()
    hands: int | None = None  # MIXED_HANDS_PER_GAME; None: change = "orbit"
    count_redeal: bool = False  # MIXED_COUNT_REDEAL (docs/rules.md §20: no, as MISD-014)

    @property
    def on(self) -> bool:
        return len(self.games) >= 2


def rotation_of(value: str | Iterable[str]) -> tuple[str, ...]:
    """The games of a rotation given by a preset's name or as a list of game names; ValueError
    naming what is wrong (the configuration adds the file and the key)."""
    if isinstance(value, str):
        games = PRESETS.get(value.lower())
        if games is None:
            raise ValueError(f"{value!r} is no rotation (presets: {', '.join(PRESETS)}) and no list of games")
        return games
    games = tuple(value)
    for g in games:
        game_of(g)  # KeyError naming the games
    return games


def last_of_game(rotation: Rotation, *, played: int, buttons: set[int], button: int, seats: tuple[int, ...],
                 has_button: bool) -> bool:
    """Whether a hand starting now is the last of its game: ``played`` hands of it counted
    before, ``buttons`` the seats that had the button in them; this hand's ``button`` and
    ``seats``. A number of hands: the last chip moves (MIXED-001). An orbit: every seat dealt in
    has had the button once, this hand's included; without a button (stud), one hand a player."""
    if rotation.hands is not None:
        return played + 1 >= rotation.hands
    if not has_button:
        return played + 1 >= len(seats)
    return set(seats) <= buttons | {button}


def next_index(rotation: Rotation, at: int) -> int:
    """The place in the rotation after ``at`` (wrapping; a rotation shortened since: from 0)."""
    return (at + 1) % len(rotation.games) if rotation.games else 0


def index_of(rotation: Rotation, game: str, at: int) -> int:
    """Where ``game`` is in the rotation, looking from ``at`` on (a game may come twice: the
    8-game's two hold'ems); ``at`` if it is not in it."""
    n = len(rotation.games)
    for step in range(n):
        i = (at + step) % n
        if rotation.games[i] == game:
            return i
    return at
