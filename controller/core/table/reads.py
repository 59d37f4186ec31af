"""The reads: the tracker that turns the reader's cycles into cards confirmed where they lie
(:mod:`controller.core.tracker`), as a part of the table. Its state is the tracker's."""

from __future__ import annotations

from typing import Any

from controller.core.state.checks import check_tracker
from controller.core.state.sections import StateMismatch
from controller.core.part import Part
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
                               levels=settings.rssi_levels)

    def link(self) -> None:
        # (a tracker read from a state has no zone map: it is the configuration's, not state)
        self.tracker._zone_of = self.settings.zones.by_antenna.get

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
