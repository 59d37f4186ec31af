"""The dealing rules (docs/rules.md), as pure checks over a :class:`controller.core.hand.Hand`.

Each check says what is wrong, as :class:`Finding` values; the table turns them into alerts.
Only what the sensors are certain of is flagged as a misdeal; what could be a missed read is a
prompt (docs/rules.md, "Sensor limits"). Every flag is advisory (MISD-016).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule found: an alert ``code`` (family first: ``misdeal``, ``deal``, ``burn``,
    ``board``, ``muck``), the ``rule`` id (docs/rules.md), the ``message`` shown to the audience."""

    code: str
    rule: str
    message: str
    seat: int | None = None
    audience: str = "dealer"
    card: str | None = None
    #: when the fault happened, if earlier than the event that revealed it
    ts: float | None = None
    #: how many cards the ``seat`` is short, over or owed (a count, never a card; None: none
    #: said, or not known)
    count: int | None = None
