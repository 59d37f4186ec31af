"""What setup finds out for itself rather than ask: the USB serial devices plugged in (their
ids and serial numbers, from sysfs), which Raspberry Pi this is (the device tree's model), the
DNS servers (``/etc/resolv.conf``), and whether an I2C display answers (``i2cdetect``). Under
``--root`` the same files are read inside the root (a test's fake sysfs); what cannot be read
there (the I2C bus) comes from the answers.

>>> parse_i2cdetect('''     0  1  2  3  4  5  6  7  8  9  a  b  c  d  e  f
... 00:                         -- -- -- -- -- -- -- --
... 20: -- -- -- -- -- -- -- 27 -- -- -- -- -- -- -- --
... 30: -- -- -- -- -- -- -- -- -- -- -- -- 3c -- -- --''')
[39, 60]
>>> nameservers("nameserver 10.20.0.1\\n# nameserver 9.9.9.9\\nnameserver fe80::1%eth0\\nsearch lan\\n")
['10.20.0.1', 'fe80::1']
"""

from __future__ import annotations

import ipaddress
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: FTDI's vendor id: the FEIG readers' USB-serial chip (docs/install.md)
FTDI = "0403"
#: a Raspberry Pi Pico running MicroPython (2e8a:0005): our reader's bridge board
#: (docs/decisions/0042-the-bridge-board.md); a Pico of other firmware is the shuffler's board
PICO, MICROPYTHON = "2e8a", "0005"
#: an I2C address -> the display that answers there (docs/console.md, "The display")
DISPLAYS = {0x27: "hd44780", 0x3F: "hd44780", 0x3C: "ssd1306", 0x3D: "ssd1306"}


@dataclass(frozen=True)
class SerialDevice:
    """A USB serial device plugged in: its tty (``ttyUSB0``), USB ids and serial number."""

    tty: str
    vendor: str
    product: str
    serial: str | None = None

    def describe(self) -> str:
        serial = f", serial {self.serial}" if self.serial else ", no serial number"
        return f"{self.tty} (USB {self.vendor}:{self.product}{serial})"


def _read(path: Path) -> str | None:
    try:
        return path.read_text(errors="replace").strip() or None
    except OSError:
        return None


def serial_devices(root: Path) -> list[SerialDevice]:
    """The USB serial devices under ``root``'s sysfs: each ``/sys/class/tty/ttyUSB*`` and
    ``ttyACM*`` followed to the USB device above it (the first folder with an ``idVendor``)."""
    found = []
    classes = root / "sys/class/tty"
    if not classes.is_dir():
        return []
    sys_root = (root / "sys").resolve()
    for entry in sorted(classes.iterdir()):
        if not re.fullmatch(r"tty(USB|ACM)\d+", entry.name):
            continue
        node = entry.resolve()
        while node != sys_root and sys_root in node.parents:
            vendor = _read(node / "idVendor")
            if vendor:
                found.append(SerialDevice(entry.name, vendor.lower(), (_read(node / "idProduct") or "").lower(),
                                          _read(node / "serial")))
                break
            node = node.parent
    return found


def pi_model(root: Path) -> str | None:
    """The board's model from the device tree ("Raspberry Pi 4 Model B Rev 1.4"), or None."""
    for p in ("proc/device-tree/model", "sys/firmware/devicetree/base/model"):
        text = _read(root / p)
        if text:
            return text.rstrip("\x00")
    return None


def nameservers(text: str) -> list[str]:
    """The DNS servers of a resolv.conf (a link-local address without its ``%interface``)."""
    out = []
    for line in text.splitlines():
        words = line.split("#", 1)[0].split()
        if len(words) >= 2 and words[0] == "nameserver":
            address = words[1].split("%", 1)[0]
            try:
                ipaddress.ip_address(address)
            except ValueError:
                continue
            out.append(address)
    return out


def dns_servers(root: Path) -> list[str]:
    return nameservers(_read(root / "etc/resolv.conf") or "")


def resolve(host: str) -> list[str]:
    """``host``'s addresses (an address as it is); [] when it does not resolve."""
    try:
        return [str(ipaddress.ip_address(host))]
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return []
    return sorted({str(info[4][0]) for info in infos})


def parse_i2cdetect(text: str) -> list[int]:
    """The addresses that answered in ``i2cdetect -y N``'s table."""
    out = []
    for line in text.splitlines():
        m = re.match(r"^([0-7]0):\s(.*)$", line)
        if not m:
            continue
        base = int(m.group(1), 16)
        cells = [m.group(2)[i:i + 3].strip() for i in range(0, len(m.group(2)), 3)]
        for i, cell in enumerate(cells):  # (each cell 3 characters wide, blanks where not scanned)
            if re.fullmatch(r"[0-9a-f]{2}", cell):
                out.append(base + i)
    return out


def display_on_bus(bus: int = 1) -> tuple[str, int] | None:
    """The display that answers on ``/dev/i2c-BUS`` (kind, address), or None (no bus, no
    i2cdetect, nothing there). An SH1106 answers as an SSD1306 does: the answers file tells it."""
    tool = shutil.which("i2cdetect")
    if tool is None or not Path(f"/dev/i2c-{bus}").exists():
        return None
    try:
        r = subprocess.run([tool, "-y", str(bus)], capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    for address in parse_i2cdetect(r.stdout):
        if address in DISPLAYS:
            return DISPLAYS[address], address
    return None
