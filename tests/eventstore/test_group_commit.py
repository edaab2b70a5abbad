"""Group commit of replicated and cluster appends (issue 35): appends ready together for one slot
owner go in one pipeline on that owner's connection, and with `wait_replicas` ONE `WAIT` after them
covers them all; each append keeps its own expected version and its own result, and a WAIT that
counts too few replicas answers every append of its batch NotReplicated, as each would have been
alone. Commands are counted by Redis itself (INFO commandstats) or by wrapping the connection."""

from __future__ import annotations

import asyncio
import uuid
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

import pytest
import redis
import redis.asyncio
import redis.asyncio.cluster

from devstack.cluster import ClusterNode, LocalCluster
from devstack.processes import RedisProcess
from gateway.eventstore.async_redis import CONFLICT, DUPLICATE, OK, AsyncRedisEventStore, NotReplicated
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent
from gateway.eventstore.redis_store import match_keys
from tests.eventstore.test_replication_wait import primary_and_replica  # noqa: F401 (a fixture)


async def _append(store: AsyncRedisEventStore, key: MatchKey, version: int, head: str, command: str) -> Any:
    return await store.append(
        key, version, head, [NewEvent("e", b'{"n":1}')], actor="seat:0", command_id=command,
        rules_version="1", time_ms=1,
    )  # fmt: skip


def _calls(port: int, command: str) -> int:
    stats = redis.Redis(port=port).info("commandstats")
    return int(stats.get(f"cmdstat_{command}", {}).get("calls", 0))


def _reset_stats(*ports: int) -> None:
    for port in ports:
        redis.Redis(port=port).config_resetstat()


def _matches_by_owner(cluster: LocalCluster, per_owner: int) -> dict[int, list[MatchKey]]:
    """`per_owner` match keys served by each primary, by its port."""
    found: dict[int, list[MatchKey]] = defaultdict(list)
    primaries = len([n for n in cluster.nodes if _role(n) == "master"])
    while len(found) < primaries or min(len(keys) for keys in found.values()) < per_owner:
        key = MatchKey("acme", uuid.uuid4().hex)
        port = cluster.owner_of(match_keys(key).events).port
        if len(found[port]) < per_owner:
            found[port].append(key)
    return dict(found)


def _role(node: ClusterNode) -> str:
    return str(redis.Redis(port=node.port).info("replication")["role"])


def _replica_of(cluster: LocalCluster, primary_port: int) -> ClusterNode:
    for node in cluster.nodes:
        info = redis.Redis(port=node.port).info("replication")
        if info["role"] == "slave" and int(info["master_port"]) == primary_port:
            return node
    raise LookupError(f"no replica of {primary_port}")


@pytest.fixture
def cluster(local_cluster: LocalCluster, redis_cluster_client: redis.RedisCluster) -> Iterator[LocalCluster]:
    local_cluster.wait_healthy()
    yield local_cluster
    local_cluster.wait_healthy()


async def _cluster_store(cluster: LocalCluster, **options: Any) -> AsyncRedisEventStore:
    client = redis.asyncio.cluster.RedisCluster.from_url(cluster.url)
    await client.initialize()
    return AsyncRedisEventStore(client, **options)


async def _close(store: AsyncRedisEventStore) -> None:
    await store.aclose()
    await store.client.aclose()


def test_a_batch_to_one_slot_owner_sends_one_wait_and_each_append_gets_its_own_result(
    cluster: LocalCluster,
) -> None:
    owners = _matches_by_owner(cluster, per_owner=5)
    port, keys = next(iter(owners.items()))

    async def scenario() -> None:
        store = await _cluster_store(cluster, wait_replicas=1, wait_timeout_ms=5000)
        try:
            firsts = [await _append(store, key, 0, GENESIS, f"c0-{n}") for n, key in enumerate(keys)]
            _reset_stats(port)
            versions = [1, 1, 0, 1, 1]  # the middle one is stale: a conflict, for it alone
            outcomes = await asyncio.gather(
                *(
                    _append(store, key, version, first.hashes[-1] if version else GENESIS, f"c1-{n}")
                    for n, (key, version, first) in enumerate(zip(keys, versions, firsts, strict=True))
                )
            )
            assert [o.status for o in outcomes] == [OK, OK, CONFLICT, OK, OK]
            assert [o.first for o in outcomes] == [2, 2, 1, 2, 2]  # the conflict names the match's version
            assert _calls(port, "evalsha") == 5
            assert _calls(port, "wait") == 1  # one WAIT covered the batch
            reads = redis.Redis(port=_replica_of(cluster, port).port).pipeline(transaction=False)
            reads.execute_command("READONLY")  # type: ignore[no-untyped-call] # a cluster replica answers reads of its primary's slots
            for key in keys:
                reads.xlen(match_keys(key).events)
            lengths = reads.execute()[1:]
            assert lengths == [2, 2, 1, 2, 2]  # answered: the replica holds each acknowledged append
        finally:
            await _close(store)

    asyncio.run(scenario())


def test_a_wait_that_counts_no_replica_fails_every_append_of_its_batch(
    primary_and_replica: tuple[RedisProcess, RedisProcess],  # noqa: F811
) -> None:
    primary, replica = primary_and_replica
    keys = [MatchKey("acme", f"batch-{n}") for n in range(4)]

    async def scenario() -> None:
        client = redis.asyncio.Redis(port=primary.port)
        store = AsyncRedisEventStore(client, wait_replicas=1, wait_timeout_ms=300)
        try:
            await client.script_load(store._append.script)  # so the batch is sent once, not resent
            _reset_stats(primary.port)
            replica.pause()
            outcomes = await asyncio.gather(
                *(_append(store, key, 0, GENESIS, "c1") for key in keys), return_exceptions=True
            )
            assert all(isinstance(o, NotReplicated) for o in outcomes), outcomes
            assert _calls(primary.port, "evalsha") == 4 and _calls(primary.port, "wait") == 1
            replica.resume()
            # Each retry with its command id answers its first result, once it is replicated.
            retried = await asyncio.gather(*(_append(store, key, 0, GENESIS, "c1") for key in keys))
            assert [(r.status, r.first, r.last) for r in retried] == [(DUPLICATE, 1, 1)] * 4
        finally:
            replica.resume()
            await store.aclose()
            await client.aclose()

    asyncio.run(scenario())


def test_a_cluster_without_the_wait_pipelines_appends_per_owner(
    cluster: LocalCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    owners = _matches_by_owner(cluster, per_owner=4)
    writes: dict[int, list[int]] = defaultdict(list)  # port -> EVALSHAs per write
    original = redis.asyncio.Connection.pack_commands

    def counting(self: Any, commands: Any) -> Any:
        commands = list(commands)
        scripts = sum(1 for command in commands if str(command[0]).upper() == "EVALSHA")
        if scripts:
            writes[self.port].append(scripts)
        return original(self, commands)

    async def scenario() -> None:
        store = await _cluster_store(cluster)
        try:
            every = [key for keys in owners.values() for key in keys]
            firsts = [await _append(store, key, 0, GENESIS, "c0") for key in every]  # scripts loaded
            monkeypatch.setattr(redis.asyncio.Connection, "pack_commands", counting)
            outcomes = await asyncio.gather(
                *(_append(store, key, 1, f.hashes[-1], "c1") for key, f in zip(every, firsts, strict=True))
            )
            assert [o.status for o in outcomes] == [OK] * len(every)
            assert {port: sizes for port, sizes in writes.items()} == {port: [4] for port in owners}
        finally:
            monkeypatch.undo()
            await _close(store)

    asyncio.run(scenario())


def test_appends_to_different_owners_do_not_wait_for_each_other(cluster: LocalCluster) -> None:
    owners = _matches_by_owner(cluster, per_owner=1)
    (slow_port, [slow]), (_, [fast]) = list(owners.items())[:2]
    stalled = _replica_of(cluster, slow_port).server

    async def scenario() -> None:
        store = await _cluster_store(cluster, wait_replicas=1, wait_timeout_ms=5000)
        try:
            await _append(store, slow, 0, GENESIS, "warm")  # scripts loaded on both owners
            await _append(store, fast, 0, GENESIS, "warm")
            slow_head = (await store.head(slow))[1]
            stalled.pause()  # the slow owner's WAIT cannot be answered while its replica stands still
            try:
                waiting = asyncio.create_task(_append(store, slow, 1, slow_head, "c1"))
                await asyncio.sleep(0)
                head = (await store.head(fast))[1]
                answered = await _append(store, fast, 1, head, "c1")
                assert answered.status == OK
                assert not waiting.done()  # the other owner's append is still waiting for its replica
            finally:
                stalled.resume()
            outcome = await waiting  # answered once the replica holds it
            assert (outcome.status, outcome.first) == (OK, 2)
        finally:
            await _close(store)

    asyncio.run(scenario())


def test_a_batch_sent_to_a_node_that_no_longer_owns_the_slot_follows_the_redirect(
    cluster: LocalCluster,
) -> None:
    owners = _matches_by_owner(cluster, per_owner=3)
    (port, keys), (stale_port, _) = list(owners.items())[:2]

    async def scenario() -> None:
        store = await _cluster_store(cluster, wait_replicas=1, wait_timeout_ms=5000)
        try:
            assert store._owners is not None
            for key in keys:  # as if a failover had moved the slot and the store still thought so
                store._owners.moved(match_keys(key).events, "127.0.0.1", stale_port)
            outcomes = await asyncio.gather(*(_append(store, key, 0, GENESIS, "c1") for key in keys))
            assert [(o.status, o.first) for o in outcomes] == [(OK, 1)] * 3  # MOVED, then the owner
            assert _calls(stale_port, "wait") >= 1 and _calls(port, "wait") >= 1
            reads = redis.Redis(port=port)
            assert [reads.xlen(match_keys(key).events) for key in keys] == [1, 1, 1]
        finally:
            await _close(store)

    _reset_stats(port, stale_port)
    asyncio.run(scenario())


def test_a_new_primary_without_the_script_gets_the_batch_again_with_a_wait_of_its_own(
    cluster: LocalCluster,
) -> None:
    owners = _matches_by_owner(cluster, per_owner=3)
    port, keys = next(iter(owners.items()))

    async def scenario() -> None:
        store = await _cluster_store(cluster, wait_replicas=1, wait_timeout_ms=5000)
        try:
            firsts = [await _append(store, key, 0, GENESIS, "c0") for key in keys]
            redis.Redis(port=port).script_flush()  # as a replica promoted in a failover knows none
            _reset_stats(port)
            outcomes = await asyncio.gather(
                *(_append(store, key, 1, f.hashes[-1], "c1") for key, f in zip(keys, firsts, strict=True))
            )
            assert [(o.status, o.first) for o in outcomes] == [(OK, 2)] * 3  # each ran once
            # Refused NOSCRIPT together (a WAIT after them), loaded, sent again with their own WAIT.
            assert _calls(port, "evalsha") == 6 and _calls(port, "wait") == 2
        finally:
            await _close(store)

    asyncio.run(scenario())
