"""No secret in a log, and no log flood (issue 12).

Corrupt, malformed and unexpected frames holding known UIDs, by the thousand, go through the
real links on real pseudo-terminals (the simulated reader and shuffler, with the flood written
ahead of their answers); the captured log holds none of the UIDs in any spelling, and stays a
handful of lines. The frames are written out by hand from docs/protocols (the CRC by a bitwise
CRC-16/MCRF4XX here, not the codec's), so the oracle is not the code under test.

Floor alerts reach the log by code and rule only: the deck faults of tests/unit/core/test_deck_scripts.py
played through the daemon's sinks in process and through ``tablectl simulate`` (the daemon as a
subprocess, its real log).
"""

from __future__ import annotations

import json
import logging
import random
import re
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from controller.core.effects import Alert
from firmware_bridge.events import TagCycle
from hw_sim.harness import play
from controller.daemon.sinks import LogSink, fan_out
from firmware_bridge.backoff import Backoff
from firmware_bridge.log_limit import LogLimiter, describe_corrupt
from firmware_bridge.reader_link import FeigReaderLink
from firmware_bridge.serial_port import PortSettings
from firmware_bridge.shuffler_link import SerialShufflerLink, shuffler_port
from hw_sim.decks import DECK_IDS, manifest_text
from hw_sim.feig_reader import SimFeigReader
from hw_sim.pty_device import PtyDevice
from hw_sim.shuffler import SimShuffler
from tests.conftest import TABLECTL
from tests.rules_common import BUTTON, CLEAN, HOLE, SEATS, deal, hole
from rig.waiting import wait_until

FLOOD = 5000
#: the cards on the table: 8-byte ISO 15693 UIDs, E0 first, none holding the start byte A5
UIDS = [f"E0040150C7D3{i:02X}{(i * 37) & 0x7F:02X}" for i in range(1, 41)]
#: the most a flood may log: each kind once, then its count (at most a few kinds per link)
MAX_LINES = 30


def crc16(data: bytes) -> int:
    """CRC-16/MCRF4XX, bit by bit (docs/protocols/feig.md: poly 0x8408 reflected, init FFFF)."""
    crc = 0xFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x8408 if crc & 1 else crc >> 1
    return crc


def with_crc(body: bytes, *, damage: int = 0) -> bytes:
    c = crc16(body) ^ damage
    return body + bytes((c & 0xFF, c >> 8))


# -- FEIG (docs/protocols/feig.md): LEN COM-ADR CMD STATUS DATA CRC(2), CRC low byte first -----
def inventory_answer(uid: str, *, extra: bytes = b"", damage: int = 0) -> bytes:
    """One data set with antenna information (as tests/golden/test_feig_golden.py ONE_TAG_ANT:
    FLAGS 11, TR-TYPE 03, DSFID 00, UID-LEN 08, UID, one antenna: 03 00 C8 00 00 00 00);
    ``extra`` bytes after the records make it malformed, ``damage`` flips CRC bits."""
    data = (bytes.fromhex("00 01 11 03 00 08") + bytes.fromhex(uid) + bytes.fromhex("01 03 00 C8 00 00 00 00")
            + extra)
    body = bytes((1 + 2 + len(data) + 2, 0x00, 0xB0)) + data
    return with_crc(body, damage=damage)


#: the answer to "get software version" (0x65), golden: not an answer to an inventory
VERSION = bytes.fromhex("0D 00 65 00 03 03 00 44 53 0D 30 33 09")


# -- the shuffler (docs/protocols/shuffler.md): A5 LEN(2, LE) LCS SEQ TYPE PAYLOAD CRC(2) -------
def shuffler_frame(seq: int, type_: int, payload: bytes, *, damage: int = 0) -> bytes:
    lo, hi = len(payload) & 0xFF, len(payload) >> 8
    return with_crc(bytes((0xA5, lo, hi, -(lo + hi) & 0xFF, seq, type_)) + payload, damage=damage)


def deck_report(seq: int, uids: list[str], *, nuids: int | None = None, damage: int = 0) -> bytes:
    """DECK_REPORT (0x83): COUNT FLAGS(01: the tags read) NUIDS UID(8)..."""
    n = len(uids) if nuids is None else nuids
    payload = bytes((52, 0x01, n)) + b"".join(bytes.fromhex(u) for u in uids)
    return shuffler_frame(seq, 0x83, payload, damage=damage)


# -- what the log may not hold ------------------------------------------------------------------
def uid_leaks(text: str, uids: list[str] = UIDS) -> list[str]:
    """The UIDs found in ``text`` in any spelling: any case, spaced or not, colons, and the
    last three bytes alone (which among a table's cards name one)."""
    compact = re.sub(r"[\s:.\-]", "", text).upper()
    return [u for u in uids if u.upper() in compact or u.upper()[-6:] in compact]


def log_text(caplog) -> str:
    return "\n".join(r.getMessage() + (r.exc_text or "") for r in caplog.records)


def bridge_lines(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "tablectl.bridge"]


# -- the limiter itself -------------------------------------------------------------------------
def test_the_limiter_logs_the_first_at_once_then_one_count_per_interval(caplog):
    clock = [100.0]
    lim = LogLimiter(logging.getLogger("tablectl.bridge"), prefix="reader: ", clock=lambda: clock[0])
    caplog.set_level(logging.INFO)
    for _ in range(FLOOD):
        lim.note("corrupt frames (CRC mismatch)", "reader: corrupt frame skipped (CRC mismatch): %d bytes", 24)
    lim.note("unexpected answers", "reader: unexpected answer")
    assert lim.tick() == []  # not a minute yet
    clock[0] += 30
    for _ in range(411):
        lim.note("corrupt frames (CRC mismatch)", "never logged")
    clock[0] += 30.5
    assert lim.tick() == ["reader: 5410 corrupt frames (CRC mismatch) in the last 60 s (5411 in all)"]
    clock[0] += 120  # quiet for two minutes: the next one is told in full again
    lim.note("corrupt frames (CRC mismatch)", "reader: corrupt frame skipped (CRC mismatch): %d bytes", 7)
    assert bridge_lines(caplog) == [
        "reader: corrupt frame skipped (CRC mismatch): 24 bytes",
        "reader: unexpected answer",
        "reader: 5410 corrupt frames (CRC mismatch) in the last 60 s (5411 in all)",
        "reader: corrupt frame skipped (CRC mismatch): 7 bytes",
    ]
    assert lim.counts == {"corrupt frames (CRC mismatch)": 5412, "unexpected answers": 1}
    assert lim.flush() == []


def test_the_limiter_counts_a_flood_in_the_interval_it_ends(caplog):
    """During a flood that lasts, one line a minute, each counting the minute's events."""
    clock = [0.0]
    lim = LogLimiter(logging.getLogger("tablectl.bridge"), prefix="shuffler: ", clock=lambda: clock[0])
    caplog.set_level(logging.INFO)
    for _ in range(300):  # five minutes, one event a second
        clock[0] += 1.0
        lim.note("malformed messages", "shuffler: malformed message skipped")
    lines = bridge_lines(caplog)
    assert lines[0] == "shuffler: malformed message skipped"
    assert lines[1:] == [f"shuffler: 60 malformed messages in the last 60 s ({n} in all)" for n in (61, 121, 181, 241)]
    assert lim.flush() == ["shuffler: 59 malformed messages in the last 59 s (300 in all)"]


def test_a_corrupt_report_is_described_without_a_byte_of_the_stream():
    """The codecs' reasons name a length byte and the two CRCs: only the kind, the length and
    the number of differing CRC bits may reach the log."""
    kind, detail = describe_corrupt(29, "crc mismatch: got 0xC7D3 want 0xC7D2; 29 bytes skipped")
    assert (kind, detail) == ("CRC mismatch", "29 bytes, received and computed CRC differ in 1 of 16 bits")
    assert describe_corrupt(1, "length byte 5 too small") == ("impossible length", "1 byte")
    assert describe_corrupt(5, "length check 0x12 does not match length 256") == ("impossible length", "5 bytes")
    assert describe_corrupt(3, "no start byte; 3 bytes skipped") == ("no start byte", "3 bytes")
    assert describe_corrupt(9, "advanced length 3 too small; truncated: 4 of 30 bytes before flush")[0] == \
        "impossible length"


# -- the reader link ----------------------------------------------------------------------------
class RogueReader(SimFeigReader):
    """The simulated reader, answering the next ``malformed_next`` inventories with a
    CRC-valid answer that makes no sense (bytes left after its record), holding a UID."""

    malformed_next = 0

    def _send(self, data: bytes) -> None:
        cmd = data[4] if data[:1] == b"\x02" else data[2]  # (13 tags need an advanced frame)
        if self.malformed_next and cmd == 0xB0:
            self.malformed_next -= 1
            data = inventory_answer(UIDS[self.malformed_next % len(UIDS)], extra=b"\x00\x00")
        super()._send(data)


@pytest.fixture
def reader_and_link(tmp_path):
    made = []

    def make(events):
        r = RogueReader(PtyDevice(tmp_path / "reader"), antennas=range(1, 14))
        r.start()
        # answer_timeout: the flood's line noise claims a length that holds the real answer back
        # until the deadline (then drained, feig_client._exchange): 1 s, not 5, is waited once
        lk = FeigReaderLink("reader", events, PortSettings(url=str(tmp_path / "reader"), parity="N"),
                            antennas=(1 << 13) - 1, answer_timeout=1.0, max_unusable=10 ** 6,
                            backoff=Backoff(0.01, 0.05))
        made.append((r, lk))
        lk.start()
        return r, lk

    yield make
    for r, lk in made:
        lk.stop()
        r.stop()


def test_thousands_of_corrupt_and_malformed_answers_leave_no_uid_in_a_bounded_log(reader_and_link, caplog):
    caplog.set_level(logging.DEBUG)
    cycles: list[TagCycle] = []
    lock = threading.Lock()

    def emit(ev):
        with lock:
            if isinstance(ev, TagCycle):
                cycles.append(ev)

    r, lk = reader_and_link(emit)
    for i, uid in enumerate(UIDS[:13]):
        r.place(f"t{i}", uid, i + 1)  # the cards on the table, in every good answer
    wait_until(lambda: len(cycles) >= 2, 10, what="two good cycles")

    # 1. malformed answers (CRC good, a UID in each), one per inventory
    r.malformed_next = 2000
    wait_until(lambda: r.malformed_next == 0 and lk.stats.protocol_errors >= 2000, 60,
               what="2,000 malformed answers taken")
    # 2. a flood ahead of one answer: corrupt answers holding UIDs, each followed by a good frame
    #    that answers another command, then line noise (a wrong baud rate) with UIDs in it
    rng = random.Random(12)
    noise = bytearray()
    for uid in UIDS:
        noise += rng.randbytes(40) + bytes.fromhex(uid)
    flood = b"".join(inventory_answer(UIDS[i % len(UIDS)], damage=1 << (i % 16)) + VERSION
                     for i in range(FLOOD)) + bytes(noise)
    seen = len(cycles)
    r.garbage_next = flood
    wait_until(lambda: not r.garbage_next and len(cycles) >= seen + 2, 60, what="the flood read, then good cycles")
    assert lk.stats.frames_bad >= FLOOD and lk.stats.unexpected >= FLOOD and lk.stats.protocol_errors >= 2000
    assert lk.stats.events["corrupt frames (CRC mismatch)"] >= FLOOD - 1
    lk.stop()  # its held-back counts are told
    text = log_text(caplog)
    assert uid_leaks(text) == [], text
    lines = bridge_lines(caplog)
    assert len(lines) <= MAX_LINES, lines
    assert "reader: corrupt frame skipped (CRC mismatch): 27 bytes, received and computed CRC differ in 1 of 16 bits" \
        in lines, lines
    assert any(re.fullmatch(r"reader: \d{4,} corrupt frames \(CRC mismatch\) in the last \d+ s \(\d+ in all\)", m)
               for m in lines), lines
    assert any(m.startswith("reader: malformed answer skipped (29 bytes, CRC good): ") for m in lines), lines
    assert "reader: unexpected answer to command 0x65 skipped (13 bytes)" in lines, lines
    assert all(m.startswith("reader: ") for m in lines), lines  # every line names the device
    # every good cycle still carries the cards: the link never stopped for the flood
    assert {u for u, _, _ in cycles[-1].reads} == set(UIDS[:13])


# -- the shuffler link --------------------------------------------------------------------------
@pytest.fixture
def shuffler_and_link(tmp_path):
    made = []

    def make(events):
        s = SimShuffler(PtyDevice(tmp_path / "shuffler"), seed=1, resend_interval=0.1)
        s.start()
        lk = SerialShufflerLink("shuffler", events, shuffler_port(str(tmp_path / "shuffler")),
                                poll_interval=0.05, answer_timeout=5.0, backoff=Backoff(0.01, 0.05),
                                clock=time.monotonic)
        made.append((s, lk))
        lk.start()
        return s, lk

    yield make
    for s, lk in made:
        lk.stop()
        s.stop()


def test_thousands_of_corrupt_and_malformed_reports_leave_no_uid_in_a_bounded_log(shuffler_and_link, caplog):
    caplog.set_level(logging.DEBUG)
    s, lk = shuffler_and_link(lambda ev: None)
    wait_until(lambda: lk.stats.statuses >= 2, 10, what="the shuffler polled")
    flood = bytearray()
    for i in range(FLOOD):
        uids = [UIDS[(i + k) % len(UIDS)] for k in range(3)]
        flood += deck_report(i & 0xFF, uids, damage=1 << (i % 16))  # damaged: a corrupt frame
        flood += deck_report(i & 0xFF, uids[:1], nuids=9)  # CRC good, 9 UIDs claimed, 1 sent: malformed
    statuses = lk.stats.statuses
    s.garbage_next = bytes(flood)
    wait_until(lambda: not s.garbage_next and lk.stats.statuses >= statuses + 2, 60,
               what="the flood read, then statuses again")
    assert lk.stats.frames_bad >= FLOOD and lk.stats.protocol_errors >= FLOOD
    assert lk.stats.reports == 0  # none of it taken for a deck report
    lk.stop()
    text = log_text(caplog)
    assert uid_leaks(text) == [], text
    lines = bridge_lines(caplog)
    assert len(lines) <= MAX_LINES, lines
    assert any(m.startswith("shuffler: corrupt frame skipped (CRC mismatch): ") for m in lines), lines
    assert any(m.startswith("shuffler: malformed message skipped (19 bytes, CRC good): DECK_REPORT") for m in lines), \
        lines
    assert any(re.fullmatch(r"shuffler: \d{4,} malformed messages in the last \d+ s \(\d+ in all\)", m)
               for m in lines), lines


# -- floor alerts: by code and rule only --------------------------------------------------------
FOREIGN_UID = "E0040150A05F02B7"
#: a card of the spare deck at seat 6 (DECK-006), a tag of no deck on the turn (DECK-006); then a
#: shuffled deck short of the 7h with a foreign tag in it (STUB-005, DECK-006)
FOUL_HAND = (hole(HOLE[:3] + [("2h@B", HOLE[3][1])] + HOLE[4:]) + CLEAN[len(HOLE):17]
             + [deal(f"tag:{FOREIGN_UID}", "board")] + CLEAN[18:])
FOUL_SCRIPT = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON,
               "hands": [{"steps": FOUL_HAND},
                         {"steps": [{"shuffler": "deck"}] + CLEAN,
                          "deck": {"missing": ["7h"], "extra": [f"tag:{FOREIGN_UID}"]}}]}
FOUL_CODES = {"deck.wrong_deck", "deck.unknown_tag", "deck.missing_card", "deck.extra_card"}
FLOOR_LINE = re.compile(r"floor alert [a-z_0-9]+(\.[a-z_0-9]+)+ \(([A-Z]+-\d{3}|-)\)")


def deck_uids() -> list[str]:
    """Every UID of the simulated decks (their manifests), and the foreign tag's."""
    uids = [FOREIGN_UID]
    for d in DECK_IDS:
        uids += re.findall(r"\b[0-9A-F]{16}\b", manifest_text(d))
    assert len(uids) == 1 + 52 * len(DECK_IDS)
    return uids


def test_floor_alerts_reach_the_log_by_code_and_rule_only_in_process(caplog):
    played = play(FOUL_SCRIPT)
    floor = [e for _, e in played.seen["floor"] if isinstance(e, Alert) and e.audience == "floor"]
    codes = {e.code for e in floor}
    assert FOUL_CODES <= codes
    # the floor's own messages name the cards (what the log must not repeat)
    assert sum(1 for e in floor if e.card and e.card.removeprefix("tag:")[:2] in e.message) >= 4
    caplog.set_level(logging.DEBUG)
    fan_out([LogSink()], [e for _, e in played.seen["floor"]])  # as the daemon gives its outputs
    lines = [r.getMessage() for r in caplog.records if r.name == "tablectl.alerts"]
    assert sorted(m for m in lines if m.startswith("floor")) == sorted(
        f"floor alert {e.code} ({e.rule or '-'})" for e in floor)
    assert all(FLOOR_LINE.fullmatch(m) for m in lines if m.startswith("floor")), lines
    text = "\n".join(lines)
    assert uid_leaks(text, deck_uids()) == []
    for e in floor:
        if e.card:
            assert not re.search(rf"(?<![\w@]){re.escape(e.card.removeprefix('tag:'))}(?![\w@])", text), e.card
    assert not re.search(r"\bseat\b", "\n".join(m for m in lines if m.startswith("floor")))


@pytest.mark.e2e
def test_floor_alerts_reach_the_daemons_log_by_code_and_rule_only(tmp_path):
    """Through ``tablectl simulate``: the daemon a subprocess, its own LogSink, its real log."""
    path = tmp_path / "script.json"
    path.write_text(json.dumps(FOUL_SCRIPT))
    r = subprocess.run([*TABLECTL, "simulate", str(path), "--json", "--keep"], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    kept = Path(re.search(r"work folder kept: (\S+)", r.stderr).group(1))
    try:
        report = json.loads(r.stdout)
        floor = [a for h in report["hands"] for a in h["alerts"] if a["audience"] == "floor"]
        assert FOUL_CODES <= {a["code"] for a in floor}
        log = (kept / "daemon.log").read_text()
        lines = [ln for ln in log.splitlines() if "floor alert" in ln]
        for a in floor:
            assert any(ln.endswith(f"floor alert {a['code']} ({a['rule'] or '-'})") for ln in lines), (a, lines)
        for ln in lines:  # the line ends with the code and the rule: no card, no seat, no UID after
            assert FLOOR_LINE.fullmatch(ln[ln.index("floor alert"):]), ln
        assert uid_leaks(log, deck_uids()) == [], "a UID in the daemon's log"
        for card in {a["card"] for a in floor if a.get("card")}:
            assert card.removeprefix("tag:") not in log, card
    finally:
        shutil.rmtree(kept, ignore_errors=True)
