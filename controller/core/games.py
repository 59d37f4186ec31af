"""Every game the dealer guides deal, as data: its deal template, its first-to-act rule and its
stub arithmetic. The one place a game is defined; the table reads the template, it does not
know game names.

The model is pokerkit's ``Street`` (card burning status, hole dealing statuses, board dealing
count, draw status): a game is a tuple of streets, each with a burn before it or not, the hole
cards it deals to every seat (each up or down), its board cards and whether it is a draw round.
The sources are the entries of docs/rules.md (STUD-001, DRAW-001, DEAL-012) and the guides they cite.

>>> HOLDEM.hole_cards, HOLDEM.board_sizes, HOLDEM.burns
(2, (3, 1, 1), 3)
>>> HOLDEM.cards_out(9)  # STUB-003: 18 hole cards + 3 burns + 5 board
26
>>> STUD.cards_per_seat, STUD.burns, STUD.max_players, STUD.up_streets()
(7, 4, 8, ('3rd', '4th', '5th', '6th'))
>>> STUD.cards_out(8) > 52  # eight players would need 56 cards plus burns (STUD-006)
True
>>> [g.name for g in GAMES if not g.dealt]  # the draw games too (DRAW-001..005)
[]
>>> game_of("razz").bring_in, game_of("badugi").hole_cards, game_of("draw27_triple").draws
('high', 4, 3)
>>> CHINESE = game_of("chinese"); CHINESE.hole_cards, CHINESE.burns, CHINESE.cards_out(4)  # CHIN-001
(13, 0, 52)
>>> game_of("pineapple")
Traceback (most recent call last):
...
KeyError: "unknown game 'pineapple' (games: holdem, omaha, omaha8, stud, stud8, razz, draw27_single, draw27_triple,
    draw_a5_triple, badugi, badeucy, badacey, draw5, chinese)"
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

DECK_SIZE = 52

Family = Literal["flop", "stud", "draw", "chin"]
#: who brings in on 3rd street (STUD-002): the lowest up card (stud, stud 8), the highest (razz)
BringIn = Literal["low", "high"]
#: who acts first: left of the big blind, then of the button (DEAL-013); the bring-in on 3rd
#: street, then the best (stud) or lowest (razz) showing hand (STUD-004)
FirstToAct = Literal["blinds", "best_showing", "lowest_showing", "none"]
#: what the dealer does when the stub cannot finish the hand: nothing can happen (flop games),
#: STUD-006..008 before 7th street, DRAW-005 in a draw round
ShortStub = Literal["never", "stud", "draw"]


@dataclass(frozen=True, slots=True)
class Street:
    """One street of a deal (pokerkit's ``Street``, less the betting).

    ``hole`` lists the cards each seat gets on this street, one flag a card: True dealt up.
    ``draw``: the street is a draw round (discards, one burn, the replacements: DRAW-004).
    """

    name: str
    burn: bool
    hole: tuple[bool, ...] = ()
    board: int = 0
    draw: bool = False


@dataclass(frozen=True, slots=True)
class Game:
    """A game: its deal template and the rules that are its own."""

    name: str  # the id in the configuration and in deal scripts (deal-script.md)
    title: str
    family: Family
    streets: tuple[Street, ...]
    max_players: int  # DEAL-012 (STUD-001, DRAW-001)
    first_to_act: FirstToAct
    short_stub: ShortStub
    source: str  # docs/rules.md ids and the guides' sections it comes from
    bring_in: BringIn | None = None
    low_ace: bool = False  # the ace is low when ranking up cards (razz: STUD-002)
    open_pair_option: bool = False  # an open pair on 4th street allows the big bet (STUD-005: stud high)
    button: bool = True  # stud has none: the deal starts after the dealer's position
    dealt: bool = False  # the core follows its deal today
    #: the table reads the hands at a showdown (controller/core/showdown/evaluation.py defines them); Chinese
    #: poker has none: the players table their hands and pay each other (CHIN-001..004)
    showdown: bool = True
    #: the streets with board cards, and the board's size at the end of each: flop games
    #: ("flop", "turn", "river"), (3, 4, 5); and the burns due before the first n of them have
    #: begun (computed once: the hand asks them at every card)
    board_names: tuple[str, ...] = field(init=False, repr=False, compare=False)
    board_ends: tuple[int, ...] = field(init=False, repr=False, compare=False)
    burns_before: tuple[int, ...] = field(init=False, repr=False, compare=False)
    #: the cards a seat holds once each street is dealt: stud (3, 4, 5, 6, 7)
    cards_after: tuple[int, ...] = field(init=False, repr=False, compare=False)
    _up: tuple[bool, ...] = field(init=False, repr=False, compare=False)  # :attr:`up_pattern`

    def __post_init__(self) -> None:
        board = [s for s in self.streets if s.board]
        ends, total = [], 0
        for street in board:
            total += street.board
            ends.append(total)
        burns = [0]
        for street in board:
            burns.append(burns[-1] + (1 if street.burn else 0))
        object.__setattr__(self, "board_names", tuple(s.name for s in board))
        object.__setattr__(self, "board_ends", tuple(ends))
        object.__setattr__(self, "burns_before", tuple(burns))
        held = [0]
        for street in self.streets:
            held.append(held[-1] + len(street.hole))
        object.__setattr__(self, "cards_after", tuple(held[1:]))
        object.__setattr__(self, "_up", tuple(up for s in self.streets for up in s.hole))

    # -- the template's arithmetic ---------------------------------------------------------
    @property
    def hole_cards(self) -> int:
        """Cards each seat gets in the initial deal (the first street)."""
        return len(self.streets[0].hole)

    @property
    def cards_per_seat(self) -> int:
        """Cards a seat holds once every street is dealt (draws replace, they do not add)."""
        return sum(len(s.hole) for s in self.streets)

    @property
    def board_sizes(self) -> tuple[int, ...]:
        """The board cards of each street that has any: (3, 1, 1) in flop games."""
        return tuple(s.board for s in self.streets if s.board)

    @property
    def board_total(self) -> int:
        return sum(s.board for s in self.streets)

    @property
    def burns(self) -> int:
        """Burns in a hand dealt to the end (BURN-006, STUD-001, DRAW-004)."""
        return sum(1 for s in self.streets if s.burn)

    @property
    def draws(self) -> int:
        return sum(1 for s in self.streets if s.draw)

    @property
    def up_pattern(self) -> tuple[bool, ...]:
        """Each card a seat receives, in order, up (True) or down: how the table knows which
        cards are up without seeing them (the reader cannot). Draw rounds replace cards down.

        >>> STUD.up_pattern
        (False, False, True, True, True, True, False)
        """
        return self._up  # (computed once: stud asks it for every seat at every card)

    def up_streets(self) -> tuple[str, ...]:
        """The streets that deal a card face up (the table knows which cards are up)."""
        return tuple(s.name for s in self.streets if any(s.hole))

    def cards_out(self, players: int) -> int:
        """Cards off the stub when ``players`` see every street with no draw (STUB-003): hole
        cards, burns and board. Chinese poker deals the whole deck whatever the players: the
        stacks nobody plays are mucked (CHIN-001/002)."""
        if self.family == "chin":
            return DECK_SIZE
        return self.cards_per_seat * players + self.burns + self.board_total

    def stub_after(self, players: int) -> int:
        """The stub at the end of such a hand; below 0, the deck cannot finish it."""
        return DECK_SIZE - self.cards_out(players)


def _flop(name: str, title: str, hole: int, *, dealt: bool, source: str) -> Game:
    down = (False,) * hole
    return Game(name, title, "flop",
                (Street("preflop", False, down), Street("flop", True, board=3), Street("turn", True, board=1),
                 Street("river", True, board=1)),
                max_players=10, first_to_act="blinds", short_stub="never", dealt=dealt, source=source)


def _stud(name: str, title: str, *, bring_in: BringIn, low: bool, source: str, open_pair: bool = False) -> Game:
    # STUD-001: two down and one up on 3rd, one up on 4th-6th, one down on 7th; a burn before 4th-7th
    return Game(name, title, "stud",
                (Street("3rd", False, (False, False, True)), Street("4th", True, (True,)),
                 Street("5th", True, (True,)), Street("6th", True, (True,)), Street("7th", True, (False,))),
                max_players=8, first_to_act="lowest_showing" if low else "best_showing", short_stub="stud",
                bring_in=bring_in, low_ace=low, open_pair_option=open_pair, button=False, dealt=True,
                source=source)


def _draw(name: str, title: str, hole: int, draws: int, max_players: int, *, source: str) -> Game:
    # DRAW-001/004: the deal from the small blind, then per draw round the discards, one burn, the draw
    rounds = tuple(Street(f"draw {n}", True, draw=True) for n in range(1, draws + 1))
    return Game(name, title, "draw", (Street("deal", False, (False,) * hole),) + rounds,
                max_players=max_players, first_to_act="blinds", short_stub="draw", dealt=True, source=source)


def _chinese() -> Game:
    # CHIN-001: the whole deck in four stacks of 13, no burn, no board, no stub; the stacks are
    # pushed whole to the seats (CHIN-002), so one "street" of 13 cards a seat. Five players at
    # most: the button sits out then (CHIN-002). Nobody acts in turn for the table to follow.
    return Game("chinese", "Chinese poker", "chin", (Street("play", False, (False,) * 13),),
                max_players=5, first_to_act="none", short_stub="never", dealt=True, showdown=False,
                source="CHIN-001..004; 001 §CHINESE POKER")


_S001 = "001 §"
GAMES: tuple[Game, ...] = (
    _flop("holdem", "Texas hold'em", 2, dealt=True,
          source="DEAL-001, BURN-001, BOARD-001, DEAL-012 (button games 2-10); 001 §TEXAS HOLD'EM"),
    _flop("omaha", "Omaha", 4, dealt=True, source="DEAL-001, BURN-001, BOARD-001; 001 §OMAHA"),
    # the deal is Omaha's; the pot splits at the showdown (SHOW, SPLIT, EVAL)
    _flop("omaha8", "Omaha hi-lo", 4, dealt=True, source="as Omaha; 001 §OMAHA 8 or BETTER"),
    _stud("stud", "Seven-card stud", bring_in="low", low=False, open_pair=True,
          source="STUD-001..013; 001 §STUD GAMES, §7-CARD STUD; 002 §Seven Card Games - Quick Reference"),
    _stud("stud8", "Seven-card stud hi-lo", bring_in="low", low=False,
          source="STUD-001..013; 001 §7-CARD STUD 8 or BETTER"),
    _stud("razz", "Razz", bring_in="high", low=True,
          source="STUD-001..013; 001 §RAZZ (7-Card Stud, Low Only)"),
    _draw("draw27_single", "2-7 single draw", 5, 1, 7,
          source="DRAW-001..005; " + _S001 + "SINGLE DRAW LOWBALL, §LOWBALL GAMES"),
    _draw("draw27_triple", "2-7 triple draw", 5, 3, 6,
          source="DRAW-001..005; " + _S001 + "TRIPLE DRAW LOWBALL, §LOWBALL GAMES"),
    _draw("draw_a5_triple", "A-5 triple draw", 5, 3, 6,
          source="DRAW-001..005; " + _S001 + "TRIPLE DRAW LOWBALL, §LOWBALL GAMES"),
    _draw("badugi", "Badugi", 4, 3, 8, source="DRAW-001..005; " + _S001 + "BADUGI"),
    # DRAW-001's table gives ADUCI/BADUCI no maximum: triple draw's six (DEAL-012) is taken
    _draw("badeucy", "Badeucy", 5, 3, 6, source="DRAW-001..005, EVAL-007; " + _S001 + "LOWBALL HYBRIDS (BADUCI)"),
    _draw("badacey", "Badacey", 5, 3, 6, source="DRAW-001..005, EVAL-007; " + _S001 + "LOWBALL HYBRIDS (ADUCI)"),
    # five-card draw: no seed describes it; single-draw lowball's template (five down, one draw)
    # and its seven seats (as the simulator's random hands deal it)
    _draw("draw5", "Five-card draw", 5, 1, 7, source="DRAW-001 (single draw's template); no seed section"),
    _chinese(),
)
_BY_NAME = {g.name: g for g in GAMES}
#: name -> game, for the hot paths that know the name is one (``Hand.game_def``): no call
GAMES_BY_NAME: Mapping[str, Game] = _BY_NAME

HOLDEM = _BY_NAME["holdem"]
OMAHA = _BY_NAME["omaha"]
STUD = _BY_NAME["stud"]
#: the board of every flop game: the burn/board state machine (controller.core.families.flop.board) follows it
FLOP_BOARD = HOLDEM.board_sizes


def game_of(name: str) -> Game:
    """The game called ``name``; KeyError naming the games otherwise."""
    game = _BY_NAME.get(name)
    if game is None:
        raise KeyError(f"unknown game {name!r} (games: {', '.join(_BY_NAME)})")
    return game


#: the games the core deals today, and the hole cards of their initial deal
DEALT: dict[str, int] = {g.name: g.hole_cards for g in GAMES if g.dealt}
