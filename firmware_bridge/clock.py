"""The monotonic clock durations are measured on, and the boot it belongs to.

A Pi has no clock until NTP answers: its wall time jumps at boot, by days or years, and an
administrator may set it by hand. Wall time (``ts``) stays in every record, but a duration
(a device offline so long, a shuffler jammed so long) is measured on ``time.monotonic()``,
which only moves forward. A monotonic reading means nothing in another boot (the clock starts
again near zero), so each reading carries the boot's id: the core never subtracts readings of
two boots (docs/decisions/0012-monotonic-time.md).

>>> m, boot = monotonic()
>>> m > 0 and len(boot) == 8
True
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

#: A monotonic reading: (seconds, the boot's id).
Reading = tuple[float, str]
MonoClock = Callable[[], Reading]


def boot_id(path: str = "/proc/sys/kernel/random/boot_id") -> str:
    """Eight hex digits naming this boot (Linux's boot id); elsewhere, or should it be
    unreadable, a random id for this process: readings of two processes are then never
    compared, which only restarts a timer, never fires one early.

    >>> boot_id("/nonexistent") != boot_id("/nonexistent")
    True
    """
    try:
        with open(path, encoding="ascii") as f:
            text = f.read(64).strip().replace("-", "").lower()
    except (OSError, UnicodeDecodeError):
        text = ""
    if len(text) < 8 or any(c not in "0123456789abcdef" for c in text[:8]):
        return uuid.uuid4().hex[:8]
    return text[:8]


BOOT = boot_id()


def monotonic() -> Reading:
    """``time.monotonic()`` and this boot's id."""
    return time.monotonic(), BOOT
