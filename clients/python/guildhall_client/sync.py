"""The blocking client: the asyncio client run on a private event loop in a background thread.

    with Client("localhost:50051", api_key="ghk_...") as gh:
        seat = gh.enqueue_and_wait("rattus_cartus", seats=2, player_id="alice")
        view = seat.view()
        seat.submit(view.legal_actions[0])

Every method of `AsyncClient` and `Seat` is available with the same arguments; coroutines
return their result and async iterators (watch, watch_ticket, iter_matches) become ordinary
iterators. One thread per `Client`, shared by the seats it hands out. A Play stream
(`client.play(match_id)`, `seat.stream()`) works the same way: `submit` blocks for its answer,
`updates()` and `messages()` iterate, `close()` ends it.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from collections.abc import Coroutine, Iterator
from typing import Any, TypeVar

from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.stream import PlayStream

T = TypeVar("T")


class _Loop:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="guildhall-client", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def iterate(self, agen: Any) -> Iterator[Any]:
        try:
            while True:
                try:
                    yield self.run(agen.__anext__())
                except StopAsyncIteration:
                    return
        finally:
            # Closing the generator cancels its gRPC stream.
            self.run(agen.aclose())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class _Blocking:
    """Wraps an async object: coroutine methods block, async generators iterate, results that
    are async objects (a Seat, a derived client) come back wrapped too."""

    def __init__(self, target: Any, loop: _Loop) -> None:
        self._target = target
        self._loop = loop

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._target, name)
        if inspect.isasyncgenfunction(attr):
            return lambda *a, **k: self._loop.iterate(attr(*a, **k))
        if inspect.iscoroutinefunction(attr):
            return lambda *a, **k: self._wrap(self._loop.run(attr(*a, **k)))
        if callable(attr) and name in ("for_token", "seat", "watch", "play", "stream"):
            return lambda *a, **k: self._wrap(attr(*a, **k))
        return attr

    def _wrap(self, value: Any) -> Any:
        if isinstance(value, AsyncClient | Seat | PlayStream):
            return _Blocking(value, self._loop)
        if inspect.isasyncgen(value):
            return self._loop.iterate(value)
        return value


class Client(_Blocking):
    """Blocking twin of `AsyncClient` (same constructor arguments)."""

    def __init__(self, target: str = "localhost:50051", **kwargs: Any) -> None:
        loop = _Loop()

        async def build() -> AsyncClient:
            # grpc.aio channels belong to the loop they are created on.
            return AsyncClient(target, **kwargs)

        super().__init__(loop.run(build()), loop)

    def close(self) -> None:
        try:
            self._loop.run(self._target.close())
        finally:
            self._loop.stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
