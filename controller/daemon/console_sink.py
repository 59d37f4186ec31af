"""The dealer's console as one of the daemon's outputs.

:class:`ConsoleSink` is cleared for the ``dealer`` audience: floor alerts never reach it, so a
discreet alert cannot light anything at the table. It feeds what it sees to the pure
:class:`controller.core.prompts.PromptBoard` and shows the board's state on the console's LEDs and
buzzer (``firmware_bridge.console``). The console's presses go to the daemon's queue like any
device's events. A console that cannot be opened (no GPIO, a pin taken) is logged and reported
as ``device.console_offline``; the table runs on without it. One that opens is reported online,
at every start (a restart after a failed open must not leave it offline in the core).

The tournament's prompts (FLOW-002..004) are ranked by the core's table
(:data:`controller.core.prompts.PROMPT_TABLE`): a table holding for hand-for-hand or the bubble
keeps its amber LED on until the floor's release. The buzzer's ticks through the last five
seconds of a player clock (``flow.clock`` at 5, 4, 3, 2, 1) are this sink's: one prompt,
reworded at each count, sounds its row's pattern only when it first arrives.

>>> from pathlib import Path
>>> from controller.core.effects import Alert
>>> from controller.config.daemon import parse_config
>>> from controller.config.console import default_console
>>> cfg = parse_config('[reader]\\nport = "loop://"\\n' + default_console(), path=Path("t.toml"))
>>> sink = ConsoleSink(cfg.console, submit=lambda ev: print(type(ev).__name__, ev.device, ev.online))
>>> sink.open()
DeviceStatus console True
>>> sink.write([Alert(1.0, "board.premature_flop", "dealer", "premature flop: ...", "BOARD-004")])
>>> sink.console.modes()["prompt"], sink.state.code
('on', 'board.premature_flop')
>>> sink.close()
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from controller.core.effects import Effect
from controller.core.events import ButtonPress, DeviceStatus, Event
from controller.core.prompts import ConsoleState, PromptBoard
from controller.daemon.device_events import lights, to_core
from controller.daemon.sinks import Sink
from firmware_bridge.clock import MonoClock, monotonic

log = logging.getLogger("tablectl.console")

#: the seconds of a player clock the buzzer ticks through (FLOW-004: "the buzzer ticks through the last five")
TICKED_SECONDS = frozenset(range(1, 6))
#: the buzzer pattern of one tick (firmware_bridge.console.BUZZ)
TICK = "tick"


class ConsoleSink(Sink):
    """The prompt board and the console's pins behind one output (see the module)."""

    clearance = "dealer"

    def __init__(self, config: Any, submit: Callable[[Event], None], *,
                 in_hand: Callable[[], bool] | None = None,
                 next_seat: Callable[[], int | None] | None = None,
                 clock: Callable[[], float] = time.time, mono: MonoClock = monotonic,
                 display: Any = None) -> None:
        """``in_hand`` says whether a hand runs (the end of a hand is a floor effect: this sink
        never sees it); ``next_seat``, between hands, where the next hand's first card goes;
        ``display``, the dealer's display (``controller.daemon.display_sink.DisplayOutput``), which
        shows every state the LEDs show, in words."""
        self.config = config  # a controller.config.console.ConsoleConfig
        self.submit = submit
        self.in_hand = in_hand or (lambda: False)
        self.next_seat = next_seat or (lambda: None)
        self.board = PromptBoard()
        self.state = ConsoleState()
        self.console: Any = None  # firmware_bridge.console.Console, once open
        self._failed: set[type] = set()
        self.clock = clock  # stamps the presses the console gives
        self.mono = mono  # the monotonic reading its status carries (the core's offline timer)
        self._driving: int | None = None  # the control socket peer whose press drive() is giving
        self._drive_lock = threading.Lock()
        self.display = display
        #: called with every state shown (the in-process harness checks every screen drawn)
        self.on_state: Callable[[ConsoleState], None] | None = None

    def open(self) -> None:
        """Claim the pins. On failure the table runs on: the error is logged and reported as
        ``device.console_offline`` (a dealer alert: it reaches the log and the floor's feed)."""
        # (gpiozero loaded only with a console configured)
        from firmware_bridge.console import Console, ConsoleError, make_pin_factory

        if self.display is not None:
            self.display.start()  # (its own thread: it reports itself online or offline)
        try:
            factory = make_pin_factory(self.config.pin_factory)
            self.console = Console(self.config.layout, self._pressed, pin_factory=factory, clock=self.clock)
        except ConsoleError as exc:
            log.error("console: cannot open the dealer's console: %s ([console] pin_factory = %r)",
                      exc, self.config.pin_factory)
            self._report(False, str(exc))
            return
        log.info("console: %d buttons, %d LEDs, %d seat LEDs%s on %s", len(self.config.layout.buttons),
                 len(self.config.layout.leds), len(self.config.layout.seat_leds),
                 ", a buzzer" if self.config.layout.buzzer is not None else "", type(factory).__name__)
        # Said at every start, as the device links say their first state: a console that failed
        # to open before a restart is in the journal as offline, and without this the core would
        # keep it so (and tell the floor it is still offline) while it works.
        self._report(True, f"{len(self.config.layout.buttons)} buttons on {type(factory).__name__}")
        self._show(self.board.between_hands(self._next_seat()))

    def _report(self, online: bool, detail: str) -> None:
        mono, boot = self.mono()
        self.submit(DeviceStatus(ts=self.clock(), device="console", online=online, detail=detail,
                                 mono=mono, boot=boot))

    # -- from the daemon's main loop ------------------------------------------------------------
    def write(self, effects: Sequence[Effect]) -> None:
        """Effects the dealer may see (maybe none: the daemon writes every batch, and a hand's
        end is the floor's)."""
        state = self.board.apply(effects)
        if not self.in_hand():
            state = self.board.between_hands(self._next_seat())
        if state.buzz == "none" and countdown_tick(effects):
            state = replace(state, buzz=TICK)
        self._show(state)

    def event(self, event: Event) -> None:
        """An event the core has just applied (not a reader cycle), before its effects are
        written: a press answers prompts (``ack``, ``next``...); between hands, a press or a
        set-up may change the seat the next hand starts at."""
        try:
            state = self.board.press(event) if isinstance(event, ButtonPress) else self.board.state
            if not self.in_hand():
                state = self.board.between_hands(self._next_seat())
            self._show(state)
        except Exception as exc:  # the console must never stop the table
            self._fail(exc)

    def _next_seat(self) -> int | None:
        try:
            return self.next_seat()
        except Exception as exc:
            self._fail(exc)
            return None

    def _show(self, state: ConsoleState) -> None:
        if (state.ready, state.prompt, state.alert, state.code) != (self.state.ready, self.state.prompt,
                                                                    self.state.alert, self.state.code):
            log.debug("console: %s", state.leds())
        self.state = state
        if self.console is not None:
            self.console.show(lights(state))
        if self.display is not None:
            self.display.show(state)
        if self.on_state is not None:
            self.on_state(state)
        if state.buzz != "none":
            self.board.sounded()  # (or would have: a console offline does not buzz later)

    def _fail(self, exc: Exception) -> None:
        if type(exc) not in self._failed:
            self._failed.add(type(exc))
            log.exception("console: %s; the table carries on", exc)

    # -- from the control socket ----------------------------------------------------------------
    def drive(self, ev: ButtonPress) -> bool:
        """Give a press through the mock pins, as the dealer's finger would: True if done, False
        if this console cannot (no console, real pins, no button for it, a ``reason``): then the
        caller submits the press as it is. A failure on the way is a ValueError (the control
        socket answers it)."""
        from firmware_bridge.console import ConsoleError  # (gpiozero loaded only with a console configured)

        c = self.console
        if c is None or ev.reason is not None or ev.mode is not None \
                or not c.can_drive(ev.name, long=ev.long, seat=ev.seat, hands=ev.hands):
            return False
        with self._drive_lock:  # the press the pins give is journalled with the peer who asked for it
            self._driving = ev.peer_uid
            try:
                c.drive(ev.name, long=ev.long, seat=ev.seat, hands=ev.hands)
            except ConsoleError as exc:
                raise ValueError(str(exc)) from exc
            finally:
                self._driving = None
        return True

    def _pressed(self, pad: Any) -> None:
        """A press from the console's pins (a :class:`firmware_bridge.events.PadPress`), on its way
        to the daemon's queue as the core's press."""
        ev = to_core(pad)
        peer = self._driving
        self.submit(replace(ev, peer_uid=peer) if peer is not None and isinstance(ev, ButtonPress) else ev)

    def close(self) -> None:
        if self.console is not None:
            self.console.close()
            self.console = None
        if self.display is not None:
            self.display.close()


def countdown_tick(effects: Sequence[Effect]) -> bool:
    """Whether ``effects`` bring a second of a player clock's last five (FLOW-004: the buzzer
    ticks through them).

    >>> from controller.core.effects import Prompt
    >>> [countdown_tick([Prompt(1.0, "flow.clock", "seat 4: 5 s", "FLOW-004", seat=4, count=n)]) for n in (10, 5, 1)]
    [False, True, True]
    """
    return any(getattr(e, "code", None) == "flow.clock" and getattr(e, "audience", None) == "dealer"
               and getattr(e, "count", None) in TICKED_SECONDS for e in effects)
