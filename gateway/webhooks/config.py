"""A tenant's webhook settings, from the tenants file (`"webhooks"` in a tenant's entry):

    "webhooks": {
      "secrets": ["whsec_..."],        # HMAC-SHA256 keys; each one signs every delivery (rotation)
      "endpoints": [{"id": "backend", "url": "https://example.com/hooks",
                     "events": ["match.ended", "ticket.matched"]}],   # or ["*"]
      "max_attempts": 8,               # the retry budget, then a dead letter
      "backoff_seconds": 5             # the first retry's delay; doubles, capped at an hour
    }

URLs must be https unless the gateway runs with WEBHOOK_ALLOW_HTTP=1 (development, tests), and
reach only global addresses unless WEBHOOK_ALLOW_NETWORKS allows a range (address.py; bootstrap
checks both at start, the dispatcher checks addresses again at every connection).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import urlsplit

# The webhook event types, and the stream event each one is derived from (ticket.matched comes
# from matchmaking, not from a stream).
MATCH_CREATED = "match.created"
MATCH_ENDED = "match.ended"
SEAT_RESIGNED = "seat.resigned"
SEAT_TIMED_OUT = "seat.timed_out"
TICKET_MATCHED = "ticket.matched"
EVENT_TYPES = (MATCH_CREATED, MATCH_ENDED, SEAT_RESIGNED, SEAT_TIMED_OUT, TICKET_MATCHED)
FROM_STREAM = {
    "match_created": MATCH_CREATED,
    "match_ended": MATCH_ENDED,
    "seat_resigned": SEAT_RESIGNED,
    "turn_timed_out": SEAT_TIMED_OUT,
}
ALL = "*"
MAX_ENDPOINTS = 10
MAX_BACKOFF_S = 3600.0
_ID = re.compile(r"[A-Za-z0-9._-]{1,64}")


class WebhookConfigError(ValueError):
    """The webhooks entry of a tenant does not follow its schema (the message names the field)."""


@dataclass(frozen=True)
class Endpoint:
    endpoint_id: str
    url: str
    events: frozenset[str]

    def wants(self, event_type: str) -> bool:
        return ALL in self.events or event_type in self.events


@dataclass(frozen=True)
class WebhookConfig:
    secrets: tuple[str, ...]
    endpoints: tuple[Endpoint, ...]
    max_attempts: int = 8
    backoff_s: float = 5.0

    def endpoints_for(self, event_type: str) -> list[Endpoint]:
        return [e for e in self.endpoints if e.wants(event_type)]

    def endpoint(self, endpoint_id: str) -> Endpoint | None:
        return next((e for e in self.endpoints if e.endpoint_id == endpoint_id), None)

    def wants(self, event_type: str) -> bool:
        return any(e.wants(event_type) for e in self.endpoints)


def parse_webhooks(body: object, where: str, *, allow_http: bool = True) -> WebhookConfig:
    """The tenant's webhook settings; WebhookConfigError names the first fault."""
    known = {"secrets", "endpoints", "max_attempts", "backoff_seconds"}
    if not isinstance(body, dict) or set(body) - known:
        raise WebhookConfigError(f"{where}: webhooks take {', '.join(sorted(known))}")
    secrets = body.get("secrets")
    if (
        not isinstance(secrets, list)
        or not secrets
        or not all(isinstance(s, str) and 16 <= len(s) <= 256 for s in secrets)
    ):
        raise WebhookConfigError(f"{where}: webhooks.secrets must be a list of 16-256 character strings")
    raw_endpoints = body.get("endpoints", [])
    if not isinstance(raw_endpoints, list) or len(raw_endpoints) > MAX_ENDPOINTS:
        raise WebhookConfigError(f"{where}: webhooks.endpoints must be a list of at most {MAX_ENDPOINTS}")
    endpoints: list[Endpoint] = []
    for number, entry in enumerate(raw_endpoints):
        at = f"{where} webhook endpoint {number}"
        if not isinstance(entry, dict) or set(entry) - {"id", "url", "events"}:
            raise WebhookConfigError(f"{at}: must be an object with id, url and events")
        endpoint_id = entry.get("id", str(number))
        if not isinstance(endpoint_id, str) or not _ID.fullmatch(endpoint_id):
            raise WebhookConfigError(f"{at}: id must be 1-64 of A-Z a-z 0-9 . _ -")
        if any(e.endpoint_id == endpoint_id for e in endpoints):
            raise WebhookConfigError(f"{at}: id {endpoint_id!r} is used twice")
        url = entry.get("url")
        parts = urlsplit(url) if isinstance(url, str) else None
        schemes = ("https", "http") if allow_http else ("https",)
        if parts is None or parts.scheme not in schemes or not parts.hostname:
            raise WebhookConfigError(f"{at}: url must be an {' or '.join(schemes)} URL")
        events = entry.get("events", [ALL])
        if not isinstance(events, list) or not events or not set(events) <= {ALL, *EVENT_TYPES}:
            raise WebhookConfigError(f"{at}: events must be a non-empty list of {ALL!r} or {EVENT_TYPES}")
        endpoints.append(Endpoint(endpoint_id, str(url), frozenset(events)))
    attempts = body.get("max_attempts", 8)
    if isinstance(attempts, bool) or not isinstance(attempts, int) or not 1 <= attempts <= 50:
        raise WebhookConfigError(f"{where}: webhooks.max_attempts must be an integer from 1 to 50")
    backoff = body.get("backoff_seconds", 5)
    if isinstance(backoff, bool) or not isinstance(backoff, int | float) or not 0.05 <= backoff <= 3600:
        raise WebhookConfigError(f"{where}: webhooks.backoff_seconds must be from 0.05 to 3600")
    return WebhookConfig(tuple(secrets), tuple(endpoints), attempts, float(backoff))


def backoff_s(config: WebhookConfig, attempts: int) -> float:
    """The delay before the next try after `attempts` failed ones (jitter is the caller's)."""
    return float(min(config.backoff_s * 2 ** max(attempts - 1, 0), MAX_BACKOFF_S))
