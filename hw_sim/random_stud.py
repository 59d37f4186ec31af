"""Random clean hands of stud, stud 8 and razz, as deal-script steps, with the prompts they must
give (``GeneratedHand.expect``), from the guides' rules as ``hw_sim.stud_oracle`` writes them.

The deal (STUD-001): from a freshly shuffled 52-card deck, one card at a time clockwise from the
first seat dealt in left of the dealer's position (``button``): a down card each, a second
down card each, then an up card each (``"face_up": true``): 3rd street. A betting round may fold
some seats (``{"muck": "seat:N"}``; never the last one). Then 4th, 5th and 6th street: the
dealer's tap (``{"press": "round_done"}``, BURN-002), a burn, an up card to each live seat; a
betting round after each. Seventh street: a down card to each live seat after the tap and a
burn, unless the stub is short (STUD-006):

- **STUD-007** (the stub and the burns are enough; docs/rules.md ``STUD_SHORT_STUB_METHOD``,
  ``short_stub_method``): 001 (the default): no burn; deal from the stub until only its last
  card is left; gather that card and the burns into a new stub (``{"restub": [...]}``,
  shuffled); deal the rest from it without a burn and never its bottom card. 002: gather the
  whole stub and the burns into a new stub, burn, and deal 7th street from it;
- **STUD-008** (not enough even with the burns): one community card face up in the middle
  (``{"deal": C, "to": "board", "face_up": true}``) after a burn; with fewer than three stub
  cards, the stub and the burns first become a new stub (002, "SHORT STUB").

A last betting round may fold more seats, then ``{"end": true}``. With seven or eight seats
that stay in, 7th street is short: 8 players leave a stub of 1 (52 - 24 - 3 burns - 24).

The prompts expected (``expect``, in order): ``{"rule": "STUD-002", "street": 3, "seat": S,
"card": C}`` the bring-in; ``{"rule": "STUD-004", "street": n, "seats": [S...], "hand": ...}``
who acts first on each later street dealt (several seats when the showing hands tie: the guides
leave ties to the house); ``{"rule": "STUD-006", "street": 7, "stub": n, "need": m, "procedure":
"STUD-007" | "STUD-008" | None, "dealt": d}`` the stub check before 7th street.

>>> h = random_stud_hand(random.Random(2), game="stud", seats=[1, 2, 3, 4, 5, 6, 7, 8], button=8,
...                      fold_chance=0)
>>> [e["rule"] for e in h.expect]
['STUD-002', 'STUD-004', 'STUD-004', 'STUD-004', 'STUD-006', 'STUD-004']
>>> h.expect[4]["stub"], h.expect[4]["need"], h.expect[4]["procedure"]
(1, 10, 'STUD-008')
>>> [s.get("to", next(iter(s))) for s in h.steps[-4:]]  # the stub of 1 and the 3 burns, a burn, the card
['restub', 'burn', 'board', 'end']
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Sequence

from controller.core.cards import FULL_DECK
from controller.core.settings import deal_order
from hw_sim.generated import GeneratedHand, folds
from hw_sim.stud_oracle import STUD_GAMES, bring_in, first_to_act, short_stub

#: at most eight players in stud (STUD-001, DEAL-012)
MAX_PLAYERS = 8


def random_stud_hand(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                     fold_chance: float = 0.2, short_stub_method: str = "001") -> GeneratedHand:
    """One clean stud hand (see the module). ``seats``: 2 to 8 different seats 1..10;
    ``button``: the dealer's position, any seat 1..10 (the deal starts left of it);
    ``short_stub_method``: STUD-007's, ``001`` or ``002``."""
    if short_stub_method not in ("001", "002"):
        raise ValueError(f"short-stub method {short_stub_method!r}: want 001 or 002 (STUD_SHORT_STUB_METHOD)")
    if game not in STUD_GAMES:
        raise ValueError(f"not a stud game: {game!r} (games: {', '.join(STUD_GAMES)})")
    if len(set(seats)) != len(seats) or not 2 <= len(seats) <= MAX_PLAYERS or not all(1 <= s <= 10 for s in seats):
        raise ValueError(f"stud deals 2 to {MAX_PLAYERS} different seats 1 to 10, got {list(seats)}")
    if not 1 <= button <= 10:
        raise ValueError(f"the dealer's position must be a seat 1 to 10, got {button}")
    order = deal_order(list(seats), button)
    stub = list(FULL_DECK)
    rng.shuffle(stub)  # stub[0] is the top
    steps: list[dict[str, Any]] = []
    expect: list[dict[str, Any]] = []
    burns: list[str] = []
    showing: dict[int, list[str]] = {s: [] for s in order}

    def deal(seat: int, up: bool) -> None:
        card = stub.pop(0)
        steps.append({"deal": card, "to": f"seat:{seat}", **({"face_up": True} if up else {})})
        if up:
            showing[seat].append(card)

    def burn() -> None:
        burns.append(stub.pop(0))
        steps.append({"deal": burns[-1], "to": "burn"})

    def betting(live: list[int]) -> None:
        steps.extend({"muck": f"seat:{s}"} for s in folds(rng, live, fold_chance))

    for up in (False, False, True):  # 3rd street: two down, one up, round by round
        for seat in order:
            deal(seat, up)
    seat = bring_in({s: showing[s][0] for s in order}, game)
    expect.append({"rule": "STUD-002", "street": 3, "seat": seat, "card": showing[seat][0]})
    live = list(order)
    betting(live)
    for street in (4, 5, 6):
        if len(live) < 2:
            break
        steps.append({"press": "round_done"})
        burn()
        for seat in live:
            deal(seat, True)
        first, words = first_to_act({s: showing[s] for s in live}, game)
        expect.append({"rule": "STUD-004", "street": street, "seats": first, "hand": words})
        betting(live)
    if len(live) >= 2:
        _seventh(rng, game, live, stub, burns, steps, expect, showing, len(order), short_stub_method)
        betting(live)
    steps.append({"end": True})
    return GeneratedHand(steps, sorted(seats), button, order, expect)


def _seventh(rng: random.Random, game: str, live: list[int], stub: list[str], burns: list[str],
             steps: list[dict[str, Any]], expect: list[dict[str, Any]], showing: dict[int, list[str]],
             dealt: int, method: str = "001") -> None:
    """Seventh street, short stub or not (see the module); ``method``: STUD-007's."""
    procedure, need = short_stub(live=len(live), stub=len(stub), burns=len(burns))
    expect.append({"rule": "STUD-006", "street": 7, "stub": len(stub), "need": need, "procedure": procedure,
                   "dealt": dealt})
    first, words = first_to_act({s: showing[s] for s in live}, game)  # 7th is down: as on 6th
    expect.append({"rule": "STUD-004", "street": 7, "seats": first, "hand": words})
    steps.append({"press": "round_done"})

    def rebuild(cards: list[str]) -> None:
        steps.append({"restub": list(cards)})
        rng.shuffle(cards)
        stub[:] = cards

    if procedure is None:
        burned = stub.pop(0)
        steps.append({"deal": burned, "to": "burn"})
        steps.extend({"deal": stub.pop(0), "to": f"seat:{s}"} for s in live)
    elif procedure == "STUD-007" and method == "002":
        rebuild(stub + burns)  # the stub and the burns scrambled and cut; then burn and deal
        steps.append({"deal": stub.pop(0), "to": "burn"})
        steps.extend({"deal": stub.pop(0), "to": f"seat:{s}"} for s in live)
    elif procedure == "STUD-007":
        to_deal = list(live)
        while len(stub) > 1 and to_deal:  # from the stub, never its last card
            steps.append({"deal": stub.pop(0), "to": f"seat:{to_deal.pop(0)}"})
        if to_deal:
            rebuild(stub + burns)  # the last card and the burns; no burn after it
            if len(stub) - 1 < len(to_deal):
                raise AssertionError("STUD-007 with too few cards: short_stub is wrong")
            steps.extend({"deal": stub.pop(0), "to": f"seat:{s}"} for s in to_deal)
    else:  # STUD-008: one community card
        if len(stub) < 3:
            rebuild(stub + burns)
        steps.append({"deal": stub.pop(0), "to": "burn"})
        steps.append({"deal": stub.pop(0), "to": "board", "face_up": True})
