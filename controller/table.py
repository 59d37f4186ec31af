"""The table's brain: ``Table.apply(event) -> [Effect]``. No I/O, no clock, no randomness.

Same events in, same effects out: the shell journals every event before applying it, so a
recorded shift replays exactly.

>>> from controller.registry import Deck, DeckRegistry
>>> reg = DeckRegistry(); reg.add(Deck("A", "red", {"U1": "As", "U2": "Kd"}))
>>> table = Table(TableSettings(seats=(1, 2), button=2, confirm_cycles=1, gone_cycles=2), reg)
>>> [type(e).__name__ for e in table.apply(ReaderCycle(1.0, "reader", 1, (("U1", 1, 200),)))]
['HandStarted', 'CardPlaced', 'Figures']
>>> table.hand.zone_labels()
{'seat:1': ['As']}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from controller.cards import is_card
from controller.effects import Alert, CardLeft, CardPlaced, Effect, HandFinished, HandStarted, Prompt
from controller.deck_rack import DeckRack, pair_of
from controller.events import (ButtonPress, DealerNamed, DeckSetup, DeviceStatus, Event, ReaderCycle,
                               ShufflerReport, ShufflerStatus, TableSetup, Tick)
from controller.hand import Hand
from controller.registry import Deck, DeckRegistry, RegistryError, TagInfo
from controller.positions import Positions, initial_positions, late_entry_waits, next_positions
from controller.rules import Finding
from controller.rules.board import burn_moved
from controller.rules.deck import count_deck, count_findings, count_only, new_setup
from controller.rules.stub import StubCounts
from controller.rules.misdeal import (absent_deadline, check_hole_card, end_of_deal, late, on_exposed,
                                      on_hole_back, on_hole_left)
from controller.rules.highcard import high_card
from controller.rules.muck import retrieved
from controller import showdown_watch
from controller.showdown import OddChipRules  # issue 17 hook
from controller.settings import TableSettings, deal_order
from controller.expectation import expectation
from controller.tracker import Tracker


class Table:
    """Applies events to the table's state and says what follows from each."""

    def __init__(self, settings: TableSettings, registry: DeckRegistry) -> None:
        self.settings = settings
        self.registry = registry
        self.tracker = Tracker(settings.zones.by_antenna.get, confirm_cycles=settings.confirm_cycles,
                               gone_cycles=settings.gone_cycles, strong_rssi=settings.strong_rssi,
                               levels=settings.rssi_levels)
        self._track = self.tracker.cycle
        self._clones = self.tracker.clones  # the same list: the tracker fills it, the table empties it
        pair = settings.pair or pair_of(list(registry.decks), settings.deck_in_play)
        self.rack = DeckRack(pair, settings.deck_in_play if settings.deck_in_play in pair else
                             (pair[0] if pair else None), rotate=settings.rules.rotate_decks)
        self.stub = StubCounts()
        # [state, since (wall), floor told, since (monotonic), its boot] while the shuffler is in fault
        self._shuffler_fault: list[Any] | None = None
        self.seats: tuple[int, ...] = tuple(settings.seats)
        self._next_button: int | None = settings.button  # set by hand for the next hand, if any
        self._last_positions: Positions | None = None  # the last hand's button and blinds
        self.waiting: set[int] = set()  # newcomers not dealt in yet (DEAL-006)
        self._posted: set[int] = set()  # newcomers who posted (DEAL-007)
        self.absent: set[int] = set()  # DEAL-009
        self.penalty: dict[int, int] = {}  # seat -> penalty hands left (DEAL-010)
        self._deferred: list[ButtonPress] = []  # seat changes waiting for the hand to end
        self._redeal: Hand | None = None  # the misdealt hand the next one replays (MISD-014)
        self._highcard = False  # the next cards are a draw for the button (DEAL-011)
        self._taps_seen = False  # a round_done press seen: this table taps (round_done_pad auto)
        self.hand: Hand | None = None
        self.hands_finished = 0
        self.last_record: dict[str, Any] | None = None
        self.dealer: str | None = None  # who deals the next hand (RELIEF-003): the floor names them
        self._next_dealer: str | None = None  # named ahead: dealing from the next relief press
        self.devices_offline: set[str] = set()
        self._pending_alerts: list[Alert] = []  # raised between hands; kept for the next hand
        self._figures_key: tuple[Any, ...] | None = None
        # ReaderCycle is handled in apply() itself; each handler takes the event of its key
        self._dispatch: dict[type[Event], Callable[[Any], list[Effect]]] = {
            DeviceStatus: self._on_device,
            ButtonPress: self._on_press,
            TableSetup: self._on_setup,
            ShufflerReport: self._on_shuffler_report,
            ShufflerStatus: self._on_shuffler_status,
            DeckSetup: self._on_deck_setup,
            Tick: self._on_tick,
            DealerNamed: self._on_dealer,
        }
        # device -> [since (wall), floor told, since (monotonic), its boot]: see _elapsed
        self._offline_since: dict[str, list[Any]] = {}
        self._last_report: tuple[str, int, tuple[str, ...] | None] | None = None
        self._retired_tags: dict[str, TagInfo] = {}  # tags of decks taken off this table (DECK-005)
        self._expect()

    # -- the one entry point -------------------------------------------------------------
    def apply(self, event: Event) -> list[Effect]:
        """Apply one event; return the effects it gives rise to, in order."""
        if type(event) is ReaderCycle:  # nearly every event: spare it the dispatch
            moves, departures = self._track(event.cycle, event.reads, event.heard)
            if not moves and not departures:
                if not self._clones:
                    return []
                return self._on_clones(event.ts, [])
            out = self._on_moves(event.ts, moves, departures)
            self._expect()
            return self._on_clones(event.ts, out) if self._clones else out
        out = self._dispatch[type(event)](event)
        self._expect()
        return out

    def _expect(self) -> None:
        """Tell the tracker what the table expects next (controller.expectation): after every
        event that may have changed the hand, never on a quiet reader cycle."""
        hand = self.hand
        first = None
        if hand is None and not self._highcard:
            seats, pos, _ = self._plan()
            first = deal_order(seats, pos.button)[0] if seats else None
        self.tracker.expect(*expectation(hand, first))

    # -- reader cycles ---------------------------------------------------------------------
    def _label(self, uid: str, ts: float, out: list[Effect]) -> str:
        """The card a tag new to the hand is, and whether it may be in play (DECK-005..007)."""
        info = self.registry.lookup(uid)
        hand = self.hand
        if info is None:
            old = self._retired_tags.get(uid)
            if old is not None:
                label = f"{old.card}@{old.deck}"
                self._deck_fault(out, ts, "deck.retired_card", uid, "DECK-005", label,
                                 f"{old.card} of deck {old.deck} ({old.back} back), taken off this table, "
                                 f"is in play again")
                return label
            label = f"tag:{uid}"
            self._deck_fault(out, ts, "deck.unknown_tag", uid, "DECK-006", label,
                             f"tag {uid} belongs to no registered deck")
            return label
        if hand is not None and hand.deck is None:
            self._adopt_deck(ts, hand, info.deck, out)
        deck = hand.deck if hand is not None else self.rack.in_play
        if info.deck != deck:
            label = f"{info.card}@{info.deck}"
            self._deck_fault(out, ts, "deck.wrong_deck", uid, "DECK-006", label,
                             f"{info.card} of deck {info.deck} ({info.back} back) is in play; "
                             f"this hand is dealt from deck {deck}")
            return label
        if uid in self.rack.missing.get(info.deck, ()):  # STUB-005: held out, and back
            self._deck_fault(out, ts, "deck.reintroduced_card", uid, "STUB-005", info.card,
                             f"{info.card} of deck {info.deck}, missing at the last count, is in play")
        return info.card

    def _deck_fault(self, out: list[Effect], ts: float, code: str, uid: str, rule: str, card: str,
                    message: str) -> None:
        """A foul card: the floor is told what and where; the dealer only to change decks."""
        self._alert_once(out, ts, code, uid, rule=rule, audience="floor", card=card, message=message)
        self._new_setup(out, ts, rule)

    def _new_setup(self, out: list[Effect], ts: float, rule: str) -> None:
        hand = self.hand
        if hand is not None:
            self._flag_once(out, ts, hand, new_setup(rule), "new_setup")
        elif not any(a.code == "deck.new_setup" for a in self._pending_alerts):
            self._flag(out, ts, None, new_setup(rule))

    def _adopt_deck(self, ts: float, hand: Hand, deck: str, out: list[Effect]) -> None:
        """The first card of a hand says which deck it is dealt from."""
        rack = self.rack
        expected = rack.in_play
        if deck in rack.blocked:
            hand.deck = deck  # its cards are labelled as they are; one alert for the hand
            self._flag(out, ts, hand, Finding("deck.blocked_deck_dealt", "STUB-004",
                                              f"hand {hand.number} is dealt from deck {deck}, which may not be "
                                              f"dealt: {rack.blocked[deck]}", audience="floor"))
            self._new_setup(out, ts, "STUB-004")
        elif deck == expected or expected is None:
            hand.deck = deck
        elif deck == rack.previous:
            # the decks were due to change places and the dealer dealt the old one again
            hand.deck = deck
            rule = "SHUF-007" if rack.last_reason == "rotation" else "RELIEF-001"
            self._flag(out, ts, hand, Finding("deck.not_rotated", rule,
                                              f"deck {expected} was due in; this hand is dealt from deck {deck}"))
        else:
            hand.deck = expected
            return
        rack.dealt(hand.deck)

    def _on_clones(self, ts: float, out: list[Effect]) -> list[Effect]:
        """DECK-007: one tag on two cards, heard at full strength in two places at once."""
        clones, self._clones[:] = list(self._clones), []
        for uid, zones in clones:
            info = self.registry.lookup(uid)
            label = info.card if info is not None else f"tag:{uid}"
            self._deck_fault(out, ts, "deck.cloned_tag", uid, "DECK-007", label,
                             f"the tag of {label} is on two cards: read at {zones[0]} and {zones[1]} at once")
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
                    self._commit_left(hand, out)
                for uid, zone, when in gone:
                    hand.left[uid] = (zone, when)
        # Cards confirmed in one cycle arrived in an order the reader cannot tell: the burn is
        # taken before the board, and seats are taken together for the first card (MISD-004).
        if len(moves) > 1:
            moves = sorted(moves, key=_arrival_rank)
        new_seats = frozenset(int(z[5:]) for u, p, z in moves if p is None and z.startswith("seat:"))
        folded = False
        for uid, _prev, zone in moves:
            hand = self.hand
            if hand is None:
                hand = self._start_hand(ts, out)
            label = hand.labels.get(uid) or self._label(uid, ts, out)
            hand.left.pop(uid, None)
            hand.now = ts
            prev = hand.where.get(uid)
            if prev is None:
                back = hand.off.pop(uid, None)
                if back == zone and zone.startswith("seat:") and hand.first_seat.get(uid) == int(zone[5:]):
                    hand.place(uid, label, zone, count=False)  # a hole card back where it was
                    on_hole_back(hand, uid, int(zone[5:]))
                    continue
                self._arrival(ts, hand, uid, label, zone, new_seats, out)
            elif prev != zone and hand.kind == "hand":
                self._move(ts, hand, uid, label, prev, zone, out)
                folded = folded or (prev.startswith("seat:") and zone == "muck")
            came_from = hand.place(uid, label, zone)
            if came_from != zone:
                # Only a board card of the deck in play is public; hole cards, burns, the muck
                # and any foreign card are the floor's. A public effect never carries the UID:
                # watching UIDs and cards together would teach anyone the deck's tags.
                if zone == "board" and came_from is None and is_card(label):
                    out.append(CardPlaced(ts, hand.number, "", label, zone, came_from, "public"))
                    if hand.count("board") == 5 and hand.kind == "hand":
                        self._stub_count_due(ts, hand, out)
                else:
                    out.append(CardPlaced(ts, hand.number, uid, label, zone, came_from, "floor"))
            if hand.exposure_waiting is not None and prev is None and zone.startswith("seat:"):
                pressed_at = hand.exposure_waiting[1]
                hand.exposure_waiting = None  # the card the press was for is in: judge it now
                self._flag(out, pressed_at, hand, on_exposed(hand, "dealer", None, label))
            if zone.startswith("seat:") and prev is None and not hand.deal_over \
                    and hand.hole_dealt == hand.hole_target and hand.absent:
                for f in absent_deadline(hand):
                    self._flag_once(out, ts, hand, f, f"absent:{f.seat}")
        hand = self.hand
        if folded and hand is not None:
            # A fold is an action: the deal is over (MISD-006/007), once every card of the
            # cycle is counted (a hole card confirmed with the fold is not taken for missing)
            self._end_deal(ts, hand, out, closes_window=False)
        if hand is not None:
            key = hand.figures_key()
            if key != self._figures_key:
                self._figures_key = key
                out.append(hand.figures(ts))
        return out

    def _arrival(self, ts: float, hand: Hand, uid: str, label: str, zone: str, same_cycle: frozenset[int],
                 out: list[Effect]) -> None:
        """A card off the stub (new to the hand) arrived in ``zone``."""
        rules = self.settings.rules
        if hand.kind == "highcard":
            self._draw_card(ts, hand, uid, label, zone, out)
            return
        if zone != "burn":
            self._flush(out, hand)
        if zone.startswith("seat:"):
            seat = int(zone[5:])
            finding = check_hole_card(hand, seat, same_cycle, rules.deal_count_fixes)
            if hand.owed.get(seat, 0) > 0:
                hand.owed[seat] -= 1
            if finding is not None and hand.deal_over and finding.code.startswith("misdeal."):
                finding = late(finding, rules.late_fault)
            self._flag_once(out, ts, hand, finding, f"seat:{seat}:{hand.dealt_to.get(seat, 0)}"
                            if finding is None or not finding.code.endswith("not_dealt_in") else f"seat:{seat}")
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
        if hand.kind == "hand":
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
        if not zone.startswith("seat:"):
            return
        seat = int(zone[5:])
        if hand.count(zone) >= 1 or seat not in hand.seats:
            self._flag(out, ts, hand, Finding(
                "deal.highcard_redo", "DEAL-011",
                f"two cards at seat {seat}, or a seat not in the draw: redo the draw", seat))
            return
        drawn = {int(z[5:]): hand.labels[u[0]] for z, u in hand.zones.items() if z.startswith("seat:") and u}
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
        if len(hand.live_seats()) < 2 and not hand.misdeal:
            # BOARD-010: the hand is won; the cards that would have come are never shown
            self._flag_once(out, ts, hand, Finding("board.rabbit_hunt", "BOARD-010",
                                                   "the hand is over: no more cards (no rabbit hunting)"), "rabbit")
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
        if prev.startswith("seat:") and zone == "muck":  # issue 17 hook: MUCK-005/006 (showdown_watch)
            for f in showdown_watch.on_muck(hand, int(prev[5:]), OddChipRules.of(self.settings.rules)):
                self._flag_once(out, ts, hand, f, f"winner:{prev}")
        if prev == "board":
            hand.board.on_leave(uid, zone)
        elif prev == "burn":
            self._flag(out, ts, hand, burn_moved(hand.pot_pushed, zone))
        elif prev.startswith("seat:") and zone == "burn":
            self._flag(out, ts, hand, on_hole_left(hand, uid, int(prev[5:]), ts))  # an exposed card burned
        if prev == "muck" and zone.startswith("seat:"):
            finding = retrieved(hand, uid, label, int(zone[5:]), self.settings.rules.muck_retrieval)
            if finding is None:
                hand.notes.append(f"MUCK-002: {label} back from the muck to {zone} (its own; dealer's call)")
            self._flag_once(out, ts, hand, finding, f"muck:{zone}")
        elif prev in ("burn", "muck") and zone == "board":
            self._flag(out, ts, hand, Finding("board.dead_card_on_board", "BOARD-007",
                                              f"{label} came from the {prev} to the board", card=label))
        if zone in ("burn", "board"):
            self._end_deal(ts, hand, out)
            self._street_card(ts, hand, uid, label, zone, out)

    def _commit_left(self, hand: Hand, out: list[Effect]) -> None:
        """Cards that left the table while the hand went on are off it for good."""
        for uid, (zone, when) in list(hand.left.items()):
            # Only where a card is expected to go (a hole card in the deal: off the table, MISD-011;
            # a premature or extra board card, back on the stub) is a lost read taken for a card
            # gone. Anywhere else it may be reads missed (a player holding his cards up): the card
            # stays where it was.
            exposed = hand.board.expected_burn is not None and hand.board.expected_burn[0] == uid
            if zone.startswith("seat:") and not hand.misdeal and (exposed or (
                    not hand.deal_over and hand.arrival_ts and (
                        hand.hole_dealt < hand.hole_target or when < hand.arrival_ts[-1]
                        or not hand.exposure_resolved))):
                # (the exposed card is expected to go; otherwise, once every hand is dealt, a
                # card unheard is a player looking at his cards)
                hand.take_off(uid)
                self._flag(out, when, hand, on_hole_left(hand, uid, int(zone[5:]), when))
            elif zone == "board" and (hand.board.premature is not None or hand.board.extra):
                hand.take_off(uid)
                hand.board.on_leave(uid, None)
        hand.left.clear()

    # -- hands and seats --------------------------------------------------------------------
    def _plan(self) -> tuple[tuple[int, ...], Positions, list[int]]:
        """The next hand's seats, positions and the newcomers who join it.

        A re-deal replays the misdealt hand: same seats, same button (MISD-014). Otherwise the
        button is set by hand, or moves by the dead-button rule (DEAL-004, DEAL-005); a
        newcomer joins unless DEAL-006 makes him wait.
        """
        if self._redeal is not None:
            return self._redeal.seats, self._redeal.positions, []
        roster = sorted(self.seats)
        everyone = tuple(sorted(set(roster) | self.waiting))
        if len(everyone) < 2:  # no hand can be dealt; cards dealt anyway are flagged seat by seat
            b = self._next_button or (self._last_positions.button if self._last_positions else self.settings.button)
            return everyone, Positions(b, b, b), sorted(self.waiting)
        if self._next_button is not None or self._last_positions is None or len(roster) < 2:
            return everyone, initial_positions(everyone, self._next_button or self.settings.button), \
                sorted(self.waiting)
        last = self._last_positions
        joins = [s for s in sorted(self.waiting)
                 if not late_entry_waits(s, last, roster + [s], self.settings.rules.late_entry, s in self._posted)]
        seats = tuple(sorted(roster + joins))
        return seats, next_positions(last, seats), joins

    def next_positions(self) -> Positions:
        """The button and blinds of the next hand (see :meth:`_plan`)."""
        return self._plan()[1]

    @property
    def button(self) -> int:
        """The button of the hand in progress, else of the next hand."""
        return self.hand.button if self.hand is not None else self.next_positions().button

    def _start_hand(self, ts: float, out: list[Effect]) -> Hand:
        number = self.hands_finished + 1
        seats, pos, joins = self._plan()
        redeal = self._redeal
        self._redeal = None
        hand = Hand(number, self.settings.game, self.settings.hole_cards, seats, pos.button, ts,
                    positions=pos)
        hand.dealer = self.dealer
        if self._highcard:
            self._highcard = False
            hand.kind = "highcard"
        elif redeal is not None:
            hand.redeal_of = redeal.number
            hand.new_seats = {p.seat for p in self._deferred if p.name in ("seat_in", "seat_posted")
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
        hand.penalty = {s for s in self.penalty if s in seats}
        self._next_button = None
        self.hand = hand
        self._figures_key = None
        out.append(HandStarted(ts, number, self.button, seats, self.settings.game))
        if self._pending_alerts:
            hand.alerts.extend(self._pending_alerts)
            if any(a.code == "deck.new_setup" for a in self._pending_alerts):
                hand.flagged.add(("deck.new_setup", "new_setup"))  # told once, before the hand
            self._pending_alerts.clear()
        if len(seats) > self.settings.rules.seats_max:  # DEAL-012
            self._flag(out, ts, hand, Finding("deal.too_many_players", "DEAL-012",
                                              f"{len(seats)} seats dealt in; this game deals at most "
                                              f"{self.settings.rules.seats_max}"))
        return hand

    def _finish_hand(self, ts: float, out: list[Effect]) -> None:
        hand = self.hand
        assert hand is not None
        if hand.kind == "highcard":
            self._finish_draw(ts, hand, out)
            return
        self._flush(out, hand)
        self._end_deal(ts, hand, out, closes_window=False)  # a hand over before the flop was dealt too
        if not hand.misdeal:
            for f in hand.board.finish():  # BURN-006
                self._flag(out, ts, hand, f)
            for seat in sorted(hand.penalty):  # DEAL-010: a misdealt hand and its re-deal count once
                self.penalty[seat] -= 1
                if self.penalty[seat] <= 0:
                    del self.penalty[seat]
                    self._flag(out, ts, hand, Finding("deal.penalty_served", "DEAL-010",
                                                      f"seat {seat} has served its penalty", seat))
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
            return
        # DEAL-004: the button moves once the pot is pushed; where to, _plan() says. After a
        # deal from a misplaced button that was played out, it moves on from where it was (MISD-015).
        self._last_positions = hand.positions if hand.dealt_button is None else \
            initial_positions(hand.seats, hand.dealt_button)
        deferred, self._deferred = self._deferred, []
        for press in deferred:
            self._seat_press(press, out)

    def _finish_draw(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        record = hand.record(ts, OddChipRules.of(self.settings.rules))  # issue 17 hook: the odd chip rules
        self.last_record = record
        self.hands_finished += 1
        self.hand = None
        out.append(HandFinished(ts, hand.number, record))

    # -- alerts ----------------------------------------------------------------------------
    def _alert(self, out: list[Effect], alert: Alert) -> None:
        dealer = self.hand.dealer if self.hand is not None else self.dealer
        if dealer is not None:  # RELIEF-003: the down's log names its alerts' dealer
            alert = replace(alert, dealer=dealer)
        if self.hand is not None:
            self.hand.alerts.append(alert)
        else:
            self._pending_alerts.append(alert)
        out.append(alert)

    def _flag(self, out: list[Effect], ts: float, hand: Hand | None, finding: Finding | None) -> None:
        """A rule's finding, as an alert (every flag is advisory: MISD-016). After the dealer
        declared a misdeal the hand is dead and nothing more is checked."""
        if finding is None or (hand is not None and hand.misdeal):
            return
        self._alert(out, Alert(ts=finding.ts if finding.ts is not None else ts, code=finding.code,
                               audience=finding.audience, message=finding.message, rule=finding.rule,
                               seat=finding.seat, card=finding.card, hand=hand.number if hand else None,
                               count=finding.count))

    def _flag_once(self, out: list[Effect], ts: float, hand: Hand, finding: Finding | None, key: str) -> None:
        if finding is not None and (finding.code, key) not in hand.flagged:
            hand.flagged.add((finding.code, key))
            self._flag(out, ts, hand, finding)

    def _alert_once(self, out: list[Effect], ts: float, code: str, key: str, **kw: Any) -> None:
        hand = self.hand
        if hand is not None:
            if (code, key) in hand.flagged:
                return
            hand.flagged.add((code, key))
        self._alert(out, Alert(ts=ts, code=code, hand=hand.number if hand else None, **kw))

    # -- other events ----------------------------------------------------------------------
    def _on_device(self, ev: DeviceStatus) -> list[Effect]:
        out: list[Effect] = []
        hand_no = self.hand.number if self.hand else None
        if not ev.online and ev.device not in self.devices_offline:
            self.devices_offline.add(ev.device)
            self._offline_since[ev.device] = [ev.ts, False, ev.mono, ev.boot]
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_offline", audience="dealer",
                                   hand=hand_no,
                                   message=f"{ev.device} offline" + (f" ({ev.detail})" if ev.detail else "")))
        elif ev.online and ev.device in self.devices_offline:
            self.devices_offline.discard(ev.device)
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_online", audience="dealer",
                                   hand=hand_no, message=f"{ev.device} back online"))
            if self._offline_since.pop(ev.device, [0, False])[1]:  # the floor was told it went
                self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_back", audience="floor",
                                       hand=hand_no, message=f"{ev.device} is back"))
        return out

    def _on_press(self, ev: ButtonPress) -> list[Effect]:
        out = self._press(ev)
        if ev.name == "floor":  # the dealer calls the floor: nothing changes at the table, the floor's
            # screen shows the call until someone answers it (its ack: docs/floor.md)
            self._alert(out, Alert(ts=ev.ts, code="floor.call", audience="floor", message="the dealer calls the floor",
                                   hand=self.hand.number if self.hand is not None else None))
        return out

    def _press(self, ev: ButtonPress) -> list[Effect]:
        out: list[Effect] = []
        if ev.name.startswith("seat_"):
            self._seat_press(ev, out)
            return out
        if ev.name in ("relief", "new_deck", "stub_wrong", "ack"):
            self._deck_press(ev, out)
            return out
        hand = self.hand
        if ev.name == "highcard" and hand is None:
            self._highcard = True  # DEAL-011: the next cards draw for the button
            return out
        if hand is not None and hand.kind != "hand":
            return out
        if hand is None:
            return out
        name, ts = ev.name, ev.ts
        if hand.left and name not in ("misdeal", "hand_end"):
            # a pad pressed while the hand goes on: what left the table before it left for good
            self._commit_left(hand, out)
        self._flush(out, hand)
        if name in ("exposed", "exposed_player", "boxed"):
            kind = "player" if name == "exposed_player" or (name == "exposed" and ev.long) else \
                "boxed" if name == "boxed" else "dealer"
            last_zone = hand.where.get(hand.last_card) if hand.last_card else None
            last = hand.labels.get(hand.last_card) if last_zone in ("board", "burn") else None  # type: ignore[arg-type]
            waiting = [u for u, z in self.tracker.pending_arrivals() if z.startswith("seat:") and u not in hand.where]
            if kind == "dealer" and waiting and not hand.deal_over:
                hand.exposure_waiting = (waiting[0], ts)  # the press beat the reader to the card
            else:
                self._flag(out, ts, hand, on_exposed(hand, kind, ev.seat, last))
        elif name in ("sa", "round_done"):
            was_open = not hand.deal_over
            self._end_deal(ts, hand, out)
            if was_open:
                hand.closed_by = name
            if name == "round_done":
                hand.board.on_round_done()
                self._taps_seen = True
        elif name == "misdeal":
            if hand.deal_over and not hand.misdeal:  # MISD-013: the floor decides
                self._flag(out, ts, hand, Finding("misdeal.declared_late", "MISD-013",
                                                  "misdeal declared after substantial action", audience="floor"))
            hand.misdeal = True  # MISD-016: declared; the re-deal replays the hand (MISD-014)
        elif name == "hand_end":
            for f in showdown_watch.on_hand_end(hand):  # issue 17 hook: SHOW-006 (showdown_watch)
                self._flag(out, ts, hand, f)
            self._end_deal(ts, hand, out, closes_window=False)  # the pot is pushed: the deal is over
            hand.pot_pushed = True
        elif name in showdown_watch.PADS:  # issue 17 hook: SHOWDOWN, RUN_IT (showdown_watch)
            for f in showdown_watch.on_press(hand, name, OddChipRules.of(self.settings.rules)):
                self._flag(out, ts, hand, f)
        return out

    # -- decks, stub counts and the shuffler (DECK, STUB, SHUF, RELIEF) ------------------------
    def _next_hand_number(self) -> int:
        return self.hand.number + 1 if self.hand is not None else self.hands_finished + 1

    def _deck_press(self, ev: ButtonPress, out: list[Effect]) -> None:
        rack, hand = self.rack, self.hand
        if ev.name == "ack":
            if self.stub.asked is not None:  # the dealer counted the stub, and it is right
                self.stub.answered()
                if hand is not None:
                    hand.notes.append(f"STUB-002: stub counted, right (down {self.stub.down})")
            return
        if ev.name == "stub_wrong":  # STUB-004: the count is wrong: a sticky deck
            deck = hand.deck if hand is not None and hand.deck else rack.in_play
            self.stub.answered()
            expect = f" (it should hold {hand.stub_count})" if hand is not None else ""
            self._flag(out, ev.ts, hand, Finding("stub.sticky_deck", "STUB-004",
                                                 f"deck {deck}: the dealer's stub count is wrong{expect}: "
                                                 f"the cards are sticky", audience="floor"))
            if deck is not None:
                rack.block(deck, "the dealer's stub count was wrong")
                self._change_deck(ev.ts, "stub_count", out)
            self._new_setup(out, ev.ts, "STUB-004")
            return
        reason = "relief" if ev.name == "relief" else (ev.reason or "setup")
        if ev.name == "relief":
            self.stub.relief()  # STUB-002: a new down, a new count
            # RELIEF-003: the incoming dealer deals from the next hand, by the name the floor
            # entered ahead; a relief nobody was named for leaves the down's dealer unknown
            self.dealer, self._next_dealer = self._next_dealer, None
        else:
            self.stub.new_deck(self._next_hand_number())  # STUB-001: a new deck needs no count at once
        if reason in ("marked", "damaged") and rack.in_play is not None:
            rack.block(rack.in_play, f"taken out of play: {reason} card")
        self._change_deck(ev.ts, reason, out)

    def _change_deck(self, ts: float, reason: str, out: list[Effect]) -> None:
        """The spare comes into play, from the next hand (RELIEF-001, RELIEF-002)."""
        change = self.rack.change(reason, ts=ts, hand=self._next_hand_number())
        if change is None:
            return
        if reason == "marked":  # RELIEF-002: a marked card is the floor's business
            self._flag(out, ts, self.hand, Finding("deck.changed", "RELIEF-002",
                                                   f"deck {change.old} out, deck {change.new} in: marked card",
                                                   audience="floor"))

    def _stub_count_due(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """A hand reached the river: ask for the stub count if this down still needs one."""
        if hand.misdeal or not self.stub.due(hand.number):
            return
        burns, board = hand.count("burn"), hand.count("board")
        hole = len(hand.where) - burns - board
        f = self.stub.ask(hand.number, players=len(hand.seats), hole=hole, burns=burns, board=board)
        prompt = Prompt(ts, f.code, f.message, f.rule, hand.number)
        hand.prompts.append(prompt)
        out.append(prompt)

    def _on_tick(self, ev: Tick) -> list[Effect]:
        """A device gone for ``offline_floor_after`` seconds is the floor's to know (hot-plug)."""
        out: list[Effect] = []
        for device, state in sorted(self._offline_since.items()):
            if state[1]:
                continue
            elapsed = _elapsed(state, 0, ev)
            if elapsed is not None and elapsed >= self.settings.rules.offline_floor_after:
                state[1] = True
                self._alert(out, Alert(ts=ev.ts, code=f"device.{device}_still_offline", audience="floor",
                                       hand=self.hand.number if self.hand else None,
                                       message=f"{device} offline for {elapsed:.0f} s: check its cable"))
        return out

    def _on_shuffler_report(self, ev: ShufflerReport) -> list[Effect]:
        """Every shuffle cycle is a count (STUB-005); a deck's first is its check (DECK-001)."""
        out: list[Effect] = []
        key = (ev.device, ev.seq, ev.uids)
        if ev.seq and key == self._last_report:
            return out  # the same report again: a restarted link could not know it had it
        self._last_report = key
        rack = self.rack
        if ev.uids is not None:
            count = count_deck(ev.uids, self.registry)
        else:
            count = count_only(ev.count, rack.in_play)
        deck = count.deck
        rule = "DECK-001" if deck not in rack.verified else "STUB-005"
        if deck is None or deck in rack.retired:
            what = "no registered deck" if deck is None else f"deck {deck}, taken off this table"
            self._flag(out, ev.ts, self.hand, Finding("deck.unknown_deck", "DECK-005",
                                                      f"the shuffler holds {ev.count} cards of {what}",
                                                      audience="floor"))
            self._new_setup(out, ev.ts, "DECK-005")
            return out
        if count.ok:
            rack.found_whole(deck)
            if deck == rack.in_play:
                self.stub.answered()  # STUB-005: the shuffler counted for the dealer
            return out
        for f in count_findings(count, rule=rule, source="the shuffler"):
            self._flag(out, ev.ts, self.hand, f)
        rack.block(deck, count.summary())
        cards = {c: u for u, c in self.registry.decks[deck].cards.items()} if deck in self.registry.decks else {}
        rack.missing[deck] = {cards[c] for c in count.missing if c in cards}
        if deck == rack.in_play:
            self._change_deck(ev.ts, "stub_count", out)
        self._new_setup(out, ev.ts, "STUB-004")
        return out

    def _on_deck_setup(self, ev: DeckSetup) -> list[Effect]:
        """A new pair replaces the old (DECK-003); the old pair's tags are retired (DECK-005)."""
        out: list[Effect] = []
        registry = DeckRegistry()
        try:
            for deck_id, back, cards in ev.decks:
                registry.add(Deck(deck_id, back, dict(cards)))
        except RegistryError as exc:  # (the shell checks a setup before it sends it)
            self._flag(out, ev.ts, self.hand, Finding("deck.setup_refused", "DECK-005", str(exc), audience="floor"))
            return out
        for deck in self.registry.decks.values():
            for uid, card in deck.cards.items():
                if registry.lookup(uid) is None:
                    self._retired_tags[uid] = TagInfo(uid, card, deck.id, deck.back)
        retired = set(self.registry.decks) - set(registry.decks)
        self.registry = registry
        pair = pair_of(list(registry.decks), ev.in_play)
        self.rack = DeckRack(pair, ev.in_play if ev.in_play in pair else (pair[0] if pair else None),
                             rotate=self.settings.rules.rotate_decks, retired=self.rack.retired | retired,
                             changes=self.rack.changes)
        self.stub.new_deck(self._next_hand_number())  # STUB-001: a fresh deck needs no count at once
        return out

    def _on_shuffler_status(self, ev: ShufflerStatus) -> list[Effect]:
        """A jam, an open door or an error prompts the dealer (SHUF-004); if it lasts
        ``shuffler_floor_after`` seconds, the floor is told."""
        out: list[Effect] = []
        fault = self._shuffler_fault
        if ev.state not in ("jam", "door_open", "error"):
            if fault is not None:
                self._shuffler_fault = None
                self._flag(out, ev.ts, self.hand, Finding("shuffler.cleared", "SHUF-004",
                                                          f"{ev.device}: {ev.state} again"))
            return out
        if fault is None or fault[0] != ev.state:
            self._shuffler_fault = [ev.state, ev.ts, False, ev.mono, ev.boot]
            words = {"jam": "jammed: clear it, wash the deck and run it again",
                     "door_open": "door open: close it",
                     "error": f"error {ev.code if ev.code is not None else ''}".strip() + ": see its display"}
            self._flag(out, ev.ts, self.hand, Finding(f"shuffler.{ev.state}", "SHUF-004",
                                                      f"{ev.device} {words[ev.state]}"))
        elif not fault[2] and (elapsed := _elapsed(fault, 1, ev)) is not None \
                and elapsed >= self.settings.rules.shuffler_floor_after:
            fault[2] = True
            self._flag(out, ev.ts, self.hand, Finding("shuffler.fault_persists", "SHUF-004",
                                                      f"{ev.device}: {ev.state} for {elapsed:.0f} s",
                                                      audience="floor"))
        return out

    def _seat_press(self, ev: ButtonPress, out: list[Effect]) -> None:
        """Seats in and out (DEAL-005..010). A change to a seat in the hand under way waits for
        the hand to end (and a misdealt hand's for its re-deal: MISD-014)."""
        seat, hand = ev.seat, self.hand
        if seat is None:
            return
        name = ev.name
        if name == "seat_absent":  # DEAL-009: still dealt; mucked at the deadline
            if seat not in self.seats:
                return  # nobody sits there
            self.absent.add(seat)
            if hand is not None and not hand.deal_over:
                hand.absent.add(seat)
            return
        if name == "seat_penalty":  # DEAL-010: dealt to the muck for ``hands`` hands
            self.penalty[seat] = ev.hands or 1
            if hand is not None and hand.hole_dealt == 0 and seat in hand.seats:
                hand.penalty.add(seat)
            return
        if name == "seat_in" and seat in self.seats:  # back at his seat
            self.absent.discard(seat)
            if hand is not None:
                hand.absent.discard(seat)
            return
        if hand is not None or self._redeal is not None:
            self._deferred.append(ev)
            return
        if name == "seat_out":
            self.seats = tuple(s for s in self.seats if s != seat)
            if len(self.seats) < 2:
                self._flag(out, ev.ts, None, Finding("deal.table_short", "DEAL-012",
                                                     f"{len(self.seats)} seat left: no hand can be dealt",
                                                     audience="floor"))
            for group in (self.waiting, self.absent, self._posted):
                group.discard(seat)
            self.penalty.pop(seat, None)
        elif name in ("seat_in", "seat_posted"):
            self.waiting.add(seat)
            if name == "seat_posted":
                self._posted.add(seat)
            if seat not in self._plan()[0]:
                self._flag(out, ev.ts, None, Finding("deal.seat_waits", "DEAL-006",
                                                     f"seat {seat} waits for the button to pass", seat))

    def _on_setup(self, ev: TableSetup) -> list[Effect]:
        """The floor sets the seats (and the button, or lets the daemon move it). Without a
        button, seats new to the table are newcomers under DEAL-006."""
        seats = set(ev.seats)
        if ev.button is not None:
            self._next_button = ev.button
            self.seats, self.waiting = tuple(sorted(seats)), set()
        else:
            self.waiting = (self.waiting | (seats - set(self.seats))) & seats
            self.seats = tuple(sorted(seats & set(self.seats)))
        self._redeal = None  # the floor's word overrides a pending re-deal
        return []

    def _on_dealer(self, ev: DealerNamed) -> list[Effect]:
        """The floor names a dealer (RELIEF-003): now, or at the next relief press. A hand in
        progress keeps its dealer (RELIEF-001: the outgoing dealer finishes it); one that has
        none yet (the first name of a shift, given mid-hand) takes this one."""
        if ev.at_relief:
            self._next_dealer = ev.name
            return []
        self.dealer = ev.name
        if self.hand is not None and self.hand.dealer is None:
            self.hand.dealer = ev.name
        return []

    # -- views -----------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        """The whole table for a private view (floor or technician): includes hole cards."""
        hand = self.hand
        snap: dict[str, Any] = {
            "seats": list(self.seats), "button": self.button, "hands_finished": self.hands_finished,
            "devices_offline": sorted(self.devices_offline), "hand": None,
            "decks": self.rack.state(), "down": self.stub.down,
        }
        if hand is not None:
            snap["hand"] = {
                "number": hand.number, "button": hand.button, "street": hand.street(),
                "zones": hand.zone_labels(), "stub_count": hand.stub_count,
                "next_to": hand.next_to(), "alerts": len(hand.alerts),
                "first_to_act": hand.first_to_act(), "players": len(hand.live_seats()),
            }
        return snap

    # -- the state a journal snapshot keeps (controller.state, docs/journal.md) -------------------
    _STATE_SKIP = ("settings", "_track", "_clones", "_dispatch")  # the configuration's, or links

    def to_state(self) -> dict[str, Any]:
        """The whole table as JSON values, versioned: see :mod:`controller.state`."""
        from controller.state import table_to_state

        return table_to_state(self)

    @classmethod
    def from_state(cls, state: Any, settings: TableSettings) -> Table:
        """The table ``state`` holds, every value checked; raises one StateError otherwise."""
        from controller.state import table_from_state

        table: Table = table_from_state(cls, state, settings)
        table._expect()  # (not state: it follows from the hand)
        return table


def _elapsed(timer: list[Any], at: int, ev: Tick | ShufflerStatus) -> float | None:
    """Seconds from a timer's start to ``ev``, on the monotonic clock (wall time jumps when a
    Pi's clock is set). ``timer`` ends with its start's ``[..., mono, boot]``; ``timer[at]`` is
    its start's wall time. None when the two readings cannot be compared: a reading of another
    boot (or of none: a timer started by a journal row from before monotonic readings) restarts
    the timer from ``ev``'s, so the floor is told late rather than wrongly. Only where neither
    has a reading (rows journalled before the fields existed, replayed) is it wall time, as it
    was when those rows were first applied.

    >>> timer = [100.0, False, 5.0, "b1"]
    >>> _elapsed(timer, 0, Tick(ts=100.0 + 365 * 86400, mono=6.0, boot="b1"))  # the wall clock set a year on
    1.0
    >>> _elapsed(timer, 0, Tick(ts=7.0, mono=70.0, boot="b2")), timer  # another boot: counted afresh
    (None, [100.0, False, 70.0, 'b2'])
    >>> _elapsed([100.0, False, None, None], 0, Tick(ts=130.0))  # rows of an earlier release
    30.0
    """
    since_mono, since_boot = timer[-2], timer[-1]
    if ev.mono is None:
        return ev.ts - float(timer[at]) if since_mono is None else None
    if since_mono is None or since_boot != ev.boot or ev.mono < since_mono:
        timer[-2], timer[-1] = ev.mono, ev.boot
        return None
    return ev.mono - float(since_mono)


_RANK = {"burn": 0, "board": 1}


def _arrival_rank(move: tuple[str, str | None, str]) -> int:
    """Within one reader cycle: seats and the muck, then the burn, then the board."""
    return _RANK.get(move[2], -1)
