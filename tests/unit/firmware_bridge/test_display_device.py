"""The display's drivers over a fake smbus2 bus (hw_sim/i2c_bus.py): the HD44780 path against
bytes written here from the data sheets, the OLED's drawing through luma's own test device."""

from __future__ import annotations

import pytest

from controller.core.display import LAYOUTS, WIDEST, lines_for, text_table
from firmware_bridge.display import CELL_H, CELL_W, CharLcd, DisplayError, Oled, oled_image, open_display
from hw_sim.i2c_bus import FakeSMBus

# PCF8574 backpack wiring (the common one; RPLCD's): P0 RS, P1 R/W, P2 E, P3 backlight, P4-P7 D4-D7.
BL, E, RS = 0x08, 0x04, 0x01


def nibble(n: int, rs: int = 0) -> bytes:
    """One 4-bit transfer as the PCF8574 sees it: the nibble on D4-D7 with E low, then E high
    (the HD44780 latches on E's falling edge, data sheet fig. 25), then E low; backlight on."""
    v = (n << 4) | BL | rs
    return bytes([v, v, v | E, v])


def test_hd44780_initialisation_cursor_move_and_one_character() -> None:
    bus = FakeSMBus(0x27)
    lcd = CharLcd(port=1, address=0x27, cols=16, rows=2, bus=bus)
    # HD44780U data sheet, figure 24 (initialising by instruction, 4-bit interface): 0x3, 0x3, 0x3,
    # then 0x2 (4-bit mode). RPLCD sends each as the instruction 0x03 / 0x02, i.e. a 0x0 nibble
    # first: in 8-bit mode (power-on) a 0x0 is instruction 0x00, which does nothing.
    init = (bytes([0x08, 0x08, 0x0C, 0x08, 0x38, 0x38, 0x3C, 0x38]) * 3
            + bytes([0x08, 0x08, 0x0C, 0x08, 0x28, 0x28, 0x2C, 0x28])
            # function set 0x28: 4-bit, 2 lines, 5x8 dots (high nibble 2, low nibble 8)
            + bytes([0x28, 0x28, 0x2C, 0x28, 0x88, 0x88, 0x8C, 0x88])
            # display control 0x0C: display on, cursor off, blink off
            + bytes([0x08, 0x08, 0x0C, 0x08, 0xC8, 0xC8, 0xCC, 0xC8])
            # clear display 0x01
            + bytes([0x08, 0x08, 0x0C, 0x08, 0x18, 0x18, 0x1C, 0x18])
            # entry mode set 0x06: increment, no shift
            + bytes([0x08, 0x08, 0x0C, 0x08, 0x68, 0x68, 0x6C, 0x68])
            # the backlight on, nothing strobed
            + bytes([0x08]))
    assert bus.take() == init
    # the nibbles the HD44780 latched (E high), less RPLCD's 0x0 ones: the data sheet's 3, 3, 3, 2
    assert nibble(3) == bytes([0x38, 0x38, 0x3C, 0x38])
    lcd.show(["", "A"])
    # set DDRAM address 0x80 | 0x40 (line 2, column 0) = 0xC0; then 'A' = 0x41 with RS high
    assert bus.take() == bytes([0xC8, 0xC8, 0xCC, 0xC8, 0x08, 0x08, 0x0C, 0x08,
                                0x49, 0x49, 0x4D, 0x49, 0x19, 0x19, 0x1D, 0x19])
    lcd.show(["", "A"])  # unchanged: nothing on the bus
    assert bus.take() == b""
    lcd.show(["", "B"])  # one character changed: one cursor move and one character
    assert bus.take() == nibble(0xC) + nibble(0x0) + nibble(0x4, RS) + nibble(0x2, RS)


def test_a_display_missing_from_the_bus_cannot_be_opened() -> None:
    bus = FakeSMBus(0x3F)  # a PCF8574A backpack; the configuration says 0x27
    with pytest.raises(DisplayError, match="0x27 on i2c-1"):
        open_display("hd44780", port=1, address=0x27, cols=16, rows=2, bus=bus)
    with pytest.raises(DisplayError, match="0x3c on i2c-1"):
        open_display("ssd1306", port=1, address=0x3C, cols=21, rows=5, bus=bus)


def test_a_bus_failure_while_writing_is_a_display_error() -> None:
    bus = FakeSMBus(0x27)
    lcd = CharLcd(port=1, address=0x27, cols=20, rows=4, bus=bus)
    bus.failing = True
    with pytest.raises(DisplayError, match="Remote I/O"):
        lcd.show(["BURN then FLOP"])
    bus = FakeSMBus(0x3C)
    oled = Oled(kind="sh1106", port=1, address=0x3C, bus=bus)
    assert bus.take()  # the SH1106's initialisation went out
    bus.failing = True
    with pytest.raises(DisplayError):
        oled.show(["BURN then FLOP"])


def lit_cells(img: object, cols: int, rows: int) -> set[tuple[int, int]]:
    """The (row, col) cells of an image with a pixel lit."""
    px = img.load()  # type: ignore[attr-defined]
    w, h = img.size  # type: ignore[attr-defined]
    return {(y // CELL_H, x // CELL_W) for y in range(h) for x in range(w) if px[x, y]
            and y // CELL_H < rows and x // CELL_W < cols} | \
        {(-1, -1) for y in range(h) for x in range(w) if px[x, y] and (y >= rows * CELL_H or x >= cols * CELL_W)}


def test_every_oled_screen_is_drawn_in_its_cells_through_lumas_dummy_device() -> None:
    from luma.core.device import dummy

    t = text_table()
    lay = t.layouts["oled128x64"]
    device = dummy(width=128, height=64, mode="1")
    widest: dict[str, int | str | None] = dict(WIDEST)
    for code in [*t.prompts, None]:
        lines = lines_for(code, widest, "oled128x64")
        device.display(oled_image(lines))
        want = {(r, c) for r, line in enumerate(lines) for c, ch in enumerate(line) if ch != " "}
        # a cell is lit exactly where a character is written, and nothing is lit outside the grid
        assert lit_cells(device.image, lay.cols, lay.rows) == want, code
    assert "oled128x64" in LAYOUTS


def test_tablectl_display_preview_writes_every_screen(tmp_path, capsys) -> None:
    from PIL import Image

    from controller.cli.main import main

    assert main(["display", "--preview", str(tmp_path / "p")]) == 0
    t = text_table()
    for layout, size in (("lcd16x2", (16 * 18 + 24, 2 * 30 + 24)), ("lcd20x4", (20 * 18 + 24, 4 * 30 + 24)),
                         ("oled128x64", (384, 192))):
        files = sorted((tmp_path / "p" / layout).glob("*.png"))
        assert len(files) == len(t.prompts) + 2
        assert Image.open(tmp_path / "p" / layout / "stub.count_due.png").size == size
    assert f"{3 * (len(t.prompts) + 2)} screens in" in capsys.readouterr().out
    (tmp_path / "f").write_text("")  # a file where the folder should be
    assert main(["display", "--preview", str(tmp_path / "f")]) == 1
    err = capsys.readouterr().err
    assert err.startswith("tablectl display: cannot write to") and "Traceback" not in err


def gddram(img: object, width: int = 128, height: int = 64) -> bytes:
    """The SSD1306's display RAM for an image, from its data sheet (GDDRAM, horizontal
    addressing): byte ``x + width * page``, bit ``y % 8`` of page ``y // 8``. The SH1106 is
    written page by page in the same order."""
    px = img.load()  # type: ignore[attr-defined]
    out = bytearray(width * height // 8)
    for y in range(height):
        for x in range(width):
            if px[x, y]:
                out[x + width * (y // 8)] |= 1 << (y % 8)
    return bytes(out)


@pytest.mark.parametrize("kind", ["ssd1306", "sh1106"])
def test_a_power_cycled_oled_is_lit_again_with_its_screen_by_the_next_probe(kind: str) -> None:
    """Unplugged and plugged back between two probes, the OLED acknowledges every write but is
    dark (display off, charge pump off, RAM lost): the probe sets it up again and redraws it,
    without ever switching it off (no blink)."""
    bus = FakeSMBus(0x3C)
    oled = Oled(kind=kind, port=1, address=0x3C, bus=bus)
    lines = ["seat 4 short 1", "misdeal? hold"]
    oled.show(lines)
    frame = gddram(oled_image(lines))
    lit, ram = bus.oled()
    assert lit and ram[-1024:] == frame  # lit, the screen shown
    bus.power_cycle()
    assert bus.oled() == (False, b"")  # dark: what the old probe (display on alone) left it
    bus.take()
    oled.probe()
    lit, ram = bus.oled()
    assert lit and ram == frame
    commands = [d for _, d in bus.writes if d[0] == 0x00]
    assert commands and not any(0xAE in c[1:] for c in commands)  # never display off


def test_the_display_thread_lights_a_power_cycled_oled_on_its_own() -> None:
    """Through the display's thread (controller/daemon/display_sink.py): no bus error, no
    report, the screen back within a probe."""
    import queue

    from controller.config.display import DisplayConfig
    from controller.daemon.display_sink import DisplayOutput
    from controller.core.prompts import ConsoleState
    from controller.core.display import render
    from rig.waiting import wait_until

    bus = FakeSMBus(0x3C)
    events: queue.Queue = queue.Queue()
    out = DisplayOutput(DisplayConfig("ssd1306", 128, 64, 1, 0x3C, "oled128x64"), events.put, bus=bus,
                        probe_every=0.02)
    state = ConsoleState(seat=4, hand=12, between=True)
    frame = gddram(oled_image(render(state, "oled128x64")))
    out.start()
    try:
        out.show(state)
        def shows_the_screen() -> bool:
            lit, ram = bus.oled()
            return lit and ram[-1024:] == frame

        wait_until(shows_the_screen, what="the screen lit")
        bus.power_cycle()
        wait_until(shows_the_screen, what="lit again after the power cycle")
        assert events.get_nowait().online is True and events.empty()  # online once; no error, no report
    finally:
        out.close()
