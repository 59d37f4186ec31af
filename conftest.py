"""Every temporary folder a test or a docstring example makes goes under pytest's own
temporary root (``/tmp/pytest-of-<user>``, which pytest prunes), never straight into /tmp.

And the suite's Python keeps its compiled bytecode, in pytest's cache folder, even where the
environment says not to write it beside the sources (PYTHONDONTWRITEBYTECODE, as the systemd
units set for the service)."""

import os
import sys
import tempfile

import pytest

#: The bridge board's firmware is MicroPython, not the host's Python: its files import machine and
#: micropython, which CPython has not, so pytest's doctest collection leaves them alone. Its
#: tests (tests/unit/firmware/) load it with hw_sim.micropython_board's fakes
#: (docs/decisions/0042-the-bridge-board.md).
collect_ignore = ["firmware_bridge/firmware"]


def pytest_configure(config):
    """Without bytecode, every xdist worker compiled the whole suite again (pytest's rewritten
    asserts: about 6 s of a core each) and every subprocess the tests start (a daemon, a simulator,
    the floor: some 250 of them) compiled the package anew. With PYTHONDONTWRITEBYTECODE set,
    bytecode goes to ``.pytest_cache/pycache`` instead (PYTHONPYCACHEPREFIX, which the workers and
    the subprocesses inherit): nothing is written beside the sources, as the setting intends. A
    run with its own prefix, or without pytest's cache (``-p no:cacheprovider``), is left alone."""
    cache = getattr(config, "cache", None)
    if not sys.dont_write_bytecode or sys.pycache_prefix or cache is None:
        return
    prefix = str(cache.mkdir("pycache"))
    sys.pycache_prefix = prefix
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytest(tmp_path_factory):
    before = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("tempfile"))
    yield
    tempfile.tempdir = before
