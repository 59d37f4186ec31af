"""The devices' events turned into the core's, before they are journalled.

The firmware bridge (``firmware_bridge``) knows tags, counts and pins, never cards, and imports
nothing of ours; it hands over its own events (:mod:`firmware_bridge.events`). The daemon turns
each into the core's event here, on the link's thread, before :meth:`Daemon.submit` journals it:
the journal's rows are the core's events, exactly as before the bridge had types of its own.
The console is told what to light (:func:`lights`), never the core's prompt state.

>>> from firmware_bridge.events import TagCycle, PadPress
>>> to_core(TagCycle(ts=1.0, device="reader", cycle=7, reads=(("E004", 2, 150),)))
ReaderCycle(ts=1.0, device='reader', cycle=7, reads=(('E004', 2, 150),))
>>> to_core(PadPress(ts=2.0, name="round_done"))
ButtonPress(ts=2.0, name='round_done', long=False, seat=None, hands=None, reason=None, mode=None, peer_uid=None)
>>> lights(ConsoleState(alert="blink_fast", seat=4, code="misdeal.seat_skipped"))
Lights(ready='on', prompt='off', alert='blink_fast', seat=4, buzz='none')
"""

from __future__ import annotations

from collections.abc import Callable

from controller.core.events import ButtonPress, DeviceStatus, Event, ReaderCycle, ShufflerReport, ShufflerStatus
from controller.core.prompts import ConsoleState
from firmware_bridge.events import DeviceEvent, LinkStatus, Lights, PadPress, ShufflerCount, ShufflerState, TagCycle


def _cycle(e: TagCycle, offset: int = 0) -> ReaderCycle:
    # (the reads' map the link built is handed on: the core does not merge the reads again)
    return ReaderCycle(ts=e.ts, device=e.device, cycle=e.cycle + offset, reads=e.reads, heard=e.heard)


def _status(e: LinkStatus) -> DeviceStatus:
    return DeviceStatus(ts=e.ts, device=e.device, online=e.online, detail=e.detail, mono=e.mono, boot=e.boot,
                        capacity=e.capacity)


def _count(e: ShufflerCount) -> ShufflerReport:
    return ShufflerReport(ts=e.ts, device=e.device, count=e.count, uids=e.uids, seq=e.seq)


def _state(e: ShufflerState) -> ShufflerStatus:
    return ShufflerStatus(ts=e.ts, device=e.device, state=e.state, code=e.code, detail=e.detail, mono=e.mono,
                          boot=e.boot)


def _press(e: PadPress) -> ButtonPress:
    return ButtonPress(ts=e.ts, name=e.name, long=e.long, seat=e.seat, hands=e.hands)


#: each device event's type -> its translation (one look-up a reader cycle, on its hot path)
_TRANSLATE: dict[type, Callable[..., Event]] = {TagCycle: _cycle, LinkStatus: _status, ShufflerCount: _count,
                                                ShufflerState: _state, PadPress: _press}


def to_core(event: DeviceEvent) -> Event:
    """The core's event for a device's; a TypeError names anything else."""
    try:
        return _TRANSLATE[type(event)](event)
    except KeyError:
        raise TypeError(f"not a device event: {type(event).__name__}") from None


def submitter(submit: Callable[[Event], None],
              cycle_offset: Callable[[], int] = lambda: 0) -> Callable[[DeviceEvent], None]:
    """The ``emit`` a link is given: each device event translated, then ``submit``-ted.

    ``cycle_offset``: what to add to a reader cycle's number. A reader link started again counts
    its cycles from 1; the daemon continues the journal's numbering. It is added as the core's
    event is built, so a reader cycle costs one object, not a translated one and then a copy.

    >>> seen = []
    >>> emit = submitter(seen.append, cycle_offset=lambda: 50)
    >>> emit(TagCycle(ts=1.0, device="reader", cycle=1, reads=()))
    >>> seen[0].cycle
    51
    """
    def emit(event: DeviceEvent) -> None:
        if type(event) is TagCycle:  # (the hot path: one a reader cycle)
            submit(_cycle(event, cycle_offset()))
        else:
            submit(to_core(event))

    return emit


def lights(state: ConsoleState) -> Lights:
    """What the console's LEDs and buzzer show for the core's prompt state."""
    return Lights(ready=state.ready, prompt=state.prompt, alert=state.alert, seat=state.seat, buzz=state.buzz)
