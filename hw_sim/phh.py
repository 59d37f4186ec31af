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
Stud, razz and stud 8 hands are ``hw_sim.phh_stud``'s; those, draw and short-deck hands raise
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Iterator, Sequence

from controller.core.cards import FULL_DECK, CardError, parse_card
from controller.core.games import game_of

#: PHH variant -> the deal script's game, for the flop games a script can deal.
FLOP_VARIANTS = {"NT": "holdem", "FT": "holdem", "PO": "omaha", "FO/8": "omaha8"}
#: Variants known not to be dealt as a script hand, and why.
UNSUPPORTED_VARIANTS = {
    "NS": "short-deck hold'em, dealt from a 36-card deck",
    "F7S": "seven card stud: hw_sim.phh_stud deals it",
    "F7S/8": "seven card stud high/low: hw_sim.phh_stud deals it",
    "FR": "razz, a stud game: hw_sim.phh_stud deals it",
    "N2L1D": "deuce-to-seven single draw",
    "F2L3D": "deuce-to-seven triple draw",
    "FB": "badugi, a draw game",
}
#: hole cards of each game PHH hands are dealt as (controller.core.games has them)
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
    hw_sim.phh.UnsupportedHand: PHH variant 'F7S' (seven card stud: hw_sim.phh_stud deals it) is not
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


def _load(text: str) -> tuple[dict[str, Any], str]:
    """A PHH hand's TOML table (TOML text) and its variant code."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PhhError(f"not valid TOML: {exc}") from None
    variant = doc.get("variant")
    if not isinstance(variant, str):
        raise PhhError('no "variant" in the hand')
    return doc, variant


def _repeated(cards: list[str]) -> str | None:
    """The first of ``cards`` that appears more than once in them, None when none does."""
    return next((c for c in cards if cards.count(c) > 1), None)


@dataclass
class _FlopActions:
    """What a physical deal needs of a flop game's actions, read one action after the other
    (:func:`parse_phh` says what each field holds)."""

    players: int
    hole: dict[int, list[str | None]] = field(default_factory=dict)
    shown: dict[int, list[str]] = field(default_factory=dict)
    events: list[tuple[str, Any]] = field(default_factory=list)
    preflop: set[int] = field(default_factory=set)

    def read(self, number: int, raw: str) -> None:
        """Take in action ``number`` (from 1), its text ``raw``."""
        what = f"action {number} {raw.strip()!r}"
        words = raw.split("#", 1)[0].split()  # drop the commentary
        if not words:
            return  # a no-op
        if words[0] == "d":
            self._dealer_action(words, what)
        else:
            self._player_action(words, what)

    def _dealer_action(self, words: list[str], what: str) -> None:
        """A dealer action: hole cards (``d dh``) or board cards (``d db``)."""
        if words[1:2] == ["dh"] and len(words) == 4:
            self.hole.setdefault(_player(words[2], self.players, what), []).extend(_cards(words[3], what))
        elif words[1:2] == ["db"] and len(words) == 3:
            cards = _cards(words[2], what)
            if None in cards:
                raise PhhError(f"{what}: an unknown board card")
            self.events.append(("board", cards))
        else:
            raise PhhError(f"{what}: not a dealer action of a flop game")

    def _player_action(self, words: list[str], what: str) -> None:
        """A player's action: a fold, or the cards shown down; a check, call, bet or raise adds nothing."""
        player = _player(words[0], self.players, what)
        if len(words) < 2:
            raise PhhError(f"{what}: no action")
        if not any(kind == "board" for kind, _ in self.events):
            self.preflop.add(player)
        if words[1] == "f":
            if ("fold", player) in self.events:
                raise PhhError(f"{what}: p{player} has folded already")
            self.events.append(("fold", player))
        elif words[1] == "sm" and len(words) >= 3 and words[2] != "-":
            self.shown[player] = [c for c in _cards(words[2], what) if c is not None]
        elif words[1] not in ("cc", "cbr", "sm"):
            raise PhhError(f"{what}: {words[1]!r} is not an action of a flop game")


def _check_hole_counts(hole: dict[int, list[str | None]], n: int, variant: str, k: int) -> None:
    """Every player is dealt the ``k`` hole cards of the variant."""
    for player in range(1, n + 1):
        cards = hole.get(player, [])
        if len(cards) != k:
            raise PhhError(f"p{player} is dealt {len(cards)} hole cards, {variant} deals {k}")


def _boards(events: list[tuple[str, Any]]) -> list[list[str]]:
    """The board deals of the hand, checked against the flop, the turn and the river."""
    boards = [cards for kind, cards in events if kind == "board"]
    if [len(b) for b in boards] != list(STREETS[:len(boards)]) or len(boards) > len(STREETS):
        raise PhhError(f"the board is dealt as {[len(b) for b in boards]} cards: a flop game deals 3, 1, 1 "
                       f"(a board run twice is not supported)")
    return boards


def parse_phh(text: str) -> dict[str, Any]:
    """What a physical deal needs of a PHH hand (TOML text), checked.

    Returns ``{"variant", "game", "players", "hole", "shown", "events", "preflop_actors", "doc"}``:
    ``hole`` maps each player to the hole cards PHH lists (``"??"`` for an unknown one),
    ``shown`` to the known cards it shows down, ``events`` is ``("fold", player)`` and
    ``("board", [cards])`` in order, ``preflop_actors`` the players who act before the flop,
    ``doc`` the whole TOML table.
    Raises :class:`UnsupportedHand` or :class:`PhhError`.
    """
    doc, variant = _load(text)
    game = phh_game(variant)
    actions, n = actions_and_players(doc, 10, "does not fit seats 1 to 10")
    dealt = _FlopActions(n)
    for number, raw in enumerate(actions, 1):
        dealt.read(number, raw)
    _check_hole_counts(dealt.hole, n, variant, HOLE_CARDS[game])
    boards = _boards(dealt.events)
    known = [c for p in range(1, n + 1) for c in dealt.hole[p] if c is not None] + [c for b in boards for c in b]
    twice = _repeated(known)
    if twice is not None:
        raise PhhError(f"{twice} appears twice in the hand")
    return {"variant": variant, "game": game, "players": n,
            "hole": {p: [c or "??" for c in dealt.hole[p]] for p in range(1, n + 1)},
            "shown": dealt.shown, "events": dealt.events, "preflop_actors": dealt.preflop, "doc": doc}


def _hole_with_shown(hand: dict[str, Any]) -> dict[int, list[str | None]]:
    """Each player's hole cards, an unknown one filled with a card the player shows down (None
    when there is none to fill it)."""
    hole: dict[int, list[str | None]] = {}
    for p, cards in hand["hole"].items():
        # an unknown hole card that the player shows down is the card shown
        reveal = [c for c in hand["shown"].get(p, []) if c not in cards]
        hole[p] = [c if c != "??" else (reveal.pop(0) if reveal else None) for c in cards]
    return hole


def _unused(hole: dict[int, list[str | None]], events: list[tuple[str, Any]], rng: random.Random) -> Iterator[str]:
    """The cards the hand does not use, shuffled with ``rng``: the unknown cards and the burns,
    in the order they are pitched."""
    known = [c for cards in hole.values() for c in cards if c is not None]
    known += [c for kind, v in events if kind == "board" for c in v]
    twice = _repeated(known)
    if twice is not None:
        raise PhhError(f"{twice} is shown down but is elsewhere in the hand too")
    pool = [c for c in FULL_DECK if c not in set(known)]
    rng.shuffle(pool)
    return iter(pool)


def _hole_steps(hole: dict[int, list[str | None]], n: int, k: int, draw: Iterator[str]) -> list[dict[str, Any]]:
    """The hole cards' deals (DEAL-001/002): round by round, from seat 1, left of the button."""
    steps: list[dict[str, Any]] = []
    for r in range(k):
        for seat in range(1, n + 1):
            card = hole[seat][r]
            steps.append({"deal": card if card is not None else next(draw), "to": f"seat:{seat}"})
    return steps


def _lost_folds(hand: dict[str, Any], folded: set[int], warnings: list[str] | None) -> list[dict[str, Any]]:
    """The lost-fold repair (module doc): a muck for each live player who never acted before
    the flop and was not all-in from the forced bets."""
    n = hand["players"]
    steps: list[dict[str, Any]] = []
    for seat in range(1, n + 1):
        if seat not in hand["preflop_actors"] and seat not in folded \
                and not _all_in_from_forced_bets(hand["doc"], seat, n):
            steps.append({"muck": f"seat:{seat}"})
            if warnings is not None:
                warnings.append(f"p{seat} never acts before the flop and is not all-in: "
                                f"the lost fold is put back (a muck of seat:{seat})")
    return steps


def _street_steps(board: list[str], draw: Iterator[str]) -> list[dict[str, Any]]:
    """One street: the tap, its burn and its board cards."""
    return [{"press": "round_done"},  # BURN-002: the tap, once the round's folds are in
            {"deal": next(draw), "to": "burn"},  # BURN-001: one burn before each street
            *({"deal": c, "to": "board"} for c in board)]


def _event_steps(hand: dict[str, Any], draw: Iterator[str], warnings: list[str] | None) -> list[dict[str, Any]]:
    """The steps of the folds and the streets, in the hand's order, with the lost folds put back
    before the flop."""
    steps: list[dict[str, Any]] = []
    folded: set[int] = set()
    flop = True
    for kind, value in hand["events"]:
        if kind == "fold":
            folded.add(value)
            steps.append({"muck": f"seat:{value}"})
            continue
        if flop:
            flop = False
            steps += _lost_folds(hand, folded, warnings)
        steps += _street_steps(value, draw)
    return steps


def phh_to_hand(text: str, *, rng: random.Random, warnings: list[str] | None = None) -> dict[str, Any]:
    """One PHH hand (TOML text) -> one script hand dict ``{"seats", "button", "steps"}``.

    ``rng`` fills the unknown cards and the burns from the cards the hand does not use.
    ``warnings``, when given, receives a line for each repair made (see the module doc).
    Raises :class:`UnsupportedHand` for a variant that is not a flop game, :class:`PhhError`
    for a hand that cannot be dealt.
    """
    hand = parse_phh(text)
    n, k = hand["players"], HOLE_CARDS[hand["game"]]
    hole = _hole_with_shown(hand)
    draw = _unused(hole, hand["events"], rng)
    steps = _hole_steps(hole, n, k, draw)
    steps += _event_steps(hand, draw, warnings)
    steps.append({"end": True})
    return {"seats": list(range(1, n + 1)), "button": n, "steps": steps}


def phh_variant(text: str) -> str:
    """The variant code of a PHH hand (TOML text)."""
    return _load(text)[1]


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
