"""What every part of the table is: an owner of some of its state, saved as a section of its own.

A part keeps the fields :attr:`Part.STATE` names and no other part assigns them: another part
that needs one to change asks through a method of the owner (``roster.deal_in(joins)``, never
``roster.seats = ...``). A part reads what it needs of the others through the table it belongs
to (``self._t.roster.seats``); the links it makes to them in :meth:`Part.link` are not state.

The journal's snapshot keeps each part's fields as a section ``{"version": n, "state": {...}}``
(:mod:`controller.core.state`): a part that changes what it keeps bumps its own :attr:`VERSION` and
adds the step that brings its previous version's section up (:data:`PART_MIGRATIONS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:
    from controller.core.settings import TableSettings
    from controller.core.table import Table

#: (section, version) -> the step that turns that version of the section into the next one
PART_MIGRATIONS: dict[tuple[str, int], Callable[[dict[str, Any]], dict[str, Any]]] = {}


class Part:
    """A part of the table.

    >>> class Clock(Part):
    ...     SECTION, STATE = "clock", ("ticks",)
    ...     def __init__(self, table):
    ...         super().__init__(table)
    ...         self.ticks = 0
    >>> Clock.SECTION, Clock.VERSION, Clock.STATE
    ('clock', 1, ('ticks',))
    """

    #: the name of the part's section in a state
    SECTION: ClassVar[str] = ""
    #: the version of the section this release writes
    VERSION: ClassVar[int] = 1
    #: the fields the part owns: exactly what its section holds
    STATE: ClassVar[tuple[str, ...]] = ()
    #: their types, checked when a state is read (controller.core.state.conforms)
    HINTS: ClassVar[dict[str, Any]] = {}
    #: the fields that hold seats (a seat, or a collection of seats, or a dict keyed by seat):
    #: each seat in a state is checked to be 1 to 10
    SEATS: ClassVar[tuple[str, ...]] = ()
    #: the fields a state may hold as null although a fresh part's are not (an earlier version's)
    NULLABLE: ClassVar[tuple[str, ...]] = ()

    def __init__(self, table: Table) -> None:
        self._t = table
        self.settings: TableSettings = table.settings

    def link(self) -> None:
        """Bind what this part uses of the others (every part exists by then). Not state."""

    def fields(self) -> dict[str, Any]:
        """The part's own fields, by name (its section's values)."""
        return {name: getattr(self, name) for name in self.STATE}

    def read_defaults(self, values: dict[str, Any]) -> dict[str, Any]:
        """A state's values with what an earlier version left null filled in (NULLABLE)."""
        return values

    def check(self, where: str) -> None:
        """The ranges of the part's values, once read from a state (StateError otherwise)."""
