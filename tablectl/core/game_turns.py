"""The game of each hand, and a mixed game's turns (MIXED-001; the rules in :mod:`tablectl.core.mixed`).

A layer of the table between the roster and the draw rounds (see :mod:`tablectl.core.table_base`):
the dealing calls :meth:`GameTurns._game_started` as a hand starts and
:meth:`GameTurns._game_finished` as it ends; the floor's set-up may name the next game
(:meth:`GameTurns._on_setup`).
"""

from __future__ import annotations

from tablectl.core import mixed
from tablectl.core.effects import Effect
from tablectl.core.events import TableSetup
from tablectl.core.games import game_of
from tablectl.core.hand import Hand
from tablectl.core.positions import Positions, next_positions
from tablectl.core.roster import Roster
from tablectl.core.rules import Finding
from tablectl.core.settings import GAMES


class GameTurns(Roster):
    """The next hand's game and the rotation's count (a layer of the table: see :mod:`tablectl.core.table_base`)."""

    def _on_setup(self, ev: TableSetup) -> list[Effect]:
        """The floor's set-up, and the game it names from the next hand on (a game of the
        rotation: the rotation goes on from it; another: dealt until the count is up, then the
        rotation's next). The game already dealt is no change: its count goes on."""
        out = super()._on_setup(ev)
        if ev.game is not None and ev.game != self.game and ev.game in GAMES:  # (the socket checked it)
            last = self._last_positions
            if ev.button is None and self.hand is None and last is not None:
                # between hands, from a button game to stud or back: the button as the rotation
                # moves it (a hand under way: at its end, _game_finished)
                self._button_between(self.game_def.button, game_of(ev.game).button, last, last.button)
            rotation = self.settings.rotation
            self._rotation_at = mixed.index_of(rotation, ev.game, self._rotation_at)
            self._start_game(ev.game)
        return out

    def _start_game(self, game: str) -> None:
        self.game = game
        self._game_hands = 0
        self._game_buttons = set()

    def _last_of_game(self, hand: Hand) -> bool:
        rotation = self.settings.rotation
        return rotation.on and hand.kind == "hand" and hand.game == self.game and mixed.last_of_game(
            rotation, played=self._game_hands, buttons=self._game_buttons, button=hand.button, seats=hand.seats,
            has_button=hand.game_def.button)

    def _game_started(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """MIXED-001: the last chip moves: "last hand of X" as the hand starts."""
        if self._last_of_game(hand):
            title = hand.game_def.title
            self._game_prompt(ts, hand, out, "mixed.last_hand", f"last hand of {title}", hand.game)

    def _game_finished(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """MIXED-001: count the hand (a misdealt one only under MIXED_COUNT_REDEAL) and, after
        a game's last hand, switch to the next game: "next: Y" until the dealer acknowledges.
        A hand of a game the floor has since changed counts for nothing (the floor's word)."""
        rotation = self.settings.rotation
        if hand.kind == "hand" and hand.game != self.game and self._next_button is None:
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
        if had_button and not has_button:
            seats = sorted(self.seats)
            self._next_button = next_positions(played, seats).button if len(seats) >= 2 else button
        elif not had_button and has_button:
            self._next_button = button

    def _game_prompt(self, ts: float, hand: Hand, out: list[Effect], code: str, message: str, game: str) -> None:
        self._prompt(out, ts, hand, Finding(code, "MIXED-001", message), game=game)
