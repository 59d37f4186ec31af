"""The tournament on the dealer's console (tablectl/daemon/console_sink.py, docs/console.md): the
amber LED holds through hand-for-hand and a bubble hold until the floor's release, whatever the
dealer presses; the buzzer ticks through a player clock's last five seconds and never before;
the ``clock`` pad is a seat, then a long press of ``seat_absent``. On gpiozero's MockFactory
pins, through the real callbacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablectl.config.console import default_console
from tablectl.config.daemon import parse_config
from tablectl.core.effects import HandStarted, Prompt
from tablectl.core.events import ButtonPress
from tablectl.core.prompts import ConsoleState
from tablectl.daemon.console_sink import ConsoleSink
from rig.waiting import wait_until


@pytest.fixture
def sink():
    cfg = parse_config('[reader]\nport = "loop://"\n' + default_console(bounce_time=0.005, hold_time=0.3),
                       path=Path("t.toml"))
    presses: list = []
    s = ConsoleSink(cfg.console, submit=presses.append, in_hand=lambda: True)
    s.presses = presses  # type: ignore[attr-defined]
    states: list[ConsoleState] = []
    s.open()
    s.on_state = states.append
    s.states = states  # type: ignore[attr-defined]
    yield s
    s.close()


def prompt(code: str, ts: float = 1.0, **kw) -> Prompt:
    return Prompt(ts, code, code, kw.pop("rule", "FLOW-002"), **kw)


@pytest.mark.parametrize("wait,go", [("flow.h4h_wait", "flow.h4h_go"), ("flow.bubble_hold", "flow.bubble_go")])
def test_the_led_holds_until_the_release_whatever_the_dealer_presses(sink, wait, go):
    sink.write([prompt(wait, hand=7)])
    assert (sink.state.code, sink.console.modes()["prompt"]) == (wait, "on")
    assert sink.console.pin("prompt").state
    for pad in ("ack", "next", "hand_end", "round_done"):
        sink.event(ButtonPress(2.0, pad))
        assert sink.state.code == wait, pad  # not the dealer's to release
    sink.write([HandStarted(3.0, 8, 4, (1, 2, 4), "holdem")])  # a hand dealt anyway (the floor is told)
    assert sink.state.code == wait
    sink.write([Prompt(4.0, "deal.seat_skipped", "an ordinary prompt", "DEAL-001", hand=8)])
    assert sink.state.code == wait  # the hold outranks the dealing prompts
    sink.write([prompt(go, ts=5.0)])
    assert sink.state.code != wait and all(w.code != wait for w in sink.board.waiting)


def test_the_buzzer_ticks_through_the_last_five_seconds_only(sink):
    buzzes = []
    for count in (30, 20, 10, 5, 4, 3, 2, 1):
        sink.write([prompt("flow.clock", ts=100.0 - count, rule="FLOW-004", seat=4, count=count)])
        buzzes.append((count, sink.states[-1].buzz))
        assert sink.state.code == "flow.clock" and sink.state.prompt_count == count
    assert buzzes == [(30, "none"), (20, "none"), (10, "none"), (5, "tick"), (4, "tick"), (3, "tick"),
                      (2, "tick"), (1, "tick")]
    assert sink.console.last_buzz[0] == "tick"
    wait_until(lambda: any(state for _, state in sink.console.pin("buzzer").states[1:]), 5,
               what="the buzzer sounding")
    sink.write([prompt("flow.clock_dead", ts=100.0, rule="FLOW-004", seat=4)])
    assert sink.state.code == "flow.clock_dead" and sink.states[-1].buzz == "none"
    assert all(w.code != "flow.clock" for w in sink.board.waiting)


def test_round_done_stops_the_clock_on_the_console(sink):
    sink.write([prompt("flow.clock", rule="FLOW-004", seat=4, count=20)])
    sink.event(ButtonPress(2.0, "round_done"))
    assert sink.state.code is None


def test_a_floor_alert_of_the_tournament_never_reaches_the_console(sink):
    from tablectl.core.effects import Alert

    sink.write([Alert(1.0, "flow.dealt_before_release", "floor", "a card dealt before the release", "FLOW-002")])
    assert sink.state.code is None and sink.states[-1].buzz == "none"


def test_the_clock_pad_is_a_seat_then_a_long_press_of_seat_absent(sink):
    """docs/console.md: the dealer calls the clock on seat 4. A short press of seat_absent stays
    seat_absent."""
    assert sink.drive(ButtonPress(1.0, "clock", seat=4))
    assert sink.drive(ButtonPress(2.0, "seat_absent", seat=2))
    wait_until(lambda: len(sink.presses) >= 3, 10, what="the presses")  # (the console's own status first)
    got = [(p.name, p.seat, p.long) for p in sink.presses if isinstance(p, ButtonPress)]
    assert got == [("clock", 4, True), ("seat_absent", 2, False)]
