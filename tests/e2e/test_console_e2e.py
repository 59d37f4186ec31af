"""A deal script's presses reach the daemon subprocess through its console's mock pins.

``tablectl simulate`` configures the console on gpiozero's MockFactory; the control socket's
``press`` is driven through those pins (select the seat with the seat key, hold shift, hold for
a long press, every edge bouncing), and the real gpiozero callbacks give the press. The
daemon's log names each press with its button and pin; the report shows what each did.
"""

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.rules_common import CLEAN, END, FLOP, RIVER, TURN, alerts_of, deal
from tests.e2e.test_simulate_e2e import NOISE, simulate


@pytest.mark.e2e
def test_a_scripts_presses_go_through_the_mock_pins_of_the_daemon(tmp_path):
    # hand 1: seats 1 2 4 6 9, button 9. A player at seat 4 exposes a card (shift + the penalty
    # button, seat 4 selected); the taps before each burn; seat 6 is eliminated.
    hand1 = CLEAN[:10] + [{"press": "exposed_player", "seat": 4}] + CLEAN[10:-1] + \
        [{"press": "seat_out", "seat": 6}, END]
    # hand 2: without seat 6, the daemon moves the button to 1 (DEAL-005): dealt 2 4 9 1. The
    # player at seat 2 exposes a card: a long press of exposed, seat 2 selected. If a press
    # were lost, seat 6 would be "skipped" (MISD-006) or the exposure a misdeal flag.
    order = [2, 4, 9, 1]
    cards = ["As", "Kd", "7c", "2h", "3h", "Qs", "Jd", "9c"]
    hand2 = [deal(c, order[i % 4]) for i, c in enumerate(cards)][:5] + \
        [{"press": "exposed", "long": True, "seat": 2}] + \
        [deal(c, order[i % 4]) for i, c in enumerate(cards)][5:] + FLOP + TURN + RIVER + [END]
    script = {"format": 1, "game": "holdem", "seats": [1, 2, 4, 6, 9], "button": 9,
              "noise": dict(NOISE, seed=21), "hands": [{"steps": hand1}, {"steps": hand2}]}
    r = simulate(tmp_path, script, "--keep")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    first, second = report["hands"]
    assert alerts_of(first) == [("deal.player_exposed_card", "MISD-012", 4, "dealer", 11)]
    assert second["button"] == 1 and "seat:6" not in second["zones"]
    assert alerts_of(second) == [("deal.player_exposed_card", "MISD-012", 2, "dealer", 6)]

    # the daemon's own log: every press came from the console's pins, in order
    workdir = Path(re.search(r"work folder kept: (\S+)", r.stderr).group(1))
    try:
        log = (workdir / "daemon.log").read_text()
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    assert "console: 12 buttons, 3 LEDs, 10 seat LEDs, a buzzer on MockFactory" in log
    pressed = re.findall(r"tablectl\.console: console: (.+\(button .+)$", log, re.M)
    assert pressed == [
        "exposed_player seat 4 (button shift + seat_penalty, GPIO5)",
        "round_done (button round_done, GPIO2)", "round_done (button round_done, GPIO2)",
        "round_done (button round_done, GPIO2)",
        "seat_out seat 6 (button seat_out, GPIO9)",
        "exposed long seat 2 (button exposed, GPIO3)",
        "round_done (button round_done, GPIO2)", "round_done (button round_done, GPIO2)",
        "round_done (button round_done, GPIO2)",
    ]
