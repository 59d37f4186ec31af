"""Every temporary folder a test or a docstring example makes goes under pytest's own
temporary root (``/tmp/pytest-of-<user>``, which pytest prunes), never straight into /tmp."""

import tempfile

import pytest


@pytest.fixture(autouse=True, scope="session")
def _temporary_files_under_pytest(tmp_path_factory):
    before = tempfile.tempdir
    tempfile.tempdir = str(tmp_path_factory.mktemp("tempfile"))
    yield
    tempfile.tempdir = before
