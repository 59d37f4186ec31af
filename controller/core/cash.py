"""Cash games: coming in, and coming back after missing blinds (DEAL-007, DEAL-008).

A cash player is dealt in once he has paid his way (``[table] event = "cash"``):

- a newcomer posts a big blind or waits for the big blind to reach him (001 §INCOMING PLAYERS
  (Cash Games): ``CASH_ENTRY`` = ``post_or_wait``); where the game's placard says so (002
  §INCOMING PLAYER, §POSTING: ``placard``) he comes in free unless his seat is the best
  position, the button or between it and the small blind, and then he waits one hand;
- a player who sat out while the blinds went by owes them (001 and 002 §MISSED BLINDS): one
  missed blind is posted live; both, the big blind live and the small blind dead; or he waits
  for the big blind;
- nobody comes in between the button and the small blind by posting, unless he buys the
  button: a newcomer may (both guides), and so may a returning player who missed only the big
  blind (BB live + SB dead); anyone else waits for the button to pass. Cards dealt to a seat
  that must wait are a card to a seat not dealt in (MISD-005).

Tournaments have none of this (no missed blinds: absent players are posted for, DEAL-009).

The guides' case, on six seats: button 1, small blind 2, big blind 3; seat 4 steps away. The
next hand's big blind skips him (he missed the big blind):

>>> from controller.core.positions import Positions, next_positions
>>> h1 = Positions(button=1, sb=2, bb=3)
>>> h2 = next_positions(h1, (1, 2, 3, 5, 6))
>>> h2, passed(h1, h2, {4})
(Positions(button=2, sb=3, bb=5), ({4}, set()))

Back before the next deal he sits between the button (3) and the small blind (5): having
missed only the big blind he may buy the button, posting; without a post he waits for the big
blind. Had the small blind passed him too, posting could not bring him in there:

>>> entry(4, h2, (1, 2, 3, 4, 5, 6), posted=True, missed_bb=True, missed_sb=False)
'buys'
>>> entry(4, h2, (1, 2, 3, 4, 5, 6), posted=False, missed_bb=True, missed_sb=False)
'waits'
>>> entry(4, h2, (1, 2, 3, 4, 5, 6), posted=True, missed_bb=True, missed_sb=True)
'waits'
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Literal

from controller.core.positions import Positions, between, next_positions
from controller.core.rules import Finding

#: what a seat that is not dealt in does at the next hand: dealt in, dealt in between the button
#: and the small blind (it bought the button), or not dealt in
Verdict = Literal["plays", "buys", "waits"]


def passed(last: Positions, now: Positions, away: Collection[int]) -> tuple[set[int], set[int]]:
    """The seats of ``away`` (players sitting out) that the big blind and the small blind went
    past from the ``last`` hand to this one (DEAL-008): the big blind skipped the seats strictly
    between its last seat and its seat now; the small blind went past the seats after its last
    seat up to its seat now (its seat included: a dead small blind on a player sitting out).

    >>> passed(Positions(2, 3, 5), Positions(3, 5, 6), {4})   # the small blind goes by seat 4
    (set(), {4})
    >>> passed(Positions(1, 2, 3), Positions(2, 3, 4), {3})   # the big blind stepped away
    (set(), {3})
    """
    bb = {s for s in away if s not in (last.bb, now.bb) and between(s, last.bb, now.bb)}
    sb = {s for s in away if s != last.sb and between(s, last.sb, now.sb)}
    return bb, sb


def in_the_gap(seat: int, last: Positions, live: Sequence[int]) -> bool:
    """Whether ``seat`` is on the next hand's button, on its small blind or between them, the
    positions computed without him (he cannot move them by sitting down).

    >>> in_the_gap(4, Positions(2, 3, 5), (1, 2, 3, 4, 5, 6)), in_the_gap(1, Positions(2, 3, 5), (1, 2, 3, 5, 6))
    (True, False)
    """
    others = sorted(s for s in live if s != seat)
    if len(others) < 3:  # heads-up (or short): no gap; the big blind is the other seat
        return False
    nxt = next_positions(last, others)
    return between(seat, nxt.button, nxt.sb)


def entry(seat: int, last: Positions, live: Sequence[int], *, posted: bool, missed_bb: bool = False,
          missed_sb: bool = False, rule: str = "post_or_wait") -> Verdict:
    """Whether a cash player not dealt in at ``seat`` is dealt the next hand (DEAL-007/008).

    ``live``: the seats dealt in, with his; ``posted``: he posted (the ``seat_posted`` pad);
    ``missed_bb``/``missed_sb``: the blinds that went past him while he sat out (none: a
    newcomer); ``rule``: ``CASH_ENTRY``. A newcomer on the placard rule comes in free unless he
    is in the gap (002's best position):

    >>> last = Positions(button=2, sb=3, bb=5)    # next hand without seat 4: button 3, SB 5, BB 6
    >>> entry(4, last, (1, 2, 3, 4, 5, 6), posted=False, rule="placard")
    'waits'
    >>> entry(1, last, (1, 2, 3, 5, 6), posted=False, rule="placard"), entry(1, last, (1, 2, 3, 5, 6), posted=False)
    ('plays', 'waits')
    >>> entry(4, last, (1, 2, 3, 4, 5, 6), posted=True)   # a newcomer posts in the gap: buys the button
    'buys'
    """
    others = sorted(s for s in live if s != seat)
    if len(others) < 2:
        return "plays"  # a table of one: whoever sits down makes the game
    gap = in_the_gap(seat, last, live)
    if posted:
        if not gap:
            return "plays"
        # the gap: a newcomer's post buys the button (001, 002), as does a returning player's
        # who missed only the big blind; blinds are never made up there (001/002 §MISSED BLINDS)
        return "waits" if missed_sb else "buys"
    if missed_bb or missed_sb or rule == "post_or_wait":
        return "plays" if next_positions(last, others + [seat]).bb == seat else "waits"  # the BB reaches him
    return "waits" if gap else "plays"  # the placard: free, but not in the best position


def prompt(seat: int, *, gap: bool, newcomer: bool, missed_bb: bool, missed_sb: bool,
           rule: str) -> Finding | None:
    """What the dealer is told when a cash player sits down or comes back (DEAL-007/008),
    ``gap``: his seat is between the next button and small blind; None: nothing to say (a
    newcomer free to play under the placard).

    >>> prompt(4, gap=False, newcomer=True, missed_bb=False, missed_sb=False, rule="post_or_wait").message
    'seat 4: post BB or wait'
    >>> prompt(4, gap=False, newcomer=False, missed_bb=True, missed_sb=True, rule="post_or_wait").message
    'seat 4 owes BB + SB dead, or wait for BB'
    >>> prompt(4, gap=True, newcomer=False, missed_bb=True, missed_sb=True, rule="post_or_wait").message
    'seat 4 owes BB + SB dead: no make-up between the button and the small blind: wait for the button to pass'
    """
    if newcomer:
        if gap:
            return Finding("deal.buy_button", "DEAL-007", f"seat {seat}: buy the button (post BB) or wait", seat)
        if rule == "placard":
            return None
        return Finding("deal.post_or_wait", "DEAL-007", f"seat {seat}: post BB or wait", seat)
    owes = owed(missed_bb, missed_sb)
    if gap and missed_sb:
        return wait_button(seat, owes)
    if gap:
        return Finding("deal.buy_button", "DEAL-008",
                       f"seat {seat} missed the BB: buy the button (BB live + SB dead) or wait for BB", seat)
    code = "deal.owes_bb_sb" if missed_bb and missed_sb else "deal.owes_bb" if missed_bb else "deal.owes_sb"
    return Finding(code, "DEAL-008", f"seat {seat} owes {owes}, or wait for BB", seat)


def owed(missed_bb: bool, missed_sb: bool) -> str:
    """What a returning player owes (DEAL-008): one missed blind is posted live, both as the big
    blind live and the small blind dead; "" for nothing.

    >>> owed(True, True), owed(False, True), owed(False, False)
    ('BB + SB dead', 'SB', '')
    """
    return "BB + SB dead" if missed_bb and missed_sb else "BB" if missed_bb else "SB" if missed_sb else ""


def away_words(seat: int, *, sitting_out: bool, waiting: bool, missed_bb: bool, missed_sb: bool) -> str:
    """Why a cash seat has no hand, as far as the table knows beyond the hand (MISD-005's words,
    :func:`controller.core.rules.misdeal.not_dealt_in_why`): sitting out, or waiting and owing the
    blinds it missed or not yet posted.

    >>> away_words(4, sitting_out=False, waiting=True, missed_bb=True, missed_sb=False)
    'he owes BB'
    >>> away_words(4, sitting_out=True, waiting=False, missed_bb=True, missed_sb=True)
    'sitting out'
    """
    if sitting_out:
        return "sitting out"
    if not waiting:
        return ""
    owes = owed(missed_bb, missed_sb)
    return f"he owes {owes}" if owes else "he has not posted"


def wait_button(seat: int, owes: str | None = None) -> Finding:
    """A seat that posted where it cannot come in: it waits for the button to pass (DEAL-008).

    >>> wait_button(7).message
    'seat 7: no make-up between the button and the small blind: wait for the button to pass'
    """
    head = f"seat {seat} owes {owes}" if owes else f"seat {seat}"
    return Finding("deal.cash_wait_button", "DEAL-008",
                   f"{head}: no make-up between the button and the small blind: wait for the button to pass", seat)
