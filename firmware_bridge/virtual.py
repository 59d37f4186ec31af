"""A serial line in process: python-can's virtual bus, for a stream of bytes.

The in-process harness (:mod:`hw_sim.harness`) and the tests put a simulated device at one
end of a :class:`VirtualLine` and a device link at the other, with no pseudo-terminal between
them. The link's end is a port like pyserial's (:class:`VirtualPort`), given by
:meth:`VirtualLine.open_port`: the link's ``opener``
(:class:`firmware_bridge.device_link.DeviceLink`). The device's end is what a
``hw_sim.pty_device.PtyDevice`` is to a simulated device: ``write``, ``read``, and
``open``/``close`` for the cable plugged in and pulled out.

A byte the link writes is handed at once to ``receive``, if it is set: the simulated device
answers in the same call, so one thread plays both ends and a cycle costs no waiting. Without
``receive`` the bytes wait in the line for the device's :meth:`VirtualLine.read` (a simulated
device in its own thread). What the device writes waits in the line for the link to read it;
pulling the cable loses whatever was on the line, and the link's next read or write fails as
with a vanished USB adapter (``serial.SerialException``).

>>> line = VirtualLine("reader")
>>> line.receive = lambda data: line.write(data.upper())  # a device that answers in capitals
>>> port = line.open_port()                               # what a link's opener gives it
>>> port.write(b"ping"), port.in_waiting, port.read(16)
(4, 4, b'PING')
>>> line.close()                                          # the cable pulled
>>> port.read(1)
Traceback (most recent call last):
...
serial.serialutil.SerialException: reader: device unplugged
>>> line.open_port()
Traceback (most recent call last):
...
firmware_bridge.errors.LinkError: reader: device unplugged
>>> line.open(); line.open_port().in_waiting               # plugged back in: nothing on the line
0
"""

from __future__ import annotations

import threading
from collections.abc import Callable

import serial

from firmware_bridge.errors import LinkError

__all__ = ["VirtualLine", "VirtualPort"]


class VirtualLine:
    """An in-process serial line named ``name`` (the device's, for the messages), plugged in.

    ``receive``: called with every piece the link writes, in the link's call (None: the pieces
    wait for :meth:`read`). Thread-safe.
    """

    def __init__(self, name: str, receive: Callable[[bytes], None] | None = None) -> None:
        self.name = name
        self.receive = receive
        self.is_open = True  # the cable is in
        self._to_host = bytearray()
        self._to_device = bytearray()
        self._lock = threading.Condition()

    # -- the device's end ----------------------------------------------------------------------
    def open(self) -> None:
        """The cable plugged (back) in."""
        with self._lock:
            self.is_open = True

    def close(self) -> None:
        """The cable pulled out: what was on the line is lost."""
        with self._lock:
            self.is_open = False
            self._to_host.clear()
            self._to_device.clear()
            self._lock.notify_all()

    def write(self, data: bytes) -> None:
        """The device sends ``data`` to the link (lost if the cable is out)."""
        with self._lock:
            if self.is_open:
                self._to_host += data

    def read(self, timeout: float) -> bytes:
        """What the link has written (when no ``receive`` took it), waiting up to ``timeout``
        seconds for some; b"" when none came."""
        with self._lock:
            self._lock.wait_for(lambda: self._to_device or not self.is_open, timeout)
            data = bytes(self._to_device)
            self._to_device.clear()
            return data

    # -- the link's end ------------------------------------------------------------------------
    def open_port(self) -> VirtualPort:
        """The link's port, as ``firmware_bridge.serial_port.open_port`` gives a real one: a
        cable that is out is a :class:`firmware_bridge.errors.LinkError`."""
        if not self.is_open:
            raise LinkError(f"{self.name}: device unplugged")
        return VirtualPort(self)

    def _from_host(self, data: bytes) -> None:
        receive = self.receive
        if receive is not None:
            receive(data)  # (outside the lock: the device answers through write())
            return
        with self._lock:
            self._to_device += data
            self._lock.notify_all()

    def _take(self, size: int) -> bytes:
        with self._lock:
            buf = self._to_host
            out = bytes(buf[:size])
            del buf[:size]
            return out

    def _waiting(self) -> int:
        return len(self._to_host)

    def _clear(self) -> None:
        with self._lock:
            self._to_host.clear()


class VirtualPort:
    """The link's end of a :class:`VirtualLine`: as much of a pyserial port as the links use.
    A read never waits: what the device has sent, up to ``size`` bytes, or b"". Once the cable is
    out, reads and writes raise ``serial.SerialException``, as a vanished adapter's do."""

    def __init__(self, line: VirtualLine) -> None:
        self.line = line
        self.is_open = True

    def _check(self) -> None:
        if not self.line.is_open:
            raise serial.SerialException(f"{self.line.name}: device unplugged")
        if not self.is_open:
            raise serial.SerialException("Attempting to use a port that is not open")

    def write(self, data: bytes) -> int:
        self._check()
        self.line._from_host(bytes(data))
        return len(data)

    @property
    def in_waiting(self) -> int:
        self._check()
        return self.line._waiting()

    def read(self, size: int = 1) -> bytes:
        self._check()
        return self.line._take(size)

    def reset_input_buffer(self) -> None:
        self.line._clear()

    def close(self) -> None:
        self.is_open = False
