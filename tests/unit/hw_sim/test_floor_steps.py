"""The floor's signals as deal-script steps (issue 32; docs/deal-script.md "The floor's signals"):
parsed and refused like every step, played as the core events the room link would make of them,
the player clock run in simulated time, and the report's ``level`` and ``holds``.

The tests marked ``needs the core`` below check what the core does with those events (the
tournament part, controller/core/table/tournament.py, and the ``clock`` pad): they are written
against the shared contract, and pass once the core's part of issue 32 is in."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from pytest_mock import MockerFixture

from rig.scenarios import NOISE, play
from controller.core.events import (BubbleHold, BubbleMode, ClockCalled, HandForHand, LevelSet, Release, Tick)
from hw_sim import simulate
from hw_sim.dealer import StepLog
from hw_sim.harness import Harness
from hw_sim.harness import play as harness_play
from controller.daemon.ticks import waits_on_time
from hw_sim.pacing import EPOCH, SIM_BOOT
from hw_sim.script import Floor, Press, ScriptError, action_of, parse_script, parse_step, script_to_dict
from hw_sim.simulate import HandsPlayer, build_report, format_report, holds
from tests.rules_common import BUTTON, CLEAN, END, SEATS, deal

BASE = {"format": 1, "game": "holdem", "seats": SEATS, "button": BUTTON, "noise": dict(NOISE, seed=3)}
AGAIN = {"seats": SEATS, "button": BUTTON}  # a later hand dealt from the same button: a clean hand


def script(*hands: list[dict] | dict) -> dict:
    """A script of ``hands`` (each its steps, or a hand's whole object)."""
    return {**BASE, "hands": [h if isinstance(h, dict) else {"steps": h} for h in hands]}


# -- parsed and refused ----------------------------------------------------------------------------

@pytest.mark.parametrize("step,floor", [
    ({"floor": "level", "level": 5}, Floor("level", level=5, kind="level", tournament="main")),
    ({"floor": "level", "level": 7, "kind": "break", "sb": 100, "bb": 200, "ante": 25, "game": "razz",
      "tournament": "sunday.main"},
     Floor("level", level=7, kind="break", sb=100, bb=200, ante=25, game="razz", tournament="sunday.main")),
    ({"floor": "h4h", "on": True}, Floor("h4h", on=True)),
    ({"floor": "h4h", "on": False}, Floor("h4h", on=False)),
    ({"floor": "release"}, Floor("release")),
    ({"floor": "bubble", "on": True}, Floor("bubble", on=True)),
    ({"floor": "bubble_hold"}, Floor("bubble_hold", on=True)),
    ({"floor": "bubble_hold", "table": "t3", "hand": 42}, Floor("bubble_hold", on=True, table="t3", hand=42)),
    ({"floor": "bubble_hold", "on": False}, Floor("bubble_hold", on=False)),
    ({"floor": "clock", "seat": 4}, Floor("clock", seat=4)),
    ({"floor": "approve"}, Floor("approve")),  # FLOW-007: the floor's command
])
def test_each_floor_step_parses_and_goes_back_to_the_same_json(step, floor):
    s = parse_script(json.dumps(script([deal("As", 1), step, END])))
    assert action_of(s.hands[0].steps[1]) == floor
    assert parse_script(s.to_json()) == s
    assert script_to_dict(s)["hands"][0]["steps"][1].items() >= step.items()  # written out as given


FLOOR_REFUSALS = [
    ({"floor": "pause"}, "unknown floor signal 'pause' (signals: level, h4h, release, bubble, bubble_hold, clock, "
                         "approve)"),
    ({"floor": 3}, "unknown floor signal 3 (signals: level, h4h, release, bubble, bubble_hold, clock, approve)"),
    ({"floor": "level"}, "a floor 'level' step needs \"level\" (a level number)"),
    ({"floor": "level", "level": 0}, '"level" must be a level number 1 to 1000, got 0'),
    ({"floor": "level", "level": 1001}, '"level" must be a level number 1 to 1000, got 1001'),
    ({"floor": "level", "level": "5"}, "\"level\" must be a level number 1 to 1000, got '5'"),
    ({"floor": "level", "level": True}, '"level" must be a level number 1 to 1000, got true'),
    ({"floor": "level", "level": 2.0}, '"level" must be a level number 1 to 1000, got 2.0'),
    ({"floor": "level", "level": 2, "kind": "pause"}, "\"kind\" must be one of level, break, got 'pause'"),
    ({"floor": "level", "level": 2, "sb": -1}, '"sb" must be a number of chips 0 to 1000000000000, got -1'),
    ({"floor": "level", "level": 2, "bb": 10**13}, '"bb" must be a number of chips 0 to 1000000000000, got '
                                                   '10000000000000'),
    ({"floor": "level", "level": 2, "ante": None}, '"ante" must be a number of chips 0 to 1000000000000, got null'),
    ({"floor": "level", "level": 2, "sb": 200, "bb": 100}, '"sb" (200) is over "bb" (100)'),
    ({"floor": "level", "level": 2, "game": "pineapple"}, "unknown game 'pineapple' (games: holdem,"),
    ({"floor": "level", "level": 2, "game": ["razz"]}, 'unknown game ["razz"] (games: holdem,'),
    ({"floor": "level", "level": 2, "tournament": "a b"},
     "\"tournament\" must be a name of 1 to 64 letters, digits, '_', '.' or '-', got 'a b'"),
    ({"floor": "level", "level": 2, "seat": 4},
     "unknown key 'seat' (a floor 'level' step takes floor, level, kind, sb, bb, ante, game, tournament)"),
    ({"floor": "h4h"}, "a floor 'h4h' step needs \"on\" (true or false)"),
    ({"floor": "h4h", "on": 1}, '"on" must be true or false, got 1'),
    ({"floor": "h4h", "on": "off"}, "\"on\" must be true or false, got 'off'"),
    ({"floor": "release", "round": 2}, "unknown key 'round' (a floor 'release' step takes floor)"),
    ({"floor": "approve", "seat": 2}, "unknown key 'seat' (a floor 'approve' step takes floor)"),
    ({"floor": "bubble"}, "a floor 'bubble' step needs \"on\" (true or false)"),
    ({"floor": "bubble", "on": None}, '"on" must be true or false, got null'),
    ({"floor": "bubble_hold", "on": "yes"}, "\"on\" must be true or false, got 'yes'"),
    ({"floor": "bubble_hold", "table": "t/3"},
     "\"table\" must be a name of 1 to 64 letters, digits, '_', '.' or '-', got 't/3'"),
    ({"floor": "bubble_hold", "hand": 0}, '"hand" must be a hand number 1 to 1000000, got 0'),
    ({"floor": "bubble_hold", "on": False, "table": "t3"},
     '"table" and "hand" name the hold, and this step ends it ("on": false)'),
    ({"floor": "clock"}, "a floor 'clock' step needs \"seat\" (the seat, 1 to 10)"),
    ({"floor": "clock", "seat": 11}, '"seat" must be a seat number 1 to 10, got 11'),
    ({"floor": "clock", "seat": 4, "n": 2}, "unknown key 'n' (a floor 'clock' step takes floor, seat)"),
    ({"floor": "clock", "seat": 4, "deal": "As"}, "a step does one thing, this one has both 'deal' and 'floor'"),
]


@pytest.mark.parametrize("step,what", FLOOR_REFUSALS, ids=[w[:40] for _, w in FLOOR_REFUSALS])
def test_a_bad_floor_step_is_refused_with_one_line_naming_the_step(step, what):
    with pytest.raises(ScriptError) as info:  # the bad step is hand 2's third: named so, wherever it is
        parse_script(json.dumps(script(CLEAN, [deal("As", 1), deal("Kd", 2), step, END])))
    message = str(info.value)
    assert "\n" not in message and len(message) < 200
    assert message.startswith("hand 2, step 3: " + what), message


def test_a_number_too_long_in_a_floor_step_is_refused_naming_the_step():
    text = json.dumps(script([{"floor": "level", "level": 1}])).replace('"level": 1', '"level": ' + "9" * 5000)
    with pytest.raises(ScriptError, match=r'^hand 1, step 1: "level" must be a level number 1 to 1000, '
                                          r"got a number of 5000 digits$"):
        parse_script(text)


def test_simulate_refuses_a_bad_floor_step_before_anything_runs(tmp_path, mocker, capsys):
    """``tablectl simulate`` exits 2 with the parser's one line; no work folder, no daemon."""
    # mocks, not spies: were they called, the real ones would make a folder and start a daemon
    mkdtemp = mocker.patch.object(simulate.tempfile, "mkdtemp")
    run_script = mocker.patch.object(simulate, "run_script")
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(script(CLEAN, [{"floor": "release"}, {"floor": "clock", "seat": 0}] + CLEAN)))
    assert simulate.main(str(path), as_json=True) == 2
    out = capsys.readouterr()
    assert out.out == ""
    assert out.err == f'{path}: hand 2, step 2: "seat" must be a seat number 1 to 10, got 0\n'
    mkdtemp.assert_not_called()
    run_script.assert_not_called()


def test_the_dealer_calls_the_clock_with_the_clock_pad_and_a_seat():
    """Needs the core: the ``clock`` pad (controller/core/pads.py), a seat required."""
    assert action_of(parse_step({"press": "clock", "seat": 4}, where="hand 1, step 5")) == Press("clock", seat=4)
    with pytest.raises(ScriptError, match=r"^hand 1, step 5: press 'clock' needs a seat"):
        parse_step({"press": "clock"}, where="hand 1, step 5")


# -- played as the core's events ---------------------------------------------------------------

def _submitted(s: dict, mocker: MockerFixture) -> tuple[list, Harness]:
    """Play ``s`` in process; every event the daemon was given, in order."""
    h = Harness(parse_script(json.dumps(s)), console=False)
    submit = mocker.spy(h.daemon, "submit")
    h.play()
    return [c.args[0] for c in submit.call_args_list], h


def test_the_floor_steps_become_the_core_events_stamped_at_their_own_instant(mocker):
    steps = [{"floor": "level", "level": 5, "sb": 100, "bb": 200, "ante": 25}, {"floor": "bubble", "on": True},
             *CLEAN[:3], {"floor": "h4h", "on": True}, {"floor": "clock", "seat": 4},
             {"floor": "bubble_hold", "table": "t3", "hand": 42}, *CLEAN[3:-1],
             {"floor": "bubble_hold", "on": False}, END]
    events, h = _submitted(script(steps, {"steps": [{"floor": "release"}, {"floor": "clock", "seat": 2},
                                                    {"floor": "level", "level": 6, "kind": "break"},
                                                    {"floor": "release"}, {"floor": "h4h", "on": False}]}),
                           mocker)
    floor = [e for e in events if type(e) in (LevelSet, HandForHand, Release, BubbleMode, BubbleHold, ClockCalled)]
    ts = [e.ts for e in floor]
    assert ts == sorted(ts) and len(set(ts)) == len(ts) and all(EPOCH < t < EPOCH + 60 for t in ts)
    assert [(type(e), {k: v for k, v in vars_of(e).items() if k not in ("ts", "mono", "boot")}) for e in floor] == [
        (LevelSet, {"tournament": "main", "level": 5, "kind": "level", "small_blind": 100, "big_blind": 200,
                    "ante": 25, "game": None}),
        (BubbleMode, {"on": True}),
        (HandForHand, {"on": True}),
        (ClockCalled, {"seat": 4, "n": 1}),  # the floor's count of clocks at the table
        (BubbleHold, {"on": True, "table": "t3", "hand": 42}),
        (BubbleHold, {"on": False, "table": None, "hand": None}),
        (Release, {"round": 1}),  # the floor's count of releases: one so far, this one
        (ClockCalled, {"seat": 2, "n": 2}),
        (LevelSet, {"tournament": "main", "level": 6, "kind": "break", "small_blind": None, "big_blind": None,
                    "ante": None, "game": None}),
        (Release, {"round": 2}),
        (HandForHand, {"on": False}),
    ]
    clocks = [e for e in floor if type(e) is ClockCalled]
    assert all(e.boot == SIM_BOOT and e.mono == pytest.approx(e.ts - EPOCH, abs=1e-3) for e in clocks)
    # each in the step that played it: the step in force at its stamp
    assert [h.dealer.log.step_at(e.ts) for e in floor] == [(1, 1), (1, 2), (1, 6), (1, 7), (1, 8), (1, 27),
                                                          (2, 1), (2, 2), (2, 3), (2, 4), (2, 5)]


def vars_of(event) -> dict:
    return {f: getattr(event, f) for f in event.__dataclass_fields__}


def test_ticks_flow_while_a_device_is_away_or_a_players_clock_runs():
    def table(offline=(), running=False):
        return SimpleNamespace(devices_offline=set(offline), tournament=SimpleNamespace(clock_running=lambda: running))

    assert waits_on_time(table(offline={"reader"})) and waits_on_time(table(running=True))
    assert not waits_on_time(table(running=False))


def test_a_script_played_a_piece_at_a_time_gives_the_report_of_the_whole():
    s = script(CLEAN, {"steps": [{"floor": "release"}] + CLEAN, **AGAIN})
    whole = harness_play(json.dumps(s), console=False).report
    h = Harness(parse_script(json.dumps(s)), console=False)
    h.start()
    player = HandsPlayer(h.script, h.dealer, h)
    player.play_to(1, 5)
    assert h.dealer.current == (1, 5) and not h.records and not player.done
    with pytest.raises(ValueError, match=r"^hand 1, step 5 is played already"):
        player.play_to(1, 5)
    with pytest.raises(ValueError, match=r"^hand 2, step 30: the hand has 23 steps$"):
        player.play_to(2, 30)
    player.play_to(1)
    assert list(h.records) == [1]
    player.play_to(2, 1)  # the release, before hand 2's first card
    player.play_to(2)
    assert player.done
    assert build_report(h.script, h.records, h.dealer, player.buttons, placed=h.placed, prompts=h.prompts) == whole


# -- the report's level and holds, from the daemon's records and prompts -----------------------------

def test_the_report_takes_each_hands_level_from_its_record_and_pairs_the_holds():
    """build_report on records and prompts as the daemon gives them (no daemon): the level is the
    record's, null for a hand with no record; a hold from the prompt that begins it to the one that
    ends it, its steps counted over the whole script."""
    s = parse_script(json.dumps(script(CLEAN, [{"floor": "release"}] + CLEAN, [{"floor": "release"}],
                                       [{"floor": "release"}] + CLEAN)))
    log = StepLog()
    for i, where in enumerate([(1, 1), (1, 22), (2, 1), (2, 2), (2, 23), (3, 1), (4, 1), (4, 23)]):
        log.mark(where, EPOCH + i)
    dealer = SimpleNamespace(record_of={1: 1, 2: 2, 4: 3}, log=log, confirm_latency=lambda placed: {"cards": 0})
    record = {"button": 9, "zones": {}, "stub_count": 52, "alerts": [], "prompts": []}
    records = {1: {**record, "level": 5}, 2: {**record, "level": None}, 3: {**record, "level": 6}}
    at = {where: EPOCH + i + 0.5 for i, where in enumerate([(1, 1), (1, 22), (2, 1), (2, 2), (2, 23), (3, 1),
                                                           (4, 1), (4, 23)])}
    prompts = [("flow.h4h_go", at[1, 1]),  # a release while not holding: ends nothing
               ("flow.h4h_wait", at[1, 22]), ("stub.count_due", at[1, 22]), ("flow.h4h_wait", at[1, 22]),
               ("flow.h4h_go", at[2, 1]),
               ("flow.bubble_hold", at[2, 2]), ("flow.h4h_wait", at[2, 23]), ("flow.h4h_wait", at[3, 1]),
               ("flow.bubble_go", at[3, 1]), ("flow.h4h_go", at[4, 1]), ("flow.h4h_wait", at[4, 23]),
               ("flow.bubble_go", at[4, 23])]
    report = build_report(s, records, dealer, {1: 9, 2: 1, 3: 2, 4: 4}, prompts=prompts)
    assert [h["level"] for h in report["hands"]] == [5, None, None, 6]  # hand 3 dealt no card: no record
    assert list(report["hands"][0])[:2] == ["button", "level"]
    assert list(report) == ["hands", "tracking", "holds"]  # the report's contract: only additions
    assert report["holds"] == [
        {"kind": "h4h", "from_step": 22, "released_step": 23},  # hand 1's end, then hand 2's first step
        {"kind": "bubble", "from_step": 24, "released_step": 46},
        {"kind": "h4h", "from_step": 45, "released_step": 48},  # waited again at hand 3: the same hold
        {"kind": "h4h", "from_step": 70, "released_step": None},  # still holding at the end
    ]
    assert holds(s, dealer, []) == []
    text = format_report(report)
    assert "hand 1  button 9  level 5  stub 52" in text and "hand 2  button 9  stub 52" in text
    assert "hold bubble from step 24, released at step 46" in text and "hold h4h from step 70, never released" in text


# -- what the core does with them (needs the core's part of issue 32) ---------------------------------

def test_FLOW_001_each_hand_carries_the_level_it_was_dealt_under_and_a_redeal_keeps_its_hands():
    """Needs the core. Level 5 from the first hand; level 6 arrives in the middle of hand 2, a
    misdeal (the first card to the wrong seat, MISD-004); its re-deal keeps level 5 (MISD-014),
    the hand after it gets level 6 (FLOW-001)."""
    misdeal = [deal("As", 2), {"floor": "level", "level": 6, "sb": 200, "bb": 400}, {"press": "misdeal"}, END]
    report = play(script([{"floor": "level", "level": 5, "sb": 100, "bb": 200}] + CLEAN,
                         {"steps": misdeal, **AGAIN}, CLEAN, {"steps": CLEAN, **AGAIN}))
    assert [h["level"] for h in report["hands"]] == [5, 5, 5, 6]
    assert play(script(CLEAN))["hands"][0]["level"] is None  # no tournament, no level
    assert report["holds"] == []


def test_FLOW_002_hand_for_hand_holds_after_each_hand_until_the_release():
    """Needs the core. Hand-for-hand turned on after hand 1's first card: the table holds from hand
    1's end (step 23) to the release (hand 2's first step, step 24 of the script); again from hand
    2's end (step 46), never released."""
    played = harness_play(json.dumps(script(CLEAN[:1] + [{"floor": "h4h", "on": True}] + CLEAN[1:],
                                            {"steps": [{"floor": "release"}] + CLEAN, **AGAIN})))
    assert played.report["holds"] == [{"kind": "h4h", "from_step": 23, "released_step": 24},
                                      {"kind": "h4h", "from_step": 46, "released_step": None}]
    told = [(where, e.code) for where, e in played.seen["dealer"] if getattr(e, "code", "").startswith("flow.h4h")]
    assert told[:2] == [((1, 23), "flow.h4h_wait"), ((2, 1), "flow.h4h_go")]
    assert [h["alerts"] for h in played.report["hands"]] == [[], []]


def test_FLOW_003_a_bubble_hold_from_its_step_to_its_end():
    """Needs the core. In bubble mode, another table's all-in holds this one between its hands
    (hand 2's first step, step 23) until that hand ends (hand 2's second step)."""
    played = harness_play(json.dumps(script(
        [{"floor": "bubble", "on": True}] + CLEAN,
        {"steps": [{"floor": "bubble_hold", "table": "t3", "hand": 42}, {"floor": "bubble_hold", "on": False}]
         + CLEAN, **AGAIN})))
    assert played.report["holds"] == [{"kind": "bubble", "from_step": 24, "released_step": 25}]
    assert [h["alerts"] for h in played.report["hands"]] == [[], []]


@pytest.mark.parametrize("call", [{"floor": "clock", "seat": 4}, {"press": "clock", "seat": 4}],
                         ids=["the floor", "the dealer's pad"])
def test_FLOW_004_the_clock_counts_down_in_simulated_time(call, mocker):
    """Needs the core. The clock called on seat 4 after the hole cards counts down 30 s on the
    ticks of the simulated table: 30 (called), 20, 10, 5-4-3-2-1 in the wait, then "seat 4 dead";
    a tick every simulated second while it runs, none once it is over."""
    steps = CLEAN[:10] + [call, {"wait": 31}, {"wait": 5}, {"muck": "seat:4"}] + CLEAN[10:]
    events, h = _submitted(script(steps), mocker)
    seen = [(where, e) for where, e in h.recorders["dealer"].effects
            if getattr(e, "code", None) in ("flow.clock", "flow.clock_dead")]
    assert [(where, e.code, e.count) for where, e in seen if e.code == "flow.clock"] == \
        [((1, 11), "flow.clock", 30)] + [((1, 12), "flow.clock", n) for n in (20, 10, 5, 4, 3, 2, 1)]
    [(where, dead)] = [(where, e) for where, e in seen if e.code == "flow.clock_dead"]
    assert where == (1, 12) and dead.seat == 4
    ticks = [h.dealer.log.step_at(e.ts) for e in events if type(e) is Tick]
    monos = [e.mono for e in events if type(e) is Tick]
    assert ticks.count((1, 12)) >= 30 and (1, 13) not in ticks  # none once the clock is over
    assert all(1.0 <= b - a < 1.0 + 0.05 + 1e-6 for a, b in zip(monos, monos[1:], strict=False))  # each second


@pytest.mark.e2e
@pytest.mark.slow
def test_the_floor_steps_give_the_same_report_through_simulate_through_a_power_cut_and_in_process(tmp_path):
    """``tablectl simulate`` (the daemon a subprocess; the floor's signals over the simulator's
    private channel, journalled) gives the in-process harness's report; and so does a run cut by
    power failures just after floor steps (the journal replays the floor's events)."""
    from tests.e2e.test_simulate_e2e import simulate as run_simulate

    s = script([{"floor": "level", "level": 5}, {"floor": "bubble", "on": True}] + CLEAN[:1]
               + [{"floor": "h4h", "on": True}, {"floor": "level", "level": 6}] + CLEAN[1:],
               {"steps": [{"floor": "release"}, {"floor": "bubble_hold", "table": "t3", "hand": 42}, {"wait": 1},
                          {"floor": "bubble_hold", "on": False}] + CLEAN[:10]
                + [{"floor": "clock", "seat": 4}, {"wait": 31}, {"muck": "seat:4"}] + CLEAN[10:], **AGAIN})
    want = harness_play(json.dumps(s)).report
    r = run_simulate(tmp_path / "whole", s)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == want
    cut = run_simulate(tmp_path / "cut", {**s, "crash_after": [4, 26, 28, 41]})
    assert cut.returncode == 0, cut.stderr
    assert json.loads(cut.stdout) == want
    assert [h["level"] for h in want["hands"]] == [5, 6]  # (needs the core)
    assert [(hold["kind"], hold["from_step"], hold["released_step"]) for hold in want["holds"]] == [
        ("h4h", 26, 27), ("bubble", 28, 30), ("h4h", 55, None)]
