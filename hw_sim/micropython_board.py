"""The bridge board under CPython: a fake ``machine`` and ``micropython``, a virtual clock, and
the board's wiring (the 74HC154 decoder's selects, the CD74HC4067's BUSY, the shared reset and
SPI bus) to simulated PN5180s (:mod:`hw_sim.pn5180_chip`).

The firmware (``firmware_bridge/firmware/``, MicroPython) runs here unchanged: its thin layer
(``pico_board.py``) drives this module's ``machine.Pin`` and ``machine.SPI`` as it drives the
Pico's. Nothing of the firmware is imported by the host's packages; :func:`firmware` loads its
files by path, with the fakes in ``sys.modules``, and takes them out again.

Time is virtual (:class:`VirtualClock`): each pin, each SPI transfer and each reading of the
clock costs what it roughly costs MicroPython on an RP2040 (:data:`COST_US`), and the chips'
air interface takes ISO 15693's times, so a cycle's length in virtual time is the protocol
document's estimate, and a BUSY that never falls runs out its limit at once in real time.

>>> board = SimBoard(zones=3)
>>> tag = board.chips[2].place("E004015012345678")
>>> with firmware(board) as fw:
...     out = bytearray()
...     sched = fw.scheduler(board, out.extend)
...     sched.start(); sched.command(b"STOP 0002 *D4A4"); sched.command(b"CYCLE 0003 *7ACD"); sched.step()
>>> [line.split(b" ")[0].decode() for line in bytes(out).splitlines()]
['HELLO', 'ZONE', 'ZONE', 'ZONE', 'OK', 'OK', 'CYCLE', 'TAGS', 'TAGS', 'TAGS', 'END']
>>> b"TAGS 0008 2 OK 1 E004015012345678" in out, board.most_fields_on, board.violations()
(True, 1, [])
"""

from __future__ import annotations

import contextlib
import importlib
import sys
import types
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from hw_sim.mfrc522_chip import SimMfrc522
from hw_sim.pn5180_chip import SimPn5180

#: where the firmware's files are (the Pico's flash, as the README's flashing copies them)
FIRMWARE_DIR = Path(__file__).resolve().parent.parent / "firmware_bridge" / "firmware"
#: the firmware's modules, in the order they may be imported
MODULES = ("bridge_config", "bridge_frames", "pn5180", "iso15693", "iso14443a", "mfrc522", "zone_scheduler",
           "pico_board")
#: what each thing costs MicroPython on an RP2040 at 125 MHz, roughly, in microseconds
COST_US = {"pin": 3.0, "spi": 25.0, "spi_byte": 1.2, "ticks": 1.0}
# (the same costs as names, read once: a bridge cycle moves pins a few million times)
_PIN_US, _SPI_US, _SPI_BYTE_US, _TICKS_US = COST_US["pin"], COST_US["spi"], COST_US["spi_byte"], COST_US["ticks"]


def _low() -> int:
    return 0


class VirtualClock:
    """MicroPython's ``time`` functions over virtual microseconds (``now_us``)."""

    def __init__(self) -> None:
        self.now_us = 0.0

    def ticks_us(self) -> int:
        self.now_us += _TICKS_US
        return int(self.now_us)

    def ticks_ms(self) -> int:
        return int(self.now_us // 1000)

    @staticmethod
    def ticks_diff(a: int, b: int) -> int:
        return a - b

    def sleep_us(self, us: float) -> None:
        self.now_us += us

    def sleep_ms(self, ms: float) -> None:
        self.now_us += ms * 1000


class SimBoard:
    """The board's wiring, as ``machine`` sees it: a chip a zone (zones 1..``zones``; a zone
    missing from ``chips`` has no chip: its BUSY reads low, its select reaches nobody).

    Records what the firmware must never do: two fields on at once (:attr:`most_fields_on`),
    the address changed while the decoder was enabled (:attr:`glitches`), and each chip's own
    :attr:`~hw_sim.pn5180_chip.SimPn5180.violations`."""

    def __init__(self, zones: int = 13, *, seed: int = 0, clock: VirtualClock | None = None,
                 pins: Any = None, mfrc522: tuple[int, ...] = ()) -> None:
        self.clock = clock or VirtualClock()
        self.zones = zones
        #: each zone's chip: a simulated PN5180, or (the zones in ``mfrc522``) a simulated MFRC522
        #: (:mod:`hw_sim.mfrc522_chip`; the firmware's configuration must say so: its CHIPS,
        #: which :meth:`Firmware.scheduler` sets from :attr:`chip_names`)
        self.chips: dict[int, Any] = {
            z: SimMfrc522(self.clock, zone=z, seed=seed) if z in mfrc522 else SimPn5180(self.clock, zone=z, seed=seed)
            for z in range(1, zones + 1)}
        self.pins: dict[int, int] = {}
        self.cfg = pins  # the firmware's bridge_config (its pin numbers), set by firmware()
        self.most_fields_on = 0
        self.glitches = 0
        self.selected: Any = None
        self._bits: dict[int, int] = {}  # address pin -> its bit (set with cfg)
        self._addr = 1  # the zone the address pins name
        #: called with the zone whenever a zone's field comes on (the simulator lays its tags)
        self.on_field: Callable[[int], None] | None = None
        self._addr_chip: Any = None  # the addressed zone's chip (``chips`` is fixed from here on)
        self._addr_busy: Callable[[], int] = _low  # its busy (the multiplexer's input)
        self._address(1)

    # -- pins ------------------------------------------------------------------------------------
    def pin_write(self, pin: int, value: int) -> None:
        self.clock.now_us += _PIN_US
        value = 1 if value else 0
        cfg = self.cfg
        before = self.pins.get(pin)
        self.pins[pin] = value
        if before == value:
            return
        if pin == cfg.PIN_RST:
            for chip in self.chips.values():
                chip.reset(low=not value)
            return
        bit = self._bits.get(pin)
        if bit is not None:
            if (before or 0) == value:
                return
            self._address(self._addr + ((1 << bit) if value else -(1 << bit)))
            if self.pins.get(cfg.PIN_EN, 1) == 0:
                self.glitches += 1
        elif pin != cfg.PIN_EN:
            return
        self._select(self._addr_chip if self.pins.get(cfg.PIN_EN, 1) == 0 else None)

    def _address(self, zone: int) -> None:
        self._addr = zone
        self._addr_chip = chip = self.chips.get(zone)
        self._addr_busy = chip.busy if chip is not None else _low

    def _select(self, chip: Any) -> None:
        """The decoder's output moved: the chip selected before is released, ``chip`` selected."""
        if chip is not self.selected:
            if self.selected is not None:
                was = self.selected
                was.select(False)
                if was.rf_on and was.last_command == 0x16:  # (a field just switched on: count those on)
                    self.most_fields_on = max(self.most_fields_on, sum(c.rf_on for c in self.chips.values()))
            self.selected = chip
            if chip is not None:
                chip.select(True)

    def pin_read(self, pin: int) -> int:
        self.clock.now_us += _PIN_US
        if pin == self.cfg.PIN_BUSY:
            return self._addr_busy()  # (the multiplexer: whatever the enable)
        return self.pins.get(pin, 0)

    def pin_value(self, pin: int) -> Callable[..., Any]:
        """``Pin(pin).value``: ``value()`` reads the pin, ``value(v)`` drives it (as
        :meth:`pin_read` and :meth:`pin_write` do). The two pins the firmware moves in every
        exchange, BUSY and the decoder's enable, get a function of their own that does the same
        in fewer steps (the clock charged alike)."""
        cfg = self.cfg
        en = cfg.PIN_EN if cfg is not None else None
        busy = cfg.PIN_BUSY if cfg is not None else None
        special = (cfg.PIN_RST, *cfg.PIN_ADDR) if cfg is not None else ()
        board, clock, pins, pin_read, pin_write = self, self.clock, self.pins, self.pin_read, self.pin_write
        if pin == busy and pin != en and pin not in special:
            def read_busy(v: int | None = None) -> int | None:
                if v is not None:
                    return pin_write(pin, v)
                clock.now_us += _PIN_US
                return self._addr_busy()
            return read_busy
        if pin == en and pin not in special:
            def drive_enable(v: int | None = None) -> int | None:
                if v is None:
                    return pin_read(pin)
                clock.now_us += _PIN_US
                value = 1 if v else 0
                if pins.get(pin) == value:
                    return None
                pins[pin] = value
                chip = None if value else board._addr_chip
                was = board.selected
                if chip is not was:  # (as _select, inline: twice an exchange)
                    if was is not None:
                        was.select(False)
                        if was.rf_on and was.last_command == 0x16:
                            board.most_fields_on = max(board.most_fields_on,
                                                       sum(c.rf_on for c in board.chips.values()))
                    board.selected = chip
                    if chip is not None:
                        chip.select(True)
                return None
            return drive_enable

        def value(v: int | None = None) -> int | None:
            if v is None:
                return pin_read(pin)
            pin_write(pin, v)
            return None
        return value

    def set_pins(self, cfg: Any) -> None:
        """The firmware's pin numbers (its bridge_config)."""
        self.cfg = cfg
        self._bits = {p: i for i, p in enumerate(cfg.PIN_ADDR)}
        self._address(sum(self.pins.get(p, 0) << i for i, p in enumerate(cfg.PIN_ADDR)) + 1)

    # -- SPI -------------------------------------------------------------------------------------
    @property
    def chip_names(self) -> dict[int, str]:
        """The zones whose chip is not a PN5180, and their chip (the firmware's CHIPS)."""
        return {z: c.chip for z, c in self.chips.items() if getattr(c, "chip", "PN5180") != "PN5180"}

    def spi_write(self, data: bytes) -> None:
        self.clock.now_us += _SPI_US + _SPI_BYTE_US * len(data)
        chip = self.selected
        if chip is not None:
            rf_was = chip.rf_on
            chip.spi_write(bytes(data))
            if rf_was:
                return
            if data[:1] == b"\x16" and self.on_field is not None:
                self.on_field(chip.zone)
            if chip.rf_on:  # (an MFRC522: its field comes on with the register write)
                self.most_fields_on = max(self.most_fields_on, sum(c.rf_on for c in self.chips.values()))
                if self.on_field is not None:
                    self.on_field(chip.zone)

    def spi_transfer(self, data: bytes) -> bytes:
        """Full duplex (``SPI.write_readinto``): an MFRC522's register reads."""
        self.clock.now_us += _SPI_US + _SPI_BYTE_US * len(data)
        if self.selected is None or not hasattr(self.selected, "spi_transfer"):
            return b"\xff" * len(data)
        return self.selected.spi_transfer(bytes(data))

    def spi_read(self, n: int, write: int = 0x00) -> bytes:
        """``SPI.read(n, write)``: ``n`` bytes clocked in (what goes out, ``write``, no chip here reads)."""
        self.clock.now_us += _SPI_US + _SPI_BYTE_US * n
        return self.selected.spi_read(n) if self.selected is not None else b"\xff" * n

    def violations(self) -> list[str]:
        return [v for chip in self.chips.values() for v in chip.violations]


def fake_machine(board: SimBoard) -> types.ModuleType:
    """A ``machine`` module whose ``Pin`` and ``SPI`` are ``board``'s."""
    m = types.ModuleType("machine")

    class Pin:
        IN, OUT, OPEN_DRAIN = 0, 1, 2
        PULL_UP, PULL_DOWN = 1, 2

        def __init__(self, pin: int, mode: int = -1, pull: int = -1, *, value: int | None = None) -> None:
            self.pin = pin
            if value is not None:
                board.pin_write(pin, value)
            #: ``value()`` reads the pin, ``value(v)`` drives it: the board's own function for it
            self.value: Callable[..., int | None] = board.pin_value(pin)

        def __call__(self, v: int | None = None) -> int | None:
            return self.value(v)

        def on(self) -> None:
            board.pin_write(self.pin, 1)

        def off(self) -> None:
            board.pin_write(self.pin, 0)

    class SPI:
        MSB, LSB = 0, 1

        def __init__(self, spi_id: int, **settings: Any) -> None:
            self.settings = settings
            #: ``write(buf)`` and ``read(n, write)``: the board's (which hands the chip ``bytes(buf)``)
            self.write: Callable[[bytes], None] = board.spi_write
            self.read: Callable[..., bytes] = board.spi_read

        def readinto(self, buf: bytearray, write: int = 0x00) -> None:
            buf[:] = board.spi_read(len(buf))

        def write_readinto(self, out: bytes, into: bytearray) -> None:
            into[:] = board.spi_transfer(bytes(out))

    m.Pin = Pin  # type: ignore[attr-defined]
    m.SPI = SPI  # type: ignore[attr-defined]
    m.unique_id = lambda: b"\xe6\x61\x41\x04\x03\x5a\x2b\x31"  # type: ignore[attr-defined]
    m.freq = lambda *a: 125000000  # type: ignore[attr-defined]
    return m


class FakeMicropython(types.ModuleType):
    """``micropython``: records each ``kbd_intr`` call (main.py must turn Ctrl-C off first)."""

    def __init__(self) -> None:
        super().__init__("micropython")
        self.kbd_intr_calls: list[int] = []

    def kbd_intr(self, char: int) -> None:
        self.kbd_intr_calls.append(char)

    @staticmethod
    def const(value: int) -> int:
        return value


class Firmware(types.SimpleNamespace):
    """The firmware's modules, loaded (:func:`firmware`), and the board they run on."""

    board: SimBoard

    def config(self, **overrides: Any) -> types.SimpleNamespace:
        """The firmware's bridge_config as a namespace, with ``overrides`` (``ZONES=3``...)."""
        base = {k: getattr(self.bridge_config, k) for k in dir(self.bridge_config) if k.isupper()}
        base["ZONES"] = self.board.zones
        return types.SimpleNamespace(**{**base, **overrides})

    def scheduler(self, board: SimBoard, out: Callable[[bytes], Any], *, boot: int = 0x2A5E11C4,
                  **overrides: Any) -> Any:
        """main.py's ``build`` on the simulated board: the bus, a driver a zone (its chip as the
        board has it: :attr:`SimBoard.chip_names`), the scheduler."""
        cfg = self.config(**{"CHIPS": board.chip_names, **overrides})
        bus = self.pico_board.Bus(cfg, board.clock)
        zones = [self.mfrc522.Mfrc522(bus, n, cfg) if cfg.CHIPS.get(n, "PN5180") == "MFRC522"
                 else self.pn5180.Pn5180(bus, n, cfg) for n in range(1, cfg.ZONES + 1)]
        return self.zone_scheduler.Scheduler(zones, out, board.clock, boot, cfg, bus.reset_chips)


@contextlib.contextmanager
def firmware(board: SimBoard) -> Iterator[Firmware]:
    """The firmware's modules, imported with this board's ``machine`` and a ``micropython``; the
    names are taken out of ``sys.modules`` again afterwards (objects built keep theirs)."""
    saved = {name: sys.modules.get(name) for name in (*MODULES, "machine", "micropython")}
    sys.modules["machine"] = fake_machine(board)
    sys.modules["micropython"] = FakeMicropython()
    sys.path.insert(0, str(FIRMWARE_DIR))
    try:
        for name in MODULES:
            sys.modules.pop(name, None)
        mods = {name: importlib.import_module(name) for name in MODULES}
        board.set_pins(mods["bridge_config"])
        yield Firmware(board=board, **mods)
    finally:
        sys.path.remove(str(FIRMWARE_DIR))
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module
