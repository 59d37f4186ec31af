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

It is computed in C: CRC-16/MCRF4XX is CRC-16/XMODEM's polynomial (0x1021) reflected, and
reflecting every bit in and out turns one into the other, so binascii's CRC-CCITT
(:func:`binascii.crc_hqx`) over the bytes with their bits reversed, from the start value
reversed, is the CRC reversed. A byte table step a byte in Python cost 2.5 us a bridge line
(a bridge board's cycle is 16 lines, every one checked on the host's path to an alert).

>>> crc16_mcrf4xx(b"123456789") == _by_table(b"123456789") and crc16_mcrf4xx(b"", 0x1234) == 0x1234
True
"""

from __future__ import annotations

from array import array
from binascii import crc_hqx

__all__ = ["CRC_TABLE", "crc16_mcrf4xx", "crc16_prefix", "crc16_span", "shift_tables"]

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
#: the byte table, for a decoder that inlines the step in its innermost loop
CRC_TABLE = _TABLE


#: each byte with its bits in the reverse order
_REFLECT = bytes(sum(1 << (7 - bit) for bit in range(8) if byte >> bit & 1) for byte in range(256))


def crc16_mcrf4xx(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """The CRC-16/MCRF4XX of ``data``, continuing from ``crc`` (0xFFFF starts afresh): in C
    (see above)."""
    reflect = _REFLECT
    if type(data) is memoryview:
        data = data.tobytes()
    reg = crc_hqx(data.translate(reflect), reflect[crc & 0xFF] << 8 | reflect[crc >> 8])
    return reflect[reg & 0xFF] << 8 | reflect[reg >> 8]


def _by_table(data: bytes | bytearray | memoryview, crc: int = 0xFFFF) -> int:
    """The same CRC a table step a byte (the definition :func:`crc16_mcrf4xx` is checked against)."""
    table = _TABLE
    for byte in data:
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc


# --- The CRC of any span of a buffer in constant time -----------------------------------------
#
# A stream decoder that resynchronises byte by byte checks one candidate frame per byte, and a
# candidate's CRC covers as many bytes as its length field claims: computed afresh, a run of
# bytes claiming long frames costs length x bytes (the FEIG decoder fell to 14 KiB/s on
# ``02 0F FF ...``). The CRC is linear over GF(2), which gives a constant-time check instead:
#
#   Let S[k] be the register after the first k bytes of the buffer (from any start value) and
#   F the register's step over a zero byte (a linear map). Then the register after the bytes
#   [i, j) from the start value I is  S[j] ^ F^(j-i)(S[i] ^ I).
#
# So each byte costs one table step to extend S, and each candidate frame one application of
# F^n, done with two 256-entry tables per n (F^n is linear: split the register into its bytes).
# n = 256a + b is applied as F^b then F^(256a), so 256 + 256 table pairs cover every length
# up to 65535; they are built on first use (about 25 ms for all of them) and kept.

_ShiftTable = tuple["array[int]", "array[int]"]  # F^n(w) == lo[w & 0xFF] ^ hi[w >> 8]


def _zero_step(reg: int) -> int:
    return (reg >> 8) ^ _TABLE[reg & 0xFF]


def _expand(images: list[int]) -> _ShiftTable:
    """The two byte tables of the linear map whose images of bits 0..15 are ``images``."""
    # Entry k is the XOR of the images of k's bits: the entries [2^b, 2^(b+1)) are those below
    # 2^b, each XORed with bit b's image. Built a bit at a time, a list comprehension each (not a
    # byte at a time): the tables of a long frame's lengths are built as a daemon starts (each
    # FEIG or shuffler link's decoder), ~4x faster so.
    lo, hi = [0], [0]
    for bit in range(8):
        lo_image, hi_image = images[bit], images[8 + bit]
        lo += [v ^ lo_image for v in lo]
        hi += [v ^ hi_image for v in hi]
    return array("H", lo), array("H", hi)


def _apply(table: _ShiftTable, reg: int) -> int:
    return table[0][reg & 0xFF] ^ table[1][reg >> 8]


#: _SMALL[b] applies F^b (b = 0..255); _BIG[a] applies F^(256a) (a = 0..255, built on demand)
_SMALL: list[_ShiftTable] = []
_BIG: list[_ShiftTable] = []


def shift_tables(max_len: int) -> tuple[list[_ShiftTable], list[_ShiftTable]]:
    """The tables that apply F^n for every n up to ``max_len`` (at most 65535), building
    what is missing. Returns ``(small, big)``: F^n is ``small[n & 0xFF]`` then ``big[n >> 8]``
    (``big[0]`` is the identity)."""
    if not 0 <= max_len <= 0xFFFF:
        raise ValueError(f"max_len must be 0..65535, not {max_len}")
    if not _SMALL:
        images = [1 << bit for bit in range(16)]
        for _ in range(256):
            _SMALL.append(_expand(images))
            images = [_zero_step(v) for v in images]
        # ``images`` is now F^256's: the step between consecutive big tables
        _BIG.append(_SMALL[0])
        _BIG.append(_expand(images))
    step = _BIG[1]
    while len(_BIG) <= max_len >> 8:
        prev = _BIG[-1]
        _BIG.append(_expand([_apply(step, _apply(prev, 1 << bit)) for bit in range(16)]))
    return _SMALL, _BIG


def crc16_prefix(states: array[int], data: bytes | bytearray | memoryview) -> None:
    """Append to ``states`` the register after each byte of ``data``, continuing from
    ``states[-1]``: the prefix states :func:`crc16_span` works on."""
    table = _TABLE
    reg = states[-1]
    out: list[int] = []
    append = out.append
    for byte in data:
        reg = (reg >> 8) ^ table[(reg ^ byte) & 0xFF]
        append(reg)
    states.extend(out)


def crc16_span(states: array[int], start: int, stop: int, crc: int = 0xFFFF) -> int:
    """The CRC-16/MCRF4XX of the bytes ``[start, stop)`` whose prefix states are ``states``
    (``states[k]`` the register after the first k bytes), from ``crc``, in constant time.

    >>> states = array("H", [0])
    >>> crc16_prefix(states, b"xx123456789yy")
    >>> hex(crc16_span(states, 2, 11))
    '0x6f91'
    """
    small, big = shift_tables(stop - start)
    reg = _apply(small[(stop - start) & 0xFF], states[start] ^ crc)
    reg = _apply(big[(stop - start) >> 8], reg)
    return int(reg ^ states[stop])
