"""``tablectl simulate``: play a deal script through simulated devices into the real daemon.

The simulated reader speaks the FEIG protocol on a real pseudo-terminal; the daemon runs as a
subprocess (``tablectl run``), exactly as on a Pi, and opens that pseudo-terminal through a
stable symlink as it would open ``/dev/tablectl/reader``. A script that pulls the dealer's
display's cable gets a 20x4 LCD on ``hw_sim``'s fake I2C bus in the daemon, whose cable is a file
of the work folder (``[display] sim_cable``, hw_sim/i2c_bus.py): no process can stand in for
``/dev/i2c-N``, whose every transfer is an ioctl. What the daemon concluded comes back
through its private feed (JSON lines); the report of deal-script.md is built from the daemon's
own hand records, never from the script.

Exit status: 0 when the script ran (whatever it found), 2 for a refused script, 1 when the
daemon or the simulation itself failed, 3 (``--broker``) when the broker had not acknowledged
everything the table published :data:`ACK_WAIT` seconds after the script's end, 143 when stopped
by SIGTERM and 130 by SIGINT (Ctrl-C): the daemon and the simulated devices are stopped first, and
the work folder (it holds a journal with the hands' cards) removed unless ``--keep``.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from types import FrameType
from typing import Any, TextIO

from controller.config.daemon import read_bounded
from controller.daemon import control
from controller.daemon.private import open_private
from hw_sim import script as sc
from hw_sim.dealer import ScriptedDealer, SimulationError
from hw_sim.readers import READER_DEVICES
from hw_sim.i2c_bus import SimDisplayCable
from hw_sim.paced_daemon import PaceLine
from hw_sim.pacing import PACE_TIMEOUT, PacedTable
from hw_sim.pty_device import PtyDevice
from hw_sim.shuffler import SimShuffler
from hw_sim.setup import table_zones, write_setup
from controller.config.daemon import BOUNDS
from controller.config.daemon import ConfigError
from controller.config.room import parse_room
from controller.core.mixed import rotation_of
import tomllib

#: the simulated table's [table] confirm_cycles: the shipped default (docs/tracking.md, the budget)
CONFIRM_CYCLES = 2
#: its gone_cycles: below the shipped 20 so a card taken off the table is gone in 8 cycles, not 20
#: (nothing in a script lifts a card off the table but to remove it); the gather's 4 is the same
GONE_CYCLES = 8
#: the largest deal script read (a session of a hundred hands is a few hundred KiB)
SCRIPT_MAX_BYTES = 64 * 1024 * 1024
READY_WAIT = 0.5  # [outputs] ready_wait: the simulated devices answer at once
ACK_WAIT = 30.0  # seconds --broker waits for the broker's acknowledgements at the end
EXIT_UNACKED = 3


class Unacknowledged(SimulationError):
    """``--broker``: the broker did not acknowledge everything in time, or refused the table's
    login (exit status 3)."""

    def __init__(self, left: int, report: dict[str, Any], refused: str | None = None) -> None:
        if refused is not None:
            super().__init__(f"{refused}; {left} message(s) not delivered (check --username, --password-file "
                             f"and the broker's password and ACL files: docs/room.md)")
        else:
            super().__init__(f"the broker did not acknowledge {left} message(s) within {ACK_WAIT:g} s "
                             f"(the table's outbox keeps them for the next start)")
        self.left, self.report, self.refused = left, report, refused


class Stopped(BaseException):
    """A signal (SIGTERM, SIGINT) asked ``simulate`` to stop: raised in the main thread so that
    every ``finally`` on the way out runs (the daemon stopped, the devices closed, the folder
    removed). A BaseException, as KeyboardInterrupt is: nothing on the way may swallow it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _Signals:
    """SIGTERM and SIGINT turned into :class:`Stopped`, once: a second signal while the first
    is being cleaned up after is ignored (cleaning up must finish). Inside :meth:`hold` (a child
    being started, and not yet known to the code that stops it) the first is held back and
    raised at the end of the block."""

    def __init__(self) -> None:
        self.installed = False
        self._held = 0
        self._pending: int | None = None
        self._raised = False

    def install(self) -> None:
        for signum in (signal.SIGTERM, signal.SIGINT):
            signal.signal(signum, self._on_signal)
        self.installed = True

    def uninstall(self) -> None:
        if self.installed:
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, signal.SIG_DFL if signum == signal.SIGTERM else signal.default_int_handler)
            self.installed = False

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        if self._raised or self._pending is not None:
            return
        if self._held:
            self._pending = signum
            return
        self._raised = True
        raise Stopped(signum)

    @contextmanager
    def hold(self) -> Iterator[None]:
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
        if not self._held and self._pending is not None and not self._raised:
            self._raised = True
            raise Stopped(self._pending)


_SIGNALS = _Signals()


class FeedReader:
    """The daemon's feed, read to its end after each beat: the daemon answers a beat only once
    every effect of it is written (a line each, flushed), so what is read then is complete."""

    def __init__(self, path: Path, take: Callable[[dict[str, Any]], None]) -> None:
        self.path = path
        self.take = take
        self.readies = 0  # one per daemon start (a power cut starts it again)
        self._f: TextIO | None = None
        self._buf = ""

    def read(self) -> None:
        if self._f is None:
            try:
                self._f = open(self.path)
            except FileNotFoundError:
                return
        while True:
            chunk = self._f.readline()
            if not chunk:
                return
            self._buf += chunk
            if not self._buf.endswith("\n"):
                continue  # a line still being written (a daemon killed mid-line: joined, then skipped)
            line, self._buf = self._buf, ""
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if rec.get("type") == "Ready":
                self.readies += 1
            else:
                self.take(rec)

    def close(self) -> None:
        if self._f is not None:
            self._f.close()


class _Daemon(PacedTable):
    """The daemon subprocess as the dealer sees it: paced over the pipes only this process holds
    (``hw_sim.paced_daemon``), commanded over its control socket, read through its feed."""

    def __init__(self, workdir: Path, config: Path, env: dict[str, str], log: TextIO,
                 pace_timeout: float = PACE_TIMEOUT) -> None:
        super().__init__()
        self.workdir, self.config, self.env, self.log = workdir, config, env, log
        self.pace_timeout = pace_timeout
        self.control_path = str(workdir / "control.sock")
        self.feed = FeedReader(workdir / "feed.jsonl", self.take)
        self.proc: subprocess.Popen | None = None
        self.line: PaceLine | None = None

    # -- the process -----------------------------------------------------------------------------
    def launch(self) -> None:
        """Start the daemon (again, after a power cut) and wait until it is up; its clock starts at
        the instant it is given (an operation of its own: the journal's recovery stamps there)."""
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        command = [sys.executable, "-m", "hw_sim.paced_daemon", "--config", str(self.config),
                   "--pace-in", str(to_child), "--pace-out", str(from_child), "--start", repr(self.op())]
        try:
            with _SIGNALS.hold():
                self.proc = subprocess.Popen(command, stdout=self.log, stderr=subprocess.STDOUT, env=self.env,
                                             pass_fds=(to_child, from_child))
        finally:
            os.close(to_child)
            os.close(from_child)
        self.line = PaceLine(to_parent, from_parent)
        hello = self._answer("its start")
        if not hello.get("ready"):
            raise SimulationError(f"the daemon did not start: it said {hello}")
        self.feed.read()

    def stop(self) -> None:
        """SIGTERM (the daemon stops cleanly), SIGKILL if it has not within 5 s. A SIGCONT follows
        the SIGTERM: a daemon someone stopped (SIGSTOP, a debugger let go) takes it at once
        instead of being killed 5 s later; a running one ignores it."""
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            proc.send_signal(signal.SIGCONT)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self.line is not None:
            self.line.close()
            self.line = None
        self.feed.close()

    def power_cut(self, step: int) -> None:
        """SIGKILL after ``step``, then start again on the same configuration and journal."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait()
        if self.line is not None:
            self.line.close()
        self.log.write(f"--- power cut after step {step}: SIGKILL, started again ---\n")
        self.log.flush()
        self.launch()
        self._start(self.op())

    def _where(self) -> str:
        d = self.dealer
        if d is None or not d.current[0]:
            return ""
        hand, step = d.current
        return f"hand {hand}, step {step}: " if step else f"hand {hand}, before its first step: "

    def _answer(self, what: str) -> dict[str, Any]:
        """The daemon's answer, within :data:`hw_sim.pacing.PACE_TIMEOUT` seconds of real time."""
        assert self.line is not None and self.proc is not None
        try:
            answer = self.line.receive(self.pace_timeout)
        except ValueError as exc:
            raise SimulationError(f"{self._where()}the daemon's answer to {what} is unreadable: {exc}") from exc
        if answer is None:
            said = _tail(self.workdir / "daemon.log", 1) or "nothing"
            if self.proc.poll() is not None:
                raise SimulationError(f"{self._where()}the daemon exited with status {self.proc.returncode} "
                                      f"before it took in {what}; it last said: {said}")
            raise SimulationError(f"{self._where()}the daemon did not take in {what} within {self.pace_timeout:g} s; "
                                  f"it last said: {said}")
        return answer

    def _ask(self, op: dict[str, Any], what: str) -> None:
        assert self.line is not None and self.proc is not None
        if self.proc.poll() is not None:
            raise SimulationError(f"{self._where()}the daemon exited with status {self.proc.returncode}")
        try:
            self.line.send(op)
        except OSError as exc:  # (its end closed: it died)
            raise SimulationError(f"{self._where()}the daemon is gone ({exc.strerror}); see its log") from exc
        answer = self._answer(what)
        if not answer.get("ok"):
            raise SimulationError(f"{self._where()}the daemon refused {what}: {answer.get('error')}")
        self.shuffler_reports = int(answer.get("reports", 0))
        self.feed.read()

    # -- the PacedTable's transport ----------------------------------------------------------------
    def _start(self, instant: float) -> None:
        self._ask({"op": "start", "t": instant}, "the devices' start")

    def start(self) -> None:
        self._start(self.op())
        self.cycle()

    def _cycle(self, instant: float) -> None:
        self._ask({"op": "cycle", "t": instant}, f"reader cycle {self.time.cycles}")

    def _ping(self) -> dict[str, Any]:
        return self._send({"cmd": "ping"})

    def _send(self, request: dict[str, Any]) -> dict[str, Any]:
        if self.proc is not None and self.proc.poll() is not None:
            raise SimulationError(f"{self._where()}the daemon exited with status {self.proc.returncode}")
        try:
            answer = control.send(self.control_path, request, timeout=self.pace_timeout)
        except (OSError, ValueError) as exc:
            raise SimulationError(f"{self._where()}the daemon's control socket did not answer "
                                  f"{request.get('cmd')}: {exc}") from exc
        if not answer.get("ok"):
            raise SimulationError(f"the daemon refused {request}: {answer.get('error')}")
        return answer

    def _command(self, instant: float, request: dict[str, Any]) -> dict[str, Any]:
        self._ask({"op": "at", "t": instant}, f"the instant of {request.get('cmd')}")
        answer = self._send(request)
        self._ask({"op": "sync"}, f"the {request.get('cmd')} it was sent")
        return answer

    def _display(self, instant: float, plugged: bool) -> None:
        self._ask({"op": "display", "t": instant, "plugged": plugged},
                  f"the display's cable {'plugged' if plugged else 'pulled'}")

    def _signal(self, instant: float, fields: dict[str, Any]) -> None:
        # (over the private pipes: the control socket has no command for the floor's signals)
        self._ask({"op": "signal", "t": instant, "event": fields}, f"the floor's {fields.get('type')}")

    def sync(self) -> None:
        """Take in what the room link brought while the table was idle, and read what it made."""
        self._ask({"op": "sync"}, "a sync")


def rotation_lines(rotation: str | None, change: str | None = None) -> str:
    """``[table]`` lines for a mixed game (MIXED-001, docs/configuration.md): ``rotation`` a
    preset's name or games joined by commas, ``change`` "orbit" or a number of hands; ValueError
    saying what is wrong.

    >>> print(rotation_lines("holdem,razz", "3"))
    rotation = ["holdem", "razz"]
    change = 3
    >>> rotation_lines("horse")
    'rotation = "horse"'
    """

    lines = []
    if rotation is not None:
        value: str | list[str] = rotation if "," not in rotation else [g.strip() for g in rotation.split(",")]
        try:
            games = rotation_of(value)
        except (KeyError, ValueError) as exc:
            raise ValueError(f"--rotation: {exc.args[0]}") from None
        if len(games) < 2:
            raise ValueError("--rotation: a rotation needs two games or more")
        lines.append("rotation = " + json.dumps(value))
    if change is not None:

        low, high = int(BOUNDS["table.change"].lo), int(BOUNDS["table.change"].hi)
        if change != "orbit" and not (change.isdigit() and low <= int(change) <= high):
            raise ValueError(f"--change: want orbit or a number of hands {low} to {high}, got {change[:20]!r}")
        lines.append(f'change = {json.dumps(change) if change == "orbit" else int(change)}')
    return "\n".join(lines)


class SimulatedTable:
    """One table as ``tablectl simulate`` plays it: its configuration written in ``workdir``, its
    reader and shuffler on pseudo-terminals, the daemon subprocess paced over its private pipes,
    the scripted dealer. :meth:`open`, then :meth:`play_to` a piece at a time or :meth:`play` to
    the end, :meth:`report`; :meth:`close` always (it stops what was started, in reverse).
    :func:`run_script` plays a whole script through one; ``rig/tournament.py`` drives several
    over one broker, a piece at a time.

    ``room``: a ``[room]`` section for the daemon's configuration (the table's room link);
    ``table_extra``: more ``[table]`` lines (a mixed game's rotation: :func:`rotation_lines`);
    ``pace_timeout``: real seconds the daemon may take to take in one beat; ``log`` (a line a
    hand played), ``on_hand`` (the hand's number and the daemon's process) and ``on_step`` (the
    steps played so far) are told as the script goes."""

    def __init__(self, script: sc.Script, *, workdir: Path, log: TextIO | None = None,
                 on_hand: Callable[[int, subprocess.Popen], None] | None = None, room: str | None = None,
                 on_step: Callable[[int], None] | None = None, table_extra: str = "",
                 pace_timeout: float = PACE_TIMEOUT, reader: str = "feig") -> None:
        if reader not in READER_DEVICES:
            raise ValueError(f"no simulated reader {reader!r} (readers: {', '.join(READER_DEVICES)})")
        self.reader_kind = reader
        self.script, self.workdir, self.log, self.on_hand, self.room = script, workdir, log, on_hand, room
        self.on_step, self.table_extra, self.pace_timeout = on_step, table_extra, pace_timeout
        self.started: list[Callable[[], None]] = []  # what to stop on the way out, in the order started
        self.daemon: _Daemon | None = None
        self.dealer: ScriptedDealer | None = None
        self.player: HandsPlayer | None = None

    def open(self) -> None:
        """Write the configuration, start the devices and the daemon, and the daemon's first
        beat. Raises SimulationError (the daemon's last log lines in it)."""
        script, workdir = self.script, self.workdir
        with _SIGNALS.hold():  # a signal waits until what is started is in ``started``
            cfg = write_setup(workdir, game=script.game, seats=script.seats, button=script.button,
                              table_extra=f"confirm_cycles = {CONFIRM_CYCLES}\ngone_cycles = {GONE_CYCLES}\n"
                                          f"{self.table_extra}" + script.table_lines,
                              reader_extra=READER_DEVICES[self.reader_kind][1],
                              shuffler_extra="answer_timeout = 1.0",
                              outputs='feed = "feed.jsonl"\ncontrol = "control.sock"', shuffler=True,
                              journal=True, ready_wait=READY_WAIT, antennas=script.antennas)
            if self.room:
                cfg.write_text(cfg.read_text() + "\n" + self.room)
            if _pulls_the_display(script):
                cable = SimDisplayCable(workdir / "display")
                cable.plug()
                cfg.write_text(cfg.read_text() + "\n" + display_section(cable))
            zones, antenna_of = table_zones(script.antennas)  # (a stub spot: STUB-006)
            reader = READER_DEVICES[self.reader_kind][0](PtyDevice(workdir / "reader"), antennas=zones.by_antenna,
                                                         noise=script.noise, stub=antenna_of.get("stub"))
            shuffler = SimShuffler(PtyDevice(workdir / "shuffler"), seed=script.noise.seed, paced=True)
            daemon_log = open_private(workdir / "daemon.log", "w")  # (the daemon's log: the floor's folder)
            self.started.append(daemon_log.close)
            env = dict(os.environ, PYTHONUNBUFFERED="1")
            env.pop("NOTIFY_SOCKET", None)
            reader.start()
            self.started.append(reader.stop)
            shuffler.start()
            self.started.append(shuffler.stop)
            daemon = self.daemon = _Daemon(workdir, cfg, env, daemon_log, self.pace_timeout)
            self.started.append(daemon.stop)
        cuts = set(script.crash_steps)

        def power_cut(step: int) -> None:
            """crash_after: SIGKILL once the daemon has taken in ``step``, and start again."""
            if step in cuts:
                daemon.power_cut(step)

        on_step = self.on_step
        with self.logged():
            daemon.launch()
            dealer = self.dealer = ScriptedDealer(reader, antenna_of, daemon, confirm_cycles=CONFIRM_CYCLES,
                                                  gone_cycles=GONE_CYCLES, shuffler=shuffler)
            dealer.on_step = power_cut if on_step is None else (lambda step: (power_cut(step), on_step(step)) and None)
            daemon.start()
            self.player = HandsPlayer(script, dealer, daemon, after_hand=self._played)

    def _played(self, number: int) -> None:
        if self.log is not None:
            self.log.write(f"hand {number} played\n")
        if self.on_hand is not None:
            assert self.daemon is not None and self.daemon.proc is not None
            self.on_hand(number, self.daemon.proc)

    @contextmanager
    def logged(self) -> Iterator[None]:
        """A SimulationError raised inside says the daemon's last log lines too."""
        try:
            yield
        except Unacknowledged:
            raise
        except SimulationError as exc:
            tail = _tail(self.workdir / "daemon.log")
            raise SimulationError(f"{exc}\n--- daemon log (last lines) ---\n{tail}") from exc

    def play_to(self, hand: int, step: int | None = None) -> None:
        """Play on to step ``step`` of hand ``hand`` (None: its end); see :class:`HandsPlayer`."""
        assert self.player is not None, "open() first"
        with self.logged():
            self.player.play_to(hand, step)

    def play(self) -> None:
        """Play what is left of the script."""
        assert self.player is not None, "open() first"
        if not self.player.done:
            self.play_to(len(self.script.hands))

    def report(self) -> dict[str, Any]:
        """The report (deal-script.md) of the hands played so far."""
        assert self.daemon is not None and self.dealer is not None and self.player is not None
        return build_report(self.script, self.daemon.records, self.dealer, self.player.buttons,
                            placed=self.daemon.placed, prompts=self.daemon.prompts, said=self.daemon.said)

    def wait_acked(self, timeout: float, report: dict[str, Any]) -> None:
        """With a room link: wait until the broker has acknowledged everything the table
        published, :class:`Unacknowledged` (with ``report``) if it has not within ``timeout`` s."""
        assert self.daemon is not None
        with self.logged():
            left, refused = _wait_acked(self.daemon, timeout)
        if left:
            raise Unacknowledged(left, report, refused)

    def close(self) -> None:
        """Stop the daemon and the devices (no signal stops this half way)."""
        with _SIGNALS.hold():  # a second signal waits until the children are stopped
            for stop in reversed(self.started):
                stop()
            self.started.clear()


def run_script(script: sc.Script, *, workdir: Path, log: TextIO | None = None,
               on_hand: Callable[[int, subprocess.Popen], None] | None = None,
               room: str | None = None, ack_wait: float = ACK_WAIT,
               on_step: Callable[[int], None] | None = None, table_extra: str = "",
               pace_timeout: float = PACE_TIMEOUT, reader: str = "feig") -> dict[str, Any]:
    """Play ``script`` and return the report (deal-script.md). Raises SimulationError, or
    :class:`Stopped` (a signal, under :func:`main`) once the daemon and the devices are stopped.
    ``room``: a ``[room]`` section for the daemon's configuration; then, before the daemon is
    stopped, wait up to ``ack_wait`` s for the broker's acknowledgements (:class:`Unacknowledged`).
    The other arguments: :class:`SimulatedTable`'s."""
    table = SimulatedTable(script, workdir=workdir, log=log, on_hand=on_hand, room=room, on_step=on_step,
                           table_extra=table_extra, pace_timeout=pace_timeout, reader=reader)
    try:
        table.open()
        table.play()
        report = table.report()
        if room:
            table.wait_acked(ack_wait, report)
        return report
    finally:
        table.close()


def _wait_acked(daemon: _Daemon, timeout: float) -> tuple[int, str | None]:
    """Poll the daemon (ping) until its outbox holds nothing unacknowledged: what is left, and
    the broker's refusal of the table's login if that is why (then at once: no wait can help).
    The table's time runs on meanwhile, a reader cycle a poll (the broadcast feed's delay is
    measured on it), while the broker answers in real time."""
    deadline = time.monotonic() + timeout
    left = -1
    while True:
        room = daemon._ping().get("room") or {}
        left = int(room.get("unacked", -1))
        error = room.get("last_error")
        if left and isinstance(error, str) and error.startswith("the broker refused the connection") \
                and not room.get("connected"):
            return max(left, 0), error
        if left == 0 or time.monotonic() >= deadline:
            return (left if left >= 0 else 0), None
        daemon.cycle()
        threading.Event().wait(0.02)


class HandsPlayer:
    """Plays a script's hands through a dealer, whole (:func:`deal_hands`) or a piece at a time
    (:meth:`play_to`: the rig's tables, driven together, tablectl/rig's ``tournament``): before a
    hand's first step, its ``seats``/``button``/``game`` as a set-up command; then its steps.
    ``buttons``: the button the daemon had at each hand's start (for the report)."""

    def __init__(self, script: sc.Script, dealer: ScriptedDealer, daemon: PacedTable,
                 after_hand: Callable[[int], None] | None = None) -> None:
        self.script, self.dealer, self.daemon, self.after_hand = script, dealer, daemon, after_hand
        self.buttons: dict[int, int] = {}
        #: the last step played, (hand, step) from 1; (1, 0): none yet
        self.at = (1, 0)

    @property
    def done(self) -> bool:
        hand, step = self.at
        return hand == len(self.script.hands) and step == len(self.script.hands[-1].steps)

    def play_to(self, hand: int, step: int | None = None) -> None:
        """Play on to step ``step`` of hand ``hand`` (from 1), that step included; ``step`` None:
        to the hand's end. A place already played is ValueError (the table does not go back)."""
        hands = self.script.hands
        if not 1 <= hand <= len(hands):
            raise ValueError(f"hand {hand}: the script has {len(hands)} hands")
        last = len(hands[hand - 1].steps)
        step = last if step is None else step
        if not 1 <= step <= last:
            raise ValueError(f"hand {hand}, step {step}: the hand has {last} steps")
        if (hand, step) <= self.at:
            raise ValueError(f"hand {hand}, step {step} is played already (played to hand {self.at[0]}, "
                             f"step {self.at[1]})")
        while self.at < (hand, step):
            number, done = self.at
            if done == len(hands[number - 1].steps):
                number, done = number + 1, 0
            if done == 0:
                self._set_up(number)
            steps = hands[number - 1].steps
            stop = step if number == hand else len(steps)
            for index in range(done + 1, stop + 1):
                self.dealer.play_step(number, index, sc.action_of(steps[index - 1]))
                self.at = (number, index)
            if stop == len(steps) and self.after_hand is not None:
                self.after_hand(number)

    def _set_up(self, number: int) -> None:
        """Hand ``number``'s set-up: its seats, button or game told the daemon; its button noted."""
        script, dealer, daemon = self.script, self.dealer, self.daemon
        hand = script.hands[number - 1]
        dealer.current = (number, 0)  # (the hand's set-up: what a failure names)
        game = hand.game
        if game is not None and daemon.command({"cmd": "ping"}).get("game") == game:
            game = None  # the daemon deals it anyway (its rotation, MIXED-001): no word from the floor
        if hand.seats is not None or hand.button is not None:
            setup: dict[str, Any] = {"cmd": "setup", "seats": list(hand.seats or script.seats)}
            if hand.button is not None:
                setup["button"] = hand.button  # else the daemon moves the button itself
            if game is not None:
                setup["game"] = game  # a mixed game: the hand's own game (deal-script.md)
            daemon.command(setup)
        elif game is not None:
            daemon.command({"cmd": "setup", "seats": list(script.seats), "game": game})
        self.buttons[number] = daemon.command({"cmd": "ping"}).get("button", script.button)
        dealer.deck = hand.deck or script.deck  # the physical deck the shuffler will read


def deal_hands(script: sc.Script, dealer: ScriptedDealer, daemon: PacedTable,
               after_hand: Callable[[int], None] | None = None) -> dict[int, int]:
    """Play every hand of ``script`` (:class:`HandsPlayer`). Returns the button the daemon had
    at each hand's start (for the report). ``simulate`` and the in-process harness both deal
    through here."""
    player = HandsPlayer(script, dealer, daemon, after_hand)
    player.play_to(len(script.hands))
    return player.buttons


def build_report(script: sc.Script, records: dict[int, dict[str, Any]], dealer: ScriptedDealer,
                 buttons: dict[int, int], placed: list[dict[str, Any]] | None = None,
                 prompts: list[tuple[str, float]] | None = None,
                 said: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The report of deal-script.md from the daemon's own hand records (``records``: the
    daemon's hand number -> its HandFinished record as the feed has it, JSON), the dealer's
    step log mapping each alert back to a step, and the button the daemon had at each hand's
    start; ``placed``, the daemon's CardPlaced effects, for the ``tracking`` block; ``prompts``,
    every prompt the daemon gave as (code, ts), for the ``holds``; ``said``, every prompt and
    alert it gave between hands (their dicts, as the feed has them), for ``between_hands``.
    Shared by ``simulate`` and the in-process harness."""
    hands = []
    for number in range(1, len(script.hands) + 1):
        rec = records.get(dealer.record_of.get(number, -1))
        if rec is None:  # a hand in which no card was dealt leaves no record in the daemon
            hands.append({"button": buttons.get(number), "level": None, "zones": {}, "stub_count": 52,
                          "alerts": [], "prompts": []})
            continue
        alerts = []
        for a in rec["alerts"]:
            where = dealer.log.step_at(a["ts"])
            item = {"code": a["code"], "rule": a["rule"]}
            if "seat" in a:
                item["seat"] = a["seat"]
            if "card" in a:
                item["card"] = a["card"]
            item["audience"] = a["audience"]
            item["step"] = where[1] if where else None
            if where and where[0] != number:
                item["hand"] = where[0]
            alerts.append(item)
        hands.append({"button": rec["button"], "level": rec.get("level"), "zones": rec["zones"],
                      "stub_count": rec["stub_count"],
                      "alerts": alerts, "prompts": [_prompt_item(p, dealer, number) for p in rec.get("prompts", [])],
                      **({"showdown": rec["showdown"]} if "showdown" in rec else {}),
                      **({"stub_read": rec["stub_read"]} if "stub_read" in rec else {}),
                      **({"unchecked": rec["unchecked"]} if "unchecked" in rec else {})})
    report = {"hands": hands, "tracking": dealer.confirm_latency(placed or []),
              "holds": holds(script, dealer, prompts or [])}
    between = between_hands(script, records, dealer, said or [])
    if between:  # (a report with nothing said between hands stays as it was, byte for byte)
        report["between_hands"] = between
    return report


def between_hands(script: sc.Script, records: dict[int, dict[str, Any]], dealer: ScriptedDealer,
                  said: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The report's ``between_hands``: what the table said while no hand was under way (after a
    hand's cards were gathered, before the next hand's first card), in order, that no hand's
    record keeps (the alerts and prompts kept for the next hand are in its ``alerts`` and
    ``prompts``, as ever). Each: ``kind`` (``prompt`` or ``alert``), ``code``, ``rule``, ``seat``
    when one is named, an alert's ``card`` and ``audience``, ``step`` (counted over the whole
    script, as ``holds``' are: :func:`script_step`) and a prompt's ``text``.

    >>> from types import SimpleNamespace
    >>> from hw_sim.dealer import StepLog
    >>> s = sc.parse_script('{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": []}]}')
    >>> log = StepLog(); log.mark((1, 1), 10.0)
    >>> said = [{"type": "Prompt", "code": "flow.h4h_wait", "rule": "FLOW-002", "message": "wait", "ts": 10.5,
    ...          "seat": None},
    ...         {"type": "Alert", "code": "deal.seat_waits", "rule": "DEAL-006", "audience": "dealer",
    ...          "seat": 6, "ts": 10.6, "message": "seat 6 waits"}]
    >>> records = {1: {"alerts": [{"code": "deal.seat_waits", "ts": 10.6}]}}  # (kept by hand 1's record)
    >>> between_hands(s, records, SimpleNamespace(log=log), said)
    [{'kind': 'prompt', 'code': 'flow.h4h_wait', 'rule': 'FLOW-002', 'step': 1, 'text': 'wait'}]
    """
    kept = {(e["code"], e["ts"]) for rec in records.values()
            for e in (*rec.get("alerts", ()), *rec.get("prompts", ()))}
    out = []
    for e in said:
        if (e["code"], e["ts"]) in kept:
            continue
        prompt = e.get("type") == "Prompt"
        item: dict[str, Any] = {"kind": "prompt" if prompt else "alert", "code": e["code"], "rule": e.get("rule")}
        if e.get("seat") is not None:
            item["seat"] = e["seat"]
        if not prompt:
            if e.get("card") is not None:
                item["card"] = e["card"]
            item["audience"] = e["audience"]
        item["step"] = script_step(script, dealer.log.step_at(e["ts"]))
        if prompt:
            item["text"] = e.get("message", "")
        out.append(item)
    return out


#: the prompts that begin and end a hold (FLOW-002 hand-for-hand, FLOW-003 the bubble, FLOW-007 a
#: satellite's start gate): code -> (the hold's kind, True where it begins)
HOLD_PROMPTS = {"flow.h4h_wait": ("h4h", True), "flow.h4h_go": ("h4h", False),
                "flow.bubble_hold": ("bubble", True), "flow.bubble_go": ("bubble", False),
                "flow.satellite_wait": ("satellite", True), "flow.satellite_go": ("satellite", False)}


def script_step(script: sc.Script, where: tuple[int, int] | None) -> int | None:
    """The step ``where`` (hand, step of the hand) counted from 1 over the whole script, as
    ``crash_after`` counts; None for none (before the first step).

    >>> s = sc.parse_script('{"format": 1, "seats": [1, 2], "button": 2, "hands": [{"steps": []}, {"steps": []}]}')
    >>> script_step(s, (2, 1)), script_step(s, None)
    (2, None)
    """
    if where is None or where[0] < 1:
        return None
    hand, step = where
    return sum(len(h.steps) for h in script.hands[:hand - 1]) + step


def holds(script: sc.Script, dealer: ScriptedDealer, prompts: list[tuple[str, float]]) -> list[dict[str, Any]]:
    """The report's ``holds``: every hold the table observed, in order, from the prompts that
    begin one (the dealer told to wait: ``flow.h4h_wait``, ``flow.bubble_hold``,
    ``flow.satellite_wait``) and end it (``flow.h4h_go``, ``flow.bubble_go``,
    ``flow.satellite_go``): ``{"kind", "from_step", "released_step"}``, each step
    counted over the whole script (:func:`script_step`), ``released_step`` None while it holds.
    A hold prompted again while it holds (after each hand of hand-for-hand until the release) is
    the same hold; an end with no hold of its kind (a release reaching a table that was dealing)
    ends none."""
    out: list[dict[str, Any]] = []
    holding: dict[str, dict[str, Any]] = {}
    for code, ts in prompts:
        hold = HOLD_PROMPTS.get(code)
        if hold is None:
            continue
        kind, begins = hold
        step = script_step(script, dealer.log.step_at(ts))
        if begins and kind not in holding:
            holding[kind] = {"kind": kind, "from_step": step, "released_step": None}
            out.append(holding[kind])
        elif not begins and kind in holding:
            holding.pop(kind)["released_step"] = step
    return out


def _prompt_item(p: dict[str, Any], dealer: ScriptedDealer, number: int) -> dict[str, Any]:
    """One prompt of a hand record as the report lists it (deal-script.md, "Report additions"):
    ``code``, ``rule``, ``seat`` when the record names one, ``step`` (traced as an alert's is)
    and ``text``, the words the dealer was given."""
    where = dealer.log.step_at(p["ts"])
    item: dict[str, Any] = {"code": p["code"], "rule": p.get("rule")}
    if p.get("seat") is not None:
        item["seat"] = p["seat"]
    item["step"] = where[1] if where else None
    if where and where[0] != number:
        item["hand"] = where[0]
    item["text"] = p.get("message", "")
    return item


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def format_report(report: dict[str, Any]) -> str:
    """The report for a person: one block per hand."""
    out = []
    for i, h in enumerate(report["hands"], 1):
        level = f"  level {h['level']}" if h.get("level") is not None else ""
        out.append(f"hand {i}  button {h['button']}{level}  stub {h['stub_count']}")
        for zone, cards in h["zones"].items():
            out.append(f"  {zone:8} {' '.join(cards)}")
        for a in h["alerts"]:
            seat = f" seat {a['seat']}" if "seat" in a else ""
            out.append(f"  ! {a['audience']:6} {a['code']} ({a['rule'] or '-'}){seat} at step {a['step']}")
        for p in h.get("prompts", []):
            seat = f" seat {p['seat']}" if "seat" in p else ""
            out.append(f"  > {p['code']} ({p['rule'] or '-'}){seat} at step {p['step']}: {p['text']}")
        if "showdown" in h:
            out.append(f"  showdown {showdown_line(h['showdown'])}")
    for said in report.get("between_hands", []):
        seat = f" seat {said['seat']}" if "seat" in said else ""
        at = f"at step {said['step']}" if said["step"] is not None else "before the first step"
        if said["kind"] == "prompt":
            out.append(f"between hands > {said['code']} ({said['rule'] or '-'}){seat} {at}: {said['text']}")
        else:
            out.append(f"between hands ! {said['audience']:6} {said['code']} ({said['rule'] or '-'}){seat} {at}")
    for hold in report.get("holds", []):
        end = f"released at step {hold['released_step']}" if hold["released_step"] is not None else "never released"
        start = f"from step {hold['from_step']}" if hold["from_step"] is not None else "from the start"
        out.append(f"hold {hold['kind']} {start}, {end}")
    t = report.get("tracking")
    if t and t["cards"]:
        c = t["confirm_cycles"]
        out.append(f"tracking  {t['cards']} cards confirmed in {c['p50']} reader cycle(s) at the median, "
                   f"{c['p99']} at the 99th percentile, {c['max']} at most")
    return "\n".join(out)


def showdown_line(sd: dict[str, Any]) -> str:
    """A record's ``showdown`` in one line: the winners of each half, then every hand read.

    >>> showdown_line({"seats": [2, 7], "high": [2], "low": [], "hands": {"2": "flush, ace high",
    ...                "7": "pair of nines"}, "low_hands": {}})
    'high seat 2, low none | 2: flush, ace high; 7: pair of nines'
    >>> showdown_line({"seats": [1, 4], "high": [4], "hands": {"1": "pair of aces", "4": "flush, jack high"},
    ...                "runs": [{"high": [4]}, {"high": [1]}]})  # a board run twice (BOARD-011)
    'high seat 4 | 1: pair of aces; 4: flush, jack high | run 1: high seat 4 | run 2: high seat 1'
    """
    def seats(ws: list[int]) -> str:
        return ("seat " if len(ws) == 1 else "seats ") + ", ".join(map(str, ws)) if ws else "none"
    halves = f"high {seats(sd['high'])}" + (f", low {seats(sd['low'])}" if "low" in sd else "")
    lows = sd.get("low_hands", {})
    reads = "; ".join(f"{s}: {w}" + (f" / {lows[s]}" if s in lows else "") for s, w in sd["hands"].items())
    dead = "".join(f"; {s}: dead ({n} cards)" for s, n in sd.get("dead", {}).items())
    runs = "".join(f" | run {i}: high {seats(r['high'])}" + (f", low {seats(r['low'])}" if "low" in r else "")
                   for i, r in enumerate(sd.get("runs", []), 1))
    return f"{halves} | {reads}{dead}{runs}"


def _pulls_the_display(script: sc.Script) -> bool:
    return any(isinstance(st.action, (sc.Unplug, sc.Plug)) and st.action.device == "display"
               for h in script.hands for st in h.steps)


def display_section(cable: SimDisplayCable) -> str:
    """The ``[display]`` section of a simulated table: a 20x4 LCD (as the in-process harness's)
    on the fake bus whose cable is ``cable``."""
    return (f'[display]\nkind = "hd44780"\nwidth = 20\nheight = 4\naddress = 0x27\n'
            f'sim_cable = {json.dumps(str(cable.path))}\n')


def room_section(broker: str, room: str, table: str, *, username: str | None = None,
                 password_file: str | None = None, ca_file: str | None = None,
                 signing_key: str | None = None) -> str:
    """The ``[room]`` section ``--broker`` gives the simulated table: logged in as ``tablectl run``
    is (a user and its password file, the room CA for mqtts://), and signing its records with
    an enrolled table's key (``signing_key``), as a floor with ``require_signatures`` wants."""
    lines = [f"broker = {json.dumps(broker)}", f"room = {json.dumps(room)}", f"table = {json.dumps(table)}"]
    for key, value in (("username", username), ("password_file", password_file), ("ca_file", ca_file),
                       ("signing_key", signing_key)):
        if value is not None:
            path = value if key == "username" else str(Path(value).resolve())
            lines.append(f"{key} = {json.dumps(path)}")
    return "[room]\n" + "\n".join(lines) + "\n"


def main(path: str, *, as_json: bool, keep: bool = False, broker: str | None = None, room: str = "sim",
         table: str = "t1", rotation: str | None = None, change: str | None = None, username: str | None = None,
         password_file: str | None = None, ca_file: str | None = None, signing_key: str | None = None,
         reader: str = "feig") -> int:
    try:
        mixed = rotation_lines(rotation, change)
    except ValueError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 2
    script = _load_script(path)
    if script is None:
        return 2
    _SIGNALS.install()
    workdir: Path | None = None
    try:
        try:
            with _SIGNALS.hold():  # the folder is known to the finally below before a signal can stop us
                workdir = Path(tempfile.mkdtemp(prefix="tablectl-sim-"))
            section = room_section(broker, room, table, username=username, password_file=password_file,
                                   ca_file=ca_file, signing_key=signing_key) if broker else None
            problem = _broker_problem(section, workdir,
                                      login_given=bool(username or password_file or ca_file or signing_key))
            if problem is not None:
                print(f"tablectl simulate: {problem}", file=sys.stderr)
                return 2
            report = run_script(script, workdir=workdir, room=section, ack_wait=ACK_WAIT, table_extra=mixed,
                                reader=reader)
        except Unacknowledged as exc:
            print(json.dumps(exc.report, indent=2) if as_json else format_report(exc.report))
            print(f"tablectl simulate: {exc}", file=sys.stderr)
            keep = True  # (what the broker never took is in the table's outbox: kept, and said where)
            print(f"tablectl simulate: the table's outbox, with what the broker did not acknowledge, is kept in "
                  f"{workdir / 'journal.sqlite3'}", file=sys.stderr)
            return EXIT_UNACKED
        except SimulationError as exc:
            print(f"tablectl simulate: {exc}", file=sys.stderr)
            return 1
        finally:
            _leave_workdir(workdir, keep)
    except Stopped as stop:
        print(f"tablectl simulate: stopped by {stop}; the daemon stopped"
              + ("" if keep else ", the work folder removed"), file=sys.stderr)
        return 128 + stop.signum
    finally:
        _SIGNALS.uninstall()
    print(json.dumps(report, indent=2) if as_json else format_report(report))
    return 0


def _load_script(path: str) -> sc.Script | None:
    """The deal script at ``path``; None, said in one line on stderr, if it cannot be read or is
    not a deal script."""
    try:
        data = read_bounded(path, SCRIPT_MAX_BYTES)
    except OSError as exc:
        print(f"{path}: cannot read the script: {exc.strerror or exc}", file=sys.stderr)
        return None
    except ValueError as exc:  # (a /dev/zero is not read to its end)
        print(f"{path}: not a deal script: {exc}", file=sys.stderr)
        return None
    try:
        return sc.parse_script(data)  # (bytes: not UTF-8 is a ScriptError naming the step)
    except sc.ScriptError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return None


def _broker_problem(section: str | None, workdir: Path, *, login_given: bool) -> str | None:
    """What is wrong with ``--broker`` (its ``[room]`` section, None without it) and the login
    options, or None: checked before the daemon starts, so that a bad URL is one line, status 2."""
    if section is None:
        return "--username, --password-file, --ca-file and --signing-key go with --broker" if login_given else None
    try:
        parse_room({**tomllib.loads(section), "journal": {}}, src="--broker", base=workdir)
    except ConfigError as exc:
        return str(exc)
    return None


def _leave_workdir(workdir: Path | None, keep: bool) -> None:
    """The work folder removed, or kept (``--keep``, or an outbox to keep) and said where; no
    signal stops this half way."""
    with _SIGNALS.hold():
        if workdir is None:
            return  # (none was made)
        if keep:
            print(f"tablectl simulate: work folder kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
