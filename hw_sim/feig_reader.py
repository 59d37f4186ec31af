"""A simulated FEIG ISO Host reader with an antenna multiplexer, on a pseudo-terminal.

It speaks the real wire protocol (``firmware_bridge.feig``) and answers inventory requests
from the tags lying on its antennas, with the noise model of deal-script.md:

- ``miss``: the chance that one antenna misses a tag in one inventory cycle;
- ``repeat``: the chance that a tag's data set is reported twice in one answer;
- ``crosstalk``: the chance that a tag is also heard by a neighbouring antenna, weaker.

Like a real reader it answers a request addressed to its bus address (``com_adr``) or to the
broadcast address ``FF``, with its own address in the answer, and ignores the others;
``answer_any`` makes it answer every request (a device that does not filter). ``neighbours``
puts other devices on the same line: each answers the requests addressed to it (or all, with
``answer_any``) with an empty field, after this reader's answer.

Like a real reader it takes a snapshot of the field when a fresh inventory is asked for and
serves a long answer in parts: status 0x94 (more data) until the host has fetched the rest
with the MORE bit set.

>>> import tempfile, pathlib
>>> from hw_sim.pty_device import PtyDevice, SimDevice
>>> dev = PtyDevice(pathlib.Path(tempfile.mkdtemp()) / "reader")
>>> reader = SimFeigReader(dev, antennas=range(1, 14))
>>> reader.place("As", "E0040150A05F0000", 3)
>>> reader.tags_at(3)
['E0040150A05F0000']
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from firmware_bridge import feig
from hw_sim.noise import CycleReads, Standard, profile
from hw_sim.pty_device import DeviceEnd, SimDevice
from hw_sim.script import Noise


#: The noise model is the deal script's (seed, miss, repeat, crosstalk).
NoiseModel = Noise


@dataclass(frozen=True)
class BusNeighbour:
    """Another device on the reader's line: it answers inventories addressed to ``com_adr``
    (every inventory with ``answer_any``) with "no transponder", from its own address."""

    com_adr: int
    answer_any: bool = False

    def hears(self, com_adr: int) -> bool:
        return self.answer_any or com_adr in (self.com_adr, feig.BROADCAST)


__all__ = ["BusNeighbour", "CycleReads", "NoiseModel", "SimFeigReader"]


@lru_cache(maxsize=1 << 16)
def _tag_record(uid: str, heard: tuple[tuple[int, int], ...]) -> feig.TagRecord:
    """A tag's data set (transponder type 03, DSFID 0) with its ``(antenna, rssi)`` reads (none:
    an answer without antenna information). Immutable, so one made for a tag read at the same
    antennas and levels serves again: a card lying still is read at one antenna, at one of 61
    levels, cycle after cycle, and the simulator's hot loop is making these."""
    return feig.TagRecord(uid=uid, tr_type=0x03, dsfid=0x00,
                          antennas=tuple(feig.AntennaRead(a, 0x00, r) for a, r in heard))


class SimFeigReader(SimDevice):
    """The reader end of a pseudo-terminal. Thread-safe: the dealer moves tags while the
    reader thread answers the host."""

    thread_name = "sim-feig-reader"
    #: its RF set-up, for the noise profile (hw_sim.noise.SETUPS): one transmitter switched over
    #: antennas the size of a spot
    RF_SETUP = "multiplexer"

    STRONG = Standard.STRONG  # RSSI range at the antenna a tag lies on (standard profile)
    WEAK = Standard.WEAK  # RSSI range of crosstalk at a neighbouring antenna (standard profile)

    def __init__(self, device: DeviceEnd, *, antennas: Iterable[int], noise: NoiseModel | None = None,
                 com_adr: int = 0x00, max_records: int = 16, single_antenna: bool = False,
                 neighbours: dict[int, Sequence[int]] | None = None, answer_any: bool = False,
                 on_bus: Sequence[BusNeighbour] = (), stub: int | None = None) -> None:
        """``stub``: the antenna under a stub spot (STUB-006), stacked as the muck is under the
        harsh noise; None, the table has none."""
        super().__init__(device)
        self.antennas = sorted(antennas)
        self.noise = noise or NoiseModel()
        self.com_adr = com_adr  # its bus address: answers carry it (tests may change it)
        self.answer_any = answer_any  # answer requests addressed to any device
        self.on_bus = list(on_bus)  # other devices on the same line
        self.max_records = max_records
        self.single_antenna = single_antenna
        self._neighbours = neighbours or {
            a: [b for b in (a - 1, a + 1) if b in self.antennas] for a in self.antennas}
        self._whole: dict[int, frozenset[int]] = {}  # ant_sel -> :meth:`_whole_under`
        self._rng = random.Random(self.noise.seed)
        #: the noise profile (hw_sim.noise) that says what one look at the field hears
        self.look = profile(self.noise.profile, seed=self.noise.seed, miss=self.noise.miss,
                            crosstalk=self.noise.crosstalk, neighbours=self._neighbours, stub=stub,
                            setup=self.RF_SETUP)
        self._tags: dict[str, tuple[str, int]] = {}  # physical tag key -> (uid, antenna)
        self._lock = threading.Lock()
        self._pending: list[bytes] = []  # answer parts still to fetch with MORE
        self._decoder = feig.FrameDecoder(from_reader=False)
        self.cycles = 0  # fresh inventories answered in full
        self.cycle_done = threading.Condition()
        #: called (under no lock) after each full cycle with its number, what it reported, the
        #: :attr:`label` that was current when the field was looked at, and when that was
        self.on_cycle: Callable[[int, CycleReads, object, float], None] | None = None
        #: anything the simulator wants to know each cycle by (the script step in force)
        self.label: object = None
        self.requests = 0
        self.ignored = 0  # requests addressed to another device
        self.bad_requests = 0
        self.mute = False  # a reader that stops answering (heartbeat loss)
        self.corrupt_next = 0  # fault injection: flip a bit in the CRC of the next N answers
        self.truncate_next = 0  # fault injection: cut the next N answers short
        self.garbage_next = b""  # fault injection: bytes sent before the next answer
        self.error_status_next = 0  # fault injection: answer the next N inventories with status 0x83
        #: when the reader looked at its field (the in-process harness gives its own clock)
        self.clock: Callable[[], float] = time.time

    # -- the physical field ------------------------------------------------------------------
    def place(self, key: str, uid: str, antenna: int) -> None:
        """Lay physical tag ``key`` (with ``uid``) on ``antenna``; moves it if it lay elsewhere."""
        with self._lock:
            self._tags[key] = (uid, antenna)

    def remove(self, key: str) -> None:
        with self._lock:
            self._tags.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._tags.clear()

    def tags_at(self, antenna: int) -> list[str]:
        with self._lock:
            return [uid for uid, a in self._tags.values() if a == antenna]

    def uid_of(self, key: str) -> str:
        """The UID of physical tag ``key`` lying in the field."""
        with self._lock:
            return self._tags[key][0]

    def where(self, key: str) -> int | None:
        with self._lock:
            t = self._tags.get(key)
            return t[1] if t else None

    # -- answering ---------------------------------------------------------------------------
    def _inventory(self, ant_sel: int | None) -> CycleReads:
        """One noisy look at the field, as the antennas selected hear it."""
        with self._lock:
            tags = sorted(self._tags.values())  # sorted: the same field gives the same draws
        reads = self.look(self._rng, tags, strong=self.STRONG, weak=self.WEAK)
        if ant_sel is not None and not {a for _, a in tags} <= self._whole_under(ant_sel):
            reads = {uid: kept for uid, heard in reads.items()
                     if (kept := [(a, r) for a, r in heard if a <= 64 and ant_sel >> (a - 1) & 1])}
        return reads

    def _whole_under(self, ant_sel: int) -> frozenset[int]:
        """The antennas whose tags are heard only at antennas ``ant_sel`` selects: the antenna
        itself and each neighbour its crosstalk can reach (the noise profile's ``neighbours``).
        While every tag lies on one of them, selecting leaves a look as it is, and it is not
        filtered (each read of each tag, every cycle: the filter was a sixth of a cycle)."""
        whole = self._whole.get(ant_sel)
        if whole is None:
            def selected(a: int) -> bool:
                return 1 <= a <= 64 and bool(ant_sel >> (a - 1) & 1)
            ants = set(self._neighbours) | {b for near in self._neighbours.values() for b in near}
            whole = self._whole[ant_sel] = frozenset(
                a for a in ants if selected(a) and all(selected(b) for b in self._neighbours.get(a) or ()))
        return whole

    def answer_records(self, ant_sel: int | None, *, with_antennas: bool = True) -> list[feig.TagRecord]:
        """One inventory cycle answered as the records the host would decode, without the bytes:
        the same noisy look, the same repeats and the same draws of the generator as a request
        over the line (:meth:`_answer_request`), so a script gives the same report either way.
        The in-process harness's quick path for scripts that inject no fault on the line
        (``hw_sim.harness``); the frames themselves are tested in test_feig_*."""
        self.requests += 1
        with_antennas = with_antennas and not self.single_antenna
        self._last_label = self.label
        self._last_look = self.clock()
        reads = self._inventory(ant_sel if with_antennas else None)
        self._last_reads = reads
        records = self._records(reads, with_antennas)
        self._cycle_complete()
        return records

    def _records(self, reads: CycleReads, with_antennas: bool) -> list[feig.TagRecord]:
        """The data sets one answer carries, a repeated one twice (the noise's ``repeat``)."""
        random_, repeat = self._rng.random, self.noise.repeat
        records: list[feig.TagRecord] = []
        for uid, heard in reads.items():
            rec = _tag_record(uid, tuple(heard) if with_antennas else ())
            records.append(rec)
            if repeat and random_() < repeat:
                records.append(rec)  # the same data set reported again
        return records

    def _answer(self, reads: CycleReads, with_antennas: bool) -> list[bytes]:
        records = self._records(reads, with_antennas)
        if not records:
            return [feig.encode_frame(feig.CMD_INVENTORY, b"", com_adr=self.com_adr,
                                      status=feig.STATUS_NO_TRANSPONDER)]
        parts = [records[i:i + self.max_records] for i in range(0, len(records), self.max_records)]
        out = []
        for i, part in enumerate(parts):
            status = feig.STATUS_MORE_DATA if i < len(parts) - 1 else feig.STATUS_OK
            out.append(feig.encode_inventory_reply(part, with_antennas=with_antennas, status=status,
                                                   com_adr=self.com_adr))
        return out

    def _send(self, data: bytes) -> None:
        """Write one answer, with any fault the test asked for."""
        if self.garbage_next:
            data, self.garbage_next = self.garbage_next + data, b""
        if self.corrupt_next:
            self.corrupt_next -= 1
            data = data[:-1] + bytes([data[-1] ^ 0x01])
        elif self.truncate_next:
            self.truncate_next -= 1
            data = data[: len(data) // 2]
        self.device.write(data)

    def _handle(self, frame: feig.Frame) -> None:
        if self.answer_any or frame.com_adr in (self.com_adr, feig.BROADCAST):
            self._answer_request(frame)
        else:
            self.ignored += 1
        for other in self.on_bus:
            if other.hears(frame.com_adr) and frame.cmd == feig.CMD_INVENTORY:
                self.device.write(feig.encode_frame(feig.CMD_INVENTORY, b"", com_adr=other.com_adr,
                                                    status=feig.STATUS_NO_TRANSPONDER))

    def _answer_request(self, frame: feig.Frame) -> None:
        self.requests += 1
        if frame.cmd == feig.CMD_GET_SOFTWARE_VERSION:
            self._send(feig.encode_frame(frame.cmd, bytes([0x03, 0x03, 0x00, 0x44, 0x53, 0x0D, 0x30]),
                                                com_adr=self.com_adr, status=feig.STATUS_OK))
            return
        if frame.cmd != feig.CMD_INVENTORY or len(frame.data) < 2 or frame.data[0] != 0x01:
            self.bad_requests += 1
            self._send(feig.encode_frame(frame.cmd, b"", com_adr=self.com_adr, status=0x80))
            return
        mode = frame.data[1]
        if mode & feig.MODE_MORE:
            if self._pending:
                part = self._pending.pop(0)
                if not self._pending:
                    self._cycle_complete()  # (before the last part: see below)
                self._send(part)
            else:
                self._send(feig.encode_frame(frame.cmd, b"", com_adr=self.com_adr,
                                             status=feig.STATUS_NO_TRANSPONDER))
            return
        if self.error_status_next:
            self.error_status_next -= 1
            self._send(feig.encode_frame(frame.cmd, b"", com_adr=self.com_adr, status=feig.STATUS_RF_COMM_ERROR))
            return
        with_antennas = bool(mode & feig.MODE_ANT) and not self.single_antenna
        ant_sel = int.from_bytes(frame.data[2:], "big") if with_antennas and len(frame.data) > 2 else None
        self._last_label = self.label
        self._last_look = self.clock()
        reads = self._inventory(ant_sel)
        self._last_reads = reads
        parts = self._answer(reads, with_antennas)
        self._pending = parts[1:]
        if not self._pending:
            # Told before the last part is on the line: whoever waits for the host to have the
            # answer (the paced simulator, hw_sim.pacing) then knows the cycle's reads too.
            self._cycle_complete()
        self._send(parts[0])

    def _cycle_complete(self) -> None:
        with self.cycle_done:
            self.cycles += 1
            n = self.cycles
            self.cycle_done.notify_all()
        if self.on_cycle is not None:
            self.on_cycle(n, self._last_reads, self._last_label, self._last_look)

    def wait_cycles(self, count: int, timeout: float) -> bool:
        """Block until ``count`` more full cycles were answered; False on timeout."""
        deadline = time.monotonic() + timeout
        with self.cycle_done:
            target = self.cycles + count
            while self.cycles < target:
                left = deadline - time.monotonic()
                if left <= 0 or not self.cycle_done.wait(left):
                    return self.cycles >= target
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            if not self.device.is_open:
                self._stop.wait(0.01)
                continue
            data = self.device.read(0.05)
            if not data:
                if self._decoder.buffered and self._decoder.flush() is not None:
                    self.bad_requests += 1  # the line went quiet mid-request: drop the fragment
                continue
            self.receive(data)

    def receive(self, data: bytes) -> None:
        """Take bytes from the host and answer every whole request in them (the reader thread
        does, or the in-process harness synchronously, ``hw_sim.harness``)."""
        for item in self._decoder.feed(data):
            if isinstance(item, feig.Frame):
                if not self.mute:
                    self._handle(item)
            else:
                self.bad_requests += 1

    def _line_lost(self) -> None:
        """Unplugged: any half-answer is lost."""
        self._pending = []
        self._decoder = feig.FrameDecoder(from_reader=False)
