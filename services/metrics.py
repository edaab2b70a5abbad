"""A rules service's Prometheus metrics (`METRICS_PORT`, path /metrics; off when 0).

Every series carries the service's `game` and `rules_version`, so several versions of one game
side by side (one Deployment each) are told apart, and per-game alerts sum over versions. The
process collector of prometheus_client adds CPU, memory, open files and start time.
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram, start_http_server

_LATENCY_BUCKETS = (0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
_SERVICE = ["game", "rules_version"]

REQUESTS = Counter(
    "guildhall_rules_requests_total",
    "Rules calls (unary or over a Session) by method and gRPC status",
    [*_SERVICE, "method", "code"],
)
LATENCY = Histogram(
    "guildhall_rules_request_seconds",
    "Time to decide a rules call, by method",
    [*_SERVICE, "method"],
    buckets=_LATENCY_BUCKETS,
)
IN_FLIGHT = Gauge("guildhall_rules_in_flight", "Rules calls being decided now", _SERVICE)
SESSIONS = Gauge("guildhall_rules_sessions_open", "Open Session streams (each one gateway's)", _SERVICE)
INFO = Gauge("guildhall_rules_info", "1 for the game and rules version this process serves", _SERVICE)


class RulesMetrics:
    """The series of one game at one rules version, children bound once (a call costs a dict
    look-up, not a label resolution)."""

    def __init__(self, game: str, rules_version: str) -> None:
        self._service = (game, rules_version)
        self._requests: dict[tuple[str, str], Counter] = {}
        self._latency: dict[str, Histogram] = {}
        self.in_flight = IN_FLIGHT.labels(*self._service)
        self.sessions = SESSIONS.labels(*self._service)
        INFO.labels(*self._service).set(1)

    def observe(self, method: str, code: str, seconds: float) -> None:
        """Count one finished call and its time."""
        counter = self._requests.get((method, code))
        if counter is None:
            counter = self._requests[method, code] = REQUESTS.labels(*self._service, method, code)
        counter.inc()
        histogram = self._latency.get(method)
        if histogram is None:
            histogram = self._latency[method] = LATENCY.labels(*self._service, method)
        histogram.observe(seconds)


def serve_metrics(port: int, host: str) -> None:
    """Expose /metrics on `port` (a daemon thread of prometheus_client; 0 = off)."""
    if port:
        start_http_server(port, addr=host)
