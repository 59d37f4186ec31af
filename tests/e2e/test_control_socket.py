"""The control socket as an attacker or a careless technician would use it (issue 12).

One daemon runs as a real subprocess (``tablectl run``) for the whole module, with a journal and
``[control]`` set: the floor group is gid 65533, the manifests folder is ``manifests/``, and the
idle timeout is one second so that the idle probes are quick. The suite runs as root in CI, and
root ignores file modes, so every probe about another user runs its client as uid 65534
(``setpriv``), in a folder that uid can reach, with the interpreter and the code that uid can read
(rig/other_user.py: the clone may be in a 0700 folder). A thread samples the daemon's resident memory
all along; it must stay under 60 MB whatever is sent (the last test checks the whole run).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import tempfile
import threading
from collections import Counter
from pathlib import Path

import pytest

from controller.config.daemon import ConfigError, parse_config
from controller.daemon.control import MAX_CONNECTIONS, send
from hw_sim.decks import manifest_text
from tests.conftest import TABLECTL
from rig.other_user import NOBODY, OtherUserCode
from rig.waiting import wait_until
FLOODER = 65532  # another one, in the floor group, that presses too fast
FLOOR_GID = 65533  # the configured [control] group: nobody is made a member of it where a probe says so
MEMORY_LIMIT_KB = 60 * 1024
IDLE = 1.0  # [control] idle_timeout of the module's daemon, in seconds

#: refusals the clients saw, by probe: the figure for the closing note (printed by the last test)
SEEN_REFUSED: Counter[str] = Counter()

# A client with nothing but the standard library, run as another uid: it sends its payload and
# prints the answers it read before the daemon closed the connection (or the error it met).
CLIENT = r"""
import json, socket, sys
path, payload, expect = sys.argv[1], sys.argv[2].encode(), int(sys.argv[3])
try:
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(path)
    try:
        s.sendall(payload)
    except (BrokenPipeError, ConnectionResetError):
        pass  # hung up before it had it all: what it said is still to be read
    buf = b""
    while buf.count(b"\n") < expect:
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:  # hung up on what was still unread: closed as well
            break
        if not chunk:
            break
        buf += chunk
except OSError as exc:
    print(json.dumps({"error": type(exc).__name__}))
else:
    print(json.dumps({"answers": [json.loads(line) for line in buf.splitlines()]}))
"""


class DaemonUnderTest:
    def __init__(self, folder: Path, others: OtherUserCode) -> None:
        self.folder = folder
        self.others = others  # what the probes run as another uid (the daemon itself runs as root)
        self.sock = str(folder / "control.sock")
        self.journal = folder / "journal.sqlite3"
        self.log_path = folder / "daemon.log"
        self.peak_kb = 0
        self.peak_threads = 0
        self.samples = 0
        self._stop = threading.Event()
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        env.pop("NOTIFY_SOCKET", None)
        with open(self.log_path, "w") as log:
            self.proc = subprocess.Popen([*TABLECTL, "run", "--config", str(self.folder / "tablectl.toml")],
                                         stdout=log, stderr=subprocess.STDOUT, env=env)
        wait_until(lambda: self.proc.poll() is not None or os.path.exists(self.sock), 30,
                   what="the daemon's control socket")
        assert self.proc.poll() is None, self.log()
        # (the reader's thread runs once it has opened its port; "ready" would wait 5 s for a reader
        # that never answers on loop://)
        wait_until(lambda: "reader: opened" in self.log() or self.proc.poll() is not None, 30,
                   what="the daemon's reader thread")
        self.baseline_threads = self.status_field("Threads")  # the main loop, the reader, the listener
        threading.Thread(target=self._sample, daemon=True).start()

    def status_field(self, name: str) -> int:
        assert self.proc is not None
        for line in Path(f"/proc/{self.proc.pid}/status").read_text().splitlines():
            if line.startswith(name + ":"):
                return int(line.split()[1])
        raise AssertionError(f"no {name} in /proc/PID/status")

    def _sample(self) -> None:
        while not self._stop.wait(0.005):
            try:
                self.peak_kb = max(self.peak_kb, self.status_field("VmRSS"))
                self.peak_threads = max(self.peak_threads, self.status_field("Threads"))
                self.samples += 1
            except (OSError, AssertionError):
                return  # the process is gone (the tests say so)

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def ping(self) -> dict:
        answer = send(self.sock, {"cmd": "ping"})
        assert answer["ok"], answer
        return answer

    def log(self) -> str:
        return self.log_path.read_text()

    def journalled(self, kind: str) -> list[dict]:
        """The events of type ``kind`` in the daemon's journal, read as SQLite reads it."""
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            rows = db.execute("SELECT data FROM events WHERE type = ? ORDER BY id", (kind,)).fetchall()
        finally:
            db.close()
        return [json.loads(r[0]) for r in rows]

    def journalled_uids(self, kind: str) -> list[int | None]:
        """The journal's ``peer_uid`` column of the events of type ``kind``."""
        db = sqlite3.connect(f"file:{self.journal}?mode=ro", uri=True)
        try:
            return [r[0] for r in db.execute("SELECT peer_uid FROM events WHERE type = ? ORDER BY id", (kind,))]
        finally:
            db.close()

    def stop(self) -> None:
        self._stop.set()
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture(scope="module")
def daemon(other_user_code):
    # /tmp itself, not pytest's folders (0700 root): uid 65534 must be able to reach the socket
    folder = Path(tempfile.mkdtemp(prefix="tablectl-control-", dir="/tmp"))
    folder.chmod(0o755)
    (folder / "A.txt").write_text(manifest_text("A"))
    (folder / "B.txt").write_text(manifest_text("B"))
    (folder / "manifests").mkdir()
    (folder / "tablectl.toml").write_text(f"""
[reader]
port = "loop://"
[[decks]]
id = "A"
back = "red"
manifest = "A.txt"
[[decks]]
id = "B"
back = "blue"
manifest = "B.txt"
[journal]
path = "journal.sqlite3"
[outputs]
control = "control.sock"
[control]
group = {FLOOR_GID}
manifests = "manifests"
idle_timeout = {IDLE}
""")
    d = DaemonUnderTest(folder, other_user_code)
    try:
        d.start()
        yield d
    finally:
        d.stop()
        shutil.rmtree(folder, ignore_errors=True)


def as_user(d: DaemonUnderTest, payload: bytes, *, expect: int = 1, groups: tuple[int, ...] = (),
            uid: int = NOBODY, gid: int = NOBODY) -> dict:
    """Run the client as ``uid`` (primary group ``gid``, supplementary ``groups``)."""
    r = subprocess.run(d.others.command("-c", CLIENT, d.sock, payload.decode("latin-1"), str(expect), uid=uid,
                                        gid=gid, groups=groups),
                       capture_output=True, text=True, timeout=60, cwd="/", check=False,
                       env={"PATH": os.environ.get("PATH", "")})
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def lines(*requests: dict | bytes) -> bytes:
    return b"".join((r if isinstance(r, bytes) else json.dumps(r).encode()) + b"\n" for r in requests)


def ask(d: DaemonUnderTest, *requests: dict | bytes) -> list[dict]:
    """Send requests over one connection, as root (the daemon's own uid here); their answers."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(d.sock)
        s.sendall(lines(*requests))
        buf = b""
        while buf.count(b"\n") < len(requests):
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
    return [json.loads(line) for line in buf.splitlines()]


def closed(s: socket.socket) -> bool:
    """Whether the daemon has hung up (a reset, when it left part of the request unread)."""
    try:
        return s.recv(1) == b""
    except ConnectionResetError:
        return True


def refused(answers: list[dict], probe: str) -> list[str]:
    errors = [a["error"] for a in answers if not a.get("ok")]
    SEEN_REFUSED[probe] += len(errors)
    return errors


# -- who may connect ---------------------------------------------------------------------------

def test_the_socket_is_0660_and_given_to_the_configured_group(daemon):
    st = os.stat(daemon.sock)
    assert stat.S_ISSOCK(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o660 and st.st_gid == FLOOR_GID


def test_another_user_is_refused_even_when_the_socket_mode_lets_it_in(daemon):
    ping = lines({"cmd": "ping"})
    # As the daemon leaves it: the file mode keeps uid 65534 out.
    assert as_user(daemon, ping) == {"error": "PermissionError"}
    SEEN_REFUSED["another user (file mode)"] += 1
    # A careless technician opens the socket to everyone: the daemon's own check still refuses,
    # in one line, and hangs up (the client reads to the end of the connection).
    os.chmod(daemon.sock, 0o666)
    try:
        got = as_user(daemon, lines({"cmd": "ping"}, {"cmd": "press", "name": "misdeal", "long": True}), expect=1000)
        # and `tablectl doctor`, run by that user, says it was refused (not "not running")
        doctor = subprocess.run(
            daemon.others.command("-c", ("import sys; from controller.cli.doctor import check_daemon; "
                                         "print(check_daemon(sys.argv[1])[0][0].what)"), daemon.sock),
            capture_output=True, text=True, timeout=60, cwd="/", check=False,
            env={"PATH": os.environ.get("PATH", "")})
    finally:
        os.chmod(daemon.sock, 0o660)
    assert doctor.stdout.strip() == (f"daemon: running, but it refused doctor over {daemon.sock}: uid {NOBODY} may "
                                     f"not use this socket (allowed: root, uid 0 (the daemon), group {FLOOR_GID})"), \
        doctor.stderr
    assert [a["ok"] for a in got["answers"]] == [False]
    assert refused(got["answers"], "another user (peer credentials)") == [
        f"uid {NOBODY} may not use this socket (allowed: root, uid 0 (the daemon), group {FLOOR_GID})"]
    assert not [e for e in daemon.journalled("ButtonPress") if e.get("peer_uid") == NOBODY]


@pytest.mark.parametrize("how", ["supplementary", "primary"])
def test_a_member_of_the_configured_group_is_allowed(daemon, how):
    kwargs = {"groups": (FLOOR_GID,)} if how == "supplementary" else {"gid": FLOOR_GID}
    got = as_user(daemon, lines({"cmd": "ping"}), **kwargs)
    assert got["answers"][0]["ok"] and "online" in got["answers"][0]


def test_every_command_is_journalled_with_its_peer_uid(daemon):
    before = len(daemon.journalled("TableSetup"))
    got = as_user(daemon, lines({"cmd": "press", "name": "ack"}), groups=(FLOOR_GID,))
    assert got["answers"] == [{"ok": True}]
    assert ask(daemon, {"cmd": "setup", "seats": [1, 2, 3], "button": 2}) == [{"ok": True}]
    wait_until(lambda: len(daemon.journalled("TableSetup")) > before, what="the setup in the journal")
    presses = [e for e in daemon.journalled("ButtonPress") if e["name"] == "ack"]
    assert presses and presses[-1]["peer_uid"] == NOBODY
    setup = daemon.journalled("TableSetup")[-1]
    assert {k: v for k, v in setup.items() if k != "ts"} == {"type": "TableSetup", "seats": [1, 2, 3], "button": 2,
                                                            "peer_uid": 0}
    # the journal's own column says it too (who gave a command is queried without decoding rows)
    assert daemon.journalled_uids("TableSetup")[-1] == 0
    assert NOBODY in daemon.journalled_uids("ButtonPress")
    # who deals (RELIEF-003): the name as the records keep it, with who named them
    assert ask(daemon, {"cmd": "dealer", "name": " Ann  Lee ", "at_relief": True}) == [{"ok": True}]
    wait_until(lambda: daemon.journalled("DealerNamed"), what="the dealer in the journal")
    named = daemon.journalled("DealerNamed")[-1]
    assert {k: v for k, v in named.items() if k != "ts"} == {"type": "DealerNamed", "name": "Ann Lee",
                                                            "at_relief": True, "peer_uid": 0}


# -- what a request may be ---------------------------------------------------------------------

BAD_REQUESTS = [
    ({"cmd": "press", "name": "misdeal", "long": "false"}, "press: 'long' must be true or false, got 'false'"),
    ({"cmd": "press", "name": "misdeal", "long": 1}, "press: 'long' must be true or false, got 1"),
    ({"cmd": "press", "name": "seat_out", "seat": True}, "press: 'seat' must be a whole number 1 to 10, got True"),
    ({"cmd": "press", "name": "seat_out", "seat": 4.0}, "press: 'seat' must be a whole number 1 to 10, got 4.0"),
    ({"cmd": "press", "name": "seat_out", "seat": "4"}, "press: 'seat' must be a whole number 1 to 10, got '4'"),
    ({"cmd": "press", "name": "seat_penalty", "seat": 2, "hands": 10**6},
     "press: 'hands' must be a whole number 1 to 99, got 1000000"),
    ({"cmd": "press", "name": ""}, "press: 'name' must be a word of 1 to 64 printable characters, got ''"),
    ({"cmd": "press", "name": "x" * 70_000}, None),  # longer than a request may be: closed, below
    ({"cmd": "press", "name": "ack" * 30}, "press: 'name' must be a word of 1 to 64 printable characters"),
    ({"cmd": "press", "name": ["ack"]}, "press: 'name' must be a word"),
    ({"cmd": "setup", "seats": [1, True]}, "setup: 'seats' must list at least two different seats 1 to 10"),
    ({"cmd": "setup", "seats": [1, 2], "button": False}, "setup: 'button' must be a whole number 1 to 10, got False"),
    ({"cmd": "press", "name": "ack", "colour": "red"},
     "press: unknown field 'colour' (fields: hands, long, mode, name, reason, seat)"),
    ({"cmd": "ping", "verbose": True}, "ping: unknown field 'verbose' (fields: none)"),
    ({"cmd": "decks", "decks": [{"id": "C", "back": "green", "manifest": "C.txt", "owner": "me"}], "in_play": "C"},
     "decks: a deck: unknown field 'owner' (fields: back, id, manifest)"),
    ({"cmd": True}, "unknown command True (commands: ping, setup, press, decks, dealer, approve)"),
    ({"cmd": "shutdown"}, "unknown command 'shutdown' (commands: ping, setup, press, decks, dealer, approve)"),
    ({"cmd": "approve", "seat": 3}, "approve: unknown field 'seat' (fields: none)"),  # FLOW-007: no field
    # who deals (RELIEF-003): a name every record can keep, or refused saying what is wrong
    ({"cmd": "dealer"}, "dealer: 'name' is required: the dealer's name (RELIEF-003)"),
    ({"cmd": "dealer", "name": ""}, "dealer: the name is empty"),
    ({"cmd": "dealer", "name": "Ann\nLee"}, "dealer: the name must hold printable characters only"),
    ({"cmd": "dealer", "name": "\u001b[2J"}, "dealer: the name must hold printable characters only"),
    ({"cmd": "dealer", "name": "A" * 65}, "dealer: the name must be at most 64 characters, got 65"),
    ({"cmd": "dealer", "name": ["Ann"]}, "dealer: the name must be text, got list"),
    ({"cmd": "dealer", "name": "Ann", "at_relief": "yes"}, "dealer: 'at_relief' must be true or false, got 'yes'"),
    ({"cmd": "dealer", "name": "Ann", "badge": 4021}, "dealer: unknown field 'badge' (fields: at_relief, name)"),
    ({}, "unknown command None"),
    (b"[" * 60_000 + b"]" * 60_000, None),  # too long as well
    (b"[" * 30_000 + b"]" * 30_000, "not a request: nested too deeply"),
    (b'{"cmd": "press", "name": "seat_penalty", "seat": 2, "hands": ' + b"9" * 5000 + b"}",
     "not a request: a number of more than 20 digits"),
    (b'{"cmd": "press", "name": "seat_out", "seat": 1e999}', "press: 'seat' must be a whole number 1 to 10, got inf"),
    (b'{"cmd": "press", "name": "seat_out", "seat": NaN}', "not a request: NaN is not a number a request may hold"),
    (b'{"cmd": "press", "name": "ack", "long": true, "long": false}', "not a request: field 'long' given twice"),
    (b'{"cmd": "ping"', "not a request: not JSON: Expecting ',' delimiter at column 15"),
    (b'\xff\xfe{"cmd": "ping"}', "not a request: not UTF-8 text (byte 0)"),
    (b'["cmd", "ping"]', 'a request is a JSON object, e.g. {"cmd": "ping"}'),
]


def test_wrong_types_unknown_fields_and_parse_bombs_are_refused_naming_them(daemon):
    probes = [(r, e) for r, e in BAD_REQUESTS if e is not None]
    before = {k: len(daemon.journalled(k)) for k in ("ButtonPress", "TableSetup", "DeckSetup", "DealerNamed")}
    answers = ask(daemon, *(r for r, _ in probes), {"cmd": "ping"})
    errors = refused(answers[:-1], "wrong types, unknown fields, parse bombs")
    assert len(errors) == len(probes)  # every one refused, and the connection still answers
    for (request, expected), error in zip(probes, errors, strict=True):
        assert error.startswith(expected), (request if isinstance(request, dict) else request[:60], error)
    assert answers[-1]["ok"]
    assert {k: len(daemon.journalled(k)) for k in before} == before  # nothing refused reached the table
    assert "Traceback" not in daemon.log()


@pytest.mark.parametrize("request_", [r for r, e in BAD_REQUESTS if e is None], ids=["long-name", "long-nesting"])
def test_a_request_over_64_KiB_is_refused_and_its_connection_closed(daemon, request_):
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(daemon.sock)
        try:
            s.sendall(lines(request_))
        except OSError:
            pass  # the daemon hung up before taking it all: as it should
        got = s.recv(65536)
        assert closed(s)
    assert refused([json.loads(got)], "request over 64 KiB") == [
        "a request is one line of at most 65536 bytes; connection closed"]


def test_an_endless_line_does_not_grow_the_daemon(daemon):
    """300 MiB took the daemon to 880 MiB: 100 MiB without a newline must not be buffered."""
    sent, cut = 0, None
    chunk = b"x" * 65536
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(10)
        s.connect(daemon.sock)
        try:
            while sent < 100 * 2**20:
                s.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError) as exc:
            cut = exc
        answer = s.recv(65536)
    assert cut is not None, "the daemon took 100 MiB of one line"
    assert sent < 8 * 2**20  # the request limit and the socket's buffers, no more
    assert refused([json.loads(answer)], "endless line") == [
        "a request is one line of at most 65536 bytes; connection closed"]
    assert daemon.alive() and daemon.peak_kb < MEMORY_LIMIT_KB, daemon.peak_kb


# -- manifests ---------------------------------------------------------------------------------

def test_manifests_are_read_only_from_the_folder_by_name(daemon):
    folder = daemon.folder / "manifests"
    secret = "TABLECTL_SECRET=hunter2"
    (folder / "C.txt").write_text(manifest_text("B"))
    (folder / "leak.txt").write_text(f"{secret}\n")  # as /proc/self/environ's first line was echoed
    (folder / "uid.txt").write_text("E0040150A05F0000 As\nE0040150A05F0000 Ks\n")
    (folder / "latin.txt").write_bytes(b"E0040150A05F0000 As \xe9\n")
    (folder / "escape.txt").symlink_to(daemon.folder / "A.txt")  # a symlink out of the folder
    (folder / "inside.txt").symlink_to("C.txt")  # even one that stays in it
    os.mkfifo(folder / "fifo.txt")  # would never end, as /dev/zero
    with open(folder / "huge.txt", "wb") as f:
        f.truncate(2**30)  # 1 GiB (sparse): never read
    (folder / "sub").mkdir()
    shutil.copy(folder / "C.txt", folder / "sub" / "C.txt")
    probes = {
        "/proc/self/environ": "decks: manifest '/proc/self/environ': give a file name in",
        "/dev/zero": "decks: manifest '/dev/zero': give a file name in",
        str(daemon.folder / "A.txt"): "decks: manifest '/tmp/tablectl-control-",
        "../A.txt": "decks: manifest '../A.txt': give a file name in",
        "..": "decks: manifest '..': give a file name in",
        "sub/C.txt": "decks: manifest 'sub/C.txt': give a file name in",
        "escape.txt": f"decks: manifest 'escape.txt' in {folder}: is a symbolic link",
        "inside.txt": f"decks: manifest 'inside.txt' in {folder}: is a symbolic link",
        "fifo.txt": f"decks: manifest 'fifo.txt' in {folder}: not a regular file",
        "sub": f"decks: manifest 'sub' in {folder}: not a regular file",
        "huge.txt": f"decks: manifest 'huge.txt' in {folder}: 1073741824 bytes; a manifest is at most 65536",
        "nowhere.txt": f"decks: manifest 'nowhere.txt' in {folder}: no such file",
        "leak.txt": "decks: leak.txt:1: want 'UID CARD' (two words), got 1",
        "uid.txt": "decks: uid.txt:2: a tag listed twice (first on line 1)",
        "latin.txt": f"decks: manifest 'latin.txt' in {folder}: not UTF-8 text (byte 20)",
        "": "decks: 'manifest' must be a file name in",
    }
    requests = [{"cmd": "decks", "decks": [{"id": "C", "back": "green", "manifest": name}], "in_play": "C"}
                for name in probes]
    answers = ask(daemon, *requests)
    errors = refused(answers, "manifests outside the folder, links, FIFOs, huge, leaks")
    assert len(errors) == len(probes)
    for (name, expected), error in zip(probes.items(), errors, strict=True):
        assert error.startswith(expected), (name, error)
        assert secret not in error and "hunter2" not in error and "E0040150A05F0000" not in error
    assert "hunter2" not in daemon.log() and "E0040150A05F0000" not in daemon.log()
    # and the good one, by its name, is taken
    assert ask(daemon, {"cmd": "decks", "decks": [{"id": "C", "back": "green", "manifest": "C.txt"}],
                        "in_play": "C"}) == [{"ok": True}]
    wait_until(lambda: daemon.journalled("DeckSetup"), what="the deck setup in the journal")
    setup = daemon.journalled("DeckSetup")[-1]
    assert setup["in_play"] == "C" and setup["peer_uid"] == 0 and len(setup["decks"][0][2]) == 52


# -- floods ------------------------------------------------------------------------------------

def test_a_flood_of_presses_is_refused_past_20_a_second(daemon):
    before = sum(1 for e in daemon.journalled("ButtonPress") if e.get("peer_uid") == FLOODER)
    flood = lines(*[{"cmd": "press", "name": "ack"}] * 60)
    answers = as_user(daemon, flood, expect=60, uid=FLOODER, groups=(FLOOR_GID,))["answers"]
    assert len(answers) == 60
    assert all(a["ok"] for a in answers[:20]), answers[:21]  # 20 in any second are a dealer's right
    errors = refused(answers, "press flood")
    assert errors
    assert set(errors) == {(f"press: refused: more than 20 presses a second from uid {FLOODER} (a dealer "
                            f"presses a few a second at most); wait a second")}
    accepted = sum(a["ok"] for a in answers)
    # only what was accepted is journalled (and so reached the table)
    wait_until(lambda: sum(1 for e in daemon.journalled("ButtonPress") if e.get("peer_uid") == FLOODER)
               == before + accepted, what="the accepted presses in the journal")
    # the limit is the flooder's: another dealer's press still goes through
    assert as_user(daemon, lines({"cmd": "press", "name": "ack"}), groups=(FLOOR_GID,))["answers"] == [{"ok": True}]


def test_the_daemons_own_uid_is_not_rate_limited(daemon):
    """The simulator and the daemon's tools run as the daemon's user (root here)."""
    answers = ask(daemon, *[{"cmd": "press", "name": "ack"}] * 60)
    assert answers == [{"ok": True}] * 60


def test_idle_connections_cannot_exhaust_the_daemon(daemon):
    """About 230 idle connections used to exhaust its threads."""
    refused_before = daemon.ping()["refused"]
    idle = []
    try:
        for _ in range(300):
            s = socket.socket(socket.AF_UNIX)
            idle.append(s)
            s.connect(daemon.sock)  # (blocking: waits while the daemon's backlog is full)
            s.settimeout(10)
        slow = idle[-1]
        slow.sendall(b'{"cmd": "pi')  # and one that never finishes its request
        answer = daemon.ping()  # a new client is still answered (accepted after all 300)
        assert answer["refused"].get("evicted", 0) - refused_before.get("evicted", 0) >= 300 + 1 - MAX_CONNECTIONS
        said = []
        for s in idle:  # each is closed, with one line saying why
            buf = b""
            while chunk := s.recv(4096):
                buf += chunk
            said.append(json.loads(buf)["error"])
    finally:
        for s in idle:
            s.close()
    kinds = Counter("room" if e.startswith("closed to make room") else "idle" if e.startswith("no request for")
                    else e for e in said)
    SEEN_REFUSED["idle connections"] += len(said)
    assert set(kinds) <= {"room", "idle"} and kinds["idle"] <= MAX_CONNECTIONS, kinds
    assert said[-1] == f"no request for {IDLE:g} s; connection closed"  # the newest: not made room for
    # a thread per connection kept (and one or two ending: a connection leaves the count just
    # before its thread exits), not one per connection made; all gone once they are closed
    assert daemon.peak_threads <= daemon.baseline_threads + MAX_CONNECTIONS + 2, daemon.peak_threads
    wait_until(lambda: daemon.status_field("Threads") <= daemon.baseline_threads, what="the threads to end")
    assert daemon.alive() and daemon.peak_kb < MEMORY_LIMIT_KB


# -- the whole run -----------------------------------------------------------------------------

def test_the_daemon_lived_through_every_probe_in_under_60_MB(daemon):
    answer = daemon.ping()
    assert daemon.alive() and daemon.samples > 0
    assert daemon.peak_kb < MEMORY_LIMIT_KB, f"{daemon.peak_kb} kB"
    assert "Traceback" not in daemon.log()
    print(f"\ncontrol socket: probes refused (as the clients saw them): {sum(SEEN_REFUSED.values())} "
          f"{dict(SEEN_REFUSED)}; by the daemon's count: {answer['refused']}; "
          f"peak memory {daemon.peak_kb / 1024:.1f} MB over {daemon.samples} samples")


# -- the configuration -------------------------------------------------------------------------

def _config(tmp_path: Path, control: str):
    return parse_config(f'[reader]\nport = "loop://"\n[control]\n{control}\n', path=tmp_path / "t.toml")


def test_the_control_section_is_read(tmp_path):
    (tmp_path / "decks").mkdir()
    c = _config(tmp_path, 'group = "root"\nmanifests = "decks"\nidle_timeout = 5').control
    assert (c.group, c.group_name, c.manifests, c.idle_timeout) == (0, "root", str(tmp_path / "decks"), 5.0)
    assert _config(tmp_path, "").control.group is None  # by default: root and the daemon's user only


@pytest.mark.parametrize("control,error", [
    ('group = "no-such-group-tablectl"', "[control] group: no group 'no-such-group-tablectl' on this system"),
    ("group = true",
     "[control] group = true: must be a whole number from 0 to 4294967294 (a group number), or a group name"),
    ("group = -1", "[control] group = -1: must be a whole number from 0 to 4294967294"),
    ('manifests = "nowhere"', "is not a folder"),
    ('manifests = ""', "[control] manifests: want a folder, got an empty string"),
    ("idle_timeout = nan", "[control] idle_timeout = nan: must be a finite number from 0.1 to 3600 s"),
    ("idle_timeout = 0", "[control] idle_timeout = 0: must be a finite number from 0.1 to 3600 s"),
    ('idle_timeout = "30"', '[control] idle_timeout = "30": must be a finite number from 0.1 to 3600 s'),
    ("max_presses = 100", "[control] max_presses: unknown key"),
])
def test_a_bad_control_section_is_refused_naming_the_key(tmp_path, control, error):
    with pytest.raises(ConfigError) as exc:
        _config(tmp_path, control)
    assert error in str(exc.value)


# -- a press through the console's mock pins keeps its peer ------------------------------------

def test_a_press_given_through_the_mock_pins_is_journalled_with_the_peer_who_asked():
    """``tablectl simulate`` drives the console's mock pins: the press the pins give is a new
    event, and must still say who asked for it; a press of the pins themselves says nobody."""
    from controller.core.events import ButtonPress
    from controller.config.console import default_console
    from controller.daemon.console_sink import ConsoleSink

    cfg = parse_config('[reader]\nport = "loop://"\n' + default_console(pin_factory="mock", bounce_time=0.005),
                       path=Path("t.toml"))
    given: list = []
    sink = ConsoleSink(cfg.console, submit=given.append)
    sink.open()
    try:
        assert sink.drive(ButtonPress(1.0, "seat_out", seat=3, peer_uid=1234))
        sink.console.tap("round_done")  # the dealer's own finger
        wait_until(lambda: len(given) == 3, what="the second press")
    finally:
        sink.close()
    status, *presses = given  # (the console says it is online when it opens)
    assert (status.device, status.online) == ("console", True)
    assert [(p.name, p.seat, p.peer_uid) for p in presses] == [("seat_out", 3, 1234), ("round_done", None, None)]




def test_a_socket_path_too_long_for_unix_is_said_in_words(tmp_path):
    """Linux binds a Unix socket at 107 bytes of path at most; bind() itself would say "None"."""
    from controller.daemon.control import ControlServer

    path = str(tmp_path / ("x" * (120 - len(str(tmp_path)))) / "control.sock")
    with pytest.raises(OSError) as err:
        ControlServer(path, lambda e: None, dict)
    assert "at most 107 bytes" in str(err.value) and "[outputs] control" in str(err.value)
    assert err.value.filename == path
