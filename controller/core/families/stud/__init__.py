"""Stud (STUD): ``rules`` (the streets, the bring-in, who acts first), ``procedures`` (the
incidents) and ``part`` (the table's part)."""
