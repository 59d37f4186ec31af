"""``tablectl calibrate``: each antenna's own RSSI level, learned with a card laid on it.

RSSI differs from antenna to antenna (cable length, the antenna's tuning, the felt over it) and
from table to table, so one ``strong_rssi`` for all would be too high for one antenna and too
low for the next. The technician lays one card on each antenna in turn, as the command asks;
it reads ``cycles`` inventories of that antenna alone and takes the median RSSI of the card's
reads there. The antenna's level is that median less ``margin`` (50 by default: a card lying on
an antenna reads about 50 over its level, crosstalk at a neighbour about 50 under it,
docs/tracking.md). The levels are written to the configuration's ``[reader.levels]`` (the rest
of the file is kept as it is), where the daemon reads them at its next start and
``tablectl doctor`` checks that every antenna has one.

A reader whose zones give no signal strength (the bridge board, docs/decisions/0042) has no
levels to learn: for each zone, with the card laid on it, calibrate checks that the zone reads it
in at least 90 % of the cycles and that no other zone hears it (crosstalk), and writes nothing.

Exit status: 0 when every antenna was measured (and the levels written), 1 when an antenna read
no card or the reader failed, 2 for a configuration that does not load.

>>> levels_section({1: 150, 13: 142})
'[reader.levels]\\n1 = 150\\n13 = 142\\n'
>>> level_of([200, 210, 190, 205], margin=50)
152
"""

from __future__ import annotations

import re
import statistics
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.config.daemon import ConfigError, load_config
from controller.config.writer import write_file
from firmware_bridge.drivers import reader_client
from firmware_bridge.errors import BridgeError, ResponseTimeout
from firmware_bridge.serial_port import PortSettings, open_port

MARGIN = 50


class CalibrationError(RuntimeError):
    """An antenna read no card, or the reader failed; the message names which."""


def level_of(rssi: Sequence[int], *, margin: int = MARGIN) -> int:
    """The level of an antenna whose card read ``rssi``: the median less ``margin``, in 1..255."""
    return max(1, min(255, round(statistics.median(rssi)) - margin))


def measure(client: Any, antenna: int, *, cycles: int) -> list[int]:
    """The RSSI of the strongest read at ``antenna`` in each of ``cycles`` inventories of it."""
    out = []
    for _ in range(cycles):
        try:
            tags = client.inventory(antennas=1 << (antenna - 1))
        except ResponseTimeout:
            continue
        heard = [a.rssi for t in tags for a in t.antennas if a.antenna == antenna]
        if heard:
            out.append(max(heard))
    return out


def calibrate(client: Any, antennas: dict[int, str], *, ask: Callable[[int, str], None],
              cycles: int = 20, margin: int = MARGIN) -> dict[int, int]:
    """Each antenna's level: ``ask(antenna, zone)`` has the card laid on it, then it is read. A
    reader without signal strength: each zone checked (:func:`check_zone`), and no levels."""
    levels = {}
    if not getattr(client, "has_signal", lambda: True)():
        for antenna in sorted(antennas):
            ask(antenna, antennas[antenna])
            print(check_zone(client, antenna, antennas[antenna], cycles=cycles), flush=True)
        return levels
    for antenna in sorted(antennas):
        ask(antenna, antennas[antenna])
        rssi = measure(client, antenna, cycles=cycles)
        if len(rssi) < cycles // 2:
            raise CalibrationError(f"antenna {antenna} ({antennas[antenna]}) read the card in {len(rssi)} of "
                                   f"{cycles} inventories: is the card on it, and its cable in?")
        levels[antenna] = level_of(rssi, margin=margin)
    return levels


#: the share of cycles a zone without signal strength must read its card in
READ_RATE = 0.9


def check_zone(client: Any, antenna: int, zone: str, *, cycles: int) -> str:
    """A zone without signal strength, its card laid on it: read in READ_RATE of ``cycles``
    cycles, heard by no other zone (CalibrationError otherwise); what was found, in words."""
    read = crossed = 0
    others: set[int] = set()
    for _ in range(cycles):
        try:
            tags = client.inventory(antennas=None)
        except ResponseTimeout:
            continue
        where = {a.antenna for t in tags for a in t.antennas}  # (the one card on the table)
        read += antenna in where
        if where - {antenna}:
            crossed += 1
            others |= where - {antenna}
    if crossed:
        raise CalibrationError(f"zone {antenna} ({zone}): its card was heard by zone "
                               f"{', '.join(map(str, sorted(others)))} too, in {crossed} of {cycles} cycles: "
                               f"crosstalk (move the antennas apart or lower the transmitter's level: "
                               f"firmware_bridge/firmware/README.md, \"Crosstalk\")")
    if read < READ_RATE * cycles:
        raise CalibrationError(f"zone {antenna} ({zone}) read the card in {read} of {cycles} cycles: is the card "
                               f"on it, and its module wired?")
    return f"zone {antenna:3} ({zone}): read in {read} of {cycles} cycles, heard by no other zone"


def levels_section(levels: dict[int, int]) -> str:
    return "[reader.levels]\n" + "".join(f"{a} = {levels[a]}\n" for a in sorted(levels))


#: a ``[reader.levels]`` header and its lines, up to the next header or the end
_SECTION = re.compile(r"^\[reader\.levels\][^\n]*\n(?:(?!\[)[^\n]*\n?)*", re.MULTILINE)


def write_levels(path: Path, levels: dict[int, int]) -> None:
    """Put ``levels`` in the configuration at ``path``: its ``[reader.levels]`` replaced, or
    added at the end; every other line kept. Written through the one writer
    (controller/config/writer.py): the new file is loaded before it replaces the old one, and
    keeps the old one's owner, group and mode (``root:tablectl 0640``: the daemon must still read
    it, whatever the umask of whoever runs calibrate)."""
    text = path.read_text()
    kept = _SECTION.sub("", text).rstrip("\n")
    new = (kept + "\n\n" if kept else "") + levels_section(levels)
    write_file(path, new.encode(), mode=0o640, keep=True, check=lambda temp: load_config(str(temp)),
               only_if_changed=False)


def main(config: str, *, cycles: int = 20, margin: int = MARGIN, ask: Callable[[int, str], None] | None = None,
         write: bool = True) -> int:
    try:
        cfg = load_config(config)
    except ConfigError as exc:
        print(f"tablectl calibrate: {exc}", file=sys.stderr)
        return 2
    r = cfg.reader

    def prompt(antenna: int, zone: str) -> None:
        input(f"lay one card on antenna {antenna} ({zone}) alone, then press Enter ")

    try:
        with open_port(PortSettings(url=r.port, baudrate=r.baudrate, parity=r.parity), device="reader") as p:
            client = reader_client(r.driver, p, device="reader", ant_sel_bytes=r.antenna_select_bytes,
                                   com_adr=r.address)
            levels = calibrate(client, dict(cfg.table.zones.by_antenna), ask=ask or prompt, cycles=cycles,
                               margin=margin)
    except (BridgeError, CalibrationError) as exc:
        print(f"tablectl calibrate: {exc}", file=sys.stderr)
        return 1
    for antenna in sorted(levels):
        print(f"antenna {antenna:3} ({cfg.table.zones.by_antenna[antenna]}): level {levels[antenna]}")
    if not levels:
        print("no levels written: the reader's zones give no signal strength (docs/decisions/0042)", flush=True)
        return 0
    if write:
        try:
            write_levels(Path(config), levels)
        except (OSError, ConfigError) as exc:
            print(f"tablectl calibrate: {config}: the levels were not written: {exc}", file=sys.stderr)
            return 1
        print(f"written to {config} [reader.levels]; the daemon reads them at its next start", flush=True)
    return 0
