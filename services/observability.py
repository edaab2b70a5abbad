"""Logging for every Guildhall process: structlog configured once, one canonical line per RPC.

JSON lines when stderr is not a terminal (what log shippers want), coloured
key=value lines on a terminal (what people want). The rules core never logs;
only servers and tools do, through here.
"""

from __future__ import annotations

import logging
import sys
import time
from collections.abc import Callable
from typing import Any

import grpc
import structlog

_configured = False


class _CurrentStderr:
    """Writes to whatever sys.stderr is now, not what it was at set-up (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def configure_logging(service: str, level: str = "INFO") -> None:
    """Set up structlog and stdlib logging for this process (idempotent)."""
    global _configured
    if _configured:
        return
    _configured = True
    renderer: Any = (
        structlog.dev.ConsoleRenderer() if sys.stderr.isatty() else structlog.processors.JSONRenderer()
    )

    def add_service(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
        event.setdefault("service", service)
        return event

    shared: list[Any] = [
        add_service,
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level)),
        logger_factory=structlog.PrintLoggerFactory(_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=True,
    )
    # Libraries that log through the stdlib (grpc, redis helpers) come out in the same format.
    handler = logging.StreamHandler(_CurrentStderr())
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(processor=renderer, foreign_pre_chain=shared))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)


class CanonicalLogInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Binds per-RPC context (rpc, plus what `context_of` finds) and logs one line per call.

    An unexpected exception is logged with its traceback and answered INTERNAL, so clients get
    a status that says "our fault" rather than gRPC's opaque UNKNOWN.
    """

    def __init__(self, context_of: Callable[[Any], dict[str, Any]] | None = None) -> None:
        self._context_of = context_of or (lambda request: {})
        self._log = structlog.get_logger("rpc")

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None or handler.unary_unary is None:
            return handler
        rpc = details.method.rsplit("/", 1)[-1]
        inner = handler.unary_unary

        def logged(request: Any, context: grpc.ServicerContext) -> Any:
            structlog.contextvars.bind_contextvars(rpc=rpc, **self._context_of(request))
            started = time.perf_counter()
            outcome = "ok"
            try:
                response = inner(request, context)
                code = _rejection_code(response)
                if code:
                    outcome = f"rejected:{code}"
                return response
            except Exception:
                if context.code() is None:  # not an abort: a bug of ours, not the caller's fault
                    outcome = "error"
                    self._log.exception("unhandled error", rpc=rpc)
                    context.abort(
                        grpc.StatusCode.INTERNAL, f"internal error in {rpc}; the server log has details"
                    )
                raise
            finally:
                code = context.code()
                status = code.name if isinstance(code, grpc.StatusCode) else "OK"
                if status != "OK" and outcome == "ok":
                    outcome = "fault"
                self._log.info(
                    "rpc",
                    status=status,
                    outcome=outcome,
                    duration_ms=round((time.perf_counter() - started) * 1000, 3),
                    detail=_text(context.details())
                    if status != "OK" and hasattr(context, "details")
                    else None,
                )
                structlog.contextvars.unbind_contextvars("rpc", *self._context_of(request))

        return grpc.unary_unary_rpc_method_handler(
            logged,
            request_deserializer=handler.request_deserializer,
            response_serializer=handler.response_serializer,
        )


def _rejection_code(response: Any) -> str | None:
    """The Rejection code of a response that carries one (Validate), else None."""
    fields = getattr(getattr(response, "DESCRIPTOR", None), "fields_by_name", {})
    if "rejection" in fields and response.HasField("rejection"):
        return str(response.rejection.code)
    return None


def _text(value: Any) -> str | None:
    return value.decode(errors="replace") if isinstance(value, bytes) else value
