"""docs/room/mosquitto.conf as the broker's host has it: ``tablectl floor setup --mosquitto``
installs it as /etc/mosquitto/conf.d/tablectl.conf, which Debian's own /etc/mosquitto/mosquitto.conf
includes. mosquitto refuses an option of one value said twice; the shipped file said
``persistence_location``, which Debian's file says too, and the broker did not start
(rig/install_container.py found it: "Error: Duplicate persistence_location value in
configuration"). Nor may the file use an option mosquitto deprecates. The oracle is mosquitto
itself, reading the two files."""

import subprocess

import pytest

from rig.broker import MOSQUITTO, debian_layout, have_mosquitto
from rig.paths import ROOT


def test_the_shipped_file_is_read_by_mosquitto_under_debians_main_file(tmp_path):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it: apt-get install mosquitto)")
    shipped = (ROOT / "docs/room/mosquitto.conf").read_text()
    # its files in the test's folder (none made: mosquitto stops at the first it needs, once it has
    # read the whole configuration), and no listener on the host's 8883
    shipped = shipped.replace("/etc/mosquitto/", f"{tmp_path}/").replace("listener 8883", "listener 0 127.0.0.1")
    main = tmp_path / "mosquitto.conf"
    main.write_text(debian_layout(tmp_path, shipped) + "log_dest stderr\n")
    try:
        r = subprocess.run([MOSQUITTO, "-c", str(main)], capture_output=True, text=True, timeout=20)
        said = r.stdout + r.stderr
    except subprocess.TimeoutExpired as exc:  # (it started: the configuration was read whole)
        said = (exc.stdout or b"").decode() + (exc.stderr or b"").decode()
    assert f"Loading config file {tmp_path}/conf.d/tablectl.conf" in said, said
    assert "Duplicate" not in said and "Error found at" not in said, said
    # and no option of it deprecated: mosquitto 2 said "Note: It is recommended to replace
    # `message_size_limit` with `max_packet_size`." of the file's size limit (issue 41)
    assert "recommended to replace" not in said and "deprecated" not in said.lower(), said
