"""A reader without signal strength (the bridge board): the host's driver's stand-in for it
(firmware_bridge/bridge_client.py, ``LoneZone``) feeding the tracker (controller/core/tracker.py),
a card's move between zones read by read (docs/decisions/0042-the-bridge-board.md, "Without signal
strength"). The read sequences of the first two tests are the board's own in
``bench/bridge_side_by_side.py --random 2`` under the harsh noise, where each left a card where it
lay before its last move (decision 0042, "What was wrong before"); the third's, the same sample's
under another noise seed, where a dealer's fault was told a step late. The last holds the rule's
own bar: nothing moves a card but three cycles at its new zone without its old."""

from __future__ import annotations

from itertools import product

from controller.core.tracker import Tracker
from firmware_bridge.bridge_client import FORGET_CYCLES, LoneZone

ZONES = {n: f"seat:{n}" for n in range(1, 11)} | {11: "board", 12: "burn", 13: "muck"}


class Table:
    """The driver's strengths fed to a tracker, cycle by cycle, as the daemon does."""

    def __init__(self) -> None:
        self.tracker = Tracker(ZONES.get, confirm_cycles=2, gone_cycles=20)
        self.lone = LoneZone()
        self.n = 0

    def cycle(self, heard: dict[str, list[int]]) -> list[tuple[str, str | None, str]]:
        self.n += 1
        reads = tuple((uid, zone, rssi) for (uid, zone), rssi in self.lone.strengths(heard).items())
        return self.tracker.cycle(self.n, reads)[0]

    def lay(self, uid: str, zone: int) -> None:
        """A card laid on ``zone`` and confirmed there (two firm reads, nothing expected)."""
        assert self.cycle({uid: [zone]}) == [] and self.cycle({uid: [zone]}) == [(uid, None, ZONES[zone])]


def test_a_card_dealt_again_is_new_where_it_lands_though_its_first_cycle_heard_it_twice():
    # PHH hold'em hand 122: the river (5h), in the muck the hand before, dealt to the board; its
    # first two cycles heard it there and at a neighbour (the burn spot, then seat 10), the third
    # at the board alone, then the hand ended. The driver had forgotten its old zone for those two
    # cycles only, and took the third read for a move out of the muck: weak, one short. And a
    # card that lay at seat 3, dealt to seat 4 and heard at both first: seat 3 was its zone again.
    for old, due, first in ((13, 11, [[11, 12], [10, 11]]), (3, 4, [[3, 4]])):
        t = Table()
        t.lay("R", old)
        t.tracker.expect(gather=True)
        for _ in range(FORGET_CYCLES + 2):  # gathered: unheard longer than FORGET_CYCLES and the gather
            t.cycle({})
        assert t.tracker.location("R") is None
        t.tracker.expect(due=ZONES[due])
        assert [t.cycle({"R": zones}) for zones in first] == [[]] * len(first)
        assert t.cycle({"R": [due]}) == [("R", None, ZONES[due])]


def test_a_fold_heard_at_the_burn_spot_too_on_its_first_cycle_reaches_the_muck_on_its_second():
    # PHH hold'em hands 206, 254 and 299: a seat's last card folded, heard in the muck and at the
    # burn spot beside it, then in the muck alone, then not before the gather (hand 220: twice at
    # both, then alone). Those first cycles gave the muck no evidence, and the card stayed at its
    # seat in the hand's record.
    for first in ([[12, 13]], [[12, 13], [12, 13]]):
        t = Table()
        t.lay("F", 2)
        t.tracker.expect(folds=frozenset({"seat:2"}))
        assert [t.cycle({"F": zones}) for zones in first] == [[]] * len(first)
        assert t.cycle({"F": [13]}) == [("F", "seat:2", "muck")]


def test_a_card_taken_out_of_the_muck_heard_by_a_neighbour_on_its_third_cycle_moves_on_it():
    # The hold'em dealer's fault muck_swap (rig.faulty, seed 11), the noise's seed 3,011: a card
    # of the muck put at seat 3, read there alone twice, then there and at seat 2. The third
    # cycle was crosstalk's look, no count towards the move, and MUCK-002 came a step late.
    t = Table()
    t.lay("S", 13)
    assert t.cycle({"S": [3]}) == [] and t.cycle({"S": [3]}) == []
    assert t.cycle({"S": [2, 3]}) == [("S", "muck", "seat:3")]


def test_nothing_moves_a_card_but_three_cycles_heard_elsewhere_and_not_at_home_and_three_lone_reads_do():
    # Every sequence of five cycles of what a card lying at seat 5 can be heard as: at home, at a
    # neighbour alone (crosstalk while home misses it, or a lift heard there), at both, nowhere,
    # at two neighbours at once. The rule's own text: a move to a zone needs three cycles that
    # heard the card there and not at seat 5 since the last that heard it at seat 5. (Not four
    # silent cycles in a row: a tag unheard longer than the driver's FORGET_CYCLES is a new card,
    # gathered and dealt again, firm wherever it is heard alone first.)
    looks = ([5], [6], [5, 6], [], [6, 4], [4])
    moved_early = []
    for seq in product(looks, repeat=5):
        if any(seq[i:i + FORGET_CYCLES] == ([],) * FORGET_CYCLES for i in range(len(seq))):
            continue
        t = Table()
        t.lay("C", 5)
        since_home: dict[int, int] = {}
        for zones in seq:
            if 5 in zones:
                since_home = {}
            else:
                for z in zones:
                    since_home[z] = since_home.get(z, 0) + 1
            moves = t.cycle({"C": list(zones)} if zones else {})
            for _, _, to in moves:
                zone = next(a for a, name in ZONES.items() if name == to)
                if since_home.get(zone, 0) < 3:
                    moved_early.append((seq, to))
            if moves:
                break
    assert moved_early == []
    t = Table()
    t.lay("C", 5)
    assert [t.cycle({"C": [6]}) for _ in range(3)] == [[], [], [("C", "seat:5", "seat:6")]]
