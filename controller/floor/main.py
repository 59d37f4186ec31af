"""``tablectl floor``: run the floor's service; ``tablectl floor adduser NAME --role ROLE``."""

from __future__ import annotations

import asyncio
import getpass
import logging
import os
import signal
import sys
from pathlib import Path

from controller.config.schema import ConfigError
from controller.floor import auth
from controller.config.floor import load_floor
from controller.floor.store import Store


def run(config: str) -> int:
    try:
        cfg = load_floor(Path(config))
    except ConfigError as exc:
        print(f"tablectl floor: {exc}", file=sys.stderr)
        return 2
    from controller.floor.app import serve  # (aiohttp loaded only to serve, not to add a user)

    async def main() -> None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        await serve(cfg, stop)

    try:
        asyncio.run(main())
    except OSError as exc:  # (the port taken, a certificate unreadable: one line, no traceback)
        logging.getLogger("tablectl.floor").error("floor: %s", exc)
        print(f"tablectl floor: {exc}", file=sys.stderr)
        return 1
    return 0


def give_to_folder_owner(db: Path) -> None:
    """The database and SQLite's files beside it owned as their folder is (the service's user,
    /var/lib/tablectl-floor), when root made them with ``sudo tablectl floor adduser``: else the
    service, which is not root, fails on them with "Permission denied" (issue 41)."""
    if os.geteuid() != 0:
        return
    st = db.parent.stat()
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm"), Path(f"{db}-journal")):
        if p.exists() and (p.stat().st_uid, p.stat().st_gid) != (st.st_uid, st.st_gid):
            os.chown(p, st.st_uid, st.st_gid)


def adduser(config: str, name: str, role: str) -> int:
    """Create a user (or set its role and password): the password from the terminal, or the first
    line of standard input when it is not a terminal (never from the command line: ps shows it)."""
    try:
        cfg = load_floor(Path(config))
    except ConfigError as exc:
        print(f"tablectl floor adduser: {exc}", file=sys.stderr)
        return 2
    if sys.stdin.isatty():
        password = getpass.getpass(f"password for {name}: ")
        if getpass.getpass("again: ") != password:
            print("tablectl floor adduser: the two passwords differ", file=sys.stderr)
            return 2
    else:
        password = sys.stdin.readline().rstrip("\n")
    store = Store(cfg.database)
    try:
        auth.add_user(store, name, role, password)
    except ValueError as exc:
        print(f"tablectl floor adduser: {exc}", file=sys.stderr)
        return 2
    finally:
        store.close()
    give_to_folder_owner(Path(cfg.database))
    print(f"user {name} ({role}) saved in {cfg.database}")
    return 0
