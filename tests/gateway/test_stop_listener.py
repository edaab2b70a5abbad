"""Stopping a pub/sub listener ends it even when a cancellation is lost on the way: a cancel that
landed as redis-py's timed read gave up was swallowed once, the listener read on, and
`WatchHub.stop` waited for it forever (tests/gateway/test_stream_limits.py hung in a full run)."""

from __future__ import annotations

import asyncio

from gateway.subscription import stop_listener


def test_a_listener_that_loses_its_first_cancellations_is_cancelled_until_it_ends() -> None:
    lost = 0

    async def listener() -> None:
        nonlocal lost
        while True:
            try:
                await asyncio.sleep(3600)  # a read that waits for the next message
            except asyncio.CancelledError:
                if lost < 2:  # what the timed read did with a cancel: carry on reading
                    lost += 1
                    asyncio.current_task().uncancel()  # type: ignore[union-attr]
                    continue
                raise

    async def main() -> asyncio.Task[None]:
        task = asyncio.create_task(listener())
        await asyncio.sleep(0)
        await asyncio.wait_for(stop_listener(task), 10)  # bounded: a hang fails the test
        return task

    task = asyncio.run(main())
    assert lost == 2 and task.cancelled()


def test_a_listener_that_failed_is_stopped_without_raising() -> None:
    async def main() -> asyncio.Task[None]:
        async def failing() -> None:
            raise ConnectionError("the node went away")

        task = asyncio.create_task(failing())
        await asyncio.sleep(0)
        await stop_listener(task)
        return task

    assert isinstance(asyncio.run(main()).exception(), ConnectionError)
