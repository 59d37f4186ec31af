"""Random clean hands (hw_sim/random_hands.py): legal deals by every rule a clean hand must keep.

The expected dealing order is recomputed here from DEAL-001/002 by walking round the table,
independently of controller.core.settings.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.cards import FULL_DECK
from hw_sim.random_hands import (
    random_hand_steps,
    random_hand_steps_in_order,
    random_script,
    random_session,
)
from hw_sim.script import Deal, End, Muck, Press, action_of, parse_script
from tests.dead_button import Reference, session_expectations

HOLE = {"holdem": 2, "omaha": 4}
STREET_SHAPES = {0: [], 3: ["burn"] + ["board"] * 3, 4: ["burn"] + ["board"] * 3 + ["burn", "board"],
                 5: ["burn"] + ["board"] * 3 + ["burn", "board", "burn", "board"]}


def expected_order(seats, button) -> list[int]:
    """DEAL-001: clockwise (seat numbers up, 10 wrapping to 1) from the first seat left of the
    button; DEAL-002 heads-up: the non-button seat first (the same walk gives it)."""
    order = []
    seat = button
    for _ in range(10):
        seat = seat % 10 + 1
        if seat in seats:
            order.append(seat)
    return order


def as_script(steps, game, seats, button) -> str:
    return json.dumps({"format": 1, "game": game, "seats": sorted(seats), "button": button,
                       "hands": [{"steps": steps}]})


def check_clean_hand(steps: list[dict], game: str, seats, button) -> None:
    k, n = HOLE[game], len(seats)
    # it parses, as a whole script, with nothing after the end
    parsed = parse_script(as_script(steps, game, seats, button))
    actions = [action_of(s) for s in parsed.hands[0].steps]
    assert len(actions) == len(steps) and isinstance(actions[-1], End)
    assert not any(isinstance(a, End) for a in actions[:-1])
    deals = [a for a in actions if isinstance(a, Deal)]
    # the hole cards: first, one at a time, round by round, in the order DEAL-001/002 give
    hole = [int(a.to[5:]) for a in actions[:k * n] if isinstance(a, Deal) and a.to.startswith("seat:")]
    assert hole == expected_order(seats, button) * k
    assert all(not a.to.startswith("seat:") for a in deals[k * n:])
    for seat in seats:
        assert sum(a.to == f"seat:{seat}" for a in deals) == k
    # no card twice, every one a card of the deck in play
    cards = [str(a.card) for a in deals]
    assert len(set(cards)) == len(cards) and set(cards) <= set(FULL_DECK)
    assert not any(a.clone or a.face_up for a in deals)
    # the streets: a burn before each (BURN-001), then 3, 1, 1
    rest = [a.to for a in deals[k * n:]]
    board = rest.count("board")
    assert board in STREET_SHAPES and rest == STREET_SHAPES[board]
    # folds: of live seats dealt in, never the last one; dealing stops when one seat is left
    live = set(seats)
    for a in actions[k * n:]:
        if isinstance(a, Muck):
            assert a.seat in live
            live.discard(a.seat)
            assert live, "the last live seat folded"
        elif isinstance(a, Deal) and a.to == "burn":
            assert len(live) >= 2, "a street dealt with one live seat"
    if board < 5:
        assert len(live) == 1, "the hand stopped dealing with two seats live"
    # BURN-002: the dealer taps round_done right before each burn, and at no other time
    for i, a in enumerate(actions):
        if isinstance(a, Deal) and a.to == "burn":
            assert actions[i - 1] == Press("round_done"), f"step {i + 1}: a burn without the tap before it"
        if isinstance(a, Press):
            after = actions[i + 1]
            assert a == Press("round_done") and isinstance(after, Deal) and after.to == "burn", f"step {i + 1}: {a}"


seat_sets = st.sets(st.integers(1, 10), min_size=2, max_size=10).map(sorted)


@settings(max_examples=400, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["holdem", "omaha"]), seats=seat_sets,
       button=st.integers(1, 10), fold_chance=st.sampled_from([0.0, 0.25, 0.6, 1.0]))
def test_every_random_hand_is_clean_and_legal(seed, game, seats, button, fold_chance):
    steps = random_hand_steps(random.Random(seed), game=game, seats=seats, button=button, fold_chance=fold_chance)
    check_clean_hand(steps, game, seats, button)
    if fold_chance == 0.0:
        assert sum("deal" in s and s["to"] == "board" for s in steps) == 5
        assert not any("muck" in s for s in steps)


def test_the_order_follows_deal_001_and_deal_002():
    def targets(seats, button, game="holdem"):
        steps = random_hand_steps(random.Random(0), game=game, seats=seats, button=button)
        return [s["to"] for s in steps[:HOLE[game] * len(seats)]]

    assert targets([1, 2, 4, 6, 9], 9) == [f"seat:{s}" for s in [1, 2, 4, 6, 9] * 2]
    assert targets([1, 2, 4, 6, 9], 4) == [f"seat:{s}" for s in [6, 9, 1, 2, 4] * 2]
    assert targets([3, 10], 10) == ["seat:3", "seat:10"] * 2  # heads-up: the non-button seat first
    assert targets([3, 10], 3) == ["seat:10", "seat:3"] * 2
    assert targets([2, 5], 7, "omaha") == ["seat:2", "seat:5"] * 4  # a dead button: wrap past 10


def test_cards_come_off_a_shuffled_deck_in_deal_order():
    rng, twin = random.Random(42), random.Random(42)
    steps = random_hand_steps(rng, game="holdem", seats=[1, 2, 3], button=3, fold_chance=0.0)
    deck = list(FULL_DECK)
    twin.shuffle(deck)
    dealt = [s["deal"] for s in steps if "deal" in s]
    assert dealt == deck[:len(dealt)]


def test_unknown_games_and_bad_tables_are_refused():
    with pytest.raises(ValueError, match="stud"):
        random_hand_steps(random.Random(), game="stud", seats=[1, 2], button=1)
    with pytest.raises(ValueError, match="seats"):
        random_hand_steps(random.Random(), game="holdem", seats=[1], button=1)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["holdem", "omaha"]), seats=seat_sets,
       hands=st.integers(1, 12))
def test_a_random_script_with_fixed_seats_moves_the_button_clockwise(seed, game, seats, hands):
    script = random_script(seed, hands=hands, game=game, seats=seats)
    parsed = parse_script(json.dumps(script))
    assert parsed.game == game and len(parsed.hands) == hands
    assert script["noise"] == {"seed": seed}
    assert (script["seats"], script["button"]) == (seats, script["hands"][0]["button"])
    assert script["hands"][0]["button"] in seats
    for prev, hand in zip(script["hands"], script["hands"][1:], strict=False):
        assert hand["seats"] == seats
        assert hand["button"] == expected_order(seats, prev["button"])[0]  # DEAL-004
    for hand in script["hands"]:
        check_clean_hand(hand["steps"], game, hand["seats"], hand["button"])
    assert random_script(seed, hands=hands, game=game, seats=seats) == script  # repeatable


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["holdem", "omaha"]))
def test_a_random_script_with_varying_seats_names_each_hands_table(seed, game):
    noise = {"seed": 7, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01}
    script = random_script(seed, hands=8, game=game, noise=noise, vary_seats=True)
    parsed = parse_script(json.dumps(script))
    assert parsed.noise.miss == 0.05
    for hand, ph in zip(script["hands"], parsed.hands, strict=True):
        assert 2 <= len(hand["seats"]) <= 10 and 1 <= hand["button"] <= 10
        assert (ph.seats, ph.button) == (tuple(hand["seats"]), hand["button"])
        check_clean_hand(hand["steps"], game, hand["seats"], hand["button"])


def test_random_seats_when_none_are_given():
    script = random_script(5, hands=3)
    assert 2 <= len(script["seats"]) <= 10
    assert all(h["seats"] == script["seats"] for h in script["hands"])


def test_every_burn_comes_right_after_the_tap():
    steps = random_hand_steps(random.Random(8), game="omaha", seats=[2, 3, 5, 7], button=3, fold_chance=0.0)
    kinds = [s.get("to", s.get("press")) for s in steps[16:]]
    assert kinds == ["round_done", "burn", "board", "board", "board", "round_done", "burn", "board",
                     "round_done", "burn", "board", None]


def test_a_hand_may_be_dealt_in_a_given_order():
    steps = random_hand_steps_in_order(random.Random(1), game="holdem", order=[5, 9, 2], fold_chance=0.0)
    assert [s["to"] for s in steps[:6]] == ["seat:5", "seat:9", "seat:2"] * 2
    # random_hand_steps is the same hand in the order of its seats and button
    assert random_hand_steps(random.Random(1), game="holdem", seats=[2, 5, 9], button=2, fold_chance=0.0) == steps
    with pytest.raises(ValueError, match="the order must be 2 to 10 different seats"):
        random_hand_steps_in_order(random.Random(), game="holdem", order=[5, 5])


# -- sessions: one table, players eliminated between hands ----------------------------------

def positions_of_session(script: dict) -> list:
    """Each hand's (live seats, Reference) read here independently: the first hand's seats and
    button, then the seat_out presses that open each hand, with the reference walk of the
    dead-button rule (tests/dead_button.py, from docs/rules.md's wording)."""
    out = []
    live = list(script["hands"][0]["seats"])
    pos = Reference.first(live, script["hands"][0]["button"])
    for number, hand in enumerate(script["hands"]):
        if number:
            outs = [s["seat"] for s in hand["steps"] if s.get("press") == "seat_out"]
            live = [s for s in live if s not in outs]
            pos = pos.next(live)
        out.append((live, pos))
    return out


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**32), game=st.sampled_from(["holdem", "omaha"]), hands=st.integers(1, 15),
       eliminate=st.sampled_from([0.0, 0.1, 0.2, 0.5, 1.0]))
def test_a_session_eliminates_players_and_follows_the_dead_button_rule(seed, game, hands, eliminate):
    script = random_session(seed, hands=hands, game=game, eliminate=eliminate)
    parsed = parse_script(json.dumps(script))
    assert len(parsed.hands) == hands and parsed.game == game and script["noise"] == {"seed": seed}
    first = script["hands"][0]
    assert (script["seats"], script["button"]) == (first["seats"], first["button"])
    assert 2 <= len(first["seats"]) <= 10 and 1 <= first["button"] <= 10
    expected = positions_of_session(script)
    previous = None
    for number, (hand, (live, pos)) in enumerate(zip(script["hands"], expected, strict=True)):
        # only the first hand names its table: the daemon moves the button after that
        assert ("seats" in hand, "button" in hand) == (number == 0, number == 0)
        steps = hand["steps"]
        outs = [s for s in steps if s.get("press") == "seat_out"]
        # the eliminations open the hand, before its first card, each a seat that played the last hand
        assert steps[:len(outs)] == outs and all(set(s) == {"press", "seat"} for s in outs)
        assert not outs or number > 0
        if previous is not None:
            assert {s["seat"] for s in outs} <= set(previous)
            assert sorted(live) == sorted(set(previous) - {s["seat"] for s in outs})
            if eliminate == 0.0:
                assert outs == []
            if eliminate == 1.0:
                assert len(live) == 2
        assert len(live) >= 2
        # the cards go out clockwise from left of the button the dead-button rule gives
        check_clean_hand(steps[len(outs):], game, live, pos.button)
        previous = live
    got = session_expectations(script)
    assert [(list(h.live), h.button, h.sb, h.bb) for h in got] == \
        [(sorted(live), pos.button, pos.sb, pos.bb) for live, pos in expected]
    assert [h.order for h in got] == [expected_order(live, pos.button) for live, pos in expected]
    assert random_session(seed, hands=hands, game=game, eliminate=eliminate) == script  # repeatable


def test_a_session_passes_through_dead_buttons_and_heads_up():
    """Over some seeds, every case of the dead-button rule turns up."""
    dead = heads_up = 0
    for seed in range(60):
        script = random_session(seed, hands=6, eliminate=0.3)
        for h in session_expectations(script)[1:]:
            dead += h.button not in h.live
            heads_up += len(h.live) == 2
    assert dead > 5 and heads_up > 5


def test_a_session_is_refused_without_hands():
    with pytest.raises(ValueError, match="at least one hand"):
        random_session(1, hands=0)
    with pytest.raises(ValueError, match="probability"):
        random_session(1, hands=2, eliminate=1.5)
