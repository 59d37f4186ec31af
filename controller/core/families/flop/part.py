"""The flop games' board at the table (BURN, BOARD): the burns and the streets of a board dealt
in turn, the rules themselves in :mod:`controller.core.families.flop.board` (a hand's
``BoardState``). The dealing hands this part a burn or a board card of a flop game's hand."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from controller.core.effects import CardPlaced, Effect
from controller.core.rules import Finding
from controller.core.part import Part

if TYPE_CHECKING:  # (a type here, no import at run time: the hand imports the families' rules)
    from controller.core.hand import Hand


class FlopBoard(Part):
    """The board of a flop game: the flop family's part of the table (no state of its own)."""

    SECTION = "flop"

    def link(self) -> None:
        alerts, dealing = self._t.alerts, self._t.dealing
        self._flag = alerts.flag
        self._flush = dealing.flush
        self._deck_fault = self._t.decks.deck_fault
        self._tracker = self._t.reads.tracker

    def street_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, pad: bool,
                    out: list[Effect]) -> None:
        """A burn or a board card (before it is placed), the hand still on (BURN-001..006,
        BOARD-001..011)."""
        board = hand.board
        if zone == "burn" and board.deferred is not None:
            # The street's first card came with no burn before it, and now a burn: pitched
            # first but read late (its evidence began first), or pitched late (BURN-001)?
            if self._tracker.since(uid) >= self._tracker.since(board.street_first):
                street = board.street
                self._flush(out, hand)
                board.late_burn_street = street  # said; this burn is that street's, late
        elif zone == "burn":
            self._flush(out, hand)
        short = board.size() - board.cards  # the current street's cards missing, if this burn ends it
        findings = hand.board.on_burn(uid, pad=pad) if zone == "burn" else hand.board.on_board(
            uid, label, pad=pad, run_burns=self.settings.rules.run_burns)
        if hand.board.deferred is not None and zone == "board":
            hand.deferred = (None, ts)  # when the street came without its burn
        for f in findings:
            if f.code == "board.street_short" and self._copies_on_board(ts, hand, f, short, out):
                continue
            if f.code == "board.four_card_flop":  # FOUR_FLOP_PICKER: who draws the burn
                f = replace(f, message=f.message + ("; call the floor: the floor draws it"
                                                    if self.settings.rules.four_flop_picker == "floor"
                                                    else "; the dealer draws it"))
            self._flag(out, ts, hand, f)


    def _copies_on_board(self, ts: float, hand: Hand, short: Finding, missing: int, out: list[Effect]) -> bool:
        """DECK-007 before BOARD-001: a street short by its tags while a cloned tag lies on the
        board. Cards with one UID on one antenna answer as one tag, so a further copy of a
        cloned card pitched to the board is never read apart: the street's missing cards are
        taken for copies of it (placed, so the board and the stub count are right), which the
        floor is told, and the dealer gets no false "the flop has 2 of 3 cards". True if so."""
        cloned = sorted(k for k in hand.zones.get("board", ()) if "#" in k or f"{k}#2" in hand.where)
        if not cloned or missing < 1:
            return False
        tag = cloned[0].split("#", 1)[0]
        label = hand.labels[cloned[0]]
        n = 3
        for _ in range(missing):
            while f"{tag}#{n}" in hand.where:
                n += 1
            key = f"{tag}#{n}"
            hand.labels[key] = label
            hand.place(key, label, "board")
            hand.on_table.discard(key)  # its reads are the tag's: it leaves the table with it
            out.append(CardPlaced(ts, hand.number, tag, label, "board", None, "floor"))
        self._deck_fault(out, ts, "deck.cloned_tag", f"{tag}#board", "DECK-007", label,
                         f"{short.message} by their tags, and the tag of {label} lies there cloned: "
                         f"taken as {missing} more {'card' if missing == 1 else 'cards'} carrying it")
        return True

