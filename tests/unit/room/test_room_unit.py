"""The room link's systemd drop-in (systemd/tablectl.service.d/room.conf): it opens IP only,
to the broker's address, orders the unit after time-sync.target, keeps the daemon from listening
on the network, and the unit with it stays at 2.0 or lower in ``systemd-analyze security``."""

from __future__ import annotations

import shutil
import subprocess

from tests.e2e.test_systemd_unit import UNIT, exposure, parse_unit

DROPIN = UNIT.parent / "tablectl.service.d" / "room.conf"


def merged_text() -> str:
    """The unit as systemd reads it with the drop-in: its sections again after the unit's (a
    later assignment wins, as a drop-in's does)."""
    return UNIT.read_text() + "\n" + DROPIN.read_text()


def test_the_dropin_opens_ip_to_the_broker_only():
    unit = parse_unit(merged_text())
    service = unit["Service"]
    assert service["PrivateNetwork"][-1] == "no"
    families = service["RestrictAddressFamilies"][-1].split()
    assert sorted(families) == ["AF_INET", "AF_INET6", "AF_UNIX"]
    assert service["IPAddressDeny"] == ["any"] and "192.0.2.10" in service["IPAddressAllow"]
    assert service["SocketBindDeny"] == ["any"]  # the daemon never listens on a network port
    assert "time-sync.target" in " ".join(unit["Unit"]["After"])
    base = parse_unit(UNIT.read_text())["Service"]
    assert base["RestrictAddressFamilies"] == ["AF_UNIX"] and base["PrivateNetwork"] == ["yes"]  # no [room]: shut


def test_the_unit_with_the_dropin_stays_at_2_or_lower(tmp_path):
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        return
    path = tmp_path / "tablectl.service"
    path.write_text(merged_text())
    r = subprocess.run([analyze, "security", "--offline=true", "--threshold=20", "--no-pager", str(path)],
                       capture_output=True, text=True, timeout=60)
    level = exposure(r.stdout + r.stderr)
    assert level <= 2.0, r.stdout[-3000:]
