"""Bounded exponential backoff for reconnecting to a device that vanished.

>>> b = Backoff(initial=0.1, maximum=1.0)
>>> [b.next() for _ in range(6)]
[0.1, 0.2, 0.4, 0.8, 1.0, 1.0]
>>> b.reset(); b.next()
0.1
"""

from __future__ import annotations


class Backoff:
    """Delays that double from ``initial`` up to ``maximum`` and stay there."""

    def __init__(self, initial: float = 0.05, maximum: float = 2.0, factor: float = 2.0) -> None:
        self.initial, self.maximum, self.factor = initial, maximum, factor
        self._next = initial

    def next(self) -> float:
        delay = self._next
        self._next = min(self.maximum, round(self._next * self.factor, 6))
        return delay

    def reset(self) -> None:
        self._next = self.initial
