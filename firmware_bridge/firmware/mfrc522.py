# The MFRC522 (NXP's ISO/IEC 14443 A reader, the few-euro module of home tables), at its register
# level (NXP's data sheet MFRC522 rev. 3.9: "SPI interface", "Register overview", "MFRC522
# command overview"), and a zone read with it: ISO 14443A's selection loop (iso14443a.py). Pure
# logic over the board's bus (pico_board.Bus): no machine import here, so the tests run it under
# CPython against a simulated chip (hw_sim/mfrc522_chip.py).
#
# On the bus an MFRC522 shares the SPI, the reset and the decoder's chip selects with the PN5180s;
# it has no BUSY line (its multiplexer input may be left open: the firmware never looks at it
# for this zone). What can go wrong, and what this driver does about it:
# - a chip that does not answer (unpowered, unwired, dead): MISO floats, every register reads FF
#   (or 00): the version is read at init and again whenever a transceive never ends, and a chip
#   that reads nothing valid raises ChipError E01, after which the scheduler resets the chips;
# - a card's frame damaged (a parity, CRC or BCC error): the card is read again, within the
#   zone's error limit (iso14443a.inventory);
# - stale interrupt flags: every flag is cleared before each transceive, the FIFO flushed.

import iso14443a
import pn5180

# -- registers (page 0..3 of the data sheet's register overview)
COMMAND = 0x01
COM_IRQ = 0x04
DIV_IRQ = 0x05
ERROR = 0x06
FIFO_DATA = 0x09
FIFO_LEVEL = 0x0A
CONTROL = 0x0C
BIT_FRAMING = 0x0D
COLL = 0x0E
MODE = 0x11
TX_MODE = 0x12
RX_MODE = 0x13
TX_CONTROL = 0x14
TX_ASK = 0x15
RF_CFG = 0x26
T_MODE = 0x2A
T_PRESCALER = 0x2B
T_RELOAD_H = 0x2C
T_RELOAD_L = 0x2D
VERSION = 0x37

# -- commands (CommandReg)
CMD_IDLE = 0x00
CMD_TRANSCEIVE = 0x0C
CMD_SOFT_RESET = 0x0F
POWER_DOWN = 0x10  # CommandReg's PowerDown bit: set while the chip is still starting

# -- ComIrqReg bits (writing a 0 in Set1, bit 7, clears the bits written as 1)
TIMER_IRQ = 0x01
ERR_IRQ = 0x02
IDLE_IRQ = 0x10
RX_IRQ = 0x20
CLEAR_ALL = 0x7F
# -- ErrorReg bits
PROTOCOL_ERR = 0x01
PARITY_ERR = 0x02
CRC_ERR = 0x04
COLL_ERR = 0x08
BUFFER_OVFL = 0x10
# -- CollReg: CollPosNotValid, and the position (1..31; 0 means 32)
COLL_POS_NOT_VALID = 0x20
COLL_POS_MASK = 0x1F
# -- BitFramingReg: StartSend; RxAlign in bits 6..4; TxLastBits in bits 2..0
START_SEND = 0x80
# -- FIFOLevelReg: FlushBuffer
FLUSH = 0x80
# -- TxControlReg: both antenna drivers on
TX_RF_EN = 0x03
# -- the versions a chip reports: 91 (v1.0), 92 (v2.0), 88 and 12 (the clones on cheap modules);
#    anything but 00 and FF is a chip that answers
NO_CHIP = (0x00, 0xFF)

# -- the setting the firmware writes at init (the data sheet's register descriptions):
#    the timer starts at the end of each transmission (TAuto) and gives up on an answer after
#    TIMEOUT_TICKS of 25 us (13.56 MHz / (2 * 169 + 1) = 40 kHz); ASK 100 % (Force100ASK); the
#    CRC coprocessor's preset 6363 (ISO 14443A's); the receiver's gain from bridge_config
INIT = ((T_MODE, 0x80), (T_PRESCALER, 0xA9), (TX_ASK, 0x40), (MODE, 0x3D), (TX_MODE, 0x00), (RX_MODE, 0x00))
TICK_US = 25

ChipError = pn5180.ChipError
E_NO_ANSWER = pn5180.E_NO_ANSWER
E_ANTENNA = pn5180.E_ANTENNA
E_NO_CHIP = pn5180.E_NO_CHIP


class Mfrc522:
    # one zone's MFRC522 on the shared bus
    chip = "MFRC522"
    air = "ISO14443A"
    signal = "NORSSI"

    def __init__(self, bus, zone, cfg):
        self.bus = bus
        self.zone = zone
        self.cfg = cfg
        self.capacity = cfg.CAPACITY.get(zone, cfg.MFRC522_CAPACITY)
        self.ready = False

    # -- the SPI interface: an address byte, (reg << 1), with bit 7 set to read; the byte read
    #    comes out on MISO while the next address byte goes in; 00 ends a read -----------------------
    def write(self, reg, data):
        bus = self.bus
        bus.address(self.zone)
        try:
            bus.select()
            bus.write(bytes([(reg << 1) & 0x7E]) + data)
        finally:
            bus.release()

    def write_reg(self, reg, value):
        self.write(reg, bytes([value & 0xFF]))

    def read_regs(self, reg, n):
        # the same register n times (the FIFO), in one selection
        bus = self.bus
        bus.address(self.zone)
        addr = 0x80 | ((reg << 1) & 0x7E)
        try:
            bus.select()
            got = bus.transfer(bytes([addr] * n) + b"\x00")
        finally:
            bus.release()
        return got[1:]

    def read_reg(self, reg):
        return self.read_regs(reg, 1)[0]

    def set_bits(self, reg, mask):
        self.write_reg(reg, self.read_reg(reg) | mask)

    def clear_bits(self, reg, mask):
        self.write_reg(reg, self.read_reg(reg) & ~mask)

    def _check_alive(self):
        if self.read_reg(VERSION) in NO_CHIP:
            raise ChipError(E_NO_ANSWER, "zone %d" % self.zone)

    # -- the zone ----------------------------------------------------------------------------------
    def init(self):
        # after power-up or the shared reset: a chip that answers, awake, set up
        bus = self.bus
        start = bus.ticks_us()
        while True:
            version = self.read_reg(VERSION)
            if version in NO_CHIP:
                raise ChipError(E_NO_ANSWER, "zone %d" % self.zone)
            if not self.read_reg(COMMAND) & POWER_DOWN:
                break  # (its oscillator runs: the chip takes commands)
            if bus.ticks_diff(bus.ticks_us(), start) > self.cfg.BUSY_LIMIT_US:
                raise ChipError(pn5180.E_BUSY_STUCK, "zone %d: never woke" % self.zone)
        for reg, value in INIT:
            self.write_reg(reg, value)
        self.write_reg(T_RELOAD_H, (self.cfg.MFRC522_TIMEOUT_TICKS >> 8) & 0xFF)
        self.write_reg(T_RELOAD_L, self.cfg.MFRC522_TIMEOUT_TICKS & 0xFF)
        self.write_reg(RF_CFG, self.cfg.MFRC522_RX_GAIN)
        self.ready = True

    def field_on(self):
        self.set_bits(TX_CONTROL, TX_RF_EN)
        self.bus.sleep_us(self.cfg.MFRC522_GUARD_US)
        if self.read_reg(TX_CONTROL) & TX_RF_EN != TX_RF_EN:
            self.field_off()
            raise ChipError(E_ANTENNA, "zone %d" % self.zone)

    def field_off(self):
        self.clear_bits(TX_CONTROL, TX_RF_EN)

    def recover(self):
        # every card of the field back to idle: the field off, then on again
        self.field_off()
        self.bus.sleep_us(self.cfg.MFRC522_GUARD_US)
        self.field_on()

    def transceive(self, frame, tx_last_bits, rx_align):
        # One frame out and its answer in (the data sheet's Transceive command): (kind, bytes,
        # collision position), kind one of iso14443a's NONE, OK, COLLISION, ERROR. tx_last_bits:
        # the bits of the frame's last byte to send (0: all eight); rx_align: where the answer's
        # first bit goes in its first byte (the anticollision's partial byte).
        self.write_reg(COMMAND, CMD_IDLE)
        self.write_reg(COM_IRQ, CLEAR_ALL)  # stale flags cleared
        self.write_reg(FIFO_LEVEL, FLUSH)
        self.write(FIFO_DATA, frame)
        self.write_reg(COMMAND, CMD_TRANSCEIVE)
        framing = ((rx_align & 7) << 4) | (tx_last_bits & 7)
        self.write_reg(BIT_FRAMING, START_SEND | framing)
        bus = self.bus
        # the frame and an answer take this long at least (106 kbit/s: 9.44 us a bit, a byte
        # and its parity 85 us): slept, so that the bus is not polled for nothing
        bus.sleep_us(85 * len(frame))
        start = bus.ticks_us()
        while True:
            irq = self.read_reg(COM_IRQ)
            if irq & (RX_IRQ | IDLE_IRQ):
                break
            if irq & TIMER_IRQ:
                self.write_reg(BIT_FRAMING, framing)  # (StartSend off)
                return 0, b"", 0  # no answer in time: no card
            if bus.ticks_diff(bus.ticks_us(), start) > self.cfg.BUSY_LIMIT_US:
                self._check_alive()  # a chip gone says so (E01); else its timer never fired
                raise ChipError(pn5180.E_BUSY_STUCK, "zone %d: transceive never ended" % self.zone)
        self.write_reg(BIT_FRAMING, framing)
        if irq == 0xFF:
            self._check_alive()  # (MISO floating high reads every flag set)
        err = self.read_reg(ERROR)
        if err & (BUFFER_OVFL | PARITY_ERR | PROTOCOL_ERR | CRC_ERR):
            return 3, b"", 0
        n = self.read_reg(FIFO_LEVEL) & 0x7F
        data = self.read_regs(FIFO_DATA, n) if n else b""
        if err & COLL_ERR:
            coll = self.read_reg(COLL)
            if coll & COLL_POS_NOT_VALID:
                return 3, b"", 0  # (a collision outside the frame's data: nothing to split)
            pos = coll & COLL_POS_MASK
            return 2, data, pos if pos else 32
        if not n:
            return 3, b"", 0
        return 1, data, 0

    def read_zone(self, inventory=None):
        # the zone's cards: field on, ISO 14443A's selection loop, field off whatever happened.
        # ChipError for a chip that failed; (uids, complete) otherwise. (inventory: the
        # scheduler's, for a PN5180; an MFRC522 zone reads ISO 14443A's own)
        if not self.ready:
            self.init()
        self.bus.led(1)
        try:
            self.field_on()
            try:
                found = iso14443a.inventory(self, self.cfg.MFRC522_MAX_CARDS, self.cfg.MFRC522_MAX_ERRORS)
            except ChipError:
                try:
                    self.field_off()
                except ChipError:
                    pass
                raise
            self.field_off()
            return found
        finally:
            self.bus.led(0)

    def hex_uid(self, uid):
        # a UID as read (most significant byte first) -> its hex digits: 14 for a 7-byte UID
        return iso14443a.hex_uid(uid)
