"""The draw games (DRAW): ``rules`` and ``part`` (the table's)."""
