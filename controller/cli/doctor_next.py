"""What only a person can do next, judged from what ``tablectl doctor`` found: doctor's last lines.

``tablectl setup`` ends with doctor (issue 41), and doctor ends with the steps still to do, in the
order docs/install.md gives them, each the one command to type: plug the reader in, map the
antennas, register the decks, calibrate, enroll in the room. A step done is not listed; when all
are done there is no "Next:" at all.

How each is judged:

- **the reader**: a failed check of its device (not there, does not open) or the daemon saying
  it is offline;
- **the antennas**: ``[antennas]`` is still the standard guess (seat N on antenna N, 11 board,
  12 burn, 13 muck: what setup writes, or the default with no ``[antennas]``) and the antennas are
  not calibrated. Calibrating proves the map: ``tablectl calibrate`` asks for a card on each
  zone by name and reads only that zone's antenna, so a wrong map fails it;
- **the decks**: no ``[[decks]]``, or a manifest the configuration cannot read;
- **calibration**: an antenna without its own level, with a reader that gives signal strength;
- **the room**: no ``[room]``.

>>> from types import SimpleNamespace as N
>>> from controller.core.zones import ZoneMap
>>> cfg = N(reader=N(driver="feig", port="/dev/tablectl/reader", levels={}), decks=[], room=None,
...         table=N(zones=ZoneMap.default()))
>>> [s.split(":")[0] for s in next_steps(cfg, [], config_path="/etc/tablectl/tablectl.toml")]
['map the antennas', 'register the decks', 'calibrate each antenna', 'enroll in the room']
>>> done = N(reader=N(driver="feig", port="p", levels={a: 150 for a in range(1, 14)}), decks=["A"], room=object(),
...          table=N(zones=ZoneMap.default()))
>>> next_steps(done, [], config_path="t.toml")
[]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from controller.cli.checks import Check
from controller.core.zones import ZoneMap

#: the reader drivers that give each read's signal strength (so whose antennas are calibrated)
RSSI_READERS = frozenset({"feig"})


def reader_down(results: Sequence[Check]) -> bool:
    """A failed check of the reader's device, or the daemon saying the reader is offline."""
    return any(r.failed and (r.what.startswith("reader: ") or r.what == "daemon: reader offline")
               for r in results)


def standard_guess(zones: Any) -> bool:
    """``[antennas]`` as setup guesses it: every antenna where the standard table has it."""
    standard = ZoneMap.default().by_antenna
    return all(standard.get(a) == z for a, z in zones.by_antenna.items())


def calibrated(reader: Any, zones: Any) -> bool:
    return all(a in reader.levels for a in zones.by_antenna)


def next_steps(config: Any, results: Sequence[Check], *, config_path: str) -> list[str]:
    """The steps still to do, each with its one command. ``config``: the loaded configuration, or
    None when it did not load (then only a manifest it could not read names a step: the rest is
    the configuration's own failure, whose fix doctor printed)."""
    if config is None:
        unreadable = any(r.failed and "manifest" in r.what and "cannot read" in r.what for r in results)
        return [_register()] if unreadable else []
    port = config.reader.port
    tags = f"tablectl tags --port {port} --cycles 0"
    steps = []
    if reader_down(results):
        steps.append(f"plug the reader in: it answers when laying a card on an antenna prints a line here "
                     f"(stop the daemon first, it holds the port): sudo systemctl stop tablectl; sudo {tags}")
    strength = config.reader.driver in RSSI_READERS
    zones = config.table.zones
    if standard_guess(zones) and not (strength and calibrated(config.reader, zones)):
        steps.append(f"map the antennas: lay a card on each spot in turn, note the antenna of each line, and put "
                     f"antenna = zone in [antennas] of {config_path}: sudo {tags}")
    if not config.decks:
        steps.append(_register())
    if strength and not calibrated(config.reader, zones):
        steps.append(f"calibrate each antenna: one card at hand, sudo tablectl calibrate --config {config_path}")
    if config.room is None:
        steps.append("enroll in the room: on the broker's host, tablectl room enroll TABLE --room ROOM --broker "
                     "mqtts://BROKER:8883 --ca-file /etc/tablectl/room-ca.crt --bundle TABLE.bundle --mosquitto "
                     "--floor-config /etc/tablectl/floor.toml; copy TABLE.bundle here, then: sudo tablectl setup "
                     "--room-bundle TABLE.bundle")
    return steps


def _register() -> str:
    return ("register the decks: one card at a time, then add the [[decks]] lines it prints: sudo tablectl register "
            "--port /dev/tablectl/reader --deck A --back red --out /etc/tablectl/decks/A.txt (then --deck B --back "
            "blue --out /etc/tablectl/decks/B.txt)")


def next_lines(steps: Sequence[str]) -> list[str]:
    """Doctor's last lines: ``Next:`` and the steps, numbered; none when nothing is left.

    >>> next_lines(["calibrate each antenna: sudo tablectl calibrate"])
    ['Next:', '  1. calibrate each antenna: sudo tablectl calibrate']
    >>> next_lines([])
    []
    """
    return ["Next:", *(f"  {i}. {s}" for i, s in enumerate(steps, 1))] if steps else []
