"""The floor's commands on ``cmd`` (docs/room.md, "Commands"). Placeholder until item 4."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class Commands:
    def __init__(self, daemon: Any, clock: Callable[[], float]) -> None:
        self.daemon = daemon
        self.clock = clock
        self.link: Any = None

    def handle(self, payload: bytes, corr: str | None) -> dict[str, Any] | None:
        return {"ok": False, "error": "commands are not supported yet"}
