"""A real mosquitto for the room link's tests, on a free loopback port, with its own config.

Run as the tests' own user: mosquitto started as root drops to user ``mosquitto`` unless its
config says ``user root`` (then it could not read the tests' 0600 files), so as root the config
says so. TLS certificates are made by :func:`make_pki` with the openssl command; passwords with
``mosquitto_passwd`` when the test asks for them. :class:`Subscriber` is a small paho client
that keeps what it receives, and dedupes by ``seq`` as the room's subscribers should.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from rig.waiting import wait_for, wait_until

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"


#: Debian's /etc/mosquitto/mosquitto.conf as its package (mosquitto 2.0.11-1.2, bookworm) ships it:
#: the main configuration that includes the shipped docs/room/mosquitto.conf from conf.d
DEBIAN_MAIN_CONF = """# Place your local configuration in /etc/mosquitto/conf.d/
#
# A full description of the configuration file is at
# /usr/share/doc/mosquitto/examples/mosquitto.conf.example

pid_file /run/mosquitto/mosquitto.pid

persistence true
persistence_location /var/lib/mosquitto/

log_dest file /var/log/mosquitto/mosquitto.log

include_dir /etc/mosquitto/conf.d
"""


def debian_layout(folder: Path, shipped: str) -> str:
    """The broker's configuration laid out as on a Debian broker's host, in ``folder``: Debian's
    main file (its paths in ``folder``; its log to the :class:`Broker`'s own) including
    ``folder/conf.d``, where ``shipped`` (docs/room/mosquitto.conf, its paths already the test's)
    lies as ``tablectl.conf``, as ``tablectl floor setup --mosquitto`` installs it. Returns the
    main file's text.

    >>> import tempfile
    >>> main = debian_layout(Path(tempfile.mkdtemp()), "allow_anonymous false\\n")
    >>> "include_dir" in main and "/var/lib/mosquitto" not in main
    True
    """
    conf_d = folder / "conf.d"
    conf_d.mkdir(parents=True, exist_ok=True)
    (conf_d / "tablectl.conf").write_text(shipped)
    main = DEBIAN_MAIN_CONF
    for old, new in (("/run/mosquitto/mosquitto.pid", str(folder / "mosquitto.pid")),
                     ("/var/lib/mosquitto/", f"{folder}/"), ("log_dest file /var/log/mosquitto/mosquitto.log\n", ""),
                     ("/etc/mosquitto/conf.d", str(conf_d))):
        assert old in main, old
        main = main.replace(old, new)
    return main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def have_mosquitto() -> bool:
    return os.path.exists(MOSQUITTO)


class Broker:
    """One mosquitto process; :meth:`start` and :meth:`stop` may be called again (an outage)."""

    def __init__(self, folder: Path, *, port: int | None = None, extra: str = "", tls_port: int | None = None,
                 persistence: bool = False, conf_text: str | None = None) -> None:
        """``persistence``: sessions and their queued messages survive a restart (saved on stop)."""
        self.folder = folder
        self.port = port or free_port()
        self.tls_port = tls_port
        self.extra = extra
        self.persistence = persistence
        self.conf_text = conf_text  # a whole config of the test's own (the shipped one, adapted)
        self.proc: subprocess.Popen[bytes] | None = None
        self.conf = folder / "mosquitto.conf"
        self.log = folder / "mosquitto.log"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def write_conf(self) -> None:
        if self.conf_text is not None:
            head = ("user root\n" if os.geteuid() == 0 else "") + f"log_dest file {self.log}\nlog_type all\n"
            self.conf.write_text(head + self.conf_text)
            return
        lines = [f"persistence {str(self.persistence).lower()}", f"persistence_location {self.folder}/",
                 f"log_dest file {self.log}", "log_type all", "allow_anonymous true",
                 f"listener {self.port} 127.0.0.1"]
        if os.geteuid() == 0:
            lines.insert(0, "user root")
        self.conf.write_text("\n".join(lines) + "\n" + self.extra + "\n")

    def start(self) -> None:
        self.write_conf()
        self.proc = subprocess.Popen([MOSQUITTO, "-c", str(self.conf)], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.PIPE)
        ports = [self.tls_port] if self.conf_text is not None and self.tls_port else \
            [self.port] + ([self.tls_port] if self.tls_port else [])

        def listening() -> bool:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"mosquitto exited: {self.proc.stderr.read().decode() if self.proc.stderr else ''}"
                                     f"{self.log.read_text() if self.log.exists() else ''}")
            for p in ports:
                try:
                    socket.create_connection(("127.0.0.1", p), timeout=0.2).close()
                except OSError:
                    return False
            return True

        wait_until(listening, 10, what="mosquitto listening")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        self.proc = None


@pytest.fixture
def broker(tmp_path):
    """A plain mosquitto on loopback (mqtt://), anonymous; stopped at the end."""
    if not have_mosquitto():
        pytest.skip("mosquitto is not installed (scripts/test installs it: apt-get install mosquitto)")
    folder = tmp_path / "broker"
    folder.mkdir()
    b = Broker(folder)
    b.start()
    yield b
    b.stop()


@dataclass
class Subscriber:
    """A paho client that subscribes and keeps every message: ``messages[topic]`` in arrival order."""

    port: int
    topics: list[str]
    username: str | None = None
    password: str | None = None
    tls: dict[str, Any] | None = None
    messages: dict[str, list[bytes]] = field(default_factory=dict)
    retained: dict[str, bytes] = field(default_factory=dict)
    refused: Any = None
    #: a session the broker keeps while the subscriber is away (QoS 1 messages queued for it)
    client_id: str = ""
    subscribed: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self._lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5, client_id=self.client_id)
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        if self.username:
            self.client.username_pw_set(self.username, self.password)
        if self.tls is not None:
            self.client.tls_set(**self.tls)
        self.client.on_connect = self._on_connect
        self.client.on_message = self._on_message
        self.client.on_subscribe = lambda *a: self.subscribed.set()

    def _on_connect(self, client: Any, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        if reason.is_failure:
            self.refused = reason
            return
        client.subscribe([(t, 1) for t in self.topics])

    def _on_message(self, client: Any, userdata: Any, msg: Any) -> None:
        with self._lock:
            self.messages.setdefault(msg.topic, []).append(bytes(msg.payload))
            if msg.retain:
                self.retained[msg.topic] = bytes(msg.payload)

    def start(self, *, expect_refused: bool = False) -> Subscriber:
        if self.client_id:
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties

            props = Properties(PacketTypes.CONNECT)
            props.SessionExpiryInterval = 3600
            self.client.connect_async("127.0.0.1", self.port, clean_start=False, properties=props)
        else:
            self.client.connect_async("127.0.0.1", self.port)
        self.client.loop_start()
        if not expect_refused:
            wait_until(lambda: self.subscribed.is_set() or self.refused, 10, what="the subscription")
            assert self.refused is None, f"the broker refused the subscriber: {self.refused}"
        return self

    def stop(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def json(self, topic: str) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(p) for p in self.messages.get(topic, [])]

    def by_seq(self, topic: str) -> dict[int, dict[str, Any]]:
        """The messages of ``topic`` deduped by ``seq`` (a redelivery is the same message)."""
        out: dict[int, dict[str, Any]] = {}
        for m in self.json(topic):
            if m["seq"] in out:
                assert out[m["seq"]] == m, f"seq {m['seq']} on {topic} came twice with different content"
            out[m["seq"]] = m
        return out

    def count(self, topic: str) -> int:
        with self._lock:
            return len(self.messages.get(topic, []))

    def wait(self, predicate: Any, timeout: float = 20.0, what: str = "messages") -> None:
        wait_until(predicate, timeout, what=what)

    def maybe(self, predicate: Any, timeout: float) -> bool:
        return wait_for(predicate, timeout)


def contiguous(seqs: Any) -> bool:
    s = sorted(seqs)
    return s == list(range(1, len(s) + 1))
