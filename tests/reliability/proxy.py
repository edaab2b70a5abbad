"""A TCP proxy on loopback that can lose a reply: the fault behind every in-doubt write.

The request reaches the server and is executed; the answer never reaches the client, whose
connection is cut instead. The client cannot tell "not done" from "done, reply lost".
"""

from __future__ import annotations

import contextlib
import socket
import threading
from types import TracebackType
from typing import Self


class LossyProxy:
    """Forwards 127.0.0.1:<port> to an upstream port; `lose_next_reply()` arms one loss."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._lose = threading.Event()
        self.replies_lost = 0
        self._closed = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def lose_next_reply(self) -> None:
        self._lose.set()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self._listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port))
            except OSError:
                client.close()  # upstream down: the client sees a refused/closed connection
                continue
            with self._lock:
                self._sockets += [client, upstream]
            threading.Thread(target=self._pump, args=(client, upstream, False), daemon=True).start()
            threading.Thread(target=self._pump, args=(upstream, client, True), daemon=True).start()

    def _pump(self, source: socket.socket, sink: socket.socket, is_reply: bool) -> None:
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if is_reply and self._lose.is_set():
                    self._lose.clear()
                    self.replies_lost += 1
                    break  # drop it and cut both sides
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for sock in (source, sink):
                with contextlib.suppress(OSError):
                    sock.shutdown(socket.SHUT_RDWR)
                sock.close()

    def close(self) -> None:
        self._closed = True
        self._listener.close()
        with self._lock:
            for sock in self._sockets:
                with contextlib.suppress(OSError):
                    sock.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
