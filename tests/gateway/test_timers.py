"""Durable turn timers on a real Redis and a real Redis Cluster: each fires once with two
replicas, survives a restart, and a claim whose replica died is fired again."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

import pytest
import redis.asyncio
import redis.asyncio.cluster

from gateway.eventstore.base import MatchKey
from gateway.timers import TurnTimers

ClientFactory = Callable[[], Any]


@pytest.fixture
def plain(redis_url: str, redis_client: object) -> ClientFactory:
    """Async clients on the flushed test database."""
    return lambda: redis.asyncio.Redis.from_url(redis_url)


@pytest.fixture(params=["redis", "cluster"])
def any_redis(request: pytest.FixtureRequest) -> ClientFactory:
    """Async clients on a plain Redis, then on the local Redis Cluster (flushed)."""
    if request.param == "redis":
        url = request.getfixturevalue("redis_url")
        request.getfixturevalue("redis_client")
        return lambda: redis.asyncio.Redis.from_url(url)
    cluster = request.getfixturevalue("local_cluster")
    request.getfixturevalue("redis_cluster_client")
    return lambda: redis.asyncio.cluster.RedisCluster.from_url(cluster.url)


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    asyncio.run(scenario())


class Clock:
    def __init__(self, now_s: float = 1_000_000.0) -> None:
        self.now_s = now_s

    def __call__(self) -> float:
        return self.now_s


async def eventually(condition: Callable[[], bool], what: str, limit_s: float = 20.0) -> None:
    """Wait for the background loops (a safety limit, not a timing assertion)."""
    give_up = time.monotonic() + limit_s
    while not condition():
        if time.monotonic() > give_up:
            raise AssertionError(f"never happened: {what}")
        await asyncio.sleep(0.02)


async def running(*loops: Awaitable[None]) -> list[asyncio.Task[None]]:
    return [asyncio.ensure_future(loop) for loop in loops]


KEY = MatchKey("acme", "m1")


def test_an_armed_timer_fires_once_with_its_details(plain: ClientFactory) -> None:
    async def scenario() -> None:
        client = plain()
        timers = TurnTimers(client, poll_s=0.05)
        fired: list[tuple[MatchKey, int, int, str]] = []

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            fired.append((key, version, seat, policy))

        await timers.arm(KEY, 7, 1, int(time.time() * 1000) - 1, "forfeit")
        stop = asyncio.Event()
        (loop,) = await running(timers.run(on_expire, stop))
        await eventually(lambda: bool(fired), "the timer fired")
        stop.set()
        await loop
        assert fired == [(KEY, 7, 1, "forfeit")]
        assert await timers.armed(KEY) == []
        await client.aclose()

    run(scenario)


def test_a_timer_fires_only_once_its_deadline_passed(plain: ClientFactory) -> None:
    async def scenario() -> None:
        clock = Clock()
        timers = TurnTimers(plain(), clock=clock)
        await timers.arm(KEY, 3, 0, int(clock.now_s * 1000) + 30_000, "random_action")
        shard = timers.shard_of(KEY)
        claimed, next_due = await timers.claim_due(shard)
        assert claimed == [] and next_due == int(clock.now_s * 1000) + 30_000
        clock.now_s += 30
        claimed, _ = await timers.claim_due(shard)
        assert [(t.version, t.seat, t.policy, t.attempts) for t in claimed] == [(3, 0, "random_action", 1)]

    run(scenario)


def test_arming_a_newer_turn_drops_the_older_turns_timers(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain())
        await timers.arm(KEY, 4, 0, 5_000, "forfeit")
        await timers.arm(KEY, 4, 2, 5_000, "forfeit")  # two seats decide at once: both armed
        assert [(t.seat, t.version) for t in await timers.armed(KEY)] == [(0, 4), (2, 4)]
        await timers.arm(KEY, 5, 2, 9_000, "forfeit")  # seat 0 decided: only seat 2 still owes
        assert [(t.seat, t.version, t.deadline_ms) for t in await timers.armed(KEY)] == [(2, 5, 9_000)]

    run(scenario)


def test_a_late_arm_for_an_older_turn_is_ignored(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain())
        await timers.arm(KEY, 9, 1, 5_000, "forfeit")
        await timers.arm(KEY, 8, 0, 4_000, "forfeit")  # a slow replica arming a finished turn
        assert [(t.seat, t.version) for t in await timers.armed(KEY)] == [(1, 9)]

    run(scenario)


def test_disarm_removes_every_timer_of_the_match_and_no_other(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain(), shards=1)  # both matches in one shard
        other = MatchKey("acme", "m2")
        await timers.arm(KEY, 2, 0, 1_000, "forfeit")
        await timers.arm(KEY, 2, 1, 1_000, "forfeit")
        await timers.arm(other, 2, 0, 1_000, "forfeit")
        await timers.disarm(KEY)
        assert await timers.armed(KEY) == []
        assert len(await timers.armed(other)) == 1
        claimed, _ = await timers.claim_due(0)
        assert [t.key for t in claimed] == [other]

    run(scenario)


def test_bad_arm_arguments_are_refused(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain())
        with pytest.raises(ValueError):
            await timers.arm(KEY, 1, 0, 1_000, "nap")
        with pytest.raises(ValueError):
            await timers.arm(KEY, -1, 0, 1_000, "forfeit")
        assert await timers.armed(KEY) == []

    run(scenario)


def test_two_replicas_fire_each_timer_exactly_once(any_redis: ClientFactory) -> None:
    async def scenario() -> None:
        first, second = any_redis(), any_redis()
        replicas = [TurnTimers(first, poll_s=0.05, batch=20), TurnTimers(second, poll_s=0.05, batch=20)]
        due = int(time.time() * 1000) - 1
        expected = {(MatchKey("acme", f"m{n}"), n % 3) for n in range(150)}
        for key, seat in expected:
            await replicas[n_of(key) % 2].arm(key, 5, seat, due, "random_action")
        fired: Counter[tuple[MatchKey, int]] = Counter()
        by_replica: Counter[int] = Counter()

        def handler(replica: int) -> Callable[[MatchKey, int, int, str], Awaitable[None]]:
            async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
                await asyncio.sleep(0.001)  # let the other replica interleave
                fired[(key, seat)] += 1
                by_replica[replica] += 1

            return on_expire

        stop = asyncio.Event()
        loops = await running(*(r.run(handler(i), stop) for i, r in enumerate(replicas)))
        await eventually(lambda: sum(fired.values()) >= len(expected), "every timer fired")
        await asyncio.sleep(0.2)  # give a double fire the chance to show
        stop.set()
        await asyncio.gather(*loops)
        assert set(fired) == expected
        assert set(fired.values()) == {1}
        for key, _ in expected:
            assert await replicas[0].armed(key) == []
        await first.aclose()
        await second.aclose()

    run(scenario)


def n_of(key: MatchKey) -> int:
    return int(key.match_id[1:])


def test_armed_timers_survive_a_restart(plain: ClientFactory) -> None:
    async def scenario() -> None:
        before = plain()
        await TurnTimers(before).arm(KEY, 11, 0, int(time.time() * 1000) - 1, "forfeit")
        await before.aclose()  # the replica that armed it is gone

        after = plain()
        fired: list[int] = []

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            fired.append(version)

        stop = asyncio.Event()
        (loop,) = await running(TurnTimers(after, poll_s=0.05).run(on_expire, stop))
        await eventually(lambda: bool(fired), "the restarted replica fired the timer")
        stop.set()
        await loop
        assert fired == [11]
        await after.aclose()

    run(scenario)


def test_a_claim_whose_replica_died_fires_again_after_the_lease(plain: ClientFactory) -> None:
    async def scenario() -> None:
        clock = Clock()
        dying = TurnTimers(plain(), clock=clock, lease_s=30)
        await dying.arm(KEY, 2, 1, int(clock.now_s * 1000), "forfeit")
        claimed, _ = await dying.claim_due(dying.shard_of(KEY))
        assert len(claimed) == 1  # ... and the replica dies before acting on it

        survivor = TurnTimers(plain(), clock=clock, lease_s=30)
        assert (await survivor.claim_due(survivor.shard_of(KEY)))[0] == []  # still leased
        clock.now_s += 31
        again, _ = await survivor.claim_due(survivor.shard_of(KEY))
        assert [(t.version, t.seat, t.attempts) for t in again] == [(2, 1, 2)]
        assert await survivor.acknowledge(again[0])
        assert await survivor.armed(KEY) == []

    run(scenario)


def test_a_timer_rearmed_by_its_handler_is_kept(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain(), poll_s=0.05)
        now_ms = int(time.time() * 1000)
        await timers.arm(KEY, 1, 0, now_ms - 1, "random_action")
        fired: list[int] = []

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            # The random action was appended: the same seat owes the next decision too.
            await timers.arm(key, version + 1, seat, now_ms + 3_600_000, policy)
            fired.append(version)

        stop = asyncio.Event()
        (loop,) = await running(timers.run(on_expire, stop))
        await eventually(lambda: bool(fired), "the timer fired")
        stop.set()
        await loop
        assert [(t.version, t.attempts) for t in await timers.armed(KEY)] == [(2, 0)]

    run(scenario)


def test_a_failing_handler_is_retried_then_the_timer_dropped(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain(), poll_s=0.02, lease_s=0.02, max_attempts=3)
        await timers.arm(KEY, 1, 0, int(time.time() * 1000) - 1, "forfeit")
        calls: list[int] = []

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            calls.append(version)
            raise RuntimeError("rules service down")

        stop = asyncio.Event()
        (loop,) = await running(timers.run(on_expire, stop))
        give_up = time.monotonic() + 20
        while await timers.armed(KEY) and time.monotonic() < give_up:
            await asyncio.sleep(0.02)
        stop.set()
        await loop
        assert calls == [1, 1, 1]
        assert await timers.armed(KEY) == []

    run(scenario)


def test_every_seat_owing_a_decision_is_armed_in_one_call(plain: ClientFactory) -> None:
    async def scenario() -> None:
        timers = TurnTimers(plain())
        await timers.arm(KEY, 3, 1, 1_000, "forfeit")
        await timers.arm_seats(KEY, 4, [2, 0, 2], 7_000, "random_action")
        armed = [(t.seat, t.version, t.deadline_ms, t.policy) for t in await timers.armed(KEY)]
        assert armed == [(0, 4, 7_000, "random_action"), (2, 4, 7_000, "random_action")]
        await timers.arm_seats(KEY, 3, [1], 1_000, "forfeit")  # late: ignored
        assert len(await timers.armed(KEY)) == 2

    run(scenario)


def test_a_suspended_tenants_timer_is_parked_and_its_resume_restarts_every_clock(
    any_redis: ClientFactory,
) -> None:
    """Issue 39: a timer of a suspended tenant never fires its handler (no forfeit, no action,
    nothing billed); it is parked until the tenant is resumed, then every clock of the tenant
    starts again with its whole turn time, and another tenant's timers are untouched."""

    async def scenario() -> None:
        client = any_redis()
        timers = TurnTimers(client, poll_s=0.05)
        other = MatchKey("rival", "m9")
        fired: list[MatchKey] = []
        suspended = {"acme"}

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            fired.append(key)

        restarted: list[MatchKey] = []

        async def restart(key: MatchKey) -> None:  # the use case re-arms with the match's full time
            restarted.append(key)
            await timers.arm(key, 2, 0, int(time.time() * 1000) + 60_000, "forfeit")

        past = int(time.time() * 1000) - 1
        await timers.arm(KEY, 2, 0, past, "forfeit")
        await timers.arm(other, 5, 1, past, "forfeit")
        stop = asyncio.Event()
        (loop,) = await running(timers.run(on_expire, stop, paused=lambda t: t in suspended, restart=restart))
        await eventually(lambda: fired == [other], "the active tenant's timer fired")
        await asyncio.sleep(0.3)  # several polls: the suspended tenant's timer came due too
        assert fired == [other]  # the suspended tenant's timer did not
        assert await timers.parked() == [KEY]
        assert [t.seat for t in await timers.armed(KEY)] == [0]  # kept, not dropped
        assert await timers.matches_of("acme") == [KEY] and await timers.matches_of("rival") == []

        suspended.clear()
        assert await timers.resume("acme", restart) == 1
        assert restarted == [KEY] and await timers.parked() == []
        (timer,) = await timers.armed(KEY)
        assert timer.deadline_ms > int(time.time() * 1000) + 50_000  # the whole time again
        stop.set()
        await loop
        assert fired == [other]
        await client.aclose()

    run(scenario)


def test_a_parked_clock_whose_resume_was_lost_is_restarted_by_the_sweep(plain: ClientFactory) -> None:
    """Every replica died before restarting a resumed tenant's clocks: the run loop's sweep of
    the parked sets restarts them once the tenant is no longer suspended."""

    async def scenario() -> None:
        timers = TurnTimers(plain(), poll_s=0.05)
        await timers.arm(KEY, 2, 0, int(time.time() * 1000) - 1, "forfeit")
        (claimed,), _ = await timers.claim_due(timers.shard_of(KEY))
        assert await timers.park(claimed)
        restarted: list[MatchKey] = []

        async def restart(key: MatchKey) -> None:
            restarted.append(key)
            await timers.arm(key, 2, 0, int(time.time() * 1000) + 60_000, "forfeit")

        async def on_expire(key: MatchKey, version: int, seat: int, policy: str) -> None:
            raise AssertionError("a restarted clock does not fire at once")

        stop = asyncio.Event()
        (loop,) = await running(timers.run(on_expire, stop, paused=lambda _t: False, restart=restart))
        await eventually(lambda: restarted == [KEY], "the parked clock restarted")
        stop.set()
        await loop
        assert await timers.parked() == []

    run(scenario)
