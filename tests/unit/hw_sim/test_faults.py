"""Dealer errors injected into clean hands (hw_sim/faults.py): every faulty hand is a script the
parser accepts, ``info`` points at a step of the kind each fault commits, and each fault does
physically what its name says. What the daemon should say about a fault is for the rule tests.

The physical checks replay the steps with a model of the table written here (where each card
is), independently of the parser and of the fault module.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from controller.core.settings import deal_order
from hw_sim.faults import FAULTS, FaultInfo, inject
from hw_sim.phh import load_phh_hands
from hw_sim.random_hands import random_hand_steps
from hw_sim.script import parse_script
from rig.scenarios import PHH_DIR, muck_order, play

HOLE = {"holdem": 2, "omaha": 4}
PHH = PHH_DIR


def clean_hands(count: int, game: str, seed: int = 0) -> list[tuple[list[int], list[int], int, list[dict]]]:
    """``(order, seats, button, steps)`` of random clean hands: 2 to 10 seats, any button."""
    out = []
    for i in range(count):
        rng = random.Random(f"{seed}:{game}:{i}")
        seats = sorted(rng.sample(range(1, 11), rng.randint(2, 10)))
        button = rng.randint(1, 10)
        steps = random_hand_steps(rng, game=game, seats=seats, button=button,
                                  fold_chance=rng.choice([0.1, 0.25, 0.4]))
        out.append((deal_order(seats, button), seats, button, steps))
    return out


HANDS = {game: clean_hands(120, game) for game in HOLE}


def parses(steps: list[dict], game: str, seats: list[int], button: int) -> None:
    parse_script(json.dumps({"format": 1, "game": game, "seats": seats, "button": button,
                             "hands": [{"steps": steps}]}))


# -- a model of the table -------------------------------------------------------------------------

def replay(steps: list[dict]) -> list[dict[str, list[str]]]:
    """The zones after each step (``[i]`` after step i + 1); ``stub`` is not a zone."""
    zones: dict[str, list[str]] = {}
    states = []
    for s in steps:
        if "deal" in s:
            zones.setdefault(s["to"], []).append(s["deal"])
        elif "muck" in s:
            zones.setdefault("muck", []).extend(zones.pop(s["muck"], []))
        elif "move" in s:
            where = next(z for z, cards in zones.items() if s["move"] in cards)
            zones[where].remove(s["move"])
            if s["to"] != "stub":
                zones.setdefault(s["to"], []).append(s["move"])
        states.append(copy.deepcopy(zones))
    return states


def at(steps: list[dict], i: int) -> dict:
    """Step i, counted from 1."""
    return steps[i - 1]


def is_deal(to: Callable[[str], bool]) -> Callable[[dict], bool]:
    return lambda s: "deal" in s and to(s["to"])


to_seat = is_deal(lambda z: z.startswith("seat:"))
to_board = is_deal(lambda z: z == "board")
to_burn = is_deal(lambda z: z == "burn")


def press(name: str) -> Callable[[dict], bool]:
    return lambda s: s.get("press") == name


def move(to: Callable[[str], bool]) -> Callable[[dict], bool]:
    return lambda s: "move" in s and to(s["to"])


#: fault -> what its info step must be
KIND: dict[str, Callable[[dict], bool]] = {
    "wrong_first_seat": to_seat, "card_to_empty_seat": to_seat, "skip_seat": to_seat, "extra_card": to_seat,
    "short_seat": to_seat,
    "button_short": lambda s: "muck" in s or s.get("press") == "round_done" or s == {"end": True},
    "expose_first_card": press("exposed"), "expose_later_card": press("exposed"),
    "expose_later_card_wrong_burn": to_burn, "two_exposed": press("exposed"),
    "boxed_one": press("boxed"), "boxed_two": press("boxed"), "player_exposed": press("exposed_player"),
    "card_off_table": move(lambda z: z == "stub"),
    "no_burn_flop": to_board, "no_burn_turn": to_board, "no_burn_river": to_board,
    "double_burn": to_burn, "extra_burn_after_river": to_burn, "burn_to_muck": move(lambda z: z == "muck"),
    "board_before_burn_flop": to_board, "four_card_flop": to_board, "two_card_turn": to_board,
    "two_card_river": to_board,
    "premature_flop": to_board, "premature_turn": to_board, "premature_river": to_board,
    "muck_retrieval": move(lambda z: z.startswith("seat:")), "muck_swap": move(lambda z: z.startswith("seat:")),
}
#: fault -> the seat info names, from the order (None: no seat; ... : checked by its own test)
SEAT: dict[str, Callable[[list[int]], Any]] = {
    "wrong_first_seat": lambda o: o[1], "expose_first_card": lambda o: o[0], "button_short": lambda o: o[-1],
    **{name: (lambda o: None) for name in (
        "boxed_one", "boxed_two", "no_burn_flop", "no_burn_turn", "no_burn_river", "double_burn",
        "extra_burn_after_river", "burn_to_muck", "board_before_burn_flop", "four_card_flop", "two_card_turn",
        "two_card_river", "premature_flop", "premature_turn", "premature_river")},
}


def test_every_fault_is_listed_here():
    assert set(FAULTS) == set(KIND)
    assert all(callable(f) and f.__doc__ for f in FAULTS.values())


@pytest.mark.parametrize("game", list(HOLE))
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_every_fault_parses_and_points_at_its_step(name, game):
    done = 0
    for order, seats, button, clean in HANDS[game]:
        before = copy.deepcopy(clean)
        try:
            steps, info = FAULTS[name](clean, order=order, game=game, rng=random.Random(len(clean)))
        except ValueError as exc:
            assert str(exc).startswith(f"{name}: ") and "\n" not in str(exc), str(exc)
            continue
        done += 1
        assert clean == before, "the clean hand was changed"
        parses(steps, game, seats, button)
        assert steps[-1] == {"end": True} and steps.count({"end": True}) == 1
        assert isinstance(info, FaultInfo) and info.fault == name
        assert 1 <= info.step <= len(steps) and KIND[name](at(steps, info.step)), (info, at(steps, info.step))
        assert all(1 <= i <= len(steps) for i in info.marks.values()), info
        if name in SEAT:
            assert info.seat == SEAT[name](order), info
        else:
            assert info.seat is not None and 1 <= info.seat <= 10
        again = FAULTS[name](clean, order=order, game=game, rng=random.Random(len(clean)))
        assert again == (steps, info)  # the rng alone decides
        CHECKS.get(name, lambda *a: None)(clean, steps, info, order, game)
    assert done >= 40, f"{name}: only {done} of {len(HANDS[game])} hands could take it"


# -- what each fault does, physically -------------------------------------------------------------

def hole_counts(steps: list[dict], order: list[int]) -> dict[int, int]:
    """Cards at each seat when the first round ends (at the first tap, fold or end)."""
    first = next(i for i, s in enumerate(steps) if "muck" in s or s.get("press") == "round_done" or "end" in s)
    counts = {s: 0 for s in range(1, 11)}
    for s in steps[:first]:
        if "deal" in s and s["to"].startswith("seat:"):
            counts[int(s["to"][5:])] += 1
    return counts


def streets(steps: list[dict]) -> int:
    return sum(1 for s in steps if s.get("press") == "round_done")


def check_counts(changed: dict[int, int]) -> Callable[..., None]:
    """Hole counts: ``k`` at every seat in order but those in ``changed`` (seat -> k + delta)."""
    def check(clean, steps, info, order, game):
        want = {s: HOLE[game] if s in order else 0 for s in range(1, 11)}
        for key, delta in changed.items():
            seat = info.seat if key == 0 else key
            want[seat] += delta
        got = hole_counts(steps, order)
        if "due" in info.detail:  # card_to_empty_seat: the seat it was due to is short
            want[info.detail["due"]] -= 1
        assert got == want, (got, want, info)
    return check


def check_wrong_first_seat(clean, steps, info, order, game):
    assert [s["to"] for s in steps[:2]] == [f"seat:{order[1]}", f"seat:{order[0]}"]
    assert [s["deal"] for s in steps[:2]] == [s["deal"] for s in clean[:2]]


def check_card_to_empty_seat(clean, steps, info, order, game):
    assert info.seat not in order and at(steps, info.step)["to"] == f"seat:{info.seat}"
    check_counts({0: 1})(clean, steps, info, order, game)


def check_skip_seat(clean, steps, info, order, game):
    assert info.seat in order[:-1]
    assert not any(s.get("to") == f"seat:{info.seat}" or s.get("muck") == f"seat:{info.seat}" for s in steps)
    deals = [s["deal"] for s in steps if "deal" in s]
    assert deals == [s["deal"] for s in clean if "deal" in s][:len(deals)]  # same cards, shifted
    check_counts({0: -HOLE[game]})(clean, steps, info, order, game)
    assert at(steps, info.step)["to"] == f"seat:{order[order.index(info.seat) + 1]}"


def check_extra_card(clean, steps, info, order, game):
    assert info.seat in order[1:]
    check_counts({0: 1})(clean, steps, info, order, game)
    assert info.step == HOLE[game] * len(order) + 1


def check_short(clean, steps, info, order, game):
    assert info.seat in order
    check_counts({0: -1})(clean, steps, info, order, game)
    assert info.marks["after_deal"] == HOLE[game] * len(order)


def check_expose_first_card(clean, steps, info, order, game):
    assert info.step == 2 and steps[0] == {"deal": info.card, "to": f"seat:{order[0]}"}


def check_exposed_later(clean, steps, info, order, game):
    m = info.marks
    exposed = at(steps, m["deal"])
    assert exposed == {"deal": info.card, "to": f"seat:{info.seat}"} and at(steps, m["press"] if "press" in m
                                                                           else info.step) == {"press": "exposed"}
    hole = [s for s in steps if "deal" in s and s["to"].startswith("seat:")]
    assert hole.index(exposed) >= 2, "one of the first two cards"
    assert at(steps, m["replacement"]) == hole[-1] and hole[-1]["to"] == f"seat:{info.seat}"
    first_burn = next(i for i, s in enumerate(steps, 1) if s.get("to") == "burn")
    if info.fault == "expose_later_card":
        assert first_burn == m["burn"] and at(steps, m["burn"]) == {"move": info.card, "to": "burn"}
        assert replay(steps)[m["burn"] - 1]["burn"] == [info.card]
    else:
        assert at(steps, m["stub"]) == {"move": info.card, "to": "stub"} and m["stub"] < first_burn == info.step
        assert at(steps, info.step)["deal"] != info.card
    assert sum(s.get("to") == "burn" for s in steps) == streets(steps)  # one burn a street still


def check_two_exposed(clean, steps, info, order, game):
    presses = [i for i, s in enumerate(steps, 1) if s == {"press": "exposed"}]
    assert presses == [info.marks["first"], info.step]
    hole = [s["deal"] for s in clean[:HOLE[game] * len(order)]]
    assert {at(steps, i - 1)["deal"] for i in presses} == {info.card, info.detail["first"]}
    assert info.card not in hole[:2] and info.detail["first"] not in hole[:2]


def check_boxed(clean, steps, info, order, game):
    presses = [i for i, s in enumerate(steps, 1) if s == {"press": "boxed"}]
    assert presses[-1] == info.step and len(presses) == (1 if info.fault == "boxed_one" else 2)
    assert all(i - 1 > 2 and to_seat(at(steps, i - 1)) for i in presses)


def check_player_exposed(clean, steps, info, order, game):
    assert info.seat in order and at(steps, info.step) == {"press": "exposed_player", "seat": info.seat}
    assert info.step == HOLE[game] * len(order) + 1


def check_card_off_table(clean, steps, info, order, game):
    m = info.marks
    assert at(steps, m["deal"]) == {"deal": info.card, "to": f"seat:{info.seat}"} and info.step == m["deal"] + 1
    assert at(steps, m["burn"]) == {"deal": info.card, "to": "burn"}
    assert next(i for i, s in enumerate(steps, 1) if s.get("to") == "burn") == m["burn"]
    assert at(steps, m["replacement"])["to"] == f"seat:{info.seat}"
    assert info.card not in replay(steps)[m["burn"] - 2].get(f"seat:{info.seat}", [])


def check_no_burn(clean, steps, info, order, game):
    assert at(steps, info.step - 1) == {"press": "round_done"}
    assert sum(s.get("to") == "burn" for s in steps) == streets(steps) - 1


def check_double_burn(clean, steps, info, order, game):
    assert to_burn(at(steps, info.step - 1)) and at(steps, info.step - 2) == {"press": "round_done"}
    assert sum(s.get("to") == "burn" for s in steps) == streets(steps) + 1


def check_extra_burn_after_river(clean, steps, info, order, game):
    assert len(replay(steps)[info.step - 2].get("board", [])) == 5 and to_board(at(steps, info.step - 1))


def check_burn_to_muck(clean, steps, info, order, game):
    state = replay(steps)
    assert info.card in state[info.step - 2]["burn"] and info.card in state[info.step - 1]["muck"]


def check_board_before_burn_flop(clean, steps, info, order, game):
    assert at(steps, info.step - 1) == {"press": "round_done"} and to_burn(at(steps, info.marks["burn"]))
    assert info.marks["burn"] == info.step + 1


def check_extra_board_card(clean, steps, info, order, game):
    state = replay(steps)
    board = {"four_card_flop": 4, "two_card_turn": 5, "two_card_river": 6}[info.fault]
    assert len(state[info.step - 1]["board"]) == board
    assert info.marks["move"] == info.step + 1 and state[info.step]["board"] == [
        c for c in state[info.step - 1]["board"] if c != info.detail["moved"]]
    if info.fault != "two_card_river":
        assert info.detail["moved"] in state[info.step]["burn"]
    # the card taken off the board is the next street's burn, if that street comes: no burn deal
    n = streets(steps)
    replaced = {"four_card_flop": n >= 2, "two_card_turn": n >= 3, "two_card_river": False}[info.fault]
    assert sum("deal" in s and s["to"] == "burn" for s in steps) == n - replaced
    assert max(len(z.get("board", [])) for z in state[info.step:]) <= 5


def check_premature(clean, steps, info, order, game):
    number = {"premature_flop": 0, "premature_turn": 1, "premature_river": 2}[info.fault]
    m = info.marks
    # the street's burn and first card come before the round's tap
    taps = [i for i, s in enumerate(steps, 1) if s == {"press": "round_done"}]
    assert len([t for t in taps if t < m["burn"]]) == number
    assert m["burn"] == info.step - 1 and to_burn(at(steps, m["burn"]))
    premature = [at(steps, info.step + i)["deal"] for i in range({0: 3}.get(number, 1))]
    assert [at(steps, m["stub"] + i) for i in range(len(premature))] == [
        {"move": c, "to": "stub"} for c in premature]
    assert at(steps, m["round_done"]) == {"press": "round_done"} and m["round_done"] == m["stub"] + len(premature)
    state = replay(steps)
    final_board = state[-1].get("board", [])
    assert not set(premature) & set(final_board)
    board = sum(s.get("to") == "board" for s in clean)
    assert len(final_board) == board  # the street dealt again, and the rest as in the clean hand
    assert len(state[m["round_done"] - 1].get("board", [])) == {0: 0, 1: 3, 2: 4}[number]
    # after the tap: a burn for the new flop and one for the river (BOARD-004); a burn for the
    # new turn and none for the river (BOARD-005); no burn for the new river (BOARD-006)
    burns_after = sum(s.get("to") == "burn" for s in steps[m["round_done"]:])
    assert burns_after == {0: 1 + (board == 5), 1: 1, 2: 0}[number]


def check_muck_retrieval(clean, steps, info, order, game):
    state = replay(steps)
    moves = [at(steps, info.step + i) for i in range(HOLE[game])]
    assert moves == [{"move": c, "to": f"seat:{info.seat}"} for c in info.detail["cards"]]
    assert at(steps, info.marks["muck"]) == {"muck": f"seat:{info.seat}"} and info.step == info.marks["muck"] + 1
    mine = [s["deal"] for s in clean if s.get("to") == f"seat:{info.seat}"]
    assert state[info.step + HOLE[game] - 2][f"seat:{info.seat}"] == mine


def check_muck_swap(clean, steps, info, order, game):
    owner = info.detail["from_seat"]
    assert owner != info.seat and info.card in [s["deal"] for s in clean if s.get("to") == f"seat:{owner}"]
    state = replay(steps)
    back = state[info.step - 1][f"seat:{info.seat}"]
    assert info.card in back and info.detail["left_in_muck"] in state[info.step - 1]["muck"]
    assert len(back) == HOLE[game]


CHECKS: dict[str, Callable[..., None]] = {
    "wrong_first_seat": check_wrong_first_seat, "card_to_empty_seat": check_card_to_empty_seat,
    "skip_seat": check_skip_seat, "extra_card": check_extra_card, "short_seat": check_short,
    "button_short": check_short, "expose_first_card": check_expose_first_card,
    "expose_later_card": check_exposed_later, "expose_later_card_wrong_burn": check_exposed_later,
    "two_exposed": check_two_exposed, "boxed_one": check_boxed, "boxed_two": check_boxed,
    "player_exposed": check_player_exposed, "card_off_table": check_card_off_table,
    "no_burn_flop": check_no_burn, "no_burn_turn": check_no_burn, "no_burn_river": check_no_burn,
    "double_burn": check_double_burn, "extra_burn_after_river": check_extra_burn_after_river,
    "burn_to_muck": check_burn_to_muck, "board_before_burn_flop": check_board_before_burn_flop,
    "four_card_flop": check_extra_board_card, "two_card_turn": check_extra_board_card,
    "two_card_river": check_extra_board_card,
    "premature_flop": check_premature, "premature_turn": check_premature, "premature_river": check_premature,
    "muck_retrieval": check_muck_retrieval, "muck_swap": check_muck_swap,
}


# -- refusals, and hands that are not the module's ---------------------------------------------

def test_a_hand_that_cannot_take_a_fault_is_refused_naming_it():
    order = [2, 5]
    short = random_hand_steps(random.Random(0), game="holdem", seats=[2, 5], button=5, fold_chance=1.0)
    assert not any(s.get("to") == "board" for s in short)  # the second seat folds before the flop
    for name in ("no_burn_flop", "premature_flop", "four_card_flop", "expose_later_card", "card_off_table"):
        with pytest.raises(ValueError, match=f"^{name}: the hand has no flop"):
            FAULTS[name](short, order=order, game="holdem", rng=random.Random())
    full = random_hand_steps(random.Random(0), game="holdem", seats=list(range(1, 11)), button=1, fold_chance=0.0)
    with pytest.raises(ValueError, match="^card_to_empty_seat: every seat 1 to 10 is dealt in"):
        inject("card_to_empty_seat", full, game="holdem", seats=list(range(1, 11)), button=1, rng=random.Random())
    with pytest.raises(ValueError, match="^muck_retrieval: the hand has no fold"):
        inject("muck_retrieval", full, game="holdem", order=deal_order(list(range(1, 11)), 1), rng=random.Random())
    with pytest.raises(ValueError, match="unknown fault 'misdeal'"):
        inject("misdeal", full, game="holdem", seats=[1, 2], button=1, rng=random.Random())
    with pytest.raises(ValueError, match="not a clean hand"):
        inject("double_burn", full[1:], game="holdem", seats=list(range(1, 11)), button=1, rng=random.Random())
    with pytest.raises(ValueError, match="not a clean hand"):  # no tap before the burn
        inject("double_burn", [s for s in full if "press" not in s], game="holdem", seats=list(range(1, 11)),
               button=1, rng=random.Random())


def test_real_hands_take_the_faults_too():
    hands = load_phh_hands(PHH)[::6]
    for name in FAULTS:
        done = 0
        for rel, hand, game in hands:
            try:
                steps, info = inject(name, hand["steps"], game=game, seats=hand["seats"], button=hand["button"],
                                     rng=random.Random(rel))
            except ValueError:
                continue
            done += 1
            parses(steps, game, hand["seats"], hand["button"])
            assert KIND[name](at(steps, info.step)), (rel, info)
        assert done, name


# -- through the simulator ------------------------------------------------------------------------

def expected_zones(steps: list[dict]) -> dict[str, Any]:
    final = replay(steps)[-2]  # before the end gathers the cards
    zones = {z: cards for z, cards in final.items() if cards}
    return {"zones": zones, "stub_count": 52 - sum(len(c) for c in zones.values())}


def arrival_after_last_stub_move(steps: list[dict]) -> bool:
    """Whether a card arrives somewhere after the last move back on the stub. The daemon takes
    a card that left as gone for good only once something arrives after it: until then it may
    be the first card of the gather (controller/core/table/table.py, ``Table._on_moves``)."""
    last = max((i for i, s in enumerate(steps) if s.get("to") == "stub"), default=None)
    return last is None or any("deal" in s or "muck" in s or ("move" in s and s["to"] != "stub")
                               for s in steps[last + 1:])


def test_the_scripted_dealer_plays_every_fault(tmp_path):
    """One hand per fault, dealt in process (the harness) under noise: the dealer performs the
    moves (to a zone, back on the stub, dealt again) and presses with a seat, and the daemon's
    zones at each hand's end are where the cards physically are. The alerts are the rule
    tests' business."""
    seats, button, game = [1, 3, 5, 8], 8, "holdem"
    hands, rng = [], random.Random(3)
    for name in FAULTS:
        while True:
            clean = random_hand_steps(rng, game=game, seats=seats, button=button, fold_chance=0.15)
            try:
                steps, _ = inject(name, clean, game=game, seats=seats, button=button, rng=rng)
            except ValueError:
                continue
            if arrival_after_last_stub_move(steps):
                break
        hands.append({"seats": seats, "button": button, "steps": steps})
    script = {"format": 1, "game": game, "seats": seats, "button": button,
              "noise": {"seed": 3, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01}, "hands": hands}
    report = play(script)
    for name, hand, got in zip(FAULTS, hands, report["hands"], strict=True):
        want = expected_zones(hand["steps"])
        if "muck" in want["zones"]:
            want["zones"]["muck"] = muck_order(hand["steps"], want["zones"]["muck"])
        assert got["zones"] == want["zones"], name
        assert got["stub_count"] == want["stub_count"], name
