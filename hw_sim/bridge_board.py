"""The bridge board on a pseudo-terminal: the firmware's own ``main.py``, run under CPython on
the simulated board (:mod:`hw_sim.micropython_board`), its USB port a real pseudo-terminal.

``python -m hw_sim.bridge_board --field FIELD.json`` is run with its standard input and output
on the master of a pseudo-terminal whose slave the host opens as it opens ``/dev/ttyACM0``; it
starts the firmware as MicroPython does at power-up, by importing ``main``. What lies on the
board is ``FIELD.json`` (read again whenever it changes, at the start of a cycle; write it whole,
by renaming a file written beside it)::

    {"zones": {"1": ["E004015012345678"], "11": ["E0040150A05F0001", "E0040150A05F0002"]},
     "faults": {"2": {"stick_after": 40}}, "zones_count": 13}

MicroPython's REPL listens on the same port: a Ctrl-C byte (03) raises KeyboardInterrupt in
whatever runs, unless ``micropython.kbd_intr(-1)`` turned it off. The runner's standard input
does the same (:class:`_ReplStdin`), so a firmware that forgot it dies here as on a Pico.

:func:`start` spawns one on a fresh pseudo-terminal and gives the slave's path.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import time
import tty
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hw_sim.micropython_board import FIRMWARE_DIR, FakeMicropython, SimBoard, VirtualClock, fake_machine


class _RealPacedClock(VirtualClock):
    """Virtual microseconds for the firmware's waits (a BUSY limit runs out at once), but an idle
    board's ``sleep_ms`` sleeps for real, so that it does not spin a core."""

    def sleep_ms(self, ms: float) -> None:
        super().sleep_ms(ms)
        time.sleep(ms / 1000)


class _ReplStdin:
    """MicroPython's ``sys.stdin`` on the USB port: bytes one at a time, and the REPL's Ctrl-C."""

    def __init__(self, fd: int, micropython: FakeMicropython) -> None:
        self.buffer = self
        self._raw = io.FileIO(fd, "rb", closefd=False)
        self._fd = fd
        self._mp = micropython

    def fileno(self) -> int:
        return self._fd

    def read(self, n: int = 1) -> bytes:
        data = self._raw.read(n) or b""
        interrupt = self._mp.kbd_intr_calls[-1] if self._mp.kbd_intr_calls else 3
        if interrupt >= 0 and bytes([interrupt]) in data:
            raise KeyboardInterrupt  # what MicroPython's REPL does with Ctrl-C still armed
        return data


class _Stdout:
    def __init__(self, fd: int) -> None:
        self.buffer = io.FileIO(fd, "wb", closefd=False)


def _load_field(board: SimBoard, path: Path, state: dict[str, Any]) -> None:
    try:
        mtime = path.stat().st_mtime_ns
    except OSError:
        return
    if state.get("mtime") == mtime:
        return
    try:
        spec = json.loads(path.read_text())
    except ValueError:
        return  # (written as it was read: the next cycle reads it whole)
    state["mtime"] = mtime
    for zone, chip in board.chips.items():
        chip.tags = []
        for uid in spec.get("zones", {}).get(str(zone), []):
            chip.place(uid)
        for name, value in spec.get("faults", {}).get(str(zone), {}).items():
            setattr(chip.faults, name, value)


def run(field: Path, zones: int, mfrc522: tuple[int, ...] = ()) -> None:
    """The firmware's main.py on a simulated board, on this process's standard input and output
    (``mfrc522``: the zones whose chip is a simulated MFRC522, as the firmware's CHIPS says)."""
    clock = _RealPacedClock()
    board = SimBoard(zones, clock=clock, mfrc522=mfrc522)
    state: dict[str, Any] = {}
    _load_field(board, field, state)
    board.on_field = lambda zone: _load_field(board, field, state) if zone == 1 else None
    mp = FakeMicropython()
    sys.modules["machine"] = fake_machine(board)
    sys.modules["micropython"] = mp
    # MicroPython's time: ticks and sleeps (CPython's own time stays as it was for everything else)
    for name in ("ticks_us", "ticks_ms", "ticks_diff", "sleep_us", "sleep_ms"):
        setattr(time, name, getattr(clock, name))
    sys.stdin = _ReplStdin(0, mp)  # type: ignore[assignment]
    sys.stdout = _Stdout(1)  # type: ignore[assignment]
    sys.path.insert(0, str(FIRMWARE_DIR))
    import bridge_config  # the firmware's: its pins for the board, its zone count set
    bridge_config.ZONES = zones
    bridge_config.CHIPS = board.chip_names
    board.set_pins(bridge_config)
    try:
        import main  # noqa: F401  (the firmware runs from here, for ever, as at power-up)
    except KeyboardInterrupt:
        os._exit(130)  # the REPL took the board: it reads no more


@dataclass
class Running:
    """A board process on a pseudo-terminal: ``port`` is the slave's path, for the host."""

    process: subprocess.Popen[bytes]
    port: str
    slave_fd: int

    def stop(self) -> None:
        self.process.kill()
        self.process.wait(10)
        os.close(self.slave_fd)


def start(field: Path, *, zones: int = 13, mfrc522: tuple[int, ...] = ()) -> Running:
    """Spawn a board on a fresh pseudo-terminal (its slave raw, so nothing echoes back);
    ``mfrc522``: its zones with an MFRC522 rather than a PN5180."""
    master, slave = os.openpty()
    tty.setraw(slave)
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    proc = subprocess.Popen([sys.executable, "-m", "hw_sim.bridge_board", "--field", str(field), "--zones",
                             str(zones), *(["--mfrc522", ",".join(map(str, mfrc522))] if mfrc522 else [])],
                            stdin=master, stdout=master, env=env, cwd=str(root))
    os.close(master)
    return Running(proc, os.ttyname(slave), slave)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    p.add_argument("--field", type=Path, required=True, help="the JSON file of what lies on each zone")
    p.add_argument("--zones", type=int, default=13)
    p.add_argument("--mfrc522", default="", help="the zones with an MFRC522, comma-separated (1,2,3)")
    args = p.parse_args(argv)
    run(args.field, args.zones, tuple(int(z) for z in args.mfrc522.split(",") if z))


if __name__ == "__main__":
    main()
