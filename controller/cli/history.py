"""``tablectl history``: the finished hands in the journal, listed or exported as JSON lines.

The journal keeps every finished hand's record (where every card ended, the stub count, its
alerts, the deck it was dealt from, the dealer's down) for ``[journal] retention_days``. The
records name hole cards: this is a floor tool, and its export is written with mode 0600.

    tablectl history --config /etc/tablectl/tablectl.toml               # one line per hand
    tablectl history --config ... --jsonl --out hands.jsonl --since 2026-11-23
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from datetime import datetime
from typing import Any, TextIO

from controller.config.daemon import ConfigError, load_config
from controller.daemon.private import open_private


def read_hands(path: str, *, since: float = 0.0) -> list[dict[str, Any]]:
    """The hand records in the journal at ``path`` (read-only: the daemon may be running)."""
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT record FROM hands WHERE ended >= ? ORDER BY id", (since,)).fetchall()
    finally:
        db.close()
    return [json.loads(r[0]) for r in rows]


def line_of(rec: dict[str, Any]) -> str:
    """``hand 12  2026-11-23 21:04:05  button 4  deck A  stub 26  dealer Ann Lee  alerts: misdeal.x(MISD-004) ...``
    (``dealer`` when the floor named one: RELIEF-003)"""
    when = datetime.fromtimestamp(rec.get("ended", 0)).strftime("%Y-%m-%d %H:%M:%S")
    alerts = rec.get("alerts", [])
    said = " ".join(f"{a['code']}({a.get('rule') or '-'})" for a in alerts) or "none"
    dealer = f"  dealer {rec['dealer']}" if rec.get("dealer") else ""
    return (f"hand {rec['hand']:>4}  {when}  button {rec.get('button')}  deck {rec.get('deck') or '-'}  "
            f"stub {rec.get('stub_count')}{dealer}  alerts: {said}")


def main(*, config: str, since: str | None, jsonl: bool, out: str | None) -> int:
    try:
        cfg = load_config(config)
    except ConfigError as exc:
        print(f"tablectl: {exc}", file=sys.stderr)
        return 2
    path = cfg.journal.path
    if path is None:
        print(f"tablectl history: {cfg.path}: no [journal] section: no history is kept", file=sys.stderr)
        return 2
    try:
        start = datetime.fromisoformat(since).timestamp() if since else 0.0
    except ValueError:
        print(f"tablectl history: --since: want a date like 2026-11-23 or 2026-11-23T20:00, got {since!r}",
              file=sys.stderr)
        return 2
    if not os.path.exists(path):
        print(f"tablectl history: {path}: no journal yet (the daemon has not run)", file=sys.stderr)
        return 1
    try:
        hands = read_hands(path, since=start)
    except sqlite3.DatabaseError as exc:
        print(f"tablectl history: {path}: cannot read the journal: {exc} (tablectl doctor checks it)",
              file=sys.stderr)
        return 1
    stream: TextIO = sys.stdout
    if out:
        try:
            stream = open_private(out, "w")  # floor records name hole cards: 0600 even if it existed
        except OSError as exc:
            print(f"tablectl history: --out {out}: cannot write it: {exc.strerror or exc}", file=sys.stderr)
            return 1
    try:
        for rec in hands:
            stream.write((json.dumps(rec, separators=(",", ":")) if jsonl else line_of(rec)) + "\n")
    finally:
        if out:
            stream.close()
    return 0
