"""One hand: where its cards are, its street, its live figures and its record.

Cards are known by their UID here; :class:`Hand` also keeps each card's label for records
(``As`` for the deck in play, ``As@B`` for a card of the other deck, ``tag:UID`` for a tag
in no registered deck).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from controller.core.effects import Alert, Figures, alert_to_dict
from controller.core.games import GAMES_BY_NAME, Game, game_of
from controller.core.positions import Positions, initial_positions, next_live
from controller.core.families.draw import rules as draw
from controller.core.families.stud import rules as stud
from controller.core.families.flop.board import BoardState
from controller.core.settings import deal_order
from controller.core.showdown import OddChipRules
from controller.core.showdown import from_record as showdown_of_record
from controller.core.showdown.watch import hands_up
from controller.core.zones import ALL_ZONES, SEAT_ZONES, seat_of, seat_zone

DECK_SIZE = 52
_T = TypeVar("_T")
_ZONE_RANK: dict[str, int] = {z: i for i, z in enumerate(ALL_ZONES)}


class Hand:
    """The state of the hand in progress. Mutated only by :class:`controller.core.table.Table`."""

    # not state: figures derived from the zones, kept until a card moves or a zone fills or
    # empties (:meth:`kept`)
    _STATE_SKIP = ("_moved", "_zoned", "_memo")

    def __init__(self, number: int, game: str, hole_cards: int, seats: tuple[int, ...],
                 button: int, started: float, positions: Positions | None = None) -> None:
        self.number = number
        self.game = game
        self.hole_cards = hole_cards
        self.seats = seats
        self.button = button
        self.started = started
        self.dealer: str | None = None  # who deals it (RELIEF-003), when the floor named them
        self.order = deal_order(seats, button)
        self.positions: Positions = positions or initial_positions(seats, button)
        self.zones: dict[str, list[str]] = {}  # zone -> uids in arrival order
        self.where: dict[str, str] = {}  # uid -> last known zone
        self.labels: dict[str, str] = {}  # uid -> card label
        self.on_table: set[str] = set()  # uids read on the table now
        self.hole_dealt = 0  # cards that arrived at a seat from the stub
        self.dealt_to: dict[int, int] = {}  # seat -> cards it received from the stub (folds or not)
        self.deal_index: dict[str, int] = {}  # uid -> its place in the deal (1 = first card off)
        self.first_seat: dict[str, int] = {}  # uid -> the seat it was dealt to (MUCK-002)
        self.arrivals: list[int] = []  # seats in the order hole cards arrived (MISD-015)
        self.arrival_ts: list[float] = []  # and when (cards confirmed together came in any order)
        self.now = started  # the time of the event being applied
        self.exposure_waiting: tuple[str, float] | None = None  # pressed before the card was read
        self.deferred: tuple[Any, float] | None = None  # a prompt that waits one event (BURN-001)
        self.last_hole: str | None = None  # the hole card that arrived last
        self.last_card: str | None = None  # the card that arrived anywhere last
        # -- the initial deal and its misdeal window (docs/rules.md: MISD) --
        self.deal_over = False  # the window closed: sa, round_done, or the first burn/board card
        self.deal_counted = False  # the end-of-deal counts were checked (MISD-006/007), once
        self.closed_by: str | None = None
        self.misdeal = False  # the dealer declared one (MISD-016)
        self.exposed = 0  # cards exposed during the initial deal (dealer errors, boxed, off-table)
        self.boxed = 0
        self.allowance: dict[int, int] = {}  # seat -> replacement cards it is owed (MISD-010/011)
        self.exposed_from: dict[int, int] = {}  # seat -> exposed cards taken from it
        self.exposure_candidate: str | None = None  # pressed; the card is the last one dealt...
        self.exposure_resolved = True  # ...unless another hole card leaves the table first
        self.expected_burn: tuple[str | None, str] | None = None  # (uid or unknown, rule)
        self.owed: dict[int, int] = {}  # seat -> cards the dealer was told to add (MISD-007/010)
        self.dealt_button: int | None = None  # MISD-015: the button the deal actually went from
        # -- seats with a status (set by the table at the start) --
        self.absent: set[int] = set()  # DEAL-009
        self.penalty: set[int] = set()  # DEAL-010: dealt to the muck
        self.waiting: set[int] = set()  # DEAL-006: seated, not dealt in yet
        self.redeal_of: int | None = None  # MISD-014: the misdealt hand this one replays
        self.new_seats: set[int] = set()  # MISD-014: seated since the misdeal, not in the re-deal
        # -- the board and burns (docs/rules.md: BURN, BOARD) --
        self.board = BoardState()
        self.pot_pushed = False  # hand_end pressed (BURN-003)
        # -- the draws (DRAW-004/005: controller.core.families.draw.rules) --
        self.discards: dict[str, int] = {}  # uid -> the draw round it went from a seat to the muck in
        self.draw_checked = 0  # the last draw round whose counts were checked
        self.draw_rebuilt = 0  # the draw round in which the stub was rebuilt (0: none)
        # -- stud (controller/core/families/stud/part.py) --
        self.all_in: set[int] = set()  # seats the dealer pressed all in for (``allin`` with a seat: STUD-003)
        self.reserve: set[str] = set()  # up cards set aside before the betting was done (STUD-010)
        # -- the showdown (controller/core/showdown/watch.py, issue 17) --
        self.shown: dict[str, list[str]] | None = None  # the seats' and board's cards at the press
        # -- cards that left the table while the hand went on --
        self.left: dict[str, tuple[str, float]] = {}  # uid -> (zone, ts): gone since the last arrival
        self._moved = 0  # cards placed or taken off so far: what the kept figures were worked out at
        self._zoned = 0  # zones that filled or emptied so far: which seats hold cards changes with it
        self._memo: dict[str, tuple[Any, Any]] = {}  # name -> (its key, its value): :meth:`kept`
        self.off: dict[str, str] = {}  # uid -> zone it left: back on the stub, or off the table
        self.deck: str | None = None  # the deck it is dealt from (its first card's)
        self.kind = "hand"  # or "highcard": a draw for the button (DEAL-011), not a hand
        self.notes: list[str] = []  # what the record keeps that alerts nobody (MUCK-002 dealer's call)
        self.alerts: list[Alert] = []
        self.prompts: list[Any] = []  # routine prompts (controller.core.effects.Prompt): not faults
        self.flagged: set[tuple[str, str]] = set()  # (code, uid) already alerted this hand

    # -- changes -------------------------------------------------------------------------
    def place(self, uid: str, label: str, zone: str, *, count: bool = True) -> str | None:
        """Record that ``uid`` arrived in ``zone``; returns the zone it came from, if any.
        A card new to the hand at a seat is counted as dealt to it unless ``count`` is false."""
        prev = self.where.get(uid)
        self.last_card = uid
        if prev == zone:
            self.on_table.add(uid)
            return prev
        self._moved += 1
        if prev is not None:
            self.zones[prev].remove(uid)
            if not self.zones[prev]:
                del self.zones[prev]
                self._zoned += 1
        elif count and (seat := seat_of(zone)) is not None:
            self.count_hole(uid, seat)
        cards = self.zones.setdefault(zone, [])
        cards.append(uid)
        if len(cards) == 1:
            self._zoned += 1
        self.where[uid] = zone
        self.labels[uid] = label
        self.on_table.add(uid)
        return prev

    def count_hole(self, uid: str, seat: int) -> None:
        """Count a card off the stub as ``seat``'s (a penalised seat's goes to the muck)."""
        self.hole_dealt += 1
        self.dealt_to[seat] = self.dealt_to.get(seat, 0) + 1
        # (a card dealt again from a rebuilt stub, DRAW-005, keeps its first place)
        self.deal_index.setdefault(uid, self.hole_dealt)
        self.first_seat.setdefault(uid, seat)
        self.arrivals.append(seat)
        self.arrival_ts.append(self.now)
        self.last_hole = uid

    def take_off(self, uid: str) -> str:
        """``uid`` left the table for good (back on the stub, say): forget where it was."""
        zone = self.where.pop(uid)
        self._moved += 1
        self.zones[zone].remove(uid)
        if not self.zones[zone]:
            del self.zones[zone]
            self._zoned += 1
        self.on_table.discard(uid)
        self.off[uid] = zone
        return zone

    # -- derived figures -----------------------------------------------------------------
    def kept(self, name: str, key: Any, make: Callable[[Hand], _T]) -> _T:
        """``make(self)``, worked out again only when ``key`` changes: a figure derived from the
        zones and asked several times a card (the seats in, stud's street, the next card's
        zone...). ``key`` holds :attr:`_moved`, which every card placed or taken off changes
        (or :attr:`_zoned`, which every zone filled or emptied changes, for a figure that reads
        only which zones hold cards), and whatever else the figure reads that changes without a
        card moving (the burns)."""
        got = self._memo.get(name)
        if got is None or got[0] != key:
            got = self._memo[name] = (key, make(self))
        return got[1]

    def prompted(self, rule: str, seat: int | None = None) -> bool:
        """The hand has prompted ``rule`` (for ``seat``, if given): the rules told once a hand."""
        return any(p.rule == rule and (seat is None or p.seat == seat) for p in self.prompts)

    def count(self, zone: str) -> int:
        return len(self.zones.get(zone, ()))

    @property
    def stub_count(self) -> int:
        """52 minus every card out (STUB-003)."""
        return DECK_SIZE - len(self.where)

    @property
    def hole_target(self) -> int:
        return self.hole_cards * len(self.seats)

    def live_seats(self) -> list[int]:
        """The seats holding cards, in the deal's order. Asked a dozen times a card, so kept
        until a seat fills or empties (:meth:`kept`): the list is shared, read it and never
        change it."""
        return self.kept("live", self._zoned, Hand._live_seats)

    def _live_seats(self) -> list[int]:
        zones = self.zones  # (the seats' zones by index, no call)
        return [s for s in self.order if zones.get(SEAT_ZONES[s - 1])]

    def first_to_act(self) -> int | None:
        """DEAL-013: pre-flop the first live seat left of the big blind (heads-up the button),
        on later streets the first live seat left of the button (heads-up the big blind).
        Stud: the bring-in, then the showing hands (STUD-002/004)."""
        if self.kind in _NOT_A_HAND:
            return None
        game = self.game_def
        if game.family == "stud":
            return stud.stud_first_to_act(self)
        if game.first_to_act == "none":
            return None  # Chinese poker: no betting in turn (CHIN-001)
        # (asked at every card: kept until a seat fills or empties, a card is dealt, which
        # changes the seats dealt to, or the first betting round ends)
        return self.kept("first", (self._zoned, self.hole_dealt, self._first_round()), Hand._first_to_act)

    def _first_round(self) -> bool:
        """The first betting round is under way: the deal's (a draw game's rounds are its draws,
        a flop game's its streets, DEAL-013)."""
        return (self.board.burns_total if self.game_def.family == "draw" else self.board.street) == 0

    def _first_to_act(self) -> int | None:
        zones, dealt_to = self.zones, self.dealt_to  # (seat_zone(s) without the call)
        live = [s for s in self.order if zones.get(SEAT_ZONES[s - 1]) or not dealt_to.get(s)]
        if len(live) < 2:
            return None
        return next_live(self.positions.bb if self._first_round() else self.positions.button, live)

    def played_positions(self) -> Positions:
        """The button and blinds the hand was played from: its own, or after a deal from a
        misplaced button that was played out, that button's (MISD-015): the button moves on
        from there (DEAL-004)."""
        return self.positions if self.dealt_button is None else initial_positions(self.seats, self.dealt_button)

    @property
    def game_def(self) -> Game:
        """The game's definition: its deal template (:mod:`controller.core.games`)."""
        # (asked a dozen times a card: a lookup, not a call; a hand's game is always one)
        return GAMES_BY_NAME.get(self.game) or game_of(self.game)

    def street(self) -> str:
        """The street under way, by the template's names: ``deal`` while the initial deal goes
        on, then the first street's (``preflop``), then the street the board has reached (in
        stud, the street the burns have reached). A mode's deal is its kind (``race``...)."""
        if self.kind in _NOT_A_HAND:
            return self.kind
        game = self.game_def
        if game.family == "stud":
            return stud.street_name(self)
        if game.family == "draw":  # the deal's, then each draw round's from its burn on (DRAW-004)
            return game.streets[min(self.board.burns_total, len(game.streets) - 1)].name
        board = self.count("board")
        if board == 0 or not game.board_names:  # (a card in the middle of a draw game is a fault
            # its rule prompts, DRAW-001; it names no street)
            if self.hole_dealt < self.hole_target and self.count("burn") == 0:
                return "deal"
            return game.streets[0].name
        for name, end in zip(game.board_names, game.board_ends, strict=True):
            if board <= end:
                return name
        return game.board_names[-1]

    def next_to(self) -> str | None:
        """Where the next card should go: a seat during the deal, then burn/board (BURN-001),
        street by street as the template deals them (stud: a burn, then the seats; a draw game:
        each round's burn, then the first seat short of its cards, DRAW-004). A mode's deal follows no template, and
        Chinese poker's stacks go to every seat at once, in no order the reader can tell (CHIN-002):
        None, no zone is due first."""
        # (asked for the figures and again for the tracker's expectation after every card)
        return self.kept("next_to", (self._moved, self.board.burns_total, self.hole_dealt), Hand._next_to)

    def _next_to(self) -> str | None:
        game = self.game_def
        if self.kind in _NOT_A_HAND or game.family == "chin":
            return None
        if self.hole_dealt < self.hole_target:
            return seat_zone(self.order[self.hole_dealt % len(self.order)])
        if game.family == "stud":
            return stud.next_to(self)
        if game.family == "draw":  # each round's burn, then the seats' draws in order (DRAW-004)
            return draw.next_to(self)
        board, burns = self.count("board"), self.count("burn")
        if board >= game.board_total or len(self.live_seats()) < 2:
            return None
        ends = game.board_ends
        begun = sum(1 for end in ends if board > end) + (1 if board else 0)  # streets whose first card is out
        if begun and board < ends[begun - 1]:
            return "board"  # the street under way is short of its cards
        return "burn" if burns < game.burns_before[min(begun + 1, len(ends))] else "board"

    def figures(self, ts: float, key: tuple[Any, ...] | None = None) -> Figures:
        """The live figures (:class:`Figures`); ``key``, the :meth:`figures_key` just taken,
        spares counting the zones again."""
        counts = dict((key or self.figures_key())[0])
        # (made at every card: the fields in order, not by name)
        return Figures(ts, self.number, self.street(), counts, counts.get("burn", 0), counts.get("board", 0),
                       self.stub_count, self.next_to(), self.button, self.first_to_act(),
                       len(self.live_seats()))

    def figures_key(self) -> tuple[Any, ...]:
        """What the figures change with: each zone's count, the cards dealt, the street (asked
        after every card: the counts taken at C speed, no comprehension)."""
        zones = self.zones
        return (tuple(zip(zones, map(len, zones.values()), strict=True)), self.hole_dealt, self.board.street)

    def zone_labels(self) -> dict[str, list[str]]:
        """Each zone's cards as the record lists them: in the order they arrived, but the muck
        in the order its cards came off the stub as hole cards (``deal_index``), the cards that
        were never hole cards after them in arrival order. Cards folded together are confirmed
        in the muck in whichever reader cycle the noise allows, so their arrival order is not a
        function of the deal; their deal order is (docs/tracking.md, "Order within a zone")."""
        out = {}
        for z in sorted(self.zones, key=lambda z: _ZONE_RANK.get(z, 99)):
            uids = self.zones[z]
            if z == "muck":
                index = self.deal_index
                uids = sorted(uids, key=lambda u: index.get(u, _NOT_DEALT))  # stable: arrival order kept
            out[z] = [self.labels[u] for u in uids]
        return out

    def record(self, ended: float, rules: OddChipRules | None = None,
               dead: frozenset[int] = frozenset()) -> dict[str, Any]:
        """The finished hand as history and the simulator's report see it (floor only), with the
        hands still at the seats read when two or more are (``showdown``, SHOW-004); never the
        seats whose hands are ``dead`` on the clock (FLOW-004), wherever their cards lie."""
        record = {
            "hand": self.number,
            **({"kind": self.kind} if self.kind != "hand" else {}),
            "game": self.game,
            "seats": list(self.seats),
            "button": self.button,
            "blinds": {"sb": self.positions.sb if self.positions.live_sb(self.seats) else None,
                       "bb": self.positions.bb},
            "started": self.started,
            "ended": ended,
            **({"dealer": self.dealer} if self.dealer is not None else {}),
            "zones": self.zone_labels(),
            "stub_count": self.stub_count,
            "alerts": [alert_to_dict(a) for a in self.alerts],
            **({"prompts": [{"code": p.code, "rule": p.rule, "message": p.message, "ts": p.ts,
                             **({"seat": p.seat} if p.seat is not None else {}),
                             **({"game": p.game} if p.game is not None else {})}
                            for p in self.prompts]} if self.prompts else {}),
            **({"notes": list(self.notes)} if self.notes else {}),
            **({"misdeal": True} if self.misdeal else {}),
            **({"redeal_of": self.redeal_of} if self.redeal_of is not None else {}),
            **({"dealt_from_button": self.dealt_button} if self.dealt_button is not None else {}),
            **({"runs": self.board.runs} if self.board.runs > 1 else {}),  # BOARD-011
        }
        # issue 17: the hands as the showdown pad found them, else those still at the seats
        zones = hands_up(self, dead)
        if zones is None and dead:
            zones = {z: cs for z, cs in self.zone_labels().items() if seat_of(z) not in dead}
        read = record if zones is None else {**record, "zones": zones}
        sd = showdown_of_record(read, rules or OddChipRules())
        return record | ({"showdown": sd} if sd is not None else {})


_NOT_DEALT = 1 << 30  # sorts after every hole card's deal index
#: the kinds of the deals a ``mode`` press announces (controller/core/table/modes.py): no street, no
#: next card, nobody to act
_NOT_A_HAND = frozenset({"race", "table_break"})

__all__ = ["Hand", "DECK_SIZE", "seat_of"]
