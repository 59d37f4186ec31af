"""Real stud, stud 8 and razz hands from PHH hand histories (``F7S``, ``F7S/8``, ``FR``), as
deal-script hands, with who brought in and who acted first on each street as the history shows.

The flop games are ``hw_sim.phh``'s; this module reuses its card and player notation. A stud
hand in PHH lists each player's 3rd-street cards as one run, ``d dh p1 Td3c4d``: the first two
are the down cards, the third the up card (phh-std; pokerkit's stud streets deal down, down, up).
Each later street is one card a live player (``d dh p4 6d``), up on 4th to 6th street and down on
7th. Player ``pN`` sits at seat N; PHH lists them in dealing order, so the dealer's position (the
script's ``button``) is the last seat and the first card goes to seat 1.

:func:`stud_to_hand` deals it as a stud dealer does (STUD-001): round by round on 3rd street
(``"face_up": true`` on the up card), then the dealer's tap, a burn and a card each live seat on
every later street, in seat order; each fold (``pN f``) is a muck of that seat; ``{"end": true}``.
PHH records no burns: they are drawn, with ``rng``, from the cards the hand does not use.

**Unknown cards** (``??``): as ``hw_sim.phh`` does, a card the player shows down fills its
unknown card, and every other unknown card is drawn with ``rng`` from the unused cards. An up card
drawn so is one that keeps the history true: it does not take the bring-in, or the first action
of a street, from the player the history shows doing it (the draw skips the cards that would;
``hw_sim.stud_oracle`` decides). Those filled cards take no part in a showdown check.

**The oracle** (:func:`history_actors`): who brought in, the first forced bet on 3rd street (the
first player action after the 3rd-street deal, ``pb`` or a completion), and who acted first on
each later street (the first betting action after that street's cards, a showdown ``sm`` not
counted), read from the history alone.

>>> text = '''variant = "F7S"
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 Td3c4d", "d dh p2 Kd3h4c", "d dh p3 As8d5c", "p2 pb", "p3 f", "p1 cc",
...            "d dh p1 6d", "d dh p2 9s", "p2 cc", "p1 cc"]
... '''
>>> history_actors(text)
{3: 2, 4: 2}
>>> import random
>>> hand, expect = stud_to_hand(text, rng=random.Random(0))
>>> [(s.get("deal"), s.get("to"), s.get("face_up", False)) for s in hand["steps"][6:9]]
[('4d', 'seat:1', True), ('4c', 'seat:2', True), ('5c', 'seat:3', True)]
>>> [next(iter(s)) if "to" not in s else s["to"] for s in hand["steps"][9:]]
['muck', 'press', 'burn', 'seat:1', 'seat:2', 'end']
>>> expect
[{'rule': 'STUD-002', 'street': 3, 'seat': 2}, {'rule': 'STUD-004', 'street': 4, 'seats': [2]}]
"""

from __future__ import annotations

import functools
import random
import tomllib
from pathlib import Path
from typing import Any
from collections.abc import Callable

from controller.core.cards import FULL_DECK
from hw_sim.phh import PhhError, UnsupportedHand, _cards, _player, _repeated, actions_and_players
from hw_sim.stud_oracle import bring_in, first_to_act

#: PHH variant -> the deal script's game
STUD_VARIANTS = {"F7S": "stud", "F7S/8": "stud8", "FR": "razz"}
#: player actions that are bets (who acts first on a street); ``sm`` (showdown) is not one
BETTING = ("pb", "f", "cc", "cbr")


def _doc(text: str) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not valid TOML: {exc}") from None
    variant = doc.get("variant")
    if variant not in STUD_VARIANTS:
        raise UnsupportedHand(f"PHH variant {variant!r} is not a stud game (stud variants: "
                              f"{', '.join(STUD_VARIANTS)})")
    actions_and_players(doc, 8, "cannot be dealt: stud deals 2 to 8")
    return doc


def _read(doc: dict[str, Any]) -> tuple[list[tuple[str, Any]], int]:
    """The hand's events in order: ``("deal", street, player, [cards or None])``, ``("act",
    street, player, word)``, ``("show", street, player, [cards])``; and the number of players."""
    n = len(doc["starting_stacks"])
    events: list[tuple[str, Any]] = []
    street = 2
    dealt_this: set[int] = set()
    for number, raw in enumerate(doc["actions"], 1):
        what = f"action {number} {raw.strip()!r}"
        words = raw.split("#", 1)[0].split()
        if not words:
            continue
        if words[0] == "d":
            if words[1:2] != ["dh"] or len(words) != 4:
                raise PhhError(f"{what}: not a dealer action of a stud game")
            player = _player(words[2], n, what)
            if player in dealt_this or street == 2:
                street += 1
                dealt_this = set()
            dealt_this.add(player)
            cards = _cards(words[3], what)
            if len(cards) != (3 if street == 3 else 1):
                raise PhhError(f"{what}: {len(cards)} cards on street {street}")
            if street > 7:
                raise PhhError(f"{what}: a card after 7th street")
            events.append(("deal", (street, player, cards)))
            continue
        player = _player(words[0], n, what)
        if len(words) < 2 or words[1] not in BETTING + ("sm",):
            raise PhhError(f"{what}: not an action of a stud game")
        if words[1] == "sm":
            shown = [c for c in _cards(words[2], what) if c is not None] if len(words) > 2 and words[2] != "-" else []
            events.append(("show", (street, player, shown)))
        else:
            events.append(("act", (street, player, words[1])))
    return events, n


def history_actors(text: str) -> dict[int, int]:
    """Street -> the player (= seat) who acted first on it: on 3rd street the bring-in (the
    first forced bet), on each later street the first betting action after its cards. A street
    without a betting action (every player all-in) is left out."""
    return _actors(_read(_doc(text))[0])


def _actors(events: list[tuple[str, Any]]) -> dict[int, int]:
    first: dict[int, int] = {}
    for kind, (street, player, _word) in events:
        if kind == "act":
            first.setdefault(street, player)
    return first


def _cards_of_players(events: list[tuple[str, Any]], n: int) -> dict[int, list[str | None]]:
    """Each player's cards in the order dealt; None for an unknown one, filled from a showdown first."""
    dealt = {(st, p): cards for kind, (st, p, cards) in events if kind == "deal"}
    shown = {p: cards for kind, (st, p, cards) in events if kind == "show" and cards}
    if any((3, p) not in dealt for p in range(1, n + 1)):
        raise PhhError("every player is dealt 3rd street")
    mine: dict[int, list[str | None]] = {p: [c for st in range(3, 8) for c in dealt.get((st, p), [])]
                                         for p in range(1, n + 1)}
    for p, cards in mine.items():
        reveal = [c for c in shown.get(p, []) if c not in cards]
        mine[p] = [c if c is not None else (reveal.pop(0) if reveal else None) for c in cards]
    return mine


def _unused_pool(mine: dict[int, list[str | None]], rng: random.Random) -> list[str]:
    """The cards the hand does not use, shuffled with ``rng``: the unknown cards and the burns come from them."""
    known = [c for cards in mine.values() for c in cards if c is not None]
    twice = _repeated(known)
    if twice is not None:
        raise PhhError(f"{twice} appears twice in the hand")
    pool = [c for c in FULL_DECK if c not in set(known)]
    rng.shuffle(pool)
    return pool


def _dealt_on(events: list[tuple[str, Any]]) -> dict[int, list[int]]:
    """Street -> the players dealt on it, in the history's order."""
    live_at: dict[int, list[int]] = {}
    for kind, value in events:
        if kind == "deal":
            live_at.setdefault(value[0], []).append(value[1])
    return live_at


class _UnknownCards:
    """Fills a stud hand's unknown cards (``mine``, None) from ``pool``, drawn with ``rng``, so
    that the history stays true: the up cards street by street, each street's unknown ones
    checked against who brought in or acted first (``actors``), then the others. The cards drawn
    leave ``pool``."""

    def __init__(self, mine: dict[int, list[str | None]], pool: list[str], rng: random.Random, *, game: str,
                 actors: dict[int, int], live_at: dict[int, list[int]]) -> None:
        self.mine, self.pool, self.rng = mine, pool, rng
        self.game, self.actors, self.live_at = game, actors, live_at

    def fill_all(self) -> None:
        """Every unknown card, the up cards first, street by street."""
        mine = self.mine
        self.fill([(p, 2) for p in mine if mine[p][2] is None], self._keeps_bring_in)
        for st in (4, 5, 6):
            if st in self.live_at:
                self.fill([(p, st - 1) for p in self.live_at[st] if mine[p][st - 1] is None],
                          functools.partial(self._keeps_first_to_act, st))
        self.fill([(p, i) for p, cards in mine.items() for i, c in enumerate(cards) if c is None], lambda: True)

    def fill(self, slots: list[tuple[int, int]], keeps: Callable[[], bool]) -> None:
        """The unknown cards ``slots`` ((player, index)) drawn from the pool, again until the
        history ``keeps()`` true (the bring-in, the first to act). Known cards are the history's:
        nothing to check."""
        if not slots:
            return
        for _ in range(1000):
            picks = self.rng.sample(self.pool, len(slots))
            for (p, i), c in zip(slots, picks, strict=True):
                self.mine[p][i] = c
            if keeps():
                for c in picks:
                    self.pool.remove(c)
                return
        raise PhhError(f"no cards fill the unknown ones of {[f'p{p}' for p, _ in slots]} and keep the history")

    def _keeps_bring_in(self) -> bool:
        """The up cards bring in the player the history shows bringing in (or it shows none)."""
        if 3 not in self.actors:
            return True
        return bring_in({p: str(self.mine[p][2]) for p in self.mine}, self.game) == self.actors[3]

    def _keeps_first_to_act(self, st: int) -> bool:
        """The cards showing on street ``st`` let the player the history shows act first (or it shows none)."""
        if st not in self.actors:
            return True
        showing = {p: [c for c in self.mine[p][2:st] if c is not None] for p in self.live_at[st]}
        return self.actors[st] in first_to_act(showing, self.game)[0]


def _stud_steps(mine: dict[int, list[str | None]], pool: list[str], events: list[tuple[str, Any]],
                live_at: dict[int, list[int]], n: int) -> list[dict[str, Any]]:
    """The deal (STUD-001): 3rd street round by round, then each fold a muck and each later
    street the tap, a burn from ``pool`` and a card each seat dealt on it; the end."""
    steps: list[dict[str, Any]] = []
    for r in range(3):  # 3rd street: down, down, up, round by round from seat 1
        for p in range(1, n + 1):
            steps.append({"deal": mine[p][r], "to": f"seat:{p}", **({"face_up": True} if r == 2 else {})})
    live = list(range(1, n + 1))
    street = 3
    for kind, value in events:
        st, p, _ = value
        if kind == "act" and value[2] == "f":
            steps.append({"muck": f"seat:{p}"})
            live.remove(p)
        elif kind == "deal" and st > street:
            street = st
            steps += _later_street(st, mine, pool, live_at[st])
    steps.append({"end": True})
    return steps


def _later_street(st: int, mine: dict[int, list[str | None]], pool: list[str],
                  dealt: list[int]) -> list[dict[str, Any]]:
    """Street ``st`` (4th to 7th): the tap, a burn from ``pool``, a card each seat ``dealt``,
    in seat order (down on 7th street)."""
    steps: list[dict[str, Any]] = [{"press": "round_done"}, {"deal": pool.pop(0), "to": "burn"}]
    for q in sorted(dealt):
        steps.append({"deal": mine[q][st - 1], "to": f"seat:{q}", **({"face_up": True} if st < 7 else {})})
    return steps


def _expect(actors: dict[int, int], live_at: dict[int, list[int]]) -> list[dict[str, Any]]:
    """One prompt a street dealt; a street with no betting (all in) names no seat: the history
    does not say who would have acted first."""
    expect: list[dict[str, Any]] = [{"rule": "STUD-002", "street": 3, "seat": actors.get(3)}]
    expect += [{"rule": "STUD-004", "street": st, "seats": [actors[st]] if st in actors else None}
               for st in sorted(live_at) if st > 3]
    return expect


def stud_to_hand(text: str, *, rng: random.Random) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One PHH stud hand -> (a script hand ``{"seats", "button", "steps"}``, the prompts the
    history shows: ``STUD-002`` the bring-in's seat, ``STUD-004`` the first to act on each later
    street dealt, ``"seats": None`` on a street without betting). See the module for the deal and
    the unknown cards."""
    doc = _doc(text)
    game = STUD_VARIANTS[doc["variant"]]
    events, n = _read(doc)
    actors = _actors(events)
    mine = _cards_of_players(events, n)
    pool = _unused_pool(mine, rng)
    live_at = _dealt_on(events)
    _UnknownCards(mine, pool, rng, game=game, actors=actors, live_at=live_at).fill_all()
    steps = _stud_steps(mine, pool, events, live_at, n)
    return {"seats": list(range(1, n + 1)), "button": n, "steps": steps}, _expect(actors, live_at)


def load_phh_stud_hands(root: Path, *, seed: int = 0) -> list[tuple[str, dict[str, Any], str, list[dict[str, Any]]]]:
    """``(relpath, hand, game, expect)`` for every stud ``*.phh`` file under ``root``, sorted by
    path; each file's fill-ins from its own ``random.Random`` (``seed`` and the relpath)."""
    out = []
    for path in sorted(Path(root).rglob("*.phh")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        try:
            hand, expect = stud_to_hand(text, rng=random.Random(f"{seed}:{rel}"))
        except UnsupportedHand:
            continue
        except PhhError as exc:
            raise PhhError(f"{rel}: {exc}") from None
        out.append((rel, hand, STUD_VARIANTS[tomllib.loads(text)["variant"]], expect))
    return out
