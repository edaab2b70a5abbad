"""watch.Signal behaves as asyncio.Event does where the gateway uses it (Play wake-ups, feeds)."""

from __future__ import annotations

import asyncio

import pytest

from gateway.watch import Signal


def test_a_signal_wakes_every_waiter_once_set_and_a_cancelled_waiter_touches_no_other() -> None:
    async def scenario() -> None:
        signal = Signal()
        woken: list[str] = []

        async def wait(name: str) -> None:
            await signal.wait()
            woken.append(name)

        a, b, c = (asyncio.create_task(wait(n)) for n in "abc")
        await asyncio.sleep(0)
        assert not signal.is_set() and woken == []
        b.cancel()
        with pytest.raises(asyncio.CancelledError):
            await b
        signal.set()
        await asyncio.gather(a, c)
        assert sorted(woken) == ["a", "c"]
        await asyncio.wait_for(signal.wait(), 1)  # set: returns at once
        signal.clear()
        assert not signal.is_set()
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(signal.wait(), 0.01)
        assert signal._waiters == []  # nothing left behind by a wait that gave up

    asyncio.run(scenario())
