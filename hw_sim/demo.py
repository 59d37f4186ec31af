"""``tablectl demo``: the daemon against a simulated table dealing random hands.

Everything is real but the table: the simulated FEIG reader answers on a real
pseudo-terminal, the daemon's reader link polls it through pyserial, the core tracks every
card. The live view is what a technician would show a floor manager (it shows hole cards:
it is a private view, like the floor's channel).
"""

from __future__ import annotations

import random
import shutil
import signal
import sys
import tempfile
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from controller.core.effects import Alert, Effect, HandFinished
from controller.config.daemon import parse_config
from controller.daemon.main import Daemon
from controller.daemon.sinks import CallbackSink
from hw_sim import script as sc
from hw_sim.dealer import ScriptedDealer, SimulationError
from hw_sim.feig_reader import SimFeigReader
from hw_sim.readers import READER_DEVICES
from hw_sim.pacing import PacedTable
from hw_sim.pty_device import PtyDevice
from hw_sim.setup import ANTENNA_OF, ZONES, write_setup
from controller.core.games import game_of
from controller.core.mixed import PRESETS
from hw_sim.random_hands import random_hand
from controller.core.events import ButtonPress
from controller.daemon.control import request_to_event

DEMO_NOISE = sc.Noise(seed=0, miss=0.05, repeat=0.3, crosstalk=0.01)
#: the faults the demo deals now and then (``--faults N``: one hand in N, on average)
FAULTS = ("wrong_seat", "foreign_card", "missing_burn")
#: a tag of no registered deck: a foreign card (DECK-006)
FOREIGN_TAG = "tag:E0040150FFFF0F0F"
#: real seconds the demo's dealer waits for the daemon at most (a poll, a hand's record)
WAIT_S = 30.0


def with_fault(steps: list[dict[str, Any]], fault: str) -> list[dict[str, Any]]:
    """A clean hand's steps with one fault dealt: the first card to the wrong seat (MISD-004),
    a foreign card for the first board card (DECK-006: the floor's alert, "new setup" at the
    table), or the flop's burn left out (BURN-001).

    >>> steps = [{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"press": "round_done"},
    ...          {"deal": "2c", "to": "burn"}, {"deal": "3c", "to": "board"}, {"end": True}]
    >>> with_fault(steps, "wrong_seat")[0], with_fault(steps, "foreign_card")[4]["deal"]
    ({'deal': 'As', 'to': 'seat:2'}, 'tag:E0040150FFFF0F0F')
    >>> len(with_fault(steps, "missing_burn")), with_fault(steps, "missing_burn")[3]
    (5, {'deal': '3c', 'to': 'board'})
    """
    out = [dict(s) for s in steps]
    if fault == "wrong_seat":
        seats = [s["to"] for s in out if str(s.get("to", "")).startswith("seat:")]
        other = next((z for z in seats if z != seats[0]), None) if seats else None
        if other is not None:
            out[0]["to"] = other
    elif fault == "foreign_card":
        i = next((i for i, s in enumerate(out) if s.get("to") == "board"), None)
        if i is not None:
            out[i]["deal"] = FOREIGN_TAG
    elif fault == "missing_burn":
        i = next((i for i, s in enumerate(out) if s.get("to") == "burn"), None)
        if i is not None:
            del out[i]
    return out


class _InProcessDaemon(PacedTable):
    """The dealer's view of an in-process daemon running in real time, as on a Pi: its reader
    link polls the simulated reader from its own thread, and a "cycle" is waiting for its next
    poll. (The demo is a live view at a dealer's pace; ``tablectl simulate`` and the tests pace
    the daemon instead, for reports that depend on the script only: hw_sim/pacing.py.)"""

    def __init__(self, daemon: Daemon, reader: SimFeigReader) -> None:
        super().__init__()
        self.daemon = daemon
        self.reader = reader
        self.finished: set[int] = set()
        self.alerts: deque[Alert] = deque(maxlen=200)
        self.records: deque[dict[str, Any]] = deque(maxlen=50)
        self._cond = threading.Condition()
        daemon.sinks.append(CallbackSink(self._take, clearance="floor"))

    def _take(self, effects: list[Effect]) -> None:
        with self._cond:
            for e in effects:
                if isinstance(e, HandFinished):
                    self.finished.add(e.hand)
                    self.records.append(e.record)
                elif isinstance(e, Alert):
                    self.alerts.append(e)
            self._cond.notify_all()

    def _cycle(self, instant: float) -> None:
        if not self.reader.wait_cycles(1, WAIT_S):
            raise SimulationError(f"the daemon did not poll the reader for {WAIT_S:g} s")

    def wait_hand_finished(self, hand: int, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: hand in self.finished, WAIT_S)

    def wait_alert(self, code: str, after: float, timeout: float) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: any(a.code == code for a in self.alerts), WAIT_S)

    def command(self, request: dict) -> dict:
        """As the control socket does: a press goes through the console's mock pins."""

        event = request_to_event(request, now=time.time())
        console = self.daemon.console
        if not (isinstance(event, ButtonPress) and console is not None and console.drive(event)):
            self.daemon.submit(event)
        return {"ok": True}


class Demo:
    """``game``: a game of controller/core/games.py, or a rotation's name (``horse``, ``8game``: a
    mixed game, MIXED-001): the dealer deals whatever game the daemon says is next, as a dealer
    follows the plaque."""

    def __init__(self, *, seed: int, game: str, speed: float, faults: int = 0, reader: str = "feig") -> None:
        self.rng = random.Random(seed)
        self.faults = faults  # one hand in N dealt with a fault; 0: none
        self.game = game
        self.speed = speed
        self.workdir = Path(tempfile.mkdtemp(prefix="tablectl-demo-"))
        games = PRESETS.get(game, (game,))
        most = min(9, *(game_of(g).max_players for g in games))  # (no over-full table: DRAW-002)
        self.seats = sorted(self.rng.sample(range(1, 11), self.rng.randint(min(6, most), most)))
        button = self.seats[-1]
        cfg_path = write_setup(self.workdir, game=games[0], seats=self.seats, button=button,
                               table_extra=f'rotation = "{game}"' if game in PRESETS else "",
                               # a dealer's pace at speed 1 (a real reader's 100 cycles a second at most);
                               # faster with --speed, so that a card is confirmed in step with the dealing
                               reader_extra=f"poll_interval = {min(0.01, 0.05 / speed):.4f}"
                               + ("" if reader == "feig" else "\n" + READER_DEVICES[reader][1]))
        self.config = parse_config(cfg_path.read_text(), path=cfg_path)
        # the simulated reader: a FEIG reader, or our bridge board running its firmware (--reader)
        self.reader = READER_DEVICES[reader][0](
            PtyDevice(self.workdir / "reader"), antennas=ZONES.by_antenna,
            noise=sc.Noise(seed, DEMO_NOISE.miss, DEMO_NOISE.repeat, DEMO_NOISE.crosstalk))
        self.daemon = Daemon(self.config, sinks=[])
        self.view = _InProcessDaemon(self.daemon, self.reader)
        self.dealer = ScriptedDealer(self.reader, ANTENNA_OF, self.view,
                                     confirm_cycles=self.config.table.confirm_cycles)
        self.hands_dealt = 0
        self.error: str | None = None
        self._stop = threading.Event()

    def start(self) -> None:
        self.reader.start()
        self.daemon.start()
        threading.Thread(target=self.daemon.run, name="daemon", daemon=True).start()

    def deal(self, hands: int | None) -> None:
        """The dealer's thread: random clean hands, one after another."""
        try:
            self.reader.wait_cycles(1, 10)
            pause = 0.5 / self.speed  # about a card every half second at speed 1
            while not self._stop.is_set() and (hands is None or self.hands_dealt < hands):
                number = self.hands_dealt + 1
                status = self.daemon.status()  # the next hand's game (a mixed game's turn) and button
                steps = random_hand(self.rng, game=status["game"], seats=self.seats, button=status["button"]).steps
                if self.faults and self.rng.randrange(self.faults) == 0:
                    steps = with_fault(steps, self.rng.choice(FAULTS))
                for i, step in enumerate(steps, 1):
                    if self._stop.wait(pause):
                        return
                    self.dealer.play_step(number, i, sc.parse_step(step, where=f"hand {number}, step {i}"))
                self.hands_dealt = number
                self._stop.wait(4 * pause)
        except SimulationError as exc:
            self.error = str(exc)

    def stop(self) -> None:
        self._stop.set()
        self.daemon.stop()
        self.reader.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt  # SIGTERM or SIGHUP cleans up as Ctrl-C does


#: said when the live view cannot be shown: rich is the ``demo`` extra, not a dependency
NO_RICH = ("tablectl demo: the live view needs rich, which is not installed (pip install 'tablectl[demo]'; "
           "from a clone: pip install -e '.[demo]'); showing the plain view instead")


def rich_available() -> bool:
    """Whether the live view's library imports (an install without the ``demo`` extra has none)."""
    try:
        import rich.live  # noqa: F401
        import rich.panel  # noqa: F401
        import rich.table  # noqa: F401
    except ImportError:
        return False
    return True


def main(*, hands: int | None, seed: int | None, game: str, plain: bool, speed: float, faults: int = 0,
         reader: str = "feig") -> int:
    seed = seed if seed is not None else random.randrange(1 << 30)
    plain = plain or not sys.stdout.isatty()
    if not plain and not rich_available():  # a hint and the plain view, never a traceback
        print(NO_RICH, file=sys.stderr, flush=True)
        plain = True
    signal.signal(signal.SIGTERM, _interrupt)
    signal.signal(signal.SIGHUP, _interrupt)  # the terminal closed
    demo = Demo(seed=seed, game=game, speed=speed, faults=faults, reader=reader)
    demo.start()
    # From here a signal only asks the dealer to stop; the view ends with the dealer's thread.
    # (A KeyboardInterrupt raised at any bytecode could land in a cleanup, where nothing catches
    # it: the demo then died of SIGINT now and then instead of cleaning up and exiting 0.)
    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, lambda _signum, _frame: demo._stop.set())
    dealer = threading.Thread(target=demo.deal, args=(hands,), name="dealer", daemon=True)
    dealer.start()
    try:
        if plain:
            from hw_sim.view import run_plain  # (rich (the demo extra) loaded only for the live view)
            run_plain(demo, dealer)
        else:
            from hw_sim.view import run_live  # (rich (the demo extra) loaded only for the live view)
            run_live(demo, dealer)
    except KeyboardInterrupt:
        pass
    finally:
        demo.stop()
    if demo.error:
        print(f"tablectl demo: {demo.error}", file=sys.stderr)
        return 1
    return 0
