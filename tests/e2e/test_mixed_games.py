"""Mixed games (issue 16, MIXED-001/002): the game of each hand, a rotation in the configuration,
the prompts of a game's last hand and of the next game, the button through stud, late entries.

Oracles: the counting chips of 001 §MIXED GAMES (the last chip moves, "Last hand of (game)", then
the next game is announced), 001 §LATE REGISTRANTS ("wait to post in blind games, and ante in
stud games at their first opportunity"), and hw_sim.random_hands.random_mixed_script, whose
buttons (moving after each hand of a button game, standing through stud) are the generator's,
not the daemon's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_mock import MockerFixture

from controller.core.display import names_a_card, render, text_table, WIDEST
from controller.core.effects import HandFinished, HandStarted, Prompt
from controller.core.events import ButtonPress, TableSetup
from controller.core.games import GAMES
from controller.core.mixed import PRESETS, Rotation
from controller.core.prompts import PromptBoard
from hw_sim import harness
from controller.config.daemon import ConfigError, parse_config
from controller.core.settings import TableSettings, deal_order
from controller.core.state import STATE_VERSION
from controller.core.table import Table
from hw_sim.random_hands import random_mixed_script
from rig.scenarios import assert_nothing_secret_public, check_report
from tests.unit.core.test_table import Feeder
from rig.paths import TESTS

DATA = TESTS / "data" / "state"
#: the rotations written out from the guides and the configuration's documentation (not from the
#: module under test): HORSE is hold'em, Omaha hi-lo, razz, stud, stud hi-lo; the 8-game is 2-7
#: triple draw, limit hold'em, Omaha hi-lo, razz, stud, stud hi-lo, no-limit hold'em, pot-limit
#: Omaha (the betting structure is not the table's: hold'em and Omaha)
HORSE = ["holdem", "omaha8", "razz", "stud", "stud8"]
EIGHT = ["draw27_triple", "holdem", "omaha8", "razz", "stud", "stud8", "holdem", "omaha"]
ROTATIONS = {"horse": HORSE, "8game": EIGHT}
STUD_CARDS = [r + s for r in "23456789TJQKA" for s in "cdhs"]


def _quick_hand(f: Feeder, cards: int, *, misdeal: bool = False) -> None:
    """A hand folded on its first round: ``cards`` to each seat the table deals in next, round
    by round from its first seat, then gathered (``misdeal``: declared first)."""
    seats, pos, _ = f.table.plan()
    deck = iter(STUD_CARDS)
    for _ in range(cards):
        for seat in deal_order(seats, pos.button):
            f.put(next(deck), seat)
    if misdeal:
        f.press("misdeal")
    f.field.clear()
    f.tick(4)


def _cards(f: Feeder) -> int:
    return 3 if f.table.game_def.family == "stud" else 2


def mixed_prompts(f: Feeder) -> list[tuple[int | None, str, str | None]]:
    return [(p.hand, p.code, p.game) for p in f.of(Prompt) if p.rule == "MIXED-001"]


def games_dealt(f: Feeder) -> list[str]:
    return [e.game for e in f.of(HandStarted)]


# -- MIXED-001 in the core: a number of hands, the redeal, the floor's game -------------------------
def test_MIXED_001_each_game_lasts_its_hands_with_the_last_hand_and_the_next_game_prompted() -> None:
    f = Feeder(game="holdem", seats=(1, 2, 4), button=4, rotation=Rotation(("holdem", "razz"), hands=2))
    for _ in range(5):
        _quick_hand(f, _cards(f))
    assert games_dealt(f) == ["holdem", "holdem", "razz", "razz", "holdem"]
    assert mixed_prompts(f) == [(2, "mixed.last_hand", "holdem"), (2, "mixed.next_game", "razz"),
                                (4, "mixed.last_hand", "razz"), (4, "mixed.next_game", "holdem")]
    records = [e.record for e in f.of(HandFinished)]
    assert [r["game"] for r in records] == ["holdem", "holdem", "razz", "razz", "holdem"]
    assert [p["message"] for p in records[1]["prompts"] if p["rule"] == "MIXED-001"] == \
        ["last hand of Texas hold'em", "next: Razz"]
    assert records[1]["prompts"][-1]["game"] == "razz"


@pytest.mark.parametrize("count_redeal", [False, True])
def test_MIXED_001_a_misdealt_hand_counts_only_under_count_redeal_and_its_redeal_keeps_the_game(
        count_redeal: bool) -> None:
    f = Feeder(game="holdem", seats=(1, 2, 4), button=4,
               rotation=Rotation(("holdem", "stud"), hands=2, count_redeal=count_redeal))
    _quick_hand(f, 1, misdeal=True)  # hand 1: misdealt; hand 2 replays it
    _quick_hand(f, 2)
    _quick_hand(f, _cards(f))
    redeal = [e.record for e in f.of(HandFinished)][1]
    assert redeal["redeal_of"] == 1 and redeal["game"] == "holdem"
    if count_redeal:  # the misdeal counted one: the re-deal is the game's last hand
        assert games_dealt(f) == ["holdem", "holdem", "stud"]
        assert mixed_prompts(f)[:2] == [(2, "mixed.last_hand", "holdem"), (2, "mixed.next_game", "stud")]
    else:  # the re-deal is the game's first hand: one more hold'em
        assert games_dealt(f) == ["holdem", "holdem", "holdem"]
        assert mixed_prompts(f) == [(3, "mixed.last_hand", "holdem"), (3, "mixed.next_game", "stud")]


def test_the_floors_setup_names_the_game_from_the_next_hand_and_the_rotation_goes_on_from_it() -> None:
    f = Feeder(game="holdem", seats=(1, 2, 4), button=4, rotation=Rotation(tuple(HORSE), hands=2))
    f.put("2c", 1)  # a hand under way keeps its game
    f.effects += f.table.apply(TableSetup(5.0, (1, 2, 4), game="stud"))
    assert f.table.hand is not None and f.table.hand.game == "holdem"
    f.put("2d", 2)
    f.put("2h", 4)
    f.field.clear()
    f.tick(4)
    _quick_hand(f, 3)
    _quick_hand(f, 3)
    assert games_dealt(f) == ["holdem", "stud", "stud"] and f.table.game == "stud8"  # HORSE goes on after stud
    assert mixed_prompts(f) == [(3, "mixed.last_hand", "stud"), (3, "mixed.next_game", "stud8")]
    _quick_hand(f, 3)
    f.effects += f.table.apply(TableSetup(99.0, (1, 2, 4), game="stud8"))  # the same game: no change
    assert f.table.turns._game_hands == 1 and f.table.game == "stud8"


@pytest.mark.parametrize("seed", range(4))
def test_MIXED_001_random_rotations_with_misdeals_follow_the_counting_chips(seed: int) -> None:
    """Random rotations, hands per game and misdeals against the counting chips written out
    here: a chip per hand dealt to its end (a misdealt one too under count_redeal), the last chip
    moved: "last hand of X" at that hand's start, "next: Y" at its end, the plaque changed."""
    import random

    rng = random.Random(seed)
    games = tuple(rng.sample(["holdem", "omaha", "stud", "razz", "badugi"], rng.randint(2, 4)))
    rotation = Rotation(games, hands=rng.randint(1, 3), count_redeal=rng.random() < 0.5)
    f = Feeder(game=games[0], seats=(1, 2, 4), button=4, rotation=rotation)
    chips, at, want_games, want_prompts = 0, 0, [], []
    misdealt = False
    for number in range(1, 19):
        game = games[at]
        want_games.append(game)
        misdeal = not misdealt and rng.random() < 0.25  # (a re-deal is not misdealt again here)
        if chips >= rotation.hands - 1:  # (the re-deal of a misdealt last hand, counted, is still the last)
            want_prompts.append((number, "mixed.last_hand", game))
        _quick_hand(f, 1 if misdeal else {"flop": 2, "stud": 3, "draw": 4}[f.table.game_def.family], misdeal=misdeal)
        misdealt = misdeal
        if misdeal:
            chips += 1 if rotation.count_redeal else 0
            continue
        chips += 1
        if chips >= rotation.hands:
            chips, at = 0, (at + 1) % len(games)
            want_prompts.append((number, "mixed.next_game", games[at]))
    assert games_dealt(f) == want_games
    assert mixed_prompts(f) == want_prompts


# -- the button through stud (docs/decisions/0031-mixed-games.md) --------------------------------
def test_the_button_moves_after_the_last_flop_hand_stands_through_stud_and_moves_on_after_it() -> None:
    f = Feeder(game="holdem", seats=(1, 2, 4, 6), button=1, rotation=Rotation(("holdem", "razz"), hands=2))
    for _ in range(6):
        _quick_hand(f, _cards(f))
    started = [(e.game, e.button) for e in f.of(HandStarted)]
    # written out: hold'em 1, 2; the puck moves to 4 and stands there through razz (the deal
    # starts at seat 6); hold'em again from the puck: 4, then 6
    assert started == [("holdem", 1), ("holdem", 2), ("razz", 4), ("razz", 4), ("holdem", 4), ("holdem", 6)]
    assert f.of(HandStarted)[2].seats == (1, 2, 4, 6) and [e.record["button"] for e in f.of(HandFinished)][2] == 4


def test_the_floors_setup_switching_to_stud_and_back_moves_the_button_as_the_rotation_does() -> None:
    # the same table as above, the games named by the floor's setup instead of a rotation:
    # between hands (after hand 2) and during a hand (during hand 4)
    f = Feeder(game="holdem", seats=(1, 2, 4, 6), button=1)
    _quick_hand(f, _cards(f))
    _quick_hand(f, _cards(f))
    f.effects += f.table.apply(TableSetup(float(f.cycle) + 0.5, (1, 2, 4, 6), game="razz"))
    _quick_hand(f, _cards(f))
    seats, pos, _ = f.table.plan()  # hand 4, razz: the floor names hold'em after its first card
    deck = iter(STUD_CARDS)
    for i in range(3):
        for seat in deal_order(seats, pos.button):
            f.put(next(deck), seat)
            if i == 0 and seat == deal_order(seats, pos.button)[0]:
                f.effects += f.table.apply(TableSetup(float(f.cycle) + 0.5, (1, 2, 4, 6), game="holdem"))
    f.field.clear()
    f.tick(4)
    _quick_hand(f, _cards(f))
    _quick_hand(f, _cards(f))
    started = [(e.game, e.button) for e in f.of(HandStarted)]
    assert started == [("holdem", 1), ("holdem", 2), ("razz", 4), ("razz", 4), ("holdem", 4), ("holdem", 6)]


def test_MIXED_001_an_orbit_is_every_seat_on_the_button_and_in_stud_a_hand_a_player() -> None:
    f = Feeder(game="holdem", seats=(1, 2, 4), button=4, rotation=Rotation(("holdem", "stud")))
    for _ in range(7):
        _quick_hand(f, _cards(f))
    assert games_dealt(f) == ["holdem"] * 3 + ["stud"] * 3 + ["holdem"]
    assert [h for h, code, _ in mixed_prompts(f) if code == "mixed.last_hand"] == [3, 6]


# -- MIXED-002: late entries -------------------------------------------------------------------------
def test_MIXED_002_a_late_entry_waits_for_the_big_blind_in_holdem_and_antes_at_once_in_stud() -> None:
    from controller.core.settings import RuleSettings

    f = Feeder(game="holdem", seats=(1, 2, 4, 6), button=1, rotation=Rotation(("holdem", "stud"), hands=2),
               rules=RuleSettings(late_entry="wait_for_bb"))
    _quick_hand(f, 2)  # button 1, blinds 2 and 4
    f.press("seat_in", seat=3)  # next hand: button 2, blinds 4, 6: seat 3 waits for the big blind
    _quick_hand(f, 2)
    assert f.of(HandStarted)[1].seats == (1, 2, 4, 6) and f.table.game == "stud"
    _quick_hand(f, 3)  # stud: he antes at the first chance
    assert f.of(HandStarted)[2].seats == (1, 2, 3, 4, 6)
    f2 = Feeder(game="holdem", seats=(1, 2, 4, 6), button=1, rules=RuleSettings(late_entry="wait_for_bb"))
    _quick_hand(f2, 2)
    f2.press("seat_in", seat=3)
    _quick_hand(f2, 2)
    _quick_hand(f2, 2)
    assert [e.seats for e in f2.of(HandStarted)][1:] == [(1, 2, 4, 6), (1, 2, 4, 6)]  # hold'em: still waiting


# -- the state: version 11 holds the game and the count --------------------------------------------
def test_the_state_of_a_mixed_table_written_by_release_11_loads_and_plays_on() -> None:
    """tests/data/state/v11-mixed-mid-hand.json: hold'em and razz, two hands each, seats 1, 2, 4;
    hand 2 (hold'em, the game's last; the button at 1) under way, seat 2 dealt 2c."""
    state = json.loads((DATA / "v11-mixed-mid-hand.json").read_text())
    assert state["version"] == 11
    settings = TableSettings(game="holdem", seats=(1, 2, 4), button=4, confirm_cycles=2, gone_cycles=3,
                             rotation=Rotation(("holdem", "razz"), hands=2))
    table = Table.from_state(state, settings)
    assert table.hand is not None and table.hand.number == 2 and table.turns._game_hands == 1
    assert [p.code for p in table.hand.prompts] == ["mixed.last_hand"]
    f = Feeder(game="holdem", seats=(1, 2, 4), button=4, rotation=Rotation(("holdem", "razz"), hands=2))
    f.table = table
    f.field = {f.uid("2c"): 2}
    f.cycle = 100
    f.put("2d", 4)
    f.put("2h", 1)
    f.field.clear()
    f.tick(4)
    assert table.game == "razz" and mixed_prompts(f) == [(2, "mixed.next_game", "razz")]


def test_a_state_on_a_rotation_is_not_taken_by_a_table_without_one_but_an_edited_rotation_keeps_it() -> None:
    # the saved state holds the rotation's next game (razz here): a table whose rotation was
    # taken out of the configuration would deal it for ever; it starts afresh instead (the
    # history is kept: docs/journal.md). Editing the rotation's games or counts keeps the state.
    from controller.core.state import StateMismatch

    state = json.loads((DATA / "v11-mixed-mid-hand.json").read_text())
    plain = TableSettings(game="holdem", seats=(1, 2, 4), button=4, confirm_cycles=2, gone_cycles=3)
    with pytest.raises(StateMismatch):
        Table.from_state(state, plain)
    edited = TableSettings(game="holdem", seats=(1, 2, 4), button=4, confirm_cycles=2, gone_cycles=3,
                           rotation=Rotation(("holdem", "razz", "stud"), hands=3))
    assert Table.from_state(state, edited).game == "holdem"


def test_a_version_8_state_migrates_to_its_configurations_game_with_nothing_counted() -> None:
    state = json.loads((DATA / "v8-draw-mid-hand.json").read_text())
    table = Table.from_state(state, TableSettings(game="draw27_triple", seats=(1, 2, 4), button=4,
                                                  confirm_cycles=2, gone_cycles=3))
    turns = table.turns
    assert (table.game, turns._rotation_at, turns._game_hands, turns._game_buttons) == ("draw27_triple", 0, 0, set())
    assert json.loads(json.dumps(table.to_state()))["version"] == STATE_VERSION >= 9


# -- the configuration ------------------------------------------------------------------------------
READER = '[reader]\nport = "loop://"\n'


@pytest.mark.parametrize("table,error", [
    ('rotation = "pineapple"', "[table] rotation: 'pineapple' is no rotation (presets: horse, 8game; or a list"),
    ('rotation = ["holdem", "pineapple"]', '[table] rotation: "pineapple" is not a game (games: holdem'),
    ('rotation = ["razz"]', "[table] rotation: a rotation needs two games or more"),
    ('rotation = "horse"\ngame = "omaha"', "[table] game: 'omaha' is not in the rotation"),
    ('change = "daily"', '[table] change = "daily": must be a whole number from 1 to 100 hands of each game'),
    ('count_redeal = "no"', '[table] count_redeal: want true or false, got "no"'),
])
def test_a_bad_rotation_is_refused_naming_the_file_and_the_key(tmp_path: Path, table: str, error: str) -> None:
    path = tmp_path / "tablectl.toml"
    with pytest.raises(ConfigError) as info:
        parse_config(f"[table]\n{table}\n{READER}", path=path)
    assert str(info.value).startswith(f"{path}: {error}"), str(info.value)


def test_the_presets_and_a_list_make_the_rotation_the_first_game_its_first(tmp_path: Path) -> None:
    cfg = parse_config(f'[table]\nrotation = "8game"\nchange = 4\ncount_redeal = true\n{READER}', path=tmp_path / "t")
    assert cfg.table.rotation == Rotation(("draw27_triple", "holdem", "omaha8", "razz", "stud", "stud8", "holdem",
                                           "omaha"), 4, True)
    assert cfg.table.game == "draw27_triple"
    cfg = parse_config(f'[table]\nrotation = ["stud", "holdem"]\ngame = "holdem"\n{READER}', path=tmp_path / "t")
    assert (cfg.table.rotation.games, cfg.table.rotation.hands, cfg.table.game) == (("stud", "holdem"), None, "holdem")
    assert Table(cfg.table, cfg.registry()).turns._rotation_at == 1


# -- the display -------------------------------------------------------------------------------------
def test_the_display_says_the_last_hand_and_the_next_game_in_words_that_fit() -> None:
    board = PromptBoard()
    st = board.apply([HandStarted(1.0, 8, 4, (1, 2, 4), "stud"),
                      Prompt(1.0, "mixed.last_hand", "last hand of Seven-card stud", "MIXED-001", 8, game="stud")])
    assert render(st, "lcd16x2") == ["LAST HAND OF", "stud"]
    st = board.apply([Prompt(2.0, "mixed.next_game", "next: Seven-card stud hi-lo", "MIXED-001", 8, game="stud8")])
    st = board.press(ButtonPress(2.5, "ack"))  # the last hand's prompt seen
    assert render(st, "lcd20x4") == ["NEXT GAME", "stud hi-lo", "plaque; ack", "hand 8"]
    st = board.apply([HandStarted(3.0, 9, 4, (1, 2, 4), "stud8")])  # kept into the next hand until acked
    assert st.code == "mixed.next_game"
    assert board.press(ButtonPress(2.5, "ack")).code is None
    words = text_table().games
    assert set(words) == {g.name for g in GAMES}
    assert all(len(w) <= len(str(WIDEST["game"])) and not names_a_card(w) for w in words.values())


# -- the in-process harness: HORSE and the 8-game on a rotation configuration ------------------------
TITLES = {g.name: g.title for g in GAMES}


def _deal_rotation(mocker: MockerFixture, seed: int, preset: str, hands: int, per: int, change: str) -> list[list[str]]:
    """Deal ``random_mixed_script(seed, ...)`` in process on the ``preset`` rotation's
    configuration, the hands after the first naming neither seats nor button (the daemon moves
    the button and deals its rotation's games itself: no setup names a game). Every hand ends
    exact with the generator's button and no alert; the records name the script's games.
    Returns each hand's MIXED-001 prompts' words."""
    rotation = ROTATIONS[preset]
    script = random_mixed_script(seed, hands=hands, rotation=rotation, per=per, noise={"seed": seed, "miss": 0.05})
    assert len(script["seats"]) == 2  # heads-up: an orbit is two hands, and stud deals two a hand
    for hand in script["hands"][1:]:
        del hand["seats"], hand["button"]
    command = mocker.spy(harness.Harness, "command")  # (on the class: play() makes the harness)
    played = harness.play(script, wire=False, table_extra=f'rotation = "{preset}"\nchange = {change}')
    sent = [c.args[1] for c in command.call_args_list]  # (args[0]: the harness)
    assert sent, "the floor's commands were not seen: the spy is on the wrong method"
    assert not [r for r in sent if "game" in r], "the floor named a game: the rotation did not change it"
    assert_nothing_secret_public(script, played)
    generated = random_mixed_script(seed, hands=hands, rotation=rotation, per=per)
    for hand, gen in zip(script["hands"], generated["hands"], strict=True):
        hand["button"] = gen["button"]  # the generator's: after each hand of a button game, standing through stud
    check_report(script, played.report)
    records = [e.record for _, e in played.seen["floor"] if isinstance(e, HandFinished)]
    assert [r["game"] for r in records] == [h["game"] for h in script["hands"]]
    return [[p["text"] for p in h["prompts"] if p["rule"] == "MIXED-001"] for h in played.report["hands"]]


def test_the_presets_are_the_rotations_written_out() -> None:
    assert {name: list(games) for name, games in PRESETS.items()} == ROTATIONS


def test_MIXED_001_a_horse_rotation_dealt_in_process_is_clean_and_prompts_at_each_games_last_hand(
        mocker: MockerFixture) -> None:
    said = _deal_rotation(mocker, 14, "horse", 12, 2, '"orbit"')
    for n, texts in enumerate(said):  # an orbit of two seats: two hands a game
        game, nxt = HORSE[n // 2 % 5], HORSE[(n // 2 + 1) % 5]
        assert texts == ([] if n % 2 == 0 else [f"last hand of {TITLES[game]}", f"next: {TITLES[nxt]}"]), n


def test_MIXED_001_the_8_game_a_hand_each_goes_round_with_its_two_holdems(mocker: MockerFixture) -> None:
    said = _deal_rotation(mocker, 2, "8game", 9, 1, "1")
    eight = EIGHT
    assert said == [[f"last hand of {TITLES[eight[n % 8]]}", f"next: {TITLES[eight[(n + 1) % 8]]}"] for n in range(9)]
    assert said[6] == ["last hand of Texas hold'em", "next: Omaha"]  # the second hold'em: pot-limit Omaha next


# -- tablectl simulate: a rotation, and a hand naming its own game -----------------------------------
@pytest.mark.e2e
def test_MIXED_001_a_script_of_three_games_through_tablectl_simulate_on_a_rotation(tmp_path: Path) -> None:
    """The daemon (a subprocess on its pseudo-terminals) on a hold'em/razz rotation, a hand a
    game: hold'em, then razz by the rotation, then stud, which the third hand names (the floor's
    ``setup`` over the control socket): exact zones and buttons, no alert, each game's bring-in."""
    from tests.e2e.test_simulate_e2e import simulate

    script = random_mixed_script(28, hands=3, rotation=["holdem", "razz", "stud"], per=1,
                                 noise={"seed": 28, "miss": 0.05})
    assert script["seats"] == [3, 9]
    r = simulate(tmp_path, script, "--rotation", "holdem,razz", "--change", "1")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    check_report(script, report)
    said = [[p["text"] for p in h["prompts"] if p["rule"] in ("MIXED-001", "STUD-002")] for h in report["hands"]]
    assert said[0] == ["last hand of Texas hold'em", "next: Razz"]
    assert said[1][0] == "last hand of Razz" and "the highest card showing" in said[1][1]  # razz's bring-in
    assert said[1][2] == "next: Texas hold'em"
    assert said[2][0] == "last hand of Seven-card stud" and "the lowest card showing" in said[2][1]
    assert said[2][2] == "next: Razz"  # the rotation goes on from where it was
    refused = simulate(tmp_path, script, "--rotation", "holdem,pineapple")
    assert refused.returncode == 2
    assert refused.stderr.startswith("tablectl simulate: --rotation: unknown game 'pineapple'"), refused.stderr


def test_the_demo_deals_any_game_and_names_it_in_each_hands_line() -> None:
    """``tablectl demo --game razz``: a stud game, dealt by the simulated dealer from the daemon's
    own next game and dealer's position; the hand's line names its game and is clean."""
    import subprocess

    from tests.conftest import TABLECTL

    r = subprocess.run([*TABLECTL, "demo", "--hands", "1", "--plain", "--seed", "5", "--speed", "200",
                        "--faults", "0", "--game", "razz"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    [line] = [x for x in r.stdout.splitlines() if x.startswith("hand ")]
    assert line.split()[2] == "razz" and " clean " in line and "burns 4" in line, line  # 4th-7th: a burn each
    bad = subprocess.run([*TABLECTL, "demo", "--game", "pineapple"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "horse" in bad.stderr and "8game" in bad.stderr
