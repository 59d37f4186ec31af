"""The ranges a state's values must keep, beyond their types: seats, hand numbers, zones,
counts, and the tracker's maps agreeing with one another. Each part of the table checks its own
fields (``Part.check``) with these."""

from __future__ import annotations

from typing import Any

from controller.core.dealers import check_dealer_name
from controller.core.errors import StateError
from controller.core.families.flop.board import BoardState
from controller.core.effects import Alert, Prompt
from controller.core.positions import Positions
from controller.core.settings import GAMES
from controller.core.state.codec import _show, conforms
from controller.core.zones import ALL_ZONES


def seat(where: str, s: Any) -> None:
    """``s`` is a seat, 1 to 10."""
    if type(s) is not int or not 1 <= s <= 10:
        raise StateError(f"{where}: seat {s!r}, want 1 to 10")


def count(where: str, n: Any) -> None:
    """``n`` is a whole number, 0 or more."""
    if type(n) is not int or n < 0:
        raise StateError(f"{where}: {n!r}, want a whole number 0 or more")


def zone(where: str, z: Any) -> None:
    """``z`` is a zone of the table."""
    if z not in ALL_ZONES:
        raise StateError(f"{where}: {z!r} is no zone")


def dealer(name: Any, where: str) -> None:
    """A dealer's name in a state is one the inputs take, as they keep it (RELIEF-003)."""

    if name is None:
        return
    try:
        ok = check_dealer_name(name) == name
    except ValueError:
        ok = False
    if not ok:
        raise StateError(f"{where}: not a dealer's name as the inputs keep it")


def typed(obj: Any, hints: dict[str, Any], where: str) -> None:
    """Each attribute of ``obj`` named in ``hints`` is of that type (to its elements)."""
    for name, hint in hints.items():
        if not conforms(getattr(obj, name), hint):
            raise StateError(f"{where}.{name}: not a {_show(hint)}")


def _hand_hints() -> dict[str, Any]:

    opt_int, opt_str = int | None, str | None
    return {
        "number": int, "game": str, "hole_cards": int, "seats": tuple[int, ...], "button": int,
        "started": float, "order": list[int], "positions": Positions, "zones": dict[str, list[str]],
        "where": dict[str, str], "labels": dict[str, str], "on_table": set[str], "hole_dealt": int,
        "dealt_to": dict[int, int], "deal_index": dict[str, int], "first_seat": dict[str, int],
        "arrivals": list[int], "arrival_ts": list[float], "now": float,
        "exposure_waiting": tuple[str, float] | None, "deferred": tuple[Any, float] | None,
        "last_hole": opt_str, "last_card": opt_str, "deal_over": bool, "deal_counted": bool, "closed_by": opt_str,
        "misdeal": bool,
        "exposed": int, "boxed": int, "allowance": dict[int, int], "exposed_from": dict[int, int],
        "exposure_candidate": opt_str, "exposure_resolved": bool,
        "expected_burn": tuple[str | None, str] | None, "owed": dict[int, int], "dealt_button": opt_int,
        "absent": set[int], "penalty": set[int], "waiting": set[int], "redeal_of": opt_int,
        "new_seats": set[int], "board": BoardState, "pot_pushed": bool,
        "left": dict[str, tuple[str, float]], "off": dict[str, str], "deck": opt_str, "kind": str,
        "notes": list[str], "alerts": list[Alert], "prompts": list[Prompt], "flagged": set[tuple[str, str]],
        "dealer": opt_str, "shown": dict[str, list[str]] | None, "discards": dict[str, int], "draw_checked": int,
        "draw_rebuilt": int, "all_in": set[int], "reserve": set[str],
    }


_TRACKER_HINTS: dict[str, Any] = {
    "confirm_cycles": int, "gone_cycles": int, "strong_rssi": int, "_home": dict[str, str],
    "_home_ant": dict[str, int], "_home_pairs": set[tuple[str, int]], "_absent": dict[str, int],
    "_cands": dict[str, tuple[str, int, int, int]], "_since": dict[str, int],
    "_twins": dict[str, tuple[int, int]], "clones": list[tuple[str, tuple[str, str]]],
}


def check_tracker(tr: Any, where: str = "state.table.tracker") -> None:
    """The tracker's maps agree with one another: every tag at home has its antenna and its
    pair, the unheard and the evidence are of tags it knows (controller.core.tracker)."""
    typed(tr, {k: v for k, v in _TRACKER_HINTS.items() if hasattr(tr, k)}, where)
    for a in tr._home_ant.values():
        if not 1 <= a <= 16:
            raise StateError(f"{where}._home_ant: antenna {a!r}, want 1 to 16")
    home = tr._home
    if tr._home_ant.keys() != home.keys() or tr._home_pairs != set(tr._home_ant.items()):
        raise StateError(f"{where}: its tags at home, their antennas and their pairs disagree")
    if not tr._absent.keys() <= home.keys():
        raise StateError(f"{where}._absent: a tag unheard that is not on the table")
    for z in home.values():
        zone(f"{where}._home", z)
    for c in tr._cands.values():
        if type(c) is not tuple or len(c) != 4 or not all(type(n) is int for n in c[1:]):
            raise StateError(f"{where}._cands: want (zone, evidence, last, first)")
        zone(f"{where}._cands", c[0])


def check_hand(hand: Any, where: str) -> None:
    """A hand read from a state: its types, then its seats, its cards and its board."""
    typed(hand, {k: v for k, v in _hand_hints().items() if hasattr(hand, k)}, where)
    _hand_game(hand, where)
    _hand_cards(hand, where)
    _hand_seats(hand, where)
    _hand_board(hand, where)


def _hand_game(hand: Any, where: str) -> None:
    if type(hand.number) is not int or hand.number < 1:
        raise StateError(f"{where}.number: {hand.number!r}, want 1 or more")
    # (Chinese poker, two players: two hands of 13 each, CHIN-002)
    if hand.game not in GAMES or hand.hole_cards not in (GAMES[hand.game],
                                                         2 * GAMES[hand.game] if hand.game == "chinese" else -1):
        raise StateError(f"{where}.game: {hand.game!r} with {hand.hole_cards!r} hole cards")
    if hand.kind not in ("hand", "highcard", "race", "table_break"):
        raise StateError(f"{where}.kind: {hand.kind!r}")
    dealer(hand.dealer, f"{where}.dealer")


def _hand_cards(hand: Any, where: str) -> None:
    for z, uids in hand.zones.items():
        if z not in ALL_ZONES or type(uids) is not list or not all(type(u) is str for u in uids):
            raise StateError(f"{where}.zones: {z!r} is no zone of cards")
    for uid, z in hand.where.items():
        if z not in ALL_ZONES or uid not in hand.zones.get(z, ()) or uid not in hand.labels:
            raise StateError(f"{where}.where: a card in {z!r} that the zones do not hold")
    # (a draw game deals a card again from a rebuilt stub, DRAW-005: up to 30 cards a round)
    if len(hand.where) > 2 * 52 or not 0 <= hand.hole_dealt <= 3 * 52:
        raise StateError(f"{where}: {len(hand.where)} cards out, {hand.hole_dealt} dealt: more than a deck")
    if hand.shown is not None and any(z not in ALL_ZONES or not (z.startswith("seat:") or z == "board")
                                      for z in hand.shown):
        raise StateError(f"{where}.shown: a zone that is neither a seat nor the board")


def _hand_seats(hand: Any, where: str) -> None:
    if not hand.seats or any(type(s) is not int or not 1 <= s <= 10 for s in hand.seats):
        raise StateError(f"{where}.seats: {hand.seats!r}, want seats 1 to 10")
    for name in ("absent", "penalty", "waiting", "new_seats", "all_in"):
        if any(not 1 <= x <= 10 for x in getattr(hand, name)):
            raise StateError(f"{where}.{name}: a seat that is not 1 to 10")
    for name in ("dealt_to", "allowance", "exposed_from", "owed"):
        for s, n in getattr(hand, name).items():
            if type(s) is not int or type(n) is not int or n < 0:
                raise StateError(f"{where}.{name}: {s!r}: {n!r}")


def _hand_board(hand: Any, where: str) -> None:
    b = hand.board
    if type(b.runs) is not int or not 1 <= b.runs <= 3 or type(b.runs_dealt) is not int \
            or not 1 <= b.runs_dealt <= b.runs or type(b.run_from) is not int or not 0 <= b.run_from <= 2:
        raise StateError(f"{where}.board: runs {b.runs!r}, {b.runs_dealt!r} dealt, from street {b.run_from!r}: "
                         f"want 1 to 3 runs from street 0 to 2")
