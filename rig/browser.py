"""Debian's chromium, headless, driven by Playwright as the floor's page tests, benchmarks and
screenshots launch it (no browser downloaded: ``executable_path`` is the system's), without the
omnibox popup's renderers (:data:`NO_OMNIBOX_POPUP`).

One launcher for all of them, so that what a benchmark measures of the page is what the tests run.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

#: the system's chromium (scripts/test installs it: apt-get install chromium)
CHROMIUM = "/usr/bin/chromium"

#: Chromium's omnibox popup: a WebUI page (chrome://omnibox-popup.top-chrome) that its headless
#: mode loads, never to be shown, in a renderer of its own for each browser window (a context). It
#: took more CPU than the floor's pages themselves: four pages updated ten times a second for
#: 10 s cost Chromium 8 s of CPU with it, 4.5 s without.
NO_OMNIBOX_POPUP = ("WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup")


def playwright_disabled_features() -> list[str] | None:
    """The features Playwright's own launch disables (its chromiumSwitches: requests to Google at
    start, HTTPS upgrades, paint holding ...), read from the installed driver: Chromium takes the
    last ``--disable-features`` alone, so a list of ours must repeat them. None: not found (a
    Playwright that keeps them elsewhere)."""
    import playwright

    lib = Path(playwright.__file__).parent / "driver" / "package" / "lib"
    for js in (lib / "coreBundle.js", lib / "server" / "chromium" / "chromiumSwitches.js"):
        try:
            text = js.read_text(errors="replace")
        except OSError:
            continue
        found = re.search(r"disabledFeatures = \[(.*?)\]", text, re.S)
        if found:
            code = "\n".join(line for line in found.group(1).splitlines() if not line.strip().startswith("//"))
            return re.findall(r"[\"']([A-Za-z0-9_]+)[\"']", code)
    return None


def launch_chromium(playwright: Any) -> Any:
    """Debian's chromium, headless, as Playwright launches it, without the omnibox popup's
    renderers (:data:`NO_OMNIBOX_POPUP`; kept when Playwright's own list cannot be read)."""
    args = ["--no-sandbox"] if os.geteuid() == 0 else []
    theirs = playwright_disabled_features()
    if theirs is not None:
        args.append("--disable-features=" + ",".join([*theirs, *NO_OMNIBOX_POPUP]))
    return playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=args)
