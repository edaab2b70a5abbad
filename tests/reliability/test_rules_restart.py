"""A rules service SIGKILLed and restarted on its port: the gateway's rules clients (blocking and
grpc.aio, same service config) fail cleanly with UNAVAILABLE meanwhile, recover by themselves
once it is back, and never return a different answer: rules calls are pure, so a retried call
answers exactly what the first would have."""

from __future__ import annotations

import asyncio
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from devstack.processes import RulesProcess
from gateway.rules_client import Accepted, AsyncRulesClient, RulesClient
from services.kernel import Rejection

GAME = "rattus_cartus"
SEED = 20121347
GIVE_UP_S = 60.0  # a generous bound, only so a broken client fails the test instead of hanging it


@pytest.fixture
def rules(tmp_path: Path) -> Iterator[RulesProcess]:
    process = RulesProcess(GAME, tmp_path, log_level="warning")
    process.start()
    try:
        yield process
    finally:
        process.kill()


def decided(result: Accepted | Rejection) -> tuple[object, ...]:
    """What a Validate answer says, comparable across calls."""
    if isinstance(result, Rejection):
        return ("rejected", result.code)
    assert result.state is not None
    return ("accepted", tuple((e.type, e.json) for e in result.events), result.state.state)


def test_blocking_client_fails_unavailable_while_down_and_answers_the_same_after_restart(
    rules: RulesProcess,
) -> None:
    client = RulesClient(GAME, rules.target, timeout_s=5.0)
    try:
        state, _ = client.setup(3, SEED)
        action = client.legal_actions(state, 0)[0]
        expected = decided(client.validate(state, 0, action))

        rules.kill()
        with pytest.raises(grpc.RpcError) as down:
            client.validate(state, 0, action)
        assert down.value.code() == grpc.StatusCode.UNAVAILABLE

        rules.start()
        codes: Counter[grpc.StatusCode] = Counter()
        deadline = time.monotonic() + GIVE_UP_S
        while True:
            try:
                answer = decided(client.validate(state, 0, action))
                break
            except grpc.RpcError as error:  # the channel's reconnect backoff may not be over yet
                codes[error.code()] += 1
                assert time.monotonic() < deadline, f"no recovery after the restart: {codes}"
                time.sleep(0.05)
        assert answer == expected
        assert set(codes) <= {grpc.StatusCode.UNAVAILABLE}
    finally:
        client.close()


def test_calls_in_flight_across_a_kill_and_restart_answer_right_or_fail_unavailable(
    rules: RulesProcess,
) -> None:
    """Callers keep calling while the service dies and comes back: each answer is the one the
    service gives for that input, or UNAVAILABLE; never another answer, never INTERNAL/UNKNOWN."""
    outcomes: Counter[str] = Counter()
    wrong: list[str] = []

    async def caller(client: AsyncRulesClient, stop: asyncio.Event, inputs: list[tuple[object, ...]]) -> None:
        number = 0
        while not stop.is_set():
            state, seat, action, expected = inputs[number % len(inputs)]
            number += 1
            try:
                answer = decided(await client.validate(state, seat, action))  # type: ignore[arg-type]
            except grpc.aio.AioRpcError as error:
                outcomes[error.code().name] += 1
                if error.code() != grpc.StatusCode.UNAVAILABLE:
                    wrong.append(f"status {error.code().name}: {error.details()}")
                await asyncio.sleep(0.01)
                continue
            outcomes["answered"] += 1
            if answer != expected:
                wrong.append(f"a different answer for input {number % len(inputs)}")

    async def scenario() -> None:
        client = AsyncRulesClient(GAME, rules.target, timeout_s=5.0)
        try:
            # Inputs and their answers, asked before any fault (setup through the blocking twin).
            inputs: list[tuple[object, ...]] = []
            blocking = RulesClient(GAME, rules.target)
            for players in (2, 3, 4):
                state, _ = blocking.setup(players, SEED + players)
                # An unlisted action and another seat must keep their rejections across restarts too.
                tried = [*blocking.legal_actions(state, 0)[:3], b'{"type": "no_such_action"}']
                for seat, action in [(0, a) for a in tried] + [(players - 1, tried[0])]:
                    inputs.append((state, seat, action, decided(blocking.validate(state, seat, action))))
            blocking.close()

            stop = asyncio.Event()
            tasks = [asyncio.create_task(caller(client, stop, inputs)) for _ in range(4)]
            for _ in range(2):
                await wait_until(lambda: outcomes["answered"] > 20)
                answered = outcomes["answered"]
                await asyncio.to_thread(rules.kill)
                await wait_until(lambda: outcomes["UNAVAILABLE"] > 0)
                await asyncio.to_thread(rules.start)
                await wait_until(lambda a=answered: outcomes["answered"] > a + 20)
                outcomes["UNAVAILABLE"] = 0
            stop.set()
            await asyncio.gather(*tasks)
        finally:
            await client.close()

    asyncio.run(scenario())
    assert wrong == []


async def wait_until(condition: object) -> None:
    deadline = time.monotonic() + GIVE_UP_S
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, "gave up waiting"
        await asyncio.sleep(0.01)


def test_a_rules_service_killed_mid_call_leaves_no_thread_waiting(rules: RulesProcess) -> None:
    """A blocking call in flight when the process dies returns (UNAVAILABLE) instead of hanging."""
    client = RulesClient(GAME, rules.target, timeout_s=30.0)
    try:
        state, _ = client.setup(4, SEED)
        action = client.legal_actions(state, 0)[0]
        results: list[object] = []

        def call_many() -> None:
            for _ in range(2000):
                try:
                    client.validate(state, 0, action)
                except grpc.RpcError as error:
                    results.append(error.code())
                    return
            results.append("never failed")

        thread = threading.Thread(target=call_many)
        thread.start()
        time.sleep(0.2)
        rules.kill()
        thread.join(GIVE_UP_S)
        assert not thread.is_alive()
        assert results in ([grpc.StatusCode.UNAVAILABLE], ["never failed"])
    finally:
        client.close()
