"""The ``[console]`` section: the dealer's console's pins and how its presses are read.

Every pin is a BCM number on the Pi's header (2 to 27; 0 and 1 are the HAT ID EEPROM's). A pin
is used once; the UART's pins (14, 15) are refused when a serial device of the configuration is
on the Pi's own UART. Every name is checked: a button is named after the pad it presses
(``controller/core/pads.py``), or ``shift`` / ``seat``. One error names the key, as for the rest of
the file. See docs/console.md.

>>> c = parse_console({"console": {"pin_factory": "mock", "buttons": {"round_done": 5, "shift": 6},
...                                "shift": {"sa": "round_done"}, "leds": {"alert": 22}}}, src="t.toml")
>>> c.pin_factory, c.layout.button("round_done")
('mock', ButtonSpec(name='round_done', pin=5, shifted='sa', long=None))
>>> parse_console({"console": {"buttons": {"round_done": 5}, "leds": {"alert": 5}}}, src="t.toml")
Traceback (most recent call last):
...
controller.config.schema.ConfigError: t.toml: [console.leds] alert: pin 5 is already used by
    [console.buttons] round_done
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from controller.core.text import shorten
from controller.core.pads import PADS, SEAT_PADS
from controller.config.schema import TABLECTL_TOML, Bound, ConfigError, Key, Section, Values
from firmware_bridge.console import SEAT, SHIFT, STATUS_LEDS, ButtonSpec, ConsoleLayout

PIN_FACTORIES = ("auto", "lgpio", "rpigpio", "mock")
#: pins never to use, and why
RESERVED = {0: "the HAT ID EEPROM's data line (ID_SD)", 1: "the HAT ID EEPROM's clock line (ID_SC)"}
#: the UART's pins, refused when a serial device is on the Pi's own UART
UART_PINS = {14: "TXD", 15: "RXD"}
#: ports that are the Pi's own UART (GPIO 14/15)
UART_PORTS = ("/dev/serial0", "/dev/ttyAMA0", "/dev/ttyS0", "/dev/ttyAMA10")
#: what the console reads as the dealer's word, by default (docs/console.md)
CONFIRM_LONG = ("misdeal",)  # cannot be undone: a long press declares it (MISD-016)
REPEAT_PADS = ("seat_penalty",)  # each press adds a hand of penalty
DISCREET = ("floor",)  # calls the floor without a sign at the table
#: pads a button cannot give: they carry a word the console has no way to say (the ``mode``
#: pad's race, highcard or break: a floor's decision, given on the control socket)
NOT_ON_BUTTONS = ("mode",)
#: why a button cannot give the mode pad
MODE_PAD = ("the mode pad takes a mode (race, highcard, break, satellite) that a button cannot give: press it on the "
            "control socket (docs/daemon.md, \"Modes\")")
#: what a shifted or long meaning names
A_BUTTON = f"the name of a button in [console.buttons] (not {SHIFT} or {SEAT})"

#: a BCM pin of the header; 0 and 1 are refused with their reason, before the range
PIN = Bound(2, 27, "(a BCM pin of the header)", whole=True)
RESERVED_PINS = tuple((pin, f"pin {pin} is reserved: {why}") for pin, why in RESERVED.items())


def _pin(name: str, why: str, doc: str) -> Key:
    return Key(name, None, bound=replace(PIN, why=why), refused=RESERVED_PINS, doc=doc)


CONSOLE = Section("console", (
    Key("pin_factory", "auto", choices=PIN_FACTORIES,
        doc="auto: GPIOZERO_PIN_FACTORY, else lgpio, else RPi.GPIO; mock: no pins"),
    Key("bounce_time", 0.02, bound=Bound(0.001, 0.5, "s", why="a button's bounce lasts a few milliseconds"),
        doc="seconds a button's level must hold to count"),
    Key("hold_time", 1.0, bound=Bound(0.05, 10, "s", why="and well over `bounce_time`"),
        doc="seconds held for a long press (well over bounce_time)"),
    Key("seat_timeout", 10.0, bound=Bound(1, 120, "s"), doc="seconds a seat selection lasts without a press"),
    Key("pull_up", True, doc="buttons close to ground, the Pi's pull-ups hold them high"),
    Key("active_high", True, doc="LEDs and buzzer light and sound on a high pin"),
    Key("confirm_long", list(CONFIRM_LONG), doc="pads only a long press gives (what cannot be undone)"),
    _pin("buzzer", "the header's pins (0 and 1 are the HAT EEPROM's)", "the buzzer's BCM pin"),
    *(Key(name, {}, doc=f"[console.{name}], below") for name in ("buttons", "shift", "long", "leds", "seat_leds")),
), file=TABLECTL_TOML, doc="the dealer's console (docs/console.md); leave it out for none")
BUTTONS = Section("console.buttons", (
    _pin("*", "every button", f"button = BCM pin, each pin once: a pad's name (its plain press), {SHIFT} or {SEAT}"),
), file=TABLECTL_TOML)
SHIFTED = Section("console.shift", (
    Key("*", kind=(str,), want=A_BUTTON, doc="pad = the button that gives it while shift is held"),
), file=TABLECTL_TOML)
LONG = Section("console.long", (
    Key("*", kind=(str,), want=A_BUTTON, doc="pad = the button whose long press gives it"),
), file=TABLECTL_TOML)
LEDS = Section("console.leds", (
    _pin("*", "every status LED", f"{' / '.join(STATUS_LEDS)} = BCM pin, each optional"),
), file=TABLECTL_TOML)
SEAT_LEDS = Section("console.seat_leds", (
    _pin("*", "every seat LED", "seat = BCM pin of the LED at that seat"),
), file=TABLECTL_TOML)
#: the console's sections of the daemon's file, in the docs' order
CONSOLE_SECTIONS = (CONSOLE, BUTTONS, SHIFTED, LONG, LEDS, SEAT_LEDS)


@dataclass(frozen=True)
class ConsoleConfig:
    pin_factory: str
    layout: ConsoleLayout


class _Pins:
    """The pins given so far: each once, the UART's only while no serial device is on the UART."""

    def __init__(self, doc: dict[str, Any]) -> None:
        #: the key of the file that puts a serial device on the Pi's UART, if one does
        self.uart_user = next((f"[{name}] port = {shorten(sec['port'])}" for name, sec in doc.items()
                               if isinstance(sec, dict) and isinstance(sec.get("port"), str)
                               and sec["port"] in UART_PORTS), None)
        self.used: dict[int, str] = {}

    def take(self, s: Values, key: str, pin: int) -> int:
        if pin in UART_PINS and self.uart_user:
            raise s.err(key, f"pin {pin} is reserved: the UART's {UART_PINS[pin]}, used by {self.uart_user}")
        if pin in self.used:
            raise s.err(key, f"pin {pin} is already used by {self.used[pin]}")
        self.used[pin] = f"[{s.label}] {key}"
        return pin


def _check_console(c: Values) -> None:
    """A long press well over the debouncing; pads to confirm that are pads."""
    if c["hold_time"] <= 2 * c["bounce_time"]:
        raise c.err("hold_time", f"must be well over bounce_time ({c['bounce_time']:g} s), got {c['hold_time']:g}")
    for pad in c["confirm_long"]:
        if pad not in PADS:
            raise c.err("confirm_long", f"{shorten(pad)} is not a pad (pads: {', '.join(PADS)})")


def _buttons(s: Values, pins: _Pins) -> dict[str, int]:
    """``[console.buttons]``: each named after a pad (not one a button cannot give), or shift / seat."""
    out: dict[str, int] = {}
    for name, pin in s.entries.items():
        if name not in (*PADS, SHIFT, SEAT):
            raise s.err(name, f"unknown button name (a pad: {', '.join(PADS)}; or {SHIFT}, {SEAT})")
        if name in NOT_ON_BUTTONS:
            raise s.err(name, MODE_PAD)
        out[name] = pins.take(s, name, pin)
    return out


def _meanings(s: Values, buttons: dict[str, int]) -> dict[str, str]:
    """``[console.shift]`` or ``[console.long]``: pad = a button, which gives one pad so."""
    out: dict[str, str] = {}  # button -> pad
    for pad, button in s.entries.items():
        if pad not in PADS:
            raise s.err(pad, f"unknown pad (pads: {', '.join(PADS)})")
        if pad in NOT_ON_BUTTONS:
            raise s.err(pad, MODE_PAD)
        if button not in buttons or button in (SHIFT, SEAT):
            raise s.err(pad, f"want {A_BUTTON}, got {shorten(button)}")
        if button in out:
            raise s.err(pad, f"button {button} already gives {out[button]} here")
        out[button] = pad
    return out


def _second_meanings(c: Values, buttons: dict[str, int]) -> tuple[dict[str, str], dict[str, str]]:
    """The shifted and long meanings, with the keys they need: a shift button, a seat key for a
    seat pad; a button whose long press confirms its own pad gives no other."""
    src = c.src
    shifted = _meanings(SHIFTED.read(src, c["shift"]), buttons)
    if shifted and SHIFT not in buttons:
        raise ConfigError(f"{src}: [console.shift] {next(iter(shifted.values()))}: a shifted meaning needs a "
                          f"shift button ([console.buttons] shift = PIN)")
    long = _meanings(LONG.read(src, c["long"]), buttons)
    for button, pad in long.items():
        if button in c["confirm_long"]:
            raise ConfigError(f"{src}: [console.long] {pad}: the long press of {button} declares {button} "
                              f"(confirm_long); it cannot give another pad")
    given = set(buttons) | set(shifted.values()) | set(long.values())
    seat_pads = sorted(p for p in given if p in SEAT_PADS and p != "exposed_player")
    if seat_pads and SEAT not in buttons:
        where = "buttons" if seat_pads[0] in buttons else ("shift" if seat_pads[0] in shifted.values() else "long")
        raise ConfigError(f"{src}: [console.{where}] {seat_pads[0]}: a seat pad needs a seat key to select "
                          f"its seat ([console.buttons] seat = PIN)")
    return shifted, long


def _leds(s: Values, pins: _Pins) -> dict[str, int]:
    """``[console.leds]``: the status LEDs by name."""
    for name in s.entries:
        if name not in STATUS_LEDS:
            raise s.err(name, f"unknown LED (LEDs: {', '.join(STATUS_LEDS)})")
    return {name: pins.take(s, name, pin) for name, pin in s.entries.items()}


def _seat_leds(s: Values, pins: _Pins) -> dict[int, int]:
    """``[console.seat_leds]``: seat number = its LED's pin."""
    out: dict[int, int] = {}
    for key, pin in s.entries.items():
        if not (key.isascii() and key.isdigit() and len(key) <= 2 and 1 <= int(key) <= 10):
            raise s.err(key, "want a seat number 1 to 10 = its LED's pin")
        out[int(key)] = pins.take(s, key, pin)
    return out


def parse_console(doc: dict[str, Any], *, src: str) -> ConsoleConfig | None:
    """The ``[console]`` section of a parsed configuration, checked; None without one."""
    raw = doc.get("console")
    if raw is None:
        return None
    c = CONSOLE.read(src, raw)
    _check_console(c)
    pins = _Pins(doc)
    buttons = _buttons(BUTTONS.read(src, c["buttons"]), pins)
    shifted, long = _second_meanings(c, buttons)
    leds = _leds(LEDS.read(src, c["leds"]), pins)
    seat_leds = _seat_leds(SEAT_LEDS.read(src, c["seat_leds"]), pins)
    buzzer = None if c["buzzer"] is None else pins.take(c, "buzzer", c["buzzer"])
    layout = ConsoleLayout(
        buttons=tuple(ButtonSpec(name, p, shifted=shifted.get(name), long=long.get(name))
                      for name, p in buttons.items()),
        leds=leds, seat_leds=seat_leds, buzzer=buzzer, bounce_time=c["bounce_time"], hold_time=c["hold_time"],
        seat_timeout=c["seat_timeout"], pull_up=c["pull_up"], active_high=c["active_high"],
        confirm_long=frozenset(c["confirm_long"]), seat_pads=frozenset(p for p in SEAT_PADS if p != "exposed_player"),
        repeat_pads=frozenset(REPEAT_PADS), discreet=frozenset(DISCREET),
    )
    return ConsoleConfig(pin_factory=c["pin_factory"], layout=layout)


#: The layout the simulator and the demo use, and the wiring docs/console.md recommends: twelve
#: buttons, the three status LEDs, ten seat LEDs and a buzzer: all 26 free pins of the header.
DEFAULT_CONSOLE = """\
[console]
pin_factory = "{pin_factory}"
bounce_time = {bounce_time}
hold_time = {hold_time}
buzzer = 13

[console.buttons]   # button = BCM pin
round_done = 2
exposed = 3
misdeal = 4
ack = 17
stub_wrong = 27
hand_end = 22
floor = 10
seat_out = 9
seat_absent = 11
seat_penalty = 5
shift = 6
seat = 19

[console.shift]     # with shift held, the button gives
sa = "round_done"
boxed = "exposed"
highcard = "misdeal"
next = "ack"
new_deck = "stub_wrong"
relief = "hand_end"
seat_in = "seat_out"
seat_posted = "seat_absent"
exposed_player = "seat_penalty"
showdown = "floor"

[console.long]      # a long press of the button gives
run_it = "stub_wrong"
allin = "round_done"
clock = "seat_absent"

[console.leds]
ready = 14
prompt = 15
alert = 18

[console.seat_leds]
1 = 23
2 = 24
3 = 25
4 = 8
5 = 7
6 = 12
7 = 16
8 = 20
9 = 21
10 = 26
"""


def default_console(*, pin_factory: str = "mock", bounce_time: float = 0.02, hold_time: float = 1.0) -> str:
    """The ``[console]`` section of :data:`DEFAULT_CONSOLE` as TOML text."""
    return DEFAULT_CONSOLE.format(pin_factory=pin_factory, bounce_time=bounce_time, hold_time=hold_time)
