"""``tablectl room enroll --floor-config FILE``: the table's public key put into the floor's
``[floor.tables]`` (issue 41: nothing typed twice, the floor's host needing no paste), through
the configuration writer (the file's owner and mode kept), idempotent, refusing another key
already there for that table. The oracle of the key is the signature: a record the table signs
with the key enroll gave it verifies against the key the floor's configuration now holds."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from controller.cli.main import main as tablectl
from controller.cli.setup.skeleton import floor_config
from controller.config.floor import load_floor
from controller.config.floor_tables import add_table_key
from controller.room import enroll
from controller.room.signing import Signer, verify

#: a group that is not root's, to see the owner kept (the floor's file is root:tablectl 0640)
OTHER_GID = 20 if os.geteuid() == 0 else os.getegid()


def floor_toml(tmp: Path, extra: str = "") -> Path:
    """The floor's configuration as `tablectl floor setup` writes it, root:<group> 0640."""
    (tmp / "floor.password").write_text("secret\n")
    os.chmod(tmp / "floor.password", 0o600)
    path = tmp / "floor.toml"
    path.write_text(floor_config(broker="mqtt://127.0.0.1", room="main", ca_file=None) + extra)
    if os.geteuid() == 0:
        os.chown(path, 0, OTHER_GID)
    os.chmod(path, 0o640)
    return path


def signed_by(folder: Path, table: str) -> tuple[dict, str]:
    body = {"hand": 1, "seq": 3}
    where = f"main/{table}/hands"
    return {**body, "sig": Signer.from_file(folder / f"{table}.signing-key").sign(body, where)}, where


def test_enroll_puts_the_tables_key_into_the_floors_configuration(tmp_path, capsys):
    keys = tmp_path / "enroll"
    keys.mkdir()
    floor = floor_toml(tmp_path)
    before = os.stat(floor)
    assert tablectl(["room", "enroll", "t7", "--room", "main", "--dir", str(keys), "--floor-config", str(floor)]) == 0
    out = capsys.readouterr().out
    cfg = load_floor(floor)
    record, where = signed_by(keys, "t7")
    assert verify(cfg.table_keys["main/t7"], record, where)  # the floor checks what the table signs
    assert f"added to {floor} [floor.tables]" in out
    after = os.stat(floor)
    assert (after.st_uid, after.st_gid, stat.S_IMODE(after.st_mode)) == (before.st_uid, before.st_gid, 0o640)
    assert floor.read_text().startswith(floor_config(broker="mqtt://127.0.0.1", room="main", ca_file=None))
    # a second table goes into the same section, the first kept
    assert tablectl(["room", "enroll", "t8", "--room", "main", "--dir", str(keys), "--floor-config", str(floor)]) == 0
    cfg = load_floor(floor)
    assert sorted(cfg.table_keys) == ["main/t7", "main/t8"]
    assert [ln for ln in floor.read_text().splitlines() if ln.startswith("[floor.tables]")] == [
        "[floor.tables]  # each table's public key (tablectl room enroll)"]
    record, where = signed_by(keys, "t8")
    assert verify(cfg.table_keys["main/t8"], record, where)


def test_a_table_the_floor_has_a_key_for_is_refused_before_anything_is_made(tmp_path, capsys):
    keys = tmp_path / "enroll"
    keys.mkdir()
    other = "ab" * 32
    floor = floor_toml(tmp_path, f'\n[floor.tables]\n"main/t7" = "{other}"\n')
    text = floor.read_text()
    assert tablectl(["room", "enroll", "t7", "--room", "main", "--dir", str(keys), "--floor-config", str(floor)]) == 2
    err = capsys.readouterr().err
    assert f"--floor-config: {floor}: [floor.tables] has a key for main/t7 already" in err
    assert list(keys.iterdir()) == [] and floor.read_text() == text  # no password, no key, the file as it was
    missing = tmp_path / "no-floor.toml"
    assert tablectl(["room", "enroll", "t7", "--room", "main", "--dir", str(keys), "--floor-config", str(missing)]) == 2
    assert f"--floor-config: cannot read {missing}" in capsys.readouterr().err and list(keys.iterdir()) == []


def test_adding_the_same_key_again_writes_nothing_and_another_is_refused(tmp_path):
    floor = floor_toml(tmp_path)
    key = "cd" * 32
    assert add_table_key(floor, "main/t7", key) is True
    text, inode = floor.read_text(), floor.stat().st_ino
    assert add_table_key(floor, "main/t7", key) is False
    assert floor.read_text() == text and floor.stat().st_ino == inode  # not even rewritten
    try:
        add_table_key(floor, "main/t7", "ef" * 32)
    except ValueError as exc:
        assert "has another key for main/t7 already" in str(exc)
    else:
        raise AssertionError("another key for the same table was accepted")
    assert floor.read_text() == text
    assert load_floor(floor).table_keys == {"main/t7": key}


def test_enroll_with_a_bundle_and_the_floor_at_once(tmp_path, capsys):
    """The broker's host running the floor too: one enroll, the bundle for the table and the key
    for the floor."""
    keys = tmp_path / "enroll"
    keys.mkdir()
    floor = floor_toml(tmp_path)
    bundle = tmp_path / "t7.bundle"
    assert enroll.main("t7", "main", str(keys), bundle=str(bundle), broker="mqtts://broker.room.lan:8883",
                       floor_config=str(floor)) == 0
    assert bundle.is_file()
    public = Signer.from_file(keys / "t7.signing-key").public()
    assert load_floor(floor).table_keys == {"main/t7": public}
