"""A folder that stands for a Raspberry Pi's root for ``tablectl setup --root`` (issue 41): the
files setup reads to find things out, as the kernel and the OS lay them out, with nothing else.

- ``sys/``: a USB serial device as sysfs shows it, ``/sys/class/tty/ttyUSB0`` a relative link to
  the tty under its USB interface, under its USB device (``idVendor``, ``idProduct``, ``serial``);
- ``proc/device-tree/model``: the board's model, NUL-terminated as the device tree has it;
- ``etc/resolv.conf``: the DNS servers; ``etc/`` otherwise empty (``systemd-sysusers --root``
  writes ``passwd`` and ``group`` there).

>>> import tempfile
>>> root = fake_pi(Path(tempfile.mkdtemp()), devices=[USB_READER])
>>> sorted(p.name for p in (root / "sys/class/tty").iterdir())
['ttyUSB0']
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class UsbTty:
    tty: str
    vendor: str
    product: str
    serial: str | None
    port: str  # the USB port's sysfs name, 1-1


#: a FEIG reader behind an FTDI FT232R (docs/install.md), and the shuffler's bridge board (a
#: Raspberry Pi Pico's own USB serial port, CDC-ACM)
USB_READER = UsbTty("ttyUSB0", "0403", "6001", "A10K1234", "1-1")
USB_BRIDGE = UsbTty("ttyACM0", "2e8a", "000a", "E6614C311B7A5E2F", "1-2")
#: our reader's bridge board: a Pico running MicroPython (docs/protocols/bridge.md)
USB_READER_BOARD = UsbTty("ttyACM1", "2e8a", "0005", "E6614104035A2B31", "1-3")
MODEL = "Raspberry Pi 4 Model B Rev 1.4"


def fake_pi(folder: Path, *, devices: list[UsbTty] = (), model: str | None = MODEL,  # type: ignore[assignment]
            nameservers: tuple[str, ...] = ("10.20.0.1",)) -> Path:
    root = folder
    (root / "etc").mkdir(parents=True, exist_ok=True)
    (root / "etc/resolv.conf").write_text("".join(f"nameserver {n}\n" for n in nameservers) + "search room.lan\n")
    if model is not None:
        (root / "proc/device-tree").mkdir(parents=True, exist_ok=True)
        (root / "proc/device-tree/model").write_text(model + "\x00")
    classes = root / "sys/class/tty"
    classes.mkdir(parents=True, exist_ok=True)
    for d in devices:
        usb = root / "sys/devices/platform/scb/fd500000.pcie/pci0000:00/0000:01:00.0/usb1" / d.port
        usb.mkdir(parents=True, exist_ok=True)
        (usb / "idVendor").write_text(d.vendor + "\n")
        (usb / "idProduct").write_text(d.product + "\n")
        if d.serial is not None:
            (usb / "serial").write_text(d.serial + "\n")
        tty = usb / f"{d.port}:1.0" / "tty" / d.tty
        tty.mkdir(parents=True)
        (tty / "dev").write_text("188:0\n")
        link = classes / d.tty
        link.symlink_to(Path("../..") / tty.relative_to(root / "sys"))
    return root
