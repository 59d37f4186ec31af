"""Deck integrity on the pure core (issue 4): counts, foul cards, the pair, stub counts, the
shuffler's reports and faults, and what each audience hears of them."""

from __future__ import annotations

import pytest

from controller.core.cards import FULL_DECK, setup_order
from controller.core.deck_rack import DeckRack
from controller.core.effects import Alert, Prompt
from controller.core.events import DeckSetup, ShufflerReport, ShufflerStatus
from controller.core.registry import DeckRegistry, Deck
from controller.core.rules.deck import NEW_SETUP, count_deck
from controller.core.rules.stub import expected_out, stub_arithmetic
from controller.core.settings import RuleSettings, deal_order
from hw_sim.decks import sim_uid
from tests.unit.core.test_table import Feeder, deal_clean_hand, registry

FOREIGN = "E0040150A05F02B7"
SECRET_WORDS = ("short", "missing", "foreign", "sticky", "clone", "extra", "not of")


def deck_uids(deck="A", without=(), plus=()):
    return [sim_uid(deck, c) for c in setup_order() if c not in without] + list(plus)


def alerts(f, audience=None):
    return [(a.code, a.rule, a.audience, a.card) for a in f.of(Alert) if audience in (None, a.audience)]


def report(f, uids=None, count=None, ts=None):
    uids = tuple(uids) if uids is not None else None
    f.effects += f.table.apply(ShufflerReport(ts or f.cycle + 0.25, "shuffler",
                                              count if count is not None else len(uids or ()), uids))


def assert_discreet(f):
    """Deck faults reach the floor only; the dealer reads nothing a player may not."""
    for e in f.effects:
        if getattr(e, "audience", None) == "public":
            assert "@" not in str(getattr(e, "card", "")) and "tag:" not in str(getattr(e, "card", ""))
            assert not isinstance(e, Alert)
        if isinstance(e, Alert) and e.audience == "dealer" and e.code.startswith(("deck.", "stub.")):
            assert e.card is None
            assert not any(w in e.message.lower() for w in SECRET_WORDS), e.message


# -- counting a deck -------------------------------------------------------------------------
def test_a_whole_deck_counts_clean():
    c = count_deck(deck_uids(), registry())
    assert (c.deck, c.count, c.ok) == ("A", 52, True)


def test_a_count_names_what_is_missing_foreign_and_read_twice():
    uids = deck_uids(without=("7h", "Ks"), plus=(FOREIGN, sim_uid("B", "Qd"), sim_uid("A", "As")))
    c = count_deck(uids, registry())
    assert c.missing == ("Ks", "7h")  # in set-up order (DECK-008), as a dealer spreads the deck
    assert c.foreign == ("Qd@B", f"tag:{FOREIGN}")
    assert c.cloned == ("As",)
    assert not c.ok and c.count == 53
    assert c.summary() == f"deck A: 53 of 52, missing Ks 7h, not of the deck Qd@B tag:{FOREIGN}, read twice As"


def test_a_stub_count_leaves_out_the_cards_on_the_table():
    out = [sim_uid("A", c) for c in ("As", "Kd", "7c")]
    c = count_deck(deck_uids(without=("As", "Kd", "7c")), registry(), out=out)
    assert c.ok and c.expected == 49


# -- the shuffler's deck report (DECK-001, STUB-005) ------------------------------------------
def test_a_whole_deck_reported_is_verified_silently():
    f = Feeder()
    report(f, deck_uids())
    assert f.of(Alert) == []
    assert "A" in f.table.rack.verified


def test_a_short_deck_goes_to_the_floor_card_by_card_and_the_dealer_hears_new_setup():
    """DECK-001 (first count of the deck): 7h missing; the deck is blocked, the spare comes in."""
    f = Feeder()
    report(f, deck_uids(without=("7h",)))
    assert alerts(f) == [("deck.missing_card", "DECK-001", "floor", "7h"),
                         ("deck.new_setup", "STUB-004", "dealer", None)]
    assert [a.message for a in f.of(Alert) if a.audience == "dealer"] == [NEW_SETUP]
    assert f.table.rack.in_play == "B" and "A" in f.table.rack.blocked
    assert [(c.old, c.new, c.reason) for c in f.table.rack.changes] == [("A", "B", "stub_count")]
    assert_discreet(f)


def test_once_verified_a_count_is_stub_005_and_extra_and_cloned_tags_are_named():
    f = Feeder()
    report(f, deck_uids())
    report(f, deck_uids(plus=(FOREIGN, sim_uid("A", "9c"))))
    assert alerts(f, "floor") == [("deck.extra_card", "DECK-006", "floor", f"tag:{FOREIGN}"),
                                  ("deck.cloned_tag", "DECK-007", "floor", "9c")]
    assert_discreet(f)


def test_a_count_only_report_that_is_not_52_is_a_sticky_deck():
    f = Feeder()
    report(f, None, count=51)
    assert alerts(f) == [("deck.count_wrong", "STUB-004", "floor", None),
                         ("deck.new_setup", "STUB-004", "dealer", None)]
    assert "51" in f.of(Alert)[0].message


def test_a_blocked_deck_dealt_anyway_is_one_floor_alert_per_hand_not_one_per_card():
    f = Feeder()
    report(f, deck_uids(without=("7h",)))
    f.effects.clear()
    deal_clean_hand(f)  # from deck A, which is blocked
    assert alerts(f) == [("deck.blocked_deck_dealt", "STUB-004", "floor", None)]
    # the dealer was told "new setup" before the hand, and the hand keeps that alert
    assert [a.code for a in f.table.hand.alerts] == ["deck.missing_card", "deck.new_setup",
                                                     "deck.blocked_deck_dealt"]
    assert f.table.hand.zone_labels()["seat:1"] == ["As", "2h"]  # labelled as themselves


def test_a_card_missing_at_the_count_that_comes_back_into_play_alerts_the_floor():
    """STUB-005: a card held out of the deck and reintroduced."""
    f = Feeder()
    report(f, deck_uids(without=("7c",)))
    f.effects.clear()
    deal_clean_hand(f)  # 7c goes to seat 4
    assert ("deck.reintroduced_card", "STUB-005", "floor", "7c") in alerts(f)
    assert [(a.seat, a.hand) for a in f.of(Alert) if a.code == "deck.reintroduced_card"] == [(4, 1)]  # issue 29
    assert_discreet(f)


def test_a_report_of_a_deck_found_whole_again_unblocks_it():
    f = Feeder()
    report(f, deck_uids(without=("7h",)))
    report(f, deck_uids())
    assert "A" not in f.table.rack.blocked and f.table.rack.missing == {}


# -- foul cards in play (DECK-005..007) ------------------------------------------------------
def test_a_cloned_tag_read_strong_in_two_zones_is_a_floor_alert_naming_the_card():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 2)
    f.twins[f.uid("As")] = 4  # a second card with the ace's tag lands at seat 4
    f.tick(4)
    assert alerts(f) == [("deck.cloned_tag", "DECK-007", "floor", "As"),
                         ("deck.new_setup", "DECK-007", "dealer", None)]
    assert "seat:1" in f.of(Alert)[0].message and "seat:4" in f.of(Alert)[0].message
    assert (f.of(Alert)[0].seat, f.of(Alert)[0].hand) == (4, 1)  # the second card's seat (issue 29)
    assert f.table.hand.zone_labels()["seat:1"] == ["As"]  # the tag makes no move meanwhile
    f.tick(10)
    assert len([a for a in f.of(Alert) if a.code == "deck.cloned_tag"]) == 1
    assert_discreet(f)


def test_crosstalk_even_for_many_cycles_is_not_a_clone():
    f = Feeder()
    f.put("As", 1)
    uid = f.uid("As")
    for _ in range(30):  # the neighbour hears the ace weakly in every cycle
        f.cycle += 1
        f.effects += f.table.apply(__import__("controller.core.events", fromlist=["ReaderCycle"]).ReaderCycle(
            float(f.cycle), "reader", f.cycle, ((uid, 1, 200), (uid, 2, 110))))
    assert f.of(Alert) == []


def test_a_tag_of_a_retired_deck_is_a_floor_alert():
    """DECK-005: after the setup exchange the old pair's tags are foul."""
    f = Feeder()
    deal_clean_hand(f)
    f.field.clear()
    f.tick(5)
    new = tuple((d, back, tuple((sim_uid(d, c), c) for c in FULL_DECK)) for d, back in (("B", "blue"),))
    extra = ("C", "green", tuple((f"E0040150A05F09{i:02X}", c) for i, c in enumerate(setup_order())))
    f.effects += f.table.apply(DeckSetup(f.cycle + 0.5, new + (extra,), "C"))
    f.effects.clear()
    first, second = deal_order(f.table.seats, f.table.button)[:2]
    f.field["E0040150A05F0900"] = first  # C's ace of spades: fine
    f.tick(3)
    f.put("Kd", second)  # deck A is retired
    assert alerts(f) == [("deck.retired_card", "DECK-005", "floor", "Kd@A"),
                         ("deck.new_setup", "DECK-005", "dealer", None)]
    assert (f.of(Alert)[0].seat, f.of(Alert)[0].hand) == (second, 2)  # issue 29
    assert f.table.rack.pair == ("C", "B") and f.table.rack.in_play == "C"


# -- the pair: rotation and changes (SHUF-007, RELIEF-001, RELIEF-002) -------------------------
def gather(f):
    f.field.clear()
    f.tick(5)


def deal_hand(f, deck="A", to_river=True):
    """A clean hand from wherever the button is now."""
    order = deal_order(f.table.seats, f.table.button)
    for card, seat in zip(("As", "Kd", "7c", "2h", "3h", "Qs"), order * 2, strict=False):
        f.put(card, seat, deck=deck)
    if not to_river:
        return
    for burn, cards in (("9d", ("Th", "Jh", "4s")), ("5c", ("6c",)), ("8c", ("8d",))):
        f.press("round_done")
        f.put(burn, 12, deck=deck)
        for c in cards:
            f.put(c, 11, deck=deck)


def test_decks_alternating_every_hand_prompt_when_the_same_deck_deals_twice():
    f = Feeder(rules=RuleSettings(rotate_decks="hand"))
    deal_clean_hand(f)
    gather(f)
    assert f.table.rack.in_play == "B"
    f.effects.clear()
    deal_hand(f)  # deck A again
    assert alerts(f) == [("deck.not_rotated", "SHUF-007", "dealer", None)]
    gather(f)
    f.effects.clear()
    assert f.table.rack.in_play == "B"  # A dealt hand 2, so B deals hand 3
    deal_hand(f, "B")
    assert f.of(Alert) == []


def test_after_a_relief_the_spare_is_due_and_the_old_deck_prompts():
    f = Feeder()
    deal_clean_hand(f)
    gather(f)
    f.press("relief")
    f.effects.clear()
    deal_hand(f, to_river=False)  # deck A again
    assert alerts(f) == [("deck.not_rotated", "RELIEF-001", "dealer", None)]
    assert [(c.old, c.new, c.reason) for c in f.table.rack.changes] == [("A", "B", "relief")]
    assert f.table.hand.notes == ["RELIEF-002: deck A out, deck B in (relief)"]  # on the hand's record


def test_a_card_of_the_spare_in_a_hand_of_the_deck_in_play_is_a_wrong_deck_card():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 2, deck="B")
    assert alerts(f, "floor") == [("deck.wrong_deck", "DECK-006", "floor", "Kd@B")]


def test_a_foul_card_alert_names_the_seat_it_reached_and_the_hand_number():
    """Issue 29: a foreign tag and a card of the spare dealt to seat 6 are floor alerts naming
    seat 6 and the hand; one on the burn or the board names no seat. The dealer's "new setup"
    gains neither the seat nor the card."""
    f = Feeder(seats=(1, 2, 4, 6), button=4)
    order = deal_order(f.table.seats, f.table.button)
    for card, seat in zip(("As", "Kd", "7c", "2h", "3h", "Qs", "Jd", "9c"), order * 2, strict=True):
        f.put(card, seat)
    gather(f)
    f.effects.clear()
    order = deal_order(f.table.seats, f.table.button)
    assert 6 in order
    foreign = {"seat": "E0040150A05F02B7", "burn": "E0040150A05F02B8", "board": "E0040150A05F02B9"}
    cards = iter(("As", "Kd", "7c", "Qs", "Jd", "9c"))
    for rnd in (1, 2):
        for seat in order:
            if seat == 6:  # a card of the spare deck first, then a tag of no deck
                f.put("2h" if rnd == 1 else f"tag:{foreign['seat']}", 6, deck="B")
            else:
                f.put(next(cards), seat)
    f.press("round_done")
    f.put(f"tag:{foreign['burn']}", 12)
    for card, deck in (("Th", "A"), ("Jh", "A"), ("4s", "B")):
        f.put(card, 11, deck=deck)
    f.put(f"tag:{foreign['board']}", 11)
    assert f.table.hand.number == 2
    assert [(a.code, a.card, a.seat, a.hand) for a in f.of(Alert) if a.audience == "floor"] == [
        ("deck.wrong_deck", "2h@B", 6, 2),
        ("deck.unknown_tag", f"tag:{foreign['seat']}", 6, 2),
        ("deck.unknown_tag", f"tag:{foreign['burn']}", None, 2),
        ("deck.wrong_deck", "4s@B", None, 2),
        ("deck.unknown_tag", f"tag:{foreign['board']}", None, 2),
    ]
    dealer = [a for a in f.of(Alert) if a.audience == "dealer" and a.code.startswith("deck.")]
    assert [(a.code, a.message, a.seat, a.card, a.hand) for a in dealer] == [
        ("deck.new_setup", NEW_SETUP, None, None, 2)]
    assert_discreet(f)
    gather(f)
    [record] = [e.record for e in f.effects if type(e).__name__ == "HandFinished"]
    assert [(a["code"], a.get("seat")) for a in record["alerts"] if a["audience"] == "floor"] == [
        ("deck.wrong_deck", 6), ("deck.unknown_tag", 6), ("deck.unknown_tag", None), ("deck.wrong_deck", None),
        ("deck.unknown_tag", None)]


def test_a_marked_card_change_is_logged_for_the_floor_and_blocks_the_deck():
    f = Feeder()
    f.press("new_deck", reason="marked")
    assert alerts(f) == [("deck.changed", "RELIEF-002", "floor", None)]
    assert f.table.rack.in_play == "B" and "A" in f.table.rack.blocked


def test_the_rack_refuses_an_unknown_rotation():
    with pytest.raises(ValueError, match="rotate"):
        DeckRack(("A", "B"), "A", rotate="daily")


# -- stub counts (STUB-001..004) ---------------------------------------------------------------
CARDS = [c for c in setup_order()]


def deal_to_river(f, seats, hole_cards):
    cards = iter(CARDS)
    for _ in range(hole_cards):
        for s in seats:
            f.put(next(cards), s)
    for n in (3, 1, 1):
        f.press("round_done")
        f.put(next(cards), 12)
        for _ in range(n):
            f.put(next(cards), 11)


@pytest.mark.parametrize("game,hole_cards", [("holdem", 2), ("omaha", 4)])
@pytest.mark.parametrize("players", range(2, 11))
def test_the_first_hand_prompts_a_stub_count_with_the_arithmetic(game, hole_cards, players):
    """STUB-001/003: 2n + 8 out in hold'em, 4n + 8 in Omaha; counted up to 52."""
    seats = tuple(range(1, players + 1))
    f = Feeder(game=game, seats=seats, button=seats[-1])
    deal_to_river(f, seats, hole_cards)
    [p] = f.of(Prompt)
    out = expected_out(hole_cards=hole_cards, players=players)
    assert out == hole_cards * players + 8
    assert (p.code, p.rule, p.audience) == ("stub.count_due", "STUB-001", "dealer")
    assert p.message == (f"count the stub: {players} players: {hole_cards * players} hole cards + 3 burns + "
                         f"5 board = {out} out; the stub must hold {52 - out}")
    assert f.table.hand.stub_count == 52 - out
    assert f.of(Alert) == []  # a prompt, not an alert: the hand is clean


def test_stub_arithmetic_matches_the_guides_examples():
    assert stub_arithmetic(players=9, hole=18, burns=3, board=5).endswith("= 26 out; the stub must hold 26")
    assert expected_out(hole_cards=2, players=10) == 28
    assert 52 - expected_out(hole_cards=4, players=9) == 8


def test_a_count_acknowledged_is_not_asked_again_in_the_down_and_a_relief_asks_again():
    f = Feeder()
    deal_clean_hand(f)
    f.press("ack")
    gather(f)
    deal_hand(f)
    assert len(f.of(Prompt)) == 1
    gather(f)
    f.press("relief")
    deal_hand(f, "B")
    prompts = f.of(Prompt)
    assert [(p.code, p.rule) for p in prompts] == [("stub.count_due", "STUB-001"), ("stub.count_due", "STUB-002")]
    assert f.table.last_record["down"] == 1 and f.table.stub.down == 2


def test_a_new_deck_needs_no_count_on_its_first_hand_but_the_down_still_does():
    f = Feeder()
    f.press("new_deck")  # the spare comes in, for a new setup
    assert [(c.old, c.new, c.reason) for c in f.table.rack.changes] == [("A", "B", "setup")]
    deal_hand(f, "B")
    assert f.of(Prompt) == []
    gather(f)
    deal_hand(f, "B")
    assert [(p.code, p.rule) for p in f.of(Prompt)] == [("stub.count_due", "STUB-002")]
    assert f.of(Alert) == []


def test_a_wrong_stub_count_is_a_sticky_deck_told_to_the_floor_only():
    """STUB-004: the floor hears "sticky"; the dealer hears "new setup"; the deck is retired."""
    f = Feeder()
    deal_clean_hand(f)
    f.press("stub_wrong")
    assert alerts(f) == [("stub.sticky_deck", "STUB-004", "floor", None),
                         ("deck.new_setup", "STUB-004", "dealer", None)]
    assert "it should hold 38" in f.of(Alert)[0].message
    assert "A" in f.table.rack.blocked and f.table.rack.in_play == "B"
    assert_discreet(f)


def test_a_whole_shuffler_count_of_the_deck_in_play_spares_the_dealer_the_count():
    """STUB-005: every shuffler cycle is a count."""
    f = Feeder()
    report(f, deck_uids())
    deal_clean_hand(f)
    assert f.of(Prompt) == [] and f.of(Alert) == []


# -- shuffler faults (SHUF-004) --------------------------------------------------------------
def status(f, state, ts, code=None):
    f.effects += f.table.apply(ShufflerStatus(ts, "shuffler", state, code))


def test_a_jam_prompts_the_dealer_and_tells_the_floor_only_if_it_lasts():
    f = Feeder()
    status(f, "jam", 100.0)
    status(f, "jam", 110.0)
    assert alerts(f) == [("shuffler.jam", "SHUF-004", "dealer", None)]
    status(f, "jam", 130.0)
    status(f, "jam", 140.0)
    assert alerts(f) == [("shuffler.jam", "SHUF-004", "dealer", None),
                         ("shuffler.fault_persists", "SHUF-004", "floor", None)]
    status(f, "ready", 141.0)
    assert alerts(f)[-1] == ("shuffler.cleared", "SHUF-004", "dealer", None)


def test_a_door_open_then_an_error_are_two_prompts_and_ready_is_silent():
    f = Feeder()
    status(f, "ready", 1.0)
    status(f, "shuffling", 2.0)
    assert f.of(Alert) == []
    status(f, "door_open", 3.0)
    status(f, "error", 4.0, code=17)
    assert [(a.code, a.message) for a in f.of(Alert)] == [
        ("shuffler.door_open", "shuffler door open: close it"),
        ("shuffler.error", "shuffler error 17: see its display")]


def test_a_shuffler_that_floor_setting_shortens_tells_the_floor_sooner():
    f = Feeder(rules=RuleSettings(shuffler_floor_after=5.0))
    status(f, "door_open", 10.0)
    status(f, "door_open", 15.0)
    assert [a.code for a in f.of(Alert)] == ["shuffler.door_open", "shuffler.fault_persists"]


def test_registry_used_by_the_tests_is_the_simulated_pair():
    reg = registry()
    assert isinstance(reg, DeckRegistry) and set(reg.decks) == {"A", "B"}
    assert all(isinstance(d, Deck) for d in reg.decks.values())


# -- the floor's setup exchange through the control socket (DECK-003, DECK-005) ---------------
def _manifest(tmp_path, deck, text=None):
    """A manifest in the manifests folder (tmp_path); the request names it by its file name."""
    from hw_sim.decks import manifest_text
    path = tmp_path / f"{deck}.txt"
    path.write_text(text if text is not None else manifest_text(deck))
    return path.name


def test_a_new_pair_is_read_from_its_manifests_and_retires_the_old(tmp_path):
    from controller.daemon.control import request_to_event
    ev = request_to_event({"cmd": "decks", "in_play": "B", "decks": [
        {"id": "B", "back": "blue", "manifest": _manifest(tmp_path, "B")}]}, now=5.0, manifests=str(tmp_path))
    assert isinstance(ev, DeckSetup) and ev.in_play == "B" and len(ev.decks[0][2]) == 52
    f = Feeder()
    f.effects += f.table.apply(ev)
    assert f.table.rack.pair == ("B",) and f.table.rack.in_play == "B"
    f.put("As", 1)  # deck A is off the table now
    assert alerts(f, "floor") == [("deck.retired_card", "DECK-005", "floor", "As@A")]


@pytest.mark.parametrize("decks,error", [
    ([{"id": "A", "back": "red", "manifest": "A"}, {"id": "B", "back": "Red", "manifest": "B"}], "DECK-004"),
    ([{"id": "A", "back": "red", "manifest": "nowhere"}], "manifest 'none.txt' in "),
    ([{"id": "A", "back": "red", "manifest": "short"}], "deck is short 1 card(s): 7h"),
    ([{"id": "A", "back": "red"}], "needs an 'id', a 'back' colour and a 'manifest'"),
    ([], "one or two decks"),
])
def test_a_bad_setup_exchange_is_refused_naming_the_problem(tmp_path, decks, error):
    from controller.daemon.control import request_to_event
    from hw_sim.decks import manifest_text
    paths = {"A": _manifest(tmp_path, "A"), "B": _manifest(tmp_path, "B"), "nowhere": "none.txt",
             "short": _manifest(tmp_path, "S", manifest_text("A").replace(f"{sim_uid('A', '7h')} 7h\n", ""))}
    decks = [dict(d, manifest=paths[d["manifest"]]) if "manifest" in d else d for d in decks]
    with pytest.raises(ValueError, match=error.replace("(", r"\(").replace(")", r"\)")):
        request_to_event({"cmd": "decks", "decks": decks, "in_play": "A"}, now=1.0, manifests=str(tmp_path))
