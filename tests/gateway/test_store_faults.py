"""Issue 24 in the gateway's own terms: every Redis fault is UNAVAILABLE, never INTERNAL (redis-py's
cluster client failing from inside its connection code included); nothing after a successful
append turns the acknowledged action into a failure; a store found behind what this replica
acknowledged is noticed, counted and decided afresh; quotas fail open for a bounded time when
their shard is away; the notification subscription notices a stalled node and moves on."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio
import redis.exceptions

from devstack.processes import RedisProcess
from gateway import metrics
from gateway.api.faults import fault
from gateway.eventstore.async_redis import (
    NotReplicated,
    is_store_fault,
    tenant_active_key,
    unavailable_on_store_faults,
)
from gateway.eventstore.base import EventStoreUnavailable, MatchKey
from gateway.eventstore.entries import decode_entries
from gateway.eventstore.redis_store import match_keys
from gateway.quotas import FAIL_OPEN_MAX_S, QuotaExceeded, Quotas
from gateway.subscription import ClusterSubscriber, live_messages
from tests.gateway.gwcore_support import gateway
from tests.kernel.toy_game import GAME

NIM = GAME.game_id
SEED = bytes(range(32))


def _raise_inside(module: str, error: BaseException) -> BaseException:
    """`error` raised from code whose module is `module` (as redis-py's own code raises it)."""
    namespace: dict[str, Any] = {"__name__": module, "error": error}
    exec("def fail():\n    raise error\n", namespace)  # noqa: S102 - a frame of that module
    try:
        namespace["fail"]()
    except BaseException as raised:  # noqa: BLE001
        return raised
    raise AssertionError("unreachable")


# -- every Redis fault is UNAVAILABLE ----------------------------------------------------------------


def test_store_faults_inside_the_guard_become_unavailable_and_nothing_else_changes() -> None:
    lost = redis.exceptions.ConnectionError("connection reset")
    with pytest.raises(EventStoreUnavailable) as raised, unavailable_on_store_faults():
        raise lost
    assert raised.value.__cause__ is lost
    said = EventStoreUnavailable("already said")
    for error in (ValueError("ours"), said, asyncio.CancelledError()):
        with pytest.raises(type(error)) as passed, unavailable_on_store_faults():
            raise error
        assert passed.value is error
    with unavailable_on_store_faults():
        pass  # no error: nothing happens


def test_redis_py_failing_inside_its_own_connection_code_is_a_store_fault_not_ours() -> None:
    torn_down = _raise_inside(
        "redis.asyncio.connection", AttributeError("'NoneType' object has no attribute 'writelines'")
    )
    closed = _raise_inside(
        "redis.asyncio.cluster", RuntimeError("unable to perform operation on <TCPTransport closed=True>")
    )
    ours = _raise_inside(
        "gateway.usecases.play", AttributeError("'NoneType' object has no attribute 'version'")
    )
    assert is_store_fault(torn_down) and is_store_fault(closed)
    assert not is_store_fault(ours)
    for error in (
        torn_down,
        closed,
        redis.exceptions.ClusterDownError("CLUSTERDOWN The cluster is down"),
        redis.exceptions.TryAgainError("TRYAGAIN"),
        redis.exceptions.ResponseError("MASTERDOWN Link with MASTER is down"),
        redis.exceptions.ResponseError("UNBLOCKED force unblock from blocking operation"),
        redis.exceptions.ConnectionError("refused"),
        redis.exceptions.NoScriptError("No matching script. Please use EVAL."),
        NotReplicated("stored on the primary, not yet replicated; retry with the same command id"),
    ):
        mapped = fault(error)
        assert mapped is not None and mapped[0] == grpc.StatusCode.UNAVAILABLE, error
    assert fault(ours) is None  # a bug of ours stays INTERNAL (and logged)
    assert "not yet replicated" in fault(NotReplicated("stored on the primary, not yet replicated"))[1]  # type: ignore[index]


# -- nothing after a successful append fails the action ------------------------------------------


def test_a_failure_after_the_append_is_repaired_not_reported(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            created = await matches.create("acme", NIM, ["a", "b"], b"", match_id="ending", seed=SEED)
            key = created.key
            real_index_ended = matches.store.index_ended
            calls = []

            async def index_ended_failing_once(match_key: MatchKey) -> None:
                calls.append(match_key)
                if len(calls) == 1:
                    raise EventStoreUnavailable("the tenant index's shard is failing over")
                await real_index_ended(match_key)

            matches.store.index_ended = index_ended_failing_once  # type: ignore[method-assign]
            for turn in range(200):
                view = await matches.get_view(key, None)
                if view.finished:
                    break
                seat = view.active_seats[0]
                legal = (await matches.get_view(key, seat)).legal_actions
                outcome = await matches.submit(key, seat, legal[0], command_id=f"t{turn}")
                assert outcome.accepted  # the ending append too: acknowledged, not an error
            assert (await matches.get_view(key, None)).finished
            for _ in range(100):  # the repair retries in the background (first after 0.2 s)
                if len(calls) >= 2:
                    break
                await asyncio.sleep(0.05)
            assert len(calls) == 2
            assert redis_client.zscore(tenant_active_key("acme"), "ending") is None

    asyncio.run(scenario())


# -- the store going backwards is noticed -----------------------------------------------------------


def test_a_store_behind_an_acknowledged_version_is_counted_and_decided_afresh(
    redis_url: str, redis_client: redis.Redis, targets: dict[str, str]
) -> None:
    async def scenario() -> None:
        async with gateway(redis_url, targets) as matches:
            created = await matches.create("acme", NIM, ["a", "b"], b"", match_id="rolled", seed=SEED)
            key = created.key
            at_creation = await matches.get_view(key, None)
            seat = at_creation.active_seats[0]
            legal = (await matches.get_view(key, seat)).legal_actions
            first = await matches.submit(key, seat, legal[0], command_id="lost")
            assert first.accepted and first.version > at_creation.version
            # A failover drops that append (its primary acknowledged it, its replica never had it):
            # the stream, meta, command record and snapshot are as they were before it.
            keys = match_keys(key)
            kept = redis_client.xrange(keys.events, max=f"{at_creation.version}-0")
            redis_client.delete(keys.events)  # as the replica holds it: the lost entries never came
            for entry_id, fields in kept:
                redis_client.xadd(keys.events, fields, id=entry_id)
            head = decode_entries(kept)[-1].hash
            redis_client.hset(keys.meta, mapping={"version": at_creation.version, "head_hash": head})
            redis_client.hdel(keys.commands, "lost")
            redis_client.delete(keys.snapshot)
            before = metrics.STORE_REGRESSIONS._value.get()
            # The same seat acts again: this replica still holds the lost version in its cache.
            outcome = await matches.submit(key, seat, legal[0], command_id="again")
            assert metrics.STORE_REGRESSIONS._value.get() == before + 1
            assert outcome.accepted and outcome.version == first.version  # decided on what the store holds
            stored = [int(entry_id.split(b"-")[0]) for entry_id, _ in redis_client.xrange(keys.events)]
            assert stored == list(range(1, outcome.version + 1))
            audit = await matches.audit(key)
            assert audit.ok, audit

    asyncio.run(scenario())


# -- quotas fail open, for a bounded time ------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_quota_whose_shard_is_away_meters_locally_then_gives_up() -> None:
    async def scenario() -> None:
        # A client on a port nothing listens on: every refill is refused at once.
        dead = redis.asyncio.Redis(port=1, socket_connect_timeout=0.5)
        clock = _Clock()
        quotas = Quotas(dead, clock=clock)
        await quotas.take_action("acme", 2.0)  # served: a full local bucket of 2
        await quotas.take_action("acme", 2.0)
        with pytest.raises(QuotaExceeded) as refused:
            await quotas.take_action("acme", 2.0)  # still metered: the rate holds per replica
        assert refused.value.retry_after_ms > 0
        clock.now += 1.0  # two more tokens
        await quotas.take_action("acme", 2.0)
        clock.now += FAIL_OPEN_MAX_S + 2
        with pytest.raises(EventStoreUnavailable, match="unreachable"):
            await quotas.take_action("acme", 2.0)
        await dead.aclose()

    asyncio.run(scenario())


def test_a_reachable_quota_is_metered_in_redis_as_before(redis_url: str, redis_client: redis.Redis) -> None:
    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        quotas = Quotas(client)
        with pytest.raises(QuotaExceeded):
            for _ in range(50):
                await quotas.take_action("acme", 5.0)
        assert redis_client.exists("gh:{quota:acme}:actions")
        await client.aclose()

    asyncio.run(scenario())


# -- the subscription notices a stalled node and moves --------------------------------------------


def test_a_subscription_on_a_stalled_node_gives_up_instead_of_waiting(tmp_path: Path) -> None:
    server = RedisProcess(tmp_path / "redis", appendonly=False)
    server.start()

    async def scenario() -> None:
        client = redis.asyncio.Redis(port=server.port)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        await pubsub.subscribe("gh:notify")
        await redis.asyncio.Redis(port=server.port).publish("gh:notify", b"x")
        messages = live_messages(pubsub)
        assert (await asyncio.wait_for(anext(messages), 10))["data"] == b"x"
        server.pause()  # no socket closes: only the missing answer to a ping tells
        with pytest.raises(redis.exceptions.ConnectionError, match="said nothing"):
            await asyncio.wait_for(anext(messages), 30)
        server.resume()
        await pubsub.aclose()
        await client.aclose()

    try:
        asyncio.run(scenario())
    finally:
        server.resume()
        server.stop()


class _Node:
    def __init__(self, port: int) -> None:
        self.host, self.port = "127.0.0.1", port


class _FakeCluster:
    def get_nodes(self) -> list[_Node]:
        return [_Node(7002), _Node(7000), _Node(7001), _Node(7002)]


def test_a_cluster_subscription_moves_to_the_next_node_each_time_it_is_made_again() -> None:
    subscriber = ClusterSubscriber(_FakeCluster(), "127.0.0.1", 7000)
    ports = [subscriber.pubsub().connection_pool.connection_kwargs["port"] for _ in range(4)]
    assert ports == [7000, 7001, 7002, 7000]  # the URL's node first, then every other in turn
    asyncio.run(subscriber.aclose())


def test_a_script_unknown_to_a_newly_promoted_primary_is_sent_whole(
    redis_url: str, redis_client: redis.Redis
) -> None:
    from gateway.scripts import ColdClusterGuard, guarded_script

    async def scenario() -> None:
        client = redis.asyncio.Redis.from_url(redis_url)
        script = guarded_script(client, ColdClusterGuard(client), "return redis.call('INCR', KEYS[1])")
        assert await script(keys=["counter"], args=[]) == 1
        redis_client.script_flush()  # the node now serving the key has an empty script cache

        async def loaded_elsewhere(lua: str) -> str:  # redis-py's fallback reaching another node
            import hashlib

            return hashlib.sha1(lua.encode()).hexdigest()

        client.script_load = loaded_elsewhere  # type: ignore[method-assign]
        assert await script(keys=["counter"], args=[]) == 2  # EVAL: it ran, once
        await client.aclose()

    asyncio.run(scenario())
