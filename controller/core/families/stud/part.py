"""Stud at the table (STUD-001..013): the part of the table the dealing hands a stud hand's
moments to; the rules themselves are :mod:`controller.core.families.stud.rules` and
:mod:`controller.core.families.stud.procedures`. The dealing calls these where a stud hand differs
from a flop game (the streets' burns and the community card, the bring-in and who acts first,
the stub check before 7th street) and where it meets one of the guides' incidents (a seat's
``allin``, an ``exposed`` press after 3rd street, an absent seat, a card set aside and dealt
again, a fold, an up card lifted, the hand's end).

What a hand keeps for them is on the hand: ``all_in`` (the seats pressed all in) and ``reserve``
(the cards set aside, STUD-010). The part keeps the seats all in for the ante pressed before a
hand's first card (``_all_in_next``): a re-deal keeps them (MISD-014).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from controller.core.effects import Effect
from controller.core.families.stud import procedures as proc
from controller.core.families.stud import rules as stud
from controller.core.rules import Finding
from controller.core.part import Part
from controller.core.zones import Zone, seat_of

if TYPE_CHECKING:  # (a type here, no import at run time: the hand imports the families' rules)
    from controller.core.hand import Hand


class StudRounds(Part):
    """Stud's streets and incidents: the stud family's part of the table."""

    SECTION = "stud"
    STATE = ("_all_in_next",)
    HINTS = {"_all_in_next": set[int]}
    SEATS = ("_all_in_next",)

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        # seats all in for the ante, pressed before the first card or on 3rd street before its
        # action (STUD-003); kept until a hand is played out, so a re-deal keeps them (MISD-014)
        self._all_in_next: set[int] = set()

    def link(self) -> None:
        alerts = self._t.alerts
        self._flag, self._flag_once, self._prompt = alerts.flag, alerts.flag_once, alerts.prompt

    # -- the seats all in for the ante, across a re-deal (STUD-003, MISD-014) --------------------
    def all_in_before_deal(self, seat: int) -> None:
        """``allin`` with a seat before the first card: all in for the ante."""
        self._all_in_next.add(seat)

    def all_in_dealt(self, hand: Hand) -> None:
        """A hand starts: the seats pressed all in for the ante are all in in it (STUD-003;
        or all in for the ante in the misdealt hand this one deals again: MISD-014)."""
        if self._all_in_next and hand.kind == "hand":
            hand.all_in = self._all_in_next & set(hand.seats)
            hand.notes.extend(f"seat {s} all in" for s in sorted(hand.all_in))

    def played_out(self) -> None:
        """A hand was played out: its antes' all-ins were its own (a re-deal keeps them)."""
        self._all_in_next = set()

    # -- the streets ------------------------------------------------------------------------------
    def street_seat_card(self, ts: float, hand: Hand, seat: int, out: list[Effect]) -> None:
        """A card of 4th-7th street at ``seat`` (before it is counted): the street's burn came
        first (STUD-001, BURN-001)."""
        self.stub_check(ts, hand, out)  # (7th street's first card, if neither tap nor burn)
        if seat in hand.absent:
            self.absent_dealt(ts, hand, seat, out)  # STUD-011
        # (after a rebuild by 002's method 7th street is burned as any street: STUD-007)
        found = stud.on_seat_card(hand, seat, restubbed=short_stub(hand) and not scrambled(hand))
        if found is not None:
            self._flag_once(out, ts, hand, found, f"street:{stud.street_index(hand)}")

    def street_card(self, ts: float, hand: Hand, zone: str, out: list[Effect]) -> None:
        """A burn (one before each of 4th-7th street) or the one community card of a short stub
        (STUD-008) in a stud hand: there is no board otherwise."""
        if zone == Zone.BURN:
            self.stub_check(ts, hand, out)  # (the burn of 7th street, if no tap came before it)
            if not short_stub(hand):  # (after a rebuild the burn may be an old one: STUD-007/008)
                self._flag(out, ts, hand, stud.on_burn(hand))
            hand.board.burns_total += 1
        elif not hand.prompted("STUD-008") or hand.count("board") > 0:
            self._flag(out, ts, hand, Finding("deal.stud_board_card", "STUD-008",
                                              "a card in the middle: stud deals one only when the stub is short "
                                              "for 7th street (the community card)"))


    def prompts(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """After a seat's card in stud: the bring-in once 3rd street is out (STUD-002), the stub
        check once 6th street is (STUD-006..008). Each once a hand."""
        if hand.hole_dealt >= hand.hole_target and not hand.prompted("STUD-002"):
            seat = stud.bring_in_owner(hand)
            if seat is not None:
                card = stud.up_cards(hand, seat)[0]
                which = "highest" if hand.game_def.bring_in == "high" else "lowest"
                self._prompt(out, ts, hand, Finding("deal.bring_in", "STUD-002",
                                                    f"seat {seat} brings in: {card}, the {which} card showing", seat))
                self.bring_in_passes(ts, hand, out)  # STUD-003: unless all in for the ante
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


    def stub_check(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """STUD-006, before 7th street is dealt: at the tap that ends 6th street's betting, else
        at 7th street's burn or first card. The players are those still in then (the betting on
        6th street may fold some). Counted every hand (STUD_SHORT_STUB_MIN: "compute always"),
        prompted when short, with its procedure (STUD-007/008); once a hand."""
        if hand.kind == "hand" and hand.game_def.family == "stud" and stud.sixth_street_out(hand) \
                and not _stub_checked(hand):
            if self.seventh_from_reserve(ts, hand, out):  # STUD-010: the set-aside cards
                return
            players, stub_now = len(hand.live_seats()), hand.stub_count
            hand.notes.append(f"STUD-006: stub {stub_now} before 7th street; "
                              f"{players} players + 2 = {players + 2} needed")
            found = stud.short_stub(stub=stub_now, players=players, burns=hand.count("burn"),
                                    method=self.settings.rules.stud_short_stub_method)
            if found is not None:
                self._prompt(out, ts, hand, found)


    # -- STUD-003: the bring-in all in for the ante ----------------------------------------------
    def allin_seat(self, ts: float, hand: Hand, seat: int, out: list[Effect]) -> None:
        """``allin`` with a seat: that seat is all in. On 3rd street before any action (no tap,
        no burn, no fold) it is all in for the ante: if it holds the bring-in card, the duty
        passes clockwise (STUD-003). Later it is only noted (the seatless press says the action
        is complete: SHOW-005, STUD-012)."""
        hand.all_in.add(seat)
        hand.notes.append(f"seat {seat} all in")
        if stud.street_index(hand) == 0 and hand.closed_by is None and hand.board.burns_total == 0:
            self._all_in_next.add(seat)  # all in for the ante: in a re-deal of this hand too (MISD-014)
            self.bring_in_passes(ts, hand, out)

    def bring_in_passes(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """Once 3rd street is out: the owner of the bring-in card all in for the ante passes the
        duty to the next player clockwise (once a hand)."""
        owner = stud.bring_in_owner(hand)
        if owner is None or owner not in hand.all_in or hand.prompted("STUD-003"):
            return
        duty = stud.bring_in_seat(hand)
        if duty is not None:
            self._prompt(out, ts, hand, proc.bring_in_passes(owner, duty))

    # -- STUD-009 / STUD-010: an exposed press after 3rd street ----------------------------------
    def exposed(self, ts: float, hand: Hand, out: list[Effect]) -> bool:
        """The dealer's ``exposed`` press in a stud hand after 3rd street, the last card dealt
        being a seat's: its 7th card (dealt face up by mistake: STUD-009), or an up card of
        4th-6th street (an up card is face up anyway: the press says it came before the betting
        was done, STUD-010). True if it was one of those."""
        uid = hand.last_card
        seat = seat_of(hand.where.get(uid, "")) if uid is not None else None
        if uid is None or seat is None or hand.hole_dealt < hand.hole_target or uid in hand.reserve:
            return False
        held = stud.seat_cards(hand, seat)
        place = len(held) - 1 if held and held[-1] == uid else None
        pattern = hand.game_def.up_pattern
        if place is None or place < hand.game_def.cards_after[0]:
            return False
        if place == len(pattern) - 1:  # the 7th card
            if not hand.prompted("STUD-009"):
                live = hand.live_seats()
                self._prompt(out, ts, hand, proc.seventh_face_up(seat, first=bool(live) and live[0] == seat))
            return True
        if not pattern[place]:
            return False
        street = hand.game_def.streets[stud.street_index(hand)].name
        self._prompt(out, ts, hand, proc.set_aside(seat, street))
        # The dealer sets it aside, in front of the tray: off every antenna, off the seat's count
        # now (its replacement is the seat's card of the street), and never to come back before
        # 7th street's new stub.
        hand.reserve.add(uid)
        hand.left.pop(uid, None)
        hand.take_off(uid)
        return True

    def reserve_back(self, ts: float, hand: Hand, uid: str, zone: str, out: list[Effect]) -> None:
        """A set-aside card (STUD-010) dealt again (before it is counted): only in 7th street,
        its burn or its cards; before it, the dealer is told."""
        seat = seat_of(zone)
        if seat is not None:
            seventh = len(stud.seat_cards(hand, seat)) >= hand.game_def.cards_after[-2]
        else:
            seventh = zone == Zone.BURN and hand.board.burns_total >= len(hand.game_def.streets) - 2
        if not seventh:
            self._flag_once(out, ts, hand, proc.reserve_early(seat), f"reserve:{uid}")

    def seventh_from_reserve(self, ts: float, hand: Hand, out: list[Effect]) -> bool:
        """STUD-006 after a card was set aside (STUD-010): 7th street is dealt from the
        set-aside cards, scrambled into a new stub; the stub's count is not the check (the cards
        dealt face down onto the set-aside card are read nowhere). True if so."""
        if not hand.prompted("STUD-010"):
            return False
        hand.notes.append("STUD-006: 7th street from the set-aside cards (STUD-010)")
        self._prompt(out, ts, hand, proc.new_stub_from_set_aside())
        return True

    # -- STUD-011: the absent seat ----------------------------------------------------------------
    def absent(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """3rd street is out: each absent seat's down cards to the muck, its up card left (it
        counts for the bring-in: STUD-002). Which seats are absent then follows ABSENT_DEADLINE
        (a player back after the first card is still absent under ``first_card``: the roster)."""
        for seat in hand.order:
            if seat in hand.absent and not hand.prompted("STUD-011", seat):
                self._prompt(out, ts, hand, proc.absent_down_cards(seat))

    def absent_dealt(self, ts: float, hand: Hand, seat: int, out: list[Effect]) -> None:
        """A card of 4th street or later to an absent seat (before it is counted)."""
        brought = next((p.seat for p in reversed(hand.prompts) if p.rule in ("STUD-003", "STUD-002")), None)
        found = proc.absent_dealt(seat, bring_in=brought == seat, method=self.settings.rules.stud_absent_bringin)
        self._flag_once(out, ts, hand, found, f"absent:{seat}")

    # -- STUD-012: all in and called ---------------------------------------------------------------
    def allin_called(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """The seatless ``allin`` (all in, the action complete) before 7th street: the rest face
        up until 7th (once a hand)."""
        if stud.street_index(hand) < len(hand.game_def.streets) - 1 and len(hand.live_seats()) >= 2 \
                and not stud.community_card(hand) and not hand.prompted("STUD-012"):
            self._prompt(out, ts, hand, proc.face_up_until_seventh())

    # -- STUD-013: folds and lifted cards ------------------------------------------------------------
    def moved(self, hand: Hand, came_from: str | None, zone: str) -> None:
        """A card moved (after it is placed): the seat's last card into the muck is its fold."""
        seat = seat_of(came_from) if came_from is not None else None
        if seat is not None and zone == Zone.MUCK and not stud.seat_cards(hand, seat):
            cards = sum(1 for u in hand.zones.get(Zone.MUCK, ()) if hand.first_seat.get(u) == seat)
            hand.notes.append(proc.folded_note(seat, cards))

    def lifted(self, ts: float, hand: Hand, uid: str, seat: int, out: list[Effect],
                     arriving: frozenset[str] = frozenset()) -> None:
        """A seat's card left its antenna for good (the tracker's confirmed departure, not
        seen arriving anywhere since) while the hand is live: an up card is in sight on the
        table until the fold, so one gone is a player who lifted it (a down card is his to
        look at). Not after the showdown or the pot (the hands are turned up, gathered), nor
        while the seat's other cards are arriving somewhere (``arriving``: the seat's fold, its
        cards reaching the muck a few cycles apart)."""
        zone = hand.where.get(uid)
        if hand.misdeal or hand.pot_pushed or hand.shown is not None or hand.hole_dealt < hand.hole_target \
                or any(hand.where.get(u) == zone for u in arriving) \
                or uid not in stud.up_uids(hand, seat) or hand.prompted("STUD-013", seat):
            return
        self._prompt(out, ts, hand, proc.lifted(seat))

    # -- the hand's end ---------------------------------------------------------------------------
    def finish(self, ts: float, hand: Hand, out: list[Effect]) -> None:
        """STUD-010: a hand that set a card aside and reached 7th street burned four cards (a
        burn fault already told is not told again)."""
        if not hand.prompted("STUD-010") or any(a.code.startswith("burn.") for a in hand.alerts):
            return
        last = hand.game_def.cards_after[-1]
        if any(len(stud.seat_cards(hand, s)) >= last for s in hand.seats) or stud.community_card(hand):
            self._flag(out, ts, hand, proc.four_burns(hand.board.burns_total))


def short_stub(hand: Hand) -> bool:
    """A stud hand told to rebuild its stub or deal a community card (STUD-007/008)."""
    return hand.prompted("STUD-007") or hand.prompted("STUD-008")


def _stub_checked(hand: Hand) -> bool:
    """STUD-006 was counted this hand: its note is in the record (prompted only when short)."""
    return any(n.startswith("STUD-006:") for n in hand.notes)


def scrambled(hand: Hand) -> bool:
    """The short stub was rebuilt by 002's method (STUD-007: its own prompt's code)."""
    return any(p.code == stud.SCRAMBLE for p in hand.prompts)
