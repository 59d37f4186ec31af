"""Random hands of the stud and draw games (hw_sim/random_stud.py, hw_sim/random_draw.py) and
their oracle (hw_sim/stud_oracle.py).

Every hand is replayed here card by card against a model deck kept by the test: every card comes
off the top of the stub once, a rebuilt stub holds what the guides allow, the burns fall where
they must, and the stub holds what the guides' arithmetic says at each street. The oracle is
checked on the guides' own examples and on hands of the real histories read by hand; the
expected prompts of each generated hand against a brute force written here, which ranks showing
hands by the shape of their counts rather than by named categories."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from controller.core.cards import FULL_DECK
from hw_sim.random_chinese import random_chinese_hand
from hw_sim.random_draw import DRAW_TEMPLATES, random_draw_hand, sitting_out
from hw_sim.random_hands import most_seats, random_hand, random_mixed_script, random_script
from hw_sim.random_stud import random_stud_hand
from hw_sim.script import parse_script
from hw_sim.stud_oracle import bring_in, first_to_act, short_stub
from rig.scenarios import check_prompts, deal_and_check, expected_hand, secret_cards
from tests.stud_draw_e2e import deal_random_hands

STUD = ("stud", "stud8", "razz")
DRAW = tuple(DRAW_TEMPLATES)
#: the most players of each game, from the guides (001: stud 8, single draw 7, triple draw 6,
#: badugi 8; the hybrids and five-card draw are not given a maximum: as the draw games they are)
MAX = {"stud": 8, "stud8": 8, "razz": 8, "draw27_single": 7, "draw5": 7, "draw27_triple": 6,
       "draw_a5_triple": 6, "badugi": 8, "badeucy": 6, "badacey": 6}
CARDS = {"draw27_single": 5, "draw5": 5, "draw27_triple": 5, "draw_a5_triple": 5, "badugi": 4, "badeucy": 5,
         "badacey": 5}
DRAWS = {"draw27_single": 1, "draw5": 1, "draw27_triple": 3, "draw_a5_triple": 3, "badugi": 3, "badeucy": 3,
         "badacey": 3}


def clockwise(seats, button) -> list[int]:
    """The seats from the first left of ``button``, walking round the table (DEAL-001)."""
    out, seat = [], button
    for _ in range(10):
        seat = seat % 10 + 1
        if seat in seats:
            out.append(seat)
    return out


class Table:
    """A model of the physical table, kept by the test: the stub (as a set: the generator's
    shuffles are its own), where each card lies, the burns and the discards of each round."""

    def __init__(self) -> None:
        self.stub = set(FULL_DECK)
        self.at: dict[str, str] = {}
        self.discards: dict[str, int] = {}  # card -> the draw round it was discarded in
        self.round = 0

    def play(self, step: dict) -> None:
        if "deal" in step:
            card = step["deal"]
            assert card in self.stub, f"{card} dealt but not in the stub"
            assert len(self.stub) > 1, f"{card}: the stub's bottom card was dealt"
            self.stub.remove(card)
            self.at[card] = step["to"]
        elif "muck" in step:
            for c, z in self.at.items():
                if z == step["muck"]:
                    self.at[c] = "muck"
        elif "discard" in step:
            for c in step["discard"]:
                assert self.at[c] == step["from"]
                self.at[c] = "muck"
                self.discards[c] = self.round
        elif "restub" in step:
            for c in step["restub"]:
                assert c in self.stub or self.at[c] in ("muck", "burn"), c
                self.at.pop(c, None)
                self.discards.pop(c, None)
                self.stub.add(c)

    def account(self) -> None:
        """Every card once: in the stub or in one place on the table, 52 in all."""
        assert not self.stub & set(self.at)
        assert sorted(self.stub | set(self.at)) == sorted(FULL_DECK) and len(self.stub) + len(self.at) == 52


# -- the oracle on the guides' examples and on real hands read by hand ---------------------------

BRING_IN = [  # (game, up cards by seat, who brings in, where it comes from)
    ("stud", {1: "4d", 2: "4c", 3: "5c", 4: "Qc", 5: "3s"}, 5, "PHH wsop/2023/43/5/00-22-43: p5 pb"),
    ("stud", {1: "4d", 2: "4c", 3: "Qs"}, 2, "002: lowest by rank AND suit (clubs lowest)"),
    ("stud", {1: "As", 2: "Kc"}, 2, "docs/rules.md STUD_ACE_BRINGIN: the ace high in stud"),
    ("stud8", {1: "2h", 2: "2s", 3: "2d"}, 3, "002: suits spades, hearts, diamonds, clubs from the highest"),
    ("razz", {1: "Kh", 2: "Ks", 3: "Qs"}, 2, "002: the king of spades is the highest card"),
    ("razz", {1: "As", 2: "2c"}, 2, "001/002: the ace always low in razz"),
]


@pytest.mark.parametrize("game,up,seat,why", BRING_IN, ids=[b[3] for b in BRING_IN])
def test_the_bring_in_follows_the_guides(game, up, seat, why):
    assert bring_in(up, game) == seat


FIRST = [  # (game, showing hands, the seats that act first)
    ("stud", {4: ["Qc", "6d"], 5: ["3s", "9s"]}, [4]),  # PHH 00-22-43, 4th street: p4 acts first
    ("stud", {1: ["2c", "2d"], 2: ["Ac", "Kd"]}, [1]),  # 001: the highest hand; a pair beats ace-king
    ("stud", {1: ["3c", "3d", "2h", "2s"], 2: ["Ac", "Ad", "Kh", "Qs"]}, [1]),  # two pair beats one
    ("stud8", {1: ["7c", "7d", "7h"], 2: ["Ac", "Ad", "Kh"]}, [1]),
    ("stud", {1: ["Kc", "9d"], 2: ["Kh", "9s"], 3: ["Qh", "Js"]}, [1, 2]),  # a tie: the house decides
    ("razz", {1: ["Qc", "6d"], 2: ["3s", "9s"]}, [2]),  # 001: the low hand starts
    ("razz", {1: ["Ac", "Ad"], 2: ["Kh", "Qs"]}, [2]),  # any pair is worse than no pair
    ("razz", {1: ["7c", "5d", "4h"], 2: ["8s", "2h", "Ad"]}, [1]),  # the highest card decides first
]


@pytest.mark.parametrize("game,showing,seats", FIRST)
def test_first_to_act_follows_the_guides(game, showing, seats):
    assert first_to_act(showing, game)[0] == seats


def test_the_short_stub_follows_the_guides_examples():
    assert short_stub(live=5, stub=5, burns=3) == ("STUD-007", 7)  # 002: 5 + 2 = 7 needed, 5 + 3 = 8
    assert short_stub(live=8, stub=1, burns=3) == ("STUD-008", 10)  # 8 players: 52 - 24 - 3 - 24 = 1
    assert short_stub(live=7, stub=7, burns=3) == ("STUD-007", 9)  # 7 players: 52 - 21 - 3 - 21 = 7
    assert short_stub(live=3, stub=5, burns=3) == (None, 5)


# -- the brute force the generated expectations are checked against ------------------------------

def _value(card: str, game: str) -> tuple[int, int]:
    order = "A23456789TJQK" if game == "razz" else "23456789TJQKA"
    return order.index(card[0]), "cdhs".index(card[1])


def brute_bring_in(up: dict[int, str], game: str) -> int:
    ranked = sorted(up, key=lambda s: _value(up[s], game))
    return ranked[-1] if game == "razz" else ranked[0]


def brute_first(showing: dict[int, list[str]], game: str) -> list[int]:
    """The shape of the counts first ((2, 2) two pair above (2, 1, 1) a pair ...), then the
    ranks, most frequent first; the largest in stud, the smallest in razz."""
    def key(cards):
        counts = Counter(_value(c, game)[0] for c in cards)
        shape = tuple(sorted(counts.values(), reverse=True))
        ranks = sorted(((n, r) for r, n in counts.items()), reverse=True)
        return shape, [r for _, r in ranks]
    keys = {s: key(c) for s, c in showing.items()}
    best = (min if game == "razz" else max)(keys.values())
    return [s for s in showing if keys[s] == best]


# -- stud ------------------------------------------------------------------------------------------

def stud_replay(game: str, h) -> dict:
    """Replay a stud hand: the deal order, up and down cards, the burns, the stub at each street;
    checks every expectation against the brute force. Returns what a test may look at."""
    t = Table()
    order = clockwise(h.seats, h.button)
    assert h.dealt == order
    steps = h.steps
    deals = [s for s in steps if "deal" in s]
    # 3rd street: down, down, up, one card a seat a round, in order (STUD-001, DEAL-001)
    assert [(s["to"], bool(s.get("face_up"))) for s in deals[:3 * len(order)]] == \
        [(f"seat:{x}", up) for up in (False, False, True) for x in order]
    up = {x: deals[2 * len(order) + i]["deal"] for i, x in enumerate(order)}
    expect = iter(h.expect)
    e = next(expect)
    assert e == {"rule": "STUD-002", "street": 3, "seat": brute_bring_in(up, game), "card": up[e["seat"]]}
    showing = {x: [c] for x, c in up.items()}
    live = list(order)
    street, stubs, burns, seen = 3, {}, [], {}
    i = 0
    for i, s in enumerate(steps):
        t.play(s)
        if "muck" in s:
            live.remove(int(s["muck"][5:]))
        elif s.get("press") == "round_done":
            street += 1
            stubs[street] = len(t.stub)
            seen[street] = list(live)
            if street == 7:
                break
            assert steps[i + 1]["to"] == "burn"  # BURN-001: a burn right after the tap, 4th to 6th
            burns.append(steps[i + 1]["deal"])
            got = [(x["to"], x.get("face_up")) for x in steps[i + 2:i + 2 + len(live)]]
            assert got == [(f"seat:{x}", True) for x in live]
            for x in steps[i + 2:i + 2 + len(live)]:
                showing[int(x["to"][5:])].append(x["deal"])
            e = next(expect)
            assert e["rule"] == "STUD-004" and e["street"] == street
            assert e["seats"] == brute_first({x: showing[x] for x in live}, game)
    n = len(order)
    for st, stub in stubs.items():  # the guides' arithmetic: 3 cards each, then one a live seat a street
        assert stub == 52 - 3 * n - sum(len(seen[k]) for k in range(4, st)) - (st - 4)
    out = {"stubs": stubs, "seen": seen, "t": t, "burns": burns, "seventh": None}
    if street == 7:
        e = next(expect)
        procedure, need = short_stub(live=len(live), stub=stubs[7], burns=3)
        assert e == {"rule": "STUD-006", "street": 7, "stub": stubs[7], "need": need, "procedure": procedure,
                     "dealt": n}
        e = next(expect)
        assert e["rule"] == "STUD-004" and e["seats"] == brute_first({x: showing[x] for x in live}, game)
        rest = steps[i + 1:]
        stub7 = set(t.stub)
        for s in rest:
            t.play(s)
        dealt7 = [s for s in rest if "deal" in s]
        restubs = [s["restub"] for s in rest if "restub" in s]
        if procedure is None:  # a burn, then a down card each
            assert [s["to"] for s in dealt7] == ["burn"] + [f"seat:{x}" for x in live] and not restubs
            assert not any(s.get("face_up") for s in dealt7)
        elif procedure == "STUD-007":  # no burn; the stub to its last card; that card and the burns
            assert [s["to"] for s in dealt7] == [f"seat:{x}" for x in live]
            # (a stub short only of its burn deals every card from the stub, and rebuilds nothing)
            assert len(restubs) == (stubs[7] - 1 < len(live))
            before = restubs[0] if restubs else None
            if before is not None:
                at = rest.index({"restub": before})
                assert at == stubs[7] - 1  # after the stub less its last card was dealt
                assert set(before) == (stub7 - {s["deal"] for s in rest[:at]}) | set(burns)  # it, the burns
        else:  # STUD-008: a burn and one community card face up (the stub rebuilt first if under 3)
            assert [s["to"] for s in dealt7] == ["burn", "board"] and dealt7[1].get("face_up")
            assert restubs == ([] if stubs[7] >= 3 else [restubs[0]])
            if restubs:
                assert len(restubs[0]) == stubs[7] + 3 and set(burns) < set(restubs[0])
        out["seventh"] = procedure
    assert next(expect, None) is None
    t.account()
    return out


@pytest.mark.parametrize("game", STUD)
def test_stud_hands_deal_every_card_once_with_the_burns_and_the_stub_the_guides_give(game):
    rng = random.Random(f"stud:{game}")
    procedures = Counter()
    for k in range(120):
        n = 2 + k % 7
        seats = sorted(rng.sample(range(1, 11), n))
        h = random_stud_hand(rng, game=game, seats=seats, button=rng.randint(1, 10),
                             fold_chance=0.0 if k % 3 == 0 else 0.2)
        parse_script(json.dumps({"format": 1, "game": game, "seats": h.seats, "button": h.button,
                                 "hands": [h.hand()]}))
        got = stud_replay(game, h)
        procedures[(n, got["seventh"])] += 1
        assert got["seventh"] is None or n >= 7  # fewer than seven players never run short
    # eight and seven players who all stay reach the two short-stub procedures (STUD-006)
    assert procedures[(8, "STUD-008")] and procedures[(7, "STUD-007")]


def test_eight_players_to_seventh_street_rebuild_the_stub_of_one_before_the_community_card():
    h = random_stud_hand(random.Random(5), game="razz", seats=list(range(1, 9)), button=10, fold_chance=0)
    got = stud_replay("razz", h)
    assert got["stubs"] == {4: 52 - 24, 5: 52 - 24 - 8 - 1, 6: 52 - 24 - 16 - 2, 7: 1}
    assert got["seventh"] == "STUD-008"
    assert h.dealt == [1, 2, 3, 4, 5, 6, 7, 8]  # the dealer's position 10: seat 1 first


def test_the_generator_refuses_what_stud_cannot_deal():
    with pytest.raises(ValueError, match="stud deals 2 to 8"):
        random_stud_hand(random.Random(), game="stud", seats=list(range(1, 10)), button=1)
    with pytest.raises(ValueError, match="not a stud game"):
        random_stud_hand(random.Random(), game="holdem", seats=[1, 2], button=1)


# -- draw --------------------------------------------------------------------------------------------

def draw_replay(game: str, h) -> int:
    """Replay a draw hand; returns the number of stubs rebuilt."""
    t = Table()
    k, draws = CARDS[game], DRAWS[game]
    out = sitting_out(h.seats, h.button, MAX[game])
    order = [x for x in clockwise(h.seats, h.button) if x not in out]
    if len(h.seats) > MAX[game]:  # DRAW-002: the seats left of the big blind sit out
        ring = clockwise(h.seats, h.button)  # SB, BB, UTG, ...
        assert out == ring[2:2 + len(h.seats) - MAX[game]]
    assert h.dealt == order and len(order) <= MAX[game]
    steps = h.steps
    assert [s["to"] for s in steps[:k * len(order)]] == [f"seat:{x}" for x in order] * k
    hands = {x: [s["deal"] for s in steps[:k * len(order)] if s["to"] == f"seat:{x}"] for x in order}
    live = list(order)
    rebuilt, rnd, i = 0, 0, k * len(order)
    for s in steps[:i]:
        t.play(s)
    expect = list(h.expect)
    while i < len(steps):
        s = steps[i]
        if "discard" in s or s.get("press") == "round_done":  # a draw round
            rnd += 1
            t.round = rnd
            thrown: dict[int, list[str]] = {}
            while "discard" in steps[i]:
                thrown[int(steps[i]["from"][5:])] = steps[i]["discard"]
                t.play(steps[i])
                i += 1
            assert list(thrown) == [x for x in live if x in thrown]  # in turn
            assert steps[i] == {"press": "round_done"} and steps[i + 1]["to"] == "burn"  # DRAW-004
            stub_before = len(t.stub)
            t.play(steps[i + 1])
            i += 2
            need = sum(len(v) for v in thrown.values())
            if need >= len(t.stub):
                assert expect.pop(0) == {"rule": "DRAW-005", "round": rnd, "short_by": need - (len(t.stub) - 1)}
            got: list[int] = []
            while i < len(steps) and ("restub" in steps[i] or steps[i].get("to", "").startswith("seat:")):
                if "restub" in steps[i]:  # DRAW-005: the last card and earlier rounds' discards only
                    rebuilt += 1
                    assert len(t.stub) == 1
                    earlier = {c for c, r in t.discards.items() if r < rnd and t.at.get(c) == "muck"}
                    assert set(steps[i]["restub"]) == t.stub | earlier
                    assert not any(t.at.get(c) == "burn" for c in steps[i]["restub"])
                else:
                    got.append(int(steps[i]["to"][5:]))
                    hands[got[-1]].append(steps[i]["deal"])
                t.play(steps[i])
                i += 1
            # each player gets as many as thrown, one after the other, in turn
            assert got == [x for x in live for _ in thrown.get(x, [])]
            for x, cards in thrown.items():
                hands[x] = [c for c in hands[x] if c not in cards]
            assert all(len(hands[x]) == k for x in live)
            assert stub_before >= 2  # a burn and a bottom card were there for the round
            continue
        if "muck" in s:
            live.remove(int(s["muck"][5:]))
        t.play(s)
        i += 1
    assert rnd == draws or len(live) == 1  # every draw round, unless the hand was won before
    assert not expect
    t.account()
    return rebuilt


@pytest.mark.parametrize("game", DRAW)
def test_draw_hands_deal_every_card_once_and_rebuild_the_stub_as_draw_005_says(game):
    rng = random.Random(f"draw:{game}")
    rebuilt = over = 0
    most = min(10, MAX[game] + 2)
    assert most_seats(game) == most
    for j in range(100):
        n = 2 + j % (most - 1)
        seats = sorted(rng.sample(range(1, 11), n))
        h = random_draw_hand(rng, game=game, seats=seats, button=rng.choice(seats),
                             fold_chance=0.0 if j % 2 else 0.15)
        rebuilt += draw_replay(game, h)
        over += len(seats) > MAX[game]
        assert len([s for s in h.steps if s.get("to") == "burn"]) <= DRAWS[game]  # one a round
    assert over
    if DRAWS[game] == 3:  # a full triple-draw table runs out of cards
        assert rebuilt


def test_a_round_where_all_stand_pat_still_burns():
    h = random_draw_hand(random.Random(3), game="badugi", seats=[2, 5, 7], button=5, fold_chance=0,
                         discard_weights=(1,))
    assert [next(iter(s)) if "deal" not in s else s["to"] for s in h.steps[12:]] == \
        ["press", "burn"] * 3 + ["end"]
    expected = expected_hand(h.steps)
    assert expected["stub_count"] == 52 - 12 - 3 and "muck" not in expected["zones"]


# -- Chinese poker ------------------------------------------------------------------------------------

def test_chinese_hands_push_the_whole_deck_in_the_guides_stacks():
    """001 §CHINESE POKER: 52 cards in four stacks of 13; stack 1 left of the button, then round to
    the button; three players muck stack 4, two muck 3 and 4 (or play 1+3 and 2+4), five leave the
    button out; every card thrown to the muck at the end."""
    rng = random.Random("chinese")
    for k in range(40):
        n, two = 2 + k % 4, k % 8 == 0
        seats = sorted(rng.sample(range(1, 11), n))
        button = rng.choice(seats)
        h = random_chinese_hand(rng, seats=seats, button=button, two_hands=two)
        at: dict[str, str] = {}  # (the whole deck is dealt, its bottom card too: not Table's stub)
        for s in h.steps:
            for card in s.get("stack", ()):
                assert card not in at
                at[card] = s["to"]
            if "muck" in s:
                at.update({c: "muck" for c, z in at.items() if z == s["muck"]})
        stacks = [s for s in h.steps if "stack" in s]
        assert [len(s["stack"]) for s in stacks] == [13] * 4
        ring = clockwise(seats, button)
        to = [s["to"] for s in stacks]
        want = {2: [ring[0], ring[1], ring[0], ring[1]] if two else [ring[0], ring[1], "muck", "muck"],
                3: ring + ["muck"], 4: ring, 5: ring[:4]}[n]
        assert to == [w if w == "muck" else f"seat:{w}" for w in want]
        assert sorted(at) == sorted(FULL_DECK) and set(at.values()) == {"muck"}
        assert h.expect == []


# -- scripts of every game -----------------------------------------------------------------------------

@pytest.mark.parametrize("game", STUD + DRAW + ("chinese",))
def test_a_random_script_of_every_game_parses_and_names_each_hands_table(game):
    expect: list = []
    s = random_script(11, hands=4, game=game, expect=expect)
    parsed = parse_script(json.dumps(s))
    assert parsed.game == game and len(expect) == 4
    for hand in s["hands"]:
        assert 2 <= len(hand["seats"]) <= most_seats(game)
    if game in STUD:  # the dealer's position stays where it is
        assert len({h["button"] for h in s["hands"]}) == 1
    else:
        assert all(h["button"] in h["seats"] for h in s["hands"])


def test_check_prompts_takes_what_a_right_daemon_gives_and_refuses_a_wrong_seat():
    h = random_hand(random.Random(2), game="stud", seats=[1, 2, 3, 4, 5, 6, 7, 8], button=8)
    right = [{"code": "x", "rule": e["rule"], "seat": e.get("seat", (e.get("seats") or [None])[0]), "step": 1,
              "text": e.get("procedure") or ""} for e in h.expect]
    check_prompts(h.expect, right)
    wrong = [dict(p, seat=(p["seat"] % 8) + 1) if p["rule"] == "STUD-002" else p for p in right]
    with pytest.raises(AssertionError, match="STUD-002"):
        check_prompts(h.expect, wrong)


def test_deal_and_check_deals_a_script_through_the_daemon_and_reads_its_prompts():
    """The end-to-end check the stud and draw games will use, on a game the daemon deals today:
    the report carries each hand's prompts (the stub count of STUB-001/002 on a first hand)."""
    expect: list = []
    script = random_script(3, hands=2, game="holdem", seats=[1, 2, 3], noise={"seed": 3, "miss": 0.05},
                           expect=expect)
    report = deal_and_check(script, expect)
    assert expect == [[], []]
    prompts = report["hands"][0]["prompts"]
    assert prompts and all(set(p) >= {"code", "rule", "step", "text"} for p in prompts)
    assert {p["rule"] for p in prompts} >= {"STUB-001"}
    assert all(isinstance(p["step"], int) and p["text"] for p in prompts)


@pytest.mark.slow
def test_a_hundred_random_omaha_hi_lo_hands_end_exact_with_no_alert():
    """Issue 16's acceptance for the one game of the thirteen the scenario suites deal no hundred
    hands of (hold'em and Omaha: tests/unit/hw_sim/test_harness.py's 500; stud and the draw games: their
    own files): 2 to 10 seats under the scenario noise, exact zones and stub, no dealer or floor
    alert (rig.scenarios.check_report), nothing secret on a public output."""
    report = deal_random_hands("omaha8", hands=100)
    assert len(report["hands"]) == 100
    # the hands read at the end as the split game they are: both halves, a low made now and then
    shown = [h["showdown"] for h in report["hands"] if h.get("showdown")]
    assert shown and all(sd["halves"] == ["high", "8-or-better"] for sd in shown)
    assert any(sd["low"] for sd in shown)


def test_a_stud_hands_up_cards_are_public_and_its_down_cards_and_burns_secret():
    h = random_stud_hand(random.Random(8), game="stud", seats=[1, 3, 5, 7], button=7, fold_chance=0)
    ups = {s["deal"] for s in h.steps if s.get("face_up")}
    downs = {s["deal"] for s in h.steps if "deal" in s and s["to"].startswith("seat:") and not s.get("face_up")}
    burns = {s["deal"] for s in h.steps if s.get("to") == "burn"}
    secrets = secret_cards(h.steps, "stud")
    assert len(ups) == 4 * 4 and len(downs) == 3 * 4
    assert ups.isdisjoint(secrets) and downs | burns == secrets
    assert ups <= secret_cards(h.steps, "holdem")  # a card face up in a flop game is a mistake: still secret


def test_a_mixed_script_changes_game_every_few_hands_and_each_hand_says_its_game():
    horse = ["holdem", "omaha8", "razz", "stud", "stud8"]
    expect: list = []
    s = random_mixed_script(7, hands=12, rotation=horse, per=2, expect=expect)
    assert [h["game"] for h in s["hands"]] == [g for g in horse for _ in range(2)] + ["holdem"] * 2
    parsed = parse_script(json.dumps(s))
    assert [h.game for h in parsed.hands] == [h["game"] for h in s["hands"]]
    assert all(len(h["seats"]) <= 8 for h in s["hands"])  # stud deals eight at most
    buttons = [h["button"] for h in s["hands"]]
    assert buttons[4] == buttons[5] == buttons[6]  # razz: the button stays put (no button in stud)
    assert len(expect) == 12 and all(e[0]["rule"] == "STUD-002" for e in expect[4:10])
