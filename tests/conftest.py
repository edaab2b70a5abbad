"""Shared fixtures: a real Redis for every suite that needs one (never skipped for lack of it)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
import redis

from gateway.eventstore.local_redis import local_redis


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
