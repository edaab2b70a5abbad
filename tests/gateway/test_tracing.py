"""One action is one trace across processes (issue 43, item 4): a gateway and a rules service run
as real processes with tracing on, both exporting OTLP over HTTP to a tiny collector this test
runs; a SubmitAction sent with the caller's own trace context comes back as one trace holding the
gateway's server span, its rules call, the rules service's span for that call (over the Session
stream, the context carried per message) and the Redis append, and the gateway's log line for the
call names the trace; an HTTP (Connect) call continues its caller's trace too. Tracing is off
unless the standard variables turn it on, and a setting it cannot honour stops the start."""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2, gateway_pb2_grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2

from devstack.stack import Stack
from guildhall_client import Client
from services import tracing
from tests.gateway.conftest import ACME_KEY, private_database, tenants_document

GAME = "rattus_cartus"


@dataclass(frozen=True)
class Span:
    service: str
    trace_id: str
    span_id: str
    parent_id: str
    name: str
    kind: int
    attributes: dict[str, Any]
    links: tuple[str, ...]  # the trace ids of its links


class Collector:
    """An OTLP/HTTP receiver (POST /v1/traces, protobuf) on loopback, keeping every span."""

    def __init__(self) -> None:
        self.spans: list[Span] = []
        self._lock = threading.Lock()
        collector = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = trace_service_pb2.ExportTraceServiceRequest.FromString(body)
                collector._keep(request)
                answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def _keep(self, request: Any) -> None:
        for resource_spans in request.resource_spans:
            attributes = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
            for scope_spans in resource_spans.scope_spans:
                for s in scope_spans.spans:
                    span = Span(
                        attributes["service.name"],
                        s.trace_id.hex(),
                        s.span_id.hex(),
                        s.parent_span_id.hex(),
                        s.name,
                        s.kind,
                        {a.key: _value(a.value) for a in s.attributes},
                        tuple(link.trace_id.hex() for link in s.links),
                    )
                    with self._lock:
                        self.spans.append(span)

    def trace(self, trace_id: str) -> list[Span]:
        with self._lock:
            return [s for s in self.spans if s.trace_id == trace_id]

    def __enter__(self) -> Collector:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()


def _value(value: Any) -> Any:
    return getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None


@pytest.fixture
def traced(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[tuple[Stack, Collector, Path]]:
    """A gateway and the game's rules service, both exporting spans to a collector of ours."""
    monkeypatch.setenv("REDIS_URL", private_database(redis_url, 12))
    with Collector() as collector:
        # Every child process inherits these: the standard variables are the whole configuration.
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.endpoint)
        monkeypatch.setenv("OTEL_BSP_SCHEDULE_DELAY", "100")  # export within 0.1 s (default 5 s)
        logs = tmp_path / "logs"
        http = {"HTTP_PORT": "any"}
        with Stack([GAME], gateways=1, log_dir=logs, tenants=tenants_document(), gateway_env=http) as stack:
            yield stack, collector, logs


def _wait_for(condition: Any, what: str, timeout_s: float = 20.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def test_one_submit_action_is_one_trace_across_gateway_rules_service_and_redis(
    traced: tuple[Stack, Collector, Path],
) -> None:
    stack, collector, logs = traced
    target = stack.gateway_targets[0]
    with Client(target, api_key=ACME_KEY) as client:
        created = client.create_match(GAME, ["p0", "p1"])
        seat = next(
            s for s in created.seats if client.for_token(s.token).get_view(created.match_id).raw_legal_actions
        )
        action = client.for_token(seat.token).get_view(created.match_id).raw_legal_actions[0]

    # The caller's own trace: the gateway continues it (W3C traceparent in the call's metadata).
    trace_id, caller_span = secrets.token_hex(16), secrets.token_hex(8)
    with grpc.insecure_channel(target) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        answer = stub.SubmitAction(
            gateway_pb2.SubmitActionRequest(match_id=created.match_id, action=action, command_id="traced-1"),
            metadata=(
                ("authorization", f"Bearer {seat.token}"),
                ("traceparent", f"00-{trace_id}-{caller_span}-01"),
            ),
            timeout=10,
        )
    assert answer.WhichOneof("result") == "accepted"

    # Every span read below. The call's own span ends last, after its answer is sent: its children
    # may be exported in an earlier batch, so waiting for them alone is not enough.
    wanted = {
        ("gateway", "/guildhall.gateway.v1.GatewayService/SubmitAction"),
        ("gateway", f"rules {GAME} validate"),
        (f"rules-{GAME}", f"{GAME} Validate"),
        ("gateway", "EVALSHA append"),
    }

    def complete() -> bool:
        return wanted <= {(s.service, s.name) for s in collector.trace(trace_id)}

    _wait_for(complete, "the gateway's, the rules service's and Redis's spans of the action")
    spans = collector.trace(trace_id)
    by_id = {s.span_id: s for s in spans}
    (server,) = [s for s in spans if s.name == "/guildhall.gateway.v1.GatewayService/SubmitAction"]
    assert server.service == "gateway" and server.parent_id == caller_span
    validate_call = next(s for s in spans if s.name == f"rules {GAME} validate")
    assert validate_call.service == "gateway"
    # The rules service's span of that very call: its parent is the gateway's client span,
    # though the call went as one message of a long-lived Session stream.
    validated = next(s for s in spans if s.service == f"rules-{GAME}" and s.name == f"{GAME} Validate")
    assert by_id[validated.parent_id] is validate_call
    assert validated.attributes["guildhall.game"] == GAME
    append = next(s for s in spans if s.name == "EVALSHA append")
    assert append.service == "gateway" and append.attributes["db.system"] == "redis"
    # Every span of the trace hangs under the caller's span, in one tree.
    for span in spans:
        ancestor = span
        while ancestor.parent_id in by_id:
            ancestor = by_id[ancestor.parent_id]
        assert ancestor.parent_id == caller_span, span

    # The gateway's canonical log line for the call names the trace.
    def logged() -> list[dict[str, Any]]:
        lines = (logs / "gateway-0.log").read_text().splitlines()
        parsed = [json.loads(line) for line in lines if line.startswith("{")]
        return [r for r in parsed if r.get("rpc") == "SubmitAction" and r.get("event") == "rpc"]

    _wait_for(logged, "the SubmitAction log line")
    assert [r["trace_id"] for r in logged()] == [trace_id]

    # Over HTTP (Connect) the caller's trace is continued from its traceparent header too.
    http_trace, http_caller = secrets.token_hex(16), secrets.token_hex(8)
    call = urllib.request.Request(
        f"http://127.0.0.1:{stack.http_port}/guildhall.gateway.v1.GatewayService/GetView",
        data=json.dumps({"matchId": created.match_id}).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {seat.token}",
            "traceparent": f"00-{http_trace}-{http_caller}-01",
        },
    )
    with urllib.request.urlopen(call, timeout=10) as answer:
        assert json.loads(answer.read())["matchId"] == created.match_id

    # The call's own span ends last: its children (the store's reads) may be exported first.
    def http_spans() -> list[Any]:
        return [s for s in collector.trace(http_trace) if s.name.endswith("/GetView")]

    _wait_for(http_spans, "the HTTP call's span")
    (http_span,) = http_spans()
    assert http_span.service == "gateway" and http_span.parent_id == http_caller


def test_tracing_is_off_unless_an_exporter_or_endpoint_is_named() -> None:
    assert not tracing.wanted({})
    assert not tracing.wanted({"OTEL_SERVICE_NAME": "gateway"})
    assert tracing.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"})
    assert tracing.wanted({"OTEL_TRACES_EXPORTER": "otlp"})
    assert not tracing.wanted(
        {"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}
    )
    assert not tracing.wanted({"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"})


@pytest.mark.parametrize(
    ("env", "says"),
    [
        ({"OTEL_TRACES_EXPORTER": "jaeger"}, "use otlp, console or none"),
        ({"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "http/protobuf"),
    ],
)
def test_a_tracing_setting_this_build_cannot_honour_stops_the_start_with_what_to_do(
    env: dict[str, str], says: str
) -> None:
    with pytest.raises(tracing.TracingSettingError, match=says):
        tracing.configure("test", env)
    assert not tracing.ENABLED and not os.environ.get("OTEL_TRACES_EXPORTER")
