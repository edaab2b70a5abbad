"""Shared fixtures: a real Redis for every suite that needs one (never skipped for lack of it)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import redis

from devstack.cluster import LocalCluster, redis_cluster
from devstack.redis import local_redis


def _database_for_this_worker(url: str) -> str:
    """Give each pytest-xdist worker its own logical database, so a shared REDIS_URL is not
    flushed by one worker under another's feet (a self-started server is per worker anyway)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER", "")  # "gw0", "gw1", ... under xdist
    if not worker.startswith("gw"):
        return url
    parts = urlsplit(url)
    if parts.scheme not in ("redis", "rediss"):
        return url  # e.g. a unix socket URL selects its database differently; leave it alone
    database = int(worker[2:]) % 16
    return parts._replace(path=f"/{database}").geturl()


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a Redis for the whole session: REDIS_URL, a container, or a local redis-server."""
    with local_redis() as url:
        yield _database_for_this_worker(url)


@pytest.fixture
def redis_client(redis_url: str) -> Iterator[redis.Redis]:
    """A client on an empty database (flushed before each test)."""
    client = redis.Redis.from_url(redis_url)
    client.flushdb()
    try:
        yield client
    finally:
        client.close()


@pytest.fixture(scope="session")
def local_cluster() -> Iterator[LocalCluster]:
    """A real Redis Cluster (3 primaries, one replica each) on loopback for the whole session."""
    with redis_cluster(primaries=3, replicas_per_primary=1) as cluster:
        yield cluster


@pytest.fixture
def redis_cluster_client(local_cluster: LocalCluster) -> Iterator[redis.RedisCluster]:
    """A cluster client on an empty cluster (every primary flushed before each test)."""
    client = local_cluster.client()
    client.flushall(target_nodes=redis.RedisCluster.PRIMARIES)
    try:
        yield client
    finally:
        client.close()
