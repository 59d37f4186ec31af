"""Issue 40: a reader set-up's limits in the configuration: each antenna's capacity
([reader.capacity]) and a table without a muck antenna ([reader] muck_antenna = false), and
what `tablectl doctor` says of the set-up the configuration describes."""

from __future__ import annotations

import pytest

from controller.cli import doctor
from controller.config.daemon import ConfigError, load_config
from tests.unit.config.test_config import good

NO_MUCK = ('13 = "muck"', "")


def config(tmp_path, old_new=(), extra=""):
    cfg = good(tmp_path)
    text = cfg.read_text()
    for old, new in old_new:
        assert old in text
        text = text.replace(old, new)
    cfg.write_text(text + extra)
    return cfg


SPOT_READER = ('port = "loop://"', 'port = "loop://"\nmuck_antenna = false\n[reader.capacity]\n1 = 2\n2 = 2\n4 = 2')


def test_capacities_and_no_muck_antenna_load(tmp_path):
    c = load_config(config(tmp_path, (SPOT_READER, NO_MUCK)))
    assert c.reader.capacity == {1: 2, 2: 2, 4: 2} and c.table.capacity == {1: 2, 2: 2, 4: 2}
    assert c.reader.muck_antenna is False and c.table.zones.antennas_of("muck") == ()


def test_the_defaults_have_no_limit_and_a_muck_antenna(tmp_path):
    c = load_config(config(tmp_path))
    assert c.reader.capacity == {} == c.table.capacity and c.reader.muck_antenna is True


@pytest.mark.parametrize("old_new,needle", [
    ((SPOT_READER,), "[antennas] 13 feeds the muck, and [reader] muck_antenna = false says there is none"),
    ((NO_MUCK,), "[antennas]: no antenna feeds muck"),  # (forgotten, not declared: still an error)
    ((('port = "loop://"', 'port = "loop://"\n[reader.capacity]\n7 = 2'),), "[reader.capacity] 7: not an antenna"),
    ((('port = "loop://"', 'port = "loop://"\n[reader.capacity]\n1 = 0'),), "[reader.capacity] 1 = 0"),
])
def test_a_wrong_setup_is_refused_by_name(tmp_path, old_new, needle):
    with pytest.raises(ConfigError, match=None) as err:
        load_config(config(tmp_path, old_new))
    assert needle in str(err.value)


def test_no_muck_antenna_needs_a_written_map(tmp_path):
    cfg = config(tmp_path, (SPOT_READER,))
    text = cfg.read_text()
    cfg.write_text(text[:text.index("[antennas]")] + text[text.index("[[decks]]"):])
    with pytest.raises(ConfigError) as err:
        load_config(cfg)
    assert "muck_antenna = false: write the [antennas] map" in str(err.value)


def test_doctor_names_the_cheap_setup_and_what_it_cannot_check(tmp_path):
    c = load_config(config(tmp_path, (SPOT_READER, NO_MUCK)))
    check = doctor.check_setup(c.reader, c.table.zones)
    assert check.what.startswith("reader: set-up: cheap seat spots")
    assert "no muck antenna" in check.what and "1: 2, 2: 2, 4: 2" in check.what
    unchecked, partly = check.what.split("not checked on this table:")[1].split("checked in part")
    for rule in ("MUCK-002", "DRAW-004", "DRAW-005", "CHIN-003"):  # docs/rules.md's table: "no"
        assert rule in unchecked
    for rule in ("MISD-011", "STUD-013", "MUCK-005"):  # "in part", "late"
        assert rule in partly and rule not in unchecked
    feig = load_config(config(tmp_path))
    plain = doctor.check_setup(feig.reader, feig.table.zones)
    assert plain.what.startswith("reader: set-up: a FEIG reader") and "not checked" not in plain.what


def test_doctor_without_a_muck_antenna_alone(tmp_path):
    cfg = config(tmp_path, (('port = "loop://"', 'port = "loop://"\nmuck_antenna = false'), NO_MUCK))
    c = load_config(cfg)
    what = doctor.check_setup(c.reader, c.table.zones).what
    assert "no muck antenna" in what and "MUCK-002" in what and "MISD-011" not in what
