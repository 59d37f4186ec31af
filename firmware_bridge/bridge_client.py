"""The bridge board as the host sees it: shake hands, stop its free run, then ask for one cycle
at a time and get its tags back (docs/protocols/bridge.md).

It answers :meth:`BridgeClient.inventory` as :class:`firmware_bridge.feig_client.FeigClient`
does, with :class:`firmware_bridge.feig.TagRecord` s (one antenna block each: the zone, and the
signal strength where the zone gives one; :class:`LoneZone` stands in for it where it does not), so
the reader link, ``tablectl tags``, ``register``, ``verify`` and ``calibrate`` take either reader.
Bad lines are counted and logged by kind and length, never their bytes (a TAGS line carries UIDs).

>>> import serial
>>> port = serial.serial_for_url("loop://", timeout=0.01)
>>> BridgeClient(port, device="reader").inventory(antennas=None, deadline_s=0.05)  # a loop echoes
Traceback (most recent call last):
...
firmware_bridge.errors.ResponseTimeout: reader: no HELLO from the board within 0.05 s
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

import serial

from firmware_bridge import bridge
from firmware_bridge.errors import CorruptAnswer, LinkError, ProtocolError, ReaderStatusError, ResponseTimeout
from firmware_bridge.feig import AntennaRead, TagRecord
from firmware_bridge.log_limit import LogLimiter
from firmware_bridge.serial_port import Port

log = logging.getLogger("tablectl.bridge")

__all__ = ["BridgeClient", "LoneZone", "FULL", "NONE", "LEVEL", "TWIN_CYCLES", "MOVE_POINTS", "FORGET_CYCLES"]

#: the strength reported for a read a zone without signal strength heard alone, and for one
#: that is no evidence (docs/decisions/0042-the-bridge-board.md, "Without signal strength")
FULL, NONE = 255, 1
#: the tracker's level by default (``[reader] strong_rssi``): a read there is evidence, but weak
LEVEL = 150
#: cycles a tag may be heard in two zones before both count (a clone, DECK-007): counted up for a
#: cycle it is heard in two zones, down for one it is heard in one (a clone's copy missed, crosstalk
#: over), so that the misses of a busy table do not start a clone's count again
TWIN_CYCLES = 8
#: the evidence another zone must gather for a tag, on the tracker's scale, before the tag is
#: that zone's: what the tracker wants to move a card (2 × ``confirm_cycles``, a firm read worth 2
#: and a weak one 1: controller/core/tracker.py), so that the driver's zone and the tracker's
#: move together
MOVE_POINTS = 4
#: cycles unheard after which a tag is new again (the gather takes 4: tracker's GATHER_CYCLES)
FORGET_CYCLES = 4


class LoneZone:
    """Signal strength for zones that give none, from what the chip does tell: which zones heard a
    tag, and for how long (docs/decisions/0042-the-bridge-board.md, "Without signal strength").

    A tag has a zone of its own: the first zone that hears it alone, for a tag new to the table
    (or unheard for ``forget`` cycles: gathered, shuffled, dealt again), at once. Its reads there
    are :data:`FULL` (firm evidence). Another zone's reads count for a move only in the cycles its
    own zone does not hear it: the cycles since its own zone last heard it in which another zone
    did are that zone's *run*. A lone read there is ``level`` (the tracker's level, ``[reader]
    strong_rssi``: weak evidence, a point) on the run's first cycle and :data:`FULL` (two points)
    after it; a read there while a third zone hears the tag too (crosstalk from where it went) is
    ``level`` if that zone's run leads, :data:`NONE` (no evidence) otherwise; and once the points
    add up to ``move_points``, the tracker's own count for a move, the zone is the tag's own. So
    the tracker moves a card on the third cycle its new zone heard it and its old zone did not,
    whether that cycle heard it alone or with a neighbour, and never on the second: one lone read
    at a neighbour while the card's own zone misses it is what crosstalk does now and then (two in
    a row, what a lift does on a reader whose neighbours hear lifted cards), and the chips give
    no strength to tell those from a card that moved, as a FEIG reader's does. A cycle in which
    two zones hear the tag and its own zone does not counts for both runs (no points), and the
    next read says which one it lay in: a card folded into the muck, heard there and at the burn
    spot beside it on its first cycle, is the muck's firmly on its second. A cycle its own zone
    hears it ends every run; evidence for one zone ends the others'.

    A tag heard in two zones at once ``twin_cycles`` cycles more than it was heard in one (a count
    up and down, not a run: a clone's copy is missed now and then) is :data:`FULL` in both (two
    cards, one tag: the tracker's clone check, DECK-007).

    >>> z = LoneZone(twin_cycles=3)
    >>> z.strengths({"T": [4]}), z.strengths({"T": [5]}), z.strengths({"T": [5]}), z.strengths({"T": [5]})
    ({('T', 4): 255}, {('T', 5): 150}, {('T', 5): 255}, {('T', 5): 255})
    >>> [z.strengths({"T": [5, 6]}) for _ in range(3)]  # at 5 now (1 + 2 + 2 points)
    [{('T', 5): 255, ('T', 6): 1}, {('T', 5): 255, ('T', 6): 1}, {('T', 5): 255, ('T', 6): 255}]
    >>> z.strengths({"U": [1, 2]})  # new, and in two zones at once: evidence for neither
    {('U', 1): 1, ('U', 2): 1}
    >>> z.strengths({"M": [5]}), z.strengths({"M": [13]}), z.strengths({"M": [12, 13]})  # to the muck
    ({('M', 5): 255}, {('M', 13): 150}, {('M', 12): 1, ('M', 13): 150})
    >>> z.strengths({"F": [5]}), z.strengths({"F": [12, 13]}), z.strengths({"F": [13]})  # crosstalk first
    ({('F', 5): 255}, {('F', 12): 1, ('F', 13): 1}, {('F', 13): 255})
    """

    def __init__(self, *, move_points: int = MOVE_POINTS, twin_cycles: int = TWIN_CYCLES,
                 forget: int = FORGET_CYCLES, level: int = LEVEL) -> None:
        self.move_points = move_points
        self.level = level
        self.twin_cycles = twin_cycles
        self.forget = forget
        self._cycle = 0
        self._own: dict[str, int] = {}  # uid -> its zone
        self._heard: dict[str, int] = {}  # uid -> the last cycle it was heard
        #: uid -> {another zone: [cycles it heard the tag and the tag's own zone did not, points]}
        self._runs: dict[str, dict[int, list[int]]] = {}
        self._twin: dict[str, int] = {}  # uid -> cycles heard in several zones, less those heard in one

    def strengths(self, heard: dict[str, list[int]]) -> dict[tuple[str, int], int]:
        self._cycle += 1
        now, own, last, runs, twin = self._cycle, self._own, self._heard, self._runs, self._twin
        out: dict[tuple[str, int], int] = {}
        for uid, zones in heard.items():
            home = own.get(uid)
            if home is not None and now - last.get(uid, now) > self.forget:
                # unheard for long: off the table, and back as a new card. Its old zone is
                # forgotten, not only set aside for this cycle: a card dealt again whose first
                # cycle is heard in two zones (crosstalk) found its old zone again the cycle
                # after, and its new zone's lone reads were a move's weak ones
                home = None
                del own[uid]
                runs.pop(uid, None)
                twin.pop(uid, None)
            last[uid] = now
            if len(zones) == 1:
                if uid in twin:
                    twin[uid] -= 1
                    if twin[uid] <= 0:
                        del twin[uid]
                z = zones[0]
                if home is None or z == home:
                    own[uid] = z
                    runs.pop(uid, None)
                    out[(uid, z)] = FULL
                    continue
                cycles, points = runs.get(uid, {}).get(z, (0, 0))
                out[(uid, z)] = self.level if cycles == 0 else FULL
                self._count(uid, z, cycles + 1, points + (1 if cycles == 0 else 2))
                continue
            going = None
            if home in zones:
                runs.pop(uid, None)
            elif home is not None:
                mine = runs.setdefault(uid, {})
                for z in zones:
                    mine.setdefault(z, [0, 0])[0] += 1
                top = max(mine[z][0] for z in zones)
                leaders = [z for z in zones if mine[z][0] == top]
                if top > 1 and len(leaders) == 1:  # (heard there before: the zone it is on its way to)
                    going = leaders[0]
                    self._count(uid, going, top, mine[going][1] + 1)  # (contested: a weak read)
            n = twin[uid] = min(twin.get(uid, 0) + 1, self.twin_cycles)
            for z in zones:
                out[(uid, z)] = FULL if n >= self.twin_cycles or z == home else self.level if z == going else NONE
        if len(own) > 4096:  # (tags long gone: the registry's decks are 104 tags)
            for uid in [u for u, c in last.items() if now - c > self.forget]:
                own.pop(uid, None), last.pop(uid, None), runs.pop(uid, None), twin.pop(uid, None)
        return out

    def _count(self, uid: str, zone: int, cycles: int, points: int) -> None:
        """Evidence reported for ``zone``: its run now ``cycles`` long with ``points``, the others'
        ended (the tracker's evidence for one zone replaces its evidence for another); the tag's
        own once the points reach ``move_points``."""
        if points >= self.move_points:
            self._own[uid] = zone
            self._runs.pop(uid, None)
        else:
            self._runs[uid] = {zone: [cycles, points]}


class BridgeClient:
    """Talks to one bridge board over an open port. The handshake (HELLO, then STOP: the board
    runs free from power-up) is done by the first :meth:`inventory`, and again after a board
    that restarted (its HELLO at power-up is seen) or a NAK."""

    def __init__(self, port: Port, *, device: str, limiter: LogLimiter | None = None,
                 twin_cycles: int = TWIN_CYCLES, level: int = LEVEL) -> None:
        self.port = port
        self.device = device
        self.decoder = bridge.LineDecoder()
        self.cycles = bridge.CycleAssembler()
        self.limiter = limiter or LogLimiter(log, prefix=f"{device}: ")
        self.lone = LoneZone(twin_cycles=twin_cycles, level=level)
        self.seq = 0
        self.hello: bridge.Hello | None = None
        self.zones: dict[int, bridge.ZoneInfo] = {}
        self.frames_bad = 0
        self.unexpected = 0  # frames no request of ours explains
        self.stale_bytes = 0
        self.foreign_answers = 0  # (a USB port has one board: always 0, kept for the link's figures)
        self.cycles_dropped = 0
        self.last_ms: int | None = None  # how long the board's last cycle took (its END's MS)
        self._pending: list[bridge.Frame | bridge.BadLine] = []
        self._dropped_reason = ""
        self._sent: bridge.Frame | None = None

    # -- the line ----------------------------------------------------------------------------------
    def _send(self, kind: str, fields: tuple[str, ...] = ()) -> int:
        self.seq = (self.seq + 1) & 0xFFFF
        self._sent = bridge.Frame(kind, self.seq, fields)
        try:
            self.port.write(bridge.encode(kind, self.seq, fields))
        except (serial.SerialException, OSError) as exc:
            raise LinkError(f"{self.device}: write failed: {exc}") from exc
        return self.seq

    def _frames(self, silence_s: float) -> Iterable[bridge.Frame]:
        """Frames as they come, until ``silence_s`` passes with no frame (then the generator
        ends). Bad lines are counted and logged here, and break a cycle under way."""
        deadline = time.monotonic() + silence_s
        while True:
            while self._pending:
                item = self._pending.pop(0)
                if isinstance(item, bridge.BadLine):
                    self.frames_bad += 1
                    self.limiter.note(f"bad lines ({item.reason})", "%s: bad line skipped (%s): %d bytes",
                                      self.device, item.reason, item.length)
                    dropped = self.cycles.broken(f"a damaged line ({item.reason})")
                    if dropped is not None:
                        self._dropped(dropped)
                    continue
                if item == self._sent:  # our own request, echoed (a half-duplex adapter, loop://)
                    continue
                deadline = time.monotonic() + silence_s
                yield item
            if time.monotonic() >= deadline and not getattr(self.port, "in_waiting", 0):
                # (a silence is nothing waiting: a host held off the processor past the deadline
                # reads what came meanwhile before it says the board fell silent)
                return
            try:
                data = self.port.read(max(1, getattr(self.port, "in_waiting", 0) or 1))
            except (serial.SerialException, OSError) as exc:
                raise LinkError(f"{self.device}: read failed: {exc}") from exc
            if data:
                self._pending.extend(self.decoder.feed(data))

    def _dropped(self, dropped: bridge.Dropped) -> None:
        self.cycles_dropped += 1
        self._dropped_reason = dropped.reason

    # -- the handshake -----------------------------------------------------------------------------
    def handshake(self, silence_s: float) -> bridge.Hello:
        """HELLO, its answer and ZONE frames, then STOP and its OK."""
        self.hello = None
        self.cycles = bridge.CycleAssembler()
        seq = self._send("HELLO", ("{}.{}".format(*bridge.PROTOCOL_VERSION),))
        hello: bridge.Hello | None = None
        zones: dict[int, bridge.ZoneInfo] = {}
        for frame in self._frames(silence_s):
            if frame.kind == "HELLO":
                got = bridge.parse_hello(frame)
                if got.hseq == seq:
                    hello, zones = got, {}
            elif frame.kind == "ZONE" and hello is not None:
                info = bridge.parse_zone(frame)
                zones[info.zone] = info
                if len(zones) == hello.zones:
                    break
        if hello is None:
            raise ResponseTimeout(f"{self.device}: no HELLO from the board within {silence_s:g} s")
        if len(zones) != hello.zones:
            raise ProtocolError(f"the board announced {hello.zones} zones and described {len(zones)}")
        if hello.version[0] != bridge.PROTOCOL_VERSION[0]:
            raise ProtocolError(f"the board speaks protocol version {hello.version[0]}.{hello.version[1]}, "
                                f"this host speaks {bridge.PROTOCOL_VERSION[0]}.x; update the board's firmware "
                                f"or tablectl")
        self._command("STOP", silence_s)
        self.hello, self.zones = hello, zones
        return hello

    def _command(self, kind: str, silence_s: float) -> None:
        seq = self._send(kind)
        for frame in self._frames(silence_s):
            if frame.kind in ("OK", "NAK") and frame.fields[:1] == (f"{seq:04X}",):
                if frame.kind == "NAK":
                    raise ProtocolError(f"the board refused {kind}: {' '.join(frame.fields[1:2])}")
                return
        raise ResponseTimeout(f"{self.device}: no answer to {kind} within {silence_s:g} s")

    def has_signal(self, silence_s: float = 2.0) -> bool:
        """Whether any zone gives a signal strength (after the handshake, made now if need be)."""
        if self.hello is None:
            self.handshake(silence_s)
        return any(z.rssi for z in self.zones.values())

    # -- a cycle -----------------------------------------------------------------------------------
    def inventory(self, *, antennas: int | None = None, deadline_s: float = 5.0) -> list[TagRecord]:
        """One cycle of the board: its tags as records, one antenna block each (the zone; of the
        zones of ``antennas``, a bit mask, bit 0 = zone 1; all of them if None).

        Raises :class:`ResponseTimeout` when the board falls silent for ``deadline_s``,
        :class:`CorruptAnswer` when the cycle could not be taken whole (a line lost or damaged),
        :class:`ReaderStatusError` when a zone failed (its cards are unknown, not gone), and
        :class:`ProtocolError` for frames that make no sense."""
        if self.hello is None:
            self.handshake(deadline_s)
        if self.decoder.buffered:
            self.stale_bytes += self.decoder.buffered
        seq = self._send("CYCLE")
        accepted = False
        dropped_before = self.cycles_dropped
        for frame in self._frames(deadline_s):
            if frame.kind in ("OK", "NAK") and frame.fields[:1] == (f"{seq:04X}",):
                if frame.kind == "NAK":  # running: the board restarted, or another host ran it
                    self.hello = None
                    raise ProtocolError(f"the board refused CYCLE ({' '.join(frame.fields[1:2])}): shaking "
                                        f"hands again")
                accepted = True
                continue
            if frame.kind == "HELLO":
                self.hello = None  # the board restarted: it runs free again
                raise CorruptAnswer(f"{self.device}: the board restarted (boot {frame.fields[3:4]})")
            if frame.kind in ("HB", "OK"):
                continue
            try:
                got = self.cycles.feed(frame)
            except ProtocolError:
                self.cycles.broken("malformed")
                raise
            if isinstance(got, bridge.Dropped):
                self._dropped(got)
                raise CorruptAnswer(f"{self.device}: a cycle dropped: {got.reason}")
            if got is None:
                if not accepted and not self.cycles.under_way:
                    self.unexpected += 1
                continue
            if not accepted:
                self.unexpected += 1  # a cycle of the board's free run, before our CYCLE's OK
                continue
            return self._records(got, antennas)
        if self.cycles_dropped > dropped_before:
            raise CorruptAnswer(f"{self.device}: a cycle dropped: {self._dropped_reason}")
        dropped = self.cycles.broken("silence")
        if dropped is not None:
            self._dropped(dropped)
            raise CorruptAnswer(f"{self.device}: the board fell silent within a cycle")
        raise ResponseTimeout(f"{self.device}: no cycle within {deadline_s:g} s")

    def _records(self, cycle: bridge.Cycle, antennas: int | None) -> list[TagRecord]:
        self.last_ms = cycle.ms
        failed = cycle.failed()
        if failed:
            z = failed[0]
            raise ReaderStatusError(f"{self.device}: zone {z.zone} failed ({z.state} "
                                    f"{bridge.ERRORS.get(z.state, 'error')}); the cycle is dropped")
        heard: dict[str, list[int]] = {}
        given: dict[tuple[str, int], int] = {}
        for snap in cycle.zones:
            if antennas is not None and not antennas >> (snap.zone - 1) & 1:
                continue
            for uid, rssi in snap.tags:
                zones = heard.setdefault(uid, [])
                if snap.zone not in zones:
                    zones.append(snap.zone)
                if rssi is not None:
                    given[(uid, snap.zone)] = rssi
        unrated = {u: [z for z in zs if (u, z) not in given] for u, zs in heard.items()}
        strengths = self.lone.strengths({u: zs for u, zs in unrated.items() if zs})
        strengths.update(given)
        return [TagRecord(uid, 0x03 if len(uid) == 16 else 0x00, 0,
                          tuple(AntennaRead(z, 0, strengths[(uid, z)]) for z in zones))
                for uid, zones in heard.items()]
