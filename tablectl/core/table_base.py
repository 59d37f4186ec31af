"""The table's state, in one place, and how its parts raise alerts.

:class:`tablectl.core.table.Table` is built in layers, each a module with one job; each layer
may use the ones below it:

- :class:`TableBase` (here): every field the table keeps (a journal snapshot holds exactly these:
  :mod:`tablectl.core.state`), and the alerts (``_flag``: a rule's finding becomes an alert);
- :class:`tablectl.core.device_health.DeviceHealth`: devices offline and back, the shuffler's faults;
- :class:`tablectl.core.deck_guard.DeckGuard`: deck integrity: labels, foul cards, counts, the pair;
- :class:`tablectl.core.roster.Roster`: the seats, the button and blinds of the next hand;
- :class:`tablectl.core.game_turns.GameTurns`: the game of the next hand, and a mixed game's
  rotation (MIXED-001/002);
- :class:`tablectl.core.draw.DrawRounds` and :class:`tablectl.core.chinese.ChineseStacks`: where the
  draw games and Chinese poker differ from a deal in turn (DRAW, CHIN);
- :class:`tablectl.core.table_modes.TableModes`: the deals a ``mode`` press announces instead of a
  hand (the race-off, a table break's high card, the players' break) and the open seats;
- :class:`tablectl.core.stud_rounds.StudRounds`: stud's incidents (STUD-003, 009..013);
- :class:`tablectl.core.dealing.Dealing`: the dealing procedure, driven by the game's template
  (:mod:`tablectl.core.games`): hands, seats' cards, burns and the board.

The layers share one object (not one object each) so that the state a snapshot writes is the
table's fields as before the split: same names, same JSON (no STATE_VERSION change).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from tablectl.core.deck_rack import DeckRack, pair_of
from tablectl.core.effects import Alert, Effect, Prompt
from tablectl.core.events import ButtonPress
from tablectl.core.games import Game, game_of
from tablectl.core.hand import Hand
from tablectl.core.positions import Positions
from tablectl.core.registry import DeckRegistry, TagInfo
from tablectl.core.rules import Finding
from tablectl.core.rules.stub import StubCounts
from tablectl.core.settings import TableSettings
from tablectl.core.tracker import Tracker


class TableBase:
    """The table's fields, by the part that owns them, and its alerts."""

    def __init__(self, settings: TableSettings, registry: DeckRegistry) -> None:
        self.settings = settings
        self.registry = registry  # deck integrity
        self.tracker = Tracker(settings.zones.by_antenna.get, confirm_cycles=settings.confirm_cycles,
                               gone_cycles=settings.gone_cycles, strong_rssi=settings.strong_rssi,
                               levels=settings.rssi_levels)
        self._track = self.tracker.cycle
        self._clones = self.tracker.clones  # the same list: the tracker fills it, the table empties it
        pair = settings.pair or pair_of(list(registry.decks), settings.deck_in_play)
        self.rack = DeckRack(pair, settings.deck_in_play if settings.deck_in_play in pair else
                             (pair[0] if pair else None), rotate=settings.rules.rotate_decks)
        self.stub = StubCounts()
        # device health: [state, since (wall), floor told, since (monotonic), its boot] while the
        # shuffler is in fault
        self._shuffler_fault: list[Any] | None = None
        # the roster
        self.seats: tuple[int, ...] = tuple(settings.seats)
        self._next_button: int | None = settings.button  # set by hand for the next hand, if any
        self._last_positions: Positions | None = None  # the last hand's button and blinds
        self.waiting: set[int] = set()  # newcomers not dealt in yet (DEAL-006)
        self._posted: set[int] = set()  # newcomers who posted (DEAL-007)
        self.absent: set[int] = set()  # DEAL-009 (a cash game: seats sitting out, not dealt in)
        # cash games (DEAL-008): the seats the big and the small blind went past while they sat out
        self.missed_bb: set[int] = set()
        self.missed_sb: set[int] = set()
        self._buyer: int | None = None  # the seat that bought the button in the last hand (DEAL-007/008)
        self._pending_prompts: list[Prompt] = []  # told between hands; kept in the next hand's record
        self.penalty: dict[int, int] = {}  # seat -> penalty hands left (DEAL-010)
        self._deferred: list[ButtonPress] = []  # seat changes waiting for the hand to end
        self._redeal: Hand | None = None  # the misdealt hand the next one replays (MISD-014)
        # the dealing
        self._highcard = False  # the next cards are a draw for the button (DEAL-011)
        # stud: seats all in for the ante, pressed before the first card or on 3rd street before its
        # action (STUD-003); kept until a hand is played out, so a re-deal keeps them (MISD-014)
        self._all_in_next: set[int] = set()
        self._taps_seen = False  # a round_done press seen: this table taps (round_done_pad auto)
        # the modes (tablectl.core.table_modes): the deal the table watches next instead of a hand
        self.mode: str | None = None  # race | highcard | break (tablectl.core.pads.MODES) until its deal ends
        self._race_allin: list[int] = []  # RACE-005: seats all in for the race-off, in press order
        self.open_seats: list[int] = []  # BREAK-002/003: seats put out, not filled since, in order
        self._seat_notices: dict[int, int] = {}  # BREAK-003: seat -> the hand at whose hand_end it is told again
        self._hold_released = False  # BREAK-002: the floor's go-ahead (ack) while seats are open
        self.hand: Hand | None = None
        self.hands_finished = 0
        # the game of the next hand (the hand under way keeps its own: Hand.game), and a mixed
        # game's rotation (tablectl.core.game_turns): its place, the hands of this game counted and
        # the seats that had the button in them (an orbit)
        self.game: str = settings.game
        rotation = settings.rotation.games
        self._rotation_at = rotation.index(settings.game) if settings.game in rotation else 0
        self._game_hands = 0
        self._game_buttons: set[int] = set()
        self.last_record: dict[str, Any] | None = None
        # the roster: who deals (RELIEF-003)
        self.dealer: str | None = None  # who deals the next hand: the floor names them
        self._next_dealer: str | None = None  # named ahead: dealing from the next relief press
        self.devices_offline: set[str] = set()  # device health
        self._pending_alerts: list[Alert] = []  # raised between hands; kept for the next hand
        self._figures_key: tuple[Any, ...] | None = None
        # device health: device -> [since (wall), floor told, since (monotonic), its boot]: see _elapsed
        self._offline_since: dict[str, list[Any]] = {}
        # deck integrity
        self._last_report: tuple[str, int, tuple[str, ...] | None] | None = None
        self._retired_tags: dict[str, TagInfo] = {}  # tags of decks taken off this table (DECK-005)

    @property
    def game_def(self) -> Game:
        """The definition of the next hand's game (:mod:`tablectl.core.games`)."""
        return game_of(self.game)

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

    def _prompt(self, out: list[Effect], ts: float, hand: Hand, finding: Finding, game: str | None = None) -> None:
        """A routine instruction to the dealer, kept in the hand's record: a Prompt, not an
        alert (a clean hand raises no alert, yet the dealer is still told what to do). ``game``:
        the game it names (MIXED-001)."""
        prompt = Prompt(ts, finding.code, finding.message, finding.rule, hand.number, seat=finding.seat,
                        count=finding.count, game=game)
        hand.prompts.append(prompt)
        out.append(prompt)

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

    # -- decks, stub counts and the shuffler (DECK, STUB, SHUF, RELIEF) ------------------------
    def _next_hand_number(self) -> int:
        return self.hand.number + 1 if self.hand is not None else self.hands_finished + 1
