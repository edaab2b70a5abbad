"""Requests that are not valid protobuf get INVALID_ARGUMENT, not grpc.aio's UNKNOWN.

grpc.aio answers a request its deserializer cannot parse with UNKNOWN ("Unexpected DecodeError"),
which a client cannot tell from a server bug. This interceptor parses first and, on failure,
hands the handler a marker that it turns into INVALID_ARGUMENT before any servicer code runs, so
nothing is read or written for such a request (issue 15, found by fuzzing the gateway).
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import grpc

from gateway.api.wire import BadRequest


class _Undecodable:
    """Stands in for a request whose bytes are not the RPC's message."""

    def __init__(self, rpc: str) -> None:
        self.message = f"the {rpc} request is not valid protobuf"


class UndecodableMessage(BadRequest):
    """A message of a client stream that is not the RPC's message (INVALID_ARGUMENT)."""


class UndecodableRequests(grpc.aio.ServerInterceptor):  # type: ignore[misc]
    """Parse requests up front; answer garbage with INVALID_ARGUMENT.

    The wrapped handler of each method is built once and kept: grpc.aio asks the interceptor on
    every call, and building closures and a handler per call was CPU on the hot path for nothing
    (the registered handlers never change while the server runs). Only registered methods are
    kept, so unknown method names sent by a client cannot grow the table."""

    def __init__(self) -> None:
        self._wrapped: dict[str, grpc.RpcMethodHandler] = {}

    async def intercept_service(
        self,
        continuation: Callable[[grpc.HandlerCallDetails], Awaitable[grpc.RpcMethodHandler]],
        details: grpc.HandlerCallDetails,
    ) -> grpc.RpcMethodHandler:
        wrapped = self._wrapped.get(details.method)
        if wrapped is not None:
            return wrapped
        handler = await continuation(details)
        if handler is None:
            return handler
        wrapped = self._wrap(handler, details.method)
        self._wrapped[details.method] = wrapped
        return wrapped

    @staticmethod
    def _wrap(handler: grpc.RpcMethodHandler, method: str) -> grpc.RpcMethodHandler:
        if handler.request_deserializer is None:
            return handler
        rpc = method.rsplit("/", 1)[-1]
        parse = handler.request_deserializer

        def deserialize(data: bytes) -> Any:
            try:
                return parse(data)
            except Exception:  # protobuf's DecodeError, or the bytes are not this message at all
                return _Undecodable(rpc)

        if handler.stream_stream is not None:
            inner_bidi = handler.stream_stream

            async def checked(requests: AsyncIterator[Any]) -> AsyncIterator[Any]:
                async for request in requests:
                    if isinstance(request, _Undecodable):
                        # Raised where the handler reads its requests: it ends the stream with
                        # INVALID_ARGUMENT (gateway/api/faults.py) after whatever it has answered.
                        raise UndecodableMessage(request.message)
                    yield request

            async def bidi(
                requests: AsyncIterator[Any], context: grpc.aio.ServicerContext
            ) -> AsyncIterator[Any]:
                async for message in inner_bidi(checked(requests), context):
                    yield message

            return grpc.stream_stream_rpc_method_handler(
                bidi, request_deserializer=deserialize, response_serializer=handler.response_serializer
            )
        if handler.request_streaming:
            return handler

        if handler.unary_unary is not None:
            inner = handler.unary_unary

            async def unary(request: Any, context: grpc.aio.ServicerContext) -> Any:
                if isinstance(request, _Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                return await inner(request, context)

            return grpc.unary_unary_rpc_method_handler(
                unary, request_deserializer=deserialize, response_serializer=handler.response_serializer
            )
        if handler.unary_stream is not None:
            inner_stream = handler.unary_stream

            async def stream(request: Any, context: grpc.aio.ServicerContext) -> AsyncIterator[Any]:
                if isinstance(request, _Undecodable):
                    await context.abort(grpc.StatusCode.INVALID_ARGUMENT, request.message)
                async for message in inner_stream(request, context):
                    yield message

            return grpc.unary_stream_rpc_method_handler(
                stream, request_deserializer=deserialize, response_serializer=handler.response_serializer
            )
        return handler
