#!/usr/bin/env python3
"""The floor page's screenshots in docs/img/ (docs/floor.md, README), from the same set-up as the
browser tests (rig/floor.py): a real mosquitto, ``tablectl floor`` as a subprocess, three
a busy room of twenty tables in three sections publishing as docs/room.md describes, Debian's
chromium through Playwright, at a tablet's size (1024 by 768), a phone's (390 by 844) and a
podium screen's. Run from the repository: ``.venv/bin/python scripts/floor_screenshots.py [--out docs/img]``.
The tests never run it (they must not change tracked files)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from rig.broker import Broker  # noqa: E402
from rig.floor import PASSWORDS, ROLES, FakeTable, FloorProc, adduser  # noqa: E402
from rig.waiting import wait_until  # noqa: E402


#: the busy room's sections ([floor.sections]), and its tables
SECTIONS = {"Pit A": [f"t{n}" for n in range(1, 9)], "Pit B": [f"t{n}" for n in range(9, 17)],
            "High limit": ["h1", "h2", "h3", "h4"]}
#: the sizes shot: a tablet on its side, a phone, a podium's screen
SIZES = {"tablet": (1024, 768), "phone": (390, 844), "desk": (1440, 900)}


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
        sections = "".join(f'"{name}" = {json.dumps(tables)}\n' for name, tables in SECTIONS.items())
        floor = FloorProc(folder, broker, extra=f"[floor.sections]\n{sections}")
        tables: dict[str, FakeTable] = {}
        try:
            for name in ("maria", "tom", "vic"):
                adduser(floor.config, name, ROLES[name], PASSWORDS[name])
            floor.start()
            for names in SECTIONS.values():
                for t in names:
                    tables[t] = FakeTable(broker, "main", t)
            busy_room(tables)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                            args=["--no-sandbox"] if os.geteuid() == 0 else [])
                page = browser.new_page(viewport={"width": 1024, "height": 700})
                page.goto(floor.url + "/login")
                page.screenshot(path=str(out / "floor-login.png"))
                login(page, floor.url, "maria")  # (one alert acknowledged, confirmed by its table)
                page.click('li[data-alert="main/t9#1"] button.ack')
                page.wait_for_selector('li[data-alert="main/t9#1"].acked')
                for name in ("maria", "tom", "vic"):
                    for size, (width, height) in SIZES.items():
                        if name != "maria" and size != "tablet":
                            continue
                        ctx = browser.new_context(viewport={"width": width, "height": height})
                        pg = ctx.new_page()
                        login(pg, floor.url, name)
                        pg.wait_for_selector('div[data-table="main/t4"]')
                        if name != "vic":
                            wait_until(lambda pg=pg: len(pg.query_selector_all("#alerts li.alert")) == 5, 10,
                                       what="the alerts")
                            wait_until(lambda pg=pg: len(pg.query_selector_all("#calls li.call")) == 4, 10,
                                       what="the calls")
                        suffix = "" if size == "tablet" else f"-{size}"
                        pg.screenshot(path=str(out / f"floor-{ROLES[name]}{suffix}.png"))
                        if name == "maria" and size == "tablet":
                            pg.select_option("#section-filter", "High limit")
                            pg.screenshot(path=str(out / "floor-section.png"))
                            pg.select_option("#section-filter", "")
                            pg.click("#nav-hands")
                            wait_until(lambda pg=pg: pg.query_selector("tr.hand-row") is not None, 10, what="a hand")
                            pg.click("tr.hand-row")
                            pg.wait_for_selector("#hand tr[data-zone='board']")
                            pg.screenshot(path=str(out / "floor-hands.png"), full_page=True)
                        ctx.close()
                browser.close()
        finally:
            for t in tables.values():
                t.stop()
            floor.stop()
            broker.stop()
    print(f"screenshots written to {out}")
    return 0


def login(page: Any, url: str, name: str) -> None:
    page.goto(url + "/login")
    page.fill("#name", name)
    page.fill("#password", PASSWORDS[name])
    page.click("#login")
    page.wait_for_selector("#link.up")


def busy_room(tables: dict[str, FakeTable]) -> None:
    """Twenty tables on a busy night: four calls waiting (the oldest 6 minutes), foul cards, a
    reader down, a table offline with its call, a retired table, misdeals in the dealer's lane."""
    names = ["Ann Lee", "Bo Chen", "Cy Diaz", "Di Egan", "Ed Fox"]
    for i, t in enumerate(tables.values()):
        t.state(hand=40 + 7 * i, stub_count=36 - i % 9, deck_in_play="AB"[i % 2], dealer=names[i % 5],
                seats=[s for s in range(1, 10) if (s + i) % 4], button=1 + i % 9,
                game=("holdem", "omaha", "stud", "holdem")[i % 4])
    tables["t2"].state(hand=17, stub_count=28, devices={"reader": False, "shuffler": True}, seats=[1, 2, 3, 5, 6],
                       button=5)
    tables["t1"].foul_card("7h", seat=4, dealer="Ann Lee")
    tables["t1"].hand(record={"hand": 40, "game": "holdem", "seats": [1, 2, 3, 4, 5, 6], "button": 3,
                              "zones": {"seat:1": ["As", "Kd"], "seat:2": ["9c", "9h"], "seat:4": ["7h@B", "2s"],
                                        "burn": ["3d", "8c", "Jh"], "board": ["Ts", "Jd", "Qc", "4s", "5d"],
                                        "muck": ["6c", "6d", "Ah", "3s", "8s", "2h"]},
                              "alerts": [{"rule": "DECK-006", "code": "deck.foreign_card",
                                          "message": "7h of deck B (blue back) is in play"}],
                              "stub_count": 36, "dealer": "Ann Lee", "down": 4})
    tables["t11"].floor_call(ago=372)
    tables["h2"].floor_call(ago=95)
    tables["t5"].floor_call(ago=31)
    tables["t3"].foul_card("Qs", seat=2)
    tables["h1"].foul_card("Kd", seat=6)
    tables["t14"].foul_card("5c", seat=1)
    tables["t9"].foul_card("2c", seat=7)  # (acknowledged from the page)
    tables["t6"].incident("misdeal.seat_skipped", "MISD-006", seat=4, message="seat 4 was skipped: misdeal")
    tables["t12"].incident("misdeal.first_card_wrong_seat", "MISD-004", seat=2,
                           message="the first card went to seat 2, not seat 3: misdeal")
    tables["t2"].incident("device.reader_offline", None, seat=None,
                          message="reader offline: deal by hand, call the tech")
    tables["h3"].incident("burn.missing", "BURN-001", seat=None, message="no burn before the flop")
    tables["t4"].floor_call(ago=200)
    tables["t4"].publish("state", {"online": False, "room": "main", "table": "t4"}, retain=True)
    tables["t16"].publish("state", {"online": False, "room": "main", "table": "t16"}, retain=True)


if __name__ == "__main__":
    sys.exit(main())
