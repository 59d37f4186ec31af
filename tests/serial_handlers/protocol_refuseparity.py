"""``refuseparity:///dev/pts/N``: a real pseudo-terminal behind a port that refuses parity.

A pseudo-terminal accepts any parity, but some USB-serial adapters do not: their driver fails
``tcsetattr`` with EINVAL when asked for PARENB. This handler is pyserial's own POSIX port,
opening the real pseudo-terminal and configuring it with pyserial's own code; only the
``termios.tcsetattr`` that code calls is wrapped, and it fails like such a driver when the
settings ask for a parity bit (and applies them otherwise).
"""

from __future__ import annotations

import errno
import termios
import threading
from typing import Any

import serial.serialposix

_SWAP = threading.Lock()


class _RefusingTermios:
    """The ``termios`` module, but ``tcsetattr`` refuses PARENB."""

    def __getattr__(self, name: str) -> Any:
        return getattr(termios, name)

    @staticmethod
    def tcsetattr(fd: int, when: int, attributes: list[Any]) -> None:
        if attributes[2] & termios.PARENB:
            raise termios.error(errno.EINVAL, "Invalid argument")
        termios.tcsetattr(fd, when, attributes)


class Serial(serial.serialposix.Serial):
    """pyserial's POSIX port on the path after ``refuseparity://``."""

    def open(self) -> None:
        if self.portstr.startswith("refuseparity://"):
            self.portstr = self.portstr[len("refuseparity://"):]
        super().open()

    def _reconfigure_port(self, force_update: bool = False) -> None:
        with _SWAP:
            serial.serialposix.termios = _RefusingTermios()  # type: ignore[assignment]
            try:
                super()._reconfigure_port(force_update)
            finally:
                serial.serialposix.termios = termios
