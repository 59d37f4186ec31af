"""The prompts the dealer's console shows: priority, answers, LEDs on the mock pins, and the seat
LEDs leading a whole hand's deal through the real core and daemon."""

from pathlib import Path

import pytest

from controller.core import effects as fx
from controller.core.effects import Alert, HandStarted
from controller.core.events import ButtonPress, ReaderCycle
from controller.core.prompts import PROMPT_TABLE, PromptBoard, rule_for
from controller.config.daemon import load_config, parse_config
from controller.config.console import default_console
from controller.daemon.console_sink import ConsoleSink
from controller.daemon.main import Daemon
from controller.core.settings import deal_order
from hw_sim.decks import sim_uid
from hw_sim.setup import ANTENNA_OF, write_setup
from rig.waiting import wait_until

DEADLINE = 10.0


def alert(code, audience="dealer", seat=None, ts=1.0):
    return Alert(ts, code, audience, f"message of {code}", seat=seat)


def press(name, **kw):
    return ButtonPress(2.0, name, **kw)


# -- the board, pure --------------------------------------------------------------------------

def test_a_misdeal_outranks_a_stub_count_reminder_and_ack_answers_them_in_turn():
    b = PromptBoard()
    s = b.apply([alert("stub.count_due")])
    assert (s.code, s.prompt, s.alert) == ("stub.count_due", "blink_slow", "off")
    s = b.apply([alert("misdeal.seat_skipped", seat=4)])
    assert (s.code, s.prompt, s.alert, s.waiting) == ("misdeal.seat_skipped", "off", "blink_fast", 2)
    s = b.press(press("ack"))
    assert s.code == "stub.count_due"  # the flag is answered; the reminder shows again
    s = b.press(press("ack"))
    assert (s.code, s.prompt, s.alert, s.waiting) == (None, "off", "off", 0)


def test_among_equals_the_oldest_is_shown_and_a_repeat_is_one_prompt():
    b = PromptBoard()
    b.apply([alert("burn.missing"), alert("board.street_short"), alert("burn.missing")])
    assert b.state.code == "burn.missing" and b.state.waiting == 2
    assert b.press(press("next")).code == "board.street_short"  # next: seen, the next one


def test_pads_that_answer_a_prompt_clear_it_shown_or_not():
    b = PromptBoard()
    b.apply([alert("stub.count_due"), alert("deck.new_setup"), alert("misdeal.first_card_wrong_seat")])
    assert b.state.code == "misdeal.first_card_wrong_seat"
    b.press(press("stub_wrong"))  # the count was wrong: the reminder is answered
    b.press(press("new_deck"))  # the new setup came
    assert [w.code for w in b.waiting] == ["misdeal.first_card_wrong_seat"]
    assert b.press(press("misdeal", long=True)).code is None  # the dealer declared it


def test_a_new_hand_clears_the_hands_prompts_and_keeps_the_others():
    b = PromptBoard()
    b.apply([alert("device.reader_offline"), alert("deck.new_setup"), alert("burn.double"),
             alert("stub.count_due"), alert("shuffler.jam")])
    b.apply([HandStarted(3.0, 2, 1, (1, 2, 3), "holdem")])
    assert sorted(w.code for w in b.waiting) == ["deck.new_setup", "device.reader_offline", "shuffler.jam"]


def test_a_device_offline_blinks_ready_until_that_device_is_back():
    b = PromptBoard()
    s = b.apply([alert("device.reader_offline"), alert("device.shuffler_offline")])
    assert (s.ready, s.alert, s.code) == ("blink_slow", "on", "device.reader_offline")
    assert b.press(press("ack")).code == "device.reader_offline"  # not answered by a press
    s = b.apply([alert("device.reader_online")])
    assert (s.ready, s.code) == ("blink_slow", "device.shuffler_offline")
    s = b.apply([alert("device.shuffler_online")])
    assert (s.ready, s.alert, s.code) == ("on", "off", None)


def test_the_shuffler_back_clears_its_faults():
    b = PromptBoard()
    assert b.apply([alert("shuffler.door_open")]).prompt == "blink_fast"
    assert b.apply([alert("shuffler.cleared")]).code is None


def test_floor_alerts_never_change_the_console():
    b = PromptBoard()
    before = b.apply([alert("board.premature_flop")])
    after = b.apply([alert("deck.wrong_deck", audience="floor"), alert("misdeal.declared_late", audience="floor"),
                     alert("stub.sticky_deck", audience="floor")])
    assert after == before


def test_the_buzzer_sounds_once_when_a_flag_arrives():
    b = PromptBoard()
    assert b.apply([alert("misdeal.seat_skipped", seat=4)]).buzz == "short"
    assert b.press(press("round_done")).buzz == "short"  # due until sounded
    b.sounded()
    assert b.apply([]).buzz == "none"
    assert b.apply([alert("misdeal.seat_skipped", seat=4)]).buzz == "none"  # the same flag again
    assert b.apply([alert("misdeal.too_many_cards", seat=2)]).buzz == "short"
    b.sounded()
    assert b.apply([alert("deck.new_setup"), alert("shuffler.jam"), alert("burn.missing")]).buzz == "none"


def test_a_routine_prompt_effect_is_shown_like_an_alert():
    s = PromptBoard().apply([fx.Prompt(1.0, "stub.count_due", "count the stub: ... 26 out", "STUB-001", 1)])
    assert (s.code, s.prompt) == ("stub.count_due", "blink_slow")


def test_every_family_of_docs_rules_has_its_row():
    rows = {code: rule_for(code)[0].match for code in (
        "misdeal.first_two_cards_exposed", "late_fault.card_to_seat_not_dealt_in", "deal.seat_waits",
        "burn.missing", "board.four_card_flop", "muck.retrieved", "deck.new_setup", "deck.not_rotated",
        "stub.count_due", "shuffler.jam", "device.reader_offline", "device.console_online")}
    assert "*" not in rows.values(), rows
    assert [r.priority for r in PROMPT_TABLE if r.match in ("misdeal.*", "stub.count_due")] == [100, 10]
    # the reminder is the lowest of what lights an LED; below it only FLOW-009's rake cap, said every
    # hand on the display alone (no LED: the amber one is for what the dealer must do)
    assert min(r.priority for r in PROMPT_TABLE if r.priority > 0 and (r.prompt, r.alert) != ("off", "off")) == 10
    assert [(r.match, r.priority) for r in PROMPT_TABLE if 0 < r.priority < 10] == [("flow.rake_cap", 5)]
    assert rule_for("flow.rake_cap")[0].prompt == rule_for("flow.rake_cap")[0].alert == "off"


# -- the LEDs on the mock pins ----------------------------------------------------------------

def on_times(pin):
    """How long the pin stayed high each time, from its recorded states (each record's time
    is how long the state before it lasted)."""
    return [s.timestamp for s in pin.states[1:] if not s.state]


def blinking(pin, n=3):
    return len(on_times(pin)) >= n


@pytest.fixture
def sink():
    cfg = parse_config('[reader]\nport = "loop://"\n' + default_console(), path=Path("t.toml"))
    s = ConsoleSink(cfg.console, submit=lambda ev: None)
    s.open()
    yield s
    s.close()


@pytest.mark.slow
def test_leds_and_buzzer_follow_the_prompts(sink):
    c = sink.console
    ready, prompt, red, buzzer = (c.pin(n) for n in ("ready", "prompt", "alert", "buzzer"))
    assert (ready.state, prompt.state, red.state, buzzer.state) == (True, False, False, False)

    # the stub-count reminder: amber, slow (1 Hz)
    sink.write([alert("stub.count_due")])
    # two whole flashes: it blinks; the shorter of them about half a second (a busy machine only
    # ever lengthens one)
    wait_until(lambda: blinking(prompt, 2), DEADLINE, what="the prompt LED to blink")
    assert 0.3 < min(on_times(prompt)) < 1.2

    # a misdeal flag outranks it: red, fast (5 Hz), one short buzz; amber goes out
    sink.write([alert("misdeal.first_card_wrong_seat", seat=2)])
    red.clear_states()
    wait_until(lambda: blinking(red, 5), DEADLINE, what="the alert LED to blink fast")
    assert sorted(on_times(red))[2] < 0.3
    assert c.modes()["prompt"] == "off" and not prompt.state and c.leds["prompt"].device._blink_thread is None
    wait_until(lambda: [s.state for s in buzzer.states] == [False, True, False], DEADLINE, what="one beep")
    assert 0.1 <= buzzer.states[2].timestamp < 0.5  # a short buzz (0.15 s)

    # ack: the flag is answered; red off and still, the reminder blinks again
    sink.event(press("ack"))
    assert c.modes()["alert"] == "off" and not red.state and c.leds["alert"].device._blink_thread is None
    prompt.clear_states()
    # (one flash that ended by itself is a blink: the LED was out, and steady on never goes out)
    wait_until(lambda: blinking(prompt, 1), DEADLINE, what="the reminder to show again")
    sink.event(press("ack"))  # counted, and right
    assert (c.modes()["prompt"], prompt.state) == ("off", False)

    # a new setup: amber steady like any prompt, and silent
    beeps = len(buzzer.states)
    sink.write([alert("deck.new_setup")])
    assert (c.modes()["prompt"], prompt.state) == ("on", True)
    # the reader lost: ready blinks, red steady; back: as before
    sink.write([alert("device.reader_offline")])
    assert (c.modes()["alert"], red.state, c.modes()["prompt"], prompt.state) == ("on", True, "off", False)
    ready.clear_states()
    wait_until(lambda: blinking(ready, 2), DEADLINE, what="the ready LED to blink")
    sink.write([alert("device.reader_online")])
    assert (c.modes()["ready"], ready.state, red.state, prompt.state) == ("on", True, False, True)
    assert len(buzzer.states) == beeps  # nothing sounded but the flag

    # the floor's alerts: nothing at the table moves
    pins = {n: c.pin(n) for n in ("ready", "prompt", "alert", "buzzer")}
    before = {n: len(p.states) for n, p in pins.items()}
    sink.write([alert("deck.wrong_deck", audience="floor"), alert("stub.sticky_deck", audience="floor")])
    assert {n: len(p.states) for n, p in pins.items()} == before


# -- the seat LEDs lead the deal: the real core, the daemon, the mock pins ---------------------

class Table:
    """A simulated table feeding a daemon cycle by cycle (its console on mock pins)."""

    def __init__(self, tmp_path, seats, button, game="holdem"):
        self.daemon = Daemon(load_config(write_setup(tmp_path, game=game, seats=seats, button=button)), sinks=[])
        self.daemon.console.open()
        self.console = self.daemon.console.console
        self.field: dict[str, int] = {}
        self.cycle = 0

    def tick(self, n=1):
        for _ in range(n):
            self.cycle += 1
            reads = tuple((u, a, 200) for u, a in self.field.items())
            self.daemon.handle(ReaderCycle(float(self.cycle), "reader", self.cycle, reads))

    def put(self, card, zone):
        self.field[sim_uid("A", card)] = ANTENNA_OF[zone]
        self.tick(3)  # confirm_cycles

    def press(self, name, **kw):
        self.daemon.handle(ButtonPress(self.cycle + 0.5, name, **kw))

    def gather(self):
        self.field.clear()
        self.tick(10)  # gone_cycles + 2

    def lit(self):
        """The seat LEDs that are on, read from the mock pins."""
        return [s for s in range(1, 11) if self.console.pin(f"seat {s}").state]

    def close(self):
        self.daemon.console.close()


DECK = [r + s for s in "shdc" for r in "AKQJT98765432"]


def deal_and_follow(t, order, hole_cards=2, gather=True):
    """Deal a whole hand; after each card, the lit seat LED is the seat due the next one."""
    cards = iter(DECK)
    assert t.lit() == [order[0]], "before the first card: the first seat"
    n = len(order)
    for i in range(hole_cards * n):
        t.put(next(cards), f"seat:{order[i % n]}")
        due = [order[(i + 1) % n]] if i + 1 < hole_cards * n else []
        assert t.lit() == due, f"after card {i + 1}"
    for street in (3, 1, 1):
        t.press("round_done")
        t.put(next(cards), "burn")
        for _ in range(street):
            t.put(next(cards), "board")
        assert t.lit() == []  # burns and board: no seat is due
    if gather:
        t.gather()


@pytest.mark.parametrize("seats,button", [([1, 2, 4, 6, 9], 9), ([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 4),
                                          ([3, 7], 7), ([3, 7], 3)])
def test_the_seat_leds_lead_a_whole_hands_deal_in_order(tmp_path, seats, button):
    """Heads-up the non-button seat gets the first card (DEAL-002)."""
    t = Table(tmp_path, seats, button)
    try:
        for s in seats:
            t.console.pin(f"seat {s}").clear_states()
        order = deal_order(seats, button)
        deal_and_follow(t, order, gather=False)
        # each seat's LED came on once per card it was due, as the pins recorded it
        ons = {s: sum(1 for st in t.console.pin(f"seat {s}").states[1:] if st.state) for s in seats}
        assert ons == {s: 2 - (s == order[0]) for s in seats}  # (the first seat was lit already)
        t.gather()
        assert t.daemon.table.hands_finished == 1
        # the button moved (DEAL-004): the LED leads the next hand from its first seat
        nxt = deal_order(seats, t.daemon.table.button)
        assert t.lit() == [nxt[0]]
        deal_and_follow(t, nxt)
    finally:
        t.close()


def test_the_lead_follows_a_seat_out_between_hands(tmp_path):
    t = Table(tmp_path, [1, 2, 4, 6, 9], 9)
    try:
        assert t.lit() == [1]
        t.press("seat_out", seat=1)  # the small blind's player leaves before the first card
        pos = t.daemon.table.roster.next_positions()
        assert t.lit() == [deal_order([2, 4, 6, 9], pos.button)[0]] == [2]
    finally:
        t.close()


def test_an_omaha_deal_is_led_four_rounds(tmp_path):
    t = Table(tmp_path, [2, 5, 8], 8, game="omaha")
    try:
        deal_and_follow(t, [2, 5, 8], hole_cards=4)
    finally:
        t.close()
