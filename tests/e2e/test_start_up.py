"""Each process the product starts loads what its own run uses (start-up time on a Pi, and the
suite's ~200 subprocesses): ``tablectl simulate`` runs no daemon in its own process (the paced
daemon is its subprocess), the floor's password checks' process runs argon2 and nothing of the
service, the doctor loads paho only to try a configured broker, and no command pays for
importlib.metadata at start-up (only ``--version`` asks for it).

One interpreter imports each process's entry modules in turn and lists what each step loaded."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from rig.paths import ROOT

#: each step: the modules imported (in this order, in one interpreter), and modules none of
#: them may load (a prefix: the package and its submodules)
STEPS = {
    # every command's parser (the floor's password checks' process imports it too: its main module)
    "command line": (["controller.cli.main"], ["importlib.metadata", "email", "zipfile"]),
    # the floor's password checks' process (controller/floor/hashing.py): the initializer and check()
    "password checks": (["controller.floor.hashing", "controller.floor.auth"],
                        ["aiohttp", "paho", "cryptography", "controller.floor.app", "controller.floor.store",
                         "importlib.metadata"]),
    # tablectl simulate's own process: the simulated table, the script, the configuration
    "simulate": (["hw_sim.simulate", "controller.config.daemon"],
                 ["controller.daemon.main", "controller.daemon.journal", "controller.core.table", "sqlite3",
                  "pokerkit", "firmware_bridge.reader_link", "firmware_bridge.bridge_client",
                  "importlib.metadata"]),
    # tablectl doctor: the room link's library only to try a configured broker (controller/cli/doctor_room.py)
    "doctor": (["controller.cli.doctor"], ["paho", "aiohttp", "importlib.metadata"]),
}

PROBE = """
import importlib, json, sys
steps = json.loads(sys.argv[1])
out = {}
for name, (modules, _) in steps.items():
    for m in modules:
        importlib.import_module(m)
    out[name] = sorted(sys.modules)
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def loaded() -> dict[str, list[str]]:
    r = subprocess.run([sys.executable, "-c", PROBE, json.dumps(STEPS)], capture_output=True, text=True,
                       timeout=60, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("step", list(STEPS))
def test_a_process_loads_only_what_its_run_uses(loaded, step):
    modules, forbidden = STEPS[step]
    assert set(modules) <= set(loaded[step])  # (the probe imported them: its list is real)
    assert [m for m in loaded[step] if any(m == f or m.startswith(f + ".") for f in forbidden)] == []
