# The thin layer: the Pico's pins and SPI (machine.SPI, machine.Pin), and nothing else. Every
# decision is in the pure modules (pn5180, iso15693, zone_scheduler); this file only moves pins.
# Under the tests, machine is hw_sim/micropython_board.py's fake, wired to simulated chips.

import machine


class Bus:
    # The shared SPI bus, the shared reset, the 74HC154 decoder's address and enable (the chip
    # selects) and the CD74HC4067 multiplexer's output (the addressed zone's BUSY)
    # (README.md, "Wiring"). clock: MicroPython's time (ticks_us, ticks_diff, sleep_us).

    def __init__(self, cfg, clock):
        self.cfg = cfg
        self.clock = clock
        Pin = machine.Pin
        # the enable first, high: no chip selected while the rest is set up
        self.en = Pin(cfg.PIN_EN, Pin.OUT, value=1)
        self.addr = [Pin(p, Pin.OUT, value=0) for p in cfg.PIN_ADDR]
        self.rst = Pin(cfg.PIN_RST, Pin.OUT, value=1)
        self.busy_pin = Pin(cfg.PIN_BUSY, Pin.IN, Pin.PULL_DOWN)
        self.led_pin = Pin(cfg.PIN_LED, Pin.OUT, value=0)
        self.spi = machine.SPI(cfg.SPI_ID, baudrate=cfg.SPI_BAUD, polarity=0, phase=0, bits=8,
                               firstbit=machine.SPI.MSB, sck=Pin(cfg.PIN_SCK), mosi=Pin(cfg.PIN_MOSI),
                               miso=Pin(cfg.PIN_MISO))
        self.zone = 0
        # bound methods cached once (every exchange calls them: MicroPython's speed guide): busy()
        # is BUSY's level, write(data) the SPI's write
        self.busy = self.busy_pin.value
        self.write = self.spi.write
        self.ticks_us = clock.ticks_us
        self.ticks_diff = clock.ticks_diff
        self.sleep_us = clock.sleep_us

    def address(self, zone):
        # zone N is the decoder's output N-1; changed only with the decoder disabled, so no other
        # chip sees a glitch on its select
        if zone != self.zone:
            self.en.value(1)
            n = zone - 1
            for bit in range(4):
                self.addr[bit].value((n >> bit) & 1)
            self.zone = zone

    def select(self):
        self.en.value(0)

    def release(self):
        self.en.value(1)

    def read(self, n):
        return self.spi.read(n, 0xFF)

    def transfer(self, data):
        # full duplex: what comes in while data goes out (an MFRC522's register reads)
        got = bytearray(len(data))
        self.spi.write_readinto(data, got)
        return got

    def led(self, on):
        self.led_pin.value(on)

    def reset_chips(self):
        # every select released, then the shared reset pulsed, then the chips' boot awaited
        self.en.value(1)
        self.rst.value(0)
        self.sleep_us(self.cfg.RESET_PULSE_US)
        self.rst.value(1)
        self.sleep_us(self.cfg.RESET_WAIT_US)
