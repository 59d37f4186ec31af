"""``tablectl simulate --broker --signing-key`` (docs/room.md, "tablectl simulate --broker"): the
simulated table signs its records with an enrolled table's key, so that a floor that requires
signatures keeps them. Against a real mosquitto and ``tablectl floor`` as a real subprocess with
``require_signatures = true``; the key and the floor's line for it are what ``tablectl room
enroll`` made and printed."""

from __future__ import annotations

import json
import re
import sqlite3
import subprocess
import sys

import pytest

from rig.floor import FloorProc
from rig.waiting import wait_until
from tests.e2e.test_room_link import deck_fault_script
from tests.e2e.test_simulate_e2e import simulate

pytestmark = pytest.mark.e2e


def test_simulate_signs_with_the_enrolled_key_for_a_floor_that_requires_signatures(broker, tmp_path):
    enrolled = tmp_path / "enrolled"
    enrolled.mkdir()
    made = subprocess.run([sys.executable, "-m", "controller.cli.main", "room", "enroll", "t1", "--room", "sim",
                           "--dir", str(enrolled)], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    line = re.search(r'^"sim/t1" = "[0-9a-f]{64}"$', made.stdout, re.M)
    assert line is not None, made.stdout
    floor = FloorProc(tmp_path, broker, extra=f"require_signatures = true\n[floor.tables]\n{line.group(0)}\n")
    floor.start()
    try:
        signed = simulate(tmp_path / "signed", deck_fault_script(), "--broker", broker.url, "--room", "sim",
                          "--table", "t1", "--signing-key", str(enrolled / "t1.signing-key"))
        assert signed.returncode == 0, signed.stderr
        # the same table's script unsigned, as table t2 the floor has no key for: refused
        unsigned = simulate(tmp_path / "unsigned", deck_fault_script(), "--broker", broker.url, "--room", "sim",
                            "--table", "t2")
        assert unsigned.returncode == 0, unsigned.stderr
        db = sqlite3.connect(floor.database)

        def count(sql: str, table: str) -> int:
            return int(db.execute(sql, ("sim", table)).fetchone()[0])

        hands = "SELECT COUNT(*) FROM hands WHERE room = ? AND tbl = ?"
        refused = "SELECT COUNT(*) FROM suspects WHERE room = ? AND tbl = ?"
        wait_until(lambda: count(hands, "t1") == 2, 30, what="the signed table's two hands on the floor")
        wait_until(lambda: count("SELECT COUNT(*) FROM suspects WHERE room = ? AND tbl = ? AND topic = 'hands'",
                                 "t2") == 2, 30, what="the unsigned table's two hands refused")
        assert count(refused, "t1") == 0
        assert count("SELECT COUNT(*) FROM alerts WHERE room = ? AND tbl = ? AND code = 'deck.wrong_deck'", "t1") >= 1
        assert count(hands, "t2") == 0 and count("SELECT COUNT(*) FROM alerts WHERE room = ? AND tbl = ?", "t2") == 0
        tiles = {r[0]: json.loads(r[1]) for r in db.execute("SELECT tbl, state FROM tables WHERE room = 'sim'")}
        assert "unsigned" not in tiles["t1"] and tiles["t2"]["unsigned"] is True and tiles["t2"]["online"] is False
        db.close()
    finally:
        floor.stop()
    assert "a message refused" in floor.log.read_text()


def test_simulate_refuses_a_signing_key_that_is_not_one_or_without_a_broker(tmp_path):
    script = deck_fault_script()
    loose = tmp_path / "loose.signing-key"
    loose.write_text("0" * 64 + "\n")
    loose.chmod(0o644)
    r = simulate(tmp_path / "loose", script, "--broker", "mqtt://127.0.0.1:1", "--signing-key", str(loose))
    assert r.returncode == 2 and "signing_key" in r.stderr and "chmod 600" in r.stderr, r.stderr
    r = simulate(tmp_path / "alone", script, "--signing-key", str(loose))
    assert r.returncode == 2 and "--signing-key go with --broker" in r.stderr, r.stderr
