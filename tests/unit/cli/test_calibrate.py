"""``tablectl calibrate``: each antenna's level from a card laid on it, written to the
configuration, checked by ``tablectl doctor``; the simulated reader on a real pseudo-terminal."""

from __future__ import annotations

from pathlib import Path

from controller.cli import calibrate
from controller.cli import doctor
from controller.config.daemon import load_config
from hw_sim.decks import sim_uid
from hw_sim.noise import Harsh
from hw_sim.script import Noise

CARD = sim_uid("A", "As")


def write_config(tmp_path: Path, extra: str = "") -> Path:
    path = tmp_path / "tablectl.toml"
    path.write_text(f'# the technician\'s own comment\n[reader]\nport = "{tmp_path / "reader"}"\n'
                    f'antenna_select_bytes = 2\n\n[table]\nseats = [1, 2]\n{extra}')
    return path


def lay_card(reader):
    def ask(antenna, zone):
        reader.place("card", CARD, antenna)  # the technician moves the one card to the antenna asked
    return ask


def test_each_antenna_gets_its_own_level_written_and_doctor_sees_it(sim_reader, tmp_path):
    # the harsh profile gives each antenna its own mean (185 to 215) and a spread of 12 around it
    reader = sim_reader(noise=Noise(seed=4, profile="harsh"))
    assert isinstance(reader.look, Harsh)
    config = write_config(tmp_path)
    before = load_config(str(config))
    assert doctor.check_levels(before.reader, before.table.zones).level == "note"  # not calibrated yet
    assert calibrate.main(str(config), cycles=20, ask=lay_card(reader)) == 0
    text = config.read_text()
    assert text.startswith("# the technician's own comment\n[reader]\n")  # the rest of the file is kept
    cfg = load_config(str(config))
    assert sorted(cfg.reader.levels) == list(range(1, 14))
    for antenna, level in cfg.reader.levels.items():
        # the simulator's own mean for the antenna, less the margin of 50: the median of 20 reads
        # of a normal spread of 12 lies within 12 of the mean (3.5 standard errors)
        assert abs(level - (reader.look.mean[antenna] - 50)) <= 12, (antenna, level)
    assert len(set(cfg.reader.levels.values())) > 3  # not one level for all
    assert cfg.table.rssi_levels == cfg.reader.levels  # the tracker's
    ok = doctor.check_levels(cfg.reader, cfg.table.zones)
    assert ok.level == "ok" and "13 antennas calibrated" in ok.what
    # calibrated again: the section is replaced, not added twice
    calibrate.write_levels(config, {a: 100 + a for a in range(1, 14)})
    assert config.read_text().count("[reader.levels]") == 1
    assert load_config(str(config)).reader.levels[13] == 113


def test_an_antenna_that_reads_no_card_fails_naming_it(sim_reader, tmp_path, capsys):
    reader = sim_reader()
    config = write_config(tmp_path)

    def skip_seven(antenna, zone):
        if antenna == 7:
            reader.remove("card")  # the card never reaches antenna 7 (a cable out)
        else:
            reader.place("card", CARD, antenna)

    assert calibrate.main(str(config), cycles=4, ask=skip_seven) == 1
    assert "antenna 7 (seat:7) read the card in 0 of 4 inventories" in capsys.readouterr().err
    assert "[reader.levels]" not in config.read_text()  # nothing written


def test_a_partly_calibrated_table_is_a_warning(tmp_path):
    config = write_config(tmp_path)
    config.write_text(config.read_text() + "\n[reader.levels]\n1 = 150\n2 = 140\n")
    cfg = load_config(str(config))
    c = doctor.check_levels(cfg.reader, cfg.table.zones)
    assert c.level == "warn" and "antenna 3 (seat:3) has no level of its own" in c.what and "calibrate" in c.fix
