"""Redis Cluster for real: the keys of one match share a slot (so the append script runs), the
matches of a tenant spread over every primary, and the store works through a cluster client
(the contract suite in test_contract.py runs against the same local cluster)."""

from __future__ import annotations

import redis

from devstack.cluster import LocalCluster
from gateway.eventstore.base import MatchKey, NewEvent
from gateway.eventstore.redis_store import RedisEventStore, match_keys


def test_every_key_of_a_match_lands_in_one_slot(redis_cluster_client: redis.RedisCluster) -> None:
    for n in range(200):
        keys = match_keys(MatchKey(f"tenant-{n % 7}", f"match.{n}_x-y"))
        assert len({redis_cluster_client.keyslot(k) for k in keys}) == 1, keys


def test_matches_spread_over_every_primary(
    redis_cluster_client: redis.RedisCluster, local_cluster: LocalCluster
) -> None:
    store = RedisEventStore(redis_cluster_client)
    for n in range(60):
        store.append(
            MatchKey("acme", f"m{n}"), 0, [NewEvent("e", b"{}")], actor="a", command_id="c", rules_version="1"
        )
    holders = set()
    for node in local_cluster.nodes:
        if node.primary and redis.Redis(port=node.port).dbsize():
            holders.add(node.port)
    assert len(holders) == sum(node.primary for node in local_cluster.nodes)
