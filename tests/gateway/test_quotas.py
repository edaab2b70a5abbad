"""Per-tenant quotas on a real Redis: the action and read buckets, active matches, open tickets."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import pytest
import redis
import redis.asyncio as aioredis

from gateway.quotas import QuotaExceeded, Quotas, bucket_key

T = TypeVar("T")


def run(redis_url: str, body: Callable[[Any], Awaitable[T]]) -> T:
    redis.Redis.from_url(redis_url).flushdb()

    async def main() -> T:
        client = aioredis.Redis.from_url(redis_url)
        try:
            return await body(client)
        finally:
            await client.aclose()

    return asyncio.run(main())


async def redis_seconds(client: Any) -> float:
    """Redis's own clock, the one the buckets refill by."""
    seconds, micros = await client.time()
    return float(seconds) + micros / 1e6


def test_a_tenant_gets_its_burst_then_is_refused_with_a_retry_hint(redis_url: str) -> None:
    async def body(client: Any) -> tuple[int, float, QuotaExceeded]:
        quotas = Quotas(client)
        taken = 0
        started = await redis_seconds(client)
        try:
            for _ in range(1000):
                await quotas.take_action("acme", 20)
                taken += 1
        except QuotaExceeded as exc:
            return taken, await redis_seconds(client) - started, exc
        raise AssertionError("never refused")

    taken, elapsed, refusal = run(redis_url, body)
    # One second's worth (20) is the burst, plus what refilled at 20/s while the loop ran.
    assert 20 <= taken <= 20 + math.ceil(20 * elapsed) + 1
    assert refusal.quota == "actions_per_second"
    assert 1 <= refusal.retry_after_ms <= 1000


def test_reads_have_a_bucket_of_their_own(redis_url: str) -> None:
    async def body(client: Any) -> tuple[QuotaExceeded, int]:
        quotas = Quotas(client)
        for _ in range(5):
            await quotas.take_read("acme", 5)
        with pytest.raises(QuotaExceeded) as refused:
            for _ in range(1000):
                await quotas.take_read("acme", 5)
        actions = 0
        for _ in range(5):  # spending every read leaves the action bucket whole
            await quotas.take_action("acme", 5)
            actions += 1
        return refused.value, actions

    refusal, actions = run(redis_url, body)
    assert refusal.quota == "reads_per_second" and "reads per second" in refusal.message
    assert actions == 5


def test_replicas_share_one_bucket(redis_url: str) -> None:
    async def body(client: Any) -> tuple[int, float]:
        replicas = [Quotas(client), Quotas(client), Quotas(client)]
        taken = 0
        started = await redis_seconds(client)
        for _ in range(40):
            for quotas in replicas:
                try:
                    await quotas.take_action("acme", 30)
                    taken += 1
                except QuotaExceeded:
                    pass
        return taken, await redis_seconds(client) - started

    # Three replicas hammering together get one burst (30) plus what the bucket refilled while
    # they hammered (30/s by Redis's own clock, the one the bucket uses), not three bursts.
    taken, elapsed = run(redis_url, body)
    assert 30 <= taken <= 30 + math.ceil(30 * elapsed) + 1


def test_tenants_have_separate_buckets(redis_url: str) -> None:
    async def body(client: Any) -> bool:
        quotas = Quotas(client)
        for _ in range(5):
            await quotas.take_action("a", 5)
        with pytest.raises(QuotaExceeded):
            await quotas.take_action("a", 5)
        await quotas.take_action("b", 5)  # b is untouched by a's spending
        return bool(await client.exists(bucket_key("a")))

    assert run(redis_url, body)


def test_active_matches_admit_up_to_the_limit_and_release_frees_a_slot(redis_url: str) -> None:
    async def body(client: Any) -> int:
        quotas = Quotas(client)
        await quotas.admit_match("acme", "m1", 2)
        await quotas.admit_match("acme", "m2", 2)
        await quotas.admit_match("acme", "m1", 2)  # the same match again (a retried create): fine
        with pytest.raises(QuotaExceeded) as caught:
            await quotas.admit_match("acme", "m3", 2)
        assert caught.value.quota == "active_matches"
        await quotas.admit_match("other", "m3", 2)  # another tenant's count is its own
        await quotas.release_match("acme", "m1")
        await quotas.admit_match("acme", "m3", 2)
        return await quotas.active_matches("acme")

    assert run(redis_url, body) == 2


def test_admission_is_atomic_under_concurrency(redis_url: str) -> None:
    async def body(client: Any) -> tuple[int, int]:
        quotas = Quotas(client)

        async def one(n: int) -> bool:
            try:
                await quotas.admit_match("acme", f"m{n}", 5)
                return True
            except QuotaExceeded:
                return False

        results = await asyncio.gather(*(one(n) for n in range(40)))
        return sum(results), await quotas.active_matches("acme")

    assert run(redis_url, body) == (5, 5)


def test_open_tickets_over_the_limit_are_refused() -> None:
    Quotas.check_open_tickets(2, 3)
    with pytest.raises(QuotaExceeded) as caught:
        Quotas.check_open_tickets(3, 3)
    assert caught.value.quota == "open_tickets" and caught.value.retry_after_ms > 0
