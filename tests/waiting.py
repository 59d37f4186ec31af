"""Waiting in tests: on a condition, with a deadline, never on a bare sleep.

>>> wait_until(lambda: True, what="nothing")
>>> wait_for(lambda: False, timeout=0.01)
False
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

#: every deadline is this many times what a test names: a deadline is what a busy machine (both
#: cores held, the whole suite beside it) may take, and costs nothing when the condition comes
#: early; ``TABLECTL_TEST_PATIENCE`` sets it (a slow board: more)
PATIENCE = float(os.environ.get("TABLECTL_TEST_PATIENCE", "3"))


def wait_for(predicate: Callable[[], object], timeout: float = 10.0, poll: float = 0.005) -> bool:
    """Poll ``predicate`` until it holds (True) or ``timeout`` seconds pass (False). For what no
    thread signals: a file another process writes, a pin's recorded states."""
    deadline = time.monotonic() + timeout * PATIENCE
    tick = threading.Event()
    while not predicate():
        if time.monotonic() >= deadline:
            return bool(predicate())
        tick.wait(poll)
    return True


def wait_until(predicate: Callable[[], object], timeout: float = 10.0, *, what: str = "the condition") -> None:
    """As :func:`wait_for`, failing the test when the deadline passes."""
    assert wait_for(predicate, timeout), f"timed out after {timeout * PATIENCE:g} s waiting for {what}"


def elapse(seconds: float) -> None:
    """Let real time pass where the time itself is the input (contact bounce spread out over
    milliseconds), not a wait for something to happen."""
    threading.Event().wait(seconds)
