"""The tournaments the floor runs (``[floor.tournaments.NAME]``, docs/floor.md "Running a
tournament"): their level clocks, hand-for-hand, the bubble and the player clocks, kept in the
store and published to every table of each as its retained signal (controller/room/tournament.py,
``tablectl/<room>/<table>/floor/tournament``, QoS 1) whenever what that table must act on
changes.

The director runs on the service's event loop (controller/floor/app.py), as the store does:

- :meth:`Director.act`: the floor role's actions from the page (start, pause, resume, skip or
  back a level, add time; hand-for-hand on or off, release; the bubble on or off, its hold
  cleared; a player clock called), each saved before it is published (the caller audit-logs it);
- :meth:`Director.ingested`: what the tables said that moves a tournament (a called all-in on the
  bubble, ``flow.bubble_allin``, holds every other table until that hand's record comes; a new
  table seen gets its signal);
- :meth:`Director.tick`: the signals again, of which only those that changed are published: the
  service calls it several times a second, so a level that ends is published within a second
  (FLOW-001);
- :meth:`Director.board` and :meth:`Director.public`: the floor's page and the public clock
  screen (nothing secret: no card, no alert, no seat, no table's name).

A table of a tournament is named ``room/table``, or ``table`` (that name in any room: with
``[floor] room`` one room, that room's table; with ``+``, every room where a table of that
name has spoken). Its signal is published from the start (a retained message waits for a table
not yet up), and again whenever the floor reconnects to the broker (a broker restarted without
its retained messages).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from controller.config.floor import FloorConfig, TournamentConfig
from controller.config.structure import Step
from controller.floor import clock as levels
from controller.floor.balance import balance
from controller.floor.clock import ClockError, ClockView, Moment, view
from controller.floor.signals import Hold, TableSeen, TournamentState, h4h_status, level_of, signal_for
from controller.floor.store import Ingested, Store
from controller.room.tournament import signal_to_payload, tournament_topic

log = logging.getLogger("tablectl.floor")
#: the floor alert a table raises when its dealer calls an all-in in bubble mode (FLOW-003)
BUBBLE_ALLIN = "flow.bubble_allin"
#: the floor alert of a card dealt while a table holds (FLOW-002/003)
DEALT_EARLY = "flow.dealt_before_release"
#: the actions of :meth:`Director.act`, each with the fields its request carries
ACTIONS: dict[str, frozenset[str]] = {
    "start": frozenset(), "pause": frozenset(), "resume": frozenset(), "skip": frozenset(), "back": frozenset(),
    "add": frozenset({"seconds"}), "h4h": frozenset({"on"}), "release": frozenset(), "bubble": frozenset({"on"}),
    "bubble_clear": frozenset(), "clock": frozenset({"room", "table", "seat"}),
}
#: the most time one "add time" adds or takes off (seconds)
MOST_ADDED = 3600

Key = tuple[str, str]


class TournamentError(Exception):
    """An action refused: ``status`` (400 a bad request, 404 no such tournament or table, 409 not
    now) and why, in one line."""

    def __init__(self, status: int, what: str) -> None:
        super().__init__(what)
        self.status = status


def step_json(s: Step | None) -> dict[str, Any] | None:
    if s is None:
        return None
    return {"n": s.n, "kind": s.kind, "minutes": s.minutes, "small_blind": s.small_blind, "big_blind": s.big_blind,
            "ante": s.ante, "game": s.game}


def clock_json(v: ClockView) -> dict[str, Any]:
    """The clock's view as the pages read it (times in seconds)."""
    return {"started": v.started, "running": v.running, "level": step_json(v.level), "time_left": v.time_left,
            "next": step_json(v.next), "to_break": v.to_break, "last": v.last}


#: the clock's actions that take the structure, the clock and the moment only
_CLOCK_ACTIONS: dict[str, Callable[..., Any]] = {
    "start": levels.start, "pause": levels.pause, "resume": levels.resume,
    "skip": lambda s, c, m: levels.skip(s, c, m, 1), "back": lambda s, c, m: levels.skip(s, c, m, -1),
}


class Director:
    """Every tournament of ``cfg``: their states (from ``store``), and the signals published by
    ``publish(topic, payload)``; ``now()`` reads the clocks."""

    def __init__(self, cfg: FloorConfig, store: Store, publish: Callable[[str, bytes], None],
                 now: Callable[[], Moment]) -> None:
        self.cfg, self.store, self.publish, self.now = cfg, store, publish, now
        self.states: dict[str, TournamentState] = {}
        #: the payload last published to each table
        self.published: dict[Key, bytes] = {}
        #: each table's first hand record received in the round now (the floor's wall time)
        self.done_at: dict[Key, float] = {}
        self.members: dict[str, list[Key]] = {}
        #: each table's tournament (the first naming it): a message's lookup, not a scan of every member
        self._member_of: dict[Key, str] = {}
        #: what each tournament's signals were last made of (:meth:`_basis`): a tick that finds
        #: it unchanged publishes nothing and computes nothing, whatever the room's size
        self._basis: dict[str, Any] = {}
        self._seen: set[Key] = set()
        moment = now()
        for name, t in cfg.tournaments.items():
            kept = store.tournament(name)
            state = TournamentState()
            if kept is not None:
                try:
                    state = TournamentState.from_dict(kept)
                except (ValueError, KeyError, TypeError, IndexError):
                    log.error("floor: tournament %s: its saved state is unreadable: it starts afresh", name)
            # (brought to now at once: after a reboot the clock is read on the wall clock once,
            # and on the new boot's monotonic clock from then on: controller/floor/clock.py)
            state.clock = levels.where(t.structure, state.clock, moment)
            self.states[name] = state
            store.save_tournament(name, state.to_dict())
        self.refresh()
        for keys in self.members.values():  # (a restart: each table's last hand, by the table's own time)
            for key in keys:
                last = store.last_hand_at(*key)
                if last is not None:
                    self.done_at[key] = last

    # -- the tables of each tournament ----------------------------------------------------------
    def refresh(self) -> None:
        """Each tournament's tables, from its configuration and the tables the floor has seen."""
        self._seen = self.store.table_names()
        for name, t in self.cfg.tournaments.items():
            named = [*t.tables, *(x for sec in t.sections for x in self.cfg.sections.get(sec, ()))]
            out: list[Key] = []
            for entry in named:
                for key in self._resolve(entry):
                    if key not in out:
                        out.append(key)
            self.members[name] = out
        self._member_of = {}
        for name, keys in reversed(self.members.items()):
            self._member_of.update(dict.fromkeys(keys, name))
        self._basis.clear()

    def _resolve(self, entry: str) -> list[Key]:
        room, _, table = entry.rpartition("/")
        if room:
            return [(room, table)]
        out = [(self.cfg.room, table)] if self.cfg.room != "+" else []
        return out + sorted(k for k in self._seen if k[1] == table and k not in out)

    def tournament_of(self, room: str, table: str) -> str | None:
        return self._member_of.get((room, table))

    # -- the signals ---------------------------------------------------------------------------
    def tick(self) -> int:
        """Every table's signal now; those that changed published. Returns how many were."""
        moment = self.now()
        sent = 0
        for name, t in self.cfg.tournaments.items():
            state = self.states[name]
            v = view(t.structure, state.clock, moment) if state.clock.started else None
            # (a tick several times a second over a room of several hundred tables: only when
            # what the signals are made of changed are they made again, and then each distinct
            # signal is serialised once: most tables of a tournament get the same one)
            basis = (level_of(v), state.h4h, state.round, state.bubble_mode, tuple(state.holds),
                     tuple((k, tuple(c)) for k, c in state.clocks.items()))
            if self._basis.get(name) == basis:
                continue
            made: dict[tuple[Any, Any], bytes] = {}
            for room, table in self.members[name]:
                hold = state.hold_for(room, table) if state.bubble_mode else None
                called = state.clocks.get(f"{room}/{table}")
                which = (hold, tuple(called) if called else None)
                payload = made.get(which)
                if payload is None:
                    payload = made[which] = signal_to_payload(signal_for(name, t.structure, state, room, table, v))
                if self.published.get((room, table)) != payload:
                    self.publish(tournament_topic(room, table), payload)
                    self.published[(room, table)] = payload
                    sent += 1
            self._basis[name] = basis
        return sent

    def again(self) -> None:
        """Every signal published again at the next :meth:`tick` (the broker may have lost them)."""
        self.published.clear()
        self._basis.clear()

    def _save(self, name: str) -> None:
        self.store.save_tournament(name, self.states[name].to_dict())

    # -- the floor's actions ------------------------------------------------------------------
    def act(self, name: str, body: dict[str, Any]) -> str:
        """Take the action ``body`` asks of tournament ``name`` (``{"action": ..., ...}``: see
        :data:`ACTIONS`), save it, publish what changed; the audit log's words for it.
        :class:`TournamentError` if it is refused."""
        t = self.cfg.tournaments.get(name)
        if t is None:
            raise TournamentError(404, f"no tournament {name[:64]!r}")
        action = body.get("action")
        if not isinstance(action, str) or action not in ACTIONS:
            raise TournamentError(400, f"action: want one of {', '.join(ACTIONS)}")
        fields = set(body) - {"action", "tournament"}
        if fields != ACTIONS[action]:
            want = ", ".join(sorted(ACTIONS[action])) or "nothing more"
            raise TournamentError(400, f"{action}: want {want}")
        state, moment = self.states[name], self.now()
        try:
            detail = self._do(t, state, action, body, moment)
        except ClockError as exc:
            raise TournamentError(409, str(exc)) from None
        self._save(name)
        self.tick()
        return f"{name}: {detail}"

    def _do(self, t: TournamentConfig, state: TournamentState, action: str, body: dict[str, Any],
            moment: Moment) -> str:
        """One action of the floor's on a tournament; what the audit log says of it."""
        s = t.structure
        if action in _CLOCK_ACTIONS:
            state.clock = _CLOCK_ACTIONS[action](s, state.clock, moment)
        elif action == "add":
            seconds = body["seconds"]
            if type(seconds) is not int or not 0 < abs(seconds) <= MOST_ADDED:
                raise TournamentError(400, f"seconds: want a whole number from -{MOST_ADDED} to {MOST_ADDED}, "
                                           f"not 0")
            state.clock = levels.add(s, state.clock, moment, seconds)
            return f"add {seconds:+d} s: {self._where(t, state, moment)}"
        elif action in ("h4h", "bubble"):
            return self._switch(state, action, body, moment)
        elif action == "release":
            if not state.h4h:
                raise TournamentError(409, "hand-for-hand is off: nothing to release")
            state.round += 1
            state.round_since = moment.wall
            return f"release {state.round}"
        elif action == "bubble_clear":
            if not state.holds:
                raise TournamentError(409, "no hold to clear")
            cleared = ", ".join(f"{h.table} hand {h.hand}" for h in state.holds)
            state.holds.clear()
            return f"bubble hold cleared ({cleared})"
        elif action == "clock":
            return self._clock(t, state, body)
        return f"{action}: {self._where(t, state, moment)}"

    def _switch(self, state: TournamentState, action: str, body: dict[str, Any], moment: Moment) -> str:
        """Hand-for-hand (``h4h``) or the bubble's mode (``bubble``) on or off."""
        on = body["on"]
        if not isinstance(on, bool):
            raise TournamentError(400, "on: want true or false")
        was = state.h4h if action == "h4h" else state.bubble_mode
        if on == was:
            raise TournamentError(409, f"{'hand-for-hand' if action == 'h4h' else 'the bubble'} is "
                                       f"{'on' if on else 'off'} already")
        if action == "h4h":
            state.h4h = on
            state.round_since = moment.wall if on else None
        else:
            state.bubble_mode = on
            if not on:
                state.holds.clear()  # (the bubble has burst: nothing holds the room)
        return f"{'hand-for-hand' if action == 'h4h' else 'bubble'} {'on' if on else 'off'}"

    def _where(self, t: TournamentConfig, state: TournamentState, moment: Moment) -> str:
        v = view(t.structure, state.clock, moment)
        what = "break" if v.level.kind == "break" else f"level {v.level.n}"
        return f"{what}, {v.time_left:.0f} s left{'' if v.running else ', paused'}"

    def _clock(self, t: TournamentConfig, state: TournamentState, body: dict[str, Any]) -> str:
        """A player clock called from the page on a seat of a table (FLOW-004)."""
        room, table, seat = body["room"], body["table"], body["seat"]
        if not isinstance(room, str) or not isinstance(table, str) or (room, table) not in self.members[t.name]:
            raise TournamentError(404, f"no table {str(room)[:64]}/{str(table)[:64]} in tournament {t.name}")
        if type(seat) is not int or not 1 <= seat <= 10:
            raise TournamentError(400, "seat: want a whole number from 1 to 10")
        n = state.clocks.get(f"{room}/{table}", [0, 0])[1] + 1
        state.clocks[f"{room}/{table}"] = [seat, n]
        return f"player clock on {room}/{table} seat {seat} (call {n})"

    # -- what the tables say -------------------------------------------------------------------
    def ingested(self, got: Ingested) -> None:
        """A message the store kept: a new table's state, a called all-in on the bubble, a hand's
        record (it ends a hold; it finishes the table's hand of a hand-for-hand round)."""
        key = (got.room, got.table)
        if got.kind == "state" and key not in self._seen:
            self.refresh()
            self.tick()
            return
        name = self.tournament_of(*key)
        if name is None:
            return
        state = self.states[name]
        if got.kind == "alert" and got.body.get("code") == BUBBLE_ALLIN:
            self._allin(name, state, got)
        elif got.kind == "hand":
            at = self.now().wall
            since = state.round_since
            if since is not None and self.done_at.get(key, -1.0) < since:
                self.done_at[key] = at
            hand = got.body.get("hand")
            left = [h for h in state.holds if (h.room, h.table, h.hand) != (got.room, got.table, hand)]
            if len(left) != len(state.holds):
                state.holds = left
                log.info("floor: tournament %s: %s/%s hand %s is over: its bubble hold ends", name, got.room,
                         got.table, hand)
                self._save(name)
                self.tick()

    def _allin(self, name: str, state: TournamentState, got: Ingested) -> None:
        """A called all-in on the bubble at ``got``'s table (FLOW-003): every other table of the
        tournament holds until its hand's record comes (or the floor clears it)."""
        hand = got.body.get("hand")
        if type(hand) is not int or hand < 1:
            return
        if not state.bubble_mode:
            log.warning("floor: tournament %s: %s/%s called an all-in, but the bubble is off: no hold", name,
                        got.room, got.table)
            return
        if any((h.room, h.table, h.hand) == (got.room, got.table, hand) for h in state.holds) \
                or self.store.has_hand(got.room, got.table, hand):
            return  # (held already, or its hand is over: an alert that came late, after its record)
        state.holds.append(Hold(got.room, got.table, hand, self.now().wall))
        log.info("floor: tournament %s: %s/%s hand %d holds the room (bubble)", name, got.room, got.table, hand)
        self._save(name)
        self.tick()

    # -- the pages -----------------------------------------------------------------------------
    def _tables(self, name: str) -> list[dict[str, Any]]:
        """The tournament's tables the floor has seen and not retired, with their last state."""
        tiles = {(x["room"], x["table"]): x for x in self.store.tables()}
        return [tiles[k] for k in self.members[name] if k in tiles and not tiles[k].get("retired")]

    @staticmethod
    def _players(tile: dict[str, Any]) -> int:
        seats = tile.get("seats")
        return len(seats) if isinstance(seats, list) else 0

    def public(self, name: str) -> dict[str, Any] | None:
        """The clock screen's figures (public: the clock, the players left and the tables
        running, whether hand-for-hand is on; no table, seat, card or alert). None: no such
        tournament."""
        t = self.cfg.tournaments.get(name)
        if t is None:
            return None
        state = self.states[name]
        rosters = self.store.rosters()  # (one light query: the page is public, asked every second by each screen)
        counts = [rosters[k] for k in self.members[name] if k in rosters]
        return {"tournament": name, "title": t.title, "clock": clock_json(view(t.structure, state.clock, self.now())),
                "players": sum(counts), "tables": sum(1 for n in counts if n > 0), "h4h": state.h4h}

    def board(self, name: str) -> dict[str, Any]:
        """The floor's page for tournament ``name``: the clock, hand-for-hand and each table's
        hand in the round (done, dealing, offline, with the time taken), the bubble's holds, the
        player clocks called, the tables' balance (BREAK-004)."""
        t = self.cfg.tournaments[name]
        state, moment = self.states[name], self.now()
        early: dict[Key, list[int]] = {}
        for a in self.store.open_alerts_of(DEALT_EARLY):
            early.setdefault((a["room"], a["table"]), []).append(a["hand"])
        rows = []
        counts: dict[str, int] = {}
        for tile in self._tables(name):
            key = (tile["room"], tile["table"])
            done = self.done_at.get(key)
            seen = TableSeen(tile["room"], tile["table"], online=tile.get("online") is not False,
                             holding=tile.get("holding") if isinstance(tile.get("holding"), str) else None,
                             says_holding="holding" in tile, state_at=tile.get("updated"),
                             hand_since=done if done is not None and state.round_since is not None
                             and done >= state.round_since else None, players=self._players(tile))
            status, took = h4h_status(seen, state.round_since, moment.wall) if state.h4h else (None, None)
            called = state.clocks.get(f"{key[0]}/{key[1]}")
            rows.append({"room": key[0], "table": key[1], "online": seen.online, "players": seen.players,
                         "holding": seen.holding, "level": tile.get("level"), "status": status, "took": took,
                         "dealt_early": early.get(key, []),
                         "clock": {"seat": called[0], "n": called[1]} if called else None})
            counts[f"{key[0]}/{key[1]}"] = seen.players
        order = [f"{r}/{x}" for entry in t.break_order for r, x in self._resolve(entry)]
        b = balance(counts, order, seats=t.seats)
        return {"tournament": name, "title": t.title,
                "clock": clock_json(view(t.structure, state.clock, moment)),
                "h4h": {"on": state.h4h, "round": state.round, "since": state.round_since},
                "bubble": {"mode": state.bubble_mode,
                           "holds": [{"room": h.room, "table": h.table, "hand": h.hand, "since": h.since}
                                     for h in state.holds]},
                "tables": rows,
                "balance": {"running": b.running, "players": b.players, "within": b.within,
                            "moves": [{"from": m.source, "to": m.target, "players": m.players} for m in b.moves],
                            "breaks_next": b.breaks_next, "break_now": b.break_now},
                "now": moment.wall}
