"""``tablectl register``: register a deck by reading it in set-up order over one antenna.

The dealer (or technician) lays the deck's cards one at a time on the registration antenna,
from the top of a deck in set-up order (DECK-008: A..K of spades, hearts, clubs, diamonds); the
command prints each card as it is recognised, refuses a card laid out of turn (two at once) and
writes the deck's manifest once all 52 are read.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from controller.core.cards import setup_order
from controller.core.registry import RegistryError, SetupOrderReading, manifest_of
from controller.daemon.private import open_private
from firmware_bridge.drivers import reader_client
from firmware_bridge.errors import BridgeError, CorruptAnswer, ResponseTimeout
from firmware_bridge.serial_port import PortSettings, open_port


def main(*, port: str, deck: str, back: str, out: str, baudrate: int, parity: str,
         antenna: int | None, max_cycles: int = 0, driver: str = "feig") -> int:
    reading = SetupOrderReading()
    order = setup_order()
    mask = None if antenna is None else 1 << (antenna - 1)
    try:
        with open_port(PortSettings(url=port, baudrate=baudrate, parity=parity), device="register") as p:
            client = reader_client(driver, p, device="register", ant_sel_bytes=1 if (mask or 0) < 0x100 else 2)
            print(f"lay the cards one at a time, from the top: first {reading.next_card}", flush=True)
            cycles = 0
            while not reading.done:
                cycles += 1
                if max_cycles and cycles > max_cycles:
                    print(f"tablectl register: stopped after {max_cycles} cycles with {reading.count} cards",
                          file=sys.stderr)
                    return 1
                try:
                    tags = client.inventory(antennas=mask)
                except (ResponseTimeout, CorruptAnswer):  # (a cycle lost: the next one reads the stack)
                    continue
                before = reading.count
                reading.feed(t.uid for t in tags if mask is None or any(a.antenna == antenna for a in t.antennas))
                for i in range(before, reading.count):
                    print(f"{i + 1:2} {reading.uids[i]} {order[i]}", flush=True)
    except (RegistryError, BridgeError) as exc:  # bridge errors name the device ("register: ...")
        print(f"tablectl {exc}" if isinstance(exc, BridgeError) else f"tablectl register: {exc}",
              file=sys.stderr)
        return 1
    # A manifest ties every tag to its card: whoever reads it can read the cards. Owner only.
    try:
        with open_private(out, "w") as f:  # (0600 even if it existed)
            f.write(manifest_of(reading.cards(), deck_id=deck, back=back))
    except OSError as exc:
        print(f"tablectl register: --out {out}: cannot write the manifest: {exc.strerror or exc}", file=sys.stderr)
        return 1
    share_with_folder_group(Path(out))
    print(f"deck {deck} registered: 52 cards, manifest written to {out}", flush=True)
    print(f"add to the configuration:\n{decks_lines(deck, back, Path(out))}", flush=True)
    return 0


def decks_lines(deck: str, back: str, out: Path) -> str:
    """The ``[[decks]]`` entry for the manifest written (relative to /etc/tablectl when it is in
    its decks folder), so that nothing is typed twice.

    >>> print(decks_lines("A", "red", Path("/etc/tablectl/decks/A.txt")))
    [[decks]]
    id = "A"
    back = "red"
    manifest = "decks/A.txt"
    """
    path = out.absolute()
    shown = f"decks/{path.name}" if path.parent == Path("/etc/tablectl/decks") else str(path)
    return f'[[decks]]\nid = {json.dumps(deck)}\nback = {json.dumps(back)}\nmanifest = {json.dumps(shown)}'


def share_with_folder_group(path: Path) -> None:
    """Written by root into a folder of the service's group (``/etc/tablectl/decks``,
    root:tablectl 0750, made by ``tablectl setup``): the manifest goes to that group, 0640, so that
    the daemon (not root) can read it, and no one else can."""
    if os.geteuid() != 0:
        return
    gid = path.parent.stat().st_gid
    if gid != 0:
        os.chown(path, 0, gid)
        os.chmod(path, 0o640)
