"""A simulated NXP MFRC522 at its SPI register interface, and an ISO/IEC 14443 A field of cards
(NTAG213, MIFARE Ultralight: 7-byte UIDs) that answer REQA, WUPA, the anticollision and SELECT
of cascade levels 1 and 2, and HLTA, with ISO/IEC 14443-3's card states.

It answers the data sheet's register accesses as the bridge board's firmware
(``firmware_bridge/firmware/mfrc522.py``) makes them through the simulated board
(:mod:`hw_sim.micropython_board`): an address byte, ``reg << 1`` with bit 7 set to read, then
data bytes to write to that register, or, full duplex, each next address byte going in while
the register named by the one before comes out. The Transceive command sends the FIFO's bytes
when ``BitFramingReg``'s StartSend is set (``TxLastBits``: the bits of the last byte sent;
``RxAlign``: where the answer's first bit goes); the answer lands in the FIFO after ISO 14443A's
times at 106 kbit/s on the board's virtual clock, with ``ComIrqReg``, ``ErrorReg`` and
``CollReg`` set as the data sheet describes them; no answer fires the timer (``TimerIRq``), the
timer started at the end of the transmission (TAuto) with the firmware's reload.

The cards follow ISO/IEC 14443-3's state machine (6.3): IDLE, READY (at a cascade level),
ACTIVE, HALT; a card in READY or ACTIVE given a frame it does not expect goes back to IDLE (or
HALT, if woken from it) without answering; a field switched off puts every card back to IDLE.
Two cards answering the anticollision with different bits collide at the first bit they differ
in (Manchester coding: the reader sees where).

It misbehaves on demand (:class:`Faults`): a chip that stops answering (MISO floats high:
every register reads FF), damaged answers (a CRC or parity error), an antenna that is open. It
records what the firmware did that the data sheet or ISO 14443 forbids (:attr:`violations`).

>>> from hw_sim.micropython_board import VirtualClock
>>> chip = SimMfrc522(VirtualClock(), zone=1)
>>> card = chip.place("04A2B3C4D5E680"); card.cl(0).hex(), card.cl(1).hex()
('8804a2b39d', 'c4d5e68077')
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from hw_sim.chip_faults import runs_out

# -- registers and bits, as the data sheet names them (the firmware's mfrc522.py's)
COMMAND, COM_IRQ, DIV_IRQ, ERROR, FIFO_DATA, FIFO_LEVEL = 0x01, 0x04, 0x05, 0x06, 0x09, 0x0A
CONTROL, BIT_FRAMING, COLL, TX_CONTROL, T_RELOAD_H, T_RELOAD_L, VERSION = 0x0C, 0x0D, 0x0E, 0x14, 0x2C, 0x2D, 0x37
CMD_IDLE, CMD_TRANSCEIVE, CMD_SOFT_RESET = 0x00, 0x0C, 0x0F
POWER_DOWN = 0x10
TIMER_IRQ, ERR_IRQ, IDLE_IRQ, RX_IRQ, TX_IRQ = 0x01, 0x02, 0x10, 0x20, 0x40
PROTOCOL_ERR, PARITY_ERR, COLL_ERR = 0x01, 0x02, 0x08
START_SEND = 0x80
VERSION_VALUE = 0x92  # (v2.0)

#: ISO 14443A at 106 kbit/s: a bit (128/fc), a byte with its parity bit, the frame delay time
#: before a card's answer (1172/fc), microseconds
BIT_US = 9.44
BYTE_US = 9 * BIT_US
FDT_US = 86.4
TICK_US = 25.0  # the firmware's prescaler (0xA9): 40 kHz
START_US = 40.0  # the oscillator's start after the reset is released: CommandReg's PowerDown set till then

REQA, WUPA, HLTA = 0x26, 0x52, 0x50
SEL = (0x93, 0x95, 0x97)
ATQA_DOUBLE = b"\x44\x00"  # a double-size UID (NTAG213, MIFARE Ultralight)

IDLE, READY, ACTIVE, HALT = "idle", "ready", "active", "halt"


def crc_a(data: bytes) -> bytes:
    """CRC_A (ISO/IEC 14443-3, annex B), least significant byte first: written here from the
    standard's own C routine, not from the firmware.

    >>> crc_a(bytes([0x50, 0x00])).hex()   # HLTA is 50 00 57 CD
    '57cd'
    """
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte ^= (byte << 4) & 0xFF
        crc = ((crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)) & 0xFFFF
    return bytes([crc & 0xFF, crc >> 8])


@dataclass
class SimCard:
    """A card's sticker in the field: ``uid`` as tablectl writes it (14 hex digits for a 7-byte
    UID, the manufacturer's byte first). ``absent``: the chance it does not answer a frame at all
    (a card at the field's edge); ``crc``: the chance its answer arrives damaged."""

    uid: str
    absent: float = 0.0
    crc: float = 0.0
    state: str = IDLE
    level: int = 0
    from_halt: bool = False

    @property
    def raw(self) -> bytes:
        return bytes.fromhex(self.uid)

    def cl(self, level: int) -> bytes:
        """CLn and its BCC: a 7-byte UID is 88 uid0 uid1 uid2, then uid3..uid6 (ISO/IEC 14443-3, 6.5.4)."""
        raw = self.raw
        if len(raw) == 4:
            part = raw
        elif len(raw) == 7:
            part = bytes([0x88]) + raw[:3] if level == 0 else raw[3:]
        else:
            raise ValueError(f"a {len(raw)}-byte UID: the simulated field holds 4 or 7")
        return part + bytes([part[0] ^ part[1] ^ part[2] ^ part[3]])

    def last_level(self) -> int:
        return 0 if len(self.raw) == 4 else 1

    def drop(self) -> None:
        """A frame it did not expect: back to IDLE, or HALT if woken from it."""
        self.state = HALT if self.from_halt else IDLE


@dataclass
class Faults:
    """``die_after``: after this many more SPI selections the chip stops answering (MISO reads FF)
    until the reset, or for good with ``dead_for_good``; ``crc_frames``: the next so many
    answers arrive damaged; ``antenna_open``: the antenna drivers never come on."""

    die_after: int | None = None
    dead_for_good: bool = False
    crc_frames: int = 0
    antenna_open: bool = False


class SimMfrc522:
    """One zone's chip. The board (:class:`hw_sim.micropython_board.SimBoard`) calls
    :meth:`select`, :meth:`spi_write`, :meth:`spi_transfer`, :meth:`busy` and :meth:`reset`."""

    chip = "MFRC522"

    def __init__(self, clock, *, zone: int, seed: int = 0) -> None:
        self.clock = clock
        self.zone = zone
        self.rng = random.Random(seed * 1013 + zone)
        self.cards: list[SimCard] = []
        self.faults = Faults()
        self.violations: list[str] = []
        self.resets = 0
        self.frames: list[bytes] = []  # every frame transmitted, since the start (REQA, SEL...)
        self.last_command = -1
        self._power_on()

    # -- the cards -------------------------------------------------------------------------------
    def place(self, uid: str, **how: object) -> SimCard:
        card = SimCard(uid.upper(), **how)  # type: ignore[arg-type]
        self.cards.append(card)
        return card

    def remove(self, uid: str) -> None:
        self.cards = [c for c in self.cards if c.uid != uid.upper()]

    @property
    def tags(self) -> list[SimCard]:
        """The cards (a simulated PN5180's name for what lies in its field: the board's runner
        and the simulator lay both chips' by it)."""
        return self.cards

    @tags.setter
    def tags(self, cards: list[SimCard]) -> None:
        self.cards = cards

    # -- power and reset -------------------------------------------------------------------------
    def _power_on(self) -> None:
        self.regs = {r: 0 for r in range(0x40)}
        self.regs[VERSION] = VERSION_VALUE
        self.regs[COLL] = 0xA0  # (its reset value: ValuesAfterColl, CollPosNotValid)
        self.regs[T_RELOAD_H], self.regs[T_RELOAD_L] = 0, 0
        self.fifo = bytearray()
        self.rf_on = False
        self.selected = False
        self.mode: str | None = None  # this selection's access: "r" (reading) or "w" (writing)
        self.reg = 0
        self.pending: tuple[float, int, int, bytes, int] | None = None  # (at, irq, error, data, coll)
        self.started = 0.0
        self.dead = False
        for c in self.cards:
            c.state, c.from_halt = IDLE, False

    def reset(self, low: bool) -> None:
        """The shared reset line (NRSTPD): held low, the chip is off (hard power-down);
        released, its oscillator starts (CommandReg's PowerDown set meanwhile)."""
        if low:
            dead = self.dead and self.faults.dead_for_good
            self._power_on()
            self.dead = dead
            self.resets += 1
            self.started = float("inf")
        else:
            self.started = self.clock.now_us + START_US

    def busy(self) -> int:
        return 0  # (no BUSY line: the multiplexer's input is pulled down)

    # -- the SPI interface -----------------------------------------------------------------------
    def select(self, on: bool) -> None:
        if on and not self.selected:
            self.selected, self.mode = True, None
            f = self.faults
            if f.die_after is not None and runs_out(f, "die_after"):
                self.dead = True
        elif not on:
            self.selected, self.mode = False, None

    def spi_write(self, data: bytes) -> None:
        self.spi_transfer(data)

    def spi_read(self, n: int) -> bytes:
        self.violations.append(f"an SPI read without address bytes (zone {self.zone})")
        return b"\xff" * n

    def spi_transfer(self, data: bytes) -> bytes:
        """Bytes in (MOSI), the bytes out (MISO) at the same time."""
        if not self.selected or self.dead:
            return b"\xff" * len(data)
        out = bytearray()
        for byte in data:
            if self.mode is None:
                if byte & 0x01:
                    self.violations.append(f"an address byte with bit 0 set: {byte:02x} (zone {self.zone})")
                self.reg = (byte >> 1) & 0x3F
                self.mode = "r" if byte & 0x80 else "w"
                out.append(0x00)
            elif self.mode == "w":
                self._write(self.reg, byte)
                out.append(0x00)
            else:
                out.append(self._read(self.reg))
                self.reg = (byte >> 1) & 0x3F
                if byte and not byte & 0x80:
                    self.violations.append(f"a write address within a read (zone {self.zone})")
        return bytes(out)

    # -- registers -------------------------------------------------------------------------------
    def _booting(self) -> bool:
        return self.clock.now_us < self.started

    def _read(self, reg: int) -> int:
        self._settle()
        if reg == COMMAND:
            return self.regs[COMMAND] | (POWER_DOWN if self._booting() else 0)
        if reg == FIFO_LEVEL:
            return len(self.fifo)
        if reg == FIFO_DATA:
            if not self.fifo:
                self.violations.append(f"the FIFO read empty (zone {self.zone})")
                return 0
            return self.fifo.pop(0)
        return self.regs.get(reg, 0)

    def _write(self, reg: int, value: int) -> None:
        self._settle()
        if self._booting():
            self.violations.append(f"a register written before the oscillator started (zone {self.zone})")
            return
        if reg == COM_IRQ:
            if value & 0x80:
                self.regs[COM_IRQ] |= value & 0x7F
            else:
                self.regs[COM_IRQ] &= ~value & 0x7F
        elif reg == FIFO_LEVEL:
            if value & 0x80:
                self.fifo = bytearray()
        elif reg == FIFO_DATA:
            self.fifo.append(value)
        elif reg == COMMAND:
            self.regs[COMMAND] = value & 0x1F
            if value & 0x0F == CMD_IDLE:
                self.pending = None
            elif value & 0x0F == CMD_SOFT_RESET:
                self._power_on()
        elif reg == TX_CONTROL:
            was = self.rf_on
            self.regs[TX_CONTROL] = value if not self.faults.antenna_open else value & ~0x03
            self.rf_on = self.regs[TX_CONTROL] & 0x03 == 0x03
            if was and not self.rf_on:
                for c in self.cards:  # unpowered, every card forgets its state
                    c.state, c.from_halt = IDLE, False
        elif reg == BIT_FRAMING:
            self.regs[BIT_FRAMING] = value & 0x7F
            if value & START_SEND:
                self._transceive(value & 0x07, (value >> 4) & 0x07)
        else:
            self.regs[reg] = value

    def _settle(self) -> None:
        """The answer due by now, into the FIFO and the flags."""
        p = self.pending
        if p is not None and p[0] <= self.clock.now_us:
            self.pending = None
            _, irq, error, data, coll = p
            self.regs[COM_IRQ] |= irq
            self.regs[ERROR] = error
            self.regs[COLL] = coll
            self.fifo = bytearray(data)

    # -- the air ---------------------------------------------------------------------------------
    def _transceive(self, tx_last_bits: int, rx_align: int) -> None:
        if self.regs[COMMAND] & 0x0F != CMD_TRANSCEIVE:
            self.violations.append(f"StartSend without the Transceive command (zone {self.zone})")
            return
        if not self.rf_on:
            self.violations.append(f"a frame sent with the field off (zone {self.zone})")
            return
        if self.regs[COM_IRQ] & (RX_IRQ | IDLE_IRQ | TIMER_IRQ | ERR_IRQ):
            self.violations.append(f"a transceive with the last one's flags still set (zone {self.zone})")
        frame = bytes(self.fifo)
        self.fifo = bytearray()
        self.frames.append(frame)
        bits = 8 * len(frame) - (8 - tx_last_bits if tx_last_bits else 0)
        tx_end = self.clock.now_us + BIT_US * (bits + bits // 8) + 2 * BIT_US
        self.regs[ERROR] = 0
        answer = self._answer(frame, tx_last_bits, rx_align)
        if answer is None:
            ticks = (self.regs[T_RELOAD_H] << 8) | self.regs[T_RELOAD_L]
            self.pending = (tx_end + TICK_US * max(ticks, 1), TIMER_IRQ | TX_IRQ, 0, b"", 0xA0)
            return
        data, error, coll = answer
        at = tx_end + FDT_US + BYTE_US * max(len(data), 1)
        irq = TX_IRQ | RX_IRQ | (ERR_IRQ if error else 0)
        self.pending = (at, irq, error, data, coll)

    def _damaged(self, cards: list[SimCard]) -> bool:
        if self.faults.crc_frames > 0:
            self.faults.crc_frames -= 1
            return True
        return any(c.crc and self.rng.random() < c.crc for c in cards)

    def _answer(self, frame: bytes, tx_last_bits: int, rx_align: int) -> tuple[bytes, int, int] | None:
        """What the field answers ``frame``: (FIFO bytes, ErrorReg, CollReg), or None (silence)."""
        here = [c for c in self.cards if not (c.absent and self.rng.random() < c.absent)]
        if tx_last_bits == 7 and len(frame) == 1 and frame[0] in (REQA, WUPA):
            woken = []
            for c in here:
                if c.state == IDLE or (frame[0] == WUPA and c.state == HALT):
                    c.from_halt = c.state == HALT
                    c.state, c.level = READY, 0
                    woken.append(c)
                elif c.state in (READY, ACTIVE):
                    c.drop()
            if not woken:
                return None
            return (ATQA_DOUBLE, PARITY_ERR if self._damaged(woken) else 0, 0xA0)
        if len(frame) >= 2 and frame[0] in SEL:
            return self._sel(frame, SEL.index(frame[0]), tx_last_bits, rx_align, here)
        if tx_last_bits:
            self.violations.append(f"a short frame the firmware should not send: {frame.hex()} (zone {self.zone})")
            return None
        if frame == bytes([HLTA, 0x00]) + crc_a(bytes([HLTA, 0x00])):
            for c in here:
                if c.state == ACTIVE:
                    c.state, c.from_halt = HALT, False
                elif c.state == READY:
                    c.drop()
            return None
        self.violations.append(f"a frame the firmware should not send: {frame.hex()} (zone {self.zone})")
        return None

    def _sel(self, frame: bytes, level: int, tx_last_bits: int, rx_align: int,
             here: list[SimCard]) -> tuple[bytes, int, int] | None:
        nvb = frame[1]
        ready = [c for c in here if c.state == READY and c.level == level]
        if nvb == 0x70:  # SELECT
            if len(frame) != 9 or tx_last_bits or crc_a(frame[:7]) != frame[7:]:
                self.violations.append(f"a SELECT with a bad CRC_A (zone {self.zone})")
                return None
            chosen = [c for c in ready if c.cl(level) == frame[2:7]]
            for c in ready:
                if c not in chosen:
                    c.drop()
            if not chosen:
                return None
            card = chosen[0]
            if level < card.last_level():
                sak, card.level = 0x04, level + 1  # the UID goes on at the next cascade level
            else:
                sak, card.state = 0x00, ACTIVE
            body = bytes([sak]) + crc_a(bytes([sak]))
            if self._damaged([card]):
                # (the firmware leaves the chip's CRC check off: its own CRC_A check must see it)
                return body[:1] + bytes([body[1] ^ 0x5A]) + body[2:], 0, 0xA0
            return body, 0, 0xA0
        # the anticollision: the bits known so far, then each matching card's remaining bits
        known_bits = ((nvb >> 4) - 2) * 8 + (nvb & 0x0F)
        if not 0 <= known_bits < 40 or len(frame) != 2 + (known_bits + 7) // 8 or rx_align != known_bits % 8 \
                or tx_last_bits != known_bits % 8:
            self.violations.append(f"an anticollision frame of the wrong form: {frame.hex()} (zone {self.zone})")
            return None
        sent = int.from_bytes(frame[2:], "little") & ((1 << known_bits) - 1)
        answering = [c for c in ready if int.from_bytes(c.cl(level), "little") & ((1 << known_bits) - 1) == sent]
        if not answering:
            return None
        values = [int.from_bytes(c.cl(level), "little") for c in answering]
        coll_bit = None
        for bit in range(known_bits, 40):
            if len({(v >> bit) & 1 for v in values}) > 1:
                coll_bit = bit
                break
        value = values[0]
        nbits = 40 - known_bits if coll_bit is None else coll_bit - known_bits
        got = (value >> known_bits) & ((1 << nbits) - 1)  # (after a collision: cleared)
        nbytes = (rx_align + 40 - known_bits + 7) // 8
        data = (got << rx_align).to_bytes(nbytes, "little")
        if coll_bit is not None:
            # CollReg's position: the collision's bit, counted from 1 at CLn's first bit (the
            # known bits and RxAlign included, as the public drivers read it); 32 is written 0
            pos = coll_bit + 1
            return data, COLL_ERR, pos & 0x1F
        if self._damaged(answering):
            # a bit flipped on the air: the chip may see the parity fail, or not (then the BCC
            # does not match: the firmware's own check)
            if self.rng.random() < 0.5:
                return data, PARITY_ERR, 0xA0
            return bytes([data[0] ^ (1 << rx_align)]) + data[1:], 0, 0xA0
        return data, 0, 0xA0
