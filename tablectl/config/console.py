"""The ``[console]`` section: the dealer's console's pins and how its presses are read.

Every pin is a BCM number on the Pi's header (2 to 27; 0 and 1 are the HAT ID EEPROM's). A pin
is used once; the UART's pins (14, 15) are refused when a serial device of the configuration is
on the Pi's own UART. Every name is checked: a button is named after the pad it presses
(``tablectl/core/pads.py``), or ``shift`` / ``seat``. One error names the key, as for the rest of
the file. See docs/console.md.

>>> c = parse_console({"console": {"pin_factory": "mock", "buttons": {"round_done": 5, "shift": 6},
...                                "shift": {"sa": "round_done"}, "leds": {"alert": 22}}}, src="t.toml")
>>> c.pin_factory, c.layout.button("round_done")
('mock', ButtonSpec(name='round_done', pin=5, shifted='sa', long=None))
>>> parse_console({"console": {"buttons": {"round_done": 5}, "leds": {"alert": 5}}}, src="t.toml")
Traceback (most recent call last):
...
tablectl.config.daemon.ConfigError: t.toml: [console.leds] alert: pin 5 is already used by
    [console.buttons] round_done
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tablectl.core.text import shorten
from tablectl.core.pads import PADS, SEAT_PADS
from tablectl.config.daemon import ConfigError, _Section
from tablectl.devices.console import SEAT, SHIFT, STATUS_LEDS, ButtonSpec, ConsoleLayout

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


@dataclass(frozen=True)
class ConsoleConfig:
    pin_factory: str
    layout: ConsoleLayout


def parse_console(doc: dict[str, Any], *, src: str) -> ConsoleConfig | None:
    """The ``[console]`` section of a parsed configuration, checked; None without one."""
    raw = doc.get("console")
    if raw is None:
        return None
    c = _Section(src, "console", raw)
    factory = c.get("pin_factory", str, "auto")
    if factory not in PIN_FACTORIES:
        raise c.err("pin_factory", f"want one of {', '.join(PIN_FACTORIES)}, got {shorten(factory)}")
    bounce = c.number("bounce_time", 0.02)
    hold = c.number("hold_time", 1.0)
    if hold <= 2 * bounce:
        raise c.err("hold_time", f"must be well over bounce_time ({bounce:g} s), got {hold:g}")
    seat_timeout = c.number("seat_timeout", 10.0)
    pull_up = c.get("pull_up", bool, True)
    active_high = c.get("active_high", bool, True)
    confirm = c.get("confirm_long", list, list(CONFIRM_LONG))
    for pad in confirm:
        if pad not in PADS:
            raise c.err("confirm_long", f"{shorten(pad)} is not a pad (pads: {', '.join(PADS)})")

    uart_user = next((f"[{name}] port = {shorten(sec['port'])}" for name, sec in doc.items()
                      if isinstance(sec, dict) and isinstance(sec.get("port"), str)
                      and sec["port"] in UART_PORTS), None)
    used: dict[int, str] = {}

    def pin(sec: _Section, key: str, value: Any) -> int:
        where = f"[{sec.name}] {key}"
        if type(value) is int and value in RESERVED:  # (said with the reason, before the range)
            raise sec.err(key, f"pin {value} is reserved: {RESERVED[value]}")
        value = sec.checked(key, value)  # BCM 2 to 27 (config.BOUNDS)
        if value in UART_PINS and uart_user:
            raise sec.err(key, f"pin {value} is reserved: the UART's {UART_PINS[value]}, used by {uart_user}")
        if value in used:
            raise sec.err(key, f"pin {value} is already used by {used[value]}")
        used[value] = where
        return value

    def table(key: str) -> _Section:
        c.used.add(key)
        return _Section(src, f"console.{key}", raw.get(key, {}))

    b = table("buttons")
    names = (*PADS, SHIFT, SEAT)
    pins: dict[str, int] = {}
    for name, value in b.data.items():
        b.used.add(name)
        if name not in names:
            raise b.err(name, f"unknown button name (a pad: {', '.join(PADS)}; or {SHIFT}, {SEAT})")
        if name in NOT_ON_BUTTONS:
            raise b.err(name, "the mode pad takes a mode (race, highcard, break) that a button cannot give: "
                              "press it on the control socket (docs/daemon.md, \"Modes\")")
        pins[name] = pin(b, name, value)

    def meanings(key: str) -> dict[str, str]:
        s = table(key)
        out: dict[str, str] = {}
        given: dict[str, str] = {}
        for pad, button in s.data.items():
            s.used.add(pad)
            if pad not in PADS:
                raise s.err(pad, f"unknown pad (pads: {', '.join(PADS)})")
            if pad in NOT_ON_BUTTONS:
                raise s.err(pad, "the mode pad takes a mode (race, highcard, break) that a button cannot give: "
                                 "press it on the control socket (docs/daemon.md, \"Modes\")")
            if not isinstance(button, str) or button not in pins or button in (SHIFT, SEAT):
                raise s.err(pad, f"want the name of a button in [console.buttons] (not {SHIFT} or {SEAT}), "
                                 f"got {shorten(button)}")
            if button in given:
                raise s.err(pad, f"button {button} already gives {given[button]} here")
            given[button] = pad
            out[button] = pad
        return out

    shifted = meanings("shift")
    if shifted and SHIFT not in pins:
        raise ConfigError(f"{src}: [console.shift] {next(iter(shifted.values()))}: a shifted meaning needs a "
                          f"shift button ([console.buttons] shift = PIN)")
    long = meanings("long")
    for button, pad in long.items():
        if button in confirm:
            raise ConfigError(f"{src}: [console.long] {pad}: the long press of {button} declares {button} "
                              f"(confirm_long); it cannot give another pad")
    given = set(pins) | set(shifted.values()) | set(long.values())
    seat_pads = sorted(p for p in given if p in SEAT_PADS and p != "exposed_player")
    if seat_pads and SEAT not in pins:
        where = "buttons" if seat_pads[0] in pins else ("shift" if seat_pads[0] in shifted.values() else "long")
        raise ConfigError(f"{src}: [console.{where}] {seat_pads[0]}: a seat pad needs a seat key to select "
                          f"its seat ([console.buttons] seat = PIN)")
    b.finish()

    leds_sec = table("leds")
    leds: dict[str, int] = {}
    for name, value in leds_sec.data.items():
        leds_sec.used.add(name)
        if name not in STATUS_LEDS:
            raise leds_sec.err(name, f"unknown LED (LEDs: {', '.join(STATUS_LEDS)})")
        leds[name] = pin(leds_sec, name, value)

    seat_sec = table("seat_leds")
    seat_leds: dict[int, int] = {}
    for key, value in seat_sec.data.items():
        seat_sec.used.add(key)
        if not (key.isascii() and key.isdigit() and len(key) <= 2 and 1 <= int(key) <= 10):
            raise seat_sec.err(key, "want a seat number 1 to 10 = its LED's pin")
        seat_leds[int(key)] = pin(seat_sec, key, value)

    c.used.add("buzzer")
    buzzer = pin(c, "buzzer", c.data["buzzer"]) if "buzzer" in c.data else None
    c.finish()

    layout = ConsoleLayout(
        buttons=tuple(ButtonSpec(name, p, shifted=shifted.get(name), long=long.get(name)) for name, p in pins.items()),
        leds=leds, seat_leds=seat_leds, buzzer=buzzer, bounce_time=bounce, hold_time=hold,
        seat_timeout=seat_timeout, pull_up=pull_up, active_high=active_high,
        confirm_long=frozenset(confirm), seat_pads=frozenset(p for p in SEAT_PADS if p != "exposed_player"),
        repeat_pads=frozenset(REPEAT_PADS), discreet=frozenset(DISCREET),
    )
    return ConsoleConfig(pin_factory=factory, layout=layout)


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
