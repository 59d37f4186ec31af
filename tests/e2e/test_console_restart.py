"""A restart with the dealer's console working again (issue 12): the console is reported online
at every start, so a console that failed to open before the restart (in the journal as offline)
is never told to the floor as ``device.console_still_offline`` while it works.

The console fails to open for real: ``pin_factory = "auto"`` with ``GPIOZERO_PIN_FACTORY``
naming no factory; at the restart the same configuration finds gpiozero's MockFactory.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time

from controller.core.effects import Alert
from controller.core.events import Tick
from controller.config.daemon import load_config
from controller.config.console import default_console
from controller.daemon.main import Daemon
from controller.daemon.sinks import Sink
from firmware_bridge.clock import monotonic
from hw_sim.setup import write_setup
from tests.conftest import TABLECTL
from rig.waiting import wait_until


class Recorder(Sink):
    clearance = "floor"

    def __init__(self) -> None:
        self.effects: list = []

    def write(self, effects) -> None:  # type: ignore[no-untyped-def]
        self.effects.extend(effects)


def _drain(d: Daemon) -> None:
    """What the main loop would do with everything queued so far."""
    while True:
        try:
            eid, ev = d.events.get_nowait()
        except Exception:  # queue.Empty
            return
        d.handle(ev, eid)


def codes(effects) -> list[tuple[str, str]]:
    return [(e.code, e.audience) for e in effects if isinstance(e, Alert)]


def test_a_restart_reports_the_console_online_and_never_still_offline(tmp_path, monkeypatch):
    cfg = write_setup(tmp_path, console=default_console(pin_factory="auto"), journal=True)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-factory")
    first = Daemon(load_config(cfg))
    first.start()
    _drain(first)
    assert "console" in first.table.devices_offline  # the fault, journalled
    first.stop()

    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "mock")  # the console works again
    rec = Recorder()
    second = Daemon(load_config(cfg), sinks=[rec])
    second.start()  # the table rebuilt from the journal: the console offline in it
    try:
        assert second.console is not None and second.console.console is not None
        _drain(second)
        assert ("device.console_online", "dealer") in codes(rec.effects)
        assert second.table.devices_offline == {"reader"}  # (no reader here: the witness below)
        # an hour on the monotonic clock: the reader, gone all along, is the floor's; the console is not
        mono, boot = monotonic()
        out = second.handle(Tick(time.time(), mono=mono + 3600.0, boot=boot))
        assert codes(out) == [("device.reader_still_offline", "floor")]
    finally:
        second.stop()


def _feed_codes(path, start: int = 0) -> list[str]:
    lines = path.read_text().splitlines()[start:] if path.exists() else []
    return [json.loads(x).get("code") or json.loads(x).get("type") for x in lines]


def _ticks_after(journal, after: int) -> tuple[int, int]:
    """(Ticks journalled after event ``after``, the last event's id), read from the SQLite file."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        ticks = db.execute("SELECT COUNT(*) FROM events WHERE id > ? AND type = 'Tick'", (after,)).fetchone()[0]
        last = db.execute("SELECT COALESCE(MAX(id), 0) FROM events").fetchone()[0]
    finally:
        db.close()
    return ticks, last


def test_a_real_daemon_restarted_on_its_journal_says_the_console_is_back(tmp_path):
    """``tablectl run`` as a subprocess, stopped by SIGTERM and started again on its journal."""
    cfg = write_setup(tmp_path, console=default_console(pin_factory="auto"), journal=True,
                      outputs='feed = "feed.jsonl"')
    cfg.write_text(cfg.read_text().replace("[reader]", "[rules]\noffline_floor_after = 1.0\n[reader]", 1))
    feed = tmp_path / "feed.jsonl"

    def run(factory: str) -> subprocess.Popen:
        return subprocess.Popen([*TABLECTL, "run", "--config", str(cfg)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, text=True,
                                env=dict(os.environ, GPIOZERO_PIN_FACTORY=factory))

    first = run("no-such-factory")
    try:
        wait_until(lambda: "device.console_offline" in _feed_codes(feed), 30, what="the console's fault")
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=30)
    assert first.returncode == 0
    mark = len(feed.read_text().splitlines())
    last_event = _ticks_after(tmp_path / "journal.sqlite3", 0)[1]
    second = run("mock")
    try:
        # The witness: the main loop ticks once a second while a device (the reader: no
        # pseudo-terminal here) is away, and the next tick is made only once the last one is
        # applied. Two ticks of this run in the journal: one applied, more than the console's
        # floor delay (1 s) after its fault; a false alert for it would be in the feed.
        wait_until(lambda: _ticks_after(tmp_path / "journal.sqlite3", last_event)[0] >= 2, 30,
                   what="two ticks after the restart")
        after = _feed_codes(feed, mark)
    finally:
        second.send_signal(signal.SIGTERM)
        _out, err = second.communicate(timeout=30)
    assert second.returncode == 0, err
    assert "Ready" in after and "device.console_online" in after
    assert "device.console_still_offline" not in after
