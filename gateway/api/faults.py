"""One place where exceptions become gRPC statuses: a use case's fault (not found, quota, bad
request, the event store or a rules service unavailable) maps to a precise code, message and
retry hint; anything unmapped is a bug of ours: INTERNAL, logged with its traceback.
"""

from __future__ import annotations

import grpc
import structlog

from gateway import metrics
from gateway.api.wire import BadRequest, CapReached, TooLarge
from gateway.auth import AuthError
from gateway.domain.audit import RulesUnavailable
from gateway.eventstore.base import CommandIdReused
from gateway.quotas import QuotaExceeded

_log = structlog.get_logger("rpc")


def store_fault(exc: BaseException) -> tuple[grpc.StatusCode, str, int] | None:
    """Redis down, failing over or full: UNAVAILABLE (retry; an in-doubt submit is safe to repeat
    with its command id) or RESOURCE_EXHAUSTED (maxmemory reached, nothing written), not INTERNAL.
    NotReplicated says what happened: stored on the primary, not yet on a replica."""
    import redis.exceptions

    from gateway.eventstore.async_redis import NotReplicated, is_store_fault

    if isinstance(exc, NotReplicated):
        return grpc.StatusCode.UNAVAILABLE, str(exc), 0
    if isinstance(exc, redis.exceptions.ResponseError) and "OOM" in str(exc):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, "the event store is full; nothing was written", 0
    if is_store_fault(exc):  # BusyLoadingError (AOF loading after a restart) and failovers included
        return grpc.StatusCode.UNAVAILABLE, "the event store is unavailable; retry (same command id)", 0
    return None


def fault(exc: BaseException) -> tuple[grpc.StatusCode, str, int] | None:
    """The status for an exception a use case raised (code, message, retry-after ms), else None."""
    from gateway import usecases

    name = type(exc).__name__
    if isinstance(exc, AuthError):
        return exc.code, exc.message, 0
    from_store = store_fault(exc)
    if from_store is not None:
        return from_store
    if isinstance(exc, QuotaExceeded):
        metrics.QUOTA_REFUSALS.labels(exc.quota).inc()
        return grpc.StatusCode.RESOURCE_EXHAUSTED, exc.message, exc.retry_after_ms
    if isinstance(exc, BadRequest):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc), 0
    if isinstance(exc, (TooLarge, CapReached)):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(exc), 0
    if isinstance(exc, usecases.MatchNotFound) or name in (
        "TicketNotFound",
        "TableNotFound",
        "BundleNotFound",
    ):
        return grpc.StatusCode.NOT_FOUND, "no such match" if name == "MatchNotFound" else str(exc), 0
    if isinstance(exc, usecases.UnknownGame):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc), 0
    if name == "MoveRefused":  # issue 40: the match's history does not replay the same under it
        return grpc.StatusCode.FAILED_PRECONDITION, str(exc), 0
    if isinstance(exc, RulesUnavailable):  # issue 40: never other rules; the message names the version
        code = (
            grpc.StatusCode.UNAVAILABLE
            if name == "RulesNotAnswering"
            else grpc.StatusCode.FAILED_PRECONDITION
        )
        return code, str(exc), 0
    if isinstance(exc, (usecases.MatchExists, CommandIdReused)):  # 409 over HTTP
        return grpc.StatusCode.ALREADY_EXISTS, str(exc), 0
    if isinstance(exc, usecases.ContendedMatch):
        return grpc.StatusCode.ABORTED, str(exc), 0
    if name in ("InvalidTicket", "InvalidRequest") or (isinstance(exc, ValueError) and name == "ValueError"):
        return grpc.StatusCode.INVALID_ARGUMENT, str(exc), 0
    if isinstance(exc, grpc.aio.AioRpcError):
        # A rules service said the input is bad (options, player count): the caller's fault.
        if exc.code() in (grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.RESOURCE_EXHAUSTED):
            return exc.code(), exc.details() or "invalid request", 0
        return grpc.StatusCode.UNAVAILABLE, f"a rules service is unavailable ({exc.code().name}); retry", 0
    return None


def answer(exc: Exception, rpc: str) -> tuple[grpc.StatusCode, str, int]:
    """The status, message and retry hint that answer `exc`; a bug of ours is INTERNAL, logged."""
    mapped = fault(exc)
    if mapped is None:
        _log.exception("unhandled error")
        return grpc.StatusCode.INTERNAL, f"internal error in {rpc}; the server log has details", 0
    return mapped
