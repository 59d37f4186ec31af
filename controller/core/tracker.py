"""Card locations under RF noise: turns noisy inventory cycles into confirmed moves.

RF reads are noisy (docs/design.md, "Never cry wolf, never miss a wolf"): an antenna misses a tag
now and then, reports a read twice, or hears a neighbour's tag at a weaker signal. So a card's
location changes only on evidence, counted in reader cycles rather than wall-clock time:

- in each cycle a tag belongs to the antenna that hears it strongest (crosstalk reaches the
  neighbour weaker; of two equal reads, the one the reader reported first);
- each such cycle is evidence that the tag lies in that zone, weighed as a log-likelihood
  ratio quantised to points (docs/tracking.md): a *firm* read (at least ``FIRM_MARGIN`` over
  the antenna's level) with no other zone hearing the tag in that cycle is worth
  :data:`FIRM` points, another read at the level or over it (short of the margin, or contested
  by a second zone) :data:`WEAK`, a read under the level (crosstalk's) nothing;
- a tag *arrives* in a zone once its evidence there reaches ``2 * confirm_cycles`` points,
  without a read in between that put it elsewhere (misses neither add nor take away). Evidence
  for a zone the table expects (:meth:`Tracker.expect`: the zone the next card off the stub is
  due in, the muck for a live seat's cards) starts at a prior worth all but one firm read, so
  a firm, uncontested read there confirms in its own cycle;
- a tag *leaves the table* once no antenna has read it for ``gone_cycles`` cycles; when the
  table expects the cards to be gathered (``gather``), once every tag on the table has been
  silent for :data:`GATHER_CYCLES` cycles, all of them at once.

Nothing else changes a location, so a missed read, a repeated read or a crosstalk read never
reaches the outputs.

An antenna may see fewer cards than lie on it (its *capacity*: a cheap ISO 14443A module at a
seat reads one or two cards of a stack; docs/rules.md, "What each reader set-up can check"). In
a cycle in which such an antenna heard as many tags as it can see, its other tags went unheard
because it could not see them: they are not counted towards a departure (as a tag never is for
a cycle it was heard), so a card under two others stays where it was confirmed. In a cycle in
which the antenna heard fewer, they are misses as any other. A capacity moves nothing: a card
moves only on reads, and a card it cannot see gives none.

One UID heard at full strength in two zones in the same cycle is beyond what crosstalk explains
(crosstalk is weaker, and sporadic): two physical cards carry that tag, a cloned card
(DECK-007). After ``confirm_cycles`` such cycles the tracker lists it in :attr:`Tracker.clones`;
while the two are heard the tag makes no move, since either place could be the original's.
The budget these numbers meet (1e-9 false moves per card and hand under the simulator's standard
noise, 1e-6 under its harsh profile) is worked out in docs/tracking.md.

>>> t = Tracker(zone_of={1: "seat:1", 2: "seat:2"}.get, confirm_cycles=2, gone_cycles=3)
>>> t.cycle(1, (("T1", 1, 200),))
([], [])
>>> t.cycle(2, (("T1", 1, 200), ("T1", 2, 90)))  # heard by seat 2 too: contested, worth less
([], [])
>>> t.cycle(3, (("T1", 1, 200),))
([('T1', None, 'seat:1')], [])
>>> t.location("T1")
'seat:1'
>>> t.expect(due="seat:2")  # the next card is due at seat 2: one firm read confirms it
>>> t.cycle(4, (("T1", 1, 200), ("T2", 2, 200)))
([('T2', None, 'seat:2')], [])
"""

from __future__ import annotations

from operator import itemgetter
from collections.abc import Callable, Container, Iterable, Mapping, Sequence, Set as AbstractSet
from typing import Any

from controller.core.events import strongest

#: A move: (uid, from_zone or None when it came from off the table, to_zone).
Move = tuple[str, "str | None", str]

#: Points of evidence a firm, uncontested read is worth; a read at the antenna's level or over it
#: that is not (contested by another zone, or short of the margin), WEAK; a read under the level
#: (what crosstalk looks like) none. The threshold is ``FIRM * confirm_cycles``: ``confirm_cycles``
#: firm reads, or twice as many others.
FIRM, WEAK = 2, 1
#: A read this much over its antenna's level is firm (docs/tracking.md: a card lying on the
#: antenna reads 50 over the level on average, crosstalk 50 under it).
FIRM_MARGIN = 20
#: Cycles in which every tag on the table went unheard, once the table expects the gather,
#: before they all leave it (docs/tracking.md, "Departures").
GATHER_CYCLES = 4


class Tracker:
    """Confirmed tag locations from inventory cycles. Pure: cycles are counted, not timed."""

    # not state: the table links the zones and the levels (its configuration's) and sets the
    # expectation again from its hand (Table.from_state), so a state of an earlier release loads
    _STATE_SKIP = ("_zone_of", "_levels", "_due", "_folds", "_gather", "_capacity")

    def __init__(self, zone_of: Callable[[int], str | None], *, confirm_cycles: int = 2,
                 gone_cycles: int = 20, strong_rssi: int = 150, levels: Mapping[int, int] | None = None,
                 capacity: Mapping[int, int] | None = None) -> None:
        if confirm_cycles < 1 or gone_cycles < 1:
            raise ValueError("confirm_cycles and gone_cycles must be at least 1")
        self._zone_of = zone_of
        self.confirm_cycles = confirm_cycles
        self.gone_cycles = gone_cycles
        self._home: dict[str, str] = {}  # uid -> confirmed zone, for tags on the table
        self._home_ant: dict[str, int] = {}  # uid -> the antenna that last heard it at home
        self._home_pairs: set[tuple[str, int]] = set()  # {(uid, home antenna)}: the quiet cycle
        self._absent: dict[str, int] = {}  # uid on the table -> first cycle it went unheard
        self._cands: dict[str, tuple[str, int, int, int]] = {}  # uid -> (zone, points, last, first)
        self._since: dict[str, int] = {}  # uid -> the cycle its evidence for its zone began
        self.strong_rssi = strong_rssi  # a read at least this strong is a card lying on the antenna
        #: antenna -> its own level (``tablectl calibrate``), where it has one; else strong_rssi
        self._levels: dict[int, int] = dict(levels or {})
        #: antenna -> the most tags it can see at once, where it has a limit (module docstring)
        self._capacity: dict[int, int] = dict(capacity or {})
        self._due: str | None = None  # the zone the next card off the stub is due in
        self._folds: frozenset[str] = frozenset()  # seats whose cards may go to the muck
        self._gather = False  # the hand may be gathered now
        self._twins: dict[str, tuple[int, int]] = {}  # uid -> (cycles heard strong in two zones, last)
        #: ``(uid, (zone, zone))`` of tags found on two cards at once; the caller empties it
        self.clones: list[tuple[str, tuple[str, str]]] = []

    def set_capacity(self, capacity: Mapping[int, int]) -> None:
        """Each antenna's capacity (antenna -> the most tags it can see at once); an antenna
        left out has no limit. The configuration's, or the reader's own (a bridge board's
        handshake), whichever is less: the caller's choice."""
        self._capacity = dict(capacity)

    def location(self, uid: str) -> str | None:
        """The confirmed zone of a tag on the table, else None."""
        return self._home.get(uid)

    def since(self, uid: str) -> int:
        """The cycle in which the evidence that put ``uid`` where it is began: cards confirmed
        out of the order they were pitched in (a read missed) are put back in order by it."""
        return self._since.get(uid, 1 << 62)

    def expect(self, due: str | None = None, folds: frozenset[str] = frozenset(), gather: bool = False) -> None:
        """What the table expects next: ``due``, the zone the next card off the stub is due in
        (a seat, the burn, the board); ``folds``, the seats whose cards may go to the muck;
        ``gather``, that the hand may be over and its cards gathered. Evidence for an expected
        zone starts at a prior (the module's docstring); the gather lets silent tags leave
        together. Kept until the table says otherwise."""
        self._due, self._folds, self._gather = due, folds, gather

    def pending_arrivals(self) -> list[tuple[str, str]]:
        """``(uid, zone)`` of tags heard but not yet confirmed anywhere: cards on their way."""
        return [(u, c[0]) for u, c in self._cands.items() if u not in self._home]

    def cycle(self, cycle: int, reads: Sequence[tuple[str, int, int]],
              heard: dict[tuple[str, int], int] | None = None) -> tuple[list[Move], list[tuple[str, str]]]:
        """Apply one inventory cycle. Returns (moves, departures).

        ``heard`` maps the ``(uid, antenna)`` pairs in ``reads`` to their strongest rssi
        (:func:`controller.core.events.strongest`), if the caller has it.
        ``departures`` lists ``(uid, last_zone)`` for tags that have left the table.
        Reads from antennas that feed no zone are ignored. The lists returned may be shared
        empty lists: do not modify them.
        """
        # Every read goes through here, so the common cycles are settled with C-level set
        # operations; only the tags heard somewhere new are looked at one by one. One symmetric
        # difference finds both the home tags unheard and the reads away from home (a set's
        # with a dict's keys: C-level, on the hashes the dict keeps).
        pairs = heard if heard is not None else strongest(reads)
        home_pairs = self._home_pairs
        diff = home_pairs.copy()
        diff.symmetric_difference_update(pairs)
        # (diff is small: a few misses, a stray read.) As many pairs are heard as the home
        # pairs less those missing plus those away, so the reads away from home are counted
        # before a set is made of them: most cycles have only misses, and more of them the
        # more cards lie out.
        extra: AbstractSet[tuple[str, int]]
        missing: AbstractSet[tuple[str, int]]
        if len(pairs) - len(home_pairs) + len(diff):
            extra = diff - home_pairs
            missing = diff - extra
        else:
            extra, missing = _NO_PAIRS, diff
        if missing and self._capacity:
            missing = self._unseeable(pairs, missing)
        if self._cands or (extra and (self._twins or not self._only_crosstalk(pairs, extra))):
            return self._busy_cycle(cycle, reads, pairs, extra, missing)
        if not missing:  # every card heard at home, nothing else heard (or only crosstalk)
            if self._absent:
                self._absent = {}
            return _NOTHING
        # Only misses (and crosstalk): count them towards a departure
        gone = self._count_absent(cycle, missing)
        return (_NONE, gone) if gone else _NOTHING

    def _unseeable(self, pairs: Mapping[tuple[str, int], int],
                   missing: AbstractSet[tuple[str, int]]) -> AbstractSet[tuple[str, int]]:
        """``missing`` (home pairs unheard) less those of antennas that heard as many tags as they
        can see this cycle: the tags such an antenna could not see are not misses.

        >>> t = Tracker({1: "seat:1"}.get, capacity={1: 2})
        >>> sorted(t._unseeable({("A", 1): 200, ("B", 1): 200}, {("C", 1)})), t._unseeable({("A", 1): 200}, {("C", 1)})
        ([], {('C', 1)})
        """
        cap = self._capacity
        limited = {ant for _, ant in missing if ant in cap}
        if not limited:
            return missing
        heard: dict[int, int] = {}
        for _, ant in pairs:
            if ant in limited:
                heard[ant] = heard.get(ant, 0) + 1
        full = {ant for ant in limited if heard.get(ant, 0) >= cap[ant]}
        return {p for p in missing if p[1] not in full} if full else missing

    def _only_crosstalk(self, pairs: dict[tuple[str, int], int], extra: AbstractSet[tuple[str, int]]) -> bool:
        """True if every read away from home (``extra``) is of a tag heard at home more strongly
        in the same cycle, and under the level of its antenna if that feeds another zone: what
        crosstalk looks like, and a cycle in which the weighing of :meth:`_busy_cycle` changes
        nothing (the tag's home read is its strongest, and no second zone hears it at full
        strength). Crosstalk makes a cycle in four of a crowded table busy otherwise.

        A tag whose home pair was heard has no read away from home but those of ``extra``
        (every other pair of it is away), so its strengths are looked up in ``pairs``, not
        searched for in the reads: the more cards lie out, the more often a cycle hears
        crosstalk, and a search of every read each time would cost as the square of them."""
        home_ant, home = self._home_ant, self._home
        zone_of, level, strong_rssi = self._zone_of, self._levels.get, self.strong_rssi
        for uid, xant in extra:
            ant = home_ant.get(uid)
            at_home = pairs.get((uid, ant)) if ant is not None else None  # its strongest read at home
            if at_home is None or pairs[(uid, xant)] >= at_home:
                return False  # (equal: the read reported first is the strongest)
            zone = zone_of(xant)
            if zone is not None and zone != home[uid] and pairs[(uid, xant)] >= level(xant, strong_rssi):
                return False  # heard at full strength in a second zone (DECK-007's count)
        return True

    def _count_absent(self, cycle: int, unheard: Iterable[tuple[str, int]],
                      heard: Container[str] = ()) -> list[tuple[str, str]]:
        """Note which tags on the table went unheard this cycle (their home pairs ``unheard``,
        less the tags ``heard`` elsewhere); return those now gone.

        The map of unheard tags is rebuilt each cycle from the few missing this time, so a tag
        heard again drops out of it without a search. A plain loop, the earliest noted as it
        goes: every cycle with a miss comes here, and most of them end at its first test
        (nobody unheard for long, no gather).
        """
        prev = self._absent
        absent = self._absent = {}
        first = cycle
        for uid, _ in unheard:
            if uid not in heard:
                since = absent[uid] = prev.get(uid, cycle)
                if since < first:
                    first = since
        if not absent or (first > cycle + 1 - self.gone_cycles and not self._gather):
            return _NONE
        return self._departures(cycle, absent, first)

    def _departures(self, cycle: int, absent: dict[str, int], first: int) -> list[tuple[str, str]]:
        """The tags of ``absent`` (not empty: uid -> first cycle unheard; ``first``, the
        earliest) now gone, taken off."""
        limit = cycle + 1 - self.gone_cycles
        if first <= limit:
            gone = [uid for uid, first in absent.items() if first <= limit]
        elif self._gather and len(absent) == len(self._home):
            gone = []
        else:
            return _NONE  # (the common case: nobody unheard for long, no gather)
        if self._gather and len(absent) == len(self._home) \
                and max(absent.values()) <= cycle + 1 - GATHER_CYCLES:
            gone = list(absent)  # the gather: every card of the table silent together
        if not gone:
            return _NONE
        departures = []
        for uid in sorted(gone):
            departures.append((uid, self._home[uid]))
            self._leave(uid)
        return departures

    def _count_twins(self, cycle: int, twins: dict[str, tuple[str, str]]) -> None:
        """Count the cycles in which a tag was heard strong in two zones (a cloned card)."""
        stale = cycle - self.gone_cycles
        for uid in [u for u, (_, last) in self._twins.items() if last < stale and u not in twins]:
            del self._twins[uid]
        for uid, zones in sorted(twins.items()):
            prev = self._twins.get(uid)
            n = prev[0] + 1 if prev is not None and prev[1] >= stale else 1  # (stale: not swept yet)
            self._twins[uid] = (n, cycle)
            if n == self.confirm_cycles:
                home = self._home.get(uid)
                pair = (home, zones[1] if zones[0] == home else zones[0]) if home in zones else zones
                self.clones.append((uid, pair))

    def _leave(self, uid: str) -> None:
        del self._home[uid]
        self._since.pop(uid, None)
        self._home_pairs.discard((uid, self._home_ant.pop(uid)))
        self._absent.pop(uid, None)
        self._cands.pop(uid, None)

    def _settle_home(self, uid: str, zone: str, ant: int) -> None:
        old = self._home_ant.get(uid)
        if old is not None:
            self._home_pairs.discard((uid, old))
        self._home[uid] = zone
        self._home_ant[uid] = ant
        self._home_pairs.add((uid, ant))

    def _busy_cycle(self, cycle: int, reads: Sequence[tuple[str, int, int]], pairs: dict[tuple[str, int], int],
                    extra: AbstractSet[tuple[str, int]],
                    unheard: AbstractSet[tuple[str, int]]) -> tuple[list[Move], list[tuple[str, str]]]:
        """A cycle in which some tag was heard away from home (an arrival, a move, crosstalk)
        or some tag is gathering evidence: those tags are weighed read by read.

        In four steps, each a loop over the tags or reads concerned (a few calls a busy cycle,
        never one a read: measured in bench/core_throughput.py, docs/decisions/0037)."""
        cands = self._cands
        if cands:
            # Evidence gone stale (a stray read of a card in the stub, say) is dropped, so
            # that quiet cycles take the fast path again.
            stale = cycle - self.gone_cycles
            for uid in [u for u, c in cands.items() if c[2] < stale]:
                del cands[uid]
        best, twins, contested = self._strongest(self._watched_reads(reads, pairs, extra))
        if twins or self._twins:
            self._count_twins(cycle, twins)
        moves = self._weigh(cycle, best, contested)
        # Tags on the table not heard at home, less those heard elsewhere, went unheard
        # (a watched tag may be gathering evidence yet not heard at all this cycle).
        # (``unheard`` was taken before the moves: a tag that moved was heard, and is in ``best``)
        return moves, self._count_absent(cycle, unheard, best)

    def _watched_reads(self, reads: Sequence[tuple[str, int, int]], pairs: dict[tuple[str, int], int],
                       extra: AbstractSet[tuple[str, int]]) -> list[tuple[str, int, int]]:
        """The reads of the tags heard away from home or gathering evidence."""
        cands = self._cands
        watch = {uid for uid, _ in extra}
        if cands:
            watch.update(cands)
        # The watched tags' reads: every pair of theirs away from home is in ``extra``, the rest
        # is their home pair, so they are looked up in ``pairs`` rather than searched for among
        # the reads (the more cards lie out, the more reads a search goes through). Two reads of
        # one tag at one strength, or a pair reported twice, need the reader's order: then the
        # reads are searched as they came.
        mine = [(uid, ant, pairs[(uid, ant)]) for uid, ant in extra]
        home_ant = self._home_ant
        for uid in watch:
            ant = home_ant.get(uid)
            if ant is not None and (rssi := pairs.get((uid, ant))) is not None:
                mine.append((uid, ant, rssi))
        if len(pairs) < len(reads) or (len(mine) > 1 and len({(uid, rssi) for uid, _, rssi in mine}) < len(mine)):
            mine = [r for r in reads if r[0] in watch][::-1]
        return mine

    def _strongest(self, mine: list[tuple[str, int, int]]) \
            -> tuple[dict[str, tuple[str, int, int, int]], dict[str, tuple[str, str]], set[str]]:
        """The strongest antenna per watched tag (uid -> zone, antenna, rssi, its level), the tags
        heard at full strength in two zones (twins) and those heard in two zones (contested)."""
        # Sorted weakest first, so stronger overwrites; (searched) reversed first, so that of two
        # equal reads the one the reader reported first wins.
        zone_of = self._zone_of
        best: dict[str, tuple[str, int, int, int]] = {}
        strong: dict[str, str] = {}  # uid -> a zone that heard it at full strength
        twins: dict[str, tuple[str, str]] = {}
        contested: set[str] = set()  # tags heard in two zones or more this cycle
        strong_rssi = self.strong_rssi
        level = self._levels.get
        for uid, ant, rssi in sorted(mine, key=_RSSI):
            zone = zone_of(ant)
            if zone is not None:
                was = best.get(uid)
                if was is not None and was[0] != zone:
                    contested.add(uid)
                floor = level(ant, strong_rssi)
                best[uid] = (zone, ant, rssi, floor)
                if rssi >= floor:
                    other = strong.setdefault(uid, zone)
                    if other != zone:
                        twins[uid] = (other, zone)
        return best, twins, contested

    def _weigh(self, cycle: int, best: dict[str, tuple[str, int, int, int]], contested: set[str]) -> list[Move]:
        """Each watched tag's evidence for where it was heard strongest; the tags that reached the
        target moved there."""
        home, cands = self._home, self._cands
        target = FIRM * self.confirm_cycles
        prior = target - FIRM  # an expected zone: one firm read short of the target
        due, folds = self._due, self._folds
        moves: list[Move] = []
        for uid in sorted(best):
            zone, ant, rssi, floor = best[uid]
            if uid in self._twins:
                cands.pop(uid, None)  # a cloned tag: neither place is evidence of a move
                continue
            if home.get(uid) == zone:
                cands.pop(uid, None)  # strongest at home: any evidence for elsewhere was noise
                if self._home_ant[uid] != ant:
                    self._settle_home(uid, zone, ant)  # another antenna of the same zone
                continue
            points = 0 if rssi < floor else FIRM if uid not in contested and rssi >= floor + FIRM_MARGIN else WEAK
            c = cands.get(uid)
            if c is not None and c[0] == zone and cycle - c[2] <= self.gone_cycles:
                points, first = c[1] + points, c[3]
            else:  # new evidence, or evidence gone stale while unheard: the prior, if expected
                now = home.get(uid)
                if (zone == due and now is None) or (zone == "muck" and now in folds):
                    points += prior
                first = cycle
            if points >= target:
                cands.pop(uid, None)
                moves.append((uid, home.get(uid), zone))
                self._settle_home(uid, zone, ant)
                self._since[uid] = first
            else:
                cands[uid] = (zone, points, cycle, first)
        return moves

_RSSI = itemgetter(2)
_NONE: list[Any] = []  # shared; callers only read it
_NO_PAIRS: frozenset[tuple[str, int]] = frozenset()
_NOTHING: tuple[list[Move], list[tuple[str, str]]] = (_NONE, _NONE)
