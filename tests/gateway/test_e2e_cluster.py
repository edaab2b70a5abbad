"""The gateway on a real Redis Cluster (REDIS_CLUSTER=1): matches, queues, tables and Watch work
with keys spread over three primaries, and the notification subscription on one node hears
appends made on every node (PUBLISH reaches the whole cluster)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from devstack import demo
from devstack.cluster import LocalCluster
from devstack.stack import Stack
from guildhall_client import AsyncClient
from services.registry import GAMES
from tests.gateway.conftest import ACME_KEY, bearer, tenants_document

GAME = "rattus_cartus" if "rattus_cartus" in GAMES else next(iter(GAMES))


@pytest.fixture(scope="module")
def cluster_gateway(local_cluster: LocalCluster, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import redis

    client = local_cluster.client()
    client.flushall(target_nodes=redis.RedisCluster.PRIMARIES)
    client.close()
    logs = tmp_path_factory.mktemp("cluster-logs")
    env = {"REDIS_URL": local_cluster.url, "REDIS_CLUSTER": "1"}
    with Stack([GAME], gateways=1, log_dir=logs, tenants=tenants_document(), gateway_env=env) as stack:
        yield stack.gateway_targets[0]


async def _play(target: str, matches: int) -> list[demo.MatchReport]:
    """`matches` matches at once, each queued, played, watched and audited through the client
    library (demo.queue_bots / demo.play_match); options differ per match, so no two pair."""
    async with AsyncClient(target, api_key=ACME_KEY) as client:
        players = min(GAMES[GAME].player_counts)

        async def one(n: int) -> demo.MatchReport:
            seats = await demo.queue_bots([client], GAME, players, options={"vp_token_value": n + 1})
            return await demo.play_match([client], seats, seed=n)

        return list(await asyncio.gather(*(one(n) for n in range(matches))))


def test_matches_queued_played_and_watched_on_a_cluster_pass_their_audits(cluster_gateway: str) -> None:
    reports = asyncio.run(_play(cluster_gateway, 3))
    assert len({r.match_id for r in reports}) == 3  # keys of several matches, several slots
    for report in reports:
        assert not report.errors
        assert report.final is not None and report.final.finished
        versions = [e.version for e in report.spectated]
        assert versions == list(range(1, report.final.version + 1))
        assert report.audits[0].ok and report.audits[0].checked_versions == report.final.version


def test_a_private_table_and_quotas_work_on_a_cluster(cluster_gateway: str) -> None:
    with grpc.insecure_channel(cluster_gateway) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        seats = min(GAMES[GAME].player_counts)
        table = stub.CreateTable(pb.CreateTableRequest(game_id=GAME, seats=seats), metadata=bearer(ACME_KEY))
        claims = [
            stub.ClaimSeat(
                pb.ClaimSeatRequest(invite_code=table.invite_code, player_id=f"t{n}"),
                metadata=bearer(ACME_KEY),
            )
            for n in range(seats + 1)
        ]
        assert sorted(c.seat.seat for c in claims[:seats]) == list(range(seats))
        assert claims[-1].rejection.code == "seat_taken"
        view = stub.GetView(pb.GetViewRequest(match_id=table.match_id), metadata=bearer(claims[0].seat.token))
        assert view.version >= 1 and view.seat == claims[0].seat.seat
