"""The notification hub on a real Redis: one subscription fans out to every local watcher."""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as aioredis

from gateway.eventstore.base import MatchKey
from gateway.watch import CHANNEL, WatchHub, parse_notification

KEY = MatchKey("acme", "m1")


def test_notifications_parse_and_garbage_is_ignored() -> None:
    assert parse_notification(b"acme\x1fm1\x1f7") == (KEY, 7)
    assert parse_notification("acme\x1fm1\x1f7") == (KEY, 7)
    for garbage in (b"", b"acme\x1fm1", b"acme\x1fm1\x1fx", b"a:b\x1fm1\x1f3", b"a\x1fb\x1fc\x1f4"):
        assert parse_notification(garbage) is None


async def _with_hub(redis_url: str, body: Any, **kwargs: Any) -> Any:
    client = aioredis.Redis.from_url(redis_url)
    hub = WatchHub(client, **kwargs)
    await hub.start()
    try:
        return await body(client, hub)
    finally:
        await hub.stop()
        await client.aclose()


def test_one_publish_wakes_every_watcher_of_that_match_only(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> tuple[list[bool], bool, int]:
        async with hub.watching(KEY) as a, hub.watching(KEY) as b, hub.watching(MatchKey("acme", "m2")) as c:
            assert hub.open_watchers == 3
            waits = [asyncio.create_task(hub.wait(feed, 0, 5.0)) for feed in (a, b)]
            other = asyncio.create_task(hub.wait(c, 0, 0.5))
            await client.publish(CHANNEL, b"acme\x1fm1\x1f1")
            await asyncio.gather(*waits)
            await other
            return [a.version == 1, b.version == 1], c.version == 0, hub.notifications

    versions, other_untouched, count = asyncio.run(_with_hub(redis_url, body))
    assert versions == [True, True] and other_untouched and count == 1


def test_the_hub_knows_which_viewers_watch_a_match_while_their_streams_are_open(redis_url: str) -> None:
    """Issue 45: the seats (None: a spectator) with a stream here are the viewers a Validate is
    asked to bring events and views for; a viewer leaves the set with its last stream."""

    async def body(client: Any, hub: WatchHub) -> list[frozenset[int | None]]:
        seen = [hub.viewers(KEY)]
        async with hub.watching(KEY, 1), hub.watching(KEY, None):
            async with hub.watching(KEY, 1), hub.watching(MatchKey("acme", "m2"), 0):
                seen.append(hub.viewers(KEY))
            seen.append(hub.viewers(KEY))
        seen.append(hub.viewers(KEY))
        return seen

    assert asyncio.run(_with_hub(redis_url, body)) == [
        frozenset(), frozenset({1, None}), frozenset({1, None}), frozenset()
    ]  # fmt: skip


def test_a_notification_before_the_wait_is_not_missed(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> int:
        async with hub.watching(KEY) as feed:
            await client.publish(CHANNEL, b"acme\x1fm1\x1f3")
            for _ in range(200):  # until the hub has processed it
                if feed.version == 3:
                    break
                await asyncio.sleep(0.01)
            await hub.wait(feed, 2, timeout_s=None)  # returns at once: 3 is newer than 2
            return feed.version

    assert asyncio.run(_with_hub(redis_url, body)) == 3


def test_late_or_duplicate_notifications_do_not_wake_anyone(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> bool:
        async with hub.watching(KEY) as feed:
            hub.notify(KEY, 5)
            signal = feed.signal
            hub.notify(KEY, 4)  # older than what we know: ignored
            hub.notify(KEY, 5)
            return feed.signal is signal and not signal.is_set()

    assert asyncio.run(_with_hub(redis_url, body))


def test_the_safety_poll_wakes_watchers_without_any_notification(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> bool:
        async with hub.watching(KEY) as feed:
            await asyncio.wait_for(hub.wait(feed, 0, timeout_s=None), 5.0)
            return feed.version == 0  # woken, though nothing was announced

    assert asyncio.run(_with_hub(redis_url, body, safety_poll_s=0.05))


def test_watchers_leave_no_trace_after_they_go(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> int:
        for _ in range(3):
            async with hub.watching(KEY):
                pass
        await client.publish(CHANNEL, b"acme\x1fm1\x1f9")
        await asyncio.sleep(0.05)
        return hub.open_watchers + len(hub._feeds)

    assert asyncio.run(_with_hub(redis_url, body)) == 0


def test_the_subscription_uses_one_connection_however_many_watchers(redis_url: str) -> None:
    async def body(client: Any, hub: WatchHub) -> tuple[int, int]:
        async def subscribers() -> int:
            return int((await client.execute_command("PUBSUB", "NUMSUB", CHANNEL))[1])

        before = await subscribers()  # the hub's own subscription (and any other process's)
        keys = [MatchKey("acme", f"m{n}") for n in range(200)]
        async with _many(hub, keys):
            return before, await subscribers()

    before, during = asyncio.run(_with_hub(redis_url, body))
    assert before >= 1 and during == before


class _many:
    def __init__(self, hub: WatchHub, keys: list[MatchKey]) -> None:
        self.contexts = [hub.watching(k) for k in keys]

    async def __aenter__(self) -> None:
        for context in self.contexts:
            await context.__aenter__()

    async def __aexit__(self, *exc: object) -> None:
        for context in self.contexts:
            await context.__aexit__(None, None, None)


def _counting_checks(recorded: int) -> tuple[list[MatchKey], Any]:
    """A stream_version that answers `recorded` and remembers every check it was asked."""
    asked: list[MatchKey] = []

    async def version(key: MatchKey) -> int:
        asked.append(key)
        return recorded

    return asked, version


async def _settle() -> None:
    for _ in range(5):  # the call_soon after an append, then the check task it may start
        await asyncio.sleep(0)


def test_a_notification_of_this_replicas_own_append_costs_no_check() -> None:
    """Redis announces an append usually before its reply reaches the replica that made it: the
    hub then waits for that replica's own announcement instead of reading the stream."""
    asked, version = _counting_checks(recorded=4)

    async def body() -> tuple[int, list[MatchKey]]:
        hub = WatchHub(None, stream_version=version)
        async with hub.watching(KEY) as feed:
            with hub.appending(KEY):
                hub._announced(KEY, 4)  # Redis's notification, before the append's reply
                assert feed.version == 0  # parked, not yet believed
            hub.notify(KEY, 4)  # the append's own announcement, in the same step
            await _settle()
            return feed.version, list(asked)

    assert asyncio.run(body()) == (4, [])


def test_a_notification_beyond_this_replicas_append_is_checked_once_it_is_over() -> None:
    """What the replica's own announcement does not cover (another replica's append, or a forged
    version) is checked against the stream once the append is over, and believed up to it."""
    asked, version = _counting_checks(recorded=6)

    async def body() -> tuple[int, int]:
        hub = WatchHub(None, stream_version=version)
        async with hub.watching(KEY) as feed:
            with hub.appending(KEY):
                hub._announced(KEY, 5)
                hub._announced(KEY, 999_999)  # forged
            hub.notify(KEY, 5)
            await _settle()
            return feed.version, len(asked)

    assert asyncio.run(body()) == (6, 1)


def test_a_notification_parked_by_a_failed_append_is_still_checked() -> None:
    """An append that lost a race (a conflict) announces nothing: the winner's notification,
    parked meanwhile, wakes the watchers after a check."""
    asked, version = _counting_checks(recorded=3)

    async def body() -> tuple[int, int]:
        hub = WatchHub(None, stream_version=version)
        async with hub.watching(KEY) as feed:
            try:
                with hub.appending(KEY):
                    hub._announced(KEY, 3)
                    raise RuntimeError("conflict")
            except RuntimeError:
                pass
            await _settle()
            return feed.version, len(asked)

    assert asyncio.run(body()) == (3, 1)


def test_overlapping_appends_check_what_they_parked_only_after_the_last() -> None:
    asked, version = _counting_checks(recorded=8)

    async def body() -> tuple[int, int, int]:
        hub = WatchHub(None, stream_version=version)
        async with hub.watching(KEY) as feed:
            first, second = hub.appending(KEY), hub.appending(KEY)
            first.__enter__()
            second.__enter__()
            hub._announced(KEY, 8)
            first.__exit__(None, None, None)
            await _settle()
            checks_while_one_is_in_flight = len(asked)
            second.__exit__(None, None, None)
            await _settle()
            return checks_while_one_is_in_flight, len(asked), feed.version

    assert asyncio.run(body()) == (0, 1, 8)


def test_the_safety_poll_wakes_every_feed_once_per_period_a_slice_at_a_time() -> None:
    """Spread over the period (a burst of every stream's check at once held every action behind
    it): with two slices, two feeds are woken at different moments, each once per period. The
    poll alone, on a hub that never subscribed."""

    async def body() -> tuple[bool, bool]:
        hub = WatchHub(None, safety_poll_s=0.5)
        keys = [MatchKey("acme", f"s{n}") for n in range(2)]
        async with hub.watching(keys[0]) as first, hub.watching(keys[1]) as second:
            woken: dict[int, float] = {}

            async def until_woken(number: int, feed: Any) -> None:
                await hub.wait(feed, 0, timeout_s=None)
                woken[number] = asyncio.get_running_loop().time()

            poller = asyncio.create_task(hub._poll())
            try:
                await asyncio.wait_for(asyncio.gather(until_woken(0, first), until_woken(1, second)), 5.0)
            finally:
                poller.cancel()
            return min(first.polls, second.polls) >= 1, woken[0] != woken[1]

    assert asyncio.run(body()) == (True, True)
