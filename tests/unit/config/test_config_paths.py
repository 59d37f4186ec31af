"""Paths checked before anything is opened (issue 12): the journal, the feed, the control socket
and the manifests folder are distinct, after resolving; the journal is an SQLite journal or
absent; the control path a socket or absent; the configuration file is never one of them. A
clash is one line naming both keys, exit status 2, and every file is left byte for byte.

Real files in a temporary folder; ``tablectl run`` as a real subprocess for some.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
from pathlib import Path

import pytest

from controller.config.daemon import ConfigError, load_config
from hw_sim.decks import manifest_text
from tests.conftest import TABLECTL


def setup(folder: Path, *, journal: str | None = None, feed: str | None = None, control: str | None = None,
          manifests: str | None = None) -> Path:
    """A configuration in ``folder`` with deck A's manifest beside it and the paths given."""
    (folder / "A.txt").write_text(manifest_text("A"))
    (folder / "notes.txt").write_text("the technician's notes\nreader on the left\n")
    (folder / "decks").mkdir(exist_ok=True)
    (folder / "decks" / "C.txt").write_text(manifest_text("B"))
    text = '[reader]\nport = "loop://"\n[[decks]]\nid = "A"\nback = "red"\nmanifest = "A.txt"\n'
    if journal is not None:
        text += f'[journal]\npath = "{journal}"\n'
    outputs = "".join(f'{k} = "{v}"\n' for k, v in (("feed", feed), ("control", control)) if v is not None)
    if outputs:
        text += "[outputs]\n" + outputs
    if manifests is not None:
        text += f'[control]\nmanifests = "{manifests}"\n'
    cfg = folder / "tablectl.toml"
    cfg.write_text(text)
    return cfg


def files(folder: Path) -> dict[str, bytes | str]:
    """Every name under ``folder`` and what it holds (a socket by its kind)."""
    out: dict[str, bytes | str] = {}
    for p in sorted(folder.rglob("*")):
        if p.is_socket():
            out[str(p)] = "socket"
        elif p.is_file():
            out[str(p)] = p.read_bytes()
        else:
            out[str(p)] = "folder"
    return out


def refused(cfg: Path) -> str:
    """The loader's one line, the files untouched."""
    before = files(cfg.parent)
    with pytest.raises(ConfigError) as info:
        load_config(cfg)
    assert files(cfg.parent) == before
    msg = str(info.value)
    assert "\n" not in msg and msg.startswith(f"{cfg}: ")
    return msg


def run_refused(cfg: Path) -> str:
    """``tablectl run`` as a subprocess: exit 2, one line, no traceback, every file as it was."""
    before = files(cfg.parent)
    r = subprocess.run([*TABLECTL, "run", "--config", str(cfg)], capture_output=True, text=True, timeout=60)
    assert files(cfg.parent) == before
    assert r.returncode == 2, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith(f"tablectl: {cfg}: ")
    return lines[0]


def test_a_journal_at_the_configuration_file_is_refused_through_tablectl_run(tmp_path):
    cfg = setup(tmp_path, journal="tablectl.toml")
    line = run_refused(cfg)
    assert "[journal] path and the configuration file itself are the same file" in line


def test_a_control_socket_at_a_manifest_is_refused_through_tablectl_run(tmp_path):
    cfg = setup(tmp_path, control="A.txt")
    line = run_refused(cfg)
    assert "[outputs] control and [[decks]] #1 manifest are the same file" in line


def test_a_journal_that_is_a_text_file_is_refused_through_tablectl_run(tmp_path):
    cfg = setup(tmp_path, journal="notes.txt")
    line = run_refused(cfg)
    assert f"[journal] path: {tmp_path / 'notes.txt'} is not an SQLite journal" in line
    assert "reader on the left" not in line  # (never what the file holds)


def test_a_control_socket_at_the_feed_is_refused(tmp_path):
    msg = refused(setup(tmp_path, feed="out.jsonl", control="out.jsonl"))
    assert "[outputs] feed and [outputs] control are the same file" in msg
    assert not (tmp_path / "out.jsonl").exists()


def test_a_control_socket_at_a_regular_file_is_refused(tmp_path):
    msg = refused(setup(tmp_path, control="notes.txt"))
    assert f"[outputs] control: {tmp_path / 'notes.txt'} is a regular file, not a socket" in msg


def test_a_control_socket_at_the_configuration_file_is_refused(tmp_path):
    msg = refused(setup(tmp_path, control="tablectl.toml"))
    assert "[outputs] control and the configuration file itself are the same file" in msg


def test_a_feed_at_the_configuration_file_is_refused(tmp_path):
    msg = refused(setup(tmp_path, feed="tablectl.toml"))
    assert "[outputs] feed and the configuration file itself are the same file" in msg


def test_the_journal_at_the_feed_is_refused(tmp_path):
    msg = refused(setup(tmp_path, journal="j.sqlite3", feed="j.sqlite3"))
    assert "[journal] path and [outputs] feed are the same file" in msg


def test_the_feed_at_the_journal_s_wal_is_refused(tmp_path):
    msg = refused(setup(tmp_path, journal="j.sqlite3", feed="j.sqlite3-wal"))
    assert "[journal] path (its -wal) and [outputs] feed are the same file" in msg


def test_a_path_inside_the_manifests_folder_is_refused(tmp_path):
    msg = refused(setup(tmp_path, control="decks/ctl.sock", manifests="decks"))
    assert f"[outputs] control ({tmp_path / 'decks' / 'ctl.sock'}) is inside [control] manifests" in msg
    msg = refused(setup(tmp_path, journal="decks/j.sqlite3", manifests="decks"))
    assert "[journal] path" in msg and "is inside [control] manifests" in msg


def test_the_manifests_folder_itself_as_the_feed_is_refused(tmp_path):
    msg = refused(setup(tmp_path, feed="decks", manifests="decks"))
    assert "[outputs] feed" in msg and "[control] manifests" in msg


def test_a_symbolic_link_is_followed_before_comparing(tmp_path):
    (tmp_path / "link.sock").symlink_to(tmp_path / "A.txt")
    msg = refused(setup(tmp_path, control="link.sock"))
    assert "[outputs] control and [[decks]] #1 manifest are the same file" in msg


def test_a_hard_link_is_the_same_file(tmp_path):
    cfg = setup(tmp_path, feed="feed.jsonl")
    os.link(cfg, tmp_path / "feed.jsonl")
    msg = refused(cfg)
    assert "[outputs] feed and the configuration file itself are the same file" in msg


def test_a_relative_path_spelled_another_way_is_the_same_file(tmp_path):
    msg = refused(setup(tmp_path, journal="./decks/../j.sqlite3", feed="j.sqlite3"))
    assert "[journal] path and [outputs] feed are the same file" in msg


def test_a_journal_that_is_a_folder_is_refused(tmp_path):
    (tmp_path / "j.sqlite3").mkdir()
    msg = refused(setup(tmp_path, journal="j.sqlite3"))
    assert "is a folder, not a journal" in msg


def test_the_paths_a_table_uses_are_accepted(tmp_path):
    """A real journal, a stale control socket, an existing feed, a zero-byte journal beside a WAL:
    all are the daemon's own and load."""
    db = sqlite3.connect(tmp_path / "j.sqlite3")
    db.execute("CREATE TABLE t (x)")
    db.close()
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(tmp_path / "ctl.sock"))
    sock.close()
    (tmp_path / "feed.jsonl").write_text('{"kind": "hand"}\n')
    cfg = load_config(setup(tmp_path, journal="j.sqlite3", feed="feed.jsonl", control="ctl.sock",
                            manifests="decks"))
    assert cfg.journal.path == str(tmp_path / "j.sqlite3")
    (tmp_path / "z.sqlite3").write_bytes(b"")
    (tmp_path / "z.sqlite3-wal").write_bytes(b"\x37\x7f\x06\x82" + bytes(28))
    assert load_config(setup(tmp_path, journal="z.sqlite3")).journal.path == str(tmp_path / "z.sqlite3")


def test_the_zero_byte_journal_beside_a_wal_is_still_salvaged_by_tablectl_run_s_loader(tmp_path):
    """The path check lets the empty file through to the journal, whose salvage rebuilds it from
    the WAL (tests/e2e/test_journal_damage.py has the cases); here: the check opens nothing."""
    (tmp_path / "j.sqlite3").write_bytes(b"")
    (tmp_path / "j.sqlite3-wal").write_bytes(b"wal bytes")
    before = files(tmp_path)
    load_config(setup(tmp_path, journal="j.sqlite3"))
    after = files(tmp_path)
    assert {k: v for k, v in after.items() if "sqlite3" in k} == {k: v for k, v in before.items() if "sqlite3" in k}


def test_the_doctor_reports_the_same_clash_and_touches_nothing(tmp_path):
    from controller.cli import doctor

    cfg = setup(tmp_path, control="A.txt")
    before = files(tmp_path)
    check, config = doctor.check_config(cfg)
    assert config is None and check.level == "fail"
    assert "[outputs] control and [[decks]] #1 manifest are the same file" in check.what
    assert files(tmp_path) == before
