"""Group commit for the append script: calls made together go to Redis as one pipeline.

redis-py spends ~135 µs of the gateway's CPU on each command it sends alone (a connection taken
from the pool, a write, a read, the reply's parsing, its retry and timeout wrappers); the same
command in a pipeline of 32 costs ~22 µs when written and read directly on one connection
(issue 25, item 3). Under load, appends of many matches are ready in the same turn of the event
loop, so they are sent as one write and their replies read in order. Each is still its own
EVALSHA with its own expected version and head: one match's conflict never touches another's.

While `in_flight` pipelines are unanswered, new calls wait and go together with the next one:
Redis answers a connection's commands in order anyway, and the batches grow with the load. A call
alone is sent at the end of the turn it was made in, so there is no added wait at low load.

One pipeline runs on one client's pool: the plain client (one primary), or, on a cluster, a plain
client to one slot owner (`gateway.eventstore.async_redis` keeps one pipeline per owner, so appends
to different owners never wait for each other). With `wait_replicas` (issue 35) every pipeline
ends with ONE `WAIT` on the same connection: WAIT counts the replicas that acknowledged every
write this connection made before it, so its one answer covers each append of the batch, exactly
as a WAIT after each alone would (each caller gets its own script reply and that count).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from typing import Any

import redis.exceptions

# GUILDHALL_APPEND_PIPELINE=0 sends every append alone (how it was before; for comparison).
PIPELINE_ENV = "GUILDHALL_APPEND_PIPELINE"
MAX_PIPELINE = 64  # calls per write, at most


def _settle(batch: list[_Call], replies: list[tuple[Any, Any]]) -> None:
    for call, reply in zip(batch, replies, strict=True):
        if not call.future.done():  # else its caller gave up (cancelled); what Redis did stays done
            call.future.set_result(reply)


def _fail(batch: list[_Call], error: BaseException) -> None:
    for call in batch:
        if not call.future.done():
            call.future.set_exception(error)


async def _read_replies(connection: Any, count: int) -> list[Any]:
    """`count` replies in order, each a value or its own error reply, within the connection's
    socket timeout for them all: one deadline per batch, not redis-py's timer per reply (three
    event loop lookups each, and on Python 3.11 each lookup is a getpid system call; issue 45)."""
    deadline = connection.socket_timeout
    replies: list[Any] = []
    try:
        async with asyncio.timeout(deadline):
            for _ in range(count):
                try:
                    replies.append(await connection.read_response(timeout=math.inf))
                except redis.exceptions.ResponseError as error:  # this call's own error reply
                    replies.append(error)
    except TimeoutError:
        raise redis.exceptions.TimeoutError(f"no reply from Redis within {deadline} s") from None
    return replies


class _Call:
    __slots__ = ("args", "future", "keys")

    def __init__(self, keys: Sequence[str], args: Sequence[Any], future: asyncio.Future[Any]) -> None:
        self.keys, self.args, self.future = keys, args, future


class ScriptPipeline:
    """Runs a registered script (`redis.asyncio` Script) through pipelines on `client`'s pool,
    each followed by one `WAIT wait_replicas wait_timeout_ms` when `wait_replicas` > 0."""

    def __init__(
        self,
        client: Any,
        script: Any,
        *,
        in_flight: int = 1,
        wait_replicas: int = 0,
        wait_timeout_ms: int = 1000,
    ) -> None:
        if in_flight < 1:
            raise ValueError("in_flight must be at least 1")
        self._client = client
        self._pool = client.connection_pool
        self._script = script
        self._in_flight = in_flight
        self._wait = ("WAIT", wait_replicas, wait_timeout_ms) if wait_replicas > 0 else None
        self._running = 0
        self._ready: list[_Call] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply, as `script(keys=keys, args=args)` would give it (its error raised)."""
        reply, _ = await self.run(keys, args)
        if isinstance(reply, BaseException):
            raise reply
        return reply

    async def run(self, keys: Sequence[str], args: Sequence[Any]) -> tuple[Any, Any]:
        """(the script's reply or its error reply, the WAIT's reply after it: the replicas that
        acknowledged it, or WAIT's error reply; None without a wait). A failed connection (the
        replies unknown) is raised."""
        loop = asyncio.get_running_loop()
        call = _Call(keys, args, loop.create_future())
        self._ready.append(call)
        if len(self._ready) == 1 and self._running < self._in_flight:
            loop.call_soon(self._flush)
        return await call.future  # type: ignore[no-any-return]

    def _flush(self) -> None:
        if not self._ready or self._running >= self._in_flight:
            return  # the running pipeline's end flushes them
        batch, self._ready = self._ready[:MAX_PIPELINE], self._ready[MAX_PIPELINE:]
        self._running += 1
        task = asyncio.get_running_loop().create_task(self._run(batch))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _run(self, batch: list[_Call]) -> None:
        try:
            _settle(batch, await self._replies(batch))
        except BaseException as error:  # the connection failed: those replies are not known
            _fail(batch, error)
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self._running -= 1
            if self._ready:
                self._flush()

    async def _replies(self, batch: list[_Call]) -> list[tuple[Any, Any]]:
        replies, acked = await self._send(batch)
        answers = [(reply, acked) for reply in replies]
        unknown = [n for n, reply in enumerate(replies) if isinstance(reply, redis.exceptions.NoScriptError)]
        if unknown:
            # A Redis that lost its scripts (a restart, a new primary): none of those ran. Load
            # the script once and send them again, in their order (with a WAIT of their own).
            try:
                await self._client.script_load(self._script.script)
                again, acked_again = await self._send([batch[n] for n in unknown])
                for n, reply in zip(unknown, again, strict=True):
                    answers[n] = (reply, acked_again)
            except Exception as error:  # only those calls' outcome is unknown
                for n in unknown:
                    answers[n] = (error, None)
        return answers

    async def _send(self, batch: list[_Call]) -> tuple[list[Any], Any]:
        connection = await self._pool.get_connection()
        try:
            sha = self._script.sha
            commands: list[tuple[Any, ...]] = [
                ("EVALSHA", sha, len(call.keys), *call.keys, *call.args) for call in batch
            ]
            if self._wait is not None:
                commands.append(self._wait)
            await connection.send_packed_command(connection.pack_commands(commands), check_health=False)
            replies = await _read_replies(connection, len(commands))
            acked = replies.pop() if self._wait is not None else None
            return replies, acked
        except BaseException:
            await connection.disconnect()  # replies may be left unread: never reuse it
            raise
        finally:
            await self._pool.release(connection)

    async def aclose(self) -> None:
        """Wait for the pipelines under way (their callers are owed an answer)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
