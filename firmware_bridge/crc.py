"""CRC-16/MCRF4XX, the checksum of every FEIG ISO Host frame.

Polynomial 0x1021 in reflected form (0x8408), initial value 0xFFFF, no final XOR; the
frame carries it low byte first. The table is built once at import, so checking a frame
costs one lookup per byte, which matters on a Pi that checks every frame it receives.

>>> hex(crc16_mcrf4xx(b"123456789"))
'0x6f91'
>>> hex(crc16_mcrf4xx(bytes.fromhex("05FF65")))   # sent as E5 CB
'0xcbe5'

A CRC can be carried across chunks by passing the previous value back in:

>>> crc16_mcrf4xx(b"6789", crc16_mcrf4xx(b"12345")) == crc16_mcrf4xx(b"123456789")
True
"""

from __future__ import annotations

__all__ = ["crc16_mcrf4xx"]

_POLY_REFLECTED = 0x8408


def _make_table() -> tuple[int, ...]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY_REFLECTED if crc & 1 else crc >> 1
        table.append(crc)
    # A tuple: immutable, and indexing it is as fast as indexing a list.
    return tuple(table)


_TABLE = _make_table()


def crc16_mcrf4xx(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """The CRC-16/MCRF4XX of ``data``, continuing from ``crc`` (0xFFFF starts afresh)."""
    table = _TABLE  # a local name: the loop below runs once per byte of every frame
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc
