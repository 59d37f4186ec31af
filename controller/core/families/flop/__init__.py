"""The flop games: the board and its burns (BURN, BOARD). ``board``: the rules (a hand's
``BoardState``); ``part``: the table's part."""
