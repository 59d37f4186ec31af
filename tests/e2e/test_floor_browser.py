"""The floor's page in a real browser: Debian's chromium driven by Playwright (no browser
downloaded: ``executable_path`` is the system's), against ``tablectl floor`` as a subprocess and
a real mosquitto.

The last test's table is the real daemon, a subprocess dealing a simulated table with its room
link on: a foul card dealt shows on the page, its acknowledgement from the page is journalled by
the table with the user, and the dealer named from the page and the control socket is in the
table's own records. The other tests publish as :class:`rig.floor.FakeTable`: what they
check is the floor's side alone (what the page shows, to whom, and what the service sends on
``cmd``), which depends only on the messages on the broker, and those messages are the ones the
real link sends (docs/room.md; the real test checks the same path end to end). A fake table
also gives what a real one cannot give at will or quickly: a table going offline, a reader
down, a broken hand chain, chosen cards for the role checks, a refused command."""

from __future__ import annotations

import os
import re
import time
from typing import Any

import pytest

from rig.broker import Broker, have_mosquitto
from rig.browser import CHROMIUM, launch_chromium
from rig.floor import PASSWORDS, FakeTable, FloorProc, add_users, has_card
from rig.waiting import wait_until

TIMEOUT_MS = 15_000
#: the room's sections (pits) in the floor's configuration; other tables are in none
SECTIONS = '"Pit A" = ["main/t7", "t8", "t9"]\n"High limit" = ["main/h1", "main/h2"]\n'
#: [floor] login_delay (seconds): what a throttled address waits (the product's default is 1).
#: The throttle test's next login (the right password, which must be refused) comes about a
#: second after the try that started the delay on a loaded machine (the floor's audit log: 0.8 to
#: 1.1 s), so 5 s leaves it several times that; and the test waits the delay out once (it waited
#: 20 s before, a fifth of the module's time).
LOGIN_DELAY = 5


def browser_or_skip():
    """Playwright's sync API, once the broker and the browser the page tests need are here
    (scripts/test installs both)."""
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it)")
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed (scripts/test installs it: apt-get install chromium)")
    sync_api = pytest.importorskip("playwright.sync_api")
    return sync_api


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    sync_api = browser_or_skip()
    folder = tmp_path_factory.mktemp("floor_browser")
    (folder / "broker").mkdir()
    broker = Broker(folder / "broker")
    broker.start()
    # main/t7 (the fake table) and r1/t5, r1/t6 (real daemons) sign their records; the floor has their keys
    from controller.room.signing import Signer, new_key_pair

    keys = {name: new_key_pair() for name in ("main/t7", "r1/t5", "r1/t6")}
    tables = "".join(f'"{name}" = "{public}"\n' for name, (_, public) in keys.items())
    # (a command unanswered for 2 s: failed; a throttled address waits LOGIN_DELAY)
    floor = FloorProc(folder, broker, extra=f"command_timeout = 2\nlogin_delay = {LOGIN_DELAY}\n"
                                            f"[floor.tables]\n{tables}[floor.sections]\n{SECTIONS}")
    floor.keys = keys  # type: ignore[attr-defined]
    add_users(floor)
    floor.start()
    table = FakeTable(broker, signer=Signer(bytes.fromhex(keys["main/t7"][0])))
    table.state()
    with sync_api.sync_playwright() as p:
        browser = launch_chromium(p)
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

    def __init__(self, browser: Any, floor: FloorProc, name: str, *, viewport: tuple[int, int] | None = None,
                 **context: Any) -> None:
        self.context = browser.new_context(**({"viewport": {"width": viewport[0], "height": viewport[1]}}
                                              if viewport else {}), **context)
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
    """The technician sees a deck fault's code and rule id (a code is not a card:
    docs/decisions/0020-the-floor-who-sees-what.md), never its card, its message or a UID; the viewer no alert."""
    floor, table, browser, person = setup
    tom, vic = person("tom"), person("vic")
    seq = table.foul_card("Jc", seat=6)
    table.state(hand=21, stub_count=30)
    item = tom.page.wait_for_selector(f'li[data-alert="main/t7#{seq}"]')
    assert "DECK-006" in item.inner_text() and "seat 6" in item.inner_text()
    assert "deck.foreign_card" in item.inner_text()  # the deck fault's code, on the page
    assert any('"code": "deck.foreign_card"' in r and f'"seq": {seq}' in r for r in tom.received)  # and its frame
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
            assert "is not a card of deck" not in r  # (the alert's message names the card)
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
                       "alerts": [{"rule": "BURN-003", "code": "burn.missing", "message": "no burn before the river",
                                   "ts": 1767225642.5}],
                       "started": 1767225600.0, "stub_count": 30, "down": 3,
                       "showdown": {"seats": [1, 4, 6], "high": [1], "hands": {"1": "pair of nines", "4": "king high"},
                                    "dead": {"6": 3},
                                    "runs": [{"board": ["Ts", "Jd", "Qc", "4s", "2c"], "high": [1],
                                              "hands": {"1": "pair of nines"}},
                                             {"board": ["Ts", "Jd", "Qc", "Kh", "Kc"], "high": [4],
                                              "hands": {"4": "three of a kind, kings"}}]}})
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
        assert "+42.5 s · BURN-003 · burn.missing" in text  # (when in the hand it came)
        shown = [r.inner_text().split("\t") for r in page.query_selector_all("#hand tr.showdown-seat")]
        assert shown == [["seat 1", "pair of nines", "wins"], ["seat 4", "king high", ""],
                         ["seat 6", "dead hand (3 cards)", ""]]
        runs = [r.inner_text().split("\t") for r in page.query_selector_all("#hand tr.showdown-run")]  # BOARD-011
        assert runs == [["run 1", "Ts Jd Qc 4s 2c", "wins: seat 1 (pair of nines)"],
                        ["run 2", "Ts Jd Qc Kh Kc", "wins: seat 4 (three of a kind, kings)"]]
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
        before = len(table.commands)
        maria.page.click("#decks-send")
        # what the table would refuse the floor refuses at once, with the table's bounds (issue 38)
        maria.page.locator("#cmd-status", has_text="refused: decks: manifest '../C.txt': give a file name").wait_for()
        maria.page.fill("#decks-manifest1", "E.txt")  # (a file name, but not a file the table has)
        maria.page.click("#decks-send")
        maria.page.locator("#cmd-status",
                           has_text="refused by the table: decks: manifest 'E.txt' in /etc/tablectl/manifests: "
                                    "no such file").wait_for()
        assert [c["decks"][0]["manifest"] for c in table.commands[before:] if c.get("cmd") == "decks"] == ["E.txt"]
    finally:
        maria.page.click("#manage-close")


def test_five_acknowledgements_on_one_table_each_confirmed_on_a_second_page(setup):
    floor, table, browser, person = setup
    maria, ana = person("maria"), person("ana")
    seqs = [table.foul_card(card, seat=s) for card, s in (("2c", 1), ("3d", 2), ("4h", 3), ("5s", 4), ("6c", 5))]
    for seq in seqs:
        maria.page.click(f'li[data-alert="main/t7#{seq}"] button.ack')
    for seq in seqs:  # each one confirmed by the table, on the other floor user's page
        done = ana.page.wait_for_selector(f'li[data-alert="main/t7#{seq}"].acked')
        assert "acknowledged by floor:maria" in done.inner_text()
    acks = [c for c in table.commands if c.get("cmd") == "ack" and c.get("seq") in seqs]
    assert sorted(c["seq"] for c in acks) == seqs and len({c["id"] for c in acks}) == 5


def test_a_command_to_a_table_offline_is_queued_then_delivered_when_it_is_back(setup):
    floor, _, browser, person = setup
    maria, ana = person("maria"), person("ana")
    t8 = FakeTable(floor.broker, table="t8")
    try:
        t8.state()
        seq = t8.foul_card("8c", seat=3)
        sel = f'li[data-alert="main/t8#{seq}"]'
        maria.page.wait_for_selector(sel)
        t8.go_offline()
        maria.page.wait_for_selector('div[data-table="main/t8"].offline')
        maria.page.click(f"{sel} button.ack")
        maria.page.locator(f"{sel} .cmd-status.queued", has_text="queued: table offline").wait_for()
        assert not any(c.get("cmd") == "ack" for c in t8.commands)  # (not delivered: the table is away)
        t8.come_back()
        t8.state()
        wait_until(lambda: any(c.get("cmd") == "ack" and c.get("seq") == seq for c in t8.commands), 15,
                   what="the queued ack delivered to the table once back")
        for w in (maria, ana):
            done = w.page.wait_for_selector(f"{sel}.acked")
            assert "acknowledged by floor:maria" in done.inner_text()
    finally:
        t8.stop()


def test_a_command_that_times_out_is_shown_failed_then_retried_and_confirmed(setup):
    floor, table, browser, person = setup
    maria, ana = person("maria"), person("ana")
    seq = table.foul_card("9h", seat=2)
    sel = f'li[data-alert="main/t7#{seq}"]'
    table.silent = True
    try:
        maria.page.click(f"{sel} button.ack")
        maria.page.locator(f"{sel} .cmd-status.failed", has_text="no answer from the table within 2 s").wait_for()
    finally:
        table.silent = False
    first = [c["id"] for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq]
    assert len(first) == 1
    maria.page.click(f"{sel} button.retry")
    for w in (maria, ana):
        done = w.page.wait_for_selector(f"{sel}.acked")
        assert "acknowledged by floor:maria" in done.inner_text()
    ids = [c["id"] for c in table.commands if c.get("cmd") == "ack" and c.get("seq") == seq]
    assert len(ids) == 2 and ids[0] == first[0] and ids[1] != ids[0]  # sent again under a new id


def test_a_table_of_an_earlier_release_refusing_with_no_id_shows_the_command_failed_with_why(setup):
    """A table of the release before issue 38 refuses a request it cannot read with ``"id": null``
    (docs/floor.md, "A room upgraded table by table"): the page cannot know which command it was;
    the acknowledgement waiting fails at its timeout, saying the table refused a request it could
    not read and why, with Retry."""
    floor, table, browser, person = setup
    maria = person("maria")
    seq = table.foul_card("8h", seat=3)
    sel = f'li[data-alert="main/t7#{seq}"]'
    table.unread = "not a request: a number of more than 20 digits"
    try:
        maria.page.click(f"{sel} button.ack")
        failed = maria.page.locator(f"{sel} .cmd-status.failed",
                                    has_text="no answer from the table within 2 s; meanwhile the table refused a "
                                             "request it could not read")
        failed.wait_for()
        assert "not a request: a number of more than 20 digits" in failed.inner_text()
    finally:
        table.unread = None
    maria.page.click(f"{sel} button.retry")
    maria.page.wait_for_selector(f"{sel}.acked")


def test_a_forged_ack_with_the_tables_credentials_is_never_shown_as_a_floor_users(setup):
    floor, table, browser, person = setup
    maria, ana = person("maria"), person("ana")
    seq = table.foul_card("Td", seat=5)
    sel = f'li[data-alert="main/t7#{seq}"]'
    ana.page.wait_for_selector(sel)
    table.publish("events/floor", {"type": "Ack", "ts": 1767225999.0, "audience": "floor", "ack_seq": seq,
                                   "code": "deck.foreign_card", "user": "floor:maria", "command": "forged-1",
                                   "seq": table.next_seq()})
    tile = maria.page.locator('div[data-table="main/t7"]', has_text="the table had no right to send")
    tile.wait_for()
    for w in (maria, ana):
        assert w.page.query_selector(f"{sel}.acked") is None
        assert w.page.query_selector(f"{sel} button.ack") is not None  # still open, still answerable
    assert "a message refused" in floor.log.read_text() and "forged-1" in floor.log.read_text()


def test_a_seq_of_a_billion_is_flagged_once_and_asks_no_replay(setup):
    floor, table, browser, person = setup
    maria = person("maria")
    t9 = FakeTable(floor.broker, table="t9")
    try:
        t9.state()
        t9.foul_card("3s", seat=1)
        maria.page.wait_for_selector('li[data-alert="main/t9#1"]')
        for _ in range(3):
            t9.publish("events/floor", {"type": "Alert", "ts": 1767225999.0, "audience": "floor", "code": "floor.call",
                                        "hand": 1, "message": "the dealer calls the floor", "seq": 10 ** 9})
        maria.page.locator('div[data-table="main/t9"]', has_text="1 message(s) the table had no right").wait_for()
        t9.foul_card("4s", seat=2)  # the table's next real alert still lands, and nothing is asked again
        maria.page.wait_for_selector('li[data-alert="main/t9#2"]')
        assert not any(c.get("cmd") == "replay" for c in t9.commands)
        assert floor.log.read_text().count("is more than 10,000 ahead of the last seen") == 1
    finally:
        t9.stop()


@pytest.mark.e2e
def test_a_table_run_twice_with_fresh_journals_keeps_every_alert_of_both(setup, tmp_path):
    """The same table name simulated twice (a new SD card, a reinstalled Pi): the second
    journal numbers its messages from 1 again under a new epoch; the page shows every alert of
    both runs, and the tile that the journal started over."""
    import json

    from hw_sim.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
    from rig.scenarios import NOISE

    floor, _, browser, person = setup
    maria, ana = person("maria"), person("ana")
    foul = hole()[:3] + [deal("2h@B", 6)] + CLEAN[4:-1] + [END]
    script = parse_script(json.dumps({"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
                                      "noise": dict(NOISE, seed=3), "hands": [{"steps": foul}]}))
    for run in ("one", "two"):
        work = tmp_path / run
        work.mkdir()
        run_script(script, workdir=work, room=room_section(floor.broker.url, "r2", "t1"))
    wanted = 'li.alert[data-alert^="r2/t1#"]'
    wait_until(lambda: len({e.get_attribute("data-alert").split("@")[1]
                            for e in ana.page.query_selector_all(wanted)}) == 2, 20,
               what="the alerts of both journals on the page")
    items = ana.page.query_selector_all(wanted)
    by_epoch: dict[str, list[str]] = {}
    for e in items:
        seq, epoch = e.get_attribute("data-alert").split("#")[1].split("@")
        by_epoch.setdefault(epoch, []).append(seq)
    assert len(by_epoch) == 2 and sorted(by_epoch[next(iter(by_epoch))]) == sorted(list(by_epoch.values())[1])
    maria.page.locator('div[data-table="r2/t1"]', has_text="started over").wait_for()


def test_a_gap_of_an_earlier_journal_is_noted_lost_on_the_tile_and_asked_no_more(setup):
    """Alerts 1 and 4 of a journal, then the table's journal starts over: 2 and 3 can never come
    (issue 38). The tile says so, to the floor and the technician; the viewer's tile does not;
    nothing more is asked of the table."""
    floor, _, _, person = setup
    maria, tom, vic = person("maria"), person("tom"), person("vic")
    t6 = FakeTable(floor.broker, table="t6")
    t6.silent = True  # (its answer would race the new journal's first message)
    try:
        t6.state()
        for seq, epoch in ((1, "e0000000000a1"), (4, "e0000000000a1"), (1, "e0000000000b2")):
            t6.publish("events/floor", {"type": "Alert", "ts": 1767225999.0, "audience": "floor", "hand": 1,
                                        "code": "deck.foreign_card", "seq": seq, "epoch": epoch})
        note = "2 messages lost: an earlier journal"
        for who in (maria, tom):
            who.page.locator('div[data-table="main/t6"]', has_text=note).wait_for()
        # (the replay is published as seq 4 is taken; it reaches the table on the broker's time,
        # which may be after the page has the note)
        def replays() -> list[tuple[Any, Any]]:
            return [(c["from"], c.get("to")) for c in t6.commands if c.get("cmd") == "replay"]
        wait_until(replays, 10, what="the floor's replay of the gap at t6")
        assert replays() == [(2, 3)]
        vic.page.locator('div[data-table="main/t6"]').wait_for()
        assert note not in vic.page.locator('div[data-table="main/t6"]').inner_text()
        assert "main/t6 events/floor: a gap closed unfilled: 2 messages lost: an earlier journal" in \
            floor.log.read_text()
    finally:
        t6.stop()


def test_a_hand_record_with_a_valid_chain_but_no_valid_signature_is_flagged(setup):
    """Whoever can publish on the table's topics (the broker's owner, another client's password)
    can compute a valid hash chain; only the table can sign. The floor, which has the table's
    public key, flags the forgery (the tile, the log) and keeps it out of the records, so the
    table's own record with that seq still lands."""
    import hashlib
    import json
    import time

    floor, table, browser, person = setup
    maria = person("maria")
    table.hand(record={"hand": 51, "game": "holdem", "zones": {"seat:2": ["Qs", "Qd"]}, "alerts": [],
                       "stub_count": 40})
    seq = table.hand_seq + 1
    forged = {"type": "HandFinished", "hand": 52, "ts": time.time(), "seq": seq, "prev": table.last_hash,
              "record": {"hand": 52, "game": "holdem", "zones": {"seat:2": ["As", "Ad"]}, "alerts": [],
                         "stub_count": 40}}
    forged["hash"] = hashlib.sha256(json.dumps(forged, sort_keys=True, separators=(",", ":")).encode()).hexdigest()
    table.publish("hands", forged, sign=False)  # a valid chain, no signature
    maria.page.locator('div[data-table="main/t7"]', has_text="the table had no right to send").wait_for()
    table.hand(record={"hand": 52, "game": "holdem", "zones": {"seat:2": ["3h", "3c"]}, "alerts": [],
                       "stub_count": 40})  # the table's own record, the same seq
    assert table.hand_seq == seq
    page = maria.context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    try:
        page.goto(floor.url + "/hands")
        page.fill("#q-table", "main/t7")  # (other tests' tables deal real cards)
        page.fill("#q-card", "3c")
        page.click("#q-go")
        wait_until(lambda: len(page.query_selector_all("tr.hand-row")) == 1, 10, what="the table's own hand found")
        page.click("tr.hand-row")
        page.locator("#hand", has_text="intact").wait_for()
        page.fill("#q-card", "Ad")
        page.click("#q-go")
        wait_until(lambda: not page.query_selector_all("tr.hand-row"), 10, what="the forgery not among the hands")
    finally:
        page.close()
    assert f"hands seq {seq}: no signature" in floor.log.read_text()


def test_the_hands_search_pages_its_results_with_a_count_and_takes_a_card_in_any_case(setup):
    """Issue 29: a table's 60 hands, 50 a page: the count, the newest 50, Next the other 10,
    Previous back; a card typed in lower case ("as") finds the hand with the ace of spades; what
    is not a card is refused with its field named."""
    floor, _, browser, person = setup
    maria = person("maria")
    t29 = FakeTable(floor.broker, table="t29")  # (a table of its own: the other tests' hands stay out)
    try:
        t29.state()
        for n in range(1, 61):
            t29.hand(record={"hand": n, "game": "holdem", "alerts": [], "stub_count": 30,
                             "zones": {"seat:1": ["As", "Kd"] if n == 3 else ["7c", "8d"]}})
        api = floor.url + "/api/hands?table=main/t29&limit=1"
        wait_until(lambda: maria.context.request.get(api).json()["total"] == 60, 15, what="the 60 hands at the floor")
    finally:
        t29.stop()
    # the API: a page of 2 from the 58th of the 59 hands with the 8 of diamonds (all but hand 3)
    got = maria.context.request.get(floor.url + "/api/hands?table=main/t29&card=8D&limit=2&offset=57").json()
    assert [(h["hand"], got["total"], got["offset"], got["limit"]) for h in got["hands"]] == [(2, 59, 57, 2),
                                                                                              (1, 59, 57, 2)]
    for bad, why in (("limit=0", "limit: want a whole number from 1 to 200"), ("limit=201", "limit: want"),
                     ("offset=-1", "offset: want a whole number from 0"), ("offset=1e3", "offset: want"),
                     ("card=A", "card: want a card like Ah or 7c, got 'A'"), ("card=1h", "card: want")):
        answer = maria.context.request.get(floor.url + "/api/hands?" + bad)
        assert answer.status == 400 and answer.json()["error"].startswith(why), (bad, answer.text())
    page = maria.context.new_page()
    page.set_default_timeout(TIMEOUT_MS)

    def rows() -> list[str | None]:
        return [r.get_attribute("data-hand") for r in page.query_selector_all("tr.hand-row")]

    def shown(first: int, last: int) -> list[str | None]:  # hands first..last, newest (the highest) first
        return [f"main/t29#{n}" for n in range(first, last - 1, -1)]

    try:
        page.goto(floor.url + "/hands")
        page.fill("#q-table", "main/t29")
        page.click("#q-go")
        page.locator("#hands-count", has_text="60 hands (1–50 shown)").wait_for()
        wait_until(lambda: rows() == shown(60, 11), 10, what="the newest 50 hands")
        assert page.is_disabled("#hands-prev") and page.is_enabled("#hands-next")
        page.fill("#q-table", "t7")  # (typed, not searched: Next pages the search made)
        page.click("#hands-next")
        page.locator("#hands-count", has_text="60 hands (51–60 shown)").wait_for()
        wait_until(lambda: rows() == shown(10, 1), 10, what="the other 10 hands")
        assert page.is_enabled("#hands-prev") and page.is_disabled("#hands-next")
        page.click("#hands-prev")
        wait_until(lambda: rows() == shown(60, 11), 10, what="the newest 50 hands again")
        page.fill("#q-table", "main/t29")
        page.fill("#q-card", "as")
        page.click("#q-go")
        page.locator("#hands-count", has_text="1 hand").wait_for()
        wait_until(lambda: rows() == ["main/t29#3"], 10, what="the hand with the ace of spades")
        assert page.inner_text("#hands-count") == "1 hand"
        assert page.is_disabled("#hands-prev") and page.is_disabled("#hands-next")
        page.fill("#q-card", "AS")
        page.click("#q-go")
        wait_until(lambda: rows() == ["main/t29#3"], 10, what="the same hand, typed in capitals")
        page.fill("#q-card", "Ax")
        page.click("#q-go")
        page.locator("#error", has_text="card: want a card like Ah or 7c, got 'Ax'").wait_for()
        wait_until(lambda: rows() == [], 10, what="no hand listed for what is not a card")
        assert page.inner_text("#hands-count") == "" and page.is_disabled("#hands-next")
    finally:
        page.close()


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


def test_a_login_throttled_is_not_an_account_locked_out(setup):
    """Wrong passwords from this browser's address: then even the right one is refused, with the
    same words, until the delay has passed; then it logs in (no lock to wait out, no admin)."""
    floor, _, browser, _ = setup
    context = browser.new_context()
    try:
        page = context.new_page()
        page.set_default_timeout(TIMEOUT_MS)

        def try_login(password: str) -> str:
            page.goto(floor.url + "/login")
            page.fill("#name", "vic")
            page.fill("#password", password)
            page.click("#login")
            page.wait_for_load_state()
            return page.url

        for i in range(3):  # (three free tries from one address; then LOGIN_DELAY to wait)
            assert try_login(f"not it {i}").endswith("/login")
            assert "wrong name or password" in page.inner_text("#error")
        assert try_login(PASSWORDS["vic"]).endswith("/login")  # throttled: the right one refused alike
        assert "wrong name or password" in page.inner_text("#error")
        wait_until(lambda: not try_login(PASSWORDS["vic"]).endswith("/login"), 60,
                   what="the right password accepted once the delay has passed")
        page.wait_for_selector("#tiles")
    finally:
        context.close()
    log = floor.log.read_text()
    assert "Traceback" not in log


@pytest.mark.e2e
def test_the_real_daemon_a_satellite_waits_for_the_approval_given_on_the_floors_page(setup, tmp_path):
    """FLOW-007 through every part: the dealer starts a single-table satellite (``mode satellite``
    on the table's control socket: a script's press), the floor's page shows the table waiting
    (the rule's meaning and the message), **Manage**, **Approve the satellite** reaches the daemon
    over ``cmd``, which journals it with the user and lets the deal begin: the hand dealt after
    it is no fault, the report's hold ends at the approval."""
    import json
    import sqlite3

    from hw_sim.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, SEATS
    from rig.scenarios import NOISE

    floor, _, browser, person = setup
    maria = person("maria")
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=7),
              "hands": [{"steps": [{"press": "mode", "mode": "satellite"}] + CLEAN}]}
    seen: dict[str, Any] = {}

    def step(number: int) -> None:
        if number != 1:  # the satellite started: the floor approves it before any card is dealt
            return
        item = maria.page.wait_for_selector('li.alert[data-alert^="r1/t6#"]:has-text("FLOW-007")')
        seen["text"] = item.inner_text()
        maria.page.click('div[data-table="r1/t6"] button.manage')
        try:
            maria.page.click("#approve-send")
            maria.page.locator("#cmd-status", has_text="confirmed by the table").wait_for()
        finally:
            maria.page.click("#manage-close")

    key = tmp_path / "t6.signing-key"
    key.write_text(floor.keys["r1/t6"][0] + "\n")
    key.chmod(0o600)
    report = run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_step=step,
                        room=room_section(floor.broker.url, "r1", "t6") + f'signing_key = "{key}"\n')
    assert "Satellite start gate" in seen["text"] and "waits for the floor's approval" in seen["text"]
    assert report["holds"] == [{"kind": "satellite", "from_step": 1, "released_step": 1}]
    assert report["hands"][0]["alerts"] == [] and report["hands"][0]["button"] == max(SEATS)
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    rows = db.execute("SELECT user, cmd FROM room_commands ORDER BY ts").fetchall()
    assert [(u, json.loads(c)["cmd"]) for u, c in rows] == [("floor:maria", "approve")]


@pytest.mark.e2e
def test_the_real_daemon_a_foul_card_acknowledged_from_the_page_is_journalled_with_the_user(setup, tmp_path):
    """The table is the daemon itself, a subprocess (tablectl simulate's run_script with the room
    link on), not the fake table: a card of the other deck dealt (DECK-006) shows on the floor's
    page with its card, the technician's page shows it without; Acknowledge reaches the daemon,
    which journals it with the user, and the second floor browser shows it acknowledged.

    Who deals (RELIEF-003), through both inputs: the control socket names Ann Lee during hand 1
    (a bad name refused saying why); the floor's page enters Bo Chen ahead, for the relief pad;
    the relief pressed during hand 2 (Ann finishes it) makes Bo current. The table's own records
    (its journal, the floor's copy) name Ann for hands 1 and 2, its alerts too."""
    import json
    import sqlite3

    from controller.daemon import control
    from hw_sim.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
    from rig.scenarios import NOISE

    from controller.core.cards import setup_order
    from hw_sim.decks import sim_uid
    from rig.broker import Subscriber

    floor, _, browser, person = setup
    maria, ana, tom, vic = person("maria"), person("ana"), person("tom"), person("vic")
    everything = Subscriber(floor.broker.port, ["tablectl/r1/t5/#"]).start()  # (the plain test broker: all topics)
    foul = hole()[:3] + [deal("2h@B", 6)] + CLEAN[4:-1] + [END]
    relieved = CLEAN[:5] + [{"press": "relief"}] + CLEAN[5:]
    script = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3),
              "hands": [{"steps": foul}, {"steps": relieved}]}
    seen: dict[str, Any] = {}
    sock = str(tmp_path / "control.sock")

    def step(number: int) -> None:
        if number == 1:  # the first card is out: the control socket names hand 1's dealer
            seen["bad"] = control.send(sock, {"cmd": "dealer", "name": "Ann\tLee"})
            seen["named"] = control.send(sock, {"cmd": "dealer", "name": "Ann Lee"})

    def after(number: int, proc: Any) -> None:
        if number == 2:
            tile = maria.page.locator('div[data-table="r1/t5"]', has_text="Bo Chen")
            tile.wait_for()  # (the relief made Bo current: the table's state says so)
            seen["tile"] = tile.inner_text()
            return
        item = maria.page.wait_for_selector('li.alert[data-alert^="r1/t5#"]:has-text("2h")')
        seen["text"] = item.inner_text()
        seen["id"] = item.get_attribute("data-alert")
        tom_item = tom.page.wait_for_selector(f'li[data-alert="{seen["id"]}"]')
        seen["tom"] = tom_item.inner_text()
        item.query_selector("button.ack").click()
        done = ana.page.wait_for_selector(f'li[data-alert="{seen["id"]}"].acked')
        seen["ana"] = done.inner_text()
        # the incoming dealer's name, entered ahead on the page, for the relief pad
        maria.page.click('div[data-table="r1/t5"] button.manage')
        try:
            maria.page.fill("#dealer-name", "Bo  Chen")
            maria.page.check("#dealer-at-relief")
            maria.page.click("#dealer-send")
            maria.page.locator("#cmd-status", has_text="confirmed by the table").wait_for()
        finally:
            maria.page.click("#manage-close")

    key = tmp_path / "t5.signing-key"
    key.write_text(floor.keys["r1/t5"][0] + "\n")
    key.chmod(0o600)
    run_script(parse_script(json.dumps(script)), workdir=tmp_path, on_hand=after, on_step=step,
               room=room_section(floor.broker.url, "r1", "t5") + f'signing_key = "{key}"\n')
    assert "DECK-006" in seen["text"] and "2h@B" in seen["text"]
    assert "t5 · seat 6 · hand 1 · DECK-006" in seen["text"]  # (the seat the card reached, read by the table)
    # the dealer's "new setup" (an alert to the dealer: events/dealer) in the floor's incident lane,
    # never in the technician's (a deck's, not a device's)
    maria.page.locator('#incidents li[data-incident^="r1/t5#"]', has_text="deck.new_setup").wait_for()
    assert tom.page.query_selector('#incidents li[data-incident^="r1/t5#"]') is None
    assert not has_card(seen["tom"], "2h@B") and "DECK-006" in seen["tom"]
    assert "acknowledged by floor:maria" in seen["ana"]
    assert not any(has_card(r, "2h") for r in tom.received)  # (2h@B included: "@" ends a word)
    # the technician saw the real deck fault's code, never a tag's UID (16 hex digits) anywhere
    assert "deck.wrong_deck" in seen["tom"] and any("deck.wrong_deck" in r for r in tom.received)
    assert not any(re.search(r"(?i)(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])", r) for r in tom.received)
    assert seen["bad"] == {"ok": False, "error": "dealer: the name must hold printable characters only "
                                                 "(no control character, tab or new line)"}
    assert seen["named"] == {"ok": True}
    assert "Bo Chen" in seen["tile"]
    db = sqlite3.connect(tmp_path / "journal.sqlite3")
    rows = db.execute("SELECT user, cmd FROM room_commands ORDER BY ts").fetchall()
    assert [(u, json.loads(c)["cmd"]) for u, c in rows] == [("floor:maria", "ack"), ("floor:maria", "dealer")]
    seq, epoch = seen["id"].split("#")[1].split("@")  # (a real table's journal has its own epoch)
    assert (json.loads(rows[0][1])["seq"], json.loads(rows[0][1])["epoch"]) == (int(seq), epoch)
    assert epoch == db.execute("SELECT value FROM meta WHERE key = 'epoch'").fetchone()[0]
    assert json.loads(rows[1][1]) == {"cmd": "dealer", "name": "Bo Chen", "at_relief": True}
    # every record the real table signed checked out at the floor, which has its public key
    fdb = sqlite3.connect(f"file:{floor.database}?mode=ro", uri=True)
    try:
        signed = fdb.execute("SELECT count(*) FROM messages WHERE room = 'r1' AND tbl = 't5' AND topic = 'hands' "
                             "AND json_extract(payload, '$.sig') IS NOT NULL").fetchone()[0]
        bad = fdb.execute("SELECT count(*) FROM chain_breaks WHERE room = 'r1' AND tbl = 't5'").fetchone()[0] + \
            fdb.execute("SELECT count(*) FROM suspects WHERE room = 'r1' AND tbl = 't5'").fetchone()[0]
    finally:
        fdb.close()
    assert signed == 2 and bad == 0
    # No registered card's UID (decks A and B) in any message the table sent, nor anything any role's
    # browser received (pages, frames, search results): a registered card is named by its card.
    found_hands = maria.page.request.get(floor.url + "/api/hands?table=r1/t5").text()  # the hands search too
    assert '"table": "t5"' in found_hands
    seen_extra = [found_hands]
    registered = {sim_uid(d, c).lower() for d in "AB" for c in setup_order()}
    everything.stop()
    sent = [m.decode(errors="replace").lower() for msgs in everything.messages.values() for m in msgs]
    assert sum(len(v) for v in everything.messages.values()) > 20
    seen = [r.lower() for w in (maria, ana, tom, vic) for r in w.received] + [t.lower() for t in seen_extra]
    for text in sent + seen:
        found = set(re.findall(r"(?<![0-9a-f])[0-9a-f]{16}(?![0-9a-f])", text)) & registered
        assert not found, text[:200]
    records = [json.loads(r) for r, in db.execute("SELECT record FROM hands ORDER BY number")]
    assert [(r["hand"], r.get("dealer")) for r in records] == [(1, "Ann Lee"), (2, "Ann Lee")]
    foul_alerts = [json.loads(d) for d, in db.execute("SELECT data FROM alerts WHERE code = 'deck.wrong_deck'")]
    assert foul_alerts and {a.get("dealer") for a in foul_alerts} == {"Ann Lee"}
    found = maria.context.request.get(floor.url + "/api/hands?dealer=Ann%20Lee&table=r1/t5").json()
    assert sorted(h["hand"] for h in found["hands"]) == [1, 2]
    alerts = maria.context.request.get(floor.url + "/api/alerts?dealer=Ann%20Lee").json()["alerts"]
    assert any(a["table"] == "t5" and a["rule"] == "DECK-006" for a in alerts)


# -- the board (issue 29) ----------------------------------------------------------------------
def audit(floor: FloorProc) -> list[tuple[str, str, str]]:
    """The floor's audit log, read from its database as a supervisor's report would."""
    import sqlite3

    db = sqlite3.connect(f"file:{floor.database}?mode=ro", uri=True)
    try:
        return [tuple(r) for r in db.execute("SELECT user, action, detail FROM audit ORDER BY id")]
    finally:
        db.close()


def order_of(page: Any, selector: str, keys: list[str]) -> list[str]:
    """``keys`` in the order the page lists them (``selector``'s items, by data-alert or data-table)."""
    found = [e.get_attribute("data-alert") or e.get_attribute("data-table") for e in page.query_selector_all(selector)]
    return [k for k in found if k in keys]


def test_calls_are_listed_oldest_first_each_with_its_wait_and_their_tiles_lead(setup):
    """Three tables call the floor, raised 6:40, 2:00 and 0:30 ago, out of order: the list has the
    longest wait on top, each with its wait, and the calling tables' tiles lead the board in that
    order, marked as calling."""
    floor, _, browser, person = setup
    ana = person("ana")
    tables = {name: FakeTable(floor.broker, table=name) for name in ("c1", "c2", "c3")}
    try:
        for t in tables.values():
            t.state()
        waits = {"c2": 30, "c3": 400, "c1": 120}
        seqs = {name: tables[name].floor_call(ago=ago) for name, ago in waits.items()}
        keys = [f"main/{name}#{seqs[name]}" for name in ("c3", "c1", "c2")]
        for k in keys:
            ana.page.wait_for_selector(f'#calls li[data-alert="{k}"]')
        wait_until(lambda: order_of(ana.page, "#calls li", keys) == keys, 10, what="the calls oldest first")
        assert re.search(r"waiting 6:\d\d", ana.page.inner_text(f'#calls li[data-alert="{keys[0]}"]'))
        assert re.search(r"waiting 2:\d\d", ana.page.inner_text(f'#calls li[data-alert="{keys[1]}"]'))
        tiles = ["main/c3", "main/c1", "main/c2"]
        wait_until(lambda: order_of(ana.page, "#tiles .tile", tiles) == tiles, 10, what="the calling tiles in order")
        first = [e.get_attribute("data-table") for e in ana.page.query_selector_all("#tiles .tile.calling")]
        assert first[:3] == tiles or set(tiles) <= set(first)  # (another test's open calls may lead)
        # answered, the oldest leaves the top: the next wait leads
        ana.page.click(f'#calls li[data-alert="{keys[0]}"] button.ack')
        ana.page.wait_for_selector(f'#calls li[data-alert="{keys[0]}"].acked')
        wait_until(lambda: order_of(ana.page, "#calls li", keys) == keys[1:] + keys[:1], 10,
                   what="the answered call below the waiting ones")
    finally:
        for t in tables.values():
            t.stop()


def test_a_misdeal_is_in_the_dealer_lane_for_the_floor_only(setup):
    """The dealer's incidents (events/dealer's alerts) reach the floor's lane with table, seat and
    hand; the technician's lane has only the devices' own; the viewer receives none. The lane
    folds away and is not an alert to acknowledge."""
    floor, table, browser, person = setup
    maria, tom, vic = person("maria"), person("tom"), person("vic")
    misdeal = table.incident("misdeal.seat_skipped", "MISD-006", seat=4, hand=31,
                             message="seat 4 was skipped: misdeal")
    device = table.incident("device.reader_offline", None, seat=None, hand=31, message="the reader is offline")
    item = maria.page.wait_for_selector(f'#incidents li[data-incident="main/t7#{misdeal}"]')
    text = item.inner_text()
    assert "t7 · seat 4 · hand 31 · MISD-006" in text and "An entitled seat is skipped" in text
    assert "seat 4 was skipped: misdeal" in text
    maria.page.wait_for_selector(f'#incidents li[data-incident="main/t7#{device}"]')
    assert maria.page.locator("#alerts li", has_text="seat 4 was skipped").count() == 0  # (not an alert)
    tom.page.wait_for_selector(f'#incidents li[data-incident="main/t7#{device}"]')
    assert tom.page.query_selector(f'#incidents li[data-incident="main/t7#{misdeal}"]') is None
    assert not any("misdeal.seat_skipped" in r for r in tom.received)  # (not sent, not merely hidden)
    assert not any("the reader is offline" in r for r in tom.received)  # (a technician: codes, no message)
    assert vic.page.query_selector("li.incident") is None
    assert not any("misdeal.seat_skipped" in r or "reader_offline" in r for r in vic.received)
    # folded away and back: lower priority, out of the way
    maria.page.click("#incidents-section > summary")
    assert not maria.page.is_visible(f'#incidents li[data-incident="main/t7#{misdeal}"]')
    maria.page.click("#incidents-section > summary")
    assert maria.page.is_visible(f'#incidents li[data-incident="main/t7#{misdeal}"]')


@pytest.mark.parametrize("size", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_a_call_is_in_view_and_answered_on_a_tablet_and_a_phone(setup, size):
    """On a tablet on its side the calls stand beside the tables; on a phone they come first:
    either way the call and its Answer are on the first screen, and answering works."""
    floor, _, browser, person = setup
    w = Watched(browser, floor, "ana", viewport=size)
    t = FakeTable(floor.broker, table=f"v{size[0]}")
    try:
        t.state()
        seq = t.floor_call(ago=50)
        sel = f'#calls li[data-alert="main/v{size[0]}#{seq}"]'
        w.page.wait_for_selector(sel)
        calls, tiles = w.page.locator("#calls").bounding_box(), w.page.locator("#tiles").bounding_box()
        if size[0] < 900:
            assert calls["y"] < tiles["y"]  # the calls first
        else:
            assert calls["x"] > tiles["x"] and calls["y"] < size[1]  # beside the tables
        w.page.locator(sel).scroll_into_view_if_needed()
        box = w.page.locator(f"{sel} button.ack").bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= size[0]  # (no sideways scrolling to reach it)
        width = w.page.evaluate("document.documentElement.scrollWidth")
        assert width <= size[0], f"the page is {width} px wide on a {size[0]} px screen"
        w.page.click(f"{sel} button.ack")
        done = w.page.wait_for_selector(f"{sel}.acked")
        assert "answered by floor:ana" in done.inner_text()
    finally:
        t.stop()
        w.close()


def test_sections_filter_the_tables_calls_and_alerts(setup):
    """[floor.sections]: the filter narrows the board to one pit (its tiles, its calls, its
    alerts) or to the tables in none, and stays chosen when the page is opened again."""
    floor, table, browser, person = setup
    w = Watched(browser, floor, "maria")
    h1, x5 = FakeTable(floor.broker, table="h1"), FakeTable(floor.broker, table="x5")
    try:
        h1.state()
        x5.state()
        high = h1.foul_card("Ks", seat=3)
        pit_a = table.foul_card("Qh", seat=2)
        lone = x5.floor_call()
        for sel in (f'li[data-alert="main/h1#{high}"]', f'li[data-alert="main/t7#{pit_a}"]',
                    f'li[data-alert="main/x5#{lone}"]'):
            w.page.wait_for_selector(sel)
        options = [o.inner_text() for o in w.page.query_selector_all("#section-filter option")]
        assert options == ["All sections", "Pit A", "High limit", "No section"]
        w.page.select_option("#section-filter", "High limit")
        wait_until(lambda: w.page.is_hidden('div[data-table="main/t7"]'), 10, what="Pit A's table hidden")
        assert w.page.is_visible('div[data-table="main/h1"]') and w.page.is_visible(f'li[data-alert="main/h1#{high}"]')
        assert w.page.is_hidden(f'li[data-alert="main/t7#{pit_a}"]')
        assert w.page.is_hidden(f'li[data-alert="main/x5#{lone}"]')
        w.page.reload()
        w.page.wait_for_selector("#link.up")
        w.page.wait_for_selector('div[data-table="main/h1"]')
        assert w.page.input_value("#section-filter") == "High limit"
        assert w.page.is_hidden('div[data-table="main/t7"]')
        w.page.select_option("#section-filter", label="No section")
        wait_until(lambda: w.page.is_visible(f'li[data-alert="main/x5#{lone}"]'), 10, what="the table in no section")
        assert w.page.is_hidden('div[data-table="main/h1"]') and w.page.is_visible('div[data-table="main/x5"]')
        w.page.select_option("#section-filter", "")
        wait_until(lambda: w.page.is_visible('div[data-table="main/t7"]'), 10, what="every table again")
    finally:
        h1.stop()
        x5.stop()
        w.close()


def test_an_offline_tables_call_is_marked_stops_counting_and_is_dismissed(setup):
    """A table gone offline cannot answer: its call says so, its wait stops, and the floor can
    dismiss it (audit-logged, shown on every page); a table online is answered instead."""
    floor, table, browser, person = setup
    maria, ana = person("maria"), person("ana")
    o1 = FakeTable(floor.broker, table="o1")
    try:
        o1.state()
        seq = o1.floor_call(ago=65)
        sel = f'#calls li[data-alert="main/o1#{seq}"]'
        maria.page.wait_for_selector(sel)
        assert maria.page.query_selector(f"{sel} button.dismiss") is None  # online: answered, not dismissed
        csrf = maria.page.get_attribute('meta[name="csrf-token"]', "content")
        early = maria.context.request.post(floor.url + "/api/dismiss", data={"room": "main", "table": "o1", "seq": seq},
                                           headers={"X-CSRF-Token": csrf, "Origin": floor.url})
        assert early.status == 409 and "is online" in early.json()["error"]
        o1.go_offline()
        marked = maria.page.wait_for_selector(f"{sel}.offline")
        assert re.search(r"table offline · waited 1:\d\d", marked.inner_text())
        assert "waiting" not in marked.inner_text()
        maria.page.click(f"{sel} button.dismiss")
        for w in (maria, ana):
            done = w.page.wait_for_selector(f"{sel}.acked")
            assert "dismissed by floor:maria (table offline)" in done.inner_text()
        assert any(u == "maria" and a == "dismiss" and f"main/o1 epoch 0 seq {seq}" in d for u, a, d in audit(floor))
        assert not any(c.get("cmd") == "ack" for c in o1.commands)  # (nothing sent to a table that is away)
    finally:
        o1.stop()


def test_a_table_retired_from_the_board_and_back(setup):
    """Retired (closed for the night): its tile leaves the board for the retired strip on every
    page, with who did it; back on the board from there. Both audit-logged."""
    floor, _, browser, person = setup
    maria, ana = person("maria"), person("ana")
    r9 = FakeTable(floor.broker, table="r9")
    try:
        r9.state(hand=77)
        tile = 'div[data-table="main/r9"]'
        maria.page.wait_for_selector(f"#tiles {tile}")
        maria.page.click(f"#tiles {tile} button.manage")
        maria.page.click("#retire-send")
        for w in (maria, ana):
            w.page.wait_for_selector(f"#retired {tile}", state="attached")
            assert w.page.query_selector(f"#tiles {tile}") is None
        assert not maria.page.is_hidden("#retired-section")
        maria.page.click("#retired-section > summary")
        assert "by floor:maria" in maria.page.inner_text(f"#retired {tile}")
        maria.page.click(f"#retired {tile} button.restore")
        for w in (maria, ana):
            w.page.wait_for_selector(f"#tiles {tile}")
        log = [(u, a, d) for u, a, d in audit(floor) if "main/r9" in d]
        assert [(u, a) for u, a, _ in log] == [("maria", "retire"), ("maria", "restore")]
    finally:
        r9.stop()


def test_five_tables_at_simulate_pace_every_alert_on_three_pages_and_acks_confirmed(setup):
    """Five tables publishing at tablectl simulate's pace (a card event, a dealer prompt and a
    state each second, about 60 messages a second each) with alerts among them: every alert
    reaches all three pages, and an acknowledgement of one alert per table from one page is
    shown confirmed on the two others."""
    import json
    import threading
    import time

    floor, _, browser, person = setup
    pages = [person("maria"), person("ana"), person("tom")]
    tables = [FakeTable(floor.broker, table=f"s{i}") for i in range(1, 6)]
    stop = threading.Event()

    def deal_fast(t: FakeTable) -> None:
        hand, n = 100, 0
        while not stop.is_set():
            n += 1
            seq = t.next_seq()
            body = {"type": "CardPlaced", "ts": time.time(), "hand": hand, "card": "As", "zone": f"seat:{n % 9 + 1}",
                    "prev_zone": None, "audience": "floor", "seq": seq}
            t.sent[seq] = body
            t.client.publish(f"{t.prefix}/events/floor", json.dumps(body), qos=1)
            if n % 20 == 0:
                hand += 1
                t.state(hand=hand)
            time.sleep(1 / 60)

    threads = [threading.Thread(target=deal_fast, args=(t,), daemon=True) for t in tables]
    try:
        for t in tables:
            t.state()
        for th in threads:
            th.start()
        raised = [(t, t.foul_card(card, seat=s)) for t in tables for card, s in (("2d", 1), ("3h", 2), ("4s", 3))]
        for w in pages:
            for t, seq in raised:
                w.page.wait_for_selector(f'li[data-alert="main/{t.table}#{seq}"]', state="attached")
        for t, seq in raised[::3]:  # the first alert of each table, acknowledged by maria
            pages[0].page.click(f'li[data-alert="main/{t.table}#{seq}"] button.ack')
        for w in pages[1:]:
            for t, seq in raised[::3]:
                done = w.page.wait_for_selector(f'li[data-alert="main/{t.table}#{seq}"].acked', state="attached")
                assert "acknowledged by floor:maria" in done.inner_text()
            for t, seq in raised:
                if (t, seq) not in raised[::3]:
                    assert w.page.query_selector(f'li[data-alert="main/{t.table}#{seq}"].acked') is None
    finally:
        stop.set()
        for th in threads:
            th.join(5)
        for t in tables:
            t.stop()



def test_an_alert_naming_a_foreign_tag_wraps_on_a_phone(setup):
    """A foreign tag is named by its label (``tag:E0040150A05F02B7``): one long word, as the
    card and in the message. On a 390 px phone the alert wraps it: nothing in the alert reaches
    past its box, and the page is no wider than the screen. (Raised at 12:58:58 in the page's
    time zone: the widest time of day beside it, as a room sees every afternoon.)"""
    floor, _, browser, person = setup
    w = Watched(browser, floor, "maria", viewport=(390, 844), timezone_id="UTC", locale="en-US")
    t = FakeTable(floor.broker, table="w390")
    try:
        t.state()
        tag, seq = "tag:E0040150A05F02B7", t.next_seq()
        t.publish("events/floor", {"type": "Alert", "ts": 1767272338.0, "audience": "floor", "card": tag,
                                   "code": "deck.foreign_card", "hand": 12, "rule": "DECK-006", "seat": 3,
                                   "message": f"{tag} is not a card of deck A", "seq": seq})
        sel = f'li[data-alert="main/w390#{seq}"]'
        item = w.page.wait_for_selector(sel)
        assert tag in item.inner_text() and "12:58:58" in item.inner_text()
        box = item.bounding_box()
        for part in w.page.query_selector_all(f"{sel} > *"):
            edge = part.bounding_box()
            assert edge["x"] + edge["width"] <= box["x"] + box["width"] + 0.5, part.inner_text()
        width, screen = w.page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
        assert width <= screen, f"the page is {width} px wide on a {screen} px screen"
    finally:
        t.stop()
        w.close()


def test_the_viewers_count_line_says_nothing_untrue_of_the_calls_it_does_not_see(setup):
    """A viewer receives no call and no alert: its line of counts leaves them out (never
    "0 calls" while a call waits) and still counts the tables; the floor's says the call."""
    floor, _, browser, person = setup
    maria, vic = person("maria"), person("vic")
    c1 = FakeTable(floor.broker, table="c1")
    try:
        c1.state()
        seq = c1.floor_call()
        maria.page.wait_for_selector(f'#calls li[data-alert="main/c1#{seq}"]')
        vic.page.wait_for_selector('div[data-table="main/c1"]')
        assert re.search(r"[1-9]\d* calls?\b", maria.page.inner_text("#summary"))
        said = vic.page.inner_text("#summary")
        assert re.search(r"\d+ tables?\b", said), said
        assert "call" not in said and "alert" not in said, said
    finally:
        c1.stop()


def test_an_ack_to_a_table_known_offline_is_shown_queued_at_once(setup):
    """The floor knows the table is offline (its will): the acknowledgement is "queued: table
    offline" from the first moment, never "sent, waiting for the table" until the command's
    timeout; the POST says so, and so does ``/api/cmd``."""
    floor, _, browser, person = setup
    maria = person("maria")
    q1 = FakeTable(floor.broker, table="q1")
    try:
        q1.state()
        seq = q1.foul_card("5d", seat=2)
        sel = f'li[data-alert="main/q1#{seq}"]'
        maria.page.wait_for_selector(sel)
        q1.go_offline()
        maria.page.wait_for_selector('div[data-table="main/q1"].offline')
        with maria.page.expect_response(lambda r: r.url.endswith("/api/ack")) as posted:
            maria.page.click(f"{sel} button.ack")
        first = maria.page.wait_for_selector(f"{sel} .cmd-status")  # (the first state the page shows)
        assert "queued" in (first.get_attribute("class") or "") and first.inner_text() == "queued: table offline"
        out = posted.value.json()
        assert out.get("status") == "queued" and out.get("reason") == "queued: table offline", out
        status = maria.context.request.get(floor.url + f"/api/cmd?id={out['id']}").json()["status"]
        assert status == "queued"
    finally:
        q1.stop()


def test_quiet_tiles_are_in_their_numbers_order(setup):
    """Tables of one urgency come by name with their numbers as numbers: n1, n2 ... n10, not
    n1, n10 ... n2."""
    floor, _, browser, person = setup
    vic = person("vic")
    quiet = [FakeTable(floor.broker, table=name) for name in ("n10", "n2", "n1")]
    try:
        for t in quiet:
            t.state()
        for t in quiet:
            vic.page.wait_for_selector(f'div[data-table="main/{t.table}"]')
        board = vic.page.evaluate("Array.from(document.querySelectorAll('#tiles .tile')).map((e) => e.dataset.table)")
        assert [k for k in board if k in ("main/n1", "main/n2", "main/n10")] == ["main/n1", "main/n2", "main/n10"]
    finally:
        for t in quiet:
            t.stop()


def test_an_alert_whose_rule_has_no_meaning_shows_its_message_alone(setup):
    """An alert with no rule, or a rule the catalogue does not know (a table of a newer
    release), has no meaning to show: its message stands alone, not after a stray ": "; the
    same in the dealer's lane."""
    floor, table, browser, person = setup
    maria = person("maria")
    said = "the reader has been offline for 30 s"
    seqs = []
    for rule in (None, "XYZ-999"):
        seq = table.next_seq()
        table.publish("events/floor", {"type": "Alert", "ts": time.time(), "audience": "floor",
                                       "code": "device.reader_offline", "rule": rule, "hand": 12, "seat": None,
                                       "message": said, "seq": seq})
        seqs.append(seq)
    lane = table.incident("device.reader_offline", None, seat=None, message=said)
    for seq in seqs:
        meaning = maria.page.wait_for_selector(f'li[data-alert="main/t7#{seq}"] .meaning')
        assert meaning.inner_text() == said
    assert maria.page.wait_for_selector(f'li[data-incident="main/t7#{lane}"] .meaning').inner_text() == said
