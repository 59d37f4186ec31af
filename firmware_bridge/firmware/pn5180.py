# The PN5180, at its command level (NXP's data sheet, "Host interface commands"), and the
# ISO 15693 air interface's requests on it. Pure logic over the board's bus (pico_board.Bus: the
# SPI, the selects, BUSY, the clock): no machine import here, so the tests run it under CPython
# against a simulated chip (hw_sim/pn5180_chip.py).
#
# What is known to go wrong with this chip elsewhere, and what this driver does about it:
# - a BUSY line that never rises or never falls (a chip that froze, as PN5180s do when a card is
#   put on or taken off): every wait has a limit, and passing it raises ChipError (E01 or E02),
#   after which the scheduler resets the chips;
# - a chip select left asserted after a timeout: every transaction releases the decoder's
#   enable in a finally, whatever went wrong (and a decoder cannot select two chips at once);
# - stale interrupt flags: the flags are cleared before every transmission, and a slot is read
#   from RX_STATUS, never from a flag an earlier command left.

# -- host interface commands
WRITE_REGISTER = 0x00
WRITE_REGISTER_OR_MASK = 0x01
WRITE_REGISTER_AND_MASK = 0x02
READ_REGISTER = 0x04
READ_EEPROM = 0x07
SEND_DATA = 0x09
READ_DATA = 0x0A
LOAD_RF_CONFIG = 0x11
RF_ON = 0x16
RF_OFF = 0x17

# -- registers
SYSTEM_CONFIG = 0x00
IRQ_STATUS = 0x02
IRQ_CLEAR = 0x03
RX_STATUS = 0x13
TX_CONFIG = 0x18
RF_STATUS = 0x1D

# -- IRQ_STATUS bits
RX_IRQ = 1 << 0
TX_IRQ = 1 << 1
RX_SOF_DET_IRQ = 1 << 14
# -- RX_STATUS bits
RX_BYTES_MASK = 0x1FF
RX_DATA_INTEGRITY_ERROR = 1 << 16
RX_PROTOCOL_ERROR = 1 << 17
RX_COLLISION_DETECTED = 1 << 18
# -- RF_STATUS: the transmitter's field is on
TX_RF_STATUS = 1 << 17
# -- SYSTEM_CONFIG's command field (bits 0..2): idle, transceive
COMMAND_MASK_CLEAR = 0xFFFFFFF8
COMMAND_TRANSCEIVE = 0x00000003
# -- TX_CONFIG: the bits that send a frame's data; cleared, SEND_DATA sends an EOF alone
TX_DATA_BITS = 0x000004C0
TX_EOF_ONLY = 0xFFFFFB3F
# -- EEPROM: the product version (2 bytes)
EEPROM_PRODUCT_VERSION = 0x10

# -- ISO 15693
FLAGS_INVENTORY_16 = 0x06   # inventory, high data rate, 16 slots
FLAGS_ADDRESSED = 0x22      # addressed, high data rate
CMD_INVENTORY = 0x01
CMD_STAY_QUIET = 0x02
RESPONSE_LEN = 10           # flags, DSFID, UID (8 bytes, least significant first); the chip strips the CRC

# -- ISO 15693's times on the air, microseconds (high data rate, 1-out-of-4): a request's byte,
#    its SOF and EOF together, an EOF alone, and t1 (a tag's wait before it answers)
BYTE_US = 302
SOF_EOF_US = 113
EOF_US = 38
T1_US = 300
ANSWER_US = 3500  # an answer of 12 bytes, from its start of frame, at least


def frame_us(n):
    # a request of n bytes on the air, its CRC (2 bytes), SOF and EOF included
    return (n + 2) * BYTE_US + SOF_EOF_US


# -- what a slot held
SILENT = 0
ONE = 1
COLLISION = 2
ERROR = 3

# -- the errors of a zone (docs/protocols/bridge.md, "Errors")
E_NO_ANSWER = ("E01", "no-answer")
E_BUSY_STUCK = ("E02", "busy-stuck")
E_RESET = ("E03", "reset")
E_ANTENNA = ("E04", "antenna")
E_INCOMPLETE = ("E05", "incomplete")
E_NO_CHIP = ("E06", "no-chip")


class ChipError(Exception):
    # a zone's chip failed: its code and name are said on the wire (ERR, and its TAGS' STATE)
    def __init__(self, error, detail=""):
        Exception.__init__(self, error[0] + " " + error[1] + (": " + detail if detail else ""))
        self.code = error[0]
        self.name = error[1]
        # the chips must be reset before this zone is spoken to again
        self.reset = error in (E_NO_ANSWER, E_BUSY_STUCK, E_NO_CHIP)


class Pn5180:
    # one zone's chip on the shared bus
    chip = "PN5180"
    air = "ISO15693"
    signal = "NORSSI"

    def __init__(self, bus, zone, cfg):
        self.bus = bus
        self.zone = zone
        self.cfg = cfg
        self.capacity = cfg.CAPACITY.get(zone, cfg.MAX_ROUNDS)
        self.ready = False  # initialised since the last reset
        self.eof_only = None  # TX_CONFIG as last written: an EOF alone (True), a frame (False), unknown

    # -- the BUSY handshake -----------------------------------------------------------------------
    def _wait_busy(self, level, limit_us, error):
        bus = self.bus
        start = bus.ticks_us()
        while bus.busy() != level:
            if bus.ticks_diff(bus.ticks_us(), start) > limit_us:
                raise ChipError(error, "zone %d" % self.zone)

    def _exchange(self, frame, read_len=0):
        # One command: its frame, then (read_len) its answer, each framed by the handshake: BUSY
        # low before the select; the frame; BUSY high (the chip has it) before the release; BUSY
        # low again (done). The select is released whatever happens.
        bus = self.bus
        cfg = self.cfg
        bus.address(self.zone)
        self._wait_busy(0, cfg.BUSY_LIMIT_US, E_BUSY_STUCK)
        try:
            bus.select()
            bus.write(frame)
            self._wait_busy(1, cfg.BUSY_RISE_US, E_NO_ANSWER)
        finally:
            bus.release()
        self._wait_busy(0, cfg.BUSY_LIMIT_US, E_BUSY_STUCK)
        if not read_len:
            return b""
        try:
            bus.select()
            data = bus.read(read_len)
            self._wait_busy(1, cfg.BUSY_RISE_US, E_NO_ANSWER)
        finally:
            bus.release()
        self._wait_busy(0, cfg.BUSY_LIMIT_US, E_BUSY_STUCK)
        return data

    # -- commands -----------------------------------------------------------------------------------
    def write_register(self, reg, value, command=WRITE_REGISTER):
        self._exchange(bytes([command, reg]) + (value & 0xFFFFFFFF).to_bytes(4, "little"))

    def or_register(self, reg, mask):
        self.write_register(reg, mask, WRITE_REGISTER_OR_MASK)

    def and_register(self, reg, mask):
        self.write_register(reg, mask, WRITE_REGISTER_AND_MASK)

    def read_register(self, reg):
        return int.from_bytes(self._exchange(bytes([READ_REGISTER, reg]), 4), "little")

    def read_eeprom(self, addr, n):
        return self._exchange(bytes([READ_EEPROM, addr, n]), n)

    def send(self, data):
        self._exchange(bytes([SEND_DATA, 0x00]) + data)

    def read_data(self, n):
        return self._exchange(bytes([READ_DATA, 0x00]), n)

    # -- the zone -----------------------------------------------------------------------------------
    def init(self):
        # after power-up or a reset: a chip that answers, its RF configuration loaded
        version = self.read_eeprom(EEPROM_PRODUCT_VERSION, 2)
        if version in (b"\xff\xff", b"\x00\x00"):
            raise ChipError(E_NO_CHIP, "zone %d" % self.zone)
        self._exchange(bytes([LOAD_RF_CONFIG, self.cfg.RF_TX_CONFIG, self.cfg.RF_RX_CONFIG]))
        self.write_register(IRQ_CLEAR, 0xFFFFFFFF)
        self.eof_only = None  # (a reset set TX_CONFIG back to its default)
        self.ready = True

    def field_on(self):
        self._exchange(bytes([RF_ON, 0x00]))
        self.bus.sleep_us(self.cfg.GUARD_US)
        if not self.read_register(RF_STATUS) & TX_RF_STATUS:
            self.field_off()
            raise ChipError(E_ANTENNA, "zone %d" % self.zone)

    def field_off(self):
        self._exchange(bytes([RF_OFF, 0x00]))

    def _arm(self, eof_only):
        # stale flags cleared, the transceiver idle then armed, the frame or its EOF alone chosen
        # (TX_CONFIG written only when it changes: 15 EOFs a round follow one frame)
        self.write_register(IRQ_CLEAR, 0xFFFFFFFF)
        self.and_register(SYSTEM_CONFIG, COMMAND_MASK_CLEAR)
        self.or_register(SYSTEM_CONFIG, COMMAND_TRANSCEIVE)
        if eof_only != self.eof_only:
            if eof_only:
                self.and_register(TX_CONFIG, TX_EOF_ONLY)
            else:
                self.or_register(TX_CONFIG, TX_DATA_BITS)
            self.eof_only = eof_only

    def _sent(self, air_us):
        # the request is on the air; returns when its transmission ended. It takes air_us at least
        # (ISO 15693's times): slept, so that the bus is not polled for nothing
        bus = self.bus
        bus.sleep_us(air_us)
        start = bus.ticks_us()
        while not self.read_register(IRQ_STATUS) & TX_IRQ:
            if bus.ticks_diff(bus.ticks_us(), start) > self.cfg.TX_LIMIT_US:
                raise ChipError(E_BUSY_STUCK, "zone %d: nothing transmitted" % self.zone)

    def _slot(self, air_us):
        # what the slot held: (SILENT | ONE | COLLISION | ERROR, the UID least significant byte first)
        bus = self.bus
        cfg = self.cfg
        self._sent(air_us)
        # No answer starts before t1; one that starts within the silent window has raised its
        # start-of-frame flag by then (the flag stays until cleared): one look tells a silent slot
        bus.sleep_us(T1_US + cfg.SLOT_SILENT_US)
        irq = self.read_register(IRQ_STATUS)
        if not irq & (RX_IRQ | RX_SOF_DET_IRQ):
            return SILENT, None
        if not irq & RX_IRQ:
            bus.sleep_us(ANSWER_US - cfg.SLOT_SILENT_US)  # an answer takes this long at least
        start = bus.ticks_us()
        while not irq & RX_IRQ:
            if bus.ticks_diff(bus.ticks_us(), start) > cfg.SLOT_LIMIT_US:
                return ERROR, None  # an answer that began and never ended: read again
            irq = self.read_register(IRQ_STATUS)
        rx = self.read_register(RX_STATUS)
        if rx & RX_COLLISION_DETECTED:
            return COLLISION, None
        n = rx & RX_BYTES_MASK
        if rx & (RX_DATA_INTEGRITY_ERROR | RX_PROTOCOL_ERROR) or n < RESPONSE_LEN:
            return ERROR, None
        data = self.read_data(RESPONSE_LEN)
        if data[0] & 0x01:  # the tag's error flag
            return ERROR, None
        return ONE, bytes(data[2:10])

    def round(self, mask_len, mask):
        # One 16-slot inventory round with the mask's mask_len low bits: [(slot, kind, uid)] of
        # the slots that held something
        n = (mask_len + 7) // 8
        self._arm(False)
        self.send(bytes([FLAGS_INVENTORY_16, CMD_INVENTORY, mask_len]) + mask.to_bytes(n, "little")[:n])
        out = []
        for slot in range(16):
            air = EOF_US
            if slot:
                self._arm(True)
                self.send(b"")
            else:
                air = frame_us(3 + n)
            kind, uid = self._slot(air)
            if kind != SILENT:
                out.append((slot, kind, uid))
        return out

    def stay_quiet(self, uid):
        # the tag of this UID (least significant byte first) answers no inventory until its
        # field goes off
        self._arm(False)
        self.send(bytes([FLAGS_ADDRESSED, CMD_STAY_QUIET]) + uid)
        self._sent(frame_us(10))
        self.bus.sleep_us(T1_US)  # the tag's time before the next request

    def read_zone(self, inventory):
        # the zone's tags: field on, the anticollision, field off whatever happened. ChipError
        # for a chip that failed; (uids, complete) otherwise
        if not self.ready:
            self.init()
        self.bus.led(1)
        try:
            self.field_on()
            try:
                found = inventory(self, self.cfg.MAX_ROUNDS, self.cfg.CONFIRM_ROUND)
            except ChipError:
                try:
                    self.field_off()  # (a frozen chip will not take it: the reset follows)
                except ChipError:
                    pass
                raise
            self.field_off()
            return found
        finally:
            self.bus.led(0)
