"""The tournament's pages in a real browser (Debian's chromium through Playwright), against
``tablectl floor`` as a subprocess and a real mosquitto, the tables :class:`rig.floor.FakeTable`
publishing as a table does (docs/room.md):

- the public clock screen, ``/clock/main``, without a login, at a TV's 1920 by 1080 and a phone's
  390 by 844: every figure on the one screen, big, white on black, updated live, and nothing but
  the clock and two counts received;
- the hand-for-hand board: five tables, some done (a hand's record, or holding), one dealing, one
  offline; a card dealt before the release flagged; one press releases every table (each one's
  retained signal), and the player clock and the bubble's hold from the same page."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from rig.broker import Broker, Subscriber
from rig.floor import FakeTable, FloorProc, add_users
from rig.waiting import wait_until
from controller.room.tournament import parse_signal
from rig.browser import launch_chromium
from tests.e2e.test_floor_browser import TIMEOUT_MS, Watched, browser_or_skip
from tests.e2e.test_floor_tournament import Floor, tournament_extra

TABLES = ("t1", "t2", "t3", "t4", "t5")
#: the clock screen's figures, each of which must be on the one screen
FIGURES = ("#title", "#level", "#time", "#blinds", "#next", "#break", "#players", "#tables")


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    sync_api = browser_or_skip()
    folder = tmp_path_factory.mktemp("floor_tournament_browser")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    floor = FloorProc(folder, broker, extra=tournament_extra(folder, TABLES))
    add_users(floor)
    floor.start()
    signals = Subscriber(broker.port, ["tablectl/main/+/floor/tournament"]).start()
    tables = {t: FakeTable(broker, "main", t) for t in TABLES}
    for i, t in enumerate(tables.values()):
        t.state(seats=list(range(1, 10 - i)), hand=20 + i)  # 9, 8, 7, 6 and 5 players
    with sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
        yield floor, signals, tables, browser
        browser.close()
    for t in tables.values():
        t.stop()
    signals.stop()
    floor.stop()
    broker.stop()


def last(signals: Subscriber, table: str) -> Any:
    got = signals.messages.get(f"tablectl/main/{table}/floor/tournament")
    return parse_signal(got[-1]) if got else None


def luminance(css: str) -> float:
    """The relative luminance of a CSS ``rgb(r, g, b)`` colour (WCAG 2)."""
    r, g, b = (int(x) / 255 for x in re.findall(r"\d+", css)[:3])
    lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


class Screen:
    """The clock screen at one size, without a login, and every response its page received."""

    def __init__(self, browser: Any, floor: FloorProc, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.page = self.context.new_page()
        self.page.set_default_timeout(TIMEOUT_MS)
        self.received: list[str] = []
        self.page.on("response", lambda r: self.received.append(r.text()) if "/api/" in r.url else None)
        self.page.goto(floor.url + "/clock/main")
        assert self.page.url.endswith("/clock/main")  # (no login asked)

    def text(self, selector: str) -> str:
        return self.page.inner_text(selector)

    def readable(self) -> None:
        """Every figure within the screen (nothing to scroll to), big, white or yellow on black."""
        for sel in FIGURES:
            box = self.page.locator(sel).bounding_box()
            assert box is not None, sel
            assert box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= self.width + 0.5 \
                and box["y"] + box["height"] <= self.height + 0.5, (sel, box, self.width, self.height)
        assert self.page.evaluate("document.documentElement.scrollWidth") <= self.width
        assert self.page.evaluate("document.documentElement.scrollHeight") <= self.height
        time_px = float(self.page.locator("#time").evaluate("e => getComputedStyle(e).fontSize").rstrip("px"))
        smallest = min(float(self.page.locator(s).evaluate("e => getComputedStyle(e).fontSize").rstrip("px"))
                       for s in FIGURES)
        # a TV across the room: the time a third of the screen's height; a phone: still larger
        # than any text of the floor's own page
        assert time_px >= (0.25 * self.height if self.height >= 1000 else 72), time_px
        assert smallest >= (40 if self.height >= 1000 else 20), smallest
        back = self.page.evaluate("getComputedStyle(document.body).backgroundColor")
        for sel in ("#time", "#level", "#blinds", "#players"):
            colour = self.page.locator(sel).evaluate("e => getComputedStyle(e).color")
            assert contrast(colour, back) >= 7, (sel, colour, back)  # (WCAG's AAA for text)

    def close(self) -> None:
        self.context.close()


def test_the_clock_screen_is_readable_on_a_tv_and_a_phone_and_updates_live(setup):
    floor, signals, tables, browser = setup
    screens = [Screen(browser, floor, 1920, 1080), Screen(browser, floor, 390, 844)]
    try:
        for s in screens:
            s.page.locator("#state", has_text="Not started").wait_for()
            assert s.text("#time") == "20:00" and s.text("#level") == "Level 1"
            assert s.text("#title") == "Sunday Deepstack"
            s.page.locator("#players", has_text="35").wait_for()  # 9 + 8 + 7 + 6 + 5, from the rosters
            assert s.text("#tables") == "5"
        maria = Floor(floor)
        maria.ok(action="start")
        maria.ok(action="add", seconds=-300)  # 15:00 left
        for s in screens:
            s.page.locator("#state").wait_for(state="hidden")
            wait_until(lambda s=s: re.fullmatch(r"1[45]:[0-5]\d", s.text("#time")), 20, what="the time counting")
            assert s.text("#blinds") == "25 / 50" and s.text("#next") == "Break"
            assert re.fullmatch(r"1[45]:[0-5]\d", s.text("#break"))
            s.readable()
        tables["t5"].state(seats=[])  # t5 has broken: its players gone
        maria.ok(action="skip")
        for s in screens:
            s.page.locator("#level", has_text="Break").wait_for()
            s.page.locator("#tables", has_text="4").wait_for()
            assert s.text("#players") == "30" and s.text("#blinds") == "Level 2 next"
            assert s.text("#next") == "50 / 100 · ante 10" and s.text("#break") == "—"
            s.readable()
        maria.ok(action="skip")  # (back at level 2 for the next test)
        for s in screens:  # what the public page received: the clock and two counts, nothing of a table
            assert s.received
            for body in s.received:
                assert set(json.loads(body)) == {"tournament", "title", "clock", "players", "tables", "h4h"}
                for secret in TABLES + ("seat", "card", "alert", "bubble", "holding"):
                    assert secret not in body, secret
    finally:
        for s in screens:
            s.close()


def test_the_hand_for_hand_board_shows_each_table_and_one_press_releases_them_all(setup):
    floor, signals, tables, browser = setup
    maria = Watched(browser, floor, "maria")
    page = maria.page
    try:
        page.goto(floor.url + "/tournament")
        box = page.locator('section[data-tournament="main"]')
        box.locator("button[data-action='h4h-on']").click()
        box.locator(".h4h-line", has_text="ON · round 1: 0 done, 5 dealing, 0 offline").wait_for()
        wait_until(lambda: all(last(signals, t) is not None and last(signals, t).h4h for t in TABLES), 20,
                   what="hand-for-hand at every table")
        # t1 and t2 finish their hand (their records), t3 says it holds (its state), t4 deals on,
        # t5 loses its link (its will): offline, and holding
        tables["t1"].hand(record={"hand": 20, "stub_count": 30})
        tables["t2"].hand(record={"hand": 21, "stub_count": 30})
        tables["t3"].state(seats=list(range(1, 8)), hand=22, holding="h4h", level=2)
        tables["t5"].go_offline()
        # a card dealt at t4 before the release: the table's floor alert
        tables["t4"].publish("events/floor", {"type": "Alert", "seq": tables["t4"].next_seq(), "ts": 1.0,
                                              "audience": "floor", "code": "flow.dealt_before_release",
                                              "rule": "FLOW-002", "hand": 24, "seat": 3})
        box.locator(".h4h-line", has_text="3 done, 1 dealing, 1 offline (holding)").wait_for()
        rows = {t: box.locator(f'tr[data-table="main/{t}"]') for t in TABLES}
        for t in ("t1", "t2", "t3"):
            assert rows[t].get_attribute("class") == "done"
            assert rows[t].locator(".status").inner_text() == "done, holding"
            assert re.fullmatch(r"\d+:\d\d", rows[t].locator(".took").inner_text())
        assert rows["t4"].get_attribute("class") == "dealing"
        assert rows["t5"].locator(".status").inner_text() == "OFFLINE, holding"
        rows["t4"].locator(".notes", has_text="card dealt before the release (hand 24)").wait_for()
        assert rows["t3"].locator(".level").inner_text() == "2"
        # the alert is on the room's page too, with the table, as every alert
        assert "flow.dealt_before_release" in json.dumps(Floor(floor).get("/api/room")[1]["alerts"])
        rounds = {t: last(signals, t).round for t in TABLES}
        box.locator("button[data-action='release']").click()
        wait_until(lambda: all(last(signals, t).round == rounds[t] + 1 for t in TABLES), 20,
                   what="the release at every table (t5's retained for it)")
        box.locator(".h4h-line", has_text="ON · round 2: 0 done, 4 dealing, 1 offline").wait_for()
        # the player clock, from the page: t2's seat 4
        box.locator("select.clock-table").select_option(label="t2 · main")
        box.locator("select.clock-seat").select_option("4")
        box.locator("button[data-action='clock']").click()
        wait_until(lambda: (last(signals, "t2").clock_seat, last(signals, "t2").clock_n) == (4, 1), 20,
                   what="the player clock at t2")
        rows["t2"].locator(".notes", has_text="clock: seat 4 (call 1)").wait_for()
        # the bubble: t1's all-in holds the room, shown until its hand's record comes
        box.locator("button[data-action='bubble-on']").click()
        box.locator(".bubble-line", has_text="ON").wait_for()
        tables["t1"].publish("events/floor", {"type": "Alert", "seq": tables["t1"].next_seq(), "ts": 1.0,
                                              "audience": "floor", "code": "flow.bubble_allin", "rule": "FLOW-003",
                                              "hand": 50, "seat": 2})
        box.locator(".bubble-line", has_text="t1 hand 50 holds the room").wait_for()
        wait_until(lambda: last(signals, "t3").bubble, 20, what="the hold at t3")
        tables["t1"].hand(record={"hand": 50, "stub_count": 30})
        wait_until(lambda: "holds the room" not in box.locator(".bubble-line").inner_text(), 20,
                   what="the hold over on the page")
        assert box.locator(".bubble-line").inner_text() == "ON"
        # what the floor's page holds of the room's tables is the floor role's: the clock screen
        # link is there, and the action said
        assert box.locator("a", has_text="clock screen").get_attribute("href") == "/clock/main"
        assert "done: main: bubble on" in page.inner_text("#said")
    finally:
        maria.close()
