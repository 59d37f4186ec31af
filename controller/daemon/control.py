"""The control socket: floor and technician commands, one JSON object per line.

Requests and answers (see docs/daemon.md, "The control socket"):

- ``{"cmd": "ping"}`` -> ``{"ok": true, "hands_finished": N, "online": {...}}``
- ``{"cmd": "setup", "seats": [1, 2, 4], "button": 4}`` -> seats (and the button, if given) from the
  next hand on; ``"game": "razz"`` (a game of controller/core/games.py) deals that game from the next
  hand on (a mixed game's hand: MIXED-001)
- ``{"cmd": "press", "name": "exposed"}`` -> as if the dealer pressed that pad; ``"long": true``
  for a long press, ``"seat": N`` for a seat pad (``seat_out``...), ``"hands": N`` for a penalty,
  ``"reason": R`` for ``new_deck`` (RELIEF-002), ``"mode": M`` for ``mode`` (race, highcard,
  break: docs/rules.md: RACE, BREAK, FLOW-005). With the dealer's console on mock pins, the
  press goes through those pins and the real gpiozero callbacks (docs/console.md)
- ``{"cmd": "decks", "decks": [{"id": "C", "back": "green", "manifest": "C.txt"}, ...],
  "in_play": "C"}`` -> the floor's setup exchange: a new pair replaces the old, which is retired
  (DECK-003, DECK-005); each manifest, a plain file name in ``[control] manifests``, must hold
  the 52 cards (DECK-001)
- ``{"cmd": "dealer", "name": "Ann Lee"}`` -> the floor names who deals (RELIEF-003): from the
  next hand on, or with ``"at_relief": true`` from the dealer's next ``relief`` press (the name
  entered ahead); every hand record and alert of that dealer's down names them
- ``{"cmd": "approve"}`` -> the floor approves the single-table satellite the table waits to
  start (FLOW-007: the dealer's ``mode satellite`` press shut the gate); nothing waiting: it
  changes nothing

It is the daemon's only access boundary, so it trusts nothing it is sent:

- **Who**: the peer's credentials (``SO_PEERCRED``, and ``SO_PEERGROUPS`` for its groups) must
  be root, the daemon's own user, or a member of ``[control] group``; anyone else gets one
  refusal line and is disconnected, whatever the socket file's mode.
- **How much**: a request is one line of at most :data:`MAX_LINE` bytes (a longer one is refused
  and the connection closed, without reading further); strict types (a bool is a JSON bool, a
  number a JSON whole number), no unknown field, bounded strings and numbers, no deep nesting;
  at most :data:`MAX_CONNECTIONS` connections (a new one closes the one idle longest), each
  closed after ``[control] idle_timeout`` seconds without a request; at most
  :data:`PRESSES_PER_SECOND` presses a second per uid (the daemon's own uid, which the
  simulator and the daemon's own tools run as, is not counted).
- **What it reads**: manifests only from ``[control] manifests``, by plain file name, regular
  files of at most :data:`MAX_MANIFEST` bytes, never through a symlink; an error names the file,
  the line and what is wrong, never what the file holds.
- **Who did it**: every command that changes the table is journalled with the peer's uid
  (``peer_uid`` on the event).

A bad request gets ``{"ok": false, "error": "..."}`` and the daemon carries on.
"""

from __future__ import annotations

import errno
import json
import logging
import os
import socket
import stat
import struct
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from controller.core.events import ButtonPress, DealerNamed, DeckSetup, Event, SatelliteApproved, TableSetup
from controller.core.pads import check_press
from controller.core.registry import Deck, DeckRegistry, RegistryError, check_header, parse_manifest
from controller.config.daemon import ControlConfig
# (the requests' parser and bounds are the room's: the floor checks its commands with them too)
from controller.room.bounds import MAX_HANDS, check_decks, check_dealer, check_fields as _fields, \
    check_manifest_name, check_setup, parse_request, show as _show, whole as _int, word as _word
from firmware_bridge.log_limit import LogLimiter

log = logging.getLogger("tablectl.control")

#: the longest request line, in bytes (without its newline); the biggest real one, a ``decks``
#: request, is a few hundred bytes
MAX_LINE = 64 * 1024
#: connections open at once; a new one closes the one idle longest (or is refused if all are busy)
MAX_CONNECTIONS = 16
#: connections waiting to be accepted (the kernel caps it at net.core.somaxconn)
BACKLOG = 128
#: presses a second a uid may give (a dealer gives a few a second at most), the daemon's own excepted
PRESSES_PER_SECOND = 20
#: the largest manifest read, in bytes (52 lines of ``UID CARD`` are about 1.1 KiB)
MAX_MANIFEST = 64 * 1024
#: Linux's SO_PEERGROUPS (4.13+; Python does not name it): the peer's supplementary groups
SO_PEERGROUPS = getattr(socket, "SO_PEERGROUPS", 59)

_COMMANDS = "ping, setup, press, decks, dealer, approve"
_FIELDS: dict[str, frozenset[str]] = {
    "ping": frozenset(),
    "setup": frozenset({"seats", "button", "game"}),
    "press": frozenset({"name", "long", "seat", "hands", "reason", "mode"}),
    "decks": frozenset({"decks", "in_play"}),
    "dealer": frozenset({"name", "at_relief"}),
    "approve": frozenset(),
}


# -- one request -------------------------------------------------------------------------------

def request_to_event(req: Any, *, now: float, peer_uid: int | None = None, manifests: str | None = None) -> Event:
    """Turn one request into an event; ValueError says what is wrong with it.

    ``peer_uid`` goes on the event (the journal keeps who gave the command); ``manifests`` is
    the folder a ``decks`` request's manifests are read from.

    >>> request_to_event({"cmd": "press", "name": "ack", "long": True}, now=1.0, peer_uid=1000)
    ButtonPress(ts=1.0, name='ack', long=True, seat=None, hands=None, reason=None, mode=None, peer_uid=1000)
    >>> request_to_event({"cmd": "press", "name": "mode", "mode": "rac"}, now=1.0)
    Traceback (most recent call last):
    ...
    ValueError: press 'mode': a mode goes only with the mode pad, one of race, highcard, break, satellite; got 'rac'
    >>> request_to_event({"cmd": "approve"}, now=2.0, peer_uid=1000)
    SatelliteApproved(ts=2.0, peer_uid=1000)
    >>> request_to_event({"cmd": "approve", "seat": 3}, now=2.0)
    Traceback (most recent call last):
    ...
    ValueError: approve: unknown field 'seat' (fields: none)
    >>> request_to_event({"cmd": "press", "name": "ack", "long": "false"}, now=1.0)
    Traceback (most recent call last):
    ...
    ValueError: press: 'long' must be true or false, got 'false'
    >>> request_to_event({"cmd": "setup", "seats": [1, 2], "buton": 2}, now=1.0)
    Traceback (most recent call last):
    ...
    ValueError: setup: unknown field 'buton' (fields: button, game, seats)
    >>> request_to_event({"cmd": "setup", "seats": [1, 2], "game": "razz"}, now=1.0).game
    'razz'
    >>> request_to_event({"cmd": "setup", "seats": [1, 2], "game": "pineapple"}, now=1.0)
    Traceback (most recent call last):
    ...
    ValueError: setup: 'game' 'pineapple' is no game the table deals (games: holdem, omaha, omaha8, stud, stud8, \
razz, draw27_single, draw27_triple, draw_a5_triple, badugi, badeucy, badacey, draw5, chinese)
    """
    if not isinstance(req, dict):  # (a ValueError, as every refusal: the socket answers those)
        raise ValueError("a request is a JSON object, e.g. {\"cmd\": \"ping\"}")  # noqa: TRY004
    cmd = req.get("cmd")
    if type(cmd) is not str or cmd not in _FIELDS or cmd == "ping":
        raise ValueError(f"unknown command {_show(cmd)} (commands: {_COMMANDS})")
    _fields(req, cmd, _FIELDS[cmd])
    if cmd == "setup":
        seats, button, game = check_setup(req)
        return TableSetup(ts=now, seats=seats, button=button, peer_uid=peer_uid, game=game)
    if cmd == "press":
        name = _word(req, cmd, "name", required=True)
        long = req.get("long", False)
        if type(long) is not bool:
            raise ValueError(f"press: 'long' must be true or false, got {_show(long)}")
        seat, hands = _int(req, cmd, "seat", 1, 10), _int(req, cmd, "hands", 1, MAX_HANDS)
        reason = _word(req, cmd, "reason", required=False)
        mode = _word(req, cmd, "mode", required=False)
        assert name is not None
        check_press(name, seat, hands, reason, mode)
        return ButtonPress(ts=now, name=name, long=long, seat=seat, hands=hands, reason=reason, mode=mode,
                           peer_uid=peer_uid)
    if cmd == "dealer":
        name, at_relief = check_dealer(req)
        return DealerNamed(ts=now, name=name, at_relief=at_relief, peer_uid=peer_uid)
    if cmd == "approve":  # FLOW-007: the satellite may start
        return SatelliteApproved(ts=now, peer_uid=peer_uid)
    return _deck_setup(req, now, peer_uid, manifests)


def _deck_setup(req: dict[str, Any], now: float, peer_uid: int | None, folder: str | None) -> DeckSetup:
    """The new pair, read and checked here (the core gets the cards, never a file): its shape with
    the bounds the floor checks too (controller/room/bounds.py), then its manifests."""
    decks, in_play = check_decks(req, folder)
    registry, out = DeckRegistry(), []
    for deck_id, back, name in decks:
        text = read_manifest(folder, name)
        try:
            cards = parse_manifest(text, source=name)  # (its errors name the line, never quote it)
            check_header(text, deck_id=deck_id, back=back, source=name)
            registry.add(Deck(deck_id, back, cards))
        except RegistryError as exc:
            raise ValueError(f"decks: {exc}") from exc
        out.append((deck_id, back, tuple(sorted(cards.items()))))
    if in_play not in registry.decks:
        raise ValueError(f"decks: 'in_play' must be one of the new decks ({', '.join(registry.decks)})")
    return DeckSetup(ts=now, decks=tuple(out), in_play=in_play, peer_uid=peer_uid)


def read_manifest(folder: str | None, name: Any) -> str:
    """The text of manifest ``name``, a plain file name in ``folder``; ValueError names the file and
    what is wrong, never what it holds.

    Opened relative to the folder (``dir_fd``) with ``O_NOFOLLOW``, so no name reaches outside
    it: no ``/``, no ``..``, no symlink; ``fstat`` on what was opened must say a regular file (a
    FIFO or ``/dev/zero`` would never end) of at most :data:`MAX_MANIFEST` bytes, and no more is
    read than that, whatever the file grows to meanwhile.

    >>> read_manifest("/etc", "../etc/passwd")
    Traceback (most recent call last):
    ...
    ValueError: decks: manifest '../etc/passwd': give a file name in /etc, not a path
    """
    if folder is None:
        raise ValueError("decks: no manifests folder is configured (set [control] manifests; see "
                         "docs/configuration.md)")
    name = check_manifest_name(name, folder)
    where = f"decks: manifest {name!r} in {folder}"
    try:
        dfd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise ValueError(f"decks: cannot open the manifests folder {folder}: {exc.strerror}") from None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC, dir_fd=dfd)
    except OSError as exc:
        why = {errno.ELOOP: "is a symbolic link (put the file itself in the folder)",
               errno.ENOENT: "no such file", errno.EACCES: "the daemon may not read it"}
        raise ValueError(f"{where}: {why.get(exc.errno or 0, exc.strerror or str(exc))}") from None
    finally:
        os.close(dfd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ValueError(f"{where}: not a regular file")
        if st.st_size > MAX_MANIFEST:
            raise ValueError(f"{where}: {st.st_size} bytes; a manifest is at most {MAX_MANIFEST}")
        chunks, size = [], 0
        while size <= MAX_MANIFEST:
            chunk = os.read(fd, MAX_MANIFEST + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_MANIFEST:
            raise ValueError(f"{where}: more than {MAX_MANIFEST} bytes; a manifest is at most that")
    except OSError as exc:
        raise ValueError(f"{where}: cannot read it: {exc.strerror}") from None
    finally:
        os.close(fd)
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{where}: not UTF-8 text (byte {exc.start})") from None


# -- who may connect, and how often they may press ---------------------------------------------

@dataclass(frozen=True)
class Peer:
    """The process at the other end of a connection, as the kernel says (``SO_PEERCRED``)."""

    pid: int
    uid: int
    gid: int
    groups: tuple[int, ...] = ()


def peer_of(sock: socket.socket) -> Peer:
    """The credentials of ``sock``'s peer, taken when it connected; its groups when the kernel
    can say them (``SO_PEERGROUPS``), else none (its primary group still counts)."""
    size = struct.calcsize("3i")
    pid, uid, gid = struct.unpack("iII", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, size))
    groups: tuple[int, ...] = ()
    for count in (64, 65536):  # NGROUPS_MAX is 65536; most accounts have a handful
        try:
            raw = sock.getsockopt(socket.SOL_SOCKET, SO_PEERGROUPS, 4 * count)
        except OSError as exc:
            if exc.errno == errno.ERANGE:
                continue
            break
        groups = struct.unpack(f"{len(raw) // 4}I", raw[:len(raw) // 4 * 4])
        break
    return Peer(pid, uid, gid, groups)


@dataclass(frozen=True)
class Allow:
    """Who may use the socket: root, the daemon's own user, and the members of ``group``.

    >>> a = Allow(own_uid=999, group=4242, group_name="floor")
    >>> [a.admits(Peer(1, uid, gid, groups)) for uid, gid, groups in
    ...  [(0, 0, ()), (999, 999, ()), (1000, 1000, (4242,)), (1001, 4242, ()), (1002, 1002, (27,))]]
    [True, True, True, True, False]
    >>> a.describe()
    'root, uid 999 (the daemon), group floor'
    """

    own_uid: int
    group: int | None = None
    group_name: str | None = None

    def admits(self, peer: Peer) -> bool:
        if peer.uid in (0, self.own_uid):
            return True
        return self.group is not None and (peer.gid == self.group or self.group in peer.groups)

    def describe(self) -> str:
        group = f", group {self.group_name}" if self.group is not None else ""
        return f"root, uid {self.own_uid} (the daemon){group}"


@dataclass
class PressLimit:
    """At most ``rate`` presses in any second per uid; ``exempt`` uids are not counted.

    >>> now = [0.0]
    >>> limit = PressLimit(rate=2, clock=lambda: now[0])
    >>> [limit.take(1000) for _ in range(3)], limit.take(1001)
    ([True, True, False], True)
    >>> now[0] = 1.01
    >>> limit.take(1000)
    True
    """

    rate: int = PRESSES_PER_SECOND
    exempt: frozenset[int] = frozenset()
    clock: Callable[[], float] = time.monotonic
    _given: dict[int, deque[float]] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def take(self, uid: int) -> bool:
        """Count one press by ``uid``: False (and not counted) if it is one too many."""
        if uid in self.exempt:
            return True
        with self._lock:
            now = self.clock()
            given = self._given.setdefault(uid, deque())
            while given and given[0] <= now - 1.0:
                given.popleft()
            if len(given) >= self.rate:
                return False
            given.append(now)
            return True


# -- the server --------------------------------------------------------------------------------

@dataclass(eq=False)
class _Conn:
    sock: socket.socket
    peer: Peer
    last: float  # monotonic time of its last request (or of its connection)
    busy: bool = False  # answering a request: not closed to make room
    evicted: bool = False
    thread: threading.Thread | None = None


#: the longest path a Unix socket can be bound at (Linux's sun_path: 108 bytes with its NUL)
MAX_SOCKET_PATH = 107


class ControlServer:
    """The control socket's listener and its connections (see the module for the limits).

    ``submit`` takes the events (journalled there); ``status`` answers ``ping``; ``press``, if
    given, is tried first for a press: the dealer's console on mock pins gives it through its
    pins (and says True); otherwise the press is submitted as it is. ``refused`` counts what was
    refused, by kind (``peer``, ``oversize``, ``idle``, ``busy``, ``rate``, ``request``).
    """

    def __init__(self, path: str, submit: Callable[[Event], None], status: Callable[[], dict], *,
                 press: Callable[[ButtonPress], bool] | None = None, config: ControlConfig | None = None,
                 max_connections: int = MAX_CONNECTIONS, clock: Callable[[], float] = time.time) -> None:
        cfg = config if config is not None else ControlConfig()
        self.clock = clock  # stamps the events it makes (the daemon's wall clock)
        self.path = path
        self._submit, self._status, self._press = submit, status, press
        own = os.geteuid()
        self.allow = Allow(own, cfg.group, cfg.group_name)
        # The daemon's own uid is not counted: it is the service user the simulator and the
        # daemon's own tools run as, and it can rewrite the journal anyway; the limit is for the
        # floor's accounts (the group), whose client could stick or loop.
        self.limit = PressLimit(PRESSES_PER_SECOND, exempt=frozenset({own}))
        self.manifests = cfg.manifests
        self.idle_timeout = cfg.idle_timeout
        self.max_connections = max_connections
        self.refused: Counter[str] = Counter()
        self._conns: set[_Conn] = set()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._warn = LogLimiter(log, prefix="control: ")  # a peer refused a thousand times a second
        # must not flood the technician's log: one line per kind, then a count a minute
        if len(os.fsencode(path)) > MAX_SOCKET_PATH:  # (bind() would say only "None")
            raise OSError(errno.ENAMETOOLONG, f"a Unix socket's path is at most {MAX_SOCKET_PATH} bytes, this one "
                          f"has {len(os.fsencode(path))}: give [outputs] control a shorter one", path)
        _clear_stale(path)
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.bind(path)
        except OSError as exc:  # bind() does not say where; we do
            sock.close()
            raise OSError(exc.errno, exc.strerror, path) from exc
        try:
            # mode and group before listen(): nobody can connect before they are right
            os.chmod(path, 0o660)
            # Given to the group only when it is not its group already: the shipped unit's group
            # (tablectl) is the daemon's own, which the socket is made with, and the unit's
            # SystemCallFilter=~@privileged refuses chown (@chown) with EPERM: asked for anyway,
            # the service never started under systemd (rig/install_container.py found it).
            if cfg.group is not None and os.stat(path).st_gid != cfg.group:
                try:
                    os.chown(path, -1, cfg.group)
                except OSError as exc:
                    raise OSError(exc.errno, f"cannot give it to group {cfg.group_name}: {exc.strerror} (the "
                                  f"daemon's user must be a member of it: SupplementaryGroups= in the unit; "
                                  f"under the shipped unit, whose system call filter refuses chown, it must be "
                                  f"the unit's Group=)", path) from exc
            sock.listen(BACKLOG)
        except OSError:
            sock.close()
            os.unlink(path)
            raise
        self._ino = os.stat(path).st_ino
        self._sock = sock
        self._thread = threading.Thread(target=self._accept_loop, name="control", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def close(self) -> None:
        self._stopping.set()
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # wakes accept()
        except OSError:
            pass
        self._sock.close()
        if self._thread.is_alive():
            self._thread.join(2.0)
        with self._lock:
            for conn in self._conns:
                _shutdown(conn.sock)
            self._conns.clear()
        try:  # only our own socket: another daemon may have taken the path since
            if os.stat(self.path).st_ino == self._ino:
                os.unlink(self.path)
        except OSError:
            pass

    # -- connections -------------------------------------------------------------------------
    def _accept_loop(self) -> None:
        while not self._stopping.is_set():
            try:
                sock, _ = self._sock.accept()
            except OSError as exc:
                if self._stopping.is_set():
                    return
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self._warn.note("failed accepts", "control: cannot accept a connection: %s", exc.strerror)
                    self._stopping.wait(0.1)  # not a busy loop while the process is out of files
                continue
            try:
                self._admit(sock)
            except Exception:  # one connection must never stop the listener
                log.exception("control: a connection failed on arrival; the socket carries on")
                _shutdown(sock)
                sock.close()

    def _admit(self, sock: socket.socket) -> None:
        peer = peer_of(sock)
        if not self.allow.admits(peer):
            self.refused["peer"] += 1
            self._warn.note("peers refused", "control: refused uid %d (pid %d): only %s may use %s",
                            peer.uid, peer.pid, self.allow.describe(), self.path)
            _refuse(sock, f"uid {peer.uid} may not use this socket (allowed: {self.allow.describe()})")
            return
        victim = None
        with self._lock:
            if len(self._conns) >= self.max_connections:
                idle = [c for c in self._conns if not c.busy]
                if not idle:
                    self.refused["busy"] += 1
                    self._warn.note("connections refused (all busy)",
                                    "control: %d connections all busy; one refused", self.max_connections)
                    _refuse(sock, f"busy: {self.max_connections} connections are being answered; try again")
                    return
                victim = min(idle, key=lambda c: c.last)
                victim.evicted = True
                self._conns.discard(victim)
                self.refused["evicted"] += 1
                self._warn.note("idle connections closed to make room", "control: %d connections open; the "
                                "one idle longest (uid %d) closed to make room", self.max_connections,
                                victim.peer.uid)
                try:
                    victim.sock.shutdown(socket.SHUT_RD)  # its thread wakes, says so and closes it
                except OSError:
                    pass
        if victim is not None and victim.thread is not None:
            # Its thread ends before the next starts: threads stay within max_connections, and
            # a flood of connections waits in the backlog instead of in threads
            victim.thread.join(1.0)
        conn = _Conn(sock, peer, time.monotonic())
        conn.thread = threading.Thread(target=self._serve, args=(conn,), name=f"control-{peer.uid}", daemon=True)
        with self._lock:  # (only this thread adds: the count can only have dropped meanwhile)
            self._conns.add(conn)
        conn.thread.start()

    def _serve(self, conn: _Conn) -> None:
        sock = conn.sock
        buf = bytearray()
        try:
            while not self._stopping.is_set():
                line = self._read_line(conn, buf)
                if line is None:
                    return
                conn.busy = True
                answer = self.answer(line, conn.peer)
                conn.busy = False
                conn.last = time.monotonic()
                sock.settimeout(self.idle_timeout)  # a client that never reads is not waited for
                sock.sendall((json.dumps(answer) + "\n").encode())
        except OSError:
            pass  # the client went away, or would not read its answer
        finally:
            with self._lock:
                self._conns.discard(conn)
            _shutdown(sock)
            sock.close()

    def _read_line(self, conn: _Conn, buf: bytearray) -> bytes | None:
        """The next request line, or None once the connection is to close (having said why).
        Reads no more than :data:`MAX_LINE` bytes past the last request, so that a line without
        end costs at most that much memory."""
        sock = conn.sock
        deadline = conn.last + self.idle_timeout
        while True:
            end = buf.find(b"\n")
            if end >= 0:
                line = bytes(buf[:end])
                del buf[:end + 1]
                return line
            if len(buf) > MAX_LINE:
                self.refused["oversize"] += 1
                self._warn.note("oversize requests", "control: uid %d sent a request longer than %d bytes; "
                                "closed", conn.peer.uid, MAX_LINE)
                _refuse(sock, f"a request is one line of at most {MAX_LINE} bytes; connection closed")
                return None
            left = deadline - time.monotonic()
            if left <= 0:
                self.refused["idle"] += 1
                _refuse(sock, f"no request for {self.idle_timeout:g} s; connection closed")
                return None
            sock.settimeout(left)
            try:
                chunk = sock.recv(MAX_LINE + 1 - len(buf))
            except TimeoutError:
                continue
            if not chunk:
                if conn.evicted:
                    _refuse(sock, f"closed to make room: more than {self.max_connections} connections")
                    return None
                if buf:  # a last request without its newline
                    line = bytes(buf)
                    buf.clear()
                    return line
                return None
            buf += chunk

    def answer(self, line: bytes, peer: Peer) -> dict[str, Any]:
        """The answer to one request line from ``peer`` (what it does, it has done)."""
        try:
            req = parse_request(line)
            if isinstance(req, dict) and req.get("cmd") == "ping":
                _fields(req, "ping", _FIELDS["ping"])
                return {"ok": True, **self._status(), "refused": dict(self.refused)}
            event = request_to_event(req, now=self.clock(), peer_uid=peer.uid, manifests=self.manifests)
            if isinstance(event, ButtonPress):
                if not self.limit.take(peer.uid):
                    self.refused["rate"] += 1
                    self._warn.note("presses refused (over the rate)", "control: uid %d pressed more than %d "
                                    "times a second; refused", peer.uid, PRESSES_PER_SECOND)
                    return {"ok": False, "error": f"press: refused: more than {PRESSES_PER_SECOND} presses a "
                                                  f"second from uid {peer.uid} (a dealer presses a few a "
                                                  f"second at most); wait a second"}
                if self._press is not None and self._press(event):
                    return {"ok": True}
            else:
                log.info("control: uid %d (pid %d): %s", peer.uid, peer.pid, _summary(event))
            self._submit(event)
            return {"ok": True}
        except ValueError as exc:
            self.refused["request"] += 1
            return {"ok": False, "error": str(exc)}
        except Exception:  # a bug must cost one answer, not the connection or the daemon
            log.exception("control: failed answering uid %d", peer.uid)
            return {"ok": False, "error": "the daemon failed on this request (its log says why)"}


def _summary(event: Event) -> str:
    """What a command did, for the log (never a card or a tag)."""
    if isinstance(event, DeckSetup):
        return f"new decks {', '.join(d[0] for d in event.decks)}, {event.in_play} in play"
    if isinstance(event, TableSetup):
        return f"seats {list(event.seats)}" + (f", button {event.button}" if event.button is not None else "")
    if isinstance(event, DealerNamed):
        return f"dealer {event.name!r}" + (" from the next relief" if event.at_relief else "")
    return type(event).__name__


def _clear_stale(path: str) -> None:
    """Remove a socket left by an earlier run; refuse to remove anything else there."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(st.st_mode):
        raise OSError(errno.EEXIST, "something that is not a socket is there; not removed (is "
                                    "[outputs] control the right path?)", path)
    os.unlink(path)


def _refuse(sock: socket.socket, error: str) -> None:
    """One refusal line, if the client will take it now, and the connection closed."""
    try:
        sock.setblocking(False)
        sock.send((json.dumps({"ok": False, "error": error}) + "\n").encode())
    except OSError:
        pass
    _shutdown(sock)
    sock.close()


def _shutdown(sock: socket.socket) -> None:
    try:
        sock.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass


def send(path: str, request: dict, timeout: float = 5.0) -> dict:
    """One request to a running daemon's control socket."""
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(timeout)
        while True:
            try:
                s.connect(path)
                break
            except BlockingIOError:  # its backlog is full (a flood of connections): it drains as the
                if time.monotonic() >= deadline:  # daemon accepts, and refuses or closes them
                    raise TimeoutError(f"{path}: the daemon accepts no connection") from None
                time.sleep(0.01)
        try:
            s.sendall((json.dumps(request) + "\n").encode())
        except (BrokenPipeError, ConnectionResetError):
            pass  # it hung up before reading (a refusal): its one line is still there to read
        buf = b""
        while not buf.endswith(b"\n"):
            try:
                chunk = s.recv(4096)
            except ConnectionResetError:
                if buf:
                    break
                raise
            if not chunk:
                break
            buf += chunk
    return json.loads(buf or b"{}")
