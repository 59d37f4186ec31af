"""The password checks' process: argon2's tens of milliseconds of a core and its 64 MiB in a
process of its own, spawned (not forked with the service's threads), at a low priority.

A module of its own, importing nothing of the service: the spawned process imports the module of
its initializer (:func:`hash_gently`) and of the function it runs
(:func:`controller.floor.auth.check`), and nothing else of ours. With the initializer in the
service's module (controller/floor/app.py), every start of the floor started a second interpreter
that loaded aiohttp, paho, cryptography and the whole service to check passwords: ~0.3 s of a core
(more on a Pi) for nothing it used.

>>> 0 < HASHING_NICE <= 19  # (behind the service, yet never shut out: see hash_gently)
True
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

#: the password checks' process runs at this nice value, in a session of its own (and so, on Linux,
#: a scheduling group of its own at that nice value: :func:`hash_gently`): on a busy machine,
#: logins in flight get about a tenth of what the event loop gets, never all of a core, never none
HASHING_NICE = 10


def hashing_pool(at_once: int) -> ProcessPoolExecutor:
    """The password checks' process(es): started afresh (spawned, not forked with the service's
    threads), at the lowest priority (:func:`hash_gently`)."""
    return ProcessPoolExecutor(at_once, mp_context=multiprocessing.get_context("spawn"), initializer=hash_gently)


def hash_gently() -> None:
    """(the password checks' process, as it starts) Behind the service for a core, never shut out:
    a session of its own (so that autogroup scheduling weighs it apart from the service's group,
    not as a share of it) at that group's nice value :data:`HASHING_NICE`, and its own. Not
    Linux's idle scheduling: on a machine held busy (both cores taken) an idle-class process gets
    no core at all, and a login would wait for ever. What cannot be set (not Linux, no
    autogroup) is left as it is."""
    for lower in (os.setsid, lambda: Path("/proc/self/autogroup").write_text(f"{HASHING_NICE}\n"),
                  lambda: os.nice(HASHING_NICE)):
        try:
            lower()
        except (AttributeError, OSError):
            pass
    threading.Thread(target=end_with, args=(os.getppid(),), daemon=True).start()


def end_with(service: int) -> None:
    """(the password checks' process) Gone as soon as the service is (killed: its queue to this
    process is never closed, which would have it wait for a check for ever)."""
    while os.getppid() == service:
        time.sleep(1.0)
    os._exit(0)
