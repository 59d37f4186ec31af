"""``tablectl verify``: check a registered deck read whole over the registration antenna.

DECK-001/002/008: a deck is proved before it is dealt: 52 distinct cards, all of its own. The
technician lays the deck (spread, or stacked if the antenna reads a stack) on the registration
antenna; the command reads until no new tag has come for ``settle`` cycles, then counts it
against the manifests given (the first is the deck to verify; the others name the cards of the
table's other deck) and prints what is missing, foreign or read twice. Exit status 0 when the
deck is whole, 1 when it is not (it must not be put in play), 2 for bad arguments.
"""

from __future__ import annotations

import sys
from pathlib import Path

from controller.core.registry import MANIFEST_MAX_BYTES, Deck, DeckRegistry, RegistryError, parse_manifest
from controller.core.rules.deck import count_deck
from firmware_bridge.drivers import reader_client
from firmware_bridge.errors import BridgeError, CorruptAnswer, ResponseTimeout
from controller.config.daemon import read_bounded
from firmware_bridge.serial_port import PortSettings, open_port


def load_registry(manifests: list[str]) -> tuple[DeckRegistry, str]:
    """The decks of ``manifests`` (``PATH`` or ``PATH:ID``; the id defaults to the file's stem)."""
    reg = DeckRegistry()  # (at most two decks: the table's pair, DECK-005)
    first = ""
    for spec in manifests:
        path, _, deck_id = spec.partition(":")
        deck_id = deck_id or Path(path).stem
        try:
            data = read_bounded(path, MANIFEST_MAX_BYTES)
        except ValueError as exc:  # (a /dev/zero is not read to its end)
            raise RegistryError(f"{path}: {exc}; a manifest is at most that") from None
        cards = parse_manifest(data, source=path)  # (not UTF-8: RegistryError naming the line)
        reg.add(Deck(deck_id, "?", cards))
        first = first or deck_id
    return reg, first


def main(*, port: str, manifests: list[str], baudrate: int, parity: str, antenna: int | None,
         settle: int = 10, max_cycles: int = 0, driver: str = "feig") -> int:
    try:
        registry, deck = load_registry(manifests)
    except (OSError, RegistryError) as exc:
        print(f"tablectl verify: {exc}", file=sys.stderr)
        return 2
    mask = None if antenna is None else 1 << (antenna - 1)
    seen: set[str] = set()
    quiet = cycles = 0
    try:
        with open_port(PortSettings(url=port, baudrate=baudrate, parity=parity), device="verify") as p:
            client = reader_client(driver, p, device="verify", ant_sel_bytes=1 if (mask or 0) < 0x100 else 2)
            print(f"lay deck {deck} on the registration antenna", flush=True)
            while not seen or quiet < settle:
                cycles += 1
                if max_cycles and cycles > max_cycles:
                    break
                try:
                    tags = client.inventory(antennas=mask)
                except (ResponseTimeout, CorruptAnswer):  # (a cycle lost: the next one reads the deck)
                    continue
                new = {t.uid for t in tags if mask is None or any(a.antenna == antenna for a in t.antennas)} - seen
                seen |= new
                quiet = 0 if new else quiet + 1
    except BridgeError as exc:  # bridge errors name the device ("verify: ...")
        print(f"tablectl {exc}", file=sys.stderr)
        return 1
    count = count_deck(seen, registry, deck=deck)
    for card in count.missing:
        print(f"missing {card}")
    for label in count.foreign:
        print(f"foreign {label}")
    if count.ok:
        print(f"deck {deck}: 52 cards, all its own: it may be put in play", flush=True)
        return 0
    print(f"{count.summary()}: do not put it in play", flush=True)
    return 1
