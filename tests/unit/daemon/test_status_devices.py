"""The unit's ``Status:`` line (sd_notify ``STATUS=``) and the control socket's ``ping`` name every
device the table has, the dealer's console and its display included, online or OFFLINE (issue 41:
both left them out when they were offline). A real notify socket, a real control socket; the
console on a pin factory that cannot load, the display on a fake I2C bus that fails
(hw_sim/i2c_bus.py)."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

from controller.config.daemon import load_config
from controller.daemon.control import send
from controller.daemon.main import Daemon
from hw_sim.i2c_bus import FakeSMBus
from hw_sim.setup import write_setup
from rig.waiting import wait_until

CONSOLE_AND_DISPLAY = ('[console]\npin_factory = "auto"\n[console.buttons]\nround_done = 5\n'
                       '[display]\nkind = "hd44780"\n')


class Notify:
    """systemd's end of sd_notify: the STATUS= values received, in order."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.settimeout(0.05)
        self.status: list[str] = []

    def read(self) -> list[str]:
        while True:
            try:
                message = self.sock.recv(4096).decode()
            except TimeoutError:
                return self.status
            self.status += [line[len("STATUS="):] for line in message.splitlines() if line.startswith("STATUS=")]


def test_status_and_ping_name_the_console_and_the_display_when_offline(tmp_path, monkeypatch):
    notify = Notify(tmp_path / "notify")
    monkeypatch.setenv("NOTIFY_SOCKET", str(tmp_path / "notify"))
    monkeypatch.delenv("WATCHDOG_USEC", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")  # ([console] pin_factory auto: it fails)
    cfg = write_setup(tmp_path, console=CONSOLE_AND_DISPLAY, outputs='control = "control.sock"')
    bus = FakeSMBus(0x27)
    bus.failing = True  # (the display's cable out)
    d = Daemon(load_config(cfg), display_bus=bus)
    d.start()
    loop = threading.Thread(target=d.run, daemon=True)
    loop.start()
    try:
        wait_until(lambda: any("display OFFLINE" in s for s in notify.read()), what="STATUS= naming the display")
        offline = {"reader": False, "console": False, "display": False}  # (no reader at tmp_path/reader)
        assert d.online() == offline
        assert notify.status[-1] == "reader OFFLINE; console OFFLINE; display OFFLINE"
        answer = send(str(tmp_path / "control.sock"), {"cmd": "ping"}, timeout=5)
        assert answer["ok"] and answer["online"] == offline
        bus.failing = False  # plugged back: online, and said so
        wait_until(lambda: "display online" in notify.read()[-1], what="STATUS= with the display back")
        assert notify.status[-1] == "reader OFFLINE; console OFFLINE; display online"
        assert send(str(tmp_path / "control.sock"), {"cmd": "ping"}, timeout=5)["online"]["display"] is True
    finally:
        d.stop()
        loop.join(5)
