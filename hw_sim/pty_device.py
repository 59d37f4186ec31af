"""A simulated serial device on a real pseudo-terminal.

The daemon opens the pseudo-terminal's slave side exactly as it opens ``/dev/ttyUSB0``: with
pyserial, through a path. Like udev's ``/dev/tablectl/reader``, :class:`PtyDevice` keeps a
stable symlink to the current slave, so that unplugging (closing the pseudo-terminal) and
plugging back in (a new one, at a new ``/dev/pts/N``) look to the daemon like a USB cable
pulled and pushed back.

A pseudo-terminal has no parity bit. Linux drops PARENB when the host first configures 8E1,
and then refuses it (EINVAL) the next time the same pseudo-terminal is opened, so every
simulated setup configures ``parity = "N"``; the 8E1 default stays for real readers.

>>> import tempfile, pathlib
>>> link = pathlib.Path(tempfile.mkdtemp()) / "reader"
>>> with PtyDevice(link) as dev:
...     link.exists()
True
>>> link.exists()
False
"""

from __future__ import annotations

import os
import select
import threading
import tty
from pathlib import Path
from typing import Protocol


class DeviceEnd(Protocol):
    """The device's end of a line, as a simulated device uses it: a :class:`PtyDevice`, or a
    ``firmware_bridge.virtual.VirtualLine`` in process (the in-process harness's)."""

    @property
    def is_open(self) -> bool:
        """The cable is in."""

    def open(self) -> None:
        """Plug in."""

    def close(self) -> None:
        """Unplug."""

    def read(self, timeout: float) -> bytes:
        """Whatever the host has written, waiting up to ``timeout`` s; b"" when none."""

    def write(self, data: bytes) -> None:
        """Send ``data`` to the host (lost when unplugged)."""


class PtyDevice:
    """The device end (the master) of a pseudo-terminal, reachable at ``link``."""

    def __init__(self, link: Path | str) -> None:
        self.link = Path(link)
        self._master: int | None = None
        self._slave: int | None = None
        self.slave_name: str | None = None

    # -- plugging ----------------------------------------------------------------------------
    def open(self) -> None:
        """Plug in: a fresh pseudo-terminal, the symlink pointed at its slave."""
        if self._master is not None:
            return
        master, slave = os.openpty()
        # Raw at once: until the daemon opens and configures it, the line discipline would
        # otherwise echo our answers back to us and mangle bytes.
        tty.setraw(slave)
        self._master, self._slave = master, slave
        self.slave_name = os.ttyname(slave)
        tmp = self.link.with_name(self.link.name + ".new")
        tmp.unlink(missing_ok=True)
        tmp.symlink_to(self.slave_name)
        os.replace(tmp, self.link)  # atomic, as udev would make it

    def close(self) -> None:
        """Unplug: the symlink goes, and the daemon's open port starts failing."""
        self.link.unlink(missing_ok=True)
        for fd in (self._master, self._slave):
            if fd is not None:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._master = self._slave = None

    @property
    def is_open(self) -> bool:
        return self._master is not None

    def __enter__(self) -> PtyDevice:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- bytes -------------------------------------------------------------------------------
    def read(self, timeout: float) -> bytes:
        """Whatever the host has written, waiting up to ``timeout`` s; b"" when none."""
        fd = self._master
        if fd is None:
            return b""
        try:
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                return b""
            return os.read(fd, 4096)
        except OSError:
            return b""  # unplugged under us, or the host side is not open yet

    def write(self, data: bytes) -> None:
        fd = self._master
        if fd is None:
            return
        view = memoryview(data)
        while view:
            try:
                n = os.write(fd, view)
            except BlockingIOError:
                select.select([], [fd], [], 0.1)
                continue
            except OSError:
                return
            view = view[n:]


class SimDevice:
    """A simulated device answering its host on a :class:`PtyDevice` (any :class:`DeviceEnd`)
    from its own thread.

    Subclasses write :meth:`_run` (loop until ``self._stop`` is set) and, if they hold a
    half-received frame or half-sent answer, :meth:`_line_lost` to forget it when unplugged.
    """

    thread_name = "sim-device"

    def __init__(self, device: DeviceEnd) -> None:
        self.device = device
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()

    def _run(self) -> None:
        raise NotImplementedError

    def _line_lost(self) -> None:
        """The cable came out: whatever was half-way through the line is gone."""

    def start(self) -> None:
        self.device.open()
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=2)
        self.device.close()

    def unplug(self) -> None:
        """The USB cable comes out: the pseudo-terminal closes."""
        self._line_lost()
        self.device.close()

    def plug(self) -> None:
        """The cable goes back in: a new pseudo-terminal at the same symlink."""
        self.device.open()

    def __enter__(self):  # type: ignore[no-untyped-def]
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
