"""The floor's password checks' process: argon2 (controller/floor/auth.py, ``check``) away from the
service's event loop and its memory, behind the service for a core.

A module of its own that imports nothing of the service: the process is spawned, and a spawned
process imports what its initializer and its work name. With the initializer in
controller/floor/app.py it imported the whole web service (aiohttp, paho, the store: 0.3 s of a
core) at every start of the service, for nothing it uses; now it imports this module and
controller.floor.auth (what a check runs), 0.16 s of a core in all.

>>> AT_ONCE, NICE
(1, 10)
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: password checks (argon2) in flight at once; more wait their turn
AT_ONCE = 1
#: the password checks' process runs at this nice value, in a session of its own (and so, on Linux,
#: a scheduling group of its own at that nice value: :func:`_hash_gently`): on a busy machine,
#: logins in flight get about a tenth of what the event loop gets, never all of a core, never none
NICE = 10


def pool() -> ProcessPoolExecutor:
    """The password checks' process: started afresh (spawned, not forked with the service's
    threads), at the lowest priority (:func:`_hash_gently`)."""
    return ProcessPoolExecutor(AT_ONCE, mp_context=multiprocessing.get_context("spawn"), initializer=_hash_gently)


def _hash_gently() -> None:
    """(the password checks' process, as it starts) Behind the service for a core, never shut out:
    a session of its own (so that autogroup scheduling weighs it apart from the service's group,
    not as a share of it) at that group's nice value :data:`NICE`, and its own. Not Linux's idle
    scheduling: on a machine held busy (both cores taken) an idle-class process gets no core at
    all, and a login would wait for ever. What cannot be set (not Linux, no autogroup) is left as
    it is."""
    for lower in (os.setsid, lambda: Path("/proc/self/autogroup").write_text(f"{NICE}\n"),
                  lambda: os.nice(NICE)):
        try:
            lower()
        except (AttributeError, OSError):
            pass
    threading.Thread(target=_end_with, args=(os.getppid(),), daemon=True).start()
    import controller.floor.auth  # noqa: F401  (what a check runs, loaded now: not at the first login)


def _end_with(service: int) -> None:
    """(the password checks' process) Gone as soon as the service is (killed: its queue to this
    process is never closed, which would have it wait for a check for ever)."""
    while os.getppid() == service:
        time.sleep(1.0)
    os._exit(0)
