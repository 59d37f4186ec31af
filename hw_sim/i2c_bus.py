"""A fake smbus2 ``SMBus``: the one part of the dealer's display that cannot exist without a Pi.

The tests drive the display's drivers over it, and the in-process harness's ``unplug`` /
``plug`` steps of the display pull and plug its cable.

It records every write as smbus2 would put it on the wire (address, then bytes) and can be told
to fail, as an unplugged display fails: ``OSError(EREMOTEIO)``, the kernel's answer to a write
no device acknowledged.

It also knows what a power cycle does (:meth:`FakeSMBus.power_cycle`): a PCF8574's port reads
its power-on 0xFF, and an SSD1306 or SH1106 forgets everything it was told (:meth:`FakeSMBus.oled`
says what the writes since power-on left it showing).
"""

from __future__ import annotations

import errno
import threading


class FakeSMBus:
    """The smbus2 calls the display's libraries make: ``write_byte`` (RPLCD, PCF8574) and
    ``write_i2c_block_data`` (luma, SSD1306/SH1106)."""

    def __init__(self, address: int) -> None:
        self.address = address
        self.writes: list[tuple[int, bytes]] = []
        self.failing = False
        self.lock = threading.Lock()
        #: what the device's port reads (a PCF8574: its last write; every pin high at power-on)
        self.port = 0xFF
        #: every write since the device was powered on (what it remembers)
        self.since_power_on: list[bytes] = []

    def _write(self, addr: int, data: bytes) -> None:
        with self.lock:
            if self.failing or addr != self.address:
                raise OSError(errno.EREMOTEIO, "Remote I/O error")
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
