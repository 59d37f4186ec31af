"""Real hands: PHH hand histories (``../shared/phh/``) turned into deal-script hands.

PHH numbers players in dealing order: p1 is the small blind, the last player the button
(heads-up: p1 is the big blind and p2 the button). Player pN sits at seat N and the button is
the last seat, so the first card goes to seat 1, left of the button (DEAL-001, DEAL-002).

PHH lists hole cards player by player and records no burns; a physical deal is round by round,
with a burn before every street (BURN-001). Unknown cards (``??``) and burns are filled from the
cards the hand did not use, with the given random generator.

>>> import random
>>> text = '''variant = "NT"
... starting_stacks = [100, 100, 100]
... actions = ["d dh p1 AsKs", "d dh p2 ????", "d dh p3 7h7d", "p1 f", "d db 2c3c4c"]'''
>>> hand = phh_to_hand(text, rng=random.Random(1))
>>> [s.get("to") or s.get("muck") for s in hand["steps"][:6]]
['seat:1', 'seat:2', 'seat:3', 'seat:1', 'seat:2', 'seat:3']
>>> hand["steps"][6], hand["steps"][7]["to"], hand["button"]
({'muck': 'seat:1'}, 'burn', 3)
"""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path
from typing import Any

from controller.cards import FULL_DECK, parse_card
from controller.settings import GAMES, deal_order

#: PHH variant -> our game. NT/FT: no-limit / fixed-limit hold'em; PO: pot-limit Omaha;
#: FO/8: fixed-limit Omaha hi-lo (the same deal).
VARIANTS = {"NT": "holdem", "FT": "holdem", "PO": "omaha", "FO/8": "omaha"}
_CARD = re.compile(r"(\?\?|[2-9TJQKA][cdhs])")


class UnsupportedHand(ValueError):
    """A hand of a game the tracker does not deal yet (stud, draw, short deck)."""


def phh_game(variant: str) -> str:
    try:
        return VARIANTS[variant]
    except KeyError:
        raise UnsupportedHand(f"variant {variant!r} is not a flop game dealt from 52 cards "
                              f"(supported: {', '.join(VARIANTS)})") from None


def _cards(text: str) -> list[str]:
    cards = _CARD.findall(text)
    if "".join(cards) != text:
        raise ValueError(f"not a run of cards: {text!r}")
    return [c if c == "??" else parse_card(c) for c in cards]


def parse_phh(text: str) -> dict[str, Any]:
    """The parts of a PHH hand a physical deal needs: players, hole cards, streets and folds."""
    doc = tomllib.loads(text)
    game = phh_game(doc.get("variant", "?"))
    players = len(doc["starting_stacks"])
    hole: dict[int, list[str]] = {}
    events: list[tuple[str, Any]] = []  # ("board", cards) | ("fold", player), in order
    for action in doc["actions"]:
        parts = action.split()
        if parts[:2] == ["d", "dh"]:
            hole[int(parts[2][1:])] = _cards(parts[3])
        elif parts[:2] == ["d", "db"]:
            events.append(("board", _cards(parts[2])))
        elif len(parts) >= 2 and parts[0].startswith("p") and parts[1] == "f":
            events.append(("fold", int(parts[0][1:])))
    per_seat = GAMES[game]
    for p, cards in hole.items():
        if len(cards) != per_seat:
            raise ValueError(f"p{p} has {len(cards)} hole cards; {game} deals {per_seat}")
    return {"game": game, "players": players, "hole": hole, "events": events}


def phh_to_hand(text: str, *, rng: random.Random) -> dict[str, Any]:
    """One deal-script hand (``{"seats", "button", "steps"}``) from one PHH hand."""
    hand = parse_phh(text)
    seats = list(range(1, hand["players"] + 1))
    button = seats[-1]
    hole: dict[int, list[str]] = {p: list(c) for p, c in hand["hole"].items()}
    used = {c for cards in hole.values() for c in cards if c != "??"}
    used |= {c for kind, v in hand["events"] if kind == "board" for c in v}
    spare = [c for c in FULL_DECK if c not in used]
    rng.shuffle(spare)
    for cards in hole.values():
        for i, c in enumerate(cards):
            if c == "??":
                cards[i] = spare.pop()
    steps: list[dict[str, Any]] = []
    for r in range(GAMES[hand["game"]]):  # round by round, clockwise from left of the button
        for seat in deal_order(seats, button):
            steps.append({"deal": hole[seat][r], "to": f"seat:{seat}"})
    for kind, value in hand["events"]:
        if kind == "fold":
            steps.append({"muck": f"seat:{value}"})
        else:
            steps.append({"deal": spare.pop(), "to": "burn"})
            steps += [{"deal": c, "to": "board"} for c in value]
    steps.append({"end": True})
    return {"seats": seats, "button": button, "steps": steps}


def load_phh_hands(root: Path) -> list[tuple[str, str, str]]:
    """``(relative path, game, text)`` for every flop-game hand under ``root``, sorted."""
    out = []
    for path in sorted(root.rglob("*.phh")):
        text = path.read_text()
        try:
            game = phh_game(tomllib.loads(text).get("variant", "?"))
        except UnsupportedHand:
            continue
        out.append((str(path.relative_to(root)), game, text))
    return out
