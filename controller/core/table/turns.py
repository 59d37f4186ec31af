"""The game of each hand, and a mixed game's turns (MIXED-001; the rules in :mod:`controller.core.mixed`).

A part of the table: the dealing calls :meth:`GameTurns.game_started` as a hand starts and
:meth:`GameTurns.game_finished` as it ends; the floor's set-up may name the next game
(:meth:`GameTurns.on_setup`). The button the stud/flop switch leaves is the roster's to keep
(``roster.set_next_button``).
"""

from __future__ import annotations

from typing import Any

from controller.core import mixed
from controller.core.effects import Effect
from controller.core.errors import StateError
from controller.core.events import TableSetup
from controller.core.games import game_of
from controller.core.hand import Hand
from controller.core.positions import Positions, next_positions
from controller.core.games import Game
from controller.core.rules import Finding
from controller.core.settings import GAMES
from controller.core.state import checks
from controller.core.part import Part


class GameTurns(Part):
    """The next hand's game and the rotation's count: the game's part of the table."""

    SECTION = "turns"
    STATE = ("game", "_rotation_at", "_game_hands", "_game_buttons")
    NULLABLE = ("game",)
    HINTS = {"game": str, "_rotation_at": int, "_game_hands": int, "_game_buttons": set[int]}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        settings = self.settings
        # the game of the next hand (the hand under way keeps its own: Hand.game), and a mixed
        # game's rotation: its place, the hands of this game counted and the seats that had the
        # button in them (an orbit)
        self.game: str = settings.game
        rotation = settings.rotation.games
        self._rotation_at = rotation.index(settings.game) if settings.game in rotation else 0
        self._game_hands = 0
        self._game_buttons: set[int] = set()

    def link(self) -> None:
        self._prompt = self._t.alerts.prompt

    def read_defaults(self, values: dict[str, Any]) -> dict[str, Any]:
        if values.get("game") is None:  # (a version 10 state: the configuration's game, see _one_game)
            values["game"] = self.settings.game
        return values

    def check(self, where: str) -> None:
        if self.game not in GAMES:
            raise StateError(f"{where}.game: {self.game!r} is no game the table deals")
        checks.count(f"{where}._rotation_at", self._rotation_at)
        checks.count(f"{where}._game_hands", self._game_hands)
        for s in self._game_buttons:
            checks.seat(f"{where}._game_buttons", s)

    @property
    def game_def(self) -> Game:
        """The definition of the next hand's game (:mod:`controller.core.games`)."""
        return game_of(self.game)

    def on_setup(self, ev: TableSetup) -> None:
        """The game the floor's set-up names from the next hand on (a game of the rotation: the
        rotation goes on from it; another: dealt until the count is up, then the rotation's
        next). The game already dealt is no change: its count goes on."""
        if ev.game is not None and ev.game != self.game and ev.game in GAMES:  # (the socket checked it)
            last = self._t.roster.last_positions
            if ev.button is None and self._t.dealing.hand is None and last is not None:
                # between hands, from a button game to stud or back: the button as the rotation
                # moves it (a hand under way: at its end, _game_finished)
                self._button_between(self.game_def.button, game_of(ev.game).button, last, last.button)
            rotation = self.settings.rotation
            self._rotation_at = mixed.index_of(rotation, ev.game, self._rotation_at)
            self._start_game(ev.game)

    def _start_game(self, game: str) -> None:
        self.game = game
        self._game_hands = 0
        self._game_buttons = set()

    def _last_of_game(self, hand: Hand) -> bool:
        rotation = self.settings.rotation
        return rotation.on and hand.kind == "hand" and hand.game == self.game and mixed.last_of_game(
            rotation, played=self._game_hands, buttons=self._game_buttons, button=hand.button, seats=hand.seats,
            has_button=hand.game_def.button)

    def game_started(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """MIXED-001: the last chip moves: "last hand of X" as the hand starts."""
        if self._last_of_game(hand):
            title = hand.game_def.title
            self._game_prompt(ts, hand, out, "mixed.last_hand", f"last hand of {title}", hand.game)

    def game_finished(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """MIXED-001: count the hand (a misdealt one only under MIXED_COUNT_REDEAL) and, after
        a game's last hand, switch to the next game: "next: Y" until the dealer acknowledges.
        A hand of a game the floor has since changed counts for nothing (the floor's word)."""
        rotation = self.settings.rotation
        if hand.kind == "hand" and hand.game != self.game and self._t.roster.next_button is None:
            # the floor named a game during this hand: the stud/flop switch at its end
            self._button_across(hand, self.game_def.button)
        if not rotation.on or hand.kind != "hand" or hand.game != self.game:
            return
        if hand.misdeal:
            self._game_hands += 1 if rotation.count_redeal else 0
            return  # the re-deal is dealt in this game (MISD-014)
        last = self._last_of_game(hand)
        self._game_hands += 1
        self._game_buttons.add(hand.button)
        if not last:
            return
        self._rotation_at = mixed.next_index(rotation, self._rotation_at)
        nxt = rotation.games[self._rotation_at]
        self._button_across(hand, game_of(nxt).button)
        self._start_game(nxt)
        self._game_prompt(ts, hand, out, "mixed.next_game", f"next: {game_of(nxt).title}", nxt)

    def _button_across(self, hand: Hand, has_button: bool) -> None:
        """The stud/flop switch (docs/decisions/0031-mixed-games.md, "The button through stud"): the
        puck moves after the last hand of a button game as after any (DEAL-004) and stays there
        through the stud games, as the dealer's position the deal starts after; the next button
        game's first hand has the button where the puck lies, and it moves on from there."""
        self._button_between(hand.game_def.button, has_button, hand.played_positions(), hand.button)

    def _button_between(self, had_button: bool, has_button: bool, played: Positions, button: int) -> None:
        """:meth:`_button_across` from the last hand's game's kind, the positions it was played
        from and its button (the dealer's position in stud)."""
        roster = self._t.roster
        if had_button and not has_button:
            seats = sorted(roster.seats)
            roster.set_next_button(next_positions(played, seats).button if len(seats) >= 2 else button)
        elif not had_button and has_button:
            roster.set_next_button(button)

    def _game_prompt(self, ts: float, hand: Hand, out: list[Effect], code: str, message: str, game: str) -> None:
        self._prompt(out, ts, hand, Finding(code, "MIXED-001", message), game=game)
