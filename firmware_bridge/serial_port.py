"""Opening serial ports by URL, with errors that say which device and what went wrong.

Every port is opened with :func:`serial.serial_for_url`, so a ``/dev/serial/by-id/...`` or
``/dev/tablectl/reader`` path, a pseudo-terminal, ``socket://host:port`` and ``loop://`` all
work the same way. A link uses an open port through :class:`Port`: what it needs of pyserial's
``Serial``, which an in-process line's port (:class:`firmware_bridge.virtual.VirtualPort`) has
too.
"""

from __future__ import annotations

import termios
from dataclasses import dataclass
from typing import Protocol

import serial

from firmware_bridge.errors import DeviceNotFound, LinkError

PARITIES = {"N": serial.PARITY_NONE, "E": serial.PARITY_EVEN, "O": serial.PARITY_ODD}


class Port(Protocol):
    """An open port as the links and clients use it (pyserial's ``Serial`` is one). A port whose
    device vanished raises ``serial.SerialException`` or ``OSError``."""

    @property
    def in_waiting(self) -> int:
        """Bytes received and not read yet."""

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes: what arrives within the port's timeout."""

    def write(self, data: bytes, /) -> int | None:
        """Send ``data``."""

    def reset_input_buffer(self) -> None:
        """Drop what was received and not read."""

    def close(self) -> None:
        """Close the port."""


@dataclass(frozen=True, slots=True)
class PortSettings:
    url: str
    baudrate: int = 38400
    parity: str = "E"
    bytesize: int = 8
    stopbits: int = 1
    timeout: float = 0.05  # one read waits at most this long; the link adds its own deadline


def open_port(settings: PortSettings, *, device: str) -> serial.Serial:
    """Open the port; raise :class:`DeviceNotFound` or :class:`LinkError` naming ``device``."""
    try:
        return serial.serial_for_url(
            settings.url, baudrate=settings.baudrate, parity=PARITIES[settings.parity],
            bytesize=settings.bytesize, stopbits=settings.stopbits, timeout=settings.timeout,
            write_timeout=1.0, exclusive=True if settings.url.startswith("/") else None,
        )
    except serial.SerialException as exc:
        text = str(exc)
        if "No such file" in text or "could not open port" in text and "Errno 2" in text:
            raise DeviceNotFound(f"{device}: {settings.url} not found") from exc
        raise LinkError(f"{device}: cannot open {settings.url}: {text}") from exc
    except (OSError, ValueError, termios.error) as exc:
        # termios.error: a pseudo-terminal or adapter that vanished between open and configure
        raise LinkError(f"{device}: cannot open {settings.url}: {exc}") from exc
