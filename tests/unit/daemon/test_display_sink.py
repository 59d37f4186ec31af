"""The dealer's display as a device: an I2C failure mid-hand is reported, retried with backoff and
never stops the table; back, it is reported online and the screen is drawn again (fake smbus2
bus: hw_sim/i2c_bus.py)."""

from __future__ import annotations

import queue

from controller.core.effects import Alert, Figures, HandStarted
from controller.core.events import DeviceStatus
from controller.core.prompts import PromptBoard
from controller.config.display import DisplayConfig
from controller.daemon.display_sink import DisplayOutput
from firmware_bridge.backoff import Backoff
from hw_sim.i2c_bus import FakeSMBus
from rig.waiting import wait_until

LCD = DisplayConfig(kind="hd44780", width=16, height=2, bus=1, address=0x27, layout="lcd16x2")


def statuses(q: queue.Queue) -> list[bool]:
    out = []
    while not q.empty():
        ev = q.get_nowait()
        assert isinstance(ev, DeviceStatus) and ev.device == "display"
        out.append(ev.online)
    return out


def text_on(bus: FakeSMBus) -> bytes:
    """The characters the HD44780 was sent (RS high), rebuilt from the nibbles strobed (E high)."""
    data = [b for _, d in bus.writes for b in d]
    nibbles = [b >> 4 for b in data if b & 0x04 and b & 0x01]
    return bytes((hi << 4) | lo for hi, lo in zip(nibbles[::2], nibbles[1::2], strict=True))


def test_an_i2c_failure_mid_hand_goes_offline_and_comes_back() -> None:
    bus = FakeSMBus(0x27)
    events: queue.Queue = queue.Queue()
    out = DisplayOutput(LCD, events.put, bus=bus, backoff=Backoff(initial=0.01, maximum=0.05), probe_every=0.02)
    board = PromptBoard()
    out.start()
    try:
        out.show(board.apply([HandStarted(1.0, 5, 2, (1, 2, 3), "holdem"),
                              Figures(1.0, 5, "deal", {}, 0, 0, 52, "seat:3", 2)]))
        wait_until(lambda: out.drawn == ["hand 5", "next card s3"], what="the first screen")
        assert statuses(events) == [True]  # said at every start
        assert text_on(bus) == b"hand5nextcards3"  # (the spaces: there since the clear, skipped)
        # the cable pulled mid-hand: the next write fails; the hand goes on (show never blocks)
        bus.failing = True
        wait_until(lambda: out.online is False, what="the display reported offline (by its probe)")
        for n in range(3):
            out.show(board.apply([Figures(2.0 + n, 5, "deal", {}, 0, 0, 51 - n, f"seat:{n + 1}", 2)]))
        assert out.lines == ["hand 5", "next card s3"]  # (the last: seat 3 due)
        assert statuses(events) == [False]  # said once, however many retries fail
        # back: reopened (initialised again) and the latest screen drawn whole
        bus.writes.clear()
        bus.failing = False
        wait_until(lambda: out.online is True, what="the display reported online")
        wait_until(lambda: out.drawn == out.lines, what="the screen drawn again")
        assert statuses(events) == [True]
        # initialised anew (the data sheet's first 0x3 nibble, after RPLCD's 0x0), then drawn whole
        assert b"".join(d for _, d in bus.writes[:8]) == bytes([0x08, 0x08, 0x0C, 0x08, 0x38, 0x38, 0x3C, 0x38])
        assert text_on(bus) == b"hand5nextcards3"
        # unplugged and plugged back between two probes: the backpack's port reads its power-on
        # 0xFF (E high): initialised again and drawn again (said offline, then online)
        bus.writes.clear()
        bus.power_cycle()
        got: list[bool] = []
        wait_until(lambda: got.extend(statuses(events)) or got == [False, True], what="the power cycle noticed")
        wait_until(lambda: text_on(bus) == b"hand5nextcards3", what="the screen drawn again")
        # a prompt: its words, not its message
        out.show(board.apply([Alert(3.0, "burn.missing", "dealer", "no burn before the flop", "BURN-001",
                                    hand=5)]))
        wait_until(lambda: out.drawn == ["NO BURN", "BURN then deal"], what="the prompt")
    finally:
        out.close()


def test_the_display_offline_is_an_ordinary_prompt_and_the_table_stays_tracked() -> None:
    """The decision (docs/decisions/0018-the-dealers-display.md): a display offline is not a table offline. The core
    raises device.display_offline (dealer, as every device's); the console shows it amber, the
    ready LED stays on; device.display_online clears it."""
    board = PromptBoard()
    st = board.apply([Alert(1.0, "device.display_offline", "dealer", "display offline")])
    assert (st.ready, st.prompt, st.alert, st.code) == ("on", "on", "off", "device.display_offline")
    st = board.apply([Alert(1.0, "device.reader_offline", "dealer", "reader offline")])
    assert (st.ready, st.alert, st.code) == ("blink_slow", "on", "device.reader_offline")
    st = board.apply([Alert(2.0, "device.reader_online", "dealer", ""),
                      Alert(2.0, "device.display_online", "dealer", "")])
    assert (st.ready, st.code, st.waiting) == ("on", None, 0)


def test_the_display_unplugged_mid_hand_the_hand_goes_on_and_it_comes_back() -> None:
    """Through the daemon (in process): the display's cable pulled after the hole cards and
    plugged back before the river (hw_sim/i2c_bus.py); the hand is tracked to the end, exactly."""
    from tests.rules_common import BUTTON, CLEAN, SEATS, alerts_of
    from rig.scenarios import NOISE, expected_hand, play

    steps = CLEAN[:10] + [{"unplug": "display"}] + CLEAN[10:18] + [{"plug": "display"}] + CLEAN[18:]
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=5),
              "hands": [{"steps": steps}]}
    [hand] = play(script)["hands"]
    assert alerts_of(hand) == [("device.display_offline", None, None, "dealer", 11),
                               ("device.display_online", None, None, "dealer", 20)]
    assert hand["zones"] == expected_hand(steps)["zones"]


def test_no_i2c_bus_here_the_display_is_offline_and_says_why() -> None:
    """A configured display on a machine without /dev/i2c-31: smbus2 cannot open it; reported
    offline once, with the reason, and retried; nothing raised."""
    for kind, (w, h), layout in (("hd44780", (16, 2), "lcd16x2"), ("ssd1306", (128, 64), "oled128x64")):
        events: queue.Queue = queue.Queue()
        out = DisplayOutput(DisplayConfig(kind, w, h, 31, 0x3C, layout), events.put,
                            backoff=Backoff(initial=0.01, maximum=0.02))
        out.start()
        try:
            wait_until(lambda out=out: out.online is False, what=f"{kind} reported offline")
            ev = events.get_nowait()
            assert (ev.device, ev.online) == ("display", False)
            assert "/dev/i2c-31" in ev.detail, ev.detail  # (smbus2 or luma: the device file missing)
            assert out._thread is not None and out._thread.is_alive()  # retrying, not dead
        finally:
            out.close()
        assert events.empty()  # said once
