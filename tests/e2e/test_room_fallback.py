"""MQTT 5, falling back to 3.1.1: a broker that answers a version 5 CONNECT with "unacceptable
protocol version" (a 3.1.1 broker's CONNACK, return code 1) gets a 3.1.1 client. The broker
here is a few lines that speak only CONNECT/CONNACK: bytes written out from the MQTT 3.1.1
specification (3.2: CONNACK is 0x20 0x02, then the session-present flag and the return code)."""

from __future__ import annotations

import socket
import threading

from controller.daemon.journal import Journal
from controller.room.link import RoomLink
from controller.config.room import RoomConfig
from rig.waiting import wait_until

REFUSE_VERSION = bytes([0x20, 0x02, 0x00, 0x01])
ACCEPT = bytes([0x20, 0x02, 0x00, 0x00])


class OldBroker:
    """Accepts connections; reads the CONNECT's protocol level (byte 8 after the fixed header
    for "MQTT"); refuses level 5, accepts level 4 and keeps the connection open."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.port = self.sock.getsockname()[1]
        self.levels: list[int] = []
        self.open: list[socket.socket] = []
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            data = conn.recv(4096)
            # fixed header: 0x10, remaining length (one byte here); then 00 04 'MQTT', level
            level = data[2 + 6]
            self.levels.append(level)
            if level == 5:
                conn.sendall(REFUSE_VERSION)
                conn.close()
            else:
                conn.sendall(ACCEPT)
                self.open.append(conn)

    def close(self) -> None:
        self.sock.close()
        for c in self.open:
            c.close()


def test_a_broker_that_refuses_mqtt_5_gets_3_1_1(tmp_path):
    broker = OldBroker()
    j = Journal(tmp_path / "j.sqlite3")
    j.open()
    cfg = RoomConfig(broker=f"mqtt://127.0.0.1:{broker.port}", host="127.0.0.1", port=broker.port, tls=False,
                     room="r1", table="t1")
    link = RoomLink(cfg, j, state=lambda: {})
    link.start()
    try:
        wait_until(lambda: link.connected, 20, what="a 3.1.1 connection")
        assert broker.levels[0] == 5 and broker.levels[-1] == 4
    finally:
        link.stop()
        broker.close()
        j.close()
