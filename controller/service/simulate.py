"""``tablectl simulate``: play a deal script through simulated devices into the real daemon.

The simulated reader speaks the FEIG protocol on a real pseudo-terminal; the daemon runs as a
subprocess (``tablectl run``), exactly as on a Pi, and opens that pseudo-terminal through a
stable symlink as it would open ``/dev/tablectl/reader``. What the daemon concluded comes back
through its private feed (JSON lines); the report of deal-script.md is built from the daemon's
own hand records, never from the script.

Exit status: 0 when the script ran (whatever it found), 2 for a refused script, 1 when the
daemon or the simulation itself failed, 3 (``--broker``) when the broker had not acknowledged
everything the table published :data:`ACK_WAIT` seconds after the script's end.
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
from pathlib import Path
from typing import Any, TextIO
from collections.abc import Callable

from controller.service import control
from hw_sim import script as sc
from hw_sim.dealer import DaemonView, ScriptedDealer, SimulationError
from hw_sim.feig_reader import SimFeigReader
from hw_sim.pty_device import PtyDevice
from hw_sim.shuffler import SimShuffler
from hw_sim.setup import ANTENNA_OF, ZONES, write_setup

CONFIRM_CYCLES = 3
GONE_CYCLES = 8
READY_WAIT = 0.5  # [outputs] ready_wait: the simulated devices answer at once
ACK_WAIT = 30.0  # seconds --broker waits for the broker's acknowledgements at the end
EXIT_UNACKED = 3


class Unacknowledged(SimulationError):
    """``--broker``: the broker did not acknowledge everything in time (exit status 3)."""

    def __init__(self, left: int, report: dict[str, Any]) -> None:
        super().__init__(f"the broker did not acknowledge {left} message(s) within {ACK_WAIT:g} s "
                         f"(the table's outbox keeps them for the next start)")
        self.left, self.report = left, report


class FeedWatcher:
    """Follows the daemon's feed file and keeps what the simulator needs from it."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: dict[int, dict[str, Any]] = {}
        self.alerts: list[dict[str, Any]] = []
        self.readies = 0  # one per daemon start (a power cut starts it again)
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="feed", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(2)

    def _run(self) -> None:
        while not self.path.exists() and not self._stop.is_set():
            self._stop.wait(0.01)
        if self._stop.is_set():
            return
        with open(self.path) as f:
            buf = ""
            while not self._stop.is_set():
                chunk = f.readline()
                if not chunk:
                    self._stop.wait(0.002)
                    continue
                buf += chunk
                if not buf.endswith("\n"):
                    continue  # a line still being written
                line, buf = buf, ""
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue
                with self._cond:
                    kind = rec.get("type")
                    if kind == "Ready":
                        self.readies += 1
                    elif kind == "HandFinished":
                        self.records[rec["hand"]] = rec["record"]
                    elif kind == "Alert":
                        self.alerts.append(rec)
                    self._cond.notify_all()

    def wait(self, predicate, timeout: float) -> bool:  # type: ignore[no-untyped-def]
        with self._cond:
            return self._cond.wait_for(predicate, timeout)


class _Daemon:
    """The daemon subprocess as the dealer sees it."""

    def __init__(self, proc: subprocess.Popen, feed: FeedWatcher, control_path: str) -> None:
        self.proc, self.feed, self.control_path = proc, feed, control_path

    def _alive(self) -> None:
        if self.proc.poll() is not None:
            raise SimulationError(f"the daemon exited with status {self.proc.returncode}")

    def wait_hand_finished(self, hand: int, timeout: float) -> bool:
        self._alive()
        return self.feed.wait(lambda: hand in self.feed.records or self.proc.poll() is not None, timeout) \
            and hand in self.feed.records

    def wait_alert(self, code: str, after: float, timeout: float) -> bool:
        self._alive()
        return self.feed.wait(lambda: any(a["code"] == code and a["ts"] >= after for a in self.feed.alerts),
                              timeout)

    def command(self, request: dict) -> dict:
        self._alive()
        answer = control.send(self.control_path, request)
        if not answer.get("ok"):
            raise SimulationError(f"the daemon refused {request}: {answer.get('error')}")
        return answer


def run_script(script: sc.Script, *, workdir: Path, log: TextIO | None = None,
               step_timeout: float = 30.0,
               on_hand: Callable[[int, subprocess.Popen], None] | None = None,
               room: str | None = None, ack_wait: float = ACK_WAIT,
               on_step: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Play ``script`` and return the report (deal-script.md). Raises SimulationError.
    ``room``: a ``[room]`` section for the daemon's configuration; then, before the daemon is
    stopped, wait up to ``ack_wait`` s for the broker's acknowledgements (:class:`Unacknowledged`)."""
    cfg = write_setup(workdir, game=script.game, seats=script.seats, button=script.button,
                      table_extra=f"confirm_cycles = {CONFIRM_CYCLES}\ngone_cycles = {GONE_CYCLES}",
                      reader_extra="answer_timeout = 1.0",
                      outputs='feed = "feed.jsonl"\ncontrol = "control.sock"', shuffler=True, journal=True,
                      ready_wait=READY_WAIT)
    if room:
        cfg.write_text(cfg.read_text() + "\n" + room)
    reader = SimFeigReader(PtyDevice(workdir / "reader"), antennas=ZONES.by_antenna, noise=script.noise)
    shuffler = SimShuffler(PtyDevice(workdir / "shuffler"), seed=script.noise.seed)
    feed = FeedWatcher(workdir / "feed.jsonl")
    daemon_log = open(workdir / "daemon.log", "w")
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env.pop("NOTIFY_SOCKET", None)
    reader.start()
    shuffler.start()
    feed.start()
    command = [sys.executable, "-m", "controller.service.cli", "run", "--config", str(cfg)]
    proc = subprocess.Popen(command, stdout=daemon_log, stderr=subprocess.STDOUT, env=env)
    daemon = _Daemon(proc, feed, str(workdir / "control.sock"))
    cuts = set(script.crash_steps)

    def power_cut(step: int) -> None:
        """crash_after: SIGKILL after ``step``, and start again on the same journal."""
        if step not in cuts:
            return
        before = feed.readies
        daemon.proc.kill()
        daemon.proc.wait()
        daemon_log.write(f"--- power cut after step {step}: SIGKILL, started again ---\n")
        daemon_log.flush()
        daemon.proc = subprocess.Popen(command, stdout=daemon_log, stderr=subprocess.STDOUT, env=env)
        if not feed.wait(lambda: feed.readies > before or daemon.proc.poll() is not None, step_timeout) \
                or feed.readies <= before:
            raise SimulationError(f"the daemon did not start again after the power cut at step {step}")
        if not reader.wait_cycles(2, step_timeout):  # polling again: the table is live
            raise SimulationError("the daemon never polled the reader again after the power cut")

    try:
        if not feed.wait(lambda: feed.readies or proc.poll() is not None, step_timeout) or not feed.readies:
            raise SimulationError("the daemon did not start; see its log")
        if not reader.wait_cycles(1, step_timeout):
            raise SimulationError("the daemon never polled the simulated reader")
        dealer = ScriptedDealer(reader, ANTENNA_OF, daemon, confirm_cycles=CONFIRM_CYCLES,
                                gone_cycles=GONE_CYCLES, step_timeout=step_timeout, shuffler=shuffler)
        dealer.on_step = power_cut if on_step is None else (lambda step: (power_cut(step), on_step(step)) and None)

        def played(number: int) -> None:
            if log is not None:
                log.write(f"hand {number} played\n")
            if on_hand is not None:
                on_hand(number, daemon.proc)

        buttons = deal_hands(script, dealer, daemon, after_hand=played)
        report = build_report(script, feed.records, dealer, buttons)
        if room:
            left = _wait_acked(daemon, ack_wait)
            if left:
                raise Unacknowledged(left, report)
    except Unacknowledged:
        raise
    except SimulationError as exc:
        tail = _tail(workdir / "daemon.log")
        raise SimulationError(f"{exc}\n--- daemon log (last lines) ---\n{tail}") from exc
    finally:
        proc = daemon.proc
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        feed.stop()
        reader.stop()
        shuffler.stop()
        daemon_log.close()
    return report


def _wait_acked(daemon: _Daemon, timeout: float) -> int:
    """Poll the daemon (ping) until its outbox holds nothing unacknowledged; what is left."""
    deadline = time.monotonic() + timeout
    left = -1
    while True:
        room = daemon.command({"cmd": "ping"}).get("room") or {}
        left = int(room.get("unacked", -1))
        if left == 0 or time.monotonic() >= deadline:
            return left if left >= 0 else 0
        threading.Event().wait(0.05)


def deal_hands(script: sc.Script, dealer: ScriptedDealer, daemon: DaemonView,
               after_hand: Callable[[int], None] | None = None) -> dict[int, int]:
    """Play every hand of ``script``: a hand's ``seats``/``button`` as a set-up command, then
    its steps. Returns the button the daemon had at each hand's start (for the report).
    ``simulate`` and the in-process harness both deal through here."""
    buttons: dict[int, int] = {}
    for number, hand in enumerate(script.hands, 1):
        if hand.seats is not None or hand.button is not None:
            setup: dict[str, Any] = {"cmd": "setup", "seats": list(hand.seats or script.seats)}
            if hand.button is not None:
                setup["button"] = hand.button  # else the daemon moves the button itself
            daemon.command(setup)
        buttons[number] = daemon.command({"cmd": "ping"}).get("button", script.button)
        dealer.deck = hand.deck or script.deck  # the physical deck the shuffler will read
        dealer.play_hand(number, hand)
        if after_hand is not None:
            after_hand(number)
    return buttons


def build_report(script: sc.Script, records: dict[int, dict[str, Any]], dealer: ScriptedDealer,
                 buttons: dict[int, int]) -> dict[str, Any]:
    """The report of deal-script.md from the daemon's own hand records (``records``: the
    daemon's hand number -> its HandFinished record as the feed has it, JSON), the dealer's
    step log mapping each alert back to a step, and the button the daemon had at each hand's
    start. Shared by ``simulate`` and the in-process harness."""
    hands = []
    for number in range(1, len(script.hands) + 1):
        rec = records.get(dealer.record_of.get(number, -1))
        if rec is None:  # a hand in which no card was dealt leaves no record in the daemon
            hands.append({"button": buttons.get(number), "zones": {}, "stub_count": 52, "alerts": []})
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
        hands.append({"button": rec["button"], "zones": rec["zones"], "stub_count": rec["stub_count"],
                      "alerts": alerts})
    return {"hands": hands}


def _tail(path: Path, lines: int = 15) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def format_report(report: dict[str, Any]) -> str:
    """The report for a person: one block per hand."""
    out = []
    for i, h in enumerate(report["hands"], 1):
        out.append(f"hand {i}  button {h['button']}  stub {h['stub_count']}")
        for zone, cards in h["zones"].items():
            out.append(f"  {zone:8} {' '.join(cards)}")
        for a in h["alerts"]:
            seat = f" seat {a['seat']}" if "seat" in a else ""
            out.append(f"  ! {a['audience']:6} {a['code']} ({a['rule'] or '-'}){seat} at step {a['step']}")
    return "\n".join(out)


def room_section(broker: str, room: str, table: str) -> str:
    """The ``[room]`` section ``--broker`` gives the simulated table."""
    return f'[room]\nbroker = {json.dumps(broker)}\nroom = {json.dumps(room)}\ntable = {json.dumps(table)}\n'


def main(path: str, *, as_json: bool, keep: bool = False, broker: str | None = None, room: str = "sim",
         table: str = "t1") -> int:
    try:
        text = Path(path).read_text()
    except OSError as exc:
        print(f"{path}: cannot read the script: {exc.strerror or exc}", file=sys.stderr)
        return 2
    try:
        script = sc.parse_script(text)
    except sc.ScriptError as exc:
        print(f"{path}: {exc}", file=sys.stderr)
        return 2
    workdir = Path(tempfile.mkdtemp(prefix="tablectl-sim-"))
    section = room_section(broker, room, table) if broker else None
    if section is not None:  # (checked before the daemon starts: a bad URL is one line, status 2)
        from controller.service.config import ConfigError
        from controller.service.room_config import parse_room
        import tomllib

        try:
            parse_room({**tomllib.loads(section), "journal": {}}, src="--broker", base=workdir)
        except ConfigError as exc:
            print(f"tablectl simulate: {exc}", file=sys.stderr)
            return 2
    try:
        report = run_script(script, workdir=workdir, room=section, ack_wait=ACK_WAIT)
    except Unacknowledged as exc:
        print(json.dumps(exc.report, indent=2) if as_json else format_report(exc.report))
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return EXIT_UNACKED
    except SimulationError as exc:
        print(f"tablectl simulate: {exc}", file=sys.stderr)
        return 1
    finally:
        if keep:
            print(f"tablectl simulate: work folder kept: {workdir}", file=sys.stderr)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    print(json.dumps(report, indent=2) if as_json else format_report(report))
    return 0
