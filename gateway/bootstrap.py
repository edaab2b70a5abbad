"""The only place the gateway is wired: configuration, clients, use cases, the server, its loops.

`Config` reads the environment (names in deploy/k8s/base/gateway.yaml) and flags;
`Gateway` builds everything from it, serves, and drains on stop. Nothing here decides
anything a use case should.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import grpc
import structlog
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import aio as health_aio
from grpc_reflection.v1alpha import reflection
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc

from gateway import metrics
from gateway.auth import Authenticator, Tenant, Tokens, load_operators, load_tenants
from gateway.quotas import Quotas
from gateway.retention import DEFAULT_ARCHIVE_DIR, DEFAULT_RETENTION_S
from gateway.server import GatewayServicer, Ports, game_data_from_describe, games_from_describe
from gateway.streams import DEFAULT_PER_SPECTATOR_TOKEN, DEFAULT_PER_TENANT, DEFAULT_PER_TOKEN, StreamLimits
from gateway.usecases.cache import DEFAULT_CACHE_MB
from gateway.watch import WatchHub, stream_versions
from gateway.webhooks.address import AddressPolicy
from gateway.wire import MAX_REQUEST_BYTES

_log = structlog.get_logger("gateway")

RULES_PREFIX = "RULES_"
ADMIN_SERVICE = "guildhall.admin.v1.AdminService"
GRPC_OPTIONS = [
    ("grpc.max_receive_message_length", MAX_REQUEST_BYTES),
    ("grpc.max_send_message_length", 64 * 1024 * 1024),
    ("grpc.so_reuseport", 0),  # a taken port is an error, not a silently shared one
    # Clients re-resolve when a connection ages out, so replicas added by a scale-out get traffic.
    ("grpc.max_connection_age_ms", 300_000),
    ("grpc.max_connection_age_grace_ms", 30_000),
    # Watch streams idle for long stretches: keep NATs and load balancers from dropping them.
    ("grpc.keepalive_time_ms", 60_000),
    ("grpc.http2.max_pings_without_data", 0),
    ("grpc.max_concurrent_streams", 20_000),
    # gRPC core cancels calls that arrive faster than the server takes them once more than 1,000
    # wait (3,000 hard): thousands of Watch streams reconnecting at once after a replica drains
    # must queue, not be cancelled.
    ("grpc.server.max_pending_requests", 20_000),
    ("grpc.server.max_pending_requests_hard_limit", 40_000),
]
METRICS_REFRESH_S = 15.0
REDIS_CONNECTIONS = 256  # per replica (plain Redis); the cluster client pools per node


@dataclass
class Config:
    host: str = "127.0.0.1"
    port: int = 50051
    metrics_port: int = 9090
    log_level: str = "info"
    drain_s: float = 0.0
    grace_s: float = 10.0
    redis_url: str = "redis://127.0.0.1:6379/0"
    redis_cluster: bool = False
    # Acknowledge an append only once this many replicas hold it (0: as soon as the primary ran
    # it; a single Redis has no replica to wait for). docs/deploy.md: what each setting guarantees.
    redis_wait_replicas: int = 0
    redis_wait_timeout_ms: int = 1000
    redis_timeout_s: float = 5.0  # a Redis call unanswered this long fails (UNAVAILABLE)
    # An append writes the match's snapshot every this many versions (and at creation and end);
    # a load folds the events after it (issue 25 item 4). 1: with every append.
    snapshot_every: int = 16
    signing_keys_dir: str = ""
    tenants_file: str = ""
    # Where finished matches were archived (gateway.archive): replay, audit and reads find them.
    archive_dir: str = ""
    archive_s3_bucket: str = ""
    # Finished matches older than this leave Redis for the archive (gateway/retention.py); 0: off.
    archive_retention_s: float = 3600.0
    # The per-replica caches' memory budget, MiB (gateway/usecases/cache.py).
    cache_mb: float = 128.0
    # Webhooks (issue 23): plain-http endpoints allowed (development only), and each attempt's
    # deadline (connect, send and answer together: issue 30).
    webhook_allow_http: bool = False
    webhook_timeout_s: float = 5.0
    # Issue 30: networks webhooks may reach beside global addresses (development: a receiver on
    # this machine), the sends in flight per replica, and one tenant's share of them (0: a quarter).
    webhook_allow_networks: str = ""
    webhook_concurrency: int = 32
    webhook_tenant_concurrency: int = 0
    # How long a send (or a derivation) is leased before another replica may redo it, and how
    # long after an intent a replica's dispatcher derives on behalf of a replica that died.
    webhook_lease_s: float = 30.0
    webhook_grace_s: float = 30.0
    rules: dict[str, str] = field(default_factory=dict)  # game id -> gRPC target
    # The same service over HTTP (Connect; gateway/connect.py): its port (0: off), the browser
    # origins allowed to call it (CORS; none by default) and the web table's files to serve.
    http_port: int = 0
    cors_origins: tuple[str, ...] = ()
    web_dir: str = ""
    publishable_key: str = ""  # issue 32: served to the web table at /config.json
    # Caps on open Play and Watch streams on this replica (gateway/streams.py: why these values).
    max_streams_per_token: int = DEFAULT_PER_TOKEN
    max_streams_per_spectator_token: int = DEFAULT_PER_SPECTATOR_TOKEN
    max_streams_per_tenant: int = DEFAULT_PER_TENANT
    # Issue 34: usage counters kept this many days; each replica flushes its counts this often.
    usage_retention_days: int = 400
    usage_flush_s: float = 5.0

    @staticmethod
    def rules_from_env(env: Mapping[str, str]) -> dict[str, str]:
        """`RULES_<GAME_ID_UPPER>=<target>` for every game this gateway serves."""
        return {
            name[len(RULES_PREFIX) :].lower(): target
            for name, target in env.items()
            if name.startswith(RULES_PREFIX) and len(name) > len(RULES_PREFIX) and target
        }


def secret_setting(env: Mapping[str, str], var: str, default: str) -> str:
    """`var` from the environment, else the contents of the file `<var>_FILE` names (a Secret
    mounted as a file, so it never shows in the pod's environment), else `default`."""
    if env.get(var):
        return env[var]
    path = env.get(f"{var}_FILE", "")
    return Path(path).read_text().strip() if path else default


def parse_args(argv: Sequence[str] | None, env: Mapping[str, str] | None = None) -> Config:
    """Flags, each defaulting to its environment variable (named in its help)."""
    env = os.environ if env is None else env

    def helped(text: str, var: str, default: object) -> str:
        return f"{text} (env {var}; default {default})"

    parser = argparse.ArgumentParser(
        prog="python -m gateway",
        description="Serve guildhall.gateway.v1.GatewayService. Each game served needs "
        "RULES_<GAME_ID_UPPER>=<grpc target> in the environment (or --rules game=target).",
    )
    parser.add_argument(
        "--host", default=env.get("HOST", "127.0.0.1"), help=helped("bind address", "HOST", "127.0.0.1")
    )
    parser.add_argument(
        "--port", type=int, default=int(env.get("PORT", "50051")), help=helped("gRPC port", "PORT", 50051)
    )
    parser.add_argument(
        "--metrics-port",
        type=int,
        default=int(env.get("METRICS_PORT", "9090")),
        help=helped("Prometheus /metrics port, 0 = off", "METRICS_PORT", 9090),
    )
    parser.add_argument(
        "--log-level", default=env.get("LOG_LEVEL", "info"), help=helped("log level", "LOG_LEVEL", "info")
    )
    parser.add_argument(
        "--drain",
        type=float,
        default=float(env.get("DRAIN_SECONDS", "0")),
        help=helped("seconds serving NOT_SERVING after a stop signal", "DRAIN_SECONDS", 0),
    )
    parser.add_argument(
        "--grace",
        type=float,
        default=float(env.get("GRACE_SECONDS", "10")),
        help=helped("seconds calls in flight get to finish", "GRACE_SECONDS", 10),
    )
    parser.add_argument(
        "--redis-url",
        default=secret_setting(env, "REDIS_URL", "redis://127.0.0.1:6379/0"),
        help=helped(
            "the Redis holding streams, queues, timers and quotas (or a file: REDIS_URL_FILE)",
            "REDIS_URL",
            "redis://127.0.0.1:6379/0",
        ),
    )
    parser.add_argument(
        "--redis-cluster",
        action="store_true",
        default=env.get("REDIS_CLUSTER", "0") == "1",
        help=helped("REDIS_URL names a Redis Cluster node", "REDIS_CLUSTER", 0),
    )
    parser.add_argument(
        "--redis-wait-replicas",
        type=int,
        default=int(env.get("REDIS_WAIT_REPLICAS", "0")),
        help=helped("replicas that must hold an append before it is acknowledged", "REDIS_WAIT_REPLICAS", 0),
    )
    parser.add_argument(
        "--redis-wait-timeout-ms",
        type=int,
        default=int(env.get("REDIS_WAIT_TIMEOUT_MS", "1000")),
        help=helped("how long an append waits for them, then UNAVAILABLE", "REDIS_WAIT_TIMEOUT_MS", 1000),
    )
    parser.add_argument(
        "--redis-timeout",
        type=float,
        default=float(env.get("REDIS_TIMEOUT_SECONDS", "5")),
        help=helped("seconds a Redis call may go unanswered, then UNAVAILABLE", "REDIS_TIMEOUT_SECONDS", 5),
    )
    parser.add_argument(
        "--snapshot-every",
        type=int,
        default=int(env.get("SNAPSHOT_EVERY", "16")),
        help=helped("versions between snapshots of a match's state, 1 = every append", "SNAPSHOT_EVERY", 16),
    )
    parser.add_argument(
        "--signing-keys-dir",
        default=env.get("SIGNING_KEYS_DIR", ""),
        help=helped("Ed25519 PEM keys; empty = a throwaway key (development only)", "SIGNING_KEYS_DIR", ""),
    )
    parser.add_argument(
        "--tenants-file",
        default=env.get("TENANTS_FILE", ""),
        help=helped("tenants, their hashed API keys, quotas and timers (JSON)", "TENANTS_FILE", ""),
    )
    parser.add_argument(
        "--archive-dir",
        default=env.get("ARCHIVE_DIR", ""),
        help=helped("archived matches in a directory (python -m gateway.archive)", "ARCHIVE_DIR", ""),
    )
    parser.add_argument(
        "--archive-s3-bucket",
        default=env.get("ARCHIVE_S3_BUCKET", ""),
        help=helped("archived matches in an S3 bucket (the s3 extra)", "ARCHIVE_S3_BUCKET", ""),
    )
    parser.add_argument(
        "--archive-retention",
        type=_setting("ARCHIVE_RETENTION_SECONDS", "seconds"),
        default=env.get("ARCHIVE_RETENTION_SECONDS", str(DEFAULT_RETENTION_S)),
        help=helped(
            "finished matches older than this move to the archive, 0 = never",
            "ARCHIVE_RETENTION_SECONDS",
            int(DEFAULT_RETENTION_S),
        ),
    )
    parser.add_argument(
        "--cache-mb",
        type=_setting("CACHE_MB", "MiB"),
        default=env.get("CACHE_MB", str(DEFAULT_CACHE_MB)),
        help=helped("memory budget of the per-replica caches, MiB", "CACHE_MB", DEFAULT_CACHE_MB),
    )
    parser.add_argument(
        "--rules", action="append", default=[], metavar="GAME=TARGET", help="adds to RULES_* variables"
    )
    parser.add_argument(
        "--webhook-allow-http",
        action="store_true",
        default=env.get("WEBHOOK_ALLOW_HTTP", "0") == "1",
        help=helped("tenants' webhook endpoints may be plain http (development)", "WEBHOOK_ALLOW_HTTP", 0),
    )
    parser.add_argument(
        "--webhook-timeout",
        type=float,
        default=float(env.get("WEBHOOK_TIMEOUT_SECONDS", "5")),
        help=helped(
            "seconds one webhook attempt may take in all (connect, send, answer)",
            "WEBHOOK_TIMEOUT_SECONDS",
            5,
        ),
    )
    parser.add_argument(
        "--webhook-allow-networks",
        default=env.get("WEBHOOK_ALLOW_NETWORKS", ""),
        help=helped(
            "comma-separated CIDRs webhooks may reach beside global addresses (development: "
            "127.0.0.0/8,::1/128)",
            "WEBHOOK_ALLOW_NETWORKS",
            '""',
        ),
    )
    parser.add_argument(
        "--webhook-concurrency",
        type=int,
        default=int(env.get("WEBHOOK_CONCURRENCY", "32")),
        help=helped("webhook sends in flight per replica", "WEBHOOK_CONCURRENCY", 32),
    )
    parser.add_argument(
        "--webhook-tenant-concurrency",
        type=int,
        default=int(env.get("WEBHOOK_TENANT_CONCURRENCY", "0")),
        help=helped(
            "one tenant's share of those, 0 = a quarter of WEBHOOK_CONCURRENCY",
            "WEBHOOK_TENANT_CONCURRENCY",
            0,
        ),
    )
    parser.add_argument(
        "--webhook-lease",
        type=float,
        default=float(env.get("WEBHOOK_LEASE_SECONDS", "30")),
        help=helped("a replica dying mid-send: another sends again after", "WEBHOOK_LEASE_SECONDS", 30),
    )
    parser.add_argument(
        "--webhook-grace",
        type=float,
        default=float(env.get("WEBHOOK_GRACE_SECONDS", "30")),
        help=helped("a replica dying after an append: another derives after", "WEBHOOK_GRACE_SECONDS", 30),
    )
    parser.add_argument(
        "--http-port",
        type=int,
        default=int(env.get("HTTP_PORT", "0")),
        help=helped("the same service over HTTP (Connect), 0 = off", "HTTP_PORT", 0),
    )
    parser.add_argument(
        "--cors-origins",
        default=env.get("CORS_ORIGINS", ""),
        help=helped("comma-separated browser origins allowed to call the HTTP port", "CORS_ORIGINS", ""),
    )
    parser.add_argument(
        "--publishable-key",
        default=env.get("PUBLISHABLE_KEY", ""),
        help=helped("a publishable key the web table gets at /config.json", "PUBLISHABLE_KEY", ""),
    )
    parser.add_argument(
        "--web-dir",
        default=env.get("WEB_DIR", ""),
        help=helped("serve the web table's files from here on the HTTP port", "WEB_DIR", ""),
    )
    for flag, var, default, text in (
        ("--max-streams-per-token", "MAX_STREAMS_PER_TOKEN", DEFAULT_PER_TOKEN,
         "open Play/Watch streams per seat token, per replica"),
        ("--max-streams-per-spectator-token", "MAX_STREAMS_PER_SPECTATOR_TOKEN", DEFAULT_PER_SPECTATOR_TOKEN,
         "open Watch streams per match's spectator token, per replica"),
        ("--max-streams-per-tenant", "MAX_STREAMS_PER_TENANT", DEFAULT_PER_TENANT,
         "open Play/Watch/WatchTicket streams per tenant, per replica"),
    ):  # fmt: skip
        parser.add_argument(
            flag, type=int, default=int(env.get(var, str(default))), help=helped(text, var, default)
        )
    args = parser.parse_args(argv)
    if min(args.max_streams_per_token, args.max_streams_per_spectator_token, args.max_streams_per_tenant) < 1:
        parser.error(
            "MAX_STREAMS_PER_TOKEN, MAX_STREAMS_PER_SPECTATOR_TOKEN and MAX_STREAMS_PER_TENANT must be >= 1"
        )
    if args.redis_wait_replicas < 0 or args.redis_wait_timeout_ms <= 0 or args.redis_timeout <= 0:
        parser.error("REDIS_WAIT_REPLICAS must be >= 0, REDIS_WAIT_TIMEOUT_MS and REDIS_TIMEOUT_SECONDS > 0")
    if args.webhook_timeout <= 0 or args.webhook_concurrency < 1 or args.webhook_tenant_concurrency < 0:
        parser.error("WEBHOOK_TIMEOUT_SECONDS > 0, WEBHOOK_CONCURRENCY >= 1, WEBHOOK_TENANT_CONCURRENCY >= 0")
    try:
        AddressPolicy.from_setting(args.webhook_allow_networks)
    except ValueError as error:
        parser.error(str(error))
    if args.snapshot_every < 1:
        parser.error(f"SNAPSHOT_EVERY must be >= 1, got {args.snapshot_every}")
    rules = Config.rules_from_env(env)
    for item in args.rules:
        game, sep, target = item.partition("=")
        if not sep or not game or not target:
            parser.error(f"--rules takes GAME=TARGET, got {item!r}")
        rules[game] = target
    if not rules:
        parser.error("no games: set RULES_<GAME_ID_UPPER>=<grpc target> for each game to serve")
    return Config(
        host=args.host,
        port=args.port,
        metrics_port=args.metrics_port,
        log_level=args.log_level,
        drain_s=args.drain,
        grace_s=args.grace,
        redis_url=args.redis_url,
        redis_cluster=args.redis_cluster,
        redis_wait_replicas=args.redis_wait_replicas,
        redis_wait_timeout_ms=args.redis_wait_timeout_ms,
        redis_timeout_s=args.redis_timeout,
        snapshot_every=args.snapshot_every,
        signing_keys_dir=args.signing_keys_dir,
        tenants_file=args.tenants_file,
        # No archive named: a directory under the working directory (docs/deploy.md for pods).
        archive_dir=args.archive_dir or ("" if args.archive_s3_bucket else DEFAULT_ARCHIVE_DIR),
        archive_s3_bucket=args.archive_s3_bucket,
        archive_retention_s=args.archive_retention,
        cache_mb=args.cache_mb,
        webhook_allow_http=args.webhook_allow_http,
        webhook_timeout_s=args.webhook_timeout,
        webhook_allow_networks=args.webhook_allow_networks,
        webhook_concurrency=args.webhook_concurrency,
        webhook_tenant_concurrency=args.webhook_tenant_concurrency,
        webhook_lease_s=args.webhook_lease,
        webhook_grace_s=args.webhook_grace,
        rules=rules,
        http_port=args.http_port,
        cors_origins=tuple(o.strip() for o in args.cors_origins.split(",") if o.strip()),
        web_dir=args.web_dir,
        publishable_key=args.publishable_key,
        max_streams_per_token=args.max_streams_per_token,
        max_streams_per_spectator_token=args.max_streams_per_spectator_token,
        max_streams_per_tenant=args.max_streams_per_tenant,
        usage_retention_days=int(env.get("USAGE_RETENTION_DAYS", "400")),
        usage_flush_s=float(env.get("USAGE_FLUSH_SECONDS", "5")),
    )


def _setting(name: str, unit: str) -> Any:
    """An argparse type for a number >= 0 whose error names its environment variable."""
    from gateway.usecases.cache import parse_cache_mb

    def parse(text: str) -> float:
        try:
            return parse_cache_mb(text, name, unit)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    return parse


def redis_clients(url: str, cluster: bool, socket_timeout_s: float = 5.0) -> tuple[Any, Any]:
    """The command client and the one for the notification subscription. A call Redis does not
    answer within `socket_timeout_s` (a stalled node) fails UNAVAILABLE instead of hanging.

    On a cluster the subscription starts on the node named in the URL and moves to another node
    whenever it loses its own (gateway/subscription.py): PUBLISH reaches every node.
    """
    import redis.asyncio as aioredis
    import redis.exceptions
    from redis.asyncio.cluster import RedisCluster
    from redis.asyncio.retry import Retry
    from redis.backoff import NoBackoff

    from gateway.eventstore.async_redis import connection_class_for
    from gateway.subscription import ClusterSubscriber

    # (A cluster client builds its own connections: it keeps redis-py's packer.)
    if cluster:
        cluster_client = RedisCluster.from_url(url, socket_timeout=socket_timeout_s)
        parts = urlsplit(url)
        subscriber = ClusterSubscriber(
            cluster_client,
            parts.hostname or "127.0.0.1",
            parts.port or 6379,
            username=parts.username,
            password=parts.password,
            ssl=parts.scheme == "rediss",
            socket_timeout=socket_timeout_s,
        )
        return cluster_client, subscriber
    # A bounded pool that queues: a burst (thousands of watchers connecting at once) waits for a
    # connection instead of opening thousands of sockets to Redis.
    # One retry on a connection error: after a Redis restart every pooled connection is dead and
    # would otherwise fail one call each with UNAVAILABLE. A retried command that had run before
    # its reply was lost is harmless here: appends are idempotent by command id (the first
    # result comes back), and the queue, table, timer and quota scripts re-check their state.
    pool = aioredis.BlockingConnectionPool.from_url(
        url,
        connection_class=connection_class_for(url),
        max_connections=REDIS_CONNECTIONS,
        timeout=20,
        socket_timeout=socket_timeout_s,
        retry=Retry(NoBackoff(), 1),
        retry_on_error=[redis.exceptions.ConnectionError],
    )
    client = aioredis.Redis(connection_pool=pool)
    return client, client  # pubsub takes its own connection from the pool


class TimedRules:
    """A rules client whose calls are timed into the rules-call latency histogram, by method."""

    _TIMED = ("describe", "setup", "validate", "apply", "legal_actions", "view")

    def __init__(self, game: str, client: Any) -> None:
        self._client = client
        self.game_id = game
        for name in self._TIMED:
            if hasattr(client, name):
                setattr(
                    self, name, self._timed(getattr(client, name), metrics.RULES_LATENCY.labels(game, name))
                )

    @staticmethod
    def _timed(call: Any, histogram: Any) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await call(*args, **kwargs)
            finally:
                histogram.observe(time.perf_counter() - started)

        return timed

    def __getattr__(self, name: str) -> Any:  # everything else (close, target, ...) as is
        return getattr(self._client, name)


class Gateway:
    """One gateway replica: build with `await Gateway.create(config)`, then `start`, then `stop`."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.port = 0
        self.stopping = asyncio.Event()
        self.draining = asyncio.Event()  # set when a stop begins: HTTP /healthz answers 503
        self.http: Any = None
        self._tasks: list[asyncio.Task[Any]] = []
        self._closers: list[Any] = []
        self._blocking_clients: list[Any] = []  # the retention sweeper's (closed last, in `stop`)

    async def start(self) -> int:
        """Build every part, start serving; returns the bound port."""
        from gateway.archive import archive_from, load_async
        from gateway.matchmaking import Matchmaker
        from gateway.rules_client import AsyncRulesClient
        from gateway.signing import KeyRing
        from gateway.tables import Tables
        from gateway.timers import TurnTimers
        from gateway.usecases import GameMatches

        config = self.config
        if config.signing_keys_dir:
            keyring = KeyRing.from_dir(config.signing_keys_dir)
        else:
            _log.warning("no SIGNING_KEYS_DIR: receipts and tokens are signed by a throwaway key")
            keyring = KeyRing.generate()
        tenants: dict[str, Tenant] = load_tenants(config.tenants_file) if config.tenants_file else {}
        operators = load_operators(config.tenants_file) if config.tenants_file else ()
        policy = AddressPolicy.from_setting(config.webhook_allow_networks)
        _check_webhook_urls(tenants, config.webhook_allow_http, policy)
        redis, subscriber = redis_clients(config.redis_url, config.redis_cluster, config.redis_timeout_s)
        self.redis = redis
        # Issue 34: the tenants file seeds Redis; Redis's tenants are the ones served from now on,
        # kept current on every replica (gateway/admin/registry.py).
        from gateway.admin.registry import OpenStreams, TenantRegistry
        from gateway.admin.usage import UsageMeter

        usage = UsageMeter(redis, retention_days=config.usage_retention_days, flush_s=config.usage_flush_s)
        open_streams = OpenStreams(on_open=usage.stream_opened, on_close=usage.stream_closed)
        applied: list[Any] = []  # the Authenticator, once built

        def apply_tenants(fresh: dict[str, Tenant]) -> None:
            tenants.clear()
            tenants.update(fresh)
            for auth_ in applied:
                auth_.replace_tenants(fresh)

        registry = TenantRegistry(redis, apply_tenants, streams=open_streams, listen=not config.redis_cluster)
        seed = json.loads(Path(config.tenants_file).read_text()) if config.tenants_file else None
        await registry.start(seed)
        if not tenants:
            _log.warning("no tenants (none in TENANTS_FILE nor in Redis): add one with guildhall admin")
        self._closers.append(redis)
        if subscriber is not redis:
            self._closers.append(subscriber)
        clients = {game: AsyncRulesClient(game, target) for game, target in config.rules.items()}
        self._rules = clients
        rules: dict[str, Any] = {game: TimedRules(game, client) for game, client in clients.items()}
        describes = await asyncio.gather(*(client.describe() for client in rules.values()))
        for game, described in zip(rules, describes, strict=True):
            if described.game_id != game:
                raise SystemExit(f"RULES_{game.upper()} points at a rules service for {described.game_id!r}")
        games = games_from_describe(describes)

        async def check_options(game: str, seats: int, options: bytes) -> None:
            # A throwaway setup with a fixed seed: the rules service checks options and count.
            await rules[game].setup(seats, bytes(32), options)

        timers = TurnTimers(redis)
        archive = archive_from(config.archive_dir, config.archive_s3_bucket)
        # Issue 23: ratings, the webhook outbox (its intent wraps the append), platform bot seats.
        from gateway.botseats import BotSeats, bots_of_pairing
        from gateway.ratings import Ratings
        from gateway.webhooks.dispatch import HookedEventStore, Webhooks

        ratings, bot_seats = Ratings(redis), BotSeats(redis)
        webhooks = Webhooks(
            redis,
            tenants,
            ratings=ratings,
            resolve_players=_table_players(Tables(redis)),
            timeout_s=config.webhook_timeout_s,
            concurrency=config.webhook_concurrency,
            tenant_concurrency=config.webhook_tenant_concurrency,
            policy=policy,
            lease_s=config.webhook_lease_s,
            grace_s=config.webhook_grace_s,
        )
        webhooks.usage = usage
        store = HookedEventStore(
            redis,
            webhooks,
            usage=usage,
            wait_replicas=config.redis_wait_replicas,
            wait_timeout_ms=config.redis_wait_timeout_ms,
        )
        self._closers.append(store)
        matches = GameMatches(
            store,
            rules,
            keyring,
            timers=timers,
            archive=(lambda key: load_async(redis, archive, key)) if archive is not None else None,
            cache_mb=config.cache_mb,
            snapshot_every=config.snapshot_every,
        )
        self.matches = matches
        metrics.watch_caches(matches.caches)
        tokens = Tokens(keyring.sign, keyring.verify)
        auth = Authenticator(tenants, tokens, operators)
        applied.append(auth)
        quotas = Quotas(redis)
        # Announced versions are checked against the store before watchers trust them (issue 22).
        hub = WatchHub(
            subscriber, on_notify=matches.observe_append, stream_version=stream_versions(matches.store)
        )
        await hub.start()
        self.hub = hub
        # The fan-out (issue 25): a watched match's append brings every watcher's update along.
        from gateway.usecases.views import FAN_OUT_ENV

        matches.watched = hub.watched
        matches.announce = hub.notify
        matches.appending = hub.appending
        matches.fan_out = os.environ.get(FAN_OUT_ENV, "1") != "0"
        matchmaker = Matchmaker(redis, subscriber=subscriber)
        self.matchmaker = matchmaker
        tables = Tables(redis)
        from gateway.seatnames import SeatNames

        self.ports = Ports(
            matches=matches,
            auth=auth,
            tokens=tokens,
            quotas=quotas,
            hub=hub,
            games=games,
            matchmaker=matchmaker,
            tables=tables,
            names=SeatNames(tables),
            timer_policy=_timer_policy,
            check_options=check_options,
            stopping=self.stopping,
            game_data=game_data_from_describe(describes),
            ratings=ratings,
            webhooks=webhooks,
            bots=bot_seats,
            streams=StreamLimits(
                per_token=config.max_streams_per_token,
                per_tenant=config.max_streams_per_tenant,
                per_spectator_token=config.max_streams_per_spectator_token,
            ),
            open_streams=open_streams,
        )

        # Protobuf garbage is INVALID_ARGUMENT, not grpc.aio's UNKNOWN (gateway/undecodable.py).
        from gateway.undecodable import UndecodableRequests

        server = grpc.aio.server(options=GRPC_OPTIONS, interceptors=[UndecodableRequests()])
        servicer = GatewayServicer(self.ports)
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, server)
        self.health = health_aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        service_name = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].full_name
        # Issue 34: the operator plane on the same port (gateway/admin/).
        admin_servicer = self._admin_servicer(server, auth, registry, usage, archive)
        reflection.enable_server_reflection((service_name, ADMIN_SERVICE, reflection.SERVICE_NAME), server)
        self.port = server.add_insecure_port(f"{config.host}:{config.port}")
        if not self.port:
            raise SystemExit(f"cannot bind {config.host}:{config.port}")
        self.server = server
        await server.start()
        for name in ("", service_name):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if config.http_port:  # the same servicer over Connect (gateway/connect.py)
            from gateway.connect import HttpApp, HttpServer, build_admin_connect_app, build_connect_app

            app = HttpApp(
                build_connect_app(servicer),
                admin_app=build_admin_connect_app(admin_servicer),
                cors_origins=config.cors_origins,
                web_dir=config.web_dir or None,
                stopping=self.draining,
                publishable_key=config.publishable_key,
            )
            self.http = HttpServer(app, config.host, config.http_port, grace_s=config.grace_s)
            await self.http.start()

        async def create_from_pairing(pairing: Any) -> None:
            tenant = auth.tenants.get(pairing.tenant)
            if tenant is None:
                raise LookupError(f"tenant {pairing.tenant!r} is no longer configured")
            await quotas.admit_match(pairing.tenant, pairing.match_id, tenant.quotas.active_matches)
            default = tenant.turn_timer
            bots = bots_of_pairing(pairing)  # a ticket seated with bots (gateway/botseats.py)
            await bot_seats.enlist(pairing.tenant, pairing.match_id, pairing.game, bots)
            await matches.create(
                pairing.tenant,
                pairing.game,
                list(pairing.players),
                pairing.options_json,
                match_id=pairing.match_id,
                turn_timer=_timer_policy(default.seconds, default.policy),
                created_by="matchmaking",
                bots=bots,
            )
            await webhooks.ticket_matched(pairing)

        async def on_expire(key: Any, version: int, seat: int, policy: str) -> object:
            outcome = await matches.on_timer(key, version, seat, policy)
            if (
                outcome is not None
                and outcome.accepted
                and any(e.type == "match_ended" for e in outcome.events)
            ):
                await quotas.release_match(key.tenant, key.match_id)
            return outcome

        self._tasks += [
            asyncio.create_task(matchmaker.run(create_from_pairing, self.stopping), name="matchmaker"),
            asyncio.create_task(timers.run(on_expire, self.stopping), name="turn-timers"),
            asyncio.create_task(webhooks.run(self.stopping), name="webhooks"),
            asyncio.create_task(
                bot_seats.run_fill(create_from_pairing, matchmaker.complete, self.stopping), name="bot-fill"
            ),
            asyncio.create_task(self._refresh_gauges(quotas, matchmaker, tenants, games), name="gauges"),
            metrics.watch_runtime(self.stopping),
            asyncio.create_task(registry.run(self.stopping), name="tenants"),
            asyncio.create_task(usage.run(self.stopping), name="usage"),
        ]
        if archive is not None and config.archive_retention_s > 0:
            self._tasks.append(self._sweep(archive, tenants))
        metrics.serve_metrics(config.metrics_port, config.host)
        _log.info(
            "serving",
            address=f"{config.host}:{self.port}",
            games=sorted(games),
            tenants=len(tenants),
            metrics_port=config.metrics_port,
            http_port=self.http.port if self.http is not None else 0,
            signing_key=keyring.active,
        )
        return self.port

    def _admin_servicer(self, server: Any, auth: Any, registry: Any, usage: Any, archive: Any) -> Any:
        """guildhall.admin.v1.AdminService on the gRPC server (issue 34); returns the servicer."""
        from guildhall.admin.v1 import admin_pb2_grpc

        from gateway.admin.log import AdminLog
        from gateway.admin.service import AdminPorts, AdminServicer
        from gateway.admin.usecases import Admin

        config = self.config

        def blocking_client() -> Any:
            import redis as blocking
            from redis.cluster import RedisCluster

            kind = RedisCluster if config.redis_cluster else blocking.Redis
            return kind.from_url(config.redis_url, socket_timeout=max(config.redis_timeout_s, 30.0))

        admin = Admin(
            registry.records,
            AdminLog(self.redis),
            usage,
            registry,
            archive=archive,
            blocking_client=blocking_client,
            allow_http_webhooks=config.webhook_allow_http,
        )
        servicer = AdminServicer(AdminPorts(auth, admin))
        admin_pb2_grpc.add_AdminServiceServicer_to_server(servicer, server)
        return servicer

    def _sweep(self, archive: Any, tenants: Mapping[str, Tenant]) -> asyncio.Task[None]:
        """Retention (gateway/retention.py): this replica's sweeper, on a blocking client of its own."""
        import redis as blocking
        from redis.cluster import RedisCluster

        from gateway.retention import Sweeper

        config = self.config
        kind = RedisCluster if config.redis_cluster else blocking.Redis

        async def run() -> None:
            while not self.stopping.is_set():  # a cluster client connects as it is made
                try:
                    client = await asyncio.to_thread(
                        kind.from_url, config.redis_url, socket_timeout=config.redis_timeout_s
                    )
                    break
                except Exception as error:
                    _log.warning("retention waits for Redis", error=str(error))
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), 5.0)
            else:
                return
            self._blocking_clients.append(client)
            sweeper = Sweeper(client, archive, lambda: tenants.keys(), config.archive_retention_s)
            await sweeper.run(self.stopping)

        _log.info("retention on", retention_s=config.archive_retention_s, archive=_archive_name(config))
        return asyncio.create_task(run(), name="retention")

    async def _refresh_gauges(
        self, quotas: Quotas, matchmaker: Any, tenants: Mapping[str, Tenant], games: Any
    ) -> None:
        """Gauges that live in Redis, read every so often (not per scrape: scrapes are sync)."""
        while not self.stopping.is_set():
            with contextlib.suppress(Exception):
                active = 0
                for tenant in tenants:
                    active += await quotas.active_matches(tenant)
                metrics.ACTIVE_MATCHES.set(active)
                queued = getattr(matchmaker, "queued_by_game", None)
                if queued is not None:
                    for game, count in (await queued()).items():
                        metrics.QUEUED_TICKETS.labels(game).set(count)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), METRICS_REFRESH_S)

    async def stop(self) -> None:
        """Drain: NOT_SERVING first (traffic moves away), then end streams, then stop."""
        if self.stopping.is_set():
            return
        _log.info("stopping", drain_s=self.config.drain_s, grace_s=self.config.grace_s)
        self.draining.set()
        with contextlib.suppress(Exception):
            await self.health.enter_graceful_shutdown()
        await asyncio.sleep(max(self.config.drain_s, 0.0))
        self.stopping.set()
        self.hub.wake_all()  # parked Watch streams see `stopping` and end; clients resume elsewhere
        await asyncio.gather(
            self.server.stop(self.config.grace_s), *([self.http.stop()] if self.http is not None else [])
        )
        for task in self._tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5.0)
        await self.hub.stop()
        with contextlib.suppress(Exception):
            await self.matchmaker.close()
        for client in self._rules.values():
            with contextlib.suppress(Exception):
                await client.close()
        for closer in self._closers:
            with contextlib.suppress(Exception):
                await closer.aclose()
        for client in self._blocking_clients:
            with contextlib.suppress(Exception):
                client.close()
        _log.info("stopped")


def _archive_name(config: Config) -> str:
    if config.archive_s3_bucket:
        return f"s3://{config.archive_s3_bucket}"
    return str(Path(config.archive_dir).resolve())


def _check_webhook_urls(
    tenants: Mapping[str, Tenant], allow_http: bool, policy: AddressPolicy | None = None
) -> None:
    """Webhook endpoints are https unless WEBHOOK_ALLOW_HTTP=1 (development), and never name a
    loopback, private, link-local or other non-global address unless WEBHOOK_ALLOW_NETWORKS
    allows it (gateway/webhooks/address.py; names are checked again when connecting): stop at
    start."""
    policy = policy if policy is not None else AddressPolicy()
    for tenant in tenants.values():
        for endpoint in tenant.webhooks.endpoints if tenant.webhooks else ():
            where = f"tenant {tenant.tenant_id!r} webhook endpoint {endpoint.endpoint_id!r}"
            if not allow_http and not endpoint.url.startswith("https://"):
                raise SystemExit(f"{where} is not https (WEBHOOK_ALLOW_HTTP=1 allows http in development)")
            refused = policy.url_refusal(endpoint.url)
            if refused:
                raise SystemExit(f"{where}: {refused}")


def _table_players(tables: Any) -> Any:
    """Who sits where in a match: its players, or a private table's claimed players (None for a
    seat nobody claimed): what ratings and webhooks name."""

    async def resolve(key: Any, players: Sequence[str]) -> list[str | None]:
        code = await tables.code_for(key.tenant, key.match_id)
        claimed = (await tables.seats(key.tenant, code))[2] if code is not None else {}
        # A table's unclaimed seat keeps its placeholder: nobody is known to sit there.
        return [claimed.get(n) or (None if p == f"seat-{n}" else p) for n, p in enumerate(players)]

    return resolve


def _timer_policy(seconds: float, policy: str) -> Any:
    from gateway.domain.timers import TimerPolicy

    return TimerPolicy(seconds=seconds, policy=policy)


async def serve(config: Config, *, supervisor_pid: int | None = None) -> None:
    """Run until SIGINT/SIGTERM (or the supervising process dies), then drain."""
    import signal

    gateway = Gateway(config)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    # A parent may hand the signals down blocked (a mask survives exec); stopping must work.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        await gateway.start()
    except BaseException:
        await _quiet_stop(gateway)
        raise
    if supervisor_pid:

        async def orphaned() -> None:
            while os.getppid() == supervisor_pid and not stop.is_set():
                await asyncio.sleep(1.0)
            stop.set()

        watcher = asyncio.create_task(orphaned())
    await stop.wait()
    await gateway.stop()
    if supervisor_pid:
        watcher.cancel()


async def _quiet_stop(gateway: Gateway) -> None:
    with contextlib.suppress(Exception):
        if hasattr(gateway, "server"):
            await gateway.stop()


def keys_dir_for(path: Path) -> Path:
    """A directory with one fresh signing key (the local stack and tests)."""
    from gateway.signing import KeyRing

    path.mkdir(parents=True, exist_ok=True)
    if not any(path.glob("*.pem")):
        KeyRing.write_new_key(path, "local-1")
    return path
