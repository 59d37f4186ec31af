"""The bridge board for the simulated table: the firmware's own pure logic (its zone scheduler,
PN5180 driver and anticollision) on simulated PN5180s, speaking the bridge protocol on a
pseudo-terminal, with the deal script's noise (docs/deal-script.md).

It is the FEIG simulator (:class:`hw_sim.feig_reader.SimFeigReader`: the dealer's field, the
noise profiles, the cycle's callbacks, the faults) with another wire: at the start of each cycle
(the firmware switching zone 1's field on) one noisy look at the field says which tags each
antenna hears this cycle (a missed read: heard by none; crosstalk: heard by a neighbour too),
and those tags are laid on the zones' simulated chips, which the firmware then reads slot by
slot. The chips give no signal strength, as a PN5180 gives none.

The board is taken as powered up and stopped long ago: it answers the host's HELLO, STOP and
CYCLE, and reads a cycle only when asked (the host's driver stops a free-running board first).
The FEIG simulator's faults map onto the board's: ``mute`` (no answer), ``corrupt_next`` (the
cycle's last line damaged), ``truncate_next``, ``garbage_next``, ``error_status_next`` (zone 1's
chip freezes: E02, the cycle dropped).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from hw_sim.feig_reader import NoiseModel, SimFeigReader
from hw_sim.micropython_board import SimBoard, firmware
from hw_sim.pty_device import DeviceEnd

__all__ = ["SimBridgeReader"]


class SimBridgeReader(SimFeigReader):
    """The bridge board at the end of a pseudo-terminal (or a virtual line)."""

    thread_name = "sim-bridge-board"
    #: a PN5180 module a zone, each field on only while its zone is polled: a lifted card is heard
    #: by no neighbour (hw_sim.noise; docs/protocols/bridge.md, "The simulated board's noise")
    RF_SETUP = "module_per_zone"

    def __init__(self, device: DeviceEnd, *, antennas: Iterable[int], noise: NoiseModel | None = None,
                 neighbours: dict[int, Sequence[int]] | None = None, **options: Any) -> None:
        super().__init__(device, antennas=antennas, noise=noise, neighbours=neighbours, **options)
        self.board = SimBoard(zones=max(self.antennas), seed=self.noise.seed)
        self._out = bytearray()
        with firmware(self.board) as fw:
            self.scheduler = fw.scheduler(self.board, self._out.extend)
        self.scheduler.reset(said=False)
        self.scheduler.running = False
        self.board.on_field = self._lay
        self._last_reads: dict[str, list[tuple[int, int]]] = {}

    def _lay(self, zone: int) -> None:
        """Zone 1's field comes on: a cycle begins. This cycle's noisy look at the field, laid on
        the chips (each antenna's chip holds the tags it hears this cycle)."""
        if zone != 1:
            return
        self._last_label = self.label
        self._last_look = self.clock()
        reads = self._inventory(None)
        self._last_reads = reads
        for chip in self.board.chips.values():
            chip.tags = []
        for uid, heard in reads.items():
            for antenna, _ in heard:
                chip = self.board.chips.get(antenna)
                if chip is not None:
                    chip.place(uid)
        if self.error_status_next:
            self.error_status_next -= 1
            self.board.chips[1].faults.stick_after = 2

    def receive(self, data: bytes) -> None:
        """The host's bytes: every whole command acted on, a cycle read if one was asked for, and
        what the board said sent (the cycle told to the dealer first, as FEIG's simulator does)."""
        if self.mute:
            return
        self.requests += 1
        sched = self.scheduler
        sched.feed(data)
        before = sched.cycles
        while sched.wanted:
            sched.step()
        out, self._out[:] = bytes(self._out), b""
        if sched.cycles > before:
            self._cycle_complete()
        if out:
            self._send(out)

    def _send(self, data: bytes) -> None:
        if self.garbage_next:
            data, self.garbage_next = self.garbage_next + data, b""
        if self.corrupt_next:
            self.corrupt_next -= 1
            data = data[:-3] + bytes([data[-3] ^ 0x01]) + data[-2:]  # the last line's CRC, a bit flipped
        elif self.truncate_next:
            self.truncate_next -= 1
            data = data[: len(data) // 2]
        self.device.write(data)

    def _line_lost(self) -> None:
        self._out.clear()
        self.scheduler.lines.buf = b""
