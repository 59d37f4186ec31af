"""Random clean hands for the demo and the test suite, as deal-script steps (JSON dicts).

Each hand is clean and legal:

- the cards come off a freshly shuffled 52-card deck (``rng.shuffle``), from the top of the
  stub down, in the order they are pitched, never one twice;
- hole cards one at a time, clockwise (seat numbers increasing, 10 wrapping to 1, over the seats
  dealt in), from the first seat left of the button (DEAL-001; heads-up that is the non-button
  seat, DEAL-002), until each seat has 2 (hold'em) or 4 (Omaha);
- before the flop, the turn and the river a betting round in which some seats may fold
  (``{"muck": "seat:N"}``), never the last live one; when only one seat is left no more board
  cards come; a round followed by a street ends with the dealer's tap, ``{"press":
  "round_done"}`` (BURN-002); each street is a burn and then 3, 1, 1 board cards (BURN-001);
  after the river a last betting round may fold some more; then ``{"end": true}``.

The button need not be dealt in (a dead button, DEAL-005): dealing starts at the first seat
dealt in clockwise from it. :func:`random_hand_steps_in_order` deals in an order given (the
order the dead-button rule gives, say); :func:`random_session` plays hands at one table with
players eliminated between them. What a test expects of a session (the buttons, blinds and
deal order) is not computed here: the tests hold their own reference walk of the dead-button
rule (tests/dead_button.py), so a bug in ``controller.core.positions``, which places the button when
a session is generated, cannot pass as its own expectation.

>>> import random
>>> steps = random_hand_steps(random.Random(1), game="holdem", seats=[2, 5, 9], button=5)
>>> [s["to"] for s in steps[:6]]
['seat:9', 'seat:2', 'seat:5', 'seat:9', 'seat:2', 'seat:5']
>>> steps[-1]
{'end': True}
>>> [s for s in steps if "deal" not in s]  # a fold, the tap before the flop's burn, a fold
[{'muck': 'seat:9'}, {'press': 'round_done'}, {'muck': 'seat:2'}, {'end': True}]
>>> script = random_script(5, hands=2, seats=[1, 4, 6])
>>> [(h["seats"], h["button"]) for h in script["hands"]]  # the button moves on (DEAL-004)
[([1, 4, 6], 6), ([1, 4, 6], 1)]
"""

from __future__ import annotations

import random
from typing import Any
from collections.abc import Sequence

from controller.core.cards import FULL_DECK
from controller.core.positions import initial_positions, next_positions
from controller.core.settings import deal_order, next_button
from hw_sim.generated import GeneratedHand
from hw_sim.random_chinese import MAX_PLAYERS as CHINESE_MAX, random_chinese_hand
from hw_sim.random_draw import DRAW_TEMPLATES, MAX_SITTING_OUT, random_draw_hand
from hw_sim.random_stud import MAX_PLAYERS as STUD_MAX, STUD_GAMES, random_stud_hand

#: game -> hole cards per seat, the flop games (written here, not taken from controller.core.games: the
#: generator is the tests' independent side)
HOLE_CARDS = {"holdem": 2, "omaha": 4, "omaha8": 4}
#: board cards per street after the hole cards: flop, turn, river
STREETS = (3, 1, 1)


def _check_seats(seats: Sequence[int], what: str = "seats") -> None:
    if len(set(seats)) != len(seats) or not 2 <= len(seats) <= 10 or not all(1 <= s <= 10 for s in seats):
        raise ValueError(f"{what} must be 2 to 10 different seats 1 to 10, got {list(seats)}")


def random_hand_steps(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                      fold_chance: float = 0.25) -> list[dict[str, Any]]:
    """The steps of one clean hand, ending with ``{"end": true}``.

    ``seats``: 2 to 10 different seats 1..10; ``button``: any seat 1..10. ``fold_chance``: the
    chance that a live seat folds in a betting round.
    """
    _check_seats(seats)
    if not 1 <= button <= 10:
        raise ValueError(f"button must be a seat 1 to 10, got {button}")
    return random_hand_steps_in_order(rng, game=game, order=deal_order(list(seats), button),
                                      fold_chance=fold_chance)


def random_hand_steps_in_order(rng: random.Random, *, game: str, order: Sequence[int],
                               fold_chance: float = 0.25) -> list[dict[str, Any]]:
    """The steps of one clean hand dealt in ``order`` (the seats dealt in, the first card's
    seat first: ``deal_order(seats, button)``), ending with ``{"end": true}``.

    >>> steps = random_hand_steps_in_order(random.Random(3), game="holdem", order=[4, 1], fold_chance=0)
    >>> [s["to"] for s in steps[:4]], steps[4]
    (['seat:4', 'seat:1', 'seat:4', 'seat:1'], {'press': 'round_done'})
    """
    if game not in HOLE_CARDS:
        raise ValueError(f"game {game!r} is not supported (games: {', '.join(HOLE_CARDS)})")
    _check_seats(order, "the order")
    deck = list(FULL_DECK)
    rng.shuffle(deck)
    stub = iter(deck)  # deck[0] is the top of the stub
    steps: list[dict[str, Any]] = []
    # DEAL-001/002: one card at a time, clockwise from left of the button, round by round.
    for _ in range(HOLE_CARDS[game]):
        for seat in order:
            steps.append({"deal": next(stub), "to": f"seat:{seat}"})
    live = list(order)

    def betting_round() -> None:
        for seat in list(live):
            if len(live) > 1 and rng.random() < fold_chance:
                live.remove(seat)
                steps.append({"muck": f"seat:{seat}"})

    for street in STREETS:
        betting_round()
        if len(live) < 2:
            break  # the hand is won: no more board cards
        steps.append({"press": "round_done"})  # BURN-002: the tap once the round is complete
        steps.append({"deal": next(stub), "to": "burn"})  # BURN-001: a burn before each street
        for _ in range(street):
            steps.append({"deal": next(stub), "to": "board"})
    else:
        betting_round()  # the river's betting
    steps.append({"end": True})
    return steps


def most_seats(game: str) -> int:
    """The most seats a random hand of ``game`` has: 10 in the flop games, 8 in stud
    (STUD-001), a draw game's maximum plus those who sit out at an over-full table (DRAW-002)."""
    if game in STUD_GAMES:
        return STUD_MAX
    if game in DRAW_TEMPLATES:
        return min(10, DRAW_TEMPLATES[game].max_players + MAX_SITTING_OUT)
    if game == "chinese":
        return CHINESE_MAX  # (five: the button sits out, CHIN-002)
    return 10


def random_hand(rng: random.Random, *, game: str, seats: Sequence[int], button: int,
                fold_chance: float | None = None) -> GeneratedHand:
    """One clean hand of any game a script knows, with the prompts it must give (none expected
    in the flop games yet): :func:`random_hand_steps`, ``hw_sim.random_stud`` or
    ``hw_sim.random_draw``, ``hw_sim.random_chinese``. ``fold_chance``: the chance a live seat folds in a
    betting round
    (None: each generator's own default)."""
    folding = {} if fold_chance is None else {"fold_chance": fold_chance}
    if game in STUD_GAMES:
        return random_stud_hand(rng, game=game, seats=seats, button=button, **folding)
    if game in DRAW_TEMPLATES:
        return random_draw_hand(rng, game=game, seats=seats, button=button, **folding)
    if game == "chinese":  # (nobody folds: every hand is played, then thrown in)
        return random_chinese_hand(rng, seats=seats, button=button)
    steps = random_hand_steps(rng, game=game, seats=seats, button=button, **folding)
    return GeneratedHand(steps, sorted(seats), button, deal_order(list(seats), button))


def _random_seats(rng: random.Random, most: int = 10) -> list[int]:
    return sorted(rng.sample(range(1, 11), rng.randint(2, most)))


def random_script(seed: int, *, hands: int, game: str = "holdem", seats: Sequence[int] | None = None,
                  noise: dict[str, Any] | None = None, vary_seats: bool = False,
                  expect: list[list[dict[str, Any]]] | None = None,
                  fold_chance: float | None = None) -> dict[str, Any]:
    """A whole script (a dict, deal-script.md) of ``hands`` clean hands of any game, from ``seed``.

    Stud (``hw_sim.random_stud``): ``button`` is the dealer's position, which does not move; 2 to
    8 seats. Draw games (``hw_sim.random_draw``): up to the game's maximum plus two (an over-full
    table), the button always at a seat dealt in. ``expect``, when given, receives each hand's
    expected prompts (``GeneratedHand.expect``), in order. ``fold_chance``: as :func:`random_hand`
    (a low one takes more stud hands to a short 7th street).

    Fixed seats (``seats``, or 2 to 10 random ones): the first button is one of them at random
    and moves to the next seat clockwise after each hand (DEAL-004). ``vary_seats``: every hand
    gets its own 2 to 10 seats and button (now and then a dead button, not dealt in). Every hand
    names its ``seats`` and ``button`` either way, so the script describes itself; the top-level
    ``seats`` and ``button`` are the first hand's. ``noise`` defaults to ``{"seed": seed}``.
    """
    if hands < 1:
        raise ValueError("a script has at least one hand")
    rng = random.Random(seed)
    most = most_seats(game)
    fixed = sorted(seats) if seats is not None else _random_seats(rng, most)
    button = rng.choice(fixed) if game not in STUD_GAMES else rng.randint(1, 10)
    out = []
    for _ in range(hands):
        if vary_seats:
            hand_seats = _random_seats(rng, most)
            hand_button = rng.randint(1, 10)
            while hand_button not in hand_seats and (game in DRAW_TEMPLATES or game == "chinese"
                                                     or rng.random() < 0.7):
                hand_button = rng.randint(1, 10)  # now and then a dead button (never in a draw game)
        else:
            hand_seats, hand_button = list(fixed), button
            if game not in STUD_GAMES:  # (the dealer's position in stud stays put)
                button = next_button(fixed, button)
        generated = random_hand(rng, game=game, seats=hand_seats, button=hand_button, fold_chance=fold_chance)
        if expect is not None:
            expect.append(generated.expect)
        out.append(generated.hand())
    first = out[0]
    return {"format": 1, "game": game, "seats": first["seats"], "button": first["button"],
            "noise": noise if noise is not None else {"seed": seed}, "hands": out}


def random_mixed_script(seed: int, *, hands: int, rotation: Sequence[str], per: int,
                        noise: dict[str, Any] | None = None,
                        expect: list[list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """A mixed game (MIXED-001): ``hands`` clean hands at one table, the game changing every
    ``per`` hands through ``rotation`` (HORSE: holdem, omaha8, razz, stud, stud8). The table
    seats as many players as every game of the rotation deals (2 to the least of their most
    seats, no over-full draw table); the button moves clockwise after each hand of a game with
    a button and stays put through stud. Every hand names its ``game``, ``seats`` and
    ``button``; ``expect`` as :func:`random_script`.

    >>> s = random_mixed_script(4, hands=5, rotation=["holdem", "razz"], per=2)
    >>> [h["game"] for h in s["hands"]]
    ['holdem', 'holdem', 'razz', 'razz', 'holdem']
    """
    if hands < 1 or per < 1 or not rotation:
        raise ValueError("a mixed script has at least one hand, one game and one hand a game")
    rng = random.Random(seed)
    most = min(DRAW_TEMPLATES[g].max_players if g in DRAW_TEMPLATES else most_seats(g) for g in rotation)
    seats = _random_seats(rng, most)
    button = rng.choice(seats)
    out = []
    for number in range(hands):
        game = rotation[number // per % len(rotation)]
        generated = random_hand(rng, game=game, seats=seats, button=button)
        if expect is not None:
            expect.append(generated.expect)
        out.append(generated.hand(game))
        if game not in STUD_GAMES:
            button = next_button(seats, button)
    return {"format": 1, "game": rotation[0], "seats": list(seats), "button": out[0]["button"],
            "noise": noise if noise is not None else {"seed": seed}, "hands": out}


def busy_night_script(seed: int, *, per: int = 2) -> dict[str, Any]:
    """The determinism check's script (bench/determinism.py, tests/e2e/test_determinism.py): a mixed
    table of hold'em, stud and 2-7 triple draw, ``per`` hands each, under the harsh noise, with a
    power cut in the middle of the second game's first hand, the shuffler shuffling before the
    first hand, and the reader away while simulated time passes.

    >>> s = busy_night_script(3, per=1)
    >>> [h["game"] for h in s["hands"]], s["noise"]["profile"], s["crash_after"] > 0
    (['holdem', 'stud', 'draw27_triple'], 'harsh', True)
    """
    script = random_mixed_script(seed, hands=3 * per, rotation=["holdem", "stud", "draw27_triple"], per=per,
                                 noise={"seed": seed, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01,
                                        "profile": "harsh"})
    first = script["hands"][0]["steps"]
    first[:0] = [{"shuffler": "deck"}]
    cut = next(i for i, st in enumerate(first) if st.get("to") == "burn")
    first[cut:cut] = [{"unplug": "reader"}, {"wait": 2}, {"plug": "reader"}]
    before = sum(len(h["steps"]) for h in script["hands"][:per])
    script["crash_after"] = before + len(script["hands"][per]["steps"]) // 2
    return script


# -- a session: one table, players eliminated between hands ----------------------------------

def random_session(seed: int, *, hands: int, game: str = "holdem", noise: dict[str, Any] | None = None,
                   eliminate: float = 0.2, fold_chance: float = 0.25) -> dict[str, Any]:
    """A script (a dict) of ``hands`` consecutive clean hands at one table, from ``seed``.

    The table starts with 2 to 10 random seats and a random button (any seat 1 to 10, now and
    then a dead one); only the first hand names ``seats`` and ``button``, the daemon moves the
    button after that. Between hands each seat is eliminated with the chance ``eliminate``
    (never leaving fewer than two): the next hand opens, before its first card, with a
    ``{"press": "seat_out", "seat": S}`` for each. Positions follow the dead-button rule
    (:func:`controller.core.positions.next_positions`) and the cards go out in
    ``deal_order(live, button)``.

    >>> s = random_session(5, hands=3, eliminate=0.5)
    >>> [h.get("button") for h in s["hands"]], s["hands"][1]["steps"][:2]
    ([1, None, None], [{'press': 'seat_out', 'seat': 2}, {'press': 'seat_out', 'seat': 9}])
    >>> [h["steps"][2]["to"] for h in s["hands"][1:]]  # seat 2, out, has the dead button: 4 first
    ['seat:4', 'seat:7']
    """
    if hands < 1:
        raise ValueError("a script has at least one hand")
    if not 0 <= eliminate <= 1:
        raise ValueError(f"eliminate is a probability 0 to 1, got {eliminate}")
    rng = random.Random(seed)
    live = _random_seats(rng)
    button = rng.randint(1, 10)
    while button not in live and rng.random() < 0.7:  # now and then a dead button
        button = rng.randint(1, 10)
    pos = initial_positions(live, button)
    out: list[dict[str, Any]] = []
    for number in range(hands):
        steps: list[dict[str, Any]] = []
        if number:
            gone = [s for s in live if rng.random() < eliminate]
            while len(live) - len(gone) < 2:  # a table needs two players
                gone.pop(rng.randrange(len(gone)))
            steps += [{"press": "seat_out", "seat": s} for s in gone]
            live = [s for s in live if s not in gone]
            pos = next_positions(pos, live)
        steps += random_hand_steps_in_order(rng, game=game, order=deal_order(live, pos.button),
                                            fold_chance=fold_chance)
        hand: dict[str, Any] = {"seats": list(live), "button": pos.button} if not number else {}
        hand["steps"] = steps
        out.append(hand)
    first = out[0]
    return {"format": 1, "game": game, "seats": first["seats"], "button": first["button"],
            "noise": noise if noise is not None else {"seed": seed}, "hands": out}


def with_stub_spot(script: dict[str, Any]) -> dict[str, Any]:
    """``script`` at a table with an antenna under the stub spot (STUB-006: ``"stub_spot": true``),
    the dealer dropping the stub on it once each hand's last card is out: ``{"drop": "stub"}``
    right after its last card off the stub (a deal, or a rebuilt stub's gather). Chinese poker
    deals the whole deck: no stub to drop. The hands are otherwise the same; their expectations
    name no step, so they hold.

    >>> s = with_stub_spot(random_script(5, hands=1, seats=[1, 4, 6]))
    >>> s["stub_spot"], [st for st in s["hands"][0]["steps"] if "drop" in st]
    (True, [{'drop': 'stub'}])
    """
    hands = []
    for hand in script["hands"]:
        steps = list(hand["steps"])
        last = max((i for i, st in enumerate(steps) if "deal" in st or "restub" in st), default=None)
        if last is not None and hand.get("game", script.get("game")) != "chinese":
            steps.insert(last + 1, {"drop": "stub"})
        hands.append({**hand, "steps": steps})
    return {**script, "stub_spot": True, "hands": hands}
