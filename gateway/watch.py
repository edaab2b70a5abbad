"""Live updates: one Redis subscription per replica, fanned out to the watchers it holds.

Every append publishes `<tenant>\\x1f<match_id>\\x1f<version>` on `gh:notify` in the same Lua
script (gateway/eventstore), so a notification is never lost for an append that happened
while we were subscribed. A watcher waits on its match's local signal, then reads what it has
not seen yet from the stream (a range read), so a late, repeated or reordered notification
does no harm: the stream, not the message, says what is new. An announced version is believed
only up to the version the store records, so a forged one cannot make real appends look old.
If the subscription drops, every watcher is woken on reconnect, and a slow periodic poll wakes
them too, so a watcher can never sleep through an append.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import structlog

from gateway import metrics
from gateway.eventstore.base import MatchKey
from gateway.subscription import live_messages, stop_listener

CHANNEL = "gh:notify"
SEPARATOR = "\x1f"
SAFETY_POLL_S = 15.0  # a wake-up for every watcher this often, whatever Redis says
POLL_SLICE_S = 0.25  # ...spread over the period, a slice of the feeds this often
RECONNECT_S = 0.5

_log = structlog.get_logger("watch")


class Signal:
    """asyncio.Event's set, clear, is_set and wait, bound to the loop it is made in. Every wait of
    an asyncio.Event looks the running loop up, and on Python 3.11 each lookup is a getpid system
    call: with a Play stream's wake-ups, 4% of the gateway's event loop (issue 45)."""

    __slots__ = ("_is_set", "_loop", "_waiters")

    def __init__(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        self._loop = asyncio.get_running_loop() if loop is None else loop
        self._is_set = False
        self._waiters: list[asyncio.Future[None]] = []

    def is_set(self) -> bool:
        return self._is_set

    def set(self) -> None:
        if self._is_set:
            return
        self._is_set = True
        for waiter in self._waiters:
            if not waiter.done():
                waiter.set_result(None)

    def clear(self) -> None:
        self._is_set = False

    async def wait(self) -> None:
        if self._is_set:
            return
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        try:
            await waiter
        finally:
            self._waiters.remove(waiter)


class _Feed:
    """The local watchers of one match: a broadcast signal replaced at every notification."""

    __slots__ = ("appending", "loop", "parked", "polls", "shared", "signal", "version", "viewers")

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.signal = Signal(self.loop)
        self.version = 0  # the highest version a notification announced
        self.polls = 0  # wake-ups without a version (safety polls, resubscriptions) so far
        # The open streams (watchers) by the seat they see the match as (None: the spectator).
        self.viewers: dict[int | None, int] = {}
        # Appends of this replica to the match in flight, and the highest version Redis
        # announced meanwhile (checked once they are over, if they did not reach it).
        self.appending = 0
        self.parked = 0
        # Work the watchers of this match share for the version announced last, or for the
        # last poll (the servicer keys it by seat and position); dropped at every wake-up.
        self.shared: dict[Any, Any] = {}

    def wake(self, version: int | None = None) -> None:
        if version is not None:
            if version <= self.version:
                return  # a duplicate or late notification: watchers already know
            self.version = version
        else:
            self.polls += 1
        self.shared = {}
        self.signal.set()
        self.signal = Signal(self.loop)


class _Appending:
    """WatchHub.appending's block (a class: it wraps every append; see store._InFlight)."""

    __slots__ = ("_feed", "_hub", "_key")

    def __init__(self, hub: WatchHub, key: MatchKey) -> None:
        self._hub, self._key = hub, key
        self._feed: _Feed | None = None

    def __enter__(self) -> None:
        # Nobody watching here: the notifications are dropped at once anyway.
        self._feed = self._hub._feeds.get(self._key)
        if self._feed is not None:
            self._feed.appending += 1

    def __exit__(self, *_: object) -> None:
        feed = self._feed
        if feed is None:
            return
        feed.appending -= 1
        if not feed.appending and feed.parked:
            # After the caller's own `notify`, which follows the append in the same step.
            feed.loop.call_soon(self._hub._unparked, self._key, feed)


def stream_versions(store: Any) -> Callable[[MatchKey], Awaitable[int]]:
    """How a hub checks an announced version: the match's version as the event store records
    it (gateway.eventstore.async_redis.AsyncRedisEventStore.head)."""

    async def version(key: MatchKey) -> int:
        recorded, _ = await store.head(key)
        return int(recorded)

    return version


def parse_notification(data: bytes | str) -> tuple[MatchKey, int] | None:
    """The match and version of a `gh:notify` message; None if it is not one of ours."""
    text = data.decode(errors="replace") if isinstance(data, bytes) else data
    parts = text.split(SEPARATOR)
    if len(parts) != 3 or not parts[2].isdigit():
        return None
    try:
        return MatchKey(parts[0], parts[1]), int(parts[2])
    except ValueError:
        return None


class WatchHub:
    """Fans `gh:notify` out to the watchers of this process. `subscriber` is a redis.asyncio.Redis
    (for a cluster, a client on any one node: PUBLISH reaches every node of a cluster)."""

    def __init__(
        self,
        subscriber: Any,
        *,
        safety_poll_s: float = SAFETY_POLL_S,
        on_notify: Callable[[MatchKey, int], None] | None = None,
        stream_version: Callable[[MatchKey], Awaitable[int]] | None = None,
    ) -> None:
        self._redis = subscriber
        # The match's version as the store records it: a notification announcing more than
        # that is not believed (`stream_versions`; None trusts announcements, for tests of the
        # hub alone).
        self._stream_version = stream_version
        self._checks: set[asyncio.Task[None]] = set()
        # Told of every append (watched or not) before watchers wake: the use cases drop a
        # cached state another replica has moved past, so a woken watcher reads the new one.
        self._on_notify = on_notify
        self._feeds: dict[MatchKey, _Feed] = {}
        self._poll_s = safety_poll_s
        self._task: asyncio.Task[None] | None = None
        self._poller: asyncio.Task[None] | None = None
        self.subscribed = asyncio.Event()
        self.notifications = 0

    @property
    def open_watchers(self) -> int:
        return sum(sum(feed.viewers.values()) for feed in self._feeds.values())

    def viewers(self, key: MatchKey) -> frozenset[int | None]:
        """The seats (None: the spectator) whose streams of this process follow the match (Watch
        or Play); empty when none does."""
        feed = self._feeds.get(key)
        return frozenset(feed.viewers) if feed is not None else frozenset()

    async def start(self) -> None:
        """Subscribe (returns once subscribed, so no append after this is missed)."""
        self._task = asyncio.create_task(self._listen(), name="watch-hub")
        self._poller = asyncio.create_task(self._poll(), name="watch-hub-poll")
        subscribed = asyncio.create_task(self.subscribed.wait())
        done, _ = await asyncio.wait({subscribed, self._task}, return_when=asyncio.FIRST_COMPLETED)
        if self._task in done:
            subscribed.cancel()
            self._task.result()  # raises why the subscription failed

    async def stop(self) -> None:
        for task in (self._task, self._poller, *self._checks):
            if task is not None:
                await stop_listener(task)
        self.wake_all()  # watchers see the stop and end their streams

    def wake_all(self) -> None:
        for feed in self._feeds.values():
            feed.wake()

    def notify(self, key: MatchKey, version: int) -> None:
        """What a notification does; also called directly by this replica after its own appends."""
        feed = self._feeds.get(key)
        if feed is not None:
            feed.wake(version)

    async def _listen(self) -> None:
        first = True
        while True:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(CHANNEL)
                self.subscribed.set()
                if not first:
                    _log.info("notification channel resubscribed; waking every watcher")
                    self.wake_all()  # appends may have happened while we were away
                first = False
                async for message in live_messages(pubsub):
                    parsed = parse_notification(message["data"])
                    if parsed is not None:
                        self.notifications += 1
                        metrics.NOTIFICATIONS.inc()
                        if self._on_notify is not None:
                            self._on_notify(*parsed)
                        self._announced(*parsed)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # the connection dropped: resubscribe
                if first:
                    raise
                self.subscribed.clear()
                _log.warning("notification channel lost; resubscribing", error=str(exc))
                await asyncio.sleep(RECONNECT_S)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def _announced(self, key: MatchKey, version: int) -> None:
        """A notification from Redis wakes the match's watchers once the stream has its version.

        Anyone who can PUBLISH can announce any version (issue 22: after one forged
        "<tenant>\\x1f<match>\\x1f999999999" every real append looked old, and watchers slept
        until the safety poll): the announced version is checked against the store, and only
        what the stream holds is believed."""
        feed = self._feeds.get(key)
        if feed is None or version <= feed.version:
            return  # nobody watches here, or they already know
        if self._stream_version is None:
            feed.wake(version)
            return
        if feed.appending:
            # Usually this replica's own append, announced by Redis before the append's reply
            # came back: its announcement (`notify`) follows without a read. Whatever it does not
            # cover is checked when the appends are over (`_unparked`).
            feed.parked = max(feed.parked, version)
            return
        self._check(key, version)

    def _check(self, key: MatchKey, version: int) -> None:
        check = asyncio.create_task(self._checked(key, version))
        self._checks.add(check)
        check.add_done_callback(self._checks.discard)

    async def _checked(self, key: MatchKey, version: int) -> None:
        assert self._stream_version is not None
        try:
            actual = await self._stream_version(key)
        except Exception as exc:  # the store is unreachable: wake them to look for themselves
            _log.warning("cannot check a notification against the stream", error=str(exc))
            feed = self._feeds.get(key)
            if feed is not None:
                feed.wake()
            return
        if version > actual:
            _log.warning(
                "a notification announces a version the stream does not hold",
                match_id=key.match_id,
                announced=version,
                stream=actual,
            )
        self.notify(key, min(version, actual))

    def appending(self, key: MatchKey) -> _Appending:
        """Around an append of this replica to `key` (`with`): Redis's notification of it is not
        checked against the stream (a read per notification), the append's own `notify` wakes the
        watchers; other notifications that arrive meanwhile are checked once it is over."""
        return _Appending(self, key)

    def _unparked(self, key: MatchKey, feed: _Feed) -> None:
        if feed.appending or self._feeds.get(key) is not feed:
            return  # another append of ours is in flight (its end looks again), or nobody watches
        parked, feed.parked = feed.parked, 0
        if parked > feed.version:
            self._check(key, parked)

    async def _poll(self) -> None:
        """Wake every feed once per period, a slice of them at a time. All at once, every stream
        checked with Redis in one burst and every action waited behind it (800 paced matches on
        Play streams: p99 1.1 s). A feed that starts meanwhile is woken from the next period."""
        slices = max(1, int(self._poll_s / POLL_SLICE_S))
        while True:
            keys = list(self._feeds)
            for part in range(slices):
                await asyncio.sleep(self._poll_s / slices)
                for key in keys[part::slices]:
                    feed = self._feeds.get(key)
                    if feed is not None:
                        feed.wake()

    @contextlib.asynccontextmanager
    async def watching(self, key: MatchKey, viewer: int | None = None) -> AsyncIterator[_Feed]:
        """Register one watcher of `key`, seeing it as seat `viewer` (None: a spectator), for the
        duration of the block."""
        feed = self._feeds.get(key)
        if feed is None:
            feed = self._feeds[key] = _Feed()
        feed.viewers[viewer] = feed.viewers.get(viewer, 0) + 1
        try:
            yield feed
        finally:
            left = feed.viewers[viewer] - 1
            if left:
                feed.viewers[viewer] = left
            else:
                del feed.viewers[viewer]
            if not feed.viewers and self._feeds.get(key) is feed:
                del self._feeds[key]

    @staticmethod
    async def wait(feed: _Feed, known_version: int, timeout_s: float | None = None) -> None:
        """Until something newer than `known_version` may exist (or a wake-up, or the timeout)."""
        if feed.version > known_version:
            return
        signal = feed.signal
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(signal.wait(), timeout_s)
