"""The configuration files setup writes, generated from the configuration's schema
(controller/config/schema.py): each section's keys in the schema's order, the values setup was
told or found set, every other key a comment with its default and the docs' note. The console is
the recommended layout (``controller.config.console.DEFAULT_CONSOLE``), moved off the I2C bus's
pins (BCM 2 and 3) when there is a display.

>>> toml_value([1, 2, 3]), toml_value("a\\"b"), toml_value(0.5), toml_value(True)
('[1, 2, 3]', '"a\\\\"b"', '0.5', 'true')
>>> moved = console_layout(seats=[1, 2, 3, 4, 5, 6], display=True, pin_factory="auto")
>>> moved["console"]["buttons"]["round_done"], moved["console"]["buttons"]["exposed"]
(26, 21)
>>> sorted(moved["console"]["seat_leds"])
['1', '2', '3', '4', '5', '6']
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Iterable, Mapping
from typing import Any

from controller.config import daemon, floor as floor_schema, room as room_schema
from controller.config.console import default_console
from controller.config.display import ADDRESSES, BUS1_PINS, DISPLAY
from controller.config.schema import Key, Section, show_value

HEADER = ("# Written by `tablectl setup` from the configuration's schema (docs/configuration.md lists every key).\n"
          "# Yours to edit: setup never overwrites a file edited since it wrote it (it shows the difference).\n")


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)  # (a TOML basic string is a JSON string for what setup writes)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise TypeError(f"no TOML for {value!r}")


def _comment_default(key: Key) -> str:
    if key.shown:
        default = key.shown.strip("`")
    elif key.default is None or key.default in ({}, ""):
        default = "none"
    else:
        default = show_value(key.default, 60)
    note = f"  ({key.doc})" if key.doc else ""
    return f"# {key.name}: default {default}{note}"


def section_text(section: Section, values: Mapping[str, Any], *, others: bool = True, note: str = "") -> str:
    """``[section]`` with ``values`` set and (``others``) every other key of the schema as a
    comment: its default and what it does."""
    head = f"[{section.name}]"
    doc = note or section.doc
    lines = [f"{head}{'  # ' + doc if doc else ''}"]
    for key in section.keys:
        if key.name == "*" or isinstance(key.default, dict) and key.name not in values:
            continue
        if key.name in values:
            lines.append(f"{key.name} = {toml_value(values[key.name])}")
        elif others:
            lines.append(_comment_default(key))
    return "\n".join(lines) + "\n"


def table_of(name: str, entries: Iterable[tuple[Any, Any]], note: str = "") -> str:
    lines = [f"[{name}]{'  # ' + note if note else ''}"]
    lines += [f"{k} = {toml_value(v)}" if str(k).isidentifier() or str(k).isdigit() else f"{json.dumps(str(k))} = "
              f"{toml_value(v)}" for k, v in entries]
    return "\n".join(lines) + "\n"


def console_layout(*, seats: list[int], display: bool, pin_factory: str) -> dict[str, Any]:
    """The recommended console (docs/console.md), its seat LEDs for ``seats`` only; with a
    display, the two buttons on BCM 2 and 3 (the I2C bus) moved to the pins the seat LEDs of the
    seats not played leave free (the highest seat first), or, at a table of nine or ten seats, to
    the LEDs of seats 10 and 9, which then have none."""
    doc = tomllib.loads(default_console(pin_factory=pin_factory))
    c = doc["console"]
    leds: dict[str, int] = c["seat_leds"]
    free = [leds.pop(s) for s in sorted(leds, key=int, reverse=True) if int(s) not in seats]
    if display:
        taken = sorted(((p, name) for name, p in c["buttons"].items() if p in BUS1_PINS))
        for _, name in taken:
            if not free:  # (nine or ten seats: the highest seats' LEDs give their pins)
                top = max(leds, key=int)
                free.append(leds.pop(top))
            c["buttons"][name] = free.pop(0)
    return doc


def console_text(layout: dict[str, Any], *, display: bool, pin_note: str) -> str:
    c = layout["console"]
    top = {k: v for k, v in c.items() if not isinstance(v, dict)}
    out = [f"[console]  # the dealer's console, the recommended layout (docs/console.md){pin_note}"]
    out += [f"{k} = {toml_value(v)}" for k, v in top.items()]
    moved = "  # moved off BCM 2 and 3: the display's I2C bus" if display else ""
    notes = {"buttons": "button = BCM pin" + moved, "shift": "with shift held, the button gives",
             "long": "a long press of the button gives", "leds": "ready (green), prompt (amber), alert (red)",
             "seat_leds": "seat = BCM pin of its LED"}
    for name in ("buttons", "shift", "long", "leds", "seat_leds"):
        out.append("")
        out.append(table_of(f"console.{name}", c[name].items(), notes[name]).rstrip("\n"))
    return "\n".join(out) + "\n"


def table_config(*, seats: list[int], game: str, shuffler: bool, display: tuple[str, int] | None, pin_factory: str,
                 pin_note: str = "", room: Mapping[str, Any] | None = None, reader: str = "feig") -> str:
    """The table's ``tablectl.toml`` (docs/configuration.md). ``reader``: ``feig`` (a FEIG reader
    and its multiplexer) or ``bridge`` (our bridge board: it answers a cycle in up to a second,
    docs/protocols/bridge.md, so its answer timeout is 2 s)."""
    parts = [HEADER]
    parts.append(section_text(daemon.TABLE, {"game": game, "seats": seats}))
    if reader == "bridge":
        parts.append(section_text(daemon.READER, {"driver": "bridge", "port": "/dev/tablectl/reader",
                                                  "answer_timeout": 2.0},
                                  note="our bridge board (docs/protocols/bridge.md)"))
    else:
        parts.append(section_text(daemon.READER, {"driver": "feig", "port": "/dev/tablectl/reader"},
                                  note="the RFID reader (docs/reader-link.md)"))
    if shuffler:
        parts.append(section_text(daemon.SHUFFLER, {"driver": "tablectl", "port": "/dev/tablectl/shuffler"},
                                  note="the shuffler's bridge board (docs/protocols/shuffler.md)"))
    antennas = [(s, f"seat:{s}") for s in seats] + [(11, "board"), (12, "burn"), (13, "muck")]
    parts.append(table_of("antennas", antennas, "antenna = zone: check each with `tablectl tags` (docs/install.md)"))
    parts.append("# [[decks]]: `tablectl register --deck A --back red --out /etc/tablectl/decks/A.txt` prints the "
                 "lines to add here\n")
    parts.append(section_text(daemon.JOURNAL, {"path": "/var/lib/tablectl/journal.sqlite3"}))
    parts.append(section_text(daemon.OUTPUTS, {"feed": "/run/tablectl/feed.jsonl",
                                               "control": "/run/tablectl/control.sock"},
                              note="the floor's feed and the control socket (docs/daemon.md)"))
    parts.append(section_text(daemon.CONTROL, {"group": "tablectl", "manifests": "decks"},
                              note="who may use the control socket; manifests: /etc/tablectl/decks"))
    parts.append(console_text(console_layout(seats=seats, display=display is not None, pin_factory=pin_factory),
                              display=display is not None, pin_note=pin_note))
    if display is not None:
        kind, address = display
        values: dict[str, Any] = {"kind": kind, "bus": 1}
        if address != ADDRESSES[kind]:
            values["address"] = address
        parts.append(section_text(DISPLAY, values, note="the dealer's display (docs/console.md)"))
    if room is not None:
        parts.append(room_section(room))
    return "\n".join(parts)


def room_section(room: Mapping[str, Any]) -> str:
    """``[room]`` as setup writes it, from the bundle's names (docs/room.md)."""
    return section_text(room_schema.ROOM, dict(room), note="the room link (docs/room.md)")


def put_section(text: str, name: str, section: str) -> str:
    """``text`` (a TOML file) with its ``[name]`` table (its header and every line up to the next
    header) replaced by ``section``, or ``section`` added at its end; every other line kept.

    >>> print(put_section('[table]\\nseats = [1]\\n\\n[room]\\nroom = "old"\\n\\n[[decks]]\\nid = "A"\\n', "room",
    ...                   '[room]\\nroom = "main"\\n'), end="")
    [table]
    seats = [1]
    <BLANKLINE>
    [room]
    room = "main"
    <BLANKLINE>
    [[decks]]
    id = "A"
    >>> print(put_section('[table]\\nseats = [1]\\n', "room", '[room]\\nroom = "main"\\n'), end="")
    [table]
    seats = [1]
    <BLANKLINE>
    [room]
    room = "main"
    """
    header = re.compile(rf"^\[{re.escape(name)}\][^\n]*\n(?:(?!\[)[^\n]*\n?)*", re.MULTILINE)
    m = header.search(text)
    if m is None:
        return text.rstrip("\n") + "\n\n" + section
    tail = text[m.end():]
    return text[:m.start()] + section + ("\n" + tail if tail else "")


def floor_config(*, broker: str, room: str, ca_file: str | None, listen: str = "127.0.0.1", port: int = 8080) -> str:
    """The floor's ``floor.toml`` (docs/floor.md): its database absolute, in the unit's
    StateDirectory (``/var/lib/tablectl-floor``), which the unit can write."""
    values: dict[str, Any] = {"broker": broker, "username": "floor", "password_file": "floor.password",
                              "room": room, "database": "/var/lib/tablectl-floor/floor.db", "listen": listen,
                              "port": port}
    if ca_file:
        values["ca_file"] = ca_file
    return HEADER + "\n" + section_text(floor_schema.FLOOR, values, note="the floor's service (docs/floor.md)")
