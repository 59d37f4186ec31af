"""Real stud, stud 8 and razz hands (PHH, tests/data/phh: the 2023 WSOP $50k PPC final table)
converted to deal scripts (hw_sim/phh_stud.py), checked against the histories read here, and
the two oracles of the stud prompts held against each other: who brought in and who acted first
as the history shows it (``history_actors``), and as the guides' rules say it should be
(``hw_sim.stud_oracle``, the random hands' oracle)."""

from __future__ import annotations

import json
import random
import tomllib
from collections import Counter

import pytest

from controller.core.cards import FULL_DECK
from hw_sim.phh import PhhError, UnsupportedHand
from hw_sim.phh_stud import STUD_VARIANTS, history_actors, load_phh_stud_hands, stud_to_hand
from hw_sim.script import parse_script
from hw_sim.stud_oracle import bring_in, first_to_act
from rig.scenarios import PHH_DIR, expected_hand

WSOP = "wsop/2023/43/5/"


@pytest.fixture(scope="module")
def loaded():
    return load_phh_stud_hands(PHH_DIR)


def history(rel: str) -> dict:
    return tomllib.loads((PHH_DIR / rel).read_text())


# -- the history's oracle, on hands read by hand ---------------------------------------------------

READ_BY_HAND = {
    # 'p5 pb'; 4th: 'p4 cc' first; 5th: 'p4 cc' first; p4 folds on 5th
    "00-22-43": {3: 5, 4: 4, 5: 4},
    # 'p3 pb'; then p1 and p2 heads-up, p1 first on 4th to 7th ('p1 cc' each time)
    "00-25-05": {3: 3, 4: 1, 5: 1, 6: 1, 7: 1},
    # razz: 'p1 pb' (Kh); p2 and p3 on, p3 first ('p3 cbr') on every later street
    "01-07-20": {3: 1, 4: 3, 5: 3, 6: 3, 7: 3},
    # razz heads-up, all in on 6th: the 7th card comes after the showdown, with no betting
    "03-50-24": {3: 2, 4: 1, 5: 2, 6: 1},
    # stud 8 with two players' cards unknown ('??????'): 'p4 pb', and the hand ends on 3rd
    "02-13-08": {3: 4},
}


@pytest.mark.parametrize("name", READ_BY_HAND)
def test_who_brought_in_and_who_acted_first_as_read_by_hand(name):
    assert history_actors((PHH_DIR / f"{WSOP}{name}.phh").read_text()) == READ_BY_HAND[name]


# -- every stud hand of the sample ----------------------------------------------------------------------

def test_every_stud_razz_and_stud8_hand_of_the_sample_is_loaded(loaded):
    lines = (PHH_DIR / "MANIFEST.tsv").read_text().splitlines()[1:]
    stud = sorted(line.split("\t")[0] for line in lines if line.split("\t")[1] in STUD_VARIANTS)
    assert [rel for rel, *_ in loaded] == stud
    assert Counter(game for _, _, game, _ in loaded) == {"stud": 13, "razz": 10, "stud8": 7}  # SOURCE.md
    assert load_phh_stud_hands(PHH_DIR) == loaded  # repeatable


def test_each_hand_deals_what_its_history_says_as_a_stud_dealer_would(loaded):
    for rel, hand, game, expect in loaded:
        doc = history(rel)
        n = len(doc["starting_stacks"])
        parse_script(json.dumps({"format": 1, "game": game, "seats": hand["seats"], "button": hand["button"],
                                 "hands": [hand]}))
        assert (hand["seats"], hand["button"]) == (list(range(1, n + 1)), n)
        steps = hand["steps"]
        deals = [s for s in steps if "deal" in s]
        cards = [s["deal"] for s in deals]
        assert len(set(cards)) == len(cards) and set(cards) <= set(FULL_DECK), rel  # each card once
        # 3rd street: down, down, up, round by round from seat 1
        assert [(s["to"], bool(s.get("face_up"))) for s in deals[:3 * n]] == \
            [(f"seat:{p}", up) for up in (False, False, True) for p in range(1, n + 1)], rel
        # the history's cards, where known, in the order each player got them; up on 4th to 6th
        listed: dict[int, list[str]] = {}
        folds = []
        for action in doc["actions"]:
            words = action.split("#")[0].split()
            if words[:2] == ["d", "dh"]:
                listed.setdefault(int(words[2][1:]), []).extend(words[3][i:i + 2] for i in range(0, len(words[3]), 2))
            elif words[1:2] == ["f"]:
                folds.append(int(words[0][1:]))
        for p, want in listed.items():
            got = [s for s in deals if s["to"] == f"seat:{p}"]
            assert len(got) == len(want), rel
            for i, (w, s) in enumerate(zip(want, got, strict=True)):
                assert w == "??" or s["deal"] == w, f"{rel}: p{p}'s card {i + 1}"
                assert bool(s.get("face_up")) == (2 <= i <= 5), f"{rel}: p{p}'s card {i + 1} up or down"
        # a tap and one burn before each later street; a fold is a muck of the seat
        streets = max(len(c) for c in listed.values()) - 2
        assert [s for s in steps if s.get("press")] == [{"press": "round_done"}] * (streets - 1), rel
        assert sum(s.get("to") == "burn" for s in steps) == streets - 1, rel
        assert [int(s["muck"][5:]) for s in steps if "muck" in s] == folds, rel
        want_zones = expected_hand(steps)
        assert want_zones["stub_count"] == 52 - len(cards), rel
        # the expected prompts are the history's, one a street dealt (no seat without betting)
        actors = history_actors((PHH_DIR / rel).read_text())
        assert [e["street"] for e in expect] == list(range(3, streets + 3)), rel
        named = [(e["street"], e.get("seat") or e["seats"][0]) for e in expect if e.get("seats", True) is not None]
        assert named == sorted(actors.items()), rel


def test_the_guides_rules_agree_with_every_history(loaded):
    """The random hands' oracle (the guides' rules) against what happened at a real final table:
    the bring-in on 3rd street, and the first to act on each later street (the 7th dealt down:
    as on 6th), for every known hand and every hand whose unknown up cards were filled."""
    checked = Counter()
    for rel, hand, game, _ in loaded:
        actors = history_actors((PHH_DIR / rel).read_text())
        steps, n = hand["steps"], len(hand["seats"])
        up = {int(s["to"][5:]): s["deal"] for s in steps[2 * n:3 * n]}
        assert bring_in(up, game) == actors[3], rel
        checked[3] += 1
        showing = {p: [c] for p, c in up.items()}
        live = set(up)
        street = 3
        rest = steps[3 * n:]
        for j, s in enumerate(rest):
            if "muck" in s:
                live.discard(int(s["muck"][5:]))
            elif "press" in s:
                street += 1
            elif s.get("face_up"):
                showing[int(s["to"][5:])].append(s["deal"])
                if not rest[j + 1].get("face_up") and street in actors:  # the street's last up card
                    assert actors[street] in first_to_act({p: showing[p] for p in sorted(live)}, game)[0], \
                        f"{rel}: street {street}"
                    checked[street] += 1
        if 7 in actors:
            six = first_to_act({p: showing[p] for p in sorted(live)}, game)[0]
            assert actors[7] in six, f"{rel}: street 7"
            checked[7] += 1
    assert checked[3] == 30 and checked[4] and checked[7]


def test_unknown_up_cards_are_filled_so_the_history_stays_true():
    text = (PHH_DIR / f"{WSOP}02-13-08.phh").read_text()
    for seed in range(20):
        hand, _ = stud_to_hand(text, rng=random.Random(seed))
        up = {int(s["to"][5:]): s["deal"] for s in hand["steps"][10:15]}
        assert (up[2], up[3], up[4]) == ("Th", "Jd", "2h")  # the known ones, as the history has them
        assert bring_in(up, "stud8") == 4  # p4's 2h: the filled up cards of p1 and p5 are higher


def test_what_is_not_a_stud_hand_is_refused():
    with pytest.raises(UnsupportedHand, match="'NT' is not a stud game"):
        stud_to_hand('variant = "NT"\nstarting_stacks = [1, 1]\nactions = []\n', rng=random.Random())
    with pytest.raises(UnsupportedHand, match="stud deals 2 to 8"):
        stud_to_hand(f'variant = "FR"\nstarting_stacks = {[1] * 9}\nactions = []\n', rng=random.Random())
    with pytest.raises(PhhError, match="'d db' .*not a dealer action of a stud game|not a dealer action"):
        stud_to_hand('variant = "F7S"\nstarting_stacks = [1, 1]\nactions = ["d db AsKsQs"]\n', rng=random.Random())
    with pytest.raises(PhhError, match="As appears twice"):
        stud_to_hand('variant = "F7S"\nstarting_stacks = [1, 1]\nactions = ["d dh p1 AsKsQs", "d dh p2 AsJsTs"]\n',
                     rng=random.Random())


def test_a_street_without_betting_is_expected_to_prompt_but_names_no_seat():
    _, expect = stud_to_hand((PHH_DIR / f"{WSOP}03-50-24.phh").read_text(), rng=random.Random(0))
    assert expect == [{"rule": "STUD-002", "street": 3, "seat": 2},
                      {"rule": "STUD-004", "street": 4, "seats": [1]}, {"rule": "STUD-004", "street": 5, "seats": [2]},
                      {"rule": "STUD-004", "street": 6, "seats": [1]}, {"rule": "STUD-004", "street": 7, "seats": None}]
