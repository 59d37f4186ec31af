"""The draw games' rounds in the dealing procedure (DRAW-002..005): the table's hooks, the rules
themselves in :mod:`controller.core.families.draw.rules`. The draw family's part of the table: the
dealing calls these where a draw game differs from a flop game (a seat's card in the draws, a
discard, a burn, a card back from the muck). What a hand keeps for them is on the hand
(``discards``, ``allowance``, ``draw_checked``, ``draw_rebuilt``): the part keeps nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from controller.core.effects import Effect
from controller.core.rules import Finding
from controller.core.families.draw import rules as draw
from controller.core.part import Part
from controller.core.zones import Zone, seat_of

if TYPE_CHECKING:  # (a type here, no import at run time: the hand imports the families' rules)
    from controller.core.hand import Hand


class DrawRounds(Part):
    """The draw rounds of a hand: the draw family's part of the table (no state of its own)."""

    SECTION = "draw"

    def link(self) -> None:
        alerts = self._t.alerts
        self._flag, self._flag_once, self._prompt = alerts.flag, alerts.flag_once, alerts.prompt

    def sitting_out(self, seats: tuple[int, ...], bb: int) -> tuple[int, ...]:
        """DRAW-002: the seats dealt in at an over-full table (the game's maximum, or the
        house's if smaller); the seats after the big blind sit the hand out."""
        game = self._t.turns.game_def  # (the next hand's: it is being started)
        most = min(self.settings.rules.seats_max, game.max_players)
        out = draw.sitting_out(seats, bb=bb, most=most)
        return tuple(s for s in seats if s not in out)

    def drawn_card(self, ts: float, hand: Hand, seat: int, out: list[Effect]) -> None:
        """A card off the stub to ``seat`` in the draws (DRAW-004), before it is placed."""
        found = draw.on_draw_card(hand, seat)
        if found is not None:  # (the key is made only for a finding: this is asked at every draw card)
            self._flag_once(out, ts, hand, found, f"draw:{draw.draw_round(hand)}:{seat}:{draw.held(hand, seat)}")

    def move(self, ts: float, hand: Hand, uid: str, label: str, prev: str, zone: str,
                   out: list[Effect]) -> bool:
        """A card moved in a draw hand: a discard (or a fold) to the muck, or a card from the
        muck or the burns to a seat (a rebuilt stub: DRAW-005). True if it was one of those."""
        seat = seat_of(prev)
        if seat is not None and zone in (Zone.MUCK, Zone.BURN) and hand.allowance.get(seat, 0) > 0 \
                and draw.in_draws(hand):
            # the exposed card of a draw set aside (DRAW-003): a dead card of this round, no
            # discard of the next, no burn; the seat's replacement is still to come
            hand.allowance[seat] -= 1
            hand.discards[uid] = draw.draw_round(hand)
            return True
        if seat is not None and zone == Zone.MUCK:
            self.done(ts, hand, out)  # the first discard of a round ends the last round's draw
            hand.discards[uid] = draw.draw_round(hand) + 1
            return True
        seat = seat_of(zone)
        if seat is not None and prev in (Zone.MUCK, Zone.BURN) and draw.in_draws(hand):
            self.redealt(ts, hand, uid, label, prev, seat, out)
            self.drawn_card(ts, hand, seat, out)
            return True
        return False

    def redealt(self, ts: float, hand: Hand, uid: str, label: str, origin: str, seat: int,
                      out: list[Effect]) -> None:
        """A card gathered from the muck or the burns comes to a seat: from a rebuilt stub."""
        self._flag_once(out, ts, hand, draw.from_muck_or_burns(hand, uid, label, origin, seat), f"redealt:{uid}")

    def done(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        for f in draw.draw_done(hand):
            self._flag(out, ts, hand, f)

    def burn(self, ts: float, hand: Hand, zone: str, out: list[Effect]) -> None:
        """A burn (before it is placed) or a board card in a draw hand."""
        if zone != Zone.BURN:
            self._flag(out, ts, hand, Finding("deal.draw_board_card", "DRAW-001",
                                              "a card in the middle: the draw games deal no board"))
            return
        found = draw.on_burn(hand)
        if found is None or found.code != "deal.draw_second_burn":
            self.done(ts, hand, out)  # everyone stood pat: the last draw is over
        self._flag(out, ts, hand, found)
        hand.board.burns_total += 1

    def exposed(self, ts: float, hand: Hand, out: list[Effect]) -> bool:
        """The dealer exposed a card (the ``exposed`` pad) in a draw hand (DRAW-003): on the deal
        a wheel card (A to 5) is kept (DRAW_EXPOSED_DEAL's cash default), any other goes the
        flop games' way (MISD-010: replaced once everyone has a hand); on the draw the card is
        replaced: the exposed card leaving the seat (to the muck or the burns) is then set aside,
        not a discard of the next round. True if this said it (the deal's other cards: the
        misdeal rules say it)."""
        uid = hand.last_hole
        card = hand.labels.get(uid) if uid is not None else None
        on_deal = not draw.in_draws(hand)
        choice = self.settings.rules.draw_exposed_deal  # MISD-009: DRAW_EXPOSED_DEAL
        if choice == "by_event":  # docs/rules.md §20: replace (tournaments) / replace unless a wheel card (cash)
            choice = "wheel_kept" if self.settings.event == "cash" else "replace"
        if on_deal and choice == "misdeal":
            self._flag(out, ts, hand, draw.exposed_misdeal(hand.first_seat.get(uid) if uid is not None else None))
            return True
        found = draw.exposed(card, on_deal=on_deal, replace_wheel=choice == "replace")
        if on_deal and found.code != "deal.draw_exposed_keep":
            return False
        seat = seat_of(hand.where.get(uid)) if uid is not None and not on_deal else None
        if seat is not None:
            hand.allowance[seat] = hand.allowance.get(seat, 0) + 1  # it leaves the seat; a card replaces it
        self._flag(out, ts, hand, found)
        return True

    def prompts(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """After a card of a draw hand is placed: the stub short for the draw (DRAW-005)."""
        found = draw.stub_short(hand)
        if found is not None:
            self._prompt(out, ts, hand, found)
