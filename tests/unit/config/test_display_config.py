"""``[display]`` (controller/config/display.py): the I2C pins against the console's, and
``sim_cable``, tablectl simulate's display (hw_sim/i2c_bus.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config.daemon import ConfigError
from controller.config.display import parse_display

CONSOLE = {"buttons": {"round_done": 2, "exposed": 3}}  # (BCM 2 and 3: bus 1's SDA and SCL)


def test_a_console_pin_on_bus_1_is_refused_naming_it() -> None:
    doc = {"console": CONSOLE, "display": {"kind": "hd44780"}}
    with pytest.raises(ConfigError, match=r"t.toml: \[console.buttons\] round_done: pin 2 is the I2C bus's \(SDA\)"):
        parse_display(doc, src="t.toml")


def test_a_simulated_display_takes_no_pins_and_its_cable_is_beside_the_configuration(tmp_path: Path) -> None:
    doc = {"console": CONSOLE, "display": {"kind": "hd44780", "width": 20, "height": 4, "sim_cable": "display"}}
    c = parse_display(doc, src="t.toml", base=tmp_path)
    assert c is not None and (c.sim_cable, c.layout) == (str(tmp_path / "display"), "lcd20x4")
    assert parse_display({"console": {}, "display": {"kind": "ssd1306"}}, src="t.toml").sim_cable is None  # type: ignore[union-attr]
    with pytest.raises(ConfigError, match=r"t.toml: \[display\] sim_cable: an empty path"):
        parse_display({"console": {}, "display": {"kind": "hd44780", "sim_cable": ""}}, src="t.toml")
    with pytest.raises(ConfigError, match=r"\[display\] sim_cable: want a string"):
        parse_display({"console": {}, "display": {"kind": "hd44780", "sim_cable": 3}}, src="t.toml")
