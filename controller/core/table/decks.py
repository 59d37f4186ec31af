"""Deck integrity: which card a tag is and whether it may be in play (DECK-005..007), the deck
pair and its changes (RELIEF-001/002, SHUF-007), the counts (the shuffler's, STUB-005; the
dealer's, STUB-001..004), and the dealer's one neutral prompt for every deck fault."""

from __future__ import annotations

from typing import Any

from controller.core.deck_rack import DeckRack, pair_of
from controller.core.effects import Effect, Prompt
from controller.core.events import ButtonPress, DeckSetup, ShufflerReport
from controller.core.hand import Hand
from controller.core.pads import Pad
from controller.core.registry import Deck, DeckRegistry, RegistryError, TagInfo
from controller.core.rules import Finding
from controller.core.rules.stub import StubCounts, stub_read as read_wrong
from controller.core.rules.deck import count_deck, count_findings, count_only, new_setup
from controller.core.state.checks import count as _count
from controller.core.part import Part


class DeckGuard(Part):
    """The decks: the deck-integrity part of the table."""

    SECTION = "decks"
    STATE = ("registry", "rack", "stub", "_last_report", "_retired_tags")
    HINTS = {"registry": DeckRegistry, "rack": DeckRack, "stub": StubCounts,
             "_last_report": tuple[str, int, tuple[str, ...] | None] | None, "_retired_tags": dict[str, TagInfo]}

    def __init__(self, table: Any, registry: DeckRegistry) -> None:
        super().__init__(table)
        settings = self.settings
        self.registry = registry
        pair = settings.pair or pair_of(list(registry.decks), settings.deck_in_play)
        self.rack = DeckRack(pair, settings.deck_in_play if settings.deck_in_play in pair else
                             (pair[0] if pair else None), rotate=settings.rules.rotate_decks)
        self.stub = StubCounts()
        self._last_report: tuple[str, int, tuple[str, ...] | None] | None = None
        self._retired_tags: dict[str, TagInfo] = {}  # tags of decks taken off this table (DECK-005)

    def link(self) -> None:
        alerts = self._t.alerts
        self._flag, self._flag_once, self._alert_once = alerts.flag, alerts.flag_once, alerts.alert_once
        self._prompt = alerts.prompt
        self._next_hand_number = self._t.dealing.next_hand_number

    @property
    def hand(self) -> Hand | None:
        return self._t.dealing.hand

    def check(self, where: str) -> None:
        _count(f"{where}.stub.down", self.stub.down)

    def label(self, uid: str, ts: float, out: list[Effect], seat: int | None = None) -> str:
        """The card a tag new to the hand is, and whether it may be in play (DECK-005..007);
        ``seat``, the seat it was read at (None off the seats), named by a foul card's alert."""
        info = self.registry.lookup(uid)
        hand = self.hand
        if info is None:
            old = self._retired_tags.get(uid)
            if old is not None:
                label = f"{old.card}@{old.deck}"
                self.deck_fault(out, ts, "deck.retired_card", uid, "DECK-005", label,
                                 f"{old.card} of deck {old.deck} ({old.back} back), taken off this table, "
                                 f"is in play again", seat)
                return label
            label = f"tag:{uid}"
            self.deck_fault(out, ts, "deck.unknown_tag", uid, "DECK-006", label,
                             f"tag {uid} belongs to no registered deck", seat)
            return label
        if hand is not None and hand.deck is None:
            self._adopt_deck(ts, hand, info.deck, out)
            self._t.flow.deck_adopted(ts, hand, out)  # DECK-009: a satellite's opening deck
        deck = hand.deck if hand is not None else self.rack.in_play
        if info.deck != deck:
            label = f"{info.card}@{info.deck}"
            self.deck_fault(out, ts, "deck.wrong_deck", uid, "DECK-006", label,
                             f"{info.card} of deck {info.deck} ({info.back} back) is in play; "
                             f"this hand is dealt from deck {deck}", seat)
            return label
        if uid in self.rack.missing.get(info.deck, ()):  # STUB-005: held out, and back
            self.deck_fault(out, ts, "deck.reintroduced_card", uid, "STUB-005", info.card,
                             f"{info.card} of deck {info.deck}, missing at the last count, is in play", seat)
        return info.card

    def deck_fault(self, out: list[Effect], ts: float, code: str, uid: str, rule: str, card: str,
                    message: str, seat: int | None = None) -> None:
        """A foul card: the floor is told what and where (``seat``: the seat it reached, if it
        did); the dealer only to change decks."""
        self._alert_once(out, ts, code, uid, rule=rule, audience="floor", card=card, message=message, seat=seat)
        self.new_setup(out, ts, rule)

    def new_setup(self, out: list[Effect], ts: float, rule: str) -> None:
        hand = self.hand
        if hand is not None:
            self._flag_once(out, ts, hand, new_setup(rule), "new_setup")
        elif not self._t.alerts.pending("deck.new_setup"):
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
            self.new_setup(out, ts, "STUB-004")
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

    def press(self, ev: ButtonPress, out: list[Effect]) -> None:
        rack, hand = self.rack, self.hand
        if ev.name == Pad.ACK:
            if self.stub.asked is not None:  # the dealer counted the stub, and it is right
                self.stub.answered()
                if hand is not None:
                    hand.notes.append(f"STUB-002: stub counted, right (down {self.stub.down})")
            return
        if ev.name == Pad.STUB_WRONG:  # STUB-004: the count is wrong: a sticky deck
            deck = hand.deck if hand is not None and hand.deck else rack.in_play
            self.stub.answered()
            expect = f" (it should hold {hand.stub_count})" if hand is not None else ""
            self._flag(out, ev.ts, hand, Finding("stub.sticky_deck", "STUB-004",
                                                 f"deck {deck}: the dealer's stub count is wrong{expect}: "
                                                 f"the cards are sticky", audience="floor"))
            if deck is not None:
                rack.block(deck, "the dealer's stub count was wrong")
                self.change_deck(ev.ts, "stub_count", out)
            self.new_setup(out, ev.ts, "STUB-004")
            return
        reason = "relief" if ev.name == Pad.RELIEF else (ev.reason or "setup")
        if ev.name == Pad.RELIEF:
            self.stub.relief()  # STUB-002: a new down, a new count
            # RELIEF-003: the incoming dealer deals from the next hand, by the name the floor
            # entered ahead; a relief nobody was named for leaves the down's dealer unknown
            self._t.roster.relief()
        else:
            self.stub.new_deck(self._next_hand_number())  # STUB-001: a new deck needs no count at once
        if reason in ("marked", "damaged") and rack.in_play is not None:
            rack.block(rack.in_play, f"taken out of play: {reason} card")
        self.change_deck(ev.ts, reason, out)

    def change_deck(self, ts: float, reason: str, out: list[Effect]) -> None:
        """The spare comes into play, from the next hand (RELIEF-001, RELIEF-002)."""
        change = self.rack.change(reason, ts=ts, hand=self._next_hand_number())
        if change is None:
            return
        if reason == "marked":  # RELIEF-002: a marked card is the floor's business
            self._flag(out, ts, self.hand, Finding("deck.changed", "RELIEF-002",
                                                   f"deck {change.old} out, deck {change.new} in: marked card",
                                                   audience="floor"))

    def stub_count_due(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """A hand reached the river: ask for the stub count if this down still needs one (a table
        with a stub spot reads the count instead: STUB-006, :meth:`stub_read`)."""
        if hand.misdeal or self.settings.zones.has_stub_spot or not self.stub.due(hand.number):
            return
        burns, board = hand.count("burn"), hand.count("board")
        hole = len(hand.where) - burns - board
        self._prompt(out, ts, hand, self.stub.ask(hand.number, players=len(hand.seats), hole=hole, burns=burns,
                                                  board=board))

    def stub_read(self, ts: float, hand: Hand, read: set[str], out: list[Effect]) -> None:
        """STUB-006, the free count: the tags read on the stub spot (``read``) against the cards of
        the hand's deck not out. Right, the down's count is done (STUB-001/002); wrong, the floor
        is told which cards, and the deck goes as a wrong count sends it (STUB-004: blocked, the
        spare in, "new setup"). A hand that set a card aside (STUD-010: read nowhere until 7th
        street is dealt from it) is not counted."""
        deck = self.registry.decks.get(hand.deck) if hand.deck is not None else None
        if deck is None or hand.reserve:
            return
        expected = {uid for uid in deck.cards if uid not in hand.where}
        missing, extra = expected - read, read - expected
        if not missing and not extra:
            self.stub.answered()
            hand.notes.append(f"STUB-006: the stub spot read {len(read)} cards, the stub the count says")
            return

        def named(uids: set[str]) -> list[str]:
            labels = []
            for uid in uids:
                info = self.registry.lookup(uid)
                labels.append(f"tag:{uid}" if info is None else info.card if info.deck == deck.id
                              else f"{info.card}@{info.deck}")
            return sorted(labels)

        self._flag(out, ts, hand, read_wrong(len(expected), named(missing), named(extra)))
        self.rack.missing[deck.id] = self.rack.missing.get(deck.id, set()) | missing  # (STUB-005: if dealt again)
        self.rack.block(deck.id, "the stub spot's count was wrong")
        self.change_deck(ts, "stub_count", out)
        self.new_setup(out, ts, "STUB-004")

    def on_shuffler_report(self, ev: ShufflerReport) -> list[Effect]:
        """Every shuffle cycle is a count (STUB-005); a deck's first is its check (DECK-001). It
        is the next deal's first shuffle too: a new level is said then (FLOW-001)."""
        out: list[Effect] = []
        key = (ev.device, ev.seq, ev.uids)
        if ev.seq and key == self._last_report:
            return out  # the same report again: a restarted link could not know it had it
        self._last_report = key
        deck = self._count_report(ev, out)
        self._t.tournament.shuffled(ev.ts, out)
        self._t.flow.shuffled(ev.ts, deck, out)  # DECK-009: a satellite's first shuffle
        return out

    def _count_report(self, ev: ShufflerReport, out: list[Effect]) -> str | None:
        """A shuffler's report, counted; the deck it was of (None: none registered, or retired)."""
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
            self.new_setup(out, ev.ts, "DECK-005")
            return None
        if count.ok:
            rack.found_whole(deck)
            if deck == rack.in_play:
                self.stub.answered()  # STUB-005: the shuffler counted for the dealer
            if self.hand is None and self._t.turns.game_def.family == "stud":
                # SHUF-006: the antes are taken once the shuffle is complete, before the cut (no
                # hand yet: the prompt is the console's, the hand's record starts at its first card)
                out.append(Prompt(ev.ts, "deal.antes", "the shuffle is complete: collect the antes, then cut",
                                  "SHUF-006", self._next_hand_number()))
            return deck
        for f in count_findings(count, rule=rule, source="the shuffler"):
            self._flag(out, ev.ts, self.hand, f)
        rack.block(deck, count.summary())
        cards = {c: u for u, c in self.registry.decks[deck].cards.items()} if deck in self.registry.decks else {}
        rack.missing[deck] = {cards[c] for c in count.missing if c in cards}
        if deck == rack.in_play:
            self.change_deck(ev.ts, "stub_count", out)
        self.new_setup(out, ev.ts, "STUB-004")
        return deck

    def on_deck_setup(self, ev: DeckSetup) -> list[Effect]:
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
