"""A log that a flood cannot fill: each kind of event logged once, then counted.

A noisy line, a reader at the wrong baud rate or a full disk can repeat the same warning
thousands of times a second. :class:`LogLimiter` logs the first event of a kind at once, then
at most one line per interval (60 s by the monotonic clock) saying how many of that kind came
since::

    reader: corrupt frame skipped (CRC mismatch): 24 bytes, received and computed CRC differ in 5 of 16 bits
    reader: 412 corrupt frames (CRC mismatch) in the last 60 s (413 in all)

A kind quiet for a whole interval is logged in full again at its next event. :attr:`counts`
keeps every event by kind (never reset) for the link's health figures.

:func:`describe_corrupt` turns a codec's reason for dropping bytes into a kind and a detail that
hold no byte of the stream: raw frames carry tag UIDs, and a UID with a deck manifest names the
card, so the log never carries them (docs/decisions/0014-logs-and-files.md).

>>> import logging
>>> clock = [0.0]
>>> lim = LogLimiter(logging.getLogger("doc"), prefix="reader: ", clock=lambda: clock[0])
>>> [lim.note("corrupt frames (CRC mismatch)", "first") for _ in range(3)]
[True, False, False]
>>> clock[0] = 61.0
>>> lim.pending("corrupt frames (CRC mismatch)"), lim.tick()
(2, ['reader: 2 corrupt frames (CRC mismatch) in the last 61 s (3 in all)'])
>>> lim.counts["corrupt frames (CRC mismatch)"]
3
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

#: seconds between two lines of the same kind
EVERY_S = 60.0


@dataclass
class _Kind:
    said: float  # when a line of this kind was last logged
    suppressed: int = 0  # events since, not logged
    level: int = logging.WARNING


class LogLimiter:
    """Per-kind rate limit for one device's (or one file's) warnings.

    ``prefix`` starts every summary line (``"reader: "``); the caller's own lines carry their
    prefix themselves. Thread-safe (the control socket's connection threads share one); the
    lines are logged outside the lock."""

    def __init__(self, logger: logging.Logger, *, prefix: str = "", every: float = EVERY_S,
                 clock: Callable[[], float] | None = None) -> None:
        self.log = logger
        self.prefix = prefix
        self.every = every
        # (looked up at each call by default, so that a test can move the monotonic clock)
        self.clock = clock or (lambda: time.monotonic())
        self.counts: Counter[str] = Counter()  # every event by kind, since the start
        self._kinds: dict[str, _Kind] = {}
        self._lock = threading.Lock()

    def note(self, kind: str, msg: str, *args: object, level: int = logging.WARNING,
             exc_info: bool = False) -> bool:
        """Count one event of ``kind`` (a plural phrase: ``"corrupt frames (CRC mismatch)"``).
        Logs ``msg % args`` (with the traceback being handled, if ``exc_info``) when the kind
        has been quiet for an interval (or never seen), the summary when the interval is over
        and events were held back; True when ``msg`` was logged. Arguments are only formatted
        when logged (a flood costs a counter)."""
        now = self.clock()
        due = None
        with self._lock:
            self.counts[kind] += 1
            k = self._kinds.get(kind)
            if k is None or (now - k.said >= self.every and not k.suppressed):
                self._kinds[kind] = _Kind(now, 0, level)
                first = True
            else:
                k.suppressed += 1
                k.level = max(k.level, level)
                first = False
                due = self._take(kind, k, now) if now - k.said >= self.every else None
        if first:
            # (stacklevel: the record names the caller's line, not this one)
            self.log.log(level, msg, *args, exc_info=True if exc_info else None, stacklevel=2)
        elif due is not None:
            self.log.log(*due, stacklevel=2)
        return first

    def pending(self, kind: str) -> int:
        """Events of ``kind`` held back since its last line."""
        k = self._kinds.get(kind)
        return k.suppressed if k is not None else 0

    def tick(self) -> list[str]:
        """Log the summaries that are due (events held back for a whole interval); the
        links call it once per poll so that the tail of a flood is told too. Returns them."""
        return self._summaries(due_only=True)

    def flush(self) -> list[str]:
        """Log every summary still held back, due or not (a link that stops)."""
        return self._summaries(due_only=False)

    def _summaries(self, *, due_only: bool) -> list[str]:
        now = self.clock()
        with self._lock:
            lines = [self._take(kind, k, now) for kind, k in list(self._kinds.items())
                     if k.suppressed and (not due_only or now - k.said >= self.every)]
        for level, fmt, line in lines:
            self.log.log(level, fmt, line)
        return [line for _, _, line in lines]

    def _take(self, kind: str, k: _Kind, now: float) -> tuple[int, str, str]:
        """The summary line of ``kind`` (the caller logs it, outside the lock); resets it."""
        line = f"{self.prefix}{k.suppressed} {kind} in the last {now - k.said:.0f} s ({self.counts[kind]} in all)"
        k.said, k.suppressed = now, 0
        return k.level, "%s", line


_CRC = re.compile(r"got 0x([0-9A-Fa-f]{1,4}) want 0x([0-9A-Fa-f]{1,4})")


def describe_corrupt(raw_len: int, reason: str) -> tuple[str, str]:
    """What a codec's :class:`Corrupt` report may tell the log: a kind (what was wrong first)
    and a detail (how many bytes; for a CRC mismatch, in how many bits the two CRCs differ).
    Never a byte of the stream: the codec's reason can name a length byte, and the received
    CRC is two bytes of whatever followed when the length byte was the damaged one (a UID's
    last two bytes, which with a manifest name the card). The number of differing bits still
    tells line noise (a bit or two) from a wrong baud rate (about half of them).

    >>> describe_corrupt(24, "crc mismatch: got 0x1234 want 0x1235; 24 bytes skipped")
    ('CRC mismatch', '24 bytes, received and computed CRC differ in 1 of 16 bits')
    >>> describe_corrupt(1, "length byte 224 too small")
    ('impossible length', '1 byte')
    >>> describe_corrupt(3, "truncated: 3 of 30 bytes before flush")
    ('truncated', '3 bytes')
    """
    first = reason.split(";", 1)[0].strip().lower()
    if first.startswith("crc"):
        kind = "CRC mismatch"
    elif first.startswith("truncated"):
        kind = "truncated"
    elif first.startswith("no start byte"):
        kind = "no start byte"
    elif "length" in first:
        kind = "impossible length"
    else:
        kind = "damaged"
    detail = f"{raw_len} byte{'' if raw_len == 1 else 's'}"
    m = _CRC.search(first) if kind == "CRC mismatch" else None
    if m is not None:
        bits = bin(int(m.group(1), 16) ^ int(m.group(2), 16)).count("1")
        detail += f", received and computed CRC differ in {bits} of 16 bits"
    return kind, detail
