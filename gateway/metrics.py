"""The gateway's Prometheus metrics (`METRICS_PORT`, path /metrics).

Metric objects are module-level on the default registry (a process has one gateway); nothing
listens until `serve_metrics` is called by bootstrap. Label values are bounded sets (RPC names,
status codes, rejection codes, configured game ids): never tenant or match ids.
"""

from __future__ import annotations

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
ACTIVE_MATCHES = Gauge("guildhall_gateway_active_matches", "Active (unfinished) matches over all tenants")
QUEUED_TICKETS = Gauge("guildhall_gateway_queued_tickets", "Queued matchmaking tickets, by game", ["game"])
APPEND_CONFLICTS = Counter(
    "guildhall_gateway_append_conflicts_total", "Appends that lost an expected-version race and were retried"
)
RULES_LATENCY = Histogram(
    "guildhall_gateway_rules_call_seconds",
    "Calls to rules services, by game and method",
    ["game", "method"],
    buckets=_LATENCY_BUCKETS,
)
QUOTA_REFUSALS = Counter(
    "guildhall_gateway_quota_refusals_total", "Calls refused over a tenant quota", ["quota"]
)
NOTIFICATIONS = Counter("guildhall_gateway_notifications_total", "Append notifications received from Redis")


def serve_metrics(port: int, host: str = "0.0.0.0") -> None:
    """Expose /metrics on `port` (a daemon thread of prometheus_client; 0 = off)."""
    if port:
        start_http_server(port, addr=host)
