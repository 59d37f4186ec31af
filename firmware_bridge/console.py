"""The dealer's console: button pads, status LEDs, seat LEDs and a buzzer, through gpiozero.

The same code runs on every pin factory gpiozero has: lgpio (a Pi 5, and any Pi on a recent
kernel), RPi.GPIO (older Pis) and MockFactory (tests, the simulator, the demo). The pin
factory is injected; :func:`make_pin_factory` builds one by name. No poker here: a button
gives the name of a pad (the daemon's layout names them), the LEDs take modes (``off``, ``on``,
``blink_slow``, ``blink_fast``); which pads need a seat, which must be held to count and which
must stay discreet is data in the :class:`ConsoleLayout`.

Buttons:

- **Debouncing is done here, in software, for every pin factory alike**: an edge restarts a
  ``bounce_time`` timer, and only a level that has held for ``bounce_time`` counts (it is read
  from the pin then, so a lost edge cannot leave a button stuck). The drivers' own debouncing
  is left off: RPi.GPIO's drops the edges after the first one and MockFactory has none.
- **A press gives one** :class:`firmware_bridge.events.PadPress`: a short press when the button
  comes back up, a long press as soon as it has been held ``hold_time`` (the ready LED goes
  out while it stays held: "hold until green goes out"). A pad listed in ``confirm_long``
  (declaring a misdeal) gives nothing on a short press.
- **Second meanings**: with the ``shift`` key held, a button gives its ``shifted`` pad; a
  button may give another pad on a long press (``long``).
- **Seats**: the ``seat`` key selects a seat: pressed N times, seat N (the seat LED blinks
  fast); a long press clears the selection, and it lapses after ``seat_timeout``. The next
  pad press takes the selected seat and ends the selection; the pads of ``seat_pads`` need
  one. A pad of ``repeat_pads`` (a penalty) keeps it: each press adds one to ``hands``.
- **Discreet pads** (``floor``) change nothing that can be seen or heard: no hold cue, the
  seat selection stays as it is.

>>> from gpiozero.pins.mock import MockFactory
>>> from firmware_bridge.events import Lights
>>> presses = []
>>> layout = ConsoleLayout(buttons=(ButtonSpec("round_done", 5, shifted="sa"), ButtonSpec("shift", 6)),
...                        leds={"alert": 22}, bounce_time=0.005, hold_time=0.3)
>>> with Console(layout, presses.append, pin_factory=MockFactory()) as console:
...     console.drive("sa")
...     console.show(Lights(alert="on"))
...     console.pin("alert").state
True
>>> [(p.name, p.long) for p in presses]
[('sa', False)]
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time
from dataclasses import dataclass, field
from collections.abc import Callable, Mapping
from typing import Any

from firmware_bridge.errors import BridgeError
from firmware_bridge.events import Lights, PadPress

log = logging.getLogger("tablectl.console")

#: the special keys of [console.buttons] that are not pads
SHIFT, SEAT = "shift", "seat"
#: the status LEDs
STATUS_LEDS = ("ready", "prompt", "alert")
#: LED mode -> (seconds on, seconds off) of a blinking LED
BLINK = {"blink_slow": (0.5, 0.5), "blink_fast": (0.1, 0.1)}
#: buzzer pattern -> (seconds on, seconds off, beeps); ``tick``: a click, each of a player
#: clock's last five seconds (FLOW-004, controller/daemon/console_sink.py)
BUZZ = {"short": (0.15, 0.1, 1), "double": (0.1, 0.1, 2), "long": (0.6, 0.1, 1), "tick": (0.05, 0.05, 1)}
#: pin_factory names -> gpiozero's classes
FACTORIES = {"lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory", "lgpio"),
             "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory", "RPi.GPIO"),
             "mock": ("gpiozero.pins.mock", "MockFactory", None)}


class ConsoleError(BridgeError):
    """The console cannot be set up: no pin factory, a pin that cannot be claimed."""


@dataclass(frozen=True)
class ButtonSpec:
    """One physical button: its name in ``[console.buttons]`` (the pad of a plain press, or
    ``shift`` / ``seat``), its BCM pin, the pad it gives with shift held, and the pad its long
    press gives if not its own pad (a long press of its own pad otherwise)."""

    name: str
    pin: int
    shifted: str | None = None
    long: str | None = None


@dataclass(frozen=True)
class ConsoleLayout:
    """What is wired where, and how presses are read (see docs/console.md)."""

    buttons: tuple[ButtonSpec, ...] = ()
    leds: Mapping[str, int] = field(default_factory=dict)  # ready / prompt / alert -> pin
    seat_leds: Mapping[int, int] = field(default_factory=dict)  # seat -> pin
    buzzer: int | None = None
    bounce_time: float = 0.02
    hold_time: float = 1.0
    seat_timeout: float = 10.0
    pull_up: bool = True  # buttons close to ground, the Pi's pull-ups hold them high
    active_high: bool = True  # LEDs and buzzer light and sound on a high pin
    confirm_long: frozenset[str] = frozenset()  # pads that only a long press gives
    seat_pads: frozenset[str] = frozenset()  # pads that need a selected seat
    repeat_pads: frozenset[str] = frozenset()  # pads whose repeated presses count hands
    discreet: frozenset[str] = frozenset()  # pads whose press changes nothing visible
    seats: int = 10

    def button(self, name: str) -> ButtonSpec | None:
        return next((b for b in self.buttons if b.name == name), None)

    def pins(self) -> dict[str, int]:
        """Every pin by a readable name (``button round_done``, ``led ready``, ``seat led 3``)."""
        out = {f"button {b.name}": b.pin for b in self.buttons}
        out.update({f"led {k}": v for k, v in self.leds.items()})
        out.update({f"seat led {k}": v for k, v in self.seat_leds.items()})
        if self.buzzer is not None:
            out["buzzer"] = self.buzzer
        return out


def make_pin_factory(name: str = "auto") -> Any:
    """A gpiozero pin factory by name: ``lgpio``, ``rpigpio``, ``mock``, or ``auto``: the one
    ``GPIOZERO_PIN_FACTORY`` names if it is set, else lgpio, else RPi.GPIO.

    >>> type(make_pin_factory("mock")).__name__
    'MockFactory'
    >>> make_pin_factory("pigpio")
    Traceback (most recent call last):
    ...
    firmware_bridge.console.ConsoleError: unknown pin factory 'pigpio' (auto, lgpio, rpigpio, mock)
    """
    if name == "auto":
        env = os.environ.get("GPIOZERO_PIN_FACTORY", "").strip().lower()
        if env:
            if env in FACTORIES:
                return make_pin_factory(env)
            return _entry_point_factory(env)
        errors = []
        for candidate in ("lgpio", "rpigpio"):
            try:
                return make_pin_factory(candidate)
            except ConsoleError as exc:
                errors.append(str(exc))
        raise ConsoleError("no pin factory works here (" + "; ".join(errors) + "); on a machine without "
                           "GPIO use pin_factory = \"mock\", or leave [console] out")
    if name not in FACTORIES:
        raise ConsoleError(f"unknown pin factory {name!r} (auto, {', '.join(FACTORIES)})")
    module, cls, package = FACTORIES[name]
    try:
        mod = __import__(module, fromlist=[cls])
        return getattr(mod, cls)()
    except ImportError as exc:
        raise ConsoleError(f"pin factory {name}: the {package or module} package is not installed "
                           f"({exc}); on a Pi: /opt/tablectl/venv/bin/pip install '/opt/tablectl/src[pi]'") from exc
    except Exception as exc:  # lgpio.error, RuntimeError "not running on a RPi", ...
        raise ConsoleError(f"pin factory {name}: {exc}") from exc


def _entry_point_factory(name: str) -> Any:
    # (imported here: importlib.metadata loads email, zipfile, csv..., for a pin factory named by
    # GPIOZERO_PIN_FACTORY alone; a daemon without a console, or with a named factory, never needs it)
    from importlib.metadata import entry_points

    for ep in entry_points(group="gpiozero_pin_factories"):
        if ep.name.lower() == name:
            try:
                return ep.load()()
            except Exception as exc:
                raise ConsoleError(f"pin factory {name} (from GPIOZERO_PIN_FACTORY): {exc}") from exc
    raise ConsoleError(f"GPIOZERO_PIN_FACTORY={name!r} names no gpiozero pin factory")


class _Timers:
    """One thread running callbacks at their deadlines, under the console's lock."""

    def __init__(self, cond: threading.Condition) -> None:
        self._cond = cond
        self._due: dict[Any, tuple[float, Callable[[], None]]] = {}
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="console-timers", daemon=True)
        self._thread.start()

    def set(self, key: Any, delay: float, fn: Callable[[], None]) -> None:
        """(Re)arm ``key``; the caller holds the lock."""
        self._due[key] = (time.monotonic() + delay, fn)
        self._cond.notify_all()

    def cancel(self, key: Any) -> None:
        self._due.pop(key, None)

    def _run(self) -> None:
        with self._cond:
            while not self._stop:
                if not self._due:
                    self._cond.wait()
                    continue
                key, (deadline, fn) = min(self._due.items(), key=lambda kv: kv[1][0])
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                del self._due[key]
                try:
                    fn()
                except Exception:  # a bug in one callback must not stop the console
                    log.exception("console: timer %s failed", key)
                self._cond.notify_all()

    def pending(self) -> frozenset[Any]:
        """The keys armed (the caller holds the lock)."""
        return frozenset(self._due)

    def close(self) -> None:
        with self._cond:
            self._stop = True
            self._due.clear()
            self._cond.notify_all()
        if threading.current_thread() is not self._thread:
            self._thread.join(2)


class _Button:
    """A physical button's state, debounced."""

    def __init__(self, spec: ButtonSpec, device: Any) -> None:
        self.spec = spec
        self.device = device
        self.pressed = False  # the debounced level
        self.held = False  # held past hold_time in this press
        self.shifted = False  # shift was held when this press began
        self.cue = False  # this press holds the hold cue on
        self.tapped = False  # driven as a short press (mock pins, :meth:`Console.drive`): never held


class _Led:
    """An LED (or a buzzer) and the mode it was last set to."""

    def __init__(self, device: Any) -> None:
        self.device = device
        self.mode = "off"

    def set(self, mode: str) -> None:
        if mode == self.mode:
            return  # a blinking LED keeps its rhythm
        self.mode = mode
        if mode == "on":
            self.device.on()
        elif mode == "off":
            self.device.off()
        else:
            on, off = BLINK[mode]
            self.device.blink(on_time=on, off_time=off, background=True)


class Console:
    """The dealer's console on a pin factory. Presses go to ``on_press`` (any thread: the
    daemon's ``submit``, through its translation); :meth:`show` puts the
    :class:`~firmware_bridge.events.Lights` it is told on the LEDs and buzzer. Use it as a context
    manager, or call :meth:`close`."""

    def __init__(self, layout: ConsoleLayout, on_press: Callable[[PadPress], None], *, pin_factory: Any,
                 clock: Callable[[], float] = time.time) -> None:
        # (gpiozero loaded when the pins are made: the configuration reads this module's constants)
        from gpiozero import Buzzer, DigitalInputDevice, LED


        self.layout = layout
        self.factory = pin_factory
        self.on_press = on_press
        self.clock = clock
        self._cond = threading.Condition(threading.RLock())
        self._drive_lock = threading.Lock()
        self._gesture = False  # a driven gesture (mock pins) under way: the seat selection does not lapse
        self.state = Lights()
        self.selected: int | None = None  # the seat the seat key selected
        self._repeat: tuple[str, int] | None = None  # (pad, presses) counted on the selection
        self._holding = 0  # buttons held past hold_time (the hold cue)
        self._mock = False  # MockFactory pins (set once they are made)
        self.emitted = 0  # presses given, for the mock driver to wait on
        self.last_buzz: tuple[str, float] | None = None  # (pattern, time.monotonic())
        self.buttons: dict[str, _Button] = {}
        self.leds: dict[str, _Led] = {}
        self.seat_leds: dict[int, _Led] = {}
        self.buzzer: Any = None
        self._timers = _Timers(self._cond)
        made: list[Any] = []
        try:
            for spec in layout.buttons:
                dev = self._claim(f"button {spec.name}", spec.pin, lambda p: DigitalInputDevice(
                    p, pull_up=layout.pull_up, bounce_time=None, pin_factory=pin_factory), made)
                b = _Button(spec, dev)
                dev.when_activated = dev.when_deactivated = functools.partial(self._edge, b)
                self.buttons[spec.name] = b
            for name, pin in layout.leds.items():
                self.leds[name] = _Led(self._claim(f"led {name}", pin, lambda p: LED(
                    p, active_high=layout.active_high, pin_factory=pin_factory), made))
            for seat, pin in sorted(layout.seat_leds.items()):
                self.seat_leds[seat] = _Led(self._claim(f"seat led {seat}", pin, lambda p: LED(
                    p, active_high=layout.active_high, pin_factory=pin_factory), made))
            if layout.buzzer is not None:
                self.buzzer = self._claim("buzzer", layout.buzzer, lambda p: Buzzer(
                    p, active_high=layout.active_high, pin_factory=pin_factory), made)
        except BaseException:
            self._timers.close()
            for dev in made:
                dev.close()
            raise
        self._devices = made
        self._mock = self.is_mock
        #: the pins whose states a MockPin records (see MOCK_HISTORY), found once: every show trims them
        self._recording: list[Any] = [p for p in (getattr(dev, "pin", None) for dev in made) if hasattr(p, "states")]
        self._closed = False
        self.show(self.state)

    @staticmethod
    def _claim(what: str, pin: int, build: Callable[[int], Any], made: list[Any]) -> Any:
        try:
            dev = build(pin)
        except Exception as exc:
            raise ConsoleError(f"{what} on GPIO{pin}: {exc}") from exc
        made.append(dev)
        return dev

    def __enter__(self) -> Console:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._cond:
            self._closed = True
        self._timers.close()
        for dev in getattr(self, "_devices", []):
            try:
                dev.close()
            except Exception:
                pass
        self._devices = []
        self._recording = []

    #: a MockPin records every state it takes, forever; the simulator and the demo run for
    #: thousands of hands (and a blinking LED toggles all the while), so only the latest are kept
    MOCK_HISTORY = 1000

    def _trim_mock_history(self) -> None:
        most = 2 * self.MOCK_HISTORY
        for pin in self._recording:
            states = pin.states  # (looked up each time: MockPin.clear_states gives a new list)
            if len(states) > most:
                del states[:-self.MOCK_HISTORY]

    @property
    def is_mock(self) -> bool:
        """Whether the pins are gpiozero's MockFactory's (then :meth:`drive` works)."""
        # (the mock pins: the demo's and the tests', never a Pi's)
        from gpiozero.pins.mock import MockFactory

        return isinstance(self.factory, MockFactory)

    # -- output ------------------------------------------------------------------------------
    def show(self, state: Lights) -> None:
        """Show :class:`~firmware_bridge.events.Lights`: status LEDs, seat LEDs, and its
        buzzer pattern, sounded once if it has one."""
        with self._cond:
            if self._closed:
                return
            self.state = state
            self._refresh()
            if self._mock:
                self._trim_mock_history()
            if state.buzz != "none":
                self.last_buzz = (state.buzz, time.monotonic())
                if self.buzzer is not None:
                    on, off, n = BUZZ[state.buzz]
                    self.buzzer.beep(on_time=on, off_time=off, n=n, background=True)

    def _refresh(self) -> None:
        st = self.state
        for name, led in self.leds.items():
            mode = getattr(st, name)
            if name == "ready" and self._holding:
                mode = "off"  # the hold cue: held long enough
            led.set(mode)
        for seat, led in self.seat_leds.items():
            if self.selected is not None:
                led.set("blink_fast" if seat == self.selected else "off")
            else:
                led.set("on" if seat == st.seat else "off")

    def modes(self) -> dict[str, Any]:
        """What each LED is doing now, by name (``ready``... and ``seat N``), for a view."""
        with self._cond:
            out: dict[str, Any] = {name: led.mode for name, led in self.leds.items()}
            out.update({f"seat {s}": led.mode for s, led in self.seat_leds.items()})
            return out

    def pin(self, name: str) -> Any:
        """The gpiozero pin object behind a device: ``ready``, ``prompt``, ``alert``, ``buzzer``,
        ``seat N`` or a button's name (a MockPin under MockFactory: its ``states`` are recorded)."""
        if name in self.leds:
            return self.leds[name].device.pin
        if name == "buzzer" and self.buzzer is not None:
            return self.buzzer.pin
        if name.startswith("seat ") and int(name[5:]) in self.seat_leds:
            return self.seat_leds[int(name[5:])].device.pin
        return self.buttons[name].device.pin

    # -- input -------------------------------------------------------------------------------
    def _edge(self, b: _Button) -> None:
        with self._cond:
            self._timers.set((b.spec.name, "settle"), self.layout.bounce_time, lambda: self._settle(b))

    def _settle(self, b: _Button) -> None:
        level = bool(b.device.is_active)  # the pin as it is now, whatever edges were lost
        if level == b.pressed:
            return  # a glitch: it came back before it had settled
        b.pressed = level
        if level:
            self._down(b)
        else:
            self._up(b)
        self._cond.notify_all()

    def _down(self, b: _Button) -> None:
        shift = self.buttons.get(SHIFT)
        b.shifted = shift is not None and shift.pressed and b is not shift
        b.held = False
        if b.spec.name != SHIFT:
            self._timers.set((b.spec.name, "hold"), self.layout.hold_time, lambda: self._hold(b))

    def _hold(self, b: _Button) -> None:
        if not b.pressed or not b.device.is_active or b.tapped:
            return  # on its way up: the release decides (a driven short press is one, however slow)
        b.held = True
        if b.spec.name == SEAT:
            self._select(None)
        else:
            pad = self._meaning(b, long=True)
            if pad is not None and self._give(pad, True, b) and pad not in self.layout.discreet:
                b.cue = True  # the hold cue: the ready LED goes out while it stays held
                self._holding += 1
                self._refresh()
        self._cond.notify_all()

    def _up(self, b: _Button) -> None:
        self._timers.cancel((b.spec.name, "hold"))
        if b.cue:
            b.cue = False
            self._holding -= 1
            self._refresh()
        if b.spec.name == SHIFT or b.held:
            return
        if b.spec.name == SEAT:
            if not b.shifted:
                self._select(1 if self.selected is None else self.selected % self.layout.seats + 1)
            return
        pad = self._meaning(b, long=False)
        if pad is not None:
            self._give(pad, False, b)

    def _meaning(self, b: _Button, *, long: bool) -> str | None:
        spec = b.spec
        if b.shifted:
            pad = spec.shifted
        elif long and spec.long is not None:
            return spec.long
        else:
            pad = spec.name
        if pad is not None and not long and pad in self.layout.confirm_long:
            return None  # held too briefly to declare it
        return pad

    def _select(self, seat: int | None) -> None:
        self.selected = seat
        self._repeat = None
        if seat is None:
            self._timers.cancel("seat")
        else:
            self._timers.set("seat", self.layout.seat_timeout, self._lapse)
        self._refresh()
        self._cond.notify_all()

    def _lapse(self) -> None:
        """The seat selection lapses, unless a driven gesture is under way (mock pins: a busy
        machine must not let the selection lapse between the seat key and the pad)."""
        if self._gesture:
            self._timers.set("seat", self.layout.seat_timeout, self._lapse)
        else:
            self._select(None)

    def _give(self, pad: str, long: bool, b: _Button) -> bool:
        """Give the press to ``on_press``; False if it cannot be given (a seat pad, no seat)."""
        lay = self.layout
        seat, hands = None, None
        if pad not in lay.discreet:
            seat = self.selected
            if seat is None and pad in lay.seat_pads:
                log.info("console: %s pressed without a seat: select the seat first", pad)
                return False
            if seat is not None and pad in lay.repeat_pads:
                count = self._repeat[1] + 1 if self._repeat and self._repeat[0] == pad else 1
                self._repeat = (pad, count)
                hands = count
                self._timers.set("seat", lay.seat_timeout, lambda: self._select(None))
            elif seat is not None:
                self._select(None)
        self.emitted += 1
        self._cond.notify_all()
        log.info("console: %s%s%s%s (button %s%s, GPIO%d)", pad, " long" if long else "",
                 f" seat {seat}" if seat is not None else "", f" hands {hands}" if hands is not None else "",
                 "shift + " if b.shifted else "", b.spec.name, b.spec.pin)
        self.on_press(PadPress(ts=self.clock(), name=pad, long=long, seat=seat, hands=hands))
        return True

    # -- the simulator's fingers (MockFactory only) ------------------------------------------
    def gesture(self, name: str, *, long: bool = False) -> tuple[ButtonSpec, bool, bool] | None:
        """How to press pad ``name``: (button, with shift, long), or None if no button gives it.
        A pad only a long press gives (``confirm_long``, a long meaning) is held whatever
        ``long`` says."""
        lay = self.layout
        options: list[tuple[int, tuple[ButtonSpec, bool, bool]]] = []
        for spec in lay.buttons:
            if spec.name in (SHIFT, SEAT):
                continue
            must_hold = name in lay.confirm_long
            if spec.name == name and not (long and spec.long is not None):
                options.append((0, (spec, False, long or must_hold)))
            if spec.long == name:
                options.append((1 if long else 2, (spec, False, True)))
            if spec.shifted == name:
                options.append((1, (spec, True, long or must_hold)))
        return min(options, key=lambda o: o[0])[1] if options else None

    def can_drive(self, name: str, *, long: bool = False, seat: int | None = None,
                  hands: int | None = None) -> bool:
        """Whether :meth:`drive` can press that pad here."""
        if not self.is_mock or self.gesture(name, long=long) is None:
            return False
        if seat is not None and (SEAT not in self.buttons or name in self.layout.discreet):
            return False
        if seat is None and name in self.layout.seat_pads:
            return False
        if hands is not None and (name not in self.layout.repeat_pads or seat is None):
            return False
        return True

    def drive(self, name: str, *, long: bool = False, seat: int | None = None, hands: int | None = None,
              bounces: int = 3, timeout: float = 10.0) -> None:
        """Press pad ``name`` the way a dealer would, through the mock pins: select the seat
        with the seat key, hold shift, press the button (held for a long press), each edge
        bouncing ``bounces`` times; the real gpiozero callbacks give the press. Returns once
        the press has been given to ``on_press``. A pad of ``repeat_pads`` is pressed
        ``hands`` times. Raises ConsoleError if this console cannot (see :meth:`can_drive`)."""
        if not self.can_drive(name, long=long, seat=seat, hands=hands):
            raise ConsoleError(f"the console cannot press {name!r}" + (f" for seat {seat}" if seat else "")
                               + (f" with hands={hands}" if hands not in (None, 1) else "")
                               + ("" if self.is_mock else ": its pins are not mock pins"))
        spec, shifted, hold = self.gesture(name, long=long)  # type: ignore[misc]
        with self._drive_lock, self._cond:  # (the waits let go of the lock)
            self._gesture = True
            try:
                self._drive(spec, shifted, hold, name, seat, hands, bounces, time.monotonic() + timeout)
            finally:
                self._gesture = False

    def _drive(self, spec: ButtonSpec, shifted: bool, hold: bool, name: str, seat: int | None,
               hands: int | None, bounces: int, deadline: float) -> None:
        with self._cond:
            if self.selected is not None:  # a fresh selection: no count carried over
                self._tap(self.buttons[SEAT], hold=True, deadline=deadline)
            if seat is not None:
                for _ in range(seat):
                    self._tap(self.buttons[SEAT], hold=False, deadline=deadline)
            for _ in range(hands or 1):
                before = self.emitted
                if shifted:
                    self._set(self.buttons[SHIFT], True, bounces, deadline)
                self._tap(self.buttons[spec.name], hold=hold, deadline=deadline, bounces=bounces)
                if shifted:
                    self._set(self.buttons[SHIFT], False, bounces, deadline)
                if self.emitted == before:
                    raise ConsoleError(f"the console gave no press for {name!r} (button {spec.name})")

    def tap(self, button: str, *, hold: bool = False, bounces: int = 3, timeout: float = 10.0) -> None:
        """Press and release one physical button through the mock pins (held until its long
        press is given if ``hold``), bouncing ``bounces`` times at each edge."""
        with self._drive_lock:
            self._tap(self.buttons[button], hold=hold, deadline=time.monotonic() + timeout, bounces=bounces)

    def button_down(self, button: str, *, bounces: int = 3, timeout: float = 10.0) -> None:
        """Push one physical button and keep it down (mock pins); returns once it has settled."""
        self._set(self.buttons[button], True, bounces, time.monotonic() + timeout)

    def button_up(self, button: str, *, bounces: int = 3, timeout: float = 10.0) -> None:
        """Let go of a button pushed with :meth:`button_down`; returns once it has settled."""
        self._set(self.buttons[button], False, bounces, time.monotonic() + timeout)

    def quiet(self, timeout: float = 10.0) -> bool:
        """Wait until no button has anything pending (a bounce settling, a hold running): after
        that, no press can come without a new edge. The seat selection's lapse is not waited for."""
        with self._cond:
            return self._cond.wait_for(lambda: not any(isinstance(k, tuple) for k in self._timers.pending()),
                                       timeout)

    def _tap(self, b: _Button, *, hold: bool, deadline: float, bounces: int = 3) -> None:
        """Press and release. The lock is held from the moment the press has settled to the
        release, so that a busy machine cannot turn a short press into a long one."""
        with self._cond:
            # (the lock is let go while waiting for the debounce: a machine too busy to take the
            # release within hold_time must not turn this short press into a long one)
            b.tapped = not hold
            try:
                self._set(b, True, bounces, deadline)
                if hold:
                    self._wait(lambda: b.held, deadline, f"{b.spec.name} held")
                self._set(b, False, bounces, deadline)
            finally:
                b.tapped = False

    def _set(self, b: _Button, down: bool, bounces: int, deadline: float) -> None:
        """Bounce the pin, then leave it ``down`` (pressed) or up; wait until it has settled.
        The burst is one instant for the debouncer (the lock is held), as contact bounce is
        to a real one: a busy machine cannot stretch it into presses."""
        pin = b.device.pin
        level = down != self.layout.pull_up  # pressed pulls a pulled-up pin low
        with self._cond:
            for _ in range(bounces):
                self._drive_pin(pin, level)
                self._drive_pin(pin, not level)
            self._drive_pin(pin, level)
            self._wait(lambda: b.pressed == down, deadline, f"{b.spec.name} {'down' if down else 'up'}")

    @staticmethod
    def _drive_pin(pin: Any, high: bool) -> None:
        if high:
            pin.drive_high()
        else:
            pin.drive_low()

    def _wait(self, predicate: Callable[[], bool], deadline: float, what: str) -> None:
        with self._cond:
            if not self._cond.wait_for(predicate, max(0.0, deadline - time.monotonic())):
                raise ConsoleError(f"console: timed out waiting for {what}")
