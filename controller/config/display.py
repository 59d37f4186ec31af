"""The ``[display]`` section: the dealer's display on the I2C bus (docs/console.md, "The display").

None configured, none used. A display shows the console's prompt (it answers nothing: ``ack``
and the other pads are the console's), so it needs a ``[console]``. Bus 1 is on BCM 2 and 3: a
console pin there is refused (the recommended layout puts two buttons there; move them).

``sim_cable`` is for ``tablectl simulate`` only: no I2C bus, the display is ``hw_sim``'s fake
one in the daemon's memory, plugged while that file exists (hw_sim/i2c_bus.py), so that a
deal script's ``unplug`` / ``plug`` of the display reach a daemon run as a subprocess.

>>> c = parse_display({"console": {}, "display": {"kind": "hd44780", "width": 20, "height": 4}}, src="t.toml")
>>> c.layout, c.bus, hex(c.address)
('lcd20x4', 1, '0x27')
>>> parse_display({"console": {}, "display": {"kind": "hd44780", "width": 20, "height": 2}}, src="t.toml")
Traceback (most recent call last):
...
controller.config.schema.ConfigError: t.toml: [display] height: a hd44780 is 16x2 or 20x4, not 20x2
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.config.schema import TABLECTL_TOML, Bound, ConfigError, Key, Section, Values

#: kind -> {(width, height): layout of controller/core/display_text.toml}; the first size is the default
SIZES: dict[str, dict[tuple[int, int], str]] = {
    "hd44780": {(16, 2): "lcd16x2", (20, 4): "lcd20x4"},
    "ssd1306": {(128, 64): "oled128x64"},
    "sh1106": {(128, 64): "oled128x64"},
}
#: the usual address of each kind: a PCF8574 backpack at 0x27 (0x3F for a PCF8574A), an OLED at 0x3C
ADDRESSES = {"hd44780": 0x27, "ssd1306": 0x3C, "sh1106": 0x3C}
#: the Pi's I2C bus 1 is on BCM 2 (SDA) and 3 (SCL)
BUS1_PINS = (2, 3)


DISPLAY = Section("display", (
    Key("kind", "", choices=tuple(SIZES), required=True,
        doc="hd44780 (an LCD on a PCF8574 backpack), ssd1306 or sh1106 (an OLED); needs [console]"),
    Key("width", None, shown="16 (hd44780), 128 (an OLED)",
        bound=Bound(16, 128, "(characters of an LCD, pixels of an OLED)", whole=True, choices=(16, 20, 128),
                    why="a 16x2 or 20x4 HD44780, a 128x64 OLED (docs/console.md, \"The display\")")),
    Key("height", None, shown="2 (hd44780), 64 (an OLED)",
        bound=Bound(2, 64, "(lines of an LCD, pixels of an OLED)", whole=True, choices=(2, 4, 64),
                    why="with `width`: 16x2, 20x4, 128x64")),
    Key("bus", 1, doc="/dev/i2c-1: BCM 2 and 3 on the header (no console pin may be there)",
        bound=Bound(0, 31, "(the N of /dev/i2c-N)", whole=True, why="1 on a Pi's header (BCM 2, 3)")),
    Key("address", None, shown="0x27 (hd44780), 0x3C (an OLED)",
        doc="a PCF8574A backpack is 0x3F; TOML takes `0x27`",
        bound=Bound(0x03, 0x77, "(a 7-bit I2C address)", whole=True,
                    why="the addresses a device may take (0x03 to 0x77)")),
    Key("sim_cable", None, kind=(str,), doc="tablectl simulate's only: no bus, the fake display plugged while this "
                                            "file exists (docs/deal-script.md)"),
), file=TABLECTL_TOML, doc="the dealer's display on I2C (docs/console.md, \"The display\"); leave it out for none")


@dataclass(frozen=True)
class DisplayConfig:
    kind: str
    width: int
    height: int
    bus: int
    address: int
    layout: str
    #: ``tablectl simulate``: the simulated display's cable file (hw_sim/i2c_bus.py); None: a real bus
    sim_cable: str | None = None


def parse_display(doc: dict[str, Any], *, src: str, base: Path | None = None) -> DisplayConfig | None:
    """The ``[display]`` section, checked; None without one. ``base``: the folder a relative
    ``sim_cable`` is in (the configuration file's)."""
    raw = doc.get("display")
    if raw is None:
        return None
    d = DISPLAY.read(src, raw)
    kind = d["kind"]
    (w0, h0) = next(iter(SIZES[kind]))
    width = w0 if d["width"] is None else d["width"]
    height = h0 if d["height"] is None else d["height"]
    sim_cable = _sim_cable(d, base)
    if (width, height) not in SIZES[kind]:
        sizes = " or ".join(f"{w}x{h}" for w, h in SIZES[kind])
        raise d.err("height", f"a {kind} is {sizes}, not {width}x{height}")
    console = doc.get("console")
    if console is None:
        raise d.err("kind", "a display shows the console's prompts: it needs a [console] section")
    if d["bus"] == 1 and sim_cable is None and isinstance(console, dict):  # (a simulated display uses no pins)
        _check_bus1_pins(src, console)
    address = ADDRESSES[kind] if d["address"] is None else d["address"]
    return DisplayConfig(kind, width, height, d["bus"], address, SIZES[kind][(width, height)], sim_cable)


def _sim_cable(d: Values, base: Path | None) -> str | None:
    """``sim_cable``: a path, relative to ``base``."""
    sim_cable: str | None = d["sim_cable"]
    if sim_cable is not None:
        if not sim_cable:
            raise d.err("sim_cable", "an empty path (leave the key out for a real display)")
        if base is not None and not Path(sim_cable).is_absolute():
            sim_cable = str(base / sim_cable)
    return sim_cable


def _check_bus1_pins(src: str, console: dict[str, Any]) -> None:
    """No console pin on bus 1's (BCM 2, 3)."""
    for group in ("buttons", "leds", "seat_leds"):
        for name, pin in (console.get(group) or {}).items():
            if pin in BUS1_PINS:
                raise ConfigError(f"{src}: [console.{group}] {name}: pin {pin} is the I2C bus's "
                                  f"({'SDA' if pin == 2 else 'SCL'}) and [display] is on bus 1: "
                                  f"move it (docs/console.md, \"The display\")")
    if console.get("buzzer") in BUS1_PINS:
        raise ConfigError(f"{src}: [console] buzzer: pin {console['buzzer']} is the I2C bus's and [display] "
                          f"is on bus 1: move it")
