"""Doctor's last lines: what only a person can do next (issue 41: setup "ends with `tablectl
doctor`, whose last lines say what only a person can do next: plug in the reader, map the
antennas, register the decks, calibrate, enroll in the room. Each of those is one command that
doctor names"). Judged from real configuration files and what doctor found; a step done is not
listed, and with all done there is no "Next:"."""

from __future__ import annotations

import re
from pathlib import Path

from controller.cli import doctor
from controller.cli.checks import Check, Host, system_user
from controller.cli.doctor_next import next_steps
from controller.config.daemon import load_config
from hw_sim.decks import DECK_BACKS, manifest_text
from hw_sim.pty_device import PtyDevice

NO_SERVICE_USER = Host(users=lambda name: None if name == doctor.SERVICE_USER else system_user(name))
#: the issue's five steps, each by the command that does it
COMMANDS = {"reader": "tablectl tags --port", "antennas": "tablectl tags --port", "decks": "tablectl register",
            "calibrate": "tablectl calibrate --config", "room": "tablectl room enroll"}
ALL_LEVELS = "[reader.levels]\n" + "".join(f"{a} = 140\n" for a in (1, 2, 3, 11, 12, 13))


def table(tmp: Path, *, reader: str = "/dev/tablectl/reader", decks: bool = True, antennas: str = "",
          levels: str = "", room: bool = False) -> Path:
    """A table of three seats, as setup writes it: [antennas] the standard guess unless told."""
    text = f'[table]\nseats = [1, 2, 3]\n\n[reader]\nport = "{reader}"\nparity = "N"\n\n'
    text += antennas or '[antennas]\n1 = "seat:1"\n2 = "seat:2"\n3 = "seat:3"\n11 = "board"\n12 = "burn"\n13 = "muck"\n'
    if decks:
        for deck in DECK_BACKS:
            (tmp / f"{deck}.txt").write_text(manifest_text(deck))
            text += f'\n[[decks]]\nid = "{deck}"\nback = "{DECK_BACKS[deck]}"\nmanifest = "{deck}.txt"\n'
    (tmp / "state").mkdir(exist_ok=True)
    text += '\n[journal]\npath = "state/journal.sqlite3"\n'
    if room:
        text += '\n[room]\nbroker = "mqtt://127.0.0.1"\nroom = "main"\ntable = "t7"\n'
    path = tmp / "tablectl.toml"
    path.write_text(text + "\n" + levels)
    return path


def kinds(steps: list[str]) -> list[str]:
    """Each step by its first words, as the issue names them."""
    names = {"plug the reader in": "reader", "map the antennas": "antennas", "register the decks": "decks",
             "calibrate each antenna": "calibrate", "enroll in the room": "room"}
    return [next(v for k, v in names.items() if s.startswith(k)) for s in steps]


def steps_for(path: Path, found: list[Check] | None = None) -> list[str]:
    return next_steps(load_config(path), found or [], config_path=str(path))


def test_a_fresh_setup_lists_every_step_in_order_each_one_command(tmp_path):
    path = table(tmp_path, decks=False)
    missing = [Check("fail", "reader: /dev/tablectl/reader does not exist", "plug the device in")]
    steps = steps_for(path, missing)
    assert kinds(steps) == ["reader", "antennas", "decks", "calibrate", "room"]
    for kind, step in zip(kinds(steps), steps, strict=True):
        assert COMMANDS[kind] in step, step
    assert f"tablectl calibrate --config {path}" in steps[3]
    # the room: enrolled on the broker's host, then the bundle installed here
    assert re.search(r"tablectl room enroll .*--bundle TABLE\.bundle.*tablectl setup --room-bundle TABLE\.bundle",
                     steps[4])


def test_a_step_done_is_not_listed(tmp_path):
    # the reader answers and the decks are registered: neither is listed
    assert kinds(steps_for(table(tmp_path))) == ["antennas", "calibrate", "room"]
    # a map changed from the guess is a map made: calibrate is still to do
    moved = '[antennas]\n1 = "seat:2"\n2 = "seat:1"\n3 = "seat:3"\n11 = "board"\n12 = "burn"\n13 = "muck"\n'
    assert kinds(steps_for(table(tmp_path, antennas=moved))) == ["calibrate", "room"]
    # calibrated: calibrate read each zone's card on that zone's antenna, so the guess was right
    assert kinds(steps_for(table(tmp_path, levels=ALL_LEVELS))) == ["room"]
    # an antenna left without its level: calibrate (and the map) still to do
    assert kinds(steps_for(table(tmp_path, levels="[reader.levels]\n1 = 140\n"))) == ["antennas", "calibrate", "room"]


def test_nothing_next_when_all_is_done(tmp_path, capsys):
    path = table(tmp_path, levels=ALL_LEVELS, room=True)
    assert steps_for(path) == []


def test_the_daemon_saying_the_reader_is_offline_is_a_reader_to_plug_in(tmp_path):
    offline = [Check("fail", "daemon: reader offline", "check its cable")]
    assert kinds(steps_for(table(tmp_path, levels=ALL_LEVELS, room=True), offline)) == ["reader"]
    other = [Check("fail", "daemon: console offline", "check its cable")]
    assert steps_for(table(tmp_path, levels=ALL_LEVELS, room=True), other) == []


def test_a_manifest_that_cannot_be_read_is_a_deck_to_register(tmp_path):
    path = table(tmp_path)
    (tmp_path / "A.txt").unlink()
    results = doctor.run_checks(str(path), open_ports=False, host=NO_SERVICE_USER)
    [failed] = [c for c in results if c.failed]
    assert "manifest" in failed.what and "A.txt" in failed.what
    assert kinds(next_steps(None, results, config_path=str(path))) == ["decks"]
    # any other configuration failure: its own fix, no step
    assert next_steps(None, [Check("fail", "t.toml: [table] seats: want ...")], config_path="t.toml") == []


def test_doctor_ends_with_next_and_only_what_is_left(tmp_path, capsys):
    with PtyDevice(tmp_path / "reader"):
        path = table(tmp_path, reader=str(tmp_path / "reader"), decks=False)
        assert doctor.main(str(path), host=NO_SERVICE_USER) == 1  # (no [[decks]] fails)
        out = capsys.readouterr().out.splitlines()
        start = out.index("Next:")
        assert out[start - 1].endswith("found")  # after the summary: the last lines
        assert kinds([re.sub(r"^  \d\. ", "", line) for line in out[start + 1:]]) == ["antennas", "decks",
                                                                                          "calibrate", "room"]
        assert [line[:5] for line in out[start + 1:]] == ["  1. ", "  2. ", "  3. ", "  4. "]
        path = table(tmp_path, reader=str(tmp_path / "reader"), levels=ALL_LEVELS, room=False)
        doctor.main(str(path), host=NO_SERVICE_USER)
        out = capsys.readouterr().out.splitlines()
        assert out[-2:] == ["Next:", out[-1]] and kinds([out[-1][5:]]) == ["room"]


def commands_in(text: str) -> list[list[str]]:
    """Each ``tablectl ...`` command in ``text``, as argv after ``tablectl`` (to a ``;``, ``&&``,
    a parenthesis or a backquote)."""
    import shlex

    return [shlex.split(m.group(1)) for m in re.finditer(r"\btablectl ((?:room |floor )?[a-z][^;()`&\n]*)", text)]


def test_every_command_doctor_names_is_one_tablectl_takes(tmp_path, capsys):
    """"Each of those is one command that doctor names": each parses with tablectl's own parser
    (an option renamed, a subcommand moved, would fail here)."""
    from controller.cli.main import build_parser

    missing = [Check("fail", "reader: /dev/tablectl/reader does not exist", "plug the device in")]
    steps = steps_for(table(tmp_path, decks=False), missing)
    argvs = [argv for step in steps for argv in commands_in(step)]
    assert [a[0] if a[0] not in ("room", "floor") else " ".join(a[:2]) for a in argvs] == [
        "tags", "tags", "register", "calibrate", "room enroll", "setup"]
    for argv in argvs:
        try:
            build_parser().parse_args(argv)
        except SystemExit:
            raise AssertionError(f"tablectl does not take: {argv}\n{capsys.readouterr().err}") from None


def test_the_commands_of_install_md_are_ones_tablectl_takes(capsys):
    """docs/install.md's commands with options (the ones a technician types as written)."""
    from controller.cli.main import build_parser
    from rig.paths import ROOT

    import shlex

    text = (ROOT / "docs/install.md").read_text()
    argvs = [a for a in commands_in(text) if any(w.startswith("--") for w in a)]
    # the bootstrap line hands its arguments to `tablectl setup` (scripts/bootstrap's last line)
    argvs += [["setup", *shlex.split(m.group(1))] for m in re.finditer(r"scripts/bootstrap ([^`|\n]*)", text)]
    assert len(argvs) >= 7 and ["setup", "--reader", "feig", "--seats", "1-9"] in argvs
    for argv in argvs:
        try:
            build_parser().parse_args(argv)
        except SystemExit:
            raise AssertionError(f"tablectl does not take: {argv}\n{capsys.readouterr().err}") from None
