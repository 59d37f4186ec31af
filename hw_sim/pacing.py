"""The simulated table's time and beat: one pacing model for ``tablectl simulate`` and the
in-process harness, so that the same script and seed give the same report on any machine.

The simulated table, not the machine, says when anything happens (docs/deal-script.md, "How
the simulated table keeps time"):

- **Virtual time.** Time moves only in reader cycles, :data:`CYCLE_S` each, from :data:`EPOCH`
  (:class:`SimTime`). Between two cycles the dealer's other operations (a press, a set-up, a
  cable pulled) each get their own instant, :data:`OP_S` apart. Every stamp the daemon makes
  during a cycle or an operation falls in the microseconds after its instant (:class:`SimClock`),
  so the step each alert and prompt is traced to, and the cycle each card was confirmed in,
  follow from the script alone.
- **Lockstep.** The daemon is asked for each reader cycle (one inventory, a shuffler poll every
  ``poll_interval``, the main loop's once-a-second tick while a device is away) and takes in
  every event it made before the dealer does anything else (:class:`Beat`). A press is taken in
  before the next card is pitched. Which noise each card meets therefore depends on the cycle
  count, never on how fast the machine answered.
- **The dealer paces itself on the daemon.** It moves on as soon as the daemon has confirmed
  every card it put (:meth:`PacedTable.take_placed`), as a dealer watching the tracker would.

:class:`PacedTable` is the simulator's side (the dealer's view of the daemon), with two
transports: the in-process harness (``hw_sim.harness``) runs the :class:`Beat` in
its own thread; ``tablectl simulate`` (``hw_sim.simulate``) asks the daemon
subprocess for each beat over a private pair of pipes (``hw_sim.paced_daemon``), which only the
simulator holds: ``tablectl run`` has no pacing, and nothing on its control socket or the room's
broker can reach it.

>>> t = SimTime()
>>> [round(x - EPOCH, 6) for x in (t.next_cycle(), t.peek(), t.next_op())]
[0.05, 0.051, 0.051]
>>> c = SimClock(); c.set(t.next_cycle()); round(c() - EPOCH, 6), round(c() - EPOCH, 6)
(0.100001, 0.100002)
>>> c.monotonic()[0] > 0.1
True
"""

from __future__ import annotations

import math
import queue
import threading
from collections.abc import Callable
from typing import Any

from controller.core.events import FLOOR_SIGNALS, ClockCalled, Event, Tick, event_from_dict
from controller.daemon.ticks import waits_on_time

#: Seconds one reader cycle takes in virtual time (a FEIG reader with 13 antennas: about 50 ms).
CYCLE_S = 0.05
#: Where virtual time starts (2026-01-01 00:00 UTC): any fixed time would do.
EPOCH = 1_767_225_600.0
#: Virtual seconds between two operations of the dealer within one cycle; each operation's stamps
#: fall within its first millisecond (:data:`READINGS`), so an operation's window never overlaps
#: the next one's.
OP_S = 0.001
#: Clock readings within one cycle or operation, a microsecond apart; the rest read the last.
READINGS = 999
#: Operations that fit between two cycles; one more runs a cycle first.
OPS_PER_CYCLE = int(round(CYCLE_S / OP_S)) - 1
#: Real seconds the simulator waits for the daemon to take in one beat before giving up.
PACE_TIMEOUT = 30.0
#: The simulated machine's boot id (firmware_bridge.clock): a power cut of ``tablectl simulate``
#: kills the daemon, not the machine, so its monotonic clock runs on through it, as on a Pi.
SIM_BOOT = "00000000"
#: the floor's signals a script plays, by their event type's name (controller/core/events.py)
SIGNAL_TYPES = {t.__name__: t for t in FLOOR_SIGNALS}


def signal_event(fields: Any, clock: SimClock) -> Event:
    """The floor's signal ``fields`` (a script's floor step, :meth:`hw_sim.script.Floor.event_fields`)
    as its core event, stamped by the daemon's ``clock`` as the room link stamps the events it
    makes (a clock call with the monotonic reading its countdown starts from); ValueError if it
    is not one of the floor's signals.

    >>> signal_event({"type": "Release", "round": 2}, SimClock()).round
    2
    >>> signal_event({"type": "Tick"}, SimClock())
    Traceback (most recent call last):
    ...
    ValueError: not a floor signal: 'Tick'
    """
    kind = fields.get("type") if isinstance(fields, dict) else None
    cls = SIGNAL_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ValueError(f"not a floor signal: {kind!r:.40}")
    stamps: dict[str, Any] = {"ts": clock()}
    if cls is ClockCalled:
        stamps["mono"], stamps["boot"] = clock.monotonic()
    try:
        return event_from_dict({**fields, **stamps})
    except TypeError as exc:  # (a field missing)
        raise ValueError(f"{kind}: {exc}") from None


class SimClock:
    """The daemon's wall and monotonic clocks under the simulated table: :meth:`set` to the
    instant of each cycle or operation; each reading is a microsecond later than the one before,
    up to :data:`READINGS` of them. Thread-safe (the console's and the display's threads read it).

    >>> c = SimClock(); c.set(EPOCH + 1.0)
    >>> c() - EPOCH > 1.0, c.monotonic()[1]
    (True, '00000000')
    >>> _ = c.set_wall(-3600.0); c() < EPOCH  # a Pi's clock set by NTP: the monotonic one stays
    True
    """

    def __init__(self, start: float = EPOCH) -> None:
        self._base = start
        self._n = 0
        self._wall = 0.0  # what the wall clock was set by, in all
        self._lock = threading.Lock()

    def set(self, instant: float) -> None:
        with self._lock:
            self._base, self._n = instant, 0

    def _tick(self) -> float:
        if self._n < READINGS:
            self._n += 1
        return self._base + self._n * 1e-6

    def __call__(self) -> float:
        with self._lock:
            return self._tick() + self._wall

    def monotonic(self) -> tuple[float, str]:
        """The monotonic reading (seconds since :data:`EPOCH`) and the simulated boot."""
        with self._lock:
            return self._tick() - EPOCH, SIM_BOOT

    def set_wall(self, seconds: float) -> float:
        """The wall clock set forward (or back) by ``seconds``; the monotonic clock does not move."""
        with self._lock:
            self._wall += seconds
            return self._base + self._wall


class SimTime:
    """The simulated table's timeline, kept by the simulator: the instant of each reader cycle
    and of each operation between two cycles."""

    def __init__(self) -> None:
        self.cycles = 0
        self.base = EPOCH  # the instant of the last cycle
        self.ops = 0  # operations since it

    def next_cycle(self) -> float:
        self.cycles += 1
        self.ops = 0
        self.base = EPOCH + self.cycles * CYCLE_S
        return self.base

    def next_op(self) -> float:
        self.ops += 1
        return self.base + self.ops * OP_S

    def peek(self) -> float:
        """The instant the next operation will have: after every stamp made so far, before every
        stamp the next cycle or operation makes (the dealer marks its steps with it)."""
        return self.base + (self.ops + 1) * OP_S


class Beat:
    """The daemon's side of one beat, in the daemon's thread that takes its events in (the
    harness's one thread; the paced daemon's main thread): the reader asked once, the shuffler
    polled every ``poll_interval`` of virtual time, the tick while a device is away; then
    :meth:`drain` takes every event in. ``deadline_s``: how long a device may take to answer in
    real time (the simulated devices always answer; a busy machine must not turn a slow answer
    into a lost one)."""

    def __init__(self, daemon: Any, clock: SimClock, *, deadline_s: float = PACE_TIMEOUT) -> None:
        self.daemon = daemon
        self.clock = clock
        self.deadline_s = deadline_s
        sh = daemon.config.shuffler
        #: reader cycles per shuffler poll
        self.poll_every = max(1, round(sh.poll_interval / CYCLE_S)) if sh is not None else 0
        self.cycles = 0
        self._last_tick = -math.inf

    def start(self, instant: float) -> None:
        """The devices' first verdicts: the shuffler's handshake (the reader's comes with the
        first cycle)."""
        self.clock.set(instant)
        link = self.daemon.shuffler
        if link is not None:
            link.connect_once(self.deadline_s)

    def cycle(self, instant: float) -> None:
        self.clock.set(instant)
        self.cycles += 1
        d = self.daemon
        d.reader.step(self.deadline_s)
        if self.poll_every and self.cycles % self.poll_every == 0:
            d.shuffler.poll_once(self.deadline_s)
        mono, boot = self.clock.monotonic()
        if waits_on_time(d.table) and mono - self._last_tick >= 1.0:
            self._last_tick = mono  # as Daemon.run does while a device is away or a clock runs
            d.submit(Tick(ts=self.clock(), mono=mono, boot=boot))

    def signal(self, instant: float, fields: Any) -> None:
        """The floor's signal (a script's floor step) at ``instant``: its core event submitted,
        journalled as every event (:func:`signal_event`; ValueError if it is none)."""
        self.clock.set(instant)
        self.daemon.submit(signal_event(fields, self.clock))

    def display(self, instant: float, cable: Callable[[], None], plugged: bool, timeout: float = 10.0) -> bool:
        """The display's cable pulled or plugged (``cable()`` does it) at ``instant``; its thread
        is poked (as its probe would, within 2 s) and waited for until it has reported."""
        self.clock.set(instant)
        display = self.daemon.console.display if self.daemon.console is not None else None
        if display is None:
            return False
        cable()
        display.poke()
        done = threading.Event()
        for _ in range(int(timeout / 0.002)):
            if display.online is plugged:
                break
            done.wait(0.002)  # (the display's own thread reports: a real-time wait)
        return display.online is plugged

    def drain(self, on_effects: Callable[[list[Any]], None] | None = None) -> None:
        """The main loop's turn: every event submitted so far, in order, through ``handle``."""
        events = self.daemon.events
        handle = self.daemon.handle
        while True:
            try:
                eid, event = events.get_nowait()
            except queue.Empty:
                return
            effects = handle(event, eid)
            if on_effects is not None and effects:
                on_effects(effects)


class PacedTable:
    """The simulated table as the scripted dealer sees the daemon (``hw_sim.dealer``'s
    ``DaemonView``): cycles run on demand, operations at their own instants, and what the daemon
    recorded kept as it comes (:meth:`take_record`, :meth:`take_alert`, :meth:`take_placed`).
    A transport says how a beat reaches the daemon: :meth:`_cycle`, :meth:`_command`,
    :meth:`_display`."""

    #: cycles the dealer gives the daemon to close a hand once the cards are gathered, and to
    #: raise an alert it waits for (a device's verdict, a shuffler's fault: polled every 10th)
    HAND_CYCLES = 52
    ALERT_CYCLES = 72

    def __init__(self) -> None:
        self.time = SimTime()
        self.records: dict[int, dict[str, Any]] = {}
        self.alerts: list[tuple[str, float]] = []
        #: every prompt the daemon gave, as (code, ts): the report's ``holds``
        self.prompts: list[tuple[str, float]] = []
        #: every prompt and alert the daemon gave while no hand was under way (after a hand's
        #: record, before the next hand's first card), as its feed has it: the report's
        #: ``between_hands``
        self.said: list[dict[str, Any]] = []
        self.in_hand = False  # (a HandStarted seen since the last HandFinished)
        self.placed: list[dict[str, Any]] = []  # the CardPlaced effects, for the tracking block
        self.shuffler_reports = 0  # deck reports the daemon's shuffler link has taken
        self.dealer: Any = None

    # -- the transport's part --------------------------------------------------------------------
    def _cycle(self, instant: float) -> None:
        raise NotImplementedError

    def _command(self, instant: float, request: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def _ping(self) -> dict[str, Any]:
        raise NotImplementedError

    def _display(self, instant: float, plugged: bool) -> None:
        raise NotImplementedError

    def _signal(self, instant: float, fields: dict[str, Any]) -> None:
        raise NotImplementedError

    # -- what the daemon recorded --------------------------------------------------------------
    def take_record(self, hand: int, record: dict[str, Any]) -> None:
        self.records[hand] = record

    def take_alert(self, code: str, ts: float) -> None:
        self.alerts.append((code, ts))

    def take_prompt(self, code: str, ts: float) -> None:
        self.prompts.append((code, ts))

    def take_placed(self, placed: dict[str, Any]) -> None:
        self.placed.append(placed)
        if self.dealer is not None:
            self.dealer.daemon_placed(placed["uid"], placed["card"], placed["zone"])

    def take_said(self, rec: dict[str, Any]) -> None:
        """A prompt or alert (its dict, as the feed writes it): kept if it came between hands."""
        if not self.in_hand:
            self.said.append(rec)

    def take(self, rec: dict[str, Any]) -> None:
        """One effect as the daemon's feed writes it (JSON)."""
        kind = rec.get("type")
        if kind == "HandFinished":
            self.take_record(rec["hand"], rec["record"])
            self.in_hand = False
        elif kind == "HandStarted":
            self.in_hand = True
        elif kind == "Alert":
            self.take_alert(rec["code"], rec["ts"])
            self.take_said(rec)
        elif kind == "Prompt":
            self.take_prompt(rec["code"], rec["ts"])
            self.take_said(rec)
        elif kind == "CardPlaced":
            self.take_placed(rec)

    # -- the DaemonView ----------------------------------------------------------------------------
    def cycle(self) -> None:
        self._cycle(self.time.next_cycle())

    def op(self) -> float:
        """The instant of the next operation (a cycle first if this cycle has no room left)."""
        if self.time.ops >= OPS_PER_CYCLE:
            self.cycle()
        return self.time.next_op()

    def command(self, request: dict[str, Any]) -> dict[str, Any]:
        if request.get("cmd") == "ping":  # (it changes nothing: no instant of its own)
            return self._ping()
        return self._command(self.op(), request)

    def display_cable(self, plugged: bool) -> None:
        self._display(self.op(), plugged)

    def signal(self, fields: dict[str, Any]) -> None:
        """The floor's signal (:meth:`hw_sim.script.Floor.event_fields`), at its own instant."""
        self._signal(self.op(), fields)

    def _run_until(self, done: Callable[[], bool], limit: int) -> bool:
        for _ in range(limit):
            if done():
                return True
            self.cycle()
        return done()

    def wait_hand_finished(self, hand: int, timeout: float) -> bool:
        return self._run_until(lambda: hand in self.records, self.HAND_CYCLES)

    def wait_alert(self, code: str, after: float, timeout: float) -> bool:
        return self._run_until(lambda: any(c == code and ts >= after for c, ts in self.alerts), self.ALERT_CYCLES)

    def wait_cycles(self, count: int) -> None:
        """Let ``count`` reader cycles pass (a script's ``wait``)."""
        for _ in range(count):
            self.cycle()
