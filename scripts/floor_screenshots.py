#!/usr/bin/env python3
"""The floor page's screenshots in docs/img/ (docs/floor.md, README), from the same set-up as the
browser tests (tests/floor_setup.py): a real mosquitto, ``tablectl floor`` as a subprocess, three
tables publishing as docs/room.md describes, Debian's chromium through Playwright, at a tablet's
size. Run from the repository: ``.venv/bin/python scripts/floor_screenshots.py [--out docs/img]``.
The tests never run it (they must not change tracked files)."""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from tests.broker import Broker  # noqa: E402
from tests.floor_setup import PASSWORDS, ROLES, FakeTable, FloorProc, adduser  # noqa: E402
from tests.waiting import wait_until  # noqa: E402


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
        floor = FloorProc(folder, broker)
        tables: list[FakeTable] = []
        try:
            for name in ("maria", "tom", "vic"):
                adduser(floor.config, name, ROLES[name], PASSWORDS[name])
            floor.start()
            t1, t2, t3, t4 = (FakeTable(broker, "main", t) for t in ("t1", "t2", "t3", "t4"))
            tables = [t1, t2, t3, t4]
            t1.state(hand=41, stub_count=36, deck_in_play="A", dealer="Ann Lee", dealer_next="Bo Chen")
            t2.state(hand=17, stub_count=28, deck_in_play="B", devices={"reader": False, "shuffler": True})
            t3.state(hand=88, game="omaha", stub_count=8, deck_in_play="A", dealer="Cy Diaz")
            t4.state(hand=5)
            t4.publish("state", {"online": False, "room": "main", "table": "t4"}, retain=True)
            t1.foul_card("7h", seat=4, dealer="Ann Lee")
            t2.floor_call()
            t1.hand(record={"hand": 40, "game": "holdem", "seats": [1, 2, 3, 4, 5, 6], "button": 3,
                            "zones": {"seat:1": ["As", "Kd"], "seat:2": ["9c", "9h"], "seat:4": ["7h@B", "2s"],
                                      "burn": ["3d", "8c", "Jh"], "board": ["Ts", "Jd", "Qc", "4s", "5d"],
                                      "muck": ["6c", "6d", "Ah", "3s", "8s", "2h"]},
                            "alerts": [{"rule": "DECK-006", "code": "deck.foreign_card",
                                        "message": "7h of deck B (blue back) is in play"}],
                            "stub_count": 36, "dealer": "Ann Lee", "down": 4})
            t3.foul_card("Qs", seat=2)
            acked = t3.foul_card("2c", seat=7)
            # (acknowledged as the table publishes it after the floor's ack)
            t3.client.publish("tablectl/main/t3/events/floor", json.dumps(
                {"type": "Ack", "ts": 1767225700.0, "audience": "floor", "ack_seq": acked, "code": "deck.foreign_card",
                 "user": "floor:maria", "command": "c-1", "seq": t3.next_seq()}), qos=1).wait_for_publish(10)
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True,
                                            args=["--no-sandbox"] if os.geteuid() == 0 else [])
                page = browser.new_page(viewport={"width": 1024, "height": 700})
                page.goto(floor.url + "/login")
                page.screenshot(path=str(out / "floor-login.png"))
                for name in ("maria", "tom", "vic"):
                    ctx = browser.new_context(viewport={"width": 1024, "height": 700})
                    pg = ctx.new_page()
                    pg.goto(floor.url + "/login")
                    pg.fill("#name", name)
                    pg.fill("#password", PASSWORDS[name])
                    pg.click("#login")
                    pg.wait_for_selector("#link.up")
                    pg.wait_for_selector('div[data-table="main/t4"]')
                    if name != "vic":
                        wait_until(lambda pg=pg: len(pg.query_selector_all("#alerts li.alert")) == 3, 10,
                                   what="three alerts")
                        pg.wait_for_selector("#calls li.call")
                        pg.wait_for_selector("li.alert.acked")
                    pg.screenshot(path=str(out / f"floor-{ROLES[name]}.png"), full_page=True)
                    if name == "maria":
                        pg.click("#nav-hands")
                        wait_until(lambda pg=pg: pg.query_selector("tr.hand-row") is not None, 10, what="a hand")
                        pg.click("tr.hand-row")
                        pg.wait_for_selector("#hand tr[data-zone='board']")
                        pg.screenshot(path=str(out / "floor-hands.png"), full_page=True)
                    ctx.close()
                browser.close()
        finally:
            for t in tables:
                t.stop()
            floor.stop()
            broker.stop()
    print(f"screenshots written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
