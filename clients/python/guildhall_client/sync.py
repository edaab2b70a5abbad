"""The blocking client: the asyncio client run on a private event loop in a background thread.

    with Client("localhost:50051", api_key="ghk_...") as gh:
        seat = gh.enqueue_and_wait("rattus_cartus", seats=2, player_id="alice")
        view = seat.view()
        seat.submit(view.legal_actions[0])

Every method of `AsyncClient` and `Seat` is here with the same arguments; coroutines return their
result and async iterators (watch, watch_ticket, iter_matches) become ordinary iterators. One
thread per `Client`, shared by the seats it hands out. A Play stream (`client.play(match_id)`,
`seat.stream()`) works the same way: `submit` blocks for its answer, `updates()` and `messages()`
iterate, `close()` ends it.

Typed: each blocking method is declared from its asynchronous twin (`submit =
_Blocks(AsyncClient.submit)`), so a type checker sees the twin's parameters and the result it
awaits, and the two cannot drift apart (tests/clients/test_library.py also checks that every
public method of the async classes has its blocking twin here).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Callable, Coroutine, Iterator
from typing import Any, Concatenate, Generic, ParamSpec, TypeVar

from guildhall_client.aio import AsyncClient, Seat
from guildhall_client.stream import PlayStream
from guildhall_client.types import Ticket

P = ParamSpec("P")
R = TypeVar("R")
T = TypeVar("T")


class _Loop:
    """An event loop running forever in a daemon thread."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="guildhall-client", daemon=True)
        self.thread.start()

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result()

    def iterate(self, items: AsyncIterator[T]) -> Iterator[T]:
        async def step() -> T:
            return await items.__anext__()

        try:
            while True:
                try:
                    yield self.run(step())
                except StopAsyncIteration:
                    return
        finally:
            close = getattr(items, "aclose", None)
            if close is not None:  # closing the generator cancels its gRPC stream
                self.run(close())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=5)
        self.loop.close()


class _Twin:
    """A blocking object over an asynchronous one, on a loop."""

    def __init__(self, target: Any, loop: _Loop) -> None:
        self._target = target
        self._loop = loop


class _Blocks(Generic[P, R]):
    """A coroutine method of the twin, called from the blocking object: waits for its result.

    mypy refuses a method that takes **kwargs here (its `self` is not positional-only, which
    Concatenate wants) yet infers P from it all the same: those lines ignore that one error."""

    def __init__(self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, R]]) -> None:
        self.method = method

    def __get__(self, owner: _Twin, kind: type | None = None) -> Callable[P, R]:
        def call(*args: P.args, **kwargs: P.kwargs) -> R:
            return owner._loop.run(self.method(owner._target, *args, **kwargs))

        return call


class _Iterates(Generic[P, T]):
    """A method of the twin giving an async iterator: an ordinary iterator here."""

    def __init__(self, method: Callable[Concatenate[Any, P], AsyncIterator[T]]) -> None:
        self.method = method

    def __get__(self, owner: _Twin, kind: type | None = None) -> Callable[P, Iterator[T]]:
        def call(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
            return owner._loop.iterate(self.method(owner._target, *args, **kwargs))

        return call


class _SeatFrom(Generic[P]):
    """A coroutine method of the twin giving a seat: the blocking seat, on the same loop."""

    def __init__(self, method: Callable[Concatenate[Any, P], Coroutine[Any, Any, Seat]]) -> None:
        self.method = method

    def __get__(self, owner: _Twin, kind: type | None = None) -> Callable[P, BlockingSeat]:
        def call(*args: P.args, **kwargs: P.kwargs) -> BlockingSeat:
            return BlockingSeat(owner._loop.run(self.method(owner._target, *args, **kwargs)), owner._loop)

        return call


class BlockingPlayStream(_Twin):
    """Blocking twin of `PlayStream`: `submit` blocks for the action's answer."""

    _target: PlayStream

    submit = _Blocks(PlayStream.submit)
    updates = _Iterates(PlayStream.updates)
    messages = _Iterates(PlayStream.messages)
    close = _Blocks(PlayStream.close)

    @property
    def match_id(self) -> str:
        return self._target.match_id

    @property
    def last_version(self) -> int:
        return self._target.last_version

    def __enter__(self) -> BlockingPlayStream:
        self._loop.run(self._target.__aenter__())
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class BlockingSeat(_Twin):
    """Blocking twin of `Seat`: one seat of one match, acting with its token."""

    _target: Seat

    view = _Blocks(Seat.view)
    submit = _Blocks(Seat.submit)  # type: ignore[arg-type]  # **kwargs: see _Blocks
    resign = _Blocks(Seat.resign)  # type: ignore[arg-type]  # **kwargs: see _Blocks
    return_to_seat = _Blocks(Seat.return_to_seat)  # type: ignore[arg-type]  # **kwargs: see _Blocks
    undo = _Blocks(Seat.undo)  # type: ignore[arg-type]  # **kwargs: see _Blocks
    play = _Blocks(Seat.play)
    watch = _Iterates(Seat.watch)  # type: ignore[arg-type]  # **kwargs: see _Blocks

    def stream(self, from_version: int = 0) -> BlockingPlayStream:
        """This seat's Play stream (see `AsyncClient.play`)."""
        return BlockingPlayStream(self._target.stream(from_version), self._loop)

    @property
    def client(self) -> Client:
        """The blocking client under this seat's token."""
        return Client._over(self._target.client, self._loop)

    @property
    def match_id(self) -> str:
        return self._target.match_id

    @property
    def number(self) -> int | None:
        return self._target.number

    @property
    def ticket(self) -> Ticket | None:
        return self._target.ticket

    @property
    def resume_secret(self) -> str:
        return self._target.resume_secret

    @property
    def token(self) -> str:
        return self._target.token

    @property
    def actions(self) -> int:
        return self._target.actions

    def __enter__(self) -> BlockingSeat:
        return self

    def __exit__(self, *exc: object) -> None:
        self._loop.run(self._target.client.close())


class Client(_Twin):
    """Blocking twin of `AsyncClient` (same constructor arguments)."""

    _target: AsyncClient

    def __init__(self, target: str = "localhost:50051", **kwargs: Any) -> None:
        loop = _Loop()

        async def build() -> AsyncClient:
            # grpc.aio channels belong to the loop they are created on.
            return AsyncClient(target, **kwargs)

        super().__init__(loop.run(build()), loop)
        self._owns_loop = True

    @classmethod
    def _over(cls, client: AsyncClient, loop: _Loop) -> Client:
        """A blocking client over an async one already on `loop` (another credential's)."""
        blocking = cls.__new__(cls)
        _Twin.__init__(blocking, client, loop)
        blocking._owns_loop = False
        return blocking

    list_games = _Blocks(AsyncClient.list_games)
    public_keys = _Blocks(AsyncClient.public_keys)
    game_data = _Blocks(AsyncClient.game_data)
    check_receipt = _Blocks(AsyncClient.check_receipt)
    create_ticket = _Blocks(AsyncClient.create_ticket)
    get_ticket = _Blocks(AsyncClient.get_ticket)
    cancel_ticket = _Blocks(AsyncClient.cancel_ticket)
    watch_ticket = _Iterates(AsyncClient.watch_ticket)
    enqueue_and_wait = _SeatFrom(AsyncClient.enqueue_and_wait)
    create_match = _Blocks(AsyncClient.create_match)
    create_table = _Blocks(AsyncClient.create_table)
    claim_seat = _SeatFrom(AsyncClient.claim_seat)
    resume_seat = _SeatFrom(AsyncClient.resume_seat)
    issue_token = _Blocks(AsyncClient.issue_token)
    list_matches = _Blocks(AsyncClient.list_matches)
    iter_matches = _Iterates(AsyncClient.iter_matches)  # type: ignore[arg-type]  # **kwargs: see _Blocks
    get_view = _Blocks(AsyncClient.get_view)
    submit = _Blocks(AsyncClient.submit)
    resign = _Blocks(AsyncClient.resign)
    return_to_seat = _Blocks(AsyncClient.return_to_seat)
    undo = _Blocks(AsyncClient.undo)
    watch = _Iterates(AsyncClient.watch)
    replay = _Blocks(AsyncClient.replay)
    audit = _Blocks(AsyncClient.audit)
    export_match = _Blocks(AsyncClient.export_match)
    rules_bundle = _Blocks(AsyncClient.rules_bundle)
    read_events = _Blocks(AsyncClient.read_events)
    events = _Blocks(AsyncClient.events)
    verify_match = _Blocks(AsyncClient.verify_match)
    ratings = _Blocks(AsyncClient.ratings)
    leaderboard = _Blocks(AsyncClient.leaderboard)
    dead_letters = _Blocks(AsyncClient.dead_letters)
    replay_dead_letters = _Blocks(AsyncClient.replay_dead_letters)
    claim_bot_seats = _Blocks(AsyncClient.claim_bot_seats)
    renew_bot_seats = _Blocks(AsyncClient.renew_bot_seats)
    release_bot_seats = _Blocks(AsyncClient.release_bot_seats)

    def for_token(self, token: str) -> Client:
        """The same connection under a seat or spectator token."""
        return Client._over(self._target.for_token(token), self._loop)

    def seat(self, match_id: str, token: str) -> BlockingSeat:
        """A seat of `match_id`, acting with its token, over this connection."""
        return BlockingSeat(self._target.seat(match_id, token), self._loop)

    def play(self, match_id: str, from_version: int = 0, *, reconnect: bool = True) -> BlockingPlayStream:
        """This seat token's Play stream on the match (see `AsyncClient.play`)."""
        return BlockingPlayStream(self._target.play(match_id, from_version, reconnect=reconnect), self._loop)

    @property
    def target(self) -> str:
        return self._target.target

    @property
    def credential(self) -> str:
        return self._target.credential

    @property
    def resumed(self) -> int:
        """Watch streams resumed after a drop."""
        return self._target.resumed

    def close(self) -> None:
        """Close the connection; the client that made the loop stops it too."""
        try:
            self._loop.run(self._target.close())
        finally:
            if self._owns_loop:
                self._loop.stop()

    def __enter__(self) -> Client:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
