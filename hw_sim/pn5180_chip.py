"""A simulated NXP PN5180 at its host interface: the BUSY handshake, the registers the bridge
firmware uses, and an ISO 15693 field of tags that answer 16-slot inventories.

It answers the data sheet's command frames (docs/protocols/bridge.md, "Unconfirmed against
hardware", lists what rests on our reading of it) as the bridge board's firmware
(``firmware_bridge/firmware/pn5180.py``) sends them through the simulated board
(:mod:`hw_sim.micropython_board`): a frame is taken while the chip is selected, BUSY rises as
the chip has it and falls once it is done; the field's tags answer in the slot their UID names,
collide when two or more answer in one, keep quiet once told to until the field goes off.
Time is the board's virtual clock: the air interface takes ISO 15693's times
(:data:`AIR`), so a cycle's length comes out as the protocol document's estimate.

It also misbehaves on demand (:class:`Faults`): a BUSY that sticks high, a chip that stops
answering (BUSY never rises, MISO floats high), CRC errors, stale interrupt flags, an antenna
that is open; and it records what the firmware did wrong (:attr:`SimPn5180.violations`: a frame
sent while BUSY was high, a transmission not armed, the field on where it should not be).

>>> from hw_sim.micropython_board import VirtualClock
>>> chip = SimPn5180(VirtualClock(), zone=1)
>>> tag = chip.place("E004015012345678"); [t.uid for t in chip.tags]
['E004015012345678']
>>> chip.tags[0].slot(0), chip.tags[0].slot(4)   # its UID's low nibbles: 8, then 7
(8, 7)
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hw_sim.chip_faults import runs_out

# -- the host interface's commands and the registers the firmware uses (its pn5180.py's names)
WRITE_REGISTER, WRITE_OR, WRITE_AND, READ_REGISTER = 0x00, 0x01, 0x02, 0x04
READ_EEPROM, SEND_DATA, READ_DATA, LOAD_RF_CONFIG, RF_ON, RF_OFF = 0x07, 0x09, 0x0A, 0x11, 0x16, 0x17
SYSTEM_CONFIG, IRQ_STATUS, IRQ_CLEAR, RX_STATUS, TX_CONFIG, RF_STATUS = 0x00, 0x02, 0x03, 0x13, 0x18, 0x1D
RX_IRQ, TX_IRQ, RX_SOF_DET_IRQ = 1 << 0, 1 << 1, 1 << 14
RX_DATA_INTEGRITY_ERROR, RX_COLLISION_DETECTED = 1 << 16, 1 << 18
TX_RF_STATUS = 1 << 17
TX_DATA_BITS = 0x000004C0
TX_CONFIG_RESET = 0x000004C0 | 0x0000001F
_WRITES = frozenset((WRITE_REGISTER, WRITE_OR, WRITE_AND))
PRODUCT_VERSION = b"\x03\x05"  # (any value but FF FF and 00 00: a chip that answers)

#: ISO 15693's times on the air, microseconds (docs/protocols/bridge.md, "The cycle time")
AIR = {"byte": 302.08, "sof_eof": 113.28, "eof": 37.76, "t1": 320.9, "t2": 309.2, "answer": 3738.0,
       "sof": 56.64}
#: how long BUSY stays high once a command's frame is in (µs)
PROCESS_US = {RF_ON: 150, RF_OFF: 20, LOAD_RF_CONFIG: 100}
BOOT_US = 2000  # BUSY high after the reset is released, while the chip boots


@dataclass
class SimTag:
    """An ISO 15693 tag in the field: ``uid`` as tablectl writes it (16 hex digits, most
    significant first). ``absent``: the chance it does not answer a slot at all (a tag at the
    field's edge); ``crc``: the chance its answer arrives damaged; ``strong``: it drowns out the
    weak tags answering in its slot (the capture effect), so the chip hears it alone."""

    uid: str
    dsfid: int = 0
    absent: float = 0.0
    crc: float = 0.0
    strong: bool = False
    quiet: bool = False

    @property
    def value(self) -> int:
        return int(self.uid, 16)

    def matches(self, mask_len: int, mask: int) -> bool:
        return self.value & ((1 << mask_len) - 1) == mask

    def slot(self, mask_len: int) -> int:
        return (self.value >> mask_len) & 0xF

    def answer(self) -> bytes:
        """Its inventory answer: flags, DSFID, the UID least significant byte first (the chip
        strips the CRC)."""
        return bytes([0x00, self.dsfid]) + self.value.to_bytes(8, "little")


@dataclass
class Faults:
    """What the chip does wrong, from now on. ``stick_after``: after this many more commands,
    BUSY rises and stays high (a frozen chip) until the reset; ``die_after``: after this many more
    commands the chip stops answering (BUSY never rises, MISO reads FF) until the reset, or for
    good with ``dead_for_good``; ``crc_slots``: the next so many answered slots arrive damaged;
    ``stale_irq``: RX_IRQ and RX_SOF_DET are left set after every field off (flags an earlier
    command left); ``antenna_open``: the field never comes on."""

    stick_after: int | None = None
    die_after: int | None = None
    dead_for_good: bool = False
    crc_slots: int = 0
    stale_irq: bool = False
    antenna_open: bool = False


@dataclass
class _Round:
    mask_len: int
    mask: int
    slot: int = 0


@dataclass
class _Event:
    at: float
    irq: int
    rx_status: int | None = None
    data: bytes = b""


class SimPn5180:
    """One zone's chip. The board (:class:`hw_sim.micropython_board.SimBoard`) calls
    :meth:`select`, :meth:`spi_write`, :meth:`spi_read`, :meth:`busy` and :meth:`reset`."""

    def __init__(self, clock, *, zone: int, seed: int = 0) -> None:
        self.clock = clock
        self.zone = zone
        self.rng = random.Random(seed * 1009 + zone)
        self.tags: list[SimTag] = []
        self.faults = Faults()
        #: what the firmware did that the data sheet forbids (tests assert it stays empty)
        self.violations: list[str] = []
        self.commands = 0  # command frames taken, since the start
        self.resets = 0
        self.rounds = 0  # inventory rounds transmitted, since the start
        self.last_command = -1
        self.quiets = 0  # Stay Quiet requests transmitted
        self._power_on()

    # -- the tags --------------------------------------------------------------------------------
    def place(self, uid: str, **how: object) -> SimTag:
        tag = SimTag(uid.upper(), **how)  # type: ignore[arg-type]
        self.tags.append(tag)
        return tag

    def remove(self, uid: str) -> None:
        self.tags = [t for t in self.tags if t.uid != uid.upper()]

    # -- power and reset --------------------------------------------------------------------------
    def _power_on(self) -> None:
        self.regs = {SYSTEM_CONFIG: 0, IRQ_STATUS: 0, RX_STATUS: 0, TX_CONFIG: TX_CONFIG_RESET, RF_STATUS: 0}
        self.rf_on = False
        self.rf_config: tuple[int, int] | None = None
        self.armed = False
        self.round: _Round | None = None
        self.events: list[_Event] = []
        self.rx_data = b""
        self.selected = False
        self.frame = bytearray()
        self.answer = b""  # what the next read clocks out
        self.phase_done = False  # this selection moved bytes: BUSY is high until the release
        self.busy_until = 0.0
        self.stuck = False
        self.dead = False
        for t in self.tags:
            t.quiet = False

    def reset(self, low: bool) -> None:
        """The shared RST line: held low, the chip is off; released, it boots (BUSY high a while)."""
        if low:
            dead = self.dead and self.faults.dead_for_good
            self._power_on()
            self.dead = dead
            self.resets += 1
            self.busy_until = float("inf")
        else:
            self.busy_until = self.clock.now_us + BOOT_US

    # -- the host interface ------------------------------------------------------------------------
    def busy(self) -> int:
        if self.dead:
            return 0
        if self.stuck:
            return 1
        if self.selected and self.phase_done:
            return 1
        return 1 if self.clock.now_us < self.busy_until else 0

    def select(self, on: bool) -> None:
        if on:
            if not self.selected:
                if not self.dead and (self.stuck or self.clock.now_us < self.busy_until):  # (busy(), not selected)
                    self.violations.append(f"selected while BUSY was high (zone {self.zone})")
                self.selected, self.phase_done, self.frame = True, False, bytearray()
        elif self.selected:
            self.selected = False
            if self.frame and not self.dead:
                self._command(bytes(self.frame))
            self.frame = bytearray()

    def spi_write(self, data: bytes) -> None:
        if not self.selected or self.dead:
            return
        self.frame += data
        self.phase_done = True

    def spi_read(self, n: int) -> bytes:
        if not self.selected or self.dead:
            return b"\xff" * n
        out, self.answer = self.answer[:n], self.answer[n:]
        self.phase_done = True
        return out + b"\xff" * (n - len(out))

    # -- commands ---------------------------------------------------------------------------------
    def _command(self, frame: bytes) -> None:
        self.commands += 1
        self.last_command = frame[0]
        f = self.faults
        if f.die_after is not None and runs_out(f, "die_after"):
            self.dead = True
            return
        if f.stick_after is not None and runs_out(f, "stick_after"):
            self.stuck = True
            return
        cmd = frame[0]
        self.busy_until = self.clock.now_us + PROCESS_US.get(cmd, 5)
        if cmd in _WRITES and len(frame) == 6:
            self._write(frame[1], int.from_bytes(frame[2:6], "little"), cmd)
        elif cmd == READ_REGISTER and len(frame) == 2:
            self.answer = self._read(frame[1]).to_bytes(4, "little")
        elif cmd == READ_EEPROM and len(frame) == 3:
            self.answer = (PRODUCT_VERSION if frame[1] == 0x10 else bytes(frame[2]))[:frame[2]]
        elif cmd == SEND_DATA and len(frame) >= 2:
            self._send(frame[2:])
        elif cmd == READ_DATA and len(frame) == 2:
            self.answer = self.rx_data
        elif cmd == LOAD_RF_CONFIG and len(frame) == 3:
            self.rf_config = (frame[1], frame[2])
        elif cmd == RF_ON:
            if self.rf_config is None:
                self.violations.append(f"RF_ON before LOAD_RF_CONFIG (zone {self.zone})")
            self.rf_on = not f.antenna_open
        elif cmd == RF_OFF:
            self.rf_on = False
            self.round = None
            for t in self.tags:
                t.quiet = False  # unpowered, a tag forgets Stay Quiet
            if f.stale_irq:
                self.regs[IRQ_STATUS] |= RX_IRQ | RX_SOF_DET_IRQ
        else:
            self.violations.append(f"unknown command frame {frame[:2].hex()} (zone {self.zone})")

    def _write(self, reg: int, value: int, how: int) -> None:
        old = self.regs.get(reg, 0)
        new = value if how == WRITE_REGISTER else old | value if how == WRITE_OR else old & value
        if reg == IRQ_CLEAR:
            self._settle()
            self.regs[IRQ_STATUS] &= ~value & 0xFFFFFFFF
            return
        self.regs[reg] = new & 0xFFFFFFFF
        if reg == SYSTEM_CONFIG:
            # the transceiver is armed when its command field becomes TRANSCEIVE from IDLE
            self.armed = (new & 7) == 3 and (old & 7) != 3 or (self.armed and (new & 7) == 3)

    def _read(self, reg: int) -> int:
        self._settle()
        if reg == RF_STATUS:
            return TX_RF_STATUS if self.rf_on else 0
        return self.regs.get(reg, 0)

    def _settle(self) -> None:
        """The air's events due by now, into the registers."""
        now = self.clock.now_us
        while self.events and self.events[0].at <= now:
            e = self.events.pop(0)
            self.regs[IRQ_STATUS] |= e.irq
            if e.rx_status is not None:
                self.regs[RX_STATUS] = e.rx_status
                self.rx_data = e.data

    # -- the air ----------------------------------------------------------------------------------
    def _send(self, data: bytes) -> None:
        if not self.armed:
            self.violations.append(f"SEND_DATA with the transceiver not armed (zone {self.zone})")
            return
        if not self.rf_on:
            self.violations.append(f"SEND_DATA with the field off (zone {self.zone})")
            return
        self.armed = False
        self.events = []  # a new transmission: what the last one still had coming is lost
        now = self.clock.now_us
        eof_only = not self.regs[TX_CONFIG] & TX_DATA_BITS
        if eof_only:
            if data or self.round is None or self.round.slot >= 15:
                self.violations.append(f"an EOF outside an inventory round (zone {self.zone})")
                return
            self.round.slot += 1
            self._slot(now + AIR["eof"])
            return
        if self.regs[TX_CONFIG] & TX_DATA_BITS != TX_DATA_BITS:
            self.violations.append(f"TX_CONFIG neither a frame's nor an EOF's (zone {self.zone})")
        tx_end = now + AIR["sof_eof"] + AIR["byte"] * (len(data) + 2)  # (the chip adds the CRC)
        if len(data) >= 3 and data[0] == 0x06 and data[1] == 0x01:
            mask_len = data[2]
            n = (mask_len + 7) // 8
            if mask_len > 60 or len(data) != 3 + n:
                self.violations.append(f"a malformed inventory request (zone {self.zone})")
                return
            self.rounds += 1
            self.round = _Round(mask_len, int.from_bytes(data[3:3 + n], "little") & ((1 << mask_len) - 1))
            self._slot(tx_end)
        elif len(data) == 10 and data[0] == 0x22 and data[1] == 0x02:
            self.quiets += 1
            self.round = None
            uid = int.from_bytes(data[2:10], "little")
            for t in self.tags:
                if t.value == uid:
                    t.quiet = True
            self.events.append(_Event(tx_end, TX_IRQ))
        else:
            self.violations.append(f"an ISO 15693 request the firmware should not send: {data.hex()}")

    def _slot(self, tx_end: float) -> None:
        """The current round's slot: who answers in it, heard as of when."""
        r = self.round
        assert r is not None
        self.events.append(_Event(tx_end, TX_IRQ))
        heard = [t for t in self.tags if not t.quiet and t.matches(r.mask_len, r.mask)
                 and t.slot(r.mask_len) == r.slot and not (t.absent and self.rng.random() < t.absent)]
        if not heard:
            return
        sof = tx_end + AIR["t1"] + AIR["sof"]
        end = tx_end + AIR["t1"] + AIR["answer"]
        strong = [t for t in heard if t.strong]
        if len(heard) > 1 and not (len(strong) == 1):
            self.events += [_Event(sof, RX_SOF_DET_IRQ), _Event(end, RX_IRQ, RX_COLLISION_DETECTED | 2, b"")]
            return
        tag = strong[0] if strong else heard[0]
        damaged = (tag.crc and self.rng.random() < tag.crc) or self.faults.crc_slots > 0
        if self.faults.crc_slots > 0:
            self.faults.crc_slots -= 1
        status = (RX_DATA_INTEGRITY_ERROR | 10) if damaged else 10
        self.events += [_Event(sof, RX_SOF_DET_IRQ), _Event(end, RX_IRQ, status, tag.answer())]
