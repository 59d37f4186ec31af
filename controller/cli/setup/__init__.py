"""``tablectl setup`` (a table's Pi) and ``tablectl floor setup`` (the floor's server): one command
each that says what it does, can be run twice, and ends with doctor (docs/install.md)."""
