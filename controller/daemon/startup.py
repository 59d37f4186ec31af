"""What a daemon does before anything else, the same for ``tablectl run`` and the simulator's
paced daemon (hw_sim/paced_daemon.py): its umask, its configuration read and checked, its
logging."""

from __future__ import annotations

import logging
import os
import sys
from typing import Any


def setup_logging(level: str) -> None:
    logging.basicConfig(level=getattr(logging, level.upper()), stream=sys.stderr,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")


def daemon_config(path: str) -> Any:
    """What a daemon does before anything else (``tablectl run``, and the simulator's paced
    daemon): its umask, its configuration read and checked, its logging; None (said in one line)
    if the configuration is refused."""
    # (the configuration's modules, the devices' drivers among them, loaded here: the floor's and
    # the tools' commands, which import this module through the command line, never load them)
    from controller.config.daemon import ConfigError, load_config

    # Everything the daemon creates is its own only (the journal, the feed, the control socket's
    # folder aside): run outside the unit, under a umask of 022, nothing would be 0644.
    os.umask(0o077)
    try:
        config = load_config(path)
    except ConfigError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return None
    setup_logging(config.outputs.log_level)
    return config
