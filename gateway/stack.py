"""The whole stack on one machine: a Redis and every rules service, as child processes.

`make run` runs this in the foreground (`python -m gateway.stack`); the demo and
end-to-end tests use `Stack` as a context manager. Ctrl-C or SIGTERM stops every
child cleanly: SIGTERM first (the services drain in-flight calls), SIGKILL after.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc

from gateway.eventstore.local_redis import local_redis
from services.observability import configure_logging
from services.server import EXIT_WITH_PARENT_ENV

_log = structlog.get_logger("stack")
STOP_GRACE_S = 10.0


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_serving(address: str, timeout_s: float, process: subprocess.Popen[bytes] | None = None) -> None:
    """Block until the gRPC health check at `address` says SERVING."""
    deadline = time.monotonic() + timeout_s
    with grpc.insecure_channel(address) as channel:
        stub = health_pb2_grpc.HealthStub(channel)
        while True:
            if process is not None and process.poll() is not None:
                raise RuntimeError(f"the service for {address} exited with code {process.returncode}")
            try:
                reply = stub.Check(health_pb2.HealthCheckRequest(), timeout=1.0)
                if reply.status == health_pb2.HealthCheckResponse.SERVING:
                    return
            except grpc.RpcError:
                pass
            if time.monotonic() > deadline:
                raise TimeoutError(f"no healthy rules service at {address} after {timeout_s:.0f}s")
            time.sleep(0.1)


class Stack:
    """Redis plus one rules service process per game; `targets` maps game id to address."""

    def __init__(
        self,
        games: Sequence[str],
        *,
        ports: dict[str, int] | None = None,
        log_dir: Path | None = None,
        start_timeout_s: float = 30.0,
    ) -> None:
        self.games = list(games)
        self._ports = ports or {}
        self._log_dir = log_dir
        self._timeout = start_timeout_s
        self._exit = contextlib.ExitStack()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.targets: dict[str, str] = {}
        self.redis_url = ""

    def __enter__(self) -> Stack:
        try:
            self.redis_url = self._exit.enter_context(local_redis())
            for game in self.games:
                self._start_service(game)
            for game in self.games:
                wait_serving(self.targets[game], self._timeout, self.processes[game])
        except BaseException:
            self.close()
            raise
        return self

    def _start_service(self, game: str) -> None:
        port = self._ports.get(game) or free_port()
        out: int | IO[bytes] | None = None  # inherit: logs go to our terminal
        if self._log_dir is not None:
            self._log_dir.mkdir(parents=True, exist_ok=True)
            log_file = self._log_dir / f"rules-{game}.log"
            out = self._exit.enter_context(open(log_file, "wb"))  # noqa: SIM115 (closed by the ExitStack)
        command = [sys.executable, "-m", f"services.{game}", "--port", str(port)]
        env = {**os.environ, EXIT_WITH_PARENT_ENV: str(os.getpid())}
        self.processes[game] = subprocess.Popen(command, stdout=out, stderr=out, env=env)
        self.targets[game] = f"127.0.0.1:{port}"
        _log.info("rules service starting", game=game, address=self.targets[game])

    def close(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for game, process in self.processes.items():
            try:
                process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                _log.warning("rules service did not stop in time; killing", game=game)
                process.kill()
                process.wait()
        self.processes.clear()
        self._exit.close()

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[threading.Event]:
    stop = threading.Event()
    previous = {sig: signal.signal(sig, lambda *_: stop.set()) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def main(argv: Sequence[str] | None = None) -> None:
    """`make run`: the stack in the foreground until Ctrl-C."""
    from services.registry import GAMES, default_port

    parser = argparse.ArgumentParser(prog="python -m gateway.stack", description=main.__doc__)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--any-ports", action="store_true", help="free ports instead of the default ones")
    args = parser.parse_args(argv)
    configure_logging("stack")
    ports = {} if args.any_ports else {game: default_port(game) for game in args.games}
    with _stop_on_signals() as stop, Stack(args.games, ports=ports) as stack:
        _log.info("stack up", redis=stack.redis_url, **stack.targets)
        print("Stack running; press Ctrl-C to stop.", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            for game, process in stack.processes.items():
                if process.poll() is not None:
                    _log.error("rules service died; stopping the stack", game=game, code=process.returncode)
                    stop.set()
        _log.info("stopping the stack")


if __name__ == "__main__":
    main()
