"""The game families, each in one place: its rules and its part of the table together.

- :mod:`~controller.core.families.flop`: the flop games' board and burns (BURN, BOARD);
- :mod:`~controller.core.families.stud`: stud's streets and incidents (STUD);
- :mod:`~controller.core.families.draw`: the draw games' rounds (DRAW);
- :mod:`~controller.core.families.chinese`: Chinese poker's stacks (CHIN).

Each package holds ``part.py`` (the table's part: :mod:`controller.core.part`) and its rules
(pure functions of a hand that return findings). What every game shares (the misdeal rules, the
deck and the stub, the muck) stays in :mod:`controller.core.rules`.
"""
