"""The table's state as plain data: what a journal snapshot holds, versioned, never a pickle.

- :mod:`~controller.core.state.codec`: values as JSON and back, every value checked, only the
  core's own classes made (a state read from anywhere runs nothing);
- :mod:`~controller.core.state.sections`: the table as the sections of its parts;
- :mod:`~controller.core.state.migrations`: earlier versions brought up to this release's;
- :mod:`~controller.core.state.checks`: the ranges the values must keep.
"""

from controller.core.errors import StateError
from controller.core.state.codec import (MAX_DEPTH, MAX_INT, MAX_STR, check_fields, classes, conforms, decode, encode,
                                       expect, fields_of)
from controller.core.state.migrations import MIGRATIONS, STATE_VERSION, add_field, migrate
from controller.core.state.sections import StateMismatch, settings_key, table_from_state, table_to_state

__all__ = ["MAX_DEPTH", "MAX_INT", "MAX_STR", "MIGRATIONS", "STATE_VERSION", "StateError", "StateMismatch",
           "add_field", "check_fields", "classes", "conforms", "decode", "encode", "expect", "fields_of", "migrate",
           "settings_key", "table_from_state", "table_to_state"]
