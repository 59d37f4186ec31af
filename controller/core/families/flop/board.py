"""Burns and the board in flop games (docs/rules.md: BURN, BOARD).

A street is a burn and then its board cards: 3, 1, 1 (BURN-001). The reader sees cards arrive
on the burn spot and the board, in order; the dealer's ``round_done`` pad says the betting
round before a street is over. From those two the state machine below tells:

- a normal street: ``round_done``, a burn, the street's cards;
- a street without its burn (BURN-001): ``round_done``, then a board card with no burn;
- two burns before one street (BURN-001);
- a premature street (BOARD-004..006): a burn and board card with no ``round_done``;
- one card too many for the street just dealt (a four-card flop, BOARD-002; two cards on the
  turn or river, BOARD-003): a board card with neither a new burn nor ``round_done``.

It then follows the procedure it prompted: after a premature street the cards go back to the
stub, the street is dealt again and the next one (for the river: the river itself) comes with no
burn (BOARD-004..007); the extra card of a four-card flop or a two-card turn becomes the next
burn (BOARD-002/003).

>>> b = BoardState()
>>> b.round_done = True
>>> b.on_burn("u1", pad=True)
[]
>>> [f.code for f in b.on_board("u2", "3c", pad=True) + b.on_board("u3", "4c", pad=True)]
[]
>>> [f.code for f in b.on_board("u4", "5c", pad=True) + b.on_board("u5", "6c", pad=True)]
['board.four_card_flop']
"""

from __future__ import annotations

from dataclasses import dataclass, field

from controller.core.games import HOLDEM
from controller.core.rules import Finding

# Every flop game deals the board of hold'em's template (controller.core.games): 3, 1, 1
SIZES = HOLDEM.board_sizes  # board cards of the flop, the turn, the river
NAMES = tuple(s.name for s in HOLDEM.streets if s.board)  # ("flop", "turn", "river")
BURNS = HOLDEM.burns  # BURN-006: a flop game that reaches the river burns three cards

_PREMATURE = {  # the seeds' procedure (003 §Premature Flop, Turn or River)
    1: ("BOARD-004", "premature flop: finish the betting, put the flop back on the stub, burn, deal a "
                     "new flop; shuffle the old flop into the stub; the turn comes with no burn"),
    2: ("BOARD-005", "premature turn: finish the betting, put the turn back on the stub, burn, deal the "
                     "next card as the turn; shuffle the old turn into the stub; no burn before the river"),
    3: ("BOARD-006", "premature river: finish the betting, shuffle the river back into the stub, deal "
                     "the river from it with no burn"),
}


@dataclass
class _Premature:
    street: int
    uids: set[str]


@dataclass
class BoardState:
    """Where the board stands. Mutated only through its methods, by the table."""

    street: int = 0  # streets begun: 1 flop, 2 turn, 3 river
    cards: int = 0  # board cards of the current street on the board now
    burns_since: int = 0  # burns since the current street began: the next street's
    burns_total: int = 0
    round_done: bool = False  # pressed since the current street's cards came
    no_burn_street: int = 0  # a street that comes without a burn (after a premature card)
    extra: int = 0  # cards too many on the current street (BOARD-002/003), not yet taken off
    premature: _Premature | None = None
    #: uid -> (rule, street): may not come back to the board (until that street is dealt again)
    banned: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    #: the card the next burn must be, and the rule that says so (None: a card not yet known)
    expected_burn: tuple[str | None, str] | None = None
    burn_alerted: bool = False  # a BURN-001 prompt was raised this hand (BURN-006 then stays quiet)
    late_burn_street: int = 0  # a street dealt without its burn: a burn next is that burn, late
    deferred: Finding | None = None  # BURN-001 missing burn, said at the next event (flush)
    street_first: str = ""  # the first card of the current street
    #: BOARD-011 (the ``run_it`` pad): the runs agreed (1: the board is dealt once), the street
    #: the runs start after (0: the whole board, 1: turn and river, 2: the river) and the runs
    #: begun so far
    runs: int = 1
    run_from: int = 0
    runs_dealt: int = 1

    def flush(self) -> Finding | None:
        """Something other than a burn followed a street dealt without its burn: say so now."""
        found, self.deferred, self.late_burn_street = self.deferred, None, 0
        if found is not None:
            self.burn_alerted = True
        return found

    def size(self) -> int:
        return SIZES[self.street - 1] if self.street else 0

    def _done(self) -> bool:
        """The betting before the next street is over: tapped, or the board is being run more
        than once (BOARD-011: an all-in with the action complete has no more betting)."""
        return self.round_done or self.runs > 1

    # -- events ------------------------------------------------------------------------------
    def on_round_done(self) -> None:
        self.round_done = True

    def tap_spent(self) -> None:
        """A stud or draw game's burn: the tap before it was its (the next burn wants its own,
        BURN-002). A flop game's street ends at its first board card instead (:meth:`on_board`),
        whose premature check still reads the tap."""
        self.round_done = False

    def run_it(self, max_runs: int = 3) -> Finding | None:
        """BOARD-011: the players agreed to run the rest of the board once more (the ``run_it``
        pad: pressed once, twice; again, three times). The runs start after the streets dealt
        so far. None, or the prompt when it cannot be: a complete board, more than ``max_runs``.

        >>> b = BoardState(street=1, cards=3)
        >>> b.run_it(), b.run_it(), (b.runs, b.run_from)
        (None, None, (3, 1))
        >>> b.run_it().code
        'board.run_it_refused'
        """
        if self.runs >= max_runs or (self.runs == 1 and self.street >= 3):
            why = f"at most {max_runs} runs" if self.runs >= max_runs else "the board is complete"
            return Finding("board.run_it_refused", "BOARD-011", f"run it again? {why}: deal no more board cards")
        if self.runs == 1:
            self.run_from = self.street if not self.street or self.cards >= self.size() else self.street - 1
        self.runs += 1
        return None

    def _next_run(self) -> bool:
        """The board card after a run's river begins the next run (BOARD-011); True if so."""
        if self.runs_dealt >= self.runs or self.street < 3 or self.cards < self.size() or self.premature:
            return False
        self.runs_dealt += 1
        self.street = self.run_from
        self.cards = self.size()
        return True

    def on_burn(self, uid: str, *, pad: bool) -> list[Finding]:
        """A card arrived on the burn spot (off the stub, or moved there)."""
        out: list[Finding] = []
        self.burns_total += 1
        self.burns_since += 1
        if self.expected_burn is not None:
            want, rule = self.expected_burn
            self.expected_burn = None
            if want is not None and uid != want:
                if rule in ("MISD-010", "MISD-011"):
                    out.append(Finding("burn.not_the_exposed_card", rule,
                                       "this burn is not the exposed card: the exposed card is the burn"))
                else:
                    out.append(Finding("board.extra_card_not_burned", rule,
                                       "this burn is not the card taken off the board: that card is the burn"))
        if self.late_burn_street and self.late_burn_street == self.street:
            # the street's own burn, next after its first card (read late, or pitched late: the
            # table has said which, see flush())
            self.late_burn_street, self.deferred = 0, None
            self.burns_since -= 1
            return out
        if self.street >= 3:
            return out  # a burn after the river: BURN-006 at the end of the hand
        if self.street >= 1 and self.cards < self.size() and self.premature is None:
            out.append(Finding("board.street_short", "BOARD-001",
                               f"the {NAMES[self.street - 1]} has {self.cards} of {self.size()} cards"))
            self.cards = self.size()  # the dealer has moved on: the next card is the next street's
        if self.no_burn_street == self.street + 1 and self.burns_since == 1:
            out.append(Finding("board.burn_after_reshuffle", "BOARD-007",
                               f"no burn before this {NAMES[self.street]}: it comes from the reshuffled stub"))
            self.burn_alerted = True
        elif self.burns_since == 2:
            out.append(Finding("burn.double", "BURN-001",
                               f"two burns before the {NAMES[self.street]}: one burn per street"))
            self.burn_alerted = True
        return out

    def on_board(self, uid: str, label: str, *, pad: bool, run_burns: bool = True) -> list[Finding]:
        """A card arrived on the board (off the stub, or moved there). ``run_burns`` (BOARD-011's
        RUN_BURNS): a further run's streets come after a burn each, as the first run's; False: with
        none (no burn is missing, and the card after a street is the next street's).

        >>> b = BoardState(street=3, cards=1, runs=2, run_from=1)
        >>> b.on_board("t2", "Ah", pad=True, run_burns=False), b.on_board("r2", "Ac", pad=True, run_burns=False)
        ([], [])
        >>> (b.runs_dealt, b.street, b.deferred, b.extra)
        (2, 3, None, 0)
        """
        out: list[Finding] = []
        ban = self.banned.get(uid)
        if ban is not None and (ban[1] is None or self.street < ban[1]
                                or (self.street == ban[1] and self.cards < self.size())):
            out.append(Finding("board.card_back_on_board", ban[0],
                               f"{label} was taken off the board and may not come back to it yet", card=label))
        self._next_run()
        unburned = self.runs_dealt > 1 and not run_burns  # a further run dealt with no burns (RUN_BURNS)
        fresh = self.burns_since > 0 or self.no_burn_street == self.street + 1 or unburned
        if self.street and self.cards >= self.size() and not fresh and (not self._done() or not pad):
            # one card too many for the street just dealt
            self.extra += 1
            self.cards += 1
            if self.street == 1:
                out.append(Finding("board.four_card_flop", "BOARD-002",
                                   "four-card flop: turn the four face down and scramble them; one drawn at "
                                   "random is the turn's burn, the other three are the flop"))
            else:
                out.append(Finding("board.two_cards_on_street", "BOARD-003",
                                   f"two cards on the {NAMES[self.street - 1]}: turn both down and scramble; "
                                   f"one is the {NAMES[self.street - 1]}, the other goes back on the stub"
                                   + (" as the river's burn" if self.street == 2 else "")))
            return out
        if self.street == 0 or self.cards >= self.size():
            if self.street >= 3:
                out.append(Finding("board.too_many_cards", "BOARD-001", "the board already has five cards"))
                self.cards += 1
                return out
            self.street += 1
            self.cards = 1
            self.street_first = uid
            if pad and not self._done():
                rule, procedure = _PREMATURE[self.street]
                out.append(Finding(f"board.premature_{NAMES[self.street - 1]}", rule, procedure))
                self.premature = _Premature(self.street, {uid})
            elif self.burns_since == 0 and self.no_burn_street != self.street and not unburned:
                # said at the next event unless that is the burn, read late (flush())
                self.deferred = Finding("burn.missing", "BURN-001",
                                        f"the {NAMES[self.street - 1]} was dealt without its burn")
                self.late_burn_street = self.street
            if self.no_burn_street == self.street:
                self.no_burn_street = 0
            self.burns_since = 0
            self.round_done = False
        else:
            self.cards += 1
            if self.premature is not None and self.premature.street == self.street:
                self.premature.uids.add(uid)
        return out

    def on_leave(self, uid: str, to_zone: str | None) -> None:
        """A board card left the board: moved to ``to_zone``, or off the table (None)."""
        self.cards -= 1
        pre = self.premature
        if pre is not None and uid in pre.uids:
            pre.uids.discard(uid)
            if not pre.uids:  # the premature street is off the board: deal it again
                self.street = pre.street - 1
                self.cards = self.size()
                self.burns_since = 0
                self.round_done = False
                self.no_burn_street = pre.street + 1 if pre.street < 3 else 3
                self.premature = None
            if pre.street < 3:  # the old flop or turn is shuffled in only after the street is dealt again
                self.banned[uid] = (_PREMATURE[pre.street][0], pre.street)
            return
        if self.extra:
            self.extra -= 1
            if self.street == 3:  # the river's extra card goes back on the stub for good
                self.banned[uid] = ("BOARD-003", None)
            elif to_zone is None:  # back on the stub, on top: it is the next burn
                self.expected_burn = (uid, "BOARD-002" if self.street == 1 else "BOARD-003")

    def finish(self, *, run_burns: bool = True) -> list[Finding]:
        """BURN-006: a hand that reached the river burned three cards (and a board run more than
        once, BOARD-011, a burn before each street of each further run: RUN_BURNS, the seeds
        being silent, is the house's: "as the first run" by default, none with ``run_burns``
        False)."""
        burns = BURNS + ((self.runs_dealt - 1) * (3 - self.run_from) if run_burns else 0)
        if self.street >= 3 and self.burns_total != burns and not self.burn_alerted:
            return [Finding("burn.count_wrong", "BURN-006",
                            f"{self.burns_total} burns this hand; a flop game burns {BURNS}"
                            + (f" ({burns} run {self.runs_dealt} times)" if burns != BURNS else ""))]
        return []


def burn_moved(pot_pushed: bool, to: str | None) -> Finding | None:
    """BURN-003: burns stay on the burn spot, apart from the muck, until the pot is pushed
    (the dealer's ``hand_end`` pad); ``to`` is where the burn went (None: off the table)."""
    if pot_pushed:
        return None
    where = f"to the {to}" if to else "off the table"
    return Finding("burn.moved_early", "BURN-003",
                   f"a burn went {where} before the pot was pushed: burns stay apart until then")


def untapped_burn() -> Finding:
    """BURN-002: a burn came where one was due with no tap (``round_done``) since the last
    street's cards: is the betting round over? (It may be a premature card: BOARD-004..006,
    which the board card then says.)

    >>> untapped_burn().message
    'round complete? a burn with no tap before it: tap once the betting is over, then burn'
    """
    return Finding("burn.no_tap", "BURN-002",
                   "round complete? a burn with no tap before it: tap once the betting is over, then burn")
