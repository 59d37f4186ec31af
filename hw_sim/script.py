"""Deal scripts (``../shared/deal-script.md``): parsed and checked before anything runs.

A script that is not valid JSON, names an unknown card, zone, seat or button, or deals the same
physical card twice without gathering it (other than as a ``clone``) is refused with one line
naming the step, e.g. ``hand 2, step 5: unknown card 'Zz' (ranks A23456789TJQK, suits shdc)``.

Each step is wrapped in a :class:`Step` that knows its hand and its position (both counted from
1); :func:`action_of` gives the action itself.

>>> s = parse_script('{"format": 1, "game": "holdem", "seats": [1, 2], "button": 2,'
...                  ' "hands": [{"steps": [{"deal": "As", "to": "seat:1"}, {"end": true}]}]}')
>>> s.hands[0].steps[0]
Step(hand=1, index=1, action=Deal(card=CardRef(card='As', deck=None, uid=None), to='seat:1', face_up=False, clone=False))
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Collection, Union

from controller.cards import RANKS, SUITS, CardError, parse_card

GAMES = ("holdem", "omaha")
DEFAULT_BUTTONS = ("exposed", "misdeal", "next", "floor", "new_deck", "round_done", "sa", "stub_wrong", "ack")
DEVICES = ("reader", "shuffler")
SHUFFLER_ACTIONS = ("deck", "jam", "door_open")
DECK_IDS = ("A", "B")
_UID = re.compile(r"^[0-9A-Fa-f]{16}$")
_ZONE = re.compile(r"^(seat:(10|[1-9])|board|burn|muck)$")


class ScriptError(ValueError):
    """A refused script; ``str()`` is one line naming where and what."""


@dataclass(frozen=True, slots=True)
class CardRef:
    """A physical card: a card of the deck in play (``deck`` None), of another deck, or a tag."""

    card: str | None
    deck: str | None = None
    uid: str | None = None

    def __str__(self) -> str:
        if self.uid is not None:
            return f"tag:{self.uid}"
        return f"{self.card}@{self.deck}" if self.deck else str(self.card)


@dataclass(frozen=True, slots=True)
class Deal:
    card: CardRef
    to: str
    face_up: bool = False
    clone: bool = False


@dataclass(frozen=True, slots=True)
class Muck:
    seat: int


@dataclass(frozen=True, slots=True)
class Press:
    name: str
    long: bool = False


@dataclass(frozen=True, slots=True)
class Shuffler:
    action: str
    cards: tuple[CardRef, ...] | None = None


@dataclass(frozen=True, slots=True)
class End:
    pass


@dataclass(frozen=True, slots=True)
class Unplug:
    device: str


@dataclass(frozen=True, slots=True)
class Plug:
    device: str


Action = Union[Deal, Muck, Press, Shuffler, End, Unplug, Plug]


@dataclass(frozen=True, slots=True)
class Step:
    hand: int
    index: int
    action: Action


@dataclass(frozen=True, slots=True)
class DeckSpec:
    missing: tuple[CardRef, ...] = ()
    extra: tuple[CardRef, ...] = ()


@dataclass(frozen=True, slots=True)
class Noise:
    seed: int = 0
    miss: float = 0.0
    repeat: float = 0.0
    crosstalk: float = 0.0


@dataclass(frozen=True, slots=True)
class HandScript:
    steps: tuple[Step, ...]
    seats: tuple[int, ...] | None = None
    button: int | None = None
    deck: DeckSpec | None = None


@dataclass(frozen=True, slots=True)
class Script:
    format: int
    game: str
    seats: tuple[int, ...]
    button: int
    noise: Noise
    hands: tuple[HandScript, ...]
    deck: DeckSpec | None = None
    crash_after: int | None = None


def action_of(step: Step | Action) -> Action:
    return step.action if isinstance(step, Step) else step


# -- parsing ---------------------------------------------------------------------------------

def parse_card_ref(text: Any, where: str) -> CardRef:
    """``"As"``, ``"As@B"`` or ``"tag:E0040150A05F02B7"``."""
    if not isinstance(text, str):
        raise ScriptError(f"{where}: a card is a string like 'As', 'As@B' or 'tag:<16 hex digits>', got {text!r}")
    if text.startswith("tag:"):
        uid = text[4:]
        if not _UID.match(uid):
            raise ScriptError(f"{where}: {text!r} is not a tag (want tag: and 16 hex digits)")
        return CardRef(None, None, uid.upper())
    card, _, deck = text.partition("@")
    try:
        c = parse_card(card)
    except CardError:
        raise ScriptError(f"{where}: unknown card {text!r} (ranks {RANKS}, suits {SUITS})") from None
    if deck and deck not in DECK_IDS:
        raise ScriptError(f"{where}: unknown deck {deck!r} in {text!r} (decks: {', '.join(DECK_IDS)})")
    return CardRef(c, deck or None, None)


def _seat(value: Any, where: str, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= 10:
        raise ScriptError(f"{where}: {what} must be a seat number 1 to 10, got {value!r}")
    return value


def _seats(value: Any, where: str) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) < 2:
        raise ScriptError(f'{where}: "seats" must be a list of at least two seat numbers 1 to 10')
    seats = tuple(_seat(v, where, '"seats"') for v in value)
    if len(set(seats)) != len(seats):
        raise ScriptError(f'{where}: "seats" lists a seat twice: {list(seats)}')
    return seats


def _keys(d: dict, allowed: set[str], where: str) -> None:
    extra = sorted(set(d) - allowed)
    if extra:
        raise ScriptError(f"{where}: unknown key {extra[0]!r} (this step takes {', '.join(sorted(allowed))})")


def _zone(value: Any, where: str) -> str:
    if not isinstance(value, str) or not _ZONE.match(value):
        raise ScriptError(f"{where}: unknown zone {value!r} (zones: seat:1..seat:10, board, burn, muck)")
    return value


def parse_step(d: Any, *, where: str, buttons: Collection[str] = DEFAULT_BUTTONS) -> Action:
    """One step's action; ScriptError names ``where``."""
    if not isinstance(d, dict) or not d:
        raise ScriptError(f"{where}: a step is a JSON object like {{\"deal\": \"As\", \"to\": \"seat:1\"}}")
    if "deal" in d:
        _keys(d, {"deal", "to", "face_up", "clone"}, where)
        if "to" not in d:
            raise ScriptError(f'{where}: a deal needs "to" (a zone)')
        for flag in ("face_up", "clone"):
            if flag in d and not isinstance(d[flag], bool):
                raise ScriptError(f'{where}: "{flag}" must be true or false')
        return Deal(parse_card_ref(d["deal"], where), _zone(d["to"], where), d.get("face_up", False),
                    d.get("clone", False))
    if "muck" in d:
        _keys(d, {"muck"}, where)
        zone = _zone(d["muck"], where)
        if not zone.startswith("seat:"):
            raise ScriptError(f"{where}: only a seat's cards can be mucked, not {zone!r}")
        return Muck(int(zone[5:]))
    if "press" in d:
        _keys(d, {"press", "long"}, where)
        name = d["press"]
        if name not in buttons:
            raise ScriptError(f"{where}: unknown button {name!r} (buttons: {', '.join(buttons)})")
        return Press(name, bool(d.get("long", False)))
    if "shuffler" in d:
        _keys(d, {"shuffler", "cards"}, where)
        action = d["shuffler"]
        if action not in SHUFFLER_ACTIONS:
            raise ScriptError(f"{where}: unknown shuffler event {action!r} (events: {', '.join(SHUFFLER_ACTIONS)})")
        cards = d.get("cards")
        if cards is not None:
            if not isinstance(cards, list):
                raise ScriptError(f'{where}: "cards" must be a list of cards')
            return Shuffler(action, tuple(parse_card_ref(c, where) for c in cards))
        return Shuffler(action)
    if "end" in d:
        _keys(d, {"end"}, where)
        if d["end"] is not True:
            raise ScriptError(f'{where}: an end step is {{"end": true}}')
        return End()
    for key, cls in (("unplug", Unplug), ("plug", Plug)):
        if key in d:
            _keys(d, {key}, where)
            if d[key] not in DEVICES:
                raise ScriptError(f"{where}: unknown device {d[key]!r} (devices: {', '.join(DEVICES)})")
            return cls(d[key])
    raise ScriptError(f"{where}: unknown step {sorted(d)[0]!r} (steps: deal, muck, press, shuffler, end, "
                      f"unplug, plug)")


def _deck_spec(d: Any, where: str) -> DeckSpec:
    if not isinstance(d, dict):
        raise ScriptError(f'{where}: "deck" must be an object with "missing" and/or "extra"')
    _keys(d, {"missing", "extra"}, where)
    lists = []
    for key in ("missing", "extra"):
        v = d.get(key, [])
        if not isinstance(v, list):
            raise ScriptError(f'{where}: "deck.{key}" must be a list of cards')
        lists.append(tuple(parse_card_ref(c, f"{where} deck.{key}") for c in v))
    return DeckSpec(*lists)


def _hand(d: Any, number: int, buttons: Collection[str]) -> HandScript:
    where = f"hand {number}"
    if not isinstance(d, dict):
        raise ScriptError(f'{where}: a hand is an object with "steps"')
    _keys(d, {"steps", "seats", "button", "deck"}, where)
    raw = d.get("steps")
    if not isinstance(raw, list):
        raise ScriptError(f'{where}: "steps" must be a list')
    steps: list[Step] = []
    on_table: dict[str, int] = {}  # physical card -> the step that dealt it
    for i, s in enumerate(raw, 1):
        at = f"{where}, step {i}"
        action = parse_step(s, where=at, buttons=buttons)
        if isinstance(action, Deal):
            key = str(action.card)
            if key in on_table and not action.clone:
                raise ScriptError(f"{at}: {key} was dealt already at step {on_table[key]} and not gathered "
                                  f"(a second tag with the same UID is a \"clone\": true)")
            on_table.setdefault(key, i)
        elif isinstance(action, End):
            on_table.clear()
        steps.append(Step(number, i, action))
    if not steps or not isinstance(steps[-1].action, End):
        # A hand always ends with its cards gathered; say so rather than leave them lying.
        steps.append(Step(number, len(steps) + 1, End()))
    seats = _seats(d["seats"], where) if "seats" in d else None
    button = _seat(d["button"], where, '"button"') if "button" in d else None
    deck = _deck_spec(d["deck"], where) if "deck" in d else None
    return HandScript(tuple(steps), seats, button, deck)


def parse_script(text: str, *, buttons: Collection[str] = DEFAULT_BUTTONS) -> Script:
    """Parse and check a whole script; ScriptError (one line) on the first problem."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ScriptError(f"not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    where = "top level"
    if not isinstance(doc, dict):
        raise ScriptError(f"{where}: a script is a JSON object")
    _keys(doc, {"format", "game", "seats", "button", "noise", "hands", "deck", "crash_after"}, where)
    if doc.get("format") != 1:
        raise ScriptError(f'{where}: "format" must be 1, got {doc.get("format")!r}')
    game = doc.get("game", "holdem")
    if game not in GAMES:
        raise ScriptError(f"{where}: game {game!r} is not supported yet (games: {', '.join(GAMES)})")
    seats = _seats(doc.get("seats"), where)
    button = _seat(doc.get("button"), where, '"button"')
    n = doc.get("noise", {})
    if not isinstance(n, dict):
        raise ScriptError(f'{where}: "noise" must be an object')
    _keys(n, {"seed", "miss", "repeat", "crosstalk"}, f"{where} noise")
    probs = {}
    for key in ("miss", "repeat", "crosstalk"):
        v = n.get(key, 0.0)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not 0 <= v <= 1:
            raise ScriptError(f'{where}: "noise.{key}" must be a probability 0 to 1, got {v!r}')
        probs[key] = float(v)
    seed = n.get("seed", 0)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ScriptError(f'{where}: "noise.seed" must be a whole number, got {seed!r}')
    hands = doc.get("hands")
    if not isinstance(hands, list) or not hands:
        raise ScriptError(f'{where}: "hands" must be a non-empty list')
    crash = doc.get("crash_after")
    if crash is not None and (not isinstance(crash, int) or isinstance(crash, bool) or crash < 1):
        raise ScriptError(f'{where}: "crash_after" must be a step count of 1 or more, got {crash!r}')
    return Script(
        format=1, game=game, seats=seats, button=button, noise=Noise(seed, **probs),
        hands=tuple(_hand(h, i, buttons) for i, h in enumerate(hands, 1)),
        deck=_deck_spec(doc["deck"], where) if "deck" in doc else None, crash_after=crash,
    )


def action_to_dict(a: Action) -> dict[str, Any]:
    if isinstance(a, Deal):
        d: dict[str, Any] = {"deal": str(a.card), "to": a.to}
        if a.face_up:
            d["face_up"] = True
        if a.clone:
            d["clone"] = True
        return d
    if isinstance(a, Muck):
        return {"muck": f"seat:{a.seat}"}
    if isinstance(a, Press):
        return {"press": a.name, **({"long": True} if a.long else {})}
    if isinstance(a, Shuffler):
        return {"shuffler": a.action, **({"cards": [str(c) for c in a.cards]} if a.cards is not None else {})}
    if isinstance(a, End):
        return {"end": True}
    if isinstance(a, Unplug):
        return {"unplug": a.device}
    return {"plug": a.device}


def script_to_dict(s: Script) -> dict[str, Any]:
    """The JSON form of a parsed script; ``parse_script(json.dumps(script_to_dict(s))) == s``."""
    def deck(spec: DeckSpec) -> dict[str, list[str]]:
        return {"missing": [str(c) for c in spec.missing], "extra": [str(c) for c in spec.extra]}

    hands = []
    for h in s.hands:
        hd: dict[str, Any] = {"steps": [action_to_dict(st.action) for st in h.steps]}
        if h.seats is not None:
            hd["seats"] = list(h.seats)
        if h.button is not None:
            hd["button"] = h.button
        if h.deck is not None:
            hd["deck"] = deck(h.deck)
        hands.append(hd)
    out: dict[str, Any] = {"format": 1, "game": s.game, "seats": list(s.seats), "button": s.button,
                           "noise": {"seed": s.noise.seed, "miss": s.noise.miss, "repeat": s.noise.repeat,
                                     "crosstalk": s.noise.crosstalk},
                           "hands": hands}
    if s.deck is not None:
        out["deck"] = deck(s.deck)
    if s.crash_after is not None:
        out["crash_after"] = s.crash_after
    return out
