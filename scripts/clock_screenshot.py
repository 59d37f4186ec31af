#!/usr/bin/env python3
"""The tournament's screenshots in docs/img/ (docs/floor.md, "Running a tournament"), from the same
set-up as the browser tests (tests/e2e/test_floor_tournament_browser.py): a real mosquitto,
``tablectl floor`` as a subprocess running a tournament of the docs' example structure
(docs/structure-example.toml) over twelve tables publishing as docs/room.md describes, Debian's
chromium through Playwright:

- the public clock screen at a TV's size (1920 by 1080: ``clock-tv.png``) and a phone's (390 by
  844: ``clock-phone.png``), on level 6 and on a break;
- the floor's tournament page with hand-for-hand on, tables done, dealing and offline, a card
  dealt before the release, the bubble's hold and the balance (``tournament-board.png``).

Run from the repository: ``.venv/bin/python scripts/clock_screenshot.py [--out docs/img]``. The
tests never run it (they must not change tracked files)."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from rig.broker import Broker  # noqa: E402
from rig.floor import PASSWORDS, ROLES, FakeTable, FloorProc, adduser, request  # noqa: E402

TABLES = [f"t{n}" for n in range(1, 13)]
#: a tablet on its side for the floor's page; a TV and a phone for the clock screen
SIZES = {"tv": (1920, 1080), "phone": (390, 844)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", default=str(ROOT / "docs/img"), help="the folder the PNG files are written to")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "broker").mkdir()
        broker = Broker(folder / "broker")
        broker.start()
        shutil.copy(ROOT / "docs/structure-example.toml", folder / "structure.toml")
        floor = FloorProc(folder, broker, extra=(
            'room = "main"\n[floor.tournaments.main]\nstructure = "structure.toml"\ntitle = "Sunday Deepstack"\n'
            f"tables = {json.dumps(TABLES)}\nbreak_order = {json.dumps(list(reversed(TABLES)))}\n"))
        tables: dict[str, FakeTable] = {}
        try:
            adduser(floor.config, "maria", ROLES["maria"], PASSWORDS["maria"])
            floor.start()
            tables = {t: FakeTable(broker, "main", t) for t in TABLES}
            for i, (name, t) in enumerate(tables.items()):  # nine players a table, t3 five: to balance
                t.state(seats=[1, 3, 5, 7, 9] if name == "t3" else list(range(1, 10)), hand=40 + i, level=6)
            session = Session(floor)
            session.act(action="start")
            for _ in range(6):  # level 6 of the example (a break before level 5), 12:48 left
                session.act(action="skip")
            session.act(action="add", seconds=-(7 * 60 + 12))
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                            args=["--no-sandbox"] if os.geteuid() == 0 else [])
                for size, (width, height) in SIZES.items():
                    page = browser.new_page(viewport={"width": width, "height": height})
                    page.goto(floor.url + "/clock/main")
                    page.locator("#level", has_text="Level 6").wait_for()
                    page.screenshot(path=str(out / f"clock-{size}.png"))
                    page.close()
                board(session, tables)
                page = browser.new_page(viewport={"width": 1024, "height": 768})
                page.goto(floor.url + "/login")
                page.fill("#name", "maria")
                page.fill("#password", PASSWORDS["maria"])
                page.click("#login")
                page.wait_for_selector("#link.up")
                page.goto(floor.url + "/tournament")
                page.locator(".h4h-line", has_text="offline").wait_for()
                page.locator(".bubble-line", has_text="holds the room").wait_for()
                page.screenshot(path=str(out / "tournament-board.png"), full_page=True)
                browser.close()
        finally:
            for t in tables.values():
                t.stop()
            floor.stop()
            broker.stop()
    print(f"screenshots written to {out}")
    return 0


class Session:
    """The floor role's session, acting as its page does."""

    def __init__(self, floor: FloorProc) -> None:
        self.floor = floor
        _, headers, _ = request(floor.url + "/login", method="POST",
                                data=f"name=maria&password={PASSWORDS['maria']}".encode())
        self.cookie = headers["Set-Cookie"].split(";")[0]
        _, _, page = request(floor.url + "/", headers={"Cookie": self.cookie})
        self.csrf = page.decode().split('name="csrf-token" content="')[1].split('"')[0]

    def act(self, **body: Any) -> None:
        status, _, answer = request(self.floor.url + "/api/tournament", method="POST",
                                    data=json.dumps({"tournament": "main", **body}).encode(),
                                    headers={"Cookie": self.cookie, "X-CSRF-Token": self.csrf,
                                             "Content-Type": "application/json"})
        assert status == 200, answer


def board(session: Session, tables: dict[str, FakeTable]) -> None:
    """Hand-for-hand on: eight tables done, three dealing (one dealt before the release), one
    offline; the bubble on, t4's all-in holding the room; a player clock at t7."""
    session.act(action="h4h", on=True)
    for name in TABLES[:6]:
        tables[name].hand(record={"hand": 40, "stub_count": 30})
    for name in TABLES[6:8]:
        tables[name].state(seats=list(range(1, 10)), hand=50, holding="h4h", level=6)
    tables["t9"].publish("events/floor", {"type": "Alert", "seq": tables["t9"].next_seq(), "ts": 1.0,
                                          "audience": "floor", "code": "flow.dealt_before_release",
                                          "rule": "FLOW-002", "hand": 49, "seat": 3})
    tables["t12"].go_offline()
    session.act(action="bubble", on=True)
    tables["t4"].publish("events/floor", {"type": "Alert", "seq": tables["t4"].next_seq(), "ts": 1.0,
                                          "audience": "floor", "code": "flow.bubble_allin", "rule": "FLOW-003",
                                          "hand": 41, "seat": 6})
    session.act(action="clock", room="main", table="t7", seat=5)


if __name__ == "__main__":
    sys.exit(main())
