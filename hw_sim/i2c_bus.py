"""A fake smbus2 ``SMBus``: the one part of the dealer's display that cannot exist without a Pi.

The tests drive the display's drivers over it, and the in-process harness's ``unplug`` /
``plug`` steps of the display pull and plug its cable.

It records every write as smbus2 would put it on the wire (address, then bytes) and can be told
to fail, as an unplugged display fails: ``OSError(EREMOTEIO)``, the kernel's answer to a write
no device acknowledged.
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

    def _write(self, addr: int, data: bytes) -> None:
        with self.lock:
            if self.failing or addr != self.address:
                raise OSError(errno.EREMOTEIO, "Remote I/O error")
            self.writes.append((addr, data))
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

    def close(self) -> None:
        pass

    def take(self) -> bytes:
        """The bytes written since the last take (every write's payload, in order)."""
        with self.lock:
            out = b"".join(d for _, d in self.writes)
            self.writes.clear()
        return out
