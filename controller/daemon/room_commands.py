"""The floor's commands on ``tablectl/<room>/<table>/cmd``; replies on ``cmd/reply`` (docs/room.md).

A command is one JSON object of at most :data:`MAX_COMMAND` bytes, read with the control
socket's own parser and checks (:mod:`controller.room.bounds`, which the floor checks its
commands with too: bounded numbers, no duplicate field, no deep nesting, strict types, no
unknown field)::

    {"id": "c-0001", "user": "floor:maria", "cmd": "ack", "seq": 12, "epoch": "e3fa9b01c2d4e"}
    {"id": "c-0002", "user": "floor:maria", "cmd": "setup", "seats": [1, 2, 4], "button": 4}
    {"id": "c-0003", "user": "floor:maria", "cmd": "decks", "decks": [{"id": "C", "back": "green",
     "manifest": "C.txt"}, {"id": "D", "back": "red", "manifest": "D.txt"}], "in_play": "C"}
    {"id": "c-0004", "user": "floor:maria", "cmd": "replay", "topic": "events/floor", "from": 40, "to": 52}
    {"id": "c-0005", "user": "floor:maria", "cmd": "dealer", "name": "Ann Lee", "at_relief": true}
    {"id": "c-0006", "user": "floor:maria", "cmd": "approve"}

- ``id``: the command's id; a QoS 1 redelivery (the same id again) is answered with the first
  answer and applied once;
- ``user``: who the floor service acted for; kept with the id in the journal
  (``room_commands``) for every command accepted;
- ``ack``: an alert, named by its ``seq`` on ``events/floor``; the acknowledgment goes on
  ``events/floor`` (``type`` ``Ack``) with the user;
- ``setup``, ``decks``: as on the control socket (``decks`` reads the manifests by name from
  ``[control] manifests``: a tag-to-card map never crosses the broker);
- ``dealer``: as on the control socket: who deals from the next hand, or (``at_relief``)
  from the dealer's next relief press (RELIEF-003);
- ``approve``: as on the control socket: the floor approves the single-table satellite the
  table waits to start (FLOW-007);
- ``replay``: the messages of a topic from a ``seq`` on (to the ``seq`` ``to``, if given: the end
  of the gap the floor misses, so that what it has already is not sent again), sent again as
  they were (at most :data:`MAX_REPLAY`); what was compacted is said.

Dealer presses are not commands: they stay at the table. Anything refused gets
``{"ok": false, "id": ..., "error": ...}`` saying why, and changes nothing; its ``id`` is the
request's whenever one can be read (:func:`controller.room.bounds.readable_id`), even when the
request could not be read whole (a number of 70 digits), else null.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from typing import Any

from controller.core.events import DealerNamed
from controller.daemon.control import request_to_event
from controller.room.bounds import MAX_COMMAND, ROOM_COMMANDS, parse_request, readable_id
from controller.room.bounds import check_fields as _fields, show as _show, word as _word
from controller.room import outbox as ob
from controller.room.topics import SEQ_TOPICS

log = logging.getLogger("tablectl.room")

#: the most messages one ``replay`` sends
MAX_REPLAY = 5000
#: the commands and their fields (controller/room/bounds.py: the floor checks its commands with them)
_FIELDS = ROOM_COMMANDS
_COMMANDS = ", ".join(_FIELDS)


class Commands:
    """Checks and applies the floor's commands; :meth:`handle` returns the reply."""

    def __init__(self, daemon: Any, clock: Callable[[], float]) -> None:
        self.daemon = daemon
        self.clock = clock
        self.link: Any = None  # the RoomLink (set by attach.Room), for replay's copies
        self.refused = 0
        self._then: Callable[[], None] | None = None  # what an accepted command does once journalled

    def handle(self, payload: bytes, corr: str | None = None) -> dict[str, Any]:
        """The reply to one ``cmd`` message (what it does, it has done)."""
        cmd_id: str | None = None
        try:
            if len(payload) > MAX_COMMAND:
                raise ValueError(f"a command is at most {MAX_COMMAND} bytes; this one is {len(payload)}")
            req = parse_request(payload)
            if not isinstance(req, dict):
                raise ValueError("a command is a JSON object, e.g. {\"id\": \"c-1\", \"user\": \"floor:ann\", "  # noqa: TRY004
                                 "\"cmd\": \"ack\", \"seq\": 12}")
            cmd_id = _word(req, "command", "id", required=True)
            user = _word(req, "command", "user", required=True)
            assert cmd_id is not None and user is not None
            first = self._answered(cmd_id)
            if first is not None:  # a redelivery: applied once, answered alike
                return {**first, "duplicate": True}
            body = {k: v for k, v in req.items() if k not in ("id", "user")}
            cmd = body.get("cmd")
            if cmd == "press":
                raise ValueError("press: dealer presses stay at the table; they are not room commands")
            if type(cmd) is not str or cmd not in _FIELDS:
                raise ValueError(f"unknown command {_show(cmd)} (commands: {_COMMANDS})")
            _fields(body, cmd, _FIELDS[cmd])
            self._then: Callable[[], None] | None = None
            reply = getattr(self, f"_{cmd}")(body, user, cmd_id)
            reply = {"ok": True, "id": cmd_id, "cmd": cmd, **reply}
            self._journal(cmd_id, user, body, reply)  # (first: a redelivery after a crash is not applied twice)
            if self._then is not None:
                self._then()
            log.info("room: command %s from %s: %s", cmd_id, user, cmd)
            return reply
        except ValueError as exc:
            self.refused += 1
            if cmd_id is None:
                # (a request refused before its id was taken, for another field: its id all the same
                # when one can be read, so that the floor shows the command refused, with why, and
                # not unanswered; a release before this one answered with no id, docs/floor.md)
                cmd_id = readable_id(payload)
            log.warning("room: a command refused: %s", exc)
            return {"ok": False, "id": cmd_id, "error": str(exc)}

    # -- the commands --------------------------------------------------------------------------
    def _same_journal(self, body: dict[str, Any], cmd: str) -> None:
        """A command naming a seq may say of which journal (``epoch``): one of an earlier journal
        of this table names messages this one never had, and is refused."""
        epoch, mine = body.get("epoch", "0"), self.daemon.journal.epoch  # (a floor before epochs: "0")
        if type(epoch) is not str:
            raise ValueError(f"{cmd}: 'epoch' must be a journal's epoch, got {_show(epoch)}")
        if epoch != mine:
            raise ValueError(f"{cmd}: epoch {_show(epoch)} is an earlier journal of this table (this one's is "
                             f"{mine}): its messages are not here")

    def _ack(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        self._same_journal(body, "ack")
        seq = body.get("seq")
        if type(seq) is not int or seq < 1:
            raise ValueError(f"ack: 'seq' must be the whole number of an alert on events/floor, got {_show(seq)}")
        row = self.daemon.journal.with_db(lambda db: db.execute(
            "SELECT payload FROM outbox WHERE topic = 'events/floor' AND seq = ?", (seq,)).fetchone())
        if row is None:
            raise ValueError(f"ack: no message {seq} on events/floor (never sent, or older than outbox_days)")
        alert = json.loads(row[0])
        if alert.get("type") != "Alert":
            raise ValueError(f"ack: message {seq} on events/floor is a {str(alert.get('type'))[:20]}, not an alert")
        ts = self.clock()
        note = {"type": "Ack", "ts": ts, "ack_seq": seq, "code": alert.get("code"), "hand": alert.get("hand"),
                "user": user, "command": cmd_id, "audience": "floor"}
        self.daemon.journal.record([], outbox=[("events/floor", 0, ts, note)], event_id=0)
        self.link.notify()
        return {"seq": seq, "code": alert.get("code")}

    def _setup(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        event = request_to_event(body, now=self.clock())
        self._then = lambda: self.daemon.submit(event)
        return {}

    def _decks(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        event = request_to_event(body, now=self.clock(), manifests=self.daemon.config.control.manifests)
        self._then = lambda: self.daemon.submit(event)
        return {}

    def _dealer(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        event = request_to_event(body, now=self.clock())
        assert isinstance(event, DealerNamed)
        self._then = lambda: self.daemon.submit(event)
        return {"name": event.name, "at_relief": event.at_relief}  # (the name as the records keep it)

    def _approve(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        event = request_to_event(body, now=self.clock())
        self._then = lambda: self.daemon.submit(event)
        return {}

    def _replay(self, body: dict[str, Any], user: str, cmd_id: str) -> dict[str, Any]:
        self._same_journal(body, "replay")
        topic, start = body.get("topic"), body.get("from")
        if type(topic) is not str or topic not in SEQ_TOPICS:
            raise ValueError(f"replay: 'topic' must be one of {', '.join(SEQ_TOPICS)}, got {_show(topic)}")
        if topic == "broadcast":
            raise ValueError("replay: broadcast is not replayed (its delay is kept at the table)")
        if type(start) is not int or start < 1:
            raise ValueError(f"replay: 'from' must be a seq of 1 or more, got {_show(start)}")
        end = body.get("to")
        if end is not None and (type(end) is not int or end < start):
            raise ValueError(f"replay: 'to' must be a seq of 'from' or more, got {_show(end)}")
        rows = self.daemon.journal.with_db(lambda db: ob.replay_rows(db, topic, start, MAX_REPLAY, end))
        for r in rows:
            self.link.send_raw(topic, r.payload)
        out: dict[str, Any] = {"topic": topic, "sent": len(rows)}
        if rows:
            out["first"], out["last"] = rows[0].seq, rows[-1].seq
            if rows[0].seq > start:
                out["compacted_before"] = rows[0].seq  # older than outbox_days, or dropped unacknowledged
        return out

    # -- the journal ---------------------------------------------------------------------------
    def _answered(self, cmd_id: str) -> dict[str, Any] | None:
        row = self.daemon.journal.with_db(lambda db: db.execute(
            "SELECT reply FROM room_commands WHERE cmd_id = ?", (cmd_id,)).fetchone())
        return json.loads(row[0]) if row is not None else None

    def _journal(self, cmd_id: str, user: str, body: dict[str, Any], reply: dict[str, Any]) -> None:
        text = json.dumps(body, separators=(",", ":"))
        self.daemon.journal.with_db(lambda db: db.execute(
            "INSERT OR IGNORE INTO room_commands (cmd_id, ts, user, cmd, reply) VALUES (?, ?, ?, ?, ?)",
            (cmd_id, self.clock(), user, text, json.dumps(reply, separators=(",", ":")))))
