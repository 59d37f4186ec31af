"""The floor's page in a real browser: Debian's chromium driven by Playwright (no browser
downloaded: ``executable_path`` is the system's), against ``tablectl floor`` as a subprocess, a
real mosquitto and a table's messages through it (tests/floor_setup.py)."""

from __future__ import annotations

import os
import re
from typing import Any

import pytest

from tests.broker import Broker, have_mosquitto
from tests.floor_setup import PASSWORDS, FakeTable, FloorProc, add_users, has_card
from tests.waiting import wait_until

CHROMIUM = "/usr/bin/chromium"
TIMEOUT_MS = 15_000


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (scripts/test installs it: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    folder = tmp_path_factory.mktemp("floor_browser")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    floor = FloorProc(folder, broker)
    add_users(floor)
    floor.start()
    table = FakeTable(broker)
    table.state()
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True,
                                    args=["--no-sandbox"] if os.geteuid() == 0 else [])
        logged: dict[str, Watched] = {}

        def person(name: str) -> Watched:
            """``name`` logged in, once for the module: every test after adds to what that
            browser received (the technician's and the viewer's checks cover them all)."""
            if name not in logged:
                logged[name] = Watched(browser, floor, name)
            return logged[name]

        yield floor, table, browser, person
        for w in logged.values():
            w.close()
        browser.close()
    table.stop()
    floor.stop()
    broker.stop()


class Watched:
    """A logged-in page and everything its browser received: each response's body and each
    WebSocket frame."""

    def __init__(self, browser: Any, floor: FloorProc, name: str) -> None:
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.received: list[str] = []
        self.page.on("response", self._response)
        self.page.on("websocket", lambda ws: ws.on("framereceived", lambda f: self.received.append(str(f))))
        self.page.goto(floor.url + "/")
        assert self.page.url.endswith("/login")
        self.page.fill("#name", name)
        self.page.fill("#password", PASSWORDS[name])
        self.page.click("#login")
        self.page.wait_for_selector("#link.up")  # the WebSocket is live

    def _response(self, response: Any) -> None:
        if "/static/" in response.url:  # (the same script and style for every role: no data in them)
            return
        try:
            self.received.append(response.text())
        except Exception:  # (a redirect has no body to read)
            self.received.append(f"{response.status} {response.url}")

    def close(self) -> None:
        self.context.close()


def test_a_foul_card_shows_acknowledged_reaches_the_table_and_every_browser(setup):
    floor, table, browser, person = setup
    maria, ana = person("maria"), person("ana")
    seq = table.foul_card("7h", seat=4)
    sel = f'li[data-alert="main/t7#{seq}"]'
    for w in (maria, ana):
        item = w.page.wait_for_selector(sel)
        text = item.inner_text()
        assert "7h" in text and "seat 4" in text and "DECK-006" in text and "No foreign cards" in text
    badge = maria.page.wait_for_selector('div[data-table="main/t7"] .badge')
    assert int(badge.inner_text()) >= 1
    maria.page.click(f"{sel} button.ack")
    wait_until(lambda: any(c.get("cmd") == "ack" and c.get("seq") == seq for c in table.commands), 10,
               what="the ack at the table")
    assert [c["user"] for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq] == ["floor:maria"]
    for w in (ana, maria):  # the second browser sees who acknowledged it, without reloading
        done = w.page.wait_for_selector(f"{sel}.acked")
        assert re.search(r"acknowledged by floor:maria at \d", done.inner_text())
        assert w.page.query_selector(f"{sel} button.ack") is None
    # the table vanishes (the broker's will, retained) or its reader drops: the tile says so at once
    table.state(devices={"reader": False, "shuffler": True})
    tile = maria.page.wait_for_selector('div[data-table="main/t7"].device-down')
    assert "reader DOWN" in tile.inner_text()
    table.publish("state", {"online": False, "room": "main", "table": "t7"}, retain=True)
    tile = ana.page.wait_for_selector('div[data-table="main/t7"].offline')
    assert "OFFLINE" in tile.inner_text()
    table.state()


def test_the_technician_and_the_viewer_never_receive_a_card(setup):
    floor, table, browser, person = setup
    tom, vic = person("tom"), person("vic")
    seq = table.foul_card("Jc", seat=6)
    table.state(hand=21, stub_count=30)
    item = tom.page.wait_for_selector(f'li[data-alert="main/t7#{seq}"]')
    assert "DECK-006" in item.inner_text() and "seat 6" in item.inner_text()
    assert tom.page.query_selector("button.ack") is None  # a technician does not acknowledge
    # (no wait_for_function: the page's Content-Security-Policy forbids evaluating a string)
    for w in (vic, tom):
        w.page.locator('div[data-table="main/t7"]', has_text="21").wait_for()
    assert vic.page.query_selector("li.alert") is None
    assert "devices" not in vic.page.inner_text("#tiles")
    for w in (tom, vic):
        rendered = w.page.content()
        assert not has_card(rendered, "Jc") and not has_card(rendered, "7h")
        assert w.received, "nothing recorded"
        for r in w.received:
            assert not has_card(r, "Jc") and not has_card(r, "7h") and '"card"' not in r and '"uid"' not in r, r
    assert any("DECK-006" in r for r in tom.received)


def test_a_floor_call_waits_until_answered_on_every_screen(setup):
    floor, table, browser, person = setup
    maria, tom = person("maria"), person("tom")
    seq = table.floor_call()
    sel = f'#calls li[data-alert="main/t7#{seq}"]'
    call = maria.page.wait_for_selector(sel)
    assert re.search(r"t7 calls the floor\s+waiting 0:\d\d", call.inner_text())
    assert tom.page.wait_for_selector(sel) and tom.page.query_selector(f"{sel} button.ack") is None
    assert maria.page.query_selector(f'#alerts li[data-alert="main/t7#{seq}"]') is None  # a call, not an alert
    maria.page.click(f"{sel} button.ack")
    wait_until(lambda: any(c.get("cmd") == "ack" and c.get("seq") == seq for c in table.commands), 10,
               what="the answer at the table")
    done = tom.page.wait_for_selector(f"{sel}.acked")
    assert re.search(r"answered by floor:maria after 0:\d\d", done.inner_text())


def test_the_hands_page_finds_a_hand_by_card_and_shows_its_zones(setup):
    floor, table, browser, person = setup
    table.hand(record={"hand": 29, "game": "holdem", "zones": {"seat:1": ["8s", "8d"]}, "alerts": [], "stub_count": 30})
    table.hand(record={"hand": 30, "game": "holdem", "zones": {"seat:1": ["9s", "9d"], "burn": ["2d", "5h"],
                                                               "board": ["Ts", "Jd", "Qc", "4s"]},
                       "alerts": [{"rule": "BURN-003", "code": "burn.missing", "message": "no burn before the river"}],
                       "stub_count": 30,
                       "showdown": {"seats": [1, 4, 6], "high": [1], "hands": {"1": "pair of nines", "4": "king high"},
                                    "dead": {"6": 3}}})
    page = person("maria").context.new_page()  # (a second tab of the floor's session: the room's stays)
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(floor.url + "/")
        page.click("#nav-hands")
        wait_until(lambda: len(page.query_selector_all("tr.hand-row")) == 2, 10, what="both hands listed")
        page.fill("#q-card", "9d")
        page.click("#q-go")
        wait_until(lambda: len(page.query_selector_all("tr.hand-row")) == 1, 10, what="one hand found")
        page.click("tr.hand-row")
        box = page.wait_for_selector("#hand tr[data-zone='board']")
        assert box.inner_text().split() == ["board", "Ts", "Jd", "Qc", "4s"]
        text = page.inner_text("#hand")
        assert "9s 9d" in text and "2d 5h" in text and "BURN-003" in text and "intact" in text and "30" in text
        shown = [r.inner_text().split("\t") for r in page.query_selector_all("#hand tr.showdown-seat")]
        assert shown == [["seat 1", "pair of nines", "wins"], ["seat 4", "king high", ""],
                         ["seat 6", "dead hand (3 cards)", ""]]
        page.fill("#q-card", "8h")
        page.click("#q-go")
        wait_until(lambda: not page.query_selector_all("tr.hand-row"), 10, what="no hand found")
    finally:
        page.close()


def test_seats_and_decks_sent_from_the_page_are_confirmed_or_refused_by_the_table(setup):
    floor, table, browser, person = setup
    maria = person("maria")
    try:
        maria.page.click('div[data-table="main/t7"] button.manage')
        maria.page.fill("#setup-seats", "1, 2, 5")
        maria.page.fill("#setup-button", "5")
        maria.page.click("#setup-send")
        maria.page.locator("#cmd-status", has_text="confirmed by the table").wait_for()
        sent = [c for c in table.commands if c.get("cmd") == "setup"]
        assert sent[-1]["seats"] == [1, 2, 5] and sent[-1]["button"] == 5 and sent[-1]["user"] == "floor:maria"
        for field, value in (("in-play", "C"), ("id1", "C"), ("back1", "green"), ("manifest1", "../C.txt"),
                             ("id2", "D"), ("back2", "red"), ("manifest2", "D.txt")):
            maria.page.fill(f"#decks-{field}", value)
        maria.page.click("#decks-send")
        maria.page.locator("#cmd-status", has_text="refused by the table: decks: a manifest is a file name").wait_for()
    finally:
        maria.page.click("#manage-close")


def test_a_wrong_password_is_refused_on_the_page(setup):
    floor, _, browser, _ = setup
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(floor.url + "/login")
        page.fill("#name", "vic")
        page.fill("#password", "not the password")
        page.click("#login")
        assert "wrong name or password" in page.inner_text("#error")
        assert page.query_selector("#tiles") is None
        assert context.cookies() == []
    finally:
        context.close()


@pytest.mark.e2e
def test_the_real_daemon_a_foul_card_acknowledged_from_the_page_is_journalled_with_the_user(setup, tmp_path):
    """The table is the daemon itself (tablectl simulate's run_script with the room link on): a
    card of the other deck dealt (DECK-006) shows on the floor's page with its card,
    the technician's page shows it without; Acknowledge reaches the daemon, which journals it
    with the user, and the second floor browser shows it acknowledged."""
    import json
    import sqlite3

    from controller.service.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
    from tests.scenarios import NOISE

    floor, _, browser, person = setup
    maria, ana, tom = person("maria"), person("ana"), person("tom")
    foul = hole()[:3] + [deal("2h@B", 6)] + CLEAN[4:-1] + [END]
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": foul}, {"steps": CLEAN}]}
    seen: dict[str, Any] = {}

    def after(number: int, proc: Any) -> None:
        if number != 1:
            return
        item = maria.page.wait_for_selector('li.alert[data-alert^="r1/t5#"]:has-text("2h")')
        seen["text"] = item.inner_text()
        seen["id"] = item.get_attribute("data-alert")
        tom_item = tom.page.wait_for_selector(f'li[data-alert="{seen["id"]}"]')
        seen["tom"] = tom_item.inner_text()
        item.query_selector("button.ack").click()
        done = ana.page.wait_for_selector(f'li[data-alert="{seen["id"]}"].acked')
        seen["ana"] = done.inner_text()

    run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_hand=after,
               room=room_section(floor.broker.url, "r1", "t5"))
    assert "DECK-006" in seen["text"] and "2h@B" in seen["text"]
    assert not has_card(seen["tom"], "2h@B") and "DECK-006" in seen["tom"]
    assert "acknowledged by floor:maria" in seen["ana"]
    assert not any(has_card(r, "2h") for r in tom.received)  # (2h@B included: "@" ends a word)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    rows = db.execute("SELECT user, cmd FROM room_commands").fetchall()
    assert [(u, json.loads(c)["cmd"]) for u, c in rows] == [("floor:maria", "ack")]
    assert json.loads(rows[0][1])["seq"] == int(seen["id"].split("#")[1])
