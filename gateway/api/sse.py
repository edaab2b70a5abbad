"""Live feeds anyone can follow (issue 33): Watch and WatchTicket as Server-Sent Events on a GET,
for `curl -N`, a shell script or a browser's EventSource behind a proxy that adds credentials.

    GET /v1/matches/<match_id>/watch?from_version=N     (resume: Last-Event-ID: <version>)
    GET /v1/tickets/<ticket_id>/watch

Each update is one event whose data is one line of JSON, the same shapes as Connect's JSON codec
(gateway/api/jsonfields.py: views, legal actions and events as JSON values, not base64):

    id: 7
    event: update
    data: {"events": [...], "view": {...}}

A match update's id is the version it reaches, so a client that reconnects with
`Last-Event-ID` (EventSource does) resumes with no gap and no duplicate. A ticket's events are
`event: ticket`. A failure before the first event is an HTTP error with a Connect error body
(401, 403, 404, 429 ...); after it, an `event: error` with `{"code": ..., "message": ...}` ends the
feed. A match's feed ends after the update that finishes the match (`event: end`), a ticket's
when the ticket is matched, cancelled or expired; so `curl -N` returns by itself. An idle feed gets
a comment line every KEEPALIVE_S so proxies keep it open.

Nothing here is a second implementation: each feed calls the servicer's own Watch or WatchTicket
with the request's headers as metadata, so authentication (`authorization: Bearer ...`), the
scope table, the read quota, the caps on open streams per token and tenant (gateway/api/streams.py),
metrics and the log line are the gRPC port's.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import uuid
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any
from urllib.parse import parse_qs, unquote

import grpc
import structlog
from connectrpc.errors import ConnectError
from guildhall.gateway.v1 import gateway_pb2

from gateway.api import jsonfields

Scope = Mapping[str, Any]
Receive = Callable[[], Awaitable[Mapping[str, Any]]]
Send = Callable[[Mapping[str, Any]], Awaitable[None]]

KEEPALIVE_S = 15.0
_MATCH = re.compile(r"/v1/matches/([^/]+)/watch")
_TICKET = re.compile(r"/v1/tickets/(.+)/watch")  # ticket ids hold a slash (game/id)
# Connect's HTTP status of each code (connectrpc.com/docs/protocol, "Error codes").
HTTP_STATUS = {
    "canceled": 499,
    "unknown": 500,
    "invalid_argument": 400,
    "deadline_exceeded": 504,
    "not_found": 404,
    "already_exists": 409,
    "permission_denied": 403,
    "resource_exhausted": 429,
    "failed_precondition": 400,
    "aborted": 409,
    "out_of_range": 400,
    "unimplemented": 501,
    "internal": 500,
    "unavailable": 503,
    "data_loss": 500,
    "unauthenticated": 401,
}


class _Abort(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class _Context:
    """What the servicer's `streaming` decorator uses of a grpc.aio context, over a GET."""

    def __init__(self, scope: Scope) -> None:
        metadata = [
            (bytes(k).decode("latin-1").lower(), bytes(v).decode("latin-1"))
            for k, v in scope.get("headers", ())
        ]
        # The caller's id (1-64 characters) as the gRPC port takes it, else a new one: the id the
        # feed's header echoes is the one the servicer logs.
        given = [v for k, v in metadata if k == "x-request-id"]
        request_id = given[0] if given and 0 < len(given[0]) <= 64 else uuid.uuid4().hex[:16]
        metadata = [(k, v) for k, v in metadata if k != "x-request-id"]
        self._metadata = (*metadata, ("x-request-id", request_id))
        self.trailers: dict[str, str] = {}

    def invocation_metadata(self) -> tuple[tuple[str, str], ...]:
        return self._metadata

    def set_trailing_metadata(self, metadata: Iterable[tuple[str, str]]) -> None:
        self.trailers.update(metadata)

    async def abort(self, code: grpc.StatusCode, details: str) -> None:
        raise _Abort(code.name.lower().replace("cancelled", "canceled"), details)

    def request_id(self) -> str:
        return next(v for k, v in self._metadata if k == "x-request-id")


def _error_body(code: str, message: str) -> bytes:
    return json.dumps({"code": code, "message": message}).encode()


async def _refuse(
    send: Send, code: str, message: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": HTTP_STATUS.get(code, 500),
            "headers": [(b"content-type", b"application/json"), *(extra or [])],
        }
    )
    await send({"type": "http.response.body", "body": _error_body(code, message)})


def _header(scope: Scope, name: bytes) -> str:
    for key, value in scope.get("headers", ()):
        if bytes(key).lower() == name:
            return bytes(value).decode("latin-1")
    return ""


class Feeds:
    """The ASGI handler of /v1/...: the feeds of one servicer."""

    def __init__(self, servicer: Any, keepalive_s: float = KEEPALIVE_S) -> None:
        self._servicer = servicer
        self._keepalive_s = keepalive_s

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = str(scope.get("path", ""))
        match, ticket = _MATCH.fullmatch(path), _TICKET.fullmatch(path)
        if match is None and ticket is None:
            await _refuse(
                send,
                "not_found",
                f"no feed at {path[:100]}: GET /v1/matches/<match_id>/watch?from_version=N or "
                "GET /v1/tickets/<ticket_id>/watch (docs/http.md)",
            )
            return
        if scope["method"] != "GET":
            await _refuse(
                send, "unimplemented", f"a feed is read with GET, not {scope['method']}", [(b"allow", b"GET")]
            )
            return
        query = parse_qs(bytes(scope.get("query_string", b"")).decode("latin-1"))
        if match is not None:
            since = _header(scope, b"last-event-id") or query.get("from_version", ["0"])[0]
            if not since.isascii() or not since.isdigit() or len(since) > 19:
                await _refuse(
                    send,
                    "invalid_argument",
                    "from_version (or Last-Event-ID) must be a version: a whole number, 0 for the start",
                )
                return
            request: Any = gateway_pb2.WatchRequest(match_id=unquote(match.group(1)), from_version=int(since))
            method, name = self._servicer.Watch, "update"
        else:
            assert ticket is not None
            request = gateway_pb2.WatchTicketRequest(ticket_id=unquote(ticket.group(1)))
            method, name = self._servicer.WatchTicket, "ticket"
        await self._feed(scope, receive, send, method, request, name)

    async def _feed(
        self, scope: Scope, receive: Receive, send: Send, method: Any, request: Any, name: str
    ) -> None:
        context = _Context(scope)
        structlog.contextvars.bind_contextvars(transport="sse")
        task = asyncio.current_task()
        gone = asyncio.Event()

        async def watch_disconnect() -> None:
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    gone.set()
                    if task is not None:
                        task.cancel()  # end the feed now, as a gRPC client going away does
                    return

        listener = asyncio.create_task(watch_disconnect())
        stream = method(request, context)
        lock = asyncio.Lock()
        started = False
        keepalive: asyncio.Task[None] | None = None

        async def write(data: bytes) -> None:
            async with lock:
                await send({"type": "http.response.body", "body": data, "more_body": True})

        async def ping() -> None:
            while True:
                await asyncio.sleep(self._keepalive_s)
                await write(b": keep-alive\n\n")

        try:
            async for message in stream:
                if not started:
                    started = True
                    await send(
                        {
                            "type": "http.response.start",
                            "status": 200,
                            "headers": [
                                (b"content-type", b"text/event-stream; charset=utf-8"),
                                (b"cache-control", b"no-cache"),
                                (b"x-accel-buffering", b"no"),  # nginx: do not buffer the feed
                                (b"x-request-id", context.request_id().encode()),
                            ],
                        }
                    )
                    keepalive = asyncio.create_task(ping())
                await write(_event(name, message))
                if name == "update" and message.HasField("view") and message.view.finished:
                    break  # nothing follows the end of a match: the feed ends (curl returns)
            if not started:  # a stream that ended before sending anything
                await _refuse(send, "not_found", "nothing to follow")
                return
            await write(b"event: end\ndata: {}\n\n")
        except (_Abort, ConnectError) as error:
            code = error.code if isinstance(error, _Abort) else str(error.code.value)
            text = error.message if isinstance(error, _Abort) else str(error.message)
            retry = context.trailers.get("retry-after-ms")
            if not started:
                extra = [(b"retry-after-ms", retry.encode())] if retry else []
                await _refuse(send, code, text, extra)
                return
            body = {"code": code, "message": text, **({"retry_after_ms": int(retry)} if retry else {})}
            await write(b"event: error\ndata: " + json.dumps(body).encode() + b"\n\n")
        except asyncio.CancelledError:
            if not gone.is_set():
                raise
            if task is not None:
                task.uncancel()
            return
        finally:
            if keepalive is not None:
                keepalive.cancel()
            listener.cancel()
            with contextlib.suppress(BaseException):
                await stream.aclose()
        with contextlib.suppress(OSError):
            await send({"type": "http.response.body", "body": b""})


def _event(name: str, message: Any) -> bytes:
    """One SSE event: the message as one line of JSON; a match update's id is its version."""
    data = json.dumps(jsonfields.to_dict(message), separators=(",", ":"), ensure_ascii=False)
    head = f"event: {name}\n"
    if name == "update":
        version = message.view.version if message.HasField("view") else 0
        if message.events:
            version = max(version, message.events[-1].version)
        head = f"id: {version}\n" + head
    return (head + "data: " + data + "\n\n").encode()
