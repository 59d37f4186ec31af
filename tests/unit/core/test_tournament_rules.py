"""Three of the tournament's rules as the guides write them (issue 39), each a deal script dealt in
process and the report the rule's own text expects (docs/rules.md's catalogue, Part 2):

- SHUF-001 / FLOW-001: "A hand counts as started from the shuffle's opening riffle. Every 'next
  deal' rule keys off that moment" (it "freezes roster, button and level for the hand"); the new
  limits apply "from the next deal, which begins at its first riffle", and "new level" is said
  "at the first shuffle after the signal". A shuffler's report is the riffle the table sees; with
  no report, the first card is all it sees. On a two-deck table the spare is shuffled during the
  hand before: that report is the next hand's shuffle.
- FLOW-004: "the hand is dead on that word ... its tags are expected in MUCK": a hand dead on the
  clock is never read for the pot; its cards still at the seat at the showdown are a prompt to the
  dealer and the floor's to know.
- MISD-014: after a misdeal "the button stays put, nobody new is seated, and the limits do not
  change ... A pending level change waits": a re-deal hand whose script restates the misdealt
  hand's seats and button (a set-up that changes nothing) is still the re-deal. A set-up that
  changes something is the floor's word and replaces the re-deal
  (docs/decisions/0040-a-set-up-during-a-re-deal.md).

Each test fails on the code before issue 39 (the level of the hand shuffled before the signal,
the dead hand named the winner, the restated set-up ending the re-deal).
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from controller.core.events import LevelSet
from controller.core.table import Table
from rig.scenarios import NOISE, play
from tests.unit.core.test_tournament import Room, codes, shuffle
from tests.rules_common import BUTTON, CLEAN, END, RD, SEATS, clean_for, deal

AGAIN = {"seats": SEATS, "button": BUTTON}  # a hand restating the table's seats and button 9
SHUFFLE = {"shuffler": "deck"}  # the physical deck A, shuffled and reported
#: the spare deck B, all 52, as the shuffler reads it while the hand before is dealt
SPARE_B = {"shuffler": "deck", "cards": [f"{r}{s}@B" for r in "A23456789TJQK" for s in "shdc"]}


def level(n: int, sb: int, bb: int) -> dict[str, Any]:
    return {"floor": "level", "level": n, "sb": sb, "bb": bb}


def script(*hands: list[dict] | dict, seats: list[int] = SEATS, button: int = BUTTON, seed: int = 3) -> dict:
    return {"format": 1, "game": "holdem", "seats": seats, "button": button, "noise": dict(NOISE, seed=seed),
            "hands": [h if isinstance(h, dict) else {"steps": h} for h in hands]}


def on_deck_b(steps: list[dict]) -> list[dict]:
    """The same steps dealt from deck B (its cards ``As@B``): a two-deck table's other deck."""
    return [{**st, "deal": f"{st['deal']}@B"} if "deal" in st else st for st in steps]


def flow_prompts(hand: dict) -> list[dict]:
    return [p for p in hand["prompts"] if p["code"].startswith("flow.")]


# -- SHUF-001 / FLOW-001: the level of a deal is frozen at its shuffle --------------------------------------

def test_SHUF_001_FLOW_001_a_level_signalled_after_the_shuffle_applies_from_the_next_deal():
    """Hand 1: level 5 signalled, then the shuffle (it says "new level 5"). Hand 2: shuffled, then
    level 6 signalled: hand 2 began at its shuffle, under level 5, and nothing is said in it. Hand 3
    is dealt with no shuffle reported: its first card is its start, level 6, and "new level" is said
    there (docs/rules.md: "without a shuffler, at the first card")."""
    report = play(script([level(5, 100, 200), SHUFFLE] + CLEAN,
                         {"steps": [SHUFFLE, level(6, 200, 400)] + CLEAN, **AGAIN},
                         {"steps": CLEAN, **AGAIN}))
    hands = report["hands"]
    assert [h["level"] for h in hands] == [5, 5, 6]
    assert [flow_prompts(h) for h in hands] == [
        [{"code": "flow.new_level", "rule": "FLOW-001", "step": 2, "text": "new level 5: blinds 100/200"}],
        [],
        [{"code": "flow.new_level", "rule": "FLOW-001", "step": 1, "text": "new level 6: blinds 200/400"}]]
    assert [h["alerts"] for h in hands] == [[], [], []]
    assert list(report) == ["hands", "tracking", "holds"]  # nothing said between hands


def test_SHUF_001_FLOW_001_a_second_report_before_the_deal_is_the_same_deals_shuffle():
    """A shuffle run again before the first card (SHUF-004: a jam, the deck washed and run again)
    is the same deal's: the level it froze at the first report stays; a level between the two
    waits for the next deal."""
    report = play(script([level(5, 100, 200), SHUFFLE] + CLEAN,
                         {"steps": [SHUFFLE, level(6, 200, 400), SHUFFLE] + CLEAN, **AGAIN},
                         {"steps": [SHUFFLE] + CLEAN, **AGAIN}))
    hands = report["hands"]
    assert [h["level"] for h in hands] == [5, 5, 6]
    assert [[(p["step"], p["text"]) for p in flow_prompts(h)] for h in hands] == [
        [(2, "new level 5: blinds 100/200")], [], [(1, "new level 6: blinds 200/400")]]


def test_SHUF_001_FLOW_001_on_a_two_deck_table_the_spare_shuffled_during_a_hand_starts_the_next():
    """Decks A and B alternate every hand (SHUF-007, ``rotate_decks = "hand"``). During hand 1
    (deck A) the shuffler reports deck B: hand 2's shuffle (docs/rules.md, SHUF-006's row: "a
    two-deck table's spare"). Level 6 is signalled after that report, before hand 2's first card:
    hand 2 keeps level 5. During hand 2 (deck B) deck A is shuffled for hand 3: the first shuffle
    after the signal, where "new level 6" is said (kept in hand 3's record, traced to hand 2's step);
    hand 3 is dealt under level 6."""
    hand1 = [level(5, 100, 200), SHUFFLE] + CLEAN[:10] + [SPARE_B] + CLEAN[10:]  # the spare at step 13
    hand2 = [level(6, 200, 400)] + on_deck_b(CLEAN[:10]) + [SHUFFLE] + on_deck_b(CLEAN[10:])  # deck A at step 12
    report = play(script(hand1, {"steps": hand2, **AGAIN}, {"steps": CLEAN, **AGAIN}),
                  rules_extra='rotate_decks = "hand"')
    hands = report["hands"]
    assert [h["level"] for h in hands] == [5, 5, 6]
    assert [flow_prompts(h) for h in hands] == [
        [{"code": "flow.new_level", "rule": "FLOW-001", "step": 2, "text": "new level 5: blinds 100/200"}],
        [],
        [{"code": "flow.new_level", "rule": "FLOW-001", "step": 12, "hand": 2,
          "text": "new level 6: blinds 200/400"}]]
    assert [h["alerts"] for h in hands] == [[], [], []]  # (each hand on the deck due: no SHUF-007 prompt)
    assert hands[1]["zones"]["seat:1"] == ["As", "Qs"]  # (deck B's cards, its own labels while it is in play)


# -- FLOW-004: a hand dead on the clock is never read for the pot ----------------------------------------------

#: seats 1, 2, 4, button 4: seat 1 Ks Kd, seat 2 Qs Qd, seat 4 Ah Ad; the board Ac As 7h 2c 3d gives
#: seat 4 four aces, seat 1 aces and kings, seat 2 aces and queens
DEAD_HOLE = [deal(c, s) for c, s in (("Ks", 1), ("Qs", 2), ("Ah", 4), ("Kd", 1), ("Qd", 2), ("Ad", 4))]
CLOCK_OUT = [{"floor": "clock", "seat": 4}, {"wait": 31}]  # steps 7, 8: "seat 4 dead" in the wait
DEAD_BOARD = [RD, deal("2h", "burn"), deal("Ac", "board"), deal("As", "board"), deal("7h", "board"),
              RD, deal("3h", "burn"), deal("2c", "board"), RD, deal("4h", "burn"), deal("3d", "board")]  # 9-19


@pytest.mark.parametrize("press", [True, False], ids=["the showdown pad", "no pad: the hand's end"])
def test_FLOW_004_a_hand_dead_on_the_clock_is_never_read_for_the_pot(press):
    """Seat 4's clock runs out before the flop and the dealer leaves its cards at the seat. At the
    showdown (the ``showdown`` pad, step 20; or, without one, the hand's end) seat 4's four aces are
    not read: seat 1 wins with aces and kings. The dealer is told to kill seat 4's hand (while the
    cards are out: at the pad) and the floor is told, once."""
    steps = DEAD_HOLE + CLOCK_OUT + DEAD_BOARD + ([{"press": "showdown"}] if press else []) + [END]
    [hand] = play(script(steps, seats=[1, 2, 4], button=4))["hands"]
    at = 20  # the pad, or the end of the hand without one
    assert hand["showdown"] == {"seats": [1, 2], "high": [1],
                                "hands": {"1": "two pair, aces and kings", "2": "two pair, aces and queens"}}
    alerts = [(a["code"], a["rule"], a.get("seat"), a["audience"], a["step"]) for a in hand["alerts"]]
    assert alerts == [("flow.dead_hand_at_showdown", "FLOW-004", 4, "floor", at)] + (
        [("showdown.winner", "SHOW-004", 1, "dealer", at)] if press else [])
    said = [(p["code"], p.get("seat"), p["step"]) for p in flow_prompts(hand) if p["code"] != "flow.clock"]
    assert said == [("flow.clock_dead", 4, 8)] + ([("flow.dead_hand_kill", 4, 20)] if press else [])


def test_FLOW_004_a_dead_hand_the_dealer_mucks_is_no_prompt_and_no_note():
    """The dealer does what he was told at 0 (seat 4's cards to the muck): nothing more is said at
    the showdown, and seat 1 wins."""
    steps = DEAD_HOLE + CLOCK_OUT + [{"muck": "seat:4"}] + DEAD_BOARD + [{"press": "showdown"}, END]
    [hand] = play(script(steps, seats=[1, 2, 4], button=4))["hands"]
    assert hand["showdown"]["high"] == [1] and hand["showdown"]["seats"] == [1, 2]
    assert [a["code"] for a in hand["alerts"]] == ["showdown.winner"]
    assert "flow.dead_hand_kill" not in [p["code"] for p in hand["prompts"]]


# -- MISD-014: a set-up that changes nothing does not end a re-deal ---------------------------------------------

MISDEALT = [deal("As", 2), level(6, 200, 400), {"press": "misdeal"}, END]  # the first card to seat 2: MISD-004


def test_MISD_014_a_re_deal_that_restates_the_misdealt_hands_seats_and_button_keeps_the_old_level():
    """Level 5; hand 2 is misdealt (its first card to the wrong seat) while level 6 is signalled.
    Hand 3, its re-deal, restates the same seats and button (the contract lets a hand carry them):
    no word of the floor's, so the re-deal keeps level 5 and the button; hand 4 gets level 6."""
    report = play(script([level(5, 100, 200)] + CLEAN, {"steps": MISDEALT, **AGAIN}, {"steps": CLEAN, **AGAIN},
                         {"steps": CLEAN, **AGAIN}))
    hands = report["hands"]
    assert [h["level"] for h in hands] == [5, 5, 5, 6]
    assert [h["button"] for h in hands] == [9, 9, 9, 9]
    assert [[(a["code"], a["rule"], a.get("seat"), a["step"]) for a in h["alerts"]] for h in hands] == [
        [], [("misdeal.first_card_wrong_seat", "MISD-004", 2, 1)], [], []]
    assert [[p["step"] for p in flow_prompts(h)] for h in hands] == [[2], [], [], [1]]  # "new level" at 6's first card


def test_MISD_014_a_set_up_that_changes_the_seats_replaces_the_re_deal():
    """The decision (docs/decisions/0040): the floor's set-up that changes who is dealt (seat 9
    out) during a pending re-deal is the floor's word on the next deal. No hand is replayed: hand 3
    is a new hand, dealt as the set-up says, under the level now in force (6)."""
    report = play(script([level(5, 100, 200)] + CLEAN, {"steps": MISDEALT, **AGAIN},
                         {"steps": clean_for([1, 2, 4, 6]), "seats": [1, 2, 4, 6], "button": 9},
                         {"steps": CLEAN, **AGAIN}))
    hands = report["hands"]
    assert [h["level"] for h in hands] == [5, 5, 6, 6]
    assert [h["alerts"] for h in hands[2:]] == [[], []]


# -- the state: the level a shuffle froze, across a restart ---------------------------------------------------

def test_SHUF_001_the_level_a_shuffle_froze_is_kept_across_a_restart_and_a_version_1_section_has_none():
    """In process (the Room of test_tournament.py): hand 1 at level 5; the next deal shuffled, then
    level 6 signalled. A table written and read back between the two still deals the next hand at 5.
    A section of version 1 (written before issue 39) kept no shuffle: its next deal takes the level
    at its first card, as that release did."""
    r = Room()
    r.signal(LevelSet(r.at(), "main", 5))
    r.play()
    shuffle(r)
    r.signal(LevelSet(r.at(), "main", 6))
    state = json.loads(json.dumps(r.table.to_state()))
    assert state["parts"]["tournament"]["version"] == 2
    old = copy.deepcopy(state)
    old["parts"]["tournament"]["version"] = 1
    for name in ("_shuffled", "_shuffled_level"):
        del old["parts"]["tournament"]["state"][name]
    r.table = Table.from_state(state, r.table.settings)
    assert r.table.tournament.level_now() == 5
    assert r.play()["level"] == 5
    assert r.play()["level"] == 6
    r.table = Table.from_state(old, r.table.settings)
    assert r.table.tournament.level_now() == 6
    mark = r.mark()
    assert r.play()["level"] == 6 and "flow.new_level" in codes(r.effects[mark:])
