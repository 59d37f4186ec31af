"""What the scenario tests share: the noise model, the zones a script should leave (computed
here from the script's physical steps, independently of the daemon), and :func:`play`, which
deals a script through the in-process harness (``hw_sim.harness``) and checks, on
every scenario, that nothing secret reached a public output.

The end-to-end runner (``tablectl simulate`` as a subprocess) is ``tests.e2e.test_simulate_e2e.simulate``.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from controller.core.effects import effect_to_dict
from hw_sim.harness import Played, play as harness_play
from rig.paths import PHH_DIR as PHH_DIR  # re-exported: the scenario tests import it from here

NOISE = {"seed": 7, "miss": 0.05, "repeat": 0.3, "crosstalk": 0.01}
ZONE_ORDER = [f"seat:{n}" for n in range(1, 11)] + ["board", "burn", "muck"]
_NOT_DEALT = 1 << 30

#: scenarios played in process by this test session, by kind (printed in the lead's report)
PLAYED = {"scripts": 0, "hands": 0, "screens": 0}


def expected_hand(steps: list[dict]) -> dict:
    """Where each card should end, from the physical steps alone. The muck in the order the
    record lists it (docs/tracking.md, "Order within a zone"): the cards dealt to a seat in the
    order of their deal steps, then any other card in the order it reached the muck."""
    zones: dict[str, list[str]] = {}
    for step in steps:
        if "deal" in step:
            zones.setdefault(step["to"], []).append(step["deal"])
        elif "stack" in step:  # Chinese poker: a stack pushed whole
            zones.setdefault(step["to"], []).extend(step["stack"])
        elif "muck" in step:
            cards = zones.pop(step["muck"], [])
            zones.setdefault("muck", []).extend(cards)
        elif "move" in step:
            for z in zones.values():
                if step["move"] in z:
                    z.remove(step["move"])
            if step["to"] != "stub":
                zones.setdefault(step["to"], []).append(step["move"])
        elif "discard" in step:  # a draw: the seat's discards into the muck
            for card in step["discard"]:
                zones[step["from"]].remove(card)
                zones.setdefault("muck", []).append(card)
        elif "restub" in step:  # the cards gathered into a new stub are off the table
            for z in zones.values():
                z[:] = [c for c in z if c not in step["restub"]]
    if "muck" in zones:
        zones["muck"] = muck_order(steps, zones["muck"])
    out = sum(len(z) for z in zones.values())
    return {"zones": {z: zones[z] for z in ZONE_ORDER if zones.get(z)}, "stub_count": 52 - out}


def muck_order(steps: list[dict], muck: list[str]) -> list[str]:
    """``muck`` (cards in the order they reached it) as the record lists it: the cards dealt
    to a seat first, in the order of their first deal step, then the others as they came."""
    dealt: dict[str, int] = {}
    for step in steps:
        for card in step.get("stack") or [step.get("deal")]:
            if card is not None and step["to"].startswith("seat:"):
                dealt.setdefault(card, len(dealt))
    return sorted(muck, key=lambda c: dealt.get(c, _NOT_DEALT))


def check_report(script: dict, report: dict) -> None:
    """Every hand's zones (the muck too, in order), stub count and button exactly as the script
    put them, and no dealer or floor alert."""
    assert len(report["hands"]) == len(script["hands"])
    for i, (hand, got) in enumerate(zip(script["hands"], report["hands"], strict=True), 1):
        want = expected_hand(hand["steps"])
        if any("stack" in step for step in hand["steps"]):  # (Chinese poker's stacks)
            check_stacks(got["zones"], want["zones"], f"hand {i}")
        else:
            assert got["zones"] == want["zones"], f"hand {i}"
        assert got["stub_count"] == want["stub_count"], f"hand {i}"
        assert got["button"] == hand["button"], f"hand {i}"
        loud = [a for a in got["alerts"] if a["audience"] in ("dealer", "floor")]
        assert loud == [], f"hand {i}: {loud}"


def check_stacks(got: dict[str, list[str]], want: dict[str, list[str]], where: str) -> None:
    """Chinese poker's zones: a stack's 13 cards arrive together, in an order the reader cannot
    tell, and a card of one stack read weakly may be confirmed after the next stack's first
    cards: each zone holds exactly the cards the script put there, in the order the daemon
    confirmed them (the muck by that order of their arrival at the seats)."""
    assert {z: sorted(c) for z, c in got.items()} == {z: sorted(c) for z, c in want.items()}, where


# -- nothing secret on a public output ---------------------------------------------------------
_CARD = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][shdc])(?:@[A-Z])?(?![A-Za-z0-9])")
#: a UID at either length (16 hex digits, ISO 15693; 14, ISO 14443A's 7 bytes), or a tag's name
_UID = re.compile(r"(?<![0-9A-Fa-f])(?:[0-9A-Fa-f]{16}|[0-9A-Fa-f]{14})(?![0-9A-Fa-f])|tag:")


#: games whose up cards every player sees (deal-script.md, "Stud and draw games")
UP_CARD_GAMES = ("stud", "stud8", "razz")
#: the games whose cards in the middle are public: the flop games' board, stud's community card
#: (a card laid in the middle of a draw or Chinese poker hand is a player's, and secret)
BOARD_GAMES = ("holdem", "omaha", "omaha8") + UP_CARD_GAMES


def secret_cards(steps: list[dict], game: str = "holdem") -> set[str]:
    """The cards of one hand that no public output may name: every card that was a hole card,
    a burn or in the muck before it was ever on the board (a board card swept into the muck
    later was public already). In stud (``game``) an up card is public too, as the board is. A
    card gathered into a rebuilt stub (``restub``: STUD-007/008, DRAW-005) is unknown again:
    the community card dealt from it is public, as any board card. A hand shown at the showdown
    stays a secret here, the winner's too: the table cannot tell a tabled hand from one mucked
    unseen, so it publishes none (docs/decisions/0024-no-hole-card-public-at-the-showdown.md)."""
    public: set[str] = set()
    secret: set[str] = set()
    where: dict[str, str] = {}
    for step in steps:
        card, to = step.get("deal") or step.get("move"), step.get("to")
        if "stack" in step:  # Chinese poker: every card is a hole card or a mucked stack's
            secret.update(c.split("@")[0] for c in step["stack"])
            continue
        if "restub" in step:  # back in a shuffled stub: unknown again, judged afresh when dealt
            for c in step["restub"]:
                secret.discard(c.split("@")[0])
                where.pop(c, None)
            continue
        if "muck" in step:
            secret.update(c for c, z in where.items() if z == step["muck"] and c not in public)
            continue
        if not isinstance(card, str) or not isinstance(to, str):
            continue
        name = card.split("@")[0]
        where[card] = to
        # (a stud up card is in every player's sight; a flop game's exposed card stays a secret here)
        if (to == "board" and game in BOARD_GAMES) or (step.get("face_up") and game in UP_CARD_GAMES):
            if name not in secret:
                public.add(name)
        elif to != "stub" and name not in public:
            secret.add(name)
    return secret


def strings(value: Any, out: list[str] | None = None) -> list[str]:
    """Every string in ``value`` (keys too), depth first, in order (gathered into ``out``).

    >>> strings({"a": ["As", 3, {"b": ("Kd",)}], 4: None, "c": {"x", }})
    ['a', 'As', 'b', 'Kd', 'c', 'x']
    """
    if out is None:
        out = []
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        _dict_strings(value, out)
    elif isinstance(value, _NESTED):
        _seq_strings(value, out)
    return out


# (every effect and every message of every scenario goes through these: the checks were a fifth
# of a scenario's CPU. A number or None is passed over on its type, without an isinstance call.)
def _dict_strings(d: dict[Any, Any], out: list[str]) -> None:
    append = out.append
    for k, v in d.items():
        if type(k) is str:
            append(k)
        elif type(k) not in _SCALARS:
            strings(k, out)
        if type(v) is str:
            append(v)
        elif type(v) not in _SCALARS:
            strings(v, out)


def _seq_strings(items: Any, out: list[str]) -> None:
    append = out.append
    for x in items:
        if type(x) is str:
            append(x)
        elif type(x) not in _SCALARS:
            strings(x, out)


_NESTED = (list, tuple, set, frozenset)
#: what holds no string: passed over on its type
_SCALARS = frozenset({int, float, bool, type(None)})


def assert_nothing_secret_public(script: dict, played: Played) -> None:
    """No public effect names a hole card, a burn, a mucked card (of the hand it came in) or
    any UID."""
    secrets = {i: secret_cards(h["steps"], h.get("game", script.get("game", "holdem")))
               for i, h in enumerate(script["hands"], 1)}
    clean: set[tuple[int, str]] = set()  # (hand, texts joined) found clean: the figures say the same often
    for (hand, step), effect in played.seen["public"]:
        assert effect.audience == "public", effect
        d = effect_to_dict(effect)
        texts = strings(d)
        if not _leaks(texts, secrets.get(hand, set()), clean, hand):  # (the common case: one look at all of them)
            continue
        for text in texts:
            assert not _UID.search(text), f"hand {hand}, step {step}: a UID on a public output: {d}"
            named = {m.group(1) for m in _CARD.finditer(text)} & secrets.get(hand, set())
            assert not named, f"hand {hand}, step {step}: {sorted(named)} named on a public output: {d}"
    # the room link (docs/room.md): what events/public and state would carry, and deck faults on the floor's topic
    for (hand, step), body in played.topics.get("events/public", []) + played.topics.get("state", []):
        assert body.get("audience", "public") == "public", body
        assert not str(body.get("code", "")).startswith("deck."), f"a deck fault on events/public: {body}"
        texts = strings(body)
        if not _leaks(texts, secrets.get(hand, set()), clean, hand):
            continue
        for text in texts:
            assert not _UID.search(text), f"hand {hand}, step {step}: a UID on events/public: {body}"
            named = {m.group(1) for m in _CARD.finditer(text)} & secrets.get(hand, set())
            assert not named, f"hand {hand}, step {step}: {sorted(named)} named on events/public: {body}"
    for topic, messages in played.topics.items():
        for _, body in messages:
            assert "uid" not in body, f"a UID field on {topic}: {body}"
    assert_display_keeps_secrets(script, played, secrets)
    assert_no_showdown_before_the_press(script, played)
    faults = [e for _, e in played.seen.get("floor", []) if type(e).__name__ == "Alert" and e.code.startswith("deck.")
              and e.audience == "floor"]
    on_floor = [b for _, b in played.topics.get("events/floor", []) if str(b.get("code", "")).startswith("deck.")]
    assert len(on_floor) == len(faults), "every deck fault reaches events/floor"


def _leaks(texts: list[str], secrets: set[str], clean: set[tuple[int, str]] | None = None, hand: int = 0) -> bool:
    """Whether any of ``texts`` holds a UID or names one of ``secrets``: the patterns run once
    over the texts joined by a line break, which no match can span (a UID's hex digits and a
    card's letters are neither line breaks nor next to one), so a match there is a match in one
    of them. The callers then look text by text, to say which. ``clean``: ``(hand, joined)``
    found clean so far, against this hand's ``secrets`` (the same texts are not looked at twice)."""
    joined = "\n".join(texts)
    if clean is not None and (hand, joined) in clean:
        return False
    leaks = bool(_UID.search(joined)) or any(m.group(1) in secrets for m in _CARD.finditer(joined))
    if not leaks and clean is not None:
        clean.add((hand, joined))
    return leaks


#: what a deck fault's detail would say on a screen (the fault's code, "deck A", "foul", "sticky")
_FAULT_WORDS = re.compile(r"\b(deck [A-Z]\b|foul|sticky|wrong deck|foreign|unknown tag|cloned|missing card)", re.I)


def assert_display_keeps_secrets(script: dict, played: Played, secrets: dict[int, set[str]]) -> None:
    """Every screen the dealer's display drew (every console state, worded for every layout:
    controller/core/display.py) names no card (secret or not: the display never names one), no UID
    and no deck fault's detail; a deck fault shows as "NEW SETUP", as on the LEDs."""
    from controller.core.display import LAYOUTS, names_a_card, render

    seen = set()
    fine: set[str] = set()  # the lines found clean (added before their asserts: a failing one stops the check)
    for (hand, step), state in played.screens:
        assert not (state.code or "").startswith("deck.") or state.code in ("deck.new_setup", "deck.not_rotated"), \
            f"hand {hand}, step {step}: a deck fault reached the dealer's console: {state.code}"
        key = (state.code, state.prompt_seat, state.prompt_count, state.prompt_game, state.hand, state.seat,
               state.between, state.waiting, state.figures)
        if key in seen:  # (the same screen again: words are a function of these)
            continue
        seen.add(key)
        for layout in LAYOUTS:
            for line in render(state, layout):
                if line in fine:  # (the same words on many screens)
                    continue
                fine.add(line)
                assert not names_a_card(line), f"hand {hand}, step {step}: a card on the display ({layout}): {line!r}"
                assert not _UID.search(line), f"hand {hand}, step {step}: a UID on the display: {line!r}"
                assert not _FAULT_WORDS.search(line), f"hand {hand}, step {step}: a deck fault's detail: {line!r}"
    PLAYED["screens"] += len(played.screens)


#: showdown prompts that hint at no hand (SHOW-006: the seats still holding cards, which all see)
SAYS_NO_HAND = frozenset({"showdown.pushed_unread"})


def assert_no_showdown_before_the_press(script: dict, played: Played) -> None:
    """Issue 17 (SHOW-004): until the dealer presses ``showdown``, nothing the players can read
    (the dealer's display, the public outputs) hints at the hands: no showdown prompt, no hand
    words of the hand's showdown (the report's, as the floor has them)."""
    # what the dealer saw and the screens, by script hand (each hand looks at its own only)
    dealer_seen: dict[int, list[tuple[tuple[int, int], Any]]] = {}
    for where, effect in played.seen.get("dealer", []):
        dealer_seen.setdefault(where[0], []).append((where, effect))
    screens: dict[int, list[tuple[tuple[int, int], Any]]] = {}
    for where, state in played.screens:
        screens.setdefault(where[0], []).append((where, state))
    for i, hand in enumerate(script["hands"], 1):
        press = next((n for n, st in enumerate(hand["steps"], 1)
                     if st.get("press") in ("showdown", "allin")), None)  # the hands are up
        report = played.report["hands"][i - 1] if i <= len(played.report["hands"]) else {}
        sd = report.get("showdown") or {}
        words = {w for key in ("hands", "low_hands") for w in sd.get(key, {}).values()}
        words |= {w for run in sd.get("runs", []) for key in ("hands", "low_hands") for w in run.get(key, {}).values()}
        joinable = all(isinstance(w, str) and "\n" not in w for w in words)

        def before(where: tuple[int, int], i: int = i, press: int | None = press) -> bool:
            return where[0] == i and (press is None or where[1] < press)

        for where, effect in dealer_seen.get(i, []):
            if not before(where):
                continue
            d = effect_to_dict(effect)
            assert not str(d.get("code", "")).startswith("showdown.") or d.get("code") in SAYS_NO_HAND, \
                f"hand {i}, step {where[1]}: before the showdown pad: {d}"
            texts = strings(d)
            if not words:
                continue
            if joinable:  # (no word in any text: a word without a line break cannot span two)
                joined = "\n".join(texts)
                if not any(w in joined for w in words):
                    continue
            for text in texts:
                said = [w for w in words if w in text]
                assert not said, f"hand {i}, step {where[1]}: the hand words {said} before the showdown pad: {d}"
        for where, state in screens.get(i, []):
            if before(where) and state.code not in SAYS_NO_HAND:
                assert not (state.code or "").startswith("showdown."), \
                    f"hand {i}, step {where[1]}: {state.code} on the dealer's display before the showdown pad"


def check_prompts(expect: list[dict], prompts: list[dict], where: str = "") -> None:
    """The prompts a hand gave (the report's ``prompts``) against what its generator expected
    (``hw_sim.generated.GeneratedHand.expect``): the stud bring-in's seat (STUD-002), the first
    seat to act on each later street (STUD-004, one of the tied seats when showing hands tie),
    the short-stub check and its procedure (STUD-006), running out of cards (DRAW-005)."""
    by_rule: dict[str, list[dict]] = {}
    for p in prompts:
        by_rule.setdefault(p.get("rule") or "", []).append(p)
    for rule in ("STUD-002", "STUD-004"):
        want = [e for e in expect if e["rule"] == rule]
        got = by_rule.get(rule, [])
        assert len(got) == len(want), f"{where}: {rule} prompts {got}, expected {want}"
        for e, p in zip(want, got, strict=True):
            seats = e["seats"] if "seats" in e else [e["seat"]]
            if seats is None:  # (a real hand's street without betting: the history names no one)
                continue
            assert p.get("seat") in seats, f"{where}: {rule} on street {e['street']} for seat {p.get('seat')}, " \
                                           f"expected {seats} ({e})"
    for e in (e for e in expect if e["rule"] == "STUD-006" and e["procedure"]):
        # the check names its procedure: a prompt of that rule, or the STUD-006 prompt saying it
        assert any(p.get("rule") == e["procedure"] or (p.get("rule") == "STUD-006" and e["procedure"]
                   in f"{p.get('code')} {p.get('text')}") for p in prompts), \
            f"{where}: no prompt of the short stub's {e['procedure']} ({e}); prompts {prompts}"
    want = [e for e in expect if e["rule"] == "DRAW-005"]
    assert len(by_rule.get("DRAW-005", [])) == len(want), f"{where}: DRAW-005 prompts, expected {want}"


def deal_and_check(script: dict, expect: list[list[dict]], rules_extra: str = "") -> dict:
    """Deal a generated script (``hw_sim.random_hands.random_script(..., expect=...)``, or real
    hands with their expectations) in process and check every hand: zones, stub count, no
    dealer or floor alert (:func:`check_report`), and the prompts the hand's oracle expects
    (:func:`check_prompts`). The stud and draw games' end-to-end check, once the daemon deals
    them. ``rules_extra``: the configuration's ``[rules]`` lines. Returns the report."""
    report = play(script, rules_extra=rules_extra)
    check_report(script, report)
    for i, (want, got) in enumerate(zip(expect, report["hands"], strict=True), 1):
        check_prompts(want, got.get("prompts", []), f"hand {i}")
    return report


def play(script: dict, *, console: bool = True, wire: bool = False, table_extra: str = "",
         rules_extra: str = "", reader: str = "feig") -> dict:
    """Deal ``script`` in process; check that nothing secret reached a public output; return
    the report (deal-script.md). The reader's records skip the FEIG frames unless ``wire``
    (the harness's quick path: the same report, tests/unit/hw_sim/test_harness.py checks it).
    ``table_extra``: more ``[table]`` lines (a mixed game's rotation, ``event = "cash"``);
    ``rules_extra``: the ``[rules]`` lines."""
    played = harness_play(script, console=console, wire=wire, table_extra=table_extra, rules_extra=rules_extra,
                          reader=reader)
    assert played.screens or not console, "the console showed nothing: the display's check would be empty"
    assert_nothing_secret_public(script, played)
    PLAYED["scripts"] += 1
    PLAYED["hands"] += len(script["hands"])
    return played.report


#: issue 39's codes of BURN-002, MUCK-001 and STUB-006 (docs/rules.md): none may come from a clean hand
LAPSES = ("burn.no_tap", "muck.card_missing", "muck.card_held_out", "stub.not_dropped", "stub.read_wrong")


def lapse_counts(script: dict, report: dict) -> Counter[str]:
    """What a report of ``script`` shows of BURN-002, MUCK-001 and STUB-006, counted: their alerts
    by code, the burns each after its tap (BURN-002's "where the script taps"), the stubs dropped,
    those read whole."""
    counts: Counter[str] = Counter()
    for hand, got in zip(script["hands"], report["hands"], strict=True):
        steps = hand["steps"]
        counts["tapped burns"] += sum(1 for i, st in enumerate(steps[1:], 1)
                                      if st.get("to") == "burn" and steps[i - 1] == {"press": "round_done"})
        dropped = {"drop": "stub"} in steps
        counts["stubs dropped"] += dropped
        counts["stubs read whole"] += dropped and got.get("stub_read") == got["stub_count"] > 0
        for a in got["alerts"]:
            if a["code"] in LAPSES:
                counts[a["code"]] += 1
    return counts
