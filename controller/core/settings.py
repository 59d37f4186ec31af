"""The table's settings as the pure core sees them (the shell loads them from TOML)."""

from __future__ import annotations

from dataclasses import Field, dataclass, field
from typing import Any

from controller.core.games import DEALT, Game, game_of
from controller.core.mixed import Rotation
from controller.core.zones import ZoneMap

GAMES = DEALT  # game -> hole cards per seat, for the games the core deals today (controller.core.games)


def deal_order(seats: tuple[int, ...] | list[int], button: int) -> list[int]:
    """The seats in dealing order: clockwise from the first seat left of the button.

    DEAL-001: one card at a time, clockwise, starting left of the button. Heads-up this is
    the non-button seat, as DEAL-002 asks. The button need not be a dealt-in seat (a dead
    button, DEAL-005).

    >>> deal_order([1, 2, 4, 6, 9], 9)
    [1, 2, 4, 6, 9]
    >>> deal_order([1, 2, 4, 6, 9], 4)
    [6, 9, 1, 2, 4]
    >>> deal_order([3, 7], 7)
    [3, 7]
    """
    s = sorted(seats)
    after = [x for x in s if x > button]
    return after + [x for x in s if x <= button]


def next_button(seats: tuple[int, ...] | list[int], button: int) -> int:
    """The next dealt-in seat clockwise from ``button`` (DEAL-004, without dead-button rules).

    >>> next_button([1, 2, 4, 6, 9], 9)
    1
    >>> next_button([1, 2, 4, 6, 9], 4)
    6
    """
    return deal_order(seats, button)[0]


#: docs/rules.md §20 settings the odd chip uses (controller/core/showdown/winners.py): name -> (choices, default),
#: the default first.
ODD_CHIP_SETTINGS: dict[str, tuple[tuple[str, ...], str]] = {
    # SPLIT-006 STUD_ODD_CHIP_CARDS: every card the seat received (001) or the five it shows (002)
    "stud_odd_chip_cards": (("received", "shown"), "received"),
    # SPLIT-006 STUD_ODD_CHIP_LOW: in a low game (half) the lowest card (001) or the highest (002)
    "stud_odd_chip_low": (("lowest", "highest"), "lowest"),
    # SPLIT-008 HYBRID_ODD_CHIP: to the five-card half's winner (002) or the button rule (001 by analogy)
    "hybrid_odd_chip": (("five_card", "button"), "five_card"),
}

#: docs/rules.md §20 settings of the race-off (controller/core/table/modes.py): name -> (choices, default)
RACE_SETTINGS: dict[str, tuple[tuple[str, ...], str]] = {
    # RACE-003 RACE_ONE_PER_PLAYER: one chip a player, by his best card (001, 002), or one a card (004)
    "race_one_per_player": (("yes", "no"), "yes"),
    # RACE-004 RACE_REMAINDER: the pooled leftover of half a chip or more makes a chip (001, 002), or
    # the next-ranked holder's own leftover must be half a chip (004)
    "race_remainder": (("pooled", "holder"), "pooled"),
    # RACE-005 RACE_ALLIN: an all-in player in a race-off: the floor decides (001), or he gets the
    # first chip whatever his card (002)
    "race_allin": (("floor", "first_chip"), "floor"),
}

#: docs/rules.md §20 settings the rules use (the ``[rules]`` section): name -> (choices, default).
#: The first choice is the proposed default.
RULE_SETTINGS: dict[str, tuple[tuple[str, ...], str]] = {
    # DEAL-006: a late arrival plays at once unless he sits between the button and the small
    # blind (002, 004), or waits until the big blind reaches him (001 late registrants)
    "late_entry": (("immediate", "wait_for_bb"), "immediate"),
    # MISD-013: a fault found after substantial action: the hand proceeds (001, 002) or the
    # misdealt seat's hand is dead (003)
    "late_fault": (("proceeds", "dead"), "proceeds"),
    # MISD-007: the 003 list (SB third card pulled; other counts a misdeal) or button only
    "deal_count_fixes": (("003", "button_only"), "003"),
    # MUCK-002: who may take a hand back out of the muck: the floor (RFID proves identity),
    # nobody (001), the dealer (003)
    "muck_retrieval": (("floor", "never", "dealer"), "floor"),
    # BOARD-002: who picks the burn out of a four-card flop: the floor (T, 002), the dealer (003)
    "four_flop_picker": (("floor", "dealer"), "floor"),
    # DEAL-007 (cash games): a newcomer posts a big blind or waits for it (001), or comes in free
    # unless his seat is the best position, as the game's placard says (002)
    "cash_entry": (("post_or_wait", "placard"), "post_or_wait"),
    # DEAL-008 (cash games): after a button buy the buyer gets the button the next hand (001, and
    # both guides' §MISSED BLINDS), or the button jumps over him (002 §INCOMING PLAYER)
    "buy_button_next": (("buyer", "skip"), "buyer"),
    # STUD-011 STUD_ABSENT_BRINGIN: an absent seat that posted the bring-in is dealt on until it
    # faces a bet (001) or dealt no further street (002)
    "stud_absent_bringin": (("until_bet", "no_streets"), "until_bet"),
    # DEAL-009 / STUD-011 ABSENT_DEADLINE: an absent player's hand is dead if he is not back by the
    # last initial card (001, 002), by the first card of the deal (004), or by his turn to act
    # (003: the table sees no turns, so the dealer is told at the last initial card to muck it then)
    "absent_deadline": (("last_card", "first_card", "own_turn"), "last_card"),
    # STUD-007 STUD_SHORT_STUB_METHOD: a stub short for 7th street that the burns make up: deal it
    # down to its last card, mix that card with the burns, cut, deal on with no burn (001); or
    # scramble the stub with the burns, cut, burn and deal (002)
    "stud_short_stub_method": (("001", "002"), "001"),
    **ODD_CHIP_SETTINGS,
    **RACE_SETTINGS,
    # MISD-009 / DRAW-003 DRAW_EXPOSED_DEAL: a card the dealer exposes in a draw game's starting
    # hand is replaced unless a wheel card, which the player keeps (001 lowball, cash); always
    # replaced (001 lowball, tournaments); or a misdeal (001's misdeal table). ``by_event``:
    # docs/rules.md §20's proposal, replace in a tournament and keep a wheel card in a cash game ([table] event)
    "draw_exposed_deal": (("by_event", "wheel_kept", "replace", "misdeal"), "by_event"),
}


#: the metadata of a setting left out of the saved state's fingerprint
#: (:func:`controller.core.state.settings_key`): one that judges what comes next (a press, a card, the
#: next hand), not what a saved state holds, so that changing it keeps a saved mid-hand state. The
#: settings before issue 16's (the seats, the zones, the tracker's cycles, the first rules) are
#: in it: a state is taken only under the configuration it was written with.
UNKEYED: dict[str, bool] = {"fingerprint": False}


def keyed(f: Field[Any]) -> bool:
    """The setting ``f`` is in the saved state's fingerprint (it is not marked :data:`UNKEYED`)."""
    return bool(f.metadata.get("fingerprint", True))


@dataclass(frozen=True, slots=True)
class RakeCaps:
    """FLOW-009: the rake's most, and the promotional rake on top, five-handed or more (``full``,
    ``promo``), four-handed (``four``, ``promo_four``), three-handed or fewer (``three``,
    ``promo_three``), in the house's money (the guide's dollars): ``[rules] rake_cap`` ...
    (:func:`controller.core.rules.table_flow.rake_cap`)."""

    full: int
    promo: int
    four: int
    promo_four: int
    three: int
    promo_three: int


@dataclass(frozen=True)
class RuleSettings:
    """docs/rules.md §20 settings, with the proposed defaults (see :data:`RULE_SETTINGS`)."""

    late_entry: str = "immediate"
    late_fault: str = "proceeds"
    deal_count_fixes: str = "003"
    muck_retrieval: str = "floor"
    four_flop_picker: str = "floor"
    # -- below, the settings out of the fingerprint (:data:`UNKEYED`): each is read afresh at the
    # press, card or hand it judges, and the state holds nothing they decided --
    #: the odd chip (SPLIT-006, SPLIT-008: :data:`ODD_CHIP_SETTINGS`)
    stud_odd_chip_cards: str = field(default="received", metadata=UNKEYED)
    stud_odd_chip_low: str = field(default="lowest", metadata=UNKEYED)
    hybrid_odd_chip: str = field(default="five_card", metadata=UNKEYED)
    #: the race-off (RACE-003..005: :data:`RACE_SETTINGS`) and the open-seat hold (BREAK-002:
    #: OPEN_SEAT_HOLD, and LATE_STAGE_HOLD once the floor says twelve or fewer tables remain,
    #: ``late_stage``)
    race_one_per_player: str = field(default="yes", metadata=UNKEYED)
    race_remainder: str = field(default="pooled", metadata=UNKEYED)
    race_allin: str = field(default="floor", metadata=UNKEYED)
    open_seat_hold: int = field(default=3, metadata=UNKEYED)
    late_stage_hold: int = field(default=2, metadata=UNKEYED)
    late_stage: bool = field(default=False, metadata=UNKEYED)
    #: cash games' entry and button buys (DEAL-007/008: :data:`RULE_SETTINGS`)
    cash_entry: str = field(default="post_or_wait", metadata=UNKEYED)
    buy_button_next: str = field(default="buyer", metadata=UNKEYED)
    #: MISD-009 (DRAW_EXPOSED_DEAL)
    draw_exposed_deal: str = field(default="by_event", metadata=UNKEYED)
    #: STUD-011 (STUD_ABSENT_BRINGIN)
    stud_absent_bringin: str = field(default="until_bet", metadata=UNKEYED)
    #: DEAL-009 (ABSENT_DEADLINE)
    absent_deadline: str = field(default="last_card", metadata=UNKEYED)
    #: STUD-007 (STUD_SHORT_STUB_METHOD; a hand keeps the prompt it was given, whose code says
    #: the method)
    stud_short_stub_method: str = field(default="001", metadata=UNKEYED)
    #: FLOW-008: the tournament sells a table add-on (002 §TABLE ADDON): a new player, not one
    #: moved from another table, is offered it until his first card
    table_addon: bool = field(default=False, metadata=UNKEYED)
    #: FLOW-009: a cash table's rake cap and promotional rake, five-handed or more, four-handed,
    #: three-handed or fewer (002 §RAKE, §RAKE REDUCTION: $4 + $1, $3 + $1, $2 and none), in
    #: the house's money; ``rake_cap = 0``: the table takes no rake, and says nothing of it
    rake_cap: int = field(default=4, metadata=UNKEYED)
    rake_promo: int = field(default=1, metadata=UNKEYED)
    rake_cap_four: int = field(default=3, metadata=UNKEYED)
    rake_promo_four: int = field(default=1, metadata=UNKEYED)
    rake_cap_three: int = field(default=2, metadata=UNKEYED)
    rake_promo_three: int = field(default=0, metadata=UNKEYED)
    #: the dealer presses ``round_done`` before every burn (BURN-002's tap). With it the daemon
    #: tells a premature board card (BOARD-004..006) from a late one. None ("auto"): the checks
    #: are on once the daemon has seen a tap, so a table (or a deal script) that never taps is
    #: not told every flop is premature; True/False: always on/off.
    round_done_pad: bool | None = None
    #: DEAL-012: most hands a button game deals (2 to 10; 9 for cash games, 002)
    seats_max: int = 10
    #: SHUF-007 / RELIEF-001: the two decks change places at each dealer relief ("relief"), or
    #: at every hand ("hand": TWO_DECK_ALTERNATE, or a batch shuffler)
    rotate_decks: str = "relief"
    #: a shuffler fault (jam, door open, error) that lasts this many seconds is told to the floor
    shuffler_floor_after: float = 30.0
    #: a device (reader, shuffler) gone this many seconds is told to the floor (hot-plug)
    offline_floor_after: float = 60.0
    #: MUCK-001 (MUCK_TIMEOUT_S, §20: a tuning value, not the seeds'): a card gone from its seat
    #: after the deal, arrived nowhere, this many seconds after the reads lost it: the dealer is
    #: prompted; as long again with it still missing (or the hand over), the floor is told
    muck_timeout_s: float = field(default=5.0, metadata=UNKEYED)
    #: STUB-006 (STUB_DROP_S): no stub seen on the stub spot this many seconds after the hand's
    #: last card is a prompt (only where an antenna feeds the stub spot)
    stub_drop_s: float = field(default=10.0, metadata=UNKEYED)
    #: BOARD-011 (MAX_RUNS, docs/rules.md §20: 002 §RUNNING IT TWICE, "two or three times, never
    #: more"): the most runs of a board the ``run_it`` pad agrees to (1: the board is run once);
    #: read at each press (a hand keeps the runs it was given)
    max_runs: int = field(default=3, metadata=UNKEYED)
    #: BOARD-011 (RUN_BURNS, the seeds silent: the house's): each further run burns before each
    #: street as the first run did (True), or is dealt with no burns (False); read at each card
    run_burns: bool = field(default=True, metadata=UNKEYED)

    @property
    def rake_caps(self) -> RakeCaps:
        """FLOW-009's caps (:class:`RakeCaps`)."""
        return RakeCaps(self.rake_cap, self.rake_promo, self.rake_cap_four, self.rake_promo_four, self.rake_cap_three,
                        self.rake_promo_three)


#: ``[table] event``: a tournament (the default) or a cash game (DEAL-007/008: posting to come
#: in, missed blinds; controller/core/cash.py)
EVENTS = ("tournament", "cash")


@dataclass(frozen=True)
class TableSettings:
    game: str = "holdem"
    seats: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9)
    button: int = 9
    deck_in_play: str = "A"
    zones: ZoneMap = field(default_factory=ZoneMap.default)
    #: cycles of evidence before a card counts as arrived (see controller.core.tracker)
    confirm_cycles: int = 2
    #: cycles without any read before a card counts as gone from the table
    gone_cycles: int = 20
    rules: RuleSettings = field(default_factory=RuleSettings)
    #: ``tournament`` or ``cash`` (:data:`EVENTS`; out of the fingerprint, :data:`UNKEYED`, as the
    #: fields below marked so: a tournament table ignores the cash fields)
    event: str = field(default="tournament", metadata=UNKEYED)
    #: the registered decks' ids, in play first (DECK-005: at most two); empty: every deck registered
    pair: tuple[str, ...] = ()
    #: a read at least this strong is a card lying on that antenna; one UID that strong in two
    #: zones at once is a cloned tag (DECK-007). The scale is the reader's (0..255 on FEIG).
    strong_rssi: int = 150
    #: antenna -> its own level (``tablectl calibrate``), replacing ``strong_rssi`` there (a table
    #: calibrated again keeps its state)
    rssi_levels: dict[int, int] = field(default_factory=dict, hash=False, compare=False, metadata=UNKEYED)
    #: antenna -> the most cards it can see at once (``[reader.capacity]``: a two-card seat spot,
    #: 2); an antenna left out has no limit (controller.core.tracker, docs/rules.md "What each
    #: reader set-up can check"). Out of the fingerprint: it judges the cycles to come
    capacity: dict[int, int] = field(default_factory=dict, hash=False, compare=False, metadata=UNKEYED)
    #: mixed games (MIXED-001): the games in turn, the hands each lasts, whether a re-deal
    #: counts. The state holds the game of the next hand and its place in the rotation, so a
    #: rotation edited between shifts keeps it (the next change takes the new list from that
    #: place); whether there is one is in the fingerprint (controller.core.state.settings_key)
    rotation: Rotation = field(default_factory=Rotation, metadata=UNKEYED)
    #: CHIN-002: two players of Chinese poker play two hands each (stacks 1 and 3, 2 and 4), not
    #: one each with stacks 3 and 4 mucked (a hand under way keeps the cards a seat is due)
    chinese_two_hands: bool = field(default=False, metadata=UNKEYED)

    @property
    def hole_cards(self) -> int:
        """The first game's (the table's own game, ``Table.game``, is the one of the next hand)."""
        return GAMES[self.game]

    @property
    def game_def(self) -> Game:
        """The first game's definition (:mod:`controller.core.games`): the game a fresh table deals.
        The table's layers read the table's current game (``Table.game_def``), never this."""
        return game_of(self.game)
