"""The cheap set-up, simulated: two-card seat spots and no muck antenna (issue 40).

A home table's seats may each have a cheap ISO 14443A module (a PN532 or an MFRC522 on the
bridge board) that reads one or two cards of a stack, and no antenna under the muck. This reader
plays that table for the tracker: the FEIG reader's protocol and noise (:mod:`hw_sim.feig_reader`),
over a field in which

- a seat's or the burn's spot hears at most :data:`CAPACITY` of the cards lying on it: the ones
  laid on it last (a card pitched on a seat lands on top of the cards already there, nearest the spot's
  reach: the model's assumption; a spot that hears the bottom cards instead would never hear a
  third card, and the seats' counts could not be checked at all);
- nothing in the muck is heard: there is no antenna under it.

The daemon's configuration gets ``[reader] muck_antenna = false``, the seats' capacity in
``[reader.capacity]`` and an ``[antennas]`` map without the muck (:data:`READER_LINES`).

>>> from firmware_bridge.virtual import VirtualLine
>>> r = SimSpotsReader(VirtualLine("r"), antennas=range(1, 14))
>>> for n, key in enumerate(["As", "Kd", "Qc"]):
...     r.place(key, f"E00401500000000{n}", 3)
>>> r.place("2h", "E004015000000009", 13)
>>> sorted(uid for uid, ant in r.field())
['E004015000000001', 'E004015000000002']
"""

from __future__ import annotations

import itertools

from hw_sim.feig_reader import CycleReads, SimFeigReader

#: the cards a seat's or the burn's spot hears at once (antennas 1..10, 12); the board (11) is one
#: antenna that hears its five cards, standing for five spots of a card each (a zone may be fed by
#: several antennas: the tracker needs nothing more)
CAPACITY = 2
SEAT_ANTENNAS = range(1, 11)
LIMITED = (*SEAT_ANTENNAS, 12)
#: where the scripted dealer lays the muck's cards (hw_sim.setup.ANTENNA_OF): no antenna there
MUCK_ANTENNA = 13

#: the daemon's [reader] lines for this table, and the sections after them
READER_LINES = ("answer_timeout = 1.0\nmuck_antenna = false\n\n[reader.capacity]\n"
                + "".join(f"{a} = {CAPACITY}\n" for a in LIMITED)
                + "\n[antennas]\n" + "".join(f'{a} = "seat:{a}"\n' for a in SEAT_ANTENNAS)
                + '11 = "board"\n12 = "burn"\n')


class SimSpotsReader(SimFeigReader):
    """A FEIG reader whose seat antennas hear only the top :data:`CAPACITY` cards, and whose muck
    is not under any antenna."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self._laid: dict[str, int] = {}  # physical tag key -> when it was laid where it lies
        self._count = itertools.count()

    def place(self, key: str, uid: str, antenna: int) -> None:
        if self.where(key) != antenna:
            self._laid[key] = next(self._count)
        super().place(key, uid, antenna)

    def remove(self, key: str) -> None:
        super().remove(key)
        self._laid.pop(key, None)

    def clear(self) -> None:
        super().clear()
        self._laid.clear()

    def field(self) -> list[tuple[str, int]]:
        """``(uid, antenna)`` of the tags the antennas can hear, sorted (the noise's draws)."""
        with self._lock:
            items = list(self._tags.items())
        stacks: dict[int, list[tuple[int, str]]] = {}
        for key, (uid, antenna) in items:
            if antenna != MUCK_ANTENNA:
                stacks.setdefault(antenna, []).append((self._laid.get(key, -1), uid))
        out = []
        for antenna, stack in stacks.items():
            if antenna in LIMITED:
                stack = sorted(stack)[-CAPACITY:]
            out += [(uid, antenna) for _, uid in stack]
        return sorted(out)

    def _inventory(self, ant_sel: int | None) -> CycleReads:
        reads = self.look(self._rng, self.field(), strong=self.STRONG, weak=self.WEAK)
        if ant_sel is not None:
            reads = {uid: kept for uid, heard in reads.items()
                     if (kept := [(a, r) for a, r in heard if a <= 64 and ant_sel >> (a - 1) & 1])}
        return reads
