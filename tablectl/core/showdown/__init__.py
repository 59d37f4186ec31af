"""The showdown, in one package:

- :mod:`~tablectl.core.showdown.evaluation`: each hand read (pokerkit), in the guides' words;
- :mod:`~tablectl.core.showdown.winners`: the winners of each half and the odd chips (SHOW, SPLIT);
- :mod:`~tablectl.core.showdown.rules`: what the guides ask the dealer at a showdown (SHOW, MUCK);
- :mod:`~tablectl.core.showdown.watch`: the table's watch over a hand's showdown (the pads, the
  winning hand guarded until the pot is pushed: MUCK-005/006).

The winners' API is re-exported here (``from tablectl.core.showdown import showdown``).
"""

from tablectl.core.showdown.winners import (OddChipRules, Showdown, block, from_record, run_boards, showdown,
                                            split_pot, split_runs, verdicts)

__all__ = ["OddChipRules", "Showdown", "block", "from_record", "run_boards", "showdown", "split_pot", "split_runs",
           "verdicts"]
