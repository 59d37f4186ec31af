"""Several simulated tables over one broker, driven together: for the tournament room's tests
(issue 32: five tables in hand-for-hand, a bubble all-in holding the others, a level changed
mid-hand, the player clock run out).

Each table is a table as ``tablectl simulate --broker`` plays it
(:class:`hw_sim.simulate.SimulatedTable`): its daemon a real subprocess on simulated
devices (pseudo-terminals), paced by the simulator over its private pipes, its room link
connected to the broker. With ``enroll=True`` each table is enrolled by ``tablectl room
enroll``'s own code (:func:`controller.room.enroll.enroll`): a password file and a signing key in
its folder, the ``[room]`` lines that use them, and the lines the broker's password and ACL
files and the floor's ``[floor.tables]`` take (:attr:`Tournament.enrolment`), written into the
broker's files by the test before it starts (or restarts) the broker.

A table plays its script (given whole at the start, checked by the parser like any script) a
piece at a time: :meth:`SimTable.play_to` a hand and a step, or several tables at once, each in
its own thread (:meth:`Tournament.play`). Between two pieces a table is idle: its simulated time
stands still (:meth:`SimTable.pass_time` moves it: a player's clock the floor called), and what
its room link brings (the floor's signals, its commands) is taken in at each
:meth:`SimTable.poll`, which every :meth:`Tournament.wait_until` does for each idle table before
it looks. What each daemon said (its prompts, alerts and hand records, from its feed) and the
holds it observed (:meth:`SimTable.holding`) are what the waits look at; :meth:`SimTable.report`
is deal-script.md's report of what was played.

    with Tournament(tmp_path / "room", broker.url, {"t1": script, "t2": script}) as room:
        room.play({"t1": 1, "t2": 1})                      # hand 1 at both, together
        room.wait_until(lambda: room.all_holding("h4h"), what="both tables holding")
        room.play({"t1": (2, 3)})                          # t1 to hand 2's step 3
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rig.waiting import PATIENCE, wait_for
from controller.room.enroll import acl_lines, enroll, username
from hw_sim import script as sc
from hw_sim.dealer import SimulationError
from hw_sim.simulate import ACK_WAIT, SimulatedTable, holds, room_section

#: where a piece of play stops: a hand (to its end), (hand, step), or None (the script's end)
Until = int | tuple[int, int] | None


@dataclass
class Enrolment:
    """What ``tablectl room enroll`` printed for the tournament's tables, gathered: the lines
    the broker's password file and ACL file take, and the floor's ``[floor.tables]`` keys."""

    passwd: list[str] = field(default_factory=list)
    acl: list[str] = field(default_factory=list)
    #: "room/table" -> the table's public signing key (the floor checks its records with it)
    floor_tables: dict[str, str] = field(default_factory=dict)

    def floor_lines(self) -> str:
        """The ``[floor.tables]`` section for the floor's configuration."""
        return "[floor.tables]\n" + "".join(f'"{k}" = "{v}"\n' for k, v in self.floor_tables.items())


def _parse(script: sc.Script | Mapping[str, Any] | str) -> sc.Script:
    if isinstance(script, sc.Script):
        return script
    return sc.parse_script(script if isinstance(script, str) else json.dumps(script))


class SimTable:
    """One table of the room: a :class:`SimulatedTable` with its room link, played a piece at a
    time by one thread at once (:attr:`busy` while it plays)."""

    def __init__(self, name: str, room: str, script: sc.Script, folder: Path, room_lines: str) -> None:
        self.name, self.room, self.script, self.folder = name, room, script, folder
        self.sim = SimulatedTable(script, workdir=folder, room=room_lines)
        self._lock = threading.Lock()

    # -- playing -----------------------------------------------------------------------------------
    def open(self) -> None:
        self.sim.open()

    @property
    def busy(self) -> bool:
        return self._lock.locked()

    def play_to(self, until: Until = None) -> None:
        """Play on to ``until``: a hand (to its end), ``(hand, step)`` (that step included), or
        None (the script's end). SimulationError names the table, the hand and the step."""
        with self._lock:
            try:
                if until is None:
                    self.sim.play()
                elif isinstance(until, int):
                    self.sim.play_to(until)
                else:
                    self.sim.play_to(*until)
            except SimulationError as exc:
                raise SimulationError(f"table {self.name}: {exc}") from exc

    def pass_time(self, seconds: float) -> None:
        """Simulated time passes at the idle table (``{"wait": S}`` outside the script: a clock
        the floor called, counting down); the reader cycles on."""
        with self._lock:
            assert self.sim.daemon is not None
            self.sim.daemon.wait_cycles(sc.Wait(seconds).cycles)

    def poll(self) -> bool:
        """Take in what the room link brought while the table was idle, and read what the daemon
        made of it. False (nothing done) while the table plays: its own beats do it then."""
        if not self._lock.acquire(blocking=False):
            return False
        try:
            assert self.sim.daemon is not None
            self.sim.daemon.sync()
        finally:
            self._lock.release()
        return True

    # -- what the daemon said ----------------------------------------------------------------------
    @property
    def prompts(self) -> list[str]:
        """The codes of every prompt the daemon gave, in order."""
        assert self.sim.daemon is not None
        return [code for code, _ in list(self.sim.daemon.prompts)]

    @property
    def alerts(self) -> list[str]:
        """The codes of every alert the daemon raised, in order."""
        assert self.sim.daemon is not None
        return [code for code, _ in list(self.sim.daemon.alerts)]

    @property
    def records(self) -> dict[int, dict[str, Any]]:
        """The daemon's hand records (its numbering), as its feed has them."""
        assert self.sim.daemon is not None
        return dict(self.sim.daemon.records)

    @property
    def hands_finished(self) -> int:
        return len(self.records)

    def holding(self) -> str | None:
        """The hold the table is in by the daemon's prompts (``h4h`` or ``bubble``: of the report's
        ``holds``, the last not released), else None."""
        assert self.sim.daemon is not None and self.sim.dealer is not None
        still = [h["kind"] for h in holds(self.script, self.sim.dealer, list(self.sim.daemon.prompts))
                 if h["released_step"] is None]
        return still[-1] if still else None

    def report(self) -> dict[str, Any]:
        """deal-script.md's report of the hands played so far."""
        with self._lock:
            return self.sim.report()

    # -- the end ---------------------------------------------------------------------------------
    def close(self, ack_wait: float | None) -> None:
        """Stop the table; first (``ack_wait`` seconds) wait until the broker has everything it
        published (:class:`hw_sim.simulate.Unacknowledged` if not)."""
        try:
            if ack_wait is not None and self.sim.daemon is not None and self.sim.player is not None:
                self.sim.wait_acked(ack_wait, {})
        finally:
            self.sim.close()


class Tournament:
    """The tables of one room over one broker (see the module). ``scripts``: table name -> its
    script (parsed, or its JSON as a dict or text); ``broker``: the broker's URL as ``[room]
    broker`` takes it; ``ca_file``: the room CA's certificate for ``mqtts://``; ``enroll``: log
    each table in with credentials ``tablectl room enroll`` makes (:attr:`enrolment`);
    ``room_extra``: more ``[room]`` lines for every table (``broadcast_delay = 0.2``)."""

    def __init__(self, folder: Path, broker: str, scripts: Mapping[str, sc.Script | Mapping[str, Any] | str], *,
                 room: str = "r1", enroll: bool = False, ca_file: Path | None = None, room_extra: str = "") -> None:
        self.folder, self.broker, self.room = folder, broker, room
        self.enrolment = Enrolment()
        self.tables: dict[str, SimTable] = {}
        folder.mkdir(parents=True, exist_ok=True)
        for name, script in scripts.items():
            work = folder / name
            work.mkdir()
            lines = self._enrolled(name, work) if enroll else {}
            section = room_section(broker, room, name, ca_file=str(ca_file) if ca_file else None,
                                   username=lines.get("username"), password_file=lines.get("password_file"))
            if "signing_key" in lines:
                section += f'signing_key = "{lines["signing_key"]}"\n'
            self.tables[name] = SimTable(name, room, _parse(script), work, section + room_extra)
        self._opened: list[SimTable] = []

    def _enrolled(self, table: str, folder: Path) -> dict[str, str]:
        """``tablectl room enroll``'s own code for ``table``: its files in ``folder``, its lines
        gathered in :attr:`enrolment`; the ``[room]`` settings that use the files."""
        printed = enroll(table, self.room, folder)
        user = username(self.room, table)
        self.enrolment.passwd += [line for line in printed.splitlines() if line.startswith(f"{user}:$7$")]
        self.enrolment.acl.append(acl_lines(self.room, table))
        key = re.search(rf'^"{re.escape(self.room)}/{re.escape(table)}" = "([0-9a-f]{{64}})"$', printed, re.M)
        assert key is not None and len(self.enrolment.passwd) == len(self.enrolment.acl), printed
        self.enrolment.floor_tables[f"{self.room}/{table}"] = key.group(1)
        return {"username": user, "password_file": str(folder / f"{table}.password"),
                "signing_key": str(folder / f"{table}.signing-key")}

    def __getitem__(self, name: str) -> SimTable:
        return self.tables[name]

    def __enter__(self) -> Tournament:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop(ack_wait=None if exc[0] is not None else ACK_WAIT)

    def start(self) -> None:
        """Start every table (its devices, its daemon, its room link), one after the other."""
        for table in self.tables.values():
            self._opened.append(table)
            table.open()

    def play(self, pieces: Mapping[str, Until]) -> None:
        """Play each named table on to its ``Until`` (:meth:`SimTable.play_to`), all together,
        each in its own thread; returns when all have, raising the first failure."""
        errors: dict[str, BaseException] = {}

        def run(name: str, until: Until) -> None:
            try:
                self.tables[name].play_to(until)
            except BaseException as exc:  # noqa: BLE001 (raised in the caller's thread below)
                errors[name] = exc

        threads = [threading.Thread(target=run, args=(n, u), name=f"table-{n}") for n, u in pieces.items()]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            name = next(n for n in pieces if n in errors)
            raise errors[name]

    def poll(self) -> None:
        """Every idle table takes in what its room link brought (:meth:`SimTable.poll`)."""
        for table in self.tables.values():
            table.poll()

    def wait_until(self, predicate: Callable[[], object], timeout: float = 10.0, *,
                   what: str = "the condition") -> None:
        """Poll the tables until ``predicate`` holds, failing the test after ``timeout`` seconds
        (times the tests' patience, rig/waiting.py)."""
        def polled() -> object:
            self.poll()
            return predicate()

        assert wait_for(polled, timeout, poll=0.02), f"timed out after {timeout * PATIENCE:g} s waiting for {what}"

    def holding(self) -> dict[str, str | None]:
        """Each table's hold (:meth:`SimTable.holding`)."""
        return {name: t.holding() for name, t in self.tables.items()}

    def all_holding(self, kind: str, *, but: tuple[str, ...] = ()) -> bool:
        """Every table (but those named) holds for ``kind`` (``h4h``, ``bubble``)."""
        return all(t.holding() == kind for name, t in self.tables.items() if name not in but)

    def stop(self, ack_wait: float | None = ACK_WAIT) -> None:
        """Stop every table started, in reverse; first (``ack_wait``) wait until the broker has
        acknowledged everything each published. Every table is stopped, whatever fails."""
        first: BaseException | None = None
        while self._opened:
            try:
                self._opened.pop().close(ack_wait)
            except BaseException as exc:  # noqa: BLE001 (the others are stopped all the same)
                first = first or exc
        if first is not None:
            raise first
