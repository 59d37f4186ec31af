"""The dealer's display on the I2C bus: a character LCD or a small OLED, with the field's libraries.

- :class:`CharLcd`: an HD44780 (16x2, 20x4) behind the common PCF8574 backpack, through RPLCD
  (4-bit mode: P0 RS, P1 RW, P2 E, P3 backlight, P4-P7 D4-D7).
- :class:`Oled`: an SSD1306 or SH1106, 128x64, through luma.oled; the screen is drawn by
  :func:`oled_image` (the same drawing ``tablectl display --preview`` saves as PNG).

Both take the lines to show (``controller.core.display.render``) and write only the rows that
changed. The bus is smbus2's ``SMBus(port)`` unless one is given (the tests give a fake: the one
thing that cannot exist here). A failing bus raises :class:`DisplayError` (an ``OSError`` from
smbus2, or luma's own errors, which wrap it): the caller retries (controller/daemon/display_sink.py).
The libraries are an optional extra (``pip install 'tablectl[display]'``): imported when a
display is opened, never before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: the OLED's character cell: Pillow's built-in bitmap font is 6x11; rows are 12 pixels apart
CELL_W, CELL_H = 6, 12
#: the PCF8574 backpack's enable line (P2; RPLCD's wiring, the common one)
PCF8574_E = 0x04
KINDS = ("hd44780", "ssd1306", "sh1106")


class DisplayError(OSError):
    """The display cannot be opened or written (unplugged, wrong address, bus error)."""


def _bus_factory(bus: Any) -> Callable[[int], Any]:
    if bus is not None:
        return lambda port: bus
    try:
        # (smbus2 is the display extra's: loaded only with a display)
        from smbus2 import SMBus
    except ImportError as exc:  # the extra is not installed
        raise DisplayError(f"the display needs smbus2: pip install 'tablectl[display]' ({exc})") from exc
    return lambda port: SMBus(port)


class CharLcd:
    """An HD44780 on a PCF8574 backpack: ``cols`` x ``rows`` characters (see the module)."""

    def __init__(self, *, port: int, address: int, cols: int, rows: int, bus: Any = None) -> None:
        try:
            # (RPLCD is the display extra's: loaded only with an LCD)
            from RPLCD.i2c import CharLCD
        except ImportError as exc:
            raise DisplayError(f"the character LCD needs RPLCD: pip install 'tablectl[display]' ({exc})") from exc
        make_bus = _bus_factory(bus)

        class _Lcd(CharLCD):  # type: ignore[misc]
            # RPLCD opens SMBus(port) itself: the one seam to give it another bus
            def _init_connection(self) -> None:
                self.bus = make_bus(self._port)

        self.cols, self.rows, self.address = cols, rows, address
        try:
            self.lcd = _Lcd(i2c_expander="PCF8574", address=address, port=port, cols=cols, rows=rows,
                            charmap="A00", auto_linebreaks=False, backlight_enabled=True)
        except OSError as exc:
            raise DisplayError(f"HD44780 at 0x{address:02x} on i2c-{port}: {exc}") from exc
        #: what each row holds (RPLCD's initialisation clears the screen); None: not known
        self._shown: list[str | None] = [" " * cols] * rows

    def show(self, lines: Sequence[str]) -> None:
        """Write what changed: in each row, from its first changed character to its last (no
        clear, no flicker, the fewest bytes on a 100 kHz bus)."""
        try:
            for row in range(self.rows):
                text = _ascii((lines[row] if row < len(lines) else "")[:self.cols].ljust(self.cols))
                old = self._shown[row]
                if old == text:
                    continue
                diff = [i for i in range(self.cols) if old is None or old[i] != text[i]]
                first, last = diff[0], diff[-1]
                self._shown[row] = None  # (half-written if the bus fails now)
                self.lcd.cursor_pos = (row, first)
                self.lcd.write_string(text[first:last + 1])
                self._shown[row] = text
        except OSError as exc:
            raise DisplayError(f"HD44780: {exc}") from exc

    def probe(self) -> None:
        """Is it still there, and still initialised? The PCF8574's port is read back first: our
        last write always left E (P2) low, and the PCF8574 powers up with every pin high (its
        data sheet), so E high means the display was unplugged and plugged back between two
        probes: its HD44780 is uninitialised and must be set up again. Then the backlight byte
        again: changes nothing, but an unplugged backpack does not acknowledge it."""
        try:
            port = self.lcd.bus.read_byte(self.address)
            if port & PCF8574_E:
                raise DisplayError(f"HD44780: the backpack reads 0x{port:02x} (E high): it was power-cycled")
            self.lcd.backlight_enabled = True
        except OSError as exc:
            if isinstance(exc, DisplayError):
                raise
            raise DisplayError(f"HD44780: {exc}") from exc

    def close(self) -> None:
        try:
            self.lcd.close(clear=False)
        except Exception:  # (closing a display gone from the bus: nothing to keep)
            pass


def oled_image(lines: Sequence[str], width: int = 128, height: int = 64) -> Any:
    """The OLED's screen for ``lines``: a 1-bit image, one character per 6x12 cell (Pillow's
    bitmap font), white on black."""
    # (Pillow is the display extra's: loaded only with an OLED)
    from PIL import Image, ImageDraw, ImageFont

    img = Image.new("1", (width, height), 0)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default_imagefont()
    cols = width // CELL_W
    for row, line in enumerate(lines[:height // CELL_H]):
        for col, ch in enumerate(_ascii(line[:cols])):
            draw.text((col * CELL_W, row * CELL_H), ch, fill=1, font=font)
    return img


class Oled:
    """An SSD1306 or SH1106 of ``width`` x ``height`` pixels (see the module)."""

    def __init__(self, *, kind: str, port: int, address: int, width: int = 128, height: int = 64,
                 bus: Any = None) -> None:
        try:
            # (luma is the display extra's: loaded only with an OLED)
            from luma.core.error import Error as LumaError
            from luma.core.interface.serial import i2c
            from luma.oled.device import sh1106, ssd1306
        except ImportError as exc:
            raise DisplayError(f"the OLED needs luma.oled: pip install 'tablectl[display]' ({exc})") from exc
        self._errors: tuple[type[BaseException], ...] = (OSError, LumaError)
        self.width, self.height = width, height
        self._shown: list[str] | None = None
        try:
            self._serial = _SetupRecorder(i2c(bus=bus, port=port, address=address))
            make = ssd1306 if kind == "ssd1306" else sh1106
            self.device = make(self._serial, width=width, height=height)
        except self._errors as exc:
            raise DisplayError(f"{kind} at 0x{address:02x} on i2c-{port}: {exc}") from exc
        #: the screen on the glass (luma's initialisation cleared it)
        self._image = oled_image([], width, height)

    def show(self, lines: Sequence[str]) -> None:
        if self._shown == list(lines):
            return
        image = oled_image(lines, self.width, self.height)
        try:
            self.device.display(image)
        except self._errors as exc:
            self._shown = None
            raise DisplayError(f"OLED: {exc}") from exc
        self._shown, self._image = list(lines), image

    def probe(self) -> None:
        """Is it still there, and still set up? An unplugged OLED does not acknowledge a write.
        One power-cycled between two probes acknowledges everything, but comes back dark: an
        SSD1306 or SH1106 powers up with its display off, its charge pump off and its RAM
        undefined (their data sheets), and it cannot be read back over I2C to tell. So every
        probe sets it up again: luma's own initialisation as it was sent when the display was
        opened, less its "display off" (no blink), then the screen shown, then display on
        (0xAF). About 30 command bytes and one frame (1 KiB) every probe (2 s): a power-cycled
        OLED is lit with the right screen within one probe."""
        try:
            for cmd in self._serial.setup:
                self._serial.command(*cmd)
            self.device.display(self._image)
            self.device.show()
        except self._errors as exc:
            raise DisplayError(f"OLED: {exc}") from exc

    def close(self) -> None:
        try:
            self.device.cleanup()
        except Exception:  # (a display gone from the bus)
            pass


class _SetupRecorder:
    """luma's serial interface, passed through, keeping the commands luma sends before its
    first data (its initialisation: the settings and the contrast) less "display off" (0xAE),
    so that :meth:`Oled.probe` can send them again exactly as the library does."""

    DISPLAY_OFF = 0xAE

    def __init__(self, serial: Any) -> None:
        self.serial = serial
        self.setup: list[tuple[int, ...]] = []
        self._recording = True

    def command(self, *cmd: int) -> None:
        self.serial.command(*cmd)
        if self._recording:
            kept = cmd[1:] if cmd and cmd[0] == self.DISPLAY_OFF else cmd
            if kept:
                self.setup.append(kept)

    def data(self, data: Any) -> None:
        self._recording = False
        self.serial.data(data)

    def __getattr__(self, name: str) -> Any:  # (cleanup, and whatever else luma asks of it)
        return getattr(self.serial, name)


def _ascii(text: str) -> str:
    """What the HD44780's ROM (A00) and the bitmap font both have: printable ASCII."""
    return "".join(c if " " <= c <= "~" else "?" for c in text)


def open_display(kind: str, *, port: int, address: int, cols: int, rows: int, width: int = 128,
                 height: int = 64, bus: Any = None) -> CharLcd | Oled:
    """The display of ``[display] kind``; raises :class:`DisplayError` if it cannot be opened."""
    if kind == "hd44780":
        return CharLcd(port=port, address=address, cols=cols, rows=rows, bus=bus)
    if kind in ("ssd1306", "sh1106"):
        return Oled(kind=kind, port=port, address=address, width=width, height=height, bus=bus)
    raise DisplayError(f"no display kind {kind!r} (one of {', '.join(KINDS)})")
