"""The dealing procedure: a hand from its first card to its gather, the seats' cards, the burns
and the board, and the dealer's pads that concern the hand (docs/rules.md §4-§8: DEAL to MUCK)."""

from __future__ import annotations

from dataclasses import replace

from tablectl.core import showdown_watch
from tablectl.core.showdown import OddChipRules  # issue 17 hook
from tablectl.core.cards import is_card
from tablectl.core.codes import Family, family_of, name_of
from tablectl.core.effects import CardLeft, CardPlaced, Effect, HandFinished, HandStarted
from tablectl.core.events import ButtonPress
from tablectl.core.games import game_of
from tablectl.core.hand import Hand
from tablectl.core.rules import Finding
from tablectl.core.rules import stud
from tablectl.core.rules.board import burn_moved
from tablectl.core.rules.highcard import high_card
from tablectl.core.rules.misdeal import (absent_deadline, check_hole_card, end_of_deal, late, on_exposed,
                                      on_hole_back, on_hole_left)
from tablectl.core.rules.muck import retrieved
from tablectl.core.pads import DECK_PADS, ROSTER_PADS, Pad
from tablectl.core.rules import draw
from tablectl.core.stud_rounds import StudRounds
from tablectl.core.table_modes import MODE_HANDS
from tablectl.core.zones import Zone, seat_of


class Dealing(StudRounds):
    """Hands and their cards (layer 5 of the table: see :mod:`tablectl.core.table_base`)."""

    def _on_clones(self, ts: float, out: list[Effect]) -> list[Effect]:
        """DECK-007: one tag on two cards, heard at full strength in two places at once."""
        clones, self._clones[:] = list(self._clones), []
        for uid, zones in clones:
            info = self.registry.lookup(uid)
            label = info.card if info is not None else f"tag:{uid}"
            self._deck_fault(out, ts, "deck.cloned_tag", uid, "DECK-007", label,
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

    def _on_moves(self, ts: float, moves: list, departures: list) -> list[Effect]:  # type: ignore[type-arg]
        out: list[Effect] = []
        hand = self.hand
        # Departures first: when the last card of a hand leaves in the cycle in which the next
        # hand's first card lands, the old hand ends before the new one begins.
        if hand is not None and (departures or (moves and hand.left)):
            gone = []
            for uid, zone in departures:
                if uid in hand.on_table:
                    hand.on_table.discard(uid)
                    out.append(CardLeft(ts, hand.number, uid, hand.labels[uid], zone))
                    gone.append((uid, hand.where.get(uid, zone), ts))
            if not hand.on_table:
                # Every card of the hand has left the table: the dealer gathered them.
                self._finish_hand(ts, out)
            else:
                # Cards that left in an earlier cycle, while the hand goes on, left for good
                # (back on the stub, or off the table); in a gather nothing arrives in between.
                if moves and hand.left and hand.kind == "hand":
                    self._commit_left(hand, out, frozenset(u for u, _, _ in moves))
                for uid, zone, when in gone:
                    hand.left[uid] = (zone, when)
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
            hand = self.hand
            if hand is None:
                hand = self._start_hand(ts, out)
            label = hand.labels.get(uid) or self._label(uid, ts, out, seat_of(zone))
            hand.left.pop(uid, None)
            hand.now = ts
            prev = hand.where.get(uid)
            if prev is None:
                back = hand.off.pop(uid, None)
                if uid in hand.reserve:
                    self._stud_reserve_back(ts, hand, uid, zone, out)  # STUD-010: a set-aside card dealt again
                elif back == zone and (seat := seat_of(zone)) is not None and hand.first_seat.get(uid) == seat:
                    hand.place(uid, label, zone, count=False)  # a hole card back where it was
                    on_hole_back(hand, uid, seat)
                    continue
                if back in (Zone.MUCK, Zone.BURN) and (seat := seat_of(zone)) is not None \
                        and hand.game_def.family == "draw":
                    self._draw_redealt(ts, hand, uid, label, back, seat, out)  # a rebuilt stub (DRAW-005)
                self._arrival(ts, hand, uid, label, zone, new_seats, out)
            elif prev != zone and hand.kind == "hand":
                self._move(ts, hand, uid, label, prev, zone, out)
                folded = folded or (zone == Zone.MUCK and seat_of(prev) is not None)
            elif prev != zone and hand.kind in MODE_HANDS:
                self._mode_moved(ts, hand, uid, prev, zone, out)  # a race-off's award (RACE-003)
            came_from = hand.place(uid, label, zone)
            if came_from != zone:
                # Only a board card of the deck in play is public, in a game that deals one (a
                # flop game's board, stud's community card); hole cards, burns, the muck, any
                # foreign card and a card laid in the middle in a game without a board (a draw
                # game's or a Chinese stack's: a player's card) are the floor's. A public effect
                # never carries the UID: watching UIDs and cards together would teach anyone
                # the deck's tags.
                if zone == "board" and came_from is None and is_card(label) and hand.game_def.family in _BOARD_FAMILIES:
                    out.append(CardPlaced(ts, hand.number, "", label, zone, came_from, "public"))
                    if hand.count("board") == hand.game_def.board_total and hand.kind == "hand":
                        self._stub_count_due(ts, hand, out)
                else:
                    out.append(CardPlaced(ts, hand.number, uid, label, zone, came_from, "floor"))
                if hand.kind == "hand" and hand.game_def.family == "stud":
                    self._stud_moved(hand, came_from, zone)  # STUD-013: a fold
                    self._stud_prompts(ts, hand, out)  # (a card from the burns on 7th counts too)
                elif hand.kind == "hand" and hand.game_def.family == "draw":
                    self._draw_prompts(ts, hand, out)
                elif hand.kind == "hand" and hand.game_def.family == "chin":
                    self._chin_placed(ts, hand, prev, zone, out)  # CHIN-001..003: the stacks' counts
            if hand.exposure_waiting is not None and prev is None and seat_of(zone) is not None:
                pressed_at = hand.exposure_waiting[1]
                hand.exposure_waiting = None  # the card the press was for is in: judge it now
                self._exposed(out, pressed_at, hand, "dealer", None, label)
            if prev is None and not hand.deal_over and seat_of(zone) is not None and hand.absent:
                if hand.game_def.family != "stud":  # DEAL-009: at the first card or the last (ABSENT_DEADLINE)
                    for f in absent_deadline(hand, self.settings.rules.absent_deadline):
                        self._flag_once(out, ts, hand, f, f"absent:{f.seat}")
                elif hand.hole_dealt == hand.hole_target:
                    self._stud_absent(ts, hand, out)  # STUD-011: the down cards only, once 3rd street is out
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

    def _arrival(self, ts: float, hand: Hand, uid: str, label: str, zone: str, same_cycle: frozenset[int],
                 out: list[Effect]) -> None:
        """A card off the stub (new to the hand) arrived in ``zone``."""
        rules = self.settings.rules
        if hand.kind == "highcard":
            self._draw_card(ts, hand, uid, label, zone, out)
            return
        if hand.kind in MODE_HANDS:  # the race-off, a table break's high card (tablectl.core.table_modes)
            self._mode_card(ts, hand, uid, label, zone, out)
            return
        if zone != "burn":
            self._flush(out, hand)
        seat = seat_of(zone)
        if seat is not None and hand.game_def.family == "stud" and hand.hole_dealt >= hand.hole_target:
            # a card of 4th-7th street: the street's burn came first (STUD-001, BURN-001)
            self._stud_stub_check(ts, hand, out)  # (7th street's first card, if neither tap nor burn)
            if seat in hand.absent:
                self._stud_absent_dealt(ts, hand, seat, out)  # STUD-011
            # (after a rebuild by 002's method 7th street is burned as any street: STUD-007)
            found = stud.on_seat_card(hand, seat, restubbed=_short_stub(hand) and not _scrambled(hand))
            if found is not None:
                self._flag_once(out, ts, hand, found, f"street:{stud.street_index(hand)}")
        elif seat is not None and hand.game_def.family == "draw" and draw.in_draws(hand):
            self._drawn_card(ts, hand, seat, out)  # DRAW-004: as many as it threw
        elif seat is not None and hand.game_def.family == "chin":
            self._chin_card(ts, hand, seat, out)  # stacks, not a deal in turn: no MISD-004..007 (CHIN-002)
        elif seat is not None:
            away = self._away(seat) if seat not in hand.seats else ""  # (MISD-005's words: a cash seat)
            finding = check_hole_card(hand, seat, same_cycle, rules.deal_count_fixes, away)
            if hand.owed.get(seat, 0) > 0:
                hand.owed[seat] -= 1
            if finding is not None and hand.deal_over and family_of(finding.code) is Family.MISDEAL:
                finding = late(finding, rules.late_fault)
            once = f"seat:{seat}" if finding is not None and name_of(finding.code) == "card_to_seat_not_dealt_in" \
                else f"seat:{seat}:{hand.dealt_to.get(seat, 0)}"  # MISD-005 once per seat; others once per card
            self._flag_once(out, ts, hand, finding, once)
        elif zone == "muck":
            if hand.penalty and not hand.deal_over:
                # DEAL-010: a penalised seat is dealt to the muck, in its place in the order
                seat = min((s for s in hand.order if s in hand.penalty),
                           key=lambda s: (hand.dealt_to.get(s, 0), hand.order.index(s)))
                hand.count_hole(uid, seat)
        elif zone in ("burn", "board"):
            self._end_deal(ts, hand, out)
            self._street_card(ts, hand, uid, label, zone, out)

    def _end_deal(self, ts: float, hand: Hand, out: list[Effect], closes_window: bool = True) -> None:
        """The initial deal is over (``sa``, ``round_done``, the first burn or board card, which
        also close the misdeal window, MISD-013; or the first fold, the pot pushed, the hand
        gathered, which do not): check its counts once (MISD-006/007)."""
        if hand.kind == "hand" and hand.game_def.family == "chin":
            self._chin_deal_over(ts, hand, out, play_over=not closes_window)
        elif hand.kind == "hand":
            for f in end_of_deal(hand, closes_window=closes_window):
                self._flag(out, ts, hand, f)

    def _flush(self, out: list[Effect], hand: Hand) -> None:
        """A prompt held for one event (BURN-001's missing burn, in case the burn was read late)."""
        found = hand.board.flush()
        if found is not None:
            self._flag(out, hand.deferred[1] if hand.deferred else hand.now, hand, found)
        hand.deferred = None

    def _draw_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
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
            self._next_button = winner
            self._last_positions = None
            self._flag(out, ts, hand, Finding("deal.button_by_high_card", "DEAL-011",
                                              f"seat {winner} has the high card ({drawn[winner]}): the button", winner))

    def _street_card(self, ts: float, hand: Hand, uid: str, label: str, zone: str, out: list[Effect]) -> None:
        pad = self.settings.rules.round_done_pad
        if pad is None:
            pad = self._taps_seen
        if hand.game_def.family == "chin":
            self._chin_no_board(ts, hand, zone, out)
            return
        if hand.game_def.family == "draw":  # (a seat that threw its whole hand has no card: not a fold)
            self._draw_burn(ts, hand, zone, out)
            return
        if len(hand.live_seats()) < 2 and not hand.misdeal:
            # BOARD-010: the hand is won; the cards that would have come are never shown
            self._flag_once(out, ts, hand, Finding("board.rabbit_hunt", "BOARD-010",
                                                   "the hand is over: no more cards (no rabbit hunting)"), "rabbit")
            return
        if hand.game_def.family == "stud":
            self._stud_street_card(ts, hand, zone, out)
            return
        board = hand.board
        if zone == "burn" and board.deferred is not None:
            # The street's first card came with no burn before it, and now a burn: pitched
            # first but read late (its evidence began first), or pitched late (BURN-001)?
            if self.tracker.since(uid) >= self.tracker.since(board.street_first):
                street = board.street
                self._flush(out, hand)
                board.late_burn_street = street  # said; this burn is that street's, late
        elif zone == "burn":
            self._flush(out, hand)
        short = board.size() - board.cards  # the current street's cards missing, if this burn ends it
        findings = hand.board.on_burn(uid, pad=pad) if zone == "burn" else hand.board.on_board(uid, label, pad=pad)
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

    def _stud_street_card(self, ts: float, hand: Hand, zone: str, out: list[Effect]) -> None:
        """A burn (one before each of 4th-7th street) or the one community card of a short stub
        (STUD-008) in a stud hand: there is no board otherwise."""
        if zone == Zone.BURN:
            self._stud_stub_check(ts, hand, out)  # (the burn of 7th street, if no tap came before it)
            if not _short_stub(hand):  # (after a rebuild the burn may be an old one: STUD-007/008)
                self._flag(out, ts, hand, stud.on_burn(hand))
            hand.board.burns_total += 1
        elif not hand.prompted("STUD-008") or hand.count("board") > 0:
            self._flag(out, ts, hand, Finding("deal.stud_board_card", "STUD-008",
                                              "a card in the middle: stud deals one only when the stub is short "
                                              "for 7th street (the community card)"))

    def _stud_prompts(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """After a seat's card in stud: the bring-in once 3rd street is out (STUD-002), the stub
        check once 6th street is (STUD-006..008). Each once a hand."""
        if hand.hole_dealt >= hand.hole_target and not hand.prompted("STUD-002"):
            seat = stud.bring_in_owner(hand)
            if seat is not None:
                card = stud.up_cards(hand, seat)[0]
                which = "highest" if hand.game_def.bring_in == "high" else "lowest"
                self._prompt(out, ts, hand, Finding("deal.bring_in", "STUD-002",
                                                    f"seat {seat} brings in: {card}, the {which} card showing", seat))
                self._stud_bring_in_passes(ts, hand, out)  # STUD-003: unless all in for the ante
        if not hand.prompted("STUD-005") and (pairs := stud.open_pairs(hand)):  # (the cheap test first)
            self._prompt(out, ts, hand, Finding("deal.open_pair", "STUD-005",
                                                f"open pair on 4th street (seat {pairs[0]}): the big bet is allowed",
                                                pairs[0]))
        street = stud.first_to_act_due(hand)
        if street is not None:
            seat = stud.stud_first_to_act(hand)
            if seat is not None:
                words = stud.showing_words(stud.up_cards(hand, seat))
                self._prompt(out, ts, hand, Finding("deal.first_to_act", "STUD-004",
                                                    f"{hand.game_def.streets[street].name} street: seat {seat} "
                                                    f"acts first ({words} showing)", seat))

    def _stud_stub_check(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """STUD-006, before 7th street is dealt: at the tap that ends 6th street's betting, else
        at 7th street's burn or first card. The players are those still in then (the betting on
        6th street may fold some). Counted every hand (STUD_SHORT_STUB_MIN: "compute always"),
        prompted when short, with its procedure (STUD-007/008); once a hand."""
        if hand.kind == "hand" and hand.game_def.family == "stud" and stud.sixth_street_out(hand) \
                and not _stub_checked(hand):
            if self._stud_seventh_from_reserve(ts, hand, out):  # STUD-010: the set-aside cards
                return
            players, stub_now = len(hand.live_seats()), hand.stub_count
            hand.notes.append(f"STUD-006: stub {stub_now} before 7th street; "
                              f"{players} players + 2 = {players + 2} needed")
            found = stud.short_stub(stub=stub_now, players=players, burns=hand.count("burn"),
                                    method=self.settings.rules.stud_short_stub_method)
            if found is not None:
                self._prompt(out, ts, hand, found)

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

    def _move(self, ts: float, hand: Hand, uid: str, label: str, prev: str, zone: str, out: list[Effect]) -> None:
        """A card on the table moved from ``prev`` to ``zone``."""
        if zone != "burn":
            self._flush(out, hand)
        if zone == Zone.MUCK and (folded := seat_of(prev)) is not None:  # issue 17 hook: MUCK-005/006
            for f in showdown_watch.on_muck(hand, folded, OddChipRules.of(self.settings.rules)):
                self._flag_once(out, ts, hand, f, f"winner:{prev}")
        if hand.game_def.family == "draw" and self._draw_move(ts, hand, uid, label, prev, zone, out):
            return
        if hand.game_def.family == "chin":  # (a fix from seat to seat is checked once it is placed)
            if zone in (Zone.BURN, Zone.BOARD):
                self._chin_no_board(ts, hand, zone, out)
            return
        if prev == "board":
            hand.board.on_leave(uid, zone)
        elif prev == "burn" and not _short_stub(hand):
            # (after a short stub's rebuild, STUD-007/008, the burns are in the stub again: 7th
            # street, its burn and its community card may come from them)
            self._flag(out, ts, hand, burn_moved(hand.pot_pushed, zone))
        elif zone == Zone.BURN and (seat := seat_of(prev)) is not None:
            self._flag(out, ts, hand, on_hole_left(hand, uid, seat, ts))  # an exposed card burned
        if prev == Zone.MUCK and (seat := seat_of(zone)) is not None:
            finding = retrieved(hand, uid, label, seat, self.settings.rules.muck_retrieval)
            if finding is None:
                hand.notes.append(f"MUCK-002: {label} back from the muck to {zone} (its own; dealer's call)")
            self._flag_once(out, ts, hand, finding, f"muck:{zone}")
        elif (prev == "muck" or (prev == "burn" and not _short_stub(hand))) and zone == "board":
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
            elif zone == "burn" and _short_stub(hand):
                hand.take_off(uid)  # gathered into the rebuilt stub (STUD-007/008): counted back in
            elif zone in (Zone.MUCK, Zone.BURN) and hand.game_def.family == "draw" and draw.in_draws(hand):
                hand.take_off(uid)  # gathered into a new stub (DRAW-005): counted back in, dealt again
                hand.draw_rebuilt = draw.draw_round(hand)
            elif seat is not None and hand.game_def.family == "stud" and uid not in arriving:
                self._stud_lifted(when, hand, uid, seat, out, arriving)  # STUD-013: an up card gone
        hand.left.clear()

    def _start_hand(self, ts: float, out: list[Effect]) -> Hand:
        number = self.hands_finished + 1
        seats, pos, joins = self._plan()
        redeal = self._redeal
        self._redeal = None
        game = redeal.game if redeal is not None else self.game  # (a re-deal replays its hand: MISD-014)
        game_def = game_of(game)
        hole = game_def.hole_cards
        if self.settings.event == "cash" and redeal is None and not self._highcard and self._mode_kind() is None:
            self._cash_blinds(seats, pos, joins)
        if game_def.family == "draw" and redeal is None and self._mode_kind() is None:
            seats = self._draw_sitting_out(seats, pos.bb)  # DRAW-002: an over-full table
        elif game_def.family == "chin" and self._mode_kind() is None and not self._highcard:
            seats, hole = self._chin_seats(seats, pos.button)  # CHIN-002: who gets a hand, one or two
        hand = Hand(number, game, hole, seats, pos.button, ts, positions=pos)
        hand.dealer = self.dealer
        kind = self._mode_kind()
        if self._highcard:
            self._highcard = False
            hand.kind = "highcard"
        elif kind is not None and redeal is None:
            hand.kind = kind  # a mode's deal: not a hand (its button and newcomers wait for the next)
        elif redeal is not None:
            hand.redeal_of = redeal.number
            hand.new_seats = {p.seat for p in self._deferred if p.name in (Pad.SEAT_IN, Pad.SEAT_POSTED)
                              and p.seat is not None and p.seat not in seats}
        else:
            self.seats = tuple(sorted(set(self.seats) | set(joins)))
            self.waiting -= set(joins)
            self._posted -= set(joins)
            hand.waiting = set(self.waiting)
        for ch in self.rack.changes:
            if ch.hand == number:  # RELIEF-002: every deck change is on the record, with its reason
                hand.notes.append(f"RELIEF-002: deck {ch.old} out, deck {ch.new} in ({ch.reason})")
        hand.absent = self.absent & set(seats)
        if self._all_in_next and hand.kind == "hand":
            # STUD-003: pressed before the first card (or all in for the ante in the misdealt hand
            # this one deals again: kept until a hand is played out, MISD-014)
            hand.all_in = self._all_in_next & set(seats)
            hand.notes.extend(f"seat {s} all in" for s in sorted(hand.all_in))
        hand.penalty = {s for s in self.penalty if s in seats}
        if hand.kind not in MODE_HANDS:
            self._next_button = None
        self.hand = hand
        self._figures_key = None
        out.append(HandStarted(ts, number, self.button, seats, game))
        hand.prompts.extend(self._pending_prompts)  # DEAL-007/008: told between hands
        self._pending_prompts.clear()
        if self._pending_alerts:
            hand.alerts.extend(self._pending_alerts)
            if any(a.code == "deck.new_setup" for a in self._pending_alerts):
                hand.flagged.add(("deck.new_setup", "new_setup"))  # told once, before the hand
            self._pending_alerts.clear()
        most = min(self.settings.rules.seats_max, hand.game_def.max_players)
        if hand.kind == "hand":
            self._hold_deal(ts, hand, out)  # BREAK-002: dealt while seats are open
        if len(seats) > most and hand.kind == "hand":  # DEAL-012: the house's limit, or the game's (STUD-001, DRAW-001)
            self._flag(out, ts, hand, Finding("deal.too_many_players", "DEAL-012",
                                              f"{len(seats)} seats dealt in; this game deals at most {most}"))
        self._game_started(ts, hand, out)  # MIXED-001: the last hand of a game
        return hand

    def _finish_hand(self, ts: float, out: list[Effect]) -> None:
        hand = self.hand
        assert hand is not None
        if hand.kind != "hand":  # a draw for the button, a mode's deal
            self._finish_draw(ts, hand, out)
            self._mode_gathered(hand)
            return
        self._flush(out, hand)
        self._end_deal(ts, hand, out, closes_window=False)  # a hand over before the flop was dealt too
        if not hand.misdeal and hand.game_def.family == "draw":
            self._draw_done(ts, hand, out)
        if not hand.misdeal and hand.game_def.family == "stud":
            self._stud_finish(ts, hand, out)  # STUD-010: four burns
        if not hand.misdeal:
            for f in hand.board.finish():  # BURN-006
                self._flag(out, ts, hand, f)
            self._all_in_next = set()  # STUD-003: the antes' all-ins were this hand's (a re-deal keeps them)
            for seat in sorted(hand.penalty):  # DEAL-010: a misdealt hand and its re-deal count once
                self.penalty[seat] -= 1
                if self.penalty[seat] <= 0:
                    del self.penalty[seat]
                    self._flag(out, ts, hand, Finding("deal.penalty_served", "DEAL-010",
                                                      f"seat {seat} has served its penalty", seat))
        self._game_finished(ts, hand, out)  # MIXED-001: counted; the next game after a game's last hand
        record = hand.record(ts, OddChipRules.of(self.settings.rules))  # issue 17 hook: the odd chip rules
        record["deck"] = hand.deck
        record["down"] = self.stub.down
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))
        if self.rack.rotate == "hand" and not hand.misdeal and hand.deck is not None:
            self._change_deck(ts, "rotation", out)  # SHUF-007: the other deck deals the next hand
        if hand.misdeal:
            self._redeal = hand  # MISD-014: the re-deal replays it; seat changes wait for it
            self._after_hand(ts, out)
            return
        # DEAL-004: the button moves once the pot is pushed; where to, _plan() says. After a
        # deal from a misplaced button that was played out, it moves on from where it was (MISD-015).
        self._last_positions = hand.played_positions()
        deferred, self._deferred = self._deferred, []
        for press in deferred:
            self._seat_press(press, out)
        self._after_hand(ts, out)  # FLOW-005: a break pressed during the hand

    def _finish_draw(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        record = hand.record(ts, OddChipRules.of(self.settings.rules))  # issue 17 hook: the odd chip rules
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))

    def _press(self, ev: ButtonPress) -> list[Effect]:
        out: list[Effect] = []
        if self._mode_press(ev, out):  # the modes and the open seats (tablectl.core.table_modes)
            return out
        if ev.name in ROSTER_PADS:
            self._seat_press(ev, out)
            return out
        if ev.name in DECK_PADS:
            self._deck_press(ev, out)
            return out
        hand = self.hand
        if ev.name == Pad.HIGHCARD and hand is None:
            self._highcard = True  # DEAL-011: the next cards draw for the button
            return out
        if hand is not None and hand.kind != "hand":
            return out
        if hand is None:
            game = self._redeal.game_def if self._redeal is not None else self.game_def  # (the next hand's)
            if ev.name == Pad.ALLIN and ev.seat is not None and game.family == "stud":
                self._all_in_next.add(ev.seat)  # STUD-003: all in for the ante, before the deal
            return out
        name, ts = ev.name, ev.ts
        if hand.left and name not in (Pad.MISDEAL, Pad.HAND_END):
            # a pad pressed while the hand goes on: what left the table before it left for good
            self._commit_left(hand, out)
        self._flush(out, hand)
        if name in (Pad.EXPOSED, Pad.EXPOSED_PLAYER, Pad.BOXED):
            kind = "player" if name == Pad.EXPOSED_PLAYER or (name == Pad.EXPOSED and ev.long) else \
                "boxed" if name == Pad.BOXED else "dealer"
            last_zone = hand.where.get(hand.last_card) if hand.last_card else None
            last = hand.labels.get(hand.last_card) if last_zone in ("board", "burn") else None  # type: ignore[arg-type]
            waiting = [u for u, z in self.tracker.pending_arrivals() if seat_of(z) is not None and u not in hand.where]
            if kind == "dealer" and waiting and not hand.deal_over:
                hand.exposure_waiting = (waiting[0], ts)  # the press beat the reader to the card
            else:
                self._exposed(out, ts, hand, kind, ev.seat, last)
        elif name in (Pad.SA, Pad.ROUND_DONE):
            was_open = not hand.deal_over
            self._end_deal(ts, hand, out)
            if was_open:
                hand.closed_by = name
            if name == Pad.ROUND_DONE:
                hand.board.on_round_done()
                self._taps_seen = True
                self._stud_stub_check(ts, hand, out)
        elif name == Pad.MISDEAL:
            if hand.deal_over and not hand.misdeal:  # MISD-013: the floor decides
                self._flag(out, ts, hand, Finding("misdeal.declared_late", "MISD-013",
                                                  "misdeal declared after substantial action", audience="floor"))
            hand.misdeal = True  # MISD-016: declared; the re-deal replays the hand (MISD-014)
        elif name == Pad.HAND_END:
            if hand.game_def.showdown:  # (Chinese poker: the players score each other, CHIN-004)
                for f in showdown_watch.on_hand_end(hand):  # issue 17 hook: SHOW-006 (showdown_watch)
                    self._flag(out, ts, hand, f)
            self._end_deal(ts, hand, out, closes_window=False)  # the pot is pushed: the deal is over
            hand.pot_pushed = True
        elif name == Pad.ALLIN and ev.seat is not None and hand.game_def.family == "stud":
            self._stud_allin_seat(ts, hand, ev.seat, out)  # a seat all in (STUD-003: for the ante)
        elif name in showdown_watch.PADS:  # issue 17 hook: SHOWDOWN, RUN_IT (showdown_watch)
            cash = self.settings.event == "cash"  # (SHOW-008: the bad beat, cash hold'em only)
            for f in showdown_watch.on_press(hand, name, OddChipRules.of(self.settings.rules), cash=cash):
                self._flag(out, ts, hand, f)
            if name == Pad.ALLIN and hand.game_def.family == "stud":
                self._stud_allin_called(ts, hand, out)  # STUD-012: face up until 7th
        return out


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
            if self._stud_exposed(ts, hand, out):
                return  # STUD-009: 7th street face up; STUD-010: an up card before the betting was done
        if kind == "dealer" and hand.game_def.family == "draw" and self._draw_exposed(ts, hand, out):
            return  # DRAW-003: a wheel card kept on the deal, or any card on the draw replaced
        self._flag(out, ts, hand, on_exposed(hand, kind, seat, last))


def _short_stub(hand: Hand) -> bool:
    """A stud hand told to rebuild its stub or deal a community card (STUD-007/008)."""
    return hand.prompted("STUD-007") or hand.prompted("STUD-008")


def _stub_checked(hand: Hand) -> bool:
    """STUD-006 was counted this hand: its note is in the record (prompted only when short)."""
    return any(n.startswith("STUD-006:") for n in hand.notes)


def _scrambled(hand: Hand) -> bool:
    """The short stub was rebuilt by 002's method (STUD-007: its own prompt's code)."""
    return any(p.code == stud.SCRAMBLE for p in hand.prompts)


_RANK = {"burn": 0, "board": 1}
#: the families whose cards in the middle are public: the flop games' board, stud's community card
_BOARD_FAMILIES = frozenset({"flop", "stud"})
_NO_SEATS: frozenset[int] = frozenset()


def _arrival_rank(move: tuple[str, str | None, str]) -> int:
    """Within one reader cycle: seats and the muck, then the burn, then the board."""
    return _RANK.get(move[2], -1)
