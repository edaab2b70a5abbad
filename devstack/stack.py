"""The whole system on one machine: a Redis, rules services and gateway replicas, as child processes.

`make run` runs this in the foreground (`python -m devstack.stack`): Redis, every rules service
and one gateway on port 50051, with a local tenant whose API key it prints. The demo, the
end-to-end tests, the benchmarks, the reliability tests and the soak use `Stack` as a context
manager; `Stack.for_faults` is the soak's configuration (its own AOF Redis, every process
killable and restartable in place). Stopping stops every child cleanly, gateways first: SIGTERM
(they drain in-flight calls), SIGKILL after a grace period.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import signal
import sys
import tempfile
import threading
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Self

import structlog

from devstack.cluster import LocalCluster, redis_cluster
from devstack.processes import BotWorkerProcess, GatewayProcess, ManagedProcess, RedisProcess, RulesProcess
from devstack.redis import local_redis
from services.observability import configure_logging

_log = structlog.get_logger("stack")

LOCAL_TENANT = "local"


@dataclass(frozen=True)
class TenantSpec:
    """A tenant the stack configures, with its quotas (TENANTS_FILE's fields); its API key is made
    up and found in `Stack.api_keys`."""

    tenant_id: str
    open_tickets: int = 100_000
    active_matches: int = 100_000
    actions_per_second: float = 100_000.0
    reads_per_second: float = 1_000_000.0


class Stack:
    """Redis, one rules service process per game and `gateways` gateway replicas.

    `targets` maps game id to its rules service's address, `gateway_targets` lists the replicas'.
    The processes themselves are `redis` (when the stack runs its own), `rules` (by game) and
    `gateways`: each can be stopped, killed and started again on its port.
    """

    def __init__(
        self,
        games: Sequence[str] | None = None,
        *,
        gateways: int = 0,
        tenants: Mapping[str, object] | Sequence[TenantSpec] | None = None,
        work_dir: Path | None = None,
        log_dir: Path | None = None,
        redis_dir: Path | None = None,
        ports: Mapping[str, int] | None = None,
        gateway_port: int = 0,
        gateway_env: Mapping[str, str] | None = None,
        log_level: str | None = None,
        start_timeout_s: float = 30.0,
        cluster_primaries: int = 0,
        bot_workers: int = 0,
        bot_think_s: float = 0.0,
        bot_strong_s: float | None = None,
    ) -> None:
        """
        games: the rules services to run (default: every registered game).
        gateways: replicas of `python -m gateway` (the first on `gateway_port` if given) sharing
            the Redis, the rules services, the signing keys and the tenants file.
        tenants: None for one local tenant (see `local_tenant`) whose key is `api_key`; a
            TENANTS_FILE document, with the caller's keys; or TenantSpecs, whose keys are made up
            and kept in `api_keys`.
        work_dir: signing keys (`signing/`) and the tenants file (default: a temporary directory).
        log_dir: each process's log, `<name>.log` (default: our terminal).
        redis_dir: run a redis-server of the stack's own there (AOF, appendfsync always: the
            `redis` process, killable); by default `devstack.redis.local_redis` provides one
            (REDIS_URL if set).
        log_level: the rules services' and gateways' log level (default: theirs).
        """
        if games is None:
            from services.registry import GAMES

            games = list(GAMES)
        self.games = list(games)
        self._replicas = gateways
        self._tenants = tenants
        self.work_dir = work_dir.resolve() if work_dir is not None else None
        self._owns_work_dir = work_dir is None
        self._log_dir = log_dir
        self._redis_dir = redis_dir
        self._ports = dict(ports or {})
        self._gateway_port = gateway_port
        self._gateway_env = dict(gateway_env or {})
        self._log_level = log_level
        self._timeout = start_timeout_s
        self._exit = contextlib.ExitStack()
        self.redis: RedisProcess | None = None
        self.cluster: LocalCluster | None = None
        self._cluster_primaries = cluster_primaries
        self.redis_url = ""
        self.rules: dict[str, RulesProcess] = {}
        self.more_rules: list[RulesProcess] = []  # other rules versions beside them (add_rules)
        self.gateways: list[GatewayProcess] = []
        self.api_key = ""  # the local tenant's, when `tenants` is None
        # Issue 32: the local tenant's publishable key (the web table's, served at /config.json).
        self.publishable_key = ""
        self.api_keys: dict[str, str] = {}  # tenant -> key, when `tenants` are TenantSpecs
        # Platform-wide keys (issue 23), added to every tenants file the stack writes: the
        # operator's (webhook dead letters) and the bot workers' (`bot_workers` of them started).
        self.operator_key = ""
        self.botworker_key = ""
        self.admin_key = ""
        self._bot_workers = bot_workers
        self._bot_think_s = bot_think_s
        self._bot_strong_s = bot_strong_s  # a strong bot's search per decision (the worker's default)
        self.bot_workers: list[BotWorkerProcess] = []

    @property
    def http_port(self) -> int:
        """The first gateway's HTTP (Connect) port, 0 while off (HTTP_PORT=any: picked by it)."""
        return self.gateways[0].http_port

    @property
    def metrics_port(self) -> int:
        """The first gateway's /metrics port, 0 while off (METRICS_PORT=any: picked by it)."""
        return self.gateways[0].metrics_port

    @property
    def gateway_env(self) -> dict[str, str]:
        """The settings every gateway replica gets beyond the stack's own (REDIS_CLUSTER, ...)."""
        return dict(self._gateway_env)

    @classmethod
    def for_faults(
        cls,
        work_dir: Path,
        *,
        games: Sequence[str] | None = None,
        gateways: int = 2,
        tenants: Sequence[TenantSpec] = (TenantSpec("acme"), TenantSpec("rival")),
        cluster_primaries: int = 0,
        wait_replicas: int = 1,
    ) -> Stack:
        """Configured like a deployment and meant to be hurt (the soak, the reliability tests): its
        own Redis with AOF always in `<work_dir>/redis`, logs in `<work_dir>/logs`; gateways that
        drain for 0 s and give calls 2 s on SIGTERM; every process logging at warning.

        `cluster_primaries` > 0: a Redis Cluster instead (that many primaries, one replica each,
        AOF always on every node: `stack.cluster`), as the prod overlay runs it, with gateways
        that acknowledge an append once `wait_replicas` replicas hold it (0: no wait)."""
        env = {"DRAIN_SECONDS": "0", "GRACE_SECONDS": "2"}
        if cluster_primaries:
            # A Redis timeout above the stall the faults inject, so a stalled primary's queued
            # appends are still awaited when it resumes: the case that forks without the wait.
            env |= {
                "REDIS_CLUSTER": "1",
                "REDIS_WAIT_REPLICAS": str(wait_replicas),
                "REDIS_TIMEOUT_SECONDS": "12",
            }
        return cls(
            games,
            gateways=gateways,
            tenants=tenants,
            work_dir=work_dir,
            log_dir=work_dir / "logs",
            redis_dir=work_dir / "redis",
            gateway_env=env,
            log_level="warning",
            start_timeout_s=60.0,
            cluster_primaries=cluster_primaries,
        )

    @property
    def targets(self) -> dict[str, str]:
        """Game id -> its rules service's address."""
        return {game: process.target for game, process in self.rules.items()}

    @property
    def gateway_targets(self) -> list[str]:
        return [gateway.target for gateway in self.gateways]

    @property
    def admin_targets(self) -> list[str]:
        """Each replica's admin listener (issue 43: AdminService is not on the public port)."""
        return [gateway.admin_target for gateway in self.gateways]

    @property
    def processes(self) -> dict[str, ManagedProcess]:
        """Every child process of the stack: rules services by game, `gateway-<n>`, `redis`."""
        found: dict[str, ManagedProcess] = {**self.rules}
        found.update((rules.name, rules) for rules in self.more_rules)
        found.update((gateway.name, gateway) for gateway in self.gateways)
        found.update((worker.name, worker) for worker in self.bot_workers)
        if self.redis is not None:
            found["redis"] = self.redis
        return found

    def __enter__(self) -> Self:
        try:
            if self.work_dir is None:
                self.work_dir = Path(tempfile.mkdtemp(prefix="guildhall-stack-"))
            self.work_dir.mkdir(parents=True, exist_ok=True)
            self._start_redis()
            for game in self.games:
                self.rules[game] = RulesProcess(
                    game, self._log_dir, port=self._ports.get(game), log_level=self._log_level
                )
                self.rules[game].spawn()
                _log.info("rules service starting", game=game, address=self.rules[game].target)
            for process in self.rules.values():
                process.wait_ready(self._timeout)
            if self._replicas:
                self._start_gateways()
        except BaseException:
            self.close()
            raise
        return self

    def _start_redis(self) -> None:
        if self._cluster_primaries:
            self.cluster = self._exit.enter_context(
                redis_cluster(self._cluster_primaries, replicas_per_primary=1, appendonly=True)
            )
            self.redis_url = self.cluster.url
            return
        if self._redis_dir is None:
            self.redis_url = self._exit.enter_context(local_redis())
            return
        self.redis = RedisProcess(self._redis_dir)
        self.redis.start(self._timeout)
        self.redis_url = self.redis.url

    def _start_gateways(self) -> None:
        from gateway.bootstrap import keys_dir_for

        directory = self.work_dir
        assert directory is not None
        if self._tenants is None:
            self.api_key = local_tenant(directory)
            self.publishable_key = (directory / "publishable-key").read_text().strip()
        else:  # the caller's tenants, and so the caller's keys (or keys made up for TenantSpecs)
            keys_dir_for(directory / "signing")
            (directory / "tenants.json").write_text(json.dumps(self._tenants_document(), indent=2))
        self._add_operator_keys(directory / "tenants.json")
        env = {
            **{f"RULES_{game.upper()}": target for game, target in self.targets.items()},
            "REDIS_URL": self.redis_url,
            "SIGNING_KEYS_DIR": str(directory / "signing"),
            "TENANTS_FILE": str(directory / "tenants.json"),
            "WEBHOOK_ALLOW_HTTP": "1",  # local receivers are plain http
            "WEBHOOK_ALLOW_NETWORKS": "127.0.0.0/8,::1/128",  # ... on this machine
            # Finished matches leave Redis after ARCHIVE_RETENTION_SECONDS (1 h by default) for here.
            "ARCHIVE_DIR": str(directory / "archive"),
            **({"LOG_LEVEL": self._log_level} if self._log_level else {}),
            **({"PUBLISHABLE_KEY": self.publishable_key} if self.publishable_key else {}),
            **self._gateway_env,
        }
        for replica in range(self._replicas):
            port = self._gateway_port if replica == 0 and self._gateway_port else None
            gateway = GatewayProcess(f"gateway-{replica}", self._log_dir, env, port=port)
            self.gateways.append(gateway)
            gateway.spawn()
        for gateway in self.gateways:
            gateway.wait_ready(self._timeout)
            _log.info("gateway serving", name=gateway.name, address=gateway.target)
        for number in range(self._bot_workers):
            self.start_bot_worker(number)

    def start_bot_worker(self, number: int | None = None) -> BotWorkerProcess:
        """A bot worker playing through the first gateway (numbered after the last one)."""
        worker = BotWorkerProcess(
            f"botworker-{len(self.bot_workers) if number is None else number}",
            self._log_dir,
            {
                "GUILDHALL_TARGET": self.gateway_targets[0],
                "GUILDHALL_API_KEY": self.botworker_key,
                "BOT_THINK_SECONDS": str(self._bot_think_s),
                **({"BOT_STRONG_SECONDS": str(self._bot_strong_s)} if self._bot_strong_s else {}),
                **({"LOG_LEVEL": self._log_level} if self._log_level else {}),
            },
        )
        self.bot_workers.append(worker)
        worker.start(self._timeout)
        return worker

    def _add_operator_keys(self, path: Path) -> None:
        from gateway.auth import hash_key, new_api_key

        self.operator_key, self.botworker_key = new_api_key(), new_api_key()
        self.admin_key = new_api_key()  # issue 34: the admin API (guildhall admin ...)
        document = json.loads(path.read_text())
        document["operators"] = {
            "keys": [
                {"id": "stack-operator", "sha256": hash_key(self.operator_key), "scopes": ["operator"]},
                {"id": "stack-bots", "sha256": hash_key(self.botworker_key), "scopes": ["botworker"]},
                {"id": "stack-admin", "sha256": hash_key(self.admin_key), "scopes": ["admin"]},
            ]
        }
        path.write_text(json.dumps(document, indent=2) + "\n")

    def _tenants_document(self) -> Mapping[str, object]:
        if isinstance(self._tenants, Mapping):
            return self._tenants
        from gateway.auth import hash_key, new_api_key

        tenants: dict[str, object] = {}
        for spec in self._tenants or ():
            key = self.api_keys[spec.tenant_id] = new_api_key()
            tenants[spec.tenant_id] = {
                "keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant", "auditor"]}],
                "quotas": {
                    "open_tickets": spec.open_tickets,
                    "active_matches": spec.active_matches,
                    "actions_per_second": spec.actions_per_second,
                    "reads_per_second": spec.reads_per_second,
                },
            }
        return {"tenants": tenants}

    def add_rules(
        self, game: str, source: Path | None = None, env: Mapping[str, str] | None = None
    ) -> RulesProcess:
        """Another rules service of `game` beside the stack's, started (issue 40: another version,
        `source` another build: devstack/versions.py; `env` e.g. GAME_DATA). The gateways do not
        know it until it is registered (guildhall admin rules add-target) or configured."""
        process = RulesProcess(
            game,
            self._log_dir,
            log_level=self._log_level,
            env=env,
            source=source,
            name=f"rules-{game}-{len(self.more_rules) + 2}",
        )
        self.more_rules.append(process)
        process.start(self._timeout)
        return process

    def stop_gateway(self, replica: int = 0, *, kill: bool = False) -> None:
        """SIGTERM (the replica drains and ends its streams) or SIGKILL (connections just drop)."""
        if kill:
            self.gateways[replica].kill()
        else:
            self.gateways[replica].stop()

    def start_gateway(self, replica: int = 0) -> None:
        """Start a stopped replica again, on its port and with its settings (its log goes on)."""
        self.gateways[replica].start(self._timeout)

    def close(self) -> None:
        # Gateways first: they stop taking calls before the rules services they call go away.
        for group in (self.bot_workers, self.gateways, [*self.rules.values(), *self.more_rules]):
            for process in group:
                process.terminate()
            for process in group:
                process.stop()
        if self.redis is not None:
            self.redis.stop()
        self._exit.close()
        if self._owns_work_dir and self.work_dir is not None:
            shutil.rmtree(self.work_dir, ignore_errors=True)

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


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
    # Issue 32: the web table's key (scope publishable: tables and seats only), served to the page.
    page_key_file = directory / "publishable-key"
    if not page_key_file.is_file():
        page_key_file.write_text(new_api_key() + "\n")
    page_key = page_key_file.read_text().strip()
    document = {
        "tenants": {
            LOCAL_TENANT: {
                "keys": [
                    {"id": "local-1", "sha256": hash_key(api_key), "scopes": ["tenant", "auditor"]},
                    {"id": "web-1", "sha256": hash_key(page_key), "scopes": ["publishable"]},
                ],
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

    parser = argparse.ArgumentParser(prog="python -m devstack.stack", description=main.__doc__)
    parser.add_argument("--games", nargs="*", default=list(GAMES), choices=list(GAMES))
    parser.add_argument("--any-ports", action="store_true", help="free ports instead of the default ones")
    parser.add_argument("--gateway-port", type=int, default=50051, help="the gateway's port (default 50051)")
    parser.add_argument("--dir", type=Path, default=Path("var/stack"), help="local keys and tenants file")
    parser.add_argument(
        "--http-port",
        type=int,
        default=8080,
        help="the gateway's HTTP (Connect) port and web table (default 8080)",
    )
    args = parser.parse_args(argv)
    configure_logging("stack")
    ports = {} if args.any_ports else {game: default_port(game) for game in args.games}
    gateway_port = 0 if args.any_ports else args.gateway_port
    web = Path(__file__).resolve().parents[1] / "clients" / "web" / "dist"  # `make web` builds it
    http_env = {
        # The gateway picks free ports itself with --any-ports (GatewayProcess.ANY), again if taken.
        "HTTP_PORT": GatewayProcess.ANY if args.any_ports else str(args.http_port),
        # Issue 43: the admin listener, on its default port unless --any-ports (then picked).
        **({} if args.any_ports else {"ADMIN_PORT": "50052"}),
        **({"WEB_DIR": str(web)} if (web / "index.html").is_file() else {}),
    }
    # Every process logs to its own file (a line per RPC, and the bot worker polls every second):
    # the terminal keeps what a person needs, the addresses below.
    logs = args.dir / "logs"
    stack = Stack(
        args.games,
        ports=ports,
        gateways=1,
        gateway_port=gateway_port,
        work_dir=args.dir,
        log_dir=logs,
        gateway_env=http_env,
        bot_workers=1,  # plays the bot seats of tables (issue 32: the web table has no bots of its own)
        bot_think_s=0.8,  # a person can follow what the bots do
    )
    with _stop_on_signals() as stop, stack:
        http_port = stack.http_port
        _log.info("stack up", redis=stack.redis_url, gateway=stack.gateway_targets[0], **stack.targets)
        print(
            f"Gateway at {stack.gateway_targets[0]}; tenant {LOCAL_TENANT!r}, API key {stack.api_key}\n"
            f"  e.g. GUILDHALL_TARGET={stack.gateway_targets[0]} GUILDHALL_API_KEY=<that key> guildhall ...",
            file=sys.stderr,
        )
        print(
            f"Admin API at {stack.admin_targets[0]} (gRPC and Connect); admin key {stack.admin_key}\n"
            f"  e.g. GUILDHALL_TARGET={stack.admin_targets[0]} GUILDHALL_API_KEY=<that key> "
            "guildhall admin tenants",
            file=sys.stderr,
        )
        print(
            f"HTTP (Connect) at http://127.0.0.1:{http_port}/guildhall.gateway.v1.GatewayService/<Rpc>"
            + (f"; the web table at http://127.0.0.1:{http_port}/" if "WEB_DIR" in http_env else ""),
            file=sys.stderr,
        )
        print(f"Logs of every process in {logs}/.", file=sys.stderr)
        print("Stack running; press Ctrl-C to stop.", file=sys.stderr, flush=True)
        while not stop.wait(0.5):
            for name, process in stack.processes.items():
                if not process.alive:
                    code = process.process.returncode if process.process is not None else None
                    _log.error("a child process died; stopping the stack", name=name, code=code)
                    stop.set()
        _log.info("stopping the stack")


if __name__ == "__main__":
    main()
