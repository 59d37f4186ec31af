"""What each reader set-up can check (docs/rules.md, "What each reader set-up can check").

The rules are the core's whichever reader feeds it; what differs is what the reader can see. A
set-up is named from the configuration: its reader driver, whether an antenna lies under the
muck, and each antenna's capacity (the most cards it can see at once). Pure: ``tablectl
doctor`` says it, the hand's record lists what it cannot check (``unchecked``), and a finding of
a rule not checked raises nothing on such a table (``controller.core.table.alerts``).

>>> setup_of("feig", muck=True, capacity={}).name, setup_of("feig", muck=True, capacity={}).unchecked
('feig', {})
>>> s = setup_of("feig", muck=False, capacity={1: 2, 2: 2})
>>> s.name, sorted(s.unchecked)[:4], sorted(s.partly)[:2]
('spots', ['CHIN-001', 'CHIN-002', 'CHIN-003', 'DRAW-004'], ['DECK-007', 'MISD-011'])
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

#: what the set-ups are, for a person (doctor's line, the docs' table)
WHAT = {
    "feig": "a FEIG reader with an antenna multiplexer",
    "bridge": "our bridge board, a reader chip a zone (docs/protocols/bridge.md)",
    "spots": "cheap seat spots (a reader module a seat that sees a few cards of a stack) and no muck antenna",
}

#: no antenna under the muck: the rules that need the muck's contents, and why
NO_MUCK: dict[str, str] = {
    "MUCK-002": "a card taken back out of the muck, or swapped with it: nothing reads the muck",
    "MUCK-003": "a blind's early fold that comes back is MUCK-002's",
    "MUCK-004": "an out-of-turn fold that comes back is MUCK-002's",
    "DRAW-005": "the stub rebuilt from the muck and the burns: the muck's cards are not read",
}
#: no antenna under the muck: checked, but on a muck inferred from the cards leaving the seats
#: ``gone_cycles`` after they left (a player holding his cards up that long is taken for a fold)
NO_MUCK_LATE: dict[str, str] = {
    "STUD-007": "the short stub's procedure is prompted as on any table; a card taken from the muck is MUCK-002's",
    "MUCK-005": "the winner's cards reaching the muck: inferred, gone_cycles after they left the seat",
    "MUCK-006": "a hand that touched the muck: inferred as MUCK-005's",
}
#: antennas that see fewer cards than a seat holds: the rules that need every card of a seat
#: seen as it leaves, not checked (their findings raise nothing: controller.core.table.alerts)
CAPACITY: dict[str, str] = {
    "DRAW-004": "the draw's counts: a discard from under the cards a spot sees is not seen leaving",
    "CHIN-001": "Chinese poker's stacks of 13: a spot sees two",
    "CHIN-002": "Chinese poker's stacks of 13: a spot sees two",
    "CHIN-003": "Chinese poker's stacks of 13: a spot sees two",
}
#: and those checked in part: for the cards a spot sees, not for those under them
CAPACITY_PARTLY: dict[str, str] = {
    "MISD-011": "a card taken off a seat from under the cards its spot sees is not seen",
    "STUD-013": "an up card lifted from under the cards a stud seat's spot sees is not seen",
    "DECK-007": "a cloned tag among the cards a seat's spot cannot see is not seen",
}


@dataclass(frozen=True)
class Setup:
    """A reader set-up: its ``name`` (``feig``, ``bridge``, ``spots``), what it is, the rules it
    cannot check (rule id -> why: their findings raise nothing) and those it checks only late or
    in part."""

    name: str
    what: str
    unchecked: dict[str, str] = field(default_factory=dict)
    partly: dict[str, str] = field(default_factory=dict)


def setup_of(driver: str, *, muck: bool, capacity: Mapping[int, int]) -> Setup:
    """The set-up a configuration describes: ``driver`` (``[reader] driver``), ``muck`` (an
    antenna feeds the muck), ``capacity`` (antenna -> the most cards it can see; none: no limit)."""
    unchecked: dict[str, str] = {}
    partly: dict[str, str] = {}
    if not muck:
        unchecked.update(NO_MUCK)
        partly.update(NO_MUCK_LATE)
    if capacity:
        unchecked.update(CAPACITY)
        partly.update(CAPACITY_PARTLY)
    name = "spots" if unchecked else driver
    what = WHAT.get(name, f"reader driver {driver}")
    if name == "spots" and driver != "feig":
        what += f" (driver {driver})"
    return Setup(name, what, dict(sorted(unchecked.items())), dict(sorted(partly.items())))
