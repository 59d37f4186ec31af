"""Every numeric setting has bounds: finite, in the range docs/configuration.md states, the range
in the error, the error naming the file and the key (issue 12).

The oracle is the docs' table "Numeric bounds", read here: a key the loader reads as a number
without a row there, or a row without a key, fails.
"""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from controller.config import daemon as config_mod
from controller.config.daemon import BOUNDS, ConfigError, parse_config
from rig.paths import ROOT

DOC = ROOT / "docs" / "configuration.md"
ROW = re.compile(r"^\| `\[([\w.]+)\] (\S+)` \| ([^|]+) \|")


def doc_bounds() -> dict[str, tuple[str, ...]]:
    """The docs' table: ``section.key`` -> (lo, hi, whole) as written, or the choices."""
    text = DOC.read_text()
    table = text[text.index("## Numeric bounds"):]
    table = table[: table.index("\n## ")]
    out: dict[str, tuple[str, ...]] = {}
    for line in table.splitlines():
        m = ROW.match(line)
        if m:
            section, key, rng = m.group(1), m.group(2), m.group(3).strip()
            out[f"{section}.{key}"] = tuple(rng.split(", ")) if ", " in rng else \
                (*rng.removesuffix(" (whole)").split(" to "), "whole" if rng.endswith("(whole)") else "number")
    return out


DOC_BOUNDS = doc_bounds()


def test_the_table_of_bounds_is_the_docs_table():
    assert len(DOC_BOUNDS) >= 29
    assert set(DOC_BOUNDS) == set(BOUNDS)


def test_every_number_in_the_docs_example_has_bounds():
    """The docs' full example lists every key: each numeric value's key has a row of bounds."""
    text = DOC.read_text()
    example = tomllib.loads(text[text.index("```toml") + 7: text.index("```\n", text.index("```toml"))])
    numeric: list[str] = []

    def walk(section: str, table: dict) -> None:
        for key, value in table.items():
            if isinstance(value, dict):
                walk(f"{section}.{key}" if section else key, value)
            elif section == "antennas" or section == "":
                continue  # ([antennas] keys are numbers, their values zones; [[decks]] holds no number)
            elif isinstance(value, list) and value and all(type(v) is int for v in value) or \
                    type(value) in (int, float):
                numeric.append(f"{section}.{key}")

    walk("", example)
    assert len(numeric) > 20
    for name in numeric:
        section, key = name.rsplit(".", 1)
        assert f"{section}.{key}" in BOUNDS or f"{section}.*" in BOUNDS, f"{name} has no bounds"


def test_a_numeric_key_without_bounds_fails_every_load(monkeypatch, tmp_path):
    """The loader reads numbers only through the table: a key left out of it is found at once,
    even when the file does not set it."""
    monkeypatch.delitem(BOUNDS, "reader.max_timeouts")
    with pytest.raises(LookupError, match=r"\[reader\] max_timeouts: a numeric key without bounds"):
        parse_config('[reader]\nport = "loop://"\n', path=tmp_path / "t.toml")


# -- every key, every kind of bad value ----------------------------------------------------------

#: the key each ``section.*`` bound is tried with
STAR_KEYS = {"console.buttons": "ack", "console.leds": "ready", "console.seat_leds": "1", "reader.levels": "1",
             "reader.capacity": "1"}


def place(name: str, literal: str) -> str:
    """A small configuration that sets ``name`` to ``literal`` (TOML) and nothing else odd."""
    section, key = name.rsplit(".", 1)
    reader = '[reader]\nport = "loop://"\n'
    if name == "table.seats":
        return f"[table]\nseats = [{literal}, 5]\n{reader}"
    if name == "reader.antenna_select_bytes":  # (one byte selects antennas 1 to 8: a small table)
        return (f'[table]\nseats = [1, 2, 3]\n[antennas]\n1 = "seat:1"\n2 = "seat:2"\n3 = "seat:3"\n'
                f'6 = "board"\n7 = "burn"\n8 = "muck"\n{reader}{key} = {literal}\n')
    if section == "reader":
        return f'[reader]\nport = "loop://"\n{key} = {literal}\n'
    if section == "shuffler":
        return f'{reader}[shuffler]\nport = "loop://"\n{key} = {literal}\n'
    if section == "journal":
        return f'{reader}[journal]\npath = "journal.sqlite3"\n{key} = {literal}\n'
    if section == "room":  # (the room link needs its broker, names and the journal, its outbox)
        return (f'{reader}[journal]\npath = "journal.sqlite3"\n[room]\nbroker = "mqtt://127.0.0.1:1883"\n'
                f'room = "r"\ntable = "t"\n{key} = {literal}\n')
    if section == "display":  # (a display needs a console; 128 and 64 are an OLED's, 16, 20, 2, 4 an LCD's)
        kind = "ssd1306" if literal in ("128", "64") else "hd44780"
        return f'{reader}[console]\npin_factory = "mock"\n[display]\nkind = "{kind}"\n{key} = {literal}\n'
    extra = "hold_time = 5\n" if name == "console.bounce_time" else ""  # (hold must be well over bounce)
    if key == "*":
        key = STAR_KEYS[section]
    return f"{reader}[{section}]\n{extra}{key} = {literal}\n"


def shown_key(name: str) -> str:
    section, key = name.rsplit(".", 1)
    if key == "*":
        key = STAR_KEYS[section]
    return f"[{section}] {key}"


def cases() -> list[tuple[str, str, str]]:
    """(key, kind of case, TOML literal) for every key of the docs' table."""
    out = []
    for name, spec in DOC_BOUNDS.items():
        if len(spec) == 3 and spec[2] in ("whole", "number"):
            lo, hi, kind = spec
            whole = kind == "whole"
            step = 1 if whole else 0.001
            below = str(int(lo) - 1) if whole else repr(round(float(lo) - step, 6))
            above = str(int(hi) + 1) if whole else repr(round(float(hi) + step, 6))
            edges = [lo, hi]
            if name == "reader.address":
                # 255, FEIG's broadcast, has a message of its own (tests/unit/firmware_bridge/test_reader_address.py)
                above = "256"
        else:
            choices = [int(c) for c in spec]
            below, above, edges = str(min(choices) - 1), str(max(choices) + 1), [spec[0], spec[-1]]
            between = next(n for n in range(min(choices), max(choices)) if n not in choices)
            out.append((name, "not-a-choice", str(between)))
        bad = [("nan", "nan"), ("inf", "inf"), ("-inf", "-inf"), ("below", below), ("above", above),
               ("bool", "true"), ("string", '"30"')]
        if spec[-1] == "whole":
            bad.append(("fraction", "3.5"))
            bad.append(("huge", str(2**63 - 1)))
        out += [(name, kind, lit) for kind, lit in bad]
        out += [(name, "edge", e) for e in edges]
    return out


CASES = cases()


def test_every_key_is_tried():
    assert {c[0] for c in CASES} == set(BOUNDS)
    assert len(CASES) >= 29 * 9


@pytest.mark.parametrize("name,kind,literal", CASES, ids=[f"{c[0]}-{c[1]}-{c[2]}" for c in CASES])
def test_a_numeric_key_is_bounded(tmp_path, name, kind, literal):
    path = tmp_path / "tablectl.toml"
    text = place(name, literal)
    if kind == "edge":
        cfg = parse_config(text, path=path)  # both ends are accepted
        assert cfg is not None
        return
    if name == "control.group" and kind == "string":
        literal = '"no-such-group-tablectl"'  # (a name is allowed: it must exist)
        with pytest.raises(ConfigError, match="no group 'no-such-group-tablectl' on this system"):
            parse_config(place(name, literal), path=path)
        return
    with pytest.raises(ConfigError) as info:
        parse_config(text, path=path)
    msg = str(info.value)
    if name.startswith("console.") and DOC_BOUNDS[name][0] == "2" and kind == "below":
        # pin 1, below the range, is refused with its own reason
        assert msg == f"{path}: {shown_key(name)}: pin 1 is reserved: the HAT ID EEPROM's clock line (ID_SC)"
        return
    spec = DOC_BOUNDS[name]
    written = f"[{literal}, 5]" if name == "table.seats" else literal
    assert "\n" not in msg
    assert msg.startswith(f"{path}: {shown_key(name)} = {written}: "), msg
    if len(spec) == 3 and spec[2] in ("whole", "number"):
        assert f"must be a {'whole' if spec[2] == 'whole' else 'finite'} number from {spec[0]} to {spec[1]}" in msg
    else:
        assert f"must be one of {', '.join(spec)}" in msg


def test_the_issue_s_values_are_refused(tmp_path):
    """The three values of the issue, as a technician would write them."""
    path = tmp_path / "tablectl.toml"
    for text, want in (
        ('[reader]\nport = "loop://"\nanswer_timeout = nan\n',
         f"{path}: [reader] answer_timeout = nan: must be a finite number from 0.05 to 10 s"),
        ('[reader]\nport = "loop://"\n[journal]\npath = "j.sqlite3"\nretention_days = nan\n',
         f"{path}: [journal] retention_days = nan: must be a finite number from 1 to 3650 days"),
        (f'[table]\nconfirm_cycles = {2**63 - 1}\n[reader]\nport = "loop://"\n',
         f"{path}: [table] confirm_cycles = 9223372036854775807: must be a whole number from 1 to 20 "
         f"reader cycles"),
    ):
        with pytest.raises(ConfigError) as info:
            parse_config(text, path=path)
        assert str(info.value) == want


def test_a_long_number_is_quoted_shortened(tmp_path):
    with pytest.raises(ConfigError) as info:
        parse_config(f'[reader]\nport = "loop://"\naddress = {"9" * 4000}\n', path=tmp_path / "t.toml")
    assert str(info.value) == (f"{tmp_path / 't.toml'}: [reader] address = 999999999999999999999... (4000 digits): "
                               f"must be a whole number from 0 to 254 (the reader's bus address, COM-ADR)")


def test_an_integer_for_a_float_key_is_taken_as_seconds(tmp_path):
    cfg = parse_config('[reader]\nport = "loop://"\nanswer_timeout = 2\n', path=tmp_path / "t.toml")
    assert cfg.reader.answer_timeout == 2.0 and type(cfg.reader.answer_timeout) is float


def test_the_module_has_no_other_numeric_reader():
    """No ``get(key, int/float)`` left: numbers go through the bounds."""
    for path in (Path(config_mod.__file__), Path(config_mod.__file__).with_name("console.py")):
        text = path.read_text()
        assert not re.search(r"\.get\(\"\w+\", \(?(int|float)", text), path
        assert ".positive(" not in text, path
