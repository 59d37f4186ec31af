"""The pure core, event by event: hands, zones, figures, audiences, records."""

from controller.core.effects import Alert, CardPlaced, Figures, HandFinished, HandStarted
from controller.core.events import ButtonPress, DeviceStatus, ReaderCycle, TableSetup, event_from_dict, event_to_dict
from controller.core.registry import Deck, DeckRegistry
from controller.core.settings import TableSettings
from controller.core.table import Table
from hw_sim.decks import DECK_BACKS, sim_uid
from controller.core.cards import FULL_DECK


def registry():
    reg = DeckRegistry()
    for d in ("A", "B"):
        reg.add(Deck(d, DECK_BACKS[d], {sim_uid(d, c): c for c in FULL_DECK}))
    return reg


class Feeder:
    """Feeds a Table cycle by cycle from a dict of what lies where."""

    def __init__(self, **kw):
        settings = TableSettings(**{"seats": (1, 2, 4), "button": 4, "confirm_cycles": 2, "gone_cycles": 3, **kw})
        self.table = Table(settings, registry())
        self.field = {}  # uid -> antenna
        self.twins = {}  # uid -> antenna of a second card carrying the same tag (a clone)
        self.cycle = 0
        self.effects = []

    def tick(self, n=1):
        for _ in range(n):
            self.cycle += 1
            reads = tuple((u, a, 200) for u, a in self.field.items()) + \
                tuple((u, a, 190) for u, a in self.twins.items())
            self.effects += self.table.apply(ReaderCycle(float(self.cycle), "reader", self.cycle, reads))

    def put(self, card, antenna, deck="A"):
        self.field[sim_uid(deck, card) if not card.startswith("tag:") else card[4:]] = antenna
        self.tick(3)

    def uid(self, card, deck="A"):
        return sim_uid(deck, card)

    def press(self, name, **kw):
        self.effects += self.table.apply(ButtonPress(float(self.cycle) + 0.5, name, **kw))

    def of(self, kind):
        return [e for e in self.effects if isinstance(e, kind)]


def deal_clean_hand(f):
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        f.put(card, seat)
    deal_board(f)


def deal_board(f, burns=("9d", "5c", "8c")):
    """The flop, turn and river (Th Jh 4s, 6c, 8d), each after the dealer's tap (BURN-002) and
    its burn."""
    for burn, cards in zip(burns, (("Th", "Jh", "4s"), ("6c",), ("8d",)), strict=True):
        f.press("round_done")
        f.put(burn, 12)
        for c in cards:
            f.put(c, 11)


def test_a_clean_hand_from_first_card_to_gathering():
    f = Feeder()
    deal_clean_hand(f)
    assert f.table.hand.street() == "river"
    assert f.table.hand.stub_count == 52 - 6 - 3 - 5
    f.field.clear()
    f.tick(4)
    [done] = f.of(HandFinished)
    rec = done.record
    assert rec["zones"] == {"seat:1": ["As", "2h"], "seat:2": ["Kd", "3h"], "seat:4": ["7c", "Qs"],
                            "board": ["Th", "Jh", "4s", "6c", "8d"], "burn": ["9d", "5c", "8c"]}
    assert rec["stub_count"] == 38
    assert rec["alerts"] == []
    assert rec["button"] == 4
    assert f.table.button == 1  # DEAL-004: moved one seat clockwise
    assert len(f.of(HandStarted)) == 1


def test_next_card_follows_the_deal_order_then_burn_and_board():
    f = Feeder()
    order = []
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        order.append(f.table.hand.next_to() if f.table.hand else "seat:1")
        f.put(card, seat)
    assert order == ["seat:1", "seat:2", "seat:4", "seat:1", "seat:2", "seat:4"]
    assert f.table.hand.next_to() == "burn"
    f.put("9d", 12)
    assert f.table.hand.next_to() == "board"


def test_fold_moves_cards_to_the_muck_in_arrival_order():
    f = Feeder()
    for card, seat in [("As", 1), ("Kd", 2), ("7c", 4), ("2h", 1), ("3h", 2), ("Qs", 4)]:
        f.put(card, seat)
    f.field[sim_uid("A", "Kd")] = 13
    f.field[sim_uid("A", "3h")] = 13
    f.tick(3)
    zones = f.table.hand.zone_labels()
    assert "seat:2" not in zones
    assert sorted(zones["muck"]) == ["3h", "Kd"]
    assert f.table.hand.stub_count == 46


def test_hole_cards_and_muck_are_floor_only_board_is_public():
    f = Feeder()
    f.put("As", 1)
    f.put("9d", 12)
    f.put("Th", 11)
    audiences = {e.zone: e.audience for e in f.of(CardPlaced)}
    assert audiences == {"seat:1": "floor", "burn": "floor", "board": "public"}
    assert all(e.audience == "public" for e in f.of(Figures))


def test_foreign_and_wrong_deck_cards_alert_the_floor_once():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 2, deck="B")
    f.put("tag:E0040150A05F02B7", 4)
    f.tick(5)
    alerts = f.of(Alert)
    assert [(a.code, a.rule, a.audience, a.card) for a in alerts] == [
        ("deck.wrong_deck", "DECK-006", "floor", "Kd@B"),
        ("deck.new_setup", "DECK-006", "dealer", None),  # once a hand, in neutral words
        ("deck.unknown_tag", "DECK-006", "floor", "tag:E0040150A05F02B7"),
    ]
    assert alerts[1].message == "new setup"
    assert f.table.hand.zone_labels()["seat:4"] == ["tag:E0040150A05F02B7"]


def test_device_loss_and_return_are_dealer_alerts_in_the_hand():
    f = Feeder()
    f.put("As", 1)
    f.effects += f.table.apply(DeviceStatus(10.0, "reader", False, "read failed"))
    f.effects += f.table.apply(DeviceStatus(10.5, "reader", False, "still gone"))  # said once
    f.effects += f.table.apply(DeviceStatus(11.0, "reader", True))
    codes = [a.code for a in f.of(Alert)]
    assert codes == ["device.reader_offline", "device.reader_online"]
    assert all(a.audience == "dealer" for a in f.of(Alert))
    assert len(f.table.hand.alerts) == 2


def test_setup_sets_seats_and_button_for_the_next_hand():
    f = Feeder()
    f.effects += f.table.apply(TableSetup(0.5, (3, 5, 7), 7))
    f.put("As", 3)
    assert f.table.hand.seats == (3, 5, 7)
    assert f.table.hand.button == 7


def test_same_events_same_effects():
    a, b = Feeder(), Feeder()
    deal_clean_hand(a)
    deal_clean_hand(b)
    assert a.effects == b.effects


def test_events_round_trip_through_dicts():
    ev = ReaderCycle(1.5, "reader", 3, (("E0040150A05F0000", 1, 200),))
    assert event_from_dict(event_to_dict(ev)) == ev
    ev2 = TableSetup(2.0, (1, 2), 2)
    assert event_from_dict(event_to_dict(ev2)) == ev2


def test_a_foreign_card_on_the_board_and_every_uid_stay_off_public_outputs():
    f = Feeder()
    f.put("As", 1)
    f.put("Kd", 11, deck="B")
    f.put("tag:E0040150A05F02B7", 11)
    f.put("7c", 11)
    public = [e for e in f.effects if e.audience == "public"]
    placed = [e for e in public if isinstance(e, CardPlaced)]
    assert [e.card for e in placed] == ["7c"]
    assert all(e.uid == "" for e in placed)
    assert not any("@" in str(e) or "tag:" in str(e) or "E004" in str(e) for e in public)


def test_MISD_004_two_cards_confirmed_in_one_cycle_are_not_ordered():
    """A dealer faster than the reader: seat 1 (due first) and seat 2 confirm together."""
    f = Feeder()
    f.field[sim_uid("A", "Kd")] = 2
    f.field[sim_uid("A", "As")] = 1
    f.tick(3)
    assert not [a for a in f.of(Alert) if a.code.startswith("misdeal.")]
    assert f.table.hand.hole_dealt == 2


def test_a_hand_ends_before_the_next_begins_when_both_happen_in_one_cycle():
    f = Feeder()
    f.put("As", 1)
    f.field.clear()
    f.tick(2)
    # the next hand's first card, confirmed as the As leaves (gone_cycles 3): a firm read where
    # a card is due confirms in its first cycle (docs/tracking.md)
    f.field[sim_uid("A", "Kd")] = 2
    f.tick(1)
    [done] = f.of(HandFinished)
    assert done.record["zones"] == {"seat:1": ["As"]}
    assert f.table.hand.number == 2 and f.table.hand.zone_labels() == {"seat:2": ["Kd"]}
