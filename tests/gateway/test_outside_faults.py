"""Faults found by attacking the gateway from outside (issue 22), as a hostile client and someone
able to PUBLISH on Redis would: each answered precisely now, none an INTERNAL error or a stall."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
import redis
import redis.asyncio as aioredis
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from gateway.api import wire
from gateway.api.faults import fault
from gateway.api.server import GatewayServicer, Ports
from gateway.auth import Authenticator, Tokens, parse_tenants
from gateway.eventstore.async_redis import AsyncRedisEventStore
from gateway.eventstore.base import MatchKey
from gateway.eventstore.redis_store import match_keys
from gateway.quotas import Quotas
from gateway.signing import KeyRing
from gateway.usecases import InvalidRequest
from gateway.watch import CHANNEL, WatchHub, stream_versions
from tests.gateway.conftest import ACME_KEY, FakeMatches, LoopThread, bearer, tenants_document
from tests.gateway.gwcore_support import gateway
from tests.kernel.toy_game import GAME
from tests.rules_service import serving

KEY = MatchKey("acme", "m1")
DEEP = b"[" * 10_000 + b"]" * 10_000  # 10,000 levels of nesting


@pytest.fixture(scope="module")
def servicer(redis_url: str) -> Iterator[tuple[gateway_pb2_grpc.GatewayServiceStub, LoopThread]]:
    """The real servicer over a fake of the use cases, for a tenant allowed 2 reads a second."""
    loop = LoopThread()
    keyring = KeyRing.generate("k")
    document = tenants_document()
    document["tenants"]["acme"]["quotas"]["reads_per_second"] = 2

    async def build() -> tuple[Any, Any, Any, int]:
        client = aioredis.Redis.from_url(redis_url)
        await client.flushdb()
        hub = WatchHub(client)
        await hub.start()
        tokens = Tokens(keyring.sign, keyring.verify)
        ports = Ports(
            matches=FakeMatches(client, keyring),
            auth=Authenticator(parse_tenants(document), tokens),
            tokens=tokens,
            quotas=Quotas(client),
            hub=hub,
            games={"fake": pb.Game(game_id="fake", title="Fake", player_counts=[2, 3])},
            # Options are checked before either is used: any stand-in enables the RPCs.
            matchmaker=object(),
            tables=object(),
        )
        server = grpc.aio.server()
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(ports), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        return server, client, hub, port

    server, client, hub, port = loop.run(build())
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield gateway_pb2_grpc.GatewayServiceStub(channel), loop
    finally:
        channel.close()

        async def teardown() -> None:
            await server.stop(0)
            await hub.stop()
            await client.aclose()

        loop.run(teardown())
        loop.close()


def status_of(call: Any, request: Any) -> tuple[grpc.StatusCode, str]:
    try:
        call(request, metadata=bearer(ACME_KEY), timeout=10)
    except grpc.RpcError as error:
        return error.code(), error.details()
    return grpc.StatusCode.OK, ""


def test_options_nested_ten_thousand_deep_are_an_invalid_argument_everywhere(servicer: Any) -> None:
    stub, _ = servicer
    for rpc, request in (
        ("CreateMatch", pb.CreateMatchRequest(game_id="fake", players=["a", "b"], options=DEEP)),
        ("CreateTable", pb.CreateTableRequest(game_id="fake", seats=2, options=DEEP)),
        ("CreateTicket", pb.CreateTicketRequest(game_id="fake", min_seats=2, player_id="p", options=DEEP)),
    ):
        code, details = status_of(getattr(stub, rpc), request)
        assert (code, details) == (grpc.StatusCode.INVALID_ARGUMENT, "options are nested too deeply"), rpc
    with pytest.raises(wire.BadRequest, match="nested too deeply"):
        wire.options(b'{"a":' * 5000 + b"1" + b"}" * 5000)


def test_issue_token_spends_the_tenants_read_quota(servicer: Any) -> None:
    stub, _ = servicer
    created = stub.CreateMatch(
        pb.CreateMatchRequest(game_id="fake", players=["a", "b"], match_id="quota"),
        metadata=bearer(ACME_KEY),
        timeout=10,
    )
    codes = [
        status_of(stub.IssueToken, pb.IssueTokenRequest(match_id=created.match_id, seat=0))[0]
        for _ in range(40)
    ]
    assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes
    assert set(codes) <= {grpc.StatusCode.OK, grpc.StatusCode.RESOURCE_EXHAUSTED}


def test_read_events_after_the_largest_version_is_answered_not_an_internal_error(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def scenario(target: str) -> tuple[int, str]:
        async with gateway(redis_url, {GAME.game_id: target}) as matches:
            await matches.create("acme", GAME.game_id, ["a", "b"], match_id="m1")
            assert await matches.raw_events(KEY, 1) == []  # the end of the match: nothing more
            with pytest.raises(InvalidRequest) as refused:
                await matches.raw_events(KEY, 2**64 - 1)
            return len(await matches.raw_events(KEY, 0)), str(refused.value)

    with serving(GAME) as rules:
        count, message = asyncio.run(scenario(rules.target))
    assert count == 1 and message == f"after_version {2**64 - 1} is beyond the match's version 1"
    mapped = fault(InvalidRequest(message))
    assert mapped is not None and mapped[0] == grpc.StatusCode.INVALID_ARGUMENT


def test_a_forged_notification_does_not_hold_back_real_appends(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """After PUBLISH gh:notify "<tenant>\\x1f<match>\\x1f999999999", real appends reached the
    match's watchers only at the safety poll: every real version looked older than the forged one.
    The hub now believes what the stream holds, as the gateway wires it (bootstrap.py)."""
    meta = match_keys(KEY).meta
    redis_client.hset(meta, mapping={"version": 3, "head_hash": "0" * 64})

    async def body() -> tuple[list[int], int]:
        client = aioredis.Redis.from_url(redis_url)
        hub = WatchHub(
            client, safety_poll_s=3600, stream_version=stream_versions(AsyncRedisEventStore(client))
        )
        await hub.start()
        seen = []
        try:
            async with hub.watching(KEY) as feed:
                await client.publish(CHANNEL, b"acme\x1fm1\x1f999999999")
                await until(lambda: feed.version != 0)
                seen.append(feed.version)
                await client.hset(meta, "version", 4)  # a real append
                await client.publish(CHANNEL, b"acme\x1fm1\x1f4")
                await until(lambda: feed.version != seen[0])
                seen.append(feed.version)
                return seen, hub.notifications
        finally:
            await hub.stop()
            await client.aclose()

    seen, notifications = asyncio.run(body())
    assert seen == [3, 4] and notifications == 2


async def until(condition: Any) -> None:
    for _ in range(1000):
        if condition():
            return
        await asyncio.sleep(0.01)


def test_a_notification_is_believed_up_to_the_streams_version_only(
    redis_url: str, redis_client: redis.Redis
) -> None:
    redis_client.hset(match_keys(KEY).meta, mapping={"version": 7, "head_hash": "0" * 64})

    async def body() -> list[int]:
        client = aioredis.Redis.from_url(redis_url)
        check = stream_versions(AsyncRedisEventStore(client))
        try:
            return [await check(KEY), await check(MatchKey("acme", "nothing"))]
        finally:
            await client.aclose()

    assert asyncio.run(body()) == [7, 0]
