"""A deck's manifest names its own deck in its first line, as ``tablectl register`` writes it
(``# deck A, red back, ...``: controller.core.registry.manifest_of). A ``[[decks]]`` entry whose id
or back disagrees with that line is refused where the daemon reads it: the configuration (so
``tablectl run`` and ``tablectl doctor`` refuse it) and the control socket's ``decks`` command
(issue 41, break 7). The manifests here are written by register's own writer, from the simulated
decks' tags."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.config.daemon import ConfigError, load_config
from controller.core.registry import manifest_of
from controller.daemon.control import request_to_event
from controller.daemon.startup import daemon_config
from hw_sim.decks import manifest_text
from controller.core.registry import parse_manifest


def registered(folder: Path, deck: str, back: str, name: str | None = None) -> Path:
    """The manifest ``tablectl register --deck DECK --back BACK`` writes for simulated deck ``deck``."""
    cards = parse_manifest(manifest_text(deck), source="sim")
    path = folder / (name or f"{deck}.txt")
    path.write_text(manifest_of(cards, deck_id=deck, back=back))
    return path


def config(folder: Path, decks: list[tuple[str, str, str]]) -> Path:
    text = '[reader]\nport = "loop://"\n'
    for deck_id, back, manifest in decks:
        text += f'\n[[decks]]\nid = "{deck_id}"\nback = "{back}"\nmanifest = "{manifest}"\n'
    path = folder / "tablectl.toml"
    path.write_text(text)
    return path


def test_manifests_that_agree_with_their_entries_load(tmp_path):
    registered(tmp_path, "A", "red")
    registered(tmp_path, "B", "blue")
    c = load_config(config(tmp_path, [("A", "Red", "A.txt"), ("B", "blue", "B.txt")]))  # (backs: without case)
    assert [(d.id, d.back) for d in c.decks] == [("A", "Red"), ("B", "blue")]
    assert c.manifests == (str(tmp_path / "A.txt"), str(tmp_path / "B.txt"))


def test_the_manifests_swapped_between_the_entries_are_refused(tmp_path):
    registered(tmp_path, "A", "red")
    registered(tmp_path, "B", "blue")
    cfg = config(tmp_path, [("A", "red", "B.txt"), ("B", "blue", "A.txt")])
    with pytest.raises(ConfigError) as exc:
        load_config(cfg)
    assert str(exc.value) == (
        f"{cfg}: [decks #1] manifest: {tmp_path / 'B.txt'}: its header says deck B, blue back, but it is given as "
        f"deck A, red back: the manifest of another deck, or the id and back mixed up (give the deck its own manifest, "
        f"id and back, or register it again with tablectl register)")


def test_an_id_or_a_back_that_disagrees_is_refused(tmp_path):
    registered(tmp_path, "A", "red")
    registered(tmp_path, "B", "blue")
    for decks in ([("A", "blue", "A.txt"), ("B", "red", "B.txt")],   # the backs swapped
                  [("red", "A", "A.txt"), ("B", "blue", "B.txt")]):  # id and back swapped
        cfg = config(tmp_path, decks)
        with pytest.raises(ConfigError, match=r"\[decks #1\] manifest: .*A\.txt: its header says deck A, red "
                                              r"back, but it is given as deck"):
            load_config(cfg)
    # tablectl run reads it the same way: refused in one line, before anything opens
    umask = os.umask(0o022)
    try:
        assert daemon_config(str(cfg)) is None
    finally:
        os.umask(umask)


def test_a_manifest_without_the_header_is_taken_as_it_is(tmp_path):
    (tmp_path / "A.txt").write_text(manifest_text("A"))  # ("# simulated deck A, back red": not register's line)
    (tmp_path / "B.txt").write_text(manifest_text("B").split("\n", 1)[1])  # no comment at all
    assert len(load_config(config(tmp_path, [("A", "green", "A.txt"), ("B", "blue", "B.txt")])).decks) == 2


def test_the_decks_command_refuses_a_manifest_of_another_deck(tmp_path):
    registered(tmp_path, "A", "red", "C.txt")
    registered(tmp_path, "B", "blue", "D.txt")
    ok = request_to_event({"cmd": "decks", "in_play": "A", "decks": [
        {"id": "A", "back": "red", "manifest": "C.txt"}, {"id": "B", "back": "blue", "manifest": "D.txt"}]},
        now=1.0, manifests=str(tmp_path))
    assert [d[0] for d in ok.decks] == ["A", "B"]
    with pytest.raises(ValueError, match=r"^decks: D\.txt: its header says deck B, blue back, but it is given as "
                                         r"deck A, red back"):
        request_to_event({"cmd": "decks", "in_play": "A", "decks": [
            {"id": "A", "back": "red", "manifest": "D.txt"}, {"id": "B", "back": "blue", "manifest": "C.txt"}]},
            now=1.0, manifests=str(tmp_path))
