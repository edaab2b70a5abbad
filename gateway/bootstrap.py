"""The only place the gateway is wired: configuration, clients, use cases, the server, its loops.

`Config` (gateway/settings.py) reads the environment (names in deploy/k8s/base/gateway.yaml) and
flags; `Gateway` builds everything from it, serves, and drains on stop. Nothing here decides
anything a use case should.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Mapping, Sequence
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
from gateway.api.games import LiveGameData, LiveGames
from gateway.api.server import GatewayServicer, Ports
from gateway.api.streams import StreamLimits
from gateway.api.wire import MAX_REQUEST_BYTES
from gateway.auth import Authenticator, Tenant, Tokens, load_operators, load_tenants
from gateway.quotas import Quotas
from gateway.settings import Config
from gateway.watch import WatchHub, stream_versions
from gateway.webhooks.address import AddressPolicy
from services import tracing

_log = structlog.get_logger("gateway")

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
    """A rules client whose calls are timed into the rules-call latency histogram and their
    failures counted, by method; each call a span of its own when tracing is on."""

    _TIMED = ("describe", "setup", "validate", "apply", "legal_actions", "view")

    def __init__(self, game: str, client: Any) -> None:
        self._client = client
        self.game_id = game
        for name in self._TIMED:
            if hasattr(client, name):
                setattr(self, name, self._timed(getattr(client, name), game, name))

    @staticmethod
    def _timed(call: Any, game: str, method: str) -> Any:
        histogram = metrics.RULES_LATENCY.labels(game, method)
        span_name = f"rules {game} {method}"
        attributes = {"rpc.system": "grpc", "guildhall.game": game}

        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                if not tracing.ENABLED:
                    return await call(*args, **kwargs)
                with tracing.span(span_name, kind="client", attributes=attributes):
                    return await call(*args, **kwargs)
            except Exception as error:
                code = error.code() if isinstance(error, grpc.aio.AioRpcError) else grpc.StatusCode.UNKNOWN
                metrics.RULES_FAILURES.labels(game, method, code.name).inc()
                raise
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
        self.admin_http: Any = None  # issue 43: the admin listener
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
        tracing.instrument_redis()  # before any client is built (a no-op unless tracing is on)
        redis, subscriber = redis_clients(config.redis_url, config.redis_cluster, config.redis_timeout_s)
        self.redis = redis
        # Issue 34: the tenants file seeds Redis; Redis's tenants are the ones served from now on,
        # kept current on every replica (gateway/admin/registry.py).
        from gateway.admin.log import AdminLog
        from gateway.admin.registry import OpenStreams, TenantRegistry
        from gateway.admin.usage import UsageMeter

        def billed(tenant_id: str) -> bool:  # issue 39: a deleted tenant's usage is not written back
            tenant = tenants.get(tenant_id)
            return tenant is not None and not tenant.offboarding

        usage = UsageMeter(
            redis, retention_days=config.usage_retention_days, flush_s=config.usage_flush_s, counts_for=billed
        )
        open_streams = OpenStreams(on_open=usage.stream_opened, on_close=usage.stream_closed)
        applied: list[Any] = []  # the Authenticator, once built
        resumed: list[Any] = []  # what restarts a resumed tenant's turn clocks, once built

        def apply_tenants(fresh: dict[str, Tenant]) -> None:
            tenants.clear()
            tenants.update(fresh)
            for auth_ in applied:
                auth_.replace_tenants(fresh)

        def apply_admin_keys(keys: tuple[Any, ...]) -> None:  # issue 43: made at runtime
            for auth_ in applied:
                auth_.replace_admin_keys(keys)

        async def on_resumed(tenant_id: str) -> None:
            for restart in resumed:
                await restart(tenant_id)

        # Issue 39: the admin log's entries are signed; their receipts are checked when the keys
        # are the deployment's own (a throwaway key's receipts would not verify after a restart).
        admin_log = AdminLog(
            redis, sign=keyring.sign, verify=keyring.verify if config.signing_keys_dir else None
        )
        registry = TenantRegistry(
            redis,
            apply_tenants,
            apply_admin_keys=apply_admin_keys,
            log=admin_log,
            streams=open_streams,
            on_resumed=on_resumed,
            listen=not config.redis_cluster,
        )
        seed = json.loads(Path(config.tenants_file).read_text()) if config.tenants_file else None
        await registry.start(seed)
        if not tenants:
            _log.warning("no tenants (none in TENANTS_FILE nor in Redis): add one with guildhall admin")
        self._closers.append(redis)
        if subscriber is not redis:
            self._closers.append(subscriber)
        archive = archive_from(config.archive_dir, config.archive_s3_bucket)
        # Issue 40: rules versions side by side, probed; each version's bundle kept with the archive.
        from gateway.rules_bundles import BundleStore
        from gateway.rules_directory import RulesDirectory

        cache = Path(config.bundle_cache_dir) if config.bundle_cache_dir else None
        bundles = BundleStore(archive, cache) if archive is not None else None

        async def keep_bundle(game: str, version: str, client: Any) -> str:
            return await bundles.keep(game, version, client.bundle) if bundles is not None else "no archive"

        rules = RulesDirectory(
            config.rules,
            lambda game, target: TimedRules(game, AsyncRulesClient(game, target)),
            redis=redis,
            on_version=keep_bundle,
        )
        self._rules = rules
        for game in config.rules:
            metrics.RULES_CONFIGURED.labels(game).set(1)
        await rules.start()

        async def check_options(game: str, seats: int, options: bytes) -> None:
            # A throwaway setup with a fixed seed on the current version: it checks options and count.
            await rules.client(game, rules.current(game)).setup(seats, bytes(32), options)

        timers = TurnTimers(redis)
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
        bot_seats.usage = usage
        store = HookedEventStore(
            redis,
            webhooks,
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
            bundles=bundles,
        )
        self.matches = matches
        metrics.watch_caches(matches.caches)
        tokens = Tokens(keyring.sign, keyring.verify)
        auth = Authenticator(tenants, tokens, operators)
        auth.replace_admin_keys(registry.admin_keys)  # issue 43: the ones made at runtime
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

        matches.viewers = hub.viewers
        matches.announce = hub.notify
        matches.appending = hub.appending
        matches.fan_out = os.environ.get(FAN_OUT_ENV, "1") != "0"
        matches.bot_seats = bot_seats  # issue 41: away seats go to the platform's bots
        matches.inline_choices = config.decision_shape == "both"
        matches.usage = usage  # issue 34: every append's usage, per game (issue 43)
        matches.on_ended = lambda key: quotas.release_match(key.tenant, key.match_id)
        matchmaker = Matchmaker(redis, subscriber=subscriber)
        self.matchmaker = matchmaker
        tables = Tables(redis)
        from gateway.api.peers import parse_networks
        from gateway.api.seatnames import SeatNames
        from gateway.tables import TableDeadlines

        self.ports = Ports(
            matches=matches,
            auth=auth,
            tokens=tokens,
            quotas=quotas,
            hub=hub,
            games=LiveGames(rules),
            matchmaker=matchmaker,
            tables=tables,
            names=SeatNames(tables),
            timer_policy=_timer_policy,
            check_options=check_options,
            stopping=self.stopping,
            game_data=LiveGameData(rules),
            ratings=ratings,
            webhooks=webhooks,
            bots=bot_seats,
            streams=StreamLimits(
                per_token=config.max_streams_per_token,
                per_tenant=config.max_streams_per_tenant,
                per_spectator_token=config.max_streams_per_spectator_token,
                web_spectators_per_table=config.max_web_spectators_per_table,
                web_spectators_per_tenant=config.max_web_spectators_per_tenant,
            ),
            open_streams=open_streams,
            trusted_proxies=parse_networks(config.trusted_proxies),
        )

        # Protobuf garbage is INVALID_ARGUMENT, not grpc.aio's UNKNOWN (gateway/api/undecodable.py).
        from gateway.api.undecodable import UndecodableRequests

        server = grpc.aio.server(
            options=GRPC_OPTIONS, interceptors=[*tracing.server_interceptors(), UndecodableRequests()]
        )
        servicer = GatewayServicer(self.ports)
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(servicer, server)
        self.health = health_aio.HealthServicer()
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        service_name = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"].full_name
        # Issue 34: the operator plane (gateway/admin/); issue 43: on a listener of its own.
        admin_servicer = self._admin_servicer(auth, registry, usage, archive)
        if admin_servicer.admin.jobs is not None:  # issue 39: offboarding jobs, taken over here too
            self._tasks.append(
                asyncio.create_task(admin_servicer.admin.jobs.run(self.stopping), name="offboarding")
            )
        server.add_generic_rpc_handlers((AdminElsewhere(),))
        reflection.enable_server_reflection((service_name, reflection.SERVICE_NAME), server)
        self.port = server.add_insecure_port(f"{config.host}:{config.port}")
        if not self.port:
            raise SystemExit(f"cannot bind {config.host}:{config.port}")
        self.server = server
        await server.start()
        for name in ("", service_name):
            await self.health.set(name, health_pb2.HealthCheckResponse.SERVING)
        if config.http_port:  # the same servicer over Connect (gateway/api/connect.py)
            from gateway.api.connect import HttpApp, build_admin_connect_app, build_connect_app
            from gateway.api.httpserver import HttpServer
            from gateway.api.sse import Feeds

            app = HttpApp(
                build_connect_app(servicer),
                feeds=Feeds(servicer),  # issue 33: Watch and WatchTicket as Server-Sent Events
                cors_origins=config.cors_origins,
                web_dir=config.web_dir or None,
                stopping=self.draining,
                publishable_key=config.publishable_key,
            )
            self.http = HttpServer(app, config.host, config.http_port, grace_s=config.grace_s)
            await self.http.start()
        if config.admin_port:
            from gateway.api.connect import HttpApp, build_admin_connect_app
            from gateway.api.httpserver import HttpServer

            admin_app = HttpApp(
                None, admin_app=build_admin_connect_app(admin_servicer), stopping=self.draining
            )
            self.admin_http = HttpServer(
                admin_app, config.admin_host, config.admin_port, grace_s=config.grace_s
            )
            await self.admin_http.start()

        async def create_from_pairing(pairing: Any) -> None:
            tenant = auth.tenants.get(pairing.tenant)
            if tenant is None:
                raise LookupError(f"tenant {pairing.tenant!r} is no longer configured")
            if tenant.suspended:  # issue 39: a suspended tenant's tickets start nothing
                raise LookupError(f"tenant {pairing.tenant!r} is suspended")
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

        def clocks_stopped(tenant_id: str) -> bool:  # issue 39: suspended (or gone): timers park
            tenant = tenants.get(tenant_id)
            return tenant is None or tenant.suspended

        resumed.append(lambda tenant_id: timers.resume(tenant_id, matches.restart_clocks))
        self._tasks += [
            asyncio.create_task(matchmaker.run(create_from_pairing, self.stopping), name="matchmaker"),
            asyncio.create_task(
                timers.run(on_expire, self.stopping, paused=clocks_stopped, restart=matches.restart_clocks),
                name="turn-timers",
            ),
            asyncio.create_task(webhooks.run(self.stopping), name="webhooks"),
            asyncio.create_task(
                bot_seats.run_fill(create_from_pairing, matchmaker.complete, self.stopping), name="bot-fill"
            ),
            asyncio.create_task(self._refresh_gauges(quotas, matchmaker, tenants), name="gauges"),
            asyncio.create_task(rules.run(self.stopping), name="rules-probe"),
            metrics.watch_runtime(self.stopping),
            asyncio.create_task(registry.run(self.stopping), name="tenants"),
            # Issue 39: tables whose seats were not all claimed in time close.
            asyncio.create_task(TableDeadlines(tables, matches, quotas).run(self.stopping), name="tables"),
            asyncio.create_task(usage.run(self.stopping), name="usage"),
        ]
        if archive is not None and config.archive_retention_s > 0:
            self._tasks.append(self._sweep(archive, tenants))
        metrics.serve_metrics(config.metrics_port, config.host)
        _log.info(
            "serving",
            address=f"{config.host}:{self.port}",
            games=sorted(rules.served()),
            tenants=len(tenants),
            metrics_port=config.metrics_port,
            http_port=self.http.port if self.http is not None else 0,
            admin_port=self.admin_http.port if self.admin_http is not None else 0,
            signing_key=keyring.active,
        )
        return self.port

    def _admin_servicer(self, auth: Any, registry: Any, usage: Any, archive: Any) -> Any:
        """guildhall.admin.v1.AdminService's servicer (issue 34), which the admin listener serves."""
        from gateway.admin.ledger import Ledger
        from gateway.admin.offboard import OffboardJobs
        from gateway.admin.usecases import Admin
        from gateway.api.admin import AdminPorts, AdminServicer

        config = self.config

        def blocking_client() -> Any:
            import redis as blocking
            from redis.cluster import RedisCluster

            kind = RedisCluster if config.redis_cluster else blocking.Redis
            return kind.from_url(config.redis_url, socket_timeout=max(config.redis_timeout_s, 30.0))

        jobs = None
        if archive is not None:
            jobs = OffboardJobs(
                self.redis, registry.records, registry.log, archive, blocking_client, registry.refresh,
                lease_s=config.offboard_lease_s,
            )  # fmt: skip
        admin = Admin(
            registry.records,
            registry.log,
            registry,
            jobs=jobs,
            allow_http_webhooks=config.webhook_allow_http,
            operators=auth.operators,
        )
        from gateway.admin.rules import RulesAdmin
        from gateway.rules_directory import RulesSettings

        rules = RulesAdmin(
            self._rules, RulesSettings(self.redis), admin.log, self.matches, lambda: list(auth.tenants)
        )  # issue 40
        ledger = Ledger(usage, admin.tenants, blocking_client, archive)  # issue 43: billing
        return AdminServicer(AdminPorts(auth, admin, ledger, rules))

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

    async def _refresh_gauges(self, quotas: Quotas, matchmaker: Any, tenants: Mapping[str, Tenant]) -> None:
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
        http = [server.stop() for server in (self.http, self.admin_http) if server is not None]
        await asyncio.gather(self.server.stop(self.config.grace_s), *http)
        for task in self._tasks:
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await asyncio.wait_for(task, 5.0)
        await self.hub.stop()
        with contextlib.suppress(Exception):
            await self.matchmaker.close()
        with contextlib.suppress(Exception):
            await self._rules.close()
        if self.matches.bundles is not None:  # the bundle runners audits left idle
            with contextlib.suppress(Exception):
                await self.matches.bundles.close()
        for closer in self._closers:
            with contextlib.suppress(Exception):
                await closer.aclose()
        for client in self._blocking_clients:
            with contextlib.suppress(Exception):
                client.close()
        tracing.shutdown()  # the spans still buffered go out
        _log.info("stopped")


class AdminElsewhere(grpc.GenericRpcHandler):  # type: ignore[misc]
    """Issue 43: an AdminService call on the public gRPC port is UNIMPLEMENTED, saying where the
    admin listener is (grpc's own answer would only say "Method not found")."""

    def service(self, details: Any) -> Any:
        if not str(details.method).startswith(f"/{ADMIN_SERVICE}/"):
            return None

        async def refuse(request: Any, context: Any) -> Any:
            from gateway.api.connect import ADMIN_ELSEWHERE

            await context.abort(grpc.StatusCode.UNIMPLEMENTED, ADMIN_ELSEWHERE)

        return grpc.unary_unary_rpc_method_handler(refuse)


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
