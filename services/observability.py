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
import msgspec
import structlog

from services import tracing

_configured = False


class _CurrentStderr:
    """Writes to whatever sys.stderr is now, not what it was at set-up (test runners swap it)."""

    def write(self, text: str) -> int:
        return sys.stderr.write(text)

    def flush(self) -> None:
        sys.stderr.flush()


def _json_line(event: dict[str, Any], default: Callable[[Any], Any] | None = None, **_: Any) -> str:
    """A log line as JSON by msgspec: every RPC writes one, and the stdlib encoder costs more."""
    return msgspec.json.encode(event, enc_hook=default).decode()


LOG_LEVELS = ("debug", "info", "warning", "error", "critical")


def parse_log_level(text: str) -> int:
    """A log level by name, in any case ("debug", "INFO"); ValueError naming the choices."""
    if text.lower() not in LOG_LEVELS:
        raise ValueError(f"log level {text!r} is not one of {', '.join(LOG_LEVELS)}")
    return int(logging.getLevelName(text.upper()))


def configure_logging(service: str, level: str = "INFO") -> None:
    """Set up structlog and stdlib logging for this process (idempotent). Configure tracing
    (services.tracing) first: with it on, every line carries the current trace and span ids."""
    global _configured
    if _configured:
        return
    _configured = True
    numeric_level = parse_log_level(level)
    renderer: Any = (
        structlog.dev.ConsoleRenderer()
        if sys.stderr.isatty()
        else structlog.processors.JSONRenderer(serializer=_json_line)
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
    if tracing.ENABLED:  # only then: a line costs nothing more with tracing off
        shared.append(tracing.log_trace_ids)
    structlog.configure(
        processors=[*shared, structlog.processors.format_exc_info, renderer],
        wrapper_class=structlog.make_filtering_bound_logger(numeric_level),
        logger_factory=structlog.PrintLoggerFactory(_CurrentStderr()),  # type: ignore[arg-type]
        cache_logger_on_first_use=True,
    )
    # Libraries that log through the stdlib (grpc, redis helpers) come out in the same format.
    handler = logging.StreamHandler(_CurrentStderr())
    handler.setFormatter(structlog.stdlib.ProcessorFormatter(processor=renderer, foreign_pre_chain=shared))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(numeric_level)


class _Undecodable:
    """Stands in for a request that could not be parsed, so the interceptor answers it."""

    def __init__(self, code: grpc.StatusCode, message: str) -> None:
        self.code = code
        self.message = message


# Requests refused before any project code ran: counted per process, and each logged.
refused_requests = {"oversized": 0, "undecodable": 0}


def count_refused(reason: str) -> None:
    """Count a request refused before any project code ran ("oversized" or "undecodable")."""
    refused_requests[reason] += 1


def rpc_log_fields(
    rpc: str, context: dict[str, Any], status: str, outcome: str, started: float, detail: str | None
) -> dict[str, Any]:
    """The canonical line's fields for one call (the asyncio servers log it in one call, without
    binding and unbinding context vars per call: the same line, for less CPU)."""
    fields: dict[str, Any] = {
        "rpc": rpc,
        **context,
        "status": status,
        "outcome": outcome,
        "duration_ms": round((time.perf_counter() - started) * 1000, 3),
    }
    if detail is not None:
        fields["detail"] = detail
    return fields


class CanonicalLogInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]
    """Binds per-RPC context (rpc, plus what `context_of` finds) and logs one line per call.

    An unexpected exception is logged with its traceback and answered INTERNAL, so clients get
    a status that says "our fault" rather than gRPC's opaque UNKNOWN. Requests are parsed here,
    so protobuf garbage (INVALID_ARGUMENT) and requests over their RPC's limit in
    `request_limits` (RESOURCE_EXHAUSTED) are answered, counted and logged like any other call
    instead of dying silently inside grpcio. Health probes log at DEBUG only.
    """

    def __init__(
        self,
        context_of: Callable[[Any], dict[str, Any]] | None = None,
        *,
        request_limits: dict[str, int] | None = None,
        observe: Callable[[str, str, float], None] | None = None,
    ) -> None:
        """`observe(rpc, status, seconds)`: called once per finished call (metrics)."""
        self._context_of = context_of or (lambda request: {})
        self._limits = request_limits or {}
        self._observe = observe
        self._log = structlog.get_logger("rpc")

    def intercept_service(self, continuation: Any, details: Any) -> Any:
        handler = continuation(details)
        if handler is None or handler.unary_unary is None:
            return handler
        rpc = details.method.rsplit("/", 1)[-1]
        quiet = details.method.startswith("/grpc.health.")
        inner = handler.unary_unary
        parse = handler.request_deserializer
        limit = self._limits.get(rpc)

        def deserialize(data: bytes) -> Any:
            if limit is not None and len(data) > limit:
                refused_requests["oversized"] += 1
                return _Undecodable(
                    grpc.StatusCode.RESOURCE_EXHAUSTED, f"{rpc} requests are at most {limit} bytes"
                )
            try:
                return parse(data) if parse is not None else data
            except Exception:  # protobuf's DecodeError, or worse: the bytes are not this message
                refused_requests["undecodable"] += 1
                return _Undecodable(
                    grpc.StatusCode.INVALID_ARGUMENT, f"the {rpc} request is not valid protobuf"
                )

        def logged(request: Any, context: grpc.ServicerContext) -> Any:
            undecodable = isinstance(request, _Undecodable)
            bound = {} if undecodable else self._context_of(request)
            structlog.contextvars.bind_contextvars(rpc=rpc, **bound)
            started = time.perf_counter()
            outcome = "ok"
            try:
                if undecodable:
                    context.abort(request.code, request.message)
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
                elapsed = time.perf_counter() - started
                if self._observe is not None and not quiet:
                    self._observe(rpc, status, elapsed)
                fields: dict[str, Any] = {
                    "status": status,
                    "outcome": outcome,
                    "duration_ms": round(elapsed * 1000, 3),
                }
                if status != "OK":
                    fields["detail"] = _text(context.details())
                (self._log.debug if quiet and status == "OK" else self._log.info)("rpc", **fields)
                structlog.contextvars.unbind_contextvars("rpc", *bound)

        return grpc.unary_unary_rpc_method_handler(
            logged,
            request_deserializer=deserialize,
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
