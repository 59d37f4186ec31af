"""The button, the blinds and the deal order of every real hand (PHH) the loader maps, checked
against what the hand history itself says, not against ``controller.core.positions``.

What each history says of its own seats, read here from the file (the PHH standard numbers the
players p1..pN in dealing order, the button last):

- the blinds, ``blinds_or_straddles``: with three or more players the smaller of the first two
  posts is the small blind, the larger the big blind; heads-up pokerkit's files list the posts
  reversed (p1 is the big blind, p2 the button and small blind), and the action order says so;
- who acts first before the flop: the first seat after the big blind (DEAL-001), heads-up the
  button, the small blind (DEAL-002);
- who acts first after the flop: the first live seat after the button;
- who is dealt first: the first ``d dh`` line (p1, left of the button; heads-up the big blind).

The loader (hw_sim/phh.py) puts pN at seat N with the button given; the daemon's positions
(``controller.core.positions.initial_positions``) and deal order (``controller.core.settings.deal_order``)
of that mapping must agree with all of it.
"""

from __future__ import annotations

import functools
import tomllib

import pytest

from controller.core.positions import initial_positions
from controller.core.settings import deal_order
from hw_sim.phh import load_phh_hands
from tests.golden.test_phh import HOLE, manifest, phh_root


def history(text: str) -> dict:
    """What the history says of its seats, read plainly."""
    doc = tomllib.loads(text)
    n = len(doc["starting_stacks"])
    posts = list(doc["blinds_or_straddles"])
    dealt: list[int] = []
    actors: list[list[int]] = [[]]  # the players who act, street by street
    folded: set[int] = set()
    for action in doc["actions"]:
        words = action.split("#")[0].split()
        if words[:2] == ["d", "dh"]:
            dealt.append(int(words[2][1:]))
        elif words[:2] == ["d", "db"]:
            actors.append([])
        elif words and words[0] != "d":
            p = int(words[0][1:])
            if p not in folded:
                actors[-1].append(p)
            if words[1] == "f":
                folded.add(p)
    return {"n": n, "posts": posts, "dealt": dealt, "actors": actors}


@functools.cache
def hands() -> list[tuple[str, dict, str]]:
    """``(relpath, mapped hand, the file's text)`` of every flop hand the loader maps."""
    root = phh_root()
    return [(rel, hand, (root / rel).read_text(encoding="utf-8")) for rel, hand, _ in load_phh_hands(root)]


def test_every_mapped_hand_has_the_history_s_button_blinds_and_deal_order():
    checked = heads_up = 0
    for rel, hand, text in hands():
        h = history(text)
        n = h["n"]
        seats, button = hand["seats"], hand["button"]
        assert seats == list(range(1, n + 1)) and button == n, rel  # pN at seat N, the button last
        pos = initial_positions(seats, button)
        order = deal_order(seats, button)
        # dealt first: the history's first "d dh" player; the loader's first round follows the order
        assert order[0] == h["dealt"][0] == 1, rel
        first_round = [int(s["to"][5:]) for s in hand["steps"][:n]]
        assert first_round == order, rel
        posts = h["posts"]
        if n == 2:
            heads_up += 1
            # DEAL-002: the button posts the small blind and acts first before the flop
            assert pos.button == pos.sb == 2 and pos.bb == 1, rel
            assert h["actors"][0][0] == pos.sb, rel
            assert sorted(posts) == sorted(posts[:2]) and posts[0] < posts[1], rel  # pokerkit's reversed list
        else:
            posters = [i + 1 for i, amount in enumerate(posts) if amount > 0]
            # the small blind, and the big blind where the history has one (some fixed-limit
            # final-table hands list a single blind), straight after the button; no straddle
            assert posters in ([1, 2], [1]), rel
            assert pos.sb == 1 and (len(posters) == 1 or (posts[0] < posts[1] and pos.bb == 2)), rel
            # DEAL-001: the first seat after the last blind acts first before the flop
            if h["actors"][0]:
                assert h["actors"][0][0] == posters[-1] + 1, rel
        for street in h["actors"][1:]:
            if street:  # after the flop: the first live seat after the button acts first
                assert street[0] == min(street), rel
        checked += 1
    # every flop hand of the sample (MANIFEST.tsv), four of them heads-up
    assert checked == sum(v in HOLE for v in manifest().values()) and heads_up >= 4, (checked, heads_up)


@pytest.mark.parametrize("rel,first", [
    ("antonius-blom-2009.phh", 2),   # heads-up Omaha: "p2 cbr 3000  # Blom" opens, Blom has the button
])
def test_a_famous_heads_up_hand_opens_with_the_button(rel, first):
    text = (phh_root() / rel).read_text(encoding="utf-8")
    assert history(text)["actors"][0][0] == first
    [(_, hand, _)] = [x for x in hands() if x[0] == rel]
    assert initial_positions(hand["seats"], hand["button"]).button == first
