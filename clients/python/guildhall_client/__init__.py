"""Guildhall's Python client: the gateway's API, typed, with safe retries and local verification.

    from guildhall_client import AsyncClient, Client        # asyncio, or blocking
    from guildhall_client.bots import make_bot              # random and greedy bots

`guildhall_client` rather than `guildhall.client`: `guildhall.*` is the generated gRPC code
(a namespace package built from protos/), and keeping the hand-written client out of it means
regenerating the protos can never touch it.
"""

from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.errors import (
    GatewayError,
    GuildhallError,
    NotFound,
    PermissionDenied,
    QuotaExceeded,
    ReceiptInvalid,
    Rejected,
    Unauthenticated,
    Unavailable,
)
from guildhall_client.stream import PlayMessage, PlayStream
from guildhall_client.sync import Client
from guildhall_client.types import Accepted, AuditReport, Event, MatchView, Receipt, Ticket, WatchUpdate
from guildhall_client.verify import Verification, seed_commitment, verify_receipt, verify_seed

__all__ = [
    "Accepted",
    "AsyncClient",
    "AuditReport",
    "Client",
    "Event",
    "GatewayError",
    "GuildhallError",
    "MatchView",
    "NotFound",
    "PermissionDenied",
    "PlayMessage",
    "PlayStream",
    "QuotaExceeded",
    "Receipt",
    "ReceiptInvalid",
    "Rejected",
    "Seat",
    "Ticket",
    "Unauthenticated",
    "Unavailable",
    "Verification",
    "WatchUpdate",
    "seed_commitment",
    "verify_receipt",
    "verify_seed",
]
