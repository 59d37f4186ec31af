"""The in-process harness: deal scripts played through the daemon's own code, synchronously.

``tablectl simulate`` runs the daemon as a subprocess on pseudo-terminals; this runs the same
pieces in one thread, one reader cycle at a time, with a clock that only moves when told:

- the configuration is the one ``simulate`` writes (``hw_sim.setup.write_setup``), read by the
  daemon's own parser (the console's debounce then set to 0: :data:`MOCK_BOUNCE_S`); the
  :class:`controller.daemon.main.Daemon` is built from it (no journal, no control socket, no
  device thread), with the dealer's console on gpiozero's MockFactory pins as in ``simulate``;
- each reader cycle: the simulated reader's noisy look at its field and the FEIG frames it
  encodes (``hw_sim.feig_reader``) go over a virtual line
  (:class:`firmware_bridge.virtual.VirtualLine`, handed to the daemon's reader link as its
  ``opener``: no private member of a link is touched) to the daemon's
  :class:`firmware_bridge.feig_client.FeigClient` (frame decoder, ``parse_inventory``, the MORE
  parts); the tags go through ``cycle_reads`` into a ``ReaderCycle`` stamped by the daemon's
  reader link clock, then through ``Daemon.submit`` and ``Daemon.handle`` (core, console,
  sinks), as the link thread and the main loop would;
- the shuffler: the simulated bridge board and the daemon's shuffler link speak the shuffler
  protocol over a second virtual line (the handshake, a status poll every ``poll_interval``
  of the clock, that is every 10th reader cycle, deck reports
  and their acknowledgements), so ``ShufflerStatus`` and ``ShufflerReport`` come from the link's
  own decoder;
- a press: the control socket's route (``request_to_event``, then the console's mock pins when
  it can give that press, else ``submit``);
- a floor step (the floor's signals, docs/deal-script.md): the core event the room link would
  make, stamped by the daemon's clock and ``submit``-ted, as ``simulate``'s paced daemon does it
  (:meth:`hw_sim.pacing.Beat.signal`);
- the reader unplugged: the ``DeviceStatus`` the link reports when its port fails, and again
  when the first inventory is answered after the plug; while a device is offline, or a
  player's clock runs, the main loop's once-a-second ``Tick``;
- the dealer is ``hw_sim.dealer.ScriptedDealer`` itself, running the cycles it needs and told of
  every card the daemon confirms (``daemon_placed``): it moves on as soon as the daemon has
  confirmed what it put, as a dealer watching the tracker would.

Time is the simulated table's (``hw_sim.pacing``): it moves :data:`CYCLE_S` per reader cycle,
each operation of the dealer between two cycles has its own instant, and each reading of the
clock is a microsecond later, so every timestamp, and so the step each alert is traced to, is
the same from run to run, and the same as ``tablectl simulate``'s: both pace the daemon with the
same :class:`hw_sim.pacing.Beat` and the same dealer, over another transport. The report
(deal-script.md, as ``simulate --json`` gives it) is built from the daemon's own HandFinished
records by the same function as ``simulate``'s.

Every effect is also kept per audience, filtered as the outputs filter them
(:func:`controller.daemon.sinks.visible_to`): :attr:`Played.seen` says what a public screen, the
dealer and the floor would have received, for checks that must hold over every scenario.

Not supported (refused with :class:`HarnessUnsupported`, never silently passed): ``crash_after``
(a power cut needs the journal and a process to kill: ``simulate``).

>>> from hw_sim.script import parse_script
>>> s = parse_script('{"format": 1, "game": "holdem", "seats": [1, 2], "button": 2, "hands": [{"steps": ['
...     '{"deal": "As", "to": "seat:1"}, {"deal": "Kd", "to": "seat:2"}, {"end": true}]}]}')
>>> play(s, console=False).report["hands"][0]["zones"]
{'seat:1': ['As'], 'seat:2': ['Kd']}
"""

from __future__ import annotations

import gc
import json
import tempfile
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from collections.abc import Callable, Iterator

from controller.core.effects import Alert, CardPlaced, Effect, HandFinished, HandStarted, Prompt, effect_to_dict
from controller.core.events import ButtonPress
from controller.config.daemon import load_config
from controller.config.console import default_console
from controller.daemon.control import request_to_event
from controller.daemon.main import Daemon
from hw_sim.readers import READER_DEVICES
from hw_sim.simulate import CONFIRM_CYCLES, GONE_CYCLES, READY_WAIT, build_report, deal_hands
from controller.daemon.sinks import Sink
from firmware_bridge.errors import LinkError
from firmware_bridge.serial_port import Port
from firmware_bridge.virtual import VirtualLine
from hw_sim import script as sc
from hw_sim.dealer import ScriptedDealer, SimulationError
from hw_sim.feig_reader import SimFeigReader
from hw_sim.pacing import CYCLE_S, EPOCH, Beat, PacedTable, SimClock
from hw_sim.setup import table_zones, write_setup
from hw_sim.shuffler import SimShuffler
from controller.config.display import DisplayConfig
from controller.daemon.room_link import public_state
from controller.room.topics import route
from hw_sim.i2c_bus import FakeSMBus

__all__ = ["CYCLE_S", "EPOCH", "Harness", "HarnessUnsupported", "Played", "play"]

AUDIENCES = ("public", "dealer", "floor")
#: The console's debounce and long-press times here: the mock pins' presses take real time
#: (a press settles after ``bounce_time``, a long one is held ``hold_time``), so they are short.
BOUNCE_S, HOLD_S = 0.001, 0.05
#: The debounce the console runs with here, set after the configuration is read (whose bounds,
#: 1 ms at least, are a real contact's): a mock pin's burst of bounces is driven in one instant
#: under the console's lock, so the debouncer still sees every edge and settles on the last
#: level, on a timer of 0 rather than of 1 ms. Each press was two of those timers and the
#: threads' hand-overs, three milliseconds: a third of a stud hand's time in the harness.
MOCK_BOUNCE_S = 0.0


class HarnessUnsupported(SimulationError):
    """A script the harness cannot play faithfully (``crash_after``): use ``tablectl simulate``."""


class _Recorder(Sink):
    """One audience's output: what an output of that clearance would have received."""

    def __init__(self, clearance: str, where: Callable[[], tuple[int, int]]) -> None:
        self.clearance = clearance
        self.where = where
        self.effects: list[tuple[tuple[int, int], Effect]] = []

    def write(self, effects: Any) -> None:
        step = self.where()
        self.effects.extend((step, e) for e in effects)


@dataclass
class Played:
    """What :func:`play` returns."""

    report: dict[str, Any]
    #: audience -> [((script hand, step) in force, effect)] as fan_out gave them to an output
    #: of that clearance (a public output gets only public effects)
    seen: dict[str, list[tuple[tuple[int, int], Effect]]] = field(default_factory=dict)
    cycles: int = 0
    #: room topic -> [((script hand, step), message body)]: what the room link would publish on
    #: each topic (controller/room/topics.py, ``broadcast`` included), without its seq;
    #: ``state``: the table's part of the retained state at each hand's start and end
    topics: dict[str, list[tuple[tuple[int, int], dict[str, Any]]]] = field(default_factory=dict)
    #: every state the dealer's console showed, as it showed it ((script hand, step), state): what
    #: the dealer's display draws (controller/core/display.py words each for every layout)
    screens: list[tuple[tuple[int, int], Any]] = field(default_factory=list)


class _RecordsClient:
    """The reader's records handed to the link without the FEIG frames (``wire=False``, see
    :func:`play`): a client as :class:`firmware_bridge.feig_client.FeigClient` is to the link
    (its ``client_factory``, :class:`firmware_bridge.reader_link.FeigReaderLink`)."""

    frames_bad = unexpected = stale_bytes = foreign_answers = 0

    def __init__(self, reader: SimFeigReader, line: VirtualLine) -> None:
        self.reader, self.line = reader, line

    def inventory(self, *, antennas: int | None, deadline_s: float = 0.5) -> list[Any]:
        if not self.line.is_open:  # (an unplugged cable fails as the line would)
            raise LinkError(f"{self.line.name}: read failed: device unplugged")
        return self.reader.answer_records(antennas, with_antennas=antennas is not None)


class Harness(PacedTable):
    """The daemon and the simulated devices in one thread (see the module)."""

    def __init__(self, script: sc.Script, *, console: bool = True, shuffler: bool = True,
                 workdir: Path | None = None, wire: bool = True, table_extra: str = "",
                 rules_extra: str = "", reader: str = "feig") -> None:
        if script.crash_steps:
            raise HarnessUnsupported("crash_after: a power cut needs the journal and a daemon process to kill; "
                                     "play this script with tablectl simulate")
        super().__init__()
        self.script = script
        device, reader_lines = READER_DEVICES[reader]  # (KeyError: no such simulated reader)
        #: False: the reader's records are handed over without the FEIG frames (see :func:`play`);
        #: the bridge board has only its wire
        self.wire = wire = wire or reader != "feig"
        self.clock = SimClock()
        with tempfile.TemporaryDirectory(prefix="tablectl-harness-") as tmp:
            work = workdir or Path(tmp)
            cfg = write_setup(work, game=script.game, seats=script.seats, button=script.button,
                              table_extra=f"confirm_cycles = {CONFIRM_CYCLES}\ngone_cycles = {GONE_CYCLES}\n"
                                          f"{table_extra}" + script.table_lines,
                              rules_extra=rules_extra, reader_extra=reader_lines, ready_wait=READY_WAIT,
                              shuffler=shuffler, journal=False,
                              console=default_console(pin_factory="mock", bounce_time=BOUNCE_S,
                                                      hold_time=HOLD_S) if console else False,
                              antennas=script.antennas)
            self.config = load_config(cfg)
        if self.config.console is not None:  # (see MOCK_BOUNCE_S)
            layout = replace(self.config.console.layout, bounce_time=MOCK_BOUNCE_S)
            self.config = replace(self.config, console=replace(self.config.console, layout=layout))
        self.recorders = {a: _Recorder(a, self._where) for a in AUDIENCES}
        # the dealer's display, on a simulated I2C bus, when the script pulls its cable
        self.display_bus: Any = None
        if console and any(isinstance(st.action, (sc.Unplug, sc.Plug)) and st.action.device == "display"
                           for h in script.hands for st in h.steps):

            self.display_bus = FakeSMBus(0x27)
            self.config = replace(self.config, display=DisplayConfig("hd44780", 20, 4, 1, 0x27, "lcd20x4"))
        # The devices, each at one end of a virtual line whose other end the daemon's link opens
        # (its ``opener``, handed over as a display bus is): the reader, the simulator's encoder
        # answering the daemon's client; the shuffler, the simulated bridge board (paced: a
        # report goes with a poll's answer, as under tablectl simulate).
        self.reader_end = VirtualLine("reader")
        zones, antenna_of = table_zones(script.antennas)  # (a stub spot: STUB-006)
        self.reader = device(self.reader_end, antennas=zones.by_antenna, noise=script.noise,
                             stub=antenna_of.get("stub"))
        self.reader_end.receive = self.reader.receive
        reader_link: dict[str, Any] = {"opener": self.reader_end.open_port}
        if not wire:
            reader_link["client_factory"] = self._records_client
        links: dict[str, dict[str, Any]] = {"reader": reader_link}
        self.shuffler: SimShuffler | None = None
        if self.config.shuffler is not None:
            self.shuffler_end = VirtualLine("shuffler")
            self.shuffler = SimShuffler(self.shuffler_end, seed=script.noise.seed, paced=True)
            self.shuffler_end.receive = self.shuffler.receive
            links["shuffler"] = {"opener": self.shuffler_end.open_port}
        self.daemon = Daemon(self.config, sinks=list(self.recorders.values()), clock=self.clock,
                             mono=self.clock.monotonic, display_bus=self.display_bus, link_options=links)
        self.screens: list[tuple[tuple[int, int], Any]] = []
        if self.daemon.console is not None:
            self.daemon.console.on_state = lambda st: self.screens.append((self._where(), st))
        self.states: list[tuple[tuple[int, int], dict[str, Any]]] = []
        self.beat = Beat(self.daemon, self.clock)
        self.dealer = ScriptedDealer(self.reader, antenna_of, self, confirm_cycles=CONFIRM_CYCLES,
                                     gone_cycles=GONE_CYCLES, shuffler=self.shuffler)

    @property
    def cycles(self) -> int:
        return self.beat.cycles

    def _records_client(self, port: Port) -> _RecordsClient:
        """The reader link's client with ``wire=False`` (see :func:`play`)."""
        return _RecordsClient(self.reader, self.reader_end)

    def _where(self) -> tuple[int, int]:
        """The script's (hand, step) in force: what each recorded effect is filed under."""
        dealer = getattr(self, "dealer", None)  # (none yet while the daemon is being built)
        return dealer.current if dealer is not None else (0, 0)

    # -- the daemon's side -----------------------------------------------------------------------
    def start(self) -> None:
        """What ``Daemon.start`` does that matters here: the console's pins, the devices' first
        verdicts (the shuffler's handshake; one reader cycle)."""
        if self.daemon.console is not None:
            self.daemon.console.open()
        self.beat.start(self.op())
        self.drain()
        self.cycle()

    def close(self) -> None:
        if self.daemon.console is not None:
            self.daemon.console.close()

    def drain(self) -> None:
        """The main loop: every event submitted so far, in order, through ``Daemon.handle``."""
        self.beat.drain(self._effects)

    def _effects(self, effects: list[Effect]) -> None:
        if any(type(e) is HandFinished or type(e) is HandStarted for e in effects):

            self.states.append((self._where(), public_state(self.daemon)))  # (the room's ``state``)
        for e in effects:
            if type(e) is HandFinished:
                rec = json.loads(json.dumps(effect_to_dict(e), separators=(",", ":")))  # as the feed has it
                self.take_record(rec["hand"], rec["record"])
                self.in_hand = False
            elif type(e) is HandStarted:
                self.in_hand = True
            elif type(e) is Alert:
                self.take_alert(e.code, e.ts)
                if not self.in_hand:
                    self.take_said(effect_to_dict(e))
            elif type(e) is Prompt:
                self.take_prompt(e.code, e.ts)
                if not self.in_hand:
                    self.take_said(effect_to_dict(e))
            elif type(e) is CardPlaced:
                self.take_placed(effect_to_dict(e))  # (the dealer paces itself on it)

    # -- the PacedTable's transport ----------------------------------------------------------------
    def _cycle(self, instant: float) -> None:
        """One reader cycle (and a shuffler poll when due), then the main loop's turn."""
        self.beat.cycle(instant)
        link = self.daemon.shuffler
        if link is not None:
            self.shuffler_reports = link.stats.reports
        self.drain()

    def _display(self, instant: float, plugged: bool) -> None:
        """The display's cable pulled or plugged back: its thread notices at once (poked, as its
        probe would within 2 s) and reports; the report is applied in this step."""
        bus = self.display_bus
        if bus is None or self.daemon.console is None:
            raise SimulationError("the script pulls the display's cable, but the table has no console")

        def cable() -> None:
            bus.failing = not plugged

        if not self.beat.display(instant, cable, plugged):
            raise SimulationError(f"the display was never reported {'online' if plugged else 'offline'}")
        self.drain()

    def _signal(self, instant: float, fields: dict[str, Any]) -> None:
        """The floor's signal: its core event submitted, as the paced daemon does it."""
        try:
            self.beat.signal(instant, fields)
        except ValueError as exc:
            raise SimulationError(f"the daemon refused the floor's signal {fields}: {exc}") from exc
        self.drain()

    def _ping(self) -> dict[str, Any]:
        self.drain()
        return {"ok": True, **self.daemon.status()}

    def _command(self, instant: float, request: dict[str, Any]) -> dict[str, Any]:
        """The control socket's handling of one request, in process."""
        self.clock.set(instant)
        try:
            event = request_to_event(request, now=self.clock())
            console = self.daemon.console
            if not (console is not None and isinstance(event, ButtonPress) and console.drive(event)):
                self.daemon.submit(event)
        except ValueError as exc:
            raise SimulationError(f"the daemon refused {request}: {exc}") from exc
        self.drain()
        return {"ok": True}

    # -- the script ---------------------------------------------------------------------------------
    def play(self) -> Played:
        self.start()
        try:
            buttons = deal_hands(self.script, self.dealer, self)
        finally:
            self.close()
        report = build_report(self.script, self.records, self.dealer, buttons, placed=self.placed,
                              prompts=self.prompts, said=self.said)

        topics: dict[str, list[tuple[tuple[int, int], dict[str, Any]]]] = {}
        for where, effect in self.recorders["floor"].effects:  # (the floor's output gets every effect)
            for topic, _idx, _ts, body in route([effect], broadcast=True):
                topics.setdefault(topic, []).append((where, body))
        topics["state"] = self.states  # (the table's part of it, at each hand's start and end)
        return Played(report, {a: r.effects for a, r in self.recorders.items()}, self.cycles, topics, self.screens)


@contextmanager
def _no_full_collections() -> Iterator[None]:
    """No full (oldest-generation) garbage collection while a script is played: the young
    generations are collected as ever, so short-lived cycles still go, but the whole heap (a test
    session's modules, the tables of pokerkit...) is not walked again and again because the play
    keeps what it records. A profile of 300 stud and draw hands: a sixth of their CPU in a dozen
    full collections.

    What was there before the play is set aside meanwhile (``gc.freeze``, unless someone else
    froze objects), and the play's own objects get one full collection at its end, before that
    is undone: the collection the play owes (what it promoted would soon trigger one) then walks
    what the play made, not the whole heap as well."""
    with _GC_LOCK:  # (plays in several threads: the first in raises the threshold, the last out restores it)
        if not _GC_SAVED:
            froze = gc.get_freeze_count() == 0
            _GC_SAVED.append((gc.get_threshold(), froze))
            gc.set_threshold(_GC_SAVED[0][0][0], _GC_SAVED[0][0][1], 1 << 30)
            if froze:
                gc.freeze()
        _GC_SAVED.append(None)
    try:
        yield
    finally:
        with _GC_LOCK:
            _GC_SAVED.pop()
            if len(_GC_SAVED) == 1:
                threshold, froze = _GC_SAVED.pop()
                if froze:
                    gc.collect()
                    gc.unfreeze()
                gc.set_threshold(*threshold)


_GC_LOCK = threading.Lock()
#: the thresholds before the first play under way, then one entry per play under way
_GC_SAVED: list[Any] = []


def play(script: sc.Script | dict | str, *, console: bool = True, wire: bool = True,
         table_extra: str = "", rules_extra: str = "", reader: str = "feig") -> Played:
    """Play a deal script (parsed, or its JSON as a dict or text) in process; see the module.
    A script the parser refuses raises ``hw_sim.script.ScriptError``.

    ``wire=False`` hands the simulated reader's records to the daemon's reader link without
    encoding and decoding the FEIG frames (:meth:`hw_sim.feig_reader.SimFeigReader.answer_records`): the
    same draws, so the same report (tests/unit/hw_sim/test_harness.py checks it), in about a third of the
    time; the frames are three quarters of a cycle's cost and have their own tests (golden
    frames, the fuzzer, the decoder's property test). The suite deals its many-hand scenarios
    so; ``simulate`` and the scripts checked against it keep the wire.

    ``reader``: the simulated reader, ``feig`` or ``bridge`` (our bridge board: its firmware's
    logic on simulated PN5180s, always on the wire; ``hw_sim.bridge_reader``).

    ``table_extra``: more ``[table]`` lines for the daemon's configuration, settings no deal
    script carries (a mixed game's rotation: ``hw_sim.simulate.rotation_lines``;
    ``event = "cash"``); ``rules_extra``: the ``[rules]`` lines (``stud_short_stub_method = "002"``)."""
    if isinstance(script, dict):
        script = json.dumps(script)
    if isinstance(script, str):
        script = sc.parse_script(script)
    with _no_full_collections():  # (the harness is garbage by its end: its collection takes it)
        return Harness(script, console=console, wire=wire, table_extra=table_extra, rules_extra=rules_extra,
                       reader=reader).play()
