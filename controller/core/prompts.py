"""The dealer's console, pure: which prompt the LEDs show, and what they look like.

The core raises alerts and prompts (:mod:`controller.core.effects`); the dealer's console can show one
at a time. :class:`PromptBoard` keeps the prompts waiting, picks the one to show by priority
(:data:`PROMPT_TABLE`), clears them on the dealer's word (``ack``, ``next`` and the pads that
answer a prompt) and when a new hand starts, and follows the live figures to light the seat due
the next card. It returns a :class:`ConsoleState`: the mode of each status LED, the seat LED to
light, and a buzzer pattern to sound once. No pins here: ``firmware_bridge.console`` shows the
state on the hardware; docs/console.md shows every pattern.

Floor alerts never reach it (the daemon feeds it only what the dealer may see) and are ignored
if they do: a discreet alert makes no visible or audible change at the table.

>>> from controller.core.effects import Alert, Figures, HandStarted
>>> from controller.core.events import ButtonPress
>>> board = PromptBoard()
>>> board.apply([HandStarted(1.0, 1, 9, (1, 2, 9), "holdem"),
...              Figures(1.0, 1, "deal", {}, 0, 0, 51, "seat:2", 9)])
ConsoleState(ready='on', prompt='off', alert='off', seat=2, buzz='none', code=None, message='', waiting=0)
>>> s = board.apply([Alert(2.0, "misdeal.seat_skipped", "dealer", "seat 2 was dealt no cards: misdeal",
...                        "MISD-006", seat=2)])
>>> s.alert, s.prompt, s.buzz, s.code
('blink_fast', 'off', 'short', 'misdeal.seat_skipped')
>>> board.sounded()  # the console beeped
>>> board.apply([Alert(3.0, "deck.wrong_deck", "floor", "As of deck B is in play")])  # the floor's: unseen
ConsoleState(ready='on', prompt='off', alert='blink_fast', seat=2, buzz='none', code='misdeal.seat_skipped',
             message='seat 2 was dealt no cards: misdeal', waiting=1)
>>> board.press(ButtonPress(4.0, "ack")).alert
'off'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable, Sequence

from controller.core.effects import Figures, HandFinished, HandStarted
from controller.core.zones import seat_of

#: the modes of an LED: steady off or on, blinking at 1 Hz or at 5 Hz (docs/console.md)
LED_MODES = ("off", "on", "blink_slow", "blink_fast")
#: the buzzer's patterns, each sounded once: a 0.15 s beep, two 0.1 s beeps, one 0.6 s beep
BUZZER_PATTERNS = ("none", "short", "double", "long")
#: pads that answer the prompt *shown* (and only that one): done, or seen
SHOWN_PADS = ("ack", "next")


@dataclass(frozen=True, slots=True)
class PromptRule:
    """How one code or family of codes is shown. ``match`` is a code, or a pattern with one
    ``*`` (``misdeal.*``, ``device.*_offline``); the first row of :data:`PROMPT_TABLE` that
    matches wins, so exact codes come before their family.

    - ``priority``: the prompt shown is the waiting one of highest priority (the oldest first
      among equals); 0 for a row that shows nothing and only ``clears``;
    - ``alert``, ``prompt``: the modes of the red and amber LEDs while it is shown;
    - ``buzzer``: sounded once when it arrives (docs/rules.md, legend: "the buzzer is used only where stated");
    - ``scope``: ``hand`` prompts are cleared when a new hand starts; ``kept`` ones stay until
      answered or cleared;
    - ``ackable``: whether ``ack`` / ``next`` clear it while it is shown;
    - ``seen_clears``: whether ``next`` (seen) does too; False for a prompt only the dealer's
      ``ack`` answers (the hold for open seats: the core takes that ack for the floor's go-ahead);
    - ``answered_by``: other pads whose press clears it, shown or not;
    - ``clears``: codes this one clears when it arrives; ``{}`` stands for what ``*`` matched
      (``device.*_online`` clears ``device.{}_offline``: the same device);
    - ``offline``: while it waits, the table is not tracked: the ready LED blinks.
    """

    match: str
    priority: int
    alert: str = "off"
    prompt: str = "on"
    buzzer: str = "none"
    scope: str = "hand"
    ackable: bool = True
    seen_clears: bool = True
    answered_by: tuple[str, ...] = ()
    clears: tuple[str, ...] = ()
    offline: bool = False

    def __post_init__(self) -> None:
        assert self.alert in LED_MODES and self.prompt in LED_MODES and self.buzzer in BUZZER_PATTERNS
        assert self.scope in ("hand", "kept") and self.match.count("*") <= 1


#: Every dealer code the console knows, highest priority first. A new code slots in by a row; a
#: code of no row shows as an ordinary prompt (the last row). docs/console.md is this table.
PROMPT_TABLE: tuple[PromptRule, ...] = (
    # FLAG (docs/rules.md, legend): a misdeal the sensors are sure of. Red, fast, and a short buzz.
    PromptRule("misdeal.*", 100, alert="blink_fast", prompt="off", buzzer="short",
               answered_by=("misdeal",)),
    # The display is a convenience, not a sensor: the table is still tracked and the LEDs still
    # say it all. An ordinary amber prompt, kept until it is back or the dealer has seen it.
    PromptRule("device.display_offline", 20, scope="kept"),
    # The table is not tracked: red steady, ready LED blinking, until the device is back.
    PromptRule("device.*_offline", 90, alert="on", prompt="off", scope="kept", ackable=False, offline=True),
    PromptRule("device.*_online", 0, clears=("device.{}_offline",)),
    # The shuffler stopped: amber fast, until the dealer acknowledges or the shuffler is back.
    PromptRule("shuffler.jam", 80, prompt="blink_fast", scope="kept"),
    PromptRule("shuffler.door_open", 80, prompt="blink_fast", scope="kept"),
    PromptRule("shuffler.error", 80, prompt="blink_fast", scope="kept"),
    PromptRule("shuffler.cleared", 0, clears=("shuffler.jam", "shuffler.door_open", "shuffler.error")),
    # A new setup (a short or foul deck, STUB-004): amber steady like any prompt, silent, so
    # that nothing at the table tells a short deck from an ordinary prompt.
    PromptRule("deck.new_setup", 60, scope="kept", answered_by=("new_deck", "relief")),
    PromptRule("deck.not_rotated", 50, answered_by=("new_deck",)),
    # The dealing rules' prompts (docs/rules.md): amber steady.
    PromptRule("late_fault.*", 45),
    # STUD-003: the bring-in passes; the bring-in prompt it replaces named the all-in seat
    PromptRule("deal.bring_in_passes", 40, clears=("deal.bring_in",)),
    PromptRule("deal.*", 40),
    PromptRule("burn.*", 40),
    PromptRule("board.*", 40),
    PromptRule("muck.*", 40),
    # Mixed games (MIXED-001): the last hand of a game, as it starts; the next game, from the last
    # hand's end until the dealer has seen it (ack), into the next hand if need be.
    PromptRule("mixed.last_hand", 35),
    PromptRule("mixed.next_game", 35, scope="kept"),
    # BREAK-002: the hold for open seats outranks every prompt an ack answers but a misdeal
    # alert, and stays until answered: while it waits the ack is its (the core takes it for the
    # floor's go-ahead, controller/core/table/open_seats.py); seats filled below the hold clear it.
    PromptRule("break.hold", 85, scope="kept", seen_clears=False),
    PromptRule("break.hold_over", 30, clears=("break.hold",)),
    # The tournament's holds (FLOW-002 hand-for-hand, FLOW-003 the bubble) rank with the hold for
    # open seats: over every routine prompt (the stub count, "NEXT GAME"), kept until the floor
    # releases the table (its release clears them: no pad of the dealer's does).
    PromptRule("flow.h4h_wait", 85, scope="kept", ackable=False),
    PromptRule("flow.h4h_go", 30, clears=("flow.h4h_wait",)),
    PromptRule("flow.bubble_hold", 85, scope="kept", ackable=False),
    PromptRule("flow.bubble_go", 30, clears=("flow.bubble_hold",)),
    # FLOW-004: the player clock's countdown is shown while it runs, over the holds and every
    # prompt but a misdeal flag and a device offline; each count rewords it (its ``count``: the
    # seconds left, for the display and the buzzer's ticks through the last five, the console
    # sink's); it ends dead, or stopped (round_done, the seat's fold, the hand's end).
    PromptRule("flow.clock", 88, ackable=False),
    PromptRule("flow.clock_dead", 88, clears=("flow.clock",)),
    PromptRule("flow.clock_stopped", 0, clears=("flow.clock",)),
    # FLOW-004: a hand dead on the clock still at its seat at the showdown: killed before the pot
    # is pushed, so it outranks the showdown's words
    PromptRule("flow.dead_hand_kill", 50),
    # FLOW-007: a single-table satellite waits for the floor's approval, as the holds do: over every
    # routine prompt, kept until the floor approves it (no pad of the dealer's ends it)
    PromptRule("flow.satellite_wait", 85, scope="kept", ackable=False),
    PromptRule("flow.satellite_go", 30, clears=("flow.satellite_wait",)),
    # DECK-009: a satellite opened on the deck the last one opened on: bringing the other in answers it
    PromptRule("flow.satellite_not_rotated", 50, answered_by=("new_deck",)),
    # FLOW-001: a new level from the next deal, said at its shuffle; DECK-008 at a break; DECK-003 at
    # the tournament's start and when a break is over
    PromptRule("flow.new_level", 35),
    PromptRule("flow.reset_decks", 35),
    PromptRule("flow.spread_deck", 35),
    # FLOW-006: a seat away two full orbits (the floor is told); FLOW-008: offer a new player the
    # table add-on, shown until the dealer has seen it (ack or next)
    PromptRule("flow.long_absence", 35),
    PromptRule("flow.addon_offer", 35, scope="kept"),
    # FLOW-009: the rake cap of each hand at a cash table: the lowest, on the display only (no LED:
    # it is said every hand, and the amber LED is for what the dealer must do)
    PromptRule("flow.rake_cap", 5, prompt="off"),
    # RELIEF-004: a push during hand-for-hand, warned
    PromptRule("relief.no_push", 40),
    # The stub-count reminder (STUB-001/002): the lowest, amber slow; ack = counted and right.
    PromptRule("stub.count_due", 10, prompt="blink_slow", answered_by=("stub_wrong",)),
    # Any other dealer code: an ordinary prompt.
    PromptRule("*", 30),
)


def _compile(match: str) -> re.Pattern[str]:
    return re.compile("(.*)".join(re.escape(p) for p in match.split("*")) + r"\Z")


_COMPILED = {r.match: _compile(r.match) for r in PROMPT_TABLE}


def rule_for(code: str, table: Sequence[PromptRule] = PROMPT_TABLE) -> tuple[PromptRule, str]:
    """The row that governs ``code``, and what its ``*`` matched.

    >>> rule_for("device.reader_offline")[0].priority, rule_for("device.reader_offline")[1]
    (90, 'reader')
    >>> rule_for("board.four_card_flop")[0].match
    'board.*'
    >>> rule_for("something.new")[0].match
    '*'
    """
    for row in table:
        rx = _COMPILED.get(row.match) or _compile(row.match)
        m = rx.match(code)
        if m:
            return row, (m.group(1) if m.groups() else "")
    raise LookupError(code)  # (the table ends with "*")


@dataclass(frozen=True, slots=True)
class ConsoleState:
    """What the console shows: the status LEDs' modes (:data:`LED_MODES`), the seat LED lit
    (the seat due the next card), a buzzer pattern to sound now (once: until
    :meth:`PromptBoard.sounded`; ``none`` otherwise), the prompt shown (its code and message: for
    a display and the demo) and how many wait."""

    ready: str = "on"
    prompt: str = "off"
    alert: str = "off"
    seat: int | None = None
    buzz: str = "none"
    code: str | None = None
    message: str = ""
    waiting: int = 0
    #: for the display (controller/core/display.py), left out of the repr: the seat the prompt shown
    #: names and its count (how many cards that seat is short, over or owed; None: none, or
    #: unknown), the hand under way or last dealt, the live counts (public figures: hole cards,
    #: burns, board, players) and whether no hand runs
    prompt_seat: int | None = field(default=None, repr=False)
    prompt_count: int | None = field(default=None, repr=False)
    #: the game the prompt shown names (MIXED-001: "last hand of razz"), by its id
    prompt_game: str | None = field(default=None, repr=False)
    hand: int | None = field(default=None, repr=False)
    figures: tuple[tuple[str, int], ...] = field(default=(), repr=False)
    between: bool = field(default=True, repr=False)

    def leds(self) -> str:
        """A short line for logs and ``tablectl demo --plain``.

        >>> ConsoleState(alert="blink_fast", seat=4, code="misdeal.seat_skipped").leds()
        'ready on · prompt off · alert blink_fast · seat 4 · misdeal.seat_skipped'
        """
        parts = [f"ready {self.ready}", f"prompt {self.prompt}", f"alert {self.alert}",
                 f"seat {self.seat}" if self.seat is not None else "seat -"]
        if self.buzz != "none":
            parts.append(f"buzz {self.buzz}")
        if self.code:
            parts.append(self.code + (f" (+{self.waiting - 1})" if self.waiting > 1 else ""))
        return " · ".join(parts)


@dataclass
class _Waiting:
    code: str
    message: str
    rule: PromptRule
    seq: int
    seat: int | None = None
    hand: int | None = None
    count: int | None = None
    game: str | None = None


@dataclass
class PromptBoard:
    """The prompts waiting for the dealer, and the console state they make (see the module)."""

    table: Sequence[PromptRule] = PROMPT_TABLE
    waiting: list[_Waiting] = field(default_factory=list)
    seat: int | None = None
    hand: int | None = None
    figures: tuple[tuple[str, int], ...] = ()
    between: bool = True
    players: int = 0
    _seq: int = 0
    _buzz: str = "none"

    # -- input -------------------------------------------------------------------------------
    def apply(self, effects: Iterable[Any]) -> ConsoleState:
        """Take effects from the core, in order; return the state to show."""
        for e in effects:
            if isinstance(e, HandStarted):
                self.waiting = [w for w in self.waiting if w.rule.scope != "hand"]
                self.seat = None
                self.hand, self.figures, self.between = e.hand, (), False
                self.players = len(e.seats)
            elif isinstance(e, Figures):
                self.seat = seat_of(e.next_to)
                self.hand, self.between = e.hand, False
                self.figures = _public_figures(e, self.players)
            elif isinstance(e, HandFinished):
                self.seat = None
            elif hasattr(e, "code") and hasattr(e, "message"):  # an Alert, or a Prompt
                if getattr(e, "audience", "floor") in ("dealer", "public"):  # never the floor's
                    self._arrive(e.code, e.message, getattr(e, "seat", None), getattr(e, "hand", None),
                                 getattr(e, "count", None), getattr(e, "game", None))
        return self._state()

    def press(self, ev: Any) -> ConsoleState:
        """A pad pressed (a :class:`controller.core.events.ButtonPress`): the dealer's answer."""
        name = ev.name
        if name in SHOWN_PADS:
            shown = self.shown()
            if shown is not None and shown.rule.ackable and (name == "ack" or shown.rule.seen_clears):
                self.waiting.remove(shown)
        else:
            self.waiting = [w for w in self.waiting if name not in w.rule.answered_by]
        return self._state()

    def between_hands(self, first_seat: int | None) -> ConsoleState:
        """No hand runs: light the seat the next hand's first card goes to (the daemon knows
        it from the seats and the button; no effect says it before the first card)."""
        self.seat = first_seat
        self.between = True
        return self._state()

    def sounded(self) -> None:
        """The buzzer pattern of the state has been sounded: the next states carry none."""
        self._buzz = "none"

    # -- state -------------------------------------------------------------------------------
    def shown(self) -> _Waiting | None:
        if not self.waiting:
            return None
        return min(self.waiting, key=lambda w: (-w.rule.priority, w.seq))

    @property
    def state(self) -> ConsoleState:
        return self._state()

    def _arrive(self, code: str, message: str, seat: int | None, hand: int | None,
                count: int | None = None, game: str | None = None) -> None:
        rule, capture = rule_for(code, self.table)
        if rule.clears:
            gone = {c.replace("{}", capture) for c in rule.clears}
            self.waiting = [w for w in self.waiting if w.code not in gone]
        if rule.priority <= 0:
            return
        for w in self.waiting:
            if w.code == code and w.seat == seat:  # said again: the same prompt, reworded
                w.message, w.hand, w.count, w.game = message, hand, count, game
                return
        self._seq += 1
        self.waiting.append(_Waiting(code, message, rule, self._seq, seat, hand, count, game))
        if rule.buzzer != "none":
            self._buzz = rule.buzzer

    def _state(self) -> ConsoleState:
        shown = self.shown()
        buzz = self._buzz
        ready = "blink_slow" if any(w.rule.offline for w in self.waiting) else "on"
        more: dict[str, Any] = {"hand": self.hand, "figures": self.figures, "between": self.between}
        if shown is None:
            return ConsoleState(ready=ready, seat=self.seat, buzz=buzz, **more)
        return ConsoleState(ready=ready, prompt=shown.rule.prompt, alert=shown.rule.alert, seat=self.seat,
                            buzz=buzz, code=shown.code, message=shown.message, waiting=len(self.waiting),
                            prompt_seat=shown.seat, prompt_count=shown.count, prompt_game=shown.game, **more)


def _public_figures(f: Figures, players: int) -> tuple[tuple[str, int], ...]:
    """The counts a display may show (public, as the stub count makes them, STUB-003): the
    players dealt in, the cards out (52 less the stub), the burns, the board and the hole cards
    (the rest of the cards out)."""
    out = 52 - f.stub_count
    return (("players", players), ("out", out), ("stub", f.stub_count), ("burns", f.burns),
            ("board", f.board), ("hole", out - f.burns - f.board))

