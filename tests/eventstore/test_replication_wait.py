"""Acknowledged means replicated (issue 24): with `wait_replicas` the store answers an append, or
a repeated command's first result, only once a replica holds it; otherwise NotReplicated (the
gateway's UNAVAILABLE: retry with the same command id). A real primary and replica, the replica
stalled with SIGSTOP as a lagging or cut-off replica would be."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis
import redis.asyncio

from devstack.processes import RedisProcess
from gateway.eventstore.async_redis import DUPLICATE, OK, AsyncRedisEventStore, NotReplicated
from gateway.eventstore.base import GENESIS, MatchKey, NewEvent

KEY = MatchKey("acme", "replicated")


@pytest.fixture
def primary_and_replica(tmp_path: Path) -> Iterator[tuple[RedisProcess, RedisProcess]]:
    primary = RedisProcess(tmp_path / "primary")
    primary.start()
    replica = RedisProcess(tmp_path / "replica", extra=("--replicaof", "127.0.0.1", str(primary.port)))
    try:
        replica.start()
        _wait_replica_online(primary)
        yield primary, replica
    finally:
        replica.resume()
        replica.stop()
        primary.stop()


def _wait_replica_online(primary: RedisProcess) -> None:
    client = redis.Redis(port=primary.port)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if client.info("replication").get("connected_slaves", 0) >= 1:
            info = client.info("replication")
            if info.get("slave0", {}).get("state") == "online":
                return
        time.sleep(0.05)
    raise AssertionError("the replica did not come online")


async def _append(store: AsyncRedisEventStore, version: int, head: str, command: str) -> object:
    return await store.append(
        KEY, version, head, [NewEvent("e", b'{"n":1}')], actor="seat:0", command_id=command,
        rules_version="1", time_ms=1,
    )  # fmt: skip


def test_an_append_is_answered_once_a_replica_holds_it(
    primary_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    primary, replica = primary_and_replica

    async def scenario() -> None:
        client = redis.asyncio.Redis(port=primary.port)
        store = AsyncRedisEventStore(client, wait_replicas=1, wait_timeout_ms=2000)
        outcome = await _append(store, 0, GENESIS, "c1")
        assert outcome.status == OK  # type: ignore[attr-defined]
        # Answered: the replica has it already.
        assert redis.Redis(port=replica.port).xlen(f"gh:{{{KEY.tenant}:{KEY.match_id}}}:events") == 1
        await client.aclose()

    asyncio.run(scenario())


def test_an_append_no_replica_acknowledges_is_not_replicated_and_its_retry_waits_too(
    primary_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    primary, replica = primary_and_replica

    async def scenario() -> None:
        client = redis.asyncio.Redis(port=primary.port)
        store = AsyncRedisEventStore(client, wait_replicas=1, wait_timeout_ms=300)
        replica.pause()
        with pytest.raises(NotReplicated, match="retry with the same command id"):
            await _append(store, 0, GENESIS, "c1")
        # The retry finds the first result but answers it only once it is replicated.
        with pytest.raises(NotReplicated):
            await _append(store, 0, GENESIS, "c1")
        with pytest.raises(NotReplicated):
            await store.confirm_replicated(KEY)
        replica.resume()
        retried = await _append(store, 0, GENESIS, "c1")
        assert (retried.status, retried.first, retried.last) == (DUPLICATE, 1, 1)  # type: ignore[attr-defined]
        await store.confirm_replicated(KEY)  # no error: replicated now
        await client.aclose()

    asyncio.run(scenario())


def _cut_off(primary: RedisProcess, replica: RedisProcess) -> None:
    """The replica stops receiving (stalled, its link dropped): what the primary writes now, only
    the primary holds."""
    replica.pause()
    redis.Redis(port=primary.port).execute_command("CLIENT", "KILL", "TYPE", "replica")


def _promote(replica: RedisProcess) -> None:
    """The replica takes over, as a failover would, with whatever it had received."""
    replica.resume()
    redis.Redis(port=replica.port).execute_command("REPLICAOF", "NO", "ONE")


def test_without_a_wait_an_acknowledged_append_is_lost_in_a_failover(
    primary_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    # The default for a single Redis (no replica to wait for), on a replicated one: the fault the
    # wait exists for. The replica lags (stalled), the primary acknowledges, then dies.
    primary, replica = primary_and_replica

    async def acknowledged_then_lost() -> None:
        client = redis.asyncio.Redis(port=primary.port)
        store = AsyncRedisEventStore(client)
        _cut_off(primary, replica)
        outcome = await _append(store, 0, GENESIS, "c1")
        assert outcome.status == OK  # type: ignore[attr-defined]
        await store.confirm_replicated(KEY)  # a no-op without a wait
        await client.aclose()

    asyncio.run(acknowledged_then_lost())
    primary.kill()
    _promote(replica)
    assert redis.Redis(port=replica.port).xlen(f"gh:{{{KEY.tenant}:{KEY.match_id}}}:events") == 0


def test_with_the_wait_the_same_failover_loses_nothing_acknowledged(
    primary_and_replica: tuple[RedisProcess, RedisProcess],
) -> None:
    primary, replica = primary_and_replica

    async def refused_then_decided_afresh() -> None:
        client = redis.asyncio.Redis(port=primary.port)
        store = AsyncRedisEventStore(client, wait_replicas=1, wait_timeout_ms=300)
        _cut_off(primary, replica)
        with pytest.raises(NotReplicated):
            await _append(store, 0, GENESIS, "c1")  # never acknowledged
        await client.aclose()
        primary.kill()
        _promote(replica)
        # The client retries with the same command id on the new primary: decided afresh.
        client = redis.asyncio.Redis(port=replica.port)
        store = AsyncRedisEventStore(client)
        retried = await _append(store, 0, GENESIS, "c1")
        assert (retried.status, retried.first) == (OK, 1)  # type: ignore[attr-defined]
        await client.aclose()

    asyncio.run(refused_then_decided_afresh())


def test_settings_are_checked() -> None:
    with pytest.raises(ValueError):
        AsyncRedisEventStore(redis.asyncio.Redis(), wait_replicas=-1)
    with pytest.raises(ValueError):
        AsyncRedisEventStore(redis.asyncio.Redis(), wait_replicas=1, wait_timeout_ms=0)
