"""The gateway on a real Redis Cluster (REDIS_CLUSTER=1): matches, queues, tables and Watch work
with keys spread over three primaries, and the notification subscription on one node hears
appends made on every node (PUBLISH reaches the whole cluster)."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator
from typing import Any

import grpc
import pytest
from guildhall.gateway.v1 import gateway_pb2 as pb
from guildhall.gateway.v1 import gateway_pb2_grpc

from gateway import demo
from gateway.eventstore.local_cluster import LocalCluster
from gateway.stack import Stack
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


async def _play(target: str, matches: int) -> list[dict[str, Any]]:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = gateway_pb2_grpc.GatewayServiceStub(channel)
        players = min(GAMES[GAME].player_counts)

        async def one(n: int) -> dict[str, Any]:
            tickets = [
                await stub.CreateTicket(
                    pb.CreateTicketRequest(
                        game_id=GAME,
                        min_seats=players,
                        player_id=f"c{n}-{k}",
                        options=f'{{"vp_token_value": {n + 1}}}'.encode(),
                    ),
                    metadata=bearer(ACME_KEY),
                )
                for k in range(players)
            ]
            matched = await asyncio.gather(*(demo._matched(stub, ACME_KEY, t.ticket_id) for t in tickets))
            match_id = matched[0].match_id
            spectator = await stub.IssueToken(
                pb.IssueTokenRequest(match_id=match_id), metadata=bearer(ACME_KEY)
            )
            watching = asyncio.create_task(demo._spectate(stub, match_id, spectator.token))
            report = demo.MatchReport(GAME, players)
            await asyncio.gather(
                *(demo._bot(stub, match_id, t.seat_token, random.Random(t.seat), report) for t in matched)
            )
            events = await asyncio.wait_for(watching, 60)
            audit = await stub.Audit(pb.AuditRequest(match_id=match_id), metadata=bearer(ACME_KEY))
            final = await stub.GetView(pb.GetViewRequest(match_id=match_id), metadata=bearer(ACME_KEY))
            return {"tickets": matched, "events": events, "audit": audit, "final": final, "report": report}

        return list(await asyncio.gather(*(one(n) for n in range(matches))))


def test_matches_queued_played_and_watched_on_a_cluster_pass_their_audits(cluster_gateway: str) -> None:
    results = asyncio.run(_play(cluster_gateway, 3))
    assert len({r["final"].match_id for r in results}) == 3  # keys of several matches, several slots
    for result in results:
        assert not result["report"].errors
        assert result["final"].finished
        versions = [e.version for e in result["events"]]
        assert versions == list(range(1, result["final"].version + 1))
        assert result["audit"].ok and result["audit"].checked_versions == result["final"].version


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
