"""The whole stack on one machine: a Redis, every rules service and gateway replicas, as child processes.

`make run` runs this in the foreground (`python -m gateway.stack`): Redis, every rules service
and one gateway on port 50051, with a local tenant whose API key it prints. The demo and the
end-to-end tests use `Stack` as a context manager. Ctrl-C or SIGTERM stops every child
cleanly, gateways first: SIGTERM (they drain in-flight calls), SIGKILL after a grace period.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
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

from gateway.eventstore.local_redis import free_port, local_redis
from services.observability import configure_logging
from services.server import EXIT_WITH_PARENT_ENV

_log = structlog.get_logger("stack")
STOP_GRACE_S = 10.0


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


class Stack:
    """Redis plus one rules service process per game; `targets` maps game id to address."""

    def __init__(
        self,
        games: Sequence[str],
        *,
        ports: dict[str, int] | None = None,
        log_dir: Path | None = None,
        start_timeout_s: float = 30.0,
        gateways: int = 0,
        gateway_port: int = 0,
        gateway_dir: Path | None = None,
        gateway_env: dict[str, str] | None = None,
        tenants: dict[str, object] | None = None,
    ) -> None:
        """`gateways` replicas of `python -m gateway` (the first on `gateway_port` if given) share
        the Redis and rules services; their signing keys and tenants file live in `gateway_dir`
        (made up if missing: one local tenant, see `local_tenant`, whose key is `api_key`; or the
        given `tenants` document, with the caller's keys). A replica can be stopped and started
        again on its port (`stop_gateway`, `start_gateway`)."""
        self.games = list(games)
        self._ports = ports or {}
        self._log_dir = log_dir
        self._timeout = start_timeout_s
        self._exit = contextlib.ExitStack()
        self.processes: dict[str, subprocess.Popen[bytes]] = {}
        self.targets: dict[str, str] = {}
        self.redis_url = ""
        self._gateways = gateways
        self._gateway_port = gateway_port
        self._gateway_dir = gateway_dir
        self._gateway_env = gateway_env or {}
        self._tenants = tenants
        self.gateway_targets: list[str] = []
        self._gateway_envs: list[dict[str, str]] = []
        self.api_key = ""  # the local tenant's, when no `tenants` document is given

    def __enter__(self) -> Stack:
        try:
            self.redis_url = self._exit.enter_context(local_redis())
            for game in self.games:
                self._start_service(game)
            for game in self.games:
                wait_serving(self.targets[game], self._timeout, self.processes[game])
            if self._gateways:
                self._start_gateways()
        except BaseException:
            self.close()
            raise
        return self

    def _start_gateways(self) -> None:
        import tempfile

        from gateway.bootstrap import keys_dir_for

        directory = self._gateway_dir
        if directory is None:
            directory = Path(self._exit.enter_context(tempfile.TemporaryDirectory(prefix="guildhall-gw-")))
        self.gateway_dir = directory
        if self._tenants is None:
            self.api_key = local_tenant(directory)
        else:  # the caller's tenants, and so the caller's keys
            keys_dir_for(directory / "signing")
            (directory / "tenants.json").write_text(json.dumps(self._tenants))
        env = {
            **os.environ,
            **{f"RULES_{game.upper()}": target for game, target in self.targets.items()},
            "REDIS_URL": self.redis_url,
            "SIGNING_KEYS_DIR": str(directory / "signing"),
            "TENANTS_FILE": str(directory / "tenants.json"),
            "METRICS_PORT": "0",
            "HOST": "127.0.0.1",
            EXIT_WITH_PARENT_ENV: str(os.getpid()),
            **self._gateway_env,
        }
        for replica in range(self._gateways):
            port = self._gateway_port if replica == 0 and self._gateway_port else free_port()
            self._gateway_envs.append({**env, "PORT": str(port)})
            self.gateway_targets.append(f"127.0.0.1:{port}")
            self.processes[f"gateway-{replica}"] = self._spawn(
                f"gateway-{replica}", [sys.executable, "-m", "gateway"], self._gateway_envs[replica]
            )
        for replica, target in enumerate(self.gateway_targets):
            wait_serving(target, self._timeout, self.processes[f"gateway-{replica}"])
            _log.info("gateway serving", name=f"gateway-{replica}", address=target)

    def stop_gateway(self, replica: int = 0, *, kill: bool = False) -> None:
        """SIGTERM (the replica drains and ends its streams) or SIGKILL (connections just drop)."""
        process = self.processes.pop(f"gateway-{replica}", None)
        if process is not None and process.poll() is None:
            process.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
            try:
                process.wait(STOP_GRACE_S)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()

    def start_gateway(self, replica: int = 0) -> None:
        """Start a stopped replica again, on its port and with its settings (its log goes on)."""
        name = f"gateway-{replica}"
        self.processes[name] = self._spawn(
            name, [sys.executable, "-m", "gateway"], self._gateway_envs[replica], append=True
        )
        wait_serving(self.gateway_targets[replica], self._timeout, self.processes[name])

    def _spawn(
        self, name: str, command: list[str], env: dict[str, str], *, append: bool = False
    ) -> subprocess.Popen[bytes]:
        out: int | IO[bytes] | None = None  # inherit: logs go to our terminal
        if self._log_dir is not None:
            self._log_dir.mkdir(parents=True, exist_ok=True)
            mode = "ab" if append else "wb"
            out = self._exit.enter_context(open(self._log_dir / f"{name}.log", mode))  # noqa: SIM115
        return subprocess.Popen(command, stdout=out, stderr=out, env=env)

    def _start_service(self, game: str) -> None:
        port = self._ports.get(game) or free_port()
        command = [sys.executable, "-m", f"services.{game}", "--port", str(port)]
        env = {**os.environ, EXIT_WITH_PARENT_ENV: str(os.getpid())}
        self.processes[game] = self._spawn(f"rules-{game}", command, env)
        self.targets[game] = f"127.0.0.1:{port}"
        _log.info("rules service starting", game=game, address=self.targets[game])

    def close(self) -> None:
        # Gateways first: they stop taking calls before the rules services they call go away.
        gateways = {k: p for k, p in self.processes.items() if k.startswith("gateway-")}
        for group in (gateways, self.processes):
            for process in group.values():
                if process.poll() is None:
                    process.send_signal(signal.SIGTERM)
            for process in group.values():
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(STOP_GRACE_S)
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


LOCAL_TENANT = "local"


def local_tenant(directory: Path) -> str:
    """Signing keys and a tenants file for a local gateway in `directory`; returns the API key.

    The key is kept in `<directory>/api-key` (mode 0600) and reused, so `make run` keeps working
    with a configured client across restarts. Local use only: deployments bring their own
    keys and tenants (docs/deploy.md).
    """
    from gateway.auth import hash_key, new_api_key
    from gateway.bootstrap import keys_dir_for

    directory.mkdir(parents=True, exist_ok=True)
    keys_dir_for(directory / "signing")
    key_file = directory / "api-key"
    if not key_file.is_file():
        key_file.write_text(new_api_key() + "\n")
        key_file.chmod(0o600)
    api_key = key_file.read_text().strip()
    document = {
        "tenants": {
            LOCAL_TENANT: {
                "keys": [{"id": "local-1", "sha256": hash_key(api_key), "scopes": ["tenant", "auditor"]}],
                "quotas": {
                    "open_tickets": 10_000,
                    "active_matches": 10_000,
                    "actions_per_second": 100_000,
                    "reads_per_second": 1_000_000,
                },
            }
        }
    }
    (directory / "tenants.json").write_text(json.dumps(document, indent=2) + "\n")
    return api_key


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
    parser.add_argument("--gateway-port", type=int, default=50051, help="the gateway's port (default 50051)")
    parser.add_argument("--dir", type=Path, default=Path("var/stack"), help="local keys and tenants file")
    args = parser.parse_args(argv)
    configure_logging("stack")
    ports = {} if args.any_ports else {game: default_port(game) for game in args.games}
    gateway_port = 0 if args.any_ports else args.gateway_port
    stack = Stack(args.games, ports=ports, gateways=1, gateway_port=gateway_port, gateway_dir=args.dir)
    with _stop_on_signals() as stop, stack:
        _log.info("stack up", redis=stack.redis_url, gateway=stack.gateway_targets[0], **stack.targets)
        print(
            f"Gateway at {stack.gateway_targets[0]}; tenant {LOCAL_TENANT!r}, API key {stack.api_key}\n"
            f"  e.g. GUILDHALL_TARGET={stack.gateway_targets[0]} GUILDHALL_API_KEY=<that key> guildhall ...",
            file=sys.stderr,
        )
        print("Stack running; press Ctrl-C to stop.", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            for name, process in stack.processes.items():
                if process.poll() is not None:
                    _log.error("a child process died; stopping the stack", name=name, code=process.returncode)
                    stop.set()
        _log.info("stopping the stack")


if __name__ == "__main__":
    main()
