"""Card locations under RF noise: turns noisy inventory cycles into confirmed moves.

RF reads are noisy (DESIGN.md, "Never cry wolf, never miss a wolf"): an antenna misses a tag
now and then, reports a read twice, or hears a neighbour's tag at a weaker signal. So a card's
location changes only on evidence, counted in reader cycles rather than wall-clock time:

- in each cycle a tag belongs to the antenna that hears it strongest (crosstalk reaches the
  neighbour weaker);
- a tag *arrives* in a zone once that zone has been its strongest for ``confirm_cycles``
  cycles in which it was read, without a read in between that put it elsewhere;
- a tag *leaves the table* once no antenna has read it for ``gone_cycles`` cycles.

Nothing else changes a location, so a missed read, a repeated read or a crosstalk read never
reaches the outputs. With a 5 % miss rate and 1 % crosstalk, a false move needs three
consecutive cycles in which the true antenna missed and the neighbour heard the tag: about
1e-10 per card and cycle.

>>> t = Tracker(zone_of={1: "seat:1", 2: "seat:2"}.get, confirm_cycles=2, gone_cycles=3)
>>> t.cycle(1, (("T1", 1, 200),))
([], [])
>>> t.cycle(2, (("T1", 1, 200), ("T1", 2, 90)))
([('T1', None, 'seat:1')], [])
>>> t.location("T1")
'seat:1'
"""

from __future__ import annotations

from typing import Callable, Iterable

#: A move: (uid, from_zone or None when it came from off the table, to_zone).
Move = tuple[str, "str | None", str]


class _Tag:
    __slots__ = ("zone", "present", "last_seen", "cand", "streak")

    def __init__(self) -> None:
        self.zone: str | None = None  # confirmed zone (kept as the last known zone once gone)
        self.present = False  # read recently enough to be on the table
        self.last_seen = -1  # cycle of the last read
        self.cand: str | None = None  # zone gathering evidence
        self.streak = 0  # cycles of evidence for cand


class Tracker:
    """Confirmed tag locations from inventory cycles. Pure: cycles are counted, not timed."""

    def __init__(self, zone_of: Callable[[int], str | None], *, confirm_cycles: int = 3,
                 gone_cycles: int = 8) -> None:
        if confirm_cycles < 1 or gone_cycles < 1:
            raise ValueError("confirm_cycles and gone_cycles must be at least 1")
        self._zone_of = zone_of
        self.confirm_cycles = confirm_cycles
        self.gone_cycles = gone_cycles
        self._tags: dict[str, _Tag] = {}
        self._present: set[str] = set()

    def location(self, uid: str) -> str | None:
        """The confirmed zone of a tag on the table, else None."""
        t = self._tags.get(uid)
        return t.zone if t is not None and t.present else None

    def present(self) -> Iterable[str]:
        return self._present

    def forget(self, uid: str) -> None:
        t = self._tags.pop(uid, None)
        if t is not None:
            self._present.discard(uid)

    def cycle(self, cycle: int, reads: Iterable[tuple[str, int, int]]) -> tuple[list[Move], list[tuple[str, str]]]:
        """Apply one inventory cycle. Returns (moves, departures).

        ``departures`` lists ``(uid, last_zone)`` for tags that have left the table.
        Reads from antennas that feed no zone are ignored.
        """
        # The strongest antenna per tag this cycle; repeated reads collapse here.
        best: dict[str, tuple[int, str]] = {}
        zone_of = self._zone_of
        for uid, antenna, rssi in reads:
            zone = zone_of(antenna)
            if zone is None:
                continue
            b = best.get(uid)
            if b is None or rssi > b[0]:
                best[uid] = (rssi, zone)

        moves: list[Move] = []
        tags = self._tags
        confirm = self.confirm_cycles
        for uid, (_, zone) in best.items():
            t = tags.get(uid)
            if t is None:
                t = tags[uid] = _Tag()
            if cycle - t.last_seen > self.gone_cycles:
                t.cand = None  # evidence that old is stale: start again
                t.streak = 0
            t.last_seen = cycle
            if t.present and zone == t.zone:
                t.cand = None  # seen at home: any evidence for elsewhere was noise
                t.streak = 0
                continue
            if zone == t.cand:
                t.streak += 1
            else:
                t.cand = zone
                t.streak = 1
            if t.streak >= confirm:
                moves.append((uid, t.zone if t.present else None, zone))
                t.zone = zone
                t.present = True
                t.cand = None
                t.streak = 0
                self._present.add(uid)

        departures: list[tuple[str, str]] = []
        missing = self._present.difference(best)  # a C-speed set operation on the hot path
        if missing:
            limit = cycle - self.gone_cycles
            for uid in missing:
                t = tags[uid]
                if t.last_seen <= limit:
                    t.present = False
                    t.cand = None
                    t.streak = 0
                    self._present.discard(uid)
                    departures.append((uid, t.zone))  # type: ignore[arg-type]
        return moves, departures
