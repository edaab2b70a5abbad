"""The gateway's Prometheus metrics (`METRICS_PORT`, path /metrics).

Metric objects are module-level on the default registry (a process has one gateway); nothing
listens until `serve_metrics` is called by bootstrap. Label values are bounded sets (RPC names,
status codes, rejection codes, configured game ids): never tenant or match ids.
"""

from __future__ import annotations

import asyncio
import gc
import time
from typing import Any

from prometheus_client import Counter, Gauge, Histogram, start_http_server

_LATENCY_BUCKETS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0)

REQUESTS = Counter(
    "guildhall_gateway_requests_total", "Gateway RPCs by method and status code", ["rpc", "code"]
)
LATENCY = Histogram(
    "guildhall_gateway_request_seconds",
    "Gateway RPC latency (unary calls; streams: time to the first message)",
    ["rpc"],
    buckets=_LATENCY_BUCKETS,
)
REJECTIONS = Counter("guildhall_gateway_rejections_total", "Rejections answered, by code", ["code"])
ACCEPTED_ACTIONS = Counter(
    "guildhall_gateway_actions_accepted_total", "Actions accepted and appended", ["game"]
)
WATCH_STREAMS = Gauge("guildhall_watch_streams_open", "Open Watch streams on this replica")
TICKET_STREAMS = Gauge("guildhall_ticket_watch_streams_open", "Open WatchTicket streams on this replica")
PLAY_STREAMS = Gauge("guildhall_play_streams_open", "Open Play streams on this replica")
PLAY_FAULTS = Counter(
    "guildhall_gateway_play_action_faults_total",
    "Play stream actions answered with a fault, by code",
    ["code"],
)
ACTIVE_MATCHES = Gauge("guildhall_gateway_active_matches", "Active (unfinished) matches over all tenants")
QUEUED_TICKETS = Gauge("guildhall_gateway_queued_tickets", "Queued matchmaking tickets, by game", ["game"])
APPEND_CONFLICTS = Counter(
    "guildhall_gateway_append_conflicts_total", "Appends that lost an expected-version race and were retried"
)
STORE_REGRESSIONS = Counter(
    "guildhall_store_regressions_total",
    "Times the event store was found behind a version this replica had acknowledged (a lost write)",
)
QUOTA_FAIL_OPEN = Counter(
    "guildhall_gateway_quota_fail_open_total",
    "Times a quota bucket's Redis shard did not answer and this replica metered the tenant locally",
)
NOT_REPLICATED = Counter(
    "guildhall_gateway_not_replicated_total",
    "Appends (or repeated commands' first results) answered UNAVAILABLE: too few replicas acknowledged",
)
AFTER_APPEND_REPAIRS = Counter(
    "guildhall_gateway_after_append_repairs_total",
    "Work after a successful append (indexes, timers, auto-play) that failed and was retried later",
    ["outcome"],
)
RULES_LATENCY = Histogram(
    "guildhall_gateway_rules_call_seconds",
    "Calls to rules services, by game and method",
    ["game", "method"],
    buckets=_LATENCY_BUCKETS,
)
RULES_FAILURES = Counter(
    "guildhall_gateway_rules_call_failures_total",
    "Calls to rules services that failed (no answer, or a gRPC error), by game, method and status",
    ["game", "method", "code"],
)
RULES_CONFIGURED = Gauge(
    "guildhall_gateway_rules_configured",
    "1 for each game this gateway routes to a rules service (what `up` of the rules job must cover)",
    ["game"],
)
QUOTA_REFUSALS = Counter(
    "guildhall_gateway_quota_refusals_total", "Calls refused over a tenant quota", ["quota"]
)
USAGE_FLUSHES = Counter(
    "guildhall_gateway_usage_flushes_total",
    "Flushes of the usage counters to Redis, by outcome (ok, failed: kept for the next)",
    ["outcome"],
)
TENANT_REFRESHES = Counter(
    "guildhall_gateway_tenant_refreshes_total",
    "Checks of the tenant registry in Redis (every poll and notification), by outcome (ok, failed)",
    ["outcome"],
)
NOTIFICATIONS = Counter("guildhall_gateway_notifications_total", "Append notifications received from Redis")
ARCHIVED_MATCHES = Counter(
    "guildhall_gateway_archived_matches_total",
    "Finished matches the retention sweeper moved to the archive, by outcome (archived, already: by "
    "another replica, dropped: gone or unfinished, failed: left in Redis)",
    ["outcome"],
)
# The caches of the match use cases (gateway/usecases/cache.py), by cache; read at each scrape.
CACHE_BYTES = Gauge(
    "guildhall_gateway_cache_bytes", "Estimated bytes held by each cache (CACHE_MB bounds them)", ["cache"]
)
CACHE_BUDGET = Gauge("guildhall_gateway_cache_budget_bytes", "Each cache's share of CACHE_MB", ["cache"])
CACHE_ENTRIES = Gauge("guildhall_gateway_cache_entries", "Entries held by each cache", ["cache"])
CACHE_BYTES_PER_MATCH = Gauge(
    "guildhall_gateway_cache_bytes_per_match",
    "Estimated bytes of every cache over the matches whose state is cached",
)


def _reader(target: Any, attribute: str) -> Any:
    return lambda: getattr(target, attribute)


def watch_caches(caches: Any) -> None:
    """Report `caches` (gateway.usecases.cache.Caches) at every scrape: nothing on the hot path."""
    for cache in caches.all():
        CACHE_BYTES.labels(cache.name).set_function(_reader(cache, "bytes"))
        CACHE_ENTRIES.labels(cache.name).set_function(cache.__len__)
        CACHE_BUDGET.labels(cache.name).set(cache.budget)
    CACHE_BYTES_PER_MATCH.set_function(caches.bytes_per_match)


# The runtime's own pauses: every call in flight waits them out, so they show in the tail
# latency before anything else does (docs/performance.md: full collections set the p99).
_PAUSE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
GC_PAUSES = Histogram(
    "guildhall_gc_pause_seconds", "Garbage collections, by generation", ["generation"], buckets=_PAUSE_BUCKETS
)
LOOP_LAG = Histogram(
    "guildhall_event_loop_lag_seconds",
    "How late the event loop woke for a timer (sampled every 0.1 s)",
    buckets=_PAUSE_BUCKETS,
)
LOOP_LAG_SAMPLE_S = 0.1


class _GcTimer:
    """A gc callback timing each collection into GC_PAUSES (a callback runs in the collecting thread)."""

    def __init__(self) -> None:
        self.started = 0.0

    def __call__(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self.started = time.perf_counter()
        else:
            GC_PAUSES.labels(str(info["generation"])).observe(time.perf_counter() - self.started)


_GC_TIMER = _GcTimer()


def watch_runtime(stopping: asyncio.Event) -> asyncio.Task[None]:
    """Time garbage collections and sample the event loop's lag until `stopping` is set."""
    if _GC_TIMER not in gc.callbacks:
        gc.callbacks.append(_GC_TIMER)

    async def sample() -> None:
        loop = asyncio.get_running_loop()
        try:
            while not stopping.is_set():
                asked = loop.time()
                await asyncio.sleep(LOOP_LAG_SAMPLE_S)
                LOOP_LAG.observe(max(loop.time() - asked - LOOP_LAG_SAMPLE_S, 0.0))
        finally:
            if _GC_TIMER in gc.callbacks:
                gc.callbacks.remove(_GC_TIMER)

    return asyncio.create_task(sample(), name="runtime-metrics")


def serve_metrics(port: int, host: str = "0.0.0.0") -> None:
    """Expose /metrics on `port` (a daemon thread of prometheus_client; 0 = off)."""
    if port:
        start_http_server(port, addr=host)
