"""The configuration declared once (issue 30): one schema of keys, types, bounds and defaults
(controller/config/schema.py) that every section's parser reads through, the floor's included; the
parsers import the schema, not each other's private classes; the devices' drivers chosen by name."""

from __future__ import annotations

import ast
import dataclasses
import sys
from pathlib import Path

import pytest

import controller.config.schema as schema
from controller.config import console, daemon, display, floor, room, structure
from controller.config.daemon import ConfigError, ReaderConfig, ShufflerConfig, parse_config
from controller.config.floor import parse_floor_text
from controller.config.schema import TABLECTL_TOML, Bound, Key, Section, check
from controller.core.settings import RuleSettings

CONFIG = Path(schema.__file__).parent
READER = '[reader]\nport = "loop://"\n'


def imports_of(path: Path) -> set[str]:
    """The modules a file imports, anywhere in it (inside functions too)."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_the_schema_is_pure_python_of_the_standard_library():
    """No compiled dependency on the Pi: the standard library, and the core's text helpers."""
    imported = imports_of(CONFIG / "schema.py") - {"__future__", "controller.core.text"}
    assert imported and all(name.split(".")[0] in sys.stdlib_module_names for name in imported), imported


def test_the_parsers_import_no_cycle_and_no_private_class():
    """schema.py imports no parser; the parsers import it (and daemon.py the section parsers it
    calls): no circle, and no ``_Section`` anywhere."""
    graph = {p.stem: {m.removeprefix("controller.config.") for m in imports_of(p) if m.startswith("controller.config.")}
             for p in CONFIG.glob("*.py")}
    assert graph["schema"] == set()
    for name in ("console", "display", "room", "floor"):
        assert "daemon" not in graph[name], name
        assert "schema" in graph[name], name

    def reaches(a: str, b: str, seen: frozenset[str] = frozenset()) -> bool:
        return any(n == b or (n not in seen and reaches(n, b, seen | {n})) for n in graph.get(a, ()))

    assert not [n for n in graph if reaches(n, n)]
    assert not [p.name for p in CONFIG.glob("*.py") if "_Section" in p.read_text(encoding="utf-8")]


def test_the_floor_reads_its_file_through_the_same_schema():
    assert floor.FLOOR.file is floor.FLOOR_TOML and floor.FLOOR_TOML is not TABLECTL_TOML
    assert set(floor.FLOOR_TOML.bounds) == {"floor.port", "floor.session_minutes", "floor.command_timeout",
                                            "floor.login_delay", "floor.tournaments.NAME.seats"}
    assert not [name for name in daemon.BOUNDS if name.startswith("floor.")]
    with pytest.raises(ConfigError, match=r"f\.toml: \[floor\] login_delay: want a whole number from 1 to 60 s, "
                                          r"got 0\.5$"):
        parse_floor_text('[floor]\nbroker = "mqtt://127.0.0.1"\nlogin_delay = 0.5\n', path=Path("f.toml"))


def every_section() -> list[Section]:
    return [*daemon.SECTIONS, *floor.SECTIONS, *structure.SECTIONS]


@pytest.mark.parametrize("section", every_section(), ids=lambda s: s.name)
def test_every_default_is_a_value_the_schema_accepts(section):
    """A default the checks would refuse is a bug in the declaration (a required key has none)."""
    for key in section.keys:
        if key.name != "*" and key.default is not None and not key.required:
            assert check(key, key.bound, key.default) == key.default, key.name


def test_the_sections_of_the_file_are_the_console_s_display_s_and_room_s_too():
    names = [s.name for s in daemon.SECTIONS]
    assert len(names) == len(set(names))
    assert {"console", "console.buttons", "display", "room"} <= set(names)
    assert console.CONSOLE in daemon.SECTIONS and display.DISPLAY in daemon.SECTIONS and room.ROOM in daemon.SECTIONS
    assert set(daemon.BOUNDS) == {f"{s.name}.{k.name}" for s in daemon.SECTIONS for k in s.keys if k.bound}


def test_an_empty_file_gives_the_schema_s_defaults(tmp_path):
    cfg = parse_config(READER, path=tmp_path / "t.toml")
    assert cfg.reader == dataclasses.replace(ReaderConfig(), port="loop://")
    assert cfg.table.rules == RuleSettings()  # (the rules' defaults: the core's RULE_SETTINGS and RuleSettings)
    assert cfg.outputs == daemon.OutputConfig() and cfg.control == daemon.ControlConfig()


def test_the_drivers_are_chosen_by_name(tmp_path):
    """``[reader] driver`` and ``[shuffler] driver``: a name among the drivers, "feig" and
    "tablectl" by default; the daemon reads ``cfg.reader.driver`` and ``cfg.shuffler.driver``."""
    path = tmp_path / "t.toml"
    cfg = parse_config(READER + '[shuffler]\nport = "loop://"\n', path=path)
    assert (cfg.reader.driver, cfg.shuffler.driver) == ("feig", "tablectl")
    cfg = parse_config('[reader]\ndriver = "feig"\nport = "loop://"\n[shuffler]\ndriver = "tablectl"\n', path=path)
    assert (cfg.reader.driver, cfg.shuffler.driver) == ("feig", "tablectl")
    assert ShufflerConfig().driver == "tablectl" and ReaderConfig().driver == "feig"
    for text, message in (
        ('[reader]\ndriver = "impinj"\n', "[reader] driver: 'impinj' is not a reader driver (drivers: feig, bridge)"),
        (READER + '[shuffler]\ndriver = "shufflemaster"\n',
         "[shuffler] driver: 'shufflemaster' is not a shuffler driver (drivers: tablectl)"),
        (READER + "[shuffler]\ndriver = 1\n", "[shuffler] driver: want a string, got 1"),
    ):
        with pytest.raises(ConfigError) as err:
            parse_config(text, path=path)
        assert str(err.value) == f"{path}: {message}"


def test_a_number_without_bounds_cannot_be_declared():
    with pytest.raises(TypeError, match="a number needs a Bound"):
        Key("seconds", 3)
    with pytest.raises(TypeError, match="only with a Bound"):
        Key("seconds", None, kind=(int,))


def test_a_key_declared_twice_in_a_file_is_refused():
    file = schema.File("x.toml")
    Section("s", (Key("n", 1, bound=Bound(0, 2, "")),), file=file)
    with pytest.raises(ValueError, match=r"\[s\] n: declared twice in x.toml"):
        Section("s", (Key("n", 1, bound=Bound(0, 2, "")),), file=file)


THINGS = Bound(1, 3, "things", whole=True)
SECTION = Section("s", (Key("word", "a", choices=("a", "b")),
                        Key("n", 1, bound=THINGS, refused=((0, "0 is no thing"),)),
                        Key("each", [1], bound=Bound(1, 3, "things", whole=True, each=True))))


@pytest.mark.parametrize("data, message", [
    ({"word": 5}, "t.toml: [s] word: want a string, got 5"),
    ({"word": "c"}, "t.toml: [s] word: want one of a, b, got 'c'"),
    ({"n": True}, "t.toml: [s] n = true: must be a whole number from 1 to 3 things"),
    ({"n": 3.0}, "t.toml: [s] n = 3.0: must be a whole number from 1 to 3 things"),
    ({"n": 0}, "t.toml: [s] n: 0 is no thing"),
    ({"each": [1, 9]}, "t.toml: [s] each = [1, 9]: each must be a whole number from 1 to 3 things"),
    ({"each": "x"}, 't.toml: [s] each: want a list, got "x"'),
    ({"x": 1}, "t.toml: [s] x: unknown key (see docs/configuration.md)"),
])
def test_the_validator_s_refusals(data, message):
    with pytest.raises(ConfigError) as err:
        SECTION.read("t.toml", data)
    assert str(err.value) == message


def test_the_validator_s_values():
    values = SECTION.read("t.toml", {"n": 2})
    assert (values["word"], values["n"], values["each"], "n" in values, "word" in values) == ("a", 2, [1], True, False)
    assert values["each"] is not SECTION["each"].default  # (a default list is the section's own copy)
