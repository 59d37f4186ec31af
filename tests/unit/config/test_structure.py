"""A tournament's structure file (controller/config/structure.py) and ``[floor.tournaments.NAME]``
(controller/config/floor.py): checked as every configuration is, one line naming the file and the
key on a bad value; the levels numbered as the players know them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.config.floor import MAX_ROOM_TABLES, parse_floor_text
from controller.config.schema import ConfigError
from controller.config.structure import MAX_BYTES, load_structure, parse_structure_text
from rig.paths import ROOT

EXAMPLE = ROOT / "docs" / "structure-example.toml"
LEVEL = "[[levels]]\nminutes = 20\nsmall_blind = 25\nbig_blind = 50\n"
BREAK = '[[levels]]\nkind = "break"\nminutes = 10\n'


def test_the_example_in_the_docs_is_a_structure_numbered_as_the_players_know_it():
    s = load_structure(EXAMPLE)
    # (written out by hand from docs/structure-example.toml: 12 levels, a break after the 4th and the 8th)
    assert [(x.kind, x.n) for x in s.steps] == [
        ("level", 1), ("level", 2), ("level", 3), ("level", 4), ("break", 5), ("level", 5), ("level", 6),
        ("level", 7), ("level", 8), ("break", 9), ("level", 9), ("level", 10), ("level", 11), ("level", 12)]
    assert (s.steps[0].small_blind, s.steps[0].big_blind, s.steps[0].ante, s.steps[0].seconds) == (25, 50, 0, 1200.0)
    assert (s.steps[5].big_blind, s.steps[5].ante) == (200, 25)
    assert s.steps[4].seconds == 600.0 and s.steps[4].big_blind is None
    assert s.steps[11].game == "holdem" and s.steps[12].game is None
    assert s.src == str(EXAMPLE)


def test_a_mixed_event_names_each_levels_game_and_minutes_take_fractions():
    s = parse_structure_text('[[levels]]\nminutes = 7.5\nsmall_blind = 10\nbig_blind = 20\ngame = "razz"\n'
                             '[[levels]]\nminutes = 30\nsmall_blind = 0\nbig_blind = 40\nante = 5\ngame = "stud"\n',
                             src="s.toml")
    assert [(x.game, x.seconds, x.small_blind) for x in s.steps] == [("razz", 450.0, 10), ("stud", 1800.0, 0)]


@pytest.mark.parametrize("text, message", [
    (LEVEL.replace("big_blind = 50", "big_blind = 0"),
     "s.toml: levels[1].big_blind: want a whole number from 1 to 1000000000000 chips, got 0"),
    (LEVEL + LEVEL + LEVEL.replace("big_blind = 50", "big_blind = 1.5"),
     "s.toml: levels[3].big_blind: want a whole number from 1 to 1000000000000 chips, got 1.5"),
    (LEVEL + LEVEL.replace("small_blind = 25", "small_blind = 75"), "s.toml: levels[2].small_blind: over the big "
                                                                    "blind (50)"),
    (LEVEL.replace("minutes = 20", "minutes = 0"), "s.toml: levels[1].minutes: want a finite number from 1 to 600 "
                                                   "minutes, got 0"),
    (LEVEL.replace("minutes = 20", "minutes = nan"), "s.toml: levels[1].minutes: want a finite number"),
    (LEVEL.replace("minutes = 20\n", ""), "s.toml: levels[1].minutes: missing"),
    (LEVEL.replace("big_blind = 50\n", ""), "s.toml: levels[1].big_blind: missing: a level has its blinds"),
    (LEVEL.replace("small_blind = 25\n", ""), "s.toml: levels[1].small_blind: missing: a level has its blinds"),
    (LEVEL + "ante = -1\n", "s.toml: levels[1].ante: want a whole number from 0 to 1000000000000 chips, got -1"),
    (LEVEL + 'game = "poker"\n', "s.toml: levels[1].game: want a game the tables deal (holdem, omaha"),
    (LEVEL + "colour = 3\n", "s.toml: levels[1].colour: unknown key"),
    (LEVEL + 'kind = "pause"\n', "s.toml: levels[1].kind: want one of level, break, got 'pause'"),
    (BREAK + "big_blind = 100\n" + LEVEL, "s.toml: levels[1].big_blind: a break has no blinds, ante or game"),
    (LEVEL + BREAK, "s.toml: levels[2]: the last is a level, not a break"),
    ("", "s.toml: levels: want at least one [[levels]]"),
    ("levels = 3\n", "s.toml: levels: want at least one [[levels]]"),
    ("title = 'x'\n" + LEVEL, "s.toml: title: unknown key"),
    ("levels = [3]\n", "s.toml: levels[1]: want a table ([[levels]])"),
    ("[[levels]\n", "s.toml: not valid TOML"),
])
def test_a_bad_value_is_one_line_naming_the_file_the_level_and_the_key(text, message):
    with pytest.raises(ConfigError) as err:
        parse_structure_text(text, src="s.toml")
    said = str(err.value)
    assert said.startswith(message) and "\n" not in said


def test_a_structure_file_that_is_not_one_is_refused_in_one_line(tmp_path):
    for name, data, message in (("big.toml", b"#" * (MAX_BYTES + 1), "over 1024 KiB"),
                                ("latin.toml", LEVEL.encode() + b"# caf\xe9\n", "not UTF-8 text"),
                                ("gone.toml", None, "cannot read it")):
        path = tmp_path / name
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(ConfigError) as err:
            load_structure(path)
        assert str(err.value).startswith(f"{path}: {message}")


def floor_file(tmp_path: Path, extra: str, structure: str = LEVEL + BREAK + LEVEL) -> Path:
    (tmp_path / "s.toml").write_text(structure)
    path = tmp_path / "floor.toml"
    path.write_text('[floor]\nbroker = "mqtt://127.0.0.1"\n[floor.sections]\n"Pit A" = ["main/t3", "t4"]\n'
                    '"Pit B" = ["t9"]\n' + extra)
    return path


def test_a_tournament_names_its_structure_tables_sections_and_break_order(tmp_path):
    path = floor_file(tmp_path, '[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["main/t1", "t2"]\n'
                                'sections = ["Pit A"]\nbreak_order = ["t4", "main/t1"]\nseats = 10\n'
                                '[floor.tournaments."ladies-1"]\nstructure = "s.toml"\ntables = ["t9b"]\n'
                                'title = "Ladies\' event"\n')
    cfg = parse_floor_text(path.read_text(), path=path)
    main = cfg.tournaments["main"]
    assert (main.title, main.tables, main.sections, main.break_order, main.seats) == (
        "main", ("main/t1", "t2"), ("Pit A",), ("t4", "main/t1"), 10)
    assert [s.kind for s in main.structure.steps] == ["level", "break", "level"]
    assert cfg.tournaments["ladies-1"].title == "Ladies' event" and cfg.tournaments["ladies-1"].seats == 9
    assert [cfg.tournament_of(r, t) for r, t in (("main", "t1"), ("east", "t1"), ("east", "t2"), ("main", "t3"),
                                                 ("east", "t4"), ("main", "t9b"), ("main", "t9"))] == [
        "main", None, "main", "main", "main", "ladies-1", None]


@pytest.mark.parametrize("extra, message", [
    ('[floor.tournaments.main]\ntables = ["t1"]\n',
     "[floor.tournaments.main] structure: missing: the tournament's structure file"),
    ('[floor.tournaments.main]\nstructure = "nope.toml"\ntables = ["t1"]\n',
     "[floor.tournaments.main] structure: {dir}/nope.toml: no such file"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\n', "[floor.tournaments.main] tables: a tournament has tables"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1", "a/b/c"]\n',
     "[floor.tournaments.main] tables: want \"room/table\" or \"table\", got 'a/b/c'"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = [1]\n',
     "[floor.tournaments.main] tables: want a list of up to 1000 names"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1", "t1"]\n',
     "[floor.tournaments.main] tables: 't1' is named twice"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\nsections = ["Pit Z"]\n',
     "[floor.tournaments.main] sections: no section 'Pit Z' in [floor.sections]"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1"]\nbreak_order = ["t2"]\n',
     "[floor.tournaments.main] break_order: 't2' is not one of its tables"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1"]\nseats = 11\n',
     "[floor.tournaments.main] seats: want a whole number from 2 to 10 seats, got 11"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1"]\nspeed = 2\n',
     "[floor.tournaments.main] speed: unknown key"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1"]\ntitle = ""\n',
     "[floor.tournaments.main] title: want 1 to 60 printable characters"),
    ('[floor.tournaments."a b"]\nstructure = "s.toml"\ntables = ["t1"]\n',
     "[floor] tournaments.a b: want a name of letters, digits"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["main/t1"]\n'
     '[floor.tournaments.side]\nstructure = "s.toml"\ntables = ["t1"]\n',
     "[floor.tournaments.side] tables: t1 is in tournament 'main' already: a table plays in one"),
    ('[floor.tournaments.main]\nstructure = "s.toml"\nsections = ["Pit A"]\n'
     '[floor.tournaments.side]\nstructure = "s.toml"\ntables = ["east/t4"]\n',
     "[floor.tournaments.side] tables: east/t4 is in tournament 'main' already"),
    ("[floor]\ntournaments = 3\n", "[floor] tournaments: want up to 20 tournaments"),
])
def test_a_bad_tournament_is_one_line_naming_the_file_and_the_key(tmp_path, extra, message):
    if extra.startswith("[floor]\n"):
        path = tmp_path / "floor.toml"
        path.write_text('[floor]\nbroker = "mqtt://127.0.0.1"\n' + extra.removeprefix("[floor]\n"))
    else:
        path = floor_file(tmp_path, extra)
    with pytest.raises(ConfigError) as err:
        parse_floor_text(path.read_text(), path=path)
    said = str(err.value)
    assert said.startswith(f"{path}: ") and message.format(dir=tmp_path) in said and "\n" not in said


def test_a_tournament_of_600_tables_is_taken_and_one_past_the_largest_room_is_refused(tmp_path):
    """Issue 38: a tournament series' several hundred tables in one room; every list of tables is
    sized for the largest room (MAX_ROOM_TABLES, 1,000), one more refused naming the key and the file."""
    tables = [f"main/t{i}" for i in range(1, 601)]
    path = floor_file(tmp_path, f'[floor.tournaments.main]\nstructure = "s.toml"\ntables = {json.dumps(tables)}\n'
                                f'break_order = {json.dumps(tables[::-1])}\n')
    cfg = parse_floor_text(path.read_text(), path=path)
    assert len(cfg.tournaments["main"].tables) == 600 and cfg.tournament_of("main", "t600") == "main"
    assert cfg.tournament_of("main", "t601") is None and cfg.tournament_of("east", "t4") is None
    for key in ("tables", "break_order"):
        many = [f"main/t{i}" for i in range(1, MAX_ROOM_TABLES + 2)]
        extra = (f'[floor.tournaments.main]\nstructure = "s.toml"\ntables = {json.dumps(many[:1])}\n'
                 f"{key} = {json.dumps(many)}\n")
        path = floor_file(tmp_path, extra.replace("tables = [\"main/t1\"]\ntables", "tables"))
        with pytest.raises(ConfigError) as err:
            parse_floor_text(path.read_text(), path=path)
        assert str(err.value) == (f"{path}: [floor.tournaments.main] {key}: want a list of up to "
                                  f"{MAX_ROOM_TABLES} names")


def test_a_section_of_a_whole_room_is_taken_and_one_past_it_refused(tmp_path):
    path = tmp_path / "floor.toml"
    head = '[floor]\nbroker = "mqtt://127.0.0.1"\n[floor.sections]\n'
    path.write_text(head + f'"Pit A" = {json.dumps([f"t{i}" for i in range(1, 601)])}\n'
                    f'"Pit B" = ["main/t7", "t601"]\n')
    cfg = parse_floor_text(path.read_text(), path=path)
    # (the first section naming a table, as the file orders them: "t7" in Pit A before main/t7 in Pit B)
    assert [cfg.section_of("main", t) for t in ("t1", "t600", "t601", "t7", "t999")] == [
        "Pit A", "Pit A", "Pit B", "Pit A", None]
    path.write_text(head + f'"Pit A" = {json.dumps([f"t{i}" for i in range(1, MAX_ROOM_TABLES + 2)])}\n')
    with pytest.raises(ConfigError) as err:
        parse_floor_text(path.read_text(), path=path)
    assert str(err.value) == (f'{path}: [floor] sections.Pit A: want a list of 1 to {MAX_ROOM_TABLES} tables, '
                              f'"room/table" or "table"')


def test_a_bad_structure_stops_the_floor_naming_the_structure_file(tmp_path):
    path = floor_file(tmp_path, '[floor.tournaments.main]\nstructure = "s.toml"\ntables = ["t1"]\n',
                      structure=LEVEL + LEVEL + LEVEL.replace("big_blind = 50", "big_blind = 10"))
    with pytest.raises(ConfigError) as err:
        parse_floor_text(path.read_text(), path=path)
    assert str(err.value) == f"{tmp_path / 's.toml'}: levels[3].small_blind: over the big blind (10)"
