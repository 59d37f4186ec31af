"""The room link as the daemon holds it: rows for the outbox, the table's public state, the
link's start and stop, the floor's commands, and the floor's tournament signal (docs/room.md).

The tournament signal (:mod:`controller.room.tournament`) reaches the table as every event does:
the link's MQTT thread only parses it (:class:`controller.room.signal_inbox.SignalInbox`) and
puts a :class:`~controller.room.signal_inbox.SignalDue` on the daemon's queue; the loop thread,
the table's only writer, turns it into core events against what the table last applied
(:func:`seen_of`) and submits them, journalled first, then applied, in the queue's order. Until
those events are applied the loop does not look again (its view would lag behind them); once
they are (a ``SignalDue`` that ``settles``), it looks at whatever came meanwhile. Nothing here
ever clears a hold: a link lost during hand-for-hand or a bubble hold leaves the table holding
(its core's state) until a signal that releases it arrives, live or retained when the link
comes back.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from controller.core.effects import Effect
from controller.room.link import RoomLink
from controller.room.signal_inbox import SignalDue, SignalInbox
from controller.room.tournament import Seen
from controller.room.topics import Row, route
from controller.daemon.notify import sd_notify
from controller.daemon.room_commands import Commands

log = logging.getLogger("tablectl.room")


class Room:
    """What :class:`controller.daemon.main.Daemon` calls; see the module."""

    def __init__(self, daemon: Any, clock: Callable[[], float]) -> None:

        self.daemon = daemon
        self.cfg = daemon.config.room
        self.broadcast = self.cfg.broadcast_delay is not None
        self.commands = Commands(daemon, clock)
        self.signals = SignalInbox(f"{self.cfg.room}/{self.cfg.table}")
        self._turn: int | None = None  # the signal generation whose events are queued, not all applied yet
        self.link = RoomLink(self.cfg, daemon.journal, state=self.state, on_command=self.commands.handle,
                             clock=clock, on_status=self.status, on_signal=self.signal)
        self.commands.link = self.link
        if self.cfg.signing_key is not None:  # (checked when the configuration was read)
            from controller.room.signing import Signer  # (cryptography loaded only by a table with a signing key)

            signer = Signer.from_file(self.cfg.signing_key)
            prefix = f"{self.cfg.room}/{self.cfg.table}"
            daemon.journal.sign = lambda topic, body: signer.sign(body, f"{prefix}/{topic}")

    def rows(self, effects: Sequence[Effect]) -> list[Row]:
        return route(effects, broadcast=self.broadcast)

    def notify(self) -> None:
        self.link.notify()

    def recovered(self, replayed: list[tuple[int, list[Effect]]], late: list[Effect]) -> None:
        """After a crash: the messages of the events replayed that the outbox lacks (a row
        already there keeps its seq), then what the recovery itself says (journal damage)."""
        j = self.daemon.journal
        for eid, effects in replayed:
            rows = self.rows(effects)
            if rows:
                j.record([], outbox=rows, event_id=eid)
        said = [e for e in late if type(e).__name__ == "Alert"]
        if said:
            j.record([], outbox=self.rows(said), event_id=0)

    def state(self) -> dict[str, Any]:
        counts = self.signals.counts()
        return {**public_state(self.daemon), "epoch": self.daemon.journal.epoch,
                "signals": {"received": counts["received"], "refused": counts["refused"]}}

    # -- the floor's tournament signal ----------------------------------------------------------
    def signal(self, payload: bytes) -> None:
        """One message of the table's tournament signal (the link's MQTT thread): parsed and
        kept, or refused and counted; the loop is asked to look (it alone touches the table)."""
        if self.signals.put(payload):
            self.daemon.events.put((0, SignalDue()))

    def signal_due(self, due: SignalDue) -> None:
        """The loop's turn (see the module): submit what takes the table to the latest signal."""
        d = self.daemon
        if due.settles:
            seen_generation, self._turn = self._turn, None
            self.link.notify()  # (the state's level and hold have changed: published at once)
            if seen_generation == self.signals.generation:
                return  # nothing new since: and a batch the core refused is not tried again
        elif self._turn is not None:
            return  # the last turn's events are still queued: its settling looks again
        mono, boot = d.mono()
        generation, events = self.signals.events(seen_of(d.table), ts=d.clock(), mono=mono, boot=boot)
        if not events:
            return
        self._turn = generation
        try:
            for event in events:
                d.submit(event)
        finally:  # (whatever happens, the turn settles: a turn that never did would stop every later one)
            d.events.put((0, SignalDue(settles=True)))
        log.info("room: the floor's tournament signal: %s", ", ".join(describe(e) for e in events))

    def status(self, text: str) -> None:
        """systemd's STATUS line: the devices' (``Daemon.status_line``), then the link's."""

        sd_notify("STATUS=" + self.daemon.status_line() + "; " + text)

    def start(self) -> None:
        self.link.start()

    def stop(self) -> None:
        self.link.stop()


def seen_of(table: Any) -> Seen:
    """What ``table`` last applied of the floor's tournament signals (its core's tournament
    part keeps it, journalled and replayed): what a new signal is compared with."""
    return Seen(**table.tournament.seen_fields())


def describe(event: Any) -> str:
    """One event made from a signal, for the log (a level, a hold: nothing secret).

    >>> from controller.core.events import HandForHand, LevelSet
    >>> describe(LevelSet(1.0, "main", 5, "break")), describe(HandForHand(1.0, True))
    ('LevelSet main 5 break', 'HandForHand on')
    """
    name = type(event).__name__
    if name == "LevelSet":
        return f"{name} {event.tournament} {event.level} {event.kind}"
    if name == "Release":
        return f"{name} round {event.round}"
    if name == "ClockCalled":
        return f"{name} seat {event.seat}"
    if name == "BubbleHold" and event.on:
        return f"{name} on ({event.table} hand {event.hand})"
    return f"{name} {'on' if getattr(event, 'on', False) else 'off'}"


def public_state(d: Any) -> dict[str, Any]:
    """The table's part of the retained ``state``: no hole card, no UID, no deck-fault detail
    (the harness checks it over every scenario: hw_sim/harness.py)."""
    with d._lock:
        table = d.table
        hand = table.hand
        tournament = table.tournament
        return {"devices": d.online(), "game": table.game_now, "seats": list(table.seats),
                "hand": hand.number if hand is not None else None, "button": table.button,
                "hands_finished": table.hands_finished,
                "stub_count": hand.stub_count if hand is not None else None,
                "deck_in_play": table.rack.in_play,
                # who deals (RELIEF-003), and who takes over at the next relief press: public
                "dealer": table.dealer, "dealer_next": table.next_dealer,
                # the tournament room (FLOW-001..003, BREAK-004): whether the table holds and for
                # what, the level it deals under (the hand under way's, else the next's), and the
                # players dealt in (the hand under way's seats, else the next hand's)
                "holding": tournament.holding(), "level": tournament.level_now(),
                "players": len(hand.seats) if hand is not None else len(table.plan()[0])}


def make_link(daemon: Any, clock: Callable[[], float]) -> Room:
    return Room(daemon, clock)
