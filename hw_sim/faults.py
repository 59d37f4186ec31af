"""Dealer errors, injected into clean hands: the physical side of the rule tests.

Each fault is a pure function that takes the steps of one clean hand (deal-script step dicts,
as :func:`hw_sim.random_hands.random_hand_steps` and :func:`hw_sim.phh.phh_to_hand` make them:
the hole cards first, round by round in ``order``; then betting rounds of folds, each followed
by ``{"press": "round_done"}`` and the street's burn and board cards; ``{"end": true}`` last),
the hand's dealing ``order`` (``deal_order(seats, button)``; ``order[-1]`` is called the button
here, the seat that gets the last card of each round), its ``game`` and a ``random.Random``,
and returns ``(faulty_steps, info)``. The input is never changed.

:class:`FaultInfo` says where the fault is physically committed: ``step``, counted from 1 in the
faulty steps as a report's ``step`` is, and the ``seat`` concerned (None when none is), with the
``card`` concerned and other steps of note (``marks``, also counted from 1) where they help.
What the daemon should make of a fault is for the rule tests to say, not this module.

A hand that cannot take a fault (no river for ``no_burn_river``, every seat dealt in for
``card_to_empty_seat``) raises ValueError with a one-line reason: pick another hand.

Every fault keeps the hand a physical sequence a dealer can perform: no card is dealt while it
is out, and a move names a card on the table (:func:`hw_sim.script.parse_script` accepts every
faulty hand). New cards (a replacement, an extra burn, a fourth flop card) are cards the clean
hand does not deal, drawn with the rng.

>>> import random
>>> from hw_sim.random_hands import random_hand_steps
>>> clean = random_hand_steps(random.Random(2), game="holdem", seats=[1, 4, 6], button=6)
>>> steps, info = inject("expose_later_card", clean, game="holdem", seats=[1, 4, 6], button=6,
...                      rng=random.Random(0))
>>> info.step, info.seat, info.card
(7, 6, '7s')
>>> steps[5:8]  # the button's last card, exposed; its replacement at once, the deal being over
[{'deal': '7s', 'to': 'seat:6'}, {'press': 'exposed'}, {'deal': 'As', 'to': 'seat:6'}]
>>> steps[info.marks["burn"] - 1] == {"move": info.card, "to": "burn"}
True
>>> sorted(FAULTS)[:4]
['board_before_burn_flop', 'boxed_one', 'boxed_two', 'burn_to_muck']
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Iterator, Sequence

from controller.core.cards import FULL_DECK
from controller.core.games import GAMES
from controller.core.settings import deal_order

#: game -> hole cards per seat, for the flop games the faults are written for (controller.core.games)
HOLE_CARDS = {g.name: g.hole_cards for g in GAMES if g.family == "flop"}
STREET_NAMES = ("flop", "turn", "river")

Steps = list[dict[str, Any]]


@dataclass(frozen=True)
class FaultInfo:
    """Where a fault is: ``step`` (from 1, in the faulty steps) is where it is physically
    committed, ``seat`` the seat concerned (None: no seat), ``card`` the card concerned (None:
    no one card). ``marks``: other steps of note by name (from 1); ``detail``: anything else
    (other cards, another seat)."""

    fault: str
    step: int
    seat: int | None
    card: str | None = None
    marks: dict[str, int] = field(default_factory=dict)
    detail: dict[str, Any] = field(default_factory=dict)


@dataclass
class _Street:
    round_done: dict[str, Any]
    burn: dict[str, Any]
    board: list[dict[str, Any]]


def _checked_order(order: Sequence[int], game: str) -> list[int]:
    """The dealing ``order`` of a hand of ``game`` (a flop game the faults are written for), checked."""
    if game not in HOLE_CARDS:
        raise ValueError(f"game {game!r} is not supported (games: {', '.join(HOLE_CARDS)})")
    order = list(order)
    if len(set(order)) != len(order) or not 2 <= len(order) <= 10 or not all(1 <= s <= 10 for s in order):
        raise ValueError(f"the order must be 2 to 10 different seats 1 to 10, got {order}")
    return order


class _Hand:
    """A clean hand taken apart. Steps are referred to by identity (fresh dict copies), so
    that they can be found again after others are inserted or removed."""

    def __init__(self, steps: Sequence[dict[str, Any]], order: Sequence[int], game: str) -> None:
        self.order, self.game, self.k = _checked_order(order, game), game, HOLE_CARDS[game]
        self.steps: Steps = [dict(s) for s in steps]
        n = len(self.order) * self.k
        self.hole = self._hole_cards(n)
        self.end = self.steps[-1]
        self.streets: list[_Street] = []
        self.mucks: list[dict[str, Any]] = []
        #: the folds of each betting round: before the flop, the turn, the river, and the last
        self.round_mucks: list[list[dict[str, Any]]] = [[]]
        self._take_apart(n)
        if [len(st.board) for st in self.streets] != [3, 1, 1][:len(self.streets)]:
            raise ValueError("not a clean hand: the streets are not a burn and 3, 1, 1 board cards")

    def _hole_cards(self, n: int) -> Steps:
        """The first ``n`` steps, checked to be the hole cards dealt round by round in order, in a
        hand that ends with ``{"end": true}``."""
        if not self.steps or self.steps[-1] != {"end": True}:
            raise ValueError('not a clean hand: it must end with {"end": true}')
        hole = self.steps[:n]
        want = [f"seat:{s}" for s in self.order] * self.k
        if [s.get("to") if "deal" in s else None for s in hole] != want:
            raise ValueError(f"not a clean hand: the first {n} steps are not the hole cards dealt in order "
                             f"{self.order}")
        return hole

    def _take_apart(self, n: int) -> None:
        """The steps between the hole cards (``n`` steps) and the end: the folds of each betting
        round, and each street's tap, burn and board cards, each in its place."""
        pending: dict[str, Any] | None = None  # the tap of the street whose burn comes next
        for i, s in enumerate(self.steps[n:-1], n + 1):
            if "muck" in s:
                self.mucks.append(s)
                self.round_mucks[-1].append(s)
            elif s.get("press") == "round_done" and pending is None:
                pending = s
            elif s.get("to") == "burn" and "deal" in s and len(self.streets) < 3:
                if pending is None:
                    raise ValueError(f'not a clean hand: the burn at step {i} has no {{"press": "round_done"}} '
                                     f"before it")
                self.streets.append(_Street(pending, s, []))
                self.round_mucks.append([])
                pending = None
            elif s.get("to") == "board" and "deal" in s and self.streets and pending is None:
                self.streets[-1].board.append(s)
            else:
                raise ValueError(f"not a clean hand: step {i} {s} is not a fold, a tap, a burn or a board card "
                                 f"in its place")

    # -- what the hand holds ---------------------------------------------------------------
    def seat_of(self, step: dict[str, Any]) -> int:
        return int(step["to"][5:])

    def street(self, number: int, fault: str) -> _Street:
        """Street 0, 1, 2 (flop, turn, river), or ValueError naming the fault."""
        if len(self.streets) <= number:
            raise ValueError(f"{fault}: the hand has no {STREET_NAMES[number]} (every seat but one folded before)")
        return self.streets[number]

    def muck_of(self, seat: int) -> dict[str, Any] | None:
        return next((m for m in self.mucks if m["muck"] == f"seat:{seat}"), None)

    def cards_of(self, seat: int) -> list[str]:
        return [s["deal"] for s in self.hole if s["to"] == f"seat:{seat}"]

    def fresh(self, rng: random.Random) -> Iterator[str]:
        """Cards the clean hand does not deal, in an order the rng picks."""
        used = {s["deal"] for s in self.steps if "deal" in s}
        pool = [c for c in FULL_DECK if c not in used]
        rng.shuffle(pool)
        return iter(pool)

    # -- editing by identity -----------------------------------------------------------------
    def at(self, step: dict[str, Any]) -> int:
        """The step's position, from 1."""
        for i, s in enumerate(self.steps, 1):
            if s is step:
                return i
        raise LookupError(f"step {step} is not in the hand")

    def insert_after(self, ref: dict[str, Any], *new: dict[str, Any]) -> None:
        i = self.at(ref)
        self.steps[i:i] = new

    def insert_before(self, ref: dict[str, Any], *new: dict[str, Any]) -> None:
        i = self.at(ref) - 1
        self.steps[i:i] = new

    def remove(self, *refs: dict[str, Any] | None) -> None:
        for ref in refs:
            if ref is not None:
                del self.steps[self.at(ref) - 1]

    def after_deal(self) -> dict[str, Any]:
        """The first step after the hole cards (a fold, the tap, the end)."""
        return self.steps[self.at(self.hole[-1])]


Fault = Callable[..., tuple[Steps, FaultInfo]]


def _beyond_first_two(h: _Hand, rng: random.Random, fault: str, count: int = 1,
                      keep: Callable[[dict[str, Any]], bool] = lambda s: True, why: str = "") -> list[dict[str, Any]]:
    """``count`` different hole-card steps other than the first two (MISD-001), in deal order."""
    candidates = [s for s in h.hole[2:] if keep(s)]
    if len(candidates) < count:
        raise ValueError(f"{fault}: the hand has fewer than {count} hole card(s) beyond the first two{why}")
    picked = rng.sample(candidates, count)
    return sorted(picked, key=h.at)


# -- the deal -----------------------------------------------------------------------------------

def wrong_first_seat(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                     rng: random.Random) -> tuple[Steps, FaultInfo]:
    """The first card goes to the second seat in order and the second card to the first seat
    (MISD-004). step 1; seat: the seat that got the first card (``order[1]``)."""
    h = _Hand(steps, order, game)
    a, b = h.hole[0], h.hole[1]
    a["to"], b["to"] = b["to"], a["to"]
    return h.steps, FaultInfo("wrong_first_seat", 1, h.seat_of(a), a["deal"], {"second": 2})


def card_to_empty_seat(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                       rng: random.Random) -> tuple[Steps, FaultInfo]:
    """One hole card goes to a seat 1..10 not dealt in instead of its own (MISD-005).
    step: that deal; seat: the empty seat; ``detail["due"]``: the seat it was due to."""
    h = _Hand(steps, order, game)
    empty = [s for s in range(1, 11) if s not in h.order]
    if not empty:
        raise ValueError("card_to_empty_seat: every seat 1 to 10 is dealt in")
    step, seat = rng.choice(h.hole), rng.choice(empty)
    due = h.seat_of(step)
    step["to"] = f"seat:{seat}"
    return h.steps, FaultInfo("card_to_empty_seat", h.at(step), seat, step["deal"], detail={"due": due})


def skip_seat(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
    """One seat other than ``order[-1]`` is dealt no hole card at all (MISD-006): each card goes
    to the next seat instead, the cards in the same order off the stub (the hand's last ``k``
    cards are left on the stub), and the seat's fold, having no cards, is left out.
    step: the deal of the card that was due to the seat first (it goes to the next seat);
    seat: the skipped seat; ``marks["after_deal"]``: the first step after the hole cards."""
    h = _Hand(steps, order, game)
    skipped = rng.choice(h.order[:-1])
    deals = [s for s in h.steps if "deal" in s]
    cards = iter([s["deal"] for s in deals])
    dealt_to = [s for _ in range(h.k) for s in h.order if s != skipped]
    hole = [{"deal": next(cards), "to": f"seat:{s}"} for s in dealt_to]
    rest = [dict(s) for s in h.steps[len(h.hole):] if s.get("muck") != f"seat:{skipped}"]
    for s in rest:
        if "deal" in s:
            s["deal"] = next(cards)  # the same cards, shifted: none is dealt twice
    h.steps = hole + rest
    first = hole[h.order.index(skipped)]
    return h.steps, FaultInfo("skip_seat", h.at(first), skipped, first["deal"],
                              {"after_deal": len(hole) + 1})


def extra_card(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
               rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A seat other than ``order[0]`` gets one more hole card (a new card) right after the last
    hole card, before any fold or tap (MISD-007). step: that deal; seat: that seat."""
    h = _Hand(steps, order, game)
    seat = rng.choice(h.order[1:])
    extra = {"deal": next(h.fresh(rng)), "to": f"seat:{seat}"}
    h.insert_after(h.hole[-1], extra)
    return h.steps, FaultInfo("extra_card", h.at(extra), seat, extra["deal"])


def short_seat(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
               rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A seat other than ``order[-1]`` ends the deal one card short: its last hole card is not
    dealt (MISD-007). step: the deal that passed it by (the next seat's last card); seat: the
    short seat; ``marks["after_deal"]``: the first step after the hole cards."""
    h = _Hand(steps, order, game)
    pos = rng.randrange(len(h.order) - 1)
    last_round = h.hole[-len(h.order):]
    missing, next_deal = last_round[pos], last_round[pos + 1]
    h.remove(missing)
    h.hole.remove(missing)
    return h.steps, FaultInfo("short_seat", h.at(next_deal), h.order[pos], missing["deal"],
                              {"after_deal": h.at(h.after_deal())})


def button_short(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                 rng: random.Random) -> tuple[Steps, FaultInfo]:
    """``order[-1]`` (the button) ends the deal one card short: the last hole card is not dealt
    (MISD-007: topped up). step: the first step after the deal (a fold or the tap); seat: the
    button; card: the card left on the stub."""
    h = _Hand(steps, order, game)
    missing = h.hole.pop()
    h.remove(missing)
    nxt = h.after_deal()
    return h.steps, FaultInfo("button_short", h.at(nxt), h.order[-1], missing["deal"], {"after_deal": h.at(nxt)})


# -- exposed and boxed cards ------------------------------------------------------------------

def expose_first_card(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                      rng: random.Random) -> tuple[Steps, FaultInfo]:
    """``{"press": "exposed"}`` right after the first hole card (MISD-001). step: the press
    (2); seat: ``order[0]``; card: the first card."""
    h = _Hand(steps, order, game)
    press = {"press": "exposed"}
    h.insert_after(h.hole[0], press)
    return h.steps, FaultInfo("expose_first_card", h.at(press), h.order[0], h.hole[0]["deal"], {"deal": 1})


def _expose_later(steps: Sequence[dict[str, Any]], order: Sequence[int], game: str, rng: random.Random,
                  wrong_burn: bool) -> tuple[Steps, FaultInfo]:
    name = "expose_later_card" + ("_wrong_burn" if wrong_burn else "")
    h = _Hand(steps, order, game)
    flop = h.street(0, name)
    # the exposed card waits at its seat until the flop's burn: a seat that folds before then
    # would take it to the muck, so the card is one of a seat still in at the flop
    folded = {m["muck"] for m in h.round_mucks[0]}
    [exposed] = _beyond_first_two(h, rng, name, keep=lambda s: s["to"] not in folded,
                                  why=" of a seat still in at the flop")
    seat, card = h.seat_of(exposed), exposed["deal"]
    press = {"press": "exposed"}
    h.insert_after(exposed, press)
    replacement = {"deal": next(h.fresh(rng)), "to": f"seat:{seat}"}
    # MISD-010: once everyone has the initial hand (after the press, if the last card it was)
    h.insert_after(press if exposed is h.hole[-1] else h.hole[-1], replacement)
    marks = {"deal": h.at(exposed), "replacement": h.at(replacement)}
    if wrong_burn:  # the exposed card goes back on the stub and the burn is another card
        back = {"move": card, "to": "stub"}
        h.insert_before(flop.burn, back)
        marks.update(stub=h.at(back), burn=h.at(flop.burn), press=h.at(press))
        return h.steps, FaultInfo(name, h.at(flop.burn), seat, card, marks, {"burn": flop.burn["deal"]})
    burn = {"move": card, "to": "burn"}  # the exposed card is the burn: the flop's burn deal goes
    h.insert_before(flop.burn, burn)
    h.remove(flop.burn)
    marks["burn"] = h.at(burn)
    return h.steps, FaultInfo(name, h.at(press), seat, card, marks, {"replacement": replacement["deal"]})


def expose_later_card(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                      rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A hole card beyond the first two is exposed, ``{"press": "exposed"}`` right after it,
    and MISD-010 is done right: the seat gets a replacement (a new card) right after the last
    hole card, and the exposed card is moved from the seat onto the burn spot in place of the
    flop's burn deal (left out; its card stays on the stub). Needs a flop. step: the press;
    seat, card: the exposed card's; marks ``deal``, ``replacement``, ``burn`` (the move)."""
    return _expose_later(steps, order, game, rng, wrong_burn=False)


def expose_later_card_wrong_burn(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                                 rng: random.Random) -> tuple[Steps, FaultInfo]:
    """As :func:`expose_later_card`, but the exposed card is moved back on the stub just before
    the flop's burn and the burn is another card. step: that burn deal; seat, card: the
    exposed card's; marks ``press``, ``deal``, ``replacement``, ``stub``, ``burn``."""
    return _expose_later(steps, order, game, rng, wrong_burn=True)


def two_exposed(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                rng: random.Random) -> tuple[Steps, FaultInfo]:
    """``{"press": "exposed"}`` after two different hole cards beyond the first two (MISD-002).
    step: the second press; seat, card: the second exposed card's; marks ``first`` (the first
    press); ``detail["first"]``: the first card."""
    h = _Hand(steps, order, game)
    a, b = _beyond_first_two(h, rng, "two_exposed", 2)
    pa, pb = {"press": "exposed"}, {"press": "exposed"}
    h.insert_after(a, pa)
    h.insert_after(b, pb)
    return h.steps, FaultInfo("two_exposed", h.at(pb), h.seat_of(b), b["deal"], {"first": h.at(pa)},
                              {"first": a["deal"], "first_seat": h.seat_of(a)})


def _boxed(steps: Sequence[dict[str, Any]], order: Sequence[int], game: str, rng: random.Random,
           count: int) -> tuple[Steps, FaultInfo]:
    h = _Hand(steps, order, game)
    presses = []
    name = "boxed_one" if count == 1 else "boxed_two"
    for after in _beyond_first_two(h, rng, name, count):
        presses.append({"press": "boxed"})
        h.insert_after(after, presses[-1])
    marks = {"first": h.at(presses[0])} if count > 1 else {}
    return h.steps, FaultInfo(name, h.at(presses[-1]), None, None, marks)


def boxed_one(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
    """One ``{"press": "boxed"}`` during the hole cards, after a card beyond the first two
    (MISD-003). step: the press; no seat."""
    return _boxed(steps, order, game, rng, 1)


def boxed_two(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
    """Two ``{"press": "boxed"}`` during the hole cards, each after a different card beyond the
    first two (MISD-003: a misdeal). step: the second press; marks ``first``; no seat."""
    return _boxed(steps, order, game, rng, 2)


def player_exposed(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                   rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A player shows one of his cards: ``{"press": "exposed_player", "seat": S}`` right after
    the last hole card, before any fold or tap (MISD-012). step: the press; seat: S."""
    h = _Hand(steps, order, game)
    seat = rng.choice(h.order)
    press = {"press": "exposed_player", "seat": seat}
    h.insert_after(h.hole[-1], press)
    return h.steps, FaultInfo("player_exposed", h.at(press), seat)


def card_off_table(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                   rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A hole card beyond the first two slides off the table right after it is dealt (moved to
    the stub: no antenna reads it, MISD-011); the seat gets a replacement (a new card) right
    after the last hole card; the card, picked up, is the flop's burn (the flop's burn deal
    deals it again). Needs a flop. step: the move; seat, card: the card's; marks
    ``deal``, ``replacement``, ``burn``."""
    h = _Hand(steps, order, game)
    flop = h.street(0, "card_off_table")
    [lost] = _beyond_first_two(h, rng, "card_off_table")
    seat, card = h.seat_of(lost), lost["deal"]
    gone = {"move": card, "to": "stub"}
    h.insert_after(lost, gone)
    replacement = {"deal": next(h.fresh(rng)), "to": f"seat:{seat}"}
    h.insert_after(gone if lost is h.hole[-1] else h.hole[-1], replacement)
    flop.burn["deal"] = card  # the flop's own burn card stays on the stub
    return h.steps, FaultInfo("card_off_table", h.at(gone), seat, card,
                              {"deal": h.at(lost), "replacement": h.at(replacement), "burn": h.at(flop.burn)},
                              {"replacement": replacement["deal"]})


# -- burns ----------------------------------------------------------------------------------------

def _no_burn(number: int) -> Fault:
    name = f"no_burn_{STREET_NAMES[number]}"

    def fault(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
        h = _Hand(steps, order, game)
        street = h.street(number, name)
        h.remove(street.burn)
        first = street.board[0]
        return h.steps, FaultInfo(name, h.at(first), None, first["deal"], detail={"burn": street.burn["deal"]})

    fault.__name__ = fault.__qualname__ = name
    fault.__doc__ = (f"The {STREET_NAMES[number]}'s burn is not dealt (its card stays on the stub; BURN-001). "
                     f"Needs a {STREET_NAMES[number]}. step, card: the street's first board card.")
    return fault


no_burn_flop, no_burn_turn, no_burn_river = (_no_burn(i) for i in range(3))


def double_burn(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                rng: random.Random) -> tuple[Steps, FaultInfo]:
    """Two burns before the flop: a second burn (a new card) right after the flop's burn
    (BURN-001). Needs a flop. step, card: the second burn."""
    h = _Hand(steps, order, game)
    flop = h.street(0, "double_burn")
    extra = {"deal": next(h.fresh(rng)), "to": "burn"}
    h.insert_after(flop.burn, extra)
    return h.steps, FaultInfo("double_burn", h.at(extra), None, extra["deal"], {"first": h.at(flop.burn)})


def extra_burn_after_river(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                           rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A burn (a new card) right after the river card (BURN-001: no burn after the last round).
    Needs a river. step, card: that burn."""
    h = _Hand(steps, order, game)
    river = h.street(2, "extra_burn_after_river")
    extra = {"deal": next(h.fresh(rng)), "to": "burn"}
    h.insert_after(river.board[-1], extra)
    return h.steps, FaultInfo("extra_burn_after_river", h.at(extra), None, extra["deal"])


def burn_to_muck(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                 rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A burn is moved to the muck right after the turn card (after the flop when there is no
    turn), before the pot is pushed (BURN-003). Needs a flop. step: the move; card: the burn."""
    h = _Hand(steps, order, game)
    h.street(0, "burn_to_muck")
    upto = h.streets[:2]
    burn = rng.choice([st.burn["deal"] for st in upto])
    move = {"move": burn, "to": "muck"}
    h.insert_after(upto[-1].board[-1], move)
    return h.steps, FaultInfo("burn_to_muck", h.at(move), None, burn)


# -- the board ----------------------------------------------------------------------------------

def board_before_burn_flop(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                           rng: random.Random) -> tuple[Steps, FaultInfo]:
    """The flop's first board card comes before its burn: the card off the top goes to the
    board and the next to the burn (the cards keep their order off the stub). Needs a flop.
    step, card: that first board card; marks ``burn``."""
    h = _Hand(steps, order, game)
    flop = h.street(0, "board_before_burn_flop")
    first, second = flop.burn, flop.board[0]
    first["to"], second["to"] = "board", "burn"
    return h.steps, FaultInfo("board_before_burn_flop", h.at(first), None, first["deal"], {"burn": h.at(second)})


def four_card_flop(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                   rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A fourth board card (a new card) right after the flop's three; then BOARD-002 done right:
    one of the four, picked with the rng, is moved from the board to the burn spot at once as
    the turn's burn, and the turn's own burn deal is left out (its card stays on the stub).
    Needs a flop. step, card: the fourth card; marks ``move``; ``detail["moved"]``: the card
    moved to the burn."""
    h = _Hand(steps, order, game)
    flop = h.street(0, "four_card_flop")
    fourth = {"deal": next(h.fresh(rng)), "to": "board"}
    h.insert_after(flop.board[-1], fourth)
    moved = rng.choice([s["deal"] for s in flop.board] + [fourth["deal"]])
    move = {"move": moved, "to": "burn"}
    h.insert_after(fourth, move)
    if len(h.streets) > 1:
        h.remove(h.streets[1].burn)
    return h.steps, FaultInfo("four_card_flop", h.at(fourth), None, fourth["deal"], {"move": h.at(move)},
                              {"moved": moved})


def _two_cards(number: int) -> Fault:
    name = f"two_card_{STREET_NAMES[number]}"

    def fault(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
        h = _Hand(steps, order, game)
        street = h.street(number, name)
        second = {"deal": next(h.fresh(rng)), "to": "board"}
        h.insert_after(street.board[-1], second)
        moved = rng.choice([street.board[-1]["deal"], second["deal"]])
        # BOARD-003: on the turn the card taken off is the river's burn; on the river it goes back
        move = {"move": moved, "to": "burn" if number == 1 else "stub"}
        h.insert_after(second, move)
        if number == 1 and len(h.streets) > 2:
            h.remove(h.streets[2].burn)
        return h.steps, FaultInfo(name, h.at(second), None, second["deal"], {"move": h.at(move)}, {"moved": moved})

    where = "moved to the burn spot as the river's burn (the river's burn deal is left out)" if number == 1 \
        else "moved back on the stub"
    fault.__name__ = fault.__qualname__ = name
    fault.__doc__ = (f"Two board cards on the {STREET_NAMES[number]} (the second a new card); at once one of "
                     f"them, picked with the rng, is {where} (BOARD-003). Needs a {STREET_NAMES[number]}. "
                     f"step, card: the second card; marks ``move``; ``detail['moved']``.")
    return fault


two_card_turn, two_card_river = _two_cards(1), _two_cards(2)


def _premature(number: int) -> Fault:
    name = f"premature_{STREET_NAMES[number]}"

    def fault(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
        h = _Hand(steps, order, game)
        street = h.street(number, name)
        fresh = h.fresh(rng)
        # the street comes (burn and board) before the round's tap: the round's folds and tap
        # follow it, then the premature cards go back on the stub (BOARD-004..006)
        folds, tap = h.round_mucks[number], street.round_done
        h.remove(*folds, tap)
        back = [{"move": s["deal"], "to": "stub"} for s in street.board]
        h.insert_after(street.board[-1], *folds, *back, tap)
        marks = {"burn": h.at(street.burn), "stub": h.at(back[0]), "round_done": h.at(tap)}
        after = h.streets[number + 1] if len(h.streets) > number + 1 else None
        if number == 0:
            # BOARD-004: burn again, three new cards are the flop; the turn comes with no burn
            redo = [{"deal": next(fresh), "to": "burn"}] + [{"deal": next(fresh), "to": "board"} for _ in range(3)]
            h.insert_after(tap, *redo)
            if after is not None:
                h.remove(after.burn)
                marks["turn"] = h.at(after.board[0])
        elif number == 1:
            # BOARD-005: burn, and the card that would have been the river is the turn; the
            # river comes with no burn
            river = h.streets[2] if len(h.streets) > 2 else None
            redo = [{"deal": next(fresh), "to": "burn"},
                    {"deal": river.board[0]["deal"] if river else next(fresh), "to": "board"}]
            h.insert_after(tap, *redo)
            if river is not None:
                h.remove(river.burn)
                river.board[0]["deal"] = next(fresh)
                marks["river"] = h.at(river.board[0])
        else:
            # BOARD-006: the river again, from the stub, with no burn
            redo = [{"deal": next(fresh), "to": "board"}]
            h.insert_after(tap, *redo)
        marks["redo"] = h.at(redo[0])
        first = street.board[0]
        return h.steps, FaultInfo(name, h.at(first), None, first["deal"], marks)

    fault.__name__ = fault.__qualname__ = name
    return fault


premature_flop, premature_turn, premature_river = (_premature(i) for i in range(3))
premature_flop.__doc__ = (
    "The flop (its burn and three cards) comes before the preflop tap; the preflop folds and the "
    "tap follow it. Then BOARD-004: the three flop cards go back on the stub, the tap, a burn and "
    "three new flop cards (new cards); the turn, if any, comes with no burn (its round still ends "
    "with the tap); the river as usual. Needs a flop. step, card: the first premature flop card; "
    "marks ``burn`` (the premature burn), ``stub`` (the first move back), ``round_done``, ``redo`` "
    "(the new burn), ``turn``.")
premature_turn.__doc__ = (
    "The turn (its burn and card) comes before the flop round's tap; the flop's folds and the tap "
    "follow it. Then BOARD-005: the turn card goes back on the stub, the tap, a burn (a new card) "
    "and, as the turn, the card that would have been the river (a new card if the hand had no "
    "river); the river, if any, a new card with no burn. Needs a turn. step, card: the premature "
    "turn; marks ``burn``, ``stub``, ``round_done``, ``redo`` (the new burn), ``river``.")
premature_river.__doc__ = (
    "The river (its burn and card) comes before the turn round's tap; the turn's folds and the tap "
    "follow it. Then BOARD-006: the river card goes back on the stub, the tap, and a new river with "
    "no burn. Needs a river. step, card: the premature river; marks ``burn``, ``stub``, "
    "``round_done``, ``redo`` (the new river).")


# -- the muck -------------------------------------------------------------------------------------

def muck_retrieval(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
                   rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A folded seat's cards come back from the muck to that seat, one move per card, right
    after the fold (MUCK-002). Needs a fold. step: the first move; seat: the seat; marks
    ``muck`` (the fold); ``detail["cards"]``."""
    h = _Hand(steps, order, game)
    if not h.mucks:
        raise ValueError("muck_retrieval: the hand has no fold")
    fold = rng.choice(h.mucks)
    seat = int(fold["muck"][5:])
    moves = [{"move": c, "to": f"seat:{seat}"} for c in h.cards_of(seat)]
    h.insert_after(fold, *moves)
    return h.steps, FaultInfo("muck_retrieval", h.at(moves[0]), seat, None, {"muck": h.at(fold)},
                              {"cards": [m["move"] for m in moves]})


def muck_swap(steps: Sequence[dict[str, Any]], *, order: Sequence[int], game: str,
              rng: random.Random) -> tuple[Steps, FaultInfo]:
    """A folded seat's hand is taken back from the muck right after its fold, but one of the
    cards that comes back is another seat's, folded before (MUCK-002: not the seat's own
    cards); one of the seat's own cards stays in the muck. Needs two folds. step: the move of
    the other seat's card (the last move); seat: the seat that gets it; card: that card;
    marks ``muck`` (the fold); ``detail``: ``from_seat``, ``left_in_muck``."""
    h = _Hand(steps, order, game)
    pairs = [(a, b) for i, a in enumerate(h.mucks) for b in h.mucks[i + 1:]]
    if not pairs:
        raise ValueError("muck_swap: the hand has fewer than two folds")
    first, fold = rng.choice(pairs)
    owner, seat = int(first["muck"][5:]), int(fold["muck"][5:])
    own = h.cards_of(seat)
    left = own.pop(rng.randrange(len(own)))
    foreign = rng.choice(h.cards_of(owner))
    moves = [{"move": c, "to": f"seat:{seat}"} for c in own + [foreign]]
    h.insert_after(fold, *moves)
    return h.steps, FaultInfo("muck_swap", h.at(moves[-1]), seat, foreign, {"muck": h.at(fold)},
                              {"from_seat": owner, "left_in_muck": left})


#: fault name -> the function that injects it
FAULTS: dict[str, Fault] = {f.__name__: f for f in (
    wrong_first_seat, card_to_empty_seat, skip_seat, extra_card, short_seat, button_short,
    expose_first_card, expose_later_card, expose_later_card_wrong_burn, two_exposed, boxed_one, boxed_two,
    player_exposed, card_off_table,
    no_burn_flop, no_burn_turn, no_burn_river, double_burn, extra_burn_after_river, burn_to_muck,
    board_before_burn_flop, four_card_flop, two_card_turn, two_card_river,
    premature_flop, premature_turn, premature_river,
    muck_retrieval, muck_swap,
)}


def inject(name: str, steps: Sequence[dict[str, Any]], *, game: str, rng: random.Random,
           order: Sequence[int] | None = None, seats: Sequence[int] | None = None,
           button: int | None = None) -> tuple[Steps, FaultInfo]:
    """The fault ``name`` of :data:`FAULTS` in a clean hand dealt in ``order``, or in
    ``deal_order(seats, button)``. ValueError for an unknown fault or a hand that cannot take it."""
    if name not in FAULTS:
        raise ValueError(f"unknown fault {name!r} (faults: {', '.join(FAULTS)})")
    if order is None:
        if seats is None or button is None:
            raise ValueError("give the hand's order, or its seats and button")
        order = deal_order(list(seats), button)
    return FAULTS[name](steps, order=order, game=game, rng=rng)
