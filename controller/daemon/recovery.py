"""Rebuilding the table from its journal at start, and saying what could not be rebuilt.

:func:`recover_table` opens the journal, takes the newest snapshot that reads (falling back to
the one before it), replays the events since, and returns a :class:`Recovery` that lists what
was lost, with counts and the hand it affects: the daemon logs it in one line and tells the
floor (``journal.damaged``). Hand numbers never repeat: the next hand is numbered after the
highest the journal has seen, whatever was lost. Nothing here raises on a journal's content;
only :class:`~controller.daemon.journal.JournalError` (a journal that cannot be used at all)
leaves it, and ``tablectl run`` exits 2 on that. docs/journal.md has the cases.

:class:`JournalFaults` keeps a failing disk (ENOSPC, EIO) to one log line while it lasts, and a
count, instead of a traceback per event.
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.core.effects import Effect, HandFinished
from controller.core.events import Event
from controller.daemon.journal import Journal, JournalError, OpenInfo
from controller.core.state import StateError, StateMismatch
from firmware_bridge.log_limit import EVERY_S, LogLimiter
from controller.core.table import Table

log = logging.getLogger("tablectl.journal")


@dataclass
class Recovery:
    """What :func:`recover_table` made of a journal."""

    table: Table
    after: int = 0  # the event id of the snapshot taken
    replayed: int = 0
    replayed_events: list[Event] = field(default_factory=list)
    #: (event id, effects) of each event replayed: the room link's outbox fills in what a crash lost
    replayed_effects: list[tuple[int, list[Effect]]] = field(default_factory=list)
    late: list[Effect] = field(default_factory=list)  # finished hands no output has seen
    lost: list[str] = field(default_factory=list)  # what was lost, phrase by phrase
    skipped: Counter[str] = field(default_factory=Counter)  # event rows that could not be read
    core_failures: int = 0
    hand_affected: int | None = None
    config_changed: bool = False

    def summary(self) -> str:
        """One line: every loss, the rows skipped by reason, the hand affected."""
        parts = list(self.lost)
        if self.skipped:
            n = sum(self.skipped.values())
            parts.append(f"{n} event row(s) skipped (" + ", ".join(f"{c} {r}" for r, c in
                                                                    self.skipped.most_common(4)) + ")")
        if self.core_failures:
            parts.append(f"{self.core_failures} event(s) the core failed on, skipped")
        if self.hand_affected is not None:
            parts.append(f"hand {self.hand_affected} affected; the next hand is numbered "
                         f"{self.next_hand()}")
        return "; ".join(parts)

    def next_hand(self) -> int:
        hand = self.table.hand
        return hand.number + 1 if hand is not None else self.table.hands_finished + 1


def recover_table(j: Journal, settings: Any, fresh: Table, decks: set[str] | None = None) -> Recovery:
    """Open ``j`` and rebuild the table configured by ``settings`` (``fresh`` if nothing is kept).
    Damage SQLite finds only while the rows are read (past its quick check) is salvaged too.
    ``decks``: the deck ids the configuration registers; a snapshot of other decks is of another
    configuration (the table starts afresh, as for other settings)."""
    info = j.open()
    try:
        return _rebuild(j, settings, fresh, info, decks)
    except sqlite3.OperationalError as exc:
        raise JournalError(f"journal: {j.path}: cannot be read ({' '.join(str(exc).split())[:120]}); "
                           f"fix: check the filesystem (df -h {j.path.parent}; mount)") from exc
    except sqlite3.DatabaseError as exc:
        j.skipped.clear()
        j.skipped_ids.clear()
        j._drop_connection()
        info = j._salvage(" ".join(str(exc).split())[:160])
        return _rebuild(j, settings, Table(fresh.settings, fresh.registry), info, decks)


def _rebuild(j: Journal, settings: Any, fresh: Table, info: OpenInfo, decks: set[str] | None) -> Recovery:
    """The table of the newest snapshot that reads and the events since, and what was lost."""
    r = Recovery(table=fresh, lost=list(info.lost))
    dropped = j.dropped_through()
    loaded = _take_snapshot(r, j, settings, decks, dropped)
    # (read whether or not anything is replayed: reading them counts the records that are no
    # JSON, a loss _count_skipped reports)
    recorded = {(h.get("hand"), h.get("ended")) for h in j.hands(since=0.0)}
    state_lost = not loaded and bool(dropped) and not r.config_changed
    if state_lost:
        # The state the kept events apply to is gone: replaying them onto an empty table would
        # make up hands. The table starts afresh; hand numbers carry on (below).
        n = j.count_events_after(dropped)
        r.lost.append(f"no snapshot can be read: the table's state at event #{dropped} is lost "
                      f"and the {n} events after it are not replayed")
    elif not r.config_changed or loaded:
        _replay(r, j, recorded)
    _count_skipped(r, j)
    number_on(r, j, info.wal_lost or state_lost)
    _note_hand_affected(r)
    return r


def _take_snapshot(r: Recovery, j: Journal, settings: Any, decks: set[str] | None, dropped: int) -> bool:
    """Put the table of the newest snapshot that reads, and its event id, in ``r``; False if none
    is taken. A snapshot that does not read is noted as lost and the one before it tried; one
    older than the events kept, or of another configuration, ends the search."""
    for eid, text in j.snapshots():
        if eid < dropped:
            r.lost.append(f"the snapshot at event #{eid} is older than the events kept")
            return False
        try:
            table = Table.from_state(json.loads(text), settings)
            if decks is not None and set(table.registry.decks) != decks:
                raise StateMismatch("state: the configuration's decks changed since it was written")
            r.table, r.after = table, eid
        except StateMismatch:
            r.config_changed = True
            log.warning("journal: the configuration changed since the last snapshot; the table starts "
                        "afresh (the history is kept)")
            return False
        except (StateError, ValueError, RecursionError) as exc:
            r.lost.append(f"the snapshot at event #{eid} cannot be read ({str(exc)[:160]})")
            continue
        except Exception as exc:  # noqa: BLE001 (a bug in reading a state must not stop a start)
            r.lost.append(f"the snapshot at event #{eid} cannot be read ({type(exc).__name__})")
            continue
        return True
    return False


def _replay(r: Recovery, j: Journal, recorded: set[tuple[Any, Any]]) -> None:
    """Apply the events after ``r.after`` to ``r.table``; an event the core fails on is counted
    and skipped (the rest still apply). ``recorded``: the finished hands' ``(hand, ended)``."""
    for eid, event in j.events_after(r.after):
        try:
            effects = r.table.apply(event)
        except Exception:
            r.core_failures += 1
            log.debug("journal: the core failed replaying event #%d", eid, exc_info=True)
            continue
        r.replayed += 1
        r.replayed_events.append(event)
        r.replayed_effects.append((eid, effects))
        # What the core said after the last hand recorded never reached an output: say it now.
        r.late += [e for e in effects if isinstance(e, HandFinished) and (e.hand, e.ts) not in recorded]


def _count_skipped(r: Recovery, j: Journal) -> None:
    """The rows the journal skipped while read, by reason; unreadable hand records are a loss of
    their own (a line in the summary, not a count among the events)."""
    r.skipped = Counter(j.skipped)
    bad_hands = r.skipped.pop("a finished hand's record that is no JSON", 0)
    if bad_hands:
        r.lost.append(f"{bad_hands} finished hand record(s) unreadable")


def _note_hand_affected(r: Recovery) -> None:
    """Anything lost or skipped, and no hand named yet (by :func:`number_on`): the hand in
    progress is the one affected, else the last finished (None before any)."""
    if (r.lost or r.skipped or r.core_failures) and r.hand_affected is None:
        hand = r.table.hand
        r.hand_affected = hand.number if hand is not None else r.table.hands_finished or None


def number_on(r: Recovery, j: Journal, state_lost: bool) -> None:
    """The next hand is numbered after every hand the journal has seen begin (its ``.hands``
    file, its finished hands, its alerts), and, when events after the last snapshot were lost,
    after the hand they may have begun."""
    table = r.table
    top = j.max_hand()
    if state_lost and table.hand is None:
        top = max(top, table.hands_finished + 1)  # the lost events may have begun that hand
        r.hand_affected = top
    hand = table.hand
    if hand is not None:
        if hand.number < top:  # (equal: the hand in progress, noted when it began)
            r.lost.append(f"the hand in progress was numbered {hand.number}, already seen: renumbered {top + 1}")
            r.hand_affected = hand.number = top + 1
        table.dealing.finished_at_least(min(top, hand.number - 1))
    else:
        table.dealing.finished_at_least(top)


class JournalFaults:
    """A journal that fails to write (a full disk, a dying card): one line when it starts
    failing, one a minute while it lasts (with the count), one when it writes again; through
    the links' own :class:`~firmware_bridge.log_limit.LogLimiter`."""

    EVERY = EVERY_S

    def __init__(self, path: str | Path | None) -> None:
        self.path = path
        self.failures = 0  # since the daemon started
        self._streak = 0
        self._limit = LogLimiter(log, prefix=f"journal: {path}: ", every=self.EVERY)

    def failed(self, exc: BaseException, what: str) -> None:
        self.failures += 1
        self._streak += 1
        self._limit.note("failed writes", "journal: %s: cannot %s (%s: %s); the table goes on unjournalled; "
                         "%d writes failed so far", self.path, what, type(exc).__name__, str(exc)[:120],
                         self.failures, level=logging.ERROR)

    def ok(self) -> None:
        if self._streak:  # (a disk nearly full fails and succeeds by turns: said once a minute)
            self._limit.note("returns to writing", "journal: %s: writing again after %d failed writes",
                             self.path, self._streak)
            self._streak = 0
