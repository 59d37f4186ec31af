"""A bad configuration gets one error naming the file, the key and what is wrong."""

from pathlib import Path

import pytest

from controller.config.daemon import ConfigError, load_config, parse_config
from hw_sim.decks import manifest_text


def good(tmp_path: Path, extra: str = "") -> Path:
    (tmp_path / "A.txt").write_text(manifest_text("A"))
    (tmp_path / "B.txt").write_text(manifest_text("B"))
    cfg = tmp_path / "tablectl.toml"
    cfg.write_text(f"""
[table]
game = "omaha"
seats = [1, 2, 4, 6, 9]
button = 9
[reader]
port = "loop://"
[antennas]
1 = "seat:1"
2 = "seat:2"
4 = "seat:4"
5 = "seat:6"
6 = "seat:6"
9 = "seat:9"
11 = "board"
12 = "burn"
13 = "muck"
[[decks]]
id = "A"
back = "red"
manifest = "A.txt"
[[decks]]
id = "B"
back = "blue"
manifest = "B.txt"
{extra}""")
    return cfg


def test_a_good_file_loads(tmp_path):
    c = load_config(good(tmp_path))
    assert c.table.game == "omaha" and c.table.hole_cards == 4
    assert c.table.zones.zone(11) == "board"
    assert [d.id for d in c.decks] == ["A", "B"]
    assert c.registry().lookup("E0040150A05F0100").card == "As"
    assert c.table.rules.late_fault == "proceeds" and c.table.rules.round_done_pad is None  # docs/rules.md §20 defaults


def test_rule_settings_are_read(tmp_path):
    cfg = good(tmp_path, '[rules]\nlate_fault = "dead"\nmuck_retrieval = "never"\nround_done_pad = false\n'
                         'draw_exposed_deal = "misdeal"\n')
    rules = load_config(cfg).table.rules
    assert (rules.late_fault, rules.muck_retrieval, rules.round_done_pad) == ("dead", "never", False)
    assert rules.draw_exposed_deal == "misdeal"  # MISD-009


@pytest.mark.parametrize("old,new,needle", [
    ('game = "omaha"', 'game = "pinochle"', "[table] game: 'pinochle' is not supported"),
    ("seats = [1, 2, 4, 6, 9]", "seats = [1, 1]", "[table] seats: a seat is listed twice"),
    ("seats = [1, 2, 4, 6, 9]", "seats = [0, 11]",
     "[table] seats = [0, 11]: each must be a whole number from 1 to 10 (a seat number)"),
    ('port = "loop://"', 'port = "loop://"\nbaudrate = 12345',
     "[reader] baudrate = 12345: must be one of 4800, 9600, 19200, 38400, 57600, 115200"),
    ('port = "loop://"', 'port = 5', "[reader] port: want a string, got 5"),
    ('port = "loop://"', 'port = "loop://"\nbaudrate = "fast"', '[reader] baudrate = "fast": must be one of 4800'),
    ('manifest = "B.txt"', 'manifest = "B.txt"\n[outputs]\nfeed = "/nonexistent/dir/feed.jsonl"',
     "[outputs] feed: folder /nonexistent/dir does not exist"),
    ('manifest = "B.txt"', 'manifest = "B.txt"\n[outputs]\ncontrol = "nodir/c.sock"',
     "[outputs] control: folder"),
    ('port = "loop://"', 'port = "loop://"\nspeed = 3', "[reader] speed: unknown key"),
    ('11 = "board"', '11 = "table"', "[antennas] unknown zone 'table'"),
    ('manifest = "A.txt"', 'manifest = "nope.txt"', "[decks #1] manifest: cannot read"),
    ('back = "blue"', 'back = ""', "[decks #2] back: every deck needs a back colour"),
    ("[reader]", "[readr]\n[reader]", "[readr]: unknown section"),
    ("[reader]", '[rules]\nlate_fault = "maybe"\n[reader]',
     "[rules] late_fault: want one of proceeds, dead, got 'maybe'"),
    ("[reader]", "[rules]\nseats_max = 12\n[reader]",
     "[rules] seats_max = 12: must be a whole number from 2 to 10 seats"),
    ("[reader]", "[rules]\nround_done_pad = 1\n[reader]",
     "[rules] round_done_pad: want true or false or a string, got 1"),
    ("[reader]", "[rules]\nmuck = 1\n[reader]", "[rules] muck: unknown key"),
    ('9 = "seat:9"', '9 = "seat:8"', "[antennas]: no antenna feeds seat:9 (a map you write replaces the default"),
    ('13 = "muck"', '', "[antennas]: no antenna feeds muck"),
    ("[reader]", '[rules]\nrotate_decks = "daily"\n[reader]', "[rules] rotate_decks: want one of relief, hand"),
    ("[reader]", "[rules]\nshuffler_floor_after = 0\n[reader]",
     "[rules] shuffler_floor_after = 0: must be a finite number from 1 to 3600 s"),
    ('port = "loop://"', 'port = "loop://"\nstrong_rssi = 300',
     "[reader] strong_rssi = 300: must be a whole number from 1 to 255"),
    ("[reader]", '[shuffler]\nport = "loop://"\nbaudrate = 1200\n[reader]',
     "[shuffler] baudrate = 1200: must be one of 9600, 19200"),
    ("[reader]", '[shuffler]\nport = "loop://"\nflavour = 1\n[reader]', "[shuffler] flavour: unknown key"),
])
def test_bad_values_name_file_and_key(tmp_path, old, new, needle):
    cfg = good(tmp_path)
    cfg.write_text(cfg.read_text().replace(old, new, 1))
    with pytest.raises(ConfigError) as exc:
        load_config(cfg)
    assert str(cfg) in str(exc.value)
    assert needle in str(exc.value)


def test_decks_with_one_back_are_refused(tmp_path):
    """DECK-004: the pair must differ at a glance."""
    cfg = good(tmp_path)
    cfg.write_text(cfg.read_text().replace('back = "blue"', 'back = "Red"'))
    with pytest.raises(ConfigError, match=r"\[\[decks\]\] back: decks 'A' and 'B' both have 'Red' backs.*DECK-004"):
        load_config(cfg)


def test_deck_and_shuffler_settings_are_read(tmp_path):
    cfg = good(tmp_path, '[rules]\nrotate_decks = "hand"\nshuffler_floor_after = 12\n'
                         '[shuffler]\nport = "/dev/tablectl/shuffler"\npoll_interval = 0.25\n')
    c = load_config(cfg)
    assert (c.table.rules.rotate_decks, c.table.rules.shuffler_floor_after) == ("hand", 12.0)
    assert c.shuffler is not None and (c.shuffler.port, c.shuffler.poll_interval, c.shuffler.baudrate) == \
        ("/dev/tablectl/shuffler", 0.25, 115200)
    assert load_config(good(tmp_path / "x" if (tmp_path / "x").mkdir() is None else tmp_path)).shuffler is None


def test_invalid_toml_names_the_file(tmp_path):
    with pytest.raises(ConfigError, match=r"x\.toml: not valid TOML"):
        parse_config("[table\n", path=tmp_path / "x.toml")


def test_tablectl_run_refuses_a_bad_file_with_one_line(tmp_path):
    import subprocess
    import sys
    cfg = good(tmp_path)
    cfg.write_text(cfg.read_text().replace("button = 9", "button = 42"))
    r = subprocess.run([sys.executable, "-m", "controller.cli.main", "run", "--config", str(cfg)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"tablectl: {cfg}: [table] button = 42: must be a whole number from 1 to 10 (a seat number)"]


def test_ready_wait_is_read_and_bounded(tmp_path):
    """[outputs] ready_wait: the daemon's wait for the devices' first answers at start (0..60 s)."""
    base = '[reader]\nport = "loop://"\n[outputs]\n'
    assert parse_config(base, path=tmp_path / "t.toml").outputs.ready_wait == 5.0
    assert parse_config(base + "ready_wait = 0.5", path=tmp_path / "t.toml").outputs.ready_wait == 0.5
    assert parse_config(base + "ready_wait = 0", path=tmp_path / "t.toml").outputs.ready_wait == 0.0
    for bad, needle in (("61", "0 to 60"), ("-1", "0 to 60"), ('"x"', "a finite number")):
        with pytest.raises(ConfigError, match=needle) as info:
            parse_config(base + f"ready_wait = {bad}", path=tmp_path / "t.toml")
        assert "[outputs] ready_wait" in str(info.value) and "t.toml" in str(info.value)
