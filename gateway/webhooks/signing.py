"""A webhook delivery's bytes: the JSON envelope and the signature header.

Body (UTF-8 JSON, keys in this order; `data` per event type, docs/gateway.md):

    {"id": "evt_...", "type": "match.ended", "api_version": 1, "created_ms": 1764000000000,
     "tenant": "acme", "data": {...}}

Header `Guildhall-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`, one `v1` per configured
secret (rotation: receivers accept any): hex(HMAC-SHA256(secret, "<t>." + body)). The timestamp is
the moment of sending (a fresh one on every attempt), so a receiver refuses captured deliveries
replayed later than its tolerance (five minutes in `guildhall_client.webhooks`).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

API_VERSION = 1
SIGNATURE_HEADER = "Guildhall-Signature"
_JSON = msgspec.json.Encoder()


def event_id(*parts: str) -> str:
    """A webhook event's id: the same event derived again gets the same id (receivers dedupe)."""
    return "evt_" + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:32]


def delivery_id(tenant: str, endpoint_id: str, event: str) -> str:
    return "dlv_" + hashlib.sha256(f"{tenant}\x1f{endpoint_id}\x1f{event}".encode()).hexdigest()[:32]


def body(event: str, event_type: str, created_ms: int, tenant: str, data: Mapping[str, Any]) -> bytes:
    envelope = {
        "id": event,
        "type": event_type,
        "api_version": API_VERSION,
        "created_ms": created_ms,
        "tenant": tenant,
        "data": data,
    }
    return _JSON.encode(envelope)


def signature(secret: str, timestamp: int, payload: bytes) -> str:
    return hmac.new(secret.encode(), f"{timestamp}.".encode() + payload, hashlib.sha256).hexdigest()


def signature_header(secrets: Sequence[str], timestamp: int, payload: bytes) -> str:
    return ",".join([f"t={timestamp}", *(f"v1={signature(s, timestamp, payload)}" for s in secrets)])
