"""OpenTelemetry traces for the gateway and the rules services: off unless configured.

On when `OTEL_TRACES_EXPORTER` names an exporter (`otlp` or `console`) or an OTLP endpoint is
set (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`); `OTEL_SDK_DISABLED=true`
or `OTEL_TRACES_EXPORTER=none` keep it off. Everything else is the SDK's own standard variables
(`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER[_ARG]`,
`OTEL_EXPORTER_OTLP_*HEADERS/TIMEOUT`, `OTEL_BSP_*`). Spans go out as OTLP over HTTP/protobuf.

Off, nothing of OpenTelemetry is imported, no interceptor is installed, and the hot paths test
one module flag (`ENABLED`): tracing costs nothing unless it is turned on.

Where spans come from (docs/observability.md):
- gRPC calls in and unary calls out: opentelemetry-instrumentation-grpc's interceptors, which
  also carry the W3C trace context in the calls' metadata;
- Redis commands: opentelemetry-instrumentation-redis; the event store's append, which writes its
  pipeline straight to a connection (gateway/eventstore/pipeline.py), gets a span of its own;
- rules calls over a Session stream, which multiplexes many actions' calls: a span per call on
  both sides, the trace context carried per call in `SessionRequest.trace_context` (the stream
  itself is excluded from the gRPC interceptors: its span would last as long as the stream);
- an action on a Play stream: a trace of its own, linked to the stream's span.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping, MutableMapping
from typing import Any

ENABLED = False
_tracer: Any = None

_ON_ENV = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
_EXPORTERS = ("otlp", "console")
# The Session stream (many calls, each with its own trace context) and health probes.
_UNTRACED_METHODS = ("Session",)
_UNTRACED_SERVICES = ("grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection")


class TracingSettingError(ValueError):
    """An OTEL_* variable asks for what this build cannot do."""


def wanted(env: Mapping[str, str]) -> bool:
    """Whether `env` turns tracing on (see the module's docstring)."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return False
    exporter = env.get("OTEL_TRACES_EXPORTER", "").strip().lower()
    if exporter:
        return exporter != "none"
    return any(env.get(name, "").strip() for name in _ON_ENV)


def configure(service: str, env: Mapping[str, str] | None = None) -> bool:
    """Set up the SDK for this process when `env` (os.environ) asks for it; True when on.
    TracingSettingError for a setting this build does not support (named, with what to do)."""
    global ENABLED, _tracer
    env = os.environ if env is None else env
    if ENABLED or not wanted(env):
        return ENABLED
    exporters = [e.strip().lower() for e in env.get("OTEL_TRACES_EXPORTER", "otlp").split(",") if e.strip()]
    unknown = sorted(set(exporters) - set(_EXPORTERS))
    if unknown:
        raise TracingSettingError(
            f"OTEL_TRACES_EXPORTER={','.join(unknown)} is not supported: use otlp, console or none"
        )
    protocol = env.get("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL") or env.get("OTEL_EXPORTER_OTLP_PROTOCOL")
    if "otlp" in exporters and protocol not in (None, "", "http/protobuf"):
        raise TracingSettingError(
            f"OTLP protocol {protocol!r} is not supported: spans go out as http/protobuf "
            "(unset OTEL_EXPORTER_OTLP_PROTOCOL, and point the endpoint at the collector's HTTP port, 4318)"
        )
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError as error:
        raise TracingSettingError(
            f"tracing is asked for (OTEL_*) but OpenTelemetry is not installed: pip install "
            f"'guildhall[tracing]' ({error.name} is missing)"
        ) from None

    resource = Resource.create({"service.name": env.get("OTEL_SERVICE_NAME") or service})
    provider = TracerProvider(resource=resource)
    for name in exporters:
        if name == "otlp":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        else:
            provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
    trace.set_tracer_provider(provider)
    _tracer = trace.get_tracer("guildhall")
    ENABLED = True
    return True


def shutdown() -> None:
    """Export the spans still buffered (at a process's stop)."""
    if ENABLED:
        from opentelemetry import trace

        provider = trace.get_tracer_provider()
        getattr(provider, "shutdown", lambda: None)()


def instrument_redis() -> None:
    """Trace every redis-py command (when on)."""
    if ENABLED:
        from opentelemetry.instrumentation.redis import RedisInstrumentor

        RedisInstrumentor().instrument()


def _filter() -> Any:
    from opentelemetry.instrumentation.grpc import filters

    untraced = [filters.method_name(m) for m in _UNTRACED_METHODS]
    untraced += [filters.service_name(s) for s in _UNTRACED_SERVICES]
    return filters.negate(filters.any_of(*untraced))


def server_interceptors() -> list[Any]:
    """A grpc.aio server's interceptors: a span per call in, its parent from the caller's
    metadata (none when off)."""
    if not ENABLED:
        return []
    from opentelemetry.instrumentation.grpc import aio_server_interceptor

    return [aio_server_interceptor(filter_=_filter())]  # type: ignore[no-untyped-call]


def client_interceptors() -> list[Any]:
    """A grpc.aio channel's interceptors: a span per unary call out, the trace context in its
    metadata (none when off)."""
    if not ENABLED:
        return []
    from opentelemetry.instrumentation.grpc import aio_client_interceptors

    return list(aio_client_interceptors(filter_=_filter()))  # type: ignore[no-untyped-call]


def inject(carrier: MutableMapping[str, str]) -> None:
    """Write the current trace context (W3C traceparent/tracestate) into `carrier`."""
    from opentelemetry import propagate

    propagate.inject(carrier)


@contextlib.contextmanager
def span(
    name: str,
    *,
    kind: str = "internal",
    carrier: Mapping[str, str] | None = None,
    attributes: Mapping[str, Any] | None = None,
) -> Iterator[Any]:
    """A span made current for the block: its parent from `carrier` (a trace context another
    process sent) when given, else the current span. Only call it when ENABLED."""
    from opentelemetry import propagate, trace

    parent = propagate.extract(carrier) if carrier else None
    with _tracer.start_as_current_span(
        name, context=parent, kind=getattr(trace.SpanKind, kind.upper()), attributes=attributes
    ) as current:
        yield current


@contextlib.contextmanager
def new_trace(name: str, *, attributes: Mapping[str, Any] | None = None) -> Iterator[Any]:
    """A span that starts a trace of its own, linked to the current span (an action on a stream:
    one trace per action, not one per stream). Only call it when ENABLED."""
    from opentelemetry import context, trace

    links = []
    current = trace.get_current_span().get_span_context()
    if current.is_valid:
        links.append(trace.Link(current))
    with _tracer.start_as_current_span(
        name, context=context.Context(), links=links, attributes=attributes
    ) as current_span:
        yield current_span


def log_trace_ids(_logger: Any, _method: str, event: dict[str, Any]) -> dict[str, Any]:
    """A structlog processor: the current span's trace and span ids on the line (W3C hex)."""
    from opentelemetry import trace

    context = trace.get_current_span().get_span_context()
    if context.is_valid:
        event.setdefault("trace_id", format(context.trace_id, "032x"))
        event.setdefault("span_id", format(context.span_id, "016x"))
    return event
