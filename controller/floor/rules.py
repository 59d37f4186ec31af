"""The rule ids' one-line meanings (the titles of docs/rules.md's catalogue), shipped in the package:
the floor's page names every alert's rule without reading a document outside it.

>>> meaning("DECK-007")
'No duplicate cards'
>>> meaning("XYZ-999") is None
True
"""

from __future__ import annotations

#: rule id -> its one-line meaning
MEANINGS: dict[str, str] = {
    "DECK-001": "New deck fully checked before first deal",
    "DECK-002": "Used deck re-checked before reuse",
    "DECK-003": "Both decks verified at setup, at the start and after breaks",
    "DECK-004": "The two decks have different backs",
    "DECK-005": "Never more than two decks at the table",
    "DECK-006": "No foreign cards (uniform backs)",
    "DECK-007": "No duplicate cards",
    "DECK-008": "Break-time reset of both decks",
    "DECK-009": "Rotate decks at each satellite",
    "STUB-001": "Count the stub after the first hand",
    "STUB-002": "Count again at least once per down",
    "STUB-003": "Stub arithmetic",
    "STUB-004": "Wrong count: swap quietly, report \"sticky\"",
    "STUB-005": "Every shuffler cycle is a count",
    "STUB-006": "Drop and spread the stub after the last card",
    "SHUF-001": "A hand begins at the first riffle",
    "SHUF-002": "Fixed shuffle routine, no over- or under-shuffling",
    "SHUF-003": "Boxing/strip size",
    "SHUF-004": "Lost count or flashed card while shuffling → restart",
    "SHUF-005": "Who cuts",
    "SHUF-006": "Antes taken between shuffle and cut",
    "SHUF-007": "Two-deck alternation",
    "DEAL-001": "One card at a time, clockwise, from the small blind",
    "DEAL-002": "Heads-up: the button is the SB, the BB gets the first card",
    "DEAL-003": "Going from three players to two",
    "DEAL-004": "The button moves one seat after each hand",
    "DEAL-005": "Dead button: the BB is never skipped",
    "DEAL-006": "Late or moved-in players are not dealt between button and SB (T)",
    "DEAL-007": "Cash: incoming players and buying the button",
    "DEAL-008": "Cash: missed blinds",
    "DEAL-009": "Absent players are dealt in, then killed at a deadline (T)",
    "DEAL-010": "A penalised seat is dealt to the muck; the re-deal is not counted",
    "DEAL-011": "Where the button starts",
    "DEAL-012": "Maximum hands per game",
    "DEAL-013": "First to act each round",
    "MISD-001": "Either of the first two cards exposed",
    "MISD-002": "A second exposed card in the initial deal",
    "MISD-003": "Boxed cards",
    "MISD-004": "First card to the wrong seat",
    "MISD-005": "Cards to a seat with no right to a hand",
    "MISD-006": "An entitled seat is skipped",
    "MISD-007": "Wrong card counts: fixable or misdeal",
    "MISD-008": "Stud: a down card exposed on 3rd street",
    "MISD-009": "Draw: an exposed card in the starting hand",
    "MISD-010": "One exposed card: replaced, becomes the burn, announced",
    "MISD-011": "A flipped, tilted or off-table card counts as exposed",
    "MISD-012": "Cards the player exposes are not replaced",
    "MISD-013": "Substantial action closes the misdeal window",
    "MISD-014": "The re-deal is an exact replay",
    "MISD-015": "Button in the wrong place",
    "MISD-016": "Only the dealer declares a misdeal",
    "BURN-001": "One burn before the flop, the turn and the river",
    "BURN-002": "Tap before the burn",
    "BURN-003": "Burns stay on the table, apart from the muck, until the pot is pushed",
    "BURN-004": "Burns are never looked at or shown",
    "BURN-005": "Burns are never reshuffled, except in the stud short stub",
    "BURN-006": "Burn totals per game",
    "BOARD-001": "Board order",
    "BOARD-002": "Four-card flop",
    "BOARD-003": "Two cards on the turn or river",
    "BOARD-004": "Premature flop",
    "BOARD-005": "Premature turn",
    "BOARD-006": "Premature river",
    "BOARD-007": "The reshuffle after a premature card",
    "BOARD-008": "A card found face up while dealing the board",
    "BOARD-009": "Announce the number of players at the flop",
    "BOARD-010": "No rabbit hunting",
    "BOARD-011": "Running it twice (at most three times)",
    "MUCK-001": "Folded hands go straight to the muck",
    "MUCK-002": "Taking cards back out of the muck",
    "MUCK-003": "Blinds folding too early",
    "MUCK-004": "An out-of-turn fold stands",
    "MUCK-005": "At showdown, losers go on top of the muck and the winner stays up",
    "MUCK-006": "A hand is dead once it touches the muck",
    "SHOW-001": "The whole hand must be shown to win",
    "SHOW-002": "The wrong number of cards at showdown means a dead hand",
    "SHOW-003": "Who shows first",
    "SHOW-004": "Cards speak, and the system reads the hands",
    "SHOW-005": "All-in with the action complete: all hands up, no folding",
    "SHOW-006": "Award only when the action is complete; then muck, move the button, shuffle",
    "SHOW-007": "Seeing a called hand; collusion checks",
    "SHOW-008": "Bad-beat jackpot qualification",
    "SPLIT-001": "Tied hands split the pot",
    "SPLIT-002": "Hi-lo halves: pay high, kill it, pay low, kill it",
    "SPLIT-003": "Each pot is split on its own",
    "SPLIT-004": "Odd chip, button games, high only",
    "SPLIT-005": "Odd chip, button games, hi-lo",
    "SPLIT-006": "Odd chip in stud: the card by rank and suit",
    "SPLIT-007": "Several odd chips: at most one per player",
    "SPLIT-008": "Odd chip in the badugi hybrids",
    "SPLIT-009": "Break the odd chip down first",
    "STUD-001": "Deal template",
    "STUD-002": "The bring-in",
    "STUD-003": "The bring-in player is all-in for the ante",
    "STUD-004": "Who starts 4th–7th, and what to announce",
    "STUD-005": "Open pair on 4th street: double-bet option (stud high only)",
    "STUD-006": "Short-stub check before 7th street",
    "STUD-007": "Short, but the stub plus the burns is enough",
    "STUD-008": "Not enough even with the burns: one community card",
    "STUD-009": "7th street dealt face up by mistake",
    "STUD-010": "Up card dealt before the betting on 4th–6th is finished",
    "STUD-011": "Absent player in stud",
    "STUD-012": "All-in and called",
    "STUD-013": "Stud fold and dead hand",
    "DRAW-001": "Deal templates",
    "DRAW-002": "Over-full lowball table",
    "DRAW-003": "Exposed cards on the deal and on the draw",
    "DRAW-004": "Discards first, then one burn, then the draw",
    "DRAW-005": "Running out of cards",
    "RACE-001": "Dealing the race-off",
    "RACE-002": "Highest card by rank, then suit",
    "RACE-003": "One colour-up chip per player",
    "RACE-004": "Rounding the remainder",
    "RACE-005": "Nobody is knocked out by a race-off",
    "RACE-006": "Floor present, clock stopped, no pushes",
    "BREAK-001": "High card when a table breaks",
    "BREAK-002": "Too many open seats: stop dealing and tell the floor",
    "BREAK-003": "\"Seat open\" notice",
    "BREAK-004": "Table balance",
    "RELIEF-001": "Deck swapped at each relief",
    "RELIEF-002": "Any other deck change only for a listed reason",
    "RELIEF-003": "Down-card log",
    "RELIEF-004": "No pushes during hand-for-hand or colour-up",
    "MIXED-001": "Counting chips: hands per game",
    "MIXED-002": "Late entries in mixed events",
    "CHIN-001": "Four stacks of 13",
    "CHIN-002": "Which stack goes where",
    "CHIN-003": "14 and 12 cards: fix it, no misdeal",
    "CHIN-004": "End of hand and the next hand",
    "EVAL-001": "Hold'em: best five of seven",
    "EVAL-002": "Omaha: exactly two hole cards plus three board cards",
    "EVAL-003": "Eight-or-better low",
    "EVAL-004": "Lowball A-5 vs 2-7",
    "EVAL-005": "Razz: the ace is always low",
    "EVAL-006": "Badugi",
    "EVAL-007": "ADUCI / BADUCI halves",
    "EVAL-008": "Suits never break a tie; kickers do",
    "FLOW-001": "A new level applies from the next deal",
    "FLOW-002": "Hand-for-hand",
    "FLOW-003": "Bubble: \"all-in called\"",
    "FLOW-004": "Player clock",
    "FLOW-005": "Check the button before breaks",
    "FLOW-006": "Long absence",
    "FLOW-007": "Satellite start gate",
    "FLOW-008": "Table add-on window",
    "FLOW-009": "Short-handed rake cap (cash)",
}


def meaning(rule: str | None) -> str | None:
    """The one-line meaning of ``rule``, or None for an unknown id (or none)."""
    return MEANINGS.get(rule) if rule else None


#: the dealer's floor pad (controller/core/table/table.py): a call, listed apart from alerts and first
CALL = "floor.call"
#: how urgent an open alert is, by its code's family (controller/core/codes.py): the board sorts its
#: tiles by it and colours them; 3, a foul deck or hand (the game must not go on as it is); 2, a
#: device or the shuffler (the table runs blind); 1, a procedure
SEVERITY = {"deck": 3, "misdeal": 3, "late_fault": 3, "stub": 3, "device": 2, "shuffler": 2}
#: codes ranked otherwise than their family: a card that may be held out (MUCK-001) is a foul hand
SEVERITY_OF_CODE = {"muck.card_held_out": 3}
#: the families a technician is shown in the dealer's incidents: the devices' own
TECHNICIAN_FAMILIES = frozenset({"device", "shuffler"})


def severity(code: str | None) -> int:
    """How urgent an alert of ``code`` is (3, 2 or 1; a call is not ranked here).

    >>> severity("deck.foreign_card"), severity("device.reader_offline"), severity("burn.missing")
    (3, 2, 1)
    >>> severity("muck.card_held_out"), severity("muck.card_missing")  # MUCK-001: the floor's, the dealer's
    (3, 1)
    """
    code = code or ""
    return SEVERITY_OF_CODE.get(code) or SEVERITY.get(code.partition(".")[0], 1)
