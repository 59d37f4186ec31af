"""The host's decoder of the bridge protocol (firmware_bridge/bridge.py) against the protocol
document's examples and the reference decoder written from it (tests/unit/firmware/), and on
damaged input: it never raises, drops a cycle with a line missing, and is linear."""

from __future__ import annotations

import re
from pathlib import Path

from hypothesis import given, settings, strategies as st

from firmware_bridge import bridge
from firmware_bridge.bridge_client import LoneZone
from tests.unit.firmware import reference_decoder as ref

DOC = Path(__file__).resolve().parents[3] / "docs" / "protocols" / "bridge.md"
#: every frame the document shows in a table or a frame block: "KIND SEQ ... *CRC"
EXAMPLES = sorted(set(re.findall(r"`([A-Z]{2,5} [0-9A-F]{4}(?: [^`*]+)? \*[0-9A-F]{4})`", DOC.read_text())))


def test_the_document_has_examples_of_every_kind():
    kinds = {e.split()[0] for e in EXAMPLES}
    assert kinds >= {"HELLO", "ZONE", "OK", "NAK", "CYCLE", "TAGS", "END", "ERR", "HB", "STOP", "RUN"}


def test_every_example_of_the_document_decodes_as_the_reference_decodes_it():
    for text in EXAMPLES:
        line = text.encode()
        kind, seq, fields = ref.frame(line)  # (its CRC checked bit by bit: the document's own CRC)
        assert bridge.parse_line(line) == bridge.Frame(kind, seq, tuple(fields))
        assert bridge.encode(kind, seq, tuple(fields)) == line + b"\n"


def test_the_documents_cycle_is_assembled_whole():
    lines = [e.encode() for e in EXAMPLES if re.match(r"(CYCLE|TAGS|ERR|END) 001[3-8] (?!11 )", e)]
    lines.sort(key=lambda line: line.split()[1])
    asm = bridge.CycleAssembler()
    got = [asm.feed(bridge.parse_line(line)) for line in lines]
    cycle = got[-1]
    assert isinstance(cycle, bridge.Cycle) and cycle.number == 7 and cycle.ms == 41
    assert [(z.zone, z.state, len(z.tags)) for z in cycle.zones] == [(1, "OK", 2), (2, "E02", 0), (3, "OK", 0)]
    assert [z.zone for z in cycle.failed()] == [2]
    # a TAGS line lost: the SEQ jumps, the cycle is dropped, never taken short
    asm = bridge.CycleAssembler()
    got = [asm.feed(bridge.parse_line(line)) for line in lines if b"TAGS 0016" not in line]
    assert any(isinstance(g, bridge.Dropped) for g in got) and not any(isinstance(g, bridge.Cycle) for g in got)


def test_damaged_lines_are_counted_never_raised():
    d = bridge.LineDecoder()
    out = d.feed(b"HB 0019 12 7 *B290\r\nHB 0019 12 7 *B291\r\nHB 0019 12 7\r\n\x00\xff junk *12\n\n\nHB 00")
    assert out[0] == bridge.Frame("HB", 0x19, ("12", "7"))
    assert [o.reason for o in out[1:]] == ["crc mismatch", "no crc"]
    assert d.flush() == [bridge.BadLine("junk", 14), bridge.BadLine("truncated", 5)]  # short lines together
    assert (d.frames_ok, d.frames_bad, d.bytes_skipped) == (1, 4, 18 + 12 + 14 + 5)


def test_a_line_too_long_is_dropped_as_it_grows():
    d = bridge.LineDecoder()
    assert d.feed(b"X" * 5000) == [] and d.buffered == 0
    out = d.feed(b"XX\nHB 0019 12 7 *B290\n")
    assert out[0] == bridge.BadLine("line too long", 5003) and out[1].kind == "HB"
    d.feed(b"X" * 3000)  # one piece longer than a line, in one feed
    assert d.feed(b"\n") == [bridge.BadLine("line too long", 3001)]


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300), st.lists(st.integers(1, 50), max_size=20))
def test_the_output_does_not_depend_on_how_the_stream_is_cut(junk, cuts):
    stream = junk + b"\n" + b"TAGS 0014 1 OK 2 E004015012345678 E0040150A05F0001 *6B4F\r\n" + junk
    w = bridge.LineDecoder()
    whole = w.feed(stream) + w.flush()
    d, parts, pos = bridge.LineDecoder(), [], 0
    for c in cuts:
        parts += d.feed(stream[pos:pos + c])
        pos += c
    parts += d.feed(stream[pos:])
    assert parts + d.flush() == whole
    assert bridge.Frame("TAGS", 0x14, ("1", "OK", "2", "E004015012345678", "E0040150A05F0001")) in whole


#: bytes that make or break a line's form: its separators, hex digits and letters of either case,
#: the CR, control bytes, bytes beyond ASCII
_NEAR_MISSES = st.sampled_from(list(b" *\r09AFafZz:-\x00\x1f\x7f\x80\xff"))


@st.composite
def lines(draw: st.DrawFn) -> bytes:
    """A frame's line (its LF removed, a CR kept or not) with none, one or a few bytes changed,
    added or taken out; its KIND and FIELDs may be ill-formed under a good CRC."""
    kind = draw(st.text("ABCDEHKLNOSTYZ", min_size=2, max_size=5) | st.text("ABaz0_", min_size=1, max_size=6))
    fields = draw(st.lists(st.text("0123456789ABCDEFOK:-E", min_size=1, max_size=17)
                           | st.text("Aa *\r~\x7f", max_size=3), max_size=5))
    line = bytearray(bridge.encode(kind, draw(st.integers(0, 0xFFFF)), tuple(fields))[:-1])
    if draw(st.booleans()):
        line += b"\r"
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(line)))
        how = draw(st.sampled_from(("change", "add", "drop")))
        if how == "add":
            line[at:at] = bytes([draw(_NEAR_MISSES)])
        elif at < len(line):
            line[at:at + 1] = bytes([draw(_NEAR_MISSES)]) if how == "change" else b""
    return bytes(line)


@settings(max_examples=400, deadline=None)
@given(lines())
def test_a_line_is_a_frame_exactly_when_the_reference_reads_one_and_says_the_same(line: bytes) -> None:
    got = bridge.parse_line(line)
    try:
        kind, seq, fields = ref.frame(line)
    except ref.BadFrame:
        assert isinstance(got, bridge.BadLine) and got.reason in ("no crc", "crc mismatch", "syntax")
        assert got.length == len(line) - line.endswith(b"\r")
    else:
        assert got == bridge.Frame(kind, seq, tuple(fields))
    # in a stream, after other bytes, as the decoder reads it from its buffer
    assert bridge.LineDecoder().feed(b"HB 0019 12 7 *B290\r\n" + line + b"\n")[1:] == ([got] if len(line) >= 13 else [])


def test_lone_zone_keeps_a_card_where_it_lay_until_another_zone_hears_it_alone_then_counts_a_clone():
    z = LoneZone(twin_cycles=20)
    assert z.strengths({"C": [3]}) == {("C", 3): 255}
    for _ in range(19):  # a card sliding over seat 4's spot: no evidence for seat 4
        assert z.strengths({"C": [3, 4]}) == {("C", 3): 255, ("C", 4): 1}
    assert z.strengths({"C": [3, 4]}) == {("C", 3): 255, ("C", 4): 255}  # 20 cycles: two cards, one tag
    # lifted: its seat misses it, seat 4 hears it alone: weak evidence (the tracker's level) on the
    # first cycle, firm on the second (one weak and one firm read: short of a move), and only a
    # third lone cycle in a row makes seat 4 its zone
    assert [z.strengths({"C": [4]}) for _ in range(3)] == [{("C", 4): 150}, {("C", 4): 255}, {("C", 4): 255}]
    assert z.strengths({"C": [3, 4]}) == {("C", 3): 1, ("C", 4): 255}  # it lies at 4 now
    assert z.strengths({"C": [3]}) == {("C", 3): 150}  # (and back at 3, weakly)
    for _ in range(5):
        assert z.strengths({}) == {}  # gathered, shuffled: unheard
    assert z.strengths({"C": [7]}) == {("C", 7): 255}  # dealt again: a new card, firm at once


def test_lone_zone_counts_a_clone_through_the_misses_of_a_busy_table_and_no_lift_s_crosstalk():
    # a clone at seats 3 and 9 whose copy at 9 goes unread one cycle in five: both count at full
    # strength once heard in two zones TWIN_CYCLES cycles more than in one (a run of TWIN_CYCLES
    # in a row would not come under such misses)
    z = LoneZone(twin_cycles=8)
    assert z.strengths({"C": [3]}) == {("C", 3): 255}
    at_9 = [z.strengths({"C": [3]} if i % 5 == 4 else {"C": [3, 9]}).get(("C", 9)) for i in range(15)]
    assert at_9.index(255) == 11 and at_9[:11] == [1, 1, 1, 1, None] * 2 + [1]
    # crosstalk in bursts of six cycles (a lift heard by a neighbour), each followed by cycles heard
    # at home alone: never two cards
    y = LoneZone(twin_cycles=8)
    assert y.strengths({"D": [5]}) == {("D", 5): 255}
    for _ in range(10):
        assert all(y.strengths({"D": [5, 6]}) == {("D", 5): 255, ("D", 6): 1} for _ in range(6))
        assert all(y.strengths({"D": [5]}) == {("D", 5): 255} for _ in range(6))


def test_crosstalk_from_the_muck_does_not_wipe_out_the_evidence_of_a_fold():
    # PHH hold'em hand 66 under the harsh noise: seat 5's last card folded into the muck, read
    # there alone (weak evidence: with the fold's prior, one read short), then there and at the
    # burn spot next to it, then not at all until the gather. The muck's read must stay evidence,
    # or the card is left at seat 5 in the hand's record.
    from controller.core.tracker import Tracker

    tracker = Tracker({5: "seat:5", 12: "burn", 13: "muck"}.get, confirm_cycles=2)
    lone = LoneZone()

    def cycle(n: int, heard: dict[str, list[int]]) -> list:
        reads = tuple((uid, zone, rssi) for (uid, zone), rssi in lone.strengths(heard).items())
        return tracker.cycle(n, reads)[0]

    assert cycle(1, {"A": [5]}) == [] and cycle(2, {"A": [5]}) == [("A", None, "seat:5")]
    tracker.expect(folds=frozenset({"seat:5"}))
    assert cycle(3, {"A": [13]}) == []
    assert cycle(4, {"A": [12, 13]}) == [("A", "seat:5", "muck")]
