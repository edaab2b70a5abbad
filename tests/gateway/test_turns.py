"""MatchTurns: one holder per match at a time, in the order they asked; nothing kept after."""

from __future__ import annotations

import asyncio

import pytest

from gateway.usecases.turns import MatchTurns


def test_holders_of_one_key_go_one_at_a_time_in_order_and_other_keys_do_not_wait() -> None:
    async def scenario() -> None:
        turns = MatchTurns()
        log: list[str] = []
        release = asyncio.Event()

        async def hold(key: str, name: str) -> None:
            async with turns.turn(key):
                log.append(f"{name} in")
                await release.wait()
                log.append(f"{name} out")

        first = asyncio.create_task(hold("m1", "a"))
        await asyncio.sleep(0)
        second, third = asyncio.create_task(hold("m1", "b")), asyncio.create_task(hold("m1", "c"))
        other = asyncio.create_task(hold("m2", "x"))
        await asyncio.sleep(0.01)
        assert log == ["a in", "x in"]  # m1's others wait; m2 has a turn of its own
        release.set()
        await asyncio.gather(first, second, third, other)
        assert [line for line in log if line.endswith("in")] == ["a in", "x in", "b in", "c in"]
        assert log.index("a out") < log.index("b in") and log.index("b out") < log.index("c in")
        assert len(turns) == 0

    asyncio.run(scenario())


def test_a_waiter_cancelled_or_a_holder_failing_leaves_no_turn_behind() -> None:
    async def scenario() -> None:
        turns = MatchTurns()
        held = asyncio.Event()
        release = asyncio.Event()

        async def hold() -> None:
            async with turns.turn("m"):
                held.set()
                await release.wait()

        holder = asyncio.create_task(hold())
        await held.wait()
        waiter = asyncio.create_task(hold())
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        release.set()
        await holder
        assert len(turns) == 0

        with pytest.raises(RuntimeError):
            async with turns.turn("m"):
                raise RuntimeError("the decision failed")
        assert len(turns) == 0
        async with turns.turn("m"):  # and the next one gets its turn at once
            assert len(turns) == 1

    asyncio.run(scenario())
