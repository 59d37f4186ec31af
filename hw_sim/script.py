"""Deal scripts (``docs/deal-script.md``): parsed and checked before anything runs.

:func:`parse_script` turns the JSON text of a script into an immutable, typed :class:`Script`,
or refuses it with a :class:`ScriptError` whose ``str()`` is ONE line naming where and what,
e.g. ``hand 2, step 5: unknown card 'Zz' (ranks A23456789TJQK, suits shdc)`` or
``top level: "seats" must be a list of seat numbers 1 to 10, got 'all'``. It does no I/O.

The step model: each step of a hand is a :class:`Step` ``(hand, index, action)``; ``hand`` and
``index`` are both counted from 1 (``index`` within its hand, as the report's ``step``), and
``action`` is one of :class:`Deal`, :class:`Muck`, :class:`Press`, :class:`Move`, :class:`Shuffler`,
:class:`End`, :class:`Unplug`, :class:`Plug`, :class:`Discard`, :class:`Restub`, :class:`Stack`, :class:`Wait`,
:class:`Floor` (the union :data:`Action`). :func:`action_of`
gives the action of a step (or of a bare action).

>>> s = parse_script('''{"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,
...   "hands": [{"steps": [{"deal": "As", "to": "seat:1"}, {"deal": "Kd@B", "to": "seat:2"},
...                        {"deal": "tag:e0040150a05f02b7", "to": "burn"}]}]}''')
>>> s.hands[0].steps[0]
Step(hand=1, index=1, action=Deal(card=CardRef(card='As', deck=None, uid=None), to='seat:1', face_up=False,
     clone=False))
>>> [str(action_of(st).card) for st in s.hands[0].steps[1:3]]
['Kd@B', 'tag:E0040150A05F02B7']
>>> s.hands[0].steps[-1]          # a hand that does not end with {"end": true} gets one
Step(hand=1, index=4, action=End())
>>> parse_script(s.to_json()) == s
True
>>> parse_script('{"format": 1, "game": "holdem", "seats": [1, 2], "button": 2, "hands": ['
...              '{"steps": [{"deal": "As", "to": "seat:1"}, {"deal": "as", "to": "board"}]}]}')
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 1, step 2: As is already out (dealt at step 1 and not gathered;
    a second tag with the same UID is "clone": true)

Choices the contract leaves open (documented here, relied on by the simulator):

- A hand whose steps do not end with ``{"end": true}`` gets an implicit :class:`End` appended
  (the dealer always gathers the cards); a step *after* an ``end`` in the same hand is refused
  (start a new hand instead). A hand with no steps is just that implicit end.
- A physical card is a deck and a card: ``As`` is the card of the deck in play (deck ``A``,
  :data:`DECK_IN_PLAY`), so ``As``, ``As@A`` and the tag UID of deck A's ace of spades
  (``tag:E0040150A05F0000``, see :mod:`hw_sim.decks`) are the same card, and dealing two of
  them without a gather is refused; ``As@B`` is another card. A UID of no simulated deck is a
  card by itself.
- ``seats`` lists 2 to 10 different seats (a hand needs two players); ``button`` is any seat
  1 to 10 (a dead button need not be dealt in). A deal to a seat 1..10 that is not dealt in is
  *not* refused: it is a misdeal for the daemon to catch.
- ``game`` defaults to ``holdem`` when absent; ``noise`` to no noise, seed 0.
- ``crash_after`` is a step count from 1 up to the number of steps in the script (with the
  implicit ends), so that the power cut does happen.
- ``"cards"`` goes only with ``{"shuffler": "deck"}``.
- Stud and draw games (deal-script.md, "Stud, draw and mixed games"): a hand may name its own
  ``game`` (a mixed game); ``"face_up": true`` is what physically happens and changes nothing
  the reader sees. A ``discard`` is refused outside the draw games and names only cards that are
  at its seat; a ``restub`` is refused outside the stud and draw games and gathers only cards in
  the muck or the burns, or not on the table at all (the stub's last card, mixed in): a card at
  a seat or on the board is refused. Once gathered, a card may be dealt again.
- Chinese poker (``chinese``): ``{"stack": [CARD, ...], "to": ZONE}`` pushes those cards off
  the stub to a seat (or the muck) at once; it is refused in any other game. A ``deal`` to a
  seat works too, a card at a time. ``"chinese_two_hands": true`` (top level) is the table's
  ``[table] chinese_two_hands``: two players play two hands each (CHIN-002).

>>> st = parse_script('{"format": 1, "game": "chinese", "seats": [1, 2], "button": 2, "chinese_two_hands": true, '
...     '"hands": [{"steps": [{"stack": ["As", "Kd"], "to": "seat:1"}, {"stack": ["Kd"], "to": "muck"}]}]}')
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 1, step 2: Kd is already out (dealt at step 1 and not gathered)

>>> h = parse_script('{"format": 1, "game": "draw27_triple", "seats": [1, 2], "button": 2, "hands": [{'
...     '"steps": [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"},'
...     '{"discard": ["As"], "from": "seat:1"}, {"deal": "2c", "to": "burn"}, {"restub": ["As", "3h"]},'
...     '{"deal": "As", "to": "seat:1"}]}]}').hands[0]
>>> [type(action_of(st)).__name__ for st in h.steps]
['Deal', 'Deal', 'Discard', 'Deal', 'Restub', 'Deal', 'End']
>>> parse_script('{"format": 1, "game": "stud", "seats": [1, 2], "button": 2, "hands": [{"steps": ['
...     '{"deal": "As", "to": "seat:1"}, {"restub": ["As"]}]}]}')
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 1, step 2: As is at seat:1 (a restub gathers cards from the muck, the burns or
    the stub)

The floor's signals (docs/deal-script.md, "The floor's signals"; issue 32's tournament room):
``{"floor": SIGNAL, ...}`` (:class:`Floor`), SIGNAL one of :data:`FLOOR_STEPS`, each checked for
its own fields and bounds (those of the floor's message, controller/room/tournament.py):

>>> parse_step({"floor": "level", "level": 5, "sb": 100, "bb": 200}, where="hand 1, step 1")
Floor(signal='level', on=None, level=5, kind='level', sb=100, bb=200, ante=None, game=None, tournament='main',
      table=None, hand=None, seat=None)
>>> parse_step({"floor": "bubble_hold", "table": "t3", "hand": 42}, where="hand 2, step 1").on
True
>>> parse_step({"floor": "h4h"}, where="hand 2, step 4")
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 2, step 4: a floor 'h4h' step needs "on" (true or false)

``{"floor": "approve"}`` is the floor's command of that name (FLOW-007: the single-table satellite
a ``{"press": "mode", "mode": "satellite"}`` started may be dealt), played as the signals are:

>>> parse_step({"floor": "approve"}, where="hand 1, step 2").event_fields(releases=0, clocks=0)
{'type': 'SatelliteApproved'}

Extensions (docs/daemon.md, "Extensions to the script format"):

- ``{"press": NAME, "long": true}`` is a long press (docs/rules.md, legend: ``EXPOSED:player``).
  ``NAME`` is a pad of :data:`controller.core.pads.PADS` (checked with
  :func:`controller.core.pads.check_press`) or one of the ``buttons`` a configuration adds. A press
  may name ``"seat": N`` (the pads of a seat need one: ``{"press": "seat_out", "seat": 4}``) and
  ``"hands": N`` (a count of hands, a penalty's). The ``mode`` pad names its mode:
  ``{"press": "mode", "mode": "race"}`` (race, highcard, break, satellite: docs/daemon.md, "Modes").
- ``{"move": CARD, "to": ZONE}`` moves a card that is on the table (dealt in this hand, not
  gathered, not back on the stub) to another zone: an exposed card from its seat to the burn
  spot, a four-card flop's extra card from the board to the burn, a card taken back from the
  muck to a seat. ``"to": "stub"`` puts it back on the stub: no antenna reads it any more, and a
  later step may deal it again. The parser follows every card out, through deals, mucks and
  moves, so a move of a card that is not on the table, or to the zone it is in, is refused.

>>> parse_script('{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": ['
...              '{"deal": "As", "to": "seat:1"}, {"press": "exposed"}, {"move": "As", "to": "stub"},'
...              '{"deal": "As", "to": "burn"}, {"press": "seat_out", "seat": 1}]}]}').hands[0].steps[2]
Step(hand=1, index=3, action=Move(card=CardRef(card='As', deck=None, uid=None), to='stub'))
>>> parse_script('{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": ['
...              '{"deal": "As", "to": "seat:1"}, {"muck": "seat:1"}, {"move": "As", "to": "muck"}]}]}')
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 1, step 3: As is already at muck (a move goes to another zone, or to the stub)

- Issue 39: ``{"look": "seat:N", "for": S}`` (the seat's cards off the table for S seconds, then
  back: MUCK-001), ``{"lift": CARD}`` (a card of a seat held off the table; a later ``move`` lays
  it down), ``{"drop": "stub"}`` (the stub on its spot, read where the script's top-level
  ``"stub_spot": true`` gives the table an antenna there: STUB-006).

>>> s = parse_script('{"format": 1, "seats": [1, 2], "button": 2, "stub_spot": true, "hands": [{"steps": ['
...     '{"deal": "As", "to": "seat:1"}, {"look": "seat:1", "for": 3}, {"lift": "As"}, {"move": "As", "to": "muck"},'
...     '{"drop": "stub"}]}]}')
>>> [type(action_of(st)).__name__ for st in s.hands[0].steps], s.stub_spot, parse_script(s.to_json()) == s
(['Deal', 'Look', 'Lift', 'Move', 'Drop', 'End'], True, True)
>>> parse_script('{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": [{"look": "seat:2", "for": 3}]}]}')
Traceback (most recent call last):
...
hw_sim.script.ScriptError: hand 1, step 1: seat:2 holds no card to look at
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, ClassVar
from collections.abc import Callable, Collection

from controller.core.cards import RANKS, SUITS, CardError, parse_card
from controller.core.events import LEVEL_KINDS
from controller.core.pads import MODES, PADS, check_press
from controller.core.settings import GAMES as DEALT_GAMES
from controller.core.text import NotUtf8, decode_utf8
from controller.config.room import NAME
# the bounds of the floor's message: a script plays only what the room link could have made of one
from controller.room.tournament import MAX_CHIPS, MAX_LEVEL
from controller.room.tournament import MAX_COUNT as MAX_HAND
from hw_sim.decks import card_of_uid

FORMAT = 1
#: The flop games (a button, blinds, a board).
FLOP_GAMES = ("holdem", "omaha", "omaha8")
#: The stud games: no button (``button`` is the dealer's position), up cards from a template.
STUD_GAMES = ("stud", "stud8", "razz")
#: The draw games: ``discard`` steps, and a ``restub`` when the stub runs out (DRAW-005).
DRAW_GAMES = ("draw27_single", "draw27_triple", "draw_a5_triple", "badugi", "badeucy", "badacey", "draw5")
#: Chinese poker: four stacks of 13 pushed whole to the seats (``stack`` steps), no burn, no board.
CHINESE_GAMES = ("chinese",)
#: Every game a script may name (deal-script.md), top level or per hand. Whether the daemon
#: deals it is the daemon's business: its configuration refuses a game it does not know.
GAMES = FLOP_GAMES + STUD_GAMES + DRAW_GAMES + CHINESE_GAMES
#: The pads every configuration knows (controller.core.pads); ``parse_script(buttons=...)`` adds others.
DEFAULT_BUTTONS: tuple[str, ...] = tuple(PADS)
DEVICES = ("reader", "shuffler", "display")
#: deal-script.md's shuffler events, and two of ours: ``ready`` (a fault cleared) and ``error``
SHUFFLER_ACTIONS = ("deck", "jam", "door_open", "ready", "error")
#: The simulated table's decks (deal-script.md: ``A`` in play, ``B`` the spare).
DECK_IDS = ("A", "B")
DECK_IN_PLAY = "A"
ZONES_HELP = "seat:1..seat:10, board, burn, muck"
#: ``{"move": CARD, "to": "stub"}``: the card goes back on the stub (not a zone: no antenna)
STUB = "stub"
STEP_KINDS = ("deal", "muck", "press", "move", "shuffler", "end", "unplug", "plug", "discard", "restub", "stack",
              "wait", "floor", "look", "lift", "drop")
#: ``{"lift": CARD}``: the zone a card held off the table by a player is followed in (not a zone)
HELD = "held"
#: the longest ``wait`` (seconds): a device away, a player's clock; a session's break is no step
MAX_WAIT_S = 900
#: virtual seconds a reader cycle takes (hw_sim.pacing.CYCLE_S): a wait passes whole cycles
WAIT_CYCLE_S = 0.05
#: the floor's signals a script plays (``{"floor": SIGNAL, ...}``): each is the core event of
#: controller/core/events.py's FLOOR_SIGNALS that the room link makes of the floor's message
FLOOR_STEPS = ("level", "h4h", "release", "bubble", "bubble_hold", "clock", "approve")
#: the keys each floor step takes besides ``floor``, and those it must have
_FLOOR_KEYS = {"level": ("level", "kind", "sb", "bb", "ante", "game", "tournament"), "h4h": ("on",),
               "release": (), "bubble": ("on",), "bubble_hold": ("on", "table", "hand"), "clock": ("seat",),
               "approve": ()}
_FLOOR_NEEDS = {"level": ("level", "a level number"), "h4h": ("on", "true or false"), "bubble": ("on", "true or false"),
                "clock": ("seat", "the seat, 1 to 10")}
#: the tournament a level step names when it names none
TOURNAMENT = "main"
_UID = re.compile(r"[0-9A-Fa-f]{16}")
_ZONE = re.compile(r"seat:(?:10|[1-9])|board|burn|muck")
_TOP_KEYS = ("format", "game", "seats", "button", "noise", "hands", "deck", "crash_after", "chinese_two_hands",
             "stub_spot")
#: the antenna under the stub spot of a simulated table that has one (``"stub_spot": true``, STUB-006)
STUB_ANTENNA = 14
_HAND_KEYS = ("steps", "seats", "button", "deck", "game")


class ScriptError(ValueError):
    """A refused script; ``str()`` is one line naming where and what."""


# -- the model ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class CardRef:
    """A physical card: ``card`` of the deck in play (``deck`` None) or of ``deck``; or a tag
    by its ``uid`` (16 uppercase hex digits; ``card`` and ``deck`` None)."""

    card: str | None
    deck: str | None = None
    uid: str | None = None

    def __str__(self) -> str:
        if self.uid is not None:
            return f"tag:{self.uid}"
        return f"{self.card}@{self.deck}" if self.deck else str(self.card)


@dataclass(frozen=True, slots=True)
class Deal:
    """``{"deal": CARD, "to": ZONE}``: one card pitched from the top of the stub."""

    card: CardRef
    to: str
    face_up: bool = False
    clone: bool = False


@dataclass(frozen=True, slots=True)
class Muck:
    """``{"muck": "seat:N"}``: that seat's cards go into the muck."""

    seat: int


@dataclass(frozen=True, slots=True)
class Press:
    """``{"press": NAME}``: a dealer pad; ``"long": true`` for a long press, ``"seat"`` the
    seat a seat pad is for, ``"hands"`` a count of hands (a penalty's)."""

    name: str
    long: bool = False
    seat: int | None = None
    hands: int | None = None
    mode: str | None = None  # the ``mode`` pad's (controller.core.pads.MODES)


@dataclass(frozen=True, slots=True)
class Move:
    """``{"move": CARD, "to": ZONE | "stub"}``: a card on the table goes to another zone, or
    back on the stub (:data:`STUB`)."""

    card: CardRef
    to: str


@dataclass(frozen=True, slots=True)
class Shuffler:
    """``{"shuffler": "deck" | "jam" | "door_open"}``, ``"cards"`` dictating a deck report."""

    action: str
    cards: tuple[CardRef, ...] | None = None


@dataclass(frozen=True, slots=True)
class End:
    """``{"end": true}``: the hand is over; the dealer gathers every card."""


@dataclass(frozen=True, slots=True)
class Unplug:
    """``{"unplug": DEVICE}``: the device's cable is pulled."""

    device: str


@dataclass(frozen=True, slots=True)
class Plug:
    """``{"plug": DEVICE}``: the device's cable is back in."""

    device: str


@dataclass(frozen=True, slots=True)
class Discard:
    """``{"discard": [CARD, ...], "from": "seat:N"}``: in a draw round, those cards leave the
    seat for the muck (a draw game's step; standing pat is no step)."""

    cards: tuple[CardRef, ...]
    seat: int


@dataclass(frozen=True, slots=True)
class Restub:
    """``{"restub": [CARD, ...]}``: the dealer gathers those cards (from the muck, the burns, or
    the stub's last card) into a new stub, off every antenna (DRAW-005, STUD-007); later deals
    may pitch them again."""

    cards: tuple[CardRef, ...]


@dataclass(frozen=True, slots=True)
class Stack:
    """``{"stack": [CARD, ...], "to": ZONE}``: a stack of cards off the stub pushed whole to a
    seat, or to the muck (Chinese poker's deal, CHIN-001/002: the reader hears them arrive
    together, in no order)."""

    cards: tuple[CardRef, ...]
    to: str


def cycles_of(seconds: float) -> int:
    """Simulated seconds as reader cycles: whole cycles, one at least (a ``wait``, a ``look``).

    >>> cycles_of(0.0), cycles_of(10 * WAIT_CYCLE_S)
    (1, 10)
    """
    return max(1, round(seconds / WAIT_CYCLE_S))


@dataclass(frozen=True, slots=True)
class Wait:
    """``{"wait": SECONDS}``: nothing happens at the table while that much simulated time
    passes; the reader cycles on (a device left unplugged, a player's clock running)."""

    seconds: float

    @property
    def cycles(self) -> int:
        """The reader cycles that pass."""
        return cycles_of(self.seconds)


@dataclass(frozen=True, slots=True)
class Floor:
    """``{"floor": SIGNAL, ...}``: the floor's signal reaches the table (docs/deal-script.md,
    "The floor's signals"), as the room link would bring it (``approve``: the floor's command
    of that name, FLOW-007): ``signal`` one of
    :data:`FLOOR_STEPS`, with the fields that signal takes (the others None). The simulator
    makes it the core event of the same meaning (:meth:`event_fields`)."""

    signal: str
    #: ``h4h``, ``bubble``, ``bubble_hold``: on or off (a hold is on unless it says ``false``)
    on: bool | None = None
    #: ``level``: the level, its kind (``level`` or ``break``), the blinds, the ante, the game and
    #: the tournament (:data:`TOURNAMENT` unless named)
    level: int | None = None
    kind: str | None = None
    sb: int | None = None
    bb: int | None = None
    ante: int | None = None
    game: str | None = None
    tournament: str | None = None
    #: ``bubble_hold``: the table and the hand whose all-in holds the room
    table: str | None = None
    hand: int | None = None
    #: ``clock``: the seat the clock is called on
    seat: int | None = None

    def event_fields(self, *, releases: int, clocks: int) -> dict[str, Any]:
        """The core event this step becomes, as a dict of its fields without the stamps
        (``ts``, and ``mono``/``boot`` of a clock: the daemon's clocks give them) and with its
        ``type``. ``releases`` and ``clocks``: the releases and the clocks played so far, this
        one included (a release's ``round``, a clock's ``n``: the floor's counts).

        >>> Floor("release").event_fields(releases=3, clocks=0)
        {'type': 'Release', 'round': 3}
        >>> Floor("level", level=5, kind="level", tournament="main").event_fields(releases=0, clocks=0)["type"]
        'LevelSet'
        """
        if self.signal == "level":
            return {"type": "LevelSet", "tournament": self.tournament or TOURNAMENT, "level": self.level,
                    "kind": self.kind or "level", "small_blind": self.sb, "big_blind": self.bb, "ante": self.ante,
                    "game": self.game}
        if self.signal == "h4h":
            return {"type": "HandForHand", "on": self.on}
        if self.signal == "release":
            return {"type": "Release", "round": releases}
        if self.signal == "bubble":
            return {"type": "BubbleMode", "on": self.on}
        if self.signal == "bubble_hold":
            return {"type": "BubbleHold", "on": self.on, "table": self.table, "hand": self.hand}
        if self.signal == "approve":  # FLOW-007: the floor's command, not its tournament's signal
            return {"type": "SatelliteApproved"}
        return {"type": "ClockCalled", "seat": self.seat, "n": clocks}


@dataclass(frozen=True, slots=True)
class Look:
    """``{"look": "seat:N", "for": SECONDS}``: the player at seat N lifts his cards off the table
    (off every antenna) for that long, then puts them back where they lay (MUCK-001)."""

    seat: int
    seconds: float

    @property
    def cycles(self) -> int:
        """The reader cycles the cards are away."""
        return cycles_of(self.seconds)


@dataclass(frozen=True, slots=True)
class Lift:
    """``{"lift": CARD}``: a player takes a card of his seat off the table and keeps it (off every
    antenna, not on the stub: a card held out, MUCK-001); a later ``move`` may put it somewhere."""

    card: CardRef


@dataclass(frozen=True, slots=True)
class Drop:
    """``{"drop": "stub"}``: the dealer drops the stub (every card of the physical deck not out) on
    the stub spot, read where the table has an antenna there (``"stub_spot": true``, STUB-006);
    elsewhere no antenna hears it."""

    what: str = "stub"


Action = (Deal | Muck | Press | Move | Shuffler | End | Unplug | Plug | Discard | Restub | Stack | Wait | Floor
          | Look | Lift | Drop)


@dataclass(frozen=True, slots=True)
class Step:
    """One step of a hand: ``hand`` and ``index`` (within the hand) both count from 1."""

    hand: int
    index: int
    action: Action


@dataclass(frozen=True, slots=True)
class DeckSpec:
    """The physical deck lacks the ``missing`` cards and holds the ``extra`` ones as well."""

    missing: tuple[CardRef, ...] = ()
    extra: tuple[CardRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Noise:
    """Read noise (deal-script.md); each probability is in [0, 1]. Also the simulated
    reader's noise model (``hw_sim.feig_reader.NoiseModel``)."""

    seed: int = 0
    miss: float = 0.0
    repeat: float = 0.0
    crosstalk: float = 0.0
    #: ``standard`` or ``harsh`` (hw_sim.noise: bursts, a stacked muck, lifted cards, a varying signal)
    profile: str = "standard"


@dataclass(frozen=True, slots=True)
class HandScript:
    """One hand: its steps (always ending with :class:`End`), and the hand's own seats,
    button and deck when it names them (None: the script's, or the daemon's button)."""

    steps: tuple[Step, ...]
    seats: tuple[int, ...] | None = None
    button: int | None = None
    deck: DeckSpec | None = None
    #: the hand's own game (a mixed game); None: the script's
    game: str | None = None


@dataclass(frozen=True, slots=True)
class Script:
    format: int
    game: str
    seats: tuple[int, ...]
    button: int
    noise: Noise
    hands: tuple[HandScript, ...]
    deck: DeckSpec | None = None
    crash_after: int | tuple[int, ...] | None = None
    #: Chinese poker, two players: two hands each (``[table] chinese_two_hands``, CHIN-002)
    chinese_two_hands: bool = False
    #: the table has an antenna under the stub spot (STUB-006: ``[antennas]`` 14 = "stub")
    stub_spot: bool = False

    @property
    def antennas(self) -> dict[int, str] | None:
        """The ``[antennas]`` map the script asks for: None for the default (no stub spot)."""
        if not self.stub_spot:
            return None
        return {**{n: f"seat:{n}" for n in range(1, 11)}, 11: "board", 12: "burn", 13: "muck",
                STUB_ANTENNA: "stub"}

    @property
    def table_lines(self) -> str:
        """The ``[table]`` lines of the configuration the script asks for (one per setting it sets)."""
        return "\nchinese_two_hands = true" if self.chinese_two_hands else ""

    @property
    def crash_steps(self) -> tuple[int, ...]:
        """The steps after which the power fails (our extension: ``crash_after`` may list several)."""
        c = self.crash_after
        return () if c is None else (c,) if isinstance(c, int) else tuple(c)

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (:func:`script_to_dict`)."""
        return script_to_dict(self)

    def to_json(self, **dumps_kw: Any) -> str:
        """JSON text that :func:`parse_script` reads back to an equal script."""
        return json.dumps(script_to_dict(self), **dumps_kw)


def action_of(step: Step | Action) -> Action:
    """The action of a :class:`Step` (a bare action is returned as it is)."""
    return step.action if isinstance(step, Step) else step


def physical_card(ref: CardRef, deck_in_play: str = DECK_IN_PLAY) -> tuple[str, str]:
    """The physical card ``ref`` names, as ``(deck, card)``, or ``("tag", uid)`` for a tag of
    no simulated deck. Two refs with the same physical card are the same tag.

    >>> physical_card(CardRef("As")) == physical_card(CardRef(None, None, "E0040150A05F0000"))
    True
    >>> physical_card(CardRef("As", "B"))
    ('B', 'As')
    """
    if ref.uid is not None:
        return card_of_uid(ref.uid) or ("tag", ref.uid)
    return (ref.deck or deck_in_play, ref.card or "")


# -- parsing helpers --------------------------------------------------------------------------

def _show(value: Any, limit: int = 40) -> str:
    """A short one-line repr of a JSON value, for messages."""
    if isinstance(value, LongNumber):
        return str(value)
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, ensure_ascii=True, default=str)
        except (RecursionError, ValueError):
            text = "a value nested too deeply"
    return text if len(text) <= limit else text[: limit - 3] + "..."


#: integers longer than this are not made ints (int() refuses more than 4,300 digits, and no
#: count, seat or seed of a script needs more than a few)
MAX_DIGITS = 40
#: containers nested deeper than this are where the error is said to be, once JSON gave up
MAX_DEPTH = 64


class LongNumber:
    """A JSON integer of more than :data:`MAX_DIGITS` digits, as the parser keeps it: whatever
    field it is in refuses it as not a number of its kind, naming the step."""

    def __init__(self, text: str) -> None:
        self.digits = len(text.lstrip("-"))

    def __str__(self) -> str:
        return f"a number of {self.digits} digits"


def _int_or_long(text: str) -> int | LongNumber:
    return LongNumber(text) if len(text) > MAX_DIGITS else int(text)


def _path_at(text: str, *, max_depth: int | None = None) -> tuple[list[Any], int]:
    """The JSON path (keys and indexes) at the end of ``text``, or at the first container nested
    deeper than ``max_depth``; and where that is. A scan for the error's place only: ``text``
    need not be valid JSON (json.loads says what is wrong with it)."""
    stack: list[list[Any]] = []  # per open container: [is_array, key or index, a key comes next]
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if stack and not stack[-1][0] and stack[-1][2]:
                stack[-1][1], stack[-1][2] = text[i + 1:j], False
            i = j + 1
            continue
        if c in "[{":
            stack.append([c == "[", 0 if c == "[" else None, c == "{"])
            if max_depth is not None and len(stack) > max_depth:
                return [e[1] for e in stack[:-1]], i
        elif c in "]}" and stack:
            stack.pop()
        elif c == "," and stack:
            if stack[-1][0]:
                stack[-1][1] += 1
            else:
                stack[-1][2] = True
        i += 1
    return [e[1] for e in stack], n


def _where(path: list[Any]) -> str:
    """``hand 2, step 5`` for a place inside that step, ``hand 2`` inside the hand, else ``top level``."""
    if len(path) >= 2 and path[0] == "hands" and isinstance(path[1], int):
        if len(path) >= 4 and path[2] == "steps" and isinstance(path[3], int):
            return f"hand {path[1] + 1}, step {path[3] + 1}"
        return f"hand {path[1] + 1}"
    return "top level"


def _line_col(text: str, at: int) -> str:
    line = text.count("\n", 0, at) + 1
    return f"line {line}, column {at - (text.rfind(chr(10), 0, at) + 1) + 1}"


def load_json(text: str | bytes) -> Any:
    """The JSON document of a script, or ScriptError naming the step (or the line) where it
    cannot be read: not UTF-8, nested too deeply, not JSON. A number too long to be one is kept
    as a :class:`LongNumber`, refused by the field it is in.

    >>> load_json(b'{"hands": [{"steps": [{"deal": "As"}, {"deal": "\\xff"}]}]}')
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 1, step 2: not UTF-8 text (line 1, column 49)
    >>> load_json('{"hands": [{"steps": [{}, {}, {"deal": ' + "[" * 100000 + "]" * 100000 + '}]}]}')
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 1, step 3: nested more than 64 deep (line 1, column 99)
    """
    if isinstance(text, bytes):
        try:
            text = decode_utf8(text)
        except NotUtf8 as exc:
            raise ScriptError(f"{_where(_path_at(exc.good)[0])}: {exc}") from None
    try:
        return json.loads(text, parse_int=_int_or_long)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    except RecursionError:
        path, at = _path_at(text, max_depth=MAX_DEPTH)
        raise ScriptError(f"{_where(path)}: nested more than {MAX_DEPTH} deep ({_line_col(text, at)})") from None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def parse_card_ref(text: Any, where: str) -> CardRef:
    """``"As"``, ``"As@B"`` or ``"tag:E0040150A05F02B7"``; ScriptError names ``where``."""
    if not isinstance(text, str):
        raise ScriptError(f"{where}: a card is a string like 'As', 'As@B' or 'tag:<16 hex digits>', "
                          f"got {_show(text)}")
    if text.startswith("tag:"):
        uid = text[4:]
        if not _UID.fullmatch(uid):
            raise ScriptError(f"{where}: unknown tag {_show(text)} (write 'tag:' and 16 hex digits)")
        return CardRef(None, None, uid.upper())
    card, at, deck = text.partition("@")
    try:
        c = parse_card(card)
    except CardError:
        raise ScriptError(f"{where}: unknown card {_show(text)} (ranks {RANKS}, suits {SUITS})") from None
    if at and deck not in DECK_IDS:
        raise ScriptError(f"{where}: unknown deck {_show(deck)} in {_show(text)} (decks: {', '.join(DECK_IDS)})")
    return CardRef(c, deck or None, None)


def _seat(value: Any, where: str, what: str) -> int:
    if not _is_int(value) or not 1 <= value <= 10:
        raise ScriptError(f"{where}: {what} must be a seat number 1 to 10, got {_show(value)}")
    return value


def _seats(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(_is_int(v) and 1 <= v <= 10 for v in value):
        raise ScriptError(f'{where}: "seats" must be a list of seat numbers 1 to 10, got {_show(value)}')
    if len(set(value)) != len(value):
        dup = next(v for v in value if value.count(v) > 1)
        raise ScriptError(f'{where}: "seats" lists seat {dup} twice')
    if len(value) < 2:
        raise ScriptError(f'{where}: "seats" must list at least two seats (a hand needs two players), '
                          f"got {_show(value)}")
    return tuple(value)


def _keys(d: dict[str, Any], allowed: Collection[str], where: str, what: str) -> None:
    extra = [k for k in d if k not in allowed]
    if extra:
        raise ScriptError(f"{where}: unknown key {_show(extra[0])} ({what} takes {', '.join(allowed)})")


def _flag(d: dict[str, Any], key: str, where: str) -> bool:
    value = d.get(key, False)
    if not isinstance(value, bool):
        raise ScriptError(f'{where}: "{key}" must be true or false, got {_show(value)}')
    return value


def _zone(value: Any, where: str, *, stub: bool = False) -> str:
    """A zone name; with ``stub``, :data:`STUB` too (the target of a move)."""
    if stub and value == STUB:
        return STUB
    if not isinstance(value, str) or not _ZONE.fullmatch(value):
        raise ScriptError(f"{where}: unknown zone {_show(value)} (zones: {ZONES_HELP}{', or stub' if stub else ''})")
    return value


def _press(d: dict[str, Any], where: str, buttons: Collection[str]) -> Press:
    """A press: a pad of PADS (checked as the daemon checks it) or one of ``buttons``."""
    _keys(d, ("press", "long", "seat", "hands", "mode"), where, "a press")
    name = d["press"]
    if not isinstance(name, str) or (name not in PADS and name not in buttons):
        known = dict.fromkeys([*buttons, *PADS])  # the configuration's names first, no repeats
        raise ScriptError(f"{where}: unknown button {_show(name)} (buttons: {', '.join(known)})")
    # The JSON types first, so that a message never quotes a long value whole.
    seat = _seat(d["seat"], where, '"seat"') if "seat" in d else None
    hands = d.get("hands")
    if "hands" in d and (not _is_int(hands) or hands < 1):
        raise ScriptError(f'{where}: "hands" must be a whole number of hands, 1 or more, got {_show(hands)}')
    mode = d.get("mode")
    if "mode" in d and not isinstance(mode, str):
        raise ScriptError(f'{where}: "mode" must be one of {", ".join(MODES)}, got {_show(mode)}')
    if name in PADS:
        try:
            check_press(name, seat, hands, mode=mode)
        except ValueError as exc:
            raise ScriptError(f"{where}: {exc}") from None
    return Press(name, _flag(d, "long", where), seat, hands, mode)


def _step_kind(d: Any, where: str) -> str:
    """The kind of a step (one of :data:`STEP_KINDS`): the one such key its JSON object has."""
    if not isinstance(d, dict) or not d:
        raise ScriptError(f'{where}: a step is a JSON object like {{"deal": "As", "to": "seat:1"}}, '
                          f"got {_show(d)}")
    kinds = [k for k in STEP_KINDS if k in d]
    if not kinds:
        raise ScriptError(f"{where}: unknown step {_show(next(iter(d)))} (steps: {', '.join(STEP_KINDS)})")
    if len(kinds) > 1:
        raise ScriptError(f"{where}: a step does one thing, this one has both {_show(kinds[0])} "
                          f"and {_show(kinds[1])}")
    return kinds[0]


def _deal(d: dict[str, Any], where: str) -> Deal:
    _keys(d, ("deal", "to", "face_up", "clone"), where, "a deal")
    if "to" not in d:
        raise ScriptError(f'{where}: a deal needs "to" (zones: {ZONES_HELP})')
    card = parse_card_ref(d["deal"], where)
    return Deal(card, _zone(d["to"], where), _flag(d, "face_up", where), _flag(d, "clone", where))


def _muck(d: dict[str, Any], where: str) -> Muck:
    _keys(d, ("muck",), where, "a muck")
    zone = _zone(d["muck"], where)
    if not zone.startswith("seat:"):
        raise ScriptError(f"{where}: only a seat's cards can be mucked, not {_show(zone)} "
                          f"(write seat:1..seat:10)")
    return Muck(int(zone[5:]))


def _move(d: dict[str, Any], where: str) -> Move:
    _keys(d, ("move", "to"), where, "a move")
    if "to" not in d:
        raise ScriptError(f'{where}: a move needs "to" (zones: {ZONES_HELP}, or stub)')
    card = parse_card_ref(d["move"], where)
    return Move(card, _zone(d["to"], where, stub=True))


def _shuffler(d: dict[str, Any], where: str) -> Shuffler:
    _keys(d, ("shuffler", "cards"), where, "a shuffler event")
    action = d["shuffler"]
    if not isinstance(action, str) or action not in SHUFFLER_ACTIONS:
        raise ScriptError(f"{where}: unknown shuffler event {_show(action)} "
                          f"(events: {', '.join(SHUFFLER_ACTIONS)})")
    if "cards" not in d:
        return Shuffler(action)
    cards = d["cards"]
    if action != "deck":
        raise ScriptError(f'{where}: "cards" goes only with {{"shuffler": "deck"}}, not with {_show(action)}')
    if not isinstance(cards, list):
        raise ScriptError(f'{where}: "cards" must be a list of cards, got {_show(cards)}')
    return Shuffler(action, tuple(parse_card_ref(c, where) for c in cards))


def _end(d: dict[str, Any], where: str) -> End:
    _keys(d, ("end",), where, "an end")
    if d["end"] is not True:
        raise ScriptError(f'{where}: an end step is {{"end": true}}, got {_show(d["end"])}')
    return End()


def _discard(d: dict[str, Any], where: str) -> Discard:
    _keys(d, ("discard", "from"), where, "a discard")
    if "from" not in d:
        raise ScriptError(f'{where}: a discard needs "from" (the seat, seat:1..seat:10)')
    zone = _zone(d["from"], where)
    if not zone.startswith("seat:"):
        raise ScriptError(f"{where}: a discard comes from a seat, not {_show(zone)} (write seat:1..seat:10)")
    return Discard(_card_list(d["discard"], where, "a discard"), int(zone[5:]))


def _restub(d: dict[str, Any], where: str) -> Restub:
    _keys(d, ("restub",), where, "a restub")
    return Restub(_card_list(d["restub"], where, "a restub"))


def _wait(d: dict[str, Any], where: str) -> Wait:
    _keys(d, ("wait",), where, "a wait")
    v = d["wait"]
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v <= MAX_WAIT_S:
        raise ScriptError(f'{where}: "wait" is a number of seconds, more than 0 and at most {MAX_WAIT_S}, '
                          f"got {_show(v)}")
    return Wait(float(v))


def _floor_int(d: dict[str, Any], key: str, where: str, lo: int, hi: int, what: str) -> int | None:
    """``d[key]``, a whole number ``lo`` to ``hi`` (``what`` says what it counts), None if absent."""
    if key not in d:
        return None
    v = d[key]
    if not _is_int(v) or not lo <= v <= hi:
        raise ScriptError(f'{where}: "{key}" must be {what} {lo} to {hi}, got {_show(v)}')
    return int(v)


def _floor_name(d: dict[str, Any], key: str, where: str) -> str | None:
    """``d[key]``, a name as the room's topics have it (a tournament, a table), None if absent."""
    if key not in d:
        return None
    v = d[key]
    if not isinstance(v, str) or not NAME.fullmatch(v):
        raise ScriptError(f'{where}: "{key}" must be a name of 1 to 64 letters, digits, \'_\', \'.\' or \'-\', '
                          f"got {_show(v)}")
    return v


def _floor_level(d: dict[str, Any], where: str) -> Floor:
    level = _floor_int(d, "level", where, 1, MAX_LEVEL, "a level number")
    kind = d.get("kind", "level")
    if kind not in LEVEL_KINDS:
        raise ScriptError(f'{where}: "kind" must be one of {", ".join(LEVEL_KINDS)}, got {_show(kind)}')
    sb, bb, ante = (_floor_int(d, key, where, 0, MAX_CHIPS, "a number of chips") for key in ("sb", "bb", "ante"))
    if sb is not None and bb is not None and sb > bb:
        raise ScriptError(f'{where}: "sb" ({sb}) is over "bb" ({bb})')
    game = d.get("game")
    if "game" in d and (not isinstance(game, str) or game not in DEALT_GAMES):
        raise ScriptError(f"{where}: unknown game {_show(game)} (games: {', '.join(DEALT_GAMES)})")
    return Floor("level", level=level, kind=kind, sb=sb, bb=bb, ante=ante, game=game,
                 tournament=_floor_name(d, "tournament", where) or TOURNAMENT)


def _floor(d: dict[str, Any], where: str) -> Floor:
    """A floor step: the floor's signal as the room link brings it (docs/deal-script.md)."""
    signal = d["floor"]
    if not isinstance(signal, str) or signal not in FLOOR_STEPS:
        raise ScriptError(f"{where}: unknown floor signal {_show(signal)} (signals: {', '.join(FLOOR_STEPS)})")
    _keys(d, ("floor", *_FLOOR_KEYS[signal]), where, f'a floor {_show(signal)} step')
    need = _FLOOR_NEEDS.get(signal)
    if need is not None and need[0] not in d:
        raise ScriptError(f'{where}: a floor {_show(signal)} step needs "{need[0]}" ({need[1]})')
    if signal == "level":
        return _floor_level(d, where)
    if signal == "clock":
        return Floor("clock", seat=_seat(d["seat"], where, '"seat"'))
    if signal in ("release", "approve"):
        return Floor(signal)
    on = d.get("on", True)  # (h4h and bubble have one: a hold is on unless it says not)
    if not isinstance(on, bool):
        raise ScriptError(f'{where}: "on" must be true or false, got {_show(on)}')
    if signal != "bubble_hold":
        return Floor(signal, on=on)
    table, hand = _floor_name(d, "table", where), _floor_int(d, "hand", where, 1, MAX_HAND, "a hand number")
    if not on and (table is not None or hand is not None):
        raise ScriptError(f'{where}: "table" and "hand" name the hold, and this step ends it ("on": false)')
    return Floor("bubble_hold", on=on, table=table, hand=hand)


def _look(d: dict[str, Any], where: str) -> Look:
    _keys(d, ("look", "for"), where, "a look")
    zone = _zone(d["look"], where)
    if not zone.startswith("seat:"):
        raise ScriptError(f"{where}: a look is a seat's (write seat:1..seat:10), not {_show(zone)}")
    if "for" not in d:
        raise ScriptError(f'{where}: a look needs "for" (the seconds the cards are off the table)')
    v = d["for"]
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 < v <= MAX_WAIT_S:
        raise ScriptError(f'{where}: "for" is a number of seconds, more than 0 and at most {MAX_WAIT_S}, '
                          f"got {_show(v)}")
    return Look(int(zone[5:]), float(v))


def _lift(d: dict[str, Any], where: str) -> Lift:
    _keys(d, ("lift",), where, "a lift")
    return Lift(parse_card_ref(d["lift"], where))


def _drop(d: dict[str, Any], where: str) -> Drop:
    _keys(d, ("drop",), where, "a drop")
    if d["drop"] != "stub":
        raise ScriptError(f'{where}: a drop is {{"drop": "stub"}} (the stub on its spot), got {_show(d["drop"])}')
    return Drop()


def _stack(d: dict[str, Any], where: str) -> Stack:
    _keys(d, ("stack", "to"), where, "a stack")
    if "to" not in d:
        raise ScriptError(f'{where}: a stack needs "to" (zones: {ZONES_HELP})')
    return Stack(_card_list(d["stack"], where, "a stack"), _zone(d["to"], where))


def _device(d: dict[str, Any], where: str, kind: str) -> str:
    """The device an unplug or a plug (``kind``) names."""
    _keys(d, (kind,), where, f"a{'n' if kind == 'unplug' else ''} {kind}")
    device = d[kind]
    if not isinstance(device, str) or device not in DEVICES:
        raise ScriptError(f"{where}: unknown device {_show(device)} (devices: {', '.join(DEVICES)})")
    return device


def _unplug(d: dict[str, Any], where: str) -> Unplug:
    return Unplug(_device(d, where, "unplug"))


def _plug(d: dict[str, Any], where: str) -> Plug:
    return Plug(_device(d, where, "plug"))


#: step kind -> its parser, for every kind but ``press`` (which needs the configuration's buttons)
_STEP_PARSERS: dict[str, Callable[[dict[str, Any], str], Action]] = {
    "deal": _deal, "muck": _muck, "move": _move, "shuffler": _shuffler, "end": _end, "discard": _discard,
    "restub": _restub, "wait": _wait, "stack": _stack, "unplug": _unplug, "plug": _plug, "floor": _floor,
    "look": _look, "lift": _lift, "drop": _drop,
}


def parse_step(d: Any, *, where: str, buttons: Collection[str] = DEFAULT_BUTTONS) -> Action:
    """One step's action from its JSON object; ScriptError names ``where``.

    >>> parse_step({"muck": "seat:4"}, where="hand 1, step 6")
    Muck(seat=4)
    >>> parse_step({"press": "seat_out", "seat": 4}, where="hand 2, step 1")
    Press(name='seat_out', long=False, seat=4, hands=None, mode=None)
    >>> parse_step({"press": "mode", "mode": "race"}, where="hand 2, step 1").mode
    'race'
    >>> parse_step({"press": "mode", "mode": "chinese"}, where="hand 2, step 1")
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 2, step 1: press 'mode': a mode goes only with the mode pad, one of race,
        highcard, break, satellite; got 'chinese'
    >>> parse_step({"press": "seat_out"}, where="hand 2, step 1")
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 2, step 1: press 'seat_out' needs a seat (1 to 10)
    >>> parse_step({"press": "exposd"}, where="hand 1, step 3", buttons=())  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 1, step 3: unknown button 'exposd' (buttons: exposed, exposed_player, ...)
    >>> parse_step({"move": "7d", "to": "stub"}, where="hand 1, step 9")
    Move(card=CardRef(card='7d', deck=None, uid=None), to='stub')
    >>> parse_step({"discard": ["7h", "2c"], "from": "seat:3"}, where="hand 1, step 20").seat
    3
    >>> parse_step({"discard": [], "from": "seat:3"}, where="hand 1, step 20")
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 1, step 20: a discard names a non-empty list of cards, got []
    >>> parse_step({"restub": ["7h", "7h@A"]}, where="hand 1, step 31")
    Traceback (most recent call last):
    ...
    hw_sim.script.ScriptError: hand 1, step 31: a restub names 7h@A twice
    """
    kind = _step_kind(d, where)
    if kind == "press":
        return _press(d, where, buttons)
    return _STEP_PARSERS[kind](d, where)


def _card_list(value: Any, where: str, what: str) -> tuple[CardRef, ...]:
    """The cards of a discard or a restub: a non-empty list, no physical card twice."""
    if not isinstance(value, list) or not value:
        raise ScriptError(f"{where}: {what} names a non-empty list of cards, got {_show(value)}")
    cards = tuple(parse_card_ref(c, where) for c in value)
    seen: set[tuple[str, str]] = set()
    for c in cards:
        if physical_card(c) in seen:
            raise ScriptError(f"{where}: {what} names {c} twice")
        seen.add(physical_card(c))
    return cards


def _deck_spec(d: Any, where: str) -> DeckSpec:
    if not isinstance(d, dict):
        raise ScriptError(f'{where}: "deck" must be an object with "missing" and/or "extra", got {_show(d)}')
    _keys(d, ("missing", "extra"), where, '"deck"')
    lists = []
    for key in ("missing", "extra"):
        v = d.get(key, [])
        if not isinstance(v, list):
            raise ScriptError(f'{where}: "deck.{key}" must be a list of cards, got {_show(v)}')
        lists.append(tuple(parse_card_ref(c, f"{where}, deck.{key}") for c in v))
    return DeckSpec(*lists)


def _noise(n: Any, where: str) -> Noise:
    if not isinstance(n, dict):
        raise ScriptError(f'{where}: "noise" must be an object with seed, miss, repeat, crosstalk, got {_show(n)}')
    _keys(n, ("seed", "miss", "repeat", "crosstalk", "profile"), where, '"noise"')
    name = n.get("profile", "standard")
    if name not in ("standard", "harsh"):
        raise ScriptError(f'{where}: "noise.profile" must be "standard" or "harsh", got {_show(name)}')
    seed = n.get("seed", 0)
    if not _is_int(seed):
        raise ScriptError(f'{where}: "noise.seed" must be a whole number, got {_show(seed)}')
    probs = {}
    for key in ("miss", "repeat", "crosstalk"):
        v = n.get(key, 0.0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
            raise ScriptError(f'{where}: "noise.{key}" must be a probability 0 to 1, got {_show(v)}')
        probs[key] = float(v)
    return Noise(seed, **probs, profile=name)


def _game(value: Any, where: str) -> str:
    if not isinstance(value, str) or value not in GAMES:
        raise ScriptError(f"{where}: unknown game {_show(value)} (games: {', '.join(GAMES)})")
    return value


class _CardsOut:
    """Follows the physical cards a hand's steps put on the table, through deals, mucks, moves,
    discards, restubs and stacks, and refuses a step the table cannot do in the hand's ``game``."""

    def __init__(self, game: str) -> None:
        self.game = game
        # physical card -> the step that dealt it, and the zone it is in, while it is on the table
        # (until the gather, or a move back on the stub)
        self.out: dict[tuple[str, str], int] = {}
        self.zone_of: dict[tuple[str, str], str] = {}

    def follow(self, action: Action, i: int, at: str) -> None:
        """Take in ``action``, step ``i`` of the hand (``at`` names it); ScriptError when refused."""
        follow = self._FOLLOW.get(type(action))
        if follow is not None:
            follow(self, action, i, at)

    def _deal(self, action: Deal, i: int, at: str) -> None:
        # One physical tag is in one place: dealing it again before the gather is a script
        # error, unless the script means a second tag with the same UID (a clone, DECK-006/7).
        key = physical_card(action.card)
        if key in self.out and not action.clone:
            raise ScriptError(f"{at}: {action.card} is already out (dealt at step {self.out[key]} and not "
                              f'gathered; a second tag with the same UID is "clone": true)')
        if key not in self.out:  # a clone's moves are not followed: a move names the first tag
            self.out[key], self.zone_of[key] = i, action.to

    def _muck(self, action: Muck, i: int, at: str) -> None:
        seat = f"seat:{action.seat}"
        for key, zone in self.zone_of.items():
            if zone == seat:
                self.zone_of[key] = "muck"

    def _move(self, action: Move, i: int, at: str) -> None:
        key = physical_card(action.card)
        if key not in self.zone_of:
            raise ScriptError(f"{at}: {action.card} is not on the table (never dealt, or gathered, "
                              f"or back on the stub)")
        if self.zone_of[key] == action.to:
            raise ScriptError(f"{at}: {action.card} is already at {action.to} (a move goes to another "
                              f"zone, or to the stub)")
        if action.to == STUB:
            del self.out[key], self.zone_of[key]  # off the table: it may be dealt again
        else:
            self.zone_of[key] = action.to

    def _discard(self, action: Discard, i: int, at: str) -> None:
        if self.game not in DRAW_GAMES:
            raise ScriptError(f"{at}: a discard is a draw game's step, and this hand is {self.game} "
                              f"(draw games: {', '.join(DRAW_GAMES)})")
        seat = f"seat:{action.seat}"
        for card in action.cards:
            key = physical_card(card)
            if self.zone_of.get(key) != seat:
                held = f"at {self.zone_of[key]}" if key in self.zone_of else "not on the table"
                raise ScriptError(f"{at}: {card} is {held}, not at {seat} (a discard is of the seat's own cards)")
            self.zone_of[key] = "muck"

    def _restub(self, action: Restub, i: int, at: str) -> None:
        if self.game not in DRAW_GAMES + STUD_GAMES:
            raise ScriptError(f"{at}: a restub is a stud or draw game's step (DRAW-005, STUD-007), and this "
                              f"hand is {self.game}")
        for card in action.cards:
            key = physical_card(card)
            if self.zone_of.get(key, "muck") not in ("muck", "burn"):
                raise ScriptError(f"{at}: {card} is at {self.zone_of[key]} (a restub gathers cards from the muck, "
                                  f"the burns or the stub)")
            self.out.pop(key, None)  # off the table: it may be dealt again
            self.zone_of.pop(key, None)

    def _look(self, action: Look, i: int, at: str) -> None:
        seat = f"seat:{action.seat}"
        if seat not in self.zone_of.values():
            raise ScriptError(f"{at}: {seat} holds no card to look at")

    def _lift(self, action: Lift, i: int, at: str) -> None:
        key = physical_card(action.card)
        zone = self.zone_of.get(key)
        if zone is None or not zone.startswith("seat:"):
            held = f"at {zone}" if zone is not None else "not on the table"
            raise ScriptError(f"{at}: {action.card} is {held} (a player lifts a card of his seat)")
        self.zone_of[key] = HELD

    def _stack(self, action: Stack, i: int, at: str) -> None:
        if self.game not in CHINESE_GAMES:
            raise ScriptError(f"{at}: a stack is Chinese poker's step (CHIN-001), and this hand is {self.game}")
        for card in action.cards:
            key = physical_card(card)
            if key in self.out:
                raise ScriptError(f"{at}: {card} is already out (dealt at step {self.out[key]} and not gathered)")
            self.out[key], self.zone_of[key] = i, action.to

    #: the actions that put cards on the table, move them or take them off; the others move none
    _FOLLOW: ClassVar[dict[type, Callable[[_CardsOut, Any, int, str], None]]] = {
        Deal: _deal, Muck: _muck, Move: _move, Discard: _discard, Restub: _restub, Stack: _stack,
        Look: _look, Lift: _lift,
    }


def _hand_steps_list(d: Any, where: str) -> list[Any]:
    """A hand's JSON object, checked, and its ``steps`` (a list, not read yet)."""
    if not isinstance(d, dict):
        raise ScriptError(f'{where}: a hand is an object with "steps", got {_show(d)}')
    _keys(d, _HAND_KEYS, where, "a hand")
    if "steps" not in d:
        raise ScriptError(f'{where}: a hand needs "steps" (a list)')
    raw = d["steps"]
    if not isinstance(raw, list):
        raise ScriptError(f'{where}: "steps" must be a list, got {_show(raw)}')
    return raw


def _steps(raw: list[Any], number: int, buttons: Collection[str], game: str) -> list[Step]:
    """The steps of hand ``number``, each checked against the cards on the table, ending with
    :class:`End` (an implicit one appended when the hand does not end so)."""
    where = f"hand {number}"
    cards = _CardsOut(game)
    steps: list[Step] = []
    ended_at: int | None = None
    for i, s in enumerate(raw, 1):
        at = f"{where}, step {i}"
        action = parse_step(s, where=at, buttons=buttons)
        if ended_at is not None:
            raise ScriptError(f'{at}: the hand ended at step {ended_at} ({{"end": true}}); '
                              f"put the steps that follow in a new hand")
        cards.follow(action, i, at)
        if isinstance(action, End):
            ended_at = i
        steps.append(Step(number, i, action))
    if ended_at is None:
        # Implicit end: the dealer always gathers the cards before the next hand.
        steps.append(Step(number, len(steps) + 1, End()))
    return steps


def _hand(d: Any, number: int, buttons: Collection[str], script_game: str = "holdem") -> HandScript:
    """Hand ``number`` (from 1) of the script, checked; ``script_game`` is the script's game."""
    where = f"hand {number}"
    raw = _hand_steps_list(d, where)
    seats = _seats(d["seats"], where) if "seats" in d else None
    button = _seat(d["button"], where, '"button"') if "button" in d else None
    deck = _deck_spec(d["deck"], where) if "deck" in d else None
    own_game = _game(d["game"], where) if "game" in d else None
    steps = _steps(raw, number, buttons, own_game or script_game)
    return HandScript(tuple(steps), seats, button, deck, own_game)


def _required(doc: dict[str, Any], key: str, where: str, why: str) -> Any:
    """``doc[key]``, or ScriptError saying it is missing and ``why`` it is needed."""
    if key not in doc:
        raise ScriptError(f'{where}: "{key}" is missing ({why})')
    return doc[key]


def _check_top(doc: Any, where: str) -> None:
    """The script is a JSON object of the known keys, in the format :data:`FORMAT`."""
    if not isinstance(doc, dict):
        raise ScriptError(f"{where}: a script is a JSON object, got {_show(doc)}")
    _keys(doc, _TOP_KEYS, where, "a script")
    fmt = _required(doc, "format", where, f"must be {FORMAT}")
    if not _is_int(fmt) or fmt != FORMAT:
        raise ScriptError(f'{where}: "format" must be {FORMAT}, got {_show(fmt)}')


def _crash_cuts(crash: Any, where: str) -> tuple[Any, ...] | None:
    """The steps after which the power fails (``crash_after``: a count, or an increasing list of
    them), None without ``crash_after``."""
    cuts = (crash,) if _is_int(crash) else tuple(crash) if isinstance(crash, list) and crash else None
    if crash is not None and (cuts is None or not all(_is_int(c) and c >= 1 for c in cuts)
                              or list(cuts) != sorted(set(cuts))):
        raise ScriptError(f'{where}: "crash_after" must be a step count of 1 or more (or a list of them, '
                          f'increasing), got {_show(crash)}')
    return cuts


def _hands(doc: dict[str, Any], where: str, buttons: Collection[str], game: str) -> tuple[HandScript, ...]:
    """The script's hands, each checked (:func:`_hand`)."""
    hands_raw = _required(doc, "hands", where, 'a list of hands, each with its "steps"')
    if not isinstance(hands_raw, list) or not hands_raw:
        raise ScriptError(f'{where}: "hands" must be a non-empty list of hands, got {_show(hands_raw)}')
    return tuple(_hand(h, i, buttons, game) for i, h in enumerate(hands_raw, 1))


def _check_crash_fits(cuts: tuple[Any, ...] | None, hands: tuple[HandScript, ...], where: str) -> None:
    """The power fails within the script: after a step it has."""
    total = sum(len(h.steps) for h in hands)
    if cuts is not None and cuts[-1] > total:
        raise ScriptError(f'{where}: "crash_after" is {cuts[-1]} but the script has only {total} steps '
                          f"(counting each hand's end)")


def parse_script(text: str | bytes, *, buttons: Collection[str] = DEFAULT_BUTTONS) -> Script:
    """Parse and check a whole script; :class:`ScriptError` (one line) on the first problem.

    ``text`` may be the file's bytes (UTF-8; see :func:`load_json` for what cannot be read).
    ``buttons``: pad names a configuration knows besides :data:`controller.core.pads.PADS` (those
    are always known); ``{"press": NAME}`` must name one or the other.
    """
    doc = load_json(text)
    where = "top level"
    _check_top(doc, where)
    game = _game(doc.get("game", "holdem"), where)
    seats = _seats(_required(doc, "seats", where, "the seats dealt in, 1 to 10"), where)
    button = _seat(_required(doc, "button", where, "the button's seat, 1 to 10"), where, '"button"')
    noise = _noise(doc.get("noise", {}), where)
    deck = _deck_spec(doc["deck"], where) if "deck" in doc else None
    crash = doc.get("crash_after")
    cuts = _crash_cuts(crash, where)
    hands = _hands(doc, where, buttons, game)
    two_hands = _flag(doc, "chinese_two_hands", where)
    stub_spot = _flag(doc, "stub_spot", where)
    _check_crash_fits(cuts, hands, where)
    return Script(format=FORMAT, game=game, seats=seats, button=button, noise=noise, hands=hands,
                  deck=deck, crash_after=crash if crash is None or _is_int(crash) else cuts,
                  chinese_two_hands=two_hands, stub_spot=stub_spot)


# -- back to JSON -------------------------------------------------------------------------------

def action_to_dict(a: Action) -> dict[str, Any]:
    """The JSON object of one action (the inverse of :func:`parse_step`)."""
    write = _WRITERS.get(type(a))
    if write is None:
        raise TypeError(f"not a script action: {a!r}")
    return write(a)


def _deal_to_dict(a: Deal) -> dict[str, Any]:
    d: dict[str, Any] = {"deal": str(a.card), "to": a.to}
    if a.face_up:
        d["face_up"] = True
    if a.clone:
        d["clone"] = True
    return d


def _press_to_dict(a: Press) -> dict[str, Any]:
    d: dict[str, Any] = {"press": a.name}
    if a.long:
        d["long"] = True
    for key in ("seat", "hands", "mode"):  # (only those it has)
        if getattr(a, key) is not None:
            d[key] = getattr(a, key)
    return d


#: an action's class -> its JSON object (by exact class: no action class has a subclass)
_WRITERS: dict[type, Callable[[Any], dict[str, Any]]] = {
    Deal: _deal_to_dict,
    Muck: lambda a: {"muck": f"seat:{a.seat}"},
    Press: _press_to_dict,
    Move: lambda a: {"move": str(a.card), "to": a.to},
    Shuffler: lambda a: {"shuffler": a.action, **({"cards": [str(c) for c in a.cards]} if a.cards is not None
                                                  else {})},
    End: lambda a: {"end": True},
    Unplug: lambda a: {"unplug": a.device},
    Plug: lambda a: {"plug": a.device},
    Discard: lambda a: {"discard": [str(c) for c in a.cards], "from": f"seat:{a.seat}"},
    Restub: lambda a: {"restub": [str(c) for c in a.cards]},
    Stack: lambda a: {"stack": [str(c) for c in a.cards], "to": a.to},
    Wait: lambda a: {"wait": int(a.seconds) if a.seconds == int(a.seconds) else a.seconds},
    Floor: lambda a: {"floor": a.signal, **{k: getattr(a, k) for k in _FLOOR_KEYS[a.signal]
                                            if getattr(a, k) is not None}},
    Look: lambda a: {"look": f"seat:{a.seat}", "for": int(a.seconds) if a.seconds == int(a.seconds) else a.seconds},
    Lift: lambda a: {"lift": str(a.card)},
    Drop: lambda a: {"drop": a.what},
}


def _deck_to_dict(spec: DeckSpec) -> dict[str, list[str]]:
    return {"missing": [str(c) for c in spec.missing], "extra": [str(c) for c in spec.extra]}


def script_to_dict(s: Script) -> dict[str, Any]:
    """The JSON form of a parsed script: ``parse_script(json.dumps(script_to_dict(s))) == s``.

    Implicit ends are written out, so the result is the script as it will run.
    """
    hands = []
    for h in s.hands:
        hd: dict[str, Any] = {}
        if h.seats is not None:
            hd["seats"] = list(h.seats)
        if h.button is not None:
            hd["button"] = h.button
        if h.deck is not None:
            hd["deck"] = _deck_to_dict(h.deck)
        if h.game is not None:
            hd["game"] = h.game
        hd["steps"] = [action_to_dict(st.action) for st in h.steps]
        hands.append(hd)
    out: dict[str, Any] = {"format": s.format, "game": s.game, "seats": list(s.seats), "button": s.button,
                           "noise": {"seed": s.noise.seed, "miss": s.noise.miss, "repeat": s.noise.repeat,
                                     "crosstalk": s.noise.crosstalk,
                                     **({"profile": s.noise.profile} if s.noise.profile != "standard" else {})}}
    if s.deck is not None:
        out["deck"] = _deck_to_dict(s.deck)
    if s.chinese_two_hands:
        out["chinese_two_hands"] = True
    if s.stub_spot:
        out["stub_spot"] = True
    if s.crash_after is not None:
        out["crash_after"] = s.crash_after if isinstance(s.crash_after, int) else list(s.crash_after)
    out["hands"] = hands
    return out
