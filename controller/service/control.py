"""The control socket: floor and technician commands, one JSON object per line.

Requests and answers (see docs/daemon.md):

- ``{"cmd": "ping"}`` -> ``{"ok": true, "hands_finished": N, "online": {...}}``
- ``{"cmd": "setup", "seats": [1, 2, 4], "button": 4}`` -> seats (and the button, if given) from the
  next hand on
- ``{"cmd": "press", "name": "exposed"}`` -> as if the dealer pressed that pad; ``"long": true``
  for a long press, ``"seat": N`` for a seat pad (``seat_out``...), ``"hands": N`` for a penalty,
  ``"reason": R`` for ``new_deck`` (RELIEF-002). With the dealer's console on mock pins, the
  press goes through those pins and the real gpiozero callbacks (docs/console.md)
- ``{"cmd": "decks", "decks": [{"id": "C", "back": "green", "manifest": "/path/C.txt"}, ...],
  "in_play": "C"}`` -> the floor's setup exchange: a new pair replaces the old, which is retired
  (DECK-003, DECK-005); each manifest must hold the 52 cards (DECK-001)

A bad request gets ``{"ok": false, "error": "..."}`` and the daemon carries on.
"""

from __future__ import annotations

import json
import logging
import os
import socketserver
import threading
import time
from typing import Any, Callable

from pathlib import Path

from controller.events import ButtonPress, DeckSetup, Event, TableSetup
from controller.pads import check_press
from controller.registry import Deck, DeckRegistry, RegistryError, parse_manifest

log = logging.getLogger("tablectl.control")


def request_to_event(req: Any, *, now: float) -> Event:
    """Turn one request into an event; ValueError says what is wrong with it."""
    if not isinstance(req, dict):
        raise ValueError("a request is a JSON object")
    cmd = req.get("cmd")
    if cmd == "setup":
        seats, button = req.get("seats"), req.get("button")
        if not isinstance(seats, list) or len(seats) < 2 or not all(
                isinstance(s, int) and 1 <= s <= 10 for s in seats) or len(set(seats)) != len(seats):
            raise ValueError("setup: 'seats' must list at least two different seats 1 to 10")
        if button is not None and (not isinstance(button, int) or not 1 <= button <= 10):
            raise ValueError("setup: 'button' must be a seat 1 to 10, or left out to let the daemon move it")
        return TableSetup(ts=now, seats=tuple(seats), button=button)
    if cmd == "press":
        name, seat, hands, reason = req.get("name"), req.get("seat"), req.get("hands"), req.get("reason")
        if not isinstance(name, str) or not name:
            raise ValueError("press: 'name' must name a pad")
        check_press(name, seat, hands, reason)
        return ButtonPress(ts=now, name=name, long=bool(req.get("long", False)), seat=seat, hands=hands,
                           reason=reason)
    if cmd == "decks":
        return _deck_setup(req, now)
    raise ValueError(f"unknown command {cmd!r} (commands: ping, setup, press, decks)")


def _deck_setup(req: dict, now: float) -> DeckSetup:
    """The new pair, read and checked here (the core gets the cards, never a file)."""
    decks, in_play = req.get("decks"), req.get("in_play")
    if not isinstance(decks, list) or not 1 <= len(decks) <= 2 or not all(isinstance(d, dict) for d in decks):
        raise ValueError("decks: 'decks' must list one or two decks, each {id, back, manifest} (DECK-005)")
    registry, backs, out = DeckRegistry(), {}, []
    for d in decks:
        deck_id, back, manifest = d.get("id"), d.get("back"), d.get("manifest")
        if not all(isinstance(v, str) and v for v in (deck_id, back, manifest)):
            raise ValueError("decks: each deck needs an 'id', a 'back' colour and a 'manifest' path")
        if back.lower() in backs:
            raise ValueError(f"decks: {backs[back.lower()]} and {deck_id} both have {back} backs; "
                             f"a table's two decks must differ (DECK-004)")
        backs[back.lower()] = deck_id
        try:
            cards = parse_manifest(Path(manifest).read_text(), source=manifest)
            registry.add(Deck(deck_id, back, cards))
        except OSError as exc:
            raise ValueError(f"decks: cannot read {manifest}: {exc.strerror or exc}") from exc
        except RegistryError as exc:
            raise ValueError(f"decks: {exc}") from exc
        out.append((deck_id, back, tuple(sorted(cards.items()))))
    if in_play not in registry.decks:
        raise ValueError(f"decks: 'in_play' must be one of the new decks ({', '.join(registry.decks)})")
    return DeckSetup(ts=now, decks=tuple(out), in_play=in_play)


class ControlServer:
    def __init__(self, path: str, submit: Callable[[Event], None], status: Callable[[], dict], *,
                 press: Callable[[ButtonPress], bool] | None = None) -> None:
        """``press``, if given, is tried first for a press: the dealer's console on mock pins
        gives it through its pins (and says True); otherwise the press is submitted as it is."""
        self.path = path
        submit_ = submit
        status_ = status
        press_ = press

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                for line in self.rfile:
                    try:
                        req = json.loads(line)
                        if isinstance(req, dict) and req.get("cmd") == "ping":
                            answer = {"ok": True, **status_()}
                        else:
                            event = request_to_event(req, now=time.time())
                            if not (press_ is not None and isinstance(event, ButtonPress) and press_(event)):
                                submit_(event)
                            answer = {"ok": True}
                    except (ValueError, json.JSONDecodeError) as exc:
                        answer = {"ok": False, "error": str(exc)}
                    self.wfile.write((json.dumps(answer) + "\n").encode())

        if os.path.exists(path):
            os.unlink(path)
        try:
            self._server = socketserver.ThreadingUnixStreamServer(path, Handler)
        except OSError as exc:  # bind() does not say where; we do
            raise OSError(exc.errno, exc.strerror, path) from exc
        self._server.daemon_threads = True
        os.chmod(path, 0o660)
        self._thread = threading.Thread(target=self._server.serve_forever, name="control", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        try:
            os.unlink(self.path)
        except OSError:
            pass


def send(path: str, request: dict, timeout: float = 5.0) -> dict:
    """One request to a running daemon's control socket."""
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        s.connect(path)
        s.sendall((json.dumps(request) + "\n").encode())
        buf = b""
        while not buf.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                break
            buf += chunk
    return json.loads(buf or b"{}")
