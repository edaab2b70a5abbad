"""GatewayService over HTTP: the Connect protocol (JSON and binary; unary and server streaming;
HTTP/1.1 and HTTP/2 cleartext), for browsers, curl and any Connect client.

The same servicer as the gRPC port answers every call: `ConnectService` hands each request to
the servicer method the gRPC server calls, with a context that looks like grpc.aio's to it
(`invocation_metadata` from the HTTP headers, `abort` raising the matching Connect error,
trailing metadata as Connect trailers). So authentication (`authorization: Bearer ...`), the scope
table, quotas, size limits, request ids, log lines, metrics and the fault-to-status mapping are
the gRPC port's, not a copy. The bidirectional `Play` stream is gRPC only (UNIMPLEMENTED here).

`connect-python` (`connectrpc`) speaks the protocol; Hypercorn serves it as ASGI in the gateway's
own event loop. Around it, `HttpApp` adds what a public HTTP port needs: CORS for a configured
list of origins (none by default), a request-body limit enforced while reading, a client that
goes away ending its stream at once, `/healthz`, `/openapi.json` (gateway/api/openapi.py), and
optionally the reference web table's static files (`WEB_DIR`).
"""

from __future__ import annotations

import asyncio
import json
import mimetypes
import sys
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable, Iterable, Mapping, Sequence
from http import HTTPStatus
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import grpc
import structlog
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from guildhall.gateway.v1 import gateway_pb2
from guildhall.gateway.v1.gateway_pb2_grpc import GatewayServiceServicer

from gateway.api import jsonfields
from gateway.api.httpstatus import http_semantics, refused_for_size
from gateway.api.inflate import BoundedGzip
from gateway.api.wire import MAX_INFLATED_BYTES, MAX_REQUEST_BYTES, TooLarge
from gateway.auth import PUBLIC, SCOPES
from services import tracing

_log = structlog.get_logger("http")

SERVICE = gateway_pb2.DESCRIPTOR.services_by_name["GatewayService"]
SERVICE_PATH = f"/{SERVICE.full_name}/"
# Request headers a browser may send (the preflight answers with these) and response headers a page
# may read (Connect's own, the request id and the quota hint).
CORS_ALLOW_HEADERS = (
    "authorization",
    "content-type",
    "connect-protocol-version",
    "connect-timeout-ms",
    "connect-accept-encoding",
    "connect-content-encoding",
    "content-encoding",
    "accept-encoding",
    "x-request-id",
    "x-user-agent",
)
CORS_EXPOSE_HEADERS = (
    "x-request-id",
    "trailer-retry-after-ms",
    "retry-after",
    "content-encoding",
    "connect-content-encoding",
    "grpc-status",
    "grpc-message",
)
CORS_MAX_AGE_S = 7200

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]


def _snake(name: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in name).lstrip("_")


def connect_code(status: grpc.StatusCode) -> Code:
    """The Connect code of a gRPC status (the same names; Connect spells CANCELED with one L)."""
    return Code[status.name.replace("CANCELLED", "CANCELED")]


class _Context:
    """What the servicer's `unary`/`streaming` decorators use of a grpc.aio context, over HTTP."""

    def __init__(self, ctx: RequestContext[Any, Any], request_id: str) -> None:
        self._ctx = ctx
        # The id echoed is the one the servicer logs: a missing or over-long one is replaced.
        metadata = [(key.lower(), value) for key, value in ctx.request_headers().allitems()]
        metadata = [(key, value) for key, value in metadata if key != "x-request-id"]
        self._metadata = (*metadata, ("x-request-id", request_id))

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def peer(self) -> str:
        """The client's address as gRPC writes a peer ("ipv4:1.2.3.4:5", "ipv6:[::1]:5")."""
        host, _, port = (self._ctx.client_address() or "").rpartition(":")
        return f"ipv6:[{host}]:{port}" if ":" in host else f"ipv4:{host}:{port}"

    def time_remaining(self) -> float | None:
        """Seconds left of the caller's deadline (Connect's timeout, gRPC's grpc-timeout on the
        admin listener), None without one: as grpc.aio's context says it."""
        left = self._ctx.timeout_ms()
        return None if left is None else left / 1000

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        trailers = self._ctx.response_trailers()
        for key, value in metadata:
            trailers[key] = value

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        if isinstance(sys.exception(), TooLarge):  # the servicer answers a field over its limit
            refused_for_size()
        raise ConnectError(connect_code(code), details)


def _request_id(ctx: RequestContext[Any, Any]) -> str:
    """The caller's x-request-id (as the gRPC port takes it), else a new one; echoed in a header."""
    given = ctx.request_headers().get("x-request-id", "")
    request_id = given if 0 < len(given) <= 64 else uuid.uuid4().hex[:16]
    ctx.response_headers()["x-request-id"] = request_id
    return request_id


class ConnectService:
    """GatewayService for connect-python: each unary and server-streaming RPC, by its generated
    snake_case name, calls the gRPC servicer's method of the same RPC."""

    def __init__(self, servicer: Any, service: Any = SERVICE, base: type = GatewayServiceServicer) -> None:
        self.rpcs: list[str] = []
        for method in service.methods:
            handler = getattr(servicer, method.name, None)
            if getattr(type(servicer), method.name, None) is getattr(base, method.name, 0):
                handler = None  # the generated base's placeholder
            if method.client_streaming:  # Play: bidirectional, gRPC only
                setattr(self, _snake(method.name), _unimplemented(method.name, stream=True, grpc=True))
                continue
            if handler is None:  # in the proto, not (yet) served: UNIMPLEMENTED, as over gRPC
                setattr(self, _snake(method.name), _unimplemented(method.name, method.server_streaming))
                continue
            adapter: Callable[..., Any] = (
                self._streaming(handler)
                if method.server_streaming
                else self._unary(handler, f"/{service.full_name}/{method.name}")
            )
            setattr(self, _snake(method.name), adapter)
            self.rpcs.append(method.name)

    @staticmethod
    def _unary(handler: Callable[..., Awaitable[Any]], span_name: str) -> Callable[..., Awaitable[Any]]:
        """The RPC over HTTP; traced when tracing is on, as the gRPC port's calls are (the
        caller's trace continued from its `traceparent` header). Streams are not: a span would
        last as long as the stream."""
        attributes = {"rpc.system": "connect_rpc"}

        async def call(request: Any, ctx: RequestContext[Any, Any]) -> Any:
            structlog.contextvars.bind_contextvars(transport="connect")
            context = _Context(ctx, _request_id(ctx))
            if not tracing.ENABLED:
                return await handler(request, context)
            carrier = dict(context.invocation_metadata())
            with tracing.span(span_name, kind="server", carrier=carrier, attributes=attributes):
                return await handler(request, context)

        return call

    @staticmethod
    def _streaming(handler: Callable[..., AsyncGenerator[Any, None]]) -> Callable[..., AsyncIterator[Any]]:
        async def call(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
            structlog.contextvars.bind_contextvars(transport="connect")
            stream = handler(request, _Context(ctx, _request_id(ctx)))
            try:
                async for message in stream:
                    yield message
            finally:
                await stream.aclose()

        return call


def _grpc_only(rpc: str) -> str:
    return f"{rpc} is served over gRPC only; over HTTP use SubmitAction and Watch"


def _unimplemented(rpc: str, stream: bool, grpc: bool = False) -> Callable[..., Any]:
    message = _grpc_only(rpc) if grpc else f"{rpc} is not implemented by this gateway"

    async def unary(request: Any, ctx: RequestContext[Any, Any]) -> Any:
        raise ConnectError(Code.UNIMPLEMENTED, message)

    async def streaming(request: Any, ctx: RequestContext[Any, Any]) -> AsyncIterator[Any]:
        raise ConnectError(Code.UNIMPLEMENTED, message)
        yield  # an async generator, as connect-python expects of a streaming handler

    return streaming if stream else unary


def _install_decode_errors() -> None:
    """A request body that is not the RPC's message is INVALID_ARGUMENT (as on the gRPC port,
    gateway/api/undecodable.py), not connect-python's UNKNOWN: its codecs are wrapped once."""
    from connectrpc import _codec

    for name, codec in list(_codec._codecs.items()):
        if isinstance(codec, _InvalidArgumentCodec):
            continue
        _codec._codecs[name] = _InvalidArgumentCodec(codec)


class _InvalidArgumentCodec:
    """Binary: the codec's own parse, its failure INVALID_ARGUMENT. JSON (issue 33): the game's JSON
    as JSON values both ways, and a shape that is not the message's named with the form it
    expects (gateway/api/jsonfields.py)."""

    def __init__(self, codec: Any) -> None:
        self._codec = codec
        self._json = str(codec.name()).startswith("json")

    def name(self) -> str:
        return str(self._codec.name())

    def encode(self, message: Any) -> bytes:
        if self._json:
            return jsonfields.encode(message)
        return bytes(self._codec.encode(message))

    def decode(self, data: bytes | bytearray, message: Any) -> Any:
        if self._json:
            try:
                return jsonfields.decode(data, message)
            except jsonfields.ShapeError as exc:
                raise ConnectError(Code.INVALID_ARGUMENT, str(exc)) from None
        try:
            return self._codec.decode(data, message)
        except Exception as exc:
            rpc = type(message).__name__.removesuffix("Request")
            kind = "JSON" if self.name().startswith("json") else "protobuf"
            raise ConnectError(
                Code.INVALID_ARGUMENT, f"the {rpc} request is not valid {kind}: {str(exc)[:200]}"
            ) from None


def build_connect_app(servicer: Any) -> Any:
    """The connect-python ASGI application of GatewayService over `servicer`."""
    from guildhall.gateway.v1.gateway_connect import GatewayServiceASGIApplication

    _install_decode_errors()
    # Requests inflate with a running limit (gateway/api/inflate.py), not whole and then measured.
    return GatewayServiceASGIApplication(
        ConnectService(servicer),
        read_max_bytes=MAX_REQUEST_BYTES,
        compressions=[BoundedGzip(MAX_INFLATED_BYTES)],
    )


def build_admin_connect_app(servicer: Any) -> Any:
    """Issue 34: guildhall.admin.v1.AdminService over `servicer` (gateway/api/admin.py), the
    same adapter as GatewayService's; HttpApp serves it at ADMIN_PATH."""
    from guildhall.admin.v1 import admin_pb2
    from guildhall.admin.v1.admin_connect import AdminServiceASGIApplication
    from guildhall.admin.v1.admin_pb2_grpc import AdminServiceServicer

    _install_decode_errors()
    service = admin_pb2.DESCRIPTOR.services_by_name["AdminService"]
    return AdminServiceASGIApplication(
        ConnectService(servicer, service, AdminServiceServicer),
        read_max_bytes=MAX_REQUEST_BYTES,
        compressions=[BoundedGzip(MAX_INFLATED_BYTES)],
    )


ADMIN_PATH = "/guildhall.admin.v1.AdminService/"
# Issue 43: what the public ports answer an AdminService call.
ADMIN_ELSEWHERE = (
    "guildhall.admin.v1.AdminService is not served on the public ports: call the gateway's admin "
    "listener (ADMIN_PORT, default 50052; the gateway-admin Service in Kubernetes)"
)


# -- the HTTP port around it ---------------------------------------------------------------------


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return ""


def _compressed(scope: Scope) -> bool:
    """Whether the request's body (or a stream's messages, or a GET's message) is compressed."""
    for name in (b"content-encoding", b"connect-content-encoding", b"grpc-encoding"):
        if _header(scope, name).strip().lower() not in ("", "identity"):
            return True
    query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
    return query.get("compression", ["identity"])[0].lower() not in ("", "identity")


def _public(scope: Scope, admin: bool = False) -> bool:
    """Whether the RPC a path names needs no credentials (the scope table's `public`; every admin
    RPC needs an admin key)."""
    if admin:
        return False
    rpc = str(scope.get("path", "")).removeprefix(SERVICE_PATH)
    return PUBLIC in SCOPES.get(rpc, frozenset())


class HttpApp:
    """The gateway's HTTP port: Connect at /guildhall.gateway.v1.GatewayService/<Rpc>, CORS,
    /healthz, and the web table's static files when a directory is given. Issue 43: the admin
    listener is an HttpApp too, with AdminService alone (`connect_app` None, `admin_app` given):
    gRPC and Connect on one port, apart from the public ones."""

    def __init__(
        self,
        connect_app: Any,
        *,
        cors_origins: Sequence[str] = (),
        web_dir: str | Path | None = None,
        stopping: asyncio.Event | None = None,
        max_body_bytes: int = MAX_REQUEST_BYTES,
        admin_app: Any = None,
        feeds: Any = None,
        publishable_key: str = "",
    ) -> None:
        self._connect = connect_app
        self._feeds = feeds  # issue 33: the Server-Sent Events feeds (gateway/api/sse.py), when served
        # Issue 32: the page's configuration at /config.json: the tenant's publishable key (a
        # browser never holds a secret; PUBLISHABLE_KEY), or none (the page then asks for one).
        self._config = json.dumps({"publishableKey": publishable_key}).encode()
        self._admin = admin_app  # issue 34: AdminService at ADMIN_PATH, when served
        self._origins = frozenset(o.rstrip("/") for o in cors_origins if o)
        self._any_origin = "*" in self._origins
        self._web = Path(web_dir).resolve() if web_dir else None
        self._stopping = stopping or asyncio.Event()
        self._max_body = max_body_bytes

    # -- ASGI ------------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return  # no websockets
        path = str(scope.get("path", "/"))
        origin = _header(scope, b"origin")
        if origin and not self._origin_allowed(origin, scope):
            await _connect_error(
                send,
                403,
                "permission_denied",
                f"origin {origin} may not call this gateway: list it in CORS_ORIGINS",
                [(b"vary", b"Origin")],
            )
            return
        cors = self._cors_headers(origin) if origin else []
        if scope["method"] == "OPTIONS":
            await self._preflight(scope, send, cors)
            return
        if path.startswith(SERVICE_PATH) and self._connect is not None:
            await self._rpc(scope, receive, http_semantics(_json_errors(_with_headers(send, cors))))
        elif path.startswith(ADMIN_PATH):
            if self._admin is None:
                await _connect_error(send, 404, "unimplemented", ADMIN_ELSEWHERE, cors)
            else:
                admin_send = http_semantics(_json_errors(_with_headers(send, cors)))
                await self._rpc(scope, receive, admin_send, self._admin)
        elif path.startswith(FEED_PREFIX) and self._feeds is not None:
            await self._feeds(scope, receive, http_semantics(_with_headers(send, cors)))
        elif path == "/healthz":
            if self._stopping.is_set():
                await _connect_error(send, 503, "unavailable", "draining: call another replica", cors)
            else:
                await _plain(send, 200, b"ok\n", cors)
        elif self._connect is None:  # the admin listener: nothing else
            await _connect_error(send, 404, "not_found", f"only AdminService is served here ({ADMIN_PATH})")
        elif path == "/config.json" and scope["method"] in ("GET", "HEAD"):
            headers = [(b"content-type", b"application/json"), (b"cache-control", b"no-cache"), *cors]
            await send({"type": "http.response.start", "status": 200, "headers": headers})
            await send(
                {"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else self._config}
            )
        elif path == "/openapi.json" and scope["method"] in ("GET", "HEAD"):
            await self._openapi(scope, send, cors)
        elif scope["method"] in ("GET", "HEAD") and self._web is not None:
            await self._static(path, scope, send)
        else:
            await _connect_error(send, 404, "not_found", _NOT_FOUND.format(path=path[:100]), cors)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await send({"type": "lifespan.shutdown.complete"})
                return

    # -- CORS ------------------------------------------------------------------------------------

    def _origin_allowed(self, origin: str, scope: Scope) -> bool:
        if self._any_origin or origin.rstrip("/") in self._origins:
            return True
        # The page the gateway serves itself (same scheme, host and port) needs no listing.
        host = _header(scope, b"host")
        return bool(host) and origin == f"{scope.get('scheme', 'http')}://{host}"

    def _cors_headers(self, origin: str) -> list[tuple[bytes, bytes]]:
        return [
            (b"access-control-allow-origin", origin.encode("latin-1")),
            (b"access-control-expose-headers", ", ".join(CORS_EXPOSE_HEADERS).encode()),
            (b"vary", b"Origin"),
        ]

    async def _preflight(self, scope: Scope, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
        method = _header(scope, b"access-control-request-method").upper()
        asked = [h.strip().lower() for h in _header(scope, b"access-control-request-headers").split(",")]
        refused = [h for h in asked if h and h not in CORS_ALLOW_HEADERS]
        if not cors or method not in ("POST", "GET") or refused:
            why = f"headers {', '.join(refused)} are not allowed" if refused else f"method {method or '?'}"
            await _connect_error(
                send, 403, "permission_denied", f"preflight refused: {why}", [(b"vary", b"Origin")]
            )
            return
        headers = [
            *cors,
            (b"access-control-allow-methods", b"POST, GET"),
            (b"access-control-allow-headers", ", ".join(CORS_ALLOW_HEADERS).encode()),
            (b"access-control-max-age", str(CORS_MAX_AGE_S).encode()),
        ]
        await send({"type": "http.response.start", "status": 204, "headers": headers})
        await send({"type": "http.response.body", "body": b""})

    # -- RPCs ------------------------------------------------------------------------------------

    async def _rpc(self, scope: Scope, receive: Receive, send: Send, app: Any = None) -> None:
        # Refused as cheaply as possible, before a byte of the body is read (issues 30 and 39): a
        # declared length over the limit (413: it would never fit), and a call that needs
        # credentials and carries none (the servicer would refuse it anyway: its body is not
        # inflated nor parsed, so whatever it holds, an anonymous caller learns nothing from it).
        # Over HTTP/1.1 the unread body would be taken for the next request on the connection:
        # the answer closes it, so a client does not reuse it (HTTP/2 ends just the stream).
        unread = [(b"connection", b"close")] if scope.get("http_version", "1.1").startswith("1") else []
        length = _header(scope, b"content-length")
        if length.isdigit() and int(length) > self._max_body:
            await _connect_error(
                send, 413, "resource_exhausted", f"a request is at most {self._max_body} bytes", unread
            )
            return
        if not _header(scope, b"authorization") and not _public(scope, app is not None):
            await _connect_error(
                send,
                401,
                "unauthenticated",
                "no credentials: send 'authorization: Bearer <API key or token>' (a request without "
                "them is not read)",
                unread,
            )
            return
        checked = await _check_call(scope, receive, send, GATEWAY if app is None else None)
        if checked is None:
            return
        receive = checked
        task = asyncio.current_task()
        left = self._max_body
        gone = False
        # A server stream's request is read whole before its first answer, and nothing reads the
        # connection after that: a listener does, so a client that leaves (an aborted fetch)
        # ends its call and frees its stream slot now, not at the match's next update (issue 39
        # item 12), as gRPC cancels a call whose client is gone.
        streaming = _header(scope, b"content-type").lower().startswith("application/connect+")
        listener: asyncio.Task[None] | None = None

        def leave() -> None:
            nonlocal gone
            if not gone:
                gone = True
                if task is not None:
                    task.cancel()

        async def until_disconnect() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass
            leave()

        async def limited_receive() -> Mapping[str, Any]:
            nonlocal left, listener
            message = await receive()
            if message["type"] == "http.request":
                left -= len(message.get("body", b""))
                if left < 0:
                    refused_for_size()
                    raise ConnectError(
                        Code.RESOURCE_EXHAUSTED, f"a request is at most {self._max_body} bytes"
                    )
                if streaming and not message.get("more_body", False) and listener is None:
                    listener = asyncio.create_task(until_disconnect(), name="http-disconnect")
            elif message["type"] == "http.disconnect":
                leave()  # a parked Watch would otherwise wait for the match's next update to notice
            return message

        try:
            await (app or self._connect)(scope, limited_receive, send)
        except (asyncio.CancelledError, ConnectError, OSError):
            if not gone:
                raise
            if task is not None:
                task.uncancel()
        finally:
            if listener is not None:
                listener.cancel()

    async def _openapi(self, scope: Scope, send: Send, cors: list[tuple[bytes, bytes]]) -> None:
        """This port's OpenAPI 3.1 document (gateway/api/openapi.py), built from the descriptors once."""
        from gateway.api.openapi import document_json

        body = await asyncio.to_thread(document_json)
        headers = [
            (b"content-type", b"application/json"),
            (b"content-length", str(len(body)).encode()),
            *cors,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})

    # -- the web table ---------------------------------------------------------------------------

    async def _static(self, path: str, scope: Scope, send: Send) -> None:
        assert self._web is not None
        relative = path.lstrip("/") or "index.html"
        target = (self._web / relative).resolve()
        if target.is_dir():
            target = target / "index.html"
        if not target.is_relative_to(self._web) or not target.is_file():
            await _plain(send, 404, b"not found\n", [])
            return
        body = await asyncio.to_thread(target.read_bytes)
        kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
        if kind.startswith("text/") or kind in ("application/javascript", "application/json"):
            kind += "; charset=utf-8"
        headers = [
            (b"content-type", kind.encode()),
            (b"content-length", str(len(body)).encode()),
            (b"cache-control", b"no-cache"),
            (b"x-content-type-options", b"nosniff"),
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b"" if scope["method"] == "HEAD" else body})


def _with_headers(send: Send, extra: list[tuple[bytes, bytes]]) -> Send:
    if not extra:
        return send

    async def sending(message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), *extra]}
        await send(message)

    return sending


async def _plain(send: Send, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"text/plain; charset=utf-8"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _connect_error(
    send: Send, status: int, code: str, message: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """An HTTP error as Connect writes one: `{"code": ..., "message": ...}` (issue 33: every one)."""
    body = json.dumps({"code": code, "message": message}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body})


# -- issue 33: calls that are not Connect calls, answered with what to send instead --------------

FEED_PREFIX = "/v1/"
_NOT_FOUND = (
    "nothing is served at {path}: RPCs are POST /guildhall.gateway.v1.GatewayService/<Rpc> (Connect), "
    "live feeds GET /v1/matches/<match_id>/watch and GET /v1/tickets/<ticket_id>/watch (docs/http.md)"
)
# The Connect code of an HTTP status a library answered with an empty body (Connect's own mapping).
_HTTP_CODES = {
    400: "invalid_argument",
    401: "unauthenticated",
    403: "permission_denied",
    404: "not_found",
    405: "unimplemented",
    408: "deadline_exceeded",
    409: "aborted",
    413: "resource_exhausted",
    415: "invalid_argument",
    429: "resource_exhausted",
    499: "canceled",
    501: "unimplemented",
    503: "unavailable",
    504: "deadline_exceeded",
}
_JSON_TYPES = ("application/json", "application/proto", "application/x-protobuf", "application/protobuf")


def _rpc_table(service: Any, path: str) -> tuple[str, str, dict[str, bool]]:
    return service.name, path, {m.name: m.server_streaming for m in service.methods}


GATEWAY = _rpc_table(SERVICE, SERVICE_PATH)
_GRPC_ONLY = frozenset(m.name for m in SERVICE.methods if m.client_streaming)


def _admin_table() -> tuple[str, str, dict[str, bool]]:
    from guildhall.admin.v1 import admin_pb2

    return _rpc_table(admin_pb2.DESCRIPTOR.services_by_name["AdminService"], ADMIN_PATH)


class _Lazy:
    def __init__(self) -> None:
        self._table: tuple[str, str, dict[str, bool]] | None = None

    def get(self) -> tuple[str, str, dict[str, bool]]:
        if self._table is None:
            self._table = _admin_table()
        return self._table


_ADMIN = _Lazy()  # the admin protos load on first use


async def _check_call(
    scope: Scope, receive: Receive, send: Send, table: tuple[str, str, dict[str, bool]] | None
) -> Receive | None:
    """Answer a call that is not one with what to send instead (issue 33), before Connect reads
    it: an unknown RPC (404), a stream posted as a unary call or the reverse (415), a stream's
    request not in its Connect envelope (400). Else the receive to hand on (the envelope check
    reads the body's first chunk, given back first)."""
    service, prefix, rpcs = table if table is not None else _ADMIN.get()
    rpc = str(scope.get("path", "")).removeprefix(prefix)
    if rpc not in rpcs:
        await _connect_error(
            send,
            404,
            "unimplemented",
            f"{service} has no RPC named {rpc[:80]!r}; its RPCs: {', '.join(sorted(rpcs))}",
        )
        return None
    if scope["method"] != "POST":
        return receive  # Connect's GET for unary calls, or its 405
    kind = _header(scope, b"content-type").split(";")[0].strip().lower()
    if rpc in _GRPC_ONLY and not kind.startswith("application/connect+"):
        # Bidirectional (Play): say so, not how to post a stream (a Connect stream gets it in its end)
        await _connect_error(send, 501, "unimplemented", _grpc_only(rpc))
        return None
    stream = rpcs[rpc]
    if stream and kind in _JSON_TYPES:
        await _connect_error(
            send,
            415,
            "invalid_argument",
            f"{rpc} is a server stream: POST it with content-type application/connect+json, the request "
            "in one Connect envelope (a flags byte 0, the JSON's length as 4 big-endian bytes, the "
            f"JSON); from a shell, follow it with GET {_FEEDS.get(rpc, '/v1/...')} (Server-Sent Events, "
            "docs/http.md)",
        )
        return None
    if not stream and kind.startswith("application/connect+"):
        await _connect_error(
            send,
            415,
            "invalid_argument",
            f"{rpc} is a unary call: POST it with content-type application/json (or application/proto), "
            "the request message as the whole body, no envelope",
        )
        return None
    if (
        not kind.startswith("application/grpc")
        and kind not in _JSON_TYPES
        and not kind.startswith("application/connect+")
    ):
        expected = (
            "application/connect+json or application/connect+proto"
            if stream
            else "application/json or application/proto"
        )
        await _connect_error(
            send,
            415,
            "invalid_argument",
            f"content-type {kind or '(none)'} is not one {rpc} reads: send {expected}",
        )
        return None
    if not stream or not kind.startswith("application/connect+"):
        return receive
    # A stream's body is envelopes: the first byte is its flags (0, or 1 compressed).
    first: list[Mapping[str, Any]] = []
    head = b""
    while True:
        message = await receive()
        first.append(message)
        if message["type"] != "http.request":
            break
        head += bytes(message.get("body", b""))
        if len(head) >= 5 or not message.get("more_body", False):
            break
    if head[:1] not in (b"\x00", b"\x01") or len(head) < 5:
        what = "JSON with no envelope" if head.lstrip()[:1] in (b"{", b"[") else "not a Connect envelope"
        await _connect_error(
            send,
            400,
            "invalid_argument",
            f"{rpc}'s request is {what}: a stream's request is one envelope, a flags byte 0 and the "
            "message's length as 4 big-endian bytes before it (a Connect client writes it); from a "
            f"shell, GET {_FEEDS.get(rpc, '/v1/...')} instead (Server-Sent Events, docs/http.md)",
        )
        return None

    async def replaying() -> Mapping[str, Any]:
        return first.pop(0) if first else await receive()

    return replaying


_FEEDS = {"Watch": "/v1/matches/<match_id>/watch", "WatchTicket": "/v1/tickets/<ticket_id>/watch"}


def _json_errors(send: Send) -> Send:
    """An error a library answered without a body (connect-python's 404, 405, 415) gets a Connect
    error body, so every HTTP error reads the same."""
    held: dict[str, Any] = {}

    async def sending(message: Mapping[str, Any]) -> None:
        if message["type"] == "http.response.start" and int(message["status"]) >= 400:
            headers = list(message.get("headers", ()))
            if not any(k.lower() == b"content-type" and b"json" in bytes(v) for k, v in headers):
                held["start"] = {**message, "headers": headers}
                return
        if "start" in held and message["type"] == "http.response.body":
            start = held.pop("start")
            status = int(start["status"])
            text = bytes(message.get("body", b"")).decode("utf-8", "replace").strip()
            error = {"code": _HTTP_CODES.get(status, "unknown"), "message": text or HTTPStatus(status).phrase}
            headers = [
                (k, v) for k, v in start["headers"] if k.lower() not in (b"content-type", b"content-length")
            ]
            await send({**start, "headers": [*headers, (b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": json.dumps(error).encode()})
            return
        await send(message)

    return sending


def static_types() -> None:
    """File types the web table ships, whatever the host's mime database says."""
    for suffix, kind in (
        (".js", "application/javascript"),
        (".mjs", "application/javascript"),
        (".css", "text/css"),
        (".svg", "image/svg+xml"),
        (".map", "application/json"),
    ):
        mimetypes.add_type(kind, suffix)


static_types()
