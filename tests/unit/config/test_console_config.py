"""``[console]``: every pin and every name checked; a bad one gets one error naming the key."""

import subprocess
import sys
from pathlib import Path

import pytest

from controller.core.pads import PADS
from controller.config.daemon import ConfigError, parse_config
from controller.config.console import NOT_ON_BUTTONS, default_console

BASE = '[reader]\nport = "loop://"\n'


def parse(console: str, reader: str = BASE):
    return parse_config(reader + console, path=Path("t.toml"))


def test_the_recommended_wiring_parses_and_gives_every_pad():
    c = parse(default_console()).console
    assert c.pin_factory == "mock"
    lay = c.layout
    pins = lay.pins()
    assert len(pins) == 26 and len(set(pins.values())) == 26  # every free header pin, once
    assert set(pins.values()) == set(range(2, 28))
    given = {b.name for b in lay.buttons} | {b.shifted for b in lay.buttons if b.shifted} \
        | {b.long for b in lay.buttons if b.long}
    # every pad of controller/core/pads.py has a button, but those that carry a word a button cannot say
    assert given >= set(PADS) - set(NOT_ON_BUTTONS) and not given & set(NOT_ON_BUTTONS)
    assert lay.confirm_long == {"misdeal"} and lay.discreet == {"floor"}
    assert lay.bounce_time == 0.02 and lay.hold_time == 1.0


def test_no_console_section_no_console():
    assert parse("").console is None


@pytest.mark.parametrize("console,message", [
    # a pin used twice: the error names the second use, and the first
    ('[console.buttons]\nround_done = 5\nexposed = 5\n',
     "t.toml: [console.buttons] exposed: pin 5 is already used by [console.buttons] round_done"),
    ('[console]\nbuzzer = 5\n[console.buttons]\nround_done = 5\n',
     "t.toml: [console] buzzer: pin 5 is already used by [console.buttons] round_done"),
    ('[console.leds]\nready = 17\n[console.seat_leds]\n3 = 17\n',
     "t.toml: [console.seat_leds] 3: pin 17 is already used by [console.leds] ready"),
    # an unknown button name
    ('[console.buttons]\nexposd = 5\n',
     "t.toml: [console.buttons] exposd: unknown button name (a pad: " + ", ".join(PADS) + "; or shift, seat)"),
    # reserved pins, with the reason
    ('[console.buttons]\nack = 0\n',
     "t.toml: [console.buttons] ack: pin 0 is reserved: the HAT ID EEPROM's data line (ID_SD)"),
    ('[console.leds]\nalert = 1\n',
     "t.toml: [console.leds] alert: pin 1 is reserved: the HAT ID EEPROM's clock line (ID_SC)"),
    ('[console.buttons]\nack = 28\n',
     "t.toml: [console.buttons] ack = 28: must be a whole number from 2 to 27 (a BCM pin of the header)"),
    ('[console.buttons]\nack = "17"\n',
     't.toml: [console.buttons] ack = "17": must be a whole number from 2 to 27 (a BCM pin of the header)'),
    # second meanings
    ('[console.buttons]\nround_done = 5\nshift = 6\n[console.shift]\nsaa = "round_done"\n',
     "t.toml: [console.shift] saa: unknown pad (pads: " + ", ".join(PADS) + ")"),
    ('[console.buttons]\nround_done = 5\nshift = 6\n[console.shift]\nsa = "round_dne"\n',
     "t.toml: [console.shift] sa: want the name of a button in [console.buttons] (not shift or seat), "
     "got 'round_dne'"),
    ('[console.buttons]\nround_done = 5\n[console.shift]\nsa = "round_done"\n',
     "t.toml: [console.shift] sa: a shifted meaning needs a shift button ([console.buttons] shift = PIN)"),
    ('[console.buttons]\nround_done = 5\nshift = 6\n[console.shift]\nsa = "round_done"\nack = "round_done"\n',
     "t.toml: [console.shift] ack: button round_done already gives sa here"),
    ('[console.buttons]\nmisdeal = 5\n[console.long]\nhand_end = "misdeal"\n',
     "t.toml: [console.long] hand_end: the long press of misdeal declares misdeal (confirm_long); "
     "it cannot give another pad"),
    ('[console.buttons]\nseat_out = 5\n',
     "t.toml: [console.buttons] seat_out: a seat pad needs a seat key to select its seat "
     "([console.buttons] seat = PIN)"),
    # the rest of the section
    ('[console]\npin_factory = "pigpio"\n',
     "t.toml: [console] pin_factory: want one of auto, lgpio, rpigpio, mock, got 'pigpio'"),
    ('[console]\nhold_time = 0.06\nbounce_time = 0.04\n',
     "t.toml: [console] hold_time: must be well over bounce_time (0.04 s), got 0.06"),
    ('[console]\nbounce_time = 0\n', "t.toml: [console] bounce_time = 0: must be a finite number from 0.001 to 0.5 s"),
    ('[console]\nconfirm_long = ["misdael"]\n',
     "t.toml: [console] confirm_long: 'misdael' is not a pad (pads: " + ", ".join(PADS) + ")"),
    ('[console.leds]\ngreen = 17\n', "t.toml: [console.leds] green: unknown LED (LEDs: ready, prompt, alert)"),
    ('[console.seat_leds]\n11 = 17\n', "t.toml: [console.seat_leds] 11: want a seat number 1 to 10 = its LED's pin"),
    ('[console]\nbuzer = 13\n', "t.toml: [console] buzer: unknown key (see docs/configuration.md)"),
    ('[console.button]\nack = 13\n', "t.toml: [console] button: unknown key (see docs/configuration.md)"),
])
def test_a_bad_console_is_refused_with_one_error_naming_the_key(console, message):
    with pytest.raises(ConfigError) as err:
        parse(console)
    assert str(err.value) == message


def test_the_uart_pins_are_reserved_only_when_a_device_is_on_the_uart():
    console = '[console.leds]\nready = 14\n'
    assert parse(console).console.layout.leds == {"ready": 14}  # a USB reader: the UART's pins are free
    with pytest.raises(ConfigError) as err:
        parse(console, reader='[reader]\nport = "/dev/serial0"\n')
    assert str(err.value) == ("t.toml: [console.leds] ready: pin 14 is reserved: the UART's TXD, used by "
                              "[reader] port = '/dev/serial0'")


def test_long_meanings_and_confirmations_are_read():
    c = parse('[console]\nconfirm_long = ["misdeal", "new_deck"]\n'
              '[console.buttons]\nack = 17\nnew_deck = 27\n[console.long]\nstub_wrong = "ack"\n').console
    assert c.layout.button("ack").long == "stub_wrong"
    assert c.layout.confirm_long == {"misdeal", "new_deck"}


def test_tablectl_run_refuses_a_pin_used_twice_with_one_line(tmp_path):
    cfg = tmp_path / "tablectl.toml"
    cfg.write_text(BASE + '[console.buttons]\nround_done = 5\n[console.leds]\nready = 5\n')
    r = subprocess.run([sys.executable, "-m", "controller.cli.main", "run", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"tablectl: {cfg}: [console.leds] ready: pin 5 is already used by [console.buttons] round_done"]


@pytest.mark.parametrize("section", ["buttons", "shift"])
def test_the_mode_pad_is_refused_on_a_button(section):
    # the mode pad carries its mode (race, highcard, break): no button can say which
    console = ("[console]\n[console.buttons]\nmode = 5\n" if section == "buttons"
               else "[console]\n[console.buttons]\nround_done = 5\nshift = 6\n[console.shift]\nmode = \"round_done\"\n")
    with pytest.raises(ConfigError, match=rf"\[console.{section}\] mode: the mode pad takes a mode"):
        parse(console)
