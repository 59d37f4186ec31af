"""The dealer's display (docs/console.md, "The display"): the text table covers every dealer
code and fits every layout; what it draws never names a card or a deck fault."""

from __future__ import annotations

import re

import pytest

from controller.core.display import (LAYOUTS, WIDEST, DisplayTextError, lines_for, names_a_card, parse_table,
                                placeholders, render, text_table)
from controller.core.effects import Alert, Figures, HandStarted
from controller.core.prompts import PromptBoard
from rig.paths import ROOT

FAMILIES = ("misdeal", "late_fault", "deal", "burn", "board", "muck", "deck", "stub", "shuffler", "device",
            "showdown", "mixed", "race", "break", "flow", "relief")
#: deck faults and the floor's findings: the floor's channel only; the display must have no words
#: for them (a foul deck shows "new setup", STUB-004), so a row for one fails here
NEVER_SHOWN = {"deck.missing_card", "deck.extra_card", "deck.cloned_tag", "deck.count_wrong",
               "deck.retired_card", "deck.unknown_tag", "deck.wrong_deck", "deck.reintroduced_card",
               "deck.blocked_deck_dealt", "deck.changed", "deck.unknown_deck", "deck.setup_refused",
               "stub.sticky_deck", "shuffler.fault_persists", "muck.winner_mucked",
               "muck.card_held_out", "stub.read_wrong",  # MUCK-001, STUB-006: the floor's
               "showdown.bad_beat", "stub.draw_dead_card", "deal.chinese_count_wrong",
               # the modes' floor alerts (controller/core/table/modes.py)
               "race.race_off", "race.allin", "break.seat_open", "break.seats_open", "break.dealt_in_hold",
               # the tournament's floor alerts (controller/core/table/tournament.py)
               "flow.dealt_before_release", "flow.bubble_allin", "flow.dead_hand_back", "flow.clock_ignored",
               "flow.dead_hand_at_showdown",
               # the flow rules' floor alerts (controller/core/table/flow.py)
               "flow.dealt_before_approval", "flow.satellite_ready"}
#: what the rules build out of others: a late fault from each misdeal (controller/core/rules/misdeal.py
#: ``late``), a shuffler stop from its state, a device's offline and online from its name
DEVICES = ("reader", "shuffler", "console", "display")
SHUFFLER_STOPS = ("jam", "door_open", "error")


def codes_in_source() -> set[str]:
    """Every alert code spelt in the core (a string literal of a family), and those it builds."""
    literal = re.compile(r"\"((?:" + "|".join(FAMILIES) + r")\.[a-z0-9_]+)\"")
    found: set[str] = set()
    core = ROOT / "controller" / "core"
    for path in core.rglob("*.py"):  # (the table, its parts, the families, the showdown: every module)
        found.update(literal.findall(path.read_text()))
    misdeals = {c.split(".", 1)[1] for c in found if c.startswith("misdeal.")} - {"declared_late"}
    found |= {f"late_fault.{m}" for m in misdeals}
    found |= {f"shuffler.{s}" for s in SHUFFLER_STOPS}
    found |= {f"device.{d}_{s}" for d in DEVICES for s in ("offline", "online")}
    found -= {"device.reader_back", "device.reader_still_offline"}  # (the floor's, by audience)
    return found


def test_every_dealer_code_has_words_and_no_deck_fault_has_any() -> None:
    codes = codes_in_source()
    assert len(codes) > 60 and "stub.count_due" in codes and "late_fault.seat_short" in codes  # the scan works
    table = text_table().prompts
    missing = sorted(codes - NEVER_SHOWN - set(table))
    assert not missing, f"dealer codes without text in controller/core/display_text.toml: {missing}"
    assert not NEVER_SHOWN & set(table), "a deck fault has words on the display: the floor's only"
    stray = sorted(set(table) - codes)
    assert stray == ["board.premature_flop"], stray  # (kept: the console's doctests raise it)


@pytest.mark.parametrize("layout", LAYOUTS)
def test_every_text_fits_its_layout_at_its_widest(layout: str) -> None:
    t = text_table()
    lay = t.layouts[layout]
    widest: dict[str, int | str | None] = dict(WIDEST)
    # at their widest, and with the count unknown (an alert from before counts: other words)
    for values in (widest, {**widest, "count": None}):
        for code in [*t.prompts, None]:
            for between in (False, True):
                lines = lines_for(code, values, layout, between=between)
                assert len(lines) == lay.rows
                for line in lines:
                    assert len(line) <= lay.cols, f"{layout}: {code}: {line!r} is {len(line)} > {lay.cols}"
    # the widest values really were used: seat 10, a three-digit stub, a three-digit count
    assert "seat 10 skipped" in lines_for("misdeal.seat_skipped", widest, layout)
    assert "stub must be 999" in lines_for("stub.count_due", widest, layout)
    short = lines_for("misdeal.seat_short", widest, layout)[0]
    assert short == ("s10 short 999" if lay.cols < 17 else "seat 10 short 999"), short
    assert lines_for("misdeal.too_many_cards", widest, layout)[0] == "seat 10 over 999"
    assert lines_for("misdeal.seat_short", {**widest, "count": None}, layout)[0] == "seat 10 short"


def test_placeholders_are_counts_and_seats_only() -> None:
    t = text_table()
    used = {p for row in t.prompts.values() for alts in row.values() for text in alts for p in placeholders(text)}
    used |= {p for text in t.common.values() for p in placeholders(text)}
    assert used <= set(WIDEST) and "card" not in WIDEST and "message" not in WIDEST and "count" in used
    with pytest.raises(DisplayTextError, match=r'\[prompt."x.y"\] title: an empty list'):
        parse_table({"prompt": {"x.y": {"title": [], "action": "", "detail": ""}}})
    with pytest.raises(DisplayTextError, match=r"x.y.title: unknown placeholder \['card'\]"):
        parse_table({"prompt": {"x.y": {"title": ["s{seat}", "{card}"], "action": "", "detail": ""}}})


def test_the_screens_of_a_hand_from_the_prompt_model() -> None:
    """Written out by hand: what the dealer reads on a 16x2 and a 20x4 as a hand goes."""
    board = PromptBoard()
    st = board.between_hands(3)
    assert render(st, "lcd16x2") == ["ready", "first card s3"]
    assert render(st, "lcd20x4") == ["ready", "first card s3", "", ""]
    st = board.apply([HandStarted(1.0, 7, 2, (1, 3, 4, 5, 6, 7, 8, 9, 10), "holdem"),
                      Figures(1.0, 7, "deal", {}, 0, 0, 52, "seat:3", 2)])
    assert render(st, "lcd16x2") == ["hand 7", "next card s3"]
    st = board.apply([Alert(2.0, "misdeal.seat_short", "dealer", "seat 10 got 1 of 2 cards: misdeal",
                            "MISD-007", seat=10, hand=7, count=1)])
    assert render(st, "lcd16x2") == ["seat 10 short 1", "misdeal? hold"]
    assert render(st, "lcd20x4") == ["seat 10 short 1", "misdeal? hold", "MISD-007", "hand 7 next s3"]
    st = board.apply([Alert(2.5, "burn.missing", "dealer", "no burn before the flop", "BURN-001", hand=7)])
    assert render(st, "oled128x64") == ["seat 10 short 1", "misdeal? hold", "MISD-007", "+1 more waiting",
                                        "hand 7 next s3"]
    # the stub count: 9 players, 18 hole cards + 3 burns + 5 board = 26 out, the stub holds 26
    board = PromptBoard()
    board.apply([HandStarted(1.0, 8, 2, (1, 2, 3, 4, 5, 6, 7, 8, 9), "holdem"),
                 Figures(9.0, 8, "river", {}, 3, 5, 26, None, 2)])
    st = board.apply([Alert(9.0, "stub.count_due", "dealer", "count the stub: ...", "STUB-001", hand=8)])
    assert render(st, "lcd20x4") == ["COUNT THE STUB", "stub must be 26", "18+3+5=26 out", "hand 8"]


def test_a_deck_fault_shows_new_setup_and_nothing_of_the_fault() -> None:
    board = PromptBoard()
    board.apply([HandStarted(1.0, 3, 2, (1, 2, 3), "holdem")])
    st = board.apply([Alert(2.0, "deck.wrong_deck", "floor", "As of deck B is in play", "DECK-006", card="As"),
                      Alert(2.0, "deck.new_setup", "dealer", "new setup", "STUB-004", hand=3)])
    for layout in LAYOUTS:
        lines = render(st, layout)
        assert lines[0] == "NEW SETUP"
        assert not any(names_a_card(x) or "deck B" in x or "wrong" in x for x in lines), lines


def test_the_scenarios_screen_check_catches_a_deck_fault_on_the_console() -> None:
    """The hook every in-process scenario goes through (rig/scenarios.py) fails on a screen of
    a deck fault: it can fail."""
    from controller.core.prompts import ConsoleState
    from hw_sim.harness import Played
    from rig.scenarios import assert_display_keeps_secrets

    bad = Played(report={}, screens=[((1, 3), ConsoleState(code="deck.wrong_deck", message="As of deck B"))])
    with pytest.raises(AssertionError, match="a deck fault reached the dealer's console"):
        assert_display_keeps_secrets({"hands": []}, bad, {})
    ok = Played(report={}, screens=[((1, 3), ConsoleState(code="deck.new_setup", message="new setup"))])
    assert_display_keeps_secrets({"hands": []}, ok, {})


def _screens(script: dict) -> dict[str, list[object]]:
    """Code -> every console state of that code the in-process harness showed dealing
    ``script`` (the secrets checked on the way, as every scenario's)."""
    from hw_sim.harness import play as harness_play
    from rig.scenarios import assert_nothing_secret_public

    played = harness_play(script)
    assert_nothing_secret_public(script, played)
    out: dict[str, list[object]] = {}
    for _, st in played.screens:
        out.setdefault(st.code, []).append(st)
    return out


def test_a_seat_dealt_short_or_over_shows_by_how_many_on_the_16x2_and_the_20x4() -> None:
    """The issue's example, ``seat 4 short 1``, from hands dealt in process: the figure is the
    core's (the seat's cards against the game's), carried by the alert to the screen."""
    from tests.rules_common import BUTTON, END, HOLE, HOLE_CARDS, NOISE, SEATS, hole

    fold_to_bb = [{"muck": f"seat:{s}"} for s in (4, 6, 9, 1)]
    # hold'em: seat 4 skipped in the first round, dealt in the second: one card of two
    holdem = hole([p for i, p in enumerate(HOLE) if not (i < 5 and p[1] == 4)]) + fold_to_bb + [END]
    # omaha: seat 6 skipped in the first two rounds (two cards of four); then seat 6 given a fifth
    pairs = [(HOLE_CARDS[i], SEATS[i % 5]) for i in range(20)]
    short2 = hole([p for i, p in enumerate(pairs) if not (i < 10 and p[1] == 6)]) + fold_to_bb + [END]
    over1 = hole(pairs) + [{"deal": "Jh", "to": "seat:6"}] + fold_to_bb + [END]
    base = {"format": 1, "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=4)}
    seen = _screens({**base, "game": "holdem", "hands": [{"steps": holdem}]})
    st = seen["misdeal.seat_short"][0]
    assert render(st, "lcd16x2") == ["seat 4 short 1", "misdeal? hold"]
    assert render(st, "lcd20x4")[:3] == ["seat 4 short 1", "misdeal? hold", "MISD-007"]
    seen = _screens({**base, "game": "omaha", "hands": [{"steps": short2}, {"steps": over1, "button": BUTTON}]})
    st = seen["misdeal.seat_short"][0]
    assert render(st, "lcd16x2") == ["seat 6 short 2", "misdeal? hold"]
    assert render(st, "lcd20x4")[:3] == ["seat 6 short 2", "misdeal? hold", "MISD-007"]
    st = seen["misdeal.too_many_cards"][0]
    assert render(st, "lcd16x2") == ["seat 6 over 1", "misdeal? hold"]
    assert render(st, "lcd20x4")[:3] == ["seat 6 over 1", "misdeal? hold", "MISD-007"]
