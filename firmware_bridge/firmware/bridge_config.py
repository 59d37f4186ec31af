# The bridge board's wiring and limits: the one file a builder edits (README.md, "Wiring").
#
# MicroPython on a Raspberry Pi Pico. Zones are numbered 1..ZONES; zone N is the PN5180 whose
# chip select (NSS) is output Y(N-1) of the 74HC154 decoder and whose BUSY is input I(N-1) of
# the CD74HC4067 multiplexer. Reset and the SPI bus are shared by every chip
# (docs/decisions/0042-the-bridge-board.md).

# -- SPI0, shared by every chip (the PN5180 takes up to 7 MHz; mode 0, most significant bit first)
SPI_ID = 0
SPI_BAUD = 7000000
PIN_SCK = 18
PIN_MOSI = 19
PIN_MISO = 16

# -- the shared reset (RST of every PN5180, active low)
PIN_RST = 20

# -- the 74HC154's address inputs A..D and the CD74HC4067's S0..S3, wired to the same four pins
PIN_ADDR = (10, 11, 12, 13)
# -- the 74HC154's enable G1 (active low; G2 tied to ground): high = no chip selected
PIN_EN = 14
# -- the CD74HC4067's common output SIG: the addressed zone's BUSY (its EN tied to ground)
PIN_BUSY = 15
# -- the Pico's own LED: lit while a zone's field is on
PIN_LED = 25

# -- the zones: how many, and each zone's chip (a zone not named here is a PN5180), e.g.
#    CHIPS = {1: "MFRC522", 2: "MFRC522"} for two seats with MFRC522 modules (NTAG213 stickers)
ZONES = 13
CHIPS = {}
# -- how many cards each zone can see at once, said in the handshake (ZONE's CAPACITY): a zone
#    not named here says its chip's own (a PN5180: MAX_ROUNDS; an MFRC522: MFRC522_CAPACITY).
#    Measure it: stack cards on the spot until `tablectl tags` stops hearing them all
CAPACITY = {}

# -- the limits of every wait, in microseconds (a BUSY wait past its limit resets the chips)
BUSY_RISE_US = 2000     # BUSY must rise this soon after a command's frame: else E01 no-answer
BUSY_LIMIT_US = 25000   # BUSY must fall this soon after: else E02 busy-stuck
TX_LIMIT_US = 8000      # a request must be on the air within this: else E02
SLOT_SILENT_US = 300    # a slot with no start of frame heard within this after t1 is silent (t3: 380 us after EOF)
SLOT_LIMIT_US = 8000    # a slot whose answer began must end within this: else read again
GUARD_US = 1000         # after the field comes on, before the first request (ISO 15693: 1 ms)
RESET_PULSE_US = 100    # the reset pulse (the PN5180 needs 10 us at least)
RESET_WAIT_US = 3000    # after a reset, before the chips are spoken to (they boot in about 2 ms)

# -- the anticollision: rounds a zone may take (then E05 incomplete), and whether a zone that
#    found tags reads once more with every tag read quiet (a tag a stronger one hid then answers)
MAX_ROUNDS = 64
CONFIRM_ROUND = True

# -- an MFRC522 zone: the cards its module reads in a stack (a cheap module's antenna reads one or
#    two), the most it reads in a cycle (then E05), the damaged frames it reads again in a cycle
#    (then E05), its timer's limit on a card's answer (25 us ticks: 1 ms, the longest frame delay
#    of ISO 14443A being 5 ms only for commands the firmware does not send), the receiver's gain
#    (RFCfgReg: 0x70, 48 dB) and the time a card takes to wake in a new field (ISO/IEC 14443-3: 5 ms)
MFRC522_CAPACITY = 2
MFRC522_MAX_CARDS = 8
MFRC522_MAX_ERRORS = 4
MFRC522_TIMEOUT_TICKS = 40
MFRC522_RX_GAIN = 0x70
MFRC522_GUARD_US = 5000

# -- the transmitter's level, by RF configuration (LOAD_RF_CONFIG's TX and RX numbers: 0x0D and
#    0x8D are ISO 15693, 26 kbit/s, ASK 100 %); the range that keeps a zone off its neighbours'
#    cards is set by the antenna and this (README.md, "Crosstalk")
RF_TX_CONFIG = 0x0D
RF_RX_CONFIG = 0x8D

# -- the heartbeat, milliseconds
HEARTBEAT_MS = 1000

# -- what the board says it is (HELLO's IDENT)
IDENT = "tablectl-bridge/0.1"
