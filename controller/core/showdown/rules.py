"""What the dealer and the floor are told at the showdown (docs/rules.md: SHOW, SPLIT, MUCK-005),
from the verdict of :func:`controller.core.showdown.winners.showdown`.

The dealer's words name the winners and their hands only: a losing hand is never named (it may
be mucked unseen, SHOW-007). The floor alone is told which cards a mucked winning hand was.

>>> from controller.core.showdown import showdown
>>> sd = showdown("omaha8", {2: "Ah Kh 9d 9c".split(), 7: "As 2c 6d Jd".split()},
...               "Qh 8h 3h Js 4c".split(), button=7)
>>> [f.message for f in findings(sd)]
['split: seat 2 high (flush, ace high), seat 7 low (8-4); odd chip: seat 2']
>>> [(f.code, f.audience, f.seat) for f in winner_guard(sd, 2, {2, 7}, ["Ah", "Kh", "9d", "9c"])]
[('muck.winner_guard', 'dealer', 2), ('muck.winner_mucked', 'floor', 2)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from controller.core.showdown.evaluation import Read, best_hand, greek_holdem, kind_of, pk_cards
from controller.core.rules import Finding
from controller.core.showdown.winners import Showdown

#: SHOW-008 (002 §BAD BEAT JACKPOT): the least losing hand that qualifies, aces full of kings
BAD_BEAT_LEAST = ("As", "Ah", "Ad", "Ks", "Kh")
#: and the least number of players dealt in
BAD_BEAT_PLAYERS = 4


def seat_list(seats: Sequence[int]) -> str:
    return ("seat " if len(seats) == 1 else "seats ") + ", ".join(map(str, seats))


def _name(sd: Showdown, half: int) -> str:
    """A half as the dealer says it: high and low, or the hybrids' 2-7 / A-5 and badugi."""
    name = sd.game.halves[half].name
    return "low" if name == "8-or-better" else name


def _half(sd: Showdown, half: int) -> str:
    """``seat 2 high (flush, ace high)``; tied: ``seats 2, 5 high (two pair, kings and sevens)``."""
    ws = sd.winners[half]
    name = _name(sd, half) if sd.game.split else ""
    return f"{seat_list(ws)}{' ' + name if name else ''} ({sd.words(half, ws[0])})"


def findings(sd: Showdown) -> list[Finding]:
    """The dealer's prompts at the showdown, in the order the guides pay: the dead hands
    (SHOW-002), then the winners (SHOW-004) or the split (SPLIT-001/002) with the seat that gets
    the odd chip (SPLIT-004..008) as the prompt's seat.

    >>> from controller.core.showdown import showdown
    >>> sd = showdown("holdem", {2: ["Ah", "3c"], 5: ["Ad", "4c"], 8: ["7h"]}, "Ks Kd Qs Qd Jh".split(), button=9)
    >>> [(f.code, f.seat, f.message) for f in findings(sd)]  # doctest: +NORMALIZE_WHITESPACE
    [('showdown.dead_hand', 8, 'seat 8: 1 card - dead'),
     ('showdown.split', 2, 'split 2 ways: seats 2, 5 (two pair, kings and queens); odd chip: seat 2')]
    """
    out = [Finding("showdown.dead_hand", "SHOW-002", f"seat {s}: {n} card{'s' if n != 1 else ''} - dead", s)
           for s, n in sd.dead.items()]
    high = sd.winners[0]
    if not high:
        return out
    if not sd.game.split or (sd.winners[1] and set(sd.winners[1]) == set(high) and len(high) == 1):
        if len(high) == 1:
            both = f" and {sd.words(1, high[0])} {_name(sd, 1)}" if sd.game.split else ""
            verb = "scoops" if sd.game.split else "wins"
            out.append(Finding("showdown.winner", "SHOW-004", f"{seat_list(high)} {verb}: {sd.words(0, high[0])}{both}",
                               high[0]))
        else:
            odd = sd.odd_chip[0][0]
            out.append(Finding("showdown.split", "SPLIT-001",
                               f"split {len(high)} ways: {seat_list(high)} ({sd.words(0, high[0])}); "
                               f"odd chip: seat {odd}",
                               odd))
        return out
    if not sd.winners[1]:
        out.append(Finding("showdown.no_low", "SPLIT-002", f"no qualifying low: {_half(sd, 0)}", sd.odd_chip[0][0]))
        return out
    # the pot's odd chip goes to a half (SPLIT-005, SPLIT-008), then to the first of that half's
    # winners; the other half, when tied, has an odd chip of its own (SPLIT-005, SPLIT-007)
    odd_half = sd.odd_half if set(sd.winners[0]) != set(sd.winners[1]) else 0
    odd = sd.odd_chip[odd_half][0]
    text = f"split: {_half(sd, 0)}, {_half(sd, 1)}; odd chip: seat {odd}"
    other = 1 - odd_half
    if len(sd.winners[other]) > 1:
        text += f"; the {_name(sd, other)}'s odd chip: seat {sd.odd_chip[other][0]}"
    out.append(Finding("showdown.split", "SPLIT-002", text, odd))
    return out


def winner_guard(sd: Showdown, seat: int, holding: Iterable[int], cards: Sequence[str]) -> list[Finding]:
    """MUCK-005/006: ``seat``'s cards (``cards``, their labels) touched the muck before the pot
    was pushed, ``holding`` the seats still holding cards. When ``seat`` won a half and a seat
    that did not win it still holds its hand, the dealer is told at once without a card named
    ("check: seat 5 had the best hand"), and the floor is told the cards, so the hand can be
    identified and taken back. Nothing otherwise: a loser mucking first is what the guides ask.

    >>> from controller.core.showdown import showdown
    >>> sd = showdown("holdem", {3: ["As", "Ad"], 5: ["Kc", "Kd"]}, "2c 7d 9h Js 3s".split(), button=5)
    >>> winner_guard(sd, 5, {3}, ["Kc", "Kd"])  # the loser mucks first: nothing
    []
    >>> [f.message for f in winner_guard(sd, 3, {3, 5}, ["As", "Ad"])]  # doctest: +NORMALIZE_WHITESPACE
    ['check: seat 3 had the best hand',
     "seat 3's winning hand (As Ad: pair of aces) touched the muck while seat 5 still holds cards"]
    """
    out: list[Finding] = []
    for half, ws in enumerate(sd.winners):
        worse = sorted(s for s in holding if s != seat and s not in ws and s in sd.live)
        if seat in ws and worse:
            words = sd.words(half, seat)
            out.append(Finding("muck.winner_guard", "MUCK-005", f"check: seat {seat} had the best hand", seat))
            out.append(Finding("muck.winner_mucked", "MUCK-005",
                               f"seat {seat}'s winning hand ({' '.join(cards)}: {words}) touched the muck while "
                               f"{seat_list(worse)} still {'holds' if len(worse) == 1 else 'hold'} cards",
                               seat, audience="floor", card=cards[0] if cards else None))
            break
    return out



def bad_beat(sd: Showdown, hands: Mapping[int, Sequence[str]], board: Sequence[str],
             dealt_in: Sequence[int]) -> list[Finding]:
    """SHOW-008 (002, cash hold'em only: the caller says the table is cash): a bad-beat jackpot
    candidate. ``sd``, ``board``: the first natural board's (a second run never qualifies);
    ``hands``: the seats' hole cards; ``dealt_in``: every seat dealt in at the start. It qualifies
    when one hand wins, the best losing hand is aces full of kings or better, both hole cards of
    both play, and four or more were dealt in. The floor is told the seats (the loser's half,
    the winner's quarter, the others' quarter) and confirms the pot (chips: unseen); the
    dealer is told to touch nothing.

    >>> from controller.core.showdown import showdown
    >>> hands, board = {2: ["Ac", "Kc"], 5: ["Jd", "Td"]}, "Ah Ad Kd Qd 2c".split()  # aces full, a royal
    >>> sd = showdown("holdem", hands, board, button=9)
    >>> [(f.code, f.audience, f.seat) for f in bad_beat(sd, hands, board, [1, 2, 5, 7])]
    [('showdown.bad_beat', 'floor', 2), ('showdown.dont_touch', 'dealer', 2)]
    >>> bad_beat(sd, hands, board, [2, 5, 7])  # three dealt in
    []
    """
    if sd.game.name != "holdem" or len(set(dealt_in)) < BAD_BEAT_PLAYERS or len(sd.winners[0]) != 1:
        return []
    winner, reads = sd.winners[0][0], sd.reads[0]
    losers = {s: r for s, r in reads.items() if s != winner and r is not None}
    won = reads[winner]
    if not losers or won is None:
        return []
    loser = max(losers, key=lambda s: losers[s].hand)
    lost = losers[loser]
    kind = kind_of(sd.game.halves[0])
    if lost.hand < kind(pk_cards(BAD_BEAT_LEAST)):
        return []
    if not (_both_play(hands[winner], board, won) and _both_play(hands[loser], board, lost)):
        return []
    others = sorted(set(dealt_in) - {winner, loser})
    return [Finding("showdown.bad_beat", "SHOW-008",
                    f"bad-beat candidate: seat {loser} ({lost.words}) loses to seat {winner} ({won.words}); "
                    f"the others dealt in: {seat_list(others) if others else 'none'}; confirm the pot", loser,
                    audience="floor"),
            Finding("showdown.dont_touch", "SHOW-008", "bad beat? don't touch the cards: call the floor", loser)]


def _both_play(hole: Sequence[str], board: Sequence[str], read: Read) -> bool:
    """Both hole cards play: the best hand that must use both (pokerkit's Greek hold'em: two hole
    cards and three of the board) is as good as the hand read."""
    greek = best_hand(greek_holdem(), pk_cards(hole), pk_cards(board))
    return greek is not None and greek.entry == read.hand.entry
