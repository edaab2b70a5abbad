"""What one hop between two processes costs on this machine (issue 45's baseline for the peers gap).

    python -m benchmarks.loopback [round trips]

A message and its echo between two processes, over TCP on the loopback interface (how the
gateway reaches its rules service and Redis, in the benchmark as across pods) and over a Unix
socket: the round trip, and the sender's time in its `send` call, the receiver blocked in `recv`
as an idle server is. An accepted Play action crosses about six such hops (client to gateway,
gateway to rules service and back, to Redis and back, gateway to each seat); boardgame.io's
move crosses two or three (client to server, server to each client) and writes a file.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable

MESSAGE = b"x" * 300  # about an action's Play message


def _echo(listener: socket.socket, nodelay: bool) -> None:
    """The child: answer every message with itself until the other side closes."""
    peer, _ = listener.accept()
    if nodelay:
        peer.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    while data := peer.recv(4096):
        peer.sendall(data)
    os._exit(0)


def measure(
    listener: socket.socket, connect: Callable[[], socket.socket], trips: int, nodelay: bool
) -> tuple[float, float]:
    """(round trip, send call) in microseconds, medians over `trips` round trips."""
    child = os.fork()
    if child == 0:
        _echo(listener, nodelay)
    listener.close()
    sender = connect()
    if nodelay:
        sender.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    trip_times, send_times = [], []
    try:
        for _ in range(trips):
            start = time.perf_counter()
            sender.sendall(MESSAGE)
            sent = time.perf_counter()
            received = 0
            while received < len(MESSAGE):
                received += len(sender.recv(4096))
            trip_times.append(time.perf_counter() - start)
            send_times.append(sent - start)
    finally:
        sender.close()
        os.waitpid(child, 0)
    trip_times.sort()
    send_times.sort()
    return trip_times[trips // 2] * 1e6, send_times[trips // 2] * 1e6


def main() -> None:
    trips = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
    tcp = socket.create_server(("127.0.0.1", 0))
    address = tcp.getsockname()
    results = {"TCP, loopback": measure(tcp, lambda: socket.create_connection(address), trips, True)}
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "echo.sock")
        unix = socket.socket(socket.AF_UNIX)
        unix.bind(path)
        unix.listen(1)

        def connect() -> socket.socket:
            client = socket.socket(socket.AF_UNIX)
            client.connect(path)
            return client

        results["Unix socket"] = measure(unix, connect, trips, False)
    for name, (trip, send) in results.items():
        print(f"{name}: round trip {trip:.1f} µs, send call {send:.1f} µs (medians of {trips:,})")


if __name__ == "__main__":
    main()
