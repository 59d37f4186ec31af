"""The simulated reader chips' countdown faults (:mod:`hw_sim.pn5180_chip`,
:mod:`hw_sim.mfrc522_chip`): a fault set to strike after so many more commands or selections.

>>> from types import SimpleNamespace
>>> f = SimpleNamespace(die_after=1)
>>> runs_out(f, "die_after"), runs_out(f, "die_after"), f.die_after
(False, True, None)
"""

from __future__ import annotations


def runs_out(faults: object, name: str) -> bool:
    """One more command (or selection) against the countdown ``faults.<name>`` (an int, not
    None): True once it has run out, the countdown then cleared (the fault struck, once)."""
    left = getattr(faults, name) - 1
    if left < 0:
        setattr(faults, name, None)
        return True
    setattr(faults, name, left)
    return False
