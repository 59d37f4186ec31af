"""``tablectl calibrate``: each antenna's level from a card laid on it, written to the
configuration, checked by ``tablectl doctor``; the simulated reader on a real pseudo-terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from controller.cli import calibrate
from controller.cli import doctor
from controller.config.daemon import ConfigError, load_config
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


# -- issue 41, silent break 2: calibrate keeps the configuration's owner and mode -----------------

def _service_group() -> int:
    """A group the writer is not in: the service's group as the installed file has it
    (root:tablectl 0640). As root any group will do; otherwise the caller's own."""
    return 65534 if os.geteuid() == 0 else os.getegid()


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_calibrate_keeps_the_configurations_owner_and_mode(sim_reader, tmp_path, umask):
    """``root:tablectl 0640`` stays so under either umask, and a member of the group (the daemon's
    user) can still read it. Before the fix: ``root:root 0644`` (022) or ``0600`` (077), and the
    daemon exited 2, "cannot read the configuration"."""
    reader = sim_reader()
    # (in /tmp itself: pytest's tmp_path is under a 0700 folder the daemon's stand-in cannot reach)
    folder = Path(tempfile.mkdtemp(prefix="tablectl-calibrate-", dir="/tmp"))
    try:
        folder.chmod(0o755)
        config = folder / "tablectl.toml"
        config.write_text(write_config(tmp_path).read_text())  # (the reader's pseudo-terminal is in tmp_path)
        gid = _service_group()
        os.chown(config, os.geteuid(), gid)
        config.chmod(0o640)
        old = os.umask(umask)
        try:
            assert calibrate.main(str(config), cycles=4, ask=lay_card(reader)) == 0
        finally:
            os.umask(old)
        st = config.stat()
        assert (st.st_uid, st.st_gid, oct(st.st_mode & 0o777)) == (os.geteuid(), gid, "0o640")
        assert load_config(str(config)).reader.levels  # the levels are in, the file still loads
        assert sorted(p.name for p in folder.iterdir()) == ["tablectl.toml"]  # no temporary file left
        if os.geteuid() == 0 and shutil.which("setpriv"):
            # read as the daemon would: another uid whose only way in is the group
            r = subprocess.run(["setpriv", "--reuid=65533", "--regid=65533", f"--groups={gid}", "cat", str(config)],
                               capture_output=True, text=True, timeout=30)
            assert r.returncode == 0 and "[reader.levels]" in r.stdout, r.stderr
    finally:
        shutil.rmtree(folder)


def test_calibrate_that_would_break_the_configuration_leaves_it_alone(tmp_path):
    """The new file is loaded before it replaces the old one: a level out of range is refused and
    the file, its mode and the folder are as they were."""
    config = write_config(tmp_path)
    config.chmod(0o640)
    before = config.read_bytes()
    with pytest.raises(ConfigError):
        calibrate.write_levels(config, {1: 999})
    assert config.read_bytes() == before and oct(config.stat().st_mode & 0o777) == "0o640"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tablectl.toml"]
