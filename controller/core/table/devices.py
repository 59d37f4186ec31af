"""Device health: the reader and shuffler offline and back (hot-plug), the shuffler's faults
(SHUF-004), and the timers that tell the floor when either lasts."""

from __future__ import annotations

from typing import Any

from controller.core.effects import Alert, Effect
from controller.core.errors import StateError
from controller.core.events import DeviceStatus, ShufflerStatus, Tick
from controller.core.rules import Finding
from controller.core.state.codec import conforms
from controller.core.part import Part


class DeviceHealth(Part):
    """Devices offline, and for how long: the devices' part of the table."""

    SECTION = "devices"
    STATE = ("devices_offline", "_offline_since", "_shuffler_fault")
    HINTS = {"devices_offline": set[str], "_offline_since": dict[str, list[Any]],
             "_shuffler_fault": list[Any] | None}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        self.devices_offline: set[str] = set()
        # device -> [since (wall), floor told, since (monotonic), its boot]: see _elapsed
        self._offline_since: dict[str, list[Any]] = {}
        # [state, since (wall), floor told, since (monotonic), its boot] while the shuffler is in fault
        self._shuffler_fault: list[Any] | None = None

    def link(self) -> None:
        alerts = self._t.alerts
        self._alert, self._flag = alerts.alert, alerts.flag

    @property
    def hand(self) -> Any:
        return self._t.dealing.hand

    def check(self, where: str) -> None:
        for d in self.devices_offline:
            if type(d) is not str:
                raise StateError(f"{where}.devices_offline: {d!r} is no device name")
        for d, v in self._offline_since.items():
            if type(v) is not list or len(v) != 4 or not conforms(v[0], float) or type(v[1]) is not bool \
                    or not _reading(v):
                raise StateError(f"{where}._offline_since.{d}: want [since, told, mono, boot]")
        f = self._shuffler_fault
        if f is not None and (len(f) != 5 or type(f[0]) is not str or not conforms(f[1], float)
                              or type(f[2]) is not bool or not _reading(f)):
            raise StateError(f"{where}._shuffler_fault: want [state, since, told, mono, boot]")

    def on_device(self, ev: DeviceStatus) -> list[Effect]:
        """A device offline or back (hot-plug)."""
        out: list[Effect] = []
        hand_no = self.hand.number if self.hand else None
        if ev.online and ev.capacity is not None and ev.device == "reader":
            self._t.reads.reader_capacity(ev.capacity)  # a bridge board's zones that see few cards
        if not ev.online and ev.device not in self.devices_offline:
            self.devices_offline.add(ev.device)
            self._offline_since[ev.device] = [ev.ts, False, ev.mono, ev.boot]
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_offline", audience="dealer",
                                   hand=hand_no,
                                   message=f"{ev.device} offline" + (f" ({ev.detail})" if ev.detail else "")))
        elif ev.online and ev.device in self.devices_offline:
            self.devices_offline.discard(ev.device)
            self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_online", audience="dealer",
                                   hand=hand_no, message=f"{ev.device} back online"))
            if self._offline_since.pop(ev.device, [0, False])[1]:  # the floor was told it went
                self._alert(out, Alert(ts=ev.ts, code=f"device.{ev.device}_back", audience="floor",
                                       hand=hand_no, message=f"{ev.device} is back"))
        return out

    def on_tick(self, ev: Tick) -> list[Effect]:
        """A device gone for ``offline_floor_after`` seconds is the floor's to know (hot-plug)."""
        out: list[Effect] = []
        for device, state in sorted(self._offline_since.items()):
            if state[1]:
                continue
            elapsed = _elapsed(state, 0, ev)
            if elapsed is not None and elapsed >= self.settings.rules.offline_floor_after:
                state[1] = True
                self._alert(out, Alert(ts=ev.ts, code=f"device.{device}_still_offline", audience="floor",
                                       hand=self.hand.number if self.hand else None,
                                       message=f"{device} offline for {elapsed:.0f} s: check its cable"))
        return out

    def on_shuffler_status(self, ev: ShufflerStatus) -> list[Effect]:
        """A jam, an open door or an error prompts the dealer (SHUF-004); if it lasts
        ``shuffler_floor_after`` seconds, the floor is told."""
        out: list[Effect] = []
        fault = self._shuffler_fault
        if ev.state not in ("jam", "door_open", "error"):
            if fault is not None:
                self._shuffler_fault = None
                self._flag(out, ev.ts, self.hand, Finding("shuffler.cleared", "SHUF-004",
                                                          f"{ev.device}: {ev.state} again"))
            return out
        if fault is None or fault[0] != ev.state:
            self._shuffler_fault = [ev.state, ev.ts, False, ev.mono, ev.boot]
            words = {"jam": "jammed: clear it, wash the deck and run it again",
                     "door_open": "door open: close it",
                     "error": f"error {ev.code if ev.code is not None else ''}".strip() + ": see its display"}
            self._flag(out, ev.ts, self.hand, Finding(f"shuffler.{ev.state}", "SHUF-004",
                                                      f"{ev.device} {words[ev.state]}"))
        elif not fault[2] and (elapsed := _elapsed(fault, 1, ev)) is not None \
                and elapsed >= self.settings.rules.shuffler_floor_after:
            fault[2] = True
            self._flag(out, ev.ts, self.hand, Finding("shuffler.fault_persists", "SHUF-004",
                                                      f"{ev.device}: {ev.state} for {elapsed:.0f} s",
                                                      audience="floor"))
        return out


def _reading(v: list[Any]) -> bool:
    """A timer's monotonic start and its boot, or none (a state's)."""
    return (v[-2] is None and v[-1] is None) or (conforms(v[-2], float) and conforms(v[-1], str | None))


def _elapsed(timer: list[Any], at: int, ev: Tick | ShufflerStatus) -> float | None:
    """Seconds from a timer's start to ``ev``, on the monotonic clock (wall time jumps when a
    Pi's clock is set). ``timer`` ends with its start's ``[..., mono, boot]``; ``timer[at]`` is
    its start's wall time. None when the two readings cannot be compared: a reading of another
    boot (or of none: a timer started by a journal row from before monotonic readings) restarts
    the timer from ``ev``'s, so the floor is told late rather than wrongly. Only where neither
    has a reading (rows journalled before the fields existed, replayed) is it wall time, as it
    was when those rows were first applied.

    >>> timer = [100.0, False, 5.0, "b1"]
    >>> _elapsed(timer, 0, Tick(ts=100.0 + 365 * 86400, mono=6.0, boot="b1"))  # the wall clock set a year on
    1.0
    >>> _elapsed(timer, 0, Tick(ts=7.0, mono=70.0, boot="b2")), timer  # another boot: counted afresh
    (None, [100.0, False, 70.0, 'b2'])
    >>> _elapsed([100.0, False, None, None], 0, Tick(ts=130.0))  # rows of an earlier release
    30.0
    """
    since_mono, since_boot = timer[-2], timer[-1]
    if ev.mono is None:
        return ev.ts - float(timer[at]) if since_mono is None else None
    if since_mono is None or since_boot != ev.boot or ev.mono < since_mono:
        timer[-2], timer[-1] = ev.mono, ev.boot
        return None
    return ev.mono - float(since_mono)

