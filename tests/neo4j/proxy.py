"""A TCP proxy on a loopback port in front of the real server, to make it go away and return.

`down()` closes the listening socket and every open connection (the server "goes away":
new connections are refused, live ones break); `up()` listens again on the same port.
`cut()` only breaks the live connections (a network blip).
"""

from __future__ import annotations

import contextlib
import socket
import threading
from urllib.parse import urlsplit


class Proxy:
    def __init__(self, upstream_uri: str) -> None:
        parts = urlsplit(upstream_uri)
        self.upstream = (parts.hostname or "127.0.0.1", parts.port or 7687)
        self.scheme = parts.scheme
        self._lock = threading.Lock()
        self._sockets: set[socket.socket] = set()
        self._listener: socket.socket | None = None
        probe = socket.socket()
        probe.bind(("127.0.0.1", 0))
        self.port = probe.getsockname()[1]
        probe.close()

    @property
    def uri(self) -> str:
        return f"{self.scheme}://127.0.0.1:{self.port}"

    def up(self) -> Proxy:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", self.port))
        listener.listen(16)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()
        return self

    def down(self) -> None:
        if self._listener is not None:
            with contextlib.suppress(OSError):  # shutdown wakes the thread blocked in accept()
                self._listener.shutdown(socket.SHUT_RDWR)
            self._listener.close()
            self._listener = None
        self.cut()

    def cut(self) -> None:
        with self._lock:
            doomed, self._sockets = self._sockets, set()
        for sock in doomed:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:
                return  # closed by down()
            try:
                server = socket.create_connection(self.upstream, timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            for sock in (client, server):  # no Nagle: Bolt sends many small messages
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                self._sockets |= {client, server}
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()
            with self._lock:
                self._sockets -= {source, sink}
