"""Issue 30 items 2 and 3: caps on the Play and Watch streams one credential and one tenant hold
open on a replica, released however a stream ends; and what a replica holds for streams that
have closed (nothing: its maps are back to where they started).

The real servicer, watch hub (on real Redis), auth and quotas over FakeMatches, in one event
loop with a grpc.aio client."""

from __future__ import annotations

import asyncio
import gc
import itertools
import tracemalloc
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
import redis.asyncio as aioredis
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from gateway.api.server import GatewayServicer, Ports
from gateway.api.streams import StreamLimits
from gateway.auth import Authenticator, Tokens, parse_tenants
from gateway.quotas import Quotas
from gateway.signing import KeyRing
from gateway.watch import WatchHub
from tests.gateway.conftest import ACME_KEY, GLOBEX_KEY, FakeMatches, bearer, tenants_document

PER_TOKEN, PER_SPECTATOR, PER_TENANT = 3, 4, 5
_ids = itertools.count()


class Gw:
    def __init__(self, ports: Ports, stub: Any, target: str) -> None:
        self.ports = ports
        self.stub = stub
        self.target = target

    async def match(self, key: str = ACME_KEY) -> pb.CreateMatchResponse:
        request = pb.CreateMatchRequest(game_id="fake", players=["a", "b"], match_id=f"lim{next(_ids)}")
        response: pb.CreateMatchResponse = await self.stub.CreateMatch(request, metadata=bearer(key))
        return response

    async def watch(self, credential: str, match_id: str, from_version: int = 0) -> Any:
        """A Watch stream, open once its first update came (then it is counted), or its error."""
        call = self.stub.Watch(
            pb.WatchRequest(match_id=match_id, from_version=from_version), metadata=bearer(credential)
        )
        await asyncio.wait_for(call.read(), 10)
        return call

    async def play(self, token: str, match_id: str) -> Any:
        call = self.stub.Play(metadata=bearer(token))
        await call.write(pb.PlayRequest(open=pb.PlayOpen(match_id=match_id)))
        await asyncio.wait_for(call.read(), 10)
        return call


async def until(check: Callable[[], bool]) -> None:
    """A bounded wait for the server's side of a cancel to run (no timing asserted)."""
    for _ in range(500):
        if check():
            return
        await asyncio.sleep(0.01)
    raise AssertionError("not reached")


async def refused(opening: Awaitable[Any]) -> str:
    with pytest.raises(grpc.aio.AioRpcError) as caught:
        await opening
    assert caught.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    return str(caught.value.details())


def run(redis_url: str, body: Callable[[Gw], Awaitable[None]], limits: StreamLimits | None = None) -> None:
    async def main() -> None:
        client = aioredis.Redis.from_url(redis_url)
        await client.flushdb()
        hub = WatchHub(client)
        await hub.start()
        keyring = KeyRing.generate("test-1")
        tokens = Tokens(keyring.sign, keyring.verify)
        ports = Ports(
            matches=FakeMatches(client, keyring),
            auth=Authenticator(parse_tenants(tenants_document()), tokens),
            tokens=tokens,
            quotas=Quotas(client),
            hub=hub,
            games={"fake": pb.Game(game_id="fake", title="Fake", player_counts=[2, 3])},
            streams=limits
            or StreamLimits(per_token=PER_TOKEN, per_tenant=PER_TENANT, per_spectator_token=PER_SPECTATOR),
        )
        server = grpc.aio.server()
        gateway_pb2_grpc.add_GatewayServiceServicer_to_server(GatewayServicer(ports), server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        channel = grpc.aio.insecure_channel(f"127.0.0.1:{port}")
        try:
            await body(Gw(ports, gateway_pb2_grpc.GatewayServiceStub(channel), f"127.0.0.1:{port}"))
        finally:
            await channel.close()
            await server.stop(0)
            await hub.stop()
            await client.aclose()

    asyncio.run(main())


@pytest.mark.parametrize("kind", ["Watch", "Play"])
def test_one_seat_token_holds_at_most_its_cap_and_a_closed_stream_frees_its_place(
    redis_url: str, kind: str
) -> None:
    async def body(gw: Gw) -> None:
        match = await gw.match()
        token = match.seats[0].token
        open_one = gw.watch if kind == "Watch" else gw.play
        calls = [await open_one(token, match.match_id) for _ in range(PER_TOKEN)]
        details = await refused(open_one(token, match.match_id))
        assert f"this seat token already has {PER_TOKEN} Play/Watch streams open" in details
        assert "MAX_STREAMS_PER_TOKEN" in details
        # Another seat of the same match is another credential.
        other = await open_one(match.seats[1].token, match.match_id)
        # A fresh token for the same seat does not reset the cap.
        fresh, _ = gw.ports.tokens.issue("acme", match.match_id, 0)
        await refused(open_one(fresh, match.match_id))
        calls[0].cancel()  # the client cancels: its place is free again
        await until(
            lambda: gw.ports.streams.by_credential[StreamLimits.credential(_seat(gw, token))] < PER_TOKEN
        )
        calls[0] = await open_one(token, match.match_id)
        for call in [*calls, other]:
            call.cancel()
        await until(lambda: not gw.ports.streams.by_credential and not gw.ports.streams.by_tenant)

    run(redis_url, body)


def _seat(gw: Gw, token: str) -> Any:
    return gw.ports.tokens.check(token)


def test_the_tenant_cap_holds_across_its_credentials_and_spares_other_tenants(redis_url: str) -> None:
    async def body(gw: Gw) -> None:
        matches = [await gw.match() for _ in range(3)]
        calls = [await gw.watch(m.seats[0].token, m.match_id) for m in matches[:2] for _ in range(2)]
        calls.append(await gw.play(matches[2].seats[0].token, matches[2].match_id))  # 5: the cap
        details = await refused(gw.watch(matches[2].seats[1].token, matches[2].match_id))
        assert f"the tenant already has {PER_TENANT} Play/Watch streams open" in details
        assert "MAX_STREAMS_PER_TENANT" in details
        await refused(gw.watch(ACME_KEY, matches[0].match_id))  # an API key of the tenant too
        theirs = await gw.match(GLOBEX_KEY)
        other = await gw.watch(theirs.seats[0].token, theirs.match_id)  # another tenant: served
        calls.pop().cancel()
        await until(lambda: gw.ports.streams.by_tenant["acme"] < PER_TENANT)
        calls.append(await gw.watch(matches[2].seats[1].token, matches[2].match_id))
        for call in [*calls, other]:
            call.cancel()
        await until(lambda: not gw.ports.streams.by_tenant)

    run(redis_url, body)


def test_a_spectator_token_has_its_own_larger_cap(redis_url: str) -> None:
    async def body(gw: Gw) -> None:
        match = await gw.match()
        calls = [await gw.watch(match.spectator_token, match.match_id) for _ in range(PER_SPECTATOR)]
        details = await refused(gw.watch(match.spectator_token, match.match_id))
        assert "this spectator token" in details and "MAX_STREAMS_PER_SPECTATOR_TOKEN" in details
        for call in calls:
            call.cancel()
        await until(lambda: not gw.ports.streams.by_tenant)

    run(redis_url, body)


def test_streams_ending_in_an_error_or_a_lost_connection_give_their_place_back(redis_url: str) -> None:
    async def body(gw: Gw) -> None:
        match = await gw.match()
        token = match.seats[0].token
        for _ in range(PER_TOKEN + 2):  # an error after the stream took its place
            with pytest.raises(grpc.aio.AioRpcError) as caught:
                await gw.watch(token, match.match_id, from_version=999)
            assert caught.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        for _ in range(PER_TOKEN + 2):  # a Play stream ending with its status (no `open` first)
            call = gw.stub.Play(metadata=bearer(token))
            await call.write(pb.PlayRequest(action=pb.PlayAction(command_id="c", action=b"{}")))
            with pytest.raises(grpc.aio.AioRpcError):
                await asyncio.wait_for(call.read(), 10)
        assert not gw.ports.streams.by_credential
        # Connections that go away with their streams open (the client's process dies).
        channel = grpc.aio.insecure_channel(gw.target)
        other = gateway_pb2_grpc.GatewayServiceStub(channel)
        for _ in range(PER_TOKEN):
            call = other.Watch(pb.WatchRequest(match_id=match.match_id), metadata=bearer(token))
            await asyncio.wait_for(call.read(), 10)
        assert sum(gw.ports.streams.by_credential.values()) == PER_TOKEN
        await channel.close(grace=None)
        await until(lambda: not gw.ports.streams.by_credential)
        call = await gw.watch(token, match.match_id)
        call.cancel()

    run(redis_url, body)


def test_closed_streams_leave_nothing_held_behind(redis_url: str) -> None:
    """Item 3: after many Watch and Play streams open and close, the hub's feeds, the caps'
    counters and the live Python objects are back to their baseline (a leak would grow them with
    every stream; what RSS keeps after that is the allocator's, docs/gateway.md)."""

    async def body(gw: Gw) -> None:
        matches = [await gw.match() for _ in range(20)]

        async def round_of_streams() -> None:
            calls = []
            for m in matches:
                calls.append(await gw.watch(m.spectator_token, m.match_id))
                calls.append(await gw.play(m.seats[0].token, m.match_id))
                calls.append(await gw.watch(m.seats[1].token, m.match_id))
            assert gw.ports.hub.open_watchers == 3 * len(matches)
            for call in calls:
                call.cancel()
            await until(lambda: gw.ports.hub.open_watchers == 0 and not gw.ports.streams.by_tenant)

        await round_of_streams()  # warm: first-use caches, code objects, the channel's buffers
        gc.collect()
        objects_before = len(gc.get_objects())
        tracemalloc.start()
        try:
            baseline = tracemalloc.take_snapshot()
            for _ in range(5):  # 300 streams
                await round_of_streams()
            await asyncio.sleep(0.05)
            gc.collect()
            after = tracemalloc.take_snapshot()
        finally:
            tracemalloc.stop()
        assert gw.ports.hub._feeds == {}  # noqa: SLF001 - the hub's map of matches followed
        assert gw.ports.streams.by_credential == {} and gw.ports.streams.by_tenant == {}
        growth = sum(stat.size_diff for stat in after.compare_to(baseline, "filename"))
        # ~40 KiB a stream held would be 12 MiB here; allow the odd cache entry, not a per-stream one.
        assert growth < 300 * 1024, growth
        assert len(gc.get_objects()) - objects_before < 300 * 10

    run(redis_url, body, StreamLimits(per_token=100, per_tenant=1000, per_spectator_token=100))
