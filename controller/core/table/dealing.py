"""The dealing procedure: a hand from its first card to its gather, the seats' cards, the burns
and the board, and the dealer's pads that concern the hand (docs/rules.md §4-§8: DEAL to MUCK).

The dealing owns the hand under way and the hands finished. Where a game family deals otherwise
than in turn round the table it hands the moment to that family's part
(:mod:`controller.core.families`): stud's streets, the draw rounds, Chinese poker's stacks, the flop
games' board; the showdown is :mod:`controller.core.showdown`'s.
"""

from __future__ import annotations

from typing import Any

from controller.core.showdown import watch as showdown_watch
from controller.core.showdown.winners import OddChipRules  # issue 17 hook
from controller.core.cards import is_card
from controller.core.codes import Family, family_of, name_of
from controller.core.effects import CardLeft, CardPlaced, Effect, HandFinished, HandStarted
from controller.core.events import ButtonPress
from controller.core.games import game_of
from controller.core.hand import Hand
from controller.core.rules import Finding
from controller.core.families.flop.board import burn_moved, untapped_burn
from controller.core.families.stud import rules as stud
from controller.core.families.stud.part import short_stub
from controller.core.rules.highcard import high_card
from controller.core.rules.misdeal import (absent_deadline, check_hole_card, end_of_deal, late, on_exposed,
                                      on_hole_back, on_hole_left)
from controller.core.rules.muck import retrieved
from controller.core.pads import Pad
from controller.core.families.draw import rules as draw
from controller.core.state import checks
from controller.core.errors import StateError
from controller.core.table.modes import MODE_HANDS
from controller.core.part import Part
from controller.core.zones import Zone, seat_of


class Dealing(Part):
    """Hands and their cards: the dealing's part of the table."""

    SECTION = "dealing"
    STATE = ("hand", "hands_finished", "last_record", "_highcard", "_taps_seen", "_figures_key")
    HINTS = {"hand": Hand | None, "hands_finished": int, "last_record": dict[str, Any] | None, "_highcard": bool,
             "_taps_seen": bool, "_figures_key": tuple[Any, ...] | None}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self.hand: Hand | None = None
        self.hands_finished = 0
        self.last_record: dict[str, Any] | None = None
        self._highcard = False  # the next cards are a draw for the button (DEAL-011)
        self._taps_seen = False  # a round_done press seen: this table taps (round_done_pad auto)
        self._figures_key: tuple[Any, ...] | None = None

    def link(self) -> None:
        t = self._t
        alerts = t.alerts
        self._flag, self._flag_once, self._prompt = alerts.flag, alerts.flag_once, alerts.prompt
        self.reads, self.decks, self.roster, self.turns, self.modes = t.reads, t.decks, t.roster, t.turns, t.modes
        self.stud, self.draw, self.chinese, self.flop = t.stud, t.draw, t.chinese, t.flop
        self._tournament = t.tournament
        self._flow = t.flow
        self._label = t.decks.label
        self._lapses = t.lapses  # MUCK-001, STUB-006: what the reads should show in time
        self._stub_spot = self.settings.zones.has_stub_spot
        #: no antenna under the muck ([reader] muck_antenna = false): a muck inferred from the
        #: seats' cards leaving the table (docs/rules.md, "What each reader set-up can check")
        self.no_muck = not self.settings.zones.antennas_of(Zone.MUCK)

    def check(self, where: str) -> None:
        checks.count(f"{where}.hands_finished", self.hands_finished)
        hand = self.hand
        if hand is not None:
            checks.check_hand(hand, f"{where}.hand")
            if not hand.penalty <= self._t.roster.penalty.keys():
                raise StateError(f"{where}.hand.penalty: a seat the table has no penalty for")
            if hand.number <= self.hands_finished:
                raise StateError(f"{where}.hand: hand {hand.number} is not after the {self.hands_finished} "
                                 f"hands finished")

    def next_hand_number(self) -> int:
        """The number of the hand under way, else of the next one."""
        return self.hand.number + 1 if self.hand is not None else self.hands_finished + 1

    def finished_at_least(self, number: int) -> None:
        """Recovery from a journal that lost its last events: hand ``number`` is taken for
        finished, so the next hand does not take the number of one already seen."""
        self.hands_finished = max(self.hands_finished, number)

    @property
    def deals_highcard(self) -> bool:
        """The next cards draw for the button (DEAL-011)."""
        return self._highcard

    def on_clones(self, ts: float, out: list[Effect]) -> list[Effect]:
        """DECK-007: one tag on two cards, heard at full strength in two places at once."""
        clones = self.reads.take_clones()
        for uid, zones in clones:
            info = self.decks.registry.lookup(uid)
            label = info.card if info is not None else f"tag:{uid}"
            self.decks.deck_fault(out, ts, "deck.cloned_tag", uid, "DECK-007", label,
                             f"the tag of {label} is on two cards: read at {zones[0]} and {zones[1]} at once",
                             seat_of(zones[1]))  # (the second card's place: the first's, if known, is zones[0])
            hand = self.hand
            twin = f"{uid}#2"
            if hand is not None and hand.kind == "hand" and uid in hand.where and twin not in hand.where:
                # The second card is a card where it lies: counted there, so that the seat it was
                # dealt to is not taken for a seat left short.
                hand.labels[twin] = label
                self._arrival(ts, hand, twin, label, zones[1], frozenset(), out)
                hand.place(twin, label, zones[1])
                hand.on_table.discard(twin)  # its reads are the tag's: it leaves the table with it
                out.append(CardPlaced(ts, hand.number, uid, label, zones[1], None, "floor"))
        return out

    def on_moves(self, ts: float, moves: list, departures: list) -> list[Effect]:  # type: ignore[type-arg]
        """The tracker's confirmed moves and departures of one reader cycle."""
        out: list[Effect] = []
        hand = self.hand
        if self._stub_spot:
            moves = self._lapses.take_stub(moves)  # STUB-006: the stub is no card of the hand
        # Departures first: when the last card of a hand leaves in the cycle in which the next
        # hand's first card lands, the old hand ends before the new one begins.
        if hand is not None and (departures or (moves and hand.left)):
            self._departures(ts, hand, moves, departures, out)
        # Cards confirmed in one cycle arrived in an order the reader cannot tell: the burn is
        # taken before the board, and seats are taken together for the first card (MISD-004).
        if len(moves) > 1:
            moves = sorted(moves, key=_arrival_rank)
        if len(moves) == 1:  # (nearly always: one card a cycle)
            ((_, p, z),) = moves
            new_seats = frozenset((seat,)) if p is None and (seat := seat_of(z)) is not None else _NO_SEATS
        else:
            new_seats = frozenset(seat for u, p, z in moves if p is None and (seat := seat_of(z)) is not None)
        folded = False
        for uid, _prev, zone in moves:
            folded = self._one_move(ts, uid, zone, new_seats, out) or folded
        hand = self.hand
        if folded and hand is not None:
            # A fold is an action: the deal is over (MISD-006/007), once every card of the
            # cycle is counted (a hole card confirmed with the fold is not taken for missing)
            self._end_deal(ts, hand, out, closes_window=False)
        if hand is not None:
            key = hand.figures_key()
            if key != self._figures_key:
                self._figures_key = key
                out.append(hand.figures(ts, key))
        return out

    def _departures(self, ts: float, hand: Hand, moves: list, departures: list,  # type: ignore[type-arg]
                    out: list[Effect]) -> None:
        """Cards gone from the table this cycle: the hand gathered, or cards gone for now."""
        gone = []
        for uid, zone in departures:
            if uid in hand.on_table:
                hand.on_table.discard(uid)
                out.append(CardLeft(ts, hand.number, uid, hand.labels[uid], zone))
                gone.append((uid, hand.where.get(uid, zone), ts))
        if not hand.on_table:
            # Every card of the hand has left the table: the dealer gathered them.
            self._finish_hand(ts, out)
            return
        # Cards that left in an earlier cycle, while the hand goes on, left for good (back on
        # the stub, or off the table); in a gather nothing arrives in between.
        if moves and hand.left and hand.kind == "hand":
            self._commit_left(hand, out, frozenset(u for u, _, _ in moves))
        if self.no_muck and hand.kind == "hand":
            gone = inferred_muck(self, ts, hand, gone, out)
        for uid, zone, when in gone:
            hand.left[uid] = (zone, when)
            if (seat := seat_of(zone)) is not None:
                self._lapses.left(when, hand, uid, seat)  # MUCK-001: off its seat, until read again

    def _one_move(self, ts: float, uid: str, zone: str, new_seats: frozenset[int], out: list[Effect]) -> bool:
        """One card confirmed in ``zone`` (the first of a hand starts it); True if it was a fold."""
        hand = self.hand
        if hand is None:
            hand = self._start_hand(ts, out)
        label = hand.labels.get(uid) or self._label(uid, ts, out, seat_of(zone))
        hand.left.pop(uid, None)
        lapses = self._lapses
        if lapses.away or lapses.stub_read:
            lapses.arrived(uid)  # MUCK-001: read again; STUB-006: dealt from the stub spot
        hand.now = ts
        prev = hand.where.get(uid)
        folded = False
        if prev is None:
            if self._off_the_stub(ts, hand, uid, label, zone, new_seats, out):
                return False
        elif prev != zone and hand.kind == "hand":
            self._move(ts, hand, uid, label, prev, zone, out)
            folded = zone == Zone.MUCK and seat_of(prev) is not None
        elif prev != zone and hand.kind in MODE_HANDS:
            self.modes.moved(ts, hand, uid, prev, zone, out)  # a race-off's award (RACE-003)
        came_from = hand.place(uid, label, zone)
        if came_from != zone:
            self._placed(ts, hand, uid, label, zone, came_from, prev, out)
        if prev is None and (seat := seat_of(zone)) is not None:
            self._seat_card_placed(ts, hand, label, out)
            if self._flow.watching_seats:  # FLOW-008: a newcomer's first card closes his add-on window
                self._flow.first_card(ts, hand, seat)
        if prev is None and self._stub_spot:
            lapses.card_out(ts, hand)  # STUB-006: the last card out starts the wait for the stub
        if prev != zone and self._tournament.watching:  # FLOW-004: a seat on the clock, or its hand dead
            self._tournament.moved(ts, hand, uid, prev, zone, out)
        return folded

    def _off_the_stub(self, ts: float, hand: Hand, uid: str, label: str, zone: str, new_seats: frozenset[int],
                      out: list[Effect]) -> bool:
        """A card new to where the hand has it: off the stub, or back. True if it was a hole
        card back where it was (nothing more to say)."""
        back = hand.off.pop(uid, None)
        if uid in hand.reserve:
            self.stud.reserve_back(ts, hand, uid, zone, out)  # STUD-010: a set-aside card dealt again
        elif back == zone and (seat := seat_of(zone)) is not None and hand.first_seat.get(uid) == seat:
            hand.place(uid, label, zone, count=False)  # a hole card back where it was
            on_hole_back(hand, uid, seat)
            return True
        if back in (Zone.MUCK, Zone.BURN) and (seat := seat_of(zone)) is not None \
                and hand.game_def.family == "draw":
            self.draw.redealt(ts, hand, uid, label, back, seat, out)  # a rebuilt stub (DRAW-005)
        self._arrival(ts, hand, uid, label, zone, new_seats, out)
        return False

    def _placed(self, ts: float, hand: Hand, uid: str, label: str, zone: str, came_from: str | None,
                prev: str | None, out: list[Effect]) -> None:
        """A card placed where it was not: told (publicly only a board card), and the game's
        own checks after it."""
        # Only a board card of the deck in play is public, in a game that deals one (a flop
        # game's board, stud's community card); hole cards, burns, the muck, any foreign card
        # and a card laid in the middle in a game without a board (a draw game's or a Chinese
        # stack's: a player's card) are the floor's. A public effect never carries the UID:
        # watching UIDs and cards together would teach anyone the deck's tags.
        family = hand.game_def.family
        if zone == "board" and came_from is None and is_card(label) and family in _BOARD_FAMILIES:
            out.append(CardPlaced(ts, hand.number, "", label, zone, came_from, "public"))
            if hand.count("board") == hand.game_def.board_total and hand.kind == "hand":
                self.decks.stub_count_due(ts, hand, out)
        else:
            out.append(CardPlaced(ts, hand.number, uid, label, zone, came_from, "floor"))
        if hand.kind != "hand":
            return
        if family == "stud":
            self.stud.moved(hand, came_from, zone)  # STUD-013: a fold
            self.stud.prompts(ts, hand, out)  # (a card from the burns on 7th counts too)
        elif family == "draw":
            self.draw.prompts(ts, hand, out)
        elif family == "chin":
            self.chinese.placed(ts, hand, prev, zone, out)  # CHIN-001..003: the stacks' counts

    def _seat_card_placed(self, ts: float, hand: Hand, label: str, out: list[Effect]) -> None:
        """A card off the stub at a seat, placed: the exposure a press was waiting for, and the
        absent seats once the deadline is reached (DEAL-009, STUD-011)."""
        if hand.exposure_waiting is not None:
            pressed_at = hand.exposure_waiting[1]
            hand.exposure_waiting = None  # the card the press was for is in: judge it now
            self._exposed(out, pressed_at, hand, "dealer", None, label)
        if not hand.deal_over and hand.absent:
            if hand.game_def.family != "stud":  # DEAL-009: at the first card or the last (ABSENT_DEADLINE)
                for f in absent_deadline(hand, self.settings.rules.absent_deadline):
                    self._flag_once(out, ts, hand, f, f"absent:{f.seat}")
            elif hand.hole_dealt == hand.hole_target:
                self.stud.absent(ts, hand, out)  # STUD-011: the down cards only, once 3rd street is out

    def _arrival(self, ts: float, hand: Hand, uid: str, label: str, zone: str, same_cycle: frozenset[int],
                 out: list[Effect]) -> None:
        """A card off the stub (new to the hand) arrived in ``zone``."""
        if hand.kind == "highcard":
            self._highcard_card(ts, hand, uid, label, zone, out)
            return
        if hand.kind in MODE_HANDS:  # the race-off, a table break's high card (controller.core.table.modes)
            self.modes.card(ts, hand, uid, label, zone, out)
            return
        if zone != "burn":
            self.flush(out, hand)
        seat = seat_of(zone)
        family = hand.game_def.family
        if seat is not None and family == "stud" and hand.hole_dealt >= hand.hole_target:
            self.stud.street_seat_card(ts, hand, seat, out)  # a card of 4th-7th street
        elif seat is not None and family == "draw" and draw.in_draws(hand):
            self.draw.drawn_card(ts, hand, seat, out)  # DRAW-004: as many as it threw
        elif seat is not None and family == "chin":
            self.chinese.card(ts, hand, seat, out)  # stacks, not a deal in turn: no MISD-004..007 (CHIN-002)
        elif seat is not None:
            self._hole_card(ts, hand, seat, same_cycle, out)
        elif zone == "muck":
            if hand.penalty and not hand.deal_over:
                # DEAL-010: a penalised seat is dealt to the muck, in its place in the order
                seat = min((s for s in hand.order if s in hand.penalty),
                           key=lambda s: (hand.dealt_to.get(s, 0), hand.order.index(s)))
                hand.count_hole(uid, seat)
        elif zone in ("burn", "board"):
            self._end_deal(ts, hand, out)
            if zone == Zone.BURN:
                self._burn_tapped(ts, hand, out)  # BURN-002
            self._street_card(ts, hand, uid, label, zone, out)
            if zone == Zone.BURN and family in ("stud", "draw"):
                hand.board.tap_spent()  # (a flop game's street ends at its first board card)

    def _burn_tapped(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """BURN-002, before a burn off the stub is placed: where a burn is due (a street follows)
        and the table taps, a burn with no tap (``round_done``) since the last street's cards is
        its own prompt, "round complete?" (a premature card may follow it: BOARD-004..006). Not
        where no betting comes between the streets: a board run more than once (BOARD-011), the
        hands up after ``allin`` or ``showdown`` (SHOW-005); a burn read after its street's first
        card (BURN-001's late burn) is no burn due."""
        if hand.board.round_done or hand.kind != "hand" or hand.board.runs > 1 or hand.shown is not None \
                or hand.game_def.family == "chin" or not self._taps():
            return
        if hand.next_to() == Zone.BURN:
            self._flag(out, ts, hand, untapped_burn())

    def _taps(self) -> bool:
        """The dealer taps ``round_done`` before each burn: ``round_done_pad``, or (auto) a tap
        seen at this table."""
        pad = self.settings.rules.round_done_pad
        return self._taps_seen if pad is None else pad

    def _hole_card(self, ts: float, hand: Hand, seat: int, same_cycle: frozenset[int], out: list[Effect]) -> None:
        """A card of the deal in turn at ``seat`` (before it is counted): MISD-004..007."""
        rules = self.settings.rules
        away = self.roster.away(seat) if seat not in hand.seats else ""  # (MISD-005's words: a cash seat)
        finding = check_hole_card(hand, seat, same_cycle, rules.deal_count_fixes, away)
        if hand.owed.get(seat, 0) > 0:
            hand.owed[seat] -= 1
        if finding is not None and hand.deal_over and family_of(finding.code) is Family.MISDEAL:
            finding = late(finding, rules.late_fault)
        once = f"seat:{seat}" if finding is not None and name_of(finding.code) == "card_to_seat_not_dealt_in" \
            else f"seat:{seat}:{hand.dealt_to.get(seat, 0)}"  # MISD-005 once per seat; others once per card
        self._flag_once(out, ts, hand, finding, once)

    def _end_deal(self, ts: float, hand: Hand, out: list[Effect], closes_window: bool = True) -> None:
        """The initial deal is over (``sa``, ``round_done``, the first burn or board card, which
        also close the misdeal window, MISD-013; or the first fold, the pot pushed, the hand
        gathered, which do not): check its counts once (MISD-006/007)."""
        if hand.kind == "hand" and hand.game_def.family == "chin":
            self.chinese.deal_over(ts, hand, out, play_over=not closes_window)
        elif hand.kind == "hand":
            for f in end_of_deal(hand, closes_window=closes_window):
                self._flag(out, ts, hand, f)

    def flush(self, out: list[Effect], hand: Hand) -> None:
        """A prompt held for one event (BURN-001's missing burn, in case the burn was read late)."""
        found = hand.board.flush()
        if found is not None:
            self._flag(out, hand.deferred[1] if hand.deferred else hand.now, hand, found)
        hand.deferred = None

    def _highcard_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
        """DEAL-011: one card to each seat; the highest takes the button."""
        seat = seat_of(zone)
        if seat is None:
            return
        if hand.count(zone) >= 1 or seat not in hand.seats:
            self._flag(out, ts, hand, Finding(
                "deal.highcard_redo", "DEAL-011",
                f"two cards at seat {seat}, or a seat not in the draw: redo the draw", seat))
            return
        drawn = {s: hand.labels[u[0]] for z, u in hand.zones.items() if (s := seat_of(z)) is not None and u}
        drawn[seat] = label
        if len(drawn) == len(hand.seats) and all(is_card(c) for c in drawn.values()):
            winner = high_card(drawn)
            hand.button = winner
            self.roster.button_by_high_card(winner)
            self._flag(out, ts, hand, Finding("deal.button_by_high_card", "DEAL-011",
                                              f"seat {winner} has the high card ({drawn[winner]}): the button", winner))

    def _street_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
        pad = self._taps()
        if hand.game_def.family == "chin":
            self.chinese.no_board(ts, hand, zone, out)
            return
        if hand.game_def.family == "draw":  # (a seat that threw its whole hand has no card: not a fold)
            self.draw.burn(ts, hand, zone, out)
            return
        if len(hand.live_seats()) < 2 and not hand.misdeal:
            # BOARD-010: the hand is won; the cards that would have come are never shown
            self._flag_once(out, ts, hand, Finding("board.rabbit_hunt", "BOARD-010",
                                                   "the hand is over: no more cards (no rabbit hunting)"), "rabbit")
            return
        if hand.game_def.family == "stud":
            self.stud.street_card(ts, hand, zone, out)
            return
        self.flop.street_card(ts, hand, uid, label, zone, pad, out)

    def _move(self, ts: float, hand: Hand, uid: str, label: str, prev: str, zone: str, out: list[Effect]) -> None:
        """A card on the table moved from ``prev`` to ``zone``."""
        if zone != "burn":
            self.flush(out, hand)
        if zone == Zone.MUCK and (folded := seat_of(prev)) is not None:  # issue 17 hook: MUCK-005/006
            dead = self._tournament.dead_seats(hand)  # (FLOW-004: a hand dead on the clock is read by nobody)
            for f in showdown_watch.on_muck(hand, folded, OddChipRules.of(self.settings.rules), dead):
                self._flag_once(out, ts, hand, f, f"winner:{prev}")
        if hand.game_def.family == "draw" and self.draw.move(ts, hand, uid, label, prev, zone, out):
            return
        if hand.game_def.family == "chin":  # (a fix from seat to seat is checked once it is placed)
            if zone in (Zone.BURN, Zone.BOARD):
                self.chinese.no_board(ts, hand, zone, out)
            return
        if prev == "board":
            hand.board.on_leave(uid, zone)
        elif prev == "burn" and not short_stub(hand):
            # (after a short stub's rebuild, STUD-007/008, the burns are in the stub again: 7th
            # street, its burn and its community card may come from them)
            self._flag(out, ts, hand, burn_moved(hand.pot_pushed, zone))
        elif zone == Zone.BURN and (seat := seat_of(prev)) is not None:
            self._flag(out, ts, hand, on_hole_left(hand, uid, seat, ts))  # an exposed card burned
        if prev == Zone.MUCK and (seat := seat_of(zone)) is not None:
            if self.no_muck:
                # no muck antenna: the card's muck was inferred from its leaving the seat; read at
                # a seat again, it was held up, or taken back: MUCK-002 is not checked on this table
                hand.notes.append(f"{label} read at {zone} again after its fold was inferred (no muck antenna: "
                                  f"MUCK-002 not checked)")
            else:
                finding = retrieved(hand, uid, label, seat, self.settings.rules.muck_retrieval)
                if finding is None:
                    hand.notes.append(f"MUCK-002: {label} back from the muck to {zone} (its own; dealer's call)")
                self._flag_once(out, ts, hand, finding, f"muck:{zone}")
        elif (prev == "muck" or (prev == "burn" and not short_stub(hand))) and zone == "board":
            self._flag(out, ts, hand, Finding("board.dead_card_on_board", "BOARD-007",
                                              f"{label} came from the {prev} to the board", card=label))
        if zone in ("burn", "board"):
            self._end_deal(ts, hand, out)
            self._street_card(ts, hand, uid, label, zone, out)

    def _commit_left(self, hand: Hand, out: list[Effect], arriving: frozenset[str] = frozenset()) -> None:
        """Cards that left the table while the hand went on are off it for good (but those
        ``arriving`` somewhere in the cycle that commits them: moved, not gone)."""
        for uid, (zone, when) in list(hand.left.items()):
            # Only where a card is expected to go (a hole card in the deal: off the table, MISD-011;
            # a premature or extra board card, back on the stub) is a lost read taken for a card
            # gone. Anywhere else it may be reads missed (a player holding his cards up): the card
            # stays where it was.
            exposed = hand.board.expected_burn is not None and hand.board.expected_burn[0] == uid
            seat = seat_of(zone)
            if seat is not None and not hand.misdeal and hand.game_def.family != "chin" and (exposed or (
                    not hand.deal_over and hand.arrival_ts and (
                        hand.hole_dealt < hand.hole_target or when < hand.arrival_ts[-1]
                        or not hand.exposure_resolved))):
                # (the exposed card is expected to go; otherwise, once every hand is dealt, a
                # card unheard is a player looking at his cards)
                hand.take_off(uid)
                self._flag(out, when, hand, on_hole_left(hand, uid, seat, when))
            elif zone == "board" and (hand.board.premature is not None or hand.board.extra):
                hand.take_off(uid)
                hand.board.on_leave(uid, None)
            elif zone == "burn" and short_stub(hand):
                hand.take_off(uid)  # gathered into the rebuilt stub (STUD-007/008): counted back in
            elif zone in (Zone.MUCK, Zone.BURN) and hand.game_def.family == "draw" and draw.in_draws(hand):
                hand.take_off(uid)  # gathered into a new stub (DRAW-005): counted back in, dealt again
                hand.draw_rebuilt = draw.draw_round(hand)
            elif seat is not None and hand.game_def.family == "stud" and uid not in arriving:
                self.stud.lifted(when, hand, uid, seat, out, arriving)  # STUD-013: an up card gone
        hand.left.clear()

    def _start_hand(self, ts: float, out: list[Effect]) -> Hand:
        number = self.hands_finished + 1
        roster = self.roster
        seats, pos, joins = roster.plan()
        redeal = roster.take_redeal()
        game = redeal.game if redeal is not None else self.turns.game  # (a re-deal replays its hand: MISD-014)
        game_def = game_of(game)
        hole = game_def.hole_cards
        if self.settings.event == "cash" and redeal is None and not self._highcard and self.modes.kind() is None:
            self.roster.cash_blinds(seats, pos, joins)
        if game_def.family == "draw" and redeal is None and self.modes.kind() is None:
            seats = self.draw.sitting_out(seats, pos.bb)  # DRAW-002: an over-full table
        elif game_def.family == "chin" and self.modes.kind() is None and not self._highcard:
            seats, hole = self.chinese.seats(seats, pos.button)  # CHIN-002: who gets a hand, one or two
        hand = Hand(number, game, hole, seats, pos.button, ts, positions=pos)
        hand.dealer = roster.dealer
        kind = self.modes.kind()
        if self._highcard:
            self._highcard = False
            hand.kind = "highcard"
        elif kind is not None and redeal is None:
            hand.kind = kind  # a mode's deal: not a hand (its button and newcomers wait for the next)
        elif redeal is not None:
            hand.redeal_of = redeal.number
            hand.new_seats = roster.deferred_newcomers(seats)
        else:
            hand.waiting = roster.deal_in(joins)
        for ch in self.decks.rack.changes:
            if ch.hand == number:  # RELIEF-002: every deck change is on the record, with its reason
                hand.notes.append(f"RELIEF-002: deck {ch.old} out, deck {ch.new} in ({ch.reason})")
        hand.absent = roster.absent & set(seats)
        self._lapses.hand_started()  # (MUCK-001, STUB-006: the last hand's waits are over)
        self.stud.all_in_dealt(hand)  # STUD-003: pressed before the first card (or in the hand it deals again)
        hand.penalty = {s for s in roster.penalty if s in seats}
        if hand.kind not in MODE_HANDS:
            roster.set_next_button(None)
        self.hand = hand
        self._figures_key = None
        out.append(HandStarted(ts, number, hand.button, seats, game))
        self._t.alerts.hand_started(hand)  # what was raised between hands is in its record
        most = min(self.settings.rules.seats_max, hand.game_def.max_players)
        self._tournament.dealt(ts, hand, redeal is not None, out)  # FLOW-001: its level; FLOW-002/003: a hold
        if hand.kind == "hand":
            self._t.holds.hold_deal(ts, hand, out)  # BREAK-002: dealt while seats are open
            self._flow.dealt(ts, hand, out)  # FLOW-007: before the satellite's approval; FLOW-009: the rake cap
        if len(seats) > most and hand.kind == "hand":  # DEAL-012: the house's limit, or the game's (STUD-001, DRAW-001)
            self._flag(out, ts, hand, Finding("deal.too_many_players", "DEAL-012",
                                              f"{len(seats)} seats dealt in; this game deals at most {most}"))
        self.turns.game_started(ts, hand, out)  # MIXED-001: the last hand of a game
        return hand

    def _finish_hand(self, ts: float, out: list[Effect]) -> None:
        hand = self.hand
        assert hand is not None
        if hand.kind != "hand":  # a draw for the button, a mode's deal
            self._finish_draw(ts, hand, out)
            self.modes.gathered(hand)
            return
        self.flush(out, hand)
        self._end_deal(ts, hand, out, closes_window=False)  # a hand over before the flop was dealt too
        if not hand.misdeal and hand.game_def.family == "draw":
            self.draw.done(ts, hand, out)
        if not hand.misdeal and hand.game_def.family == "stud":
            self.stud.finish(ts, hand, out)  # STUD-010: four burns
        if not hand.misdeal:
            for f in hand.board.finish(run_burns=self.settings.rules.run_burns):  # BURN-006
                self._flag(out, ts, hand, f)
            self.stud.played_out()  # STUD-003: the antes' all-ins were this hand's (a re-deal keeps them)
            for seat in self.roster.serve_penalties(hand):  # DEAL-010: a misdealt hand and its re-deal count once
                self._flag(out, ts, hand, Finding("deal.penalty_served", "DEAL-010",
                                                  f"seat {seat} has served its penalty", seat))
        self.turns.game_finished(ts, hand, out)  # MIXED-001: counted; the next game after a game's last hand
        dead = self._tournament.dead_seats(hand)  # FLOW-004: a hand dead on the clock is never read for the pot
        if dead and not hand.misdeal:
            self._tournament.dead_at_showdown(ts, hand, out, cards_out=False)
        stub_read = self._lapses.finish(ts, hand, out)  # MUCK-001: still missing; STUB-006: the free count
        record = hand.record(ts, OddChipRules.of(self.settings.rules), dead)  # issue 17 hook: the odd chip rules
        if stub_read is not None:
            record["stub_read"] = stub_read  # STUB-006: the cards the stub spot read
        record["deck"] = hand.deck
        record["down"] = self.decks.stub.down
        record["level"] = self._tournament.dealt_level  # FLOW-001 (a re-deal's: the misdealt hand's, MISD-014)
        if self.reads.unchecked:
            record["unchecked"] = sorted(self.reads.unchecked)  # "not checked on this table" (controller.core.setups)
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))
        if self.decks.rack.rotate == "hand" and not hand.misdeal and hand.deck is not None:
            self.decks.change_deck(ts, "rotation", out)  # SHUF-007: the other deck deals the next hand
        if hand.misdeal:
            self.roster.hand_misdealt(hand)  # MISD-014: the re-deal replays it; seat changes wait for it
        else:
            self.roster.hand_played(hand, out)  # DEAL-004: the button moves; the seat changes pressed meanwhile
        self.modes.after_hand(ts, out)  # FLOW-005: a break pressed during the hand
        self._tournament.after_hand(ts, hand, out)  # FLOW-002/003: the holds; FLOW-004: the clock ends
        self._flow.after_hand(ts, hand, out)  # FLOW-006: the orbits of the seats away

    def _finish_draw(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        record = hand.record(ts, OddChipRules.of(self.settings.rules))  # issue 17 hook: the odd chip rules
        record["level"] = self._tournament.dealt_level
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))
        self._tournament.after_hand(ts, hand, out)  # FLOW-003: a bubble hold waits for the deal's end

    def press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """A pad that concerns the hand (the modes, the roster and the decks had theirs first)."""
        hand = self.hand
        if ev.name == Pad.HIGHCARD and hand is None:
            self._highcard = True  # DEAL-011: the next cards draw for the button
            return
        if hand is not None and hand.kind != "hand":
            return
        if hand is None:
            redeal = self.roster._redeal
            game = redeal.game_def if redeal is not None else self.turns.game_def  # (the next hand's)
            if ev.name == Pad.ALLIN and ev.seat is not None and game.family == "stud":
                self.stud.all_in_before_deal(ev.seat)  # STUD-003: all in for the ante, before the deal
            return
        self._hand_press(ev, hand, out)

    def _hand_press(self, ev: ButtonPress, hand: Hand, out: list[Effect]) -> None:
        name, ts = ev.name, ev.ts
        if hand.left and name not in (Pad.MISDEAL, Pad.HAND_END):
            # a pad pressed while the hand goes on: what left the table before it left for good
            self._commit_left(hand, out)
        self.flush(out, hand)
        if name in (Pad.EXPOSED, Pad.EXPOSED_PLAYER, Pad.BOXED):
            self._exposed_press(ev, hand, out)
        elif name in (Pad.SA, Pad.ROUND_DONE):
            was_open = not hand.deal_over
            self._end_deal(ts, hand, out)
            if was_open:
                hand.closed_by = name
            if name == Pad.ROUND_DONE:
                hand.board.on_round_done()
                self._taps_seen = True
                self.stud.stub_check(ts, hand, out)
        elif name == Pad.MISDEAL:
            if hand.deal_over and not hand.misdeal:  # MISD-013: the floor decides
                self._flag(out, ts, hand, Finding("misdeal.declared_late", "MISD-013",
                                                  "misdeal declared after substantial action", audience="floor"))
            hand.misdeal = True  # MISD-016: declared; the re-deal replays the hand (MISD-014)
        elif name == Pad.HAND_END:
            dead = self._tournament.dead_seats(hand)
            if dead:  # FLOW-004: the pot pushed with a hand dead on the clock still at its seat
                self._tournament.dead_at_showdown(ts, hand, out, cards_out=True)
            if hand.game_def.showdown:  # (Chinese poker: the players score each other, CHIN-004)
                for f in showdown_watch.on_hand_end(hand, dead):  # issue 17 hook: SHOW-006 (showdown_watch)
                    self._flag(out, ts, hand, f)
            self._end_deal(ts, hand, out, closes_window=False)  # the pot is pushed: the deal is over
            hand.pot_pushed = True
        elif name == Pad.ALLIN and ev.seat is not None and hand.game_def.family == "stud":
            self.stud.allin_seat(ts, hand, ev.seat, out)  # a seat all in (STUD-003: for the ante)
        elif name in showdown_watch.PADS:  # issue 17 hook: SHOWDOWN, RUN_IT (showdown_watch)
            cash = self.settings.event == "cash"  # (SHOW-008: the bad beat, cash hold'em only)
            dead = self._tournament.dead_seats(hand)  # FLOW-004: never read for the pot
            if dead and name == Pad.SHOWDOWN:
                self._tournament.dead_at_showdown(ts, hand, out, cards_out=True)
            for f in showdown_watch.on_press(hand, name, OddChipRules.of(self.settings.rules), cash=cash,
                                             dead=dead, max_runs=self.settings.rules.max_runs):
                self._flag(out, ts, hand, f)
            if name == Pad.ALLIN and hand.game_def.family == "stud":
                self.stud.allin_called(ts, hand, out)  # STUD-012: face up until 7th

    def _exposed_press(self, ev: ButtonPress, hand: Hand, out: list[Effect]) -> None:
        """``exposed`` (the dealer's; long: a player's) or ``boxed``: judged now, or once the
        card the press was for is read, if the press beat the reader to it."""
        name, ts = ev.name, ev.ts
        kind = "player" if name == Pad.EXPOSED_PLAYER or (name == Pad.EXPOSED and ev.long) else \
            "boxed" if name == Pad.BOXED else "dealer"
        last_zone = hand.where.get(hand.last_card) if hand.last_card else None
        last = hand.labels.get(hand.last_card) if last_zone in ("board", "burn") else None  # type: ignore[arg-type]
        waiting = [u for u, z in self.reads.tracker.pending_arrivals()
                   if seat_of(z) is not None and u not in hand.where]
        if kind == "dealer" and waiting and not hand.deal_over:
            hand.exposure_waiting = (waiting[0], ts)  # the press beat the reader to the card
        else:
            self._exposed(out, ts, hand, kind, ev.seat, last)

    def _exposed(self, out: list[Effect], ts: float, hand: Hand, kind: str, seat: int | None,
                 last: str | None) -> None:
        """A card seen face up (``kind``: rules.misdeal.on_exposed's). The dealer's exposure is
        the game's own rule first: a stud down card on 3rd street (MISD-008), a stud card after
        it (STUD-009/010), a draw hand's card (DRAW-003, MISD-009); else, and for every game's
        other cases, the flop games' rules."""
        if kind == "dealer" and hand.game_def.family == "stud":
            found = stud.on_exposed_third(hand)
            if found is not None:
                (self._flag if found.code.startswith("misdeal.") else self._prompt)(out, ts, hand, found)
                return
            if self.stud.exposed(ts, hand, out):
                return  # STUD-009: 7th street face up; STUD-010: an up card before the betting was done
        if kind == "dealer" and hand.game_def.family == "draw" and self.draw.exposed(ts, hand, out):
            return  # DRAW-003: a wheel card kept on the deal, or any card on the draw replaced
        self._flag(out, ts, hand, on_exposed(hand, kind, seat, last))


_RANK = {"burn": 0, "board": 1}
#: the families whose cards in the middle are public: the flop games' board, stud's community card
_BOARD_FAMILIES = frozenset({"flop", "stud"})
_NO_SEATS: frozenset[int] = frozenset()


def _arrival_rank(move: tuple[str, str | None, str]) -> int:
    """Within one reader cycle: seats and the muck, then the burn, then the board."""
    return _RANK.get(move[2], -1)


def inferred_muck(dealing: Dealing, ts: float, hand: Hand, gone: list[tuple[str, str, float]],
                  out: list[Effect]) -> list[tuple[str, str, float]]:
    """A table without a muck antenna: a seat's card gone from the table once every hole card
    is dealt (or the deal is over) went to the muck (a fold, a draw's discard), as if it had been read there; the
    others of ``gone`` are returned, to be judged as on any table. The muck is inferred
    ``gone_cycles`` after the cards left, so a player holding his cards up that long is
    taken for a fold (docs/rules.md, "What each reader set-up can check"). (A function of the
    module, not a method: the set-up's own step, beside the dealing every table does.)"""
    if hand.misdeal or hand.game_def.family == "chin" or not (
            hand.deal_over or hand.hole_dealt >= hand.hole_target):
        return gone  # (in the deal, a card gone is MISD-011's, as on any table)
    rest = []
    folded = False
    for uid, zone, when in gone:
        if seat_of(zone) is None or hand.where.get(uid) != zone:
            rest.append((uid, zone, when))
            continue
        folded = dealing._one_move(ts, uid, Zone.MUCK, _NO_SEATS, out) or folded
        hand.on_table.discard(uid)  # (inferred, never read: it cannot leave the table again)
    if folded:
        dealing._end_deal(ts, hand, out, closes_window=False)
    return rest
