"""Fixtures for fault tests: processes of our own that a test may SIGKILL and restart."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from devstack.processes import RedisProcess
from devstack.stack import Stack, TenantSpec
from tests.reliability.gateway_helpers import settle

# The flooding tenant's quota in the shared stack: low, so a few loops exceed it at once.
FLOOD_QUOTA = 5.0


@pytest.fixture
def aof_redis(tmp_path: Path) -> Iterator[RedisProcess]:
    """A redis-server of this test alone, AOF with appendfsync always, on its own data dir."""
    server = RedisProcess(tmp_path / "redis")
    server.start()
    try:
        yield server
    finally:
        server.kill()  # nothing to keep: the data dir goes with tmp_path


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    """Redis (AOF always), every registered game's rules service and two gateway replicas,
    shared by the tests that go through the gateway (each xdist worker starts its own)."""
    tenants = (TenantSpec("acme"), TenantSpec("rival"), TenantSpec("flood", actions_per_second=FLOOD_QUOTA))
    with Stack.for_faults(tmp_path_factory.mktemp("stack"), tenants=tenants) as started:
        yield started


@pytest.fixture
def healthy(stack: Stack) -> Stack:
    """The shared stack with every process up and Redis writable (a fault test may have left one
    down if it failed half-way)."""
    for process in [stack.redis, *stack.rules.values(), *stack.gateways]:
        if not process.alive:
            process.start()
    client = stack.redis.client()
    try:
        client.config_set("maxmemory", 0)
    finally:
        client.close()
    settle(stack)
    return stack
