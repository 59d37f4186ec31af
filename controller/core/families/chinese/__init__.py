"""Chinese poker (CHIN): ``rules`` and ``part`` (the table's)."""
