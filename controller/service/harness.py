"""The in-process harness: deal scripts played through the daemon's own code, synchronously.

``tablectl simulate`` runs the daemon as a subprocess on pseudo-terminals; this runs the same
pieces in one thread, one reader cycle at a time, with a clock that only moves when told:

- the configuration is the one ``simulate`` writes (``hw_sim.setup.write_setup``), read by the
  daemon's own parser (the console's debounce then set to 0: :data:`MOCK_BOUNCE_S`); the
  :class:`controller.service.daemon.Daemon` is built from it (no journal, no control socket, no
  device thread), with the dealer's console on gpiozero's MockFactory pins as in ``simulate``;
- each reader cycle: the simulated reader's noisy look at its field and the FEIG frames it
  encodes (``hw_sim.feig_reader``) go over an in-memory line to the daemon's
  :class:`firmware_bridge.feig_client.FeigClient` (frame decoder, ``parse_inventory``, the MORE
  parts); the tags go through ``cycle_reads`` into a ``ReaderCycle`` stamped by the daemon's
  reader link clock, then through ``Daemon.submit`` and ``Daemon.handle`` (core, console,
  sinks), as the link thread and the main loop would;
- the shuffler: the simulated bridge board and the daemon's shuffler link speak the shuffler
  protocol over a second in-memory line (the handshake, a status poll every ``poll_interval``
  of the clock, that is every 10th reader cycle, deck reports
  and their acknowledgements), so ``ShufflerStatus`` and ``ShufflerReport`` come from the link's
  own decoder;
- a press: the control socket's route (``request_to_event``, then the console's mock pins when
  it can give that press, else ``submit``);
- the reader unplugged: the ``DeviceStatus`` the link reports when its port fails, and again
  when the first inventory is answered after the plug; while a device is offline the main
  loop's once-a-second ``Tick``;
- the dealer is ``hw_sim.dealer.ScriptedDealer`` itself, paced synchronously (``run_cycle``) and
  told of every card the daemon confirms (``daemon_placed``): it moves on as soon as the
  daemon has confirmed what it put, as a dealer watching the tracker would.

The clock starts at a fixed time, moves :data:`CYCLE_S` per reader cycle and a microsecond at
every reading, so every timestamp, and so the step each alert is traced to, is the same from
run to run. The report (deal-script.md, as ``simulate --json`` gives it) is built from the
daemon's own HandFinished records by the same function as ``simulate``'s.

Every effect is also kept per audience, filtered as the outputs filter them
(:func:`controller.service.sinks.visible_to`): :attr:`Played.seen` says what a public screen, the
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

import json
import queue
import tempfile
import time
import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any
from collections.abc import Callable

import serial

from controller.effects import Alert, CardPlaced, Effect, HandFinished, HandStarted, effect_to_dict
from controller.events import ButtonPress, ReaderCycle, Tick
from controller.service.config import load_config
from controller.service.console_config import default_console
from controller.service.control import request_to_event
from controller.service.daemon import Daemon
from controller.service.simulate import CONFIRM_CYCLES, GONE_CYCLES, READY_WAIT, build_report, deal_hands
from controller.service.sinks import Sink
from firmware_bridge import shuffler as sp
from firmware_bridge.errors import BridgeError
from firmware_bridge.feig_client import FeigClient
from firmware_bridge.reader_link import cycle_reads
from hw_sim import script as sc
from hw_sim.dealer import ScriptedDealer, SimulationError
from hw_sim.feig_reader import SimFeigReader
from hw_sim.setup import ANTENNA_OF, ZONES, write_setup
from hw_sim.shuffler import SimShuffler

#: Seconds the clock moves per reader cycle (a FEIG reader with 13 antennas: about 50 ms).
CYCLE_S = 0.05
#: Where the clock starts (2026-01-01 00:00 UTC): any fixed time would do.
EPOCH = 1_767_225_600.0
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


class FakeClock:
    """A clock that moves only when read (a microsecond) or advanced: deterministic stamps.
    Called, it is the wall clock; :meth:`monotonic` is the monotonic reading that moves with
    it, save when the wall clock is set (:meth:`set_wall`: a Pi's clock set by NTP at boot).

    >>> c = FakeClock(100.0)
    >>> c(), c() > 100.0, c.advance(1.0) >= 101.0
    (100.0, True, True)
    >>> m = c.monotonic()[0]; _ = c.set_wall(-3600.0)
    >>> c() < 100.0, m <= c.monotonic()[0] < m + 0.001
    (True, True)
    """

    BOOT = "00000000"  # the harness's one boot

    def __init__(self, start: float = EPOCH) -> None:
        self._t = start
        self._wall = 0.0  # what the wall clock was set by, in all
        self._lock = threading.Lock()  # the console's debounce timer reads it from its thread

    def __call__(self) -> float:
        with self._lock:
            t = self._t
            self._t += 1e-6
            return t + self._wall

    def advance(self, seconds: float) -> float:
        with self._lock:
            self._t += seconds
            return self._t + self._wall

    def set_wall(self, seconds: float) -> float:
        """The wall clock set forward (or back) by ``seconds``; the monotonic clock does not move."""
        with self._lock:
            self._wall += seconds
            return self._t + self._wall

    def monotonic(self) -> tuple[float, str]:
        """The monotonic reading (seconds since the clock's start) and the harness's boot."""
        with self._lock:
            return self._t - EPOCH, self.BOOT


class _SimEnd:
    """The simulated device's end of an in-memory line (what a PtyDevice is to it)."""

    def __init__(self) -> None:
        self.to_host = bytearray()
        self.is_open = True

    def write(self, data: bytes) -> None:
        if self.is_open:
            self.to_host += data

    def open(self) -> None:  # plugged back in
        self.is_open = True

    def close(self) -> None:  # unplugged: what was on the line is lost
        self.is_open = False
        self.to_host.clear()


class _HostPort:
    """The host's end, as much of a pyserial port as the daemon's clients use. A write is
    answered at once: the simulated device takes the bytes in the same call."""

    def __init__(self, end: _SimEnd, receive: Callable[[bytes], None], name: str) -> None:
        self.end, self.receive, self.name = end, receive, name

    def _check(self) -> None:
        if not self.end.is_open:
            raise serial.SerialException(f"{self.name}: device unplugged")

    def write(self, data: bytes) -> int:
        self._check()
        self.receive(bytes(data))
        return len(data)

    @property
    def in_waiting(self) -> int:
        self._check()
        return len(self.end.to_host)

    def read(self, size: int = 1) -> bytes:
        self._check()
        buf = self.end.to_host
        out = bytes(buf[:size])
        del buf[:size]
        return out

    def reset_input_buffer(self) -> None:
        self.end.to_host.clear()

    def close(self) -> None:
        pass


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
    #: each topic (controller/service/room/topics.py, ``broadcast`` included), without its seq;
    #: ``state``: the table's part of the retained state at each hand's start and end
    topics: dict[str, list[tuple[tuple[int, int], dict[str, Any]]]] = field(default_factory=dict)
    #: every state the dealer's console showed, as it showed it ((script hand, step), state): what
    #: the dealer's display draws (controller/display.py words each for every layout)
    screens: list[tuple[tuple[int, int], Any]] = field(default_factory=list)


class Harness:
    """The daemon and the simulated devices in one thread (see the module)."""

    def __init__(self, script: sc.Script, *, console: bool = True, shuffler: bool = True,
                 workdir: Path | None = None, wire: bool = True, table_extra: str = "",
                 rules_extra: str = "") -> None:
        if script.crash_steps:
            raise HarnessUnsupported("crash_after: a power cut needs the journal and a daemon process to kill; "
                                     "play this script with tablectl simulate")
        self.script = script
        #: False: the reader's records are handed over without the FEIG frames (see :func:`play`)
        self.wire = wire
        self.clock = FakeClock()
        with tempfile.TemporaryDirectory(prefix="tablectl-harness-") as tmp:
            work = workdir or Path(tmp)
            cfg = write_setup(work, game=script.game, seats=script.seats, button=script.button,
                              table_extra=f"confirm_cycles = {CONFIRM_CYCLES}\ngone_cycles = {GONE_CYCLES}\n"
                                          f"{table_extra}" + script.table_lines,
                              rules_extra=rules_extra, reader_extra="answer_timeout = 1.0", ready_wait=READY_WAIT,
                              shuffler=shuffler, journal=False,
                              console=default_console(pin_factory="mock", bounce_time=BOUNCE_S,
                                                      hold_time=HOLD_S) if console else False)
            self.config = load_config(cfg)
        if self.config.console is not None:  # (see MOCK_BOUNCE_S)
            layout = replace(self.config.console.layout, bounce_time=MOCK_BOUNCE_S)
            self.config = replace(self.config, console=replace(self.config.console, layout=layout))
        self.recorders = {a: _Recorder(a, self._where) for a in AUDIENCES}
        self.daemon = Daemon(self.config, sinks=list(self.recorders.values()), clock=self.clock,
                             mono=self.clock.monotonic)
        self.screens: list[tuple[tuple[int, int], Any]] = []
        if self.daemon.console is not None:
            self.daemon.console.on_state = lambda st: self.screens.append((self._where(), st))
        # the dealer's display, on a simulated I2C bus, when the script pulls its cable
        self.display_bus: Any = None
        if self.daemon.console is not None and any(
                isinstance(st.action, (sc.Unplug, sc.Plug)) and st.action.device == "display"
                for h in script.hands for st in h.steps):
            from controller.service.display_config import DisplayConfig
            from controller.service.display_sink import DisplayOutput
            from firmware_bridge.backoff import Backoff
            from hw_sim.i2c_bus import FakeSMBus

            self.display_bus = FakeSMBus(0x27)
            self.daemon.console.display = DisplayOutput(
                DisplayConfig("hd44780", 20, 4, 1, 0x27, "lcd20x4"), self.daemon.submit, clock=self.clock,
                mono=self.clock.monotonic, bus=self.display_bus, backoff=Backoff(0.01, 0.05))
        self.records: dict[int, dict[str, Any]] = {}
        self.placed: list[dict[str, Any]] = []  # the CardPlaced effects, for the tracking block
        self.alerts: list[tuple[str, float]] = []
        self.cycles = 0
        self.states: list[tuple[tuple[int, int], dict[str, Any]]] = []
        self._last_tick = float("-inf")  # (the monotonic reading of the last tick: none yet)
        # the reader: the simulator's encoder, the daemon's client on the other end
        self.reader_end = _SimEnd()
        self.reader = SimFeigReader(self.reader_end, antennas=ZONES.by_antenna,  # type: ignore[arg-type]
                                    noise=script.noise)
        self.reader.clock = self.clock
        rc = self.config.reader
        self.client = FeigClient(_HostPort(self.reader_end, self.reader.receive, "reader"),  # type: ignore[arg-type]
                                 device=self.daemon.reader.name, com_adr=rc.address,
                                 ant_sel_bytes=rc.antenna_select_bytes)
        # the shuffler: the simulated bridge board, the daemon's link on the other end
        self.shuffler: SimShuffler | None = None
        if self.daemon.shuffler is not None:
            self.shuffler_end = _SimEnd()
            self.shuffler = SimShuffler(self.shuffler_end, seed=script.noise.seed)  # type: ignore[arg-type]
            self.shuffler_port = _HostPort(self.shuffler_end, self.shuffler.receive, "shuffler")
        #: reader cycles per shuffler poll: the link polls every ``[shuffler] poll_interval``
        sh = self.config.shuffler
        self.poll_every = max(1, round(sh.poll_interval / CYCLE_S)) if sh is not None else 1
        self.dealer = ScriptedDealer(self.reader, ANTENNA_OF, self, confirm_cycles=CONFIRM_CYCLES,
                                     gone_cycles=GONE_CYCLES, shuffler=self.shuffler, clock=self.clock,
                                     run_cycle=self.cycle)

    def _where(self) -> tuple[int, int]:
        """The script's (hand, step) in force: what each recorded effect is filed under."""
        dealer = getattr(self, "dealer", None)  # (none yet while the daemon is being built)
        return dealer.current if dealer is not None else (0, 0)

    # -- the daemon's side -----------------------------------------------------------------------
    def start(self) -> None:
        """What ``Daemon.start`` does that matters here: the console's pins, the devices' first
        verdicts (one reader cycle; the shuffler's handshake)."""
        if self.daemon.console is not None:
            self.daemon.console.open()
        link = self.daemon.shuffler
        if link is not None and not link._handshake(self.shuffler_port):  # type: ignore[attr-defined]
            raise SimulationError("the shuffler link refused the simulated shuffler's handshake")
        self.cycle()

    def close(self) -> None:
        if self.daemon.console is not None:
            self.daemon.console.close()

    def drain(self) -> None:
        """The main loop: every event submitted so far, in order, through ``Daemon.handle``."""
        events = self.daemon.events
        while True:
            try:
                eid, event = events.get_nowait()
            except queue.Empty:
                return
            effects = self.daemon.handle(event, eid)
            if any(type(e) is HandFinished or type(e) is HandStarted for e in effects):
                from controller.service.room.attach import public_state

                self.states.append((self._where(), public_state(self.daemon)))  # (the room's ``state``)
            for e in effects:
                if type(e) is HandFinished:
                    rec = json.loads(json.dumps(effect_to_dict(e), separators=(",", ":")))  # as the feed has it
                    self.records[rec["hand"]] = rec["record"]
                elif type(e) is Alert:
                    self.alerts.append((e.code, e.ts))
                elif type(e) is CardPlaced:
                    self.placed.append(effect_to_dict(e))
                    self.dealer.daemon_placed(e.uid, e.card, e.zone)  # (the dealer paces itself on it)

    def cycle(self) -> None:
        """One reader cycle (and one shuffler poll), then the main loop's turn."""
        self.clock.advance(CYCLE_S)
        self._reader_cycle()
        if self.cycles % self.poll_every == 0:
            self._shuffler_poll()
        mono, boot = self.clock.monotonic()
        if self.daemon.table.devices_offline and mono - self._last_tick >= 1.0:
            self._last_tick = mono  # as Daemon.run does while a device is away
            self.daemon.submit(Tick(ts=self.clock(), mono=mono, boot=boot))
        self.drain()

    def _reader_cycle(self) -> None:
        link = self.daemon.reader
        if not self.reader_end.is_open:
            link._set_online(False, f"{link.name}: read failed: device unplugged")
            return
        try:
            if self.wire:
                tags = self.client.inventory(antennas=link.antennas,  # type: ignore[attr-defined]
                                             deadline_s=self.config.reader.answer_timeout)
            else:
                tags = self.reader.answer_records(link.antennas, with_antennas=link.antennas is not None)  # type: ignore[attr-defined]
        except BridgeError as exc:  # the simulated reader never fails unasked: that is a bug
            raise SimulationError(f"the daemon's FEIG client refused the simulated reader's answer: {exc}") from exc
        if not link._reported:
            link._set_online(True, "answering on the in-process line")
        link.cycle += 1
        reads, heard = cycle_reads(tags, single_antenna=link.antennas is None)  # type: ignore[attr-defined]
        link.stats.cycles += 1
        self.cycles += 1
        link.emit(ReaderCycle(ts=link.clock(), device=link.name, cycle=link.cycle, reads=reads, heard=heard))

    def _shuffler_poll(self) -> None:
        link = self.daemon.shuffler
        if link is None:
            return
        seq = link._next_seq()  # type: ignore[attr-defined]
        link._send(self.shuffler_port, sp.encode_get_status(seq))  # type: ignore[attr-defined]
        # the board answers the poll and sends a report that is due; the link takes both
        for _ in range(4):
            msgs = link._receive(self.shuffler_port)  # type: ignore[attr-defined]
            if not msgs:
                break
            link.take(self.shuffler_port, msgs, seq)  # type: ignore[attr-defined]

    # -- the DaemonView the dealer talks to ------------------------------------------------------
    def _run_until(self, done: Callable[[], bool], limit: int) -> bool:
        for _ in range(limit):
            if done():
                return True
            self.cycle()
        return done()

    def wait_hand_finished(self, hand: int, timeout: float) -> bool:
        return self._run_until(lambda: hand in self.records, 4 * GONE_CYCLES + 20)

    def display_cable(self, plugged: bool) -> None:
        """The display's cable pulled or plugged back: its thread notices at once (poked, as its
        probe would within 2 s) and reports; the report is applied in this step."""
        display = self.daemon.console.display if self.daemon.console is not None else None
        if display is None or self.display_bus is None:
            raise SimulationError("the script pulls the display's cable, but the table has no console")
        self.display_bus.failing = not plugged
        display.poke()
        deadline = time.monotonic() + 10
        while display.online is not plugged and time.monotonic() < deadline:
            threading.Event().wait(0.002)  # (the display's own thread reports: a real-time wait)
        if display.online is not plugged:
            raise SimulationError(f"the display was never reported {'online' if plugged else 'offline'}")
        self.drain()

    def wait_alert(self, code: str, after: float, timeout: float) -> bool:
        return self._run_until(lambda: any(c == code and ts >= after for c, ts in self.alerts),
                               4 * GONE_CYCLES + 40)

    def command(self, request: dict) -> dict:
        """The control socket's handling of one request, in process."""
        if request.get("cmd") == "ping":
            self.drain()
            return {"ok": True, **self.daemon.status()}
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
        report = build_report(self.script, self.records, self.dealer, buttons, placed=self.placed)
        from controller.service.room.topics import route

        topics: dict[str, list[tuple[tuple[int, int], dict[str, Any]]]] = {}
        for where, effect in self.recorders["floor"].effects:  # (the floor's output gets every effect)
            for topic, _idx, _ts, body in route([effect], broadcast=True):
                topics.setdefault(topic, []).append((where, body))
        topics["state"] = self.states  # (the table's part of it, at each hand's start and end)
        return Played(report, {a: r.effects for a, r in self.recorders.items()}, self.cycles, topics, self.screens)


def play(script: sc.Script | dict | str, *, console: bool = True, wire: bool = True,
         table_extra: str = "", rules_extra: str = "") -> Played:
    """Play a deal script (parsed, or its JSON as a dict or text) in process; see the module.
    A script the parser refuses raises ``hw_sim.script.ScriptError``.

    ``wire=False`` hands the simulated reader's records to the daemon's reader link without
    encoding and decoding the FEIG frames (:meth:`hw_sim.feig_reader.SimFeigReader.answer_records`): the
    same draws, so the same report (tests/test_harness.py checks it), in about a third of the
    time; the frames are three quarters of a cycle's cost and have their own tests (golden
    frames, the fuzzer, the decoder's property test). The suite deals its many-hand scenarios
    so; ``simulate`` and the scripts checked against it keep the wire.

    ``table_extra``: more ``[table]`` lines for the daemon's configuration, settings no deal
    script carries (a mixed game's rotation: ``controller.service.simulate.rotation_lines``;
    ``event = "cash"``); ``rules_extra``: the ``[rules]`` lines (``stud_short_stub_method = "002"``)."""
    if isinstance(script, dict):
        script = json.dumps(script)
    if isinstance(script, str):
        script = sc.parse_script(script)
    return Harness(script, console=console, wire=wire, table_extra=table_extra, rules_extra=rules_extra).play()
