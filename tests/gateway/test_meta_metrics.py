"""The gateway counts what the meta-monitoring alerts read (issue 43, item 2): usage flushes and
tenant-registry refreshes by outcome, against a real Redis and against one that is not there,
and rules calls that fail by game, method and status, against a rules service that is gone."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import grpc
import pytest
import redis.asyncio
from prometheus_client import REGISTRY

from devstack.processes import free_port
from gateway.admin.registry import TenantRegistry
from gateway.admin.usage import UsageMeter
from gateway.bootstrap import TimedRules
from gateway.rules_client import AsyncRulesClient


def _count(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def _gone() -> Any:
    """A client of a Redis nobody listens for (a refused connection at once)."""
    return redis.asyncio.Redis.from_url(f"redis://127.0.0.1:{free_port()}/0", socket_connect_timeout=0.5)


async def _run_for(loop_of: Callable[[asyncio.Event], Awaitable[None]], seconds: float) -> None:
    stopping = asyncio.Event()
    task = asyncio.create_task(loop_of(stopping))
    await asyncio.sleep(seconds)
    stopping.set()
    await asyncio.wait_for(task, 5)


@pytest.mark.parametrize("reachable", [True, False])
def test_usage_flushes_are_counted_by_outcome(redis_url: str, reachable: bool) -> None:
    outcome = "ok" if reachable else "failed"
    before = _count("guildhall_gateway_usage_flushes_total", outcome=outcome)

    async def main() -> None:
        client = redis.asyncio.Redis.from_url(redis_url) if reachable else _gone()
        meter = UsageMeter(client, flush_s=0.05)
        meter.count("acme", "actions_accepted")
        await _run_for(meter.run, 0.3)
        await client.aclose()

    asyncio.run(main())
    assert _count("guildhall_gateway_usage_flushes_total", outcome=outcome) >= before + 2


@pytest.mark.parametrize("reachable", [True, False])
def test_tenant_registry_refreshes_are_counted_by_outcome(redis_url: str, reachable: bool) -> None:
    outcome = "ok" if reachable else "failed"
    before = _count("guildhall_gateway_tenant_refreshes_total", outcome=outcome)

    async def main() -> None:
        client = redis.asyncio.Redis.from_url(redis_url) if reachable else _gone()
        registry = TenantRegistry(client, lambda tenants: None, poll_s=0.05, listen=False)
        await _run_for(registry.run, 0.3)
        await client.aclose()

    asyncio.run(main())
    assert _count("guildhall_gateway_tenant_refreshes_total", outcome=outcome) >= before + 2


def test_a_rules_call_that_fails_is_counted_by_game_method_and_status() -> None:
    labels = {"game": "ys", "method": "legal_actions", "code": "UNAVAILABLE"}
    before = _count("guildhall_gateway_rules_call_failures_total", **labels)

    async def main() -> None:
        client = AsyncRulesClient("ys", f"127.0.0.1:{free_port()}", sessions=0, timeout_s=5)
        rules = TimedRules("ys", client)
        with pytest.raises(grpc.aio.AioRpcError):
            await rules.legal_actions(None, 0)
        await client.close()

    asyncio.run(main())
    assert _count("guildhall_gateway_rules_call_failures_total", **labels) == before + 1
