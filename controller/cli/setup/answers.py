"""The answers setup cannot find out, from the command line or an answers file (TOML), for an
unattended install. The command line wins over the file.

A table's (``tablectl setup --answers FILE``)::

    reader = "bridge"          # feig: the FEIG reader alone; bridge: and the shuffler's bridge board
    seats = [1, 2, 3, 4, 5, 6, 7, 8, 9]
    game = "holdem"
    display = "auto"           # auto (i2cdetect), none, hd44780, ssd1306, sh1106
    room_bundle = "/root/t7.bundle"
    reader_serial = "A10K1234" # which FTDI device is the reader, when there are two
    [[device]]                 # a device as if plugged in (no sysfs to read: a test, an image)
    tty = "ttyUSB0"
    vendor = "0403"
    product = "6001"
    serial = "A10K1234"

The floor's (``tablectl floor setup --answers FILE``): ``broker``, ``room``, ``ca_file``,
``user``, ``role``, ``listen``, ``port``, ``mosquitto``, ``broker_name``, ``broker_ip``.

>>> parse_answers('reader = "feig"\\nseats = [1, 2]\\n', src="a.toml", keys=TABLE_KEYS)["seats"]
[1, 2]
>>> parse_answers('reader = "feig"\\nseat = [1, 2]\\n', src="a.toml", keys=TABLE_KEYS)
Traceback (most recent call last):
...
controller.cli.setup.plan.SetupError: a.toml: seat: unknown key (answers: reader, seats, game, display, display_address,
    room_bundle, reader_serial, shuffler_serial, pin_factory, device, reader_device, shuffler_device, room)
>>> seat_list("1-4,6")
[1, 2, 3, 4, 6]
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from controller.cli.setup.plan import SetupError

#: key -> the types it takes
TABLE_KEYS: dict[str, tuple[type, ...]] = {
    "reader": (str,), "seats": (list,), "game": (str,), "display": (str,), "display_address": (int,),
    "room_bundle": (str,), "reader_serial": (str,), "shuffler_serial": (str,), "pin_factory": (str,),
    "device": (list,),
    # what an earlier run found and was told, kept so that a run again (an upgrade) writes the same
    # files: the devices pinned, the room's names (never its secrets: those stay in their files)
    "reader_device": (dict,), "shuffler_device": (dict,), "room": (dict,),
}
FLOOR_KEYS: dict[str, tuple[type, ...]] = {
    "broker": (str,), "room": (str,), "ca_file": (str,), "user": (str,), "role": (str,), "listen": (str,),
    "port": (int,), "mosquitto": (bool,), "broker_name": (str,), "broker_ip": (list,),
}
READERS = ("feig", "bridge")
DISPLAYS = ("auto", "none", "hd44780", "ssd1306", "sh1106")


def parse_answers(text: str, *, src: str, keys: dict[str, tuple[type, ...]]) -> dict[str, Any]:
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise SetupError(f"{src}: not TOML: {exc}") from None
    for key, value in doc.items():
        if key not in keys:
            raise SetupError(f"{src}: {key}: unknown key (answers: {', '.join(keys)})")
        if not isinstance(value, keys[key]) or isinstance(value, bool) and bool not in keys[key]:
            raise SetupError(f"{src}: {key}: want {' or '.join(t.__name__ for t in keys[key])}, got {value!r}")
    return doc


def read_answers(path: str | None, keys: dict[str, tuple[type, ...]]) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"--answers: {path}: cannot read it: {getattr(exc, 'strerror', None) or exc}") from None
    return parse_answers(text, src=path, keys=keys)


def seat_list(text: str | list[Any]) -> list[int]:
    """``1-9`` or ``1,2,4`` (or a list): the seats, each 1 to 10, once."""
    seats: list[int] = []
    items = text if isinstance(text, list) else [p for p in str(text).split(",") if p.strip()]
    try:
        for item in items:
            if isinstance(item, str) and "-" in item:
                lo, hi = (int(x) for x in item.split("-", 1))
                seats += range(lo, hi + 1)
            elif isinstance(item, bool):
                raise ValueError
            else:
                seats.append(int(item))
    except ValueError:
        raise SetupError(f"seats: want seat numbers such as 1-9 or 1,2,4, got {text!r}") from None
    if not seats or any(not 1 <= s <= 10 for s in seats) or len(set(seats)) != len(seats):
        raise SetupError(f"seats: want seats 1 to 10, each once, got {text!r}")
    return sorted(seats)
