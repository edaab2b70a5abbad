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
