"""The tenant registry and the admin log on a real Redis, without gateways (issue 39): a log
written before receipts is adopted once, and after that nothing the log does not explain is
served, even by a replica starting then."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import redis
import redis.asyncio

from gateway.admin.log import TENANTS_KEY, AdminLog
from gateway.admin.registry import TenantRegistry
from gateway.auth import Tenant, hash_key, new_api_key
from gateway.signing import KeyRing

RING = KeyRing.generate("admin-test")


def record(key: str) -> bytes:
    body = {"keys": [{"id": "k1", "sha256": hash_key(key), "scopes": ["tenant"]}]}
    return json.dumps({"body": body, "suspended": False}).encode()


async def replica(url: str) -> tuple[TenantRegistry, dict[str, Tenant], Any]:
    """A replica's registry, started: the tenants it serves."""
    client = redis.asyncio.Redis.from_url(url)
    served: dict[str, Tenant] = {}

    def apply(fresh: dict[str, Tenant]) -> None:
        served.clear()
        served.update(fresh)

    log = AdminLog(client, sign=RING.sign, verify=RING.verify)
    registry = TenantRegistry(client, apply, log=log, listen=False)
    await registry.start(None)
    return registry, served, client


def test_a_log_from_before_receipts_is_adopted_once_then_only_what_it_explains_is_served(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def scenario() -> None:
        # What issue 34 left: a log entry without receipt or record digest, a record beside it.
        legacy = redis.asyncio.Redis.from_url(redis_url)
        await AdminLog(legacy).append("ops", "create_tenant", "old", None, {"body": {}})
        redis_client.hset(TENANTS_KEY, "old", record(new_api_key()))

        first, served, client = await replica(redis_url)
        assert set(served) == {"old"}  # adopted: served
        report = await first.log.verify(None, (await first.records.snapshot())[2])
        assert report.ok, report.problems
        second, again, other = await replica(redis_url)  # a second replica adopts nothing more
        entries = await second.log.entries(0, 100)
        assert [e.action for e in entries] == ["create_tenant", "adopt_records"]
        assert set(again) == {"old"}

        redis_client.hset(TENANTS_KEY, "written-directly", record(new_api_key()))
        third, fresh, third_client = await replica(redis_url)  # a replica starting now
        assert set(fresh) == {"old"}  # serves nothing the log does not explain
        report = await third.log.verify(None, (await third.records.snapshot())[2])
        assert report.unexplained == [("written-directly", "no admin log entry wrote this record")]
        for each in (client, other, third_client, legacy):
            await each.aclose()

    asyncio.run(scenario())
