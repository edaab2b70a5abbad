"""Usage counting (issue 34) on its own: the hot path touches memory only; one flush is one
pipelined batch; a failed flush keeps its counts; retention is set on every key. Issue 43: counts
kept per game too, each in the hour it happened in."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

import pytest
import redis
import redis.asyncio as aioredis

from gateway.admin.usage import DAY, HOUR, UsageMeter, usage_key
from gateway.eventstore.base import NewEvent

NOW = float(int(time.time()))  # keys expire relative to the real clock
NOW_MS = int(NOW * 1000)


class Counting:
    """A redis.asyncio client that counts every command and every round trip sent through it."""

    def __init__(self, client: aioredis.Redis) -> None:
        self.client = client
        self.commands = 0
        self.round_trips = 0

    async def execute_command(self, *args: Any, **kwargs: Any) -> Any:
        self.commands += 1
        self.round_trips += 1
        return await self.client.execute_command(*args, **kwargs)

    def pipeline(self, transaction: bool = True) -> Any:
        pipe = self.client.pipeline(transaction=transaction)
        outer = self
        execute = pipe.execute

        async def counted() -> Any:
            outer.commands += len(pipe.command_stack)
            outer.round_trips += 1
            return await execute()

        pipe.execute = counted  # type: ignore[method-assign]
        return pipe

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"the meter called redis.{name} outside a pipeline")


def test_counting_makes_no_redis_call_and_one_flush_is_one_round_trip(
    redis_url: str, redis_client: redis.Redis
) -> None:
    async def run() -> tuple[Counting, int]:
        client = aioredis.Redis.from_url(redis_url)
        counting = Counting(client)
        meter = UsageMeter(counting, retention_days=400, clock=lambda: NOW)
        events = [NewEvent("moved", b'{"type":"moved"}'), NewEvent("match_ended", b'{"type":"match_ended"}')]
        meter.count_append("acme", "ys", 0, events[:1], "gateway", NOW_MS)
        for _ in range(1000):  # a thousand accepted actions
            meter.count_append("acme", "ys", 5, events[:1], "seat:0", NOW_MS)
        meter.count_append("acme", "ys", 9, events, "seat:1", NOW_MS)
        meter.count("rival", "webhook_deliveries", 2)
        assert counting.round_trips == 0 and counting.commands == 0  # memory only
        sent = await meter.flush()
        await client.aclose()
        return counting, sent

    counting, sent = asyncio.run(run())
    assert counting.round_trips == 1  # every tenant, counter, hour and day in one pipeline
    assert sent == 11  # acme: five counters, for all games and for ys; rival: one
    at = datetime.fromtimestamp(NOW, UTC)
    expected = {
        "matches_created": 1,
        "matches_finished": 1,
        "actions_accepted": 1001,
        "events_stored": 1003,
        "bytes_stored": 1002 * len(b'{"type":"moved"}') + len(b'{"type":"match_ended"}'),
    }
    for granularity in (HOUR, DAY):
        stored = {
            k.decode(): int(v) for k, v in redis_client.hgetall(usage_key("acme", granularity, at)).items()
        }
        assert stored == {**expected, **{f"ys:{name}": value for name, value in expected.items()}}
        ttl_days = redis_client.ttl(usage_key("acme", granularity, at)) / 86400
        assert 399 < ttl_days <= 402  # kept USAGE_RETENTION_DAYS after its period (from now, in days)
    assert redis_client.hget(usage_key("rival", DAY, at), "webhook_deliveries") == b"2"


def test_a_failed_flush_keeps_its_counts_for_the_next(redis_url: str, redis_client: redis.Redis) -> None:
    class Broken:
        def pipeline(self, transaction: bool = True) -> Any:
            class Pipe:
                def __getattr__(self, name: str) -> Any:
                    if name == "execute":

                        async def fail() -> None:
                            raise redis.ConnectionError("down")

                        return fail
                    return lambda *a, **k: None

            return Pipe()

    async def run() -> None:
        meter = UsageMeter(Broken(), clock=lambda: NOW)
        meter.count("acme", "actions_accepted", 3)
        with pytest.raises(redis.ConnectionError):
            await meter.flush()
        client = aioredis.Redis.from_url(redis_url)
        meter.redis = client
        meter.count("acme", "actions_accepted", 1)
        await meter.flush()
        await client.aclose()

    asyncio.run(run())
    at = datetime.fromtimestamp(NOW, UTC)
    assert redis_client.hget(usage_key("acme", DAY, at), "actions_accepted") == b"4"


def test_open_streams_are_charged_at_every_flush_not_only_when_they_end(
    redis_url: str, redis_client: redis.Redis
) -> None:
    now = [NOW]

    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url)
        meter = UsageMeter(client, clock=lambda: now[0])
        stream = object()
        meter.stream_opened("acme", stream)
        now[0] += 90
        await meter.flush()  # still open: 90 s charged now
        now[0] += 30
        meter.stream_closed(stream)
        await meter.flush()
        await client.aclose()

    asyncio.run(run())
    at = datetime.fromtimestamp(NOW, UTC)
    assert redis_client.hget(usage_key("acme", DAY, at), "stream_seconds") == b"120"


def test_a_bot_seat_is_charged_once_from_its_enlistment_to_its_release_as_done(
    redis_url: str, redis_client: redis.Redis
) -> None:
    from gateway.botseats import BotSeats

    now = [NOW]

    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url)
        meter = UsageMeter(client, clock=lambda: now[0])
        seats = BotSeats(client, clock=lambda: now[0], usage=meter)
        await seats.enlist("acme", "m-bots", "ys", {1: "greedy", 2: "random"})
        now[0] += 30
        first = await seats.claim("worker-a", 2, lease_s=60)
        assert len(first) == 2
        await seats.release([first[0].lease_id], done=False)  # given back: not charged
        now[0] += 60
        second = await seats.claim("worker-b", 1, lease_s=60)
        await seats.release([second[0].lease_id, first[1].lease_id], done=True)
        await seats.release([first[1].lease_id], done=True)  # a repeated release is not charged
        await meter.flush()
        await client.aclose()

    asyncio.run(run())
    at = datetime.fromtimestamp(NOW, UTC)
    # Two seats, each 90 s from enlistment to done, whichever worker held them; of the game ys.
    assert redis_client.hget(usage_key("acme", DAY, at), "bot_seat_seconds") == b"180"
    assert redis_client.hget(usage_key("acme", DAY, at), "ys:bot_seat_seconds") == b"180"


def test_a_count_belongs_to_the_hour_it_happened_in_not_the_hour_it_was_flushed_in(
    redis_url: str, redis_client: redis.Redis
) -> None:
    """Issue 43: an append just before an hour ends, flushed after it, is billed to its own hour
    (the hour its entries carry, which reconciliation compares with)."""
    hour_start = NOW - NOW % 3600

    async def run() -> None:
        client = aioredis.Redis.from_url(redis_url)
        meter = UsageMeter(client, clock=lambda: hour_start + 2)  # flushed 2 s into the hour
        moved = [NewEvent("moved", b'{"type":"moved"}')]
        meter.count_append("acme", "bruges", 4, moved, "seat:0", int((hour_start - 1) * 1000))
        meter.count_append("acme", "bruges", 5, moved, "seat:1", int((hour_start + 1) * 1000))
        await meter.flush()
        await client.aclose()

    asyncio.run(run())
    before = datetime.fromtimestamp(hour_start - 1, UTC)
    after = datetime.fromtimestamp(hour_start + 1, UTC)
    for at in (before, after):
        stored = redis_client.hgetall(usage_key("acme", HOUR, at))
        assert stored[b"actions_accepted"] == b"1" and stored[b"bruges:actions_accepted"] == b"1"
