"""``tablectl tags``: the installer's tool. One line per tag read: ``ANTENNA UID RSSI``.

The UID is printed as uppercase hex digits, most significant byte first, as the reader sends
it (16 for an ISO 15693 tag). ``--driver bridge`` reads our bridge board
(docs/protocols/bridge.md): its zones are the antennas, and a zone without signal strength
prints the strength the host stands in for it (255 heard alone, 1 heard in two zones:
docs/decisions/0042). With ``--single-antenna`` the reader is asked for an inventory without antenna
information, as a one-antenna registration reader answers; the antenna is then printed as
``1`` and the RSSI as ``-``.
"""

from __future__ import annotations

import sys

from firmware_bridge.drivers import reader_client
from firmware_bridge.errors import BridgeError
from firmware_bridge.serial_port import PortSettings, open_port


def parse_antennas(text: str) -> int:
    """``"1-13"`` or ``"1,2,11"`` -> a bitmask (bit 0 = antenna 1).

    >>> bin(parse_antennas("1-3,8"))
    '0b10000111'
    """
    mask = 0
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        lo, _, hi = part.partition("-")
        try:
            a, b = int(lo), int(hi or lo)
        except ValueError:
            raise ValueError(f"--antennas: {part!r} is not an antenna number or range") from None
        if not 1 <= a <= b <= 16:  # ANT_SEL is two bytes on the wire (docs/protocols/feig.md)
            raise ValueError(f"--antennas: {part!r} is outside 1..16")
        for n in range(a, b + 1):
            mask |= 1 << (n - 1)
    if not mask:
        raise ValueError("--antennas: no antenna given")
    return mask


def main(*, driver: str, port: str, single_antenna: bool, cycles: int, baudrate: int, parity: str,
         antennas: str, out=None) -> int:  # type: ignore[no-untyped-def]
    out = out or sys.stdout
    try:
        mask = None if single_antenna else parse_antennas(antennas)
    except ValueError as exc:
        print(f"tablectl tags: {exc}", file=sys.stderr)
        return 2
    sel_bytes = 1 if mask is not None and mask < 0x100 else 2
    try:
        with open_port(PortSettings(url=port, baudrate=baudrate, parity=parity), device="reader") as p:
            client = reader_client(driver, p, device="reader", ant_sel_bytes=sel_bytes)
            n = 0
            while cycles == 0 or n < cycles:
                n += 1
                seen: set[tuple[int, str]] = set()
                for tag in client.inventory(antennas=mask):
                    if mask is None:
                        if (1, tag.uid) not in seen:
                            seen.add((1, tag.uid))
                            print(f"1 {tag.uid} -", file=out, flush=True)
                        continue
                    for a in tag.antennas:
                        if (a.antenna, tag.uid) not in seen:  # a repeated data set is one read
                            seen.add((a.antenna, tag.uid))
                            print(f"{a.antenna} {tag.uid} {a.rssi}", file=out, flush=True)
    except BridgeError as exc:
        print(f"tablectl tags: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    return 0
