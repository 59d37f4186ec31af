"""The floor's page in a real browser: Debian's chromium driven by Playwright (no browser
downloaded: ``executable_path`` is the system's), against ``tablectl floor`` as a subprocess and
a real mosquitto.

The last test's table is the real daemon, a subprocess dealing a simulated table with its room
link on: a foul card dealt shows on the page, its acknowledgement from the page is journalled by
the table with the user, and the dealer named from the page and the control socket is in the
table's own records. The other tests publish as :class:`tests.floor_setup.FakeTable`: what they
check is the floor's side alone (what the page shows, to whom, and what the service sends on
``cmd``), which depends only on the messages on the broker, and those messages are the ones the
real link sends (docs/room.md; the real test checks the same path end to end). A fake table
also gives what a real one cannot give at will or quickly: a table going offline, a reader
down, a broken hand chain, chosen cards for the role checks, a refused command."""

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
    # main/t7 (the fake table) and r1/t5 (the real daemon) sign their records; the floor has their keys
    from controller.service.room.signing import Signer, new_key_pair

    keys = {name: new_key_pair() for name in ("main/t7", "r1/t5")}
    tables = "".join(f'"{name}" = "{public}"\n' for name, (_, public) in keys.items())
    # (a command unanswered for 2 s: failed; a throttled address waits 20 s, whatever the machine's speed)
    floor = FloorProc(folder, broker, extra=f"command_timeout = 2\nlogin_delay = 20\n[floor.tables]\n{tables}")
    floor.keys = keys  # type: ignore[attr-defined]
    add_users(floor)
    floor.start()
    table = FakeTable(broker, signer=Signer(bytes.fromhex(keys["main/t7"][0])))
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
    """The technician sees a deck fault's code and rule id (a code is not a card: docs/decisions.md,
    "What the technician sees"), never its card, its message or a UID; the viewer no alert."""
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
        maria.page.click("#decks-send")
        maria.page.locator("#cmd-status", has_text="refused by the table: decks: a manifest is a file name").wait_for()
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

    from controller.service.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
    from tests.scenarios import NOISE

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

        for i in range(3):  # (three free tries from one address; then 20 s to wait: login_delay)
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

    from controller.service import control
    from controller.service.simulate import room_section, run_script
    from hw_sim.script import parse_script
    from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal, hole
    from tests.scenarios import NOISE

    from controller.cards import setup_order
    from hw_sim.decks import sim_uid
    from tests.broker import Subscriber

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
