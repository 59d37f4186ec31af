# The bridge board's firmware starts here: MicroPython runs main.py at power-up.
#
# The REPL shares the USB port: a 03 byte (Ctrl-C) from the host must not stop the firmware, so
# the keyboard interrupt is off before anything else runs. (To reach the REPL for maintenance:
# README.md, "Flashing".)

import micropython

micropython.kbd_intr(-1)

import random  # noqa: E402  (after kbd_intr: nothing may run with Ctrl-C still armed)
import select  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import bridge_config  # noqa: E402
import mfrc522  # noqa: E402
import pico_board  # noqa: E402
import pn5180  # noqa: E402
import zone_scheduler  # noqa: E402


def zone_chip(bus, n, cfg):
    # zone n's driver, by its chip in bridge_config.CHIPS (a PN5180 unless named)
    if cfg.CHIPS.get(n, "PN5180") == "MFRC522":
        return mfrc522.Mfrc522(bus, n, cfg)
    return pn5180.Pn5180(bus, n, cfg)


def build(cfg, clock, out):
    bus = pico_board.Bus(cfg, clock)
    zones = [zone_chip(bus, n, cfg) for n in range(1, cfg.ZONES + 1)]
    return zone_scheduler.Scheduler(zones, out, clock, random.getrandbits(32), cfg, bus.reset_chips)


def run(cfg=bridge_config, clock=time):
    stdin = sys.stdin.buffer
    stdout = sys.stdout.buffer
    poller = select.poll()
    poller.register(sys.stdin, select.POLLIN)
    board = build(cfg, clock, stdout.write)
    board.start()
    while True:
        data = b""
        while len(data) < 256 and poller.poll(0):
            byte = stdin.read(1)
            if not byte:
                break
            data += byte
        try:
            board.feed(data)
            board.step()
        except Exception:  # a bug must not stop the table's reader: said (never printed: the
            board.send("ERR", ("0", "E09", "firmware"))  # port carries frames only), and on
        if not board.running and not board.wanted:
            clock.sleep_ms(1)


run()
