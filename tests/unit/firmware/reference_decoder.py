"""An independent decoder of the bridge board's protocol, written from docs/protocols/bridge.md
alone: the oracle the firmware's encoder and the host's decoder (firmware_bridge/bridge.py) are
checked against. It shares no code with either: its CRC is the document's bit-by-bit
description, its line form the document's table.
"""

from __future__ import annotations

import re

# "KIND SP SEQ [SP FIELD]... SP * CRC": KIND 2..5 of A..Z, SEQ 4 hex digits, FIELD printable
# ASCII 21..7E but '*', the CRC 4 hex digits
LINE = re.compile(rb"^([A-Z]{2,5}) ([0-9A-F]{4})((?: [\x21-\x29\x2B-\x7E]+)*) \*([0-9A-F]{4})$")


def crc(data: bytes) -> int:
    """The document's CRC, bit by bit: 0xFFFF, then per byte crc ^= byte and 8 times
    crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1."""
    value = 0xFFFF
    for byte in data:
        value ^= byte
        for _ in range(8):
            value = (value >> 1) ^ 0x8408 if value & 1 else value >> 1
    return value


class BadFrame(ValueError):
    pass


def frame(line: bytes) -> tuple[str, int, list[str]]:
    """One line without its LF; its CR, if any, dropped. (KIND, SEQ, FIELDS), or BadFrame."""
    if line.endswith(b"\r"):
        line = line[:-1]
    m = LINE.match(line)
    if m is None:
        raise BadFrame(f"not a frame's form: {line[:40]!r}")
    star = line.rindex(b"*")
    if crc(line[:star]) != int(m.group(4), 16):
        raise BadFrame(f"CRC: {line[:40]!r}")
    fields = m.group(3).decode().split(" ")[1:]
    return m.group(1).decode(), int(m.group(2), 16), fields


def frames(data: bytes) -> list[tuple[str, int, list[str]]]:
    """Every frame of a byte stream (a trailing line without LF left out)."""
    return [frame(line) for line in data.split(b"\n")[:-1] if line.strip(b"\r")]


def cycles(items: list[tuple[str, int, list[str]]]) -> list[tuple[int, dict[int, tuple[str, list[str]]], int]]:
    """The whole cycles among ``items`` (the document's "Cycles": CYCLE, its ZONES TAGS in zone
    order with ERRs between, END with the same N, SEQs consecutive): (N, {zone: (STATE, TAGS)},
    MS). A broken cycle raises BadFrame: the board's own output must never break one."""
    out = []
    i = 0
    while i < len(items):
        kind, seq, f = items[i]
        if kind != "CYCLE":
            i += 1
            continue
        n, count = int(f[0]), int(f[1])
        zones: dict[int, tuple[str, list[str]]] = {}
        i += 1
        while True:
            k, s, g = items[i]
            if s != (seq + 1) & 0xFFFF:
                raise BadFrame(f"SEQ {s:04X} after {seq:04X} in cycle {n}")
            seq = s
            i += 1
            if k == "ERR":
                continue
            if k == "TAGS":
                zone, state, c = int(g[0]), g[1], int(g[2])
                if zone != len(zones) + 1 or len(g) != 3 + c:
                    raise BadFrame(f"TAGS of zone {zone} in cycle {n}: {g[:3]}")
                zones[zone] = (state, g[3:])
                continue
            if k == "END" and int(g[0]) == n and len(zones) == count:
                out.append((n, zones, int(g[1])))
                break
            raise BadFrame(f"{k} in cycle {n}")
    return out
