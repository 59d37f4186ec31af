"""A stand-in for systemd's ``systemctl`` and ``journalctl``, for doctor's tests of a unit's state
(controller/cli/unit_state.py): systemd cannot be PID 1 in a test run, so the two programs are
scripts that print what the test gives them (as a real systemd printed it: the tests' captures)
and write down each command line they were run with. Doctor runs them as subprocesses, as it runs
the real ones, through the :class:`~controller.cli.checks.Host` it is given.

>>> import subprocess, tempfile
>>> fake = FakeSystemd(Path(tempfile.mkdtemp()))
>>> fake.show("ActiveState=active\\n")
>>> subprocess.run([fake.systemctl, "show", "x.service"], capture_output=True, text=True).stdout
'ActiveState=active\\n'
>>> fake.calls("systemctl")
[['show', 'x.service']]
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from controller.cli.checks import Host
from controller.cli.unit_state import SYSTEMD_MARKER

#: each program: write its command line down, print its stdout and stderr, exit with its status
SCRIPT = """#!{python} -IS
import json, pathlib, sys
here = pathlib.Path(__file__).parent
name = pathlib.Path(__file__).name
with open(here / (name + ".calls"), "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
answer = json.loads((here / (name + ".answer")).read_text())
sys.stdout.write(answer["out"])
sys.stderr.write(answer["err"])
sys.exit(answer["status"])
"""


class FakeSystemd:
    """``systemctl`` and ``journalctl`` in ``folder``: each answers every call with what
    :meth:`show` and :meth:`journal` last gave it (nothing, exit status 0, until then)."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        for name in ("systemctl", "journalctl"):
            script = folder / name
            script.write_text(SCRIPT.format(python=sys.executable))
            script.chmod(0o755)
            self._answer(name, "")

    @property
    def systemctl(self) -> str:
        return str(self.folder / "systemctl")

    @property
    def journalctl(self) -> str:
        return str(self.folder / "journalctl")

    def _answer(self, name: str, out: str, err: str = "", status: int = 0) -> None:
        (self.folder / f"{name}.answer").write_text(json.dumps({"out": out, "err": err, "status": status}))

    def show(self, out: str, err: str = "", status: int = 0) -> None:
        """What ``systemctl`` prints (``systemctl show``'s ``Key=value`` lines)."""
        self._answer("systemctl", out, err, status)

    def journal(self, out: str, err: str = "", status: int = 0) -> None:
        """What ``journalctl`` prints."""
        self._answer("journalctl", out, err, status)

    def calls(self, name: str) -> list[list[str]]:
        """The command lines ``name`` was run with, in order."""
        log = self.folder / f"{name}.calls"
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def host(self, host: Host) -> Host:
        """``host`` whose systemd is this one, booted: the marker of systemd as PID 1 made under
        its root (sd_booted(3): ``/run/systemd/system``), its programs these."""
        if host.root == Path("/"):  # (the marker under this machine's own / would say it booted with systemd)
            raise ValueError("FakeSystemd.host: give a Host whose root is a test's folder")
        host.path(SYSTEMD_MARKER).mkdir(parents=True, exist_ok=True)
        return dataclasses.replace(host, systemctl=self.systemctl, journalctl=self.journalctl)
