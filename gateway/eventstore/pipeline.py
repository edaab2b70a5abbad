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

Plain clients only (one primary): a cluster client's appends go by slot owner and, with
REDIS_WAIT_REPLICAS, each down one connection with its own WAIT (gateway.eventstore.async_redis).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import redis.exceptions

# GUILDHALL_APPEND_PIPELINE=0 sends every append alone (how it was before; for comparison).
PIPELINE_ENV = "GUILDHALL_APPEND_PIPELINE"
MAX_PIPELINE = 64  # calls per write, at most


def _settle(batch: list[_Call], replies: list[Any]) -> None:
    for call, reply in zip(batch, replies, strict=True):
        if call.future.done():
            continue  # its caller gave up (cancelled); what Redis did stays done
        if isinstance(reply, BaseException):
            call.future.set_exception(reply)
        else:
            call.future.set_result(reply)


class _Call:
    __slots__ = ("args", "future", "keys")

    def __init__(self, keys: Sequence[str], args: Sequence[Any], future: asyncio.Future[Any]) -> None:
        self.keys, self.args, self.future = keys, args, future


class ScriptPipeline:
    """Runs a registered script (`redis.asyncio` Script) through pipelines on `client`'s pool."""

    def __init__(self, client: Any, script: Any, *, in_flight: int = 1) -> None:
        if in_flight < 1:
            raise ValueError("in_flight must be at least 1")
        self._client = client
        self._pool = client.connection_pool
        self._script = script
        self._in_flight = in_flight
        self._running = 0
        self._ready: list[_Call] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def __call__(self, keys: Sequence[str], args: Sequence[Any]) -> Any:
        """The script's reply, as `script(keys=keys, args=args)` would give it."""
        loop = asyncio.get_running_loop()
        call = _Call(keys, args, loop.create_future())
        self._ready.append(call)
        if len(self._ready) == 1 and self._running < self._in_flight:
            loop.call_soon(self._flush)
        return await call.future

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
            _settle(batch, [error] * len(batch))
            if isinstance(error, asyncio.CancelledError):
                raise
        finally:
            self._running -= 1
            if self._ready:
                self._flush()

    async def _replies(self, batch: list[_Call]) -> list[Any]:
        replies = await self._send(batch)
        unknown = [n for n, reply in enumerate(replies) if isinstance(reply, redis.exceptions.NoScriptError)]
        if unknown:
            # A Redis that lost its scripts (a restart, a new primary): none of those ran. Load
            # the script once and send them again, in their order.
            try:
                await self._client.script_load(self._script.script)
                again = await self._send([batch[n] for n in unknown])
            except Exception as error:  # only those calls' outcome is unknown
                again = [error] * len(unknown)
            for n, reply in zip(unknown, again, strict=True):
                replies[n] = reply
        return replies

    async def _send(self, batch: list[_Call]) -> list[Any]:
        connection = await self._pool.get_connection()
        try:
            sha = self._script.sha
            packed = connection.pack_commands(
                [("EVALSHA", sha, len(call.keys), *call.keys, *call.args) for call in batch]
            )
            await connection.send_packed_command(packed, check_health=False)
            replies: list[Any] = []
            for _ in batch:
                try:
                    replies.append(await connection.read_response())
                except redis.exceptions.ResponseError as error:  # this call's own error reply
                    replies.append(error)
            return replies
        except BaseException:
            await connection.disconnect()  # replies may be left unread: never reuse it
            raise
        finally:
            await self._pool.release(connection)

    async def aclose(self) -> None:
        """Wait for the pipelines under way (their callers are owed an answer)."""
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
