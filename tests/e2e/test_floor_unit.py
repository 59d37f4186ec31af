"""The floor service's systemd unit (systemd/tablectl-floor.service): the documented command,
no device, no privilege, IP and nothing else; judged by systemd's own tools where installed
(``systemd-analyze security`` at 2.0 or lower, ``verify`` accepting it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from tests.e2e.test_systemd_unit import exposure, parse_unit
from rig.paths import ROOT

UNIT = ROOT / "systemd" / "tablectl-floor.service"


def test_the_floor_unit():
    unit = parse_unit(UNIT.read_text())
    service = unit["Service"]
    assert service["ExecStart"] == ["/opt/tablectl/venv/bin/tablectl floor --config /etc/tablectl/floor.toml"]
    assert "tablectl floor --config /etc/tablectl/floor.toml" in (ROOT / "docs/floor.md").read_text()
    assert service["User"] == ["tablectl"] and service["CapabilityBoundingSet"] == [""]
    assert service["RestrictAddressFamilies"] == ["AF_UNIX AF_INET AF_INET6"]
    assert service["DevicePolicy"] == ["closed"] and service["UMask"] == ["0077"]
    assert service["RestartPreventExitStatus"] == ["2"]  # (a configuration error: tablectl floor exits 2)
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return
    r = subprocess.run([analyze, "security", "--offline=true", "--threshold=20", "--no-pager", str(UNIT)],
                       capture_output=True, text=True, timeout=60)
    assert exposure(r.stdout + r.stderr) <= 2.0, r.stdout[-3000:]


def test_the_floor_unit_verifies(tmp_path):
    analyze = shutil.which("systemd-analyze")
    system_units = next((p for p in (Path("/usr/lib/systemd/system"), Path("/lib/systemd/system"))
                         if (p / "sysinit.target").exists()), None)
    if analyze is None or system_units is None:
        return
    root = tmp_path / "root"
    shutil.copytree(system_units, root / "usr/lib/systemd/system", symlinks=True)
    fake = root / "opt/tablectl/venv/bin/tablectl"
    fake.parent.mkdir(parents=True)
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    (root / "etc/systemd/system").mkdir(parents=True)
    shutil.copy(UNIT, root / "etc/systemd/system/tablectl-floor.service")
    r = subprocess.run([analyze, "verify", f"--root={root}", "tablectl-floor.service"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "tablectl-floor.service" not in r.stderr, r.stderr
