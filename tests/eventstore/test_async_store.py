"""The asyncio Redis store: the shared append script as the gateway drives it (heads checked,
command ids scoped to their actor, receipts and actions beside the chain, a notification per
append), on Redis and on Redis Cluster."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
import redis
import redis.asyncio
import redis.asyncio.cluster

from devstack.cluster import LocalCluster
from gateway.eventstore.async_redis import (
    CONFLICT,
    DUPLICATE,
    OK,
    REUSED,
    TAKEN,
    AsyncRedisEventStore,
    entry_hashes,
)
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent
from gateway.eventstore.redis_store import RedisEventStore, match_keys

KEY = MatchKey("acme", "m1")


def _events(*numbers: int) -> list[NewEvent]:
    return [NewEvent("card_drawn", f'{{"card":{n}}}'.encode()) for n in numbers]


async def _append(
    store: AsyncRedisEventStore, version: int, head: str, command: str, *numbers: int, **kw: Any
) -> Any:
    return await store.append(
        KEY, version, head, _events(*numbers), actor=kw.pop("actor", "seat:0"), command_id=command,
        rules_version="1", time_ms=1000 + version, **kw,
    )  # fmt: skip


async def _scenario(client: Any) -> None:
    store = AsyncRedisEventStore(client)
    first = await _append(store, 0, GENESIS, "c1", 1, 2, extra=[{"action": b'{"a":1}'}, {"receipt": b"r"}])
    assert (first.status, first.first, first.last) == (OK, 1, 2)
    assert first.hashes == tuple(entry_hashes(GENESIS, 0, _events(1, 2), "seat:0", "c1", "1", 1000))
    stored = await store.read(KEY)
    assert [e.version for e in stored] == [1, 2]
    assert (stored[0].action, stored[0].receipt, stored[1].action, stored[1].receipt) == (
        b'{"a":1}',
        b"",
        b"",
        b"r",
    )
    assert stored[1].hash == first.hashes[-1]

    # The same command from its actor: its first result; from another actor: taken. Nothing written.
    again = await _append(store, 2, first.hashes[-1], "c1", 3)
    assert (again.status, again.first, again.last) == (DUPLICATE, 1, 2)
    taken = await _append(store, 2, first.hashes[-1], "c1", 3, actor="seat:1")
    assert taken.status == TAKEN
    assert await store.command(KEY, "c1") == (1, 2, "seat:0", "")  # no digest given: none kept

    # A stale version or a head that is not the stored one is a conflict.
    stale = await _append(store, 1, first.hashes[0], "c2", 3)
    assert (stale.status, stale.first) == (CONFLICT, 2)
    forked = await _append(store, 2, "f" * 64, "c2", 3)
    assert (forked.status, forked.first) == (CONFLICT, 2)
    assert len(await store.read(KEY)) == 2

    snapshot = {"rules_version": "1", "state": b"S", "head_hash": "h", "key_id": "k", "mac": b"m"}
    ok = await _append(store, 2, first.hashes[-1], "c2", 3, snapshot=snapshot, meta={"game": "nim"})
    assert ok.status == OK and ok.last == 3
    loaded = await store.load(KEY)
    assert loaded.meta["version"] == "3" and loaded.meta["game"] == "nim"
    assert loaded.meta["head_hash"] == ok.hashes[-1]
    assert loaded.snapshot == {
        "version": b"3", "rules_version": b"1", "state": b"S", "head_hash": b"h", "key_id": b"k", "mac": b"m",
    }  # fmt: skip

    # Issue 39 item 11: the digest of the action a command id was used for is kept; the same id
    # for another action is `reused` (with the first result's versions), the same action a
    # duplicate, another actor still `taken`. Nothing is written by any of them.
    digested = await _append(store, 3, ok.hashes[-1], "c9", 4, command_digest="d" * 32)
    assert digested.status == OK
    assert await store.command(KEY, "c9") == (4, 4, "seat:0", "d" * 32)
    reused = await _append(store, 4, digested.hashes[-1], "c9", 5, command_digest="e" * 32)
    assert (reused.status, reused.first, reused.last) == (REUSED, 4, 4)
    same = await _append(store, 4, digested.hashes[-1], "c9", 5, command_digest="d" * 32)
    assert (same.status, same.first, same.last) == (DUPLICATE, 4, 4)
    stale = await _append(store, 1, first.hashes[0], "c9", 5, command_digest="e" * 32)
    assert stale.status == REUSED  # a wrong version checks the command table first
    other = await _append(store, 4, digested.hashes[-1], "c9", 5, actor="seat:1", command_digest="e" * 32)
    assert other.status == TAKEN
    assert len(await store.read(KEY)) == 4
    assert [e.version for e in await store.read_range(KEY, 2, 3)] == [2, 3]
    assert [e.version for e in await store.read(KEY, after_version=1, limit=1)] == [2]


def test_the_async_store_appends_checks_heads_and_scopes_command_ids(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def run() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        try:
            await _scenario(client)
        finally:
            await client.aclose()

    asyncio.run(run())


def test_the_async_store_works_on_redis_cluster(
    local_cluster: LocalCluster, redis_cluster_client: redis.RedisCluster
) -> None:
    async def run() -> None:
        client = redis.asyncio.cluster.RedisCluster.from_url(local_cluster.url)
        try:
            await _scenario(client)
        finally:
            await client.aclose()

    asyncio.run(run())


def test_every_append_publishes_its_match_and_version_on_gh_notify(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def run() -> list[bytes]:
        client = redis.asyncio.Redis.from_url(redis_url)
        pubsub = client.pubsub()
        await pubsub.subscribe("gh:notify")
        await pubsub.get_message(timeout=1.0)  # the subscription confirmation
        store = AsyncRedisEventStore(client)
        first = await _append(store, 0, GENESIS, "c1", 1, 2)
        await _append(store, 2, first.hashes[-1], "c2", 3)
        await _append(store, 2, first.hashes[-1], "c2", 3)  # a duplicate publishes nothing
        messages = []
        while (message := await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.5)) is not None:
            messages.append(message["data"])
        await pubsub.aclose()
        await client.aclose()
        return messages

    assert asyncio.run(run()) == [b"acme\x1fm1\x1f2", b"acme\x1fm1\x1f3"]


def test_the_blocking_store_reads_what_the_async_store_wrote(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def run() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        await _append(AsyncRedisEventStore(client), 0, GENESIS, "c1", 1, extra=[{"receipt": b"r"}])
        await client.aclose()

    asyncio.run(run())
    blocking = RedisEventStore(redis_client)
    (entry,) = blocking.read(KEY)
    assert entry.receipt == b"r" and blocking.audit(KEY).ok
    assert (
        blocking.append(KEY, 1, _events(2), actor="seat:0", command_id="c2", rules_version="1").last_version
        == 2
    )


def test_a_client_that_decodes_responses_is_refused(redis_url: str) -> None:
    with pytest.raises(ValueError, match="decode_responses"):
        AsyncRedisEventStore(redis.asyncio.Redis.from_url(redis_url, decode_responses=True))
    assert match_keys(KEY).events == "gh:{acme:m1}:events"
