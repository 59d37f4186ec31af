"""The deck registry: manifests, set-up-order registration, at most two decks (DECK-001/005/008)."""

import pytest

from controller.core.cards import FULL_DECK, parse_card, setup_order, CardError
from controller.core.registry import (Deck, DeckRegistry, RegistryError, cards_from_setup_order,
                                 parse_manifest)
from hw_sim.decks import card_of_uid, manifest_text, sim_uid


def test_setup_order_is_diamonds_clubs_hearts_spades_from_the_bottom():
    order = setup_order()
    assert len(order) == 52 and set(order) == set(FULL_DECK)
    assert order[0] == "As" and order[12] == "Ks"  # top: ace of spades; king at the suit's bottom
    assert order[-1] == "Kd" and order[-13] == "Ad"  # bottom of the deck: diamonds, king lowest
    assert [c[1] for c in order[::13]] == ["s", "h", "c", "d"]


@pytest.mark.parametrize("text,card", [("as", "As"), ("10h", "Th"), ("tD", "Td"), (" 7c ", "7c")])
def test_cards_parse(text, card):
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "1s", "Ax", "AAs", "10", "Zz"])
def test_non_cards_are_refused(text):
    with pytest.raises(CardError, match="not a card"):
        parse_card(text)


def test_a_full_manifest_parses_and_round_trips_the_simulated_decks():
    cards = parse_manifest(manifest_text("A"), source="A.txt")
    assert len(cards) == 52
    assert all(card_of_uid(u) == ("A", c) for u, c in cards.items())


@pytest.mark.parametrize("text,needle", [
    ("E0040150A05F0000 As\nE0040150A05F0000 Ks\n", "A.txt:2: a tag listed twice (first on line 1)"),
    ("E0040150A05F0000 As\nE0040150A05F0001 As\n", "A.txt:2: card As listed twice (first on line 1)"),
    ("E0040150A05F As\n", "A.txt:1: not a tag UID"),
    ("04A2B3C4 As\n", "A.txt:1: not a tag UID"),  # a 4-byte UID: not unique
    ("E0040150A05F000 As\n", "A.txt:1: not a tag UID"),
    ("E0040150A05F0000 Xx\n", "A.txt:1: not a card"),
    ("E0040150A05F0000\n", "A.txt:1: want 'UID CARD' (two words), got 1"),
])
def test_bad_manifests_name_the_line(text, needle):
    with pytest.raises(RegistryError) as exc:
        parse_manifest(text, source="A.txt", require_full=False)
    assert needle in str(exc.value)


def test_a_short_manifest_names_the_missing_cards():
    lines = manifest_text("A").splitlines()
    short = "\n".join(line for line in lines if not line.endswith(" 7h"))
    with pytest.raises(RegistryError, match=r"short 1 card\(s\): 7h"):
        parse_manifest(short, source="A.txt")


def test_registration_in_setup_order():
    uids = [sim_uid("B", c) for c in setup_order()]
    cards = cards_from_setup_order(uids)
    assert cards[sim_uid("B", "Qh")] == "Qh"
    with pytest.raises(RegistryError, match="read 51 tags"):
        cards_from_setup_order(uids[:-1])
    with pytest.raises(RegistryError, match="read twice"):
        cards_from_setup_order(uids[:-1] + uids[:1])


def test_at_most_two_decks_and_no_shared_tags():
    reg = DeckRegistry()
    reg.add(Deck("A", "red", {sim_uid("A", "As"): "As"}))
    with pytest.raises(RegistryError, match="shares 1 tag"):
        reg.add(Deck("B", "blue", {sim_uid("A", "As"): "Ks"}))
    reg.add(Deck("B", "blue", {sim_uid("B", "As"): "As"}))
    with pytest.raises(RegistryError, match="at most 2 decks"):
        reg.add(Deck("C", "green", {}))
    assert reg.lookup(sim_uid("B", "As")).deck == "B"


def test_a_deck_of_iso_14443a_stickers_is_held_at_its_own_length():
    # issue 40: NTAG213 / MIFARE Ultralight stickers have 7-byte UIDs (14 hex digits), never padded
    uids = [f"04{i:010X}80"[:14] for i in range(52)]
    text = "".join(f"{u} {c}\n" for u, c in zip(uids, setup_order(), strict=True))
    cards = parse_manifest(text, source="N.txt")
    assert len(cards) == 52 and all(len(u) == 14 for u in cards)
    assert cards[uids[0]] == setup_order()[0]
