"""The showdown, in one package:

- :mod:`~controller.core.showdown.evaluation`: each hand read (pokerkit), in the guides' words;
- :mod:`~controller.core.showdown.winners`: the winners of each half and the odd chips (SHOW, SPLIT);
- :mod:`~controller.core.showdown.rules`: what the guides ask the dealer at a showdown (SHOW, MUCK);
- :mod:`~controller.core.showdown.watch`: the table's watch over a hand's showdown (the pads, the
  winning hand guarded until the pot is pushed: MUCK-005/006).

The winners' API is re-exported here (``from controller.core.showdown import showdown``).
"""

from controller.core.showdown.winners import (OddChipRules, Showdown, block, from_record, run_boards, showdown,
                                            split_pot, split_runs, verdicts)

__all__ = ["OddChipRules", "Showdown", "block", "from_record", "run_boards", "showdown", "split_pot", "split_runs",
           "verdicts"]
