"""Issue 40: UIDs held at their own length, 16 hex digits for an ISO 15693 tag (8 bytes) and 14
for an ISO 14443A sticker's (7 bytes), never padded: an 8-byte UID that begins with a 7-byte
one's digits is another tag, in the registry, the table and the check that nothing secret
reaches a public output (docs/decisions/0042-the-bridge-board.md, "UID lengths")."""

from __future__ import annotations

from controller.core.events import ReaderCycle
from controller.core.registry import Deck, DeckRegistry, normalise_uid, parse_manifest
from controller.core.settings import TableSettings
from controller.core.table import Table
from rig import scenarios

SEVEN = "04A2B3C4D5E680"  # an NTAG213's UID: NXP's 04 first
EIGHT = SEVEN + "00"  # (padded, it would be this one)


def test_neither_length_is_padded_nor_cut():
    assert normalise_uid("04:a2:b3:c4:d5:e6:80") == SEVEN
    assert normalise_uid(EIGHT.lower()) == EIGHT


def test_a_registry_tells_them_apart():
    reg = DeckRegistry()
    reg.add(Deck("A", "red", {EIGHT: "As"}))
    reg.add(Deck("N", "blue", {SEVEN: "Kd"}))
    assert (reg.lookup(SEVEN).deck, reg.lookup(SEVEN).card) == ("N", "Kd")
    assert (reg.lookup(EIGHT).deck, reg.lookup(EIGHT).card) == ("A", "As")
    assert reg.lookup(SEVEN + "0") is None and reg.lookup(SEVEN[:12]) is None


def test_one_manifest_may_hold_both_and_the_table_sees_two_cards():
    cards = parse_manifest(f"{SEVEN} Kd\n{EIGHT} As\n", source="mixed.txt", require_full=False)
    assert cards == {SEVEN: "Kd", EIGHT: "As"}
    reg = DeckRegistry()
    reg.add(Deck("A", "red", cards))
    table = Table(TableSettings(seats=(1, 2), button=2, confirm_cycles=1, gone_cycles=5), reg)
    for n in (1, 2):
        table.apply(ReaderCycle(float(n), "reader", n, ((SEVEN, 1, 200), (EIGHT, 1, 200))))
    assert table.hand is not None and sorted(table.hand.zone_labels()["seat:1"]) == ["As", "Kd"]


def test_the_public_output_check_finds_either_length():
    assert scenarios._UID.search(f"seat 1 holds {SEVEN}") and scenarios._UID.search(f"x {EIGHT} y")
    assert not scenarios._UID.search("1234567890123")  # (13 digits: a number, not a UID)
