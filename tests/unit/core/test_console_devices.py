"""The console's buttons on gpiozero's MockFactory: the real gpiozero callbacks, bouncing pins.

Every wait has a deadline and waits for a condition (the console's own: a button settled,
nothing pending); nothing sleeps and then asserts.
"""

import dataclasses
import threading
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from controller.core.events import ButtonPress
from controller.core.pads import PADS, SEAT_PADS
from controller.config.daemon import parse_config
from controller.config.console import NOT_ON_BUTTONS, default_console
from firmware_bridge.console import Console, ConsoleError, make_pin_factory
from firmware_bridge.events import Lights, PadPress
from rig.waiting import elapse, wait_until

DEADLINE = 10.0


class Presses:
    """What the console gave, with a way to wait for it."""

    def __init__(self):
        self.got: list[PadPress] = []
        self._cond = threading.Condition()

    def __call__(self, press: PadPress) -> None:
        with self._cond:
            self.got.append(press)
            self._cond.notify_all()

    def wait(self, n: int) -> list[PadPress]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.got) >= n, DEADLINE), self.got
            return list(self.got)

    def summary(self) -> list[tuple]:
        return [(p.name, p.long, p.seat, p.hands) for p in self.got]


def layout(**changes):
    cfg = parse_config('[reader]\nport = "loop://"\n' + default_console(bounce_time=0.01, hold_time=0.3),
                       path=Path("t.toml"))
    return dataclasses.replace(cfg.console.layout, **changes)


@pytest.fixture
def make():
    made = []

    def make_(**changes):
        presses = Presses()
        console = Console(layout(**changes), presses, pin_factory=MockFactory())
        made.append(console)
        return console, presses

    yield make_
    for c in made:
        c.close()


def output_pins(console):
    names = list(console.leds) + [f"seat {s}" for s in console.seat_leds] + ["buzzer"]
    return {n: console.pin(n) for n in names}


@pytest.mark.parametrize("pad", [p for p in PADS if p not in NOT_ON_BUTTONS])
def test_each_pad_gives_exactly_one_press_despite_bounce(make, pad):
    console, presses = make()
    seat = 3 if pad in SEAT_PADS else None
    console.drive(pad, seat=seat, bounces=6)
    assert console.quiet(DEADLINE)  # nothing pending: no press can follow without a new edge
    long = pad in ("misdeal", "run_it", "allin", "clock")  # declaring a misdeal cannot be undone: only a long press
    # gives it (run_it, allin: the long meanings of stub_wrong and round_done in the recommended layout)
    hands = 1 if pad == "seat_penalty" else None
    assert presses.summary() == [(pad, long, seat, hands)]


def test_bounce_spread_over_real_time_is_still_one_press(make):
    console, presses = make(bounce_time=0.2, hold_time=1.0)
    pin = console.pin("round_done")
    for _ in range(5):  # contact bounce: 1 ms apart, well inside the 200 ms window
        pin.drive_low()
        elapse(0.001)
        pin.drive_high()
        elapse(0.001)
    pin.drive_low()
    wait_until(lambda: console.buttons["round_done"].pressed, DEADLINE, what="the press to settle")
    for _ in range(5):
        pin.drive_high()
        elapse(0.001)
        pin.drive_low()
        elapse(0.001)
    pin.drive_high()
    presses.wait(1)
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("round_done", False, None, None)]


def test_a_glitch_shorter_than_the_bounce_time_is_no_press(make):
    console, presses = make()
    pin = console.pin("ack")
    with console._cond:  # one spike, in an instant
        pin.drive_low()
        pin.drive_high()
    assert console.quiet(DEADLINE)
    assert presses.got == []


def test_a_long_press_is_given_while_held_with_the_hold_cue_and_only_once(make):
    console, presses = make()
    ready = console.pin("ready")
    assert ready.state  # ready: steady on
    console.button_down("exposed")
    [p] = presses.wait(1)
    assert (p.name, p.long) == ("exposed", True)  # exposed by the player
    assert not console.pin("exposed").state  # still held down (pulled-up pin, pressed = low)
    assert not ready.state  # the hold cue: "hold until green goes out"
    console.button_up("exposed")
    assert console.quiet(DEADLINE)
    assert ready.state  # back on at the release
    assert [s.state for s in ready.states[-2:]] == [False, True]
    assert presses.summary() == [("exposed", True, None, None)]


def test_a_misdeal_is_declared_only_by_a_long_press(make):
    console, presses = make()
    console.tap("misdeal")
    assert console.quiet(DEADLINE)
    assert presses.got == []  # a brush of the button declares nothing
    console.tap("misdeal", hold=True)
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("misdeal", True, None, None)]


def test_shift_gives_each_button_its_second_meaning(make):
    console, presses = make()
    console.tap("round_done")
    console.button_down("shift")
    console.tap("round_done")
    console.tap("exposed")
    console.tap("ack")
    console.tap("floor")  # the showdown (issue 17), not a discreet call
    console.button_up("shift")
    console.tap("exposed")
    assert console.quiet(DEADLINE)
    assert [p.name for p in presses.got] == ["round_done", "sa", "boxed", "next", "showdown", "exposed"]


def test_a_long_meaning_replaces_the_buttons_own_long_press(make):
    lay = layout()
    buttons = tuple(dataclasses.replace(b, long="stub_wrong") if b.name == "ack" else b for b in lay.buttons
                    if b.name != "stub_wrong")
    console, presses = make(buttons=buttons)
    console.tap("ack")
    console.tap("ack", hold=True)
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("ack", False, None, None), ("stub_wrong", True, None, None)]
    assert console.gesture("stub_wrong") == (console.layout.button("ack"), False, True)  # the simulator holds it


def test_the_seat_key_selects_a_seat_and_the_next_pad_takes_it(make):
    console, presses = make()
    console.show(Lights(seat=5))  # the lead: seat 5 is due the next card
    assert console.pin("seat 5").state
    for _ in range(3):
        console.tap("seat")
    assert console.selected == 3
    # seat 3's LED blinks fast, the lead is off while the dealer selects
    wait_until(lambda: len(console.pin("seat 3").states) >= 5, DEADLINE, what="seat 3 to blink")
    assert console.modes()["seat 3"] == "blink_fast" and not console.pin("seat 5").state
    console.tap("seat_out")
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("seat_out", False, 3, None)]
    assert console.selected is None
    assert console.modes()["seat 3"] == "off" and console.pin("seat 5").state  # back to the lead


def test_a_seat_pad_without_a_seat_gives_nothing_and_seats_wrap_after_ten(make):
    console, presses = make()
    console.tap("seat_out")
    assert console.quiet(DEADLINE)
    assert presses.got == []
    for _ in range(11):
        console.tap("seat")
    assert console.selected == 1


def test_penalty_presses_on_a_selected_seat_count_hands(make):
    console, presses = make()
    console.drive("seat_penalty", seat=2, hands=3)
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("seat_penalty", False, 2, 1), ("seat_penalty", False, 2, 2),
                                 ("seat_penalty", False, 2, 3)]
    assert console.selected == 2  # kept for another press, until it lapses
    console.tap("round_done")  # any other pad ends it
    assert console.selected is None


def test_a_selection_lapses_and_a_long_press_on_the_seat_key_clears_it(make):
    console, presses = make(seat_timeout=0.2)
    console.tap("seat")
    assert console.selected == 1
    wait_until(lambda: console.selected is None, DEADLINE, what="the selection to lapse")
    console, presses = make()
    console.tap("seat")
    console.tap("seat", hold=True)
    assert console.selected is None and presses.got == []


def test_the_floor_button_makes_no_visible_or_audible_change(make):
    console, presses = make()
    console.show(Lights(prompt="on", seat=4))  # steady LEDs: any change would show
    pins = output_pins(console)
    before = {n: list(p.states) for n, p in pins.items()}
    console.drive("floor")
    console.tap("floor", hold=True)  # held long: no hold cue either
    assert console.quiet(DEADLINE)
    assert presses.summary() == [("floor", False, None, None), ("floor", True, None, None)]
    assert {n: list(p.states) for n, p in pins.items()} == before
    # a seat being selected stays selected, and the floor call carries no seat
    console.tap("seat")
    console.tap("seat")
    console.tap("floor")
    assert console.quiet(DEADLINE)
    assert console.selected == 2 and presses.got[-1].seat is None


def test_drive_refuses_what_no_button_gives(make):
    console, presses = make(buttons=tuple(b for b in layout().buttons if b.name not in ("seat", "seat_out")))
    assert not console.can_drive("seat_in", seat=3)  # no seat key: seat_in has no button either
    assert not console.can_drive("round_done", hands=2)
    with pytest.raises(ConsoleError, match="cannot press 'seat_in' for seat 3"):
        console.drive("seat_in", seat=3)


def test_pin_factories_by_name_and_from_the_environment(monkeypatch):
    assert isinstance(make_pin_factory("mock"), MockFactory)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")
    assert isinstance(make_pin_factory("auto"), MockFactory)  # auto honours GPIOZERO_PIN_FACTORY
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "nosuch")
    with pytest.raises(ConsoleError, match="GPIOZERO_PIN_FACTORY='nosuch' names no gpiozero pin factory"):
        make_pin_factory("auto")
    try:
        import lgpio  # noqa: F401
    except ImportError:
        with pytest.raises(ConsoleError, match=r"pin factory lgpio: the lgpio package is not installed"):
            make_pin_factory("lgpio")


def test_a_console_that_cannot_open_is_reported_and_the_table_runs_on():
    from controller.daemon.main import Daemon
    from controller.daemon.sinks import CallbackSink

    text = '[reader]\nport = "loop://"\n' + default_console(pin_factory="mock").replace(
        'pin_factory = "mock"', 'pin_factory = "rpigpio"')
    got = []
    d = Daemon(parse_config(text, path=Path("t.toml")), sinks=[CallbackSink(got.extend, clearance="dealer")])
    d.console.open()  # no RPi.GPIO here, no Pi: it cannot
    assert d.console.console is None
    d.handle(*reversed(d.events.get(timeout=1)))  # (journal id, event)
    [alert] = got
    assert alert.code == "device.console_offline" and alert.audience == "dealer"
    assert "pin factory rpigpio" in alert.message
    d.handle(ButtonPress(1.0, "ack"))  # a press (from the control socket) still works
    assert d.events_applied == 2


def test_a_mock_pin_history_is_kept_bounded():
    """The simulator and the demo run thousands of hands: MockPin.states must not grow forever."""
    with Console(layout(), lambda p: None, pin_factory=MockFactory()) as console:
        pin = console.pin("prompt")
        for i in range(3 * Console.MOCK_HISTORY):
            console.show(Lights(prompt="on" if i % 2 else "off"))
        assert Console.MOCK_HISTORY <= len(pin.states) <= 2 * Console.MOCK_HISTORY
