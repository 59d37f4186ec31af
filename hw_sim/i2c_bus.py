"""A fake smbus2 ``SMBus``: the one part of the dealer's display that cannot exist without a Pi.

The tests drive the display's drivers over it, and the in-process harness's ``unplug`` /
``plug`` steps of the display pull and plug its cable. ``tablectl simulate`` runs the daemon as
a subprocess: there the daemon's display is on a :class:`CableFileBus` (``[display] sim_cable``)
whose cable the simulator pulls and plugs from its own process (:class:`SimDisplayCable`).

It records every write as smbus2 would put it on the wire (address, then bytes) and can be told
to fail, as an unplugged display fails: ``OSError(EREMOTEIO)``, the kernel's answer to a write
no device acknowledged.

It also knows what a power cycle does (:meth:`FakeSMBus.power_cycle`): a PCF8574's port reads
its power-on 0xFF, and an SSD1306 or SH1106 forgets everything it was told (:meth:`FakeSMBus.oled`
says what the writes since power-on left it showing).
"""

from __future__ import annotations

import errno
import os
import threading
from pathlib import Path


class FakeSMBus:
    """The smbus2 calls the display's libraries make: ``write_byte`` (RPLCD, PCF8574) and
    ``write_i2c_block_data`` (luma, SSD1306/SH1106)."""

    #: keep every write (the tests read them); a daemon's bus keeps none (it runs for hours)
    record = True

    def __init__(self, address: int) -> None:
        self.address = address
        self.writes: list[tuple[int, bytes]] = []
        self.failing = False
        self.lock = threading.Lock()
        #: what the device's port reads (a PCF8574: its last write; every pin high at power-on)
        self.port = 0xFF
        #: every write since the device was powered on (what it remembers)
        self.since_power_on: list[bytes] = []

    def _cable(self) -> None:
        """Before each transaction: where the cable is (here, only ``failing`` says)."""

    def _write(self, addr: int, data: bytes) -> None:
        self._cable()
        with self.lock:
            if self.failing or addr != self.address:
                raise OSError(errno.EREMOTEIO, "Remote I/O error")
            if self.record:
                self.writes.append((addr, data))
                self.since_power_on.append(data)
            self.port = data[-1]

    def write_byte(self, addr: int, value: int) -> None:
        assert 0 <= value <= 0xFF
        self._write(addr, bytes([value]))

    def write_byte_data(self, addr: int, register: int, value: int) -> None:
        self._write(addr, bytes([register, value]))

    def write_i2c_block_data(self, addr: int, register: int, data: list[int]) -> None:
        assert len(data) <= 32  # SMBus block writes
        self._write(addr, bytes([register, *data]))

    def read_byte(self, addr: int) -> int:
        self._cable()
        with self.lock:
            if self.failing or addr != self.address:
                raise OSError(errno.EREMOTEIO, "Remote I/O error")
            return self.port

    def power_cycle(self) -> None:
        """Unplugged and plugged back between two probes: the port is at its power-on state."""
        with self.lock:
            self.port = 0xFF
            self.since_power_on.clear()

    def oled(self) -> tuple[bool, bytes]:
        """An SSD1306 or SH1106 as the writes since power-on left it: whether it is lit, and
        the display RAM written (in the order written). Their data sheets: at power-on the
        display is off (0xAE) and the charge pump off (0x8D 0x10); the panel lights when both
        display on (0xAF) and the charge pump on (0x8D 0x14) were sent. A write's first byte
        is luma's control byte: 0x00 commands, 0x40 data. (A model of the commands luma sends:
        0xAE/0xAF taken as commands wherever they appear, none of luma's arguments being one.)

        >>> bus = FakeSMBus(0x3C)
        >>> bus.write_i2c_block_data(0x3C, 0x00, [0x8D, 0x14, 0xAF]); bus.write_i2c_block_data(0x3C, 0x40, [1, 2])
        >>> bus.oled()
        (True, b'\\x01\\x02')
        >>> bus.power_cycle(); bus.oled()
        (False, b'')
        """
        with self.lock:
            writes = list(self.since_power_on)
        on = pump = False
        ram = bytearray()
        for w in writes:
            control, body = w[0], w[1:]
            if control == 0x40:
                ram += body
                continue
            for i, b in enumerate(body):
                if b in (0xAE, 0xAF):
                    on = b == 0xAF
                elif b == 0x8D and i + 1 < len(body):
                    pump = body[i + 1] == 0x14
        return on and pump, bytes(ram)

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        """The bytes written since the last take (every write's payload, in order)."""
        with self.lock:
            out = b"".join(d for _, d in self.writes)
            self.writes.clear()
        return out


class CableFileBus(FakeSMBus):
    """The fake bus of a daemon that ``tablectl simulate`` runs as a subprocess (``[display]
    sim_cable``): the simulator, in another process, pulls and plugs the display's cable by
    removing and writing the file ``path`` (:class:`SimDisplayCable`). The display answers
    while the file exists; a file written anew since the last transaction is a display that was
    off the bus in between: it powers on afresh (:meth:`FakeSMBus.power_cycle`). Only read here,
    never written. Keeps no writes.

    >>> import tempfile
    >>> cable = SimDisplayCable(Path(tempfile.mkdtemp()) / "display")
    >>> bus = CableFileBus(cable.path, 0x27)
    >>> bus.read_byte(0x27)
    Traceback (most recent call last):
    ...
    OSError: [Errno 121] Remote I/O error
    >>> cable.plug(); bus.write_byte(0x27, 0x08); hex(bus.read_byte(0x27))
    '0x8'
    >>> cable.unplug(); cable.plug(); hex(bus.read_byte(0x27))  # power-cycled: every pin high
    '0xff'
    """

    record = False

    def __init__(self, path: str | Path, address: int) -> None:
        super().__init__(address)
        self.path = Path(path)
        self._plugged_as: bytes | None = None

    def _cable(self) -> None:
        try:
            token = self.path.read_bytes()
        except OSError:  # (no file: unplugged)
            token = None
        if token is not None and token != self._plugged_as:
            self.power_cycle()
        self._plugged_as = token
        self.failing = token is None


class SimDisplayCable:
    """The simulator's end of a :class:`CableFileBus`: the display's cable, plugged while the
    file ``path`` exists. Each plug writes a new token, so that the bus can tell a display
    plugged back from one that never left."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._plugs = 0

    def plug(self) -> None:
        self._plugs += 1
        tmp = self.path.with_name(self.path.name + ".new")
        tmp.write_text(f"plugged {os.getpid()} {self._plugs}\n")
        os.replace(tmp, self.path)  # (atomic: the bus never reads half a token)

    def unplug(self) -> None:
        self.path.unlink(missing_ok=True)
