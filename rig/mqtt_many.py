"""Many paho clients on one thread, driven by epoll: a room's worth of fake tables (600) in
one process. paho's own loop (``loop_start``) waits in ``select.select``, which refuses a
descriptor numbered 1024 or more: with a few hundred clients (a socket and a socket pair each)
the later ones never connected, and their tables never received what was sent to them."""

from __future__ import annotations

import selectors
import threading
import time

import paho.mqtt.client as mqtt


class ManyClients:
    """Clients added with :meth:`add` (connected already, ``connect()`` called), served until
    :meth:`stop`: their reads, their writes when paho has something to send, and paho's
    keep-alive and retries once a second."""

    def __init__(self) -> None:
        self.sel = selectors.DefaultSelector()  # (epoll on Linux: no bound on descriptor numbers)
        self.clients: list[mqtt.Client] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def add(self, c: mqtt.Client) -> None:
        c.on_socket_register_write = lambda client, userdata, sock: self._want(client, sock, True)
        c.on_socket_unregister_write = lambda client, userdata, sock: self._want(client, sock, False)
        sock = c.socket()
        with self._lock:
            self.clients.append(c)
            self.sel.register(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if c.want_write() else 0), c)

    def _want(self, c: mqtt.Client, sock: object, write: bool) -> None:
        with self._lock:
            try:
                self.sel.modify(sock, selectors.EVENT_READ | (selectors.EVENT_WRITE if write else 0), c)
            except (KeyError, ValueError, OSError):
                pass  # (not registered yet, or closed: add() registers it with what it wants)

    def _run(self) -> None:
        misc = 0.0
        while not self._stop.is_set():
            events = self.sel.select(timeout=0.1) if self.clients else []
            if not self.clients:
                self._stop.wait(0.05)
            for key, mask in events:
                c = key.data
                if mask & selectors.EVENT_READ:
                    c.loop_read()
                if mask & selectors.EVENT_WRITE:
                    c.loop_write()
            now = time.monotonic()
            if now - misc >= 1.0:
                misc = now
                with self._lock:
                    clients = list(self.clients)
                for c in clients:
                    c.loop_misc()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for c in self.clients:
            c.disconnect()
