"""The core's errors that more than one module raises."""

from __future__ import annotations


class StateError(ValueError):
    """A state that cannot be taken: names where in the state, and what is wrong."""
