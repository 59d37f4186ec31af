"""Real hands from PHH hand histories (the tests use ``tests/data/phh``), as deal-script hands.

A PHH file (TOML, https://github.com/uoftcprg/phh-std) records one hand: the variant, the
players in dealing order, and the actions (``d dh p3 Ah5c``, ``p3 f``, ``d db Jc3d5c``,
``p1 sm Ac2d`` ...). :func:`phh_to_hand` turns a hand of a flop game into one script hand
``{"seats": [...], "button": n, "steps": [...]}`` (deal-script.md):

- player ``pN`` sits at seat N. PHH numbers players in dealing order (p1 the small blind, the
  last player the button; heads-up p1 is the big blind and p2 the button), so the button is the
  last seat and the first card goes to seat 1, left of the button (DEAL-001, DEAL-002);
- hole cards are dealt round by round, one card to each seat and then the next, as a dealer
  pitches them (DEAL-001), though PHH lists them player by player;
- PHH records no burns and writes unknown cards as ``??``: an unknown hole card that the
  player shows down (``pN sm``) is the card shown; every other unknown card and every burn is
  drawn, with ``rng``, from the cards the hand does not use;
- each board deal (``d db``: 3 cards for the flop, then 1 for the turn and 1 for the river) gets
  one burn just before it (BURN-001), and the dealer's tap, ``{"press": "round_done"}``, just
  before that burn, once the round's folds are mucked (BURN-002);
- ``pN f`` becomes ``{"muck": "seat:N"}``; bets, calls, showdowns and commentary add nothing;
- ``{"end": true}`` closes the hand.

Repair: a live player who never acts before the flop although not all-in from the blinds and
antes has lost a fold (``wsop/2019/42/3/00-01-07.phh``: p8, the button). As pokerkit does, the
fold is put back, as a muck just before the tap before the flop's burn, and a warning says so.

Variants: ``NT``, ``FT`` (hold'em, 2 hole cards) and ``PO``, ``FO/8`` (Omaha and Omaha hi-lo, 4).
Stud, razz and stud 8 hands are ``tablectl.sim.phh_stud``'s; those, draw and short-deck hands raise
:class:`UnsupportedHand` here, naming the variant.

>>> import random
>>> text = '''variant = "NT"
... antes = [0, 0, 0]
... blinds_or_straddles = [1, 2, 0]
... min_bet = 2
... starting_stacks = [200, 200, 200]
... actions = ["d dh p1 AcKd", "d dh p2 ????", "d dh p3 7h6h", "p3 cbr 6", "p1 cc", "p2 f",
...            "d db Jc3d5c", "p1 cc", "p3 cc", "d db 4h # the turn", "p1 cc", "p3 cc"]
... '''
>>> hand = phh_to_hand(text, rng=random.Random(0))
>>> hand["seats"], hand["button"]
([1, 2, 3], 3)
>>> [(s["deal"] if s["to"] != "seat:2" else "??", s["to"]) for s in hand["steps"][:6]]
[('Ac', 'seat:1'), ('??', 'seat:2'), ('7h', 'seat:3'), ('Kd', 'seat:1'), ('??', 'seat:2'), ('6h', 'seat:3')]
>>> [s.get("to", next(iter(s))) for s in hand["steps"][6:]]
['muck', 'press', 'burn', 'board', 'board', 'board', 'press', 'burn', 'board', 'end']
"""

from __future__ import annotations

import random
import tomllib
from pathlib import Path
from typing import Any
from collections.abc import Sequence

from tablectl.core.cards import FULL_DECK, CardError, parse_card
from tablectl.core.games import game_of

#: PHH variant -> the deal script's game, for the flop games a script can deal.
FLOP_VARIANTS = {"NT": "holdem", "FT": "holdem", "PO": "omaha", "FO/8": "omaha8"}
#: Variants known not to be dealt as a script hand, and why.
UNSUPPORTED_VARIANTS = {
    "NS": "short-deck hold'em, dealt from a 36-card deck",
    "F7S": "seven card stud: tablectl.sim.phh_stud deals it",
    "F7S/8": "seven card stud high/low: tablectl.sim.phh_stud deals it",
    "FR": "razz, a stud game: tablectl.sim.phh_stud deals it",
    "N2L1D": "deuce-to-seven single draw",
    "F2L3D": "deuce-to-seven triple draw",
    "FB": "badugi, a draw game",
}
#: hole cards of each game PHH hands are dealt as (tablectl.core.games has them)
HOLE_CARDS = {game: game_of(game).hole_cards for game in set(FLOP_VARIANTS.values())}
#: board cards of each street: flop, turn, river
STREETS = (3, 1, 1)


class PhhError(ValueError):
    """A PHH hand that cannot be turned into a deal (malformed, or contradicting itself)."""


class UnsupportedHand(PhhError):
    """A PHH hand of a variant a deal script cannot deal (stud, draw, short deck ...)."""


def phh_game(variant: str) -> str:
    """The deal script's game for a PHH variant code.

    >>> phh_game("PO")
    'omaha'
    >>> phh_game("F7S")
    Traceback (most recent call last):
    ...
    tablectl.sim.phh.UnsupportedHand: PHH variant 'F7S' (seven card stud: tablectl.sim.phh_stud deals it) is not
        supported: only the flop games NT, FT, PO, FO/8
    """
    if variant in FLOP_VARIANTS:
        return FLOP_VARIANTS[variant]
    why = UNSUPPORTED_VARIANTS.get(variant, "unknown variant")
    raise UnsupportedHand(f"PHH variant {variant!r} ({why}) is not supported: only the flop games "
                          f"{', '.join(FLOP_VARIANTS)}")


def _cards(text: str, what: str) -> list[str | None]:
    """PHH card notation (``AcKd``, ``????``) -> canonical cards, None for an unknown one."""
    if len(text) % 2:
        raise PhhError(f"{what}: {text!r} is not a run of two-character cards")
    out: list[str | None] = []
    for i in range(0, len(text), 2):
        chunk = text[i:i + 2]
        if chunk == "??":
            out.append(None)
            continue
        try:
            out.append(parse_card(chunk))
        except CardError:
            raise PhhError(f"{what}: {chunk!r} is not a card") from None
    return out


def _player(token: str, n: int, what: str) -> int:
    if len(token) < 2 or token[0] != "p" or not token[1:].isdigit() or not 1 <= int(token[1:]) <= n:
        raise PhhError(f"{what}: {token!r} is not a player p1..p{n}")
    return int(token[1:])


def _all_in_from_forced_bets(doc: dict[str, Any], player: int, n: int) -> bool:
    """True when the forced bets (antes, blinds, straddles) took ``player``'s whole stack."""
    stacks = doc.get("starting_stacks") or []
    antes = list(doc.get("antes") or [0] * n)
    blinds = list(doc.get("blinds_or_straddles") or [0] * n)
    if n == 2:  # heads-up, the forced bets are reversed by rule (phh-std)
        antes.reverse()
        blinds.reverse()
    stack = stacks[player - 1] if player - 1 < len(stacks) else None
    if not isinstance(stack, (int, float)):
        return False  # unknown stack
    forced = sum(x[player - 1] for x in (antes, blinds)
                 if player - 1 < len(x) and isinstance(x[player - 1], (int, float)))
    return stack <= forced


def actions_and_players(doc: dict[str, Any], most: int, beyond: str) -> tuple[list[str], int]:
    """A PHH hand's ``actions`` (a list of strings) and its number of players (by its
    ``starting_stacks``, 2 to ``most``; ``beyond`` says why more cannot be dealt).

    >>> actions_and_players({"actions": ["d dh p1 AsKs"], "starting_stacks": [100, 100]}, 10, "")
    (['d dh p1 AsKs'], 2)
    """
    actions = doc.get("actions")
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PhhError('"actions" must be a list of strings')
    stacks = doc.get("starting_stacks")
    n = len(stacks) if isinstance(stacks, list) else 0
    if not 2 <= n <= most:
        raise UnsupportedHand(f"a hand of {n} players (by its starting_stacks) {beyond}")
    return actions, n


def parse_phh(text: str) -> dict[str, Any]:
    """What a physical deal needs of a PHH hand (TOML text), checked.

    Returns ``{"variant", "game", "players", "hole", "shown", "events", "preflop_actors", "doc"}``:
    ``hole`` maps each player to the hole cards PHH lists (``"??"`` for an unknown one),
    ``shown`` to the known cards it shows down, ``events`` is ``("fold", player)`` and
    ``("board", [cards])`` in order, ``preflop_actors`` the players who act before the flop,
    ``doc`` the whole TOML table.
    Raises :class:`UnsupportedHand` or :class:`PhhError`.
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not valid TOML: {exc}") from None
    variant = doc.get("variant")
    if not isinstance(variant, str):
        raise PhhError('no "variant" in the hand')
    game = phh_game(variant)
    k = HOLE_CARDS[game]
    actions, n = actions_and_players(doc, 10, "does not fit seats 1 to 10")

    hole: dict[int, list[str | None]] = {}
    shown: dict[int, list[str]] = {}
    events: list[tuple[str, Any]] = []
    preflop: set[int] = set()
    for number, raw in enumerate(actions, 1):
        what = f"action {number} {raw.strip()!r}"
        words = raw.split("#", 1)[0].split()  # drop the commentary
        if not words:
            continue  # a no-op
        if words[0] == "d":
            if words[1:2] == ["dh"] and len(words) == 4:
                hole.setdefault(_player(words[2], n, what), []).extend(_cards(words[3], what))
            elif words[1:2] == ["db"] and len(words) == 3:
                cards = _cards(words[2], what)
                if None in cards:
                    raise PhhError(f"{what}: an unknown board card")
                events.append(("board", cards))
            else:
                raise PhhError(f"{what}: not a dealer action of a flop game")
            continue
        player = _player(words[0], n, what)
        if len(words) < 2:
            raise PhhError(f"{what}: no action")
        if not any(kind == "board" for kind, _ in events):
            preflop.add(player)
        if words[1] == "f":
            if ("fold", player) in events:
                raise PhhError(f"{what}: p{player} has folded already")
            events.append(("fold", player))
        elif words[1] == "sm" and len(words) >= 3 and words[2] != "-":
            shown[player] = [c for c in _cards(words[2], what) if c is not None]
        elif words[1] not in ("cc", "cbr", "sm"):
            raise PhhError(f"{what}: {words[1]!r} is not an action of a flop game")

    for player in range(1, n + 1):
        cards = hole.get(player, [])
        if len(cards) != k:
            raise PhhError(f"p{player} is dealt {len(cards)} hole cards, {variant} deals {k}")
    boards = [cards for kind, cards in events if kind == "board"]
    if [len(b) for b in boards] != list(STREETS[:len(boards)]) or len(boards) > len(STREETS):
        raise PhhError(f"the board is dealt as {[len(b) for b in boards]} cards: a flop game deals 3, 1, 1 "
                       f"(a board run twice is not supported)")
    known = [c for p in range(1, n + 1) for c in hole[p] if c is not None] + [c for b in boards for c in b]
    if len(set(known)) != len(known):
        raise PhhError(f"{next(c for c in known if known.count(c) > 1)} appears twice in the hand")
    return {"variant": variant, "game": game, "players": n,
            "hole": {p: [c or "??" for c in hole[p]] for p in range(1, n + 1)},
            "shown": shown, "events": events, "preflop_actors": preflop, "doc": doc}


def phh_to_hand(text: str, *, rng: random.Random, warnings: list[str] | None = None) -> dict[str, Any]:
    """One PHH hand (TOML text) -> one script hand dict ``{"seats", "button", "steps"}``.

    ``rng`` fills the unknown cards and the burns from the cards the hand does not use.
    ``warnings``, when given, receives a line for each repair made (see the module doc).
    Raises :class:`UnsupportedHand` for a variant that is not a flop game, :class:`PhhError`
    for a hand that cannot be dealt.
    """
    hand = parse_phh(text)
    n, k = hand["players"], HOLE_CARDS[hand["game"]]
    hole: dict[int, list[str | None]] = {}
    for p, cards in hand["hole"].items():
        # an unknown hole card that the player shows down is the card shown
        reveal = [c for c in hand["shown"].get(p, []) if c not in cards]
        hole[p] = [c if c != "??" else (reveal.pop(0) if reveal else None) for c in cards]
    known = [c for cards in hole.values() for c in cards if c is not None]
    known += [c for kind, v in hand["events"] if kind == "board" for c in v]
    if len(set(known)) != len(known):
        raise PhhError(f"{next(c for c in known if known.count(c) > 1)} is shown down but is elsewhere "
                       f"in the hand too")
    pool = [c for c in FULL_DECK if c not in set(known)]
    rng.shuffle(pool)
    draw = iter(pool)  # the unknown cards and the burns, in the order they are pitched

    steps: list[dict[str, Any]] = []
    for r in range(k):  # DEAL-001/002: round by round, from seat 1, left of the button
        for seat in range(1, n + 1):
            card = hole[seat][r]
            steps.append({"deal": card if card is not None else next(draw), "to": f"seat:{seat}"})
    folded: set[int] = set()
    flop = True
    for kind, value in hand["events"]:
        if kind == "fold":
            folded.add(value)
            steps.append({"muck": f"seat:{value}"})
            continue
        if flop:  # the lost-fold repair (module doc)
            flop = False
            for seat in range(1, n + 1):
                if seat not in hand["preflop_actors"] and seat not in folded \
                        and not _all_in_from_forced_bets(hand["doc"], seat, n):
                    folded.add(seat)
                    steps.append({"muck": f"seat:{seat}"})
                    if warnings is not None:
                        warnings.append(f"p{seat} never acts before the flop and is not all-in: "
                                        f"the lost fold is put back (a muck of seat:{seat})")
        steps.append({"press": "round_done"})  # BURN-002: the tap, once the round's folds are in
        steps.append({"deal": next(draw), "to": "burn"})  # BURN-001: one burn before each street
        steps.extend({"deal": c, "to": "board"} for c in value)
    steps.append({"end": True})
    return {"seats": list(range(1, n + 1)), "button": n, "steps": steps}


def phh_variant(text: str) -> str:
    """The variant code of a PHH hand (TOML text)."""
    try:
        variant = tomllib.loads(text).get("variant")
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not valid TOML: {exc}") from None
    if not isinstance(variant, str):
        raise PhhError('no "variant" in the hand')
    return variant


def load_phh_hands(root: Path, *, seed: int = 0) -> list[tuple[str, dict[str, Any], str]]:
    """``(relpath, hand, game)`` for every ``*.phh`` file under ``root`` of a supported
    variant, sorted by path (relpath with ``/``). Each file gets its own ``random.Random``
    seeded from ``seed`` and its relpath, so a hand's fill-ins do not depend on the others.
    A supported file that cannot be converted raises :class:`PhhError` naming the file.
    """
    root = Path(root)
    out = []
    for path in sorted(root.rglob("*.phh")):
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8")
        try:
            game = phh_game(phh_variant(text))
            hand = phh_to_hand(text, rng=random.Random(f"{seed}:{rel}"))
        except UnsupportedHand:
            continue
        except PhhError as exc:
            raise PhhError(f"{rel}: {exc}") from None
        out.append((rel, hand, game))
    return out


def phh_script(hands: Sequence[dict[str, Any]], *, game: str,
               noise: dict[str, Any] | None = None) -> dict[str, Any]:
    """A whole deal script (a dict) of PHH hands of one ``game``; the top-level seats and
    button are the first hand's, and every hand names its own."""
    if not hands:
        raise ValueError("a script has at least one hand")
    return {"format": 1, "game": game, "seats": hands[0]["seats"], "button": hands[0]["button"],
            "noise": noise if noise is not None else {"seed": 0}, "hands": list(hands)}
