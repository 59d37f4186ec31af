"""The tournament on the dealer's console (controller/daemon/console_sink.py, docs/console.md),
through a real daemon and table with the console on gpiozero's MockFactory pins: the amber LED
holds through hand-for-hand and a bubble hold until the floor's release, whatever the dealer
presses; the buzzer ticks through a player clock's last five seconds and never before; the
``clock`` pad is a seat, then a long press of ``seat_absent``."""

from __future__ import annotations

import pytest

from controller.config.daemon import load_config
from controller.core.effects import Alert, HandStarted, Prompt
from controller.core.events import ButtonPress, ClockCalled, Tick
from controller.core.prompts import ConsoleState
from controller.daemon.console_sink import countdown_tick
from controller.daemon.main import Daemon
from hw_sim.setup import write_setup
from rig.waiting import wait_until
from tests.unit.daemon.test_room_signal import deal, loop


@pytest.fixture
def daemon(tmp_path):
    cfg = write_setup(tmp_path, journal=True)  # (the console, on mock pins, as docs/console.md wires it)
    d = Daemon(load_config(cfg), sinks=[])
    d.recover()
    d.console.open()
    states: list[ConsoleState] = []
    d.console.on_state = states.append
    d.states = states
    loop(d)  # (the console's own status)
    yield d
    d.console.close()
    d.journal.close()


def test_the_led_holds_until_the_release_whatever_the_dealer_presses(daemon):
    sink = daemon.console
    for wait, go in (("flow.h4h_wait", "flow.h4h_go"), ("flow.bubble_hold", "flow.bubble_go")):
        sink.write([Prompt(1.0, wait, "hold", "FLOW-002", hand=7)])
        assert (sink.state.code, sink.console.modes()["prompt"]) == (wait, "on")
        assert sink.console.pin("prompt").state
        for pad in ("ack", "next", "hand_end", "round_done"):
            sink.event(ButtonPress(2.0, pad))
            assert sink.state.code == wait, pad  # not the dealer's to release
        sink.write([HandStarted(3.0, 8, 4, (1, 2, 4), "holdem")])  # a hand dealt anyway (the floor is told)
        assert sink.state.code == wait
        sink.write([Prompt(4.0, "deal.seat_skipped", "an ordinary prompt", "DEAL-001", hand=8)])
        assert sink.state.code == wait  # the hold outranks the dealing prompts
        sink.write([Prompt(5.0, go, "deal on", "FLOW-002")])
        assert all(w.code != wait for w in sink.board.waiting)


def test_the_buzzer_ticks_through_the_clocks_last_five_seconds_only(daemon):
    """The floor calls the clock on seat 4 (FLOW-004); the daemon's ticks count it down on the
    monotonic clock; each count reaches the console, the last five with a tick."""
    d = daemon
    deal(d, [("As", 1), ("Kd", 2), ("7c", 3), ("2h", 4)])
    loop(d)
    d.submit(ClockCalled(100.0, 4, mono=500.0, boot="b1", n=1))
    loop(d)
    said: list[tuple[int | None, str]] = [(d.console.state.prompt_count, d.states[-1].buzz)]
    for second in range(1, 31):
        before = len(d.states)
        d.submit(Tick(100.0 + second, mono=500.0 + second, boot="b1"))
        loop(d)
        for s in d.states[before:]:  # (every event shows the state again: each count once, as it came)
            if s.code == "flow.clock" and s.prompt_count != said[-1][0]:
                said.append((s.prompt_count, s.buzz))
    assert said == [(30, "none"), (20, "none"), (10, "none"), (5, "tick"), (4, "tick"), (3, "tick"), (2, "tick"),
                    (1, "tick")]
    assert sum(s.buzz == "tick" for s in d.states) == 5  # one tick a second, and only those
    assert d.console.state.code == "flow.clock_dead" and d.states[-1].buzz == "none"
    assert d.console.console.last_buzz[0] == "tick"
    wait_until(lambda: any(state for _, state in d.console.console.pin("buzzer").states[1:]), 5,
               what="the buzzer sounding")


def test_round_done_stops_the_clock_and_its_prompt(daemon):
    d = daemon
    deal(d, [("As", 1), ("Kd", 2), ("7c", 3), ("2h", 4)])
    d.submit(ClockCalled(100.0, 4, mono=500.0, boot="b1", n=1))
    loop(d)
    assert d.console.state.code == "flow.clock"
    d.submit(ButtonPress(101.0, "round_done"))
    loop(d)
    assert d.console.state.code != "flow.clock" and not d.table.tournament.clock_running()


def test_only_the_dealers_countdown_ticks_and_no_floor_alert_reaches_the_console(daemon):
    sink = daemon.console
    floor = Prompt(1.0, "flow.clock", "5", "FLOW-004", seat=4, count=5, audience="floor")
    assert not countdown_tick([floor])
    assert countdown_tick([Prompt(1.0, "flow.clock", "5", "FLOW-004", seat=4, count=5)])
    sink.write([Alert(1.0, "flow.dealt_before_release", "floor", "a card dealt before the release", "FLOW-002")])
    assert sink.state.code is None and daemon.states[-1].buzz == "none"


def test_the_clock_pad_is_a_seat_then_a_long_press_of_seat_absent(daemon):
    """docs/console.md: the dealer calls the clock on seat 4; a short press of seat_absent stays
    seat_absent."""
    d = daemon
    assert d.console.drive(ButtonPress(1.0, "clock", seat=4))
    assert d.console.drive(ButtonPress(2.0, "seat_absent", seat=2))
    got = [(e.name, e.seat, e.long) for _, e in _queued(d) if isinstance(e, ButtonPress)]
    assert got == [("clock", 4, True), ("seat_absent", 2, False)]


def _queued(d) -> list:
    import queue

    out = []
    while True:
        try:
            out.append(d.events.get_nowait())
        except queue.Empty:
            return out
