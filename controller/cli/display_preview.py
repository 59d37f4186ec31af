"""``tablectl display --preview DIR``: every screen of the dealer's display as PNG files.

One folder per layout (``lcd16x2``, ``lcd20x4``, ``oled128x64``), one file per screen: the quiet
screens (``_between``, ``_dealing``) and every code of ``controller/core/display_text.toml``, with
example figures (seat 4, hand 112, nine-handed hold'em's stub count: 18 + 3 + 5 = 26 out). The
OLED's is the very image the OLED is sent (``firmware_bridge.display.oled_image``); the LCD's is
its character grid, each character in its 5x8 cell. For the docs and the technician; no display
is needed (Pillow is: the ``display`` extra).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from controller.core.display import LAYOUTS, lines_for, text_table
from firmware_bridge.display import oled_image

#: the figures the previews show: a nine-handed hold'em hand at the river, a prompt waiting behind
EXAMPLE: dict[str, int | str | None] = {"seat": 4, "next": 5, "hand": 112, "players": 9, "out": 26, "stub": 26,
                                        "burns": 3, "board": 5, "hole": 18, "waiting": 1, "count": 1,
                                        "game": "razz"}
SCALE = 3
#: an HD44780's cell is 5x8 dots with a dot of gap; the bitmap font's glyph is drawn into it
LCD_CELL_W, LCD_CELL_H = 6, 10
LCD_BG, LCD_FG, LCD_CELL = (40, 70, 200), (235, 240, 255), (52, 84, 215)


def lcd_image(lines: list[str], cols: int, rows: int) -> Any:
    """A character LCD's screen: the grid of cells, the characters in them, white on blue."""
    from PIL import Image, ImageDraw, ImageFont  # (Pillow: the display extra's, loaded only to draw previews)

    pad = 4
    img = Image.new("RGB", (pad * 2 + cols * LCD_CELL_W, pad * 2 + rows * LCD_CELL_H), LCD_BG)
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default_imagefont()
    for r in range(rows):
        for c in range(cols):
            x, y = pad + c * LCD_CELL_W, pad + r * LCD_CELL_H
            draw.rectangle((x, y, x + 4, y + 7), fill=LCD_CELL)
            ch = lines[r][c] if r < len(lines) and c < len(lines[r]) else " "
            if ch != " ":
                draw.text((x, y - 1), ch, fill=LCD_FG, font=font)
    return img.resize((img.width * SCALE, img.height * SCALE), Image.Resampling.NEAREST)


def screens() -> list[tuple[str, str | None, bool]]:
    """(file name, code, between hands) of every screen."""
    return [("_between", None, True), ("_dealing", None, False)] + \
        [(code, code, False) for code in text_table().prompts]


def write_previews(out: Path, values: dict[str, int | str | None] | None = None) -> list[Path]:
    """Every screen of every layout under ``out``; the files written."""
    from PIL import Image  # (Pillow: the display extra's, loaded only to draw previews)


    t = text_table()
    written = []
    for layout in LAYOUTS:
        lay = t.layouts[layout]
        folder = out / layout
        folder.mkdir(parents=True, exist_ok=True)
        for name, code, between in screens():
            lines = [x[:lay.cols] for x in lines_for(code, values or EXAMPLE, layout, between=between)]
            if layout.startswith("lcd"):
                img = lcd_image(lines, lay.cols, lay.rows)
            else:
                one = oled_image(lines).convert("RGB")
                img = one.resize((one.width * SCALE, one.height * SCALE), Image.Resampling.NEAREST)
            path = folder / f"{name}.png"
            img.save(path)
            written.append(path)
    return written


def main(preview: str) -> int:
    try:
        written = write_previews(Path(preview))
    except ImportError as exc:
        print(f"tablectl display: the previews need Pillow: pip install 'tablectl[display]' ({exc})", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"tablectl display: cannot write to {preview}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    print(f"{len(written)} screens in {preview} ({', '.join(LAYOUTS)})")
    return 0
