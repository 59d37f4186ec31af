"""The room link as the daemon holds it: rows for the outbox, the table's public state, the
link's start and stop, and the floor's commands (docs/room.md)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from tablectl.core.effects import Effect
from tablectl.room.link import RoomLink
from tablectl.room.topics import Row, route
from tablectl.daemon.notify import sd_notify
from tablectl.daemon.room_commands import Commands


class Room:
    """What :class:`tablectl.daemon.main.Daemon` calls; see the module."""

    def __init__(self, daemon: Any, clock: Callable[[], float]) -> None:

        self.daemon = daemon
        self.cfg = daemon.config.room
        self.broadcast = self.cfg.broadcast_delay is not None
        self.commands = Commands(daemon, clock)
        self.link = RoomLink(self.cfg, daemon.journal, state=self.state, on_command=self.commands.handle,
                             clock=clock, on_status=self.status)
        self.commands.link = self.link
        if self.cfg.signing_key is not None:  # (checked when the configuration was read)
            from tablectl.room.signing import Signer  # (cryptography loaded only by a table with a signing key)

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
        return {**public_state(self.daemon), "epoch": self.daemon.journal.epoch}

    def status(self, text: str) -> None:
        """systemd's STATUS line: the devices' (``Daemon.status_line``), then the link's."""

        sd_notify("STATUS=" + self.daemon.status_line() + "; " + text)

    def start(self) -> None:
        self.link.start()

    def stop(self) -> None:
        self.link.stop()


def public_state(d: Any) -> dict[str, Any]:
    """The table's part of the retained ``state``: no hole card, no UID, no deck-fault detail
    (the harness checks it over every scenario: tablectl/sim/harness.py)."""
    with d._lock:
        table = d.table
        hand = table.hand
        return {"devices": d.online(), "game": table.game_now, "seats": list(table.seats),
                "hand": hand.number if hand is not None else None, "button": table.button,
                "hands_finished": table.hands_finished,
                "stub_count": hand.stub_count if hand is not None else None,
                "deck_in_play": table.rack.in_play,
                # who deals (RELIEF-003), and who takes over at the next relief press: public
                "dealer": table.dealer, "dealer_next": table.next_dealer}


def make_link(daemon: Any, clock: Callable[[], float]) -> Room:
    return Room(daemon, clock)
