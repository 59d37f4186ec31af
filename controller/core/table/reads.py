"""The reads: the tracker that turns the reader's cycles into cards confirmed where they lie
(:mod:`controller.core.tracker`), as a part of the table. Its state is the tracker's."""

from __future__ import annotations

from typing import Any

from controller.core.state.checks import check_tracker
from controller.core.state.sections import StateMismatch
from controller.core.part import Part
from controller.core.setups import setup_of
from controller.core.tracker import Tracker


class Reads(Part):
    """The tracker, configured from the table's settings."""

    SECTION = "reads"
    STATE = ("tracker",)
    HINTS = {"tracker": Tracker}

    def __init__(self, table: Any) -> None:
        super().__init__(table)
        settings = self.settings
        self.tracker = Tracker(settings.zones.by_antenna.get, confirm_cycles=settings.confirm_cycles,
                               gone_cycles=settings.gone_cycles, strong_rssi=settings.strong_rssi,
                               levels=settings.rssi_levels, capacity=settings.capacity)
        self._setup(settings.capacity)

    def _setup(self, capacity: dict[int, int]) -> None:
        #: the rules the table's reader set-up cannot check (controller.core.setups): each hand's
        #: record lists them, and their findings raise nothing (controller.core.table.alerts)
        self.unchecked: frozenset[str] = frozenset(
            setup_of("", muck=bool(self.settings.zones.antennas_of("muck")), capacity=capacity).unchecked)

    def link(self) -> None:
        # (a tracker read from a state has no zone map nor capacities: they are the
        # configuration's, not state)
        self.tracker._zone_of = self.settings.zones.by_antenna.get
        self.tracker.set_capacity(self.settings.capacity)
        self._setup(self.settings.capacity)

    def reader_capacity(self, capacity: tuple[tuple[int, int], ...]) -> None:
        """The reader's own word on its antennas' capacities (a bridge board's handshake): each
        antenna of the table's sees the fewer of the configuration's and the reader's."""
        merged = dict(self.settings.capacity)
        zones = self.settings.zones.by_antenna
        for antenna, n in capacity:
            if antenna in zones:
                merged[antenna] = min(merged.get(antenna, n), n)
        self.tracker.set_capacity(merged)
        self._setup(merged)

    def check(self, where: str) -> None:
        tracker, settings = self.tracker, self.settings
        if (tracker.confirm_cycles, tracker.gone_cycles, tracker.strong_rssi) != \
                (settings.confirm_cycles, settings.gone_cycles, settings.strong_rssi):
            raise StateMismatch("state: the tracker's cycles differ from the configuration's")
        check_tracker(tracker, f"{where}.tracker")

    def take_clones(self) -> list[tuple[str, tuple[str, str]]]:
        """DECK-007: the tags the tracker heard in two places at once since last asked."""
        clones = list(self.tracker.clones)
        self.tracker.clones[:] = []  # (the tracker's own list: it keeps filling the same one)
        return clones
