"""A simulated table's set-up on disk: deck manifests and a daemon configuration.

``tablectl simulate``, ``tablectl demo`` and the benchmarks all stand the daemon up the same
way: the two simulated decks (``A`` red, in play; ``B`` blue, the spare), the default antenna
layout, and the reader on a pseudo-terminal reached through a symlink in the work folder.
"""

from __future__ import annotations

from pathlib import Path

from controller.config.console import default_console
from controller.daemon.private import open_private
from controller.core.zones import ZoneMap
from hw_sim.decks import DECK_BACKS, DECK_IDS, manifest_text

ZONES = ZoneMap.default()
#: zone -> the antenna the simulated dealer lays a card on
ANTENNA_OF: dict[str, int] = {z: ZONES.antennas_of(z)[0] for z in set(ZONES.by_antenna.values())}


def table_zones(antennas: dict[int, str] | None) -> tuple[ZoneMap, dict[str, int]]:
    """The zone map of a simulated table (``antennas``: its ``[antennas]`` map, None for the
    default) and the antenna the dealer lays a card of each zone on.

    >>> zones, on = table_zones({1: "seat:1", 2: "seat:2", 11: "board", 12: "burn", 13: "muck", 14: "stub"})
    >>> on["stub"], zones.has_stub_spot
    (14, True)
    """
    if antennas is None:
        return ZONES, ANTENNA_OF
    zones = ZoneMap.from_mapping({str(a): z for a, z in antennas.items()})
    return zones, {z: zones.antennas_of(z)[0] for z in set(zones.by_antenna.values())}


def write_setup(workdir: Path, *, game: str = "holdem",
                seats: list[int] | tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8, 9), button: int = 9,
                table_extra: str = "", reader_extra: str = "", outputs: str = "",
                shuffler: bool = False, console: bool | str = True, journal: bool = False,
                ready_wait: float = 0.5, shuffler_extra: str = "", rules_extra: str = "",
                antennas: dict[int, str] | None = None) -> Path:
    """Write the manifests and ``tablectl.toml`` into ``workdir``; return the config's path.

    ``console``: True gives the dealer's console on gpiozero's MockFactory pins, wired as
    docs/console.md recommends (``controller.config.console.DEFAULT_CONSOLE``), so that
    the simulated dealer's presses go through the real gpiozero callbacks; False leaves it out;
    a string is the ``[console]`` section itself.

    ``shuffler``: the table has an automatic shuffler, on the pseudo-terminal ``workdir/shuffler``;
    ``shuffler_extra``: more lines for its ``[shuffler]`` section. ``rules_extra``: the lines of a
    ``[rules]`` section (docs/rules.md §20's settings; none: the defaults).

    ``ready_wait`` (``[outputs]``): the simulated devices answer at once, so the daemon need
    not wait long for them at start (the default 5 s is for real ones). ``antennas``: the
    ``[antennas]`` map (None: the default, no stub spot)."""
    for d in DECK_IDS:
        with open_private(workdir / f"deck-{d}.txt", "w") as f:  # a manifest names every tag's card
            f.write(manifest_text(d))
    decks = "".join(f'\n[[decks]]\nid = "{d}"\nback = "{DECK_BACKS[d]}"\nmanifest = "deck-{d}.txt"\n'
                    for d in DECK_IDS)
    if not isinstance(console, str):
        console = default_console(pin_factory="mock", bounce_time=0.005, hold_time=0.5) if console else ""
    cfg = workdir / "tablectl.toml"
    cfg.write_text(f"""# a simulated table
[table]
game = "{game}"
seats = [{", ".join(str(s) for s in seats)}]
button = {button}
deck_in_play = "A"
{table_extra}
{f'[rules]{chr(10)}{rules_extra}{chr(10)}' if rules_extra else ""}
[reader]
port = "{workdir / 'reader'}"
parity = "N"  # a pseudo-terminal has no parity (see hw_sim/pty_device.py)
{reader_extra}
{decks}
{f'[shuffler]{chr(10)}port = "{workdir / "shuffler"}"{chr(10)}{shuffler_extra}{chr(10)}' if shuffler else ""}
{f'[journal]{chr(10)}path = "{workdir / "journal.sqlite3"}"{chr(10)}' if journal else ""}
{_antennas_section(antennas)}[outputs]
ready_wait = {ready_wait}
{outputs}
{console}""")
    return cfg


def _antennas_section(antennas: dict[int, str] | None) -> str:
    """The ``[antennas]`` section of ``antennas`` (none for the default map)."""
    if antennas is None:
        return ""
    return "[antennas]\n" + "".join(f'{a} = "{z}"\n' for a, z in sorted(antennas.items()))
