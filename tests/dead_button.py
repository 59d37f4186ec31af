"""An independent reference for the button, the blinds and the deal order (docs/rules.md
DEAL-001 to DEAL-005), written from the rules' wording, not from ``controller.core.positions`` or
``controller.core.settings``: the oracle the session tests compare the daemon against.

DEAL-005's wording, step by step:

- next BB = the next live seat after the last BB;
- SB = the last BB's seat (no SB if it was vacated);
- button = the last SB's seat (a dead button if it was vacated);
- first card -> the first live seat after the (possibly dead) button.

DEAL-002/003: heads-up the button is the small blind and the other player, the big blind, gets
the first card; going from three players to two, the big blind is still the next one due, the
other player takes the small blind and the button. A hand whose button is set by hand (the
first of a session): the small blind is the first live seat after the button and the big blind
the next (DEAL-001); heads-up the button is the small blind (DEAL-002).

>>> clockwise_after(9, [1, 2, 4, 6, 9])
[1, 2, 4, 6, 9]
>>> ref = Reference.first([1, 2, 3, 4, 5], button=1)
>>> (ref.button, ref.sb, ref.bb)
(1, 2, 3)
>>> nxt = ref.next([1, 3, 4, 5])          # 001 §BUTTON RULE scenario 1: the small blind is out
>>> (nxt.button, nxt.sb, nxt.bb, nxt.order)
(2, 3, 4, [3, 4, 5, 1])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

SEATS = range(1, 11)  # a table of ten seats, numbered clockwise


def clockwise_after(seat: int, live: Sequence[int]) -> list[int]:
    """The live seats, walking clockwise round the table from the seat after ``seat`` (ten
    steps: seat 10 is followed by seat 1); ``seat`` itself, if live, comes last."""
    walk = []
    here = seat
    for _ in SEATS:
        here = 1 if here == 10 else here + 1
        if here in live:
            walk.append(here)
    return walk


@dataclass(frozen=True)
class Reference:
    """One hand's positions by the rules' wording. ``sb`` is the small blind's seat even when
    vacated (then nobody posts it); ``order`` is the deal order."""

    live: tuple[int, ...]
    button: int
    sb: int
    bb: int

    @property
    def order(self) -> list[int]:
        return clockwise_after(self.button, self.live)  # DEAL-001: from left of the button

    @property
    def sb_posted(self) -> bool:
        return self.sb in self.live

    @property
    def dead_button(self) -> bool:
        return self.button not in self.live

    @classmethod
    def first(cls, live: Sequence[int], button: int) -> Reference:
        """A hand whose button is placed by hand."""
        live = tuple(sorted(live))
        if len(live) == 2 and button in live:  # DEAL-002: heads-up the button is the small blind
            return cls(live, button, button, clockwise_after(button, live)[0])
        left = clockwise_after(button, live)
        return cls(live, button, left[0], left[1])

    def next(self, live: Sequence[int]) -> Reference:
        """The next hand, with the seats ``live`` now."""
        live = tuple(sorted(live))
        bb = clockwise_after(self.bb, live)[0]  # the big blind is never skipped
        if len(live) == 2:  # DEAL-002/003: the other player is the button and the small blind
            [other] = [s for s in live if s != bb]
            return Reference(live, other, other, bb)
        return Reference(live, button=self.sb, sb=self.bb, bb=bb)


def session_expectations(script: dict[str, Any]) -> list[Reference]:
    """Each hand of a session script (``hw_sim.random_hands.random_session``): the first hand's
    ``seats`` and ``button`` (or the script's) place the button by hand; then the ``seat_out``
    presses that open a hand take seats out and the button moves by the rule. A hand that names
    ``seats``/``button`` starts over from them."""
    out: list[Reference] = []
    live = list(script["seats"])
    ref: Reference | None = None
    for hand in script["hands"]:
        gone = {s["seat"] for s in hand["steps"] if s.get("press") == "seat_out"}
        live = [s for s in hand.get("seats", live) if s not in gone]
        if ref is None or "button" in hand:
            ref = Reference.first(live, hand.get("button", script["button"]))
        else:
            ref = ref.next(live)
        out.append(ref)
    return out
