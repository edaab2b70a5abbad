"""Group commit of script calls (gateway/eventstore/pipeline.py) on a real Redis: calls made
together go as one pipeline, each answered with its own reply or its own error; a Redis that
lost its scripts and a connection that breaks are handled like a call sent alone."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
import redis.asyncio as aioredis
import redis.exceptions

from gateway.eventstore.async_redis import connection_class_for
from gateway.eventstore.pipeline import ScriptPipeline

# Adds ARGV[1] to a counter; refuses negative numbers with an error reply of its own.
SCRIPT = """
local n = tonumber(ARGV[1])
if n < 0 then return redis.error_reply('negative ' .. ARGV[1]) end
return {'ok', redis.call('INCRBY', KEYS[1], n)}
"""


class Counting(ScriptPipeline):
    """Counts the pipelines written."""

    writes: list[int]

    async def _send(self, batch: list[Any]) -> tuple[list[Any], Any]:
        self.writes.append(len(batch))
        return await super()._send(batch)


async def _with(redis_url: str, body: Any, in_flight: int = 1) -> Any:
    client = aioredis.Redis.from_url(redis_url, connection_class=connection_class_for(redis_url))
    script = client.register_script(SCRIPT)
    pipeline = Counting(client, script, in_flight=in_flight)
    pipeline.writes = []
    try:
        return await body(client, script, pipeline)
    finally:
        await pipeline.aclose()
        await client.aclose()


def test_calls_made_together_go_as_one_pipeline_each_with_its_own_reply(redis_url: str) -> None:
    a, b = f"pipe:{uuid.uuid4().hex}", f"pipe:{uuid.uuid4().hex}"

    async def body(client: Any, script: Any, pipeline: Counting) -> None:
        await script(keys=[a], args=[0])  # loaded (a Redis without it: the test below)
        replies = await asyncio.gather(
            *(pipeline([a if n % 2 else b], [n]) for n in range(1, 11)),
            pipeline([a], [-5]),
            return_exceptions=True,
        )
        assert pipeline.writes == [11]  # one write carried all eleven calls
        assert isinstance(replies[-1], redis.exceptions.ResponseError)  # its own error only
        assert "negative -5" in str(replies[-1])
        # Each reply is its own call's: the counters rose in the order the calls were made.
        assert [r[1] for r in replies[:-1]] == [1, 2, 4, 6, 9, 12, 16, 20, 25, 30]
        assert (await client.get(a), await client.get(b)) == (b"25", b"30")

    asyncio.run(_with(redis_url, body))


def test_calls_made_while_a_pipeline_is_unanswered_go_together_with_the_next(redis_url: str) -> None:
    async def body(client: Any, script: Any, pipeline: Counting) -> list[int]:
        await client.delete("pipe:c")
        first = asyncio.create_task(pipeline(["pipe:c"], [1]))
        await asyncio.sleep(0)  # the first pipeline is on its way
        later = []
        for _ in range(3):
            later.append(asyncio.create_task(pipeline(["pipe:c"], [1])))
            await asyncio.sleep(0)  # one call per turn of the loop
        await asyncio.gather(first, *later)
        assert await client.get("pipe:c") == b"4"
        return pipeline.writes

    writes = asyncio.run(_with(redis_url, body))
    assert writes[0] == 1 and sum(writes) == 4 and len(writes) < 4


def test_a_redis_that_lost_its_scripts_still_runs_every_call(redis_url: str) -> None:
    async def body(client: Any, script: Any, pipeline: Counting) -> None:
        await client.delete("pipe:d")
        await script(keys=["pipe:d"], args=[0])  # loaded...
        await client.script_flush()  # ...and forgotten, as by a restart or a new primary
        replies = await asyncio.gather(*(pipeline(["pipe:d"], [1]) for _ in range(5)))
        assert [r[1] for r in replies] == [1, 2, 3, 4, 5]  # each ran once, in the order made
        assert pipeline.writes == [5, 5]  # refused together, then sent again together

    asyncio.run(_with(redis_url, body))


def _three_calls_against(serve: Any, **options: Any) -> list[Any]:
    """What three calls of one pipeline get from a local server that `serve` plays (no Redis)."""

    async def body() -> list[Any]:
        server = await asyncio.start_server(serve, "127.0.0.1", 0)
        port = server.sockets[0].getsockname()[1]
        url = f"redis://127.0.0.1:{port}/0"
        client = aioredis.Redis.from_url(url, connection_class=connection_class_for(url), **options)
        pipeline = ScriptPipeline(client, client.register_script(SCRIPT))
        try:
            calls = (pipeline(["pipe:e"], [1]) for _ in range(3))
            return await asyncio.gather(*calls, return_exceptions=True)
        finally:
            await pipeline.aclose()
            await client.aclose()
            server.close()

    return asyncio.run(body())


def test_a_broken_connection_fails_the_calls_of_its_pipeline_with_a_connection_error() -> None:
    # A server that accepts the connection and closes it: no reply will ever come.
    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1)
        writer.close()

    replies = _three_calls_against(hang_up)
    assert len(replies) == 3
    assert all(isinstance(r, redis.exceptions.ConnectionError) for r in replies), replies


def test_a_server_that_never_answers_fails_the_pipeline_within_the_socket_timeout() -> None:
    """One deadline covers the batch's replies (not a timer per reply): a stalled node still
    fails every call of the pipeline with redis-py's TimeoutError, a store fault."""

    async def stall(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.read(1 << 16)  # the commands arrive; no reply ever goes back
        await asyncio.sleep(30)

    replies = _three_calls_against(stall, socket_timeout=0.2)
    assert len(replies) == 3
    assert all(isinstance(r, redis.exceptions.TimeoutError) for r in replies), replies


def test_in_flight_must_be_positive(redis_url: str) -> None:
    client = aioredis.Redis.from_url(redis_url)
    with pytest.raises(ValueError, match="in_flight"):
        ScriptPipeline(client, client.register_script(SCRIPT), in_flight=0)
