"""The gateway's settings: `Config`, read from flags and the environment (each flag's help names
its variable; the names in deploy/k8s/base/gateway.yaml), with every default in one place.
bootstrap.py builds the gateway from a Config."""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gateway.api.peers import parse_networks
from gateway.api.streams import (
    DEFAULT_PER_SPECTATOR_TOKEN,
    DEFAULT_PER_TENANT,
    DEFAULT_PER_TOKEN,
    DEFAULT_WEB_SPECTATORS_PER_TABLE,
    DEFAULT_WEB_SPECTATORS_PER_TENANT,
)
from gateway.retention import DEFAULT_ARCHIVE_DIR, DEFAULT_RETENTION_S
from gateway.usecases.cache import DEFAULT_CACHE_MB
from gateway.webhooks.address import AddressPolicy

RULES_PREFIX = "RULES_"
DECISION_SHAPES = ("table", "both")


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
    # Issue 45: decisions list each distinct choice once ("table"); "both" also fills each
    # option's choices inline, for clients that read only the shape before (docs/clients.md).
    decision_shape: str = "table"
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
    # game id -> its rules targets (issue 40: several versions side by side; more are registered
    # at runtime with guildhall admin rules). New matches go to the first one's version unless an
    # operator sets another (docs/versions.md).
    rules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # Where rules bundles are unpacked to run an audit of a version no longer deployed (a
    # temporary directory if unset; the pod mounts an emptyDir).
    bundle_cache_dir: str = ""
    # The same service over HTTP (Connect; gateway/api/connect.py): its port (0: off), the browser
    # origins allowed to call it (CORS; none by default) and the web table's files to serve.
    http_port: int = 0
    cors_origins: tuple[str, ...] = ()
    web_dir: str = ""
    publishable_key: str = ""  # issue 32: served to the web table at /config.json
    # Caps on open Play and Watch streams on this replica (gateway/api/streams.py: why these values).
    max_streams_per_token: int = DEFAULT_PER_TOKEN
    max_streams_per_spectator_token: int = DEFAULT_PER_SPECTATOR_TOKEN
    max_streams_per_tenant: int = DEFAULT_PER_TENANT
    # Issue 39: spectator streams of web tables (tokens a publishable key obtained), a budget of
    # their own, per table and per tenant, apart from the tenant's players' (MAX_STREAMS_PER_TENANT).
    max_web_spectators_per_table: int = DEFAULT_WEB_SPECTATORS_PER_TABLE
    max_web_spectators_per_tenant: int = DEFAULT_WEB_SPECTATORS_PER_TENANT
    # Issue 39: proxies whose X-Forwarded-For names the client (gateway/api/peers.py), CIDRs.
    trusted_proxies: str = ""
    # Issue 34: usage counters kept this many days; each replica flushes its counts this often.
    usage_retention_days: int = 400
    usage_flush_s: float = 5.0
    # Issue 39: an offboarding job whose replica is silent this long is taken over by another.
    offboard_lease_s: float = 30.0
    # Issue 43: the operator plane (AdminService, gRPC and Connect) on a listener of its own,
    # never on the public ports; 0: not served.
    admin_host: str = ""  # "": HOST
    admin_port: int = 50052

    @staticmethod
    def rules_from_env(env: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
        """`RULES_<GAME_ID_UPPER>=<target>[,<target>...]` for every game this gateway serves."""
        rules = {
            name[len(RULES_PREFIX) :].lower(): targets(value)
            for name, value in env.items()
            if name.startswith(RULES_PREFIX) and len(name) > len(RULES_PREFIX)
        }
        return {game: found for game, found in rules.items() if found}


def targets(value: str) -> tuple[str, ...]:
    """Comma-separated gRPC targets, each once, in order."""
    return tuple(dict.fromkeys(t.strip() for t in value.split(",") if t.strip()))


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
        "RULES_<GAME_ID_UPPER>=<grpc target>[,<target>...] in the environment (or --rules game=target).",
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
        "--decision-shape",
        choices=DECISION_SHAPES,
        default=env.get("DECISION_SHAPE", "table"),
        help=helped(
            "table: a decision lists each distinct choice once; both: each option's choices inline "
            "too, for clients not yet reading the table (costs the gateway a copy per decision)",
            "DECISION_SHAPE",
            "table",
        ),
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
        "--rules",
        action="append",
        default=[],
        metavar="GAME=TARGET[,TARGET]",
        help="adds to RULES_* variables (several targets: versions side by side)",
    )
    parser.add_argument(
        "--bundle-cache-dir",
        default=env.get("BUNDLE_CACHE_DIR", ""),
        help=helped(
            "where rules bundles are unpacked to audit old versions", "BUNDLE_CACHE_DIR", "a temp dir"
        ),
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
        ("--max-web-spectators-per-table", "MAX_WEB_SPECTATORS_PER_TABLE", DEFAULT_WEB_SPECTATORS_PER_TABLE,
         "open spectator streams of one web table (a publishable key's), per replica"),
        ("--max-web-spectators-per-tenant", "MAX_WEB_SPECTATORS_PER_TENANT",
         DEFAULT_WEB_SPECTATORS_PER_TENANT, "open spectator streams of a tenant's web tables, per replica"),
    ):  # fmt: skip
        parser.add_argument(
            flag, type=int, default=int(env.get(var, str(default))), help=helped(text, var, default)
        )
    parser.add_argument(
        "--admin-host",
        default=env.get("ADMIN_HOST", ""),
        help=helped("the admin listener's bind address", "ADMIN_HOST", "HOST"),
    )
    parser.add_argument(
        "--admin-port",
        type=int,
        default=int(env.get("ADMIN_PORT", "50052")),
        help=helped(
            "AdminService (gRPC and Connect on one port), apart from the public ports; 0 = off",
            "ADMIN_PORT",
            50052,
        ),
    )
    parser.add_argument(
        "--trusted-proxies",
        default=env.get("TRUSTED_PROXIES", ""),
        help=helped(
            "comma-separated CIDRs of proxies whose X-Forwarded-For is believed", "TRUSTED_PROXIES", ""
        ),
    )
    args = parser.parse_args(argv)
    caps = (
        args.max_streams_per_token, args.max_streams_per_spectator_token, args.max_streams_per_tenant,
        args.max_web_spectators_per_table, args.max_web_spectators_per_tenant,
    )  # fmt: skip
    if min(caps) < 1:
        parser.error(
            "MAX_STREAMS_PER_TOKEN, MAX_STREAMS_PER_SPECTATOR_TOKEN, MAX_STREAMS_PER_TENANT, "
            "MAX_WEB_SPECTATORS_PER_TABLE and MAX_WEB_SPECTATORS_PER_TENANT must be >= 1"
        )
    try:
        parse_networks(args.trusted_proxies)
    except ValueError as error:
        parser.error(str(error))
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
    if args.decision_shape not in DECISION_SHAPES:  # argparse checks a flag's value, not the env's
        parser.error(f"DECISION_SHAPE must be table or both, got {args.decision_shape!r}")
    if args.admin_port and args.admin_port in (args.port, args.http_port, args.metrics_port):
        parser.error(f"ADMIN_PORT {args.admin_port} is another listener's port: the admin plane has its own")
    rules = Config.rules_from_env(env)
    for item in args.rules:
        game, sep, value = item.partition("=")
        if not sep or not game or not targets(value):
            parser.error(f"--rules takes GAME=TARGET[,TARGET], got {item!r}")
        rules[game] = tuple(dict.fromkeys((*rules.get(game, ()), *targets(value))))
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
        decision_shape=args.decision_shape,
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
        bundle_cache_dir=args.bundle_cache_dir,
        http_port=args.http_port,
        cors_origins=tuple(o.strip() for o in args.cors_origins.split(",") if o.strip()),
        web_dir=args.web_dir,
        publishable_key=args.publishable_key,
        max_streams_per_token=args.max_streams_per_token,
        max_streams_per_spectator_token=args.max_streams_per_spectator_token,
        max_streams_per_tenant=args.max_streams_per_tenant,
        max_web_spectators_per_table=args.max_web_spectators_per_table,
        max_web_spectators_per_tenant=args.max_web_spectators_per_tenant,
        trusted_proxies=args.trusted_proxies,
        usage_retention_days=int(env.get("USAGE_RETENTION_DAYS", "400")),
        usage_flush_s=float(env.get("USAGE_FLUSH_SECONDS", "5")),
        offboard_lease_s=float(env.get("OFFBOARD_LEASE_SECONDS", "30")),
        admin_host=args.admin_host or args.host,
        admin_port=args.admin_port,
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
