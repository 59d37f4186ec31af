"""sd_notify for ``Type=notify`` units, without a dependency: one datagram per message."""

from __future__ import annotations

import os
import socket


def sd_notify(message: str) -> bool:
    """Send ``message`` (e.g. ``"READY=1"``) to systemd; False when not run by systemd."""
    addr = os.environ.get("NOTIFY_SOCKET")
    if not addr:
        return False
    if addr.startswith("@"):
        addr = "\0" + addr[1:]  # an abstract socket
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as s:
        try:
            s.connect(addr)
            s.sendall(message.encode())
        except OSError:
            return False
    return True
