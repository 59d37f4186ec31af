"""A command run against ``/`` that leaves ``/`` as it was: in a private mount namespace
(``unshare -m``) where /etc, /var, /usr/local, /opt and /run are overlays whose upper layers are
a throwaway folder (issue 41: ``tablectl setup`` against ``/``, as root, on the tests' machine).
Root only, and where the kernel allows overlay mounts in a mount namespace (a container may not).

>>> "mount -t overlay" in overlay_script(Path("/tmp/x"), ["true"])
True
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Sequence
from pathlib import Path

#: the folders the command may write, each an overlay
OVERLAID = ("etc", "var", "usr/local", "opt", "run")


def overlay_script(work: Path, argv: Sequence[str]) -> str:
    lines = ["set -e"]
    for d in OVERLAID:
        upper, scratch = work / "upper" / d, work / "work" / d
        lines.append(f"mkdir -p {upper} {scratch}")
        lines.append(f"mount -t overlay overlay -o lowerdir=/{d},upperdir={upper},workdir={scratch} /{d}")
    lines.append("set +e")
    lines.append(shlex.join(argv))
    return "\n".join(lines) + "\n"


def run_on_throwaway_root(work: Path, argv: Sequence[str], *, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    """``argv`` run with / overlaid; its writes land in ``work/upper`` and vanish from / at its end."""
    return subprocess.run(["unshare", "-m", "--propagation", "private", "bash", "-c", overlay_script(work, argv)],
                          capture_output=True, text=True, timeout=timeout)
